/**
 * Reassignment benchmark on a real three-broker cluster (test/support/cluster.ts), in one run:
 *
 * 1. Copy rate of a partition move (AlterPartitionReassignments of one partition holding --mib
 *    MiB from broker 1 to broker 2) without a throttle, then of the same data (to broker 3) with
 *    leader/follower.replication.throttled.rate = --throttle-mib MiB/s on the three brokers and
 *    the throttled-replica lists set as kafka-reassign-partitions --throttle sets them. The copy
 *    time runs from the new replica's log appearing to the move completing; the "steady" rate is
 *    the new copy's growth between 50% and 95% of the size (sampled from its files every 100 ms),
 *    which leaves out the burst the sliding window lets through first (about
 *    (replication.quota.window.num - 1) windows' worth at the rate: 10 s with Kafka's defaults).
 * 2. Produce latency (acks=all, replication factor 2, one request in flight per partition) at
 *    rest, during the unthrottled move and during the throttled move: p50 / p99 and ratios.
 *
 *   npx tsx bench/reassignment.ts [--mib N (256)] [--throttle-mib N (8)] [--rest-s S (5)] [--window-num N (11)]
 *
 * No assertions: it prints what it measured. Other sessions share this machine's cores; the
 * machine's CPU use during the run is printed as a noise indicator.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startCluster, type TestCluster } from '../test/support/cluster.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { decodeResponse, encodeRequest, KafkaConn } from './lib/kafka-conn.js';
import { percentile, sleep } from './lib/proc.js';
import { machineCpu } from './lib/run.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

const MiB = 1024 ** 2;
function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const opts = { mib: arg('mib', 256), throttleMiB: arg('throttle-mib', 8), restS: arg('rest-s', 5), windowNum: arg('window-num', 11) };
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-');

const conns = new Map<number, KafkaConn>();
async function conn(c: TestCluster, nodeId: number): Promise<KafkaConn> {
  let k = conns.get(nodeId);
  if (!k) conns.set(nodeId, (k = await KafkaConn.connect('127.0.0.1', c.broker(nodeId).port, 5000)));
  return k;
}

function produceFrame(topic: string, partition: number, records: Buffer, acks: number): Buffer {
  return encodeRequest(0, 9, 0, { transactionalId: null, acks, timeoutMs: 30_000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: partition, records }] }] });
}
const produceError = (payload: Buffer) => decodeResponse(0, 9, payload).responses[0].partitionResponses[0].errorCode;

async function createTopic(c: TestCluster, name: string, assignments: number[][]): Promise<void> {
  const k = await conn(c, 1);
  const res = await k.request(19, 7, { topics: [{ name, numPartitions: -1, replicationFactor: -1, assignments: assignments.map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })), configs: [] }], timeoutMs: 30_000, validateOnly: false });
  if (res.topics[0].errorCode !== 0) throw new Error(`CreateTopics ${name}: ${res.topics[0].errorMessage}`);
  await c.waitForMetadata(1, (m) => m.topics.find((t) => t.name === name)?.partitions.every((p) => p.isrNodes.length === assignments[p.partitionIndex].length) === true, `${name} in sync`, 60_000);
}

function dirBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const e of readdirSync(dir)) if (e.endsWith('.log')) n += statSync(join(dir, e)).size;
  return n;
}

/** A closed-loop acks=all producer, one request in flight per partition; latencies by phase label. */
function startLoad(c: TestCluster, topic: string, leaders: Map<number, number>) {
  const batch = buildRecordBatch({ records: Array.from({ length: 16 }, () => ({ key: null, value: randomBytes(1024) })) });
  const latencies = new Map<string, number[]>();
  let phase = 'warm-up';
  let stop = false;
  let errors = 0;
  const done = Promise.all([...leaders].map(async ([partition, leader]) => {
    const k = await conn(c, leader);
    const frame = produceFrame(topic, partition, batch, -1);
    while (!stop) {
      const s = performance.now();
      const err = produceError(await k.sendFrame(Buffer.from(frame)));
      const label = phase;
      if (err !== 0) errors++;
      let l = latencies.get(label);
      if (!l) latencies.set(label, (l = []));
      l.push(performance.now() - s);
    }
  }));
  return {
    set: (p: string) => { phase = p; },
    stats: (p: string) => { const l = latencies.get(p) ?? []; return { n: l.length, p50: percentile(l, 50), p99: percentile(l, 99) }; },
    errors: () => errors,
    stop: async () => { stop = true; await done; },
  };
}

async function alter(c: TestCluster, via: number, resources: { resourceType: number; resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }[]): Promise<void> {
  const res = await (await conn(c, via)).request(44, 1, { resources, validateOnly: false });
  for (const r of res.responses) if (r.errorCode !== 0) throw new Error(`IncrementalAlterConfigs ${r.resourceName}: ${r.errorMessage}`);
}

/** Moves move-0 to [target]; returns the copy time and the steady rate of the new copy. */
async function move(c: TestCluster, target: number, size: number): Promise<{ seconds: number; mibps: number; steadyMiBps: number }> {
  const res = await (await conn(c, 1)).request(45, 0, { timeoutMs: 30_000, allowReplicationFactorChange: true, topics: [{ name: 'move', partitions: [{ partitionIndex: 0, replicas: [target] }] }] });
  const e = res.responses[0]?.partitions[0];
  if (res.errorCode !== 0 || (e && e.errorCode !== 0)) throw new Error(`AlterPartitionReassignments: ${res.errorMessage ?? e?.errorMessage}`);
  const dir = join(c.broker(target).logDir, 'move-0');
  while (!existsSync(dir)) await sleep(10);
  const t0 = performance.now();
  let half: { t: number; b: number } | null = null;
  let late: { t: number; b: number } | null = null;
  for (;;) {
    const m = await c.metadata(target, ['move']);
    if (m.topics[0]?.partitions[0]?.replicaNodes.join() === String(target)) break;
    const b = dirBytes(dir);
    const t = performance.now();
    if (!half && b >= size * 0.5) half = { t, b };
    if (!late && b >= size * 0.95) late = { t, b };
    await sleep(100);
  }
  const seconds = (performance.now() - t0) / 1000;
  const steady = half && late && late.t > half.t ? (late.b - half.b) / MiB / ((late.t - half.t) / 1000) : NaN;
  return { seconds, mibps: size / MiB / seconds, steadyMiBps: steady };
}

async function main(): Promise<void> {
  const cpu0 = machineCpu();
  const wall0 = performance.now();
  const rate = Math.round(opts.throttleMiB * MiB);
  console.log(`reassignment bench: 3 brokers, a ${opts.mib} MiB partition moved twice (unthrottled, then ${opts.throttleMiB} MiB/s), replication.quota.window.num ${opts.windowNum}`);
  const c = await startCluster({ brokers: 3, logLevel: 'info', config: { 'replication.quota.window.num': opts.windowNum, 'log.segment.bytes': 256 * MiB } });
  try {
    await createTopic(c, 'move', [[1]]);
    await createTopic(c, 'load', [[1, 2], [2, 3], [3, 1]]);
    const fill = buildRecordBatch({ records: Array.from({ length: 64 }, () => ({ key: null, value: randomBytes(8 * 1024) })) });
    const k1 = await conn(c, 1);
    const batches = Math.ceil((opts.mib * MiB) / (64 * 8 * 1024));
    let sent = 0;
    await Promise.all(Array.from({ length: 4 }, async () => {
      while (sent < batches) {
        sent++;
        const err = produceError(await k1.sendFrame(produceFrame('move', 0, fill, 1)));
        if (err !== 0) throw new Error(`fill: error ${err}`);
      }
    }));
    const size = dirBytes(join(c.broker(1).logDir, 'move-0'));
    const lm = await c.metadata(1, ['load']);
    const leaders = new Map(lm.topics[0].partitions.map((p) => [p.partitionIndex, p.leaderId]));
    const load = startLoad(c, 'load', leaders);
    await sleep(1000);
    load.set('rest');
    await sleep(opts.restS * 1000);
    load.set('unthrottled');
    const plain = await move(c, 2, size);
    // Throttled: rates on every broker, lists as kafka-reassign-partitions --throttle sets them (leader 2, follower 3).
    for (const b of [1, 2, 3]) {
      await alter(c, b, [{ resourceType: 4, resourceName: String(b), configs: ['leader.replication.throttled.rate', 'follower.replication.throttled.rate'].map((name) => ({ name, configOperation: 0, value: String(rate) })) }]);
    }
    await alter(c, 1, [{ resourceType: 2, resourceName: 'move', configs: [{ name: 'leader.replication.throttled.replicas', configOperation: 0, value: '0:2' }, { name: 'follower.replication.throttled.replicas', configOperation: 0, value: '0:3' }] }]);
    load.set('between');
    await sleep(500);
    load.set('throttled');
    const slow = await move(c, 3, size);
    load.set('after');
    await load.stop();
    const rest = load.stats('rest');
    const during = load.stats('unthrottled');
    const thr = load.stats('throttled');
    console.log(`partition size: ${f(size / MiB)} MiB`);
    console.log(`copy, unthrottled:      ${f(plain.seconds, 2)} s, ${f(plain.mibps)} MiB/s (steady ${f(plain.steadyMiBps)} MiB/s)`);
    console.log(`copy, throttle ${opts.throttleMiB} MiB/s: ${f(slow.seconds, 2)} s, ${f(slow.mibps)} MiB/s (steady ${f(slow.steadyMiBps)} MiB/s; burst allowance ≈ ${f(((opts.windowNum - 1) * rate) / MiB)} MiB)`);
    console.log(`  throttled / unthrottled copy time: ${f(slow.seconds / plain.seconds, 2)}×; steady rate / throttle: ${f(slow.steadyMiBps / opts.throttleMiB, 2)}`);
    console.log(`produce acks=all (RF 2, 3 partitions, 1 in flight each, 16 × 1 KiB):`);
    console.log(`  at rest:            ${rest.n} requests, p50 ${f(rest.p50, 2)} ms, p99 ${f(rest.p99, 2)} ms`);
    console.log(`  during a move:      ${during.n} requests, p50 ${f(during.p50, 2)} ms, p99 ${f(during.p99, 2)} ms (p99 ${f(during.p99 / rest.p99, 2)}× rest)`);
    console.log(`  during a throttled move: ${thr.n} requests, p50 ${f(thr.p50, 2)} ms, p99 ${f(thr.p99, 2)} ms (p99 ${f(thr.p99 / rest.p99, 2)}× rest)`);
    console.log(`  produce errors: ${load.errors()}`);
  } finally {
    for (const k of conns.values()) k.close();
    await c.cleanup();
  }
  const cpu1 = machineCpu();
  const wall = (performance.now() - wall0) / 1000;
  console.log(`machine CPU busy during the run: ${f(((cpu1.busy - cpu0.busy) / wall) * 100, 0)}% of one core (2 cores shared with other sessions), ${f(wall, 0)} s`);
}

await main();
