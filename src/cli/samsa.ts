#!/usr/bin/env node
/**
 * The `samsa` command.
 *
 *   samsa [start] [--config server.properties] [--override key=value ...]   run a broker
 *   samsa topics list|create|describe|delete                               manage topics
 *   samsa produce TOPIC / samsa consume TOPIC                              kcat-like data in and out
 *   samsa groups list|describe                                             consumer groups and lag
 *   samsa dlq tail GROUP                                                   a share group's dead-lettered records
 *   samsa log-dirs --log-dir DIR                                           sizes, dirty ratio, last cleaning
 *   samsa cluster start [--brokers 3]                                      etcd + brokers on loopback
 *
 * The broker takes Kafka-named settings (and KAFKA_* environment variables as in the apache/kafka
 * image); the client commands take --bootstrap host:port (default localhost:9092).
 */
// Modules load lazily: a client command does not pay for the broker's, and `start` not for the CLI's.
import { UsageError } from './args.js';
import type { Io } from './commands.js';

const HELP = `usage: samsa <command> [options]

  start [--config FILE] [--override key=value ...]   run a broker (the default command); --control: the test
                                                     control over HTTP at /control (loopback clients only)
  topics list|create|describe|delete                 manage topics
  produce TOPIC [--value V | stdin lines]            produce records (key, headers, partition)
  consume TOPIC [--from POS] [--to POS] [-c N] [-e]  read records without a consumer group
  groups list|describe GROUP                         consumer groups, committed offsets and lag
  dlq tail GROUP [consume options]                   a share group's dead-lettered records with their headers
  log-dirs --log-dir DIR [--topic NAME]              per partition: size, cleaner dirty ratio, last cleaning (local read)
  schedule list TOPIC                                pending records of a schedule topic by due minute
  cluster start [--brokers N]                        etcd and N brokers on loopback (development)

Client commands connect to --bootstrap host:port (default localhost:9092, or $SAMSA_BOOTSTRAP);
--command-config FILE takes Kafka client properties for TLS and SASL (security.protocol, sasl.mechanism,
sasl.jaas.config, ssl.truststore.location, ...).
'samsa <command> --help' describes a command's options.
`;

const args = process.argv.slice(2);
const sub = args[0] && !args[0].startsWith('-') ? args[0] : args[0] === '--help' || args[0] === '-h' ? 'help' : 'start';
const rest = sub === args[0] ? args.slice(1) : args;

const io: Io = {
  out: (s) => { process.stdout.write(s); },
  err: (s) => { process.stderr.write(s); },
  stdin: process.stdin,
  progress: process.stderr.isTTY === true,
};

/** Runs a command that reads until SIGINT / SIGTERM (consume, dlq tail): the signal aborts it, then the handlers go. */
function untilSignal(run: (signal: AbortSignal) => Promise<void>): void {
  const abort = new AbortController();
  process.once('SIGINT', () => abort.abort());
  process.once('SIGTERM', () => abort.abort());
  void run(abort.signal).then(() => { process.removeAllListeners('SIGINT'); process.removeAllListeners('SIGTERM'); });
}

async function client(run: () => Promise<number>): Promise<void> {
  try {
    const code = await run();
    process.exitCode = code;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`samsa ${sub}: ${err.message}\n(try 'samsa ${sub} --help')\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`samsa ${sub}: ${err instanceof Error ? err.message : String(err)}\n`);
      if (process.env.SAMSA_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
      process.exitCode = 1;
    }
  }
}

// Output piped into `head` and closed early is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

switch (sub) {
  case 'start':
    import('../main.js').then(({ runBroker }) => runBroker(rest)).catch((err) => {
      process.stderr.write(`samsa: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    });
    break;
  case 'topics':
    void client(async () => (await import('./commands.js')).topicsCommand(rest, io));
    break;
  case 'produce':
    void client(async () => (await import('./commands.js')).produceCommand(rest, io));
    break;
  case 'consume':
    untilSignal((signal) => client(async () => (await import('./commands.js')).consumeCommand(rest, io, signal)));
    break;
  case 'groups':
    void client(async () => (await import('./groups.js')).groupsCommand(rest, io));
    break;
  case 'schedule':
    void client(async () => (await import('./schedule.js')).scheduleCommand(rest, io));
    break;
  case 'dlq':
    untilSignal((signal) => client(async () => (await import('./share-groups.js')).dlqCommand(rest, io, signal)));
    break;
  case 'log-dirs':
    void client(async () => (await import('./log-dirs.js')).logDirsCommand(rest, io));
    break;
  case 'cluster': {
    const abort = new AbortController();
    process.once('SIGINT', () => abort.abort());
    process.once('SIGTERM', () => abort.abort());
    void client(async () => (await import('./cluster.js')).clusterCommand(rest, io, abort.signal));
    break;
  }
  case 'help':
    process.stdout.write(HELP);
    break;
  default:
    process.stderr.write(`samsa: unknown command '${sub}'\n${HELP}`);
    process.exitCode = 2;
}
