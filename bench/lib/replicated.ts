/**
 * Measurements on a replicated cluster that do not depend on whose brokers they are (Samsa on
 * etcd, or Apache Kafka in KRaft mode): the cluster is a `ReplicatedCluster` (node ids, a port and
 * a PID per node, SIGKILL and restart), and everything is measured over the Kafka protocol from
 * this process (bench/lib/kafka-conn.ts), so both sides are timed by the same code.
 *
 * - `createReplicatedTopic`: CreateTopics with a replication factor, then waits until every
 *   partition has a leader and a full ISR.
 * - `endToEndLatency`: records at a fixed rate to a partition's leader (acks=all, batched as a
 *   client batches them when requests are out), and a Fetch loop on another connection; the
 *   latency of a record is the time from when it was due to the Fetch response that carries it
 *   (visible to consumers only once the high watermark passed it, i.e. once min.insync replicas
 *   have it).
 * - `failover`: SIGKILL of a partition's leader while a load runs; the time to the first
 *   acknowledged (acks=all) produce on the new leader, retried every 20 ms on the leader that the
 *   metadata of a survivor names.
 * - `catchUp`: a follower killed, MiB produced while it is down, started again; the time from the
 *   restart to its return to the ISR.
 */
import { randomBytes } from 'node:crypto';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { baseOffset, batchSize, lastOffsetDelta } from '../../src/protocol/records/record-batch.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';
import { decodeResponse, encodeRequest, KafkaConn } from './kafka-conn.js';
import { percentile, sleep } from './proc.js';

const MiB = 1024 ** 2;

export interface ReplicatedCluster {
  name: 'samsa' | 'kafka';
  bootstrap: string;
  nodeIds: number[];
  port(nodeId: number): number;
  /** The running process, or undefined while killed. */
  pid(nodeId: number): number | undefined;
  kill(nodeId: number): Promise<void>;
  /** Starts a killed node again on its data; resolves once it is a registered broker. */
  start(nodeId: number): Promise<void>;
  stop(): Promise<void>;
}

export interface PartitionState {
  partition: number;
  leader: number;
  isr: number[];
}

async function withConn<T>(port: number, f: (c: KafkaConn) => Promise<T>): Promise<T> {
  const c = await KafkaConn.connect('127.0.0.1', port, 2000);
  try {
    return await Promise.race([f(c), sleep(10_000).then(() => { throw new Error('no answer within 10 s'); })]);
  } finally {
    c.close();
  }
}

/** Leader and ISR of each partition of `topic`, as broker `via` (or the first live one) sees them. */
export async function partitionStates(c: ReplicatedCluster, topic: string, via?: number): Promise<PartitionState[]> {
  const ids = via !== undefined ? [via] : c.nodeIds.filter((id) => c.pid(id) !== undefined);
  let last: unknown = null;
  for (const id of ids) {
    try {
      const md = await withConn(c.port(id), (k) => k.request(3, 12, {
        topics: [{ name: topic, topicId: ZERO_UUID }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
      }));
      const t = md.topics.find((x) => x.name === topic);
      if (!t || t.errorCode !== 0) throw new Error(`Metadata of ${topic}: error ${t?.errorCode}`);
      return t.partitions.map((p) => ({ partition: p.partitionIndex, leader: p.errorCode === 0 ? p.leaderId : -1, isr: [...p.isrNodes] })).sort((a, b) => a.partition - b.partition);
    } catch (e) {
      last = e;
    }
  }
  throw new Error(`no broker answered Metadata of ${topic}: ${String(last)}`);
}

export async function waitForPartitions(c: ReplicatedCluster, topic: string, pred: (ps: PartitionState[]) => boolean, what: string, timeoutMs = 60_000, via?: number): Promise<PartitionState[]> {
  const deadline = Date.now() + timeoutMs;
  let last: PartitionState[] | string = 'nothing yet';
  for (;;) {
    try {
      const ps = await partitionStates(c, topic, via);
      if (pred(ps)) return ps;
      last = ps;
    } catch (e) {
      last = String(e);
    }
    if (Date.now() > deadline) throw new Error(`${c.name}: timed out waiting for ${what} of ${topic}: ${JSON.stringify(last).slice(0, 500)}`);
    await sleep(50);
  }
}

/** Creates `topic` with `partitions` × `rf` (configs: topic settings), and waits until every partition has a leader and `rf` replicas in sync. */
export async function createReplicatedTopic(c: ReplicatedCluster, topic: string, partitions: number, rf: number, configs: Record<string, string> = {}): Promise<PartitionState[]> {
  const res = await withConn(c.port(c.nodeIds[0]), (k) => k.request(19, 7, {
    topics: [{ name: topic, numPartitions: partitions, replicationFactor: rf, assignments: [], configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
    timeoutMs: 30_000, validateOnly: false,
  }));
  const t = res.topics[0];
  if (t.errorCode !== 0 && t.errorCode !== 36) throw new Error(`${c.name}: CreateTopics ${topic}: error ${t.errorCode} ${t.errorMessage ?? ''}`);
  const ready = (ps: PartitionState[]) => ps.length === partitions && ps.every((p) => p.leader >= 0 && p.isr.length === rf);
  // Every broker must know the leaders (a client may ask any of them).
  let ps: PartitionState[] = [];
  for (const id of c.nodeIds) ps = await waitForPartitions(c, topic, ready, 'leaders and full ISRs', 60_000, id);
  return ps;
}

function produceFrame(topic: string, partition: number, records: Buffer, acks: number): Buffer {
  return encodeRequest(0, 9, 0, { transactionalId: null, acks, timeoutMs: 30_000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: partition, records }] }] });
}

function produceError(payload: Buffer): number {
  return decodeResponse(0, 9, payload).responses[0].partitionResponses[0].errorCode;
}

function fetchRequest(topic: string, partition: number, offset: number, maxWaitMs: number) {
  return {
    clusterId: null, replicaId: -1, replicaState: null, replicaEpoch: -1n, maxWaitMs, minBytes: 1, maxBytes: 8 * MiB, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, topicId: ZERO_UUID, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: BigInt(offset), lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 8 * MiB, replicaDirectoryId: ZERO_UUID, highWatermark: -1n }] }],
    forgottenTopicsData: [], rackId: '',
  };
}

export interface LatencyFigures {
  count: number;
  ratePerS: number;
  p50: number;
  p99: number;
  p999: number;
  errors: number;
}

/** Produce requests a producer has out at once (the Java producer's max.in.flight.requests.per.connection default). */
const MAX_IN_FLIGHT = 5;

/**
 * End-to-end latency at a fixed rate on partition 0 of a fresh topic (its log starts at offset 0):
 * record i is due at t0 + i/rate; it goes out at once in a Produce request (acks=all) when fewer
 * than MAX_IN_FLIGHT are out, else with the records due after it in the next one. One connection,
 * so offsets follow the order records were due; a consumer on a second connection fetches from
 * the leader (max wait 500 ms) and times every record it receives from the moment it was due.
 */
export async function endToEndLatency(c: ReplicatedCluster, topic: string, ratePerS: number, seconds: number, recordSize: number): Promise<LatencyFigures> {
  const [p0] = await partitionStates(c, topic);
  const port = c.port(p0.leader);
  const prod = await KafkaConn.connect('127.0.0.1', port, 5000);
  const cons = await KafkaConn.connect('127.0.0.1', port, 5000);
  const total = Math.round(ratePerS * seconds);
  const sentAt = new Float64Array(total);
  const latencies: number[] = [];
  let errors = 0;
  try {
    let done = false;
    const consumer = (async () => {
      let next = 0;
      while (next < total && !done) {
        const r = await cons.request(1, 12, fetchRequest(topic, 0, next, 500));
        const now = performance.now();
        const part = r.responses[0]?.partitions[0];
        if (!part || part.errorCode !== 0) throw new Error(`Fetch of ${topic}-0: error ${part?.errorCode ?? r.errorCode}`);
        const recs = part.records === null ? null : Array.isArray(part.records) ? Buffer.concat(part.records) : part.records;
        if (!recs) continue;
        for (let pos = 0; pos + 61 <= recs.length;) {
          const size = batchSize(recs, pos);
          if (pos + size > recs.length) break;
          const base = baseOffset(recs, pos);
          const last = base + lastOffsetDelta(recs, pos);
          for (let o = Math.max(base, next); o <= last && o < total; o++) latencies.push(now - sentAt[o]);
          next = Math.max(next, last + 1);
          pos += size;
        }
      }
    })();
    // Records due while MAX_IN_FLIGHT requests are out wait and go in the next request, as a
    // client's accumulator batches them (a broker serves one request of a connection at a time,
    // Kafka strictly so: a request per record would queue without bound once a round trip is
    // longer than the interval).
    const value = randomBytes(recordSize);
    const pending: number[] = [];
    let inFlight = 0;
    let acked = 0;
    let allAcked: () => void = () => {};
    const acknowledged = new Promise<void>((r) => { allAcked = r; });
    const flush = () => {
      if (pending.length === 0 || inFlight >= MAX_IN_FLIGHT) return;
      const n = pending.length;
      pending.length = 0;
      inFlight++;
      const batch = produceFrame(topic, 0, buildRecordBatch({ records: Array.from({ length: n }, () => ({ key: null, value })) }), -1);
      void prod.sendFrame(batch).then((p) => {
        if (produceError(p) !== 0) errors += n;
        inFlight--;
        acked += n;
        if (acked === total) allAcked();
        flush();
      });
    };
    const t0 = performance.now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / ratePerS;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      sentAt[i] = performance.now();
      pending.push(i);
      flush();
    }
    await Promise.race([acknowledged, sleep(60_000)]);
    await Promise.race([consumer, sleep(30_000)]);
    done = true;
  } finally {
    prod.close();
    cons.close();
  }
  return { count: latencies.length, ratePerS, p50: percentile(latencies, 50), p99: percentile(latencies, 99), p999: percentile(latencies, 99.9), errors };
}

/**
 * SIGKILL of the leader of `topic`-0 (while the caller's load runs), then one-record produces
 * (acks=all) every 20 ms to whatever leader a survivor's metadata names, until one is acknowledged.
 * Returns that time; the victim is started again and the call returns once it is back in the ISR.
 */
export async function failover(c: ReplicatedCluster, topic: string): Promise<{ ms: number; victim: number; rejoinMs: number }> {
  const [p0] = await partitionStates(c, topic);
  const victim = p0.leader;
  const survivor = c.nodeIds.find((id) => id !== victim)!;
  const frame = produceFrame(topic, 0, buildRecordBatch({ records: [{ key: null, value: Buffer.from('failover') }] }), -1);
  const t0 = performance.now();
  await c.kill(victim);
  let ms = NaN;
  let conn = null as { id: number; k: KafkaConn } | null;
  while (performance.now() - t0 < 60_000) {
    const leader = await partitionStates(c, topic, survivor).then((ps) => ps[0].leader, () => -1);
    if (leader >= 0 && leader !== victim) {
      try {
        if (conn?.id !== leader) {
          conn?.k.close();
          conn = { id: leader, k: await KafkaConn.connect('127.0.0.1', c.port(leader), 1000) };
        }
        const err = produceError(await Promise.race([conn.k.sendFrame(Buffer.from(frame)), sleep(5000).then(() => { throw new Error('produce timed out'); })]));
        if (err === 0) {
          ms = performance.now() - t0;
          break;
        }
      } catch {
        conn?.k.close();
        conn = null;
      }
    }
    await sleep(20);
  }
  conn?.k.close();
  const r0 = performance.now();
  await c.start(victim);
  await waitForPartitions(c, topic, (ps) => ps[0].isr.includes(victim), 'the old leader back in the ISR', 120_000, survivor);
  return { ms, victim, rejoinMs: performance.now() - r0 };
}

export interface CatchUpFigures {
  follower: number;
  missedMiB: number;
  produceMiBps: number;
  /** From the restart (spawn) to the follower back in the ISR. */
  inSyncMs: number;
}

/** Kills a follower of `topic`-0, produces `mib` MiB to the leader (acks=all, 8 requests in flight, 512 KiB batches), restarts it and times its return to the ISR. */
export async function catchUp(c: ReplicatedCluster, topic: string, mib: number): Promise<CatchUpFigures> {
  const [p0] = await partitionStates(c, topic);
  const leader = p0.leader;
  const follower = p0.isr.find((id) => id !== leader)!;
  await c.kill(follower);
  await waitForPartitions(c, topic, (ps) => !ps[0].isr.includes(follower), 'the follower out of the ISR', 60_000, leader);
  const batch = buildRecordBatch({ records: Array.from({ length: 64 }, () => ({ key: null, value: randomBytes(8 * 1024) })) });
  const perBatch = 64 * 8 * 1024;
  const batches = Math.ceil((mib * MiB) / perBatch);
  const k = await KafkaConn.connect('127.0.0.1', c.port(leader), 5000);
  const frame = produceFrame(topic, 0, batch, -1);
  const p0t = performance.now();
  let sent = 0;
  try {
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (sent < batches) {
        sent++;
        const err = produceError(await k.sendFrame(Buffer.from(frame)));
        if (err !== 0) throw new Error(`${c.name}: produce while the follower is down: error ${err}`);
      }
    }));
  } finally {
    k.close();
  }
  const produceSecs = (performance.now() - p0t) / 1000;
  const r0 = performance.now();
  await c.start(follower);
  await waitForPartitions(c, topic, (ps) => ps[0].isr.includes(follower), 'the follower back in the ISR', 600_000, leader);
  const missedMiB = (batches * perBatch) / MiB;
  return { follower, missedMiB, produceMiBps: missedMiB / produceSecs, inSyncMs: performance.now() - r0 };
}
