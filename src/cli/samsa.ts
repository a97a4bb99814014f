#!/usr/bin/env node
/**
 * The `samsa` command. `samsa` or `samsa start [--config FILE] [--override key=value ...]` runs a
 * broker (Kafka-named settings; KAFKA_* environment variables as in the apache/kafka image).
 */
import { runBroker } from '../main.js';

const args = process.argv.slice(2);
const sub = args[0] && !args[0].startsWith('-') ? args[0] : 'start';
const rest = sub === args[0] ? args.slice(1) : args;

if (sub === 'start') {
  runBroker(rest).catch((err) => {
    process.stderr.write(`samsa: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
} else if (sub === 'help' || sub === '--help') {
  process.stdout.write('usage: samsa [start] [--config server.properties] [--override key=value ...]\n');
} else {
  process.stderr.write(`samsa: unknown command '${sub}' (try: samsa start)\n`);
  process.exit(2);
}
