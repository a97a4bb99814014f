/**
 * The KIP-848 consumer group protocol of one coordinator shard (Kafka's GroupMetadataManager,
 * consumer-group part): ConsumerGroupHeartbeat (join, heartbeat, leave, static members), the
 * target assignment, member reconciliation, session and revocation timeouts, replay of the
 * consumer-group records. Describe/list/offset checks/deletion live in consumer-group-queries.ts.
 *
 * One heartbeat, in Kafka's order:
 * 1. validate the request (INVALID_REQUEST, UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION);
 * 2. find the group (created on a first join; an Empty classic group of that id is replaced by
 *    it; a classic group with members answers GROUP_ID_NOT_FOUND) and the member (new on epoch
 *    0, GROUP_MAX_SIZE_REACHED when full; a static member by instance id: UNRELEASED_INSTANCE_ID
 *    while its previous incarnation has not left, FENCED_INSTANCE_ID for another member id;
 *    UNKNOWN_MEMBER_ID; FENCED_MEMBER_EPOCH unless the epoch is the member's, or its previous one
 *    with owned partitions it still has);
 * 3. apply the member's new subscription; bump the group epoch when the subscriptions or the
 *    subscribed topics' partition counts changed;
 * 4. when the group epoch is ahead of the target assignment epoch, run the assignor;
 * 5. reconcile the member towards its target (current-assignment-builder.ts);
 * 6. answer its epoch, the heartbeat interval and, when it changed (or on a join or a full
 *    request), its assignment; arm its session timer (and its revocation timer while it revokes).
 *
 * All of this only computes records; `replay` applies them, so a shard loaded from the log is
 * the same as one that handled the requests. Timers are in memory (re-armed on load).
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ConsumerGroupHeartbeatRequest } from '../../protocol/generated/messages/consumer-group-heartbeat-request.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/generated/messages/consumer-group-heartbeat-response.js';
import type { CoordinatorResult, ShardContext } from '../runtime/runtime.js';
import { type Assignment, type GroupSpec, type PartitionAssignor, assignorsFrom } from './assignor/index.js';
import {
  ConsumerGroup, ConsumerGroupMember, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH, MemberState,
  assignmentsEqual, copyAssignment, fromTopicPartitions, toTopicPartitions,
} from './consumer-group.js';
import type { ConsumerGroupRecord } from './consumer-group-records.js';
import { reconcile } from './current-assignment-builder.js';
import type { GroupConfig } from './group-config.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import type { GroupCoordinatorRecord } from './records.js';
import { compileTopicRegex } from './topic-regex.js';
import { ClassicMembersOfConsumerGroups } from './consumer-group-classic.js';
import { newMemberId } from './consumer-group.js';
import type { TopicView } from './topic-view.js';
import type { GroupConfigLookup } from './group-configs.js';

type Rec = GroupCoordinatorRecord;
type Response = ConsumerGroupHeartbeatResponse;

export interface HeartbeatContext {
  apiVersion: number;
  clientId: string;
  clientHost: string;
}

/** A heartbeat refused as a whole: code and message go in the response. */
class HeartbeatError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

export const sessionKey = (g: string, m: string) => `cg-session-${g}-${m}`;
export const revocationKey = (g: string, m: string) => `cg-revocation-${g}-${m}`;


function errorResponse(errorCode: number, errorMessage: string | null): Response {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export class ConsumerGroupManager {
  readonly groups = new Map<string, ConsumerGroup>();
  readonly assignors: PartitionAssignor[];
  /** Classic members of consumer groups, and the online upgrade of classic groups. */
  readonly mixed: ClassicMembersOfConsumerGroups;
  /** Whether a share group has this id (set by the shard): consumer-protocol joins to it are refused. */
  isShareGroup: (groupId: string) => boolean = () => false;
  /** Timers to arm once an upgrade's records are written (the converted members' sessions). */
  private pendingUpgrade: (() => void) | null = null;

  constructor(
    private readonly ctx: ShardContext<Rec>,
    private readonly config: GroupConfig,
    private readonly classic: GroupMetadataManager,
    private readonly topics: TopicView,
    private readonly groupConfigs?: GroupConfigLookup,
  ) {
    this.assignors = assignorsFrom(config.consumer.assignors);
    this.mixed = new ClassicMembersOfConsumerGroups(this, topics);
  }

  get defaultAssignor(): PartitionAssignor {
    return this.assignors[0];
  }

  // -------------------------------------------------------------------------------------------
  // ConsumerGroupHeartbeat

  heartbeat(hc: HeartbeatContext, req: ConsumerGroupHeartbeatRequest): CoordinatorResult<Response, Rec> {
    this.pendingUpgrade = null;
    try {
      this.validate(hc.apiVersion, req);
      if (req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) return this.leave(req);
      return this.regularHeartbeat(hc, req);
    } catch (err) {
      if (!(err instanceof HeartbeatError)) throw err;
      return { records: [], response: () => errorResponse(err.errorCode, err.message) };
    }
  }

  /** Kafka's throwIfConsumerGroupHeartbeatRequestIsInvalid. */
  private validate(apiVersion: number, req: ConsumerGroupHeartbeatRequest): void {
    const invalid = (message: string) => new HeartbeatError(ErrorCode.INVALID_REQUEST, message);
    if ((apiVersion >= 1 || req.memberEpoch > 0 || req.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH) && req.memberId === '') throw invalid("MemberId can't be empty.");
    if (req.groupId === '') throw invalid("GroupId can't be empty.");
    if (req.instanceId === '') throw invalid("InstanceId can't be empty.");
    if (req.rackId === '') throw invalid("RackId can't be empty.");
    if (req.memberEpoch === 0) {
      if (req.rebalanceTimeoutMs === -1) throw invalid('RebalanceTimeoutMs must be provided in first request.');
      if (req.topicPartitions === null || req.topicPartitions.length > 0) throw invalid('TopicPartitions must be empty when (re-)joining.');
      if (req.subscribedTopicNames === null && req.subscribedTopicRegex === null) {
        throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
      }
    } else if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      if (req.instanceId === null) throw invalid("InstanceId can't be null.");
    } else if (req.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw invalid('MemberEpoch is invalid.');
    }
    if (req.serverAssignor !== null && !this.assignorNamed(req.serverAssignor)) {
      throw new HeartbeatError(ErrorCode.UNSUPPORTED_ASSIGNOR, `ServerAssignor ${req.serverAssignor} is not supported. Supported assignors: ${this.assignors.map((a) => a.name).join(', ')}.`);
    }
    if (req.subscribedTopicRegex !== null && req.subscribedTopicRegex !== '') {
      const c = compileTopicRegex(req.subscribedTopicRegex);
      if (!c.ok) throw new HeartbeatError(ErrorCode.INVALID_REGULAR_EXPRESSION, c.error);
    }
  }

  assignorNamed(name: string): PartitionAssignor | undefined {
    return this.assignors.find((a) => a.name === name);
  }

  /** The group of a heartbeat; creating it (on a join) only in the returned object, not in state. */
  private groupFor(groupId: string, create: boolean, records: Rec[]): ConsumerGroup {
    const existing = this.groups.get(groupId);
    if (existing) return existing;
    if (this.isShareGroup(groupId)) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
    const classic = this.classic.groups.get(groupId);
    if (classic && !classic.is('Dead')) {
      if (!classic.is('Empty') || classic.pendingMembers.size > 0) {
        // Kafka's online upgrade (group.consumer.migration.policy): a classic group of
        // consumer-protocol members becomes a consumer group this member joins.
        if (!create) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
        const upgraded = this.mixed.upgrade(classic, this.config.consumer.migrationPolicy, this.config.consumer.maxSize);
        if ('refused' in upgraded) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, upgraded.refused);
        records.push(...upgraded.records);
        const classicIds = [...upgraded.group.members.keys()];
        this.pendingUpgrade = () => { for (const id of classicIds) this.armSession(groupId, id); };
        return upgraded.group;
      }
      // Kafka converts an Empty classic group (offsets stay): the classic metadata is tombstoned.
      if (create) records.push(this.classic.groupTombstone(groupId));
    }
    if (!create) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${groupId} not found.`);
    return new ConsumerGroup(groupId);
  }

  private regularHeartbeat(hc: HeartbeatContext, req: ConsumerGroupHeartbeatRequest): CoordinatorResult<Response, Rec> {
    const records: Rec[] = [];
    const group = this.groupFor(req.groupId, req.memberEpoch === 0, records);
    const memberId = req.memberId !== '' ? req.memberId : newMemberId();

    // The member, and the records replacing a static member's previous incarnation.
    let member: ConsumerGroupMember;
    let replaced: ConsumerGroupMember | null = null;
    let isNew = false;
    if (req.instanceId === null) {
      const m = group.members.get(memberId);
      if (!m) {
        if (req.memberEpoch !== 0) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${req.groupId}.`);
        this.throwIfFull(group);
        member = new ConsumerGroupMember(memberId);
        isNew = true;
      } else {
        member = m;
        if (req.memberEpoch !== 0) this.throwIfEpochInvalid(member, req);
      }
    } else {
      const existing = group.staticMember(req.instanceId);
      if (req.memberEpoch === 0) {
        if (!existing) {
          this.throwIfFull(group);
          member = new ConsumerGroupMember(memberId);
          member.instanceId = req.instanceId;
          isNew = true;
        } else if (existing.memberId === memberId) {
          member = existing;
        } else {
          if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
            throw new HeartbeatError(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`);
          }
          replaced = existing;
          member = existing.copyAs(memberId);
          member.memberEpoch = 0;
          member.previousMemberEpoch = 0;
        }
      } else {
        if (!existing) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
        if (existing.memberId !== memberId) {
          throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${memberId} with instance id ${req.instanceId} was fenced by member ${existing.memberId}.`);
        }
        member = existing;
        this.throwIfEpochInvalid(member, req);
      }
    }

    // The subscription and the member's other metadata.
    const updated = member.clone();
    if (req.rackId !== null) updated.rackId = req.rackId;
    if (req.rebalanceTimeoutMs !== -1) updated.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    if (req.subscribedTopicNames !== null) updated.subscribedTopicNames = [...req.subscribedTopicNames];
    if (req.subscribedTopicRegex !== null) updated.subscribedTopicRegex = req.subscribedTopicRegex === '' ? null : req.subscribedTopicRegex;
    if (req.serverAssignor !== null) updated.serverAssignor = req.serverAssignor;
    if (req.instanceId !== null) updated.instanceId = req.instanceId;
    updated.clientId = hc.clientId;
    updated.clientHost = hc.clientHost;
    // A classic member heartbeating with the consumer protocol now speaks it.
    updated.classic = null;
    const owned = req.topicPartitions === null ? null : fromTopicPartitions(req.topicPartitions);
    const { reconciled, assignmentChanged } = this.applyMember(group, member, updated, replaced, isNew, owned, records);

    const fullRequest = req.rebalanceTimeoutMs !== -1 && req.subscribedTopicNames !== null && req.topicPartitions !== null;
    const sendAssignment = req.memberEpoch === 0 || assignmentChanged || fullRequest
      || (owned !== null && !assignmentsEqual(owned, reconciled.assigned) && reconciled.state !== MemberState.UNREVOKED_PARTITIONS);
    const groupId = group.groupId;
    const afterUpgrade = this.pendingUpgrade;
    this.pendingUpgrade = null;
    return {
      records,
      response: () => {
        afterUpgrade?.();
        this.armSession(groupId, reconciled.memberId);
        if (replaced) this.ctx.cancel(sessionKey(groupId, replaced.memberId));
        if (reconciled.state === MemberState.UNREVOKED_PARTITIONS) {
          if (!this.ctx.isScheduled(revocationKey(groupId, reconciled.memberId))) this.armRevocation(groupId, reconciled.memberId, reconciled.memberEpoch, reconciled.rebalanceTimeoutMs);
        } else {
          this.ctx.cancel(revocationKey(groupId, reconciled.memberId));
        }
        return {
          throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null,
          memberId: reconciled.memberId, memberEpoch: reconciled.memberEpoch,
          heartbeatIntervalMs: this.heartbeatIntervalMs(groupId),
          assignment: sendAssignment ? { topicPartitions: toTopicPartitions(reconciled.assigned) } : null,
        };
      },
    };
  }

  /**
   * The common part of a member's heartbeat (consumer protocol) or JoinGroup (a classic member
   * of a consumer group): its new metadata, the group epoch, the target assignment, and its
   * reconciliation, as records appended to `records`. `owned`: the partitions the member says it
   * owns (null: not said).
   */
  applyMember(group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember, replaced: ConsumerGroupMember | null, isNew: boolean, owned: Assignment | null, records: Rec[]): { reconciled: ConsumerGroupMember; assignmentChanged: boolean } {
    const subscriptionChanged = isNew
      || updated.subscribedTopicRegex !== member.subscribedTopicRegex
      || updated.serverAssignor !== member.serverAssignor
      || !sameList(updated.subscribedTopicNames, member.subscribedTopicNames);
    const metadataChanged = subscriptionChanged || replaced !== null || updated.rackId !== member.rackId || updated.rebalanceTimeoutMs !== member.rebalanceTimeoutMs
      || updated.clientId !== member.clientId || updated.clientHost !== member.clientHost
      || updated.classic !== member.classic;

    if (replaced) records.push(...this.memberTombstones(group.groupId, replaced.memberId));
    if (metadataChanged) records.push(this.memberRecord(group.groupId, updated));

    // The group epoch and the subscription metadata, with this member's new subscription.
    const members = new Map(group.members);
    if (replaced) members.delete(replaced.memberId);
    members.set(updated.memberId, updated);
    // A regex new to the group is resolved after this heartbeat (Kafka resolves regexes off the
    // request path): this member gets the topics it matches on a later heartbeat.
    const regexNew = updated.subscribedTopicRegex !== null && updated.subscribedTopicRegex !== member.subscribedTopicRegex
      && ![...group.members.values()].some((m) => m.memberId !== updated.memberId && m.subscribedTopicRegex === updated.subscribedTopicRegex);
    const metadata = this.subscriptionMetadata(members.values(), regexNew ? updated.memberId : null);
    const metadataMoved = !sameMetadata(metadata, group.subscriptionMetadata);
    // Kafka 4.4 bumps once for a subscription change and once more when the subscribed topics'
    // metadata changed with it (a first join by topic names reaches epoch 2, by a new regex 1).
    const groupEpoch = group.groupEpoch + (subscriptionChanged ? 1 : 0) + (metadataMoved ? 1 : 0);
    if (groupEpoch !== group.groupEpoch) {
      if (metadataMoved) records.push(this.partitionMetadataRecord(group.groupId, metadata));
      records.push({ type: 'cg-metadata', groupId: group.groupId, value: { epoch: groupEpoch } });
    }

    // The target assignment.
    let assignmentEpoch = group.assignmentEpoch;
    let target = new Map(group.target);
    if (replaced) {
      const t = target.get(replaced.memberId) ?? new Map();
      target.delete(replaced.memberId);
      target.set(updated.memberId, t);
      records.push({ type: 'cg-target-member', groupId: group.groupId, memberId: updated.memberId, value: { topicPartitions: toTopicPartitions(t) } });
    }
    // Assignment batching (Kafka 4.4, group.consumer.assignment.interval.ms): within the interval
    // after the last target, the members reconcile towards the current one; the next heartbeat
    // after the interval computes the new one (the group shows Assigning meanwhile).
    const due = this.ctx.now() - group.lastAssignmentMs >= this.assignmentIntervalMs(group.groupId);
    if (groupEpoch > assignmentEpoch && due) {
      const next = this.computeTarget(members, metadata, target);
      for (const [id, a] of next) {
        const old = target.get(id);
        if (!old || !assignmentsEqual(old, a)) records.push({ type: 'cg-target-member', groupId: group.groupId, memberId: id, value: { topicPartitions: toTopicPartitions(a) } });
      }
      target = next;
      assignmentEpoch = groupEpoch;
      records.push({ type: 'cg-target-metadata', groupId: group.groupId, value: { assignmentEpoch } });
    }

    // Reconciliation.
    const reconciled = reconcile({
      member: updated,
      targetEpoch: assignmentEpoch,
      target: target.get(updated.memberId) ?? new Map(),
      owned,
      currentPartitionEpoch: (t, p) => group.currentPartitionEpoch(t, p),
    });
    const assignmentChanged = !assignmentsEqual(reconciled.assigned, member.assigned) || replaced !== null;
    if (isNew || replaced !== null || reconciled.memberEpoch !== member.memberEpoch || reconciled.previousMemberEpoch !== member.previousMemberEpoch
      || reconciled.state !== member.state || assignmentChanged || !assignmentsEqual(reconciled.pendingRevocation, member.pendingRevocation)) {
      records.push(this.currentAssignmentRecord(group.groupId, reconciled));
    }

    return { reconciled, assignmentChanged };
  }

  throwIfFull(group: ConsumerGroup): void {
    if (group.members.size >= this.config.consumer.maxSize) {
      throw new HeartbeatError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The consumer group has reached its maximum capacity of ${this.config.consumer.maxSize} members.`);
    }
  }

  /** Kafka's throwIfConsumerGroupMemberEpochIsInvalid. */
  private throwIfEpochInvalid(member: ConsumerGroupMember, req: ConsumerGroupHeartbeatRequest): void {
    const received = req.memberEpoch;
    if (received > member.memberEpoch) {
      throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The consumer group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`);
    }
    if (received < member.memberEpoch) {
      const owned = req.topicPartitions;
      const subset = owned !== null && owned.every((tp) => tp.partitions.every((p) => member.assigned.get(tp.topicId)?.has(p)));
      if (received !== member.previousMemberEpoch || !subset) {
        throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The consumer group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`);
      }
    }
  }

  /** The subscribed topics that exist (by name or matched by a regex), with ids and partition counts. */
  subscriptionMetadata(members: Iterable<ConsumerGroupMember>, regexPendingFor: string | null = null): Map<string, { topicId: string; partitions: number }> {
    const names = new Set<string>();
    const regexes = new Set<string>();
    for (const m of members) {
      for (const t of m.subscribedTopicNames) names.add(t);
      if (m.subscribedTopicRegex !== null && m.memberId !== regexPendingFor) regexes.add(m.subscribedTopicRegex);
    }
    for (const re of regexes) {
      const c = compileTopicRegex(re);
      if (!c.ok) continue;
      for (const t of this.topics.names()) if (c.test(t)) names.add(t);
    }
    const out = new Map<string, { topicId: string; partitions: number }>();
    for (const name of [...names].sort()) {
      const t = this.topics.byName(name);
      if (t) out.set(name, { topicId: t.topicId, partitions: t.partitions });
    }
    return out;
  }

  /** The topic ids a member subscribes to, among the group's subscription metadata. */
  private subscribedIds(m: ConsumerGroupMember, metadata: Map<string, { topicId: string }>): Set<string> {
    const ids = new Set<string>();
    for (const n of m.subscribedTopicNames) {
      const t = metadata.get(n);
      if (t) ids.add(t.topicId);
    }
    if (m.subscribedTopicRegex !== null) {
      const c = compileTopicRegex(m.subscribedTopicRegex);
      if (c.ok) for (const [name, t] of metadata) if (c.test(name)) ids.add(t.topicId);
    }
    return ids;
  }

  /** The assignor most members ask for, else the default (Kafka's computePreferredServerAssignor). */
  preferredAssignor(members: Iterable<ConsumerGroupMember>): PartitionAssignor {
    const counts = new Map<string, number>();
    for (const m of members) if (m.serverAssignor !== null) counts.set(m.serverAssignor, (counts.get(m.serverAssignor) ?? 0) + 1);
    let best: string | null = null;
    for (const [name, n] of [...counts].sort()) if (best === null || n > counts.get(best)!) best = name;
    return (best !== null ? this.assignorNamed(best) : undefined) ?? this.defaultAssignor;
  }

  computeTarget(members: Map<string, ConsumerGroupMember>, metadata: Map<string, { topicId: string; partitions: number }>, current: Map<string, Assignment>): Map<string, Assignment> {
    const racksKnown = [...members.values()].some((m) => m.rackId !== null);
    const spec: GroupSpec = {
      members: new Map([...members.values()].map((m) => [m.memberId, {
        rackId: m.rackId, subscribedTopicIds: this.subscribedIds(m, metadata), current: current.get(m.memberId) ?? new Map(),
      }])),
      topics: new Map([...metadata].map(([name, t]) => [t.topicId, {
        name, partitions: t.partitions,
        // Rack-aware assignment only when members say where they are (and brokers have racks).
        ...(racksKnown ? { partitionRacks: this.topics.partitionRacks?.(t.topicId) } : {}),
      }])),
    };
    return this.preferredAssignor(members.values()).assign(spec);
  }

  // -------------------------------------------------------------------------------------------
  // Leaving and fencing

  private leave(req: ConsumerGroupHeartbeatRequest): CoordinatorResult<Response, Rec> {
    const group = this.groups.get(req.groupId);
    if (!group) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Consumer group ${req.groupId} not found.`);
    let member: ConsumerGroupMember | undefined;
    if (req.instanceId !== null) {
      member = group.staticMember(req.instanceId);
      if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Instance id ${req.instanceId} is unknown.`);
      if (member.memberId !== req.memberId) throw new HeartbeatError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`);
    } else {
      member = group.members.get(req.memberId);
      if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${req.groupId}.`);
    }
    const reply = (): Response => ({
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: req.memberEpoch, heartbeatIntervalMs: 0, assignment: null,
    });
    if (req.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      // A static member going away for a while keeps its partitions until its session expires.
      const away = member.clone();
      away.memberEpoch = LEAVE_GROUP_STATIC_MEMBER_EPOCH;
      const groupId = group.groupId;
      return { records: [this.currentAssignmentRecord(groupId, away)], response: () => {
        this.armSession(groupId, away.memberId);
        this.ctx.cancel(revocationKey(groupId, away.memberId));
        return reply();
      } };
    }
    const { records, after } = this.removeMember(group, member.memberId);
    return { records, response: () => {
      this.ctx.cancel(sessionKey(group.groupId, member!.memberId));
      this.ctx.cancel(revocationKey(group.groupId, member!.memberId));
      after();
      return reply();
    } };
  }

  /** A member removed: its three records tombstoned, the group epoch bumped. */
  /**
   * A member removed: its three records tombstoned, the group epoch bumped and, as Kafka 4.4
   * does, the target assignment of the remaining members computed at once.
   */
  fenceRecords(group: ConsumerGroup, memberId: string): Rec[] {
    return this.fenceManyRecords(group, [memberId]);
  }

  fenceManyRecords(group: ConsumerGroup, memberIds: string[]): Rec[] {
    const records: Rec[] = memberIds.flatMap((id) => this.memberTombstones(group.groupId, id));
    const rest = new Map([...group.members].filter(([id]) => !memberIds.includes(id)));
    const metadata = this.subscriptionMetadata(rest.values());
    if (!sameMetadata(metadata, group.subscriptionMetadata)) records.push(this.partitionMetadataRecord(group.groupId, metadata));
    const epoch = group.groupEpoch + 1;
    records.push({ type: 'cg-metadata', groupId: group.groupId, value: { epoch } });
    const next = this.computeTarget(rest, metadata, group.target);
    for (const [id, a] of next) {
      const old = group.target.get(id);
      if (!old || !assignmentsEqual(old, a)) records.push({ type: 'cg-target-member', groupId: group.groupId, memberId: id, value: { topicPartitions: toTopicPartitions(a) } });
    }
    records.push({ type: 'cg-target-metadata', groupId: group.groupId, value: { assignmentEpoch: epoch } });
    return records;
  }

  private fenceByTimer(groupId: string, memberId: string, why: string, stillDue: (m: ConsumerGroupMember) => boolean): CoordinatorResult<void, Rec> {
    const group = this.groups.get(groupId);
    const member = group?.members.get(memberId);
    if (!group || !member || !stillDue(member)) return { records: [], response: () => undefined };
    this.ctx.logger.info(`consumer group ${groupId}: member ${memberId} fenced (${why})`);
    this.cancelTimers(groupId, memberId);
    const { records, after } = this.removeMember(group, memberId);
    return { records, response: after };
  }

  /**
   * A consumer-protocol member leaves or is fenced: the group loses it, or (downgrade or
   * bidirectional migration policy, only classic members left) becomes a classic group again,
   * which then rebalances; `after` runs once the records are written.
   */
  private removeMember(group: ConsumerGroup, memberId: string): { records: Rec[]; after: () => void } {
    const leaving = group.members.get(memberId);
    const downgrade = leaving && !leaving.classic
      ? this.mixed.downgrade(group, [memberId], this.config.consumer.migrationPolicy, this.config.maxSize, this.ctx.now())
      : null;
    if (!downgrade) return { records: this.fenceRecords(group, memberId), after: () => undefined };
    const groupId = group.groupId;
    const memberIds = [...group.members.keys()];
    this.ctx.logger.info(`consumer group ${groupId}: only classic members left, converted to a classic group`);
    return {
      records: downgrade,
      after: () => {
        for (const id of memberIds) this.cancelTimers(groupId, id);
        this.ctx.schedule(`cg-downgrade-${groupId}`, 0, () => this.classic.rebalanceAfterConversion(groupId));
      },
    };
  }

  /** A classic member's session timeout is its own (JoinGroup), a consumer-protocol member's the group's. */
  armSession(groupId: string, memberId: string, classicSessionTimeoutMs?: number): void {
    const classic = classicSessionTimeoutMs ?? this.groups.get(groupId)?.members.get(memberId)?.classic?.sessionTimeoutMs;
    this.ctx.schedule(sessionKey(groupId, memberId), classic ?? this.sessionTimeoutMs(groupId),
      () => this.fenceByTimer(groupId, memberId, 'session timeout', () => true));
  }

  /**
   * The group's consumer.session.timeout.ms / consumer.heartbeat.interval.ms /
   * consumer.assignment.interval.ms (GROUP resource configs), else the broker's group.consumer.*
   * settings; read at every heartbeat, so a change applies from a member's next heartbeat (Kafka's
   * consumerGroupSessionTimeoutMs(groupId) and friends).
   */
  sessionTimeoutMs(groupId: string): number {
    return this.groupConfigs ? this.groupConfigs.resolve(groupId)['consumer.session.timeout.ms'] : this.config.consumer.sessionTimeoutMs;
  }

  heartbeatIntervalMs(groupId: string): number {
    return this.groupConfigs ? this.groupConfigs.resolve(groupId)['consumer.heartbeat.interval.ms'] : this.config.consumer.heartbeatIntervalMs;
  }

  assignmentIntervalMs(groupId: string): number {
    return this.groupConfigs ? this.groupConfigs.resolve(groupId)['consumer.assignment.interval.ms'] : this.config.consumer.assignmentIntervalMs;
  }

  cancelTimers(groupId: string, memberId: string): void {
    this.ctx.cancel(sessionKey(groupId, memberId));
    this.ctx.cancel(revocationKey(groupId, memberId));
    this.cancelClassicTimeout('join', groupId, memberId);
    this.cancelClassicTimeout('sync', groupId, memberId);
  }

  /**
   * A classic member of a consumer group must rejoin within its rebalance timeout once asked to
   * (join), and sync within it after joining (sync), or it is removed (Kafka's consumer-group
   * join and sync timeouts).
   */
  armClassicTimeout(kind: 'join' | 'sync', groupId: string, memberId: string, delayMs: number, onlyIfAbsent = false): void {
    const key = `cg-${kind}-${groupId}-${memberId}`;
    if (onlyIfAbsent && this.ctx.isScheduled(key)) return;
    this.ctx.schedule(key, Math.max(0, delayMs), () => this.fenceByTimer(groupId, memberId, `${kind} timeout`, () => true));
  }

  cancelClassicTimeout(kind: 'join' | 'sync', groupId: string, memberId: string): void {
    this.ctx.cancel(`cg-${kind}-${groupId}-${memberId}`);
  }

  get maxSize(): number {
    return this.config.consumer.maxSize;
  }

  armRevocation(groupId: string, memberId: string, epoch: number, rebalanceTimeoutMs: number): void {
    this.ctx.schedule(revocationKey(groupId, memberId), Math.max(0, rebalanceTimeoutMs),
      () => this.fenceByTimer(groupId, memberId, 'revocation timeout', (m) => m.state === MemberState.UNREVOKED_PARTITIONS && m.memberEpoch === epoch));
  }

  // -------------------------------------------------------------------------------------------
  // Records

  memberTombstones(groupId: string, memberId: string): ConsumerGroupRecord[] {
    return [
      { type: 'cg-current', groupId, memberId, value: null },
      { type: 'cg-target-member', groupId, memberId, value: null },
      { type: 'cg-member', groupId, memberId, value: null },
    ];
  }

  memberRecord(groupId: string, m: ConsumerGroupMember): ConsumerGroupRecord {
    return {
      type: 'cg-member', groupId, memberId: m.memberId,
      value: {
        instanceId: m.instanceId, rackId: m.rackId, clientId: m.clientId, clientHost: m.clientHost,
        subscribedTopicNames: [...m.subscribedTopicNames], subscribedTopicRegex: m.subscribedTopicRegex,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs, serverAssignor: m.serverAssignor,
        classicMemberMetadata: m.classic && { sessionTimeoutMs: m.classic.sessionTimeoutMs, supportedProtocols: m.classic.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) },
      },
    };
  }

  currentAssignmentRecord(groupId: string, m: ConsumerGroupMember): ConsumerGroupRecord {
    return {
      type: 'cg-current', groupId, memberId: m.memberId,
      value: {
        memberEpoch: m.memberEpoch, previousMemberEpoch: m.previousMemberEpoch, state: m.state,
        assignedPartitions: toTopicPartitions(m.assigned), partitionsPendingRevocation: toTopicPartitions(m.pendingRevocation),
      },
    };
  }

  partitionMetadataRecord(groupId: string, metadata: Map<string, { topicId: string; partitions: number }>): ConsumerGroupRecord {
    return {
      type: 'cg-partition-metadata', groupId,
      value: { topics: [...metadata].map(([topicName, t]) => ({ topicId: t.topicId, topicName, numPartitions: t.partitions, partitionMetadata: [] })) },
    };
  }

  // -------------------------------------------------------------------------------------------
  // Replay

  private replayGroup(groupId: string): ConsumerGroup {
    let g = this.groups.get(groupId);
    if (!g) {
      g = new ConsumerGroup(groupId);
      this.groups.set(groupId, g);
      // An Empty classic group of this id (offsets only) became this consumer group.
      const classic = this.classic.groups.get(groupId);
      if (classic && classic.is('Empty')) this.classic.groups.delete(groupId);
    }
    return g;
  }

  replay(r: ConsumerGroupRecord): void {
    if (r.value === null) {
      const g = this.groups.get(r.groupId);
      if (!g) return;
      switch (r.type) {
        case 'cg-metadata':
          g.dead = true;
          for (const id of g.members.keys()) {
            this.ctx.cancel(sessionKey(g.groupId, id));
            this.ctx.cancel(revocationKey(g.groupId, id));
          }
          this.groups.delete(r.groupId);
          return;
        case 'cg-partition-metadata': g.subscriptionMetadata = new Map(); return;
        case 'cg-target-metadata': g.assignmentEpoch = 0; return;
        case 'cg-target-member': g.target.delete(r.memberId); return;
        case 'cg-member': g.removeMember(r.memberId); return;
        case 'cg-current': {
          const m = g.members.get(r.memberId);
          if (!m) return;
          const cleared = m.clone();
          cleared.memberEpoch = 0;
          cleared.previousMemberEpoch = 0;
          cleared.state = MemberState.STABLE;
          cleared.assigned = new Map();
          cleared.pendingRevocation = new Map();
          g.putMember(cleared);
          return;
        }
      }
    }
    const g = this.replayGroup(r.groupId);
    switch (r.type) {
      case 'cg-metadata': g.groupEpoch = r.value!.epoch; return;
      case 'cg-partition-metadata':
        g.subscriptionMetadata = new Map(r.value!.topics.map((t) => [t.topicName, { topicId: t.topicId, partitions: t.numPartitions }]));
        return;
      case 'cg-target-metadata':
        g.assignmentEpoch = r.value!.assignmentEpoch;
        g.lastAssignmentMs = this.ctx.now();
        return;
      case 'cg-target-member': g.target.set(r.memberId, fromTopicPartitions(r.value!.topicPartitions)); return;
      case 'cg-member': {
        const v = r.value!;
        const m = g.members.get(r.memberId)?.clone() ?? new ConsumerGroupMember(r.memberId);
        m.instanceId = v.instanceId;
        m.rackId = v.rackId;
        m.clientId = v.clientId;
        m.clientHost = v.clientHost;
        m.subscribedTopicNames = [...v.subscribedTopicNames];
        m.subscribedTopicRegex = v.subscribedTopicRegex;
        m.rebalanceTimeoutMs = v.rebalanceTimeoutMs;
        m.serverAssignor = v.serverAssignor;
        m.classic = v.classicMemberMetadata && { sessionTimeoutMs: v.classicMemberMetadata.sessionTimeoutMs, protocols: v.classicMemberMetadata.supportedProtocols.map((p) => ({ name: p.name, metadata: p.metadata })) };
        g.putMember(m);
        return;
      }
      case 'cg-current': {
        const v = r.value!;
        const m = g.members.get(r.memberId)?.clone() ?? new ConsumerGroupMember(r.memberId);
        m.memberEpoch = v.memberEpoch;
        m.previousMemberEpoch = v.previousMemberEpoch;
        m.state = (v.state in { 0: 1, 1: 1, 2: 1 } ? v.state : MemberState.UNKNOWN) as ConsumerGroupMember['state'];
        m.assigned = fromTopicPartitions(v.assignedPartitions);
        m.pendingRevocation = fromTopicPartitions(v.partitionsPendingRevocation);
        g.putMember(m);
        return;
      }
    }
  }

  /** After loading: every member must heartbeat within its session timeout. */
  onLoaded(): void {
    for (const g of this.groups.values()) {
      for (const m of g.members.values()) {
        this.armSession(g.groupId, m.memberId, m.classic?.sessionTimeoutMs);
        if (m.state === MemberState.UNREVOKED_PARTITIONS) this.armRevocation(g.groupId, m.memberId, m.memberEpoch, m.rebalanceTimeoutMs);
      }
    }
  }

  /** The member's current target (tests and describe). */
  targetOf(groupId: string, memberId: string): Assignment {
    return copyAssignment(this.groups.get(groupId)?.target.get(memberId) ?? new Map());
  }
}

function sameList(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const sb = new Set(b);
  return a.every((x) => sb.has(x));
}

function sameMetadata(a: Map<string, { topicId: string; partitions: number }>, b: Map<string, { topicId: string; partitions: number }>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, t] of a) {
    const o = b.get(name);
    if (!o || o.topicId !== t.topicId || o.partitions !== t.partitions) return false;
  }
  return true;
}
