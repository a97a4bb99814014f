import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { defaultCreatableTopic, type CreatableTopic } from '../../../src/protocol/generated/messages/create-topics-request.js';
import { WireClient, withBroker } from './_admin-wire.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0, config: { 'num.partitions': 3, 'log.retention.hours': 24 } }, async (nb, nc) => {
  b = nb;
  c = nc;
});

function topic(name: string, extra: Partial<CreatableTopic> = {}): CreatableTopic {
  return { ...defaultCreatableTopic(), name, numPartitions: 1, replicationFactor: 1, ...extra };
}

async function create(topics: CreatableTopic[], version = 7, validateOnly = false) {
  return (await c.send(19, version, { topics, timeoutMs: 5000, validateOnly })).topics;
}

test('v7 success: partitions, replication factor, topic id and every effective config sorted by name', async () => {
  const [r] = await create([topic('ct-ok', { numPartitions: 2, configs: [{ name: 'retention.bytes', value: '1000' }] })]);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.errorMessage, null);
  assert.is(r.numPartitions, 2);
  assert.is(r.replicationFactor, 1);
  const info = b.broker.metadataCache.topic('ct-ok')!;
  assert.is(r.topicId, info.topicId);
  assert.is.not(r.topicId, ZERO_UUID);
  assert.is(info.partitions, 2);
  assert.ok(b.broker.getLog('ct-ok', 1));
  const names = r.configs!.map((e) => e.name);
  assert.equal(names, [...names].sort());
  const byName = new Map(r.configs!.map((e) => [e.name, e]));
  assert.equal(byName.get('retention.bytes'), { name: 'retention.bytes', value: '1000', readOnly: false, configSource: 1, isSensitive: false });
  // log.retention.hours was set in the static config: the topic inherits its value, with source
  // DEFAULT_CONFIG as Kafka 4.4 reports it (its synonym list starts at log.retention.ms, unset).
  assert.equal(byName.get('retention.ms'), { name: 'retention.ms', value: '86400000', readOnly: false, configSource: 5, isSensitive: false });
  assert.is(byName.get('cleanup.policy')!.configSource, 5);
  assert.is(byName.get('cleanup.policy')!.value, 'delete');
});

test('-1 partitions and replication factor take num.partitions and default.replication.factor', async () => {
  const [r] = await create([topic('ct-defaults', { numPartitions: -1, replicationFactor: -1 })], 4);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(b.broker.metadataCache.topic('ct-defaults')!.partitions, 3);
  const [r5] = await create([topic('ct-defaults5', { numPartitions: -1, replicationFactor: -1 })], 5);
  assert.is(r5.numPartitions, 3);
  assert.is(r5.replicationFactor, 1);
});

test('validate_only answers like a real create and creates nothing', async () => {
  const [r] = await create([topic('ct-dry', { numPartitions: 4 })], 7, true);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.numPartitions, 4);
  assert.is.not(r.topicId, ZERO_UUID, 'a random id, as Kafka draws one');
  assert.ok(r.configs!.length > 10);
  assert.is(b.broker.metadataCache.topic('ct-dry'), undefined);
  assert.is(b.broker.metadataCache.topicById(r.topicId), undefined);
  const [bad] = await create([topic('ct-dry', { replicationFactor: 3 })], 7, true);
  assert.is(bad.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
});

test('a name listed twice gets one INVALID_REQUEST "Duplicate topic name." and is not created', async () => {
  const rs = await create([topic('ct-dup'), topic('ct-other'), topic('ct-dup')]);
  assert.is(rs.length, 2);
  const dup = rs.find((r) => r.name === 'ct-dup')!;
  assert.is(dup.errorCode, ErrorCode.INVALID_REQUEST);
  assert.is(dup.errorMessage, 'Duplicate topic name.');
  assert.is(dup.numPartitions, -1);
  assert.is(dup.replicationFactor, -1);
  assert.is(b.broker.metadataCache.topic('ct-dup'), undefined);
  assert.is(rs.find((r) => r.name === 'ct-other')!.errorCode, ErrorCode.NONE);
});

test('existing name, illegal names, collisions and __cluster_metadata', async () => {
  await create([topic('ct.exists')]);
  const rs = await create([topic('ct.exists'), topic('ct_exists'), topic('bad name'), topic(''), topic('__cluster_metadata')]);
  assert.is(rs[0].errorCode, ErrorCode.TOPIC_ALREADY_EXISTS);
  assert.is(rs[0].errorMessage, "Topic 'ct.exists' already exists.");
  assert.is(rs[1].errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.is(rs[1].errorMessage, "Topic 'ct_exists' collides with existing topic: ct.exists");
  assert.is(rs[2].errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.match(rs[2].errorMessage!, /^Topic name is invalid: /);
  assert.is(rs[3].errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.is(rs[4].errorCode, ErrorCode.INVALID_REQUEST);
  assert.is(rs[4].errorMessage, 'Creation of internal topic __cluster_metadata is prohibited.');
});

test('replication factor and partition count checks with Kafka messages', async () => {
  const rs = await create([
    topic('ct-rf3', { replicationFactor: 3 }),
    topic('ct-rf0', { replicationFactor: 0 }),
    topic('ct-p0', { numPartitions: 0 }),
    topic('ct-pm2', { numPartitions: -2 }),
  ], 2);
  assert.is(rs[0].errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.is(rs[0].errorMessage, 'Unable to replicate the partition 3 time(s): The target replication factor of 3 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned.');
  assert.is(rs[1].errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.is(rs[1].errorMessage, 'Replication factor must be larger than 0, or -1 to use the default value.');
  assert.is(rs[2].errorCode, ErrorCode.INVALID_PARTITIONS);
  assert.is(rs[2].errorMessage, 'Number of partitions was set to an invalid non-positive value.');
  assert.is(rs[3].errorCode, ErrorCode.INVALID_PARTITIONS);
});

test('config errors: unknown name, null value, bad value; checked before the replication factor', async () => {
  const rs = await create([
    topic('ct-c1', { configs: [{ name: 'no.such.config', value: '1' }] }),
    topic('ct-c2', { configs: [{ name: 'retention.ms', value: null }] }),
    topic('ct-c3', { configs: [{ name: 'retention.ms', value: 'abc' }] }),
    topic('ct-c4', { replicationFactor: 3, configs: [{ name: 'no.such.config', value: '1' }] }),
    topic('ct-c5', { configs: [{ name: 'cleanup.policy', value: 'compact,delete' }] }),
  ]);
  assert.is(rs[0].errorCode, ErrorCode.INVALID_CONFIG);
  assert.is(rs[0].errorMessage, 'Unknown topic config name: no.such.config');
  assert.is(rs[1].errorCode, ErrorCode.INVALID_CONFIG);
  assert.is(rs[1].errorMessage, 'Null value not supported for topic configs: retention.ms');
  assert.is(rs[2].errorCode, ErrorCode.INVALID_CONFIG);
  assert.is(rs[2].errorMessage, 'Invalid value abc for configuration retention.ms: Not a number of type LONG');
  assert.is(rs[3].errorCode, ErrorCode.INVALID_CONFIG);
  assert.is(rs[4].errorCode, ErrorCode.NONE);
  assert.equal(b.broker.metadataCache.topic('ct-c5')!.configs, { 'cleanup.policy': 'compact,delete' });
  for (const n of ['ct-c1', 'ct-c2', 'ct-c3', 'ct-c4']) assert.is(b.broker.metadataCache.topic(n), undefined);
});

test('manual assignments: this node only, -1 counts required, consecutive indexes', async () => {
  const node = b.broker.nodeId;
  const manual = (name: string, assignments: { partitionIndex: number; brokerIds: number[] }[], extra: Partial<CreatableTopic> = {}) =>
    topic(name, { numPartitions: -1, replicationFactor: -1, assignments, ...extra });
  const rs = await create([
    manual('ct-m-ok', [{ partitionIndex: 0, brokerIds: [node] }, { partitionIndex: 1, brokerIds: [node] }]),
    manual('ct-m-other', [{ partitionIndex: 0, brokerIds: [node + 1] }]),
    manual('ct-m-twice', [{ partitionIndex: 0, brokerIds: [node, node] }]),
    manual('ct-m-empty', [{ partitionIndex: 0, brokerIds: [] }]),
    manual('ct-m-gap', [{ partitionIndex: 0, brokerIds: [node] }, { partitionIndex: 2, brokerIds: [node] }]),
    manual('ct-m-repeat', [{ partitionIndex: 0, brokerIds: [node] }, { partitionIndex: 0, brokerIds: [node] }]),
    manual('ct-m-count', [{ partitionIndex: 0, brokerIds: [node] }], { numPartitions: 1 }),
    manual('ct-m-rf', [{ partitionIndex: 0, brokerIds: [node] }], { replicationFactor: 1 }),
  ]);
  assert.is(rs[0].errorCode, ErrorCode.NONE);
  assert.is(rs[0].numPartitions, 2);
  assert.is(b.broker.metadataCache.topic('ct-m-ok')!.partitions, 2);
  assert.is(rs[1].errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(rs[1].errorMessage, `The manual partition assignment includes broker ${node + 1}, but no such broker is registered.`);
  assert.is(rs[2].errorMessage, `The manual partition assignment includes the broker ${node} more than once.`);
  assert.is(rs[3].errorMessage, 'The manual partition assignment includes an empty replica list.');
  assert.is(rs[4].errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(rs[4].errorMessage, 'partitions should be a consecutive 0-based integer sequence');
  assert.is(rs[5].errorMessage, 'Found multiple manual partition assignments for partition 0');
  assert.is(rs[6].errorCode, ErrorCode.INVALID_REQUEST);
  assert.is(rs[6].errorMessage, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
  assert.is(rs[7].errorCode, ErrorCode.INVALID_REQUEST);
  assert.is(rs[7].errorMessage, 'A manual partition assignment was specified, but replication factor was not set to -1.');
});

test('non-flexible v3 round trip carries error messages', async () => {
  const [ok, bad] = await create([topic('ct-v3'), topic('ct-v3-bad', { numPartitions: 0 })], 3);
  assert.is(ok.errorCode, ErrorCode.NONE);
  assert.is(ok.errorMessage, null);
  assert.is(bad.errorCode, ErrorCode.INVALID_PARTITIONS);
  assert.is(bad.errorMessage, 'Number of partitions was set to an invalid non-positive value.');
});

test.run();
