/**
 * `startBroker()`: a real Samsa broker inside the calling process, on a real socket.
 *
 *   const b = await startBroker({ port: 0, 'num.partitions': 3 });
 *   // clients use b.bootstrap ("localhost:PORT"); b.control injects faults and waits
 *   await b.stop();
 *
 * Settings take Kafka's config names, either as top-level options with a dot in their name
 * (`'auto.create.topics.enable': false`) or in `config`. Storage is a fresh temporary directory
 * (default), memory (`storage: 'memory'`, through the Fs seam), or a directory of yours
 * (`storage: { dir }`, kept). stop() answers in-flight requests, closes every socket, timer and
 * file, and removes the temporary directory. Any number of brokers can run in one process.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { Broker } from '../broker/broker.js';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { createLogger, type LogLevel } from '../logger.js';
import { MemFs } from '../storage/fs.js';
import { BrokerControl } from './control.js';

/** A Kafka setting value as given to startBroker (rendered to Kafka's text form). */
export type KafkaSettingValue = string | number | boolean | readonly string[];

export interface StartBrokerBaseOptions {
  /** Port for the PLAINTEXT listener; 0 picks a free one (default 0). */
  port?: number;
  /** Host to bind (default 127.0.0.1). */
  host?: string;
  /** Kafka-named settings, e.g. { 'auto.create.topics.enable': false }. */
  config?: Record<string, KafkaSettingValue>;
  /**
   * Where the data lives: 'tmpdir' (default: a fresh temporary directory removed on stop()),
   * 'memory' (nothing touches the disk), or { dir } (a directory of yours, kept on stop()).
   */
  storage?: 'tmpdir' | 'memory' | { dir: string };
  /** Same as storage: { dir } (kept for compatibility). */
  logDir?: string;
  /**
   * The broker's clock. Pass a ManualClock to expire sessions, transactions and retention by
   * calling advance() instead of waiting. Fetch max-wait also follows this clock.
   */
  clock?: Clock;
  /** Broker log level (default 'warn'). */
  logLevel?: LogLevel;
}

/** Options: the base ones plus any Kafka setting by name (names with a dot, e.g. 'num.partitions'). */
export type StartBrokerOptions = StartBrokerBaseOptions & { [kafkaSetting: `${string}.${string}`]: KafkaSettingValue | undefined };

export interface RunningBroker {
  /** "localhost:PORT", for the clients' bootstrap servers. */
  bootstrap: string;
  port: number;
  /** The data directory ('memory:' + a virtual path for in-memory storage). */
  logDir: string;
  /** Fault injection, recording and waits (see control.ts). */
  control: BrokerControl;
  /** The broker itself (metadata, logs, dispatcher) for white-box tests. */
  broker: Broker;
  stop(): Promise<void>;
}

const MEMORY_DIR = '/samsa-memory';

function render(v: KafkaSettingValue): string {
  return Array.isArray(v) ? v.join(',') : String(v);
}

export async function startBroker(opts: StartBrokerOptions = {}): Promise<RunningBroker> {
  const host = opts.host ?? '127.0.0.1';
  const storage = opts.storage ?? (opts.logDir !== undefined ? { dir: opts.logDir } : 'tmpdir');
  const memory = storage === 'memory';
  const tempDir = storage === 'tmpdir' ? mkdtempSync(join(tmpdir(), 'samsa-')) : null;
  const logDir = memory ? MEMORY_DIR : tempDir ?? (storage as { dir: string }).dir;

  const settings: Record<string, string> = {
    listeners: `PLAINTEXT://${host}:${opts.port ?? 0}`,
    'log.dirs': logDir,
  };
  for (const [k, v] of Object.entries(opts)) if (k.includes('.') && v !== undefined) settings[k] = render(v as KafkaSettingValue);
  for (const [k, v] of Object.entries(opts.config ?? {})) settings[k] = render(v);
  if (memory && settings['log.dirs'] !== MEMORY_DIR) settings['log.dirs'] = MEMORY_DIR;

  let broker: Broker;
  try {
    const argv: string[] = [];
    for (const [k, v] of Object.entries(settings)) argv.push('--override', `${k}=${v}`);
    const config = loadConfig({ argv, env: {}, cwd: process.cwd() });
    const clock = opts.clock ?? systemClock;
    broker = await Broker.start({
      config,
      clock: opts.clock,
      logger: createLogger(opts.logLevel ?? 'warn'),
      ...(memory ? { fs: new MemFs({ now: () => clock.now() }) } : {}),
    });
  } catch (err) {
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    throw err;
  }
  const control = new BrokerControl(broker);
  const port = broker.listeners[0]!.boundPort;
  let stopping: Promise<void> | null = null;
  return {
    bootstrap: `localhost:${port}`,
    port,
    logDir: memory ? `memory:${MEMORY_DIR}` : logDir,
    control,
    broker,
    stop() {
      stopping ??= (async () => {
        control.close();
        try {
          await broker.stop();
        } finally {
          control.detach();
          if (tempDir) rmSync(tempDir, { recursive: true, force: true });
        }
      })();
      return stopping;
    },
  };
}
