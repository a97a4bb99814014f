/**
 * How partition states change, and the compare-and-set that makes every change safe.
 *
 * Two writers change a partition state:
 * - the controller, which elects leaders and removes dead brokers from ISRs
 *   (`brokerLossChange`, Kafka's PartitionChangeBuilder on a fenced broker), fenced by its
 *   controller epoch;
 * - the partition's leader, which shrinks and expands its own ISR (`alterPartition`, Kafka's
 *   AlterPartition), fenced by its broker epoch.
 * Both write with `MetadataStore.alterPartition`: a compare-and-set on the partition epoch the
 * writer read. So a leader's ISR change based on a state the controller has since replaced (new
 * leader, new epochs) fails, and the leader learns the current state instead: this is why a
 * deposed leader can never shrink the ISR to acknowledge a write alone (cluster.md).
 *
 * Epoch rules, as in KRaft: every change bumps partitionEpoch by one; a leader change also bumps
 * leaderEpoch; an ISR-only change keeps leaderEpoch (followers need not truncate for it).
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { NO_LEADER, type AlterPartitionOutcome, type MetadataStore, type PartitionState } from './metadata-store.js';
import { buildPartitionChange, ELR_DISABLED, elrOf, elrSettingsOf, type ElrSettings } from './partition-change.js';
import { elrEnabledIn } from './features.js';
import type { MetadataCache } from './metadata-cache.js';
import type { Logger } from '../logger.js';

/** A leader's request to change its ISR (the partition part of Kafka's AlterPartitionRequest). */
export interface AlterPartitionRequest {
  brokerId: number;
  brokerEpoch: number;
  /** The leader epoch the leader is serving. */
  leaderEpoch: number;
  /** The partition epoch of the state the leader based its decision on. */
  partitionEpoch: number;
  newIsr: number[];
}

/**
 * Checks a leader's request against the state it is based on. Returns ErrorCode.NONE or Kafka's
 * error: FENCED_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER, INVALID_UPDATE_VERSION, INVALID_REQUEST
 * (the new ISR is not a subset of the replicas, repeats a broker, or lacks the leader),
 * INELIGIBLE_REPLICA (it adds a broker that is not alive).
 */
export function validateAlterPartition(state: PartitionState, req: AlterPartitionRequest, isAlive: (id: number) => boolean): number {
  if (req.leaderEpoch !== state.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (req.brokerId !== state.leader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  if (req.partitionEpoch !== state.partitionEpoch) return ErrorCode.INVALID_UPDATE_VERSION;
  if (new Set(req.newIsr).size !== req.newIsr.length) return ErrorCode.INVALID_REQUEST;
  if (!req.newIsr.includes(req.brokerId)) return ErrorCode.INVALID_REQUEST;
  if (req.newIsr.some((id) => !state.replicas.includes(id))) return ErrorCode.INVALID_REQUEST;
  // Only a new member needs to be alive: shrinking past a dead broker is the point of shrinking.
  if (req.newIsr.some((id) => !state.isr.includes(id) && !isAlive(id))) return ErrorCode.INELIGIBLE_REPLICA;
  return ErrorCode.NONE;
}

/** The error a leader gets when its compare-and-set found a different state. */
function conflictError(current: PartitionState, req: AlterPartitionRequest): number {
  if (current.leaderEpoch !== req.leaderEpoch) return ErrorCode.FENCED_LEADER_EPOCH;
  if (current.leader !== req.brokerId) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  return ErrorCode.INVALID_UPDATE_VERSION;
}

/**
 * A leader shrinks or expands its ISR. `known` is the leader's view of the partition (its metadata
 * cache); the write succeeds only if the stored partition epoch is still `req.partitionEpoch` and
 * the leader's registration is still `req.brokerEpoch`. On failure, `current` is the stored state
 * for the leader to adopt.
 */
export async function alterPartition(
  store: MetadataStore,
  known: PartitionState,
  req: AlterPartitionRequest,
  isAlive: (id: number) => boolean,
  elr: ElrSettings = ELR_DISABLED,
): Promise<AlterPartitionOutcome> {
  const invalid = validateAlterPartition(known, req, isAlive);
  if (invalid !== ErrorCode.NONE) return { ok: false, error: invalid, current: known };
  // Keep the replica order: an ISR listed in assignment order reads the same on every broker.
  const isr = known.replicas.filter((id) => req.newIsr.includes(id));
  // The leader stays (it is in the new ISR); the ELR follows the ISR (partition-change.ts).
  const next = buildPartitionChange(known, { targetIsr: isr, election: 'online', isAcceptableLeader: (id) => id === req.brokerId || isAlive(id), elr });
  if (!next) return { ok: true, state: known };
  const out = await store.alterPartition(next, req.partitionEpoch, { nodeId: req.brokerId, brokerEpoch: req.brokerEpoch });
  if (out.ok || !out.current || out.error !== ErrorCode.INVALID_UPDATE_VERSION) return out;
  return { ok: false, error: conflictError(out.current, req), current: out.current };
}

export interface LeaderElectionOptions {
  isAlive: (id: number) => boolean;
  /** unclean.leader.election.enable of the topic: may a replica outside the ISR become leader? */
  unclean: boolean;
  /** eligible.leader.replicas.version and the topic's min ISR (partition-change.ts); default off. */
  elr?: ElrSettings;
  /** Brokers back from an unclean shutdown: out of the ISR and the ELR (Kafka's handleBrokerUncleanShutdown). */
  uncleanShutdown?: readonly number[];
}

/**
 * The controller's change for a partition given which brokers are alive (null: nothing to do),
 * Kafka's PartitionChangeBuilder for fenced brokers (partition-change.ts). Dead brokers leave the
 * ISR. Without ELR the ISR never becomes empty: its last member stays, so that when it comes back
 * it is known to hold every acknowledged record and can lead again. With ELR the ISR may empty:
 * members that left it while it was below min ISR are kept in the ELR instead, and lead when they
 * come back. A dead or missing leader is replaced by the first live ISR member in replica order
 * (the preferred replica first), else an ELR member, else the last known leader; with none, by
 * the first live replica if unclean election is enabled (the ISR becomes just that replica), else
 * the partition stays without a leader (NO_LEADER).
 */
export function brokerLossChange(state: PartitionState, opts: LeaderElectionOptions): PartitionState | null {
  return buildPartitionChange(state, {
    targetIsr: state.isr.filter(opts.isAlive),
    election: opts.unclean ? 'unclean' : 'online',
    isAcceptableLeader: opts.isAlive,
    elr: opts.elr ?? ELR_DISABLED,
    uncleanShutdown: opts.uncleanShutdown,
  });
}

/** A new partition's first state: every replica in sync, the first live one leading, epochs 0. */
export function initialPartitionState(topicId: string, partition: number, replicas: number[], isAlive: (id: number) => boolean): PartitionState {
  const live = replicas.filter(isAlive);
  return {
    topicId,
    partition,
    replicas: [...replicas],
    isr: live.length > 0 ? live : [...replicas],
    leader: live[0] ?? NO_LEADER,
    leaderEpoch: 0,
    partitionEpoch: 0,
  };
}

/**
 * Kafka's handleBrokerUncleanShutdown, done by the broker itself before it registers again: after
 * a crash (or with a lost log dir) its log may lack records it had acknowledged, so it must not
 * lead from an ELR (or an ISR it was left in). With ELR on, every partition naming it in the ISR
 * or ELR gets a change without it (a new leader where it led), each a compare-and-set retried on
 * the state found. Before registering, no controller can elect it meanwhile: the decision and the
 * write cannot race with its coming back. Returns how many partitions changed.
 */
export async function leaveAfterUncleanShutdown(
  store: MetadataStore,
  cache: Pick<MetadataCache, 'allPartitions' | 'isEligible' | 'features' | 'brokerConfigs' | 'topicById' | 'controller'>,
  nodeId: number,
  staticMinIsr: number,
  logger?: Logger,
): Promise<number> {
  if (!elrEnabledIn(cache.features)) return 0;
  let changed = 0;
  for (const read of cache.allPartitions()) {
    let state: PartitionState | null = read;
    for (let attempt = 0; state && attempt < 10; attempt++) {
      if (!state.isr.includes(nodeId) && !elrOf(state).includes(nodeId)) break;
      const next = buildPartitionChange(state, {
        election: 'online', isAcceptableLeader: (id) => id !== nodeId && cache.isEligible(id),
        elr: elrSettingsOf(cache, state, staticMinIsr), uncleanShutdown: [nodeId],
      });
      if (!next) break;
      const out: AlterPartitionOutcome = await store.alterPartition(next, state.partitionEpoch);
      if (out.ok) {
        changed++;
        logger?.info(`broker ${nodeId}: unclean shutdown, out of ${state.topicId}-${state.partition}: isr [${state.isr}] → [${next.isr}], elr [${elrOf(state)}] → [${elrOf(next)}], leader ${state.leader} → ${next.leader}`);
        break;
      }
      state = out.current;
    }
  }
  return changed;
}
