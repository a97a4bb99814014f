/**
 * Probes: KIP-848 consumer groups. ConsumerGroupHeartbeat (joins by topic names and by regex,
 * heartbeats, leaves, static members, Kafka's validation and errors) and ConsumerGroupDescribe
 * (consumer, classic and unknown groups), plus the member-epoch checks of OffsetCommit v9 /
 * OffsetFetch v9 and DescribeGroups / ListGroups on a consumer group. Each probe uses a group of
 * its own (`pcg-<id>`); member ids are the probe's own (v1 members make them).
 */
import { coordinatorsReady, createTopic, joinAlone } from './fixtures.js';
import { sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const TOPIC = 'pcg-topic';
const topicReady = (ctx: ProbeCtx) => ctx.once('consumer-group-topic', async () => {
  await createTopic(ctx, TOPIC, 3);
  await groupCoordinatorSees(ctx);
});

/**
 * Kafka's group coordinator reads topics from its own metadata image, which can trail Metadata on
 * a loaded machine: a first join then gets an empty assignment. A scratch member heartbeats until
 * it is assigned the topic's partitions, then leaves, so every probe starts from the same view.
 */
async function groupCoordinatorSees(ctx: ProbeCtx): Promise<void> {
  const g = 'pcg-warm-up';
  let epoch = 0;
  await ctx.waitFor(`${g}: the group coordinator assigns ${TOPIC}`, async () => {
    const r = await ctx.call(68, 1, epoch === 0 ? joinBody(g, 'pcg-warm-up-member') : { groupId: g, memberId: 'pcg-warm-up-member', memberEpoch: epoch });
    if (r.errorCode !== 0) return false;
    epoch = r.memberEpoch;
    const d = await ctx.call(69, 1, { groupIds: [g], includeAuthorizedOperations: false });
    const parts = d.groups[0]?.members[0]?.assignment?.topicPartitions ?? [];
    return parts.reduce((n: number, tp: { partitions: number[] }) => n + tp.partitions.length, 0) === 3;
  }, 30_000);
  await ctx.call(68, 1, { groupId: g, memberId: 'pcg-warm-up-member', memberEpoch: -1 });
}

interface Joined {
  memberId: string;
  memberEpoch: number;
}

type Setup = 'none' | 'joined' | 'static' | 'static-left' | 'classic' | 'left';

/** The full first heartbeat of a member subscribing to the probe topic. */
function joinBody(group: string, memberId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { groupId: group, memberId, memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: [TOPIC], topicPartitions: [], ...over };
}

async function join(ctx: ProbeCtx, group: string, memberId: string, instanceId: string | null = null): Promise<Joined> {
  const r = await ctx.call(68, 1, joinBody(group, memberId, { instanceId }));
  if (r.errorCode !== 0) throw new Error(`ConsumerGroupHeartbeat join ${group}: error ${r.errorCode} ${r.errorMessage ?? ''}`);
  return { memberId, memberEpoch: r.memberEpoch };
}

/** Member ids a v0 coordinator makes are random (22 base64url characters). */
function generatedMemberId(j: Json): Json {
  const body = j as Record<string, Json>;
  if (typeof body.memberId === 'string' && body.memberId.length === 22) body.memberId = '<generated-member-id>';
  return j;
}

function p(api: number, id: string, version: number, about: string, setup: Setup, body: (ctx: ProbeCtx, group: string, m: Joined) => Record<string, unknown>, extra: Partial<Probe> = {}): Probe {
  const group = `pcg-${id}`;
  return {
    id: `${api === 68 ? 'cg-heartbeat' : api === 69 ? 'cg-describe' : `cg-api-${api}`}/${id}`,
    api,
    version,
    about,
    setup: async (ctx) => {
      await coordinatorsReady(ctx);
      await topicReady(ctx);
      if (setup === 'joined' || setup === 'left') ctx.state[group] = await join(ctx, group, 'pcg-member-a');
      if (setup === 'static' || setup === 'static-left') ctx.state[group] = await join(ctx, group, 'pcg-member-a', 'pcg-instance');
      if (setup === 'static-left') await ctx.call(68, 1, { groupId: group, memberId: 'pcg-member-a', memberEpoch: -2, instanceId: 'pcg-instance' });
      if (setup === 'left') await ctx.call(68, 1, { groupId: group, memberId: 'pcg-member-a', memberEpoch: -1 });
      if (setup === 'classic') await joinAlone(ctx, group, { topics: [TOPIC] });
    },
    body: (ctx) => body(ctx, group, ctx.state[group] ?? { memberId: '', memberEpoch: 0 }),
    ...extra,
  };
}

function heartbeatProbes(): Probe[] {
  const hb = (id: string, version: number, about: string, setup: Setup, body: (ctx: ProbeCtx, group: string, m: Joined) => Record<string, unknown>, extra: Partial<Probe> = {}) => p(68, id, version, about, setup, body, extra);
  return [
    hb('v0-join', 0, 'v0 join without a member id: the coordinator makes one', 'none', (_c, g) => joinBody(g, ''), { normalise: generatedMemberId }),
    hb('v1-join', 1, 'v1 join by topic names: epoch 1, every partition, the heartbeat interval', 'none', (_c, g) => joinBody(g, 'pcg-member-a')),
    hb('v1-join-regex', 1, 'v1 join by regular expression', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { subscribedTopicNames: null, subscribedTopicRegex: 'pcg-t.*' })),
    hb('v1-join-assignor-range', 1, 'v1 join asking for the range assignor', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { serverAssignor: 'range' })),
    hb('v1-second-member', 1, 'a second member joins with the same topics', 'joined', (_c, g) => joinBody(g, 'pcg-member-b')),
    hb('v1-regex-second-member', 1, 'a second member joins with a regex another member already uses', 'none', (_c, g) => joinBody(g, 'pcg-member-b', { subscribedTopicNames: null, subscribedTopicRegex: 'pcg-t.*' }), {
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await topicReady(ctx);
        const g = 'pcg-v1-regex-second-member';
        let epoch = (await ctx.call(68, 1, joinBody(g, 'pcg-member-a', { subscribedTopicNames: null, subscribedTopicRegex: 'pcg-t.*' }))).memberEpoch;
        // The member heartbeats until the coordinator has resolved its regex and assigned it the topic.
        await ctx.waitFor(`${g}: regex resolved`, async () => {
          const r = await ctx.call(68, 1, { groupId: g, memberId: 'pcg-member-a', memberEpoch: epoch });
          epoch = r.memberEpoch;
          const d = await ctx.call(69, 1, { groupIds: [g], includeAuthorizedOperations: false });
          return d.groups[0].members[0]?.assignment?.topicPartitions?.length === 1;
        });
      },
    }),
    hb('v1-heartbeat', 1, 'a heartbeat at the member epoch, nothing changed', 'joined', (_c, g, m) => ({ groupId: g, memberId: m.memberId, memberEpoch: m.memberEpoch })),
    hb('v1-heartbeat-full', 1, 'a full heartbeat (every field) at the member epoch, owning nothing yet', 'joined', (_c, g, m) => ({
      groupId: g, memberId: m.memberId, memberEpoch: m.memberEpoch, rebalanceTimeoutMs: 300_000, subscribedTopicNames: [TOPIC], topicPartitions: [],
    })),
    hb('v1-rejoin-epoch-0', 1, 'a known member rejoins with epoch 0', 'joined', (_c, g, m) => joinBody(g, m.memberId)),
    hb('v1-fenced-epoch', 1, 'an epoch ahead of the member\'s: FENCED_MEMBER_EPOCH', 'joined', (_c, g, m) => ({ groupId: g, memberId: m.memberId, memberEpoch: m.memberEpoch + 5 })),
    hb('v1-unknown-member', 1, 'an unknown member of an existing group: UNKNOWN_MEMBER_ID', 'joined', (_c, g) => ({ groupId: g, memberId: 'pcg-nobody', memberEpoch: 1 })),
    hb('v1-unknown-group', 1, 'a heartbeat to a group that does not exist', 'none', (_c, g) => ({ groupId: g, memberId: 'pcg-nobody', memberEpoch: 1 })),
    hb('v1-leave', 1, 'leaving with epoch -1', 'joined', (_c, g, m) => ({ groupId: g, memberId: m.memberId, memberEpoch: -1 })),
    hb('v1-leave-unknown-group', 1, 'leaving a group that does not exist', 'none', (_c, g) => ({ groupId: g, memberId: 'pcg-nobody', memberEpoch: -1 })),
    hb('v1-static-leave', 1, 'a static member leaving for a while (epoch -2)', 'static', (_c, g, m) => ({ groupId: g, memberId: m.memberId, memberEpoch: -2, instanceId: 'pcg-instance' })),
    hb('v1-static-unreleased', 1, 'another member with a static member\'s instance id: UNRELEASED_INSTANCE_ID', 'static', (_c, g) => joinBody(g, 'pcg-member-b', { instanceId: 'pcg-instance' })),
    hb('v1-static-replace', 1, 'a new incarnation of a static member that left with -2 takes over', 'static-left', (_c, g) => joinBody(g, 'pcg-member-b', { instanceId: 'pcg-instance' })),
    hb('v1-static-fenced', 1, 'the old incarnation after the replacement: FENCED_INSTANCE_ID', 'static-left', (_c, g, m) => ({ groupId: g, memberId: m.memberId, memberEpoch: m.memberEpoch, instanceId: 'pcg-instance' }), {
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await topicReady(ctx);
        const g = 'pcg-v1-static-fenced';
        ctx.state[g] = await join(ctx, g, 'pcg-member-a', 'pcg-instance');
        await ctx.call(68, 1, { groupId: g, memberId: 'pcg-member-a', memberEpoch: -2, instanceId: 'pcg-instance' });
        await join(ctx, g, 'pcg-member-b', 'pcg-instance');
      },
    }),
    hb('v1-left-member', 1, 'a member that left heartbeats again', 'left', (_c, g, m) => ({ groupId: g, memberId: m.memberId, memberEpoch: m.memberEpoch })),
    hb('v1-classic-group', 1, 'joining a classic group that has members', 'classic', (_c, g) => joinBody(g, 'pcg-member-a')),
    ...classicUpgradeProbes(hb),
    hb('v1-empty-member-id', 1, 'v1 join with an empty member id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, '')),
    hb('v1-empty-group-id', 1, 'empty group id: INVALID_REQUEST', 'none', () => joinBody('', 'pcg-member-a')),
    hb('v1-empty-instance-id', 1, 'empty instance id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { instanceId: '' })),
    hb('v1-empty-rack-id', 1, 'empty rack id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { rackId: '' })),
    hb('v1-no-rebalance-timeout', 1, 'join without a rebalance timeout: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { rebalanceTimeoutMs: -1 })),
    hb('v1-owned-on-join', 1, 'join with null TopicPartitions: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { topicPartitions: null })),
    hb('v1-no-subscription', 1, 'join without names or regex: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { subscribedTopicNames: null })),
    hb('v1-empty-subscription', 1, 'join with an empty topic list (accepted: a member without topics)', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { subscribedTopicNames: [] })),
    hb('v1-static-leave-no-instance', 1, 'epoch -2 without an instance id: INVALID_REQUEST', 'none', (_c, g) => ({ groupId: g, memberId: 'pcg-member-a', memberEpoch: -2 })),
    hb('v1-epoch-minus-3', 1, 'epoch -3: INVALID_REQUEST', 'none', (_c, g) => ({ groupId: g, memberId: 'pcg-member-a', memberEpoch: -3 })),
    hb('v1-unsupported-assignor', 1, 'an unknown server assignor: UNSUPPORTED_ASSIGNOR', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { serverAssignor: 'sticky' })),
    hb('v1-regex-lookahead', 1, 'a regex RE2/J refuses (lookahead): INVALID_REGULAR_EXPRESSION', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { subscribedTopicNames: null, subscribedTopicRegex: '(?=pcg).*' })),
    hb('v1-regex-unbalanced', 1, 'an unbalanced regex: INVALID_REGULAR_EXPRESSION', 'none', (_c, g) => joinBody(g, 'pcg-member-a', { subscribedTopicNames: null, subscribedTopicRegex: 'pcg-(' })),
  ];
}

/** A ConsumerProtocolAssignment v0 of the probe topic's partition 0, with user data or without (null). */
function classicAssignment(userData: Buffer | null): Buffer {
  const name = Buffer.from(TOPIC);
  const head = Buffer.alloc(2 + 4 + 2 + name.length + 4 + 4 + 4);
  let o = head.writeInt16BE(0, 0);
  o = head.writeInt32BE(1, o);
  o = head.writeInt16BE(name.length, o);
  o += name.copy(head, o);
  o = head.writeInt32BE(1, o);
  o = head.writeInt32BE(0, o);
  head.writeInt32BE(userData ? userData.length : -1, o);
  return userData ? Buffer.concat([head, userData]) : head;
}

/**
 * Kafka's online upgrade of a classic group with members (validateOnlineUpgrade, then
 * ConsumerGroup.fromClassicGroup): refused for user data in a member's assignment (a custom
 * assignor's, or what librdkafka's leader echoes back from a sticky member's subscription) and
 * for another protocol type; a group still completing its rebalance (a member that joined and
 * never synced) is upgraded.
 */
function classicUpgradeProbes(hb: (id: string, version: number, about: string, setup: Setup, body: (ctx: ProbeCtx, group: string, m: Joined) => Record<string, unknown>, extra: Partial<Probe>) => Probe): Probe[] {
  const classic = (id: string, about: string, prepare: (ctx: ProbeCtx, group: string) => Promise<void>) =>
    hb(id, 1, about, 'none', (_c, g) => joinBody(g, 'pcg-member-a'), {
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await topicReady(ctx);
        await prepare(ctx, `pcg-${id}`);
      },
    });
  const synced = (userData: Buffer | null) => async (ctx: ProbeCtx, group: string) => {
    const m = await joinAlone(ctx, group, { topics: [TOPIC], sync: false });
    const s = await ctx.call(14, 3, { groupId: group, generationId: m.generationId, memberId: m.memberId, groupInstanceId: null, assignments: [{ memberId: m.memberId, assignment: classicAssignment(userData) }] });
    if (s.errorCode !== 0) throw new Error(`SyncGroup ${group}: error ${s.errorCode}`);
  };
  return [
    classic('v1-classic-assigned', 'joining a Stable classic group whose member owns partition 0', synced(null)),
    classic('v1-classic-user-data', 'joining a classic group whose assignment carries user data: GROUP_ID_NOT_FOUND', synced(Buffer.from([1, 2, 3]))),
    classic('v1-classic-completing', 'joining a classic group whose member joined and never synced (CompletingRebalance)', async (ctx, group) => {
      await joinAlone(ctx, group, { topics: [TOPIC], sync: false });
    }),
    classic('v1-classic-connect', 'joining a classic group of protocol type "connect": GROUP_ID_NOT_FOUND', async (ctx, group) => {
      await joinAlone(ctx, group, { sync: false, protocol: { type: 'connect', name: 'default', metadata: Buffer.from([0]) } });
    }),
  ];
}

function describeProbes(): Probe[] {
  const d = (id: string, version: number, about: string, setup: Setup, ids: (g: string) => string[], ops = false) =>
    p(69, id, version, about, setup, (_c, g) => ({ groupIds: ids(g), includeAuthorizedOperations: ops }));
  return [
    d('v0-min', 0, 'a consumer group with one member', 'joined', (g) => [g]),
    d('v1-max', 1, 'v1: member type', 'joined', (g) => [g], true),
    d('v1-unknown', 1, 'an unknown group: GROUP_ID_NOT_FOUND', 'none', (g) => [g]),
    d('v1-classic', 1, 'a classic group: GROUP_ID_NOT_FOUND', 'classic', (g) => [g]),
    d('v1-empty', 1, 'a consumer group whose only member left (Empty)', 'left', (g) => [g]),
  ];
}

function otherApiProbes(): Probe[] {
  const commit = (g: string, m: Joined, epoch: number, memberId = m.memberId) => ({
    groupId: g, generationIdOrMemberEpoch: epoch, memberId, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: '' }] }],
  });
  const fetch = (g: string, memberId: string | null, memberEpoch: number) => ({
    groups: [{ groupId: g, memberId, memberEpoch, topics: [{ name: TOPIC, partitionIndexes: [0] }] }], requireStable: false,
  });
  return [
    p(8, 'oc-v9-member', 9, 'OffsetCommit v9 by a consumer group member at its epoch', 'joined', (_c, g, m) => commit(g, m, m.memberEpoch)),
    p(8, 'oc-v9-stale', 9, 'OffsetCommit v9 at another epoch: STALE_MEMBER_EPOCH', 'joined', (_c, g, m) => commit(g, m, m.memberEpoch + 1)),
    p(8, 'oc-v9-unknown-member', 9, 'OffsetCommit v9 by an unknown member: UNKNOWN_MEMBER_ID', 'joined', (_c, g, m) => commit(g, m, 1, 'pcg-nobody')),
    p(8, 'oc-v8-member', 8, 'OffsetCommit v8 by a consumer-protocol member: UNSUPPORTED_VERSION', 'joined', (_c, g, m) => commit(g, m, m.memberEpoch)),
    p(8, 'oc-v9-admin-empty', 9, 'OffsetCommit v9 with epoch -1 to an Empty consumer group', 'left', (_c, g, m) => commit(g, m, -1, '')),
    p(9, 'of-v9-member', 9, 'OffsetFetch v9 by a member at its epoch', 'joined', (_c, g, m) => fetch(g, m.memberId, m.memberEpoch)),
    p(9, 'of-v9-stale', 9, 'OffsetFetch v9 at another epoch: STALE_MEMBER_EPOCH', 'joined', (_c, g, m) => fetch(g, m.memberId, m.memberEpoch + 1)),
    p(9, 'of-v9-unknown-member', 9, 'OffsetFetch v9 by an unknown member: UNKNOWN_MEMBER_ID', 'joined', (_c, g) => fetch(g, 'pcg-nobody', 1)),
    p(9, 'of-v9-admin', 9, 'OffsetFetch v9 without a member (admin)', 'joined', (_c, g) => fetch(g, null, -1)),
    p(15, 'dg-v5-consumer', 5, 'DescribeGroups v5 of a consumer group', 'joined', (_c, g) => ({ groups: [g], includeAuthorizedOperations: false })),
    p(15, 'dg-v6-consumer', 6, 'DescribeGroups v6 of a consumer group: GROUP_ID_NOT_FOUND', 'joined', (_c, g) => ({ groups: [g], includeAuthorizedOperations: false })),
    p(11, 'jg-v9-consumer', 9, 'JoinGroup (classic) to a consumer group with a consumer-protocol member', 'joined', (_c, g) => ({
      groupId: g, sessionTimeoutMs: 45_000, rebalanceTimeoutMs: 45_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]) }], reason: null,
    }), { normalise: generatedMemberId }),
    p(12, 'hb-v4-consumer', 4, 'Heartbeat (classic) by a consumer-protocol member', 'joined', (_c, g, m) => ({ groupId: g, generationId: m.memberEpoch, memberId: m.memberId, groupInstanceId: null })),
  ];
}

const CLASSIC_SUBSCRIPTION = (): Buffer => {
  // ConsumerProtocolSubscription v0: the probe topic, no user data.
  const name = Buffer.from(TOPIC);
  const b = Buffer.alloc(2 + 4 + 2 + name.length + 4);
  b.writeInt16BE(0, 0);
  b.writeInt32BE(1, 2);
  b.writeInt16BE(name.length, 6);
  name.copy(b, 8);
  b.writeInt32BE(-1, 8 + name.length);
  return b;
};

function classicJoinBody(group: string, memberId: string): Record<string, unknown> {
  return {
    groupId: group, sessionTimeoutMs: 45_000, rebalanceTimeoutMs: 45_000, memberId, groupInstanceId: null, protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: CLASSIC_SUBSCRIPTION() }], reason: null,
  };
}

/**
 * A classic member inside a consumer group: a consumer-protocol member joins first, then a
 * classic JoinGroup gets its member id (MEMBER_ID_REQUIRED), registered as `classic:<group>`;
 * `joined` also completes the JoinGroup (generation = member epoch).
 */
async function classicInConsumer(ctx: ProbeCtx, group: string, joined: boolean): Promise<{ memberId: string; generationId: number }> {
  await coordinatorsReady(ctx);
  await topicReady(ctx);
  await join(ctx, group, 'pcg-member-a');
  const first = await ctx.call(11, 9, classicJoinBody(group, ''));
  if (first.errorCode !== 79) throw new Error(`JoinGroup ${group}: expected MEMBER_ID_REQUIRED, got ${first.errorCode}`);
  ctx.symbols.set('member', first.memberId, `classic:${group}`);
  if (!joined) return { memberId: first.memberId, generationId: -1 };
  const r = await ctx.call(11, 9, classicJoinBody(group, first.memberId));
  if (r.errorCode !== 0) throw new Error(`JoinGroup ${group}: error ${r.errorCode}`);
  return { memberId: first.memberId, generationId: r.generationId };
}

function mixedProbes(): Probe[] {
  const m = (api: number, id: string, version: number, about: string, joined: boolean, body: (g: string, c: { memberId: string; generationId: number }) => Record<string, unknown>): Probe => {
    const group = `pcg-${id}`;
    return {
      id: `cg-mixed/${id}`, api, version, about,
      setup: async (ctx) => { ctx.state[group] = await classicInConsumer(ctx, group, joined); },
      body: (ctx) => body(group, ctx.state[group]),
      // Members come in the coordinator's own (hash) order.
      normalise: (j) => sortAt(j, 'groups.[].members', 'memberId'),
    };
  };
  return [
    m(11, 'jg-v9-known-member', 9, 'a classic member\'s JoinGroup into a consumer group: generation = member epoch, no leader', false, (g, c) => classicJoinBody(g, c.memberId)),
    m(14, 'sg-v5', 5, 'its SyncGroup: the partitions it may have now', true, (g, c) => ({ groupId: g, generationId: c.generationId, memberId: c.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] })),
    m(14, 'sg-v5-wrong-generation', 5, 'SyncGroup at another generation: ILLEGAL_GENERATION', true, (g, c) => ({ groupId: g, generationId: c.generationId + 3, memberId: c.memberId, groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] })),
    m(12, 'hb-v4', 4, 'its Heartbeat right after joining', true, (g, c) => ({ groupId: g, generationId: c.generationId, memberId: c.memberId, groupInstanceId: null })),
    m(12, 'hb-v4-wrong-generation', 4, 'Heartbeat at another generation: ILLEGAL_GENERATION', true, (g, c) => ({ groupId: g, generationId: c.generationId + 3, memberId: c.memberId, groupInstanceId: null })),
    m(13, 'lg-v5', 5, 'its LeaveGroup, with an unknown member beside it', true, (g, c) => ({ groupId: g, members: [{ memberId: c.memberId, groupInstanceId: null, reason: null }, { memberId: 'pcg-nobody', groupInstanceId: null, reason: null }] })),
    m(69, 'describe-v1', 1, 'ConsumerGroupDescribe of a group with a classic member (member type 0)', true, (g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    {
      ...m(15, 'downgrade-dg-v5', 5, 'the last consumer-protocol member left: a classic group again (DescribeGroups), rebalancing', true, (g) => ({ groups: [g], includeAuthorizedOperations: false })),
      setup: async (ctx) => {
        const g = 'pcg-downgrade-dg-v5';
        ctx.state[g] = await classicInConsumer(ctx, g, true);
        await ctx.call(68, 1, { groupId: g, memberId: 'pcg-member-a', memberEpoch: -1 });
        await ctx.waitFor(`${g} classic again`, async () => (await ctx.call(15, 5, { groups: [g] })).groups[0].groupState === 'PreparingRebalance');
      },
    },
  ];
}

export function consumerGroupProbes(): Probe[] {
  return [...heartbeatProbes(), ...describeProbes(), ...otherApiProbes(), ...mixedProbes()];
}
