/**
 * Mixed groups: a classic group upgraded online when a consumer-protocol member joins,
 * classic members (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) reconciling inside the consumer
 * group, their own session timeouts, their offsets and their state across a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { Reader } from '../../src/protocol/reader.js';
import { Writer } from '../../src/protocol/writer.js';
import { readConsumerProtocolAssignment, writeConsumerProtocolAssignment } from '../../src/protocol/generated/messages/consumer-protocol-assignment.js';
import type { JoinGroupRequest } from '../../src/protocol/generated/messages/join-group-request.js';
import { GROUP, SimConsumer, consumerHarness, converge, type ConsumerHarness } from './_consumer-harness.js';
import { subscription } from './_harness.js';

const jc = { apiVersion: 5, clientId: 'kjs', clientHost: '/127.0.0.1' };

function joinReq(memberId: string, over: Partial<JoinGroupRequest> = {}): JoinGroupRequest {
  return {
    groupId: GROUP, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId, groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'RoundRobinAssigner', metadata: subscription(['t']) }], reason: null, ...over,
  };
}

function assignmentBytes(partitions: number[], userData: Buffer | null = null): Buffer {
  const w = new Writer(64);
  w.int16(0);
  writeConsumerProtocolAssignment(w, 0, { assignedPartitions: [{ topic: 't', partitions }], userData });
  return w.toBuffer();
}

function partitionsOf(assignment: Buffer): number[] {
  const r = new Reader(assignment);
  const v = r.int16();
  return readConsumerProtocolAssignment(r, v).assignedPartitions.flatMap((tp) => tp.partitions).sort((a, b) => a - b);
}

/** A classic member as kafkajs behaves: eager (owns nothing when it rejoins). */
class ClassicConsumer {
  generation = -1;
  partitions: number[] = [];
  /** User data the leader puts in its assignment (librdkafka's leader echoes a sticky member's). */
  userData: Buffer | null = null;
  constructor(readonly h: ConsumerHarness, public memberId = '') {}

  async join(): Promise<number> {
    let r = await this.h.coord.joinGroup(jc, joinReq(this.memberId));
    if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      this.memberId = r.memberId;
      // A classic group answers after its (zero) initial rebalance delay: a timer of the manual clock.
      const pending = this.h.coord.joinGroup(jc, joinReq(this.memberId));
      await this.h.advance(0);
      r = await pending;
    }
    if (r.errorCode !== ErrorCode.NONE) return r.errorCode;
    this.generation = r.generationId;
    const leader = r.leader === this.memberId;
    const s = await this.h.coord.syncGroup({
      groupId: GROUP, generationId: this.generation, memberId: this.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'RoundRobinAssigner',
      assignments: leader ? [{ memberId: this.memberId, assignment: assignmentBytes([0, 1, 2, 3, 4, 5], this.userData) }] : [],
    });
    if (s.errorCode !== ErrorCode.NONE) return s.errorCode;
    this.partitions = partitionsOf(s.assignment);
    return ErrorCode.NONE;
  }

  /** A heartbeat; on REBALANCE_IN_PROGRESS it revokes everything and rejoins, as an eager client does. */
  async beat(): Promise<number> {
    const code = await this.h.coord.heartbeat({ groupId: GROUP, memberId: this.memberId, groupInstanceId: null, generationId: this.generation });
    if (code === ErrorCode.REBALANCE_IN_PROGRESS || code === ErrorCode.ILLEGAL_GENERATION) {
      this.partitions = [];
      return this.join();
    }
    return code;
  }
}

async function stableClassicGroup(h: ConsumerHarness): Promise<ClassicConsumer> {
  const k = new ClassicConsumer(h);
  assert.is(await k.join(), ErrorCode.NONE);
  assert.equal(k.partitions, [0, 1, 2, 3, 4, 5]);
  assert.equal((await h.coord.listGroups([], [])).map((g) => [g.groupType, g.groupState]), [['classic', 'Stable']]);
  return k;
}

test('a consumer-protocol member joining a Stable classic group upgrades it; the classic member keeps what the target leaves it', async () => {
  const h = await consumerHarness();
  const k = await stableClassicGroup(h);
  const c = new SimConsumer(h, 'kip848');
  const r = await c.join();
  assert.is(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
  assert.equal(c.partitions(), [], 'the classic member still owns everything');
  assert.equal((await h.coord.listGroups([], [])).map((g) => g.groupType), ['consumer']);
  const d = await h.coord.consumerGroupDescribe(GROUP, null);
  assert.equal(d.members.map((m) => [m.memberId === k.memberId ? 'classic' : m.memberId, m.memberType]).sort(), [['classic', 0], ['kip848', 1]]);
  for (let i = 0; i < 3; i++) {
    assert.is(await k.beat(), ErrorCode.NONE);
    await c.beat();
  }
  assert.is(k.partitions.length, 3);
  assert.is(c.partitions().length, 3);
  assert.equal([...k.partitions, ...c.partitions()].sort(), [0, 1, 2, 3, 4, 5], 'no partition twice, none missing');
  assert.is((await h.coord.consumerGroupDescribe(GROUP, null)).groupState, 'Stable');
});

test('a classic member joins an existing consumer group: MEMBER_ID_REQUIRED, then a generation and an assignment', async () => {
  const h = await consumerHarness();
  const c = new SimConsumer(h, 'kip848');
  await c.join();
  const k = new ClassicConsumer(h);
  assert.is(await k.join(), ErrorCode.NONE);
  assert.equal(k.partitions, [], 'its partitions are still the other member\'s');
  for (let i = 0; i < 3; i++) {
    await c.beat();
    assert.is(await k.beat(), ErrorCode.NONE);
  }
  assert.equal([k.partitions.length, c.partitions().length], [3, 3]);
  assert.equal([...k.partitions, ...c.partitions()].sort(), [0, 1, 2, 3, 4, 5]);
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: k.memberId, groupInstanceId: null, generationId: k.generation + 1 }), ErrorCode.ILLEGAL_GENERATION);
  const commit = await h.coord.commitOffsets({ groupId: GROUP, generationId: k.generation, memberId: k.memberId, groupInstanceId: null, retentionTimeMs: -1, topics: [{ name: 't', partitions: [{ partitionIndex: k.partitions[0], committedOffset: 3n, committedLeaderEpoch: -1, committedMetadata: '' }] }] }, 8);
  assert.is(commit[0].partitions[0].errorCode, ErrorCode.NONE, 'a classic member commits with its generation at v8');
});

test('a classic member\'s own session timeout removes it; LeaveGroup removes it at once', async () => {
  const h = await consumerHarness();
  const c = new SimConsumer(h, 'kip848');
  await c.join();
  const k1 = new ClassicConsumer(h);
  const k2 = new ClassicConsumer(h);
  await k1.join();
  await k2.join();
  await converge([c]);
  const left = await h.coord.leaveGroup(GROUP, [{ memberId: k2.memberId, groupInstanceId: null }, { memberId: 'nobody', groupInstanceId: null }]);
  assert.equal(left.members.map((m) => m.errorCode), [ErrorCode.NONE, ErrorCode.UNKNOWN_MEMBER_ID]);
  await h.advance(8000);
  await c.beat();
  await h.advance(3000);
  const d = await h.coord.consumerGroupDescribe(GROUP, null);
  assert.equal(d.members.map((m) => m.memberId), ['kip848'], 'k1 gone after its 10 s session timeout, k2 after LeaveGroup');
  await converge([c]);
  assert.equal(c.partitions(), [0, 1, 2, 3, 4, 5]);
});

test('a classic member asked to rejoin that does not, or that joins and does not sync, is removed after its rebalance timeout', async () => {
  const h = await consumerHarness();
  const c = new SimConsumer(h, 'kip848');
  await c.join();
  const k = new ClassicConsumer(h);
  assert.is(await k.join(), ErrorCode.NONE);
  const late = new SimConsumer(h, 'late');
  await late.join();
  await c.beat();
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: k.memberId, groupInstanceId: null, generationId: k.generation }), ErrorCode.REBALANCE_IN_PROGRESS);
  await h.advance(5000);
  await c.beat();
  await late.beat();
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: k.memberId, groupInstanceId: null, generationId: k.generation }), ErrorCode.REBALANCE_IN_PROGRESS, 'asking again does not restart the join timeout');
  await h.advance(5001);
  assert.equal((await h.coord.consumerGroupDescribe(GROUP, null)).members.map((m) => m.memberId).sort(), ['kip848', 'late'], 'removed 10 s (its rebalance timeout) after the first ask');
  let r = await h.coord.joinGroup(jc, joinReq(''));
  r = await h.coord.joinGroup(jc, joinReq(r.memberId));
  assert.is(r.errorCode, ErrorCode.NONE);
  await c.beat();
  await late.beat();
  await h.advance(10_001);
  assert.not.ok((await h.coord.consumerGroupDescribe(GROUP, null)).members.some((m) => m.memberId === r.memberId), 'joined without syncing: removed');
});

test('after a restart, classic members of a consumer group keep their generation and session timeout', async () => {
  const h = await consumerHarness();
  const k = await stableClassicGroup(h);
  const c = new SimConsumer(h, 'kip848');
  await c.join();
  for (let i = 0; i < 3; i++) {
    await k.beat();
    await c.beat();
  }
  const h2 = await h.restart();
  assert.is(await h2.coord.heartbeat({ groupId: GROUP, memberId: k.memberId, groupInstanceId: null, generationId: k.generation }), ErrorCode.NONE);
  const d = await h2.coord.consumerGroupDescribe(GROUP, null);
  assert.equal(d.members.find((m) => m.memberId === k.memberId)!.memberType, 0);
  await h2.advance(11000);
  assert.equal((await h2.coord.consumerGroupDescribe(GROUP, null)).members.map((m) => m.memberId), ['kip848'], 'the classic member\'s 10 s session expired, not the 45 s one');
});

test('when the last consumer-protocol member leaves, the group becomes classic again and its classic member rejoins the classic way', async () => {
  const h = await consumerHarness();
  const k = await stableClassicGroup(h);
  const c = new SimConsumer(h, 'kip848');
  await c.join();
  for (let i = 0; i < 3; i++) {
    await k.beat();
    await c.beat();
  }
  assert.is(k.partitions.length, 3);
  await c.leave();
  await h.advance(0);
  const listed = await h.coord.listGroups([], []);
  assert.equal(listed.map((g) => [g.groupType, g.groupState]), [['classic', 'PreparingRebalance']]);
  const code = await h.coord.heartbeat({ groupId: GROUP, memberId: k.memberId, groupInstanceId: null, generationId: k.generation });
  assert.ok(code === ErrorCode.REBALANCE_IN_PROGRESS || code === ErrorCode.ILLEGAL_GENERATION, `asked to rejoin (${code})`);
  k.partitions = [];
  const pending = h.coord.joinGroup(jc, joinReq(k.memberId));
  await h.advance(0);
  const j = await pending;
  assert.is(j.errorCode, ErrorCode.NONE);
  assert.is(j.leader, k.memberId, 'a classic leader again');
  const s = await h.coord.syncGroup({ groupId: GROUP, generationId: j.generationId, memberId: k.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'RoundRobinAssigner', assignments: [{ memberId: k.memberId, assignment: assignmentBytes([0, 1, 2, 3, 4, 5]) }] });
  assert.is(s.errorCode, ErrorCode.NONE);
  assert.equal((await h.coord.listGroups([], [])).map((g) => [g.groupType, g.groupState]), [['classic', 'Stable']]);
  const h2 = await h.restart();
  assert.equal((await h2.coord.listGroups([], [])).map((g) => [g.groupType, g.groupState]), [['classic', 'Stable']], 'the same after a restart');
  assert.is((await h2.coord.consumerGroupDescribe(GROUP, null)).errorMessage, `Group ${GROUP} is not a consumer group.`);
});

test('with group.consumer.migration.policy=upgrade the group stays a consumer group of classic members', async () => {
  const h = await consumerHarness({ migrationPolicy: 'upgrade' });
  const k = await stableClassicGroup(h);
  const c = new SimConsumer(h, 'kip848');
  await c.join();
  await c.leave();
  assert.equal((await h.coord.listGroups([], [])).map((g) => g.groupType), ['consumer']);
  assert.is(await k.beat(), ErrorCode.NONE);
  assert.is(k.partitions.length, 6);
});

test('with group.consumer.migration.policy=disabled a classic group with members is not upgraded', async () => {
  const h = await consumerHarness({ migrationPolicy: 'disabled' });
  await stableClassicGroup(h);
  const r = await new SimConsumer(h, 'kip848').join();
  assert.is(r.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  assert.is(r.errorMessage, `Cannot upgrade classic group ${GROUP} to consumer group because online upgrade is disabled.`);
});

test('user data in a classic assignment: not upgraded (Kafka\'s custom-assignor refusal), the group stays classic and Stable', async () => {
  const h = await consumerHarness({ migrationPolicy: 'bidirectional' });
  const k = new ClassicConsumer(h);
  k.userData = Buffer.from([0, 0, 0, 1]);
  assert.is(await k.join(), ErrorCode.NONE);
  const r = await new SimConsumer(h, 'kip848').join();
  assert.is(r.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  assert.is(r.errorMessage, `Cannot upgrade classic group ${GROUP} to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade.`);
  assert.equal((await h.coord.listGroups([], [])).map((g) => [g.groupType, g.groupState]), [['classic', 'Stable']]);
  assert.is(await k.beat(), ErrorCode.NONE);
});

test('a classic group in the middle of a rebalance is upgraded: a parked JoinGroup is answered REBALANCE_IN_PROGRESS and joins the consumer group', async () => {
  const h = await consumerHarness({ migrationPolicy: 'bidirectional' });
  const k = await stableClassicGroup(h);
  const second = new ClassicConsumer(h);
  const first = await h.coord.joinGroup(jc, joinReq(''));
  assert.is(first.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  second.memberId = first.memberId;
  // The group waits for k to rejoin: the new member's JoinGroup is parked.
  const parked = h.coord.joinGroup(jc, joinReq(second.memberId));
  assert.equal((await h.coord.listGroups([], [])).map((g) => g.groupState), ['PreparingRebalance']);
  const c = new SimConsumer(h, 'kip848');
  const r = await c.join();
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is((await parked).errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
  assert.equal((await h.coord.listGroups([], [])).map((g) => g.groupType), ['consumer']);
  // Both classic members reconcile inside the consumer group; every partition is owned once.
  for (let i = 0; i < 10; i++) {
    await c.beat();
    for (const m of [k, second]) await m.beat();
  }
  const owned = [...k.partitions, ...second.partitions, ...c.partitions()].sort((a, b) => a - b);
  assert.equal(owned, [0, 1, 2, 3, 4, 5]);
});

test.run();
