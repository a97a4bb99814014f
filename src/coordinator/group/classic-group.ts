/**
 * A classic (JoinGroup/SyncGroup) group and its members, as Kafka's ClassicGroup /
 * ClassicGroupMember model them: state, generation, protocol type and name, leader, members with
 * their offered protocols and assignment, static members (group.instance.id → member id), members
 * that still have to rejoin with their assigned id (MEMBER_ID_REQUIRED), and members whose
 * SyncGroup is still expected.
 *
 * States and the transitions Kafka allows:
 *
 *   Empty ──join──▶ PreparingRebalance ──all joined / timeout──▶ CompletingRebalance ──leader sync──▶ Stable
 *     ▲                 ▲   │ (nobody left)                            │                         │
 *     └─────────────────┼───┘                                          └──member change──────────┤
 *                       └──────────────────────────────────────────────────member change──────────┘
 *   Dead: deleted (DeleteGroups, offsets expired) or unloaded.
 *
 * This file holds data and pure helpers only; the protocol (what a request does) is in
 * group-metadata-manager.ts.
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { JoinGroupResponse, JoinGroupResponseMember } from '../../protocol/generated/messages/join-group-response.js';
import type { SyncGroupResponse } from '../../protocol/generated/messages/sync-group-response.js';
import { Reader } from '../../protocol/reader.js';
import { readConsumerProtocolSubscription } from '../../protocol/generated/messages/consumer-protocol-subscription.js';

export type ClassicGroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

export const GROUP_STATES: readonly ClassicGroupState[] = ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'];

const VALID_PREVIOUS: Record<ClassicGroupState, readonly ClassicGroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'],
};

export const EMPTY_BYTES = Buffer.alloc(0);
export const CONSUMER_PROTOCOL_TYPE = 'consumer';

export interface Protocol {
  name: string;
  metadata: Buffer;
}

/** A settable, one-shot answer for a parked JoinGroup or SyncGroup. */
export class Pending<T> {
  readonly promise: Promise<T>;
  private resolveFn!: (v: T) => void;
  settled = false;

  constructor() {
    this.promise = new Promise<T>((resolve) => { this.resolveFn = resolve; });
  }

  complete(v: T): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.resolveFn(v);
    return true;
  }
}

export class ClassicGroupMember {
  assignment: Buffer = EMPTY_BYTES;
  awaitingJoin: Pending<JoinGroupResponse> | null = null;
  awaitingSync: Pending<SyncGroupResponse> | null = null;
  /** Joined but its first join has not completed yet (new-member join timeout applies). */
  isNew = false;

  constructor(
    public memberId: string,
    readonly groupInstanceId: string | null,
    public clientId: string,
    public clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    public protocolType: string,
    public protocols: Protocol[],
  ) {}

  get isStatic(): boolean {
    return this.groupInstanceId !== null;
  }

  metadata(protocolName: string | null): Buffer {
    return this.protocols.find((p) => p.name === protocolName)?.metadata ?? EMPTY_BYTES;
  }

  /** Same protocols, same order, same metadata bytes. */
  matches(protocols: Protocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every((p, i) => p.name === this.protocols[i].name && p.metadata.equals(this.protocols[i].metadata));
  }

  /** Members parked in a rebalance count as alive; new members and idle members need a heartbeat. */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.awaitingJoin !== null || this.awaitingSync !== null;
  }
}

export class ClassicGroup {
  state: ClassicGroupState = 'Empty';
  previousState: ClassicGroupState | null = null;
  /** When the group entered its current state (GroupMetadataValue.currentStateTimestamp). */
  stateTimestampMs: number;
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  readonly members = new Map<string, ClassicGroupMember>();
  /** group.instance.id → member id. */
  readonly staticMembers = new Map<string, string>();
  /** Member ids handed out with MEMBER_ID_REQUIRED, not joined yet. */
  readonly pendingMembers = new Set<string>();
  /** Members of the current generation whose SyncGroup is still expected. */
  readonly pendingSyncMembers = new Set<string>();
  /** A member joined during the initial (delayed) rebalance: extend the delay. */
  newMemberAdded = false;

  constructor(readonly groupId: string, nowMs: number) {
    this.stateTimestampMs = nowMs;
  }

  is(state: ClassicGroupState): boolean {
    return this.state === state;
  }

  transitionTo(state: ClassicGroupState, nowMs: number): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new Error(`group ${this.groupId}: invalid transition from ${this.state} to ${state}`);
    }
    this.previousState = this.state;
    this.state = state;
    this.stateTimestampMs = nowMs;
  }

  /** Replay sets states directly: the record is the authority. */
  forceState(state: ClassicGroupState, nowMs: number): void {
    this.previousState = this.state;
    this.state = state;
    this.stateTimestampMs = nowMs;
  }

  canRebalance(): boolean {
    return this.state === 'Stable' || this.state === 'CompletingRebalance' || this.state === 'Empty';
  }

  get size(): number {
    return this.members.size;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  get numAwaitingJoin(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.awaitingJoin !== null) n++;
    return n;
  }

  hasAllMembersJoined(): boolean {
    return this.members.size === this.numAwaitingJoin && this.pendingMembers.size === 0;
  }

  hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSyncMembers.size === 0;
  }

  /** The longest rebalance timeout of any member (how long a join phase may last). */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  add(member: ClassicGroupMember, join: Pending<JoinGroupResponse> | null): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    member.awaitingJoin = join;
    this.pendingMembers.delete(member.memberId);
  }

  remove(memberId: string): ClassicGroupMember | undefined {
    this.pendingMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    const member = this.members.get(memberId);
    if (!member) return undefined;
    this.members.delete(memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
      this.staticMembers.delete(member.groupInstanceId);
    }
    if (this.leaderId === memberId) this.leaderId = this.members.keys().next().value ?? null;
    return member;
  }

  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  /** Gives a static member's place (and assignment) to a new member id. */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): ClassicGroupMember {
    const member = this.members.get(oldMemberId);
    if (!member) throw new Error(`static member ${oldMemberId} of ${this.groupId} is missing`);
    // The replaced client learns it was fenced.
    member.awaitingJoin?.complete(errorJoinResponse(ErrorCode.FENCED_INSTANCE_ID, oldMemberId));
    member.awaitingJoin = null;
    member.awaitingSync?.complete(errorSyncResponse(ErrorCode.FENCED_INSTANCE_ID));
    member.awaitingSync = null;
    this.members.delete(oldMemberId);
    member.memberId = newMemberId;
    this.members.set(newMemberId, member);
    if (this.leaderId === oldMemberId) this.leaderId = newMemberId;
    this.staticMembers.set(groupInstanceId, newMemberId);
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    return member;
  }

  /**
   * Error code when `memberId`/`groupInstanceId` may not act for this group (Kafka's
   * validateMember): a static member must present the member id it was given
   * (FENCED_INSTANCE_ID), a dynamic member must be known (UNKNOWN_MEMBER_ID).
   */
  validateMember(memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId);
      if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
      return ErrorCode.NONE;
    }
    return this.members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  /** Protocol names every member offers. */
  private candidateProtocols(): Set<string> {
    const counts = new Map<string, number>();
    for (const m of this.members.values()) for (const p of m.protocols) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
    const out = new Set<string>();
    for (const [name, n] of counts) if (n === this.members.size) out.add(name);
    return out;
  }

  /** Kafka's supportsProtocols: may a member with these protocols join? */
  supportsProtocols(protocolType: string, protocols: Protocol[]): boolean {
    if (this.state === 'Empty') return protocolType !== '' && protocols.length > 0;
    if (this.protocolType !== protocolType) return false;
    // Kafka counts, per protocol, the members offering it against numMembers(): with no members
    // left (the last one left during the initial rebalance delay) every protocol qualifies.
    if (this.members.size === 0) return protocols.length > 0;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  /**
   * The protocol of the next generation: among the protocols every member offers, each member
   * votes for the first one in its own preference order; most votes wins (ties: the earliest
   * in the leader's order).
   */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    if (candidates.size === 0) throw new Error(`no protocol supported by every member of ${this.groupId}`);
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const vote = m.protocols.find((p) => candidates.has(p.name))!.name;
      votes.set(vote, (votes.get(vote) ?? 0) + 1);
    }
    const leader = this.leaderId !== null ? this.members.get(this.leaderId) : undefined;
    const order = (leader ?? this.members.values().next().value!).protocols.map((p) => p.name);
    let best: string | null = null;
    let bestVotes = -1;
    for (const name of order) {
      const v = votes.get(name) ?? 0;
      if (v > bestVotes) {
        best = name;
        bestVotes = v;
      }
    }
    return best!;
  }

  /** If the leader has not rejoined, make a member that has the leader. False when nobody rejoined. */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId !== null) {
      const leader = this.members.get(this.leaderId);
      if (leader && leader.awaitingJoin !== null) return true;
    }
    for (const m of this.members.values()) {
      if (m.awaitingJoin !== null) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  /** Members as the leader sees them in its JoinGroup response. */
  currentMemberList(): JoinGroupResponseMember[] {
    return [...this.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadata(this.protocolName) }));
  }

  /**
   * Topics the members subscribe to, when the group speaks the consumer protocol and every
   * subscription decodes; null when unknown (then no topic counts as subscribed-to safely).
   */
  subscribedTopics(): Set<string> | null {
    if (this.protocolType !== CONSUMER_PROTOCOL_TYPE || this.protocolName === null) return null;
    const topics = new Set<string>();
    for (const m of this.members.values()) {
      const meta = m.metadata(this.protocolName);
      try {
        const r = new Reader(meta);
        const version = r.int16();
        const sub = readConsumerProtocolSubscription(r, Math.min(Math.max(version, 0), 3));
        for (const t of sub.topics) topics.add(t);
      } catch {
        return null;
      }
    }
    return topics;
  }
}

export function generateMemberId(clientId: string, groupInstanceId: string | null): string {
  return `${groupInstanceId ?? clientId}-${randomUUID()}`;
}

export function errorJoinResponse(errorCode: number, memberId: string): JoinGroupResponse {
  return {
    throttleTimeMs: 0, errorCode, generationId: -1, protocolType: null, protocolName: null,
    leader: '', skipAssignment: false, memberId, members: [],
  };
}

export function errorSyncResponse(errorCode: number): SyncGroupResponse {
  return { throttleTimeMs: 0, errorCode, protocolType: null, protocolName: null, assignment: EMPTY_BYTES };
}
