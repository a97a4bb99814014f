/**
 * Replication between three broker processes (test/support/cluster.ts), replication factor 3,
 * min.insync.replicas 2, acks=all:
 * - every acknowledged record is in the log files of every ISR member at the moment it is
 *   acknowledged, byte for byte the leader's batches (appendAsFollower keeps offsets and epochs);
 * - with too few in-sync replicas acks=all answers NOT_ENOUGH_REPLICAS, and the ISR grows back
 *   when the broker returns;
 * - SIGKILL of a partition leader under load from idempotent kafkajs producers: the controller
 *   moves leadership to an ISR member, the producers carry on, and a checker reading everything
 *   back with kcat finds every acknowledged record once, in order (zero lost, zero duplicated);
 *   the killed broker restarts, truncates, catches up and rejoins the ISR.
 * - SIGSTOP of a leader for longer than its session: the controller replaces it; when it wakes it
 *   stops leading (its lease is gone), registers again and follows; the checker finds everything.
 * The failover time (the fault to the first acknowledged produce on the new leader) is printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { readKcat } from '../support/clients.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { baseOffset, batchSize, lastOffsetDelta } from '../../src/protocol/records/record-batch.js';
import type { MetadataResponse } from '../../src/protocol/generated/messages/metadata-response.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`replication: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    peerProxies: true,
    config: { 'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200 },
  });
});

test.after(async () => {
  await c?.cleanup();
});

// A test that fails midway leaves no broker stopped, paused or cut off for the next one.
test.after.each(async () => {
  if (!c) return;
  for (const b of c.brokers) {
    c.resume(b.nodeId);
    for (const other of c.brokers) if (other !== b) c.peerLink(b.nodeId, other.nodeId).heal();
  }
  for (const b of c.brokers) if (!b.child) await c.start(b.nodeId);
});

const kafka = (clientId: string) => new Kafka({
  clientId, brokers: c!.bootstrapList, logLevel: logLevel.NOTHING,
  retry: { retries: 40, initialRetryTime: 100, maxRetryTime: 1000 }, requestTimeout: 10000,
});

async function createTopic(topic: string, partitions: number): Promise<void> {
  const admin = kafka(`admin-${topic}`).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions, replicationFactor: 3 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

function topicOf(m: MetadataResponse, name: string) {
  return m.topics.find((t) => t.name === name);
}

/** The last offset + 1 of the batches in a partition's log files on one broker (what it holds). */
function logEndOnDisk(logDir: string, topic: string, partition: number): { end: number; bytes: Buffer } {
  const dir = join(logDir, `${topic}-${partition}`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
  const bytes = Buffer.concat(files.map((f) => readFileSync(join(dir, f))));
  let end = 0;
  for (let pos = 0; pos + 61 <= bytes.length; pos += batchSize(bytes, pos)) end = baseOffset(bytes, pos) + lastOffsetDelta(bytes, pos) + 1;
  return { end, bytes };
}

test('acks=all: an acknowledged record is already in the log of every ISR member, byte for byte', async () => {
  if (!c) return console.log('replication: skipped:', missing);
  await createTopic('acked', 3);
  const producer = kafka('acked-producer').producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    for (let i = 0; i < 60; i++) {
      const [r] = await producer.send({ topic: 'acked', acks: -1, messages: [{ partition: i % 3, value: `v${i}` }] });
      assert.is(r.errorCode, 0);
      const acked = Number(r.baseOffset) + 1;
      if (i % 10 !== 9) continue;
      // Right after the acknowledgement: every ISR member has it on disk.
      const m = await c.metadata(1, ['acked']);
      const p = topicOf(m, 'acked')!.partitions.find((x) => x.partitionIndex === i % 3)!;
      assert.ok(p.isrNodes.length >= 2, `ISR [${p.isrNodes}]`);
      for (const id of p.isrNodes) {
        const end = logEndOnDisk(c.broker(id).logDir, 'acked', i % 3).end;
        assert.ok(end >= acked, `broker ${id} holds ${end}, acknowledged ${acked}`);
      }
    }
  } finally {
    await producer.disconnect();
  }
  // Once quiet, the replicas are identical to the leader's log.
  const m = await c.metadata(1, ['acked']);
  for (const p of topicOf(m, 'acked')!.partitions) {
    const leader = logEndOnDisk(c.broker(p.leaderId).logDir, 'acked', p.partitionIndex);
    assert.is(leader.end, 20);
    for (const id of p.replicaNodes) {
      const deadline = Date.now() + 5000;
      let copy = logEndOnDisk(c.broker(id).logDir, 'acked', p.partitionIndex);
      while (!copy.bytes.equals(leader.bytes) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        copy = logEndOnDisk(c.broker(id).logDir, 'acked', p.partitionIndex);
      }
      assert.ok(copy.bytes.equals(leader.bytes), `broker ${id}'s copy of acked-${p.partitionIndex} equals the leader's`);
    }
  }
});

test('NOT_ENOUGH_REPLICAS below min.insync.replicas; the ISR grows back when the broker returns', async () => {
  if (!c) return;
  await createTopic('minisr', 1);
  const m = await c.waitForMetadata(1, (x) => topicOf(x, 'minisr')?.partitions.length === 1, 'minisr');
  const p0 = topicOf(m, 'minisr')!.partitions[0];
  const [a, b] = p0.replicaNodes.filter((id) => id !== p0.leaderId);
  // Two followers gone: the controller takes them out of the ISR, which drops to the leader alone.
  await c.kill(a);
  await c.kill(b);
  await c.waitForMetadata(p0.leaderId, (x) => topicOf(x, 'minisr')!.partitions[0].isrNodes.length === 1, 'ISR of one');
  const cl = await c.client(p0.leaderId);
  const batch = () => buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] });
  // The metadata cache shows the new ISR a moment before the leader's partition applies it (as in
  // Kafka, where the metadata image and the replica manager's delta are two steps): an acks=all
  // produce in that moment is appended and times out waiting; the next one is refused up front.
  let code: number = ErrorCode.NONE;
  for (const deadline = Date.now() + 15_000; code !== ErrorCode.NOT_ENOUGH_REPLICAS && Date.now() < deadline;) {
    const all = await cl.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'minisr', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch() }] }] });
    code = all.responses[0].partitionResponses[0].errorCode;
    assert.ok(code === ErrorCode.NOT_ENOUGH_REPLICAS || code === ErrorCode.REQUEST_TIMED_OUT, `acks=all below min ISR: ${code}`);
  }
  assert.is(code, ErrorCode.NOT_ENOUGH_REPLICAS);
  const one = await cl.send(0, 9, { transactionalId: null, acks: 1, timeoutMs: 3000, topicData: [{ name: 'minisr', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch() }] }] });
  assert.is(one.responses[0].partitionResponses[0].errorCode, ErrorCode.NONE, 'acks=1 still works');
  await c.start(a);
  await c.start(b);
  // Back in sync: the leader expands the ISR (AlterPartition) once they caught up.
  await c.waitForMetadata(p0.leaderId, (x) => topicOf(x, 'minisr')!.partitions[0].isrNodes.length === 3, 'ISR of three', 30_000);
  const again = await cl.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'minisr', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch() }] }] });
  assert.is(again.responses[0].partitionResponses[0].errorCode, ErrorCode.NONE);
  assert.is(again.responses[0].partitionResponses[0].baseOffset, 1n);
});

test('a returning leader truncates what the new leader never had (OffsetForLeaderEpoch), then follows it', async () => {
  if (!c) return;
  await createTopic('diverge', 1);
  const m = await c.waitForMetadata(1, (x) => topicOf(x, 'diverge')?.partitions[0]?.isrNodes.length === 3, 'diverge in sync');
  const p0 = topicOf(m, 'diverge')!.partitions[0];
  const old = p0.leaderId;
  const followers = p0.replicaNodes.filter((id) => id !== old);
  const cl = await c.client(old);
  const produce = (acks: number, n: number) => cl.send(0, 9, {
    transactionalId: null, acks, timeoutMs: 5000,
    topicData: [{ name: 'diverge', topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`r${i}`) })) }) }] }],
  });
  assert.is((await produce(-1, 10)).responses[0].partitionResponses[0].errorCode, ErrorCode.NONE);
  // The followers are cut off from the leader (their connections reset, so a fetch the leader
  // answers later reaches nobody), the leader takes 5 more records with acks=1 and dies before
  // anyone copied them.
  for (const id of followers) c.peerLink(id, old).cut();
  assert.is((await produce(1, 5)).responses[0].partitionResponses[0].baseOffset, 10n);
  await c.kill(old);
  for (const id of followers) c.peerLink(id, old).heal();
  assert.is(logEndOnDisk(c.broker(old).logDir, 'diverge', 0).end, 15, 'the old leader holds 15');
  const after = await c.waitForMetadata(followers[0], (x) => {
    const p = topicOf(x, 'diverge')!.partitions[0];
    return p.leaderId !== old && p.leaderId >= 0;
  }, 'a new leader', 20_000);
  const leader = topicOf(after, 'diverge')!.partitions[0].leaderId;
  const lc = await c.client(leader);
  // The new leader may take its role a moment after the others see it in metadata.
  const produceNew = () => lc.send(0, 9, {
    transactionalId: null, acks: -1, timeoutMs: 10000,
    topicData: [{ name: 'diverge', topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('new') }] }) }] }],
  }).then((r) => r.responses[0].partitionResponses[0]);
  let more = await produceNew();
  for (const deadline = Date.now() + 20_000; more.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 100));
    more = await produceNew();
  }
  assert.is(more.errorCode, ErrorCode.NONE);
  assert.is(more.baseOffset, 10n, 'the new leader never had 10-14');
  await c.start(old);
  await c.waitForMetadata(leader, (x) => topicOf(x, 'diverge')!.partitions[0].isrNodes.length === 3, 'the old leader back in the ISR', 30_000);
  assert.match(c.broker(old).output(), 'diverge-0: truncating from 15 to 10');
  const copy = logEndOnDisk(c.broker(old).logDir, 'diverge', 0);
  assert.ok(copy.bytes.equals(logEndOnDisk(c.broker(leader).logDir, 'diverge', 0).bytes), 'identical to the new leader');
  assert.is(copy.end, 11);
});

interface LoadRun {
  victim: number;
  /** Partitions the victim led when the fault began. */
  ledByVictim: Set<number>;
  acked: Map<number, number[]>;
  ackTimes: { partition: number; at: number }[];
  failures: number;
}

/**
 * Idempotent kafkajs producers, one per partition, each sending "<partition>:<seq>" with acks=all
 * one after another; `fault(victim)` runs after 1.5 s against the leader of partition 0, the load
 * goes on for 2.5 s after the leaders moved away from it.
 */
async function underLoad(topic: string, partitions: number, fault: (victim: number) => Promise<void>, leadersMoved: (victim: number) => Promise<void>): Promise<LoadRun & { faultAt: number; movedAt: number }> {
  await createTopic(topic, partitions);
  const m = await c!.waitForMetadata(1, (x) => topicOf(x, topic)?.partitions.every((p) => p.isrNodes.length === 3) === true, `${topic} in sync`);
  const victim = topicOf(m, topic)!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
  const run: LoadRun = {
    victim, acked: new Map(), ackTimes: [], failures: 0,
    ledByVictim: new Set(topicOf(m, topic)!.partitions.filter((p) => p.leaderId === victim).map((p) => p.partitionIndex)),
  };
  let stop = false;
  const producers = await Promise.all(Array.from({ length: partitions }, async (_, partition) => {
    const producer = kafka(`${topic}-producer-${partition}`).producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    run.acked.set(partition, []);
    const loop = (async () => {
      for (let seq = 0; !stop; seq++) {
        try {
          await producer.send({ topic, acks: -1, timeout: 10000, messages: [{ partition, value: `${partition}:${seq}` }] });
          run.acked.get(partition)!.push(seq);
          run.ackTimes.push({ partition, at: Date.now() });
        } catch {
          run.failures++;
        }
      }
    })();
    return { producer, loop };
  }));
  await new Promise((r) => setTimeout(r, 1500));
  const faultAt = Date.now();
  await fault(victim);
  await leadersMoved(victim);
  const movedAt = Date.now();
  await new Promise((r) => setTimeout(r, 2500));
  stop = true;
  await Promise.all(producers.map((p) => p.loop));
  await Promise.all(producers.map((p) => p.producer.disconnect()));
  return { ...run, faultAt, movedAt };
}

/** Every partition led by a live broker other than `victim`. */
function leadersAway(topic: string, victim: number): Promise<void> {
  const survivor = c!.brokers.map((b) => b.nodeId).find((id) => id !== victim)!;
  return c!.waitForMetadata(survivor, (x) => topicOf(x, topic)!.partitions.every((p) => p.leaderId !== victim && p.leaderId >= 0), 'leaders moved', 20_000).then(() => undefined);
}

/** The checker: read everything back with kcat; each acknowledged record once, in order per partition. */
async function check(topic: string, partitions: number, run: LoadRun, bootstrap: string): Promise<void> {
  const { records } = await readKcat(bootstrap, topic, Array.from({ length: partitions }, (_, i) => i));
  for (let partition = 0; partition < partitions; partition++) {
    const seqs = records.filter((r) => r.partition === partition).map((r) => Number(Buffer.from(r.value!, 'base64').toString().split(':')[1]));
    const seen = new Set<number>();
    for (const s of seqs) {
      assert.not.ok(seen.has(s), `partition ${partition}: ${s} duplicated`);
      seen.add(s);
    }
    for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] > seqs[i - 1], `partition ${partition}: order ${seqs[i - 1]} then ${seqs[i]}`);
    const lost = run.acked.get(partition)!.filter((s) => !seen.has(s));
    assert.equal(lost, [], `partition ${partition}: acknowledged but lost`);
  }
}

function firstAckAfter(run: LoadRun, since: number): number {
  const times = run.ackTimes.filter((t) => run.ledByVictim.has(t.partition) && t.at > since).map((t) => t.at);
  assert.ok(times.length > 0, 'produces to the moved partitions were acknowledged after the fault');
  return Math.min(...times) - since;
}

const total = (run: LoadRun) => [...run.acked.values()].reduce((n, l) => n + l.length, 0);

test('SIGKILL of the leader under acks=all load: leadership moves, idempotent producers carry on, nothing acknowledged is lost, duplicated or reordered', async () => {
  if (!c) return;
  const run = await underLoad('failover', 3, (victim) => c!.kill(victim), (victim) => leadersAway('failover', victim));
  const { victim } = run;
  console.log(`failover: SIGKILL of broker ${victim} → leaders moved after ${run.movedAt - run.faultAt} ms → first acknowledged produce on the new leader after ${firstAckAfter(run, run.faultAt)} ms (broker.session.timeout.ms 2000); ${total(run)} records acknowledged, ${run.failures} sends failed`);
  await check('failover', 3, run, c.bootstrapList.filter((_, i) => c!.brokers[i].nodeId !== victim).join(','));

  // The killed broker comes back: it truncates, catches up and rejoins the ISR everywhere.
  const survivor = c.brokers.map((b) => b.nodeId).find((id) => id !== victim)!;
  const restartedAt = Date.now();
  await c.start(victim);
  await c.waitForMetadata(survivor, (x) => topicOf(x, 'failover')!.partitions.every((p) => p.isrNodes.length === 3), 'ISR of three again', 30_000);
  const truncations = c.broker(victim).output().split('\n').filter((l) => l.includes('failover-') && l.includes('truncating from'));
  console.log(`restart: broker ${victim} back in every ISR ${Date.now() - restartedAt} ms after its restart began; truncations: ${truncations.map((l) => l.replace(/^.*INFO /, '')).join('; ') || 'none'}`);
});

test('SIGSTOP of the leader for longer than its session: it is replaced, stops leading when it wakes, registers again and follows; nothing acknowledged is lost', async () => {
  if (!c) return;
  let resumedAt = 0;
  const run = await underLoad('paused', 3, async (victim) => {
    c!.pause(victim);
    await leadersAway('paused', victim);
    // Paused past its lease: etcd dropped its registration while it could not tell.
    await new Promise((r) => setTimeout(r, 1500));
    resumedAt = Date.now();
    c!.resume(victim);
  }, async () => undefined);
  const { victim } = run;
  console.log(`pause: SIGSTOP of broker ${victim} → first acknowledged produce on the new leader after ${firstAckAfter(run, run.faultAt)} ms; resumed after ${resumedAt - run.faultAt} ms; ${total(run)} records acknowledged, ${run.failures} sends failed`);
  await check('paused', 3, run, c.bootstrap);
  // It noticed, registered again (a new broker epoch) and is back in every ISR as a follower.
  await c.waitForMetadata(victim, (x) => topicOf(x, 'paused')!.partitions.every((p) => p.isrNodes.length === 3), 'ISR of three again', 30_000);
  const out = c.broker(victim).output();
  assert.match(out, 'left the cluster');
  assert.match(out, 'rejoined the cluster');
});

test.run();
