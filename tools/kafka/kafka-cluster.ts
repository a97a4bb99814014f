/**
 * Three (or N) Apache Kafka brokers in KRaft combined mode on loopback: every node is broker and
 * controller, the controllers form one static quorum (`controller.quorum.voters` naming all of
 * them), as a small production cluster without dedicated controllers runs. For the replicated
 * benchmarks (bench/cluster-compare.ts); tools/kafka/kafka.ts keeps starting the one-node broker.
 *
 *   const k = await startKafkaCluster({ overrides: { 'min.insync.replicas': '2' }, jvmOpts });
 *   // clients use k.bootstrap; k.kill(2) is a SIGKILL, k.start(2) the same node on the same data
 *   await k.stop();
 *
 * - All nodes are formatted with one cluster id (StorageTool format, static quorum), then started
 *   together: the quorum needs a majority before any of them serves.
 * - Internal topics get replication factor min(3, N) and 3 partitions; brokers get the short
 *   sessions of test/support/cluster.ts (2 s, heartbeats every 400 ms) so a killed broker is
 *   fenced as quickly as a Samsa broker is declared dead.
 * - `start()` resolves once Metadata from every node lists all N brokers (unfenced).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import { freePort, javaBin, javaMissing, JVM_OPTS, kafkaJars } from './kafka.js';

export interface KafkaClusterOptions {
  /** Number of nodes (default 3). */
  nodes?: number;
  /** Broker settings for every node, Kafka's names; they win over the defaults. */
  overrides?: Record<string, string>;
  /** JVM options of the broker processes (default JVM_OPTS, the tests' small ones). */
  jvmOpts?: string[];
  startTimeoutMs?: number;
}

export interface KafkaNode {
  readonly nodeId: number;
  readonly port: number;
  readonly controllerPort: number;
  readonly dir: string;
  pid(): number | undefined;
  /** Everything this node printed (the last 20,000 characters). */
  output(): string;
}

export interface RunningKafkaCluster {
  version: string;
  nodes: KafkaNode[];
  bootstrap: string;
  node(id: number): KafkaNode;
  /** SIGKILL one node, and wait for its exit. */
  kill(id: number): Promise<void>;
  /** Starts a killed node again (same ports and data); resolves once it is a registered broker again. */
  start(id: number): Promise<void>;
  /** SIGTERM every node (SIGKILL after `graceMs`) and remove the data. */
  stop(graceMs?: number): Promise<void>;
}

function settings(id: number, port: number, controllerPort: number, voters: string, dir: string, n: number, overrides: Record<string, string>): string {
  const rf = String(Math.min(3, n));
  const s: Record<string, string> = {
    'process.roles': 'broker,controller',
    'node.id': String(id),
    'controller.quorum.voters': voters,
    listeners: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
    'advertised.listeners': `PLAINTEXT://127.0.0.1:${port}`,
    'controller.listener.names': 'CONTROLLER',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    'log.dirs': dir,
    'group.initial.rebalance.delay.ms': '0',
    'offsets.topic.replication.factor': rf,
    'offsets.topic.num.partitions': '3',
    'transaction.state.log.replication.factor': rf,
    'transaction.state.log.num.partitions': '3',
    'transaction.state.log.min.isr': String(Math.min(2, n)),
    'share.coordinator.state.topic.replication.factor': rf,
    'share.coordinator.state.topic.min.isr': String(Math.min(2, n)),
    'broker.heartbeat.interval.ms': '400',
    'broker.session.timeout.ms': '2000',
    ...overrides,
  };
  return Object.entries(s).map(([k, v]) => `${k}=${v}`).join('\n') + '\n';
}

/** Metadata (v1) from `port` lists `n` brokers, within the deadline. */
async function waitRegistered(port: number, n: number, deadline: number, alive: () => boolean, output: () => string): Promise<void> {
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`a Kafka node exited during start-up:\n${output().slice(-3000)}`);
    try {
      const c = await KafkaConn.connect('127.0.0.1', port, 1000);
      try {
        const md = await Promise.race([
          c.request(3, 1, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }),
          new Promise<never>((_, rej) => setTimeout(() => rej(new Error('Metadata timed out')), 2000)),
        ]);
        if (md.brokers.length >= n) return;
        last = `Metadata lists ${md.brokers.length} of ${n} brokers`;
      } finally {
        c.close();
      }
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`Kafka on 127.0.0.1:${port} did not list ${n} brokers in time (${last}):\n${output().slice(-3000)}`);
}

export async function startKafkaCluster(opts: KafkaClusterOptions = {}): Promise<RunningKafkaCluster> {
  const missing = javaMissing();
  if (missing) throw new Error(`cannot start Apache Kafka: ${missing}`);
  const { classpath, version } = kafkaJars();
  const n = opts.nodes ?? 3;
  const java = javaBin();
  const root = mkdtempSync(path.join(os.tmpdir(), 'samsa-kafka-cluster-'));
  const ports: number[] = [];
  const port = async () => {
    let p = await freePort();
    while (ports.includes(p)) p = await freePort();
    ports.push(p);
    return p;
  };
  const layout: { id: number; port: number; controllerPort: number; dir: string; props: string }[] = [];
  for (let id = 1; id <= n; id++) layout.push({ id, port: await port(), controllerPort: await port(), dir: path.join(root, `node-${id}`), props: '' });
  const voters = layout.map((l) => `${l.id}@127.0.0.1:${l.controllerPort}`).join(',');
  const clusterId = spawnSync(java, [...JVM_OPTS, '-cp', classpath, 'kafka.tools.StorageTool', 'random-uuid'], { encoding: 'utf8' }).stdout.trim();
  for (const l of layout) {
    mkdirSync(l.dir, { recursive: true });
    l.props = path.join(l.dir, 'server.properties');
    writeFileSync(l.props, settings(l.id, l.port, l.controllerPort, voters, path.join(l.dir, 'data'), n, opts.overrides ?? {}));
    const f = spawnSync(java, [...JVM_OPTS, '-cp', classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', l.props], { encoding: 'utf8', timeout: 120_000 });
    if (f.status !== 0) throw new Error(`kafka-storage format of node ${l.id} failed: ${(f.stdout + f.stderr).slice(-2000)}`);
  }

  const procs = new Map<number, { child: ChildProcess | null; out: string }>(layout.map((l) => [l.id, { child: null, out: '' }]));
  const launch = (id: number) => {
    const l = layout.find((x) => x.id === id)!;
    const p = procs.get(id)!;
    const c = spawn(java, [...(opts.jvmOpts ?? JVM_OPTS), '-cp', classpath, 'kafka.Kafka', l.props], { stdio: ['ignore', 'pipe', 'pipe'] });
    p.child = c;
    const keep = (d: Buffer) => {
      p.out = (p.out + d.toString()).slice(-20_000);
    };
    c.stdout!.on('data', keep);
    c.stderr!.on('data', keep);
    c.once('exit', () => {
      if (p.child === c) p.child = null;
    });
    return c;
  };
  const alive = (id: number) => () => procs.get(id)!.child !== null;
  const kill = async (id: number, signal: NodeJS.Signals, graceMs: number) => {
    const c = procs.get(id)!.child;
    if (!c) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => c.kill('SIGKILL'), graceMs);
      c.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      c.kill(signal);
    });
  };
  const timeout = opts.startTimeoutMs ?? 180_000;
  const onExit = () => {
    for (const p of procs.values()) p.child?.kill('SIGKILL');
  };
  process.once('exit', onExit);
  try {
    for (const l of layout) launch(l.id);
    for (const l of layout) await waitRegistered(l.port, n, Date.now() + timeout, alive(l.id), () => procs.get(l.id)!.out);
  } catch (e) {
    for (const l of layout) await kill(l.id, 'SIGKILL', 0);
    rmSync(root, { recursive: true, force: true });
    process.off('exit', onExit);
    throw e;
  }
  const nodes: KafkaNode[] = layout.map((l) => ({
    nodeId: l.id, port: l.port, controllerPort: l.controllerPort, dir: l.dir,
    pid: () => procs.get(l.id)!.child?.pid,
    output: () => procs.get(l.id)!.out,
  }));
  return {
    version,
    nodes,
    bootstrap: layout.map((l) => `127.0.0.1:${l.port}`).join(','),
    node(id) {
      const x = nodes.find((y) => y.nodeId === id);
      if (!x) throw new Error(`no Kafka node ${id}`);
      return x;
    },
    kill: (id) => kill(id, 'SIGKILL', 0),
    async start(id) {
      if (procs.get(id)!.child) return;
      const l = layout.find((x) => x.id === id)!;
      launch(id);
      await waitRegistered(l.port, n, Date.now() + timeout, alive(id), () => procs.get(id)!.out);
    },
    async stop(graceMs = 15_000) {
      await Promise.all(layout.map((l) => kill(l.id, 'SIGTERM', graceMs)));
      process.off('exit', onExit);
      rmSync(root, { recursive: true, force: true });
    },
  };
}
