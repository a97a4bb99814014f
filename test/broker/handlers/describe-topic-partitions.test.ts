/**
 * DescribeTopicPartitions (key 75) v0 over a real socket. Every expected answer below was first
 * observed on Apache Kafka 4.4.0 (tools/kafka, single-node KRaft) with the same request bytes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { DescribeTopicPartitionsRequest } from '../../../src/protocol/generated/messages/describe-topic-partitions-request.js';
import type { DescribeTopicPartitionsResponse } from '../../../src/protocol/generated/messages/describe-topic-partitions-response.js';
import { WireClient, withBroker } from './_admin-wire.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** READ WRITE CREATE DELETE ALTER DESCRIBE DESCRIBE_CONFIGS ALTER_CONFIGS: what Kafka without an authorizer answers. */
const TOPIC_OPS = 3576;
const NOT_PROVIDED = -2147483648;

let b: RunningBroker;
let c: WireClient;

// Topics: B(2) a(3) b(5) c(1) d.x(2), big(2100), and __consumer_offsets(3) created by an offset commit.
withBroker(test, { port: 0, storage: 'memory', 'offsets.topic.num.partitions': 3 }, async (nb, nc) => {
  b = nb;
  c = nc;
  for (const [name, numPartitions] of [['a', 3], ['b', 5], ['c', 1], ['d.x', 2], ['B', 2], ['big', 2100]] as const) {
    await b.broker.createTopic({ name, numPartitions, replicationFactor: 1, configs: {} });
  }
  const commit = await c.send(8, 8, {
    groupId: 'dtp-group', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'a', topicId: ZERO_UUID, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  });
  assert.is(commit.topics[0].partitions[0].errorCode, ErrorCode.NONE);
  assert.is(b.broker.metadataCache.topic('__consumer_offsets')?.partitions, 3);
});

function describe(topics: string[] | null, responsePartitionLimit = 2000, cursor: DescribeTopicPartitionsRequest['cursor'] = null) {
  return c.send(75, 0, { topics: (topics ?? []).map((name) => ({ name })), responsePartitionLimit, cursor });
}

/** Each topic as [name, errorCode, first..last partition index or '-'] for compact comparisons. */
function shape(r: DescribeTopicPartitionsResponse): [string | null, number, string][] {
  return r.topics.map((t) => [t.name, t.errorCode, t.partitions.length ? `${t.partitions[0].partitionIndex}..${t.partitions.at(-1)!.partitionIndex}` : '-']);
}

test('ApiVersions (v0 and v3) advertises DescribeTopicPartitions 0-0', async () => {
  for (const v of [0, 3]) {
    const r = await c.send(18, v, { clientSoftwareName: 'dtp-test', clientSoftwareVersion: '1.0', clusterId: null, nodeId: -1 });
    assert.is(r.errorCode, ErrorCode.NONE);
    const entry = r.apiKeys.find((k) => k.apiKey === 75);
    assert.ok(entry, `v${v}: key 75 advertised`);
    assert.is(entry!.minVersion, 0);
    assert.is(entry!.maxVersion, 0);
  }
});

test('topics [] describes every topic in name order, internal ones flagged, every field as Kafka fills it', async () => {
  const r = await describe(null, 2000);
  // 2000 partitions fill up inside 'big' (B 2 + offsets 3 + a 3 + b 5 + big 1987): c and d.x wait for the next page
  assert.equal(r.topics.map((t) => t.name), ['B', '__consumer_offsets', 'a', 'b', 'big']);
  assert.equal(r.nextCursor, { topicName: 'big', partitionIndex: 1987 });
  const offsets = r.topics[1];
  assert.is(offsets.isInternal, true);
  assert.is(offsets.partitions.length, 3);
  const a = r.topics[2];
  const node = b.broker.nodeId;
  assert.equal(a, {
    errorCode: ErrorCode.NONE, name: 'a', topicId: b.broker.metadataCache.topic('a')!.topicId, isInternal: false,
    partitions: [0, 1, 2].map((i) => ({
      errorCode: ErrorCode.NONE, partitionIndex: i, leaderId: node, leaderEpoch: 0, replicaNodes: [node], isrNodes: [node],
      eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: [],
    })),
    topicAuthorizedOperations: TOPIC_OPS,
  });
  assert.is(r.throttleTimeMs, 0);
});

test('named topics: sorted, duplicates collapse, missing → UNKNOWN_TOPIC_OR_PARTITION, illegal → INVALID_TOPIC_EXCEPTION', async () => {
  const r = await describe(['c', 'zz', 'a', 'bad name!', 'c', '__transaction_state', '__share_group_state', 'x'.repeat(250)]);
  assert.equal(shape(r), [
    ['__share_group_state', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '-'],
    ['__transaction_state', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '-'],
    ['a', 0, '0..2'],
    ['bad name!', ErrorCode.INVALID_TOPIC_EXCEPTION, '-'],
    ['c', 0, '0..0'],
    ['x'.repeat(250), ErrorCode.INVALID_TOPIC_EXCEPTION, '-'],
    ['zz', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '-'],
  ]);
  assert.is(r.nextCursor, null);
  const missing = r.topics.find((t) => t.name === 'zz')!;
  assert.equal(missing, { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name: 'zz', topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: TOPIC_OPS });
  // is_internal follows the name even for topics that do not exist (Kafka's Topic.isInternal)
  assert.equal(r.topics.slice(0, 2).map((t) => t.isInternal), [true, true]);
  // upper and lower case sort by code unit: 'B' before 'b'
  assert.equal((await describe(['b', 'B'])).topics.map((t) => t.name), ['B', 'b']);
});

test('limit: a topic cut short ends the response with a cursor at its next partition', async () => {
  const r = await describe(['c', 'b', 'a'], 4);
  assert.equal(shape(r), [['a', 0, '0..2'], ['b', 0, '0..0']]);
  assert.equal(r.nextCursor, { topicName: 'b', partitionIndex: 1 });
  const next = await describe(['a', 'b', 'c'], 3, r.nextCursor);
  assert.equal(shape(next), [['b', 0, '1..3']]);
  assert.equal(next.nextCursor, { topicName: 'b', partitionIndex: 4 });
});

test('limit used up exactly: the cursor names the next topic at partition 0, even a missing one', async () => {
  const exact = await describe(['a', 'b'], 3);
  assert.equal(shape(exact), [['a', 0, '0..2']]);
  assert.equal(exact.nextCursor, { topicName: 'b', partitionIndex: 0 });
  const missingNext = await describe(['a', 'zzz'], 3);
  assert.equal(shape(missingNext), [['a', 0, '0..2']]);
  assert.equal(missingNext.nextCursor, { topicName: 'zzz', partitionIndex: 0 });
  const fromB = await describe(['a', 'b', 'c'], 4, { topicName: 'b', partitionIndex: 1 });
  assert.equal(shape(fromB), [['b', 0, '1..4']]);
  assert.equal(fromB.nextCursor, { topicName: 'c', partitionIndex: 0 });
  // error entries take no room in the limit
  const inside = await describe(['zzz', 'a', 'b', 'aa'], 4);
  assert.equal(shape(inside), [['a', 0, '0..2'], ['aa', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '-'], ['b', 0, '0..0']]);
  assert.equal(inside.nextCursor, { topicName: 'b', partitionIndex: 1 });
});

test('following next_cursor pages through every partition exactly once (named and all topics)', async () => {
  for (const topics of [['d.x', 'a', 'B', 'b', 'c', 'nope'], null]) {
    const seen: string[] = [];
    let cursor: DescribeTopicPartitionsRequest['cursor'] = null;
    let pages = 0;
    do {
      const r = await describe(topics, 3, cursor);
      for (const t of r.topics) for (const p of t.partitions) seen.push(`${t.name}-${p.partitionIndex}`);
      assert.ok(r.topics.reduce((n, t) => n + t.partitions.length, 0) <= 3, 'at most 3 partitions a page');
      cursor = r.nextCursor;
      pages++;
    } while (cursor && pages < 1000);
    const expected = topics
      ? ['B', 'a', 'b', 'c', 'd.x'].flatMap((n) => Array.from({ length: b.broker.metadataCache.topic(n)!.partitions }, (_, i) => `${n}-${i}`))
      : [...b.broker.metadataCache.topics.values()].sort((x, y) => (x.name < y.name ? -1 : 1)).flatMap((t) => Array.from({ length: t.partitions }, (_, i) => `${t.name}-${i}`));
    assert.equal(seen, expected);
    assert.is(pages, Math.ceil(expected.length / 3));
  }
});

test('the cursor partition applies to the cursor topic only; starting past the end gives no partitions', async () => {
  const past = await describe(['a', 'b'], 10, { topicName: 'a', partitionIndex: 10 });
  assert.equal(shape(past), [['a', 0, '-'], ['b', 0, '0..4']]);
  assert.is(past.nextCursor, null);
  const cut = await describe(['a', 'b'], 2, { topicName: 'a', partitionIndex: 3 });
  assert.equal(shape(cut), [['a', 0, '-'], ['b', 0, '0..1']]);
  assert.equal(cut.nextCursor, { topicName: 'b', partitionIndex: 2 });
  // topics before the cursor topic are skipped
  const later = await describe(['a', 'b', 'c', 'd.x'], 2, { topicName: 'c', partitionIndex: 0 });
  assert.equal(shape(later), [['c', 0, '0..0'], ['d.x', 0, '0..0']]);
  assert.equal(later.nextCursor, { topicName: 'd.x', partitionIndex: 1 });
  // Kafka computes start + limit as a Java int: near 2^31 it wraps and the cursor goes negative
  const wrap = await describe(['b'], 2147483647, { topicName: 'b', partitionIndex: 2147483647 });
  assert.equal(shape(wrap), [['b', 0, '-']]);
  assert.equal(wrap.nextCursor, { topicName: 'b', partitionIndex: (2147483647 + 2000) | 0 });
});

test('topics [] with a cursor: topics from the cursor name on; a missing cursor topic is no error', async () => {
  const fromB = await describe(null, 2000, { topicName: 'b', partitionIndex: 2 });
  assert.equal(fromB.topics.map((t) => t.name), ['b', 'big']);
  assert.equal(fromB.topics[0].partitions.map((p) => p.partitionIndex), [2, 3, 4]);
  assert.equal(fromB.nextCursor, { topicName: 'big', partitionIndex: 1997 });
  const missing = await describe(null, 2000, { topicName: 'bz', partitionIndex: 1 });
  assert.equal(shape(missing), [['c', 0, '0..0'], ['d.x', 0, '0..1']]);
  assert.is(missing.nextCursor, null);
  const internal = await describe(null, 4, { topicName: '__consumer_offsets', partitionIndex: 1 });
  assert.equal(shape(internal), [['__consumer_offsets', 0, '1..2'], ['a', 0, '0..1']]);
  assert.equal(internal.nextCursor, { topicName: 'a', partitionIndex: 2 });
  assert.equal((await describe(null, 10, { topicName: 'zzzz', partitionIndex: 0 })).topics, []);
});

test('limit 0 or negative counts as 1; above 2000 it is capped by max.request.partition.size.limit (2000)', async () => {
  for (const limit of [0, -1, 1]) {
    const r = await describe(['a', 'b'], limit);
    assert.equal(shape(r), [['a', 0, '0..0']], `limit ${limit}`);
    assert.equal(r.nextCursor, { topicName: 'a', partitionIndex: 1 });
  }
  const capped = await describe(['big', 'c'], 5000);
  assert.equal(shape(capped), [['big', 0, '0..1999']]);
  assert.equal(capped.nextCursor, { topicName: 'big', partitionIndex: 2000 });
  const rest = await describe(['big', 'c'], 2147483647, capped.nextCursor);
  assert.equal(shape(rest), [['big', 0, '2000..2099'], ['c', 0, '0..0']]);
  assert.is(rest.nextCursor, null);
});

test('a configured max.request.partition.size.limit caps the request limit', async () => {
  const small = await startBroker({ port: 0, storage: 'memory', 'max.request.partition.size.limit': 4 });
  const sc = await WireClient.connect(small.port);
  try {
    await small.broker.createTopic({ name: 'b', numPartitions: 5, replicationFactor: 1, configs: {} });
    const r = await sc.send(75, 0, { topics: [{ name: 'b' }], responsePartitionLimit: 2147483647, cursor: null });
    assert.equal(shape(r), [['b', 0, '0..3']]);
    assert.equal(r.nextCursor, { topicName: 'b', partitionIndex: 4 });
  } finally {
    sc.close();
    await small.stop();
  }
});

test('whole-request INVALID_REQUEST: cursor topic not requested, negative cursor partition', async () => {
  const entries = (names: string[], code: number) => names.map((name) => ({ errorCode: code, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: NOT_PROVIDED }));
  const notListed = await describe(['c', 'a', 'c'], 10, { topicName: 'b', partitionIndex: 0 });
  assert.equal(notListed, { throttleTimeMs: 0, topics: entries(['c', 'a', 'c'], ErrorCode.INVALID_REQUEST), nextCursor: null });
  // a cursor before every requested name is "not listed" too
  const before = await describe(['b', 'c'], 10, { topicName: 'a', partitionIndex: 0 });
  assert.equal(before.topics, entries(['b', 'c'], ErrorCode.INVALID_REQUEST));
  const negative = await describe(['a', '__consumer_offsets'], 10, { topicName: 'a', partitionIndex: -1 });
  assert.equal(negative.topics, entries(['a', '__consumer_offsets'], ErrorCode.INVALID_REQUEST));
  const negativeAll = await describe(null, 10, { topicName: 'a', partitionIndex: -5 });
  assert.equal(negativeAll, { throttleTimeMs: 0, topics: [], nextCursor: null });
  // a missing cursor topic that is requested is fine
  const missing = await describe(['a', 'nope'], 10, { topicName: 'nope', partitionIndex: 0 });
  assert.equal(shape(missing), [['nope', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '-']]);
});

test('the empty name: UNKNOWN_SERVER_ERROR without a cursor (as Kafka 4.4), INVALID_TOPIC_EXCEPTION with one', async () => {
  const noCursor = await describe(['c', '', 'c']);
  assert.equal(noCursor.topics.map((t) => [t.name, t.errorCode, t.topicAuthorizedOperations]), [
    ['c', ErrorCode.UNKNOWN_SERVER_ERROR, NOT_PROVIDED], ['', ErrorCode.UNKNOWN_SERVER_ERROR, NOT_PROVIDED], ['c', ErrorCode.UNKNOWN_SERVER_ERROR, NOT_PROVIDED],
  ]);
  const withCursor = await describe(['', 'a'], 10, { topicName: '', partitionIndex: 1 });
  assert.equal(shape(withCursor), [['', ErrorCode.INVALID_TOPIC_EXCEPTION, '-'], ['a', 0, '0..2']]);
  assert.is(withCursor.nextCursor, null);
  // the connection stays usable
  assert.equal(shape(await describe(['c'])), [['c', 0, '0..0']]);
});

test('eligible leader replicas and the last known ELR are the partition state\'s (KIP-966); [] when it has none', async () => {
  await b.broker.createTopic({ name: 'elr', numPartitions: 1, replicationFactor: 1, configs: { 'min.insync.replicas': '2' } });
  const t = b.broker.metadataCache.topic('elr')!;
  const state = b.broker.metadataCache.partition(t.topicId, 0)!;
  assert.equal((await describe(['elr'])).topics[0].partitions.map((p) => [p.eligibleLeaderReplicas, p.lastKnownElr]), [[[], []]]);
  // A state as a cluster's controller leaves it when replica 9 led last, 7 is eligible and both
  // are gone (partition-change.ts); stable here, since neither broker exists to lead.
  const offline = { ...state, replicas: [7, 9], isr: [], leader: -1, leaderEpoch: state.leaderEpoch + 1, partitionEpoch: state.partitionEpoch + 1, elr: [7], lastKnownElr: [9] };
  assert.ok((await b.broker.cluster.store.alterPartition(offline, state.partitionEpoch)).ok);
  await b.broker.metadataCache.waitFor((m) => m.partition(t.topicId, 0)?.partitionEpoch === offline.partitionEpoch, 5000, 'the offline state');
  const p = (await describe(['elr'])).topics[0].partitions[0];
  assert.equal([p.errorCode, p.leaderId, p.replicaNodes, p.isrNodes, p.eligibleLeaderReplicas, p.lastKnownElr, p.offlineReplicas],
    [ErrorCode.LEADER_NOT_AVAILABLE, -1, [7, 9], [], [7], [9], [7, 9]]);
});

test.run();
