/**
 * Fetch sessions (KIP-227): what they save, sessions on (the default) against forced off
 * (max.incremental.fetch.session.cache.slots=0: every fetch a full one), in one run.
 *
 * 1. A consumer of 1,000 partitions (one broker process, a raw client that keeps a fetch session
 *    as Kafka's FetchSessionHandler does: src/replication/fetch-session-handler.ts; Fetch v17 with
 *    topic ids, 1 MiB per partition, min_bytes 1):
 *    - idle: caught up, fetches with max_wait 0 back to back (nothing to read);
 *    - active: rounds of one record (1 KiB) produced into each of --active partitions (acks=1),
 *      then one fetch (the fetch's CPU: the round's less that of a round of the produce alone).
 *    Per fetch: request and response bytes (frames), the broker's CPU (user+system from /proc),
 *    the client's round trip.
 * 2. Followers on three brokers (test/support/cluster.ts: etcd, three broker processes, the
 *    inter-broker traffic through a proxy that counts it), --cluster-partitions partitions with
 *    replication factor 3: an idle window and a window of light acks=all load (one record into
 *    --active partitions every 50 ms). Per window: inter-broker bytes each way, follower Fetch
 *    requests (the brokers' request counters), the three brokers' CPU; per fetch from those.
 *
 *   npm run build && tsx bench/fetch-sessions.ts [options]
 *
 * Options (defaults in brackets):
 *   --partitions N [1000]        partitions of the consumer's topic
 *   --reps N [2]                 on/off alternations of part 1
 *   --idle-fetches N [400]       idle fetches per phase
 *   --rounds N [200]             active rounds per phase
 *   --active N [10]              partitions written per round
 *   --cluster-partitions N [1000] partitions of part 2's topic (0: no part 2; needs etcd)
 *   --window S [10]              length of each part 2 window
 *   --json                       one JSON line with every figure at the end
 *
 * No assertions: it prints what it measured, and the on/off ratios. Other sessions share this
 * machine's cores; the machine's CPU use during each phase is printed as a noise indicator.
 */
import { KafkaConn, createTopics, encodeRequest, decodeResponse } from './lib/kafka-conn.js';
import { median, sleep, startSamsa, type SamsaProcess } from './lib/proc.js';
import { machineCpu } from './lib/run.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { FetchSessionHandler, type SessionPartitionData } from '../src/replication/fetch-session-handler.js';
import type { FetchRequest } from '../src/protocol/generated/messages/fetch-request.js';
import { defaultFetchPartition } from '../src/protocol/generated/messages/fetch-request.js';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const opts = {
  partitions: arg('partitions', 1000),
  reps: arg('reps', 2),
  idleFetches: arg('idle-fetches', 400),
  rounds: arg('rounds', 200),
  active: arg('active', 10),
  clusterPartitions: arg('cluster-partitions', 1000),
  window: arg('window', 10),
  json: process.argv.includes('--json'),
};

const FETCH_V = 17;
const TOPIC = 'fs-bench';
const VALUE = Buffer.alloc(1024, 'v');
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

type Mode = 'on' | 'off';
const overridesFor = (mode: Mode): Record<string, string> => (mode === 'off' ? { 'max.incremental.fetch.session.cache.slots': '0' } : {});

async function topicIdOf(conn: KafkaConn, name: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const md = await conn.request(3, 12, { topics: [{ name, topicId: ZERO }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false } as never);
    const t = md.topics[0];
    if (t && t.errorCode === 0 && t.partitions.length > 0 && t.partitions.every((p) => p.leaderId >= 0)) return t.topicId;
    await sleep(50);
  }
  throw new Error(`topic ${name} has no leaders`);
}

function produceBody(partitions: number[]): never {
  return {
    transactionalId: null, acks: 1, timeoutMs: 10_000,
    topicData: [{ name: TOPIC, partitionData: partitions.map((index) => ({ index, records: buildRecordBatch({ records: [{ key: null, value: VALUE, timestamp: BigInt(Date.now()) }] } as never) })) }],
  } as never;
}

/** A consumer of every partition of one topic in a fetch session (Kafka's FetchSessionHandler). */
class SessionConsumer {
  readonly offsets: number[];
  private readonly handler = new FetchSessionHandler<number>();
  fullFetches = 0;
  records = 0;
  constructor(private readonly conn: KafkaConn, private readonly topicId: string, partitions: number) {
    this.offsets = new Array(partitions).fill(0);
  }

  /** One fetch; returns its request and response frame sizes. */
  async fetch(maxWaitMs: number): Promise<{ req: number; res: number; answered: number }> {
    const wanted = new Map<number, SessionPartitionData>();
    for (let p = 0; p < this.offsets.length; p++) {
      wanted.set(p, { topicId: this.topicId, partition: p, fetchOffset: this.offsets[p], logStartOffset: -1, maxBytes: 1 << 20, currentLeaderEpoch: -1, lastFetchedEpoch: -1 });
    }
    const built = this.handler.build(wanted);
    if (built.full) this.fullFetches++;
    const body: FetchRequest = {
      clusterId: null, replicaId: -1, replicaState: null, maxWaitMs, minBytes: 1, maxBytes: 50 << 20, isolationLevel: 0,
      sessionId: built.sessionId, sessionEpoch: built.sessionEpoch, rackId: '',
      topics: built.toSend.length === 0 ? [] : [{ topic: '', topicId: this.topicId, partitions: built.toSend.map(({ data: d }) => ({ ...defaultFetchPartition(), partition: d.partition, fetchOffset: BigInt(d.fetchOffset), logStartOffset: -1n, partitionMaxBytes: d.maxBytes })) }],
      forgottenTopicsData: built.toForget.length === 0 ? [] : [{ topic: '', topicId: this.topicId, partitions: built.toForget.map((d) => d.partition) }],
    };
    const frame = encodeRequest(1, FETCH_V, 0, body);
    const payload = await this.conn.sendFrame(frame);
    const res = decodeResponse(1, FETCH_V, payload);
    this.handler.handleResponse(res);
    let answered = 0;
    for (const t of res.responses) {
      for (const p of t.partitions) {
        answered++;
        if (p.errorCode !== 0) continue;
        const recs = p.records;
        const bufs = recs === null ? [] : Array.isArray(recs) ? recs : [recs];
        for (const b of bufs) {
          // Batches: base offset (8) + length (4) ...; the next offset is base + lastOffsetDelta + 1.
          let pos = 0;
          while (pos + 61 <= b.length) {
            const size = 12 + b.readInt32BE(pos + 8);
            const next = Number(b.readBigInt64BE(pos)) + b.readInt32BE(pos + 23) + 1;
            this.records += b.readInt32BE(pos + 57);
            this.offsets[p.partitionIndex] = next;
            pos += size;
          }
        }
      }
    }
    return { req: frame.length, res: payload.length + 4, answered };
  }
}

interface ConsumerFigures {
  mode: Mode;
  rep: number;
  idle: { reqBytes: number; resBytes: number; cpuUs: number; rttUs: number; answered: number };
  /** cpuUs: the whole round; fetchCpuUs: less a round of the produce alone (measured before). */
  active: { reqBytes: number; resBytes: number; cpuUs: number; fetchCpuUs: number; answered: number; records: number };
  fullFetches: number;
  machineBusy: number;
}

async function consumerPhase(mode: Mode, rep: number): Promise<ConsumerFigures> {
  const broker: SamsaProcess = await startSamsa({ overrides: { ...overridesFor(mode), 'num.partitions': '1', 'log.retention.check.interval.ms': '3600000' } });
  const conn = await KafkaConn.connect(broker.host, broker.port);
  try {
    await createTopics(conn, [{ name: TOPIC, partitions: opts.partitions }]);
    const topicId = await topicIdOf(conn, TOPIC);
    const all = Array.from({ length: opts.partitions }, (_, p) => p);
    await conn.request(0, 9, produceBody(all));
    const c = new SessionConsumer(conn, topicId, opts.partitions);
    // Catch up (and, sessions on, settle in the session).
    for (let i = 0; i < 10; i++) await c.fetch(0);
    const m0 = machineCpu();
    // Idle: nothing to read.
    let req = 0, res = 0, answered = 0;
    let cpu0 = broker.cpuSeconds();
    const t0 = performance.now();
    for (let i = 0; i < opts.idleFetches; i++) {
      const r = await c.fetch(0);
      req += r.req;
      res += r.res;
      answered += r.answered;
    }
    const idleMs = performance.now() - t0;
    const n = opts.idleFetches;
    const idle = { reqBytes: req / n, resBytes: res / n, cpuUs: ((broker.cpuSeconds() - cpu0) * 1e6) / n, rttUs: (idleMs * 1000) / n, answered: answered / n };
    // The produce alone, for the active rounds' baseline (the consumer catches up after it).
    const writes = (i: number) => [...new Set(Array.from({ length: opts.active }, (_, k) => (i * 7919 + k * 104729) % opts.partitions))];
    cpu0 = broker.cpuSeconds();
    for (let i = 0; i < opts.rounds; i++) await conn.request(0, 9, produceBody(writes(i)));
    const produceUs = ((broker.cpuSeconds() - cpu0) * 1e6) / opts.rounds;
    for (let i = 0; i < 20; i++) await c.fetch(0);
    // Active: a few partitions written, then one fetch.
    req = res = answered = 0;
    const records0 = c.records;
    cpu0 = broker.cpuSeconds();
    for (let i = 0; i < opts.rounds; i++) {
      await conn.request(0, 9, produceBody(writes(i)));
      const r = await c.fetch(0);
      req += r.req;
      res += r.res;
      answered += r.answered;
    }
    const rn = opts.rounds;
    const roundUs = ((broker.cpuSeconds() - cpu0) * 1e6) / rn;
    const active = { reqBytes: req / rn, resBytes: res / rn, cpuUs: roundUs, fetchCpuUs: roundUs - produceUs, answered: answered / rn, records: (c.records - records0) / rn };
    const m1 = machineCpu();
    return { mode, rep, idle, active, fullFetches: c.fullFetches, machineBusy: (m1.busy - m0.busy) / Math.max(1e-9, m1.total - m0.total) };
  } finally {
    conn.close();
    await broker.stop();
  }
}

const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');

interface ClusterFigures {
  mode: Mode;
  window: 'idle' | 'load';
  fetches: number;
  toLeadersBytes: number;
  fromLeadersBytes: number;
  cpuSeconds: number;
  seconds: number;
}

async function clusterRun(mode: Mode): Promise<ClusterFigures[]> {
  const { startCluster } = await import('../test/support/cluster.js');
  const { etcdMissing } = await import('../test/support/etcd.js');
  const { freePort } = await import('../test/support/net.js');
  const { parsePrometheusText, valueOr0 } = await import('../test/support/prom-text.js');
  const missing = etcdMissing();
  if (missing) {
    console.log(`followers: skipped (${missing})`);
    return [];
  }
  const http = new Map<number, number>();
  for (const id of [1, 2, 3]) http.set(id, await freePort());
  const c = await startCluster({
    brokers: 3, peerProxies: true,
    config: { ...overridesFor(mode), 'default.replication.factor': 3, 'min.insync.replicas': 2, 'log.retention.check.interval.ms': 3_600_000 },
    brokerConfig: (id) => ({ 'samsa.http.listeners': `http://127.0.0.1:${http.get(id)}` }),
  });
  const out: ClusterFigures[] = [];
  const conns: KafkaConn[] = [];
  try {
    const admin = await KafkaConn.connect('127.0.0.1', c.broker(1).port);
    conns.push(admin);
    const created = await admin.request(19, 7, { topics: [{ name: TOPIC, numPartitions: opts.clusterPartitions, replicationFactor: 3, assignments: [], configs: [] }], timeoutMs: 60_000, validateOnly: false } as never);
    if (created.topics[0].errorCode !== 0) throw new Error(`CreateTopics: error ${created.topics[0].errorCode}`);
    const md = await c.waitForMetadata(1, (m) => {
      const t = m.topics.find((x) => x.name === TOPIC);
      return t?.partitions.length === opts.clusterPartitions && t.partitions.every((p) => p.leaderId >= 0 && p.isrNodes.length === 3);
    }, 'topic in sync', 180_000);
    const leaders = new Map(md.topics.find((t) => t.name === TOPIC)!.partitions.map((p) => [p.partitionIndex, p.leaderId]));
    const byLeader = new Map<number, KafkaConn>();
    for (const id of [1, 2, 3]) {
      const k = await KafkaConn.connect('127.0.0.1', c.broker(id).port);
      conns.push(k);
      byLeader.set(id, k);
    }
    const fetchCount = async () => {
      let n = 0;
      for (const id of [1, 2, 3]) {
        const f = parsePrometheusText(await (await fetch(`http://127.0.0.1:${http.get(id)}/metrics`)).text());
        for (let v = 0; v <= 18; v++) n += valueOr0(f, 'kafka_network_requestmetrics_requests_total', { request: 'Fetch', version: String(v) });
      }
      return n;
    };
    const cpu = () => c.brokers.reduce((s, b) => s + (b.child ? procCpu(b.child.pid!) : 0), 0);
    const traffic = () => [1, 2, 3].reduce((s, id) => { const t = c.peerTraffic(id); return { to: s.to + t.toBroker, from: s.from + t.fromBroker }; }, { to: 0, from: 0 });
    // Let the followers settle after the topic's creation.
    await sleep(3000);
    for (const window of ['idle', 'load'] as const) {
      const f0 = await fetchCount(), t0 = traffic(), c0 = cpu(), s0 = performance.now();
      const end = Date.now() + opts.window * 1000;
      let i = 0;
      while (Date.now() < end) {
        if (window === 'load') {
          const parts = Array.from({ length: opts.active }, (_, k) => (i * 7919 + k * 104729) % opts.clusterPartitions);
          const per = new Map<number, number[]>();
          for (const p of new Set(parts)) {
            const l = leaders.get(p)!;
            if (!per.has(l)) per.set(l, []);
            per.get(l)!.push(p);
          }
          await Promise.all([...per].map(([l, ps]) => byLeader.get(l)!.request(0, 9, { ...(produceBody(ps) as object), acks: -1 } as never)));
          i++;
        }
        await sleep(50);
      }
      const f1 = await fetchCount(), t1 = traffic(), c1 = cpu(), s1 = performance.now();
      out.push({ mode, window, fetches: f1 - f0, toLeadersBytes: t1.to - t0.to, fromLeadersBytes: t1.from - t0.from, cpuSeconds: c1 - c0, seconds: (s1 - s0) / 1000 });
    }
  } finally {
    for (const k of conns) k.close();
    await c.cleanup();
  }
  return out;
}

let procCpu: (pid: number) => number;

async function main(): Promise<void> {
  procCpu = (await import('./lib/proc.js')).procCpuSeconds;
  console.log(`fetch sessions: consumer of ${opts.partitions} partitions, ${opts.reps} on/off alternations (${opts.idleFetches} idle fetches, ${opts.rounds} rounds of ${opts.active} partitions written)`);
  const consumer: ConsumerFigures[] = [];
  for (let rep = 1; rep <= opts.reps; rep++) {
    for (const mode of (rep % 2 ? ['on', 'off'] : ['off', 'on']) as Mode[]) {
      const f = await consumerPhase(mode, rep);
      consumer.push(f);
      console.log(`  rep ${rep} ${mode.padEnd(3)} idle: req ${fmt(f.idle.reqBytes)} B, resp ${fmt(f.idle.resBytes)} B, broker CPU ${fmt(f.idle.cpuUs)} µs/fetch, rtt ${fmt(f.idle.rttUs)} µs | active: req ${fmt(f.active.reqBytes)} B, resp ${fmt(f.active.resBytes)} B (${fmt(f.active.answered, 1)} partitions, ${fmt(f.active.records, 1)} records), broker CPU ${fmt(f.active.cpuUs)} µs/round (${fmt(f.active.fetchCpuUs)} without the produce) | full fetches ${f.fullFetches}, machine busy ${fmt(f.machineBusy * 100)}%`);
    }
  }
  const med = (mode: Mode, pick: (f: ConsumerFigures) => number) => median(consumer.filter((f) => f.mode === mode).map(pick));
  const rows: [string, (f: ConsumerFigures) => number][] = [
    ['idle request bytes', (f) => f.idle.reqBytes], ['idle response bytes', (f) => f.idle.resBytes], ['idle broker CPU µs/fetch', (f) => f.idle.cpuUs], ['idle round trip µs', (f) => f.idle.rttUs],
    ['active request bytes', (f) => f.active.reqBytes], ['active response bytes', (f) => f.active.resBytes], ['active broker CPU µs/round', (f) => f.active.cpuUs],
    ['active broker CPU µs/fetch', (f) => f.active.fetchCpuUs],
  ];
  console.log('medians            sessions on   forced off   on/off');
  const summary: Record<string, { on: number; off: number; ratio: number }> = {};
  for (const [name, pick] of rows) {
    const on = med('on', pick), off = med('off', pick);
    summary[name] = { on, off, ratio: on / off };
    console.log(`  ${name.padEnd(28)} ${fmt(on).padStart(10)} ${fmt(off).padStart(12)}   ${fmt(on / off, 3)}`);
  }
  const cluster: ClusterFigures[] = [];
  if (opts.clusterPartitions > 0) {
    console.log(`followers: three brokers, ${opts.clusterPartitions} partitions × RF 3, windows of ${opts.window} s (idle, then ${opts.active} records every 50 ms with acks=all)`);
    for (const mode of ['on', 'off'] as Mode[]) {
      for (const f of await clusterRun(mode)) {
        cluster.push(f);
        console.log(`  ${mode.padEnd(3)} ${f.window.padEnd(4)} ${f.fetches} follower fetches (${fmt(f.fetches / f.seconds)}/s), to leaders ${fmt(f.toLeadersBytes / Math.max(1, f.fetches))} B/fetch, from leaders ${fmt(f.fromLeadersBytes / Math.max(1, f.fetches))} B/fetch, brokers' CPU ${fmt((f.cpuSeconds * 1e6) / Math.max(1, f.fetches))} µs/fetch (${fmt((f.cpuSeconds / f.seconds) * 100)}% of a core)`);
      }
    }
    for (const window of ['idle', 'load'] as const) {
      const on = cluster.find((f) => f.mode === 'on' && f.window === window), off = cluster.find((f) => f.mode === 'off' && f.window === window);
      if (!on || !off) continue;
      const per = (f: ClusterFigures, x: number) => x / Math.max(1, f.fetches);
      console.log(`  ${window}: on/off to leaders ${fmt(per(on, on.toLeadersBytes) / per(off, off.toLeadersBytes), 3)}, from leaders ${fmt(per(on, on.fromLeadersBytes) / per(off, off.fromLeadersBytes), 3)}, CPU per fetch ${fmt(per(on, on.cpuSeconds) / per(off, off.cpuSeconds), 3)}, CPU per second ${fmt((on.cpuSeconds / on.seconds) / (off.cpuSeconds / off.seconds), 3)}`);
    }
  }
  if (opts.json) console.log(JSON.stringify({ opts, consumer, summary, cluster }));
}

await main();
process.exit(0);
