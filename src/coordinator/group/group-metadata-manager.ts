/**
 * The classic group protocol of one coordinator shard (Kafka's GroupMetadataManager, classic
 * part): JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups, ListGroups, and the timers
 * behind them (initial rebalance delay, join/rebalance timeout, pending-sync timeout, session
 * and new-member join timeouts).
 *
 * What is durable and what is not:
 * - Durable (a GroupMetadata record, applied by `replay`): generation, protocol type and name,
 *   leader, members with their subscription and assignment, the time the group became Empty.
 *   Written when the leader's assignment is accepted (→ Stable), when a rebalance ends with no
 *   members (→ Empty, next generation), when a static member's id is replaced in a Stable group,
 *   and as a tombstone when the group is deleted.
 * - In memory only, as in Kafka: a rebalance in progress (members joining, parked JoinGroup and
 *   SyncGroup answers, the next generation until its assignment is written) and every timer.
 *   After a restart a group is what its last record says (Stable or Empty) and members that
 *   were mid-rebalance rejoin.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { JoinGroupRequest } from '../../protocol/generated/messages/join-group-request.js';
import type { JoinGroupResponse } from '../../protocol/generated/messages/join-group-response.js';
import type { SyncGroupRequest } from '../../protocol/generated/messages/sync-group-request.js';
import type { SyncGroupResponse } from '../../protocol/generated/messages/sync-group-response.js';
import type { DescribedGroup } from '../../protocol/generated/messages/describe-groups-response.js';
import type { ListedGroup } from '../../protocol/generated/messages/list-groups-response.js';
import type { GroupMetadataValue } from '../../protocol/generated/messages/group-metadata-value.js';
import type { CoordinatorResult, ShardContext } from '../runtime/runtime.js';
import {
  ClassicGroup, ClassicGroupMember, EMPTY_BYTES, Pending, errorJoinResponse, errorSyncResponse, generateMemberId,
  type ClassicGroupState, type Protocol,
} from './classic-group.js';
import type { GroupCoordinatorRecord, GroupMetadataRecord } from './records.js';
import type { GroupConfig } from './group-config.js';

type Rec = GroupCoordinatorRecord;

/** What an internal step wants: records to write, and what to do once they are written (or not). */
export interface Effect {
  records: Rec[];
  onAppended?: () => void;
  onAppendError?: (errorCode: number) => void;
}

const NO_EFFECT: Effect = { records: [] };

/** Wraps an effect and a final answer into a coordinator result. */
export function toResult<T>(effect: Effect, value: () => T): CoordinatorResult<T, Rec> {
  return {
    records: effect.records,
    response: () => {
      effect.onAppended?.();
      return value();
    },
    onAppendError: (code) => {
      effect.onAppendError?.(code);
      return value();
    },
  };
}

export interface JoinContext {
  apiVersion: number;
  clientId: string;
  clientHost: string;
}

export interface LeavingMember {
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveResult {
  errorCode: number;
  members: { memberId: string; groupInstanceId: string | null; errorCode: number }[];
}

/**
 * Authorized-operations bitmask of a group without ACLs: READ, DELETE, DESCRIBE, and since
 * Kafka 4's group configs DESCRIBE_CONFIGS, ALTER_CONFIGS (3400, as a 4.4 broker answers).
 */
export const GROUP_AUTHORIZED_OPERATIONS = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

const heartbeatKey = (groupId: string, memberId: string) => `heartbeat-${groupId}-${memberId}`;
const joinKey = (groupId: string) => `join-${groupId}`;
const syncKey = (groupId: string) => `sync-${groupId}`;

export class GroupMetadataManager {
  /** Whether a share group has this id (set by the shard; classic joins to it are refused). */
  isShareGroup: (groupId: string) => boolean = () => false;
  readonly groups = new Map<string, ClassicGroup>();

  constructor(private readonly ctx: ShardContext<Rec>, private readonly config: GroupConfig) {}

  private now(): number {
    return this.ctx.now();
  }

  /** Is `group` still the live object for its id (timers hold references)? */
  private live(group: ClassicGroup): boolean {
    return !group.is('Dead') && this.groups.get(group.groupId) === group;
  }

  private timer(key: string, delayMs: number, step: () => Effect): void {
    this.ctx.schedule(key, delayMs, () => toResult(step(), () => undefined));
  }

  /** The group, created Empty when absent (simple groups of offset commits, new joins). */
  getOrCreate(groupId: string): ClassicGroup {
    let g = this.groups.get(groupId);
    if (!g) {
      g = new ClassicGroup(groupId, this.now());
      this.groups.set(groupId, g);
    }
    return g;
  }

  // -------------------------------------------------------------------------------------------
  // Replay

  /** GroupMetadata record: the durable state of a group (tombstone: the group is gone). */
  replay(r: GroupMetadataRecord): void {
    const v = r.value;
    if (v === null) {
      const g = this.groups.get(r.groupId);
      if (g) this.drop(g);
      return;
    }
    const g = this.getOrCreate(r.groupId);
    g.generationId = v.generation;
    g.protocolType = v.protocolType === '' ? null : v.protocolType;
    g.protocolName = v.protocol;
    g.leaderId = v.leader;
    const next = new Map<string, ClassicGroupMember>();
    for (const rm of v.members) {
      let m = g.members.get(rm.memberId);
      if (!m) {
        m = new ClassicGroupMember(
          rm.memberId, rm.groupInstanceId, rm.clientId, rm.clientHost,
          rm.rebalanceTimeout === -1 ? rm.sessionTimeout : rm.rebalanceTimeout, rm.sessionTimeout,
          v.protocolType, [{ name: v.protocol ?? '', metadata: rm.subscription }],
        );
      }
      m.assignment = rm.assignment;
      next.set(rm.memberId, m);
    }
    for (const old of g.members.values()) {
      if (!next.has(old.memberId)) this.forgetMember(g, old, ErrorCode.UNKNOWN_MEMBER_ID);
    }
    g.members.clear();
    g.staticMembers.clear();
    for (const m of next.values()) {
      g.members.set(m.memberId, m);
      if (m.groupInstanceId !== null) g.staticMembers.set(m.groupInstanceId, m.memberId);
    }
    for (const id of [...g.pendingSyncMembers]) if (!next.has(id)) g.pendingSyncMembers.delete(id);
    if (next.size === 0) {
      g.forceState('Empty', v.currentStateTimestamp === -1n ? this.now() : Number(v.currentStateTimestamp));
    } else if (!g.is('Stable')) {
      g.forceState('Stable', this.now());
    }
  }

  /** The GroupMetadata record of `group` with these fields replaced. */
  private groupRecord(group: ClassicGroup, over: Partial<GroupMetadataValue> = {}, assignment?: Map<string, Buffer>): GroupMetadataRecord {
    const value: GroupMetadataValue = {
      protocolType: group.protocolType ?? '',
      generation: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: BigInt(group.stateTimestampMs),
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
        rebalanceTimeout: m.rebalanceTimeoutMs, sessionTimeout: m.sessionTimeoutMs,
        subscription: m.metadata(group.protocolName),
        assignment: assignment ? (assignment.get(m.memberId) ?? EMPTY_BYTES) : m.assignment,
      })),
      ...over,
    };
    return { type: 'group', groupId: group.groupId, value };
  }

  /** Removes a group from memory (tombstone replayed): it is Dead, its timers stop. */
  private drop(group: ClassicGroup): void {
    for (const m of [...group.members.values()]) this.forgetMember(group, m, ErrorCode.COORDINATOR_NOT_AVAILABLE);
    for (const id of group.pendingMembers) this.ctx.cancel(heartbeatKey(group.groupId, id));
    this.ctx.cancel(joinKey(group.groupId));
    this.ctx.cancel(syncKey(group.groupId));
    group.forceState('Dead', this.now());
    this.groups.delete(group.groupId);
  }

  /** Cancels a member's timer and answers what it has parked (it is no longer in the group). */
  private forgetMember(group: ClassicGroup, m: ClassicGroupMember, errorCode: number): void {
    this.ctx.cancel(heartbeatKey(group.groupId, m.memberId));
    m.awaitingJoin?.complete(errorJoinResponse(errorCode, ''));
    m.awaitingJoin = null;
    m.awaitingSync?.complete(errorSyncResponse(errorCode));
    m.awaitingSync = null;
  }

  /** After loading: every member must heartbeat within its session timeout. */
  onLoaded(): void {
    for (const g of this.groups.values()) {
      for (const m of g.members.values()) this.scheduleHeartbeat(g, m, m.sessionTimeoutMs);
      if (g.size > this.config.maxSize) this.prepareRebalance(g);
    }
  }

  /** Unloading: parked requests learn that this is no longer their coordinator. */
  onUnloaded(): void {
    for (const g of this.groups.values()) {
      for (const m of g.members.values()) {
        m.awaitingJoin?.complete(errorJoinResponse(ErrorCode.NOT_COORDINATOR, m.memberId));
        m.awaitingJoin = null;
        m.awaitingSync?.complete(errorSyncResponse(ErrorCode.NOT_COORDINATOR));
        m.awaitingSync = null;
      }
    }
  }

  // -------------------------------------------------------------------------------------------
  // JoinGroup

  join(jc: JoinContext, req: JoinGroupRequest): CoordinatorResult<Pending<JoinGroupResponse>, Rec> {
    const pending = new Pending<JoinGroupResponse>();
    const done = (effect: Effect = NO_EFFECT) => toResult(effect, () => pending);
    const existed = this.groups.has(req.groupId);
    const fail = (code: number, memberId: string) => {
      pending.complete(errorJoinResponse(code, memberId));
      const g = this.groups.get(req.groupId);
      if (!existed && g && g.size === 0 && g.pendingMembers.size === 0) this.groups.delete(req.groupId);
      return done();
    };
    if (req.groupId === '') return fail(ErrorCode.INVALID_GROUP_ID, req.memberId);
    if (req.sessionTimeoutMs < this.config.minSessionTimeoutMs || req.sessionTimeoutMs > this.config.maxSessionTimeoutMs) {
      return fail(ErrorCode.INVALID_SESSION_TIMEOUT, req.memberId);
    }
    const isUnknown = req.memberId === '';
    // A share group's id (Kafka 4.4's classicGroupJoin on a group of another type).
    if (this.isShareGroup(req.groupId)) return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, isUnknown ? '' : req.memberId);
    if (!existed && !isUnknown) return fail(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId);
    const group = this.getOrCreate(req.groupId);
    if (group.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE, req.memberId);
    if (!this.acceptJoiningMember(group, req.memberId)) {
      const m = group.members.get(req.memberId);
      if (m) this.forgetMember(group, m, ErrorCode.GROUP_MAX_SIZE_REACHED);
      group.remove(req.memberId);
      return fail(ErrorCode.GROUP_MAX_SIZE_REACHED, '');
    }
    const protocols: Protocol[] = req.protocols.map((p) => ({ name: p.name, metadata: p.metadata }));
    if (!group.supportsProtocols(req.protocolType, protocols)) {
      return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, isUnknown ? '' : req.memberId);
    }

    if (isUnknown) {
      const newMemberId = generateMemberId(jc.clientId, req.groupInstanceId);
      if (req.groupInstanceId !== null) {
        const existing = group.staticMemberId(req.groupInstanceId);
        if (existing !== undefined) return done(this.replaceStaticMember(jc, req, group, protocols, existing, newMemberId, pending));
        return done(this.addMemberAndRebalance(jc, req, group, protocols, newMemberId, pending));
      }
      if (jc.apiVersion >= 4) {
        // KIP-394: hand out the id, expect the member back with it within its session timeout.
        group.pendingMembers.add(newMemberId);
        this.timer(heartbeatKey(group.groupId, newMemberId), req.sessionTimeoutMs, () => this.expireHeartbeat(group, newMemberId));
        pending.complete(errorJoinResponse(ErrorCode.MEMBER_ID_REQUIRED, newMemberId));
        return done();
      }
      return done(this.addMemberAndRebalance(jc, req, group, protocols, newMemberId, pending));
    }

    if (group.pendingMembers.has(req.memberId)) {
      return done(this.addMemberAndRebalance(jc, req, group, protocols, req.memberId, pending));
    }
    const invalid = group.validateMember(req.memberId, req.groupInstanceId);
    if (invalid !== ErrorCode.NONE) return fail(invalid, req.memberId);
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case 'PreparingRebalance':
        return done(this.updateMemberAndRebalance(group, member, req, protocols, pending));
      case 'CompletingRebalance':
        if (member.matches(protocols)) {
          // Probably a lost JoinGroup answer: repeat the current generation.
          pending.complete(this.joinAnswer(group, member.memberId, group.isLeader(member.memberId), false));
          return done();
        }
        return done(this.updateMemberAndRebalance(group, member, req, protocols, pending));
      case 'Stable':
        if (group.isLeader(member.memberId) || !member.matches(protocols)) {
          return done(this.updateMemberAndRebalance(group, member, req, protocols, pending));
        }
        pending.complete(this.joinAnswer(group, member.memberId, false, false));
        return done();
      default:
        return fail(ErrorCode.UNKNOWN_MEMBER_ID, req.memberId);
    }
  }

  private joinAnswer(group: ClassicGroup, memberId: string, withMembers: boolean, skipAssignment: boolean, leader = group.leaderId): JoinGroupResponse {
    return {
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, generationId: group.generationId,
      protocolType: group.protocolType, protocolName: group.protocolName, leader: leader ?? '',
      skipAssignment, memberId, members: withMembers ? group.currentMemberList() : [],
    };
  }

  private acceptJoiningMember(group: ClassicGroup, memberId: string): boolean {
    switch (group.state) {
      case 'Empty':
      case 'Dead':
        return true;
      case 'PreparingRebalance': {
        const m = group.members.get(memberId);
        return (m !== undefined && m.awaitingJoin !== null) || group.numAwaitingJoin < this.config.maxSize;
      }
      default:
        return group.members.has(memberId) || group.size < this.config.maxSize;
    }
  }

  private addMemberAndRebalance(jc: JoinContext, req: JoinGroupRequest, group: ClassicGroup, protocols: Protocol[], memberId: string, pending: Pending<JoinGroupResponse>): Effect {
    const member = new ClassicGroupMember(
      memberId, req.groupInstanceId, jc.clientId, jc.clientHost, req.rebalanceTimeoutMs, req.sessionTimeoutMs, req.protocolType, protocols,
    );
    member.isNew = true;
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member, pending);
    // A parked new member cannot heartbeat; give up on it after the new-member join timeout.
    this.scheduleHeartbeat(group, member, this.config.newMemberJoinTimeoutMs);
    return this.maybePrepareRebalanceOrCompleteJoin(group);
  }

  private updateMemberAndRebalance(group: ClassicGroup, member: ClassicGroupMember, req: JoinGroupRequest, protocols: Protocol[], pending: Pending<JoinGroupResponse>): Effect {
    if (member.awaitingJoin && member.awaitingJoin !== pending) member.awaitingJoin.complete(errorJoinResponse(ErrorCode.REBALANCE_IN_PROGRESS, member.memberId));
    member.protocols = protocols;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.awaitingJoin = pending;
    return this.maybePrepareRebalanceOrCompleteJoin(group);
  }

  /** A restarted static member takes over its instance's place under a new member id. */
  private replaceStaticMember(
    jc: JoinContext, req: JoinGroupRequest, group: ClassicGroup, protocols: Protocol[],
    oldMemberId: string, newMemberId: string, pending: Pending<JoinGroupResponse>,
  ): Effect {
    const instanceId = req.groupInstanceId!;
    const currentLeader = group.leaderId;
    this.ctx.cancel(heartbeatKey(group.groupId, oldMemberId));
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
    const old = { protocols: member.protocols, rebalanceTimeoutMs: member.rebalanceTimeoutMs, sessionTimeoutMs: member.sessionTimeoutMs };
    member.protocols = protocols;
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    member.clientId = jc.clientId;
    member.clientHost = jc.clientHost;
    member.awaitingJoin = pending;

    if (group.is('Stable')) {
      if (group.protocolName === group.selectProtocol()) {
        // Nothing the assignment depends on changed: persist the new id, no rebalance.
        return {
          records: [this.groupRecord(group)],
          onAppended: () => {
            const isLeader = group.isLeader(newMemberId);
            member.awaitingJoin = null;
            if (jc.apiVersion >= 9) pending.complete(this.joinAnswer(group, newMemberId, isLeader, isLeader));
            else pending.complete(this.joinAnswer(group, newMemberId, false, false, currentLeader));
          },
          onAppendError: (code) => {
            member.protocols = old.protocols;
            member.rebalanceTimeoutMs = old.rebalanceTimeoutMs;
            member.sessionTimeoutMs = old.sessionTimeoutMs;
            member.awaitingJoin = null;
            this.ctx.cancel(heartbeatKey(group.groupId, newMemberId));
            const back = group.replaceStaticMember(instanceId, newMemberId, oldMemberId);
            this.scheduleHeartbeat(group, back, back.sessionTimeoutMs);
            pending.complete({ ...errorJoinResponse(code, ''), generationId: group.generationId, leader: currentLeader ?? '' });
          },
        };
      }
      return this.maybePrepareRebalanceOrCompleteJoin(group);
    }
    if (group.is('CompletingRebalance')) {
      // The leader may already have assigned under the old id: rebalance.
      return this.prepareRebalance(group);
    }
    return this.maybeCompleteJoinPhase(group);
  }

  private maybePrepareRebalanceOrCompleteJoin(group: ClassicGroup): Effect {
    return group.canRebalance() ? this.prepareRebalance(group) : this.maybeCompleteJoinPhase(group);
  }

  private prepareRebalance(group: ClassicGroup): Effect {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentWithError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    this.removeSyncExpiration(group);
    const initial = group.is('Empty');
    if (initial) {
      const delayMs = this.config.initialRebalanceDelayMs;
      const remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
      this.timer(joinKey(group.groupId), delayMs, () => this.tryCompleteInitialRebalance(group, delayMs, remainingMs));
    }
    group.transitionTo('PreparingRebalance', this.now());
    return initial ? NO_EFFECT : this.maybeCompleteJoinElseSchedule(group);
  }

  private maybeCompleteJoinElseSchedule(group: ClassicGroup): Effect {
    if (group.hasAllMembersJoined()) return this.completeJoin(group);
    this.timer(joinKey(group.groupId), group.rebalanceTimeoutMs(), () => this.completeJoinIfLive(group));
    return NO_EFFECT;
  }

  private tryCompleteInitialRebalance(group: ClassicGroup, delayMs: number, remainingMs: number): Effect {
    if (!this.live(group)) return NO_EFFECT;
    if (group.newMemberAdded && remainingMs !== 0) {
      group.newMemberAdded = false;
      const nextDelay = Math.min(this.config.initialRebalanceDelayMs, remainingMs);
      const nextRemaining = Math.max(remainingMs - delayMs, 0);
      this.timer(joinKey(group.groupId), nextDelay, () => this.tryCompleteInitialRebalance(group, nextDelay, nextRemaining));
      return NO_EFFECT;
    }
    return this.completeJoin(group);
  }

  private maybeCompleteJoinPhase(group: ClassicGroup): Effect {
    if (group.is('PreparingRebalance') && group.hasAllMembersJoined() && group.previousState !== 'Empty') return this.completeJoin(group);
    return NO_EFFECT;
  }

  private completeJoinIfLive(group: ClassicGroup): Effect {
    return this.live(group) && group.is('PreparingRebalance') ? this.completeJoin(group) : NO_EFFECT;
  }

  /**
   * Ends the join phase: dynamic members that did not rejoin are dropped; with members left the
   * next generation starts (CompletingRebalance, every parked JoinGroup answered, the leader
   * with the member list); with none, the group becomes Empty in the next generation (written).
   */
  private completeJoin(group: ClassicGroup): Effect {
    this.ctx.cancel(joinKey(group.groupId));
    for (const m of [...group.members.values()]) {
      if (m.awaitingJoin === null && !m.isStatic) {
        this.forgetMember(group, m, ErrorCode.UNKNOWN_MEMBER_ID);
        group.remove(m.memberId);
      }
    }
    if (group.is('Dead')) return NO_EFFECT;
    if (!group.maybeElectNewJoinedLeader() && group.size > 0) {
      // Only static members that have not rejoined remain: wait for them (or their session timeout).
      this.timer(joinKey(group.groupId), group.rebalanceTimeoutMs(), () => this.completeJoinIfLive(group));
      return NO_EFFECT;
    }
    const now = this.now();
    if (group.size === 0) {
      const over: Partial<GroupMetadataValue> = { generation: group.generationId + 1, protocol: null, leader: null, currentStateTimestamp: BigInt(now), members: [] };
      return {
        records: [this.groupRecord(group, over)],
        onAppendError: (code) => {
          // As Kafka: the empty generation stands in memory even if it could not be written.
          this.ctx.logger.warn(`group ${group.groupId}: could not write its empty generation (error ${code})`);
          this.replay(this.groupRecord(group, over));
        },
      };
    }
    group.generationId++;
    group.protocolName = group.selectProtocol();
    group.transitionTo('CompletingRebalance', now);
    group.pendingSyncMembers.clear();
    for (const m of group.members.values()) {
      const isLeader = group.isLeader(m.memberId);
      m.awaitingJoin?.complete(this.joinAnswer(group, m.memberId, isLeader, false));
      m.awaitingJoin = null;
      this.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
      m.isNew = false;
      group.pendingSyncMembers.add(m.memberId);
    }
    const generation = group.generationId;
    this.timer(syncKey(group.groupId), group.rebalanceTimeoutMs(), () => this.expirePendingSync(group, generation));
    return NO_EFFECT;
  }

  /** Members that got the JoinGroup answer but never sent SyncGroup are removed; rebalance. */
  private expirePendingSync(group: ClassicGroup, generation: number): Effect {
    if (!this.live(group) || generation !== group.generationId) return NO_EFFECT;
    if (!group.is('CompletingRebalance') && !group.is('Stable')) return NO_EFFECT;
    if (group.hasReceivedSyncFromAllMembers()) return NO_EFFECT;
    for (const id of [...group.pendingSyncMembers]) {
      const m = group.members.get(id);
      if (m) this.forgetMember(group, m, ErrorCode.UNKNOWN_MEMBER_ID);
      group.remove(id);
    }
    return this.prepareRebalance(group);
  }

  private removeSyncExpiration(group: ClassicGroup): void {
    group.pendingSyncMembers.clear();
    this.ctx.cancel(syncKey(group.groupId));
  }

  private removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.pendingSyncMembers.delete(memberId);
    if (!group.is('CompletingRebalance') && !group.is('Stable')) this.ctx.cancel(syncKey(group.groupId));
    else if (group.hasReceivedSyncFromAllMembers()) this.ctx.cancel(syncKey(group.groupId));
  }

  // -------------------------------------------------------------------------------------------
  // Heartbeats and session timeouts

  private scheduleHeartbeat(group: ClassicGroup, member: ClassicGroupMember, timeoutMs: number): void {
    const memberId = member.memberId;
    this.timer(heartbeatKey(group.groupId, memberId), timeoutMs, () => this.expireHeartbeat(group, memberId));
  }

  private expireHeartbeat(group: ClassicGroup, memberId: string): Effect {
    if (!this.live(group)) return NO_EFFECT;
    if (group.pendingMembers.delete(memberId)) {
      return group.is('PreparingRebalance') && group.hasAllMembersJoined() ? this.completeJoin(group) : NO_EFFECT;
    }
    const member = group.members.get(memberId);
    if (!member || member.hasSatisfiedHeartbeat()) return NO_EFFECT;
    this.ctx.logger.info(`group ${group.groupId}: member ${memberId} failed its session timeout, removing it`);
    return this.removeMemberAndUpdateGroup(group, member);
  }

  private removeMemberAndUpdateGroup(group: ClassicGroup, member: ClassicGroupMember): Effect {
    this.forgetMember(group, member, ErrorCode.UNKNOWN_MEMBER_ID);
    group.remove(member.memberId);
    if (group.is('Stable') || group.is('CompletingRebalance')) return this.maybePrepareRebalanceOrCompleteJoin(group);
    if (group.is('PreparingRebalance') && group.hasAllMembersJoined()) return this.completeJoin(group);
    return NO_EFFECT;
  }

  heartbeat(req: { groupId: string; memberId: string; groupInstanceId: string | null; generationId: number }): CoordinatorResult<number, Rec> {
    const code = this.heartbeatCode(req);
    return toResult(NO_EFFECT, () => code);
  }

  private heartbeatCode(req: { groupId: string; memberId: string; groupInstanceId: string | null; generationId: number }): number {
    const group = this.groups.get(req.groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    const invalid = group.validateMember(req.memberId, req.groupInstanceId);
    if (invalid !== ErrorCode.NONE) return invalid;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case 'Empty':
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case 'PreparingRebalance':
        this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return ErrorCode.REBALANCE_IN_PROGRESS;
      default:
        this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return ErrorCode.NONE;
    }
  }

  // -------------------------------------------------------------------------------------------
  // SyncGroup

  sync(req: SyncGroupRequest): CoordinatorResult<Pending<SyncGroupResponse>, Rec> {
    const pending = new Pending<SyncGroupResponse>();
    const done = (effect: Effect = NO_EFFECT) => toResult(effect, () => pending);
    const fail = (code: number) => {
      pending.complete(errorSyncResponse(code));
      return done();
    };
    const group = this.groups.get(req.groupId);
    if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (group.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const invalid = group.validateMember(req.memberId, req.groupInstanceId);
    if (invalid !== ErrorCode.NONE) return fail(invalid);
    if (req.generationId !== group.generationId) return fail(ErrorCode.ILLEGAL_GENERATION);
    if (isProtocolInconsistent(req.protocolType, group.protocolType) || isProtocolInconsistent(req.protocolName, group.protocolName)) {
      return fail(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    const member = group.members.get(req.memberId)!;
    switch (group.state) {
      case 'Empty':
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
      case 'PreparingRebalance':
        return fail(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Stable':
        this.removePendingSyncMember(group, member.memberId);
        pending.complete({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
        return done();
      default:
        break;
    }
    // CompletingRebalance: park until the leader's assignment is written.
    if (member.awaitingSync && member.awaitingSync !== pending) member.awaitingSync.complete(errorSyncResponse(ErrorCode.REBALANCE_IN_PROGRESS));
    member.awaitingSync = pending;
    this.removePendingSyncMember(group, member.memberId);
    if (!group.isLeader(member.memberId)) return done();
    const assignment = new Map<string, Buffer>();
    for (const a of req.assignments) assignment.set(a.memberId, a.assignment);
    return done({
      records: [this.groupRecord(group, {}, assignment)],
      // Replay has stored the assignment and made the group Stable: hand it out.
      onAppended: () => this.propagateAssignment(group, ErrorCode.NONE),
      onAppendError: (code) => {
        this.resetAndPropagateAssignmentWithError(group, code);
        const effect = this.maybePrepareRebalanceOrCompleteJoin(group);
        if (effect.records.length > 0) this.ctx.logger.warn(`group ${group.groupId}: records after a failed write were dropped`);
      },
    });
  }

  private resetAndPropagateAssignmentWithError(group: ClassicGroup, errorCode: number): void {
    for (const m of group.members.values()) m.assignment = EMPTY_BYTES;
    this.propagateAssignment(group, errorCode);
  }

  private propagateAssignment(group: ClassicGroup, errorCode: number): void {
    const ok = errorCode === ErrorCode.NONE;
    for (const m of group.members.values()) {
      if (!m.awaitingSync) continue;
      m.awaitingSync.complete({
        throttleTimeMs: 0, errorCode,
        protocolType: ok ? group.protocolType : null, protocolName: ok ? group.protocolName : null,
        assignment: m.assignment,
      });
      m.awaitingSync = null;
      this.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
    }
  }

  // -------------------------------------------------------------------------------------------
  // LeaveGroup

  leave(groupId: string, leaving: LeavingMember[]): CoordinatorResult<LeaveResult, Rec> {
    const group = this.groups.get(groupId);
    if (!group) {
      return toResult(NO_EFFECT, () => ({ errorCode: ErrorCode.NONE, members: leaving.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) }));
    }
    if (group.is('Dead')) return toResult(NO_EFFECT, () => ({ errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] }));
    const results: LeaveResult['members'] = [];
    let removed = 0;
    for (const l of leaving) {
      let code: number = ErrorCode.NONE;
      if (l.groupInstanceId === null) {
        if (group.pendingMembers.delete(l.memberId)) {
          this.ctx.cancel(heartbeatKey(group.groupId, l.memberId));
          removed++;
        } else if (!group.members.has(l.memberId)) {
          code = ErrorCode.UNKNOWN_MEMBER_ID;
        } else {
          this.removeCurrentMember(group, group.members.get(l.memberId)!);
          removed++;
        }
      } else {
        const current = group.staticMemberId(l.groupInstanceId);
        if (current === undefined) code = ErrorCode.UNKNOWN_MEMBER_ID;
        else if (l.memberId !== '' && l.memberId !== current) code = ErrorCode.FENCED_INSTANCE_ID;
        else {
          this.removeCurrentMember(group, group.members.get(current)!);
          removed++;
        }
      }
      results.push({ memberId: l.memberId, groupInstanceId: l.groupInstanceId, errorCode: code });
    }
    const effect = removed > 0 ? this.maybePrepareRebalanceOrCompleteJoin(group) : NO_EFFECT;
    return toResult(effect, () => ({ errorCode: ErrorCode.NONE, members: results }));
  }

  private removeCurrentMember(group: ClassicGroup, member: ClassicGroupMember): void {
    this.forgetMember(group, member, ErrorCode.UNKNOWN_MEMBER_ID);
    group.remove(member.memberId);
  }

  // -------------------------------------------------------------------------------------------
  // DescribeGroups / ListGroups

  describe(groupId: string, includeAuthorizedOperations: boolean): DescribedGroup {
    const ops = includeAuthorizedOperations ? GROUP_AUTHORIZED_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED;
    const group = this.groups.get(groupId);
    if (!group || group.is('Dead')) {
      return { errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [], authorizedOperations: ops };
    }
    const stable = group.is('Stable');
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: group.state,
      protocolType: group.protocolType ?? '',
      protocolData: stable ? (group.protocolName ?? '') : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
        // Kafka's describeNoMetadata outside Stable still shows the assignment a member holds
        // (e.g. the previous generation's while a rebalance is pending).
        memberMetadata: stable ? m.metadata(group.protocolName) : EMPTY_BYTES,
        memberAssignment: m.assignment,
      })),
      authorizedOperations: ops,
    };
  }

  list(statesFilter: string[], typesFilter: string[]): ListedGroup[] {
    const states = new Set(statesFilter.map((s) => s.toLowerCase()));
    const types = new Set(typesFilter.map((s) => s.toLowerCase()));
    const out: ListedGroup[] = [];
    for (const g of this.groups.values()) {
      if (g.is('Dead')) continue;
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue;
      if (types.size > 0 && !types.has('classic')) continue;
      out.push({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: 'classic' });
    }
    return out;
  }

  /**
   * A consumer group just became this classic group (its last consumer-protocol member left,
   * consumer-group-classic.ts): the members' sessions start and the group rebalances, so every
   * member rejoins the classic way (Kafka's convertToClassicGroup then prepareRebalance).
   */
  rebalanceAfterConversion(groupId: string): CoordinatorResult<void, Rec> {
    const group = this.groups.get(groupId);
    if (!group || !group.is('Stable')) return toResult(NO_EFFECT, () => undefined);
    for (const m of group.members.values()) this.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
    return toResult(this.prepareRebalance(group), () => undefined);
  }

  /** DeleteGroups precondition (Kafka's validateDeleteGroup). */
  deletable(groupId: string): number {
    const g = this.groups.get(groupId);
    if (!g || g.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
    if (!g.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
    return ErrorCode.NONE;
  }

  groupTombstone(groupId: string): GroupMetadataRecord {
    return { type: 'group', groupId, value: null };
  }

  stateOf(groupId: string): ClassicGroupState | undefined {
    return this.groups.get(groupId)?.state;
  }
}

/** Kafka's isProtocolInconsistent: only a type or name set on both sides and different. */
function isProtocolInconsistent(requested: string | null, group: string | null): boolean {
  return requested !== null && group !== null && requested !== group;
}
