/**
 * Share group membership (KIP-932) on a manual clock: Kafka 4.4's epochs (a first join reaches 2
 * with nothing assigned until the share-partitions are initialised), the simple assignor (members
 * sharing a partition), assignment batching, fencing, leaving, session expiry, the records
 * replayed after a restart, and the refusals of a share group's id by the other group APIs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { GroupCoordinator, MemoryOffsetsTopic } from '../../src/coordinator/group/group-coordinator.js';
import { defaultGroupConfig } from '../../src/coordinator/group/group-config.js';
import { MemoryTopicView } from '../../src/coordinator/group/topic-view.js';
import { defaultShareGroupConfig } from '../../src/coordinator/share/share-config.js';
import { simpleAssign, ShareGroupMember } from '../../src/coordinator/group/share-group-manager.js';
import type { ShareGroupHeartbeatRequest } from '../../src/protocol/generated/messages/share-group-heartbeat-request.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { heartbeatReq } from './_consumer-harness.js';

const T = 'AQEBAQEBAQEBAQEBAQEBAQ';
const G = 'sg';

async function harness(topics = new MemoryTopicView().set('t', T, 2), offsets = new MemoryOffsetsTopic(), clock = new ManualClock()) {
  const config = defaultGroupConfig({ numPartitions: 3, share: defaultShareGroupConfig({ assignmentIntervalMs: 1000, sessionTimeoutMs: 45000 }) });
  const coord = new GroupCoordinator({ clock, logger: createLogger('silent'), config, topic: offsets, topics });
  await coord.ensureActive();
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setImmediate(r));
      await coord.idle();
    }
  };
  const hb = (over: Partial<ShareGroupHeartbeatRequest>) => coord.shareGroupHeartbeat({ clientId: 'c', clientHost: '/127.0.0.1' }, { groupId: G, memberId: 'm1', memberEpoch: 0, rackId: null, subscribedTopicNames: ['t'], ...over });
  return {
    coord, clock, topics, offsets, hb,
    async advance(ms: number) { await settle(); clock.advance(ms); await settle(); },
  };
}

const parts = (r: { assignment: { topicPartitions: { partitions: number[] }[] } | null }) => r.assignment?.topicPartitions.flatMap((t) => t.partitions) ?? null;

test('a first join reaches epoch 2 with nothing assigned; once initialised and past the batching interval the member gets every partition', async () => {
  const h = await harness();
  const j = await h.hb({});
  assert.equal([j.errorCode, j.memberEpoch, parts(j)], [0, 2, []]);
  await h.advance(0);
  const early = await h.hb({ memberEpoch: 2, subscribedTopicNames: null });
  assert.equal([early.memberEpoch, early.assignment], [2, null], 'within the batching interval: the old target');
  await h.advance(1000);
  const later = await h.hb({ memberEpoch: 2, subscribedTopicNames: null });
  assert.equal([later.memberEpoch, parts(later)], [3, [0, 1]]);
  const d = await h.coord.shareGroupDescribe(G, null);
  assert.equal([d.groupState, d.groupEpoch, d.assignmentEpoch, d.assignorName], ['Stable', 3, 3, 'simple']);
});

test('a changed subscription stops the old topic at once, within the batching interval (issue 23 item 5, as Kafka 4.4)', async () => {
  const U = 'AgICAgICAgICAgICAgICAg';
  const h = await harness(new MemoryTopicView().set('t', T, 2).set('u', U, 1));
  await h.hb({});
  await h.advance(1000);
  const on = await h.hb({ memberEpoch: 2, subscribedTopicNames: null });
  assert.equal(parts(on), [0, 1]);
  await h.advance(100);
  const moved = await h.hb({ memberEpoch: on.memberEpoch, subscribedTopicNames: ['u'] });
  assert.equal(parts(moved), [], 'nothing of t any more, and u is not initialised yet');
  // A heartbeat later (the default interval is 5 s, past the 1 s batching interval).
  await h.advance(1000);
  const later = await h.hb({ memberEpoch: moved.memberEpoch, subscribedTopicNames: null });
  assert.equal(later.assignment?.topicPartitions.map((t) => [t.topicId, t.partitions]) ?? [], [[U, [0]]], 'u once initialised, at the next heartbeat');
});

test('simple assignor: partitions split while there are enough, shared once members outnumber them', () => {
  const topics = new MemoryTopicView().set('t', T, 2);
  const member = (id: string) => Object.assign(new ShareGroupMember(id), { subscribedTopicNames: ['t'] });
  const two = simpleAssign([member('a'), member('b')], topics);
  assert.equal([...two].map(([id, a]) => [id, [...(a.get(T) ?? [])]]), [['a', [0]], ['b', [1]]]);
  const three = simpleAssign([member('a'), member('b'), member('c')], topics);
  assert.equal([...three].map(([id, a]) => [id, [...(a.get(T) ?? [])]]), [['a', [0]], ['b', [1]], ['c', [0]]]);
  const eligible = simpleAssign([member('a')], topics, (_t, p) => p === 1);
  assert.equal([...eligible.get('a')!.get(T)!], [1], 'only initialised share-partitions');
});

test('fencing, unknown members, leaving and session expiry', async () => {
  const h = await harness();
  await h.hb({});
  await h.advance(1000);
  const m1 = await h.hb({ memberEpoch: 2, subscribedTopicNames: null });
  const fenced = await h.hb({ memberEpoch: m1.memberEpoch + 1, subscribedTopicNames: null });
  assert.is(fenced.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
  assert.match(fenced.errorMessage!, /greater member epoch \(4\) than the one known by the group coordinator \(3\)/);
  assert.is((await h.hb({ memberId: 'nobody', memberEpoch: 3, subscribedTopicNames: null })).errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is((await h.hb({ memberId: '' })).errorCode, ErrorCode.INVALID_REQUEST);
  await h.hb({ memberId: 'm2' });
  const left = await h.hb({ memberId: 'm2', memberEpoch: -1, subscribedTopicNames: null });
  assert.equal([left.errorCode, left.memberEpoch], [0, -1]);
  await h.advance(45000);
  const d = await h.coord.shareGroupDescribe(G, null);
  assert.equal([d.groupState, d.members.length], ['Empty', 0], 'm1 stopped heartbeating: removed after the session timeout');
});

test('the group is rebuilt from its records after a restart; a share group\'s id is refused by the consumer and classic protocols', async () => {
  const offsets = new MemoryOffsetsTopic();
  const topics = new MemoryTopicView().set('t', T, 2);
  const clock = new ManualClock();
  const h = await harness(topics, offsets, clock);
  await h.hb({});
  await h.advance(1000);
  const m1 = await h.hb({ memberEpoch: 2, subscribedTopicNames: null });
  const before = await h.coord.shareGroupDescribe(G, null);
  await h.coord.shutdown();
  const h2 = await harness(topics, offsets, clock);
  const after = await h2.coord.shareGroupDescribe(G, null);
  assert.equal(after, before);
  const again = await h2.hb({ memberEpoch: m1.memberEpoch, subscribedTopicNames: null });
  assert.equal([again.errorCode, again.memberEpoch], [0, m1.memberEpoch]);
  const cg = await h2.coord.consumerGroupHeartbeat({ apiVersion: 1, clientId: 'c', clientHost: '/127.0.0.1' }, heartbeatReq({ groupId: G, memberId: 'x', rebalanceTimeoutMs: 30000, subscribedTopicNames: ['t'], topicPartitions: [] }));
  assert.equal([cg.errorCode, cg.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, `Group ${G} is not a consumer group.`]);
  const list = await h2.coord.listGroups([], ['share']);
  assert.equal(list.map((g) => [g.groupId, g.groupType, g.groupState]), [[G, 'share', 'Stable']]);
});

test.run();
