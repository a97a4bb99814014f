/**
 * Replication benchmarks on a real three-broker cluster (test/support/cluster.ts: etcd and three
 * broker processes on loopback, 2 s sessions), in one run:
 *
 * 1. Produce throughput and request latency (p50/p99), replication factor 3 with acks=all and
 *    min.insync.replicas 2, against replication factor 1 (acks=all, which is acks=1 with one
 *    replica), alternating phases of the same length, pipelined Produce requests of pre-built
 *    batches to each partition's leader.
 * 2. Failover: the time from a leader's SIGKILL to the first acknowledged (acks=all) produce on
 *    the new leader, as a client that retries every 20 ms on the leader the metadata names sees
 *    it; median of --failovers runs (the killed broker restarts and rejoins between runs).
 * 3. Catch-up: a follower is killed, --catchup-mib MiB are produced while it is down, it is
 *    started again; the time from its restart to its return to the ISR (and the part of it until
 *    it registered), and the catch-up rate.
 *
 *   npm run bench:replication [-- options]
 *
 * Options (defaults in brackets):
 *   --duration S [6]        length of each produce phase (each of RF1 and RF3 runs twice)
 *   --partitions N [6]      partitions of the throughput topics
 *   --inflight N [4]        Produce requests in flight per partition
 *   --batch N [32]          records per batch, --record-size B [1024] value bytes per record
 *   --failovers N [5]       SIGKILL runs for the failover median (0: none)
 *   --catchup-mib N [1024]  MiB the follower misses (the 1 GiB of issue 11; 0: no catch-up run)
 *   --json                  one JSON line with every figure at the end
 *
 * No assertions: it prints what it measured. Other sessions share this machine's cores; the
 * machine's CPU use during the run is printed as a noise indicator.
 */
import { randomBytes } from 'node:crypto';
import { startCluster, type TestCluster } from '../test/support/cluster.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { decodeResponse, encodeRequest, KafkaConn } from './lib/kafka-conn.js';
import { median, percentile, sleep } from './lib/proc.js';
import { machineCpu } from './lib/run.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

const MiB = 1024 ** 2;

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const opts = {
  duration: arg('duration', 6),
  partitions: arg('partitions', 6),
  inflight: arg('inflight', 4),
  batch: arg('batch', 32),
  recordSize: arg('record-size', 1024),
  failovers: arg('failovers', 5),
  catchupMiB: arg('catchup-mib', 1024),
  json: process.argv.includes('--json'),
};

const conns = new Map<number, KafkaConn>();
async function conn(c: TestCluster, nodeId: number): Promise<KafkaConn> {
  let k = conns.get(nodeId);
  if (!k) {
    k = await KafkaConn.connect('127.0.0.1', c.broker(nodeId).port, 5000);
    conns.set(nodeId, k);
  }
  return k;
}
function dropConn(nodeId: number): void {
  conns.get(nodeId)?.close();
  conns.delete(nodeId);
}

async function createTopic(c: TestCluster, name: string, partitions: number, rf: number): Promise<Map<number, number>> {
  const k = await conn(c, c.brokers[0].nodeId);
  const res = await k.request(19, 7, { topics: [{ name, numPartitions: partitions, replicationFactor: rf, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  if (res.topics[0].errorCode !== 0) throw new Error(`CreateTopics ${name}: ${res.topics[0].errorCode} ${res.topics[0].errorMessage}`);
  const m = await c.waitForMetadata(c.brokers[0].nodeId, (x) => {
    const t = x.topics.find((y) => y.name === name);
    return t?.partitions.length === partitions && t.partitions.every((p) => p.leaderId >= 0 && p.isrNodes.length === rf);
  }, `${name} in sync`, 60_000);
  return new Map(m.topics.find((t) => t.name === name)!.partitions.map((p) => [p.partitionIndex, p.leaderId]));
}

function produceFrame(topic: string, partition: number, records: Buffer, acks: number): Buffer {
  return encodeRequest(0, 9, 0, { transactionalId: null, acks, timeoutMs: 30_000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: partition, records }] }] });
}

function produceError(payload: Buffer): number {
  return decodeResponse(0, 9, payload).responses[0].partitionResponses[0].errorCode;
}

interface Phase { msgs: number; bytes: number; seconds: number; latencies: number[]; errors: number }

/** Pipelined produce to every partition's leader for `seconds`. */
async function producePhase(c: TestCluster, topic: string, leaders: Map<number, number>, seconds: number): Promise<Phase> {
  const batch = buildRecordBatch({ records: Array.from({ length: opts.batch }, () => ({ key: null, value: randomBytes(opts.recordSize) })) });
  const out: Phase = { msgs: 0, bytes: 0, seconds, latencies: [], errors: 0 };
  const end = performance.now() + seconds * 1000;
  const t0 = performance.now();
  await Promise.all([...leaders].flatMap(([partition, leader]) => Array.from({ length: opts.inflight }, async () => {
    const k = await conn(c, leader);
    const frame = produceFrame(topic, partition, batch, -1);
    while (performance.now() < end) {
      const s = performance.now();
      const err = produceError(await k.sendFrame(Buffer.from(frame)));
      out.latencies.push(performance.now() - s);
      if (err !== 0) out.errors++;
      else {
        out.msgs += opts.batch;
        out.bytes += opts.batch * opts.recordSize;
      }
    }
  })));
  out.seconds = (performance.now() - t0) / 1000;
  return out;
}

function summary(ps: Phase[]) {
  const msgs = ps.reduce((n, p) => n + p.msgs, 0);
  const bytes = ps.reduce((n, p) => n + p.bytes, 0);
  const secs = ps.reduce((n, p) => n + p.seconds, 0);
  const lat = ps.flatMap((p) => p.latencies);
  return { msgsPerSec: msgs / secs, mibPerSec: bytes / MiB / secs, p50: percentile(lat, 50), p99: percentile(lat, 99), errors: ps.reduce((n, p) => n + p.errors, 0) };
}

async function leaderOf(c: TestCluster, via: number, topic: string, partition: number): Promise<{ leader: number; isr: number[] }> {
  const m = await c.metadata(via, [topic]);
  const p = m.topics[0]?.partitions.find((x) => x.partitionIndex === partition);
  return { leader: p?.leaderId ?? -1, isr: [...(p?.isrNodes ?? [])] };
}

/** SIGKILL of the leader of `topic`-0, then produce (acks=all) to whatever leader the metadata names until one is acknowledged. */
async function failoverOnce(c: TestCluster, topic: string): Promise<{ ms: number; victim: number; rejoinMs: number }> {
  const { leader: victim } = await leaderOf(c, c.brokers[0].nodeId, topic, 0);
  const survivor = c.brokers.find((b) => b.nodeId !== victim)!.nodeId;
  const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from('failover') }] });
  const t0 = performance.now();
  await c.kill(victim);
  dropConn(victim);
  let ms = NaN;
  while (performance.now() - t0 < 60_000) {
    const { leader } = await leaderOf(c, survivor, topic, 0).catch(() => ({ leader: -1 }));
    if (leader >= 0 && leader !== victim) {
      try {
        const k = await conn(c, leader);
        if (produceError(await k.sendFrame(produceFrame(topic, 0, records, -1))) === 0) {
          ms = performance.now() - t0;
          break;
        }
      } catch {
        dropConn(leader);
      }
    }
    await sleep(20);
  }
  const r0 = performance.now();
  await c.start(victim);
  await c.waitForMetadata(survivor, (x) => x.topics.find((t) => t.name === topic)?.partitions[0]?.isrNodes.length === 3, 'back in the ISR', 60_000);
  return { ms, victim, rejoinMs: performance.now() - r0 };
}

/** Kills a follower of `topic`-0, produces `mib` MiB to it (acks=all), restarts the follower and times its return to the ISR. */
async function catchUp(c: TestCluster, topic: string, mib: number) {
  const { leader, isr } = await leaderOf(c, c.brokers[0].nodeId, topic, 0);
  const follower = isr.find((id) => id !== leader)!;
  await c.kill(follower);
  dropConn(follower);
  await c.waitForMetadata(leader, (x) => !x.topics.find((t) => t.name === topic)!.partitions[0].isrNodes.includes(follower), 'the follower out of the ISR', 60_000);
  const batch = buildRecordBatch({ records: Array.from({ length: 64 }, () => ({ key: null, value: randomBytes(8 * 1024) })) });
  const perBatch = 64 * 8 * 1024;
  const batches = Math.ceil((mib * MiB) / perBatch);
  const k = await conn(c, leader);
  const p0 = performance.now();
  let sent = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (sent < batches) {
      sent++;
      const err = produceError(await k.sendFrame(produceFrame(topic, 0, batch, -1)));
      if (err !== 0) throw new Error(`produce while the follower is down: error ${err}`);
    }
  }));
  const produceSecs = (performance.now() - p0) / 1000;
  const r0 = performance.now();
  await c.start(follower);
  const registeredMs = performance.now() - r0;
  await c.waitForMetadata(leader, (x) => x.topics.find((t) => t.name === topic)!.partitions[0].isrNodes.includes(follower), 'the follower back in the ISR', 600_000);
  const inSyncMs = performance.now() - r0;
  const missedMiB = (batches * perBatch) / MiB;
  return { follower, missedMiB, produceMiBps: missedMiB / produceSecs, registeredMs, inSyncMs, catchUpMiBps: missedMiB / ((inSyncMs - registeredMs) / 1000) };
}

async function main(): Promise<void> {
  const cpu0 = machineCpu();
  const wall0 = performance.now();
  console.log(`replication bench: 3 brokers, ${opts.partitions} partitions, ${opts.inflight} in flight per partition, ${opts.batch} × ${opts.recordSize} B per batch, ${opts.duration} s per phase`);
  const c = await startCluster({
    brokers: 3, logLevel: 'info',
    config: { 'min.insync.replicas': 2, 'replica.lag.time.max.ms': 10_000, 'replica.fetch.backoff.ms': 200, 'log.segment.bytes': 256 * MiB },
  });
  try {
    const rf1 = await createTopic(c, 'bench-rf1', opts.partitions, 1);
    const rf3 = await createTopic(c, 'bench-rf3', opts.partitions, 3);
    // Warm-up (JIT, segment files), then alternating phases so drift hits both alike.
    await producePhase(c, 'bench-rf1', rf1, 1);
    await producePhase(c, 'bench-rf3', rf3, 1);
    const p1: Phase[] = [];
    const p3: Phase[] = [];
    for (let i = 0; i < 2; i++) {
      p1.push(await producePhase(c, 'bench-rf1', rf1, opts.duration / 2));
      p3.push(await producePhase(c, 'bench-rf3', rf3, opts.duration / 2));
    }
    const s1 = summary(p1);
    const s3 = summary(p3);
    const f = (n: number, d = 1) => n.toFixed(d);
    console.log(`produce RF1 acks=all: ${f(s1.msgsPerSec, 0)} msgs/s, ${f(s1.mibPerSec)} MiB/s, latency p50 ${f(s1.p50)} ms, p99 ${f(s1.p99)} ms${s1.errors ? `, ${s1.errors} errors` : ''}`);
    console.log(`produce RF3 acks=all (min.insync.replicas 2): ${f(s3.msgsPerSec, 0)} msgs/s, ${f(s3.mibPerSec)} MiB/s, latency p50 ${f(s3.p50)} ms, p99 ${f(s3.p99)} ms${s3.errors ? `, ${s3.errors} errors` : ''}`);
    console.log(`RF3/RF1: throughput ×${f(s3.msgsPerSec / s1.msgsPerSec, 2)}, p99 latency ×${f(s3.p99 / s1.p99, 2)}`);

    const runs: { ms: number; victim: number; rejoinMs: number }[] = [];
    if (opts.failovers > 0) await createTopic(c, 'bench-failover', 1, 3);
    for (let i = 0; i < opts.failovers; i++) {
      const r = await failoverOnce(c, 'bench-failover');
      runs.push(r);
      console.log(`failover ${i + 1}: SIGKILL of leader ${r.victim} → first acknowledged produce on the new leader after ${f(r.ms, 0)} ms; restarted, back in the ISR after ${f(r.rejoinMs, 0)} ms`);
    }
    const ms = runs.map((r) => r.ms);
    if (runs.length) console.log(`failover: median ${f(median(ms), 0)} ms (min ${f(Math.min(...ms), 0)}, max ${f(Math.max(...ms), 0)}) with broker.session.timeout.ms 2000`);

    const cu = opts.catchupMiB > 0 ? await catchUp(c, await createTopic(c, 'bench-catchup', 1, 3).then(() => 'bench-catchup'), opts.catchupMiB) : null;
    if (cu) console.log(`catch-up: broker ${cu.follower} missed ${f(cu.missedMiB, 0)} MiB (produced at ${f(cu.produceMiBps)} MiB/s with two in sync); restart → registered ${f(cu.registeredMs, 0)} ms → back in the ISR ${f(cu.inSyncMs, 0)} ms (catch-up ${f(cu.catchUpMiBps)} MiB/s)`);
    const cpu1 = machineCpu();
    const wall = (performance.now() - wall0) / 1000;
    console.log(`machine CPU busy during the run: ${f(((cpu1.busy - cpu0.busy) / wall) * 100, 0)}% of one core (2 cores shared with other sessions), ${f(wall, 0)} s`);
    if (opts.json) console.log(JSON.stringify({ opts, rf1: s1, rf3: s3, failoverMs: ms, catchUp: cu }));
  } finally {
    for (const k of conns.values()) k.close();
    await c.cleanup();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
