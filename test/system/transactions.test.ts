/**
 * Transactions on a three-broker cluster (@samsa-timeout 200): the partitions of one transaction
 * are led by different brokers, so the coordinator writes its markers locally and through
 * WriteTxnMarkers to the other leaders.
 * - commit and abort: every partition gets its marker (the last stable offset reaches the high
 *   watermark everywhere), read_committed sees the committed records only;
 * - the transaction coordinator dies with a transaction open: the new leader of its
 *   __transaction_state partition loads the state from its replica, and the producer's next
 *   InitProducerId there aborts it (its partitions become stable again);
 * - sendOffsetsToTransaction with the group's and the transaction's coordinators on different
 *   brokers: the offsets are the producer's transactional batch in __consumer_offsets, committed by
 *   the COMMIT marker (WriteTxnMarkers to the group coordinator), dropped by ABORT, and loaded by
 *   a new group coordinator after a SIGKILL; the output is exactly the committed transactions'.
 * - OffsetFetch with require_stable while transactional commits land (test/support/txn-offset-race.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { commitWhileFetching } from '../support/txn-offset-race.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`cluster transactions: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;
const alive = new Set<number>();

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: {
      'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 3,
      'transaction.state.log.num.partitions': 3, 'transaction.state.log.replication.factor': 3, 'transaction.state.log.min.isr': 2,
    },
  });
  for (const b of c.brokers) alive.add(b.nodeId);
});

test.after(async () => {
  await c?.cleanup();
});

const kafka = (clientId: string) => new Kafka({
  clientId, brokers: c!.bootstrapList.filter((_, i) => alive.has(c!.brokers[i].nodeId)), logLevel: logLevel.NOTHING,
  retry: { retries: 40, initialRetryTime: 100, maxRetryTime: 1000 }, requestTimeout: 10000,
});

/** Leader of every partition of `topic`, from a live broker's metadata. */
async function leaders(topic: string, partitions: number): Promise<number[]> {
  const m = await c!.waitForMetadata([...alive][0], (x) => {
    const t = x.topics.find((y) => y.name === topic);
    return t?.partitions.length === partitions && t.partitions.every((p) => alive.has(p.leaderId) && p.isrNodes.length >= 2);
  }, `${topic} led`);
  return m.topics.find((y) => y.name === topic)!.partitions.sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => p.leaderId);
}

/** [high watermark, last stable offset] of a partition, from its leader. */
async function ends(topic: string, partition: number, leader: number): Promise<[number, number]> {
  const cl = await c!.client(leader);
  const at = async (isolationLevel: number) => {
    const r = await cl.send(2, 5, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n}] }], timeoutMs: 5000 });
    const p = r.topics[0].partitions[0];
    if (p.errorCode !== ErrorCode.NONE) throw new Error(`ListOffsets ${topic}-${partition}: error ${p.errorCode}`);
    return Number(p.offset);
  };
  return [await at(0), await at(1)];
}

async function stableEverywhere(topic: string, partitions: number, expectedHigh: number[]): Promise<void> {
  const led = await leaders(topic, partitions);
  for (let p = 0; p < partitions; p++) {
    await until(`${topic}-${p} stable at ${expectedHigh[p]}`, 45_000, async () => {
      const [high, stable] = await ends(topic, p, led[p]);
      return high === expectedHigh[p] && stable === high ? true : null;
    });
  }
}

async function readCommitted(topic: string, expected: number): Promise<string[]> {
  const got: string[] = [];
  const consumer = kafka(`${topic}-reader`).consumer({ groupId: `${topic}-reader`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => { got.push(message.value!.toString()); } });
  try {
    await until(`read_committed ${expected} records of ${topic}`, 30_000, async () => (got.length >= expected ? true : null));
    // A moment longer: nothing more (aborted records) arrives.
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await consumer.disconnect();
  }
  return got.sort();
}

test('commit and abort reach partitions led by every broker (WriteTxnMarkers); read_committed sees the committed records', async () => {
  if (!c) return console.log('cluster transactions: skipped:', missing);
  const topic = 'txn-spread';
  const admin = kafka('txn-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  await admin.disconnect();
  const led = await leaders(topic, 3);
  assert.is(new Set(led).size, 3, `the partitions are led by three brokers (${led})`);
  const producer = kafka('txn-spread-producer').producer({ transactionalId: 'txn-spread', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    const send = async (tag: string, commit: boolean) => {
      const txn = await producer.transaction();
      await txn.send({ topic, messages: [0, 1, 2].map((partition) => ({ partition, value: `${tag}-${partition}` })) });
      await (commit ? txn.commit() : txn.abort());
    };
    await send('c1', true);
    await send('a1', false);
    await send('c2', true);
  } finally {
    await producer.disconnect();
  }
  // Per partition: 3 records and 3 markers.
  await stableEverywhere(topic, 3, [6, 6, 6]);
  assert.equal(await readCommitted(topic, 6), ['c1-0', 'c1-1', 'c1-2', 'c2-0', 'c2-1', 'c2-2']);
});

test('the transaction coordinator dies with a transaction open: the new coordinator loads it, and the next InitProducerId aborts it', async () => {
  if (!c) return;
  const topic = 'txn-failover';
  const admin = kafka('txnf-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  await admin.disconnect();
  await leaders(topic, 3);
  const id = 'txn-failover-id';
  const find = async () => until('transaction coordinator', 30_000, async () => {
    const r = await (await c!.client([...alive][0])).send(10, 3, { key: id, keyType: 1, coordinatorKeys: [] });
    return r.errorCode === ErrorCode.NONE && alive.has(r.nodeId) ? r.nodeId : null;
  });
  const first = kafka('txnf-producer-1').producer({ transactionalId: id, idempotent: true, maxInFlightRequests: 1 });
  await first.connect();
  const txn = await first.transaction();
  await txn.send({ topic, messages: [0, 1, 2].map((partition) => ({ partition, value: `open-${partition}` })) });
  const coordinator = await find();
  const led = await leaders(topic, 3);
  for (let p = 0; p < 3; p++) {
    const [high, stable] = await ends(topic, p, led[p]);
    assert.equal([high, stable], [1, 0], `partition ${p}: the open transaction holds the last stable offset`);
  }
  await c.kill(coordinator);
  alive.delete(coordinator);
  await first.disconnect().catch(() => undefined);
  try {
    const successor = await until('a new transaction coordinator', 30_000, async () => {
      const n = await find();
      return n !== coordinator ? n : null;
    });
    // A new producer with the same id: InitProducerId at the new coordinator fences the old epoch
    // and aborts the open transaction (ABORT markers on the three partitions).
    const second = kafka('txnf-producer-2').producer({ transactionalId: id, idempotent: true, maxInFlightRequests: 1 });
    await second.connect();
    try {
      const t2 = await second.transaction();
      await t2.send({ topic, messages: [0, 1, 2].map((partition) => ({ partition, value: `after-${partition}` })) });
      await t2.commit();
    } finally {
      await second.disconnect();
    }
    assert.match(c.broker(successor).output(), 'transaction coordinator partition');
    // Each partition: the open record, its ABORT marker, the new record, its COMMIT marker.
    await stableEverywhere(topic, 3, [4, 4, 4]);
    assert.equal(await readCommitted(topic, 3), ['after-0', 'after-1', 'after-2']);
  } finally {
    await c.start(coordinator);
    alive.add(coordinator);
  }
});

/** The node FindCoordinator names for a key (keyType 0 group, 1 transactional id). */
async function coordinatorFor(key: string, keyType: number): Promise<number> {
  return until(`coordinator of ${key}`, 30_000, async () => {
    const r = await (await c!.client([...alive][0])).send(10, 3, { key, keyType, coordinatorKeys: [] });
    return r.errorCode === ErrorCode.NONE && alive.has(r.nodeId) ? r.nodeId : null;
  });
}

/** The group's committed offset of `topic-0`, from its coordinator (v5). */
async function committedOffset(group: string, topic: string): Promise<number> {
  const r = await (await c!.client(await coordinatorFor(group, 0))).send(9, 5, { groupId: group, topics: [{ name: topic, partitionIndexes: [0] }], requireStable: true, groups: [] });
  if (r.errorCode !== ErrorCode.NONE) throw new Error(`OffsetFetch: error ${r.errorCode}`);
  const p = r.topics[0].partitions[0];
  if (p.errorCode !== ErrorCode.NONE) throw new Error(`OffsetFetch ${topic}-0: error ${p.errorCode}`);
  return Number(p.committedOffset);
}

test('sendOffsetsToTransaction with the group and the transaction on different coordinators, across a SIGKILL of the group coordinator', async () => {
  if (!c) return;
  const admin = kafka('eos-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: ['eos-in', 'eos-out'].map((topic) => ({ topic, numPartitions: 1, replicationFactor: 3 })), waitForLeaders: true });
  await admin.disconnect();
  // A group and a transactional id whose coordinators are two different brokers.
  let group = '';
  let id = '';
  for (let i = 0; !group; i++) {
    const g = `eos-group-${i}`;
    const t = `eos-txn-${i}`;
    if ((await coordinatorFor(g, 0)) !== (await coordinatorFor(t, 1))) [group, id] = [g, t];
  }
  const run = async (clientId: string, batches: { from: number; commit: boolean }[]) => {
    const producer = kafka(clientId).producer({ transactionalId: id, idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (const b of batches) {
        const txn = await producer.transaction();
        await txn.send({ topic: 'eos-out', messages: Array.from({ length: 10 }, (_, i) => ({ value: `out-${b.from + i}` })) });
        await txn.sendOffsets({ consumerGroupId: group, topics: [{ topic: 'eos-in', partitions: [{ partition: 0, offset: String(b.from + 10) }] }] });
        await (b.commit ? txn.commit() : txn.abort());
      }
    } finally {
      await producer.disconnect();
    }
  };
  await run('eos-1', [{ from: 0, commit: true }, { from: 10, commit: true }, { from: 20, commit: false }]);
  assert.is(await until('committed offset 20', 20_000, async () => ((await committedOffset(group, 'eos-in')) === 20 ? 20 : null)), 20, 'the aborted transaction\'s offsets were dropped');
  const groupCoordinator = await coordinatorFor(group, 0);
  await c.kill(groupCoordinator);
  alive.delete(groupCoordinator);
  try {
    await until('a new group coordinator', 30_000, async () => ((await coordinatorFor(group, 0)) !== groupCoordinator ? true : null));
    // The new group coordinator loaded the committed transactional offsets from its replica.
    assert.is(await until('offsets loaded', 20_000, () => committedOffset(group, 'eos-in')), 20);
    await run('eos-2', [{ from: 20, commit: true }]);
    assert.is(await until('committed offset 30', 20_000, async () => ((await committedOffset(group, 'eos-in')) === 30 ? 30 : null)), 30);
    const out = await readCommitted('eos-out', 30);
    assert.equal(out, Array.from({ length: 30 }, (_, i) => `out-${i}`).sort(), 'exactly the committed output');
  } finally {
    await c.start(groupCoordinator);
    alive.add(groupCoordinator);
  }
});

test('200 rounds of commit-while-fetching on three brokers: require_stable never answers a stale -1 (issue 23, defect 1)', async () => {
  if (!c) return console.log('cluster transactions: skipped:', missing);
  const admin = kafka('txn-race-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'txn-race', numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true });
  await admin.disconnect();
  const r = await commitWhileFetching(c.bootstrapList.filter((_, i) => alive.has(c!.brokers[i].nodeId)).join(','), 'txn-race', 200, 'three');
  assert.is(r.stale, 0, JSON.stringify(r));
  assert.ok(r.answers >= 200, JSON.stringify(r));
});

test.run();
