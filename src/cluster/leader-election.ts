/**
 * Elections an operator asks for (ElectLeaders, KIP-460) and the controller's preferred-leader
 * balancing (`auto.leader.rebalance.enable`), as Kafka's controller decides them:
 *
 * - preferred: the first replica becomes leader if it is alive and in the ISR. Already leading:
 *   ELECTION_NOT_NEEDED; dead or out of the ISR: PREFERRED_LEADER_NOT_AVAILABLE.
 * - unclean: only for a partition without a live leader in the ISR (else ELECTION_NOT_NEEDED): the
 *   first live ISR member, else the first live replica (the ISR becomes just it: records it missed
 *   are lost, which is what the operator asked for), else ELIGIBLE_LEADERS_NOT_AVAILABLE.
 *
 * Each returns the partition's next state (a new leader epoch and partition epoch), or the error.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { NO_LEADER, type PartitionState } from './metadata-store.js';

export type ElectionOutcome = { state: PartitionState } | { errorCode: number; message: string };

function withLeader(state: PartitionState, leader: number, isr: readonly number[]): PartitionState {
  return {
    ...state,
    replicas: [...state.replicas],
    isr: [...isr],
    leader,
    leaderEpoch: state.leaderEpoch + 1,
    partitionEpoch: state.partitionEpoch + 1,
  };
}

export function preferredElection(state: PartitionState, isAlive: (id: number) => boolean, name: string): ElectionOutcome {
  const preferred = state.replicas[0];
  if (preferred === state.leader) {
    return { errorCode: ErrorCode.ELECTION_NOT_NEEDED, message: `Leader election not needed for topic partition ${name}` };
  }
  if (preferred === undefined || !isAlive(preferred) || !state.isr.includes(preferred)) {
    return { errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, message: `Failed to elect leader for partition ${name} under strategy PreferredReplicaPartitionLeaderElectionStrategy` };
  }
  return { state: withLeader(state, preferred, state.isr) };
}

export function uncleanElection(state: PartitionState, isAlive: (id: number) => boolean, name: string): ElectionOutcome {
  if (state.leader !== NO_LEADER && isAlive(state.leader) && state.isr.includes(state.leader)) {
    return { errorCode: ErrorCode.ELECTION_NOT_NEEDED, message: `Leader election not needed for topic partition ${name}` };
  }
  const clean = state.replicas.find((id) => isAlive(id) && state.isr.includes(id));
  if (clean !== undefined) return { state: withLeader(state, clean, state.isr.filter(isAlive)) };
  const any = state.replicas.find(isAlive);
  if (any === undefined) {
    return { errorCode: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, message: `Failed to elect leader for partition ${name} under strategy UncleanLeaderElectionStrategy` };
  }
  return { state: withLeader(state, any, [any]) };
}

/** Partitions led by another replica than their preferred one, which could lead now (balancing). */
export function imbalanced(states: Iterable<PartitionState>, isAlive: (id: number) => boolean): PartitionState[] {
  const out: PartitionState[] = [];
  for (const s of states) {
    const preferred = s.replicas[0];
    if (preferred !== undefined && preferred !== s.leader && isAlive(preferred) && s.isr.includes(preferred)) out.push(s);
  }
  return out;
}
