/**
 * Partition reassignment on three broker processes (test/support/cluster.ts), driven by real
 * clients:
 * - kafkajs admin.alterPartitionReassignments moves a partition with acks=all data from [1, 2]
 *   to [3, 2] while broker 3 cannot reach the leader: listPartitionReassignments and Metadata show
 *   the merged list [3, 2, 1] adding [3] removing [1], the ISR keeps both old replicas, and
 *   producers with acks=all carry on. Once 3 can fetch, the move completes: replicas [3, 2], 3
 *   leads, broker 1 deletes its copy, and a consumer reads every record in order from the new set.
 * - a move that cannot progress is cancelled (null replicas): the original replicas come back.
 * - Kafka's errors, raw: an unknown broker (INVALID_REPLICA_ASSIGNMENT), cancelling without a move
 *   (NO_REASSIGNMENT_IN_PROGRESS), an unknown topic or partition (UNKNOWN_TOPIC_OR_PARTITION).
 * - Kafka 4.4's own kafka-reassign-partitions tool (--execute, then --verify) through a broker
 *   that is not the controller.
 * - a move whose controller is SIGKILLed midway is completed by the next controller.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { tmpDir } from '../support/tmp.js';
import { until } from '../support/until.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { kafkaTool } from '../support/kafka-tools.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

let c: TestCluster | null = null;
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`reassignment-clients: etcd is required under CI: ${missing}`);

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3, peerProxies: true });
});

test.after(async () => {
  await c?.cleanup();
});

const kafka = (clientId: string) => new Kafka({ clientId, brokers: c!.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });

const waitTrue = (what: string, ms: number, fn: () => Promise<boolean>) => until(what, ms, async () => ((await fn()) ? true : null));

function partitionOf(m: Awaited<ReturnType<TestCluster['metadata']>>, topic: string, index: number) {
  return m.topics.find((t) => t.name === topic)?.partitions.find((p) => p.partitionIndex === index);
}

test('kafkajs moves a partition under acks=all load: merged replicas while moving, the old copy removed only after the new one is in sync', async () => {
  if (!c) return console.log('reassignment-clients: skipped:', missing);
  const admin = kafka('move-admin').admin();
  await admin.connect();
  const producer = kafka('move-producer').producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'moving', replicaAssignment: [{ partition: 0, replicas: [1, 2] }], configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });
    const send = async (from: number, n: number) => {
      for (let i = from; i < from + n; i += 50) {
        await producer.send({ topic: 'moving', acks: -1, messages: Array.from({ length: 50 }, (_, j) => ({ value: `r${i + j}` })) });
      }
    };
    await send(0, 500);

    c.peerLink(3, 1).cut(); // broker 3 cannot fetch from the leader: the move cannot finish yet
    await admin.alterPartitionReassignments({ topics: [{ topic: 'moving', partitionAssignment: [{ partition: 0, replicas: [3, 2] }] }] });
    const listed = await admin.listPartitionReassignments({ topics: [{ topic: 'moving', partitions: [0] }] });
    assert.equal(listed.topics, [{ name: 'moving', partitions: [{ partition: 0, replicas: [3, 2, 1], addingReplicas: [3], removingReplicas: [1] }] }]);
    // Broker 2 learns the merged list from the metadata store a moment after the controller wrote it.
    const during = partitionOf(await c.waitForMetadata(2, (m) => partitionOf(m, 'moving', 0)?.replicaNodes.join() === '3,2,1', 'the merged replicas [3, 2, 1]'), 'moving', 0)!;
    assert.equal([...during.isrNodes].sort(), [1, 2], 'the old replicas stay in sync while the new one copies');
    assert.is(during.leaderId, 1);
    await send(500, 500); // acks=all with min.insync.replicas 2 during the move
    assert.ok(existsSync(join(c.broker(3).logDir, 'moving-0')), 'the new replica has a log');

    c.peerLink(3, 1).heal();
    await waitTrue('the move to complete', 30_000, async () => (await admin.listPartitionReassignments({})).topics.length === 0);
    for (const b of c.brokers) {
      await c.waitForMetadata(b.nodeId, (m) => {
        const p = partitionOf(m, 'moving', 0);
        return !!p && p.leaderId === 3 && p.replicaNodes.join() === '3,2';
      }, 'replicas [3, 2] led by 3');
    }
    const after = partitionOf(await c.metadata(3), 'moving', 0)!;
    assert.equal([...after.isrNodes].sort(), [2, 3]);
    await waitTrue('broker 1 to delete its copy', 10_000, async () => !existsSync(join(c!.broker(1).logDir, 'moving-0')));

    await send(1000, 100); // the new leader takes acks=all writes
    const consumer = kafka('move-consumer').consumer({ groupId: 'move-readers' });
    await consumer.connect();
    const seen: string[] = [];
    try {
      await consumer.subscribe({ topic: 'moving', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
      await waitTrue('1100 records', 30_000, async () => seen.length >= 1100);
    } finally {
      await consumer.disconnect();
    }
    assert.equal(seen, Array.from({ length: 1100 }, (_, i) => `r${i}`), 'every record once, in order');
  } finally {
    c.peerLink(3, 1).heal(); // the next tests need the link, also after a failure here
    await producer.disconnect();
    await admin.disconnect();
  }
});

test('a move that cannot finish is cancelled: the original replicas come back', async () => {
  if (!c) return;
  const admin = kafka('cancel-admin').admin();
  await admin.connect();
  try {
    c.peerLink(1, 3).cut();
    await admin.alterPartitionReassignments({ topics: [{ topic: 'moving', partitionAssignment: [{ partition: 0, replicas: [1, 2] }] }] });
    const listed = await admin.listPartitionReassignments({});
    assert.equal(listed.topics, [{ name: 'moving', partitions: [{ partition: 0, replicas: [1, 2, 3], addingReplicas: [1], removingReplicas: [3] }] }]);
    // kafkajs has no way to send a null replica list: the cancel goes raw.
    const cancel = await (await c.client(2)).send(45, 0, { timeoutMs: 10_000, allowReplicationFactorChange: true, topics: [{ name: 'moving', partitions: [{ partitionIndex: 0, replicas: null }] }] });
    assert.equal(cancel.responses[0].partitions.map((p) => p.errorCode), [ErrorCode.NONE]);
    assert.equal((await admin.listPartitionReassignments({})).topics, []);
    // As Kafka reverts: the merged list [1, 2, 3] without the replica being added (the order of
    // the original list is not kept).
    const m = await c.waitForMetadata(2, (x) => partitionOf(x, 'moving', 0)?.replicaNodes.join() === '2,3', 'replicas [2, 3] again');
    assert.is(partitionOf(m, 'moving', 0)!.leaderId, 3);
    await waitTrue('broker 1 to drop the copy it had started', 10_000, async () => !existsSync(join(c!.broker(1).logDir, 'moving-0')));
  } finally {
    c.peerLink(1, 3).heal();
    await admin.disconnect();
  }
});

test('Kafka errors: unknown broker, nothing to cancel, unknown topic or partition; ALTER checks pass without an authorizer', async () => {
  if (!c) return;
  const cl = await c.client(2);
  const res = await cl.send(45, 0, {
    timeoutMs: 10_000, allowReplicationFactorChange: true,
    topics: [
      { name: 'moving', partitions: [{ partitionIndex: 0, replicas: [3, 9] }, { partitionIndex: 0, replicas: null }, { partitionIndex: 7, replicas: [1] }] },
      { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [1] }] },
      { name: 'moving', partitions: [{ partitionIndex: 0, replicas: [] }, { partitionIndex: 0, replicas: [2, 2] }] },
    ],
  });
  assert.is(res.errorCode, ErrorCode.NONE);
  const got = res.responses.flatMap((t) => t.partitions.map((p) => [t.name, p.partitionIndex, p.errorCode, p.errorMessage]));
  assert.equal(got, [
    ['moving', 0, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes broker 9, but no such broker is registered.'],
    ['moving', 0, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, null],
    ['moving', 7, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find partition moving:7.'],
    ['nope', 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'Unable to find a topic named nope.'],
    ['moving', 0, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.'],
    ['moving', 0, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes the broker 2 more than once.'],
  ]);
  const list = await cl.send(46, 0, { timeoutMs: 10_000, topics: [{ name: 'nope', partitionIndexes: [0] }, { name: 'moving', partitionIndexes: [0, 5] }] });
  assert.equal([list.errorCode, list.topics], [ErrorCode.NONE, []]);
  // v1 (KIP-860) without allow_replication_factor_change: a valid list of another length is
  // refused (2 → 3); a list the controller refuses anyway gets the controller's answer first.
  const v1 = await cl.send(45, 1, {
    timeoutMs: 10_000, allowReplicationFactorChange: false,
    topics: [{ name: 'moving', partitions: [{ partitionIndex: 0, replicas: [1, 2, 3] }, { partitionIndex: 0, replicas: [3, 9] }] }],
  });
  assert.is(v1.allowReplicationFactorChange, false);
  assert.equal(v1.responses[0].partitions.map((p) => [p.errorCode, p.errorMessage]), [
    [ErrorCode.INVALID_REPLICATION_FACTOR, 'The replication factor is changed from 2 to 3'],
    [ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes broker 9, but no such broker is registered.'],
  ]);
});

test('kafka-reassign-partitions (Kafka 4.4 tools) through a broker that is not the controller', async () => {
  if (!c) return;
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`reassignment-clients: java is required under CI: ${missingJava}`);
    return void console.log(`skipped: ${missingJava}`);
  }
  const m = await c.metadata(1);
  const via = c.brokers.map((b) => b.nodeId).find((id) => id !== m.controllerId)!;
  const dir = tmpDir('reassign-json');
  const plan = join(dir.path, 'plan.json');
  writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'moving', partition: 0, replicas: [1, 3], log_dirs: ['any', 'any'] }] }));
  const tool = (...args: string[]) => kafkaTool('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', [
    '--bootstrap-server', `127.0.0.1:${c!.broker(via).port}`, '--reassignment-json-file', plan, ...args], { timeoutMs: 90_000 });
  try {
    const exec = await tool('--execute');
    assert.is(exec.code, 0, exec.stdout + exec.stderr);
    assert.match(exec.stdout, 'Successfully started partition reassignment for moving-0');
    let verify = await tool('--verify');
    for (let i = 0; i < 10 && !/moving-0 is completed/.test(verify.stdout); i++) {
      await new Promise((r) => setTimeout(r, 500));
      verify = await tool('--verify');
    }
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
    assert.ok(verify.stdout.includes('Reassignment of partition moving-0 is completed.'), verify.stdout + verify.stderr);
    await c.waitForMetadata(2, (x) => partitionOf(x, 'moving', 0)?.replicaNodes.join() === '1,3', 'replicas [1, 3]');
  } finally {
    await dir.cleanup();
  }
});

test('a move survives the controller: SIGKILL of the controller mid-move, the next controller completes it', async () => {
  if (!c) return;
  const m = await c.metadata(1);
  const controller = m.controllerId;
  const [x, y] = c.brokers.map((b) => b.nodeId).filter((id) => id !== controller);
  const admin = kafka('ctl-admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'ctl-move', replicaAssignment: [{ partition: 0, replicas: [x] }] }], waitForLeaders: true });
    c.peerLink(y, x).cut();
    await admin.alterPartitionReassignments({ topics: [{ topic: 'ctl-move', partitionAssignment: [{ partition: 0, replicas: [y, x] }] }] });
    await c.waitForMetadata(x, (md) => partitionOf(md, 'ctl-move', 0)?.replicaNodes.join() === `${y},${x}`, 'the move started');
  } finally {
    await admin.disconnect();
  }
  await c.kill(controller);
  await c.waitForMetadata(x, (md) => md.controllerId !== controller && md.controllerId >= 0 && !md.brokers.some((b) => b.nodeId === controller), 'a new controller');
  c.peerLink(y, x).heal();
  const done = await c.waitForMetadata(x, (md) => {
    const p = partitionOf(md, 'ctl-move', 0);
    return !!p && p.leaderId === y && p.isrNodes.length === 2;
  }, 'the move completed under the new controller', 30_000);
  assert.equal(partitionOf(done, 'ctl-move', 0)!.replicaNodes, [y, x]);
  const list = await (await c.client(x)).send(46, 0, { timeoutMs: 10_000, topics: null });
  assert.equal(list.topics, [], 'nothing moving any more');
});

test.run();
