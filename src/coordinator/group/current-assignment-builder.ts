/**
 * Reconciliation of one member towards its target assignment (Kafka's CurrentAssignmentBuilder).
 * The rule that makes the protocol incremental: a member first gives up what its target takes
 * away (it stays at its epoch, state UNREVOKED_PARTITIONS, until a heartbeat shows it no longer
 * owns them), and only then moves to the target epoch; a partition of its target that another
 * member still owns (assigned or pending revocation) is withheld (state UNRELEASED_PARTITIONS)
 * until that member releases it. So no partition ever has two owners.
 *
 * `owned` is the TopicPartitions of the heartbeat: null when the member did not send it (then it
 * is assumed to still own everything it was given).
 */
import type { Assignment } from './assignor/types.js';
import { addPartition } from './assignor/types.js';
import { ConsumerGroupMember, MemberState } from './consumer-group.js';

export interface ReconcileInput {
  member: ConsumerGroupMember;
  targetEpoch: number;
  target: Assignment;
  owned: Assignment | null;
  /** The epoch of the member owning a partition, or -1 (from the group's owner index). */
  currentPartitionEpoch: (topicId: string, partition: number) => number;
}

function ownsAny(owned: Assignment | null, partitions: Assignment): boolean {
  if (owned === null) return true;
  for (const [t, s] of partitions) {
    const o = owned.get(t);
    if (!o) continue;
    for (const p of s) if (o.has(p)) return true;
  }
  return false;
}

/** The member after this heartbeat's reconciliation step (a new object; the input is not changed). */
export function reconcile(input: ReconcileInput): ConsumerGroupMember {
  const { member } = input;
  switch (member.state) {
    case MemberState.STABLE:
      if (member.memberEpoch !== input.targetEpoch) return computeNext(input);
      return member;
    case MemberState.UNREVOKED_PARTITIONS:
      if (ownsAny(input.owned, member.pendingRevocation)) return member;
      return computeNext(input);
    case MemberState.UNRELEASED_PARTITIONS:
      return computeNext(input);
    default:
      return computeNext(input);
  }
}

function computeNext(input: ReconcileInput): ConsumerGroupMember {
  const { member, target } = input;
  const assigned: Assignment = new Map();
  const revoking: Assignment = new Map();
  const pendingAssignment: Assignment = new Map();
  let unreleased = false;
  const topics = new Set([...target.keys(), ...member.assigned.keys()]);
  for (const topicId of topics) {
    const want = target.get(topicId) ?? new Set<number>();
    const have = member.assigned.get(topicId) ?? new Set<number>();
    for (const p of have) {
      if (want.has(p)) addPartition(assigned, topicId, p);
      else addPartition(revoking, topicId, p);
    }
    for (const p of want) {
      if (have.has(p)) continue;
      if (input.currentPartitionEpoch(topicId, p) === -1) addPartition(pendingAssignment, topicId, p);
      else unreleased = true;
    }
  }
  const next = member.clone();
  if (revoking.size > 0 && ownsAny(input.owned, revoking)) {
    // Revoke first: the epoch stays until the member confirms it let go.
    next.state = MemberState.UNREVOKED_PARTITIONS;
    next.assigned = assigned;
    next.pendingRevocation = revoking;
    return next;
  }
  for (const [t, s] of pendingAssignment) for (const p of s) addPartition(assigned, t, p);
  next.previousMemberEpoch = member.memberEpoch;
  next.memberEpoch = input.targetEpoch;
  next.state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
  next.assigned = assigned;
  next.pendingRevocation = new Map();
  return next;
}
