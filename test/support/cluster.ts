/**
 * A real cluster for tests: one etcd (test/support/etcd.ts) and N Samsa brokers, each a child
 * process (src/main.ts, see node-ts.ts, with --override settings), on free loopback ports with
 * a log dir of its own. Child processes make the faults real: `kill(id)` is a SIGKILL (nothing
 * flushed, the etcd lease runs out), `pause(id)` a SIGSTOP.
 *
 *   const c = await startCluster({ brokers: 3, config: { 'min.insync.replicas': 2 } });
 *   // clients use c.bootstrap ("127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3")
 *   await c.kill(2); await c.start(2);   // same port, same log dir, new process
 *   await c.cleanup();
 *
 * Network faults (test/support/fault-proxy.ts): with `etcdProxies` each broker reaches etcd
 * through a proxy of its own (`c.etcdLink(id).cut()` cuts that broker off from etcd); with
 * `peerProxies` each broker has a second listener, REPLICATION, for inter-broker traffic
 * (inter.broker.listener.name), advertised at a proxy in front of it, so `c.peerLink(from, to)`
 * cuts or stalls what `from` sends `to` (replica fetches, forwarded requests) and nothing else;
 * clients keep using PLAINTEXT directly.
 *
 * Brokers get short sessions (broker.session.timeout.ms 2000, heartbeats every 400 ms) so a
 * killed broker is declared dead within about two seconds. `client(id)` is a protocol client
 * (the CLI's, generated codecs) to one broker, for raw requests and metadata waits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaClient } from '../../src/cli/client.js';
import type { MetadataResponse } from '../../src/protocol/generated/messages/metadata-response.js';
import { startEtcd, type EtcdServer } from './etcd.js';
import { brokerPeerLabel, startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { freePort, onFreshPorts } from './net.js';
import { tmpDir, type TmpDir } from './tmp.js';
import { brokerMain, nodeArgs as runArgs } from './node-ts.js';


export interface ClusterOptions {
  /** Number of brokers (default 3). */
  brokers?: number;
  /** Node ids (default 1..N). */
  nodeIds?: number[];
  /** Kafka-named settings for every broker. */
  config?: Record<string, string | number | boolean>;
  /** Settings for one broker (added to `config`). */
  brokerConfig?: (nodeId: number) => Record<string, string | number | boolean>;
  /** An etcd to use (default: a fresh one, cleaned up with the cluster). */
  etcd?: EtcdServer;
  /** Broker log level (default SAMSA_LOG_LEVEL or 'info'; 'info' or 'debug': start-up is detected by its 'Samsa started' line). */
  logLevel?: string;
  /** How long a broker may take to say it started (default 30 s: two shared cores). */
  startTimeoutMs?: number;
  /** Each broker reaches etcd through a fault proxy of its own (see `etcdLink`). */
  etcdProxies?: boolean;
  /** Inter-broker traffic goes through a fault proxy in front of each broker (see `peerLink`). */
  peerProxies?: boolean;
  /** More command-line arguments for every broker (e.g. `--control`: the test control over HTTP). */
  args?: string[];
  /** The broker's entry point (default src/main.ts, run under tsx); a .js file (e.g. the built dist/samsa.js, for benchmarks) runs under plain node. */
  main?: string;
  /** Node options for every broker process (e.g. `--cpu-prof`), or per broker. */
  nodeArgs?: string[] | ((nodeId: number) => string[]);
}

/** One direction of a network path that a test can break. */
export interface Link {
  cut(): void;
  stall(): void;
  heal(): void;
}

export interface BrokerProcess {
  readonly nodeId: number;
  readonly port: number;
  /** The REPLICATION listener's port (with `peerProxies`), else 0. */
  readonly replicationPort: number;
  readonly logDir: string;
  /** The current process, or null while stopped. */
  child: ChildProcess | null;
  /** Everything the broker printed (all incarnations). */
  output(): string;
}

export interface TestCluster {
  readonly etcd: EtcdServer;
  readonly prefix: string;
  readonly brokers: BrokerProcess[];
  /** Every broker's address, comma-separated (clients' bootstrap servers). */
  readonly bootstrap: string;
  readonly bootstrapList: string[];
  broker(nodeId: number): BrokerProcess;
  /** SIGKILL, and wait for the exit. */
  kill(nodeId: number): Promise<void>;
  /** SIGTERM (graceful: deregisters, the controller moves its leaderships), and wait for the exit. */
  stop(nodeId: number): Promise<void>;
  /** SIGSTOP / SIGCONT. */
  pause(nodeId: number): void;
  resume(nodeId: number): void;
  /** Starts a stopped broker again (same port and log dir); resolves when it says it started. */
  start(nodeId: number): Promise<void>;
  /** A protocol client to one broker (closed by cleanup()). */
  client(nodeId: number): Promise<KafkaClient>;
  /** Metadata (v12) from one broker, for all topics or the named ones. */
  metadata(nodeId: number, topics?: string[] | null): Promise<MetadataResponse>;
  /** Polls Metadata on `nodeId` until `pred` holds. */
  waitForMetadata(nodeId: number, pred: (m: MetadataResponse) => boolean, what: string, timeoutMs?: number): Promise<MetadataResponse>;
  /** The path from broker `nodeId` to etcd (needs `etcdProxies`). */
  etcdLink(nodeId: number): Link;
  /** The path from broker `from` to broker `to`: what `from` sends and receives on it (needs `peerProxies`). */
  peerLink(from: number, to: number): Link;
  /** Inter-broker bytes through broker `nodeId`'s peer proxy, to it and from it (needs `peerProxies`; benchmarks). */
  peerTraffic(nodeId: number): { toBroker: number; fromBroker: number };
  /** Stops every broker (SIGKILL), etcd if the harness started it, removes the dirs. */
  cleanup(): Promise<void>;
}

let clusters = 0;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startCluster(opts: ClusterOptions = {}): Promise<TestCluster> {
  const n = opts.brokers ?? opts.nodeIds?.length ?? 3;
  const ids = opts.nodeIds ?? Array.from({ length: n }, (_, i) => i + 1);
  const ownEtcd = !opts.etcd;
  const etcd = opts.etcd ?? (await startEtcd());
  const prefix = `/samsa-cluster/${process.pid}-${++clusters}/`;
  const dirs: TmpDir[] = [];
  const clients: KafkaClient[] = [];
  const startTimeoutMs = opts.startTimeoutMs ?? 30_000;
  const logLevel = opts.logLevel ?? process.env.SAMSA_LOG_LEVEL ?? 'info';
  const ports = new Set<number>();
  const brokers: (BrokerProcess & { port: number; out: string[]; etcdProxy: FaultProxy | null; peerProxy: FaultProxy | null })[] = [];
  const proxies: FaultProxy[] = [];
  const port = async () => {
    let p = await freePort();
    while (ports.has(p)) p = await freePort();
    ports.add(p);
    return p;
  };
  for (const id of ids) {
    const clientPort = await port();
    const replicationPort = opts.peerProxies ? await port() : 0;
    const dir = tmpDir(`cluster-${id}`);
    dirs.push(dir);
    const out: string[] = [];
    const etcdProxy = opts.etcdProxies ? await startFaultProxy({ targetPort: etcd.clientPort }) : null;
    const peerProxy = opts.peerProxies ? await startFaultProxy({ targetPort: replicationPort, label: brokerPeerLabel }) : null;
    for (const p of [etcdProxy, peerProxy]) if (p) proxies.push(p);
    brokers.push({ nodeId: id, port: clientPort, replicationPort, logDir: dir.path, child: null, out, output: () => out.join(''), etcdProxy, peerProxy });
  }
  const byId = (id: number) => {
    const b = brokers.find((x) => x.nodeId === id);
    if (!b) throw new Error(`no broker ${id} in this cluster`);
    return b;
  };

  const spawnBroker = async (b: (typeof brokers)[number]): Promise<void> => {
    const settings: Record<string, string> = {
      'node.id': String(b.nodeId),
      listeners: `PLAINTEXT://127.0.0.1:${b.port}`,
      'log.dirs': b.logDir,
      'samsa.etcd.endpoints': b.etcdProxy ? `http://${b.etcdProxy.address}` : etcd.clientUrl,
      'samsa.etcd.key.prefix': prefix,
      'broker.session.timeout.ms': '2000',
      'broker.heartbeat.interval.ms': '400',
      'offsets.topic.num.partitions': '3',
      'transaction.state.log.num.partitions': '3',
    };
    if (b.peerProxy) {
      settings.listeners += `,REPLICATION://127.0.0.1:${b.replicationPort}`;
      settings['advertised.listeners'] = `PLAINTEXT://127.0.0.1:${b.port},REPLICATION://${b.peerProxy.address}`;
      settings['listener.security.protocol.map'] = 'PLAINTEXT:PLAINTEXT,REPLICATION:PLAINTEXT';
      settings['inter.broker.listener.name'] = 'REPLICATION';
    }
    for (const [k, v] of Object.entries(opts.config ?? {})) settings[k] = String(v);
    for (const [k, v] of Object.entries(opts.brokerConfig?.(b.nodeId) ?? {})) settings[k] = String(v);
    const argv = [...Object.entries(settings).flatMap(([k, v]) => ['--override', `${k}=${v}`]), ...(opts.args ?? [])];
    const mark = b.out.length;
    const main = opts.main ?? brokerMain();
    const nodeArgs = typeof opts.nodeArgs === 'function' ? opts.nodeArgs(b.nodeId) : (opts.nodeArgs ?? []);
    const child = spawn(process.execPath, [...nodeArgs, ...runArgs(main), ...argv], {
      env: { ...process.env, SAMSA_LOG_LEVEL: logLevel }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    b.child = child;
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    child.stdout!.on('data', (s: string) => b.out.push(s));
    child.stderr!.on('data', (s: string) => b.out.push(s));
    child.once('exit', () => {
      if (b.child === child) b.child = null;
    });
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      if (b.out.slice(mark).join('').includes('Samsa started')) return;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`broker ${b.nodeId} exited during start-up (${child.exitCode ?? child.signalCode}):\n${b.out.slice(mark).join('').slice(-3000)}`);
      }
      if (Date.now() > deadline) throw new Error(`broker ${b.nodeId} did not start within ${startTimeoutMs} ms:\n${b.out.slice(mark).join('').slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const killAll = async () => {
    for (const c of clients.splice(0)) c.close();
    await Promise.all(brokers.map(async (b) => {
      const c = b.child;
      if (!c) return;
      c.kill('SIGCONT');
      c.kill('SIGKILL');
      await exited(c);
    }));
  };

  // A first start that fails on EADDRINUSE takes a fresh port (restarts keep theirs: their
  // address is in the cluster's metadata; with peer proxies the port is behind a proxy).
  const firstStart = async (b: (typeof brokers)[number]): Promise<void> => {
    let fresh = false;
    await onFreshPorts(async () => {
      if (fresh) b.port = await port();
      fresh = true;
      await spawnBroker(b);
    }, (e) => /EADDRINUSE/.test(String(e)) && !b.peerProxy, 5);
  };
  try {
    // One after another: the first one becomes the controller, the log lines stay readable.
    for (const b of brokers) await firstStart(b);
  } catch (e) {
    await killAll();
    for (const p of proxies) await p.close();
    for (const d of dirs) await d.cleanup();
    if (ownEtcd) await etcd.cleanup();
    throw e;
  }
  const hooks = () => {
    for (const b of brokers) b.child?.kill('SIGKILL');
  };
  process.once('exit', hooks);

  const cluster: TestCluster = {
    etcd,
    prefix,
    brokers,
    bootstrapList: brokers.map((b) => `127.0.0.1:${b.port}`),
    get bootstrap() {
      return this.bootstrapList.join(',');
    },
    broker: byId,
    async kill(id) {
      const b = byId(id);
      const c = b.child;
      if (!c) return;
      c.kill('SIGCONT');
      c.kill('SIGKILL');
      await exited(c);
    },
    async stop(id) {
      const b = byId(id);
      const c = b.child;
      if (!c) return;
      c.kill('SIGCONT');
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
      await exited(c);
      clearTimeout(t);
    },
    pause(id) {
      byId(id).child?.kill('SIGSTOP');
    },
    resume(id) {
      byId(id).child?.kill('SIGCONT');
    },
    async start(id) {
      const b = byId(id);
      if (b.child) return;
      await spawnBroker(b);
    },
    async client(id) {
      const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${byId(id).port}`, clientId: 'cluster-harness', requestTimeoutMs: 10_000 });
      clients.push(c);
      return c;
    },
    async metadata(id, topics = null) {
      const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${byId(id).port}`, clientId: 'cluster-harness', requestTimeoutMs: 10_000 });
      try {
        return await c.send(3, 12, {
          topics: topics === null ? null : topics.map((name) => ({ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' })),
          allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
        });
      } finally {
        c.close();
      }
    },
    async waitForMetadata(id, pred, what, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last: MetadataResponse | null = null;
      let lastErr: unknown = null;
      for (;;) {
        try {
          last = await cluster.metadata(id);
          if (pred(last)) return last;
        } catch (e) {
          lastErr = e;
        }
        if (Date.now() > deadline) {
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} on broker ${id}: ${lastErr ? String(lastErr) : JSON.stringify(last, (_k, v) => (typeof v === 'bigint' ? String(v) : v)).slice(0, 2000)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    etcdLink(id) {
      const p = byId(id).etcdProxy;
      if (!p) throw new Error('etcdLink needs startCluster({ etcdProxies: true })');
      return { cut: () => p.cut(), stall: () => p.stall(), heal: () => p.heal() };
    },
    peerLink(from, to) {
      const p = byId(to).peerProxy;
      byId(from);
      if (!p) throw new Error('peerLink needs startCluster({ peerProxies: true })');
      const label = String(from);
      return { cut: () => p.cut(label), stall: () => p.stall(label), heal: () => p.heal(label) };
    },
    peerTraffic(id) {
      const p = byId(id).peerProxy;
      if (!p) throw new Error('peerTraffic needs startCluster({ peerProxies: true })');
      return { toBroker: p.bytesToTarget, fromBroker: p.bytesFromTarget };
    },
    async cleanup() {
      process.off('exit', hooks);
      // SAMSA_CLUSTER_DUMP=dir keeps every broker's output there (for a failing run).
      const dump = process.env.SAMSA_CLUSTER_DUMP;
      if (dump) {
        mkdirSync(dump, { recursive: true });
        for (const b of brokers) writeFileSync(join(dump, `${prefix.replace(/\W+/g, '_')}broker-${b.nodeId}.log`), b.output());
      }
      await killAll();
      for (const p of proxies) await p.close();
      for (const d of dirs) await d.cleanup();
      if (ownEtcd) await etcd.cleanup();
    },
  };
  return cluster;
}
