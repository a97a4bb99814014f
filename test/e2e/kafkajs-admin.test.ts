/**
 * kafkajs 2.2.4 admin and producer against Samsa (kafkajs sends old, non-flexible versions):
 * createTopics (validateOnly, existing name, invalid requests), deleteTopics, fetchTopicMetadata,
 * createPartitions, fetchTopicOffsets, fetchTopicOffsetsByTimestamp, deleteTopicRecords,
 * describeConfigs/alterConfigs, describeCluster; producer acks 0/1/-1 and gzip.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs, { type Admin } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { waitFor } from '../support/external.js';
import { b64, describeRun, e2eLogLevel, hostPort, readKcat } from '../support/clients.js';

const { Kafka, logLevel, CompressionTypes, ConfigResourceTypes } = kafkajs;

let b: RunningBroker;
let bs: string;
let admin: Admin;
let kafka: InstanceType<typeof Kafka>;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1 }, logLevel: e2eLogLevel });
  bs = hostPort(b.port);
  kafka = new Kafka({ clientId: 'e2e-kafkajs-admin', brokers: [bs], logLevel: logLevel.NOTHING, retry: { retries: 1, initialRetryTime: 100 } });
  admin = kafka.admin();
  await admin.connect();
});

test.after(async () => {
  await admin?.disconnect();
  await b?.stop();
});

async function rejects(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

/** kafkajs keeps only the message of an error that exhausted its retries. */
const KAFKAJS_MESSAGES: Record<string, string> = {
  'This server does not host this topic-partition': 'UNKNOWN_TOPIC_OR_PARTITION',
};

/** The error types of a kafkajs error (an aggregate carries one per topic). */
function errorTypes(e: any): string[] {
  if (Array.isArray(e?.errors)) return e.errors.map((x: any) => x.type);
  if (Array.isArray(e?.partitions)) return e.partitions.map((x: any) => x.error?.type);
  if (e?.type) return [e.type];
  // Errors wrapped by kafkajs's retrier (KafkaJSNonRetriableError, ...NumberOfRetriesExceeded).
  if (e?.cause) return errorTypes(e.cause);
  return [KAFKAJS_MESSAGES[e?.message] ?? e?.message];
}

test('createTopics: validateOnly creates nothing; create; the same name again → false (TOPIC_ALREADY_EXISTS)', async () => {
  // waitForLeaders defaults to true in kafkajs and would wait for a topic that validateOnly never creates.
  const validated = await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'ka-validate', numPartitions: 2 }] });
  assert.is(validated, true, 'validateOnly succeeds');
  assert.not.ok((await admin.listTopics()).includes('ka-validate'), 'validateOnly must not create the topic');

  const created = await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'ka-topic', numPartitions: 2, replicationFactor: 1, configEntries: [{ name: 'retention.ms', value: '3600000' }] }] });
  assert.is(created, true);
  // kafkajs turns an all-TOPIC_ALREADY_EXISTS answer into `false`.
  const again = await admin.createTopics({ topics: [{ topic: 'ka-topic', numPartitions: 2 }] });
  assert.is(again, false);
  // validateOnly on an existing name is refused, too.
  const againValidate = await admin.createTopics({ validateOnly: true, waitForLeaders: false, topics: [{ topic: 'ka-topic' }] });
  assert.is(againValidate, false);
});

test('createTopics rejects an invalid name, a replication factor above the broker count and a bad config', async () => {
  const badName = await rejects(admin.createTopics({ topics: [{ topic: 'bad name!' }] }));
  assert.equal(errorTypes(badName), ['INVALID_TOPIC_EXCEPTION'], String(badName));
  const badRf = await rejects(admin.createTopics({ topics: [{ topic: 'ka-rf3', replicationFactor: 3 }] }));
  assert.equal(errorTypes(badRf), ['INVALID_REPLICATION_FACTOR'], String(badRf));
  const badCfg = await rejects(admin.createTopics({ topics: [{ topic: 'ka-badcfg', configEntries: [{ name: 'cleanup.policy', value: 'bogus' }] }] }));
  assert.equal(errorTypes(badCfg), ['INVALID_CONFIG'], String(badCfg));
  const names = await admin.listTopics();
  for (const t of ['bad name!', 'ka-rf3', 'ka-badcfg']) assert.not.ok(names.includes(t), `${t} must not exist`);
});

test('fetchTopicMetadata and createPartitions', async () => {
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'ka-parts', numPartitions: 2 }] });
  const md = await admin.fetchTopicMetadata({ topics: ['ka-parts'] });
  assert.is(md.topics.length, 1);
  assert.is(md.topics[0].name, 'ka-parts');
  const parts = [...md.topics[0].partitions].sort((x, y) => x.partitionId - y.partitionId);
  assert.equal(parts.map((p) => [p.partitionId, p.partitionErrorCode, p.leader, p.replicas, p.isr]), [[0, 0, 1, [1], [1]], [1, 0, 1, [1], [1]]]);

  await admin.createPartitions({ topicPartitions: [{ topic: 'ka-parts', count: 4 }] });
  const md2 = await admin.fetchTopicMetadata({ topics: ['ka-parts'] });
  assert.is(md2.topics[0].partitions.length, 4);
  // Shrinking is refused.
  const shrink = await rejects(admin.createPartitions({ topicPartitions: [{ topic: 'ka-parts', count: 3 }] }));
  assert.equal(errorTypes(shrink), ['INVALID_PARTITIONS'], String(shrink));
  // An unknown topic is refused.
  const unknown = await rejects(admin.createPartitions({ topicPartitions: [{ topic: 'ka-nope', count: 3 }] }));
  assert.equal(errorTypes(unknown), ['UNKNOWN_TOPIC_OR_PARTITION'], String(unknown));
});

test('deleteTopics removes the topic; deleting it again fails with UNKNOWN_TOPIC_OR_PARTITION', async () => {
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'ka-del', numPartitions: 1 }] });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'ka-del', messages: [{ value: 'x' }] });
  await producer.disconnect();
  await admin.deleteTopics({ topics: ['ka-del'], timeout: 5000 });
  assert.not.ok((await admin.listTopics()).includes('ka-del'));
  const again = await rejects(admin.deleteTopics({ topics: ['ka-del'], timeout: 5000 }));
  assert.equal(errorTypes(again), ['UNKNOWN_TOPIC_OR_PARTITION'], String(again));
});

test('producer acks 0, 1, -1 and gzip; fetchTopicOffsets follows', async () => {
  const topic = 'ka-acks';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  const producer = kafka.producer();
  await producer.connect();
  try {
    const r1 = await producer.send({ topic, acks: 1, messages: [{ key: 'a', value: '1' }, { key: 'b', value: '2' }] });
    assert.equal(r1.map((r) => [r.partition, r.errorCode, r.baseOffset]), [[0, 0, '0']]);
    const r2 = await producer.send({ topic, acks: -1, compression: CompressionTypes.GZIP, messages: [{ key: 'c', value: '3', headers: { h: 'v' } }, { key: 'd', value: '4' }] });
    assert.equal(r2.map((r) => [r.partition, r.errorCode, r.baseOffset]), [[0, 0, '2']]);
    const r0 = await producer.send({ topic, acks: 0, messages: [{ key: 'e', value: '5' }] });
    assert.equal(r0, [], 'acks=0 gets no response');
    // acks=0 has no reply; wait until the record is visible.
    const offsets = await waitFor(async () => {
      const o = await admin.fetchTopicOffsets(topic);
      return o[0].high === '5' ? o : null;
    }, { timeoutMs: 5000, description: 'high watermark 5 after the acks=0 send' });
    assert.equal(offsets, [{ partition: 0, offset: '5', high: '5', low: '0' }]);
    // A later send on the same connection still works (acks=0 did not desync the connection).
    const r3 = await producer.send({ topic, acks: 1, messages: [{ key: 'f', value: '6' }] });
    assert.is(r3[0].baseOffset, '5');
  } finally {
    await producer.disconnect();
  }
  const { records } = await readKcat(bs, topic, [0]);
  assert.equal(records.map((r) => [r.offset, r.key, r.value]), [
    [0, b64('a'), b64('1')], [1, b64('b'), b64('2')], [2, b64('c'), b64('3')], [3, b64('d'), b64('4')], [4, b64('e'), b64('5')], [5, b64('f'), b64('6')],
  ]);
  assert.equal(records[2].headers, [['h', b64('v')]]);
});

test('a batch above the topic\'s max.message.bytes is refused with MESSAGE_TOO_LARGE and nothing is appended', async () => {
  const topic = 'ka-big';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, configEntries: [{ name: 'max.message.bytes', value: '2048' }] }] });
  const producer = kafka.producer();
  await producer.connect();
  try {
    const err = await rejects(producer.send({ topic, acks: 1, messages: [{ value: Buffer.alloc(4096, 1) }] }));
    assert.equal(errorTypes(err), ['MESSAGE_TOO_LARGE'], String(err));
    const ok = await producer.send({ topic, acks: 1, messages: [{ value: Buffer.alloc(100, 2) }] });
    assert.is(ok[0].baseOffset, '0', 'the refused batch took no offset');
  } finally {
    await producer.disconnect();
  }
});

test('fetchTopicOffsetsByTimestamp finds the first offset at or after a timestamp', async () => {
  const topic = 'ka-ts';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  const T0 = 1_600_000_000_000;
  const producer = kafka.producer();
  await producer.connect();
  try {
    await producer.send({ topic, messages: [0, 1, 2, 3].map((i) => ({ value: `v${i}`, timestamp: String(T0 + i * 1000) })) });
    await producer.send({ topic, compression: CompressionTypes.GZIP, messages: [4, 5].map((i) => ({ value: `v${i}`, timestamp: String(T0 + i * 1000) })) });
  } finally {
    await producer.disconnect();
  }
  const at = async (ts: number) => (await admin.fetchTopicOffsetsByTimestamp(topic, ts)).map((p) => [p.partition, p.offset]);
  assert.equal(await at(T0 - 1), [[0, '0']]);
  assert.equal(await at(T0), [[0, '0']]);
  assert.equal(await at(T0 + 1), [[0, '1']]);
  assert.equal(await at(T0 + 2500), [[0, '3']]);
  assert.equal(await at(T0 + 4500), [[0, '5']], 'inside a compressed batch');
  // After the last timestamp: kafkajs maps "no such offset" (-1) to the high watermark.
  assert.equal(await at(T0 + 99_000), [[0, '6']]);
});

test('deleteTopicRecords moves the low watermark; out-of-range offset is refused', async () => {
  const topic = 'ka-delrec';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}` })) });
  await producer.disconnect();
  // kafkajs's deleteTopicRecords looks leaders up in the admin's cached metadata: load it first.
  await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '4' }] });
  assert.equal(await admin.fetchTopicOffsets(topic), [{ partition: 0, offset: '10', high: '10', low: '4' }]);
  const { records } = await readKcat(bs, topic, [0]);
  assert.equal(records.map((r) => r.offset), [4, 5, 6, 7, 8, 9]);
  const tooFar = await rejects(admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '11' }] }));
  assert.equal(errorTypes(tooFar), ['OFFSET_OUT_OF_RANGE'], String(tooFar));
  // offset -1 means "up to the high watermark".
  await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '-1' }] });
  assert.equal(await admin.fetchTopicOffsets(topic), [{ partition: 0, offset: '10', high: '10', low: '10' }]);
});

test('describeConfigs and alterConfigs on a topic and the broker', async () => {
  const topic = 'ka-cfg';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, configEntries: [{ name: 'retention.ms', value: '86400000' }] }] });
  const describe = async () => {
    const d = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms', 'cleanup.policy', 'max.message.bytes'] }] });
    assert.is(d.resources.length, 1);
    assert.is(d.resources[0].errorCode, 0);
    return Object.fromEntries(d.resources[0].configEntries.map((c) => [c.configName, c]));
  };
  const c1 = await describe();
  assert.is(c1['retention.ms'].configValue, '86400000');
  assert.is(c1['retention.ms'].isDefault, false);
  assert.is(c1['cleanup.policy'].configValue, 'delete');
  assert.is(c1['cleanup.policy'].isDefault, true);
  assert.ok(c1['max.message.bytes'], 'max.message.bytes is described');

  // validateOnly changes nothing.
  await admin.alterConfigs({ validateOnly: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
  assert.is((await describe())['cleanup.policy'].configValue, 'delete');

  // AlterConfigs replaces the whole set: retention.ms goes back to its default.
  await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] });
  const c2 = await describe();
  assert.is(c2['cleanup.policy'].configValue, 'compact');
  assert.is(c2['cleanup.policy'].isDefault, false);
  assert.is(c2['retention.ms'].isDefault, true, 'AlterConfigs is not incremental: retention.ms reset');

  const bad = await rejects(admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: [{ name: 'cleanup.policy', value: 'nonsense' }] }] }));
  assert.ok(String(bad?.type ?? bad).includes('INVALID_CONFIG') || String(bad).includes('nvalid'), String(bad));

  // The broker resource (name = node id).
  const bd = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: ['num.partitions', 'log.dirs'] }] });
  const bc = Object.fromEntries(bd.resources[0].configEntries.map((c) => [c.configName, c.configValue]));
  assert.is(bc['num.partitions'], '1');
  assert.is(bc['log.dirs'], b.logDir);
});

test('describeCluster names broker 1 at the bound address and a cluster id', async () => {
  const c = await admin.describeCluster();
  assert.equal(c.brokers.map((x) => [x.nodeId, x.host, x.port]), [[1, '127.0.0.1', b.port]]);
  assert.is(c.controller, 1);
  assert.type(c.clusterId, 'string');
  assert.ok(c.clusterId.length > 0, 'a cluster id');
});

test.run();
void describeRun;
