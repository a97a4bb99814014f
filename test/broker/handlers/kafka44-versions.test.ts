/**
 * The versions Kafka 4.4 added to APIs Samsa already served, on the wire (one broker, raw
 * requests): OffsetCommit/OffsetFetch v10 by topic id, ListOffsets v10-11, Metadata v13,
 * DescribeCluster v2, ListTransactions v2, AlterPartitionReassignments v1, DeleteGroups v3,
 * DescribeLogDirs v5. The compat probes compare the same requests with a real Kafka 4.4 broker.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import type { ApiTypes } from '../../../src/protocol/generated/api-table.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { fill } from '../../../compat-tests/probes/fill.js';
import { apiCodecs } from '../../../src/protocol/generated/api-table.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;
let topicId = '';
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

withBroker(test, { port: 0, config: { 'group.initial.rebalance.delay.ms': 0 } }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'k44', numPartitions: 2, replicationFactor: 1, configs: {} });
  topicId = b.broker.metadataCache.topic('k44')!.topicId;
  await b.broker.getLog('k44', 0)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('a') }] }), 0);
});

function send<K extends keyof ApiTypes>(apiKey: K, version: number, body: Record<string, unknown>): Promise<any> {
  return c.send(apiKey, version, fill(`${apiCodecs[apiKey].name}Request`, version, body) as never);
}

test('advertised: the Kafka 4.4 maxima of these APIs', async () => {
  const av = await send(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  const max = (k: number) => av.apiKeys.find((a: { apiKey: number }) => a.apiKey === k)?.maxVersion;
  assert.equal([1, 2, 3, 8, 9, 35, 42, 45, 60, 66].map(max), [18, 11, 13, 10, 10, 5, 3, 1, 2, 2]);
});

test('OffsetCommit v10 and OffsetFetch v10 name topics by id; an unknown id is UNKNOWN_TOPIC_ID', async () => {
  const commit = await send(8, 10, {
    groupId: 'k44-g', generationIdOrMemberEpoch: -1, memberId: '',
    topics: [
      { topicId, partitions: [{ partitionIndex: 0, committedOffset: 7, committedMetadata: 'm' }] },
      { topicId: UNKNOWN_ID, partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] },
    ],
  });
  assert.equal(commit.topics.map((t: any) => [t.topicId, t.partitions[0].errorCode]), [[topicId, ErrorCode.NONE], [UNKNOWN_ID, ErrorCode.UNKNOWN_TOPIC_ID]]);
  const fetched = await send(9, 10, {
    groups: [{ groupId: 'k44-g', memberId: null, memberEpoch: -1, topics: [{ topicId, partitionIndexes: [0, 1] }, { topicId: UNKNOWN_ID, partitionIndexes: [0] }] }],
  });
  const g = fetched.groups[0];
  assert.is(g.errorCode, ErrorCode.NONE);
  const mine = g.topics.find((t: any) => t.topicId === topicId);
  assert.equal(mine.partitions.map((p: any) => [p.partitionIndex, p.committedOffset, p.metadata]), [[0, 7n, 'm'], [1, -1n, '']]);
  const unknown = g.topics.find((t: any) => t.topicId === UNKNOWN_ID);
  assert.is(unknown.partitions[0].errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
  // v9 still names them: the same offset by name.
  const byName = await send(9, 9, { groups: [{ groupId: 'k44-g', memberId: null, memberEpoch: -1, topics: [{ name: 'k44', partitionIndexes: [0] }] }] });
  assert.is(byName.groups[0].topics[0].partitions[0].committedOffset, 7n);
});

test('ListOffsets v10 (timeout) and v11 -6 earliest pending upload: -1 on a topic that is not tiered', async () => {
  const r = await send(2, 11, { replicaId: -1, timeoutMs: 1000, topics: [{ name: 'k44', partitions: [{ partitionIndex: 0, timestamp: -6 }, { partitionIndex: 1, timestamp: -1 }] }] });
  assert.equal(r.topics[0].partitions.map((p: any) => [p.errorCode, p.offset]), [[ErrorCode.NONE, -1n], [ErrorCode.NONE, 0n]]);
  const v10 = await send(2, 10, { replicaId: -1, timeoutMs: 1000, topics: [{ name: 'k44', partitions: [{ partitionIndex: 0, timestamp: -6 }] }] });
  assert.is(v10.topics[0].partitions[0].errorCode, ErrorCode.UNSUPPORTED_VERSION, '-6 needs v11');
});

test('Metadata v13 carries a top-level error code; DescribeCluster v2 lists no fenced broker while registered', async () => {
  const m = await send(3, 13, { topics: [{ name: 'k44' }] });
  assert.equal([m.errorCode, m.topics[0].name, m.topics[0].partitions.length], [ErrorCode.NONE, 'k44', 2]);
  const d = await send(60, 2, { includeFencedBrokers: true, endpointType: 1 });
  assert.equal(d.brokers.map((x: any) => [x.brokerId, x.isFenced]), [[b.broker.nodeId, false]]);
});

test('ListTransactions v2: the whole id must match the pattern; one that does not compile is INVALID_REGULAR_EXPRESSION', async () => {
  for (const id of ['k44-a', 'k44-b', 'other-k44']) {
    const r = await send(22, 5, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1, producerEpoch: -1 });
    assert.is(r.errorCode, ErrorCode.NONE);
  }
  const ids = async (pattern: string | null, v = 2) => (await send(66, v, { transactionalIdPattern: pattern })).transactionStates.map((s: any) => s.transactionalId).sort();
  assert.equal(await ids('k44-.*'), ['k44-a', 'k44-b']);
  assert.equal(await ids('k44'), [], 'a partial match is no match');
  assert.equal(await ids(''), ['k44-a', 'k44-b', 'other-k44']);
  assert.equal(await ids(null), ['k44-a', 'k44-b', 'other-k44']);
  assert.equal(await ids('k44-.*', 1), ['k44-a', 'k44-b', 'other-k44'], 'v1 has no pattern');
  const bad = await send(66, 2, { transactionalIdPattern: '(' });
  assert.equal([bad.errorCode, bad.transactionStates.length], [ErrorCode.INVALID_REGULAR_EXPRESSION, 0]);
});

test('AlterPartitionReassignments v1 on one broker: the replica list is checked before the replication factor (test/system/reassignment-clients has the refusal)', async () => {
  const self = b.broker.nodeId;
  const r = await send(45, 1, { allowReplicationFactorChange: false, topics: [{ name: 'k44', partitions: [{ partitionIndex: 0, replicas: [self, self + 1] }, { partitionIndex: 1, replicas: [self] }] }] });
  assert.is(r.allowReplicationFactorChange, false);
  const [p0, p1] = r.responses[0].partitions;
  assert.is(p0.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'an unregistered broker, as Kafka answers first');
  assert.is(p1.errorCode, ErrorCode.NONE, 'the same count goes ahead');
});

test('Produce v13 by topic id: appended, counted under the topic\'s name, and the test control\'s per-topic errors find it', async () => {
  const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from('v13') }] });
  const before = b.broker.metrics.topic('k44').messagesIn;
  const ok = await send(0, 13, { acks: -1, timeoutMs: 5000, topicData: [{ topicId, partitionData: [{ index: 1, records }] }, { topicId: UNKNOWN_ID, partitionData: [{ index: 0, records }] }] });
  assert.equal(ok.responses.map((t: any) => [t.topicId, t.partitionResponses[0].errorCode]), [[topicId, ErrorCode.NONE], [UNKNOWN_ID, ErrorCode.UNKNOWN_TOPIC_ID]]);
  assert.is(b.broker.metrics.topic('k44').messagesIn, before + 1, 'per-topic messages in, by name');
  b.control.injectError('Produce', 'NOT_LEADER_OR_FOLLOWER', { topic: 'k44', partition: 1 });
  const refused = await send(0, 13, { acks: -1, timeoutMs: 5000, topicData: [{ topicId, partitionData: [{ index: 1, records }] }] });
  assert.equal(refused.responses.map((t: any) => [t.topicId, t.partitionResponses[0].errorCode]), [[topicId, ErrorCode.NOT_LEADER_OR_FOLLOWER]]);
});

test('DeleteGroups v3 and DescribeLogDirs v5 answer with their new fields', async () => {
  const del = await send(42, 3, { groupsNames: ['k44-none'] });
  assert.equal(del.results.map((r: any) => [r.groupId, r.errorCode, r.errorMessage]), [['k44-none', ErrorCode.GROUP_ID_NOT_FOUND, null]]);
  const dirs = await send(35, 5, { topics: null });
  assert.ok(dirs.results.length > 0);
  assert.equal(dirs.results.map((r: any) => r.isCordoned), dirs.results.map(() => false));
});

test.run();
