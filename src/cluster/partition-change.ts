/**
 * One change of a partition state with eligible leader replicas (KIP-966), as Kafka 4.4's
 * PartitionChangeBuilder decides it. Every writer of partition states goes through
 * `buildPartitionChange`: the controller when brokers go or come (partition-state.ts
 * brokerLossChange), for elections (leader-election.ts), and a leader changing its ISR
 * (partition-state.ts alterPartition). It is a pure function of the state read and what the
 * writer wants; the writer stores the result with the compare-and-set on the partition epoch.
 *
 * The rules, with eligible.leader.replicas.version >= 1 (`ElrSettings.enabled`):
 * - ELR: while the new ISR is below the topic's min.insync.replicas (at most the replica count),
 *   the ELR is the old ELR plus the old ISR, minus the new ISR and minus replicas whose broker came
 *   back from an unclean shutdown. So a replica enters the ELR only by leaving an ISR that is (or
 *   thereby becomes) too small, leaves it by rejoining the ISR, and the whole ELR empties once the
 *   ISR reaches min ISR again. Members are listed in id order (Kafka's set order).
 * - The ISR may become empty (without ELR its last member stays, as before).
 * - Election: the current leader stays if it is acceptable and in the ISR; otherwise the first
 *   replica (in assignment order) that is acceptable and in the ISR or, when the ISR is empty, in
 *   the ELR. A leader from the ELR makes the ISR just itself and leaves the ELR (a clean election:
 *   it held every record the high watermark covered, see replication/partition.ts). With neither,
 *   the last known leader if it is the one recorded and acceptable (an unclean election); then,
 *   with unclean.leader.election.enable, the first acceptable replica. An unclean election makes
 *   the ISR just the new leader and empties the ELR.
 * - Last known ELR (Kafka keeps the last known leader there): when the ISR becomes empty it is
 *   the leader of the state read; it empties as soon as the partition has a leader.
 * - ELR and last known ELR only name current replicas; ELR and ISR never share a member.
 * With the feature off, both lists are empty and nothing else differs from before.
 */
import { elrEnabledIn } from './features.js';
import type { MetadataCache } from './metadata-cache.js';
import { DEFAULT_BROKER_CONFIGS, NO_LEADER, type PartitionState, type TopicRecord } from './metadata-store.js';

/** What the ELR rules need from the cluster and the topic. */
export interface ElrSettings {
  /** eligible.leader.replicas.version >= 1 (Kafka's isElrFeatureEnabled). */
  enabled: boolean;
  /** The topic's effective min.insync.replicas: its own, else the cluster's, at most the replica count. */
  minIsr: number;
}

export const ELR_DISABLED: ElrSettings = { enabled: false, minIsr: 1 };

const NONE: readonly number[] = [];

/** The ELR of a state (absent in states written before ELR, or empty). */
export function elrOf(state: PartitionState): readonly number[] {
  return state.elr ?? NONE;
}

export function lastKnownElrOf(state: PartitionState): readonly number[] {
  return state.lastKnownElr ?? NONE;
}

/** Kafka's effective min ISR of a partition: min(min.insync.replicas, replication factor). */
export function effectiveMinIsr(minInsyncReplicas: number, replicaCount: number): number {
  return Math.max(1, Math.min(minInsyncReplicas, replicaCount));
}

function minIsrConfig(value: string | undefined): number | null {
  const v = Number(value);
  return value !== undefined && Number.isInteger(v) && v >= 1 ? v : null;
}

/**
 * A topic's min.insync.replicas as the controller sees it (Kafka's getTopicEffectiveMinIsr): the
 * topic's own, else the active controller's node-level dynamic value, else the cluster-wide
 * dynamic default, else `staticDefault` (server.properties). Every writer of ELR fields (the
 * controller, a leader's AlterPartition) asks for the controller's node, as in Kafka, where the
 * controller computes them all.
 */
export function topicMinIsr(cache: Pick<MetadataCache, 'brokerConfigs' | 'controller'>, topic: TopicRecord | undefined, staticDefault: number): number {
  const controller = cache.controller;
  return minIsrConfig(topic?.configs['min.insync.replicas']) ??
    (controller ? minIsrConfig(cache.brokerConfigs.get(String(controller.nodeId))?.['min.insync.replicas']) : null) ??
    minIsrConfig(cache.brokerConfigs.get(DEFAULT_BROKER_CONFIGS)?.['min.insync.replicas']) ?? staticDefault;
}

/** The ELR settings of one partition from the metadata cache. */
export function elrSettingsOf(cache: Pick<MetadataCache, 'brokerConfigs' | 'features' | 'topicById' | 'controller'>, state: PartitionState, staticMinIsr: number): ElrSettings {
  if (!elrEnabledIn(cache.features)) return ELR_DISABLED;
  return { enabled: true, minIsr: effectiveMinIsr(topicMinIsr(cache, cache.topicById(state.topicId), staticMinIsr), state.replicas.length) };
}

/** preferred: the first replica if it may lead (ElectLeaders PREFERRED, balancing); online: keep
 *  the partition led from the ISR/ELR; unclean: online, else any acceptable replica. */
export type ElectionType = 'preferred' | 'online' | 'unclean';

export interface PartitionChangeRequest {
  /** The ISR the writer wants (default: the current one). */
  targetIsr?: readonly number[];
  election: ElectionType;
  /** May this broker lead (registered, not shutting down)? */
  isAcceptableLeader: (id: number) => boolean;
  elr: ElrSettings;
  /** Brokers that came back from an unclean shutdown: they leave the ELR (and ISR). */
  uncleanShutdown?: readonly number[];
}

function same(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Kafka's maybePopulateTargetElr: the ELR that goes with `targetIsr`. */
export function targetElr(prev: PartitionState, targetIsr: readonly number[], settings: ElrSettings, uncleanShutdown: readonly number[] = NONE): number[] {
  if (!settings.enabled || targetIsr.length >= settings.minIsr) return [];
  const candidates = new Set([...elrOf(prev), ...prev.isr]);
  return [...candidates]
    .filter((id) => !targetIsr.includes(id) && !uncleanShutdown.includes(id) && prev.replicas.includes(id))
    .sort((a, b) => a - b);
}

interface Elected {
  leader: number;
  unclean: boolean;
}

function elect(prev: PartitionState, isr: readonly number[], elr: readonly number[], req: PartitionChangeRequest): Elected {
  const valid = (id: number) => id !== NO_LEADER && (isr.includes(id) || (isr.length === 0 && elr.includes(id))) && req.isAcceptableLeader(id);
  const preferred = prev.replicas[0];
  if (req.election === 'preferred' && preferred !== undefined && valid(preferred)) return { leader: preferred, unclean: false };
  if (valid(prev.leader)) return { leader: prev.leader, unclean: false };
  const online = prev.replicas.find(valid);
  if (online !== undefined) return { leader: online, unclean: false };
  // Kafka's canElectLastKnownLeader: ISR and ELR both empty, one recorded last leader, acceptable.
  const lastKnown = lastKnownElrOf(prev);
  if (req.elr.enabled && isr.length === 0 && elr.length === 0 && lastKnown.length === 1 && req.isAcceptableLeader(lastKnown[0])) {
    return { leader: lastKnown[0], unclean: true };
  }
  if (req.election === 'unclean') {
    const any = prev.replicas.find(req.isAcceptableLeader);
    if (any !== undefined) return { leader: any, unclean: true };
  }
  return { leader: NO_LEADER, unclean: false };
}

/**
 * The next state (partition epoch + 1, leader epoch + 1 on a leader change), or null when
 * nothing would change. `prev` is the state the caller read and will compare-and-set against.
 */
export function buildPartitionChange(prev: PartitionState, req: PartitionChangeRequest): PartitionState | null {
  const unclean = req.uncleanShutdown ?? NONE;
  let isr = (req.targetIsr ?? prev.isr).filter((id) => !unclean.includes(id));
  let elr = targetElr(prev, isr, req.elr, unclean);
  const { leader, unclean: uncleanElection } = elect(prev, isr, elr, req);
  if (leader !== prev.leader && leader !== NO_LEADER) {
    if (uncleanElection) {
      // Records only the lost replicas had are gone: the new leader's log is the partition.
      isr = [leader];
      elr = [];
    } else if (elr.includes(leader)) {
      isr = [leader];
      elr = elr.filter((id) => id !== leader);
    }
  }
  // Without ELR an ISR never becomes empty: its members stay (Kafka leaves the ISR unchanged).
  if (isr.length === 0 && !req.elr.enabled) isr = [...prev.isr];

  let lastKnownElr = req.elr.enabled ? [...lastKnownElrOf(prev)] : [];
  if (req.elr.enabled) {
    const prevKnown = lastKnownElrOf(prev);
    if (isr.length === 0 && prev.isr.length > 0 && prev.leader !== NO_LEADER && !(prevKnown.length === 1 && prevKnown[0] === prev.leader)) {
      // The partition just lost its last in-sync replica: remember who led it.
      lastKnownElr = [prev.leader];
    } else if (leader !== NO_LEADER) {
      lastKnownElr = [];
    }
  }
  lastKnownElr = lastKnownElr.filter((id) => prev.replicas.includes(id));

  if (leader === prev.leader && same(isr, prev.isr) && same(elr, elrOf(prev)) && same(lastKnownElr, lastKnownElrOf(prev))) return null;
  const next: PartitionState = {
    ...prev,
    replicas: [...prev.replicas],
    isr,
    leader,
    leaderEpoch: leader !== prev.leader ? prev.leaderEpoch + 1 : prev.leaderEpoch,
    partitionEpoch: prev.partitionEpoch + 1,
  };
  return withElr(next, elr, lastKnownElr, req.elr.minIsr);
}

/**
 * Sets (or, when empty, removes) the ELR fields, stamped with the min.insync.replicas they were
 * computed under: states without ELR keep their stored form.
 */
export function withElr(state: PartitionState, elr: readonly number[], lastKnownElr: readonly number[], minIsr = 0): PartitionState {
  const out = { ...state };
  delete out.elr;
  delete out.lastKnownElr;
  delete out.elrMinIsr;
  if (elr.length > 0) out.elr = [...elr];
  if (lastKnownElr.length > 0) out.lastKnownElr = [...lastKnownElr];
  if ((elr.length > 0 || lastKnownElr.length > 0) && minIsr > 0) out.elrMinIsr = minIsr;
  return out;
}

/**
 * ELR fields computed under another min.insync.replicas than the partition's effective one now:
 * the value changed while no controller watched (MinIsrWatch sees the changes made while one
 * does). States stored before the stamp existed are left alone.
 */
export function elrStale(state: PartitionState, settings: ElrSettings): boolean {
  return state.elrMinIsr !== undefined && settings.enabled && state.elrMinIsr !== settings.minIsr && (elrOf(state).length > 0 || lastKnownElrOf(state).length > 0);
}

/** Kafka's ClearElrRecord (min.insync.replicas changed, or the feature disabled): null if there is nothing to clear. */
export function clearedElr(state: PartitionState): PartitionState | null {
  if (elrOf(state).length === 0 && lastKnownElrOf(state).length === 0) return null;
  return withElr({ ...state, partitionEpoch: state.partitionEpoch + 1 }, NONE, NONE);
}

type MinIsrView = Pick<MetadataCache, 'brokerConfigs' | 'topics' | 'partitionsOf'>;

/** The broker-level min.insync.replicas values (per broker and the cluster default), as one string. */
function brokerMinIsrs(cache: MinIsrView): string {
  const out: string[] = [];
  for (const [key, configs] of cache.brokerConfigs) if (configs['min.insync.replicas'] !== undefined) out.push(`${key}=${configs['min.insync.replicas']}`);
  return out.sort().join(',');
}

/**
 * Kafka clears a topic's ELRs (ELR and last known ELR) when its min.insync.replicas changes, and
 * every topic's when a broker-level min.insync.replicas changes (ConfigurationControlManager's
 * ClearElrRecord): ELR members were chosen for the old minimum. Samsa's config writes go straight
 * to the metadata store, so the active controller notices them by comparing with what it saw
 * before; the partitions to clear stay pending until their cleared state is stored. Owned by the
 * controller's reconciliation (one pass at a time); a new controller starts from what it first sees,
 * and finds the changes made before it by the ELR's stamp (elrStale).
 */
export class MinIsrWatch {
  private readonly topicValues = new Map<string, string | undefined>();
  private brokerValues: string;
  private readonly pending = new Set<string>();

  constructor(readonly epoch: number, cache: MinIsrView) {
    this.brokerValues = brokerMinIsrs(cache);
    for (const t of cache.topics.values()) this.topicValues.set(t.topicId, t.configs['min.insync.replicas']);
  }

  observe(cache: MinIsrView): void {
    const brokerValues = brokerMinIsrs(cache);
    const all = brokerValues !== this.brokerValues;
    this.brokerValues = brokerValues;
    for (const t of cache.topics.values()) {
      const value = t.configs['min.insync.replicas'];
      const changed = this.topicValues.has(t.topicId) && this.topicValues.get(t.topicId) !== value;
      this.topicValues.set(t.topicId, value);
      if (all || changed) for (const p of cache.partitionsOf(t.topicId)) this.pending.add(`${p.topicId}/${p.partition}`);
    }
  }

  mustClear(state: PartitionState): boolean {
    return this.pending.size > 0 && this.pending.has(`${state.topicId}/${state.partition}`);
  }

  cleared(state: PartitionState): void {
    this.pending.delete(`${state.topicId}/${state.partition}`);
  }
}
