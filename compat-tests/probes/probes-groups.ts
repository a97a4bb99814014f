/**
 * Probes: classic consumer groups. FindCoordinator (FC1-FC6), JoinGroup (J1-J17), SyncGroup
 * (S1-S8), Heartbeat (H1-H5), LeaveGroup (LG1-LG6), OffsetCommit (OC1-OC10), OffsetFetch
 * (OF1-OF5), DescribeGroups / ListGroups / DeleteGroups (G1-G7) and OffsetDelete. Each probe
 * uses a group of its own (`pg-<id>`), joined by its set-up where it needs members.
 */
import { CONSUMER_METADATA, commitSimple, coordinatorsReady, createTopic, joinAlone, type Member } from './fixtures.js';
import { fill } from './fill.js';
import { filterAt, sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

type Body = Record<string, unknown> | ((ctx: ProbeCtx, m: Member) => Record<string, unknown>);

interface GroupOpts {
  /**
   * Set-up: join the group alone and sync (default 'stable'), join only ('joined':
   * CompletingRebalance), 'rebalancing' (stable, then a second member's JoinGroup parked on a
   * connection of its own: PreparingRebalance), 'commit' (an offsets-only group), or 'none'.
   */
  group?: 'stable' | 'joined' | 'rebalancing' | 'commit' | 'none';
  instanceId?: string;
  extra?: Partial<Probe>;
}

const GTOPIC = 'pg-topic';
const topicReady = (ctx: ProbeCtx) => ctx.once('group-topic', () => createTopic(ctx, GTOPIC, 2));

function g(api: number, prefix: string, id: string, version: number, about: string, body: Body, o: GroupOpts = {}): Probe {
  const group = `pg-${prefix}-${id}`;
  return {
    id: `${prefix}/${id}`,
    api,
    version,
    about,
    setup: async (ctx) => {
      await coordinatorsReady(ctx);
      await topicReady(ctx);
      const mode = o.group ?? 'stable';
      if (mode === 'stable' || mode === 'joined' || mode === 'rebalancing') ctx.state[group] = await joinAlone(ctx, group, { sync: mode === 'joined' ? false : true, instanceId: o.instanceId ?? null, topics: [GTOPIC] });
      else if (mode === 'commit') await commitSimple(ctx, group, GTOPIC, 5);
      if (mode === 'rebalancing') await parkSecondMember(ctx, group);
    },
    body: typeof body === 'function' ? (ctx) => body(ctx, ctx.state[group] ?? { memberId: '', generationId: -1 }) : body,
    ...o.extra,
  };
}

/**
 * A second member joins (JoinGroup v3, no member id needed) on a connection of its own: its answer
 * waits until the first member rejoins, so the group stays in PreparingRebalance for the probe.
 * The set-up waits until DescribeGroups shows that state; the connection is closed after the probe.
 */
async function parkSecondMember(ctx: ProbeCtx, group: string): Promise<void> {
  const conn = await ctx.connect();
  const body = fill('JoinGroupRequest', 3, { groupId: group, sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 60_000, memberId: '', protocolType: 'consumer', protocols });
  conn.request(11, 3, body as never).catch(() => { /* closed with the probe's extra connections */ });
  await ctx.waitFor(`${group} in PreparingRebalance`, async () => {
    const d = await ctx.call(15, 5, { groups: [group] });
    return d.groups[0].groupState === 'PreparingRebalance';
  });
}

const G = (prefix: string, id: string) => `pg-${prefix}-${id}`;
const protocols = [{ name: 'range', metadata: CONSUMER_METADATA([GTOPIC]) }];

function findCoordinatorProbes(): Probe[] {
  const fc = (id: string, version: number, about: string, body: Record<string, unknown>) => g(10, 'find-coordinator', id, version, about, body, { group: 'none' });
  return [
    fc('v0-min', 0, 'group coordinator at v0', { key: 'pg-fc' }),
    fc('v1-transaction', 1, 'transaction coordinator (key type 1)', { key: 'pg-fc-txn', keyType: 1 }),
    fc('v3-last-single-key', 3, 'last single-key version', { key: 'pg-fc', keyType: 0 }),
    fc('v4-batched', 4, 'batched keys (v4+)', { keyType: 0, coordinatorKeys: ['pg-fc-a', 'pg-fc-b'] }),
    fc('v6-max', 6, 'newest advertised version', { keyType: 0, coordinatorKeys: ['pg-fc'] }),
    fc('v3-key-type-5', 3, 'unknown key type (FC1): INVALID_REQUEST', { key: 'x', keyType: 5 }),
    fc('v4-key-type-5', 4, 'unknown key type at v4 (FC1): every key 42', { keyType: 5, coordinatorKeys: ['x', 'y'] }),
    fc('v5-share-key-type', 5, 'key type 2 (share) on v5 (FC6): INVALID_REQUEST', { keyType: 2, coordinatorKeys: ['x'] }),
    fc('v6-share-key-type', 6, 'key type 2 (share) on v6', { keyType: 2, coordinatorKeys: ['pg-share:topic:0'] }),
    fc('v3-empty-key', 3, 'empty key "" (FC5: not rejected)', { key: '', keyType: 0 }),
    fc('v4-no-keys', 4, 'no keys at all', { keyType: 0, coordinatorKeys: [] }),
    fc('v2-empty-transactional-key', 2, 'empty transactional id', { key: '', keyType: 1 }),
  ];
}

function joinGroupProbes(): Probe[] {
  const jg = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(11, 'join-group', id, version, about, body, o);
  const base = (group: string, extra: Record<string, unknown> = {}) => ({ groupId: group, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId: '', protocolType: 'consumer', protocols, ...extra });
  /** Member ids of new members are "client.id-UUID": the probe's client id is fixed, the UUID is not. */
  return [
    jg('v0-refused', 0, 'JoinGroup v0 (Kafka 4.4 serves it; advertise.md: refused)', base(G('join-group', 'v0-refused')), { group: 'none' }),
    jg('v1-refused', 1, 'JoinGroup v1', base(G('join-group', 'v1-refused')), { group: 'none' }),
    jg('v2-joins-directly', 2, 'v0-3, member_id "" (J4): joined without MEMBER_ID_REQUIRED', base(G('join-group', 'v2-joins-directly')), { group: 'none' }),
    jg('v4-member-id-required', 4, 'v4+ dynamic member "" (J3): MEMBER_ID_REQUIRED', base(G('join-group', 'v4-member-id-required')), { group: 'none' }),
    jg('v9-member-id-required', 9, 'the same at v9', base(G('join-group', 'v9-member-id-required'), { reason: 'probe' }), { group: 'none' }),
    jg('v5-static-member', 5, 'v5+ static member "" (J5): no MEMBER_ID_REQUIRED', base(G('join-group', 'v5-static-member'), { groupInstanceId: 'pg-instance-1' }), { group: 'none' }),
    jg('v5-empty-group-id', 5, 'group_id "" (J1): INVALID_GROUP_ID', base(''), { group: 'none' }),
    jg('v5-session-too-short', 5, 'session timeout below group.min.session.timeout.ms (J2)', base(G('join-group', 'short'), { sessionTimeoutMs: 10 }), { group: 'none' }),
    jg('v5-session-too-long', 5, 'session timeout above group.max.session.timeout.ms (J2)', base(G('join-group', 'long'), { sessionTimeoutMs: 2_000_000 }), { group: 'none' }),
    jg('v5-unknown-member-no-group', 5, 'non-empty member id, no such group (J6): UNKNOWN_MEMBER_ID', base(G('join-group', 'nogroup'), { memberId: 'ghost-member' }), { group: 'none' }),
    jg('v5-unknown-member', 5, 'non-empty member id unknown to an existing group (J7)', (_c, m) => base(G('join-group', 'v5-unknown-member'), { memberId: `${m.memberId}-x` })),
    jg('v5-inconsistent-protocol-type', 5, 'protocol type differs from the group\'s (J8): INCONSISTENT_GROUP_PROTOCOL', base(G('join-group', 'v5-inconsistent-protocol-type'), { protocolType: 'connect' })),
    jg('v5-no-common-protocol', 5, 'no protocol in common with the members (J8)', base(G('join-group', 'v5-no-common-protocol'), { protocols: [{ name: 'sticky', metadata: CONSUMER_METADATA([GTOPIC]) }] })),
    jg('v5-empty-protocols', 5, 'empty group and protocols [] (J9)', base(G('join-group', 'v5-empty-protocols'), { protocols: [] }), { group: 'none' }),
    jg('v5-empty-protocol-type', 5, 'empty group and protocol_type "" (J9)', base(G('join-group', 'v5-empty-protocol-type'), { protocolType: '' }), { group: 'none' }),
    jg('v5-known-member-rejoin-stable', 5, 'the leader rejoins a Stable group with the same protocols: an immediate answer (J14)', (_c, m) => base(G('join-group', 'v5-known-member-rejoin-stable'), { memberId: m.memberId })),
    jg('v5-fenced-instance', 5, 'known group_instance_id, other member id (J15): FENCED_INSTANCE_ID', (_c, m) => base(G('join-group', 'v5-fenced-instance'), { memberId: `${m.memberId}-other`, groupInstanceId: 'pg-instance-2' }), { instanceId: 'pg-instance-2' }),
    jg('v7-error-shape', 7, 'error shape at v7+ (J16): protocol_name null', base(''), { group: 'none' }),
  ];
}

function syncGroupProbes(): Probe[] {
  const sg = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(14, 'sync-group', id, version, about, body, o);
  const base = (group: string, m: Member, extra: Record<string, unknown> = {}) => ({ groupId: group, generationId: m.generationId, memberId: m.memberId, protocolType: 'consumer', protocolName: 'range', assignments: [], ...extra });
  return [
    sg('v0-min', 0, 'Stable group, leader re-syncs (S8): the stored assignment', (_c, m) => base(G('sync-group', 'v0-min'), m)),
    sg('v5-max', 5, 'Stable group at v5 (S8): protocol type and name', (_c, m) => base(G('sync-group', 'v5-max'), m)),
    sg('v3-no-group', 3, 'group does not exist (S1): UNKNOWN_MEMBER_ID', { groupId: G('sync-group', 'nogroup'), generationId: 1, memberId: 'ghost', assignments: [] }, { group: 'none' }),
    sg('v3-empty-group', 3, 'offsets-only Empty group (S1)', { groupId: G('sync-group', 'v3-empty-group'), generationId: 0, memberId: 'ghost', assignments: [] }, { group: 'commit' }),
    sg('v3-unknown-member', 3, 'member not in the group (S2)', (_c, m) => base(G('sync-group', 'v3-unknown-member'), m, { memberId: 'ghost' })),
    sg('v3-wrong-generation', 3, 'wrong generation (S3): ILLEGAL_GENERATION', (_c, m) => base(G('sync-group', 'v3-wrong-generation'), m, { generationId: m.generationId + 5 })),
    sg('v5-null-protocol-type', 5, 'v5 protocol_type null (S4)', (_c, m) => base(G('sync-group', 'v5-null-protocol-type'), m, { protocolType: null })),
    sg('v5-null-protocol-name', 5, 'v5 protocol_name null (S4)', (_c, m) => base(G('sync-group', 'v5-null-protocol-name'), m, { protocolName: null })),
    sg('v5-wrong-protocol-name', 5, 'protocol name differs from the group\'s (S5)', (_c, m) => base(G('sync-group', 'v5-wrong-protocol-name'), m, { protocolName: 'roundrobin' })),
    sg('v5-wrong-protocol-type', 5, 'protocol type differs from the group\'s (S5)', (_c, m) => base(G('sync-group', 'v5-wrong-protocol-type'), m, { protocolType: 'connect' })),
    sg('v3-completing-rebalance-leader', 3, 'the leader syncs in CompletingRebalance: its assignment back', (_c, m) => base(G('sync-group', 'v3-completing-rebalance-leader'), m, {
      assignments: [{ memberId: m.memberId, assignment: Buffer.from([0, 1, 0, 0, 0, 0, 0, 0, 0, 0]) }],
    }), { group: 'joined' }),
    sg('v5-preparing-rebalance', 5, 'a member syncs while a rebalance is pending (S6): REBALANCE_IN_PROGRESS', (_c, m) => base(G('sync-group', 'v5-preparing-rebalance'), m), { group: 'rebalancing' }),
    sg('v4-empty-group-id', 4, 'group_id ""', { groupId: '', generationId: 1, memberId: 'm', assignments: [] }, { group: 'none' }),
  ];
}

function heartbeatLeaveProbes(): Probe[] {
  const hb = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(12, 'heartbeat', id, version, about, body, o);
  const lg = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(13, 'leave-group', id, version, about, body, o);
  return [
    hb('v0-min', 0, 'Stable group, right member and generation (H2)', (_c, m) => ({ groupId: G('heartbeat', 'v0-min'), generationId: m.generationId, memberId: m.memberId })),
    hb('v4-max', 4, 'the same at v4', (_c, m) => ({ groupId: G('heartbeat', 'v4-max'), generationId: m.generationId, memberId: m.memberId })),
    hb('v3-completing-rebalance', 3, 'CompletingRebalance (H2): NONE', (_c, m) => ({ groupId: G('heartbeat', 'v3-completing-rebalance'), generationId: m.generationId, memberId: m.memberId }), { group: 'joined' }),
    hb('v3-unknown-group', 3, 'group does not exist (H3): UNKNOWN_MEMBER_ID', { groupId: G('heartbeat', 'nogroup'), generationId: 1, memberId: 'ghost' }, { group: 'none' }),
    hb('v3-unknown-member', 3, 'member unknown (H3)', (_c, m) => ({ groupId: G('heartbeat', 'v3-unknown-member'), generationId: m.generationId, memberId: 'ghost' })),
    hb('v3-wrong-generation', 3, 'known member, wrong generation (H4): ILLEGAL_GENERATION', (_c, m) => ({ groupId: G('heartbeat', 'v3-wrong-generation'), generationId: m.generationId + 1, memberId: m.memberId })),
    hb('v4-empty-group-id', 4, 'group_id "" (H5): INVALID_GROUP_ID', { groupId: '', generationId: 1, memberId: 'm' }, { group: 'none' }),
    hb('v4-preparing-rebalance', 4, 'PreparingRebalance (H1): REBALANCE_IN_PROGRESS', (_c, m) => ({ groupId: G('heartbeat', 'v4-preparing-rebalance'), generationId: m.generationId, memberId: m.memberId }), { group: 'rebalancing' }),
    hb('v3-offsets-only-group', 3, 'offsets-only Empty group (H3)', { groupId: G('heartbeat', 'v3-offsets-only-group'), generationId: 0, memberId: 'ghost' }, { group: 'commit' }),
    lg('v0-min', 0, 'a known member leaves a Stable group (LG4)', (_c, m) => ({ groupId: G('leave-group', 'v0-min'), memberId: m.memberId })),
    lg('v1-unknown-member', 1, 'v0-2 unknown member (LG2): top-level UNKNOWN_MEMBER_ID', (_c, m) => ({ groupId: G('leave-group', 'v1-unknown-member'), memberId: `${m.memberId}-x` })),
    lg('v3-unknown-member', 3, 'v3+ unknown member (LG1): top-level NONE, member 25', (_c, m) => ({ groupId: G('leave-group', 'v3-unknown-member'), members: [{ memberId: `${m.memberId}-x` }] })),
    lg('v3-no-group', 3, 'group does not exist (LG3)', { groupId: G('leave-group', 'nogroup'), members: [{ memberId: 'a' }, { memberId: 'b' }] }, { group: 'none' }),
    lg('v5-max', 5, 'a known member leaves with a reason (LG4)', (_c, m) => ({ groupId: G('leave-group', 'v5-max'), members: [{ memberId: m.memberId, reason: 'probe done' }] })),
    lg('v4-static-by-instance-id', 4, 'member_id "" with a static member\'s instance id (LG5): removed', { groupId: G('leave-group', 'v4-static-by-instance-id'), members: [{ memberId: '', groupInstanceId: 'pg-instance-3' }] }, { instanceId: 'pg-instance-3' }),
    lg('v4-empty-group-id', 4, 'group_id "" (LG6): INVALID_GROUP_ID', { groupId: '', members: [{ memberId: 'a' }] }, { group: 'none' }),
    lg('v3-known-and-unknown', 3, 'one known and one unknown member', (_c, m) => ({ groupId: G('leave-group', 'v3-known-and-unknown'), members: [{ memberId: m.memberId }, { memberId: 'ghost' }] })),
  ];
}

function offsetProbes(): Probe[] {
  const oc = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(8, 'offset-commit', id, version, about, body, o);
  const of = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(9, 'offset-fetch', id, version, about, body, o);
  const parts = (offset = 3, extra: Record<string, unknown> = {}) => [{ name: GTOPIC, partitions: [{ partitionIndex: 0, committedOffset: offset, committedMetadata: 'md', ...extra }] }];
  /** Effect check: the committed offsets as an OffsetFetch v8 of the group shows them. */
  const fetchAfter = (group: string): Partial<Probe> => ({
    after: async (ctx) => {
      const r = await ctx.call(9, 8, { groups: [{ groupId: group, topics: null }], requireStable: false });
      ctx.state[`committed:${group}`] = r.groups[0].topics.flatMap((t: any) => t.partitions.map((p: any) => `${t.name}-${p.partitionIndex}@${p.committedOffset}:${p.metadata}`)).sort();
    },
    normalise: (j, ctx) => ({ ...(j as object), committedAfter: ctx.state[`committed:${group}`] ?? null }) as Json,
  });
  const ocf = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => oc(id, version, about, body, { ...o, extra: { ...fetchAfter(G('offset-commit', id)), ...o.extra } });
  return [
    ocf('v2-min', 2, 'simple commit (generation -1) to a new group (OC2)', { groupId: G('offset-commit', 'v2-min'), generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: -1, topics: parts() }, { group: 'none' }),
    ocf('v9-max', 9, 'member commit in a Stable group', (_c, m) => ({ groupId: G('offset-commit', 'v9-max'), generationIdOrMemberEpoch: m.generationId, memberId: m.memberId, topics: parts(4) })),
    ocf('v8-first-flexible', 8, 'member commit at v8', (_c, m) => ({ groupId: G('offset-commit', 'v8-first-flexible'), generationIdOrMemberEpoch: m.generationId, memberId: m.memberId, topics: parts(4) })),
    ocf('v5-simple-to-members-group', 5, 'generation -1, member "" to a group with members (OC1): UNKNOWN_MEMBER_ID', { groupId: G('offset-commit', 'v5-simple-to-members-group'), generationIdOrMemberEpoch: -1, memberId: '', topics: parts() }),
    ocf('v8-generation-no-group', 8, 'generation >= 0, no such group, v0-8 (OC3): ILLEGAL_GENERATION', { groupId: G('offset-commit', 'v8-generation-no-group'), generationIdOrMemberEpoch: 3, memberId: 'm', topics: parts() }, { group: 'none' }),
    ocf('v9-generation-no-group', 9, 'generation >= 0, no such group, v9+ (OC3): GROUP_ID_NOT_FOUND', { groupId: G('offset-commit', 'v9-generation-no-group'), generationIdOrMemberEpoch: 3, memberId: 'm', topics: parts() }, { group: 'none' }),
    ocf('v7-stale-generation', 7, 'known member, stale generation (OC4)', (_c, m) => ({ groupId: G('offset-commit', 'v7-stale-generation'), generationIdOrMemberEpoch: m.generationId - 1, memberId: m.memberId, topics: parts() })),
    ocf('v7-unknown-member', 7, 'unknown member (OC5)', (_c, m) => ({ groupId: G('offset-commit', 'v7-unknown-member'), generationIdOrMemberEpoch: m.generationId, memberId: 'ghost', topics: parts() })),
    ocf('v7-generation-minus-1-real-member', 7, 'generation -1 with a real member id (OC6): ILLEGAL_GENERATION', (_c, m) => ({ groupId: G('offset-commit', 'v7-generation-minus-1-real-member'), generationIdOrMemberEpoch: -1, memberId: m.memberId, topics: parts() })),
    ocf('v7-completing-rebalance', 7, 'valid member in CompletingRebalance (OC7): REBALANCE_IN_PROGRESS', (_c, m) => ({ groupId: G('offset-commit', 'v7-completing-rebalance'), generationIdOrMemberEpoch: m.generationId, memberId: m.memberId, topics: parts() }), { group: 'joined' }),
    ocf('v8-preparing-rebalance', 8, 'valid member in PreparingRebalance (OC7): accepted', (_c, m) => ({ groupId: G('offset-commit', 'v8-preparing-rebalance'), generationIdOrMemberEpoch: m.generationId, memberId: m.memberId, topics: parts(6) }), { group: 'rebalancing' }),
    ocf('v8-metadata-too-large', 8, 'metadata over 4096 bytes (OC8): that partition 12, the rest committed', { groupId: G('offset-commit', 'v8-metadata-too-large'), generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: GTOPIC, partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: 'x'.repeat(5000) }, { partitionIndex: 1, committedOffset: 2, committedMetadata: 'ok' }] }] }, { group: 'none' }),
    ocf('v8-unknown-topic', 8, 'unknown topic and partition (OC9): UNKNOWN_TOPIC_OR_PARTITION, rest processed', { groupId: G('offset-commit', 'v8-unknown-topic'), generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'pg-missing', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }, { name: GTOPIC, partitions: [{ partitionIndex: 9, committedOffset: 1, committedMetadata: null }, { partitionIndex: 1, committedOffset: 7, committedMetadata: null }] }] }, { group: 'none' }),
    ocf('v4-retention-time', 4, 'retention_time_ms set (OC10)', { groupId: G('offset-commit', 'v4-retention-time'), generationIdOrMemberEpoch: -1, memberId: '', retentionTimeMs: 3600_000, topics: parts(9) }, { group: 'none' }),
    ocf('v8-empty-group-id', 8, 'group_id ""', { groupId: '', generationIdOrMemberEpoch: -1, memberId: '', topics: parts() }, { group: 'none' }),
    ocf('v8-negative-offset', 8, 'committed offset -5', { groupId: G('offset-commit', 'v8-negative-offset'), generationIdOrMemberEpoch: -1, memberId: '', topics: parts(-5) }, { group: 'none' }),
    of('v1-min', 1, 'committed and uncommitted partitions of an offsets-only group', { groupId: G('offset-fetch', 'v1-min'), topics: [{ name: GTOPIC, partitionIndexes: [0, 1] }] }, { group: 'commit' }),
    of('v7-require-stable', 7, 'v7 require_stable, nothing pending', { groupId: G('offset-fetch', 'v7-require-stable'), topics: [{ name: GTOPIC, partitionIndexes: [0] }], requireStable: true }, { group: 'commit' }),
    of('v5-unknown-group', 5, 'unknown group, explicit partitions (OF1): -1 and NONE', { groupId: G('offset-fetch', 'nogroup'), topics: [{ name: GTOPIC, partitionIndexes: [0] }] }, { group: 'none' }),
    of('v5-unknown-group-all', 5, 'unknown group, topics null (OF2): []', { groupId: G('offset-fetch', 'nogroup'), topics: null }, { group: 'none' }),
    of('v5-unknown-topic', 5, 'known group, unknown topic (OF3): -1, NONE', { groupId: G('offset-fetch', 'v5-unknown-topic'), topics: [{ name: 'pg-missing', partitionIndexes: [0] }] }, { group: 'commit' }),
    of('v8-batched', 8, 'two groups in one request (v8+)', { groups: [{ groupId: G('offset-fetch', 'v8-batched'), topics: null }, { groupId: G('offset-fetch', 'nogroup2'), topics: [{ name: GTOPIC, partitionIndexes: [1] }] }], requireStable: false }, { group: 'commit' }),
    of('v9-max', 9, 'member epoch fields at v9 (classic group: ignored)', { groups: [{ groupId: G('offset-fetch', 'v9-max'), memberId: null, memberEpoch: -1, topics: [{ name: GTOPIC, partitionIndexes: [0, 1] }] }], requireStable: true }, { group: 'commit' }),
    of('v8-null-group-id', 8, 'v8+ group_id ""', { groups: [{ groupId: '', topics: null }], requireStable: false }, { group: 'none' }),
    of('v3-all-topics', 3, 'topics null (v2+): every committed offset', { groupId: G('offset-fetch', 'v3-all-topics'), topics: null }, { group: 'commit' }),
  ];
}

/** ListGroups answers every group of the broker: keep only this probe's groups, sorted. */
const onlyGroups = (prefix: string) => (j: Json): Json => sortAt(filterAt(j, 'groups', (x) => String((x as any).groupId).startsWith(prefix)), 'groups', 'groupId');

function adminGroupProbes(): Probe[] {
  // Kafka lists a group's members from a hash map: compare them sorted (after normalisation).
  const sortMembers = (j: Json): Json => sortAt(j, 'groups.[].members', 'memberId');
  const dg = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(15, 'describe-groups', id, version, about, body, { ...o, extra: { normalise: sortMembers, ...o.extra } });
  const lgs = (id: string, version: number, about: string, body: Record<string, unknown>) => g(16, 'list-groups', id, version, about, body, {
    group: 'none',
    extra: {
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await topicReady(ctx);
        await ctx.once('list-groups', async () => {
          await joinAlone(ctx, 'pgl-stable', { topics: [GTOPIC] });
          await joinAlone(ctx, 'pgl-completing', { sync: false, topics: [GTOPIC] });
          await commitSimple(ctx, 'pgl-empty', GTOPIC, 1);
        });
      },
      normalise: onlyGroups('pgl-'),
    },
  });
  const del = (id: string, version: number, about: string, body: Body, o: GroupOpts = {}) => g(42, 'delete-groups', id, version, about, body, o);
  const od = (id: string, about: string, body: Body, o: GroupOpts = {}) => g(47, 'offset-delete', id, 0, about, body, o);
  return [
    dg('v0-min', 0, 'a Stable group (G2): members with metadata and assignment', { groups: [G('describe-groups', 'v0-min')] }),
    dg('v5-max', 5, 'a Stable group at v5 (G2)', { groups: [G('describe-groups', 'v5-max')], includeAuthorizedOperations: true }),
    dg('v6-max', 6, 'a Stable group at v6 (KIP-1043)', { groups: [G('describe-groups', 'v6-max')], includeAuthorizedOperations: true }),
    dg('v6-unknown', 6, 'an unknown group at v6: GROUP_ID_NOT_FOUND instead of Dead', { groups: [G('describe-groups', 'v6-unknown')] }, { group: 'none' }),
    dg('v6-simple', 6, 'an offsets-only (Empty) group at v6', { groups: [G('describe-groups', 'v6-simple')] }, { group: 'commit' }),
    dg('v3-completing', 3, 'CompletingRebalance (G2): no metadata or assignment', { groups: [G('describe-groups', 'v3-completing')] }, { group: 'joined' }),
    dg('v4-static-member', 4, 'a static member (group_instance_id)', { groups: [G('describe-groups', 'v4-static-member')] }, { instanceId: 'pg-instance-4' }),
    dg('v5-preparing-rebalance', 5, 'PreparingRebalance: members without metadata or assignment (G2)', { groups: [G('describe-groups', 'v5-preparing-rebalance')] }, { group: 'rebalancing' }),
    dg('v5-unknown', 5, 'unknown group (G1, v0-5): NONE, Dead', { groups: [G('describe-groups', 'nogroup')] }, { group: 'none' }),
    dg('v1-offsets-only', 1, 'offsets-only Empty group', { groups: [G('describe-groups', 'v1-offsets-only')] }, { group: 'commit' }),
    dg('v5-empty-id', 5, 'group id ""', { groups: [''] }, { group: 'none' }),
    dg('v2-two-groups', 2, 'the same group twice and an unknown one', { groups: [G('describe-groups', 'v2-two-groups'), G('describe-groups', 'v2-two-groups'), G('describe-groups', 'nogroup')] }),
    lgs('v0-min', 0, 'every group (G3), incl. offsets-only ones', {}),
    lgs('v3-first-flexible', 3, 'every group at v3', {}),
    lgs('v4-states-filter', 4, 'states filter, case-insensitive (G3)', { statesFilter: ['stable', 'EMPTY'] }),
    lgs('v4-unknown-state', 4, 'unknown state name (G3): nothing, NONE', { statesFilter: ['Sleeping'] }),
    lgs('v5-types-filter', 5, 'types filter classic (G3)', { typesFilter: ['classic'] }),
    lgs('v5-types-filter-consumer', 5, 'types filter consumer: no classic groups', { typesFilter: ['consumer'] }),
    del('v0-min', 0, 'an offsets-only Empty group (G6): deleted with its offsets', { groupsNames: [G('delete-groups', 'v0-min')] }, { group: 'commit' }),
    del('v2-max', 2, 'an Empty group at v2 (G6)', { groupsNames: [G('delete-groups', 'v2-max')] }, { group: 'commit' }),
    del('v2-non-empty', 2, 'a Stable group (G4): NON_EMPTY_GROUP', { groupsNames: [G('delete-groups', 'v2-non-empty')] }),
    del('v2-unknown', 2, 'unknown group (G5): GROUP_ID_NOT_FOUND', { groupsNames: [G('delete-groups', 'nogroup')] }, { group: 'none' }),
    del('v2-duplicate', 2, 'same group twice (G7): one result', { groupsNames: [G('delete-groups', 'v2-duplicate'), G('delete-groups', 'v2-duplicate')] }, { group: 'commit' }),
    del('v1-empty-id', 1, 'group id ""', { groupsNames: [''] }, { group: 'none' }),
    od('v0-offsets-only', 'delete a committed partition of an Empty group', { groupId: G('offset-delete', 'v0-offsets-only'), topics: [{ name: GTOPIC, partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] }] }, { group: 'commit' }),
    od('v0-subscribed', 'a topic the Stable group subscribes to: GROUP_SUBSCRIBED_TO_TOPIC', { groupId: G('offset-delete', 'v0-subscribed'), topics: [{ name: GTOPIC, partitions: [{ partitionIndex: 0 }] }] }),
    od('v0-unknown-group', 'unknown group: GROUP_ID_NOT_FOUND', { groupId: G('offset-delete', 'nogroup'), topics: [{ name: GTOPIC, partitions: [{ partitionIndex: 0 }] }] }, { group: 'none' }),
    od('v0-unknown-topic', 'unknown topic in a known group', { groupId: G('offset-delete', 'v0-unknown-topic'), topics: [{ name: 'pg-missing', partitions: [{ partitionIndex: 0 }] }] }, { group: 'commit' }),
    od('v0-empty-group-id', 'group id ""', { groupId: '', topics: [{ name: GTOPIC, partitions: [{ partitionIndex: 0 }] }] }, { group: 'none' }),
  ];
}

export function groupProbes(): Probe[] {
  return [...findCoordinatorProbes(), ...joinGroupProbes(), ...syncGroupProbes(), ...heartbeatLeaveProbes(), ...offsetProbes(), ...adminGroupProbes()];
}
