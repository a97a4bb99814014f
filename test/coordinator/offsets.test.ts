/**
 * Committed offsets on a manual clock: OffsetCommit validation (behaviours.md OC1-OC10),
 * OffsetFetch (OF1-OF3), DeleteGroups (G4-G7), OffsetDelete, retention of offsets of empty
 * groups, replay after a restart, and append failures.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { groupRecordSerde } from '../../src/coordinator/group/records.js';
import { javaStringHash, partitionForGroup } from '../../src/coordinator/group/group-coordinator.js';
import type { CommitRequest } from '../../src/coordinator/group/offset-metadata-manager.js';
import { GROUP, harness, memberId, stableSingle, startJoin, state, subscription, syncReq, type Harness } from './_harness.js';

function commitReq(over: Partial<CommitRequest> = {}, offset = 5n, metadata: string | null = 'meta'): CommitRequest {
  return {
    groupId: GROUP, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: 3, committedMetadata: metadata }] }],
    ...over,
  };
}

async function commitCode(h: Harness, over: Partial<CommitRequest> = {}, version = 8): Promise<number> {
  const r = await h.coord.commitOffsets(commitReq(over), version);
  return r[0].partitions[0].errorCode;
}

async function fetched(h: Harness, groupId = GROUP) {
  const r = await h.coord.fetchOffsets(groupId, [{ name: 't', partitionIndexes: [0, 1] }]);
  return r[0].partitions.map((p) => [p.committedOffset, p.committedLeaderEpoch, p.metadata]);
}

test('javaStringHash and partitionFor match Java / Kafka', () => {
  assert.is(javaStringHash(''), 0);
  assert.is(javaStringHash('hello'), 99162322);
  assert.is(javaStringHash('polygenelubricants'), -2147483648);
  assert.is(partitionForGroup('hello', 50), 99162322 % 50);
  assert.is(partitionForGroup('polygenelubricants', 50), 0, 'hash MIN_INT maps to 0');
});

test('OC2/OF1/OF3: assign-mode commit to a missing group creates a simple Empty group; fetch round-trips metadata', async () => {
  const h = await harness();
  assert.equal(await fetched(h), [[-1n, -1, ''], [-1n, -1, '']], 'unknown group: -1, no error');
  assert.is(await commitCode(h), 0);
  assert.equal(await fetched(h), [[5n, 3, 'meta'], [-1n, -1, '']]);
  const listed = await h.coord.listGroups([], []);
  assert.equal(listed, [{ groupId: GROUP, protocolType: '', groupState: 'Empty', groupType: 'classic' }]);
  const all = await h.coord.fetchOffsets(GROUP, null);
  assert.equal(all.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]), [['t', [0]]]);
  assert.equal(await h.coord.fetchOffsets('unknown', null), [], 'OF2');
  // null metadata is stored as ""
  await h.coord.commitOffsets(commitReq({}, 6n, null), 8);
  assert.equal((await fetched(h))[0], [6n, 3, '']);
});

test('OC1/OC4/OC5/OC6/OC7: member commits are validated against the group', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  assert.is(await commitCode(h), ErrorCode.UNKNOWN_MEMBER_ID, 'OC1: generation -1 without member to a group with members');
  assert.is(await commitCode(h, { generationId: 1, memberId: 'stranger' }), ErrorCode.UNKNOWN_MEMBER_ID, 'OC5');
  assert.is(await commitCode(h, { generationId: 0, memberId: a }), ErrorCode.ILLEGAL_GENERATION, 'OC4');
  assert.is(await commitCode(h, { generationId: -1, memberId: a }), ErrorCode.ILLEGAL_GENERATION, 'OC6');
  assert.is(await commitCode(h, { generationId: 1, memberId: a, groupInstanceId: 'not-mine' }), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is(await commitCode(h, { generationId: 1, memberId: a }), 0);
  // CompletingRebalance: 27; PreparingRebalance: accepted.
  const b = await memberId(h, 'b');
  const jb = (await startJoin(h, { memberId: b })).response;
  assert.is(await state(h), 'PreparingRebalance');
  assert.is(await commitCode(h, { generationId: 1, memberId: a }), 0, 'OC7: commits during PreparingRebalance are accepted');
  const ja = (await startJoin(h, { memberId: a })).response;
  await Promise.all([ja, jb]);
  assert.is(await state(h), 'CompletingRebalance');
  assert.is(await commitCode(h, { generationId: 2, memberId: a }), ErrorCode.REBALANCE_IN_PROGRESS);
});

test('OC3: a generation to a missing group is ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v9', async () => {
  const h = await harness();
  assert.is(await commitCode(h, { generationId: 3, memberId: 'm' }, 8), ErrorCode.ILLEGAL_GENERATION);
  assert.is(await commitCode(h, { generationId: 3, memberId: 'm' }, 9), ErrorCode.GROUP_ID_NOT_FOUND);
});

test('OC8: metadata over offset.metadata.max.bytes fails that partition only', async () => {
  const h = await harness({ offsetMetadataMaxBytes: 4 });
  const r = await h.coord.commitOffsets({
    ...commitReq(),
    topics: [{ name: 't', partitions: [
      { partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: 'toolong' },
      { partitionIndex: 1, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: 'ok' },
    ] }],
  }, 8);
  assert.equal(r[0].partitions.map((p) => p.errorCode), [ErrorCode.OFFSET_METADATA_TOO_LARGE, 0]);
  assert.equal(await fetched(h), [[-1n, -1, ''], [2n, -1, 'ok']]);
});

test('records use Kafka\'s formats: OffsetCommitKey v1 / value v3 (v1 with an expiry), GroupMetadataKey v2 / value v3', async () => {
  const h = await harness();
  await h.coord.commitOffsets(commitReq(), 8);
  await h.coord.commitOffsets(commitReq({ retentionTimeMs: 1000 }), 2);
  await stableSingle(h);
  const records = [...h.topic.logs.values()].flatMap((l) => l.records);
  const versions = records.map((r) => [r.key.readInt16BE(0), r.value?.readInt16BE(0) ?? null]);
  assert.equal(versions, [[1, 3], [1, 1], [2, 3]]);
  const decoded = records.map((r) => groupRecordSerde.deserialize(r));
  assert.is(decoded[1]!.type, 'offset');
  assert.is((decoded[1] as { value: { expireTimestamp: bigint } }).value.expireTimestamp, BigInt(h.clock.now() + 1000));
  // Record types that are not ours (16: regular expressions, 18: the streams partition metadata
  // 4.4 no longer writes) are skipped; 3-8 are KIP-848 groups, 10-15 share groups, 17-23 streams groups.
  assert.is(groupRecordSerde.deserialize({ key: Buffer.from([0, 16, 0, 0]), value: null }), null);
  assert.is(groupRecordSerde.deserialize({ key: Buffer.from([0, 18, 0, 0]), value: null }), null);
  assert.is(groupRecordSerde.deserialize({ key: Buffer.from([0, 17, 0, 0]), value: null })!.type, 'st-metadata');
  assert.is(groupRecordSerde.deserialize({ key: Buffer.from([0, 11, 0, 0]), value: null })!.type, 'sg-metadata');
  assert.is(groupRecordSerde.deserialize({ key: Buffer.from([0, 3, 0, 0]), value: null })!.type, 'cg-metadata');
});

test('restart: the state after replaying the log is the state before', async () => {
  const h = await harness();
  const a = await stableSingle(h, Buffer.from('assignment-a'));
  await h.coord.commitOffsets(commitReq({ generationId: 1, memberId: a }, 42n), 8);
  await h.coord.commitOffsets(commitReq({ groupId: 'simple' }, 7n), 8);
  const before = await h.coord.describeGroup(GROUP, false);
  const h2 = await h.restart();
  const after = await h2.coord.describeGroup(GROUP, false);
  assert.equal(after, before);
  assert.equal((await fetched(h2))[0], [42n, 3, 'meta']);
  assert.equal((await fetched(h2, 'simple'))[0], [7n, 3, 'meta']);
  // The loaded member must heartbeat within its session timeout.
  assert.is(await h2.coord.heartbeat({ groupId: GROUP, memberId: a, groupInstanceId: null, generationId: 1 }), 0);
  const s = await h2.coord.syncGroup(syncReq({ memberId: a }));
  assert.is(s.assignment.toString(), 'assignment-a');
  await h2.advance(10000);
  assert.is(await state(h2), 'Empty', 'a silent loaded member expires');
});

test('DeleteGroups: non-empty, unknown, empty (offsets deleted too); durable', async () => {
  const h = await harness();
  await stableSingle(h);
  await h.coord.commitOffsets(commitReq({ groupId: 'simple' }), 8);
  const r = await h.coord.deleteGroups([GROUP, 'unknown', 'simple', 'simple']);
  assert.equal(r, [
    { groupId: GROUP, errorCode: ErrorCode.NON_EMPTY_GROUP },
    { groupId: 'unknown', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    { groupId: 'simple', errorCode: 0 },
  ]);
  assert.equal(await fetched(h, 'simple'), [[-1n, -1, ''], [-1n, -1, '']]);
  const h2 = await h.restart();
  assert.equal((await h2.coord.listGroups([], [])).map((g) => g.groupId), [GROUP]);
  assert.equal(await fetched(h2, 'simple'), [[-1n, -1, ''], [-1n, -1, '']]);
});

test('OffsetDelete: unknown group, subscribed topics, Empty group', async () => {
  const h = await harness();
  const topics = [{ name: 't', partitions: [{ partitionIndex: 0 }] }, { name: 'other', partitions: [{ partitionIndex: 0 }] }];
  assert.is((await h.coord.deleteOffsets('nope', topics)).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  const a = await stableSingle(h); // subscribed to "t"
  await h.coord.commitOffsets({ ...commitReq({ generationId: 1, memberId: a }), topics: [
    { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] },
    { name: 'other', partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: '' }] },
  ] }, 8);
  const r = await h.coord.deleteOffsets(GROUP, topics);
  assert.is(r.errorCode, 0);
  assert.equal(r.topics.map((t) => t.partitions[0].errorCode), [ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC, 0]);
  const all = await h.coord.fetchOffsets(GROUP, null);
  assert.equal(all.map((t) => t.name), ['t']);
  assert.ok(subscription(['t']).length > 0);
});

test('retention: offsets of an Empty group expire offsets.retention.minutes after it became Empty; then the group goes', async () => {
  const h = await harness({ offsetsRetentionMs: 60_000, offsetsRetentionCheckIntervalMs: 10_000 });
  const a = await stableSingle(h);
  await h.coord.commitOffsets(commitReq({ generationId: 1, memberId: a }), 8);
  await h.advance(10_000); // the member's session times out: Empty from t=10 s
  assert.is(await state(h), 'Empty');
  for (let t = 20; t <= 60; t += 10) {
    await h.advance(10_000);
    assert.equal((await fetched(h))[0], [5n, 3, 'meta'], `kept at t=${t} s`);
  }
  await h.advance(10_000); // t=70 s: Empty for 60 s
  assert.equal((await fetched(h))[0], [-1n, -1, '']);
  assert.is((await h.coord.listGroups([], [])).length, 0, 'an Empty group without offsets is deleted');
  const h2 = await h.restart();
  assert.is((await h2.coord.listGroups([], [])).length, 0, 'deleted durably');
});

test('retention: a simple group\'s offsets expire from their commit time; explicit retention (v2-4) wins', async () => {
  const h = await harness({ offsetsRetentionMs: 60_000, offsetsRetentionCheckIntervalMs: 10_000 });
  await h.coord.commitOffsets(commitReq({ groupId: 'simple' }), 8);
  await h.coord.commitOffsets(commitReq({ groupId: 'short', retentionTimeMs: 15_000 }), 2);
  await h.advance(10_000);
  await h.advance(10_000); // t=20 s: past the explicit 15 s
  assert.equal((await h.coord.listGroups([], [])).map((g) => g.groupId), ['simple']);
  for (let t = 30; t <= 50; t += 10) await h.advance(10_000);
  assert.equal((await fetched(h, 'simple'))[0], [5n, 3, 'meta']);
  await h.advance(10_000); // t=60 s
  assert.equal((await fetched(h, 'simple'))[0], [-1n, -1, '']);
});

test('append failures: a commit answers the mapped error and changes nothing', async () => {
  const h = await harness();
  const log = h.topic.log(h.coord.partitionFor(GROUP));
  log.failNextAppend = new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR);
  try {
    await h.coord.commitOffsets(commitReq(), 8);
    assert.unreachable();
  } catch (err) {
    assert.is((err as KafkaApiError).errorCode, ErrorCode.NOT_COORDINATOR);
  }
  assert.equal((await fetched(h))[0], [-1n, -1, '']);
});

test('append failures: the leader\'s assignment not written → every SyncGroup gets the error, the group rebalances', async () => {
  const h = await harness();
  const a = await memberId(h);
  const join = (await startJoin(h, { memberId: a })).response;
  await h.advance(0);
  await join;
  h.topic.log(h.coord.partitionFor(GROUP)).failNextAppend = new Error('disk on fire');
  const s = await h.coord.syncGroup(syncReq({ memberId: a, assignments: [{ memberId: a, assignment: Buffer.from('x') }] }));
  assert.is(s.errorCode, ErrorCode.UNKNOWN_SERVER_ERROR);
  assert.is(await state(h), 'PreparingRebalance', 'members must rejoin');
});

test.run();
