/**
 * Coordinators on a three-broker cluster (@samsa-timeout 240): `__consumer_offsets` has three
 * replicas, and a group's coordinator is the leader of its partition.
 * - Committed offsets survive a SIGKILL of the coordinator: the new leader of the partition loads
 *   the shard from its replica (onElection) and answers the same offsets; a kafkajs consumer group
 *   carries on there and consumes every record.
 * - A broker that stops leading the partition unloads the shard (onResignation): asked directly it
 *   answers NOT_COORDINATOR, and led again later it reloads what the other leader wrote meanwhile.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`coordinator-failover: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: {
      'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 3,
    },
  });
});

test.after(async () => {
  await c?.cleanup();
});

const kafka = (clientId: string, brokers = c!.bootstrapList) => new Kafka({
  clientId, brokers, logLevel: process.env.DEBUG_KAFKAJS ? (Number(process.env.DEBUG_KAFKAJS) as kafkajs.logLevel) : logLevel.NOTHING,
  retry: { retries: 40, initialRetryTime: 100, maxRetryTime: 1000 }, requestTimeout: 10000,
});

const alive = new Set<number>();

/** The coordinator of `group` as a live broker names it. */
async function coordinatorOf(group: string): Promise<number> {
  return until(`coordinator of ${group}`, 30_000, async () => {
    const asked = [...alive][0];
    const r = await (await c!.client(asked)).send(10, 3, { key: group, keyType: 0, coordinatorKeys: [] });
    return r.errorCode === ErrorCode.NONE && alive.has(r.nodeId) ? r.nodeId : null;
  });
}

/** OffsetFetch (v5) straight to one broker: per partition the offset, or the error it answers. */
async function fetchOffsets(nodeId: number, group: string, topic: string, partitions: number[]): Promise<{ errorCode: number; offsets: number[] }> {
  const r = await (await c!.client(nodeId)).send(9, 5, { groupId: group, topics: [{ name: topic, partitionIndexes: partitions }], requireStable: false, groups: [] });
  const byIndex = new Map((r.topics[0]?.partitions ?? []).map((p) => [p.partitionIndex, Number(p.committedOffset)]));
  return { errorCode: r.errorCode, offsets: partitions.map((p) => byIndex.get(p) ?? -1) };
}

test('committed offsets survive a SIGKILL of the group coordinator; the consumer group carries on at the new one', async () => {
  if (!c) return console.log('coordinator-failover: skipped:', missing);
  for (const b of c.brokers) alive.add(b.nodeId);
  const topic = 'cf';
  const group = 'cf-group';
  const admin = kafka('cf-admin').admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka('cf-producer').producer({ idempotent: true });
  await producer.connect();
  const produce = async (from: number) => {
    for (let partition = 0; partition < 2; partition++) {
      await producer.send({ topic, acks: -1, messages: Array.from({ length: 50 }, (_, i) => ({ partition, value: `${partition}:${from + i}` })) });
    }
  };
  await produce(0);

  let killed = -1;
  const seen = new Set<string>();
  const next = [0, 0];
  // kafkajs's own commits (autoCommit): a commit from inside eachMessage would keep retrying the
  // dead coordinator, because kafkajs looks for a new one only when it rejoins the group.
  // Few retries: kafkajs keeps a fetcher for the dead broker until the consumer restarts (its
  // restartOnFailure), and that is how it recovers from a broker's death, on Kafka too.
  const consumer = kafka('cf-consumer').consumer({ groupId: group, sessionTimeout: 10000, heartbeatInterval: 500, retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 500 } });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommitInterval: 100,
    eachMessage: async ({ partition, message }) => {
      seen.add(message.value!.toString());
      next[partition] = Math.max(next[partition], Number(message.offset) + 1);
    },
  });
  try {
    await until('the first half consumed', 60_000, async () => (seen.size === 100 ? true : null));
    consumer.pause([{ topic }]);
    const victim = await coordinatorOf(group);
    // Paused, the consumer commits what it processed; the coordinator answers it.
    const before = await until('commits of what was consumed', 20_000, async () => {
      const r = await fetchOffsets(victim, group, topic, [0, 1]);
      return r.offsets[0] === next[0] && r.offsets[1] === next[1] ? r.offsets : null;
    });

    await c.kill(victim);
    alive.delete(victim);
    killed = victim;
    const successor = await until('a new coordinator', 30_000, async () => {
      const id = await coordinatorOf(group);
      return id !== victim ? id : null;
    });
    // Once loaded (COORDINATOR_LOAD_IN_PROGRESS until then), the new coordinator has every acknowledged commit.
    const after = await until('the shard loaded on the new coordinator', 20_000, async () => {
      const r = await fetchOffsets(successor, group, topic, [0, 1]);
      return r.errorCode === ErrorCode.NONE ? r.offsets : null;
    });
    assert.equal(after, before, `broker ${successor} answers the offsets committed at broker ${victim}`);
    assert.match(c.broker(successor).output(), 'group coordinator partition');

    consumer.resume([{ topic }]);
    // The second half, produced after the failover: the group consumes and commits it at the new coordinator.
    await produce(50);
    await until('everything consumed', 90_000, async () => (seen.size === 200 ? true : null));
    await until('final commits', 30_000, async () => {
      const r = await fetchOffsets(await coordinatorOf(group), group, topic, [0, 1]);
      return r.offsets.every((o) => o === 100) ? true : null;
    });
  } finally {
    // (kafkajs spins in its runner when disconnected while paused)
    consumer.resume([{ topic }]);
    await consumer.disconnect();
    await producer.disconnect();
    for (const b of c.brokers) if (!alive.has(b.nodeId)) await c.start(b.nodeId).then(() => alive.add(b.nodeId));
  }
  // The killed broker returns as a follower of the partition: it does not coordinate the group.
  const coordinator = await coordinatorOf(group);
  if (coordinator !== killed) {
    const r = await fetchOffsets(killed, group, topic, [0, 1]);
    assert.is(r.errorCode, ErrorCode.NOT_COORDINATOR, 'a follower of the offsets partition answers NOT_COORDINATOR');
  }
});

test('a broker led again reloads what another leader wrote meanwhile (no stale shard)', async () => {
  if (!c) return;
  const topic = 'cf2';
  const group = 'cf2-group';
  const admin = kafka('cf2-admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    const first = await coordinatorOf(group);
    await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '5' }] });
    assert.equal((await fetchOffsets(first, group, topic, [0])).offsets, [5]);
    // Stop the coordinator gracefully; another broker leads the partition and takes a new commit.
    await c.stop(first);
    alive.delete(first);
    const second = await until('a new coordinator', 30_000, async () => {
      const id = await coordinatorOf(group);
      return id !== first ? id : null;
    });
    await until('commit at the new coordinator', 30_000, async () => {
      await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '7' }] });
      return true;
    });
    await c.start(first);
    alive.add(first);
    // Whoever leads it next (the first broker again, if the second stops) answers 7, not its old 5.
    await c.stop(second);
    alive.delete(second);
    const third = await until('a third coordinator', 30_000, async () => {
      const id = await coordinatorOf(group);
      return id !== second ? id : null;
    });
    const offsets = await until('loaded', 20_000, async () => {
      const r = await fetchOffsets(third, group, topic, [0]);
      return r.errorCode === ErrorCode.NONE ? r.offsets : null;
    });
    assert.equal(offsets, [7], `broker ${third} answers the latest commit`);
    await c.start(second);
    alive.add(second);
  } finally {
    await admin.disconnect();
  }
});

test.run();
