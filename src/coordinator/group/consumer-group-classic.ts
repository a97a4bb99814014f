/**
 * Mixed consumer groups (Kafka 4's online migration, KIP-848): classic-protocol members inside a
 * consumer group, and the online upgrade of a classic group when a consumer-protocol member joins
 * (group.consumer.migration.policy upgrade or bidirectional).
 *
 * - Upgrade: a classic group speaking the consumer protocol becomes a consumer group whose
 *   group epoch, target assignment epoch and member epochs are the classic generation, each
 *   member's target its current assignment (nothing moves until the joining member bumps the
 *   epoch). Records: the classic group's tombstone, then the consumer group's records.
 * - A classic member reconciles through the classic requests (Kafka's classicGroupJoinToConsumerGroup
 *   and friends): Heartbeat answers REBALANCE_IN_PROGRESS when a new target assignment is past its
 *   epoch, while it must revoke partitions, or once the partitions it waits for are free; its
 *   JoinGroup (with the partitions it still owns, ConsumerProtocolSubscription v1+; eager clients
 *   own none) runs the same reconciliation as a heartbeat and is answered at once, with the member
 *   epoch as generation and no leader (every member is a follower); its SyncGroup gets its
 *   assigned partitions (ConsumerProtocolAssignment v0); LeaveGroup removes it. Its session
 *   timeout is its JoinGroup's.
 * - Downgrade: when the last consumer-protocol member leaves or is fenced and classic members
 *   remain (policy downgrade or bidirectional), the group becomes a classic group again (its
 *   consumer-group records tombstoned, a GroupMetadata record with the remaining members and
 *   their current assignments) and rebalances: every member rejoins the classic way.
 * - Join and sync timeouts: a classic member asked to rejoin must do so within its rebalance
 *   timeout, and sync within it after joining, or it is removed.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { JoinGroupRequest } from '../../protocol/generated/messages/join-group-request.js';
import type { JoinGroupResponse } from '../../protocol/generated/messages/join-group-response.js';
import type { SyncGroupRequest } from '../../protocol/generated/messages/sync-group-request.js';
import type { SyncGroupResponse } from '../../protocol/generated/messages/sync-group-response.js';
import { readConsumerProtocolSubscription, type ConsumerProtocolSubscription } from '../../protocol/generated/messages/consumer-protocol-subscription.js';
import { readConsumerProtocolAssignment, writeConsumerProtocolAssignment } from '../../protocol/generated/messages/consumer-protocol-assignment.js';
import { Reader } from '../../protocol/reader.js';
import { Writer } from '../../protocol/writer.js';
import { answer, type CoordinatorResult } from '../runtime/runtime.js';
import { addPartition, type Assignment } from './assignor/types.js';
import { ClassicGroup, Pending, errorJoinResponse, errorSyncResponse } from './classic-group.js';
import { ConsumerGroup, ConsumerGroupMember, MemberState, newMemberId, toTopicPartitions } from './consumer-group.js';
import type { ConsumerGroupRecord } from './consumer-group-records.js';
import type { LeaveResult, LeavingMember, JoinContext } from './group-metadata-manager.js';
import type { GroupCoordinatorRecord } from './records.js';
import type { TopicView } from './topic-view.js';

/**
 * What the classic members of consumer groups use of the consumer group manager that owns them
 * (ConsumerGroupManager implements it): its records, timers and member reconciliation.
 */
export interface ConsumerGroupOps {
  readonly maxSize: number;
  subscriptionMetadata(members: Iterable<ConsumerGroupMember>, regexPendingFor?: string | null): Map<string, { topicId: string; partitions: number }>;
  partitionMetadataRecord(groupId: string, metadata: Map<string, { topicId: string; partitions: number }>): ConsumerGroupRecord;
  memberRecord(groupId: string, m: ConsumerGroupMember): ConsumerGroupRecord;
  currentAssignmentRecord(groupId: string, m: ConsumerGroupMember): ConsumerGroupRecord;
  memberTombstones(groupId: string, memberId: string): ConsumerGroupRecord[];
  applyMember(group: ConsumerGroup, member: ConsumerGroupMember, updated: ConsumerGroupMember, replaced: ConsumerGroupMember | null, isNew: boolean, owned: Assignment | null, records: GroupCoordinatorRecord[]): { reconciled: ConsumerGroupMember; assignmentChanged: boolean };
  armSession(groupId: string, memberId: string, classicSessionTimeoutMs?: number): void;
  cancelTimers(groupId: string, memberId: string): void;
  armClassicTimeout(kind: 'join' | 'sync', groupId: string, memberId: string, delayMs: number, onlyIfAbsent?: boolean): void;
  cancelClassicTimeout(kind: 'join' | 'sync', groupId: string, memberId: string): void;
  fenceManyRecords(group: ConsumerGroup, memberIds: string[]): GroupCoordinatorRecord[];
}

type Rec = GroupCoordinatorRecord;

const CONSUMER_PROTOCOL_TYPE = 'consumer';

function decodeSubscription(metadata: Buffer): ConsumerProtocolSubscription | null {
  try {
    const r = new Reader(metadata);
    const version = r.int16();
    return readConsumerProtocolSubscription(r, Math.min(Math.max(version, 0), 3));
  } catch {
    return null;
  }
}

function encodeAssignment(partitions: { topic: string; partitions: number[] }[]): Buffer {
  const w = new Writer(64);
  w.int16(0);
  writeConsumerProtocolAssignment(w, 0, { assignedPartitions: partitions, userData: null });
  return w.toBuffer();
}

function resolved<T>(v: T): Pending<T> {
  const p = new Pending<T>();
  p.complete(v);
  return p;
}

export class ClassicMembersOfConsumerGroups {
  constructor(private readonly manager: ConsumerGroupOps, private readonly topics: TopicView) {}

  private byName(partitions: { topic: string; partitions: number[] }[]): Assignment {
    const a: Assignment = new Map();
    for (const tp of partitions) {
      const t = this.topics.byName(tp.topic);
      if (t) for (const p of tp.partitions) if (p < t.partitions) addPartition(a, t.topicId, p);
    }
    return a;
  }

  private named(a: Assignment): { topic: string; partitions: number[] }[] {
    return toTopicPartitions(a).flatMap((tp) => {
      const t = this.topics.byId(tp.topicId);
      return t ? [{ topic: t.name, partitions: tp.partitions }] : [];
    });
  }

  // -------------------------------------------------------------------------------------------
  // Online upgrade

  /**
   * The consumer group a classic group with members becomes, and the records that make it so; or
   * why it cannot (Kafka's validateOnlineUpgrade and ConsumerGroup.fromClassicGroup, whose
   * GROUP_ID_NOT_FOUND texts these are): the policy, another protocol type, more members than a
   * consumer group may have, a subscription or assignment that does not decode, or user data in
   * an assignment (a custom assignor's, or what librdkafka's leader echoes back from a sticky
   * member's subscription), which a consumer group could not hand back. A group in the middle of
   * a rebalance is upgraded too: its parked JoinGroup and SyncGroup calls are answered
   * REBALANCE_IN_PROGRESS, so those members join again, into the consumer group.
   */
  upgrade(classic: ClassicGroup, policy: string, maxSize: number): { group: ConsumerGroup; records: Rec[] } | { refused: string } {
    const refused = (why: string) => ({ refused: `Cannot upgrade classic group ${classic.groupId} to consumer group because ${why}.` });
    if (policy !== 'upgrade' && policy !== 'bidirectional') return refused('online upgrade is disabled');
    if (classic.protocolType !== CONSUMER_PROTOCOL_TYPE) return refused('the group does not use the consumer embedded protocol');
    if (classic.members.size > maxSize) return refused('the group size exceeds the consumer group maximum size');
    const group = new ConsumerGroup(classic.groupId);
    group.groupEpoch = classic.generationId;
    group.assignmentEpoch = classic.generationId;
    for (const cm of classic.members.values()) {
      let assigned: Assignment = new Map();
      if (cm.assignment.length > 0) {
        let a;
        try {
          const r = new Reader(cm.assignment);
          const version = r.int16();
          a = readConsumerProtocolAssignment(r, Math.min(Math.max(version, 0), 3));
        } catch {
          return refused('the embedded consumer protocol is malformed');
        }
        if (a.userData !== null && a.userData.length > 0) {
          return refused('an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade');
        }
        assigned = this.byName(a.assignedPartitions);
      }
      const sub = decodeSubscription(cm.metadata(classic.protocolName));
      if (!sub) return refused('the embedded consumer protocol is malformed');
      const m = new ConsumerGroupMember(cm.memberId);
      m.instanceId = cm.groupInstanceId;
      m.clientId = cm.clientId;
      m.clientHost = cm.clientHost;
      m.subscribedTopicNames = [...sub.topics];
      m.rebalanceTimeoutMs = cm.rebalanceTimeoutMs;
      m.memberEpoch = classic.generationId;
      m.previousMemberEpoch = classic.generationId;
      m.state = MemberState.STABLE;
      m.assigned = assigned;
      // The chosen protocol first: it is the one the member is told to use.
      const chosen = cm.protocols.filter((p) => p.name === classic.protocolName);
      m.classic = { sessionTimeoutMs: cm.sessionTimeoutMs, protocols: [...chosen, ...cm.protocols.filter((p) => p.name !== classic.protocolName)] };
      group.putMember(m);
      group.target.set(m.memberId, new Map([...assigned].map(([t, s]) => [t, new Set(s)])));
    }
    group.subscriptionMetadata = this.manager.subscriptionMetadata(group.members.values());
    const gid = group.groupId;
    const records: Rec[] = [{ type: 'group', groupId: gid, value: null }];
    records.push({ type: 'cg-metadata', groupId: gid, value: { epoch: group.groupEpoch } });
    records.push(this.manager.partitionMetadataRecord(gid, group.subscriptionMetadata));
    for (const m of group.members.values()) {
      records.push(this.manager.memberRecord(gid, m));
      records.push({ type: 'cg-target-member', groupId: gid, memberId: m.memberId, value: { topicPartitions: toTopicPartitions(group.target.get(m.memberId)!) } });
    }
    records.push({ type: 'cg-target-metadata', groupId: gid, value: { assignmentEpoch: group.assignmentEpoch } });
    for (const m of group.members.values()) records.push(this.manager.currentAssignmentRecord(gid, m));
    for (const cm of classic.members.values()) {
      cm.awaitingJoin?.complete(errorJoinResponse(ErrorCode.REBALANCE_IN_PROGRESS, cm.memberId));
      cm.awaitingJoin = null;
      cm.awaitingSync?.complete(errorSyncResponse(ErrorCode.REBALANCE_IN_PROGRESS));
      cm.awaitingSync = null;
    }
    return { group, records };
  }

  /**
   * The records turning a consumer group whose only remaining members use the classic protocol
   * back into a classic group (Kafka's downgrade, policy downgrade or bidirectional), or null:
   * the consumer group's records tombstoned, then a GroupMetadata record with the remaining
   * members, their subscriptions and current assignments, at generation = the next group epoch.
   */
  downgrade(group: ConsumerGroup, leaving: string[], policy: string, classicMaxSize: number, nowMs: number): Rec[] | null {
    if (policy !== 'downgrade' && policy !== 'bidirectional') return null;
    const rest = [...group.members.values()].filter((m) => !leaving.includes(m.memberId));
    if (rest.length === 0 || rest.length > classicMaxSize || rest.some((m) => !m.classic)) return null;
    const protocol = rest[0].classic!.protocols.find((p) => rest.every((m) => m.classic!.protocols.some((q) => q.name === p.name)));
    if (!protocol) return null;
    const gid = group.groupId;
    const records: Rec[] = [];
    for (const id of group.members.keys()) records.push(...this.manager.memberTombstones(gid, id));
    records.push({ type: 'cg-target-metadata', groupId: gid, value: null });
    records.push({ type: 'cg-partition-metadata', groupId: gid, value: null });
    records.push({ type: 'cg-metadata', groupId: gid, value: null });
    records.push({
      type: 'group', groupId: gid,
      value: {
        protocolType: CONSUMER_PROTOCOL_TYPE, generation: group.groupEpoch + 1, protocol: protocol.name, leader: rest[0].memberId,
        currentStateTimestamp: BigInt(nowMs),
        members: rest.map((m) => ({
          memberId: m.memberId, groupInstanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost,
          rebalanceTimeout: m.rebalanceTimeoutMs, sessionTimeout: m.classic!.sessionTimeoutMs,
          subscription: m.classic!.protocols.find((p) => p.name === protocol.name)!.metadata,
          assignment: encodeAssignment(this.named(m.assigned)),
        })),
      },
    });
    return records;
  }

  // -------------------------------------------------------------------------------------------
  // Classic requests to a consumer group

  /** Kafka's supportsClassicProtocols: consumer protocol type and a protocol every classic member has. */
  private supports(group: ConsumerGroup, protocolType: string, names: string[]): boolean {
    if (protocolType !== CONSUMER_PROTOCOL_TYPE || names.length === 0) return false;
    for (const m of group.members.values()) {
      if (!m.classic) continue;
      if (!m.classic.protocols.some((p) => names.includes(p.name))) return false;
    }
    return true;
  }

  join(group: ConsumerGroup, jc: JoinContext, req: JoinGroupRequest): CoordinatorResult<Pending<JoinGroupResponse>, Rec> {
    const fail = (code: number) => answer<Pending<JoinGroupResponse>, Rec>(resolved(errorJoinResponse(code, req.memberId)));
    if (!this.supports(group, req.protocolType, req.protocols.map((p) => p.name))) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    let memberId = req.memberId;
    if (memberId === '') {
      // Kafka names classic members of consumer groups like consumer-protocol ones (a random Uuid).
      memberId = newMemberId();
      if (jc.apiVersion >= 4 && req.groupInstanceId === null) return answer(resolved({ ...errorJoinResponse(ErrorCode.MEMBER_ID_REQUIRED, memberId) }));
    }
    let member = group.members.get(memberId);
    let replaced: ConsumerGroupMember | null = null;
    let isNew = false;
    if (req.groupInstanceId !== null) {
      const existing = group.staticMember(req.groupInstanceId);
      if (existing && existing.memberId !== memberId) {
        // A classic static member rejoining under a new id takes its place back.
        if (req.memberId !== '') return fail(ErrorCode.FENCED_INSTANCE_ID);
        replaced = existing;
        member = existing.copyAs(memberId);
        member.memberEpoch = 0;
        member.previousMemberEpoch = 0;
      }
    }
    if (!member) {
      if (group.members.size >= this.manager.maxSize) return fail(ErrorCode.GROUP_MAX_SIZE_REACHED);
      member = new ConsumerGroupMember(memberId);
      member.instanceId = req.groupInstanceId;
      isNew = true;
    } else if (!member.classic && !replaced) {
      return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    }
    const sub = decodeSubscription(req.protocols[0].metadata);
    if (!sub) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const updated = member.clone();
    updated.subscribedTopicNames = [...sub.topics];
    updated.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    updated.clientId = jc.clientId;
    updated.clientHost = jc.clientHost;
    updated.rackId = sub.rackId ?? updated.rackId;
    updated.classic = { sessionTimeoutMs: req.sessionTimeoutMs, protocols: req.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) };
    const records: Rec[] = [];
    const owned = this.byName(sub.ownedPartitions);
    const { reconciled } = this.manager.applyMember(group, member, updated, replaced, isNew, owned, records);
    const groupId = group.groupId;
    return {
      records,
      response: () => {
        this.manager.armSession(groupId, reconciled.memberId, req.sessionTimeoutMs);
        if (replaced) this.manager.cancelTimers(groupId, replaced.memberId);
        this.manager.cancelClassicTimeout('join', groupId, reconciled.memberId);
        this.manager.armClassicTimeout('sync', groupId, reconciled.memberId, req.rebalanceTimeoutMs);
        return resolved<JoinGroupResponse>({
          throttleTimeMs: 0, errorCode: ErrorCode.NONE, generationId: reconciled.memberEpoch, protocolType: CONSUMER_PROTOCOL_TYPE,
          protocolName: req.protocols[0].name, leader: '', skipAssignment: false, memberId: reconciled.memberId, members: [],
        });
      },
    };
  }

  private classicMember(group: ConsumerGroup, memberId: string, instanceId: string | null): ConsumerGroupMember | number {
    const m = group.members.get(memberId);
    if (!m) {
      if (instanceId !== null && group.staticMember(instanceId)) return ErrorCode.FENCED_INSTANCE_ID;
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (!m.classic) return ErrorCode.UNKNOWN_MEMBER_ID;
    return m;
  }

  sync(group: ConsumerGroup, req: SyncGroupRequest): CoordinatorResult<Pending<SyncGroupResponse>, Rec> {
    const m = this.classicMember(group, req.memberId, req.groupInstanceId);
    if (typeof m === 'number') return answer(resolved(errorSyncResponse(m)));
    if (req.generationId !== m.memberEpoch) return answer(resolved(errorSyncResponse(ErrorCode.ILLEGAL_GENERATION)));
    const protocolName = m.classic!.protocols[0]?.name ?? null;
    if ((req.protocolType !== null && req.protocolType !== CONSUMER_PROTOCOL_TYPE) || (req.protocolName !== null && req.protocolName !== protocolName)) {
      return answer(resolved(errorSyncResponse(ErrorCode.INCONSISTENT_GROUP_PROTOCOL)));
    }
    this.manager.armSession(group.groupId, m.memberId, m.classic!.sessionTimeoutMs);
    this.manager.cancelClassicTimeout('sync', group.groupId, m.memberId);
    return answer(resolved<SyncGroupResponse>({
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, protocolType: CONSUMER_PROTOCOL_TYPE, protocolName, assignment: encodeAssignment(this.named(m.assigned)),
    }));
  }

  /** Kafka's classicGroupHeartbeatToConsumerGroup. */
  heartbeat(group: ConsumerGroup, req: { memberId: string; groupInstanceId: string | null; generationId: number }): CoordinatorResult<number, Rec> {
    const m = this.classicMember(group, req.memberId, req.groupInstanceId);
    if (typeof m === 'number') return answer(m);
    if (req.generationId !== m.memberEpoch) return answer(ErrorCode.ILLEGAL_GENERATION);
    this.manager.armSession(group.groupId, m.memberId, m.classic!.sessionTimeoutMs);
    // With assignment batching the group epoch can be ahead of the target: only a new target
    // (assignment epoch past the member's) asks the member to rejoin, as Kafka 4.4 answers.
    const rejoin = m.memberEpoch < group.assignmentEpoch
      || m.state === MemberState.UNREVOKED_PARTITIONS
      || (m.state === MemberState.UNRELEASED_PARTITIONS && !this.waitingOnUnreleased(group, m));
    if (rejoin) this.manager.armClassicTimeout('join', group.groupId, m.memberId, m.rebalanceTimeoutMs, true);
    return answer(rejoin ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.NONE);
  }

  /** Whether a partition of the member's target is still owned by another member. */
  private waitingOnUnreleased(group: ConsumerGroup, m: ConsumerGroupMember): boolean {
    for (const [t, parts] of group.target.get(m.memberId) ?? []) {
      for (const p of parts) {
        if (m.assigned.get(t)?.has(p)) continue;
        if (group.currentPartitionEpoch(t, p) !== -1) return true;
      }
    }
    return false;
  }

  leave(group: ConsumerGroup, leaving: LeavingMember[]): CoordinatorResult<LeaveResult, Rec> {
    const records: Rec[] = [];
    const gone: string[] = [];
    const members = leaving.map((l) => {
      const m = l.groupInstanceId !== null ? group.staticMember(l.groupInstanceId) : group.members.get(l.memberId);
      if (!m || (l.groupInstanceId !== null && l.memberId !== '' && m.memberId !== l.memberId)) {
        return { ...l, errorCode: m ? ErrorCode.FENCED_INSTANCE_ID : ErrorCode.UNKNOWN_MEMBER_ID };
      }
      if (gone.includes(m.memberId)) return { ...l, errorCode: ErrorCode.NONE };
      gone.push(m.memberId);
      return { ...l, errorCode: ErrorCode.NONE };
    });
    if (gone.length > 0) records.push(...this.manager.fenceManyRecords(group, gone));
    return {
      records,
      response: () => {
        for (const id of gone) this.manager.cancelTimers(group.groupId, id);
        return { errorCode: ErrorCode.NONE, members };
      },
    };
  }
}

