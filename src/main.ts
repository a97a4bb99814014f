/**
 * `npm start` / `samsa start`: load the Kafka-named configuration (--config FILE, --override
 * key=value, KAFKA_* environment variables), start the broker, stop gracefully on SIGTERM/SIGINT
 * (stop accepting, answer in-flight requests, leave the cluster, flush, close files, exit 0).
 * With samsa.etcd.endpoints the broker joins that cluster; etcd unreachable for
 * samsa.etcd.connect.timeout.ms, or a node.id held by a live broker, or a log dir of another
 * cluster or node (meta.properties), exits 3 with the reason.
 */
import { loadConfig } from './config.js';
import { Broker } from './broker/broker.js';
import { allHandlers } from './broker/handlers/index.js';
import { startBrokerHttp } from './http/server.js';
import { ConfigError } from './errors.js';
import { createLogger } from './logger.js';
import { EtcdUnreachableError } from './cluster/etcd-client.js';
import { DuplicateBrokerRegistrationError } from './cluster/metadata-store.js';
import { InconsistentClusterIdError } from './cluster/meta-properties.js';
import { BrokerControl } from './testing/control.js';
import { ControlHttp } from './testing/control-http.js';

export async function runBroker(argv: string[]): Promise<void> {
  const logger = createLogger();
  // Signal handlers come first: a SIGTERM that arrives while the broker is still starting (or
  // right after it said so) stops it as soon as it is up, instead of killing the process.
  let broker: Broker | null = null;
  let stopRequested: string | null = null;
  let stopping = false;
  const stop = (signal: string) => {
    stopRequested = signal;
    if (!broker || stopping) return;
    stopping = true;
    logger.info(`${signal}: stopping`);
    broker.stop().then(
      () => process.exit(0),
      (err) => {
        logger.error('stop failed', err);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // --control: the test control over HTTP, at /control on the HTTP listener, loopback clients only.
  const control = argv.includes('--control');
  argv = argv.filter((a) => a !== '--control');
  try {
    const config = loadConfig({ argv, env: process.env, cwd: process.cwd() });
    broker = await Broker.start({ config, logger: logger, handlers: allHandlers, http: startBrokerHttp });
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`samsa: ${err.message}\n`);
      process.exit(2);
    }
    const e = err as NodeJS.ErrnoException;
    if (e && e.code === 'EADDRINUSE') {
      process.stderr.write(`samsa: port already in use (${e.message}); stop the other broker or set --override listeners=PLAINTEXT://:PORT\n`);
      process.exit(2);
    }
    if (err instanceof EtcdUnreachableError || err instanceof DuplicateBrokerRegistrationError || err instanceof InconsistentClusterIdError) {
      process.stderr.write(`samsa: ${err.message}\n`);
      process.exit(3);
    }
    if (e && (e.code === 'EACCES' || e.code === 'EROFS' || e.code === 'ENOTDIR' || e.code === 'EEXIST')) {
      process.stderr.write(`samsa: cannot use the data directory (${e.message}); set --override log.dirs=/writable/path\n`);
      process.exit(2);
    }
    throw err;
  }
  if (control) {
    if (!broker.http) {
      process.stderr.write('samsa: --control needs the HTTP listener (samsa.http.listeners is empty or its address was taken)\n');
      await broker.stop();
      process.exit(2);
    }
    broker.testControl = new ControlHttp(new BrokerControl(broker));
    logger.info(`test control at ${broker.http.urls[0]}/control (loopback clients only)`);
  }
  logger.info(`Samsa started: cluster ${broker.metadataCache.clusterId}, node ${broker.nodeId}, data in ${broker.config.logDirs.join(',')}`);
  if (stopRequested) stop(stopRequested);
}

const isMain = process.argv[1] && /main\.(ts|js)$/.test(process.argv[1]);
if (isMain) {
  runBroker(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`samsa: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  });
}
