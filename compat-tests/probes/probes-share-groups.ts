/**
 * Probes: KIP-932 share groups. ShareGroupHeartbeat (joins, heartbeats, leaves, Kafka's
 * validation and errors), ShareGroupDescribe (share, consumer and unknown groups), the share
 * session rules of ShareFetch / ShareAcknowledge, and the offsets APIs on unknown and non-empty
 * groups. Each probe uses a group of its own (`psg-<id>`); member ids are the probe's own.
 */
import { CONSUMER_METADATA, coordinatorsReady, createTopic, topicId } from './fixtures.js';
import { sortAt } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const TOPIC = 'psg-topic';
const topicReady = (ctx: ProbeCtx) => ctx.once('share-group-topic', async () => {
  await createTopic(ctx, TOPIC, 2);
  ctx.state['psg-topic-id'] = await topicId(ctx, TOPIC);
});

type Setup = 'none' | 'joined' | 'assigned' | 'consumer-group';

function joinBody(group: string, memberId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return { groupId: group, memberId, memberEpoch: 0, rackId: null, subscribedTopicNames: [TOPIC], ...over };
}

function p(api: number, id: string, version: number, about: string, setup: Setup, body: (ctx: ProbeCtx, group: string) => Record<string, unknown>): Probe {
  const group = `psg-${id}`;
  return {
    id: `share-${api}/${id}`,
    api,
    version,
    about,
    setup: async (ctx) => {
      await coordinatorsReady(ctx);
      await topicReady(ctx);
      if (setup === 'joined') {
        const r = await ctx.call(76, 1, joinBody(group, 'psg-member-a'));
        if (r.errorCode !== 0) throw new Error(`ShareGroupHeartbeat join ${group}: error ${r.errorCode} ${r.errorMessage ?? ''}`);
        ctx.state[group] = r.memberEpoch;
      }
      if (setup === 'assigned') {
        // The member heartbeats until it is assigned both partitions (initialised first, then batched).
        let epoch = (await ctx.call(76, 1, joinBody(group, 'psg-member-a'))).memberEpoch;
        await ctx.waitFor(`${group}: assigned`, async () => {
          const r = await ctx.call(76, 1, { groupId: group, memberId: 'psg-member-a', memberEpoch: epoch, rackId: null, subscribedTopicNames: null });
          epoch = r.memberEpoch;
          return (r.assignment?.topicPartitions?.[0]?.partitions?.length ?? 0) === 2;
        }, 20_000);
        ctx.state[group] = epoch;
      }
      if (setup === 'consumer-group') {
        const r = await ctx.call(68, 1, { groupId: group, memberId: 'psg-member-a', memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: [TOPIC], topicPartitions: [] });
        if (r.errorCode !== 0) throw new Error(`ConsumerGroupHeartbeat join ${group}: error ${r.errorCode}`);
      }
    },
    body: (ctx) => body(ctx, group),
  };
}

const fetchBody = (ctx: ProbeCtx, group: string, over: Record<string, unknown> = {}) => ({
  groupId: group, memberId: 'psg-member-a', shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, maxRecords: 100, batchSize: 100,
  topics: [{ topicId: ctx.state['psg-topic-id'], partitions: [{ partitionIndex: 0, acknowledgementBatches: [] }] }], forgottenTopicsData: [], ...over,
});

export function shareGroupProbes(): Probe[] {
  const hb = (id: string, about: string, setup: Setup, body: (ctx: ProbeCtx, g: string) => Record<string, unknown>) => p(76, id, 1, about, setup, body);
  return [
    hb('join', 'join: member epoch, heartbeat interval, the assignment (both partitions)', 'none', (_c, g) => joinBody(g, 'psg-member-a')),
    hb('second-member', 'a second member of a group of one', 'joined', (_c, g) => joinBody(g, 'psg-member-b')),
    hb('heartbeat', 'a heartbeat at the member\'s epoch: no assignment in the answer', 'joined', (c, g) => ({ groupId: g, memberId: 'psg-member-a', memberEpoch: c.state[g], rackId: null, subscribedTopicNames: null })),
    hb('fenced-epoch', 'a heartbeat at another epoch: FENCED_MEMBER_EPOCH', 'joined', (c, g) => ({ groupId: g, memberId: 'psg-member-a', memberEpoch: c.state[g] + 5, rackId: null, subscribedTopicNames: null })),
    hb('unknown-member', 'an unknown member heartbeats: UNKNOWN_MEMBER_ID', 'joined', (_c, g) => ({ groupId: g, memberId: 'psg-member-x', memberEpoch: 3, rackId: null, subscribedTopicNames: null })),
    hb('empty-group-id', 'an empty group id: INVALID_REQUEST', 'none', () => joinBody('', 'psg-member-a')),
    hb('empty-member-id', 'an empty member id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, '')),
    hb('join-no-topics', 'a join without topics: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'psg-member-a', { subscribedTopicNames: null })),
    hb('join-empty-topics', 'a join with an empty topic list: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'psg-member-a', { subscribedTopicNames: [] })),
    hb('empty-rack', 'an empty rack id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'psg-member-a', { rackId: '' })),
    hb('leave', 'a member leaves: epoch -1', 'joined', (_c, g) => ({ groupId: g, memberId: 'psg-member-a', memberEpoch: -1, rackId: null, subscribedTopicNames: null })),
    hb('leave-unknown', 'an unknown member leaves', 'joined', (_c, g) => ({ groupId: g, memberId: 'psg-member-x', memberEpoch: -1, rackId: null, subscribedTopicNames: null })),
    hb('consumer-group-id', 'a join to a consumer group\'s id', 'consumer-group', (_c, g) => joinBody(g, 'psg-member-b')),
    p(77, 'describe-unknown', 1, 'describe an unknown group', 'none', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    p(77, 'describe-joined', 1, 'describe a share group of one member', 'joined', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    p(77, 'describe-assigned', 1, 'describe a member once its partitions are initialised and assigned: the epochs it took', 'assigned', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    p(77, 'describe-consumer-group', 1, 'describe a consumer group\'s id as a share group', 'consumer-group', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    p(68, 'consumer-join-share-id', 1, 'a consumer-protocol member joins a share group\'s id', 'joined', (_c, g) => ({ groupId: g, memberId: 'psg-member-c', memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: [TOPIC], topicPartitions: [] })),
    p(11, 'classic-join-share-id', 5, 'a classic JoinGroup on a share group\'s id', 'joined', (_c, g) => ({
      groupId: g, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: CONSUMER_METADATA([TOPIC]) }],
    })),
    p(8, 'commit-share-id', 8, 'an offset commit (generation -1) to a share group\'s id', 'joined', (_c, g) => ({
      groupId: g, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    })),
    p(15, 'describegroups-share-id', 5, 'DescribeGroups v5 of a share group', 'joined', (_c, g) => ({ groups: [g], includeAuthorizedOperations: false })),
    { ...p(16, 'listgroups-share', 5, 'ListGroups v5 filtered to share groups in state Stable', 'joined', () => ({ statesFilter: ['Stable'], typesFilter: ['share'] })), normalise: (j) => sortAt(j, 'groups', 'groupId') },
    p(78, 'no-session', 1, 'ShareFetch at epoch 5 without a session: SHARE_SESSION_NOT_FOUND', 'joined', (c, g) => fetchBody(c, g, { shareSessionEpoch: 5 })),
    p(78, 'acks-on-open', 1, 'ShareFetch opening a session with acknowledgements: INVALID_REQUEST', 'joined', (c, g) => fetchBody(c, g, {
      topics: [{ topicId: c.state['psg-topic-id'], partitions: [{ partitionIndex: 0, acknowledgementBatches: [{ firstOffset: 0n, lastOffset: 0n, acknowledgeTypes: [1] }] }] }],
    })),
    p(78, 'no-member-id', 1, 'ShareFetch without a member id', 'joined', (c, g) => fetchBody(c, g, { memberId: '' })),
    p(79, 'ack-epoch-0', 1, 'ShareAcknowledge at epoch 0: INVALID_SHARE_SESSION_EPOCH', 'joined', (c, g) => ({ groupId: g, memberId: 'psg-member-a', shareSessionEpoch: 0, topics: [] })),
    p(79, 'ack-no-session', 1, 'ShareAcknowledge at epoch 3 without a session', 'joined', (c, g) => ({ groupId: g, memberId: 'psg-member-a', shareSessionEpoch: 3, topics: [] })),
    p(78, 'v2-no-session', 2, 'ShareFetch v2 (acquire mode, renew flag) at epoch 5 without a session', 'joined', (c, g) => fetchBody(c, g, { shareSessionEpoch: 5, shareAcquireMode: 0, isRenewAck: false })),
    p(79, 'v2-ack-no-session', 2, 'ShareAcknowledge v2 at epoch 3 without a session', 'joined', (_c, g) => ({ groupId: g, memberId: 'psg-member-a', shareSessionEpoch: 3, isRenewAck: false, topics: [] })),
    p(90, 'v0-offsets-unknown', 0, 'DescribeShareGroupOffsets v0 (no lag) of an unknown group', 'none', (_c, g) => ({ groups: [{ groupId: g, topics: null }] })),
    p(90, 'offsets-unknown', 1, 'DescribeShareGroupOffsets of an unknown group', 'none', (_c, g) => ({ groups: [{ groupId: g, topics: null }] })),
    p(91, 'alter-unknown', 0, 'AlterShareGroupOffsets of an unknown group', 'none', (_c, g) => ({ groupId: g, topics: [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 0n }] }] })),
    p(91, 'alter-non-empty', 0, 'AlterShareGroupOffsets of a group with a member: NON_EMPTY_GROUP', 'joined', (_c, g) => ({ groupId: g, topics: [{ topicName: TOPIC, partitions: [{ partitionIndex: 0, startOffset: 0n }] }] })),
    p(92, 'delete-unknown', 0, 'DeleteShareGroupOffsets of an unknown group', 'none', (_c, g) => ({ groupId: g, topics: [{ topicName: TOPIC }] })),
    p(92, 'delete-non-empty', 0, 'DeleteShareGroupOffsets of a group with a member: NON_EMPTY_GROUP', 'joined', (_c, g) => ({ groupId: g, topics: [{ topicName: TOPIC }] })),
  ];
}
