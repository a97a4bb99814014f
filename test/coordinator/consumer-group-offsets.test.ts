/**
 * Consumer groups and the other group APIs: OffsetCommit/OffsetFetch member epochs,
 * ListGroups types, DeleteGroups, the records' round trip through Kafka's format, and classic
 * requests to a consumer group.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { groupRecordSerde } from '../../src/coordinator/group/records.js';
import type { ConsumerGroupRecord } from '../../src/coordinator/group/consumer-group-records.js';
import type { CommitRequest } from '../../src/coordinator/group/offset-metadata-manager.js';
import { GROUP, SimConsumer, consumerHarness, type ConsumerHarness } from './_consumer-harness.js';

function commit(over: Partial<CommitRequest>): CommitRequest {
  return {
    groupId: GROUP, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
    topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    ...over,
  };
}

async function commitCode(h: ConsumerHarness, over: Partial<CommitRequest>, version = 9): Promise<number> {
  return (await h.coord.commitOffsets(commit(over), version))[0].partitions[0].errorCode;
}

async function fetchCode(h: ConsumerHarness, memberId: string | null, memberEpoch: number): Promise<number> {
  try {
    await h.coord.fetchOffsets(GROUP, [{ name: 't', partitionIndexes: [0] }], { memberId, memberEpoch });
    return ErrorCode.NONE;
  } catch (err) {
    if (err instanceof KafkaApiError) return err.errorCode;
    throw err;
  }
}

test('OffsetCommit to a consumer group: member epoch checked (STALE_MEMBER_EPOCH), v9+ required, admin commits only when Empty', async () => {
  const h = await consumerHarness();
  const a = new SimConsumer(h, 'a');
  await a.join();
  assert.is(await commitCode(h, { memberId: 'a', generationId: a.epoch }), ErrorCode.NONE);
  assert.is(await commitCode(h, { memberId: 'a', generationId: a.epoch + 1 }), ErrorCode.STALE_MEMBER_EPOCH);
  assert.is(await commitCode(h, { memberId: 'a', generationId: a.epoch }, 8), ErrorCode.UNSUPPORTED_VERSION);
  assert.is(await commitCode(h, { memberId: 'zz', generationId: 1 }), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is(await commitCode(h, {}), ErrorCode.UNKNOWN_MEMBER_ID, 'admin commit to a group with members');
  await a.leave();
  assert.is(await commitCode(h, {}), ErrorCode.NONE, 'admin commit to an Empty consumer group');
  const fetched = await h.coord.fetchOffsets(GROUP, [{ name: 't', partitionIndexes: [0] }]);
  assert.is(fetched[0].partitions[0].committedOffset, 7n);
});

test('OffsetFetch v9 with a member: UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH, or the offsets; admin fetches always pass', async () => {
  const h = await consumerHarness();
  const a = new SimConsumer(h, 'a');
  await a.join();
  assert.is(await fetchCode(h, 'a', a.epoch), ErrorCode.NONE);
  assert.is(await fetchCode(h, 'a', a.epoch - 1), ErrorCode.STALE_MEMBER_EPOCH);
  assert.is(await fetchCode(h, 'b', 1), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is(await fetchCode(h, null, -1), ErrorCode.NONE);
});

test('ListGroups shows consumer groups with type "consumer"; the type filter picks them', async () => {
  const h = await consumerHarness();
  await new SimConsumer(h, 'a').join();
  await h.coord.commitOffsets(commit({ groupId: 'simple' }), 8);
  const all = await h.coord.listGroups([], []);
  assert.equal(all.map((g) => [g.groupId, g.groupType, g.protocolType, g.groupState]).sort(), [[GROUP, 'consumer', 'consumer', 'Stable'], ['simple', 'classic', '', 'Empty']]);
  assert.equal((await h.coord.listGroups([], ['Consumer'])).map((g) => g.groupId), [GROUP]);
  assert.equal((await h.coord.listGroups([], ['classic'])).map((g) => g.groupId), ['simple']);
  assert.equal((await h.coord.listGroups(['stable'], [])).map((g) => g.groupId), [GROUP]);
});

test('DeleteGroups: NON_EMPTY_GROUP with members; an Empty consumer group and its offsets are deleted for good', async () => {
  const h = await consumerHarness();
  const a = new SimConsumer(h, 'a');
  await a.join();
  await commitCode(h, { memberId: 'a', generationId: a.epoch });
  assert.equal(await h.coord.deleteGroups([GROUP]), [{ groupId: GROUP, errorCode: ErrorCode.NON_EMPTY_GROUP }]);
  await a.leave();
  assert.equal(await h.coord.deleteGroups([GROUP]), [{ groupId: GROUP, errorCode: ErrorCode.NONE }]);
  assert.is((await h.coord.consumerGroupDescribe(GROUP, null)).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  const h2 = await h.restart();
  assert.is((await h2.coord.consumerGroupDescribe(GROUP, null)).errorCode, ErrorCode.GROUP_ID_NOT_FOUND, 'tombstones replayed');
  assert.equal(await h2.coord.listGroups([], []), []);
});

test('an Empty classic group (offsets only) becomes a consumer group and keeps its offsets, also after a restart', async () => {
  const h = await consumerHarness();
  await h.coord.commitOffsets(commit({}), 8);
  const a = new SimConsumer(h, 'a');
  assert.is((await a.join()).errorCode, ErrorCode.NONE);
  assert.equal((await h.coord.listGroups([], [])).map((g) => g.groupType), ['consumer']);
  const h2 = await h.restart();
  assert.equal((await h2.coord.listGroups([], [])).map((g) => g.groupType), ['consumer']);
  assert.is((await h2.coord.fetchOffsets(GROUP, [{ name: 't', partitionIndexes: [0] }]))[0].partitions[0].committedOffset, 7n);
});

test('classic requests to a consumer group: JoinGroup asks for a member id (MEMBER_ID_REQUIRED), a consumer-protocol member\'s Heartbeat UNKNOWN_MEMBER_ID', async () => {
  const h = await consumerHarness();
  await new SimConsumer(h, 'a').join();
  const j = await h.coord.joinGroup({ apiVersion: 9, clientId: 'c', clientHost: '/h' }, {
    groupId: GROUP, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
  });
  assert.is(j.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  const other = await h.coord.joinGroup({ apiVersion: 9, clientId: 'c', clientHost: '/h' }, {
    groupId: GROUP, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: 'x', groupInstanceId: null, protocolType: 'other', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
  });
  assert.is(other.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL, 'another protocol type');
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: 'a', groupInstanceId: null, generationId: 1 }), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('OffsetDelete on a consumer group: GROUP_SUBSCRIBED_TO_TOPIC for subscribed topics, deleted otherwise; anything once Empty', async () => {
  const h = await consumerHarness();
  h.topics.set('other', 'AgICAgICAgICAgICAgICAg', 1);
  const a = new SimConsumer(h, 'a');
  await a.join();
  await h.coord.commitOffsets(commit({ memberId: 'a', generationId: a.epoch, topics: [
    { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] },
    { name: 'other', partitions: [{ partitionIndex: 0, committedOffset: 2n, committedLeaderEpoch: -1, committedMetadata: '' }] },
  ] }), 9);
  const r = await h.coord.deleteOffsets(GROUP, [{ name: 't', partitions: [{ partitionIndex: 0 }] }, { name: 'other', partitions: [{ partitionIndex: 0 }] }]);
  assert.equal(r.topics.map((t) => [t.name, t.partitions[0].errorCode]), [['t', ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC], ['other', ErrorCode.NONE]]);
  await a.leave();
  const empty = await h.coord.deleteOffsets(GROUP, [{ name: 't', partitions: [{ partitionIndex: 0 }] }]);
  assert.is(empty.topics[0].partitions[0].errorCode, ErrorCode.NONE);
  assert.equal(await h.coord.fetchOffsets(GROUP, null), []);
});

test('an Empty consumer group\'s offsets expire offsets.retention after their commit, then the group is deleted', async () => {
  const h = await consumerHarness({ sessionTimeoutMs: 10 * 24 * 3600_000 });
  const a = new SimConsumer(h, 'a');
  await a.join();
  assert.is(await commitCode(h, { memberId: 'a', generationId: a.epoch }), ErrorCode.NONE);
  await h.advance(8 * 24 * 3600_000);
  assert.is((await h.coord.fetchOffsets(GROUP, [{ name: 't', partitionIndexes: [0] }]))[0].partitions[0].committedOffset, 7n, 'kept past retention while a member subscribes to the topic');
  await a.leave();
  await h.advance(600_000);
  assert.is((await h.coord.fetchOffsets(GROUP, [{ name: 't', partitionIndexes: [0] }]))[0].partitions[0].committedOffset, -1n);
  assert.is((await h.coord.consumerGroupDescribe(GROUP, null)).errorCode, ErrorCode.GROUP_ID_NOT_FOUND, 'the Empty group without offsets is deleted');
});

test('every consumer-group record survives Kafka\'s key/value format', () => {
  const tps = [{ topicId: 'AQEBAQEBAQEBAQEBAQEBAQ', partitions: [0, 3] }];
  const records: ConsumerGroupRecord[] = [
    { type: 'cg-metadata', groupId: 'g', value: { epoch: 4 } },
    { type: 'cg-partition-metadata', groupId: 'g', value: { topics: [{ topicId: tps[0].topicId, topicName: 't', numPartitions: 6, partitionMetadata: [] }] } },
    { type: 'cg-member', groupId: 'g', memberId: 'm', value: { instanceId: 'i', rackId: null, clientId: 'c', clientHost: '/h', subscribedTopicNames: ['t'], subscribedTopicRegex: 'x.*', rebalanceTimeoutMs: 300000, serverAssignor: 'range', classicMemberMetadata: null } },
    { type: 'cg-target-metadata', groupId: 'g', value: { assignmentEpoch: 4 } },
    { type: 'cg-target-member', groupId: 'g', memberId: 'm', value: { topicPartitions: tps } },
    { type: 'cg-current', groupId: 'g', memberId: 'm', value: { memberEpoch: 4, previousMemberEpoch: 3, state: 1, assignedPartitions: tps, partitionsPendingRevocation: [] } },
    { type: 'cg-current', groupId: 'g', memberId: 'm', value: null },
  ];
  for (const r of records) {
    const lr = groupRecordSerde.serialize(r);
    assert.equal(groupRecordSerde.deserialize(lr), r, r.type);
  }
  const key = groupRecordSerde.serialize(records[0]).key;
  assert.is(key.readInt16BE(0), 3, 'ConsumerGroupMetadataKey is key version 3');
  assert.is(groupRecordSerde.serialize(records[5]).key.readInt16BE(0), 8, 'CurrentMemberAssignmentKey is key version 8');
});

test.run();
