/**
 * Probes: KIP-1071 streams groups. StreamsGroupHeartbeat (joins with a topology, its statuses,
 * heartbeats, leaves, Kafka's validation and errors, v0 and v1), StreamsGroupDescribe (streams,
 * consumer and unknown groups, v0 and v1), what other group APIs answer for a streams group, and
 * StreamsGroupTopologyDescriptionUpdate without a topology description plugin. Each probe uses a
 * group of its own (`pst-<id>`); member ids are the probe's own. The first assignment of a new
 * group waits for group.streams.initial.rebalance.delay.ms (3 s on both): the answers within it
 * carry ASSIGNMENT_DELAYED on both.
 */
import { coordinatorsReady, createTopic } from './fixtures.js';
import type { Probe, ProbeCtx } from './runner.js';

const TOPIC = 'pst-topic';
const topicReady = (ctx: ProbeCtx) => ctx.once('streams-group-topic', () => createTopic(ctx, TOPIC, 2));

type Setup = 'none' | 'joined' | 'joined-epoch-1' | 'joined-left' | 'consumer-group';

/** One subtopology reading `source`, with no internal topics (nothing to create). */
function topology(source: string, epoch = 0): Record<string, unknown> {
  return { epoch, subtopologies: [{ subtopologyId: '0', sourceTopics: [source], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] };
}

function joinBody(group: string, memberId: string, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    groupId: group, memberId, memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    topology: topology(TOPIC), activeTasks: [], standbyTasks: [], warmupTasks: [], processId: 'pst-process', userEndpoint: null, clientTags: [],
    taskOffsets: [], taskEndOffsets: [], shutdownApplication: false, ...over,
  };
}

function beatBody(group: string, memberId: string, memberEpoch: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    groupId: group, memberId, memberEpoch, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, topology: null,
    activeTasks: null, standbyTasks: null, warmupTasks: null, processId: null, userEndpoint: null, clientTags: null, taskOffsets: null, taskEndOffsets: null,
    shutdownApplication: false, ...over,
  };
}

function p(api: number, id: string, version: number, about: string, setup: Setup, body: (ctx: ProbeCtx, group: string) => Record<string, unknown>): Probe {
  const group = `pst-${id}`;
  return {
    id: `streams-${api}/${id}`,
    api,
    version,
    about,
    setup: async (ctx) => {
      await coordinatorsReady(ctx);
      await topicReady(ctx);
      if (setup === 'joined-left') {
        await ctx.call(88, 1, joinBody(group, 'pst-member-a'));
        await ctx.call(88, 1, joinBody(group, 'pst-member-b', { processId: 'pst-process-b' }));
        await ctx.call(88, 1, beatBody(group, 'pst-member-a', -1));
        await ctx.call(88, 1, beatBody(group, 'pst-member-b', -1));
      }
      if (setup === 'joined' || setup === 'joined-epoch-1') {
        const r = await ctx.call(88, 1, joinBody(group, 'pst-member-a', setup === 'joined-epoch-1' ? { topology: topology(TOPIC, 1) } : {}));
        if (r.errorCode !== 0) throw new Error(`StreamsGroupHeartbeat join ${group}: error ${r.errorCode} ${r.errorMessage ?? ''}`);
        ctx.state[group] = r.memberEpoch;
      }
      if (setup === 'consumer-group') {
        const r = await ctx.call(68, 1, { groupId: group, memberId: 'pst-member-a', memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: [TOPIC], topicPartitions: [] });
        if (r.errorCode !== 0) throw new Error(`ConsumerGroupHeartbeat join ${group}: error ${r.errorCode}`);
      }
    },
    body: (ctx) => body(ctx, group),
  };
}

export function streamsGroupProbes(): Probe[] {
  const hb = (id: string, about: string, setup: Setup, body: (ctx: ProbeCtx, g: string) => Record<string, unknown>, version = 1) => p(88, id, version, about, setup, body);
  return [
    hb('join', 'join with a topology on an existing topic: epoch, intervals, empty tasks while the first assignment is delayed', 'none', (_c, g) => joinBody(g, 'pst-member-a')),
    hb('v0-join', 'the same join at v0 (AcceptableRecoveryLagLegacy, no TopologyDescriptionRequired)', 'none', (_c, g) => joinBody(g, 'pst-member-a'), 0),
    hb('join-missing-source', 'a topology reading a missing topic: MISSING_SOURCE_TOPICS', 'none', (_c, g) => joinBody(g, 'pst-member-a', { topology: topology('pst-no-such-topic') })),
    hb('second-member', 'a second member of a group of one', 'joined', (_c, g) => joinBody(g, 'pst-member-b', { processId: 'pst-process-b' })),
    hb('heartbeat', 'a heartbeat at the member\'s epoch: no tasks in the answer', 'joined', (c, g) => beatBody(g, 'pst-member-a', c.state[g])),
    hb('heartbeat-owned', 'a heartbeat with the (empty) tasks it owns', 'joined', (c, g) => beatBody(g, 'pst-member-a', c.state[g], { activeTasks: [], standbyTasks: [], warmupTasks: [] })),
    hb('fenced-epoch', 'a heartbeat at a greater epoch: FENCED_MEMBER_EPOCH', 'joined', (c, g) => beatBody(g, 'pst-member-a', c.state[g] + 5)),
    hb('unknown-member', 'an unknown member heartbeats: UNKNOWN_MEMBER_ID', 'joined', (_c, g) => beatBody(g, 'pst-member-x', 3)),
    hb('unknown-group', 'a heartbeat to a group that does not exist: GROUP_ID_NOT_FOUND', 'none', (_c, g) => beatBody(g, 'pst-member-a', 3)),
    hb('empty-group-id', 'an empty group id: INVALID_REQUEST', 'none', () => joinBody('', 'pst-member-a')),
    hb('empty-member-id', 'an empty member id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, '')),
    hb('empty-rack', 'an empty rack id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pst-member-a', { rackId: '' })),
    hb('empty-instance', 'an empty instance id: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pst-member-a', { instanceId: '' })),
    hb('join-no-timeout', 'a join without a rebalance timeout: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pst-member-a', { rebalanceTimeoutMs: -1 })),
    hb('join-no-topology', 'a join without a topology: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pst-member-a', { topology: null })),
    hb('join-null-tasks', 'a join with null active tasks: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pst-member-a', { activeTasks: null })),
    hb('join-owned-tasks', 'a join claiming an active task: INVALID_REQUEST', 'none', (_c, g) => joinBody(g, 'pst-member-a', { activeTasks: [{ subtopologyId: '0', partitions: [0] }] })),
    hb('join-no-process', 'a join without a process id (accepted)', 'none', (_c, g) => joinBody(g, 'pst-member-a', { processId: null })),
    hb('bad-epoch', 'member epoch -3: INVALID_REQUEST', 'none', (_c, g) => beatBody(g, 'pst-member-a', -3)),
    hb('topology-update', 'a second member with another topology: INVALID_REQUEST', 'joined', (_c, g) => joinBody(g, 'pst-member-b', { topology: topology('pst-other-topic') })),
    hb('stale-topology', 'a second member with an older topology epoch joins: STALE_TOPOLOGY', 'joined-epoch-1', (_c, g) => joinBody(g, 'pst-member-b', { topology: topology(TOPIC, 0) })),
    hb('newer-topology', 'a second member with a newer topology epoch: INVALID_REQUEST', 'joined', (_c, g) => joinBody(g, 'pst-member-b', { topology: topology(TOPIC, 1) })),
    hb('shutdown-application', 'a member asks the whole application to shut down: SHUTDOWN_APPLICATION naming it', 'joined', (c, g) => beatBody(g, 'pst-member-a', c.state[g], { shutdownApplication: true })),
    hb('rejoin-after-empty', 'a member joins a group its two members left: the initial delay again', 'joined-left', (_c, g) => joinBody(g, 'pst-member-c')),
    hb('leave', 'a member leaves: epoch -1', 'joined', (_c, g) => beatBody(g, 'pst-member-a', -1)),
    hb('leave-unknown', 'an unknown member leaves', 'joined', (_c, g) => beatBody(g, 'pst-member-x', -1)),
    hb('leave-unknown-group', 'a member of a group that does not exist leaves', 'none', (_c, g) => beatBody(g, 'pst-member-a', -1)),
    hb('consumer-group-id', 'a streams join to a consumer group\'s id', 'consumer-group', (_c, g) => joinBody(g, 'pst-member-b')),
    p(89, 'describe-unknown', 1, 'describe an unknown group', 'none', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false, includeTopologyDescription: false })),
    p(89, 'describe-joined', 1, 'describe a streams group of one member, with the topology description asked for (no plugin: NOT_STORED)', 'joined', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false, includeTopologyDescription: true })),
    p(89, 'v0-describe-joined', 0, 'the same at v0', 'joined', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    p(89, 'describe-operations', 1, 'describe with the authorized operations', 'joined', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: true, includeTopologyDescription: false })),
    p(89, 'describe-empty', 1, 'describe a group whose two members left: Empty, the topology kept, the epochs', 'joined-left', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false, includeTopologyDescription: false })),
    p(89, 'describe-consumer-group', 1, 'describe a consumer group\'s id as a streams group', 'consumer-group', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false, includeTopologyDescription: false })),
    p(69, 'consumer-describe-streams-id', 1, 'ConsumerGroupDescribe of a streams group', 'joined', (_c, g) => ({ groupIds: [g], includeAuthorizedOperations: false })),
    p(15, 'describegroups-streams-id', 6, 'DescribeGroups v6 of a streams group', 'joined', (_c, g) => ({ groups: [g], includeAuthorizedOperations: false })),
    p(15, 'v5-describegroups-streams-id', 5, 'DescribeGroups v5 of a streams group', 'joined', (_c, g) => ({ groups: [g], includeAuthorizedOperations: false })),
    p(68, 'consumer-join-streams-id', 1, 'a consumer-protocol member joins a streams group\'s id', 'joined', (_c, g) => ({ groupId: g, memberId: 'pst-member-c', memberEpoch: 0, rebalanceTimeoutMs: 300_000, subscribedTopicNames: [TOPIC], topicPartitions: [] })),
    p(8, 'commit-no-member', 9, 'an offset commit without a member (epoch -1) to a streams group with a member', 'joined', (_c, g) => ({
      groupId: g, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    })),
    p(8, 'commit-stale-epoch', 9, 'an offset commit by the member at an older epoch: STALE_MEMBER_EPOCH', 'joined', (c, g) => ({
      groupId: g, generationIdOrMemberEpoch: c.state[g] - 1, memberId: 'pst-member-a', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    })),
    p(8, 'commit-member', 9, 'an offset commit by the member at its epoch', 'joined', (c, g) => ({
      groupId: g, generationIdOrMemberEpoch: c.state[g], memberId: 'pst-member-a', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    })),
    p(42, 'delete-non-empty', 2, 'DeleteGroups of a streams group with a member: NON_EMPTY_GROUP', 'joined', (_c, g) => ({ groupsNames: [g] })),
    p(93, 'topology-description', 0, 'a topology description pushed without a plugin on the broker', 'joined', (c, g) => ({
      groupId: g, memberId: 'pst-member-a', topologyEpoch: 0,
      topologyDescription: { subtopologies: [{ subtopologyId: '0', nodes: [{ name: 'KSTREAM-SOURCE-0000000000', nodeType: 1, sourceTopics: [TOPIC], sinkTopic: null, stores: [], successors: [] }] }], globalStores: [] },
    })),
  ];
}
