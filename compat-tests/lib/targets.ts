/**
 * Targets the suite runs against:
 * - samsa: `node --import tsx src/main.ts` child processes on free ports with fresh data
 *   directories (a main broker, and on demand one with auto.create.topics.enable=false, one to
 *   restart, one behind a connection-dropping proxy);
 * - kafka: real Apache Kafka (KRaft, single node): the apache/kafka image through testcontainers
 *   where a Docker engine is reachable, else the release pinned in tools/kafka/pom.xml run on the
 *   local JVM (the same extra brokers as for Samsa: no auto-create, restartable, behind the
 *   proxy); where neither can run this says so in one line and the target is skipped;
 * - bootstrap=HOST:PORT: any running broker (scenarios that need a second broker config, a
 *   restart or the proxy are n/a there).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDropOnceProxy, type DropOnceProxy } from './proxy.js';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import { freePort, javaMissing, KAFKA_VERSION, startKafka, type RunningKafka } from '../../tools/kafka/kafka.js';
import { brokerMain, nodeArgs } from '../../test/support/node-ts.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Broker settings every target gets (Kafka's names), so group and transaction scenarios converge quickly. */
export const SUITE_BROKER_CONFIG: Record<string, string> = {
  'num.partitions': '1',
  'group.initial.rebalance.delay.ms': '0',
  'group.min.session.timeout.ms': '1000',
  'offsets.topic.replication.factor': '1',
  'transaction.state.log.replication.factor': '1',
  'transaction.state.log.min.isr': '1',
};

export interface Restartable {
  bootstrap: string;
  /** Kills the broker (SIGKILL) and starts it again on the same port and data directory. */
  restart(): Promise<void>;
}

export interface Target {
  name: string;
  /** Shown in the report: what was tested. */
  description: string;
  bootstrap: string;
  /** A broker with auto.create.topics.enable=false (undefined: n/a on this target). */
  noAutoCreate?: () => Promise<string>;
  /** A broker of its own that scenarios may restart (undefined: n/a). */
  restartable?: () => Promise<Restartable>;
  /** A broker behind a proxy that drops the first Produce response of client ids containing "drop-once". */
  dropOnceProxy?: () => Promise<{ bootstrap: string; dropped: Set<string> }>;
  stop(): Promise<void>;
}

export { freePort };

/** One Samsa broker process. */
export class SamsaProcess {
  child: ChildProcess | null = null;
  output = '';
  constructor(readonly port: number, readonly dir: string, readonly overrides: Record<string, string>) {}

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [...nodeArgs(brokerMain()), '--override', `listeners=PLAINTEXT://127.0.0.1:${this.port}`, '--override', `log.dirs=${this.dir}`];
    for (const [k, v] of Object.entries(this.overrides)) args.push('--override', `${k}=${v}`);
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } });
    this.child = child;
    let started = false;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`samsa did not start within 30 s:\n${this.output.slice(-3000)}`)), 30_000);
      const onData = (d: Buffer) => {
        this.output = (this.output + d).slice(-20_000);
        if (!started && this.output.includes('Samsa started')) {
          started = true;
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        if (!started) {
          clearTimeout(timer);
          reject(new Error(`samsa exited during start-up (code ${code}, signal ${signal}):\n${this.output.slice(-3000)}`));
        }
      });
    });
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const c = this.child;
    this.child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
      c.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      c.kill(signal);
    });
  }
}

export async function samsaTarget(opts: { logLevel?: string } = {}): Promise<Target> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'samsa-compat-'));
  const procs: SamsaProcess[] = [];
  let proxy: DropOnceProxy | null = null;
  const launch = async (name: string, extra: Record<string, string> = {}, port?: number): Promise<SamsaProcess> => {
    const p = new SamsaProcess(port ?? (await freePort()), path.join(base, name), { ...SUITE_BROKER_CONFIG, ...extra });
    procs.push(p);
    await p.start();
    return p;
  };
  const once = <T>(f: () => Promise<T>) => {
    let p: Promise<T> | null = null;
    return () => (p ??= f());
  };
  const main = await launch('main');
  return {
    name: 'samsa',
    description: `Samsa (src/main.ts, child processes, fresh data directories)`,
    bootstrap: main.bootstrap,
    noAutoCreate: once(async () => (await launch('no-auto-create', { 'auto.create.topics.enable': 'false' })).bootstrap),
    restartable: once(async () => {
      const p = await launch('restart');
      return {
        bootstrap: p.bootstrap,
        async restart() {
          await p.kill('SIGKILL');
          await p.start();
        },
      };
    }),
    dropOnceProxy: once(async () => {
      const proxyPort = await freePort();
      const brokerPort = await freePort();
      // The broker advertises the proxy's address, so every connection (not only bootstrap) goes through it.
      await launch('proxied', { 'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxyPort}` }, brokerPort);
      proxy = await startDropOnceProxy(proxyPort, brokerPort);
      return { bootstrap: `127.0.0.1:${proxyPort}`, dropped: proxy.dropped };
    }),
    async stop() {
      await proxy?.close();
      for (const p of procs) await p.kill('SIGTERM');
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export function bootstrapTarget(hostPort: string): Target {
  return {
    name: `bootstrap=${hostPort}`,
    description: `a running broker at ${hostPort}`,
    bootstrap: hostPort,
    async stop() {},
  };
}

/** Thrown when a target cannot exist on this machine (e.g. no Docker engine); the run says it in one line. */
export class TargetUnavailable extends Error {}

/**
 * Real Apache Kafka (KRaft, single node): through testcontainers when a Docker engine is
 * reachable, else on the local JVM. Throws TargetUnavailable (one line to print) when neither can
 * run here.
 */
export async function kafkaTarget(opts: { docker?: boolean } = {}): Promise<Target> {
  if (opts.docker !== false) {
    const why = await dockerUnavailable();
    if (!why) return kafkaContainerTarget();
    if (opts.docker === true) throw new TargetUnavailable(`kafka target skipped: ${why}`);
    console.log(`compat: ${why}; using Apache Kafka ${KAFKA_VERSION} on the local JVM`);
  }
  return kafkaJvmTarget();
}

/** Why testcontainers cannot start containers here (one line), or null when it can. */
export async function dockerUnavailable(): Promise<string | null> {
  const tc = await import('testcontainers');
  try {
    await tc.getContainerRuntimeClient();
    return null;
  } catch (e) {
    return `no Docker engine reachable for testcontainers (${String((e as Error).message ?? e).split('\n')[0]})`;
  }
}

/** The release pinned in tools/kafka/pom.xml, as child JVM processes on free loopback ports. */
export async function kafkaJvmTarget(): Promise<Target> {
  const missing = javaMissing();
  if (missing) throw new TargetUnavailable(`kafka target skipped: ${missing}`);
  const brokers: RunningKafka[] = [];
  let proxy: DropOnceProxy | null = null;
  const launch = async (extra: Record<string, string> = {}, port?: number): Promise<RunningKafka> => {
    const k = await startKafka({ port, overrides: { ...SUITE_BROKER_CONFIG, ...extra } });
    brokers.push(k);
    await coordinatorsReady(k.port);
    return k;
  };
  const once = <T>(f: () => Promise<T>) => {
    let p: Promise<T> | null = null;
    return () => (p ??= f());
  };
  const main = await launch();
  return {
    name: 'kafka',
    description: `Apache Kafka ${main.version} (KRaft single node, local JVM)`,
    bootstrap: main.bootstrap,
    noAutoCreate: once(async () => (await launch({ 'auto.create.topics.enable': 'false' })).bootstrap),
    restartable: once(async () => {
      const k = await launch();
      return { bootstrap: k.bootstrap, restart: () => k.restart() };
    }),
    dropOnceProxy: once(async () => {
      const proxyPort = await freePort();
      const brokerPort = await freePort();
      // As for Samsa: the broker advertises the proxy, so every connection goes through it.
      proxy = await startDropOnceProxy(proxyPort, brokerPort);
      await launch({ 'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxyPort}` }, brokerPort);
      return { bootstrap: `127.0.0.1:${proxyPort}`, dropped: proxy.dropped };
    }),
    async stop() {
      await proxy?.close();
      await Promise.all(brokers.map((k) => k.stop(5000)));
    },
  };
}

/**
 * Waits until a fresh Kafka has its group and transaction coordinators: it creates
 * __consumer_offsets and __transaction_state at the first FindCoordinator and answers
 * COORDINATOR_NOT_AVAILABLE / NOT_COORDINATOR until they are loaded, which some clients (kafkajs)
 * retry only a few times. Samsa's are ready at start-up; this makes the first scenarios comparable.
 */
async function coordinatorsReady(port: number, timeoutMs = 60_000): Promise<void> {
  const conn = await KafkaConn.connect('127.0.0.1', port);
  try {
    const deadline = Date.now() + timeoutMs;
    for (const keyType of [0, 1]) {
      for (;;) {
        const r = await conn.request(10, 4, { key: '', keyType, coordinatorKeys: ['compat-warm-up'] });
        if (r.coordinators.every((c) => c.errorCode === 0)) break;
        if (Date.now() > deadline) throw new Error(`Kafka on port ${port}: no ${keyType ? 'transaction' : 'group'} coordinator within ${timeoutMs} ms`);
        await new Promise((res) => setTimeout(res, 200));
      }
    }
  } finally {
    conn.close();
  }
}

/** Apache Kafka (the apache/kafka image, KRaft single node) via testcontainers. */
async function kafkaContainerTarget(image = process.env.COMPAT_KAFKA_IMAGE ?? `apache/kafka:${KAFKA_VERSION}`): Promise<Target> {
  const tc = await import('testcontainers');
  const containers: { stop(): Promise<unknown> }[] = [];
  const start = async (extra: Record<string, string> = {}) => {
    // A fixed host port is needed because Kafka advertises its listener address to clients.
    const port = await freePort();
    const env: Record<string, string> = {
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
    };
    for (const [k, v] of Object.entries({ ...SUITE_BROKER_CONFIG, ...extra })) env[`KAFKA_${k.toUpperCase().replace(/\./g, '_')}`] = v;
    const c = await new tc.GenericContainer(image)
      .withEnvironment(env)
      .withExposedPorts({ container: 9092, host: port })
      .withWaitStrategy(tc.Wait.forLogMessage(/Kafka Server started/))
      .withStartupTimeout(120_000)
      .start();
    containers.push(c);
    return { bootstrap: `127.0.0.1:${port}`, container: c };
  };
  const main = await start();
  let noAuto: Promise<string> | null = null;
  let restartable: Promise<Restartable> | null = null;
  return {
    name: 'kafka',
    description: `Apache Kafka (${image}, KRaft single node, testcontainers)`,
    bootstrap: main.bootstrap,
    noAutoCreate: () => (noAuto ??= start({ 'auto.create.topics.enable': 'false' }).then((s) => s.bootstrap)),
    restartable: () => (restartable ??= start().then((s) => ({
      bootstrap: s.bootstrap,
      async restart() {
        await s.container.restart(); // same container, same fixed host port, same data
      },
    }))),
    async stop() {
      for (const c of containers) await c.stop().catch(() => {});
    },
  };
}
