/**
 * The streams group protocol of one coordinator shard (KIP-1071; Kafka's GroupMetadataManager,
 * streams part): StreamsGroupHeartbeat (join with the topology, heartbeat, leave, static
 * members), the configured topology and its statuses, the target assignment, reconciliation,
 * session and revocation timeouts, replay of the streams-group records. Describe, list, offset
 * checks and deletion are in streams-group-queries.ts.
 *
 * One heartbeat, in Kafka's order:
 * 1. validate the request (INVALID_REQUEST with Kafka's messages; STREAMS_INVALID_TOPOLOGY);
 * 2. find the group (created on a join; GROUP_ID_NOT_FOUND for a group of another type; a join to
 *    a group of group.streams.max.size members GROUP_MAX_SIZE_REACHED) and the member
 *    (UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID);
 * 3. take the topology (first join, or a higher topology epoch) and the member's metadata; bump
 *    the group epoch when members, topology, the shape of its topics or the assignment configs
 *    (num.standby.replicas, rack.aware.assignment.tags) changed;
 * 4. configure the topology against the topics (streams-topology.ts): its problem becomes a
 *    status, and the internal topics it lacks are returned for the caller to create (Kafka's
 *    KafkaApis creates them after the heartbeat, through the controller);
 * 5. when the group epoch is ahead of the target's, compute the target (streams-target-assignment.ts,
 *    Kafka's sticky assignor, with the task offsets this heartbeat reports; empty while the
 *    topology is not ready; delayed by streams.initial.rebalance.delay.ms after the first member
 *    joins an empty group, and batched by streams.assignment.interval.ms); no warm-up tasks, as
 *    Kafka 4.4.0's AssignmentRefiner leaves the target as it is;
 * 6. reconcile the member (streams-current-assignment.ts) and answer (MISSING_CLIENT_TAGS last).
 *
 * Everything here only computes records; `replay` applies them (the shard's queue owns this
 * state: every read and check of a heartbeat happens in its one operation). Timers are in memory.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { StreamsGroupHeartbeatRequest } from '../../protocol/generated/messages/streams-group-heartbeat-request.js';
import type { StreamsGroupHeartbeatResponse, EndpointToPartitions } from '../../protocol/generated/messages/streams-group-heartbeat-response.js';
import type { CoordinatorResult, ShardContext } from '../runtime/runtime.js';
import type { GroupConfigLookup } from './group-configs.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import type { GroupCoordinatorRecord } from './records.js';
import { newMemberId } from './consumer-group.js';
import { reconcileStreamsMember } from './streams-current-assignment.js';
import {
  type MemberTaskOffsets, StreamsGroup, StreamsGroupMember, StreamsMemberState, type StreamsTopology, type TasksTuple,
  emptyTasks, fromTaskIds, tasksEmpty, toTaskIds,
} from './streams-group.js';
import type { StreamsGroupRecord } from './streams-group-records.js';
import { configureTopology, isReady, StreamsStatus, topicsHash, topologyError, type ConfiguredTopology, type InternalTopicToCreate } from './streams-topology.js';
import {
  type AssignmentConfigs, assignmentConfigs, computeStreamsTarget, missingClientTagsDetail, sameAssignmentConfigs, standbyReplicasOf, updateTaskOffsets,
} from './streams-target-assignment.js';
import type { TopicView } from './topic-view.js';
import type { HeartbeatContext } from './consumer-group-manager.js';
import { assignmentsEqual } from './consumer-group.js';

type Rec = GroupCoordinatorRecord;
type Response = StreamsGroupHeartbeatResponse;

/** Who sends a StreamsGroupHeartbeat: the consumer protocol's context. */
export type StreamsHeartbeatContext = HeartbeatContext;

export interface StreamsHeartbeatResult {
  response: Response;
  /** Internal topics the topology needs and the cluster lacks: the caller creates them. */
  internalTopicsToCreate: InternalTopicToCreate[];
}

/** The streams.* group settings a heartbeat reads (Kafka's defaults when no lookup is given). */
export interface StreamsSettings {
  sessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  numStandbyReplicas: number;
  /** streams.rack.aware.assignment.tags: only checked against members' client tags (MISSING_CLIENT_TAGS), as in Kafka 4.4. */
  rackAwareAssignmentTags: string[];
  initialRebalanceDelayMs: number;
  assignmentIntervalMs: number;
  taskOffsetIntervalMs: number;
  acceptableRecoveryLag: number;
}

export const DEFAULT_STREAMS_SETTINGS: StreamsSettings = {
  sessionTimeoutMs: 45000, heartbeatIntervalMs: 5000, numStandbyReplicas: 0, rackAwareAssignmentTags: [], initialRebalanceDelayMs: 3000,
  assignmentIntervalMs: 1000, taskOffsetIntervalMs: 60000, acceptableRecoveryLag: 10000,
};

export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;
const DELAYED_DETAIL = 'Assignment delayed due to the configured initial rebalance delay.';

class HeartbeatError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

const sessionKey = (g: string, m: string) => `sg-session-${g}-${m}`;
const revocationKey = (g: string, m: string) => `sg-revocation-${g}-${m}`;

function errorResponse(errorCode: number, errorMessage: string | null): Response {
  return {
    throttleTimeMs: 0, errorCode, errorMessage, memberId: '', memberEpoch: 0, heartbeatIntervalMs: 0, acceptableRecoveryLagLegacy: 0,
    taskOffsetIntervalMs: 0, acceptableRecoveryLag: -1n, status: [], activeTasks: null, standbyTasks: null, warmupTasks: null,
    topologyDescriptionRequired: false, endpointInformationEpoch: 0, partitionsByUserEndpoint: null,
  };
}

function ownedTasks(req: StreamsGroupHeartbeatRequest, member: StreamsGroupMember): TasksTuple | null {
  if (req.activeTasks === null && req.standbyTasks === null && req.warmupTasks === null) return null;
  return {
    active: req.activeTasks === null ? member.assigned.active : fromTaskIds(req.activeTasks),
    standby: req.standbyTasks === null ? member.assigned.standby : fromTaskIds(req.standbyTasks),
    warmup: req.warmupTasks === null ? member.assigned.warmup : fromTaskIds(req.warmupTasks),
  };
}

function tasksEqual(a: TasksTuple, b: TasksTuple): boolean {
  return assignmentsEqual(a.active, b.active) && assignmentsEqual(a.standby, b.standby) && assignmentsEqual(a.warmup, b.warmup);
}

export class StreamsGroupManager {
  readonly groups = new Map<string, StreamsGroup>();
  /** Whether another kind of group (consumer, share) has this id (set by the shard). */
  isOtherGroup: (groupId: string) => boolean = () => false;

  private readonly groupConfigs?: GroupConfigLookup;
  /** group.streams.max.size: joins beyond it are refused (GROUP_MAX_SIZE_REACHED). */
  private readonly maxSize: number;

  constructor(
    private readonly ctx: ShardContext<Rec>,
    private readonly classic: GroupMetadataManager,
    private readonly topics: TopicView,
    opts: { groupConfigs?: GroupConfigLookup; maxSize?: number } = {},
  ) {
    this.groupConfigs = opts.groupConfigs;
    this.maxSize = opts.maxSize ?? 2147483647;
  }

  settings(groupId: string): StreamsSettings {
    if (!this.groupConfigs) return DEFAULT_STREAMS_SETTINGS;
    const c = this.groupConfigs.resolve(groupId);
    return {
      sessionTimeoutMs: c['streams.session.timeout.ms'], heartbeatIntervalMs: c['streams.heartbeat.interval.ms'],
      numStandbyReplicas: c['streams.num.standby.replicas'], rackAwareAssignmentTags: [...c['streams.rack.aware.assignment.tags']],
      initialRebalanceDelayMs: c['streams.initial.rebalance.delay.ms'],
      assignmentIntervalMs: c['streams.assignment.interval.ms'], taskOffsetIntervalMs: c['streams.task.offset.interval.ms'],
      acceptableRecoveryLag: Number(c['streams.acceptable.recovery.lag']),
    };
  }

  // -------------------------------------------------------------------------------------------
  // StreamsGroupHeartbeat

  heartbeat(hc: StreamsHeartbeatContext, req: StreamsGroupHeartbeatRequest): CoordinatorResult<StreamsHeartbeatResult, Rec> {
    try {
      this.validate(req);
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) return this.leave(req);
      return this.regularHeartbeat(hc, req);
    } catch (err) {
      if (!(err instanceof HeartbeatError)) throw err;
      return { records: [], response: () => ({ response: errorResponse(err.errorCode, err.message), internalTopicsToCreate: [] }) };
    }
  }

  /** Kafka's throwIfStreamsGroupHeartbeatRequestIsInvalid. */
  private validate(req: StreamsGroupHeartbeatRequest): void {
    const invalid = (message: string) => new HeartbeatError(ErrorCode.INVALID_REQUEST, message);
    if (req.memberId === '') throw invalid("MemberId can't be empty.");
    if (req.groupId === '') throw invalid("GroupId can't be empty.");
    if (req.instanceId === '') throw invalid("InstanceId can't be empty.");
    if (req.rackId === '') throw invalid("RackId can't be empty.");
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.activeTasks === null || req.activeTasks.length > 0) throw invalid('ActiveTasks must be empty when (re-)joining.');
      if (req.standbyTasks === null || req.standbyTasks.length > 0) throw invalid('StandbyTasks must be empty when (re-)joining.');
      if (req.warmupTasks === null || req.warmupTasks.length > 0) throw invalid('WarmupTasks must be empty when (re-)joining.');
      if (req.topology === null) throw invalid('Topology must be non-null when (re-)joining.');
    } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      if (req.instanceId === null) throw invalid("InstanceId can't be null.");
    } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw invalid(`MemberEpoch is ${req.memberEpoch}, but must be greater than or equal to -2.`);
    }
    if (req.topology !== null) {
      const why = topologyError(req.topology as StreamsTopology);
      if (why !== null) throw new HeartbeatError(ErrorCode.STREAMS_INVALID_TOPOLOGY, why);
    }
  }

  private groupFor(groupId: string, create: boolean, records: Rec[]): StreamsGroup {
    const existing = this.groups.get(groupId);
    if (existing) return existing;
    if (this.isOtherGroup(groupId)) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);
    const classic = this.classic.groups.get(groupId);
    if (classic && !classic.is('Dead')) {
      if (!classic.is('Empty') || classic.pendingMembers.size > 0) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a streams group.`);
      // An Empty classic group (offsets only) becomes the streams group; its offsets stay.
      if (create) records.push(this.classic.groupTombstone(groupId));
    }
    if (!create) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Streams group ${groupId} not found.`);
    const g = new StreamsGroup(groupId);
    g.createdMs = this.ctx.now();
    return g;
  }

  private memberFor(group: StreamsGroup, req: StreamsGroupHeartbeatRequest): { member: StreamsGroupMember; replaced: StreamsGroupMember | null; isNew: boolean } {
    const memberId = req.memberId !== '' ? req.memberId : newMemberId();
    if (req.instanceId === null) {
      const m = group.members.get(memberId);
      if (m) {
        if (req.memberEpoch !== 0) this.throwIfEpochInvalid(m, req);
        return { member: m, replaced: null, isNew: false };
      }
      if (req.memberEpoch !== 0) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${req.groupId}.`);
      return { member: new StreamsGroupMember(memberId), replaced: null, isNew: true };
    }
    const existing = group.staticMember(req.instanceId);
    if (req.memberEpoch === 0) {
      if (!existing) {
        const m = new StreamsGroupMember(memberId);
        m.instanceId = req.instanceId;
        return { member: m, replaced: null, isNew: true };
      }
      if (existing.memberId === memberId) return { member: existing, replaced: null, isNew: false };
      if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        throw new HeartbeatError(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`);
      }
      const m = existing.copyAs(memberId);
      m.memberEpoch = 0;
      m.previousMemberEpoch = 0;
      return { member: m, replaced: existing, isNew: false };
    }
    if (!existing) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
    if (existing.memberId !== memberId) {
      throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${existing.memberId}.`);
    }
    this.throwIfEpochInvalid(existing, req);
    return { member: existing, replaced: null, isNew: false };
  }

  /** Kafka's throwIfStreamsGroupMemberEpochIsInvalid. */
  private throwIfEpochInvalid(member: StreamsGroupMember, req: StreamsGroupHeartbeatRequest): void {
    const received = req.memberEpoch;
    const fence = (which: string) => new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH,
      `The streams group member has a ${which} member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`);
    if (received > member.memberEpoch) throw fence('greater');
    if (received < member.memberEpoch) {
      const owned = ownedTasks(req, member);
      const subset = owned !== null && (['active', 'standby', 'warmup'] as const).every((role) =>
        [...owned[role]].every(([sub, parts]) => [...parts].every((p) => member.assigned[role].get(sub)?.has(p))));
      if (received !== member.previousMemberEpoch || !subset) throw fence('smaller');
    }
  }

  private regularHeartbeat(hc: StreamsHeartbeatContext, req: StreamsGroupHeartbeatRequest): CoordinatorResult<StreamsHeartbeatResult, Rec> {
    const records: Rec[] = [];
    const group = this.groupFor(req.groupId, req.memberEpoch === 0, records);
    if (req.memberEpoch === 0) this.throwIfGroupIsFull(group, req);
    const { member, replaced, isNew } = this.memberFor(group, req);
    const s = this.settings(group.groupId);
    const configs = assignmentConfigs(s.numStandbyReplicas, s.rackAwareAssignmentTags);
    const now = this.ctx.now();
    const statuses: { statusCode: number; statusDetail: string }[] = [];

    // The topology: set by the first join and kept for the group's life, as in Kafka 4.4: a member
    // with an older topology epoch joins (STALE_TOPOLOGY below), a different topology at the
    // group's epoch or a newer one is refused, even when the group is empty.
    let topology = group.topology;
    let topologyChanged = false;
    if (req.memberEpoch === 0 && req.topology !== null) {
      const sent = req.topology as StreamsTopology;
      if (topology === null) {
        topology = sent;
        topologyChanged = true;
      } else if (sent.epoch >= topology.epoch && JSON.stringify(sent) !== JSON.stringify(topology)) {
        throw new HeartbeatError(ErrorCode.INVALID_REQUEST, 'Topology updates are not supported yet.');
      }
    }

    // The member's metadata.
    const updated = member.clone();
    if (req.instanceId !== null) updated.instanceId = req.instanceId;
    if (req.rackId !== null) updated.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) updated.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.topology !== null) updated.topologyEpoch = req.topology.epoch;
    if (req.processId !== null) updated.processId = req.processId;
    if (req.memberEpoch === 0 || req.userEndpoint !== null) updated.userEndpoint = req.userEndpoint && { host: req.userEndpoint.host, port: req.userEndpoint.port };
    if (req.clientTags !== null) updated.clientTags = req.clientTags.map((t) => ({ key: t.key, value: t.value }));
    updated.clientId = hc.clientId;
    updated.clientHost = hc.clientHost;
    const assignmentInputsChanged = isNew || replaced !== null || updated.processId !== member.processId || updated.rackId !== member.rackId
      || updated.topologyEpoch !== member.topologyEpoch || !sameTags(updated.clientTags, member.clientTags);
    const metadataChanged = assignmentInputsChanged || updated.instanceId !== member.instanceId || updated.rebalanceTimeoutMs !== member.rebalanceTimeoutMs
      || updated.clientId !== member.clientId || updated.clientHost !== member.clientHost || !sameEndpoint(updated.userEndpoint, member.userEndpoint);
    if (replaced) records.push(...this.memberTombstones(group.groupId, replaced.memberId));
    if (topologyChanged) records.push({ type: 'st-topology', groupId: group.groupId, value: topology });
    if (metadataChanged) records.push(this.memberRecord(group.groupId, updated));

    // The topics, the configured topology and the group epoch.
    const hash = topology === null ? 0n : topicsHash(topology, this.topics);
    const configured: ConfiguredTopology | null = topology === null ? null : this.configured(group, topology, hash);
    const firstMember = group.members.size === 0 || (replaced !== null && group.members.size === 1);
    let delayUntil = group.initialDelayUntil;
    if (isNew && firstMember) delayUntil = now + s.initialRebalanceDelayMs;
    const delayOver = delayUntil !== null && now >= delayUntil;
    const delayed = delayUntil !== null && !delayOver;
    // As Kafka 4.4: changed assignment configs (a group config altered) bump the epoch too.
    const bump = assignmentInputsChanged || topologyChanged || hash !== group.metadataHash || !sameAssignmentConfigs(configs, group.lastAssignmentConfigs);
    const groupEpoch = bump ? group.groupEpoch + 1 : group.groupEpoch;
    const ready = configured !== null && isReady(configured);
    if (bump) records.push(this.metadataRecord(group, groupEpoch, hash, ready ? topology!.epoch : group.validatedTopologyEpoch, configs));

    // The target assignment, from the task offsets this heartbeat reports too (Kafka updates them first).
    const reportsOffsets = req.taskOffsets !== null || req.taskEndOffsets !== null;
    const memberOffsets: MemberTaskOffsets | undefined = reportsOffsets ? updateTaskOffsets(group.taskOffsets.get(member.memberId), req.taskOffsets, req.taskEndOffsets) : undefined;
    const taskOffsets = memberOffsets ? new Map(group.taskOffsets).set(member.memberId, memberOffsets) : group.taskOffsets;
    const members = new Map(group.members);
    if (replaced) members.delete(replaced.memberId);
    members.set(updated.memberId, updated);
    let target = new Map(group.target);
    if (replaced) {
      const t = target.get(replaced.memberId) ?? emptyTasks();
      target.delete(replaced.memberId);
      target.set(updated.memberId, t);
      records.push(this.targetRecord(group.groupId, updated.memberId, t));
    }
    let assignmentEpoch = group.assignmentEpoch;
    // While the initial delay runs only the first (empty) target is computed; the one after it
    // is due as soon as the delay is over.
    const due = delayed ? group.assignmentEpoch === 0 : now - group.lastAssignmentMs >= s.assignmentIntervalMs || delayOver || group.assignmentEpoch === 0;
    if (groupEpoch > assignmentEpoch && due) {
      const next = computeStreamsTarget({
        members, topology, tasks: ready && !delayed ? configured!.tasks! : new Map(), numStandbyReplicas: s.numStandbyReplicas, taskOffsets,
      });
      for (const [id, t] of next) {
        const old = target.get(id);
        if (!old || !tasksEqual(old, t)) records.push(this.targetRecord(group.groupId, id, t));
      }
      target = next;
      assignmentEpoch = groupEpoch;
      records.push({ type: 'st-target-metadata', groupId: group.groupId, value: { assignmentEpoch, assignmentTimestamp: BigInt(now) } });
      // As Kafka 4.4: the delayed assignment is a group epoch of its own (the group shows Assigning).
      if (delayed && isNew && firstMember) records.push(this.metadataRecord(group, groupEpoch + 1, hash, ready ? topology!.epoch : group.validatedTopologyEpoch, configs));
    }

    // Reconciliation.
    const reconciled = reconcileStreamsMember({
      member: updated, group, targetEpoch: assignmentEpoch, target: target.get(updated.memberId) ?? emptyTasks(), owned: ownedTasks(req, updated),
    });
    const assignmentChanged = !tasksEqual(reconciled.assigned, member.assigned) || replaced !== null;
    if (isNew || replaced !== null || reconciled.memberEpoch !== member.memberEpoch || reconciled.previousMemberEpoch !== member.previousMemberEpoch
      || reconciled.state !== member.state || assignmentChanged || !tasksEqual(reconciled.pendingRevocation, member.pendingRevocation)) {
      records.push(this.currentRecord(group.groupId, reconciled));
    }

    // Statuses, in Kafka 4.4's order.
    if (topology !== null && updated.topologyEpoch < topology.epoch) {
      statuses.push({ statusCode: StreamsStatus.STALE_TOPOLOGY, statusDetail: `The member's topology epoch ${updated.topologyEpoch} is behind the group's topology epoch ${topology.epoch}.` });
    }
    if (delayed) statuses.push({ statusCode: StreamsStatus.ASSIGNMENT_DELAYED, statusDetail: DELAYED_DETAIL });
    if (configured?.problem) statuses.push({ statusCode: configured.problem.code, statusDetail: configured.problem.detail });
    const shutdownBy = group.shutdownRequestedBy ?? (req.shutdownApplication ? reconciled.memberId : null);
    if (shutdownBy !== null) {
      statuses.push({ statusCode: StreamsStatus.SHUTDOWN_APPLICATION, statusDetail: `Streams group member ${shutdownBy} encountered a fatal error and requested a shutdown for the entire application.` });
    }
    // v1+: the rack-aware assignment tags the member lacks (Kafka 4.4's assignor does not place by them).
    const missingTags = hc.apiVersion >= 1 ? missingClientTagsDetail(configs, reconciled.clientTags) : null;
    if (missingTags !== null) statuses.push({ statusCode: StreamsStatus.MISSING_CLIENT_TAGS, statusDetail: missingTags });

    const groupId = group.groupId;
    const sendTasks = req.memberEpoch === 0 || assignmentChanged;
    const toCreate = configured?.internalTopicsToCreate ?? [];
    return {
      records,
      response: () => {
        // Applied after the records (replay has made the group current).
        const g = this.groups.get(groupId);
        if (g) {
          g.ready = ready;
          g.initialDelayUntil = delayed ? delayUntil : null;
          if (shutdownBy !== null && g.shutdownRequestedBy === null) g.shutdownRequestedBy = shutdownBy;
          if (memberOffsets) g.taskOffsets.set(reconciled.memberId, memberOffsets);
        }
        this.armSession(groupId, reconciled.memberId);
        if (replaced) this.ctx.cancel(sessionKey(groupId, replaced.memberId));
        if (reconciled.state === StreamsMemberState.UNREVOKED_TASKS) {
          if (!this.ctx.isScheduled(revocationKey(groupId, reconciled.memberId))) this.armRevocation(groupId, reconciled.memberId, reconciled.memberEpoch, reconciled.rebalanceTimeoutMs);
        } else {
          this.ctx.cancel(revocationKey(groupId, reconciled.memberId));
        }
        const endpointEpoch = g?.endpointInformationEpoch ?? 0;
        return {
          internalTopicsToCreate: toCreate,
          response: {
            throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null,
            memberId: reconciled.memberId, memberEpoch: reconciled.memberEpoch,
            heartbeatIntervalMs: s.heartbeatIntervalMs,
            // Kafka 4.4 answers 0 in the deprecated v0 field too.
            acceptableRecoveryLagLegacy: 0,
            taskOffsetIntervalMs: s.taskOffsetIntervalMs,
            acceptableRecoveryLag: BigInt(s.acceptableRecoveryLag),
            status: statuses,
            activeTasks: sendTasks ? toTaskIds(reconciled.assigned.active) : null,
            standbyTasks: sendTasks ? toTaskIds(reconciled.assigned.standby) : null,
            warmupTasks: sendTasks ? toTaskIds(reconciled.assigned.warmup) : null,
            topologyDescriptionRequired: false,
            endpointInformationEpoch: endpointEpoch,
            partitionsByUserEndpoint: g && req.endpointInformationEpoch !== endpointEpoch ? this.endpointsToPartitions(g) : null,
          },
        };
      },
    };
  }

  /** The configured topology, recomputed only when the topology or the shape of its topics changed (most heartbeats change neither). */
  private configured(group: StreamsGroup, topology: StreamsTopology, hash: bigint): ConfiguredTopology {
    const cached = group.configuredCache;
    if (cached && cached.topology === topology && cached.hash === hash) return cached.configured;
    const configured = configureTopology(topology, this.topics);
    group.configuredCache = { topology, hash, configured };
    return configured;
  }

  /** IQ: the source partitions of each member's tasks, by its user endpoint (members without one are left out). */
  private endpointsToPartitions(g: StreamsGroup): EndpointToPartitions[] {
    const out: EndpointToPartitions[] = [];
    const subtopologies = new Map((g.topology?.subtopologies ?? []).map((s) => [s.subtopologyId, [...s.sourceTopics, ...s.repartitionSourceTopics.map((r) => r.name)]]));
    const partitionsOf = (tasks: Iterable<[string, Set<number>]>) => {
      const byTopic = new Map<string, Set<number>>();
      for (const [sub, parts] of tasks) {
        for (const topic of subtopologies.get(sub) ?? []) {
          const n = this.topics.byName(topic)?.partitions ?? 0;
          let set = byTopic.get(topic);
          if (!set) byTopic.set(topic, (set = new Set()));
          for (const p of parts) if (p < n) set.add(p);
        }
      }
      return [...byTopic].filter(([, s]) => s.size > 0).sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([topic, s]) => ({ topic, partitions: [...s].sort((x, y) => x - y) }));
    };
    for (const m of g.members.values()) {
      if (m.userEndpoint === null) continue;
      out.push({
        userEndpoint: { ...m.userEndpoint },
        activePartitions: partitionsOf(m.assigned.active),
        standbyPartitions: partitionsOf([...m.assigned.standby, ...m.assigned.warmup]),
      });
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Leaving and fencing

  private leave(req: StreamsGroupHeartbeatRequest): CoordinatorResult<StreamsHeartbeatResult, Rec> {
    const group = this.groups.get(req.groupId);
    if (!group) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    let member: StreamsGroupMember | undefined;
    if (req.instanceId !== null) {
      member = group.staticMember(req.instanceId);
      if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
      if (member.memberId !== req.memberId) throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`);
    } else {
      member = group.members.get(req.memberId);
      if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${req.groupId}.`);
    }
    const reply = (): StreamsHeartbeatResult => ({
      internalTopicsToCreate: [],
      response: { ...errorResponse(ErrorCode.NONE, null), memberId: req.memberId, memberEpoch: req.memberEpoch },
    });
    const groupId = group.groupId;
    const memberId = member.memberId;
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // A static member away for a while keeps its tasks until its session expires.
      const away = member.clone();
      away.memberEpoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH;
      return { records: [this.currentRecord(groupId, away)], response: () => {
        this.armSession(groupId, memberId);
        this.ctx.cancel(revocationKey(groupId, memberId));
        return reply();
      } };
    }
    return { records: this.removeRecords(group, memberId), response: () => {
      this.cancelTimers(groupId, memberId);
      return reply();
    } };
  }

  /**
   * A member removed: its records tombstoned, the group epoch bumped and, as Kafka 4.4 does, the
   * target of the remaining members computed at once at that epoch (empty tasks while the
   * topology is not ready), except while the initial rebalance delay runs and members remain.
   */
  removeRecords(group: StreamsGroup, memberId: string): Rec[] {
    const epoch = group.groupEpoch + 1;
    const records: Rec[] = [
      ...this.memberTombstones(group.groupId, memberId),
      this.metadataRecord(group, epoch, group.metadataHash, group.validatedTopologyEpoch, group.lastAssignmentConfigs),
    ];
    const rest = new Map([...group.members].filter(([id]) => id !== memberId));
    const delayed = group.initialDelayUntil !== null && this.ctx.now() < group.initialDelayUntil;
    if (delayed && rest.size > 0) return records;
    const configured = group.topology === null ? null : this.configured(group, group.topology, topicsHash(group.topology, this.topics));
    const tasks = configured !== null && isReady(configured) ? configured.tasks! : new Map<string, number>();
    // As Kafka 4.4: outside a heartbeat the target is computed with the stored assignment configs.
    const next = computeStreamsTarget({ members: rest, topology: group.topology, tasks, numStandbyReplicas: standbyReplicasOf(group.lastAssignmentConfigs), taskOffsets: group.taskOffsets });
    for (const [id, t] of next) {
      const old = group.target.get(id);
      if (!old || !tasksEqual(old, t)) records.push(this.targetRecord(group.groupId, id, t));
    }
    records.push({ type: 'st-target-metadata', groupId: group.groupId, value: { assignmentEpoch: epoch, assignmentTimestamp: BigInt(this.ctx.now()) } });
    return records;
  }

  metadataRecord(group: StreamsGroup, epoch: number, metadataHash: bigint, validatedTopologyEpoch: number, configs: AssignmentConfigs): StreamsGroupRecord {
    return {
      type: 'st-metadata', groupId: group.groupId,
      value: {
        epoch, metadataHash, validatedTopologyEpoch, lastAssignmentConfigs: configs.map((c) => ({ ...c })),
        storedDescriptionTopologyEpoch: -1, failedDescriptionTopologyEpoch: -1,
      },
    };
  }

  /**
   * Kafka's throwIfStreamsGroupIsFull, on joins: a group of group.streams.max.size members takes
   * no new member id; a static member's instance id already in the group is let in (it replaces).
   */
  private throwIfGroupIsFull(group: StreamsGroup, req: StreamsGroupHeartbeatRequest): void {
    if (req.instanceId !== null && group.staticMember(req.instanceId)) return;
    if (group.members.size >= this.maxSize && (req.memberId === '' || !group.members.has(req.memberId))) {
      throw new HeartbeatError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The streams group has reached its maximum capacity of ${this.maxSize} members.`);
    }
  }

  private fenceByTimer(groupId: string, memberId: string, why: string, stillDue: (m: StreamsGroupMember) => boolean): CoordinatorResult<void, Rec> {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member || !stillDue(member)) return { records: [], response: () => undefined };
    this.ctx.logger.info(`streams group ${groupId}: member ${memberId} fenced (${why})`);
    this.cancelTimers(groupId, memberId);
    return { records: this.removeRecords(group, memberId), response: () => undefined };
  }

  armSession(groupId: string, memberId: string): void {
    this.ctx.schedule(sessionKey(groupId, memberId), this.settings(groupId).sessionTimeoutMs,
      () => this.fenceByTimer(groupId, memberId, 'session timeout', () => true));
  }

  armRevocation(groupId: string, memberId: string, epoch: number, rebalanceTimeoutMs: number): void {
    this.ctx.schedule(revocationKey(groupId, memberId), Math.max(0, rebalanceTimeoutMs),
      () => this.fenceByTimer(groupId, memberId, 'revocation timeout', (m) => m.state === StreamsMemberState.UNREVOKED_TASKS && m.memberEpoch === epoch));
  }

  cancelTimers(groupId: string, memberId: string): void {
    this.ctx.cancel(sessionKey(groupId, memberId));
    this.ctx.cancel(revocationKey(groupId, memberId));
  }

  // -------------------------------------------------------------------------------------------
  // Records

  memberTombstones(groupId: string, memberId: string): StreamsGroupRecord[] {
    return [
      { type: 'st-current', groupId, memberId, value: null },
      { type: 'st-target-member', groupId, memberId, value: null },
      { type: 'st-member', groupId, memberId, value: null },
    ];
  }

  memberRecord(groupId: string, m: StreamsGroupMember): StreamsGroupRecord {
    return {
      type: 'st-member', groupId, memberId: m.memberId,
      value: {
        instanceId: m.instanceId, rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost, rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        topologyEpoch: m.topologyEpoch, processId: m.processId, userEndpoint: m.userEndpoint && { ...m.userEndpoint }, clientTags: m.clientTags.map((t) => ({ ...t })),
      },
    };
  }

  targetRecord(groupId: string, memberId: string, t: TasksTuple): StreamsGroupRecord {
    return { type: 'st-target-member', groupId, memberId, value: { activeTasks: toTaskIds(t.active), standbyTasks: toTaskIds(t.standby), warmupTasks: toTaskIds(t.warmup) } };
  }

  currentRecord(groupId: string, m: StreamsGroupMember): StreamsGroupRecord {
    const ids = (a: TasksTuple['active']) => toTaskIds(a).map((t) => ({ ...t, assignmentEpochs: null }));
    return {
      type: 'st-current', groupId, memberId: m.memberId,
      value: {
        memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: m.state,
        activeTasks: ids(m.assigned.active), standbyTasks: ids(m.assigned.standby), warmupTasks: ids(m.assigned.warmup),
        activeTasksPendingRevocation: ids(m.pendingRevocation.active), standbyTasksPendingRevocation: ids(m.pendingRevocation.standby),
        warmupTasksPendingRevocation: ids(m.pendingRevocation.warmup),
      },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Replay

  private replayGroup(groupId: string): StreamsGroup {
    let g = this.groups.get(groupId);
    if (!g) {
      g = new StreamsGroup(groupId);
      g.createdMs = this.ctx.now();
      this.groups.set(groupId, g);
      const classic = this.classic.groups.get(groupId);
      if (classic && classic.is('Empty')) this.classic.groups.delete(groupId);
    }
    return g;
  }

  replay(r: StreamsGroupRecord): void {
    if (r.value === null) {
      const g = this.groups.get(r.groupId);
      if (!g) return;
      switch (r.type) {
        case 'st-metadata':
          g.dead = true;
          for (const id of g.members.keys()) this.cancelTimers(g.groupId, id);
          this.groups.delete(r.groupId);
          return;
        case 'st-topology': g.topology = null; return;
        case 'st-target-metadata': g.assignmentEpoch = 0; return;
        case 'st-target-member': g.target.delete(r.memberId); return;
        case 'st-member':
          if (g.members.get(r.memberId)?.userEndpoint) g.endpointInformationEpoch++;
          g.taskOffsets.delete(r.memberId);
          g.removeMember(r.memberId);
          if (g.members.size === 0) g.shutdownRequestedBy = null;
          return;
        case 'st-current': {
          const m = g.members.get(r.memberId);
          if (!m) return;
          const cleared = m.clone();
          cleared.memberEpoch = 0;
          cleared.previousMemberEpoch = 0;
          cleared.state = StreamsMemberState.STABLE;
          cleared.assigned = emptyTasks();
          cleared.pendingRevocation = emptyTasks();
          g.putMember(cleared);
          return;
        }
      }
    }
    const g = this.replayGroup(r.groupId);
    switch (r.type) {
      case 'st-metadata':
        g.groupEpoch = r.value!.epoch;
        g.metadataHash = r.value!.metadataHash;
        g.validatedTopologyEpoch = r.value!.validatedTopologyEpoch;
        g.lastAssignmentConfigs = (r.value!.lastAssignmentConfigs ?? []).map((c) => ({ key: c.key, value: c.value }));
        return;
      case 'st-topology': g.topology = r.value; return;
      case 'st-target-metadata':
        g.assignmentEpoch = r.value!.assignmentEpoch;
        g.lastAssignmentMs = this.ctx.now();
        return;
      case 'st-target-member':
        g.target.set(r.memberId, { active: fromTaskIds(r.value!.activeTasks), standby: fromTaskIds(r.value!.standbyTasks), warmup: fromTaskIds(r.value!.warmupTasks) });
        return;
      case 'st-member': {
        const v = r.value!;
        const m = g.members.get(r.memberId)?.clone() ?? new StreamsGroupMember(r.memberId);
        m.instanceId = v.instanceId;
        m.rackId = v.rackId;
        m.clientId = v.clientId;
        m.clientHost = v.clientHost;
        m.rebalanceTimeoutMs = v.rebalanceTimeoutMs;
        m.topologyEpoch = v.topologyEpoch;
        m.processId = v.processId;
        m.userEndpoint = v.userEndpoint && { host: v.userEndpoint.host, port: v.userEndpoint.port };
        m.clientTags = v.clientTags.map((t) => ({ key: t.key, value: t.value }));
        const before = g.members.get(r.memberId)?.userEndpoint ?? null;
        g.putMember(m);
        // IQ clients refresh their endpoint map when this epoch moves (an endpoint came, went or changed).
        if (!sameEndpoint(before, m.userEndpoint)) g.endpointInformationEpoch++;
        return;
      }
      case 'st-current': {
        const v = r.value!;
        const m = g.members.get(r.memberId)?.clone() ?? new StreamsGroupMember(r.memberId);
        m.memberEpoch = v.memberEpoch;
        m.previousMemberEpoch = v.previousMemberEpoch;
        m.state = (v.state in { 0: 1, 1: 1, 2: 1 } ? v.state : StreamsMemberState.UNKNOWN) as StreamsGroupMember['state'];
        m.assigned = { active: fromTaskIds(v.activeTasks), standby: fromTaskIds(v.standbyTasks), warmup: fromTaskIds(v.warmupTasks) };
        m.pendingRevocation = { active: fromTaskIds(v.activeTasksPendingRevocation), standby: fromTaskIds(v.standbyTasksPendingRevocation), warmup: fromTaskIds(v.warmupTasksPendingRevocation) };
        const before = g.members.get(r.memberId);
        g.putMember(m);
        if (m.userEndpoint !== null && (!before || !tasksEqual(before.assigned, m.assigned))) g.endpointInformationEpoch++;
        return;
      }
    }
  }

  /** After loading: every member must heartbeat within its session timeout; the topology's readiness is recomputed. */
  onLoaded(): void {
    for (const g of this.groups.values()) {
      g.ready = g.topology !== null && isReady(configureTopology(g.topology, this.topics));
      for (const m of g.members.values()) {
        this.armSession(g.groupId, m.memberId);
        if (m.state === StreamsMemberState.UNREVOKED_TASKS) this.armRevocation(g.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
  }

  /** Whether the member's tasks are all empty (tests). */
  holdsNothing(groupId: string, memberId: string): boolean {
    const m = this.groups.get(groupId)?.members.get(memberId);
    return !m || tasksEmpty(m.assigned);
  }
}

function sameTags(a: { key: string; value: string }[], b: { key: string; value: string }[]): boolean {
  return a.length === b.length && a.every((t, i) => t.key === b[i].key && t.value === b[i].value);
}

function sameEndpoint(a: { host: string; port: number } | null, b: { host: string; port: number } | null): boolean {
  return a === b || (a !== null && b !== null && a.host === b.host && a.port === b.port);
}
