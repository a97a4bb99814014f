/**
 * What other APIs ask of a shard's streams groups: StreamsGroupDescribe, ListGroups entries, the
 * member-epoch checks of OffsetCommit / TxnOffsetCommit / OffsetFetch (Kafka's
 * StreamsGroup.validateOffsetCommit and validateOffsetFetch), DeleteGroups and offset expiration.
 * Runs inside the shard's operations, like the manager whose state it reads.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribedGroup, Member, Assignment as WireAssignment, TopicInfo } from '../../protocol/generated/messages/streams-group-describe-response.js';
import type { ListedGroup } from '../../protocol/generated/messages/list-groups-response.js';
import { listGroupsOfType } from './list-groups.js';
import { STREAMS_ASSIGNOR_NAME } from './assignor/streams-sticky.js';
import type { StreamsGroupManager } from './streams-group-manager.js';
import { type StreamsGroup, type StreamsGroupMember, type TasksTuple, emptyTasks, toTaskIds } from './streams-group.js';
import type { StreamsGroupRecord } from './streams-group-records.js';
import { configureTopology } from './streams-topology.js';
import type { TopicView } from './topic-view.js';

const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;
/** StreamsGroupDescribeResponse.TopologyDescriptionStatus (v1). */
const TOPOLOGY_DESCRIPTION_NOT_REQUESTED = 0;
const TOPOLOGY_DESCRIPTION_NOT_STORED = 1;

function wireTasks(t: TasksTuple): WireAssignment {
  return { activeTasks: toTaskIds(t.active), standbyTasks: toTaskIds(t.standby), warmupTasks: toTaskIds(t.warmup) };
}

function taskOffsetList(m: Map<string, Map<number, bigint>> | undefined): { subtopologyId: string; partition: number; offset: bigint }[] {
  const out: { subtopologyId: string; partition: number; offset: bigint }[] = [];
  for (const [subtopologyId, parts] of [...(m ?? [])].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) {
    for (const [partition, offset] of [...parts].sort((a, b) => a[0] - b[0])) out.push({ subtopologyId, partition, offset });
  }
  return out;
}

export class StreamsGroupQueries {
  constructor(private readonly manager: StreamsGroupManager, private readonly topics: TopicView, private readonly groupTypeOf: (groupId: string) => string | null) {}

  has(groupId: string): boolean {
    return this.manager.groups.has(groupId);
  }

  private group(groupId: string): StreamsGroup | undefined {
    return this.manager.groups.get(groupId);
  }

  /** StreamsGroupDescribe of one group. */
  describe(groupId: string, authorizedOperations: number, includeTopologyDescription: boolean): DescribedGroup {
    const g = this.group(groupId);
    if (!g) {
      const other = this.groupTypeOf(groupId);
      return {
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: other !== null ? `Group ${groupId} is not a streams group.` : `Group ${groupId} not found.`,
        groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, topology: null, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
        topologyDescription: null, topologyDescriptionStatus: TOPOLOGY_DESCRIPTION_NOT_REQUESTED, assignorName: null,
      };
    }
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: g.state, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch,
      topology: this.describeTopology(g),
      members: [...g.members.values()].map((m) => this.describeMember(g, m)),
      authorizedOperations,
      topologyDescription: null,
      topologyDescriptionStatus: includeTopologyDescription ? TOPOLOGY_DESCRIPTION_NOT_STORED : TOPOLOGY_DESCRIPTION_NOT_REQUESTED,
      assignorName: STREAMS_ASSIGNOR_NAME,
    };
  }

  /** The stored topology, with the partition counts of its internal topics once they are known. */
  private describeTopology(g: StreamsGroup): DescribedGroup['topology'] {
    if (g.topology === null) return null;
    const configured = configureTopology(g.topology, this.topics);
    const info = (t: { name: string; partitions: number; replicationFactor: number; topicConfigs: { key: string; value: string }[] }): TopicInfo => ({
      name: t.name, partitions: configured.internalPartitions.get(t.name) ?? t.partitions, replicationFactor: t.replicationFactor,
      topicConfigs: t.topicConfigs.map((c) => ({ key: c.key, value: c.value })),
    });
    return {
      epoch: g.topology.epoch,
      subtopologies: g.topology.subtopologies.map((s) => ({
        subtopologyId: s.subtopologyId,
        sourceTopics: [...s.sourceTopics],
        repartitionSinkTopics: [...s.repartitionSinkTopics],
        stateChangelogTopics: s.stateChangelogTopics.map(info),
        repartitionSourceTopics: s.repartitionSourceTopics.map(info),
      })),
    };
  }

  private describeMember(g: StreamsGroup, m: StreamsGroupMember): Member {
    return {
      memberId: m.memberId, memberEpoch: m.memberEpoch, instanceId: m.instanceId, rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost,
      topologyEpoch: m.topologyEpoch, processId: m.processId, userEndpoint: m.userEndpoint && { ...m.userEndpoint },
      clientTags: m.clientTags.map((t) => ({ ...t })),
      taskOffsets: taskOffsetList(g.taskOffsets.get(m.memberId)?.offsets), taskEndOffsets: taskOffsetList(g.taskOffsets.get(m.memberId)?.endOffsets),
      assignment: wireTasks(m.assigned), targetAssignment: wireTasks(g.target.get(m.memberId) ?? emptyTasks()), isClassic: false,
    };
  }

  /** ListGroups entries of the streams groups (states compared case-insensitively). */
  list(statesFilter: string[], typesFilter: string[]): ListedGroup[] {
    return listGroupsOfType(this.manager.groups.values(), 'streams', statesFilter, typesFilter);
  }

  /**
   * OffsetCommit / TxnOffsetCommit group checks for a streams group, or undefined when `groupId`
   * is not one: epoch -1 commits only to an Empty group; otherwise the member must exist
   * (UNKNOWN_MEMBER_ID), use OffsetCommit v9+ unless transactional (UNSUPPORTED_VERSION) and its
   * current member epoch (STALE_MEMBER_EPOCH).
   */
  validateOffsetCommit(req: { groupId: string; generationId: number; memberId: string }, apiVersion: number, transactional: boolean): number | undefined {
    const g = this.group(req.groupId);
    if (!g) return undefined;
    if (req.generationId < 0 && g.members.size === 0) return ErrorCode.NONE;
    const m = g.members.get(req.memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (!transactional && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
    if (req.generationId !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** OffsetFetch v9+'s member check (NONE when not a streams group, or no member given). */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const g = this.group(groupId);
    if (!g) return ErrorCode.NONE;
    if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
    const m = memberId === null ? undefined : g.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** DeleteGroups precondition, or undefined when `groupId` is not a streams group. */
  deletable(groupId: string): number | undefined {
    const g = this.group(groupId);
    if (!g) return undefined;
    return g.members.size === 0 ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
  }

  /** The tombstones deleting an (Empty) streams group's records. */
  groupTombstones(groupId: string): StreamsGroupRecord[] {
    const g = this.group(groupId);
    const out: StreamsGroupRecord[] = [];
    for (const id of g?.members.keys() ?? []) out.push(...this.manager.memberTombstones(groupId, id));
    for (const id of g?.target.keys() ?? []) if (!g!.members.has(id)) out.push({ type: 'st-target-member', groupId, memberId: id, value: null });
    out.push({ type: 'st-target-metadata', groupId, value: null });
    out.push({ type: 'st-topology', groupId, value: null });
    out.push({ type: 'st-metadata', groupId, value: null });
    return out;
  }

  /** The topics a non-empty group reads (their offsets do not expire). */
  private sourceTopics(g: StreamsGroup): Set<string> {
    const out = new Set<string>();
    if (g.members.size === 0 || g.topology === null) return out;
    for (const s of g.topology.subtopologies) {
      for (const t of s.sourceTopics) out.add(t);
      for (const r of s.repartitionSourceTopics) out.add(r.name);
    }
    return out;
  }

  /** Topics OffsetDelete may not touch: those a non-empty group reads; undefined: not a streams group. */
  subscribedTopics(groupId: string): Set<string> | undefined {
    const g = this.group(groupId);
    return g ? this.sourceTopics(g) : undefined;
  }

  forExpiration(): { groupId: string; empty: boolean; subscribed: Set<string> }[] {
    return [...this.manager.groups.values()].map((g) => ({ groupId: g.groupId, empty: g.members.size === 0, subscribed: this.sourceTopics(g) }));
  }
}
