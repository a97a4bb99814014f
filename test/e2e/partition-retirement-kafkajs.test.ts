import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { KafkaClient } from '../../src/cli/client.js';
import { topicsCommand } from '../../src/cli/commands.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { PARTITIONS_KEEP } from '../../src/cluster/partition-retirement.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const { Kafka, logLevel, Partitioners } = kafkajs;

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function endOffsets(b: RunningBroker, topic: string, count: number): number[] {
  return Array.from({ length: count }, (_, p) => b.broker.replicaManager.getPartition(topic, p)?.log.logEndOffset ?? -1);
}

async function retire(bootstrap: string, topic: string, keep: number): Promise<string> {
  let err = '';
  const code = await topicsCommand(['retire-partitions', topic, '--keep', String(keep), '-b', bootstrap], { out: () => {}, err: (s) => { err += s; }, stdin: process.stdin, progress: false });
  assert.is(code, 0, err);
  return err;
}

test('kafkajs: keyless producers leave retired partitions, a keyed record is refused naming the retirement, consumers drain them, they are deleted after retention', async () => {
  const b = await startBroker({ port: 0, config: { 'log.retention.check.interval.ms': 200 } });
  const kafka = new Kafka({ clientId: 'retire', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
  const admin = kafka.admin();
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId: 'drain', maxWaitTimeInMs: 100 });
  try {
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'r', numPartitions: 6 }] });
    await producer.connect();
    const sent: string[] = [];
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const value = `v${sent.length}`;
        await producer.send({ topic: 'r', acks: -1, messages: [{ value }] });
        sent.push(value);
      }
    };
    await send(60);
    // A keyed producer whose metadata predates the retirement.
    const staleKeyed = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 0 } });
    await staleKeyed.connect();
    await staleKeyed.send({ topic: 'r', acks: -1, messages: [{ key: 'k0', value: 'kv-k0' }] });
    sent.push('kv-k0');
    const before = endOffsets(b, 'r', 6);
    assert.ok(before[4] > 0 && before[5] > 0, `keyless records went to every partition first: ${before}`);

    const said = await retire(b.bootstrap, 'r', 4);
    assert.match(said, /partitions 4-5 retired/);
    await waitFor('the retirement in the cache', () => b.broker.metadataCache.topic('r')?.configs[PARTITIONS_KEEP] === '4');
    let described = '';
    await topicsCommand(['describe', 'r', '-b', b.bootstrap], { out: (x) => { described += x; }, err: () => {}, stdin: process.stdin, progress: false });
    assert.equal(described.split('\n').filter((l) => l.endsWith('\tRetired')).map((l) => /Partition: (\d+)/.exec(l)![1]), ['4', '5'], described);

    // The same producer (stale metadata) and a fresh one both end up on partitions 0-3 only.
    await send(60);
    const fresh = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await fresh.connect();
    for (let i = 0; i < 30; i++) {
      const value = `v${sent.length}`;
      await fresh.send({ topic: 'r', acks: -1, messages: [{ value }] });
      sent.push(value);
    }
    const after = endOffsets(b, "r", 6);
    assert.equal(after.slice(4), before.slice(4), `nothing more was appended to the retired partitions: ${before} → ${after}`);
    assert.is(after.reduce((a, x) => a + x, 0), sent.length, 'every acknowledged record is in the log once');

    // Keyed records hashed to a retired partition: refused, never moved to another partition.
    const keyedFailure = async (producer: typeof staleKeyed) => {
      for (let i = 1; i < 200; i++) {
        const key = `k${i}`;
        const out = await producer.send({ topic: 'r', acks: -1, messages: [{ key, value: `kv-${key}` }] }).then(
          (meta) => ({ partition: meta[0].partition, err: null }),
          (err: Error & { type?: string }) => ({ partition: -1, err }),
        );
        if (out.err) return { key, err: out.err };
        sent.push(`kv-${key}`);
        assert.ok(out.partition < 4, `a keyed record landed on partition ${out.partition}`);
      }
      throw new Error('no key maps to a retired partition');
    };
    // With metadata from before the retirement the record reaches the broker: INVALID_RECORD.
    const stale = await keyedFailure(staleKeyed);
    assert.is(stale.err.type, 'INVALID_RECORD', `${stale.err.name}: ${stale.err.message}`);
    // A new producer sees no leader there; kafkajs fails the record without sending it.
    const keyedProducer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 1, initialRetryTime: 20 } });
    await keyedProducer.connect();
    const fresh2 = await keyedFailure(keyedProducer);
    assert.match(fresh2.err.message, /retries|not found/i);
    const key = stale.key;
    await keyedProducer.disconnect();
    await staleKeyed.disconnect();
    await fresh.disconnect();
    assert.equal(endOffsets(b, 'r', 6).slice(4), before.slice(4), 'no keyed record was appended to a retired partition');

    // The same refusal on the wire carries the reason (Produce v8+ error_message, record_errors).
    const raw = await KafkaClient.connect({ bootstrap: b.bootstrap });
    try {
      const batch = buildRecordBatch({ baseOffset: 0n, records: [{ key: Buffer.from(key), value: Buffer.from('x'), headers: [] }] });
      const res = await raw.request(0, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'r', topicId: ZERO_UUID, partitionData: [{ index: 5, records: batch }] }] });
      const pr = res.responses[0].partitionResponses[0];
      assert.is(pr.errorCode, ErrorCode.INVALID_RECORD);
      assert.match(pr.errorMessage ?? '', /retired \(samsa\.partitions\.keep=4\).*keyed records are refused/);
      assert.equal(pr.recordErrors.map((e) => e.batchIndex), [0]);
      const keyless = buildRecordBatch({ baseOffset: 0n, records: [{ key: null, value: Buffer.from('x'), headers: [] }] });
      const res2 = await raw.request(0, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'r', topicId: ZERO_UUID, partitionData: [{ index: 4, records: keyless }] }] });
      assert.is(res2.responses[0].partitionResponses[0].errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
      // A producer's connection: Metadata shows the retired partitions without a leader.
      const md = await raw.request(3, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'r' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      assert.equal(md.topics[0].partitions.map((p) => [p.partitionIndex, p.leaderId, p.errorCode]), [[0, b.broker.nodeId, 0], [1, b.broker.nodeId, 0], [2, b.broker.nodeId, 0], [3, b.broker.nodeId, 0], [4, -1, 0], [5, -1, 0]]);
    } finally {
      raw.close();
    }
    const reader = await KafkaClient.connect({ bootstrap: b.bootstrap });
    try {
      await reader.request(9, { groupId: 'drain', topics: null, groups: [], requireStable: false });
      const md = await reader.request(3, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'r' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      assert.equal(md.topics[0].partitions.map((p) => p.leaderId), Array(6).fill(b.broker.nodeId), 'a consumer (OffsetFetch) sees every leader');
    } finally {
      reader.close();
    }

    // Consumers still see the leader of the retired partitions and read them to the end.
    const consumed = new Set<string>();
    await consumer.connect();
    await consumer.subscribe({ topic: 'r', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void consumed.add(message.value!.toString()) });
    await waitFor('every record consumed', () => consumed.size >= sent.length);
    assert.equal([...consumed].sort(), [...sent].sort());
    await waitFor('the group committed the retired partitions to their end', async () => {
      const offsets = await admin.fetchOffsets({ groupId: 'drain', topics: ['r'] });
      const parts = offsets[0]?.partitions ?? [];
      return [4, 5].every((p) => Number(parts.find((x) => x.partition === p)?.offset) === after[p]);
    });

    // Retention empties them; then the controller deletes them and the topic has 4 partitions.
    assert.is(b.broker.metadataCache.topic('r')?.partitions, 6, 'not deleted while records are unexpired');
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: 2, name: 'r', configEntries: [{ name: 'retention.ms', value: '1' }, { name: PARTITIONS_KEEP, value: '4' }] }] });
    await waitFor('the retired partitions deleted', () => b.broker.metadataCache.topic('r')?.partitions === 4);
    assert.is(b.broker.metadataCache.topic('r')?.configs[PARTITIONS_KEEP], undefined, 'the retirement config goes with the last retired partition');
    assert.is(b.broker.replicaManager.getPartition('r', 4), undefined, 'the log of partition 4 is gone');
    const md = await admin.fetchTopicMetadata({ topics: ['r'] });
    assert.equal(md.topics[0].partitions.map((p) => p.partitionId).sort(), [0, 1, 2, 3]);
  } finally {
    await consumer.disconnect().catch(() => {});
    await producer.disconnect().catch(() => {});
    await admin.disconnect().catch(() => {});
    await b.stop();
  }
});

test.run();
