/**
 * Load and checker for the cluster fault tests (the way Jepsen's Kafka analysis checks a log):
 * producers send "<partition>:<seq>" records with acks=all, one after another per partition; every
 * acknowledged seq is recorded; afterwards everything is read back (kcat, from the beginning to
 * the end) and the checker reports what was acknowledged but is missing (lost), what appears
 * twice (duplicated) and what appears out of send order (reordered), per partition.
 *
 * `kafkajsLoad` drives idempotent kafkajs producers (one per partition) in this process; other
 * clients (librdkafka, the Java client) run as child processes and feed `Acks` the same way.
 * Waits are on observable conditions (so many acknowledgements, a metadata change) with deadlines.
 */
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { readKcat } from './clients.js';
import type { TestCluster } from './cluster.js';
import type { MetadataResponse } from '../../src/protocol/generated/messages/metadata-response.js';

const { Kafka, logLevel } = kafkajs;

/** Acknowledged seqs per partition, with the time of each acknowledgement. */
export class Acks {
  readonly acked = new Map<number, number[]>();
  readonly times: { partition: number; at: number }[] = [];
  failures = 0;
  /** The first and the latest failure of a send, for the message of a failed wait. */
  firstError: string | null = null;
  lastError: string | null = null;

  constructor(readonly partitions: number) {
    for (let p = 0; p < partitions; p++) this.acked.set(p, []);
  }

  ack(partition: number, seq: number): void {
    this.acked.get(partition)!.push(seq);
    this.times.push({ partition, at: Date.now() });
  }

  get total(): number {
    let n = 0;
    for (const l of this.acked.values()) n += l.length;
    return n;
  }

  /** Acknowledgements of `partitions` (default all) after `since`. */
  countSince(since: number, partitions?: Iterable<number>): Map<number, number> {
    const want = new Set(partitions ?? this.acked.keys());
    const out = new Map([...want].map((p) => [p, 0]));
    for (const t of this.times) if (t.at > since && want.has(t.partition)) out.set(t.partition, out.get(t.partition)! + 1);
    return out;
  }

  /** The first acknowledgement of one of `partitions` after `since` (ms after it), or null. */
  firstAfter(since: number, partitions: Iterable<number>): number | null {
    const want = new Set(partitions);
    for (const t of this.times) if (t.at > since && want.has(t.partition)) return t.at - since;
    return null;
  }

  /** Resolves once each of `partitions` (default all) has `n` acknowledgements after `since`. */
  async waitFor(n: number, since: number, what: string, timeoutMs = 30_000, partitions?: Iterable<number>): Promise<void> {
    const want = [...(partitions ?? this.acked.keys())];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const counts = this.countSince(since, want);
      if ([...counts.values()].every((c) => c >= n)) return;
      if (Date.now() > deadline) {
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${n} acknowledgements per partition ${what}: ${JSON.stringify([...counts])} (${this.failures} sends failed${this.firstError ? `; first: ${this.firstError}; last: ${this.lastError}` : ''})`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * The pace of every fault-test load (kafkajsLoad here, the librdkafka and Java loads in
 * client-loads.ts): records per second per load, spread over its partitions, as Kafka's own
 * replication system tests drive their verifiable producer (1,000 records/s). Set
 * SAMSA_LOAD_RATE (0 = as fast as the client goes) to change it; an unpaced load keeps two
 * cores busy with three brokers and adds nothing a fault test checks.
 */
export const LOAD_RATE = Number(process.env.SAMSA_LOAD_RATE ?? 1000);

/** Milliseconds between two sends to one partition of a load over `partitions` partitions (0: unpaced). */
export function sendIntervalMs(partitions: number): number {
  return LOAD_RATE > 0 ? (1000 * partitions) / LOAD_RATE : 0;
}

export interface Load {
  acks: Acks;
  /** Stops sending, waits for the sends in flight, disconnects. */
  stop(): Promise<void>;
}

/** One idempotent kafkajs producer per partition (`from` to partitions - 1), acks=all, one send at a time. */
export async function kafkajsLoad(c: TestCluster, topic: string, partitions: number, acks = new Acks(partitions), from = 0): Promise<Load> {
  let stopped = false;
  const kafka = new Kafka({
    // SAMSA_KAFKAJS_LOG=1 shows the producers' retries (debugging a stuck partition).
    clientId: `${topic}-load`, brokers: c.bootstrapList, logLevel: process.env.SAMSA_KAFKAJS_LOG ? logLevel.INFO : logLevel.NOTHING,
    retry: { retries: 60, initialRetryTime: 100, maxRetryTime: 1000 }, requestTimeout: 10_000,
  });
  const loops = await Promise.all(Array.from({ length: partitions - from }, async (_, i) => {
    const partition = from + i;
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const interval = sendIntervalMs(partitions - from);
    const loop = (async () => {
      const start = Date.now();
      for (let seq = 0; !stopped; seq++) {
        const due = start + seq * interval - Date.now();
        if (due > 0) await new Promise((r) => setTimeout(r, due));
        try {
          await producer.send({ topic, acks: -1, timeout: 10_000, messages: [{ partition, value: `${partition}:${seq}` }] });
          acks.ack(partition, seq);
        } catch (e) {
          // A send that failed after its retries may still have been written: the checker allows
          // it to appear (unacknowledged), not to be duplicated.
          acks.failures++;
          const why = `partition ${partition}: ${(e as Error).name}: ${(e as Error).message}`;
          acks.firstError ??= why;
          acks.lastError = why;
        }
      }
    })();
    return { producer, loop };
  }));
  return {
    acks,
    async stop() {
      stopped = true;
      await Promise.all(loops.map((l) => l.loop));
      await Promise.all(loops.map((l) => l.producer.disconnect().catch(() => undefined)));
    },
  };
}

export function topicOf(m: MetadataResponse, name: string) {
  return m.topics.find((t) => t.name === name);
}

/** Creates a topic with replication factor 3 through the raw client of `via` and waits for every ISR to be full. */
export async function createTopic(c: TestCluster, topic: string, partitions: number, via = c.brokers[0].nodeId): Promise<MetadataResponse> {
  await c.waitForMetadata(via, (x) => x.brokers.length === c.brokers.length, 'every broker registered', 30_000);
  const cl = await c.client(via);
  const res = await cl.send(19, 7, { topics: [{ name: topic, numPartitions: partitions, replicationFactor: 3, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
  assert.is(res.topics[0].errorCode, 0, res.topics[0].errorMessage ?? '');
  return c.waitForMetadata(via, (x) => {
    const t = topicOf(x, topic);
    return t?.partitions.length === partitions && t.partitions.every((p) => p.isrNodes.length === 3 && p.leaderId >= 0);
  }, `${topic} in sync`);
}

export interface CheckResult {
  lost: Map<number, number[]>;
  duplicated: Map<number, number[]>;
  reordered: Map<number, [number, number][]>;
  read: number;
}

/** Reads every partition back (kcat) and compares with what was acknowledged. */
export async function checkLog(bootstrap: string, topic: string, acks: Acks): Promise<CheckResult> {
  const parts = [...acks.acked.keys()];
  const { records } = await readKcat(bootstrap, topic, parts);
  const out: CheckResult = { lost: new Map(), duplicated: new Map(), reordered: new Map(), read: records.length };
  for (const partition of parts) {
    const seqs = records.filter((r) => r.partition === partition).map((r) => Number(Buffer.from(r.value!, 'base64').toString().split(':')[1]));
    const seen = new Set<number>();
    const dup: number[] = [];
    const order: [number, number][] = [];
    for (let i = 0; i < seqs.length; i++) {
      if (seen.has(seqs[i])) dup.push(seqs[i]);
      seen.add(seqs[i]);
      if (i > 0 && seqs[i] <= seqs[i - 1]) order.push([seqs[i - 1], seqs[i]]);
    }
    const lost = acks.acked.get(partition)!.filter((s) => !seen.has(s));
    if (lost.length) out.lost.set(partition, lost);
    if (dup.length) out.duplicated.set(partition, dup);
    if (order.length) out.reordered.set(partition, order);
  }
  return out;
}

/** checkLog, asserting zero lost, zero duplicated, order kept, and that something was acknowledged. */
export async function assertNothingLost(bootstrap: string, topic: string, acks: Acks): Promise<CheckResult> {
  const r = await checkLog(bootstrap, topic, acks);
  const show = (m: Map<number, unknown[]>) => JSON.stringify([...m].map(([p, l]) => [p, l.slice(0, 10), l.length]));
  assert.ok(acks.total > 0, 'something was acknowledged');
  assert.is(r.lost.size, 0, `${topic}: acknowledged but lost: ${show(r.lost)}`);
  assert.is(r.duplicated.size, 0, `${topic}: duplicated: ${show(r.duplicated)}`);
  assert.is(r.reordered.size, 0, `${topic}: reordered: ${show(r.reordered)}`);
  assert.ok(r.read >= acks.total, `read ${r.read} of ${acks.total} acknowledged`);
  return r;
}

/** Waits until broker `via`'s metadata for `topic` satisfies `pred` for every partition. */
export function waitPartitions(c: TestCluster, via: number, topic: string, pred: (p: MetadataResponse['topics'][number]['partitions'][number]) => boolean, what: string, timeoutMs = 30_000): Promise<MetadataResponse> {
  return c.waitForMetadata(via, (x) => topicOf(x, topic)?.partitions.every(pred) === true, what, timeoutMs);
}
