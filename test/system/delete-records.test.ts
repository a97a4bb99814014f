/**
 * DeleteRecords on a replicated partition (three broker processes, replication factor 3): the
 * followers take the leader's new log start offset from its fetch answers (Kafka's
 * maybeIncrementLogStartOffset), so after the leader's SIGKILL the new leader's earliest offset is
 * still the deleted-up-to offset, and the deleted records are not served again; the answer waits
 * until every live replica moved its log start (Kafka's DelayedDeleteRecords).
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
if (missing && IN_CI) throw new Error(`delete-records: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3, peerProxies: true, config: { 'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.fetch.backoff.ms': 200 } });
});

test.after(async () => {
  await c?.cleanup();
});

/** Earliest offset of `topic-0` as `nodeId` answers it (null: an error, e.g. not the leader). */
async function earliest(nodeId: number, topic: string): Promise<number | null> {
  const r = await (await c!.client(nodeId)).send(2, 7, {
    replicaId: -1, isolationLevel: 0, timeoutMs: 5000,
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n}] }],
  });
  const p = r.topics[0].partitions[0];
  return p.errorCode === ErrorCode.NONE ? Number(p.offset) : null;
}

test('DeleteRecords answers once every live replica moved its log start: REQUEST_TIMED_OUT while a follower cannot fetch, then NONE', async () => {
  if (!c) return console.log('delete-records: skipped:', missing);
  const kafka = new Kafka({ clientId: 'drw', brokers: c.bootstrapList, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'drw', numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    await producer.send({ topic: 'drw', acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });
    const p0 = (await c.metadata(1, ['drw'])).topics[0].partitions[0];
    const follower = p0.replicaNodes.find((id) => id !== p0.leaderId)!;
    const leader = await c.client(p0.leaderId);
    const del = async (offset: bigint, timeoutMs: number) => {
      const r = await leader.send(21, 2, { topics: [{ name: 'drw', partitions: [{ partitionIndex: 0, offset }] }], timeoutMs });
      return [r.topics[0].partitions[0].errorCode, Number(r.topics[0].partitions[0].lowWatermark)];
    };
    c.peerLink(follower, p0.leaderId).cut();
    assert.equal(await del(4n, 1500), [ErrorCode.REQUEST_TIMED_OUT, 4], 'a follower still holds offsets below 4: timed out, with the leader\'s log start');
    assert.is(await earliest(p0.leaderId, 'drw'), 4, 'the leader deleted anyway');
    c.peerLink(follower, p0.leaderId).heal();
    assert.equal(await del(4n, 15_000), [ErrorCode.NONE, 4], 'once the follower fetched again, every replica starts at 4');
    assert.equal(await del(2n, 1000), [ErrorCode.NONE, 4], 'below the low watermark: nothing to wait for');
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
});

test('records deleted on the leader stay deleted after it fails over', async () => {
  if (!c) return;
  const kafka = new Kafka({ clientId: 'dr', brokers: c.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
  const admin = kafka.admin();
  await admin.connect();
  const producer = kafka.producer({ idempotent: true });
  await producer.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'dr', numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    await producer.send({ topic: 'dr', acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `r${i}` })) });
    const m = await c.metadata(1, ['dr']);
    const p0 = m.topics[0].partitions[0];
    const del = await (await c.client(p0.leaderId)).send(21, 2, { topics: [{ name: 'dr', partitions: [{ partitionIndex: 0, offset: 6n }] }], timeoutMs: 5000 });
    assert.equal([del.topics[0].partitions[0].errorCode, Number(del.topics[0].partitions[0].lowWatermark)], [ErrorCode.NONE, 6], 'DeleteRecords');
    assert.is(await earliest(p0.leaderId, 'dr'), 6, 'the leader starts at 6');
    // The followers' next fetches carry the leader's log start; one more record makes sure they fetched since.
    await producer.send({ topic: 'dr', acks: -1, messages: [{ value: 'r10' }] });
    await c.kill(p0.leaderId);
    const survivor = p0.replicaNodes.find((id) => id !== p0.leaderId)!;
    const after = await c.waitForMetadata(survivor, (x) => {
      const l = x.topics.find((t) => t.name === 'dr')?.partitions[0]?.leaderId ?? -1;
      return l >= 0 && l !== p0.leaderId;
    }, 'a new leader', 20_000);
    const leader = after.topics.find((t) => t.name === 'dr')!.partitions[0].leaderId;
    assert.is(await until('the new leader answers', 20_000, () => earliest(leader, 'dr')), 6, `the new leader (${leader}) starts at 6 too`);
    await c.start(p0.leaderId);
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
});

test.run();
