/**
 * Elections an operator asks for (ElectLeaders, KIP-460) and the controller's preferred-leader
 * balancing (`auto.leader.rebalance.enable`), as Kafka's controller decides them:
 *
 * - preferred: the first replica becomes leader if it is alive and in the ISR. Already leading:
 *   ELECTION_NOT_NEEDED; dead or out of the ISR: PREFERRED_LEADER_NOT_AVAILABLE.
 * - unclean: only for a partition without a live leader in the ISR (else ELECTION_NOT_NEEDED): the
 *   first live ISR member, else (ISR empty) the first live ELR member, else the last known leader,
 *   else the first live replica (the ISR becomes just it: records it missed are lost, which is
 *   what the operator asked for), else ELIGIBLE_LEADERS_NOT_AVAILABLE.
 *
 * Each returns the partition's next state (a new leader epoch and partition epoch), or the error.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { NO_LEADER, type PartitionState } from './metadata-store.js';
import { buildPartitionChange, ELR_DISABLED, elrOf, type ElrSettings } from './partition-change.js';

export type ElectionOutcome = { state: PartitionState } | { errorCode: number; message: string };

/**
 * With ELR (partition-change.ts) a replica may lead from the ELR when the ISR is empty; the
 * resulting state carries the ELR and last known ELR the change leaves.
 */
export function preferredElection(state: PartitionState, isAlive: (id: number) => boolean, name: string, elr: ElrSettings = ELR_DISABLED): ElectionOutcome {
  const preferred = state.replicas[0];
  if (preferred === state.leader) {
    return { errorCode: ErrorCode.ELECTION_NOT_NEEDED, message: `Leader election not needed for topic partition ${name}` };
  }
  const eligible = state.isr.includes(preferred) || (elr.enabled && state.isr.length === 0 && elrOf(state).includes(preferred));
  const next = preferred !== undefined && isAlive(preferred) && eligible
    ? buildPartitionChange(state, { election: 'preferred', isAcceptableLeader: isAlive, elr })
    : null;
  if (!next || next.leader !== preferred) {
    return { errorCode: ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, message: `Failed to elect leader for partition ${name} under strategy PreferredReplicaPartitionLeaderElectionStrategy` };
  }
  return { state: next };
}

export function uncleanElection(state: PartitionState, isAlive: (id: number) => boolean, name: string, elr: ElrSettings = ELR_DISABLED): ElectionOutcome {
  if (state.leader !== NO_LEADER && isAlive(state.leader) && state.isr.includes(state.leader)) {
    return { errorCode: ErrorCode.ELECTION_NOT_NEEDED, message: `Leader election not needed for topic partition ${name}` };
  }
  const next = buildPartitionChange(state, { targetIsr: state.isr.filter(isAlive), election: 'unclean', isAcceptableLeader: isAlive, elr });
  if (!next || next.leader === NO_LEADER) {
    return { errorCode: ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, message: `Failed to elect leader for partition ${name} under strategy UncleanLeaderElectionStrategy` };
  }
  return { state: next };
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
