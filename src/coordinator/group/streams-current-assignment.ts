/**
 * Reconciliation of one streams group member towards its target tasks (Kafka's streams
 * CurrentAssignmentBuilder), the same rule as for consumer groups (current-assignment-builder.ts)
 * applied to active, standby and warm-up tasks:
 * - a member first gives up what its target takes away (state UNREVOKED_TASKS, epoch unchanged,
 *   the tasks pending revocation) until a heartbeat shows it no longer owns them;
 * - only then does it move to the target epoch and receive new tasks, except those still held
 *   elsewhere (state UNRELEASED_TASKS): an active task another member owns as active, or any
 *   task another member of the same process still holds (their state directories would clash).
 * So an active task never has two owners.
 *
 * `owned`: the tasks the heartbeat says the member owns, null when it did not say (then it is
 * taken to own everything it was given).
 */
import type { Assignment } from './assignor/types.js';
import { addPartition } from './assignor/types.js';
import { StreamsMemberState, type StreamsGroup, type StreamsGroupMember, type TasksTuple, emptyTasks } from './streams-group.js';

export interface StreamsReconcileInput {
  member: StreamsGroupMember;
  group: StreamsGroup;
  targetEpoch: number;
  target: TasksTuple;
  owned: TasksTuple | null;
}

const ROLES = ['active', 'standby', 'warmup'] as const;

function ownsAny(owned: TasksTuple | null, tasks: TasksTuple): boolean {
  if (owned === null) return true;
  for (const role of ROLES) {
    for (const [sub, parts] of tasks[role]) {
      const o = owned[role].get(sub);
      if (!o) continue;
      for (const p of parts) if (o.has(p)) return true;
    }
  }
  return false;
}

function anyTasks(t: TasksTuple): boolean {
  return ROLES.some((r) => [...t[r].values()].some((s) => s.size > 0));
}

export function reconcileStreamsMember(input: StreamsReconcileInput): StreamsGroupMember {
  const { member } = input;
  switch (member.state) {
    case StreamsMemberState.STABLE:
      return member.memberEpoch !== input.targetEpoch ? computeNext(input) : member;
    case StreamsMemberState.UNREVOKED_TASKS:
      return ownsAny(input.owned, member.pendingRevocation) ? member : computeNext(input);
    default:
      return computeNext(input);
  }
}

function computeNext(input: StreamsReconcileInput): StreamsGroupMember {
  const { member, group, target } = input;
  const keep = emptyTasks();
  const revoke = emptyTasks();
  const add = emptyTasks();
  let unreleased = false;
  for (const role of ROLES) {
    const want: Assignment = target[role];
    const have: Assignment = member.assigned[role];
    for (const [sub, parts] of have) {
      for (const p of parts) addPartition(want.get(sub)?.has(p) ? keep[role] : revoke[role], sub, p);
    }
    for (const [sub, parts] of want) {
      for (const p of parts) {
        if (have.get(sub)?.has(p)) continue;
        const owner = role === 'active' ? group.activeOwner(sub, p) : undefined;
        const held = (owner !== undefined && owner !== member.memberId) || group.heldInProcess(member.processId, member.memberId, sub, p);
        if (held) unreleased = true;
        else addPartition(add[role], sub, p);
      }
    }
  }
  const next = member.clone();
  if (anyTasks(revoke) && ownsAny(input.owned, revoke)) {
    next.state = StreamsMemberState.UNREVOKED_TASKS;
    next.assigned = keep;
    next.pendingRevocation = revoke;
    return next;
  }
  for (const role of ROLES) for (const [sub, parts] of add[role]) for (const p of parts) addPartition(keep[role], sub, p);
  next.previousMemberEpoch = member.memberEpoch;
  next.memberEpoch = input.targetEpoch;
  next.state = unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE;
  next.assigned = keep;
  next.pendingRevocation = emptyTasks();
  return next;
}
