/**
 * A KIP-848 consumer group (Kafka's modern/consumer/ConsumerGroup and ConsumerGroupMember): the
 * state the coordinator rebuilds by replaying the consumer-group records of `__consumer_offsets`.
 *
 * Epochs:
 * - group epoch: bumped whenever the group's assignment inputs change (a member joins or leaves,
 *   a subscription changes, a subscribed topic's partition count changes);
 * - target assignment epoch: the group epoch the current target assignment was computed for
 *   (behind the group epoch only between the bump and the next assignment);
 * - member epoch: the target assignment epoch a member has reconciled to. A member is given a
 *   new epoch only once it has revoked what the new target takes away (see
 *   current-assignment-builder.ts).
 *
 * States (derived, as Kafka's ConsumerGroupState; the display names are what clients see):
 * - Empty: no members. Offsets may be committed by the admin (epoch -1), the group may be deleted.
 * - Assigning: group epoch > target assignment epoch (a new target is due).
 * - Reconciling: some member is not yet Stable at the target assignment epoch.
 * - Stable: every member is Stable at the target assignment epoch.
 * - Dead: removed from the coordinator (only seen by timers holding a reference).
 *
 * Nothing here writes records; consumer-group-manager.ts computes records and `replay` applies them.
 */
import { randomBytes } from 'node:crypto';
import { type Assignment, addPartition } from './assignor/types.js';

export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** Kafka's MemberState, with its record codes (ConsumerGroupCurrentMemberAssignmentValue.State). */
export const MemberState = {
  STABLE: 0,
  UNREVOKED_PARTITIONS: 1,
  UNRELEASED_PARTITIONS: 2,
  UNKNOWN: 127,
} as const;
export type MemberStateCode = (typeof MemberState)[keyof typeof MemberState];

export const MEMBER_STATE_NAMES: Record<number, string> = { 0: 'stable', 1: 'unrevoked_partitions', 2: 'unreleased_partitions', 127: 'unknown' };

/** ConsumerGroupHeartbeatRequest's special member epochs. */
export const LEAVE_GROUP_MEMBER_EPOCH = -1;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export class ConsumerGroupMember {
  instanceId: string | null = null;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  subscribedTopicNames: string[] = [];
  subscribedTopicRegex: string | null = null;
  serverAssignor: string | null = null;
  rebalanceTimeoutMs = -1;
  memberEpoch = 0;
  previousMemberEpoch = 0;
  state: MemberStateCode = MemberState.STABLE;
  assigned: Assignment = new Map();
  pendingRevocation: Assignment = new Map();
  /** A classic-protocol member (JoinGroup/SyncGroup/Heartbeat) of this consumer group: its session timeout and protocols. */
  classic: { sessionTimeoutMs: number; protocols: { name: string; metadata: Buffer }[] } | null = null;

  constructor(readonly memberId: string) {}

  /** A copy under another id (a static member replaced by its new incarnation). */
  copyAs(memberId: string): ConsumerGroupMember {
    const m = Object.assign(new ConsumerGroupMember(memberId), this) as ConsumerGroupMember;
    (m as { memberId: string }).memberId = memberId;
    m.subscribedTopicNames = [...this.subscribedTopicNames];
    m.assigned = copyAssignment(this.assigned);
    m.pendingRevocation = copyAssignment(this.pendingRevocation);
    return m;
  }

  clone(): ConsumerGroupMember {
    return this.copyAs(this.memberId);
  }
}

export class ConsumerGroup {
  groupEpoch = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ConsumerGroupMember>();
  /** instance id → member id. */
  readonly staticMembers = new Map<string, string>();
  /** member id → target assignment. */
  readonly target = new Map<string, Assignment>();
  /** topic id → partition → epoch of the member that owns it (assigned or pending revocation). */
  private readonly partitionEpochs = new Map<string, Map<number, number>>();
  /** The subscribed topics' metadata the target was last computed with: name → id and partitions. */
  subscriptionMetadata = new Map<string, { topicId: string; partitions: number }>();
  /** When the target assignment was last computed (in memory: replay of its record sets it). */
  lastAssignmentMs = Number.NEGATIVE_INFINITY;
  dead = false;

  constructor(readonly groupId: string) {}

  get state(): ConsumerGroupState {
    if (this.dead) return 'Dead';
    if (this.members.size === 0) return 'Empty';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) {
      if (m.state !== MemberState.STABLE || m.memberEpoch !== this.assignmentEpoch) return 'Reconciling';
    }
    return 'Stable';
  }

  /** The epoch of the member owning the partition, or -1 when nobody owns it. */
  currentPartitionEpoch(topicId: string, partition: number): number {
    return this.partitionEpochs.get(topicId)?.get(partition) ?? -1;
  }

  /** Replaces a member (or adds it), keeping the partition-owner index and static ids in step. */
  putMember(m: ConsumerGroupMember): void {
    const old = this.members.get(m.memberId);
    if (old) this.removePartitionEpochs(old);
    this.members.set(m.memberId, m);
    if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId);
    this.addPartitionEpochs(m);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.removePartitionEpochs(old);
    this.members.delete(memberId);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId) this.staticMembers.delete(old.instanceId);
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  private addPartitionEpochs(m: ConsumerGroupMember): void {
    for (const a of [m.assigned, m.pendingRevocation]) {
      for (const [topicId, parts] of a) {
        let e = this.partitionEpochs.get(topicId);
        if (!e) this.partitionEpochs.set(topicId, (e = new Map()));
        for (const p of parts) e.set(p, m.memberEpoch);
      }
    }
  }

  private removePartitionEpochs(m: ConsumerGroupMember): void {
    for (const a of [m.assigned, m.pendingRevocation]) {
      for (const [topicId, parts] of a) {
        const e = this.partitionEpochs.get(topicId);
        if (!e) continue;
        for (const p of parts) e.delete(p);
        if (e.size === 0) this.partitionEpochs.delete(topicId);
      }
    }
  }

  /** Every topic name some member subscribes to by name. */
  subscribedTopicNames(): Set<string> {
    const out = new Set<string>();
    for (const m of this.members.values()) for (const t of m.subscribedTopicNames) out.add(t);
    return out;
  }
}

export function copyAssignment(a: Assignment): Assignment {
  return new Map([...a].map(([t, s]) => [t, new Set(s)]));
}

export function assignmentsEqual(a: Assignment, b: Assignment): boolean {
  const nonEmpty = (x: Assignment) => [...x].filter(([, s]) => s.size > 0);
  const ea = nonEmpty(a);
  if (ea.length !== nonEmpty(b).length) return false;
  for (const [t, s] of ea) {
    const o = b.get(t);
    if (!o || o.size !== s.size) return false;
    for (const p of s) if (!o.has(p)) return false;
  }
  return true;
}

/** The wire/record form: [{ topicId, partitions }], topics and partitions sorted. */
export function toTopicPartitions(a: Assignment): { topicId: string; partitions: number[] }[] {
  return [...a].filter(([, s]) => s.size > 0).sort((x, y) => (x[0] < y[0] ? -1 : 1))
    .map(([topicId, s]) => ({ topicId, partitions: [...s].sort((x, y) => x - y) }));
}

export function fromTopicPartitions(tps: { topicId: string; partitions: number[] }[] | null): Assignment {
  const a: Assignment = new Map();
  for (const tp of tps ?? []) for (const p of tp.partitions) addPartition(a, tp.topicId, p);
  return a;
}

/** A new member id as the Java client makes them (Uuid.randomUuid().toString(), base64url). */
export function newMemberId(): string {
  return randomBytes(16).toString('base64url');
}
