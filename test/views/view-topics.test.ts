import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../src/testing/start-broker.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { defaultCreatableTopic, type CreatableTopic } from '../../src/protocol/generated/messages/create-topics-request.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { WireClient, withBroker } from '../broker/handlers/_admin-wire.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
});

function topic(name: string, configs: Record<string, string>, numPartitions = -1): CreatableTopic {
  return { ...defaultCreatableTopic(), name, numPartitions, replicationFactor: -1, configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) };
}

async function create(t: CreatableTopic) {
  return (await c.send(19, 7, { topics: [t], timeoutMs: 5000, validateOnly: false })).topics[0];
}

test('CreateTopics: INVALID_CONFIG messages point at the filter error; source checks; partitions follow the source', async () => {
  assert.is((await create(topic('src', {}, 3))).errorCode, ErrorCode.NONE);
  const bad = await create(topic('v1', { 'samsa.view.source': 'src', 'samsa.view.filter': "tag in ('a' 'b')" }));
  assert.is(bad.errorCode, ErrorCode.INVALID_CONFIG);
  assert.is(bad.errorMessage, "Invalid value tag in ('a' 'b') for configuration samsa.view.filter: expected ',' or ')', found 'b' at position 13 of 'tag in ('a' 'b')'");
  const missing = await create(topic('v2', { 'samsa.view.source': 'nope' }));
  assert.is(missing.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(missing.errorMessage!, /topic 'nope' does not exist/);
  const lonely = await create(topic('v3', { 'samsa.view.filter': "a = 'b'" }));
  assert.is(lonely.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(lonely.errorMessage!, /needs samsa.view.source/);
  const parts = await create(topic('v4', { 'samsa.view.source': 'src' }, 2));
  assert.is(parts.errorCode, ErrorCode.INVALID_PARTITIONS);
  const ok = await create(topic('view', { 'samsa.view.source': 'src', 'samsa.view.filter': "t = 'x'" }));
  assert.is(ok.errorCode, ErrorCode.NONE);
  assert.is(ok.numPartitions, 3);
  assert.ok(ok.configs!.some((e) => e.name === 'samsa.view.filter' && e.value === "t = 'x'"));
  const viewOfView = await create(topic('v5', { 'samsa.view.source': 'view' }));
  assert.is(viewOfView.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(viewOfView.errorMessage!, /itself a view/);
  const plain = await create(topic('plain', {}, 1));
  assert.not.ok(plain.configs!.some((e) => e.name.startsWith('samsa.')), 'other topics list what Kafka lists');
});

test('AlterConfigs: the source is fixed, the filter may change (and is validated)', async () => {
  const alter = async (configs: Record<string, string>) =>
    (await c.send(44, 1, { validateOnly: false, resources: [{ resourceType: 2, resourceName: 'view', configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })) }] })).responses[0];
  const moved = await alter({ 'samsa.view.source': 'plain' });
  assert.is(moved.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(moved.errorMessage!, /set at creation only/);
  assert.is((await alter({ 'samsa.view.filter': 'exists(' })).errorCode, ErrorCode.INVALID_CONFIG);
  assert.is((await alter({ 'samsa.view.filter': "t = 'y'" })).errorCode, ErrorCode.NONE);
  assert.is(b.broker.metadataCache.topic('view')!.configs['samsa.view.filter'], "t = 'y'");
});

test('Produce to a view: INVALID_TOPIC_EXCEPTION naming the source; Fetch, ListOffsets and OffsetForLeaderEpoch read the source', async () => {
  const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from('a'), headers: [{ key: 't', value: Buffer.from('y') }] }, { key: null, value: Buffer.from('b') }] });
  const produce = (name: string) => c.send(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name, topicId: ZERO_UUID, partitionData: [{ index: 1, records }] }] });
  const refused = (await produce('view')).responses[0].partitionResponses[0];
  assert.is(refused.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.is(refused.errorMessage, "Topic 'view' is a read-only view of 'src'; produce to 'src' instead");
  assert.is((await produce('src')).responses[0].partitionResponses[0].errorCode, ErrorCode.NONE);
  const lo = await c.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: 'view', partitions: [{ partitionIndex: 1, currentLeaderEpoch: -1, timestamp: -1n}] }] });
  assert.is(lo.topics[0].partitions[0].offset, 2n);
  const f = await c.send(1, 12, {
    clusterId: null, replicaId: -1, replicaState: { replicaId: -1, replicaEpoch: -1n }, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: 'view', topicId: '', partitions: [{ partition: 1, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
    forgottenTopicsData: [], rackId: '',
  });
  const p = f.responses[0].partitions[0];
  assert.is(p.errorCode, ErrorCode.NONE);
  assert.is(p.highWatermark, 2n);
  const epochs = await c.send(23, 4, { replicaId: -1, topics: [{ topic: 'view', partitions: [{ partition: 1, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
  assert.is(epochs.topics[0].partitions[0].endOffset, 2n, "a consumer's position check on a view answers from the source's epochs");
  const recs = decodeRecordBatches((Array.isArray(p.records) ? Buffer.concat(p.records as Buffer[]) : p.records as Buffer)).flatMap((x) => x.records);
  assert.equal(recs.map((r) => [Number(r.offset), r.value!.toString()]), [[0, 'a']]);
});

test('DeleteTopics of the source deletes its views', async () => {
  await c.send(20, 6, { topics: [{ name: 'src', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], topicNames: [], timeoutMs: 5000 });
  assert.is(b.broker.metadataCache.topic('src'), undefined);
  assert.is(b.broker.metadataCache.topic('view'), undefined);
  assert.ok(b.broker.metadataCache.topic('plain'));
});

test.run();
