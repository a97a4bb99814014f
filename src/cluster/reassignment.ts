/**
 * Partition reassignment (AlterPartitionReassignments, KIP-455) as Kafka's controller runs it.
 *
 * A move goes through two partition-state changes, each a compare-and-set on the partition epoch:
 * 1. start: the replica list becomes the target followed by the replicas being removed, with
 *    `addingReplicas` (target − current) and `removingReplicas` (current − target) noted. The
 *    brokers in `addingReplicas` create the log and fetch from the leader as followers; the leader
 *    adds them to the ISR once they have caught up, as it would any follower.
 * 2. complete: once every replica of the target is in the ISR (and the ISR keeps at least one
 *    replica that stays), the removed replicas leave the replica list and the ISR, the notes are
 *    cleared, and the brokers that left delete their copy. The configured number of in-sync
 *    replicas is never undercut: the old replicas stay in the ISR until the new ones are in it.
 * A move whose target is already in sync (a reordering, a shrink) completes in one change.
 *
 * Leadership: if the leader stays in the target it keeps leading unless the target's first
 * replica (the preferred leader) is in sync, in which case it takes over at completion (Kafka
 * leaves that to the next preferred-leader balancing; doing it here saves clients a second move).
 * A leader that is removed hands over to the first in-sync target replica. The leader epoch is
 * bumped when the leader changes or a replica leaves, as in KRaft.
 *
 * Cancelling (a null target) puts back the original replicas (the current list minus those being
 * added), in sync where they were; if none of them is in sync, only an unclean election could
 * revert, refused unless `unclean.leader.election.enable`.
 *
 * Eligible leader replicas go through every step as through any other partition change (Kafka's
 * PartitionChangeBuilder runs reassignments through maybePopulateTargetElr too): while the ISR is
 * below min.insync.replicas the ELR is the old ELR plus the old ISR minus the new ISR, limited to
 * the replicas the step keeps; once it is not, ELR and last known ELR are cleared. A step that
 * leaves a leader clears the last known ELR (it remembers a leader only while there is none).
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { NO_LEADER, type PartitionState } from './metadata-store.js';
import { ELR_DISABLED, elrOf, lastKnownElrOf, targetElr, withElr, type ElrSettings } from './partition-change.js';

export function isReassigning(state: PartitionState): boolean {
  return (state.addingReplicas?.length ?? 0) > 0 || (state.removingReplicas?.length ?? 0) > 0;
}

/** The replica list a move ends with: the current list without the replicas being removed. */
export function targetReplicas(state: PartitionState): number[] {
  const removing = state.removingReplicas ?? [];
  return state.replicas.filter((id) => !removing.includes(id));
}

function sorted(ids: Iterable<number>): number[] {
  return [...ids].sort((a, b) => a - b);
}

function same(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The leader after a change to `replicas` / `isr` (see the file comment). */
function chooseLeader(state: PartitionState, replicas: readonly number[], isr: readonly number[], isAlive: (id: number) => boolean, completing: boolean): number {
  const usable = (id: number) => isr.includes(id) && isAlive(id);
  if (completing && replicas.length > 0 && usable(replicas[0])) return replicas[0];
  if (state.leader !== NO_LEADER && replicas.includes(state.leader) && usable(state.leader)) return state.leader;
  return replicas.find(usable) ?? NO_LEADER;
}

function changed(state: PartitionState, replicas: number[], isr: number[], adding: number[], removing: number[], isAlive: (id: number) => boolean, completing: boolean, elrSettings: ElrSettings): PartitionState | null {
  const leader = chooseLeader(state, replicas, isr, isAlive, completing);
  const replicaLeft = state.replicas.some((id) => !replicas.includes(id));
  const elr = targetElr(state, isr, elrSettings).filter((id) => replicas.includes(id));
  const lastKnownElr = !elrSettings.enabled || leader !== NO_LEADER || isr.length >= elrSettings.minIsr ? [] : lastKnownElrOf(state).filter((id) => replicas.includes(id));
  if (
    leader === state.leader && same(replicas, state.replicas) && same(isr, state.isr) &&
    same(adding, state.addingReplicas ?? []) && same(removing, state.removingReplicas ?? []) &&
    same(elr, elrOf(state)) && same(lastKnownElr, lastKnownElrOf(state))
  ) return null;
  const next: PartitionState = {
    topicId: state.topicId,
    partition: state.partition,
    replicas,
    isr,
    leader,
    leaderEpoch: leader !== state.leader || replicaLeft ? state.leaderEpoch + 1 : state.leaderEpoch,
    partitionEpoch: state.partitionEpoch + 1,
  };
  if (adding.length > 0) next.addingReplicas = adding;
  if (removing.length > 0) next.removingReplicas = removing;
  return withElr(next, elr, lastKnownElr, elrSettings.minIsr);
}

/**
 * The completed form of a move, if the ISR allows it now (null: not yet, or no move). Kafka's
 * maybeCompleteReassignment: the ISR without the removed replicas must be non-empty and hold every
 * target replica.
 */
export function completedReassignment(state: PartitionState, isAlive: (id: number) => boolean, elr: ElrSettings = ELR_DISABLED): PartitionState | null {
  if (!isReassigning(state)) return null;
  const removing = state.removingReplicas ?? [];
  const replicas = targetReplicas(state);
  const isr = state.isr.filter((id) => !removing.includes(id));
  if (replicas.length === 0 || isr.length === 0 || !replicas.every((id) => isr.includes(id))) return null;
  return changed(state, replicas, replicas.filter((id) => isr.includes(id)), [], [], isAlive, true, elr);
}

/**
 * The state that starts a move of `state` to `target` (already validated), completed at once when
 * the ISR allows; null when nothing changes. A move of a partition already moving starts from its
 * current (merged) replica list, as Kafka computes it.
 */
export function startReassignment(state: PartitionState, target: readonly number[], isAlive: (id: number) => boolean, elr: ElrSettings = ELR_DISABLED): PartitionState | null {
  const current = state.replicas;
  const removing = sorted(current.filter((id) => !target.includes(id)));
  const adding = sorted(target.filter((id) => !current.includes(id)));
  const replicas = [...target, ...removing];
  const isr = replicas.filter((id) => state.isr.includes(id));
  const start: PartitionState = { ...state, replicas, isr };
  delete start.addingReplicas;
  delete start.removingReplicas;
  if (adding.length > 0) start.addingReplicas = adding;
  if (removing.length > 0) start.removingReplicas = removing;
  if (adding.length === 0 && removing.length === 0) return changed(state, replicas, isr, [], [], isAlive, true, elr);
  const done = completedReassignment(start, isAlive, elr);
  if (done) return changed(state, done.replicas, done.isr, [], [], isAlive, true, elr);
  return changed(state, replicas, isr, adding, removing, isAlive, false, elr);
}

/** The state that cancels the move of `state` (Kafka's PartitionReassignmentRevert). */
export function cancelReassignment(state: PartitionState, name: string, isAlive: (id: number) => boolean, unclean: boolean, elr: ElrSettings = ELR_DISABLED): PartitionState | null {
  if (!isReassigning(state)) {
    throw new KafkaApiError(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS); // Kafka answers no message
  }
  const adding = state.addingReplicas ?? [];
  const replicas = state.replicas.filter((id) => !adding.includes(id));
  let isr = state.isr.filter((id) => replicas.includes(id));
  if (isr.length === 0) {
    const any = replicas.find(isAlive);
    if (!unclean || any === undefined) {
      throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Unable to revert partition assignment for ${name} because it would require an unclean leader election.`);
    }
    isr = [any];
    // An unclean revert: what only the lost replicas had is gone, so no ELR survives it (as after
    // Kafka's unclean election).
    return changed(state, replicas, isr, [], [], isAlive, false, ELR_DISABLED);
  }
  return changed(state, replicas, isr, [], [], isAlive, false, elr);
}
