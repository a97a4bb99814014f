/**
 * Probes: KIP-1071 streams groups. StreamsGroupHeartbeat (joins with a topology, its statuses,
 * heartbeats, leaves, Kafka's validation and errors, v0 and v1), StreamsGroupDescribe (streams,
 * consumer and unknown groups, v0 and v1), what other group APIs answer for a streams group, and
 * StreamsGroupTopologyDescriptionUpdate without a topology description plugin. Each probe uses a
 * group of its own (`pst-<id>`); member ids are the probe's own. The first assignment of a new
 * group waits for group.streams.initial.rebalance.delay.ms (3 s on both): the answers within it
 * carry ASSIGNMENT_DELAYED on both.
 * Task assignment (assignmentProbes): groups whose configs (GROUP resources) set standby replicas,
 * no initial delay and no assignment batching run a stateful topology over a 4-partition topic
 * with members in several processes, reconciling as Streams clients do, until Stable; the
 * describe answers compare every member's tasks and target with Kafka 4.4's StickyTaskAssignor
 * placement (standbys, task offsets ranking standby candidates), an altered
 * streams.num.standby.replicas bumping the epoch, and MISSING_CLIENT_TAGS. The member ids fall in
 * different buckets of Java's hash map, so no tie depends on the order Kafka keeps its members in.
 */
import { coordinatorsReady, createTopic } from './fixtures.js';
import { keyedAt, type Json } from './normalise.js';
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
    ...assignmentProbes(),
  ];
}

// -------------------------------------------------------------------------------------------
// Task assignment

const TOPIC4 = 'pst-topic-4';
const GROUP_RESOURCE = 32;

/** One stateful subtopology (a store with its changelog) reading the 4-partition topic. */
function statefulTopology(group: string): Record<string, unknown> {
  return {
    epoch: 0,
    subtopologies: [{
      subtopologyId: '0', sourceTopics: [TOPIC4], sourceTopicRegex: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [],
      stateChangelogTopics: [{ name: `${group}-store-changelog`, partitions: 0, replicationFactor: 0, topicConfigs: [] }],
    }],
  };
}

/** Sets group configs and waits until DescribeConfigs shows them (Kafka applies them through its metadata log). */
async function setGroupConfigs(ctx: ProbeCtx, group: string, configs: Record<string, string>): Promise<void> {
  const r = await ctx.call(44, 1, {
    resources: [{ resourceType: GROUP_RESOURCE, resourceName: group, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })) }],
    validateOnly: false,
  });
  if (r.responses[0].errorCode !== 0) throw new Error(`IncrementalAlterConfigs ${group}: error ${r.responses[0].errorCode} ${r.responses[0].errorMessage ?? ''}`);
  await ctx.waitFor(`${group} configs applied`, async () => {
    const d = await ctx.call(32, 4, { resources: [{ resourceType: GROUP_RESOURCE, resourceName: group, configurationKeys: Object.keys(configs) }], includeSynonyms: false, includeDocumentation: false });
    return Object.entries(configs).every(([k, v]) => d.results[0].configs.some((c: { name: string; value: string }) => c.name === k && c.value === v));
  });
}

interface SimMember { memberId: string; epoch: number; active: unknown[]; standby: unknown[]; warmup: unknown[] }

/** A heartbeat reporting the tasks the member holds; it takes what the answer gives (a Streams client's reconciliation). */
async function beat(ctx: ProbeCtx, group: string, m: SimMember, over: Record<string, unknown> = {}): Promise<any> {
  const r = await ctx.call(88, 1, beatBody(group, m.memberId, m.epoch, { activeTasks: m.active, standbyTasks: m.standby, warmupTasks: m.warmup, ...over }));
  if (r.errorCode !== 0) throw new Error(`StreamsGroupHeartbeat ${group}/${m.memberId}: error ${r.errorCode} ${r.errorMessage ?? ''}`);
  m.epoch = r.memberEpoch;
  if (r.activeTasks !== null) [m.active, m.standby, m.warmup] = [r.activeTasks, r.standbyTasks, r.warmupTasks];
  return r;
}

async function joinMember(ctx: ProbeCtx, group: string, memberId: string, processId: string, over: Record<string, unknown> = {}): Promise<SimMember> {
  const m: SimMember = { memberId, epoch: 0, active: [], standby: [], warmup: [] };
  const r = await ctx.call(88, 1, joinBody(group, memberId, { topology: statefulTopology(group), processId, ...over }));
  if (r.errorCode !== 0) throw new Error(`StreamsGroupHeartbeat join ${group}/${memberId}: error ${r.errorCode} ${r.errorMessage ?? ''}`);
  m.epoch = r.memberEpoch;
  if (r.activeTasks !== null) [m.active, m.standby, m.warmup] = [r.activeTasks, r.standbyTasks, r.warmupTasks];
  return m;
}

/** Heartbeats every member until the group is Stable (its changelog topic created by the broker on the way). */
async function settle(ctx: ProbeCtx, group: string, members: SimMember[]): Promise<void> {
  await ctx.waitFor(`${group} Stable`, async () => {
    for (const m of members) await beat(ctx, group, m);
    const d = await ctx.call(89, 1, { groupIds: [group], includeAuthorizedOperations: false, includeTopologyDescription: false });
    return d.groups[0].groupState === 'Stable';
  }, 30_000);
}

// A 1 ms initial delay (not 0: Kafka 4.4's first join with 0 is a difference of its own, docs/gaps.md).
const ASSIGN_CONFIGS = { 'streams.initial.rebalance.delay.ms': '1', 'streams.assignment.interval.ms': '0' };

/** Describe answers: members by id (each broker lists them in its own order), task partitions sorted. */
function describedByMember(j: Json): Json {
  const sortParts = (x: any) => {
    if (x && typeof x === 'object') {
      for (const [k, v] of Object.entries(x)) {
        if (k === 'partitions' && Array.isArray(v)) (v as number[]).sort((a, b) => a - b);
        else sortParts(v);
      }
    }
  };
  sortParts(j);
  return keyedAt(j, 'groups.[].members', 'memberId');
}

function assignmentProbes(): Probe[] {
  const topic4 = (ctx: ProbeCtx) => ctx.once('streams-group-topic-4', () => createTopic(ctx, TOPIC4, 4));
  const describe = (id: string, about: string, setup: (ctx: ProbeCtx, group: string) => Promise<void>): Probe => {
    const group = `pst-${id}`;
    return {
      id: `streams-89/${id}`, api: 89, version: 1, about,
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await topic4(ctx);
        await setup(ctx, group);
      },
      body: { groupIds: [group], includeAuthorizedOperations: false, includeTopologyDescription: false },
      normalise: describedByMember,
    };
  };
  return [
    describe('standby-placement', 'three processes, one standby replica: each member\'s active and standby tasks as Kafka\'s sticky assignor places them', async (ctx, g) => {
      await setGroupConfigs(ctx, g, { ...ASSIGN_CONFIGS, 'streams.num.standby.replicas': '1' });
      const ms: SimMember[] = [];
      for (const [id, proc] of [['pst-member-a', 'pst-process-1'], ['pst-member-b', 'pst-process-2'], ['pst-member-c', 'pst-process-3']]) {
        ms.push(await joinMember(ctx, g, id, proc));
        await settle(ctx, g, ms);
      }
    }),
    describe('first-assignment-ties', 'three processes join within the initial delay: the first assignment, every load tied, breaks ties in Kafka\'s hash map and heap orders', async (ctx, g) => {
      await createTopic(ctx, `${g}-store-changelog`, 4);
      await setGroupConfigs(ctx, g, { 'streams.assignment.interval.ms': '0', 'streams.num.standby.replicas': '1', 'streams.initial.rebalance.delay.ms': '2000' });
      const ms: SimMember[] = [];
      for (const [id, proc] of [['pst-member-a', 'pst-process-1'], ['pst-member-b', 'pst-process-2'], ['pst-member-c', 'pst-process-3']]) ms.push(await joinMember(ctx, g, id, proc));
      await new Promise((r) => setTimeout(r, 2200));
      await settle(ctx, g, ms);
    }),
    describe('offsets-standby-candidates', 'a third process joins reporting task offsets (state on its disk): it becomes a standby candidate of those tasks, as in Kafka 4.4', async (ctx, g) => {
      await setGroupConfigs(ctx, g, { ...ASSIGN_CONFIGS, 'streams.num.standby.replicas': '1' });
      const ms = [await joinMember(ctx, g, 'pst-member-a', 'pst-process-1')];
      await settle(ctx, g, ms);
      ms.push(await joinMember(ctx, g, 'pst-member-b', 'pst-process-2'));
      await settle(ctx, g, ms);
      const offsets = [[0, 900n], [1, 50n], [2, 700n], [3, 10n]].map(([partition, offset]) => ({ subtopologyId: '0', partition, offset }));
      ms.push(await joinMember(ctx, g, 'pst-member-c', 'pst-process-3', { taskOffsets: offsets, taskEndOffsets: [] }));
      await settle(ctx, g, ms);
    }),
    {
      id: 'streams-88/standby-config-changed', api: 88, version: 1,
      about: 'streams.num.standby.replicas altered on a Stable group: the next heartbeat bumps the epoch and gives standbys',
      setup: async (ctx) => {
        const g = 'pst-standby-config-changed';
        await coordinatorsReady(ctx);
        await topic4(ctx);
        await setGroupConfigs(ctx, g, ASSIGN_CONFIGS);
        const ms = [await joinMember(ctx, g, 'pst-member-a', 'pst-process-1')];
        await settle(ctx, g, ms);
        ms.push(await joinMember(ctx, g, 'pst-member-b', 'pst-process-2'));
        await settle(ctx, g, ms);
        await setGroupConfigs(ctx, g, { 'streams.num.standby.replicas': '1' });
        ctx.state[g] = ms[0];
      },
      body: (ctx) => {
        const m = ctx.state['pst-standby-config-changed'] as SimMember;
        return beatBody('pst-standby-config-changed', m.memberId, m.epoch, { activeTasks: m.active, standbyTasks: m.standby, warmupTasks: m.warmup });
      },
    },
    ...[1, 0].map((version): Probe => ({
      id: `streams-88/${version === 0 ? 'v0-' : ''}missing-client-tags`, api: 88, version,
      about: `a join without the client tags streams.rack.aware.assignment.tags names${version === 0 ? ' at v0 (no MISSING_CLIENT_TAGS before v1)' : ': MISSING_CLIENT_TAGS'}`,
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await topicReady(ctx);
        await setGroupConfigs(ctx, `pst-missing-client-tags-v${version}`, { 'streams.rack.aware.assignment.tags': 'zone,rack' });
      },
      body: joinBody(`pst-missing-client-tags-v${version}`, 'pst-member-a', { clientTags: [{ key: 'zone', value: 'z1' }] }),
    })),
  ];
}

