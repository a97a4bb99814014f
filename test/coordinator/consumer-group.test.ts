/**
 * KIP-848 consumer groups on a manual clock: joining, reconciliation (revoke before assign, no
 * partition with two owners), session and revocation timeouts, static members, regex
 * subscriptions, the heartbeat's errors, and replay after a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { GROUP, SimConsumer, consumerHarness, converge, type ConsumerHarness } from './_consumer-harness.js';

const T = 'AQEBAQEBAQEBAQEBAQEBAQ';

/** Every partition of `t` owned by at most one consumer (checked after every heartbeat). */
function assertNoDoubleOwners(consumers: SimConsumer[]): void {
  const seen = new Map<number, string>();
  for (const c of consumers) {
    for (const p of c.partitions()) {
      assert.not.ok(seen.has(p), `partition ${p} owned by ${seen.get(p)} and ${c.memberId}`);
      seen.set(p, c.memberId);
    }
  }
}

async function groupOf(h: ConsumerHarness, n: number, names?: string[]): Promise<SimConsumer[]> {
  const cs = Array.from({ length: n }, (_, i) => new SimConsumer(h, names?.[i] ?? `m${i}`));
  for (const c of cs) {
    const r = await c.join();
    assert.is(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  }
  await converge(cs, 10, () => assertNoDoubleOwners(cs));
  return cs;
}

async function describe(h: ConsumerHarness) {
  return h.coord.consumerGroupDescribe(GROUP, null);
}

test('a first join by topic names creates the group at epoch 2 (as Kafka 4.4) and gives the member every partition', async () => {
  const h = await consumerHarness();
  const c = new SimConsumer(h, 'a');
  const r = await c.join();
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.memberId, 'a');
  assert.is(r.memberEpoch, 2);
  assert.is(r.heartbeatIntervalMs, 5000);
  assert.equal(c.partitions(), [0, 1, 2, 3, 4, 5]);
  const d = await describe(h);
  assert.is(d.groupState, 'Stable');
  assert.is(d.groupEpoch, 2);
  assert.is(d.assignmentEpoch, 2);
  assert.is(d.assignorName, 'uniform');
  assert.equal(d.members[0].assignment!.topicPartitions, [{ topicId: T, topicName: 't', partitions: [0, 1, 2, 3, 4, 5] }]);
});

test('three members share six partitions two each, and no partition ever has two owners', async () => {
  const h = await consumerHarness();
  const cs = await groupOf(h, 3);
  assert.equal(cs.map((c) => c.partitions().length), [2, 2, 2]);
  assert.equal(new Set(cs.flatMap((c) => c.partitions())).size, 6);
  const d = await describe(h);
  assert.is(d.groupState, 'Stable');
  assert.ok(d.members.every((m) => m.memberEpoch === d.assignmentEpoch), 'every member at the assignment epoch');
});

test('a fourth member takes partitions only from others; members keep the partitions not moved', async () => {
  const h = await consumerHarness();
  const cs = await groupOf(h, 3);
  const before = cs.map((c) => c.partitions());
  const d = new SimConsumer(h, 'm3');
  const r = await d.join();
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.equal(d.partitions(), [], 'nothing is free until the others release it');
  const all = [...cs, d];
  await converge(all, 10, () => assertNoDoubleOwners(all));
  assert.equal(all.map((c) => c.partitions().length).sort(), [1, 1, 2, 2]);
  for (let i = 0; i < 3; i++) {
    for (const p of cs[i].partitions()) assert.ok(before[i].includes(p), `${cs[i].memberId} gained partition ${p}`);
  }
  const moved = before.flat().filter((p) => !cs.some((c) => c.partitions().includes(p)));
  assert.ok(moved.length >= 1, 'the new member has partitions');
  assert.equal(moved, d.partitions(), 'only the partitions the new member took moved');
});

test('revoke before assign: the member losing a partition keeps its epoch until it reports the partition released', async () => {
  const h = await consumerHarness();
  const [a] = await groupOf(h, 1, ['a']);
  const epochBefore = a.epoch;
  const b = new SimConsumer(h, 'b');
  await b.join();
  // a still reports all six: the coordinator asks it to revoke three, at its old epoch
  const r = await h.hb({ memberId: 'a', memberEpoch: epochBefore, topicPartitions: [{ topicId: T, partitions: [0, 1, 2, 3, 4, 5] }] });
  assert.is(r.memberEpoch, epochBefore, 'epoch held while revoking');
  assert.is(r.assignment!.topicPartitions[0].partitions.length, 3);
  const desc = await describe(h);
  assert.is(desc.groupState, 'Reconciling');
  // b cannot have the partitions yet
  await b.beat();
  assert.equal(b.partitions(), []);
  // a releases: it moves to the new epoch, then b gets the released partitions
  a.owned = new Map([[T, new Set(r.assignment!.topicPartitions[0].partitions)]]);
  await a.beat();
  assert.ok(a.epoch > epochBefore);
  await b.beat();
  assert.is(b.partitions().length, 3);
  assertNoDoubleOwners([a, b]);
});

test('a member that stops heartbeating is removed after the session timeout and its partitions move', async () => {
  const h = await consumerHarness({ sessionTimeoutMs: 45000 });
  const cs = await groupOf(h, 3);
  const dead = cs[2];
  const alive = cs.slice(0, 2);
  await h.advance(30000);
  for (const c of alive) await c.beat();
  await h.advance(20000);
  const d = await describe(h);
  assert.equal(d.members.map((m) => m.memberId).sort(), ['m0', 'm1'], `${dead.memberId} fenced after 45 s without heartbeat`);
  await converge(alive);
  assert.equal(alive.map((c) => c.partitions().length), [3, 3]);
  const r = await dead.beat();
  assert.is(r.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('a member that does not revoke within its rebalance timeout is fenced', async () => {
  const h = await consumerHarness();
  const a = new SimConsumer(h, 'a', { rebalanceTimeoutMs: 10000 });
  await a.join();
  const b = new SimConsumer(h, 'b');
  await b.join();
  const r = await h.hb({ memberId: 'a', memberEpoch: a.epoch, topicPartitions: [{ topicId: T, partitions: [0, 1, 2, 3, 4, 5] }] });
  assert.is(r.assignment!.topicPartitions[0].partitions.length, 3);
  await h.advance(9000);
  await b.beat();
  await h.hb({ memberId: 'a', memberEpoch: a.epoch, topicPartitions: [{ topicId: T, partitions: [0, 1, 2, 3, 4, 5] }] });
  await h.advance(2000);
  const d = await describe(h);
  assert.equal(d.members.map((m) => m.memberId), ['b']);
  await b.beat();
  assert.equal(b.partitions(), [0, 1, 2, 3, 4, 5]);
});

test('a dynamic member leaving (epoch -1) gives its partitions back at once', async () => {
  const h = await consumerHarness();
  const [a, b] = await groupOf(h, 2, ['a', 'b']);
  const r = await a.leave();
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.memberEpoch, -1);
  await b.beat();
  assert.equal(b.partitions(), [0, 1, 2, 3, 4, 5]);
});

test('a static member that leaves with epoch -2 and rejoins under a new member id keeps its partitions', async () => {
  const h = await consumerHarness();
  const s1 = new SimConsumer(h, 's-1', { instanceId: 'inst' });
  const other = new SimConsumer(h, 'o');
  await s1.join();
  await other.join();
  await converge([s1, other]);
  const kept = s1.partitions();
  assert.is(kept.length, 3);
  const epochBefore = (await describe(h)).groupEpoch;
  const left = await s1.leave(-2);
  assert.is(left.memberEpoch, -2);
  await other.beat();
  assert.is(other.partitions().length, 3, 'the others do not take a static member\'s partitions while it is away');
  const s2 = new SimConsumer(h, 's-2', { instanceId: 'inst' });
  const r = await s2.join();
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.equal(s2.partitions(), kept);
  const d = await describe(h);
  assert.equal(d.members.map((m) => m.memberId).sort(), ['o', 's-2']);
  assert.is(d.groupEpoch, epochBefore, 'replacing a static member is no rebalance');
});

test('a static member whose previous incarnation has not left gets UNRELEASED_INSTANCE_ID; a stale one FENCED_INSTANCE_ID', async () => {
  const h = await consumerHarness();
  const s1 = new SimConsumer(h, 's-1', { instanceId: 'inst' });
  await s1.join();
  const r = await new SimConsumer(h, 's-2', { instanceId: 'inst' }).join();
  assert.is(r.errorCode, ErrorCode.UNRELEASED_INSTANCE_ID);
  await s1.leave(-2);
  await new SimConsumer(h, 's-2', { instanceId: 'inst' }).join();
  const stale = await s1.beat();
  assert.is(stale.errorCode, ErrorCode.FENCED_INSTANCE_ID);
});

test('a static member away longer than its session timeout is removed', async () => {
  const h = await consumerHarness();
  const s1 = new SimConsumer(h, 's-1', { instanceId: 'inst' });
  const other = new SimConsumer(h, 'o');
  await s1.join();
  await other.join();
  await converge([s1, other]);
  await s1.leave(-2);
  await h.advance(20000);
  await other.beat();
  await h.advance(26000);
  await other.beat();
  assert.equal((await describe(h)).members.map((m) => m.memberId), ['o']);
  await converge([other]);
  assert.is(other.partitions().length, 6);
});

test('epochs: greater or older than the member\'s answer FENCED_MEMBER_EPOCH; the previous epoch with owned partitions is accepted', async () => {
  const h = await consumerHarness();
  const [a] = await groupOf(h, 1, ['a']);
  const ahead = await h.hb({ memberId: 'a', memberEpoch: a.epoch + 1 });
  assert.is(ahead.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
  const b = new SimConsumer(h, 'b');
  await b.join();
  await converge([a, b]);
  const old = a.epoch;
  await b.leave();
  const r = await a.beat();
  assert.ok(a.epoch > old);
  const previous = await h.hb({ memberId: 'a', memberEpoch: old, topicPartitions: [{ topicId: T, partitions: a.partitions().slice(0, 1) }] });
  assert.is(previous.errorCode, ErrorCode.NONE, 'a lost response: the previous epoch is still accepted');
  const older = await h.hb({ memberId: 'a', memberEpoch: old, topicPartitions: null });
  assert.is(older.errorCode, ErrorCode.FENCED_MEMBER_EPOCH, 'without owned partitions the previous epoch is fenced');
  assert.is(r.errorCode, ErrorCode.NONE);
});

test('unknown members and groups, a full group, and the request validation', async () => {
  const h = await consumerHarness({ maxSize: 1 });
  assert.is((await h.hb({ memberId: 'x', memberEpoch: 3 })).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  await new SimConsumer(h, 'a').join();
  assert.is((await h.hb({ memberId: 'x', memberEpoch: 3 })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  const full = await new SimConsumer(h, 'b').join();
  assert.is(full.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
  assert.is(full.errorMessage, 'The consumer group has reached its maximum capacity of 1 members.');
  const invalid = async (over: Parameters<ConsumerHarness['hb']>[0], message: string, v = 1) => {
    const r = await h.hb(over, v);
    assert.is(r.errorCode, ErrorCode.INVALID_REQUEST, message);
    assert.is(r.errorMessage, message);
  };
  const join = { memberId: 'n', memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'], topicPartitions: [] };
  await invalid({ ...join, memberId: '' }, "MemberId can't be empty.");
  await invalid({ ...join, groupId: '' }, "GroupId can't be empty.");
  await invalid({ ...join, instanceId: '' }, "InstanceId can't be empty.");
  await invalid({ ...join, rackId: '' }, "RackId can't be empty.");
  await invalid({ ...join, rebalanceTimeoutMs: -1 }, 'RebalanceTimeoutMs must be provided in first request.');
  await invalid({ ...join, topicPartitions: null }, 'TopicPartitions must be empty when (re-)joining.');
  await invalid({ ...join, subscribedTopicNames: null }, 'Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
  await invalid({ memberId: 'n', memberEpoch: -2 }, "InstanceId can't be null.");
  await invalid({ memberId: 'n', memberEpoch: -3 }, 'MemberEpoch is invalid.');
  const v0 = await h.hb({ ...join, memberId: '' }, 0);
  assert.is(v0.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED, 'v0: the coordinator makes the member id');
  const assignor = await h.hb({ ...join, serverAssignor: 'sticky' });
  assert.is(assignor.errorCode, ErrorCode.UNSUPPORTED_ASSIGNOR);
  assert.is(assignor.errorMessage, 'ServerAssignor sticky is not supported. Supported assignors: uniform, range.');
  const regex = await h.hb({ ...join, subscribedTopicNames: null, subscribedTopicRegex: '(?=t)' });
  assert.is(regex.errorCode, ErrorCode.INVALID_REGULAR_EXPRESSION);
});

test('v0 joins get a coordinator-made member id', async () => {
  const h = await consumerHarness();
  const r = await h.hb({ memberId: '', memberEpoch: 0, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'], topicPartitions: [] }, 0);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.ok(r.memberId && r.memberId.length >= 22, `member id ${r.memberId}`);
});

test('a regex subscription picks up a topic created later; the range assignor gives contiguous ranges', async () => {
  const h = await consumerHarness();
  const a = new SimConsumer(h, 'a', { regex: 'orders-.*', assignor: 'range' });
  const b = new SimConsumer(h, 'b', { regex: 'orders-.*', assignor: 'range' });
  await a.join();
  await b.join();
  await converge([a, b]);
  assert.equal(a.owned.size + b.owned.size, 0, 'nothing matches yet');
  h.topics.set('orders-eu', 'AgICAgICAgICAgICAgICAg', 4);
  h.topics.set('other', 'AwMDAwMDAwMDAwMDAwMDAw', 4);
  await converge([a, b]);
  assert.equal(a.partitions('AgICAgICAgICAgICAgICAg'), [0, 1]);
  assert.equal(b.partitions('AgICAgICAgICAgICAgICAg'), [2, 3]);
  assert.equal([...a.owned.keys(), ...b.owned.keys()].filter((t) => t === 'AwMDAwMDAwMDAwMDAwMDAw'), []);
  const d = await describe(h);
  assert.is(d.assignorName, 'range');
  assert.is(d.members[0].subscribedTopicRegex, 'orders-.*');
  assert.is(d.members[0].memberType, 1);
});

test('a regex matches internal topics too (Kafka 4.4 resolves it against every topic; franz-go Test848RegexBrokerResolves)', async () => {
  const h = await consumerHarness();
  h.topics.set('__consumer_offsets', 'BAQEBAQEBAQEBAQEBAQEBA', 2);
  h.topics.set('orders', 'BQUFBQUFBQUFBQUFBQUFBQ', 1);
  const a = new SimConsumer(h, 'a', { regex: '(?:.*orders.*)|(?:__consumer_offsets)' });
  await a.join();
  await converge([a]);
  assert.equal(a.partitions('BAQEBAQEBAQEBAQEBAQEBA'), [0, 1]);
  assert.equal(a.partitions('BQUFBQUFBQUFBQUFBQUFBQ'), [0]);
});

test('assignment batching: within group.consumer.assignment.interval.ms of the last target a joining member reconciles to the current one (Assigning)', async () => {
  const h = await consumerHarness({ assignmentIntervalMs: 1000 });
  const a = new SimConsumer(h, 'a');
  await a.join();
  const b = new SimConsumer(h, 'b');
  const r = await b.join();
  assert.is(r.memberEpoch, 2, 'the previous target epoch, as Kafka 4.4 answers');
  assert.equal(b.partitions(), []);
  let d = await describe(h);
  assert.equal([d.groupState, d.groupEpoch, d.assignmentEpoch], ['Assigning', 3, 2]);
  await converge([a, b]);
  assert.equal(b.partitions(), [], 'no new target before the interval');
  await h.advance(1000);
  await converge([a, b]);
  d = await describe(h);
  assert.equal([d.groupState, d.assignmentEpoch], ['Stable', 3]);
  assert.equal([a.partitions().length, b.partitions().length], [3, 3]);
});

test('rack-aware: members that send a rack id get the partitions with a replica in their rack', async () => {
  const h = await consumerHarness();
  h.topics.setRacks(T, [['r1'], ['r2'], ['r1'], ['r2'], ['r1'], ['r2']]);
  const join = (memberId: string, rackId: string) => h.hb({ memberId, memberEpoch: 0, rackId, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['t'], topicPartitions: [] });
  await join('x', 'r2');
  await join('y', 'r1');
  const a = new SimConsumer(h, 'x');
  const b = new SimConsumer(h, 'y');
  const epochs = new Map((await describe(h)).members.map((m) => [m.memberId, m.memberEpoch]));
  a.epoch = epochs.get('x')!;
  b.epoch = epochs.get('y')!;
  a.owned = new Map([[T, new Set([0, 1, 2, 3, 4, 5])]]);
  await converge([a, b]);
  assert.equal(a.partitions(), [1, 3, 5]);
  assert.equal(b.partitions(), [0, 2, 4]);
  assert.equal((await describe(h)).members.map((m) => m.rackId).sort(), ['r1', 'r2']);
});

test('a topic growing partitions bumps the group epoch and assigns the new ones', async () => {
  const h = await consumerHarness();
  const cs = await groupOf(h, 2);
  const epoch = (await describe(h)).groupEpoch;
  h.topics.set('t', T, 8);
  await converge(cs);
  assert.is((await describe(h)).groupEpoch, epoch + 1);
  assert.equal(cs.map((c) => c.partitions().length), [4, 4]);
});

test('a subscribed topic deleted: the group epoch moves and its partitions leave every assignment', async () => {
  const h = await consumerHarness();
  h.topics.set('u', 'AgICAgICAgICAgICAgICAg', 2);
  const cs = [new SimConsumer(h, 'a', { topics: ['t', 'u'] }), new SimConsumer(h, 'b', { topics: ['t', 'u'] })];
  for (const c of cs) await c.join();
  await converge(cs);
  assert.is(cs.flatMap((c) => c.partitions('AgICAgICAgICAgICAgICAg')).length, 2);
  const epoch = (await describe(h)).groupEpoch;
  h.topics.delete('u');
  await converge(cs);
  assert.ok((await describe(h)).groupEpoch > epoch);
  assert.equal(cs.map((c) => c.partitions('AgICAgICAgICAgICAgICAg')), [[], []]);
  assert.equal(cs.map((c) => c.partitions().length), [3, 3]);
  assert.is((await describe(h)).groupState, 'Stable');
});

test('after a restart the group is what its records say; members keep their epochs and partitions', async () => {
  const h = await consumerHarness();
  const cs = await groupOf(h, 3);
  const before = await describe(h);
  const h2 = await h.restart();
  const after = await h2.coord.consumerGroupDescribe(GROUP, null);
  assert.equal(after, before);
  for (const c of cs) {
    const r = await h2.hb({ memberId: c.memberId, memberEpoch: c.epoch });
    assert.is(r.errorCode, ErrorCode.NONE);
    assert.is(r.memberEpoch, c.epoch);
  }
  await h2.advance(46000);
  assert.is((await h2.coord.consumerGroupDescribe(GROUP, null)).groupState, 'Empty', 'session timers are armed again after loading');
});

test('ConsumerGroupDescribe of unknown and classic groups answers GROUP_ID_NOT_FOUND', async () => {
  const h = await consumerHarness();
  const d = await h.coord.consumerGroupDescribe('nope', null);
  assert.is(d.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  assert.is(d.errorMessage, 'Group nope not found.');
  await h.coord.commitOffsets({ groupId: 'simple', generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }] }, 8);
  const c = await h.coord.consumerGroupDescribe('simple', null);
  assert.is(c.errorMessage, 'Group simple is not a consumer group.');
});

test.run();
