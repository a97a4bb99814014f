/**
 * The classic group protocol on a manual clock: every state transition, fencing error and
 * timeout of JoinGroup / SyncGroup / Heartbeat / LeaveGroup (behaviours.md J*, S*, H*, LG*).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { GROUP, harness, isSettled, jc, joinReq, memberId, stableSingle, startJoin, state, subscription, syncReq } from './_harness.js';

test('J1/J2: empty group id and session timeouts outside the configured range', async () => {
  const h = await harness();
  let r = await h.coord.joinGroup(jc(), joinReq({ groupId: '' }));
  assert.is(r.errorCode, ErrorCode.INVALID_GROUP_ID);
  r = await h.coord.joinGroup(jc(), joinReq({ sessionTimeoutMs: 5999, memberId: 'm' }));
  assert.is(r.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
  assert.is(r.memberId, 'm');
  assert.is(r.generationId, -1);
  r = await h.coord.joinGroup(jc(), joinReq({ sessionTimeoutMs: 1800001 }));
  assert.is(r.errorCode, ErrorCode.INVALID_SESSION_TIMEOUT);
  assert.is(await state(h), 'Dead', 'no group was left behind');
});

test('J3/J6: MEMBER_ID_REQUIRED hands out client-id-UUID; an unknown id on a missing group is UNKNOWN_MEMBER_ID', async () => {
  const h = await harness();
  const r = await h.coord.joinGroup(jc(5, 'my-client'), joinReq());
  assert.is(r.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  assert.match(r.memberId, /^my-client-[0-9a-f-]{36}$/);
  const other = await h.coord.joinGroup(jc(), joinReq({ groupId: 'other', memberId: 'nobody' }));
  assert.is(other.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('Empty → PreparingRebalance → CompletingRebalance → Stable; the leader gets the members', async () => {
  const h = await harness();
  const id = await memberId(h);
  assert.is(await state(h), 'Empty');
  const join = (await startJoin(h, { memberId: id })).response;
  assert.is(await state(h), 'PreparingRebalance');
  assert.not.ok(await isSettled(join), 'held until the initial rebalance delay (0) passes');
  await h.advance(0);
  const j = await join;
  assert.is(j.errorCode, 0);
  assert.is(j.generationId, 1);
  assert.is(j.leader, id);
  assert.is(j.protocolName, 'range');
  assert.is(j.protocolType, 'consumer');
  assert.equal(j.members.map((m) => m.memberId), [id]);
  assert.ok(j.members[0].metadata.equals(subscription(['t'])));
  assert.is(await state(h), 'CompletingRebalance');
  const s = await h.coord.syncGroup(syncReq({ memberId: id, assignments: [{ memberId: id, assignment: Buffer.from('A') }] }));
  assert.is(s.errorCode, 0);
  assert.is(s.assignment.toString(), 'A');
  assert.is(s.protocolName, 'range');
  assert.is(await state(h), 'Stable');
  // S8: a repeated sync in Stable answers the stored assignment at once.
  const again = await h.coord.syncGroup(syncReq({ memberId: id }));
  assert.is(again.assignment.toString(), 'A');
});

test('J4: v3 joins directly without MEMBER_ID_REQUIRED', async () => {
  const h = await harness();
  const join = (await startJoin(h, {}, 3)).response;
  await h.advance(0);
  const j = await join;
  assert.is(j.errorCode, 0);
  assert.is(j.generationId, 1);
  assert.ok(j.memberId.startsWith('client-'));
});

test('a second member triggers a rebalance: heartbeat 27, both rejoin, follower sync waits for the leader (S7)', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const b = await memberId(h, 'client-b');
  const joinB = (await startJoin(h, { memberId: b })).response;
  assert.is(await state(h), 'PreparingRebalance');
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: a, groupInstanceId: null, generationId: 1 }), ErrorCode.REBALANCE_IN_PROGRESS);
  assert.not.ok(await isSettled(joinB));
  const joinA = (await startJoin(h, { memberId: a })).response;
  const [ja, jb] = await Promise.all([joinA, joinB]);
  assert.is(ja.generationId, 2);
  assert.is(jb.generationId, 2);
  assert.is(ja.leader, a, 'the leader stays the leader');
  assert.is(ja.members.length, 2);
  assert.is(jb.members.length, 0, 'followers get no member list');
  const syncB = h.coord.syncGroup(syncReq({ memberId: b, generationId: 2 }));
  await h.settle();
  assert.not.ok(await isSettled(syncB), 'follower waits for the leader');
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: b, groupInstanceId: null, generationId: 2 }), 0, 'H2: CompletingRebalance heartbeats are fine');
  const sa = await h.coord.syncGroup(syncReq({ memberId: a, generationId: 2, assignments: [{ memberId: a, assignment: Buffer.from('A2') }] }));
  assert.is(sa.assignment.toString(), 'A2');
  const sb = await syncB;
  assert.is(sb.errorCode, 0);
  assert.is(sb.assignment.length, 0, 'a member missing from the leader map gets an empty assignment');
  assert.is(await state(h), 'Stable');
});

test('H3/H4, S2/S3/S5/S6: fencing errors', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const hb = (over: object) => h.coord.heartbeat({ groupId: GROUP, memberId: a, groupInstanceId: null, generationId: 1, ...over });
  assert.is(await hb({ groupId: 'none' }), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is(await hb({ memberId: 'stranger' }), ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is(await hb({ memberId: 'stranger', generationId: 7 }), ErrorCode.UNKNOWN_MEMBER_ID, 'member check comes first');
  assert.is(await hb({ generationId: 7 }), ErrorCode.ILLEGAL_GENERATION);
  assert.is(await hb({}), 0);
  assert.is((await h.coord.syncGroup(syncReq({ groupId: 'none', memberId: a }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is((await h.coord.syncGroup(syncReq({ memberId: 'stranger' }))).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is((await h.coord.syncGroup(syncReq({ memberId: a, generationId: 2 }))).errorCode, ErrorCode.ILLEGAL_GENERATION);
  assert.is((await h.coord.syncGroup(syncReq({ memberId: a, protocolName: 'roundrobin' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.is((await h.coord.syncGroup(syncReq({ memberId: a, protocolType: 'connect' }))).errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  // A new member makes the group PreparingRebalance: SyncGroup of the old generation member gives 27.
  const b = await memberId(h, 'b');
  void startJoin(h, { memberId: b });
  await h.settle();
  assert.is((await h.coord.syncGroup(syncReq({ memberId: a }))).errorCode, ErrorCode.REBALANCE_IN_PROGRESS);
});

test('J8/J9: inconsistent protocol type, no common protocol, empty protocol list', async () => {
  const h = await harness();
  await stableSingle(h);
  let r = await h.coord.joinGroup(jc(), joinReq({ protocolType: 'connect' }));
  assert.is(r.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  assert.is(r.memberId, '');
  r = await h.coord.joinGroup(jc(), joinReq({ protocols: [{ name: 'roundrobin', metadata: Buffer.alloc(0) }] }));
  assert.is(r.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  r = await h.coord.joinGroup(jc(), joinReq({ groupId: 'fresh', protocols: [] }));
  assert.is(r.errorCode, ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
});

test('protocol selection: most votes among the protocols every member supports', async () => {
  const h = await harness();
  const p = (names: string[]) => names.map((name) => ({ name, metadata: Buffer.from(name) }));
  const a = await memberId(h);
  const b = await memberId(h);
  const c = await memberId(h);
  const ja = (await startJoin(h, { memberId: a, protocols: p(['range', 'roundrobin', 'sticky']) })).response;
  const jb = (await startJoin(h, { memberId: b, protocols: p(['roundrobin', 'sticky']) })).response;
  const jcc = (await startJoin(h, { memberId: c, protocols: p(['sticky', 'roundrobin', 'range']) })).response;
  await h.advance(0); // b and c joined during the delay: it is extended once more (by 0 ms)
  await h.advance(0);
  const rs = await Promise.all([ja, jb, jcc]);
  // Candidates: roundrobin, sticky. Votes: a→roundrobin, b→roundrobin, c→sticky.
  for (const r of rs) assert.is(r.protocolName, 'roundrobin');
  assert.ok(rs[0].members.find((m) => m.memberId === b)!.metadata.equals(Buffer.from('roundrobin')));
});

test('initial rebalance delay: joins within the delay extend it, up to the rebalance timeout', async () => {
  const h = await harness({ initialRebalanceDelayMs: 3000 });
  const a = await memberId(h);
  const ja = (await startJoin(h, { memberId: a, rebalanceTimeoutMs: 10000 })).response;
  await h.advance(2000);
  const b = await memberId(h);
  const jb = (await startJoin(h, { memberId: b, rebalanceTimeoutMs: 10000 })).response;
  await h.advance(1000); // first delay over, a member was added: extend
  assert.not.ok(await isSettled(ja));
  await h.advance(2999);
  assert.not.ok(await isSettled(ja));
  await h.advance(1);
  const [ra, rb] = await Promise.all([ja, jb]);
  assert.is(ra.generationId, 1);
  assert.is(rb.generationId, 1);
  assert.is(ra.members.length, 2);
});

test('H7: a silent member is removed after its session timeout; the group rebalances', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const b = await memberId(h, 'b');
  const jb = (await startJoin(h, { memberId: b, sessionTimeoutMs: 6000 })).response;
  const ja = (await startJoin(h, { memberId: a })).response;
  await Promise.all([ja, jb]);
  await h.coord.syncGroup(syncReq({ memberId: a, generationId: 2, assignments: [] }));
  await h.coord.syncGroup(syncReq({ memberId: b, generationId: 2 }));
  // a keeps heartbeating, b goes silent.
  for (let t = 0; t < 6; t++) {
    await h.advance(1000);
    const code = await h.coord.heartbeat({ groupId: GROUP, memberId: a, groupInstanceId: null, generationId: 2 });
    if (t < 5) assert.is(code, 0, `heartbeat at ${t + 1}s`);
    else assert.is(code, ErrorCode.REBALANCE_IN_PROGRESS, 'b expired at 6s: rebalance');
  }
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: b, groupInstanceId: null, generationId: 2 }), ErrorCode.UNKNOWN_MEMBER_ID);
  const r = await (await startJoin(h, { memberId: a })).response;
  assert.is(r.generationId, 3);
  assert.equal(r.members.map((m) => m.memberId), [a]);
});

test('the last member timing out makes the group Empty in the next generation (written)', async () => {
  const h = await harness();
  await stableSingle(h);
  await h.advance(9999);
  assert.is(await state(h), 'Stable');
  await h.advance(1);
  assert.is(await state(h), 'Empty');
  const d = await h.coord.describeGroup(GROUP, false);
  assert.is(d.members.length, 0);
  const h2 = await h.restart();
  const listed = await h2.coord.listGroups([], []);
  assert.equal(listed, [{ groupId: GROUP, protocolType: 'consumer', groupState: 'Empty', groupType: 'classic' }]);
});

test('rebalance timeout: a member that does not rejoin is dropped when the join phase times out', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const b = await memberId(h, 'b');
  const jb = (await startJoin(h, { memberId: b, rebalanceTimeoutMs: 5000 })).response;
  // a heartbeats (learning of the rebalance) but never rejoins; the join phase lasts the
  // longest rebalance timeout of the members (a's 30 s).
  for (let t = 1; t <= 30; t++) {
    await h.advance(1000);
    if (t < 30) {
      assert.not.ok(await isSettled(jb), `still joining at ${t}s`);
      assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: a, groupInstanceId: null, generationId: 1 }), ErrorCode.REBALANCE_IN_PROGRESS);
    }
  }
  const r = await jb;
  assert.is(r.generationId, 2);
  assert.is(r.leader, b, 'a new leader among the members that joined');
  assert.equal(r.members.map((m) => m.memberId), [b]);
});

test('a MEMBER_ID_REQUIRED member that never comes back is dropped after its session timeout', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  await h.coord.joinGroup(jc(), joinReq({ sessionTimeoutMs: 6000 })); // pending, never rejoins
  const ja = (await startJoin(h, { memberId: a, protocols: [{ name: 'range', metadata: Buffer.from('changed') }] })).response;
  assert.not.ok(await isSettled(ja), 'the pending member holds the join phase');
  await h.advance(6000);
  const r = await ja;
  assert.is(r.generationId, 2);
  assert.is(r.members.length, 1);
});

test('pending sync: a member that never sends SyncGroup is removed after the rebalance timeout', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const b = await memberId(h, 'b');
  const jb = (await startJoin(h, { memberId: b, rebalanceTimeoutMs: 4000 })).response;
  const ja = (await startJoin(h, { memberId: a, rebalanceTimeoutMs: 4000 })).response;
  await Promise.all([ja, jb]);
  const sa = await h.coord.syncGroup(syncReq({ memberId: a, generationId: 2, assignments: [{ memberId: a, assignment: Buffer.from('x') }] }));
  assert.is(sa.errorCode, 0);
  await h.advance(3999);
  assert.is(await state(h), 'Stable');
  await h.advance(1);
  assert.is(await state(h), 'PreparingRebalance', 'b never synced: removed, rebalance');
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: b, groupInstanceId: null, generationId: 2 }), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('J14: a known member repeating its JoinGroup during CompletingRebalance gets the same generation', async () => {
  const h = await harness();
  const a = await memberId(h);
  const first = (await startJoin(h, { memberId: a })).response;
  await h.advance(0);
  const r1 = await first;
  const r2 = await h.coord.joinGroup(jc(), joinReq({ memberId: a }));
  assert.is(r2.generationId, r1.generationId);
  assert.is(r2.members.length, 1, 'the leader gets the member list again');
  assert.is(await state(h), 'CompletingRebalance');
});

test('a follower rejoining a Stable group with the same metadata gets the current generation, no rebalance', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const b = await memberId(h, 'b');
  const jb = (await startJoin(h, { memberId: b })).response;
  await Promise.all([jb, (await startJoin(h, { memberId: a })).response]);
  await h.coord.syncGroup(syncReq({ memberId: a, generationId: 2, assignments: [] }));
  await h.coord.syncGroup(syncReq({ memberId: b, generationId: 2 }));
  const again = await h.coord.joinGroup(jc(), joinReq({ memberId: b }));
  assert.is(again.generationId, 2);
  assert.is(await state(h), 'Stable');
  // The leader rejoining forces a rebalance (it may need a new assignment).
  void startJoin(h, { memberId: a });
  await h.settle();
  assert.is(await state(h), 'PreparingRebalance');
});

test('static membership: join without MEMBER_ID_REQUIRED, restart without rebalance, old id fenced (J5, J15)', async () => {
  const h = await harness();
  const join = (await startJoin(h, { groupInstanceId: 'host-1' })).response;
  await h.advance(0);
  const j = await join;
  assert.is(j.errorCode, 0);
  assert.match(j.memberId, /^host-1-/);
  const old = j.memberId;
  await h.coord.syncGroup(syncReq({ memberId: old, groupInstanceId: 'host-1', assignments: [{ memberId: old, assignment: Buffer.from('S') }] }));
  // The process restarts: same instance id, no member id.
  const again = await h.coord.joinGroup(jc(9), joinReq({ groupInstanceId: 'host-1' }));
  assert.is(again.errorCode, 0);
  assert.is(again.generationId, 1, 'no new generation');
  assert.is(again.skipAssignment, true, 'v9: the static leader keeps the current assignment');
  assert.is(again.members.length, 1);
  assert.is(await state(h), 'Stable');
  const fresh = again.memberId;
  assert.is.not(fresh, old);
  const s = await h.coord.syncGroup(syncReq({ memberId: fresh, groupInstanceId: 'host-1' }));
  assert.is(s.assignment.toString(), 'S', 'the instance keeps its assignment');
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: old, groupInstanceId: 'host-1', generationId: 1 }), ErrorCode.FENCED_INSTANCE_ID);
  const stale = await h.coord.joinGroup(jc(), joinReq({ memberId: old, groupInstanceId: 'host-1' }));
  assert.is(stale.errorCode, ErrorCode.FENCED_INSTANCE_ID);
  // Restarted state is durable: replay gives the new member id.
  const h2 = await h.restart();
  assert.is(await h2.coord.heartbeat({ groupId: GROUP, memberId: fresh, groupInstanceId: 'host-1', generationId: 1 }), 0);
});

test('static members that do not rejoin are kept through a rebalance until their session times out', async () => {
  const h = await harness();
  const js = (await startJoin(h, { groupInstanceId: 'host-1', sessionTimeoutMs: 20000, rebalanceTimeoutMs: 5000 })).response;
  await h.advance(0);
  const s = (await js).memberId;
  await h.coord.syncGroup(syncReq({ memberId: s, groupInstanceId: 'host-1', assignments: [] }));
  const d = await memberId(h, 'dyn');
  const jd = (await startJoin(h, { memberId: d, rebalanceTimeoutMs: 5000 })).response;
  await h.advance(5000);
  const r = await jd;
  assert.is(r.generationId, 2);
  assert.is(r.leader, d);
  assert.equal(r.members.map((m) => m.memberId).sort(), [d, s].sort(), 'the static member is still in the group');
});

test('LeaveGroup: unknown members 25, fenced instance 82, leaving members trigger a rebalance (LG1, LG4, LG5)', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  let r = await h.coord.leaveGroup(GROUP, [{ memberId: 'nobody', groupInstanceId: null }, { memberId: 'x', groupInstanceId: 'inst' }]);
  assert.is(r.errorCode, 0);
  assert.equal(r.members.map((m) => m.errorCode), [ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.UNKNOWN_MEMBER_ID]);
  r = await h.coord.leaveGroup('missing', [{ memberId: a, groupInstanceId: null }]);
  assert.is(r.members[0].errorCode, ErrorCode.UNKNOWN_MEMBER_ID, 'LG3');
  r = await h.coord.leaveGroup(GROUP, [{ memberId: a, groupInstanceId: null }]);
  assert.is(r.members[0].errorCode, 0);
  assert.is(await state(h), 'Empty', 'the last member leaving empties the group');
  const d = await h.coord.describeGroup(GROUP, false);
  assert.is(d.members.length, 0);

  // Static: the wrong member id for an instance is fenced; member id "" removes it (admin).
  const js = (await startJoin(h, { groupInstanceId: 'inst' })).response;
  await h.advance(0);
  const s = (await js).memberId;
  r = await h.coord.leaveGroup(GROUP, [{ memberId: 'wrong', groupInstanceId: 'inst' }]);
  assert.is(r.members[0].errorCode, ErrorCode.FENCED_INSTANCE_ID);
  r = await h.coord.leaveGroup(GROUP, [{ memberId: '', groupInstanceId: 'inst' }]);
  assert.is(r.members[0].errorCode, 0);
  assert.is(await h.coord.heartbeat({ groupId: GROUP, memberId: s, groupInstanceId: 'inst', generationId: 2 }), ErrorCode.UNKNOWN_MEMBER_ID);
});

test('a member leaving during a rebalance completes the join phase for the others', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const b = await memberId(h, 'b');
  const jb = (await startJoin(h, { memberId: b })).response;
  await h.coord.leaveGroup(GROUP, [{ memberId: a, groupInstanceId: null }]);
  const r = await jb;
  assert.is(r.generationId, 2);
  assert.is(r.leader, b);
});

test('J13: group.max.size', async () => {
  const h = await harness({ maxSize: 1 });
  await stableSingle(h);
  const r = await h.coord.joinGroup(jc(3), joinReq());
  assert.is(r.errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
});

test('DescribeGroups and ListGroups (G1-G3)', async () => {
  const h = await harness();
  const a = await stableSingle(h);
  const d = await h.coord.describeGroup(GROUP, true);
  assert.is(d.groupState, 'Stable');
  assert.is(d.protocolData, 'range');
  assert.is(d.members[0].memberId, a);
  assert.is(d.members[0].clientHost, '/127.0.0.1');
  assert.is(d.members[0].memberAssignment.toString(), 'A');
  assert.ok(d.members[0].memberMetadata.equals(subscription(['t'])));
  assert.is(d.authorizedOperations, (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11), "READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS (Kafka 4.4: 3400)");
  const unknown = await h.coord.describeGroup('nope', false);
  assert.equal([unknown.errorCode, unknown.groupState, unknown.members.length, unknown.authorizedOperations], [0, 'Dead', 0, -2147483648]);
  const b = await memberId(h, 'b');
  void startJoin(h, { memberId: b });
  const preparing = await h.coord.describeGroup(GROUP, false);
  assert.is(preparing.groupState, 'PreparingRebalance');
  assert.is(preparing.protocolData, '');
  // Outside Stable no metadata; the assignment the member still holds is shown (Kafka 4.4's
  // describeNoMetadata, seen by the probe describe-groups/v5-preparing-rebalance).
  const holder = preparing.members.find((m) => m.memberAssignment.length > 0)!;
  assert.is(holder.memberAssignment.toString(), 'A');
  assert.ok(preparing.members.every((m) => m.memberMetadata.length === 0), 'no metadata outside Stable');
  assert.is((await h.coord.listGroups(['preparingrebalance'], [])).length, 1, 'case-insensitive state filter');
  assert.is((await h.coord.listGroups(['stable'], [])).length, 0);
  assert.is((await h.coord.listGroups(['NoSuchState'], [])).length, 0);
  assert.is((await h.coord.listGroups([], ['Classic'])).length, 1);
  assert.is((await h.coord.listGroups([], ['consumer'])).length, 0);
});

test('shutdown answers parked JoinGroup requests with NOT_COORDINATOR', async () => {
  const h = await harness({ initialRebalanceDelayMs: 3000 });
  const a = await memberId(h);
  const join = (await startJoin(h, { memberId: a })).response;
  await h.coord.shutdown();
  const r = await join;
  assert.is(r.errorCode, ErrorCode.NOT_COORDINATOR);
  try {
    await h.coord.heartbeat({ groupId: GROUP, memberId: a, groupInstanceId: null, generationId: 1 });
    assert.unreachable();
  } catch (err) {
    assert.is((err as { errorCode: number }).errorCode, ErrorCode.NOT_COORDINATOR);
  }
});


test('the only member leaves during the initial delay: the next member may join (franz-go TestTxnEtl)', async () => {
  const h = await harness({ initialRebalanceDelayMs: 3000 });
  const a = await memberId(h);
  const joinA = (await startJoin(h, { memberId: a })).response;
  assert.is(await state(h), 'PreparingRebalance');
  const left = await h.coord.leaveGroup(GROUP, [{ memberId: a, groupInstanceId: null }]);
  assert.is(left.members[0].errorCode, 0);
  assert.is((await joinA).errorCode, ErrorCode.UNKNOWN_MEMBER_ID, 'the leaving member is answered');
  assert.is(await state(h), 'PreparingRebalance', 'the initial delay still runs, as on Kafka');
  // Kafka counts each protocol's members against numMembers() = 0: any protocol qualifies.
  const b = await memberId(h, 'client-b');
  const joinB = (await startJoin(h, { memberId: b, protocols: [{ name: 'cooperative-sticky', metadata: subscription(['t']) }] })).response;
  await h.advance(3000);
  await h.advance(3000);
  const jb = await joinB;
  assert.is(jb.errorCode, 0);
  assert.is(jb.protocolName, 'cooperative-sticky');
  assert.is(jb.leader, b);
  // SyncGroup compares protocol type and name only when both sides are set (isProtocolInconsistent).
  const s = await h.coord.syncGroup(syncReq({ memberId: b, generationId: jb.generationId, protocolType: null, protocolName: null, assignments: [] }));
  assert.is(s.errorCode, 0);
});

test.run();
