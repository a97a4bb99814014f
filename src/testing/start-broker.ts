/**
 * `startBroker()`: a real Samsa broker inside the calling process, on a real socket.
 *
 *   const b = await startBroker({ port: 0 });
 *   // clients use b.bootstrap ("localhost:PORT")
 *   await b.stop();
 *
 * Options take Kafka's config names (`config: { 'num.partitions': 3 }`). Without `logDir` the data
 * lives in a fresh temporary directory that stop() removes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { Broker } from '../broker/broker.js';
import type { Clock } from '../clock.js';
import { createLogger, type LogLevel } from '../logger.js';

export interface StartBrokerOptions {
  /** Port for the PLAINTEXT listener; 0 picks a free one (default 0). */
  port?: number;
  /** Host to bind (default 127.0.0.1). */
  host?: string;
  /** Kafka-named settings, e.g. { 'auto.create.topics.enable': false }. */
  config?: Record<string, string | number | boolean>;
  /** Data directory to use and keep; default: a temporary directory removed on stop(). */
  logDir?: string;
  clock?: Clock;
  logLevel?: LogLevel;
}

export interface RunningBroker {
  /** "localhost:PORT", for the clients' bootstrap servers. */
  bootstrap: string;
  port: number;
  logDir: string;
  broker: Broker;
  stop(): Promise<void>;
}

export async function startBroker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const host = opts.host ?? '127.0.0.1';
  const tempDir = opts.logDir ? null : mkdtempSync(join(tmpdir(), 'samsa-'));
  const logDir = opts.logDir ?? tempDir!;
  const overrides: Record<string, string> = {
    listeners: `PLAINTEXT://${host}:${opts.port ?? 0}`,
    'log.dirs': logDir,
  };
  for (const [k, v] of Object.entries(opts.config ?? {})) overrides[k] = String(v);
  const argv: string[] = [];
  for (const [k, v] of Object.entries(overrides)) argv.push('--override', `${k}=${v}`);
  const config = loadConfig({ argv, env: {}, cwd: process.cwd() });
  const broker = await Broker.start({ config, clock: opts.clock, logger: createLogger(opts.logLevel ?? 'warn') });
  const port = broker.listeners[0].boundPort;
  // With port 0 the advertised address must be the bound one.
  let stopped = false;
  return {
    bootstrap: `localhost:${port}`,
    port,
    logDir,
    broker,
    async stop() {
      if (stopped) return;
      stopped = true;
      await broker.stop();
      if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}
