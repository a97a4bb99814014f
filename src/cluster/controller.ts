/**
 * The cluster controller: one broker at a time, elected through the metadata store, alone in
 * changing leaders (Kafka's QuorumController with its ReplicationControlManager, minus the Raft
 * log: etcd is the log).
 *
 * Election: a broker claims the `controller` key bound to its own session (the lease of its
 * registration), so the controller's liveness is its broker's. The claim's create revision is the
 * controller epoch, and every write the controller makes is fenced by it: a controller whose lease
 * expired while it was paused cannot change anything once another has been elected, even before it
 * notices. Brokers that lost the election watch the key (through the metadata cache) and claim it
 * again when it disappears.
 *
 * ReplicationControlManager: assigns replicas to new topics and partitions (replica-placement.ts,
 * rack-aware), validates manual assignments and replication factors against the registered
 * brokers, and keeps every partition led: whenever brokers come or go it recomputes, for every
 * partition, the change `brokerLossChange` asks for (dead brokers out of the ISR, a new leader
 * from the ISR, outside it only with unclean.leader.election.enable) and writes it as a
 * compare-and-set on the partition epoch. The work is level-triggered ("make the state right for
 * the brokers alive now"), so a new controller finishes whatever its predecessor left half done.
 */
import { EventEmitter } from 'node:events';
import { KafkaApiError } from '../errors.js';
import { ErrorCode, errorName } from '../protocol/generated/error-codes.js';
import type { Logger } from '../logger.js';
import { newUuid, topicNameProblem } from './topic-names.js';
import type { MetadataCache } from './metadata-cache.js';
import type { ControllerRegistration, Fence, MetadataSession, MetadataStore, PartitionState, TopicRecord } from './metadata-store.js';
import { brokerLossChange, initialPartitionState } from './partition-state.js';
import { clearedElr, elrSettingsOf, elrStale, MinIsrWatch } from './partition-change.js';
import { imbalanced, preferredElection, uncleanElection } from './leader-election.js';
import { checkManualAssignment, checkReplicaList, checkReplicationFactor, placeReplicas } from './replica-placement.js';
import { cancelReassignment, completedReassignment, isReassigning, startReassignment } from './reassignment.js';
import { PARTITIONS_KEEP, retiredFrom } from './partition-retirement.js';
import { replicaOnline } from './offline-replicas.js';

export interface ControllerConfig {
  /** default.replication.factor (CreateTopics with replication_factor -1, auto-created topics). */
  defaultReplicationFactor: number;
  /** num.partitions */
  defaultNumPartitions: number;
  /** unclean.leader.election.enable, the broker-wide default of the topic config. */
  uncleanLeaderElectionEnable: boolean;
  /** min.insync.replicas, the broker-wide default of the topic config. */
  minInsyncReplicas: number;
  /** auto.leader.rebalance.enable (default true): preferred replicas get their leadership back. */
  autoLeaderRebalanceEnable?: boolean;
  /** leader.imbalance.check.interval.seconds, in ms (default 300 s). */
  leaderImbalanceCheckIntervalMs?: number;
}

/** One partition's ElectLeaders (or AlterPartitionReassignments) answer. */
export interface ElectionResult {
  topic: string;
  partition: number;
  errorCode: number;
  errorMessage: string | null;
}

/** A partition moving (ListPartitionReassignments). */
export interface OngoingReassignment {
  topic: string;
  partition: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface ControllerOptions {
  store: MetadataStore;
  metadataCache: MetadataCache;
  nodeId: number;
  incarnationId: string;
  /** The session of this broker's registration: the claim dies with it. */
  session: MetadataSession;
  config: ControllerConfig;
  logger?: Logger;
  /** First-leader choice for placement (default random); tests pin it. */
  placementStart?: (brokerCount: number) => number;
}

export interface CreateTopicRequest {
  name: string;
  /** -1: num.partitions (ignored when assignments are given). */
  numPartitions: number;
  /** -1: default.replication.factor (ignored when assignments are given). */
  replicationFactor: number;
  /** Manual assignment: replicas per partition, partition 0 first. */
  assignments?: number[][];
  configs?: Record<string, string>;
  isInternal?: boolean;
  /** Only validate (CreateTopics validate_only). */
  validateOnly?: boolean;
}

export interface CreatedTopic {
  topic: TopicRecord;
  partitions: PartitionState[];
}

type ControllerEvents = { elected: [ControllerRegistration]; resigned: [reason: string] };

/** A topic's effective unclean.leader.election.enable. */
export function uncleanElectionEnabled(topic: TopicRecord | undefined, brokerDefault: boolean): boolean {
  const v = topic?.configs['unclean.leader.election.enable'];
  return v === undefined ? brokerDefault : v.trim().toLowerCase() === 'true';
}

/** A topic's effective min.insync.replicas (replication will use it for acks=all). */
export function minInsyncReplicas(topic: TopicRecord | undefined, brokerDefault: number): number {
  const v = Number(topic?.configs['min.insync.replicas']);
  return Number.isInteger(v) && v >= 1 ? v : brokerDefault;
}

export class Controller extends EventEmitter<ControllerEvents> {
  private active: ControllerRegistration | null = null;
  private stopped = false;
  private claiming = false;
  private reconciling: Promise<void> | null = null;
  private dirty = false;
  private readonly onChange = () => this.onCacheChange();

  constructor(private readonly opts: ControllerOptions) {
    super();
  }

  /** Starts campaigning; returns at once. */
  start(): void {
    this.opts.metadataCache.on('change', this.onChange);
    void this.campaign();
  }

  get isActive(): boolean {
    return this.active !== null;
  }

  get controllerEpoch(): number | null {
    return this.active?.controllerEpoch ?? null;
  }

  private get fence(): Fence {
    if (!this.active) throw new KafkaApiError(ErrorCode.NOT_CONTROLLER, `broker ${this.opts.nodeId} is not the active controller`);
    return { controllerEpoch: this.active.controllerEpoch };
  }

  private onCacheChange(): void {
    if (this.stopped) return;
    const seen = this.opts.metadataCache.controller;
    if (this.active) {
      // Our claim is gone or replaced (our session expired): stop acting, then campaign again.
      if (this.opts.metadataCache.revision >= this.active.controllerEpoch && seen?.controllerEpoch !== this.active.controllerEpoch) {
        this.resign(`the controller claim of epoch ${this.active.controllerEpoch} is no longer current`);
      } else {
        this.requestReconcile();
        return;
      }
    }
    if (!this.opts.metadataCache.controller) void this.campaign();
  }

  private async campaign(): Promise<void> {
    if (this.stopped || this.active || this.claiming) return;
    this.claiming = true;
    try {
      const claim = await this.opts.store.tryClaimController(this.opts.nodeId, this.opts.incarnationId, this.opts.session);
      if (!claim || this.stopped) return;
      this.active = claim;
      this.opts.logger?.info(`broker ${this.opts.nodeId} is the active controller (controller epoch ${claim.controllerEpoch})`);
      this.emit('elected', claim);
      this.requestReconcile();
      this.scheduleBalancing();
    } catch (e) {
      this.opts.logger?.warn(`broker ${this.opts.nodeId}: controller claim failed (${(e as Error).message})`);
    } finally {
      this.claiming = false;
    }
    // The holder may have vanished between our failed claim and now: look at the cache again.
    if (!this.active && !this.stopped && !this.opts.metadataCache.controller) setTimeout(() => void this.campaign(), 100).unref();
  }

  private resign(reason: string): void {
    this.balanceTimer?.unref();
    if (this.balanceTimer) clearTimeout(this.balanceTimer);
    this.balanceTimer = null;
    if (!this.active) return;
    this.opts.logger?.warn(`broker ${this.opts.nodeId} stops acting as controller: ${reason}`);
    this.active = null;
    this.emit('resigned', reason);
  }

  /** Stop acting at once (this broker lost its registration) without touching the store. */
  fenceSelf(reason: string): void {
    this.stopped = true;
    this.opts.metadataCache.off('change', this.onChange);
    this.resign(reason);
  }

  /** Graceful stop: give up the claim so another broker takes over without waiting for a lease. */
  async stop(): Promise<void> {
    const epoch = this.active?.controllerEpoch;
    this.fenceSelf('shutting down');
    await this.reconciling?.catch(() => {});
    if (epoch !== undefined) await this.opts.store.resignController(epoch).catch(() => {});
  }

  // ---- Elections ----------------------------------------------------------------------------

  private balanceTimer: NodeJS.Timeout | null = null;

  /** auto.leader.rebalance.enable: every leader.imbalance.check.interval.seconds, while active. */
  private scheduleBalancing(): void {
    const { autoLeaderRebalanceEnable = true, leaderImbalanceCheckIntervalMs = 300_000 } = this.opts.config;
    if (!autoLeaderRebalanceEnable || this.balanceTimer || !this.active) return;
    this.balanceTimer = setTimeout(() => {
      this.balanceTimer = null;
      void this.balanceLeaders().finally(() => this.scheduleBalancing());
    }, leaderImbalanceCheckIntervalMs);
    this.balanceTimer.unref();
  }

  /** Gives every partition whose preferred replica is alive and in sync its leadership back. */
  async balanceLeaders(): Promise<number> {
    const cache = this.opts.metadataCache;
    let moved = 0;
    for (const state of imbalanced(cache.allPartitions(), (id) => cache.isEligible(id))) {
      const name = `${cache.topicById(state.topicId)?.name}-${state.partition}`;
      const out = preferredElection(state, (id) => cache.isEligible(id), name, this.elrSettings(state));
      if (!('state' in out) || !this.active) continue;
      const r = await this.opts.store.alterPartition(out.state, state.partitionEpoch, this.fence).catch(() => null);
      if (r?.ok) {
        moved++;
        this.opts.logger?.info(`controller: ${name}: preferred leader ${out.state.leader} restored (leader epoch ${out.state.leaderEpoch})`);
      }
    }
    return moved;
  }

  /**
   * ElectLeaders: a preferred or unclean election for each named partition. `targets` null: every
   * partition, answering only those where an election took place (Kafka leaves out the others).
   */
  async electLeaders(targets: { topic: string; partitions: number[] }[] | null, unclean: boolean): Promise<ElectionResult[]> {
    const fence = this.fence;
    const cache = this.opts.metadataCache;
    const all = targets === null;
    const wanted = targets ?? [...cache.topics.values()].map((t) => ({ topic: t.name, partitions: cache.partitionsOf(t.topicId).map((p) => p.partition) }));
    const results: ElectionResult[] = [];
    for (const { topic, partitions } of wanted) {
      for (const partition of partitions) {
        const name = `${topic}-${partition}`;
        const t = cache.topic(topic);
        const state = t ? cache.partition(t.topicId, partition) : undefined;
        if (!t || !state) {
          results.push({ topic, partition, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'The request asked for a topic or partition that does not exist on this broker.' });
          continue;
        }
        const isAlive = (id: number) => cache.isEligible(id);
        const elr = this.elrSettings(state);
        const out = unclean ? uncleanElection(state, isAlive, name, elr) : preferredElection(state, isAlive, name, elr);
        if (!('state' in out)) {
          if (!all) results.push({ topic, partition, errorCode: out.errorCode, errorMessage: out.message });
          continue;
        }
        const r = await this.opts.store.alterPartition(out.state, state.partitionEpoch, fence);
        if (r.ok) {
          this.opts.logger?.info(`controller: ${name}: ${unclean ? 'unclean' : 'preferred'} election, leader ${state.leader} → ${out.state.leader} (leader epoch ${out.state.leaderEpoch})`);
          results.push({ topic, partition, errorCode: ErrorCode.NONE, errorMessage: null });
        } else {
          results.push({ topic, partition, errorCode: r.error === ErrorCode.NOT_CONTROLLER ? ErrorCode.NOT_CONTROLLER : ErrorCode.REQUEST_TIMED_OUT, errorMessage: null });
        }
      }
    }
    return results;
  }

  // ---- Reassignments (reassignment.ts) -------------------------------------------------------

  /**
   * AlterPartitionReassignments: starts (replicas) or cancels (null) the move of each partition.
   * Answers once the first change is stored; the move completes when the ISR allows
   * (reconcileOnce), under this controller or the next.
   */
  async alterPartitionReassignments(topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[]): Promise<ElectionResult[]> {
    const fence = this.fence;
    const cache = this.opts.metadataCache;
    const isAlive = (id: number) => cache.isAlive(id);
    const isEligible = (id: number) => cache.isEligible(id);
    const results: ElectionResult[] = [];
    for (const t of topics) {
      for (const { partitionIndex: partition, replicas } of t.partitions) {
        const result: ElectionResult = { topic: t.name, partition, errorCode: ErrorCode.NONE, errorMessage: null };
        results.push(result);
        try {
          const topic = cache.topic(t.name);
          if (!topic) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${t.name}.`);
          let state = cache.partition(topic.topicId, partition);
          if (!state) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${t.name}:${partition}.`);
          if (replicas) checkReplicaList(replicas, isAlive);
          // The leader may change the ISR meanwhile: retry on the state the compare-and-set found.
          for (let attempt = 0; ; attempt++) {
            const next = replicas
              ? startReassignment(state, replicas, isEligible, this.elrSettings(state))
              : cancelReassignment(state, `${t.name}:${partition}`, isEligible, uncleanElectionEnabled(topic, this.opts.config.uncleanLeaderElectionEnable), this.elrSettings(state));
            if (!next) break;
            const out = await this.opts.store.alterPartition(next, state.partitionEpoch, fence);
            if (out.ok) {
              this.opts.logger?.info(`controller: ${t.name}-${partition}: ${replicas ? 'reassignment' : 'cancelled reassignment'}, replicas [${state.replicas}] → [${next.replicas}]` +
                (isReassigning(next) ? ` (adding [${next.addingReplicas ?? []}], removing [${next.removingReplicas ?? []}])` : '') + `, leader ${next.leader}`);
              break;
            }
            if (out.error !== ErrorCode.INVALID_UPDATE_VERSION || !out.current || attempt >= 10) throw new KafkaApiError(out.error);
            state = out.current;
          }
        } catch (e) {
          if (!(e instanceof KafkaApiError)) throw e;
          result.errorCode = e.errorCode;
          result.errorMessage = e.message && e.message !== errorName(e.errorCode) ? e.message : null;
        }
      }
    }
    return results;
  }

  /** ListPartitionReassignments: the moving partitions among `topics` (null: all of them). */
  listPartitionReassignments(topics: { name: string; partitionIndexes: number[] }[] | null): OngoingReassignment[] {
    const cache = this.opts.metadataCache;
    const wanted = topics ?? [...cache.topics.values()].map((t) => ({ name: t.name, partitionIndexes: cache.partitionsOf(t.topicId).map((p) => p.partition) }));
    const out: OngoingReassignment[] = [];
    for (const { name, partitionIndexes } of wanted) {
      const topic = cache.topic(name);
      if (!topic) continue;
      for (const i of partitionIndexes) {
        const state = cache.partition(topic.topicId, i);
        if (!state || !isReassigning(state)) continue;
        out.push({ topic: name, partition: i, replicas: [...state.replicas], addingReplicas: [...(state.addingReplicas ?? [])], removingReplicas: [...(state.removingReplicas ?? [])] });
      }
    }
    return out;
  }

  // ---- ReplicationControlManager ------------------------------------------------------------

  private requestReconcile(): void {
    this.dirty = true;
    if (this.reconciling) return;
    this.reconciling = (async () => {
      try {
        while (this.dirty && this.active) {
          this.dirty = false;
          await this.reconcileOnce();
        }
      } finally {
        this.reconciling = null;
      }
    })();
  }

  /** Resolves when no reconciliation is pending (tests, and callers that need settled leaders). */
  async settled(): Promise<void> {
    while (this.reconciling) await this.reconciling.catch(() => {});
  }

  /** eligible.leader.replicas.version and the partition's effective min ISR (partition-change.ts). */
  private elrSettings(state: PartitionState) {
    return elrSettingsOf(this.opts.metadataCache, state, this.opts.config.minInsyncReplicas);
  }

  /** min.insync.replicas changes seen by this controller: their topics' ELRs are cleared (Kafka's ClearElrRecord). */
  private minIsrWatch: MinIsrWatch | null = null;

  private async reconcileOnce(): Promise<void> {
    const active = this.active;
    if (!active) return;
    const cache = this.opts.metadataCache;
    // A cache older than our claim may not show brokers that have registered since: wait for it.
    if (cache.revision < active.controllerEpoch) return;
    // Starts from what this controller first sees: a change made while no controller watched is missed (docs/gaps.md).
    if (this.minIsrWatch?.epoch !== active.controllerEpoch) this.minIsrWatch = new MinIsrWatch(active.controllerEpoch, cache);
    this.minIsrWatch.observe(cache);
    for (const state of cache.allPartitions()) {
      if (this.active !== active) return;
      const topic = cache.topicById(state.topicId);
      // A broker in controlled shutdown counts as gone here: it leaves ISRs and leaderships; so
      // does a broker for the replicas it holds on an offline log dir (offline-replicas.ts).
      const isAlive = (id: number) => cache.isEligible(id) && replicaOnline(cache, id, state.topicId, state.partition);
      const clearing = this.minIsrWatch.mustClear(state) || elrStale(state, this.elrSettings(state));
      const next = (clearing ? clearedElr(state) : null) ??
        brokerLossChange(state, { isAlive, unclean: uncleanElectionEnabled(topic, this.opts.config.uncleanLeaderElectionEnable), elr: this.elrSettings(state) }) ??
        completedReassignment(state, isAlive, this.elrSettings(state));
      if (clearing && !next) this.minIsrWatch.cleared(state);
      if (!next) continue;
      let out;
      try {
        out = await this.opts.store.alterPartition(next, state.partitionEpoch, { controllerEpoch: active.controllerEpoch });
      } catch (e) {
        // etcd unreachable: try again with the next change (or the next claim).
        this.opts.logger?.warn(`controller: partition change for ${topic?.name}-${state.partition} failed (${(e as Error).message})`);
        this.dirty = true;
        await new Promise((r) => setTimeout(r, 200));
        return;
      }
      if (out.ok) {
        if (clearing) this.minIsrWatch.cleared(state);
        const how = next.leader !== state.leader ? `leader ${state.leader} → ${next.leader} (leader epoch ${next.leaderEpoch})` : 'leader unchanged';
        const moved = isReassigning(state) && !isReassigning(next) ? `reassignment completed, replicas [${state.replicas}] → [${next.replicas}], ` : '';
        const elr = next.elr || state.elr || next.lastKnownElr || state.lastKnownElr ? `, elr [${next.elr ?? []}], last known elr [${next.lastKnownElr ?? []}]` : '';
        this.opts.logger?.info(`controller: ${topic?.name}-${state.partition}: ${moved}isr [${state.isr}] → [${next.isr}]${elr}, ${how}, partition epoch ${next.partitionEpoch}`);
      } else if (out.error === ErrorCode.NOT_CONTROLLER) {
        this.resign('a newer controller exists');
        return;
      } else if (out.error === ErrorCode.INVALID_UPDATE_VERSION) {
        // Someone (the leader changing its ISR) wrote first; the cache will show it and call again.
        this.dirty = true;
      }
    }
  }

  private liveBrokers() {
    return [...this.opts.metadataCache.brokers.values()].filter((b) => !b.inControlledShutdown).map((b) => ({ nodeId: b.nodeId, rack: b.rack }));
  }

  private checkName(name: string): void {
    const problem = topicNameProblem(name);
    if (problem) throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
    if (this.opts.metadataCache.topic(name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const canon = name.replace(/\./g, '_');
    for (const existing of this.opts.metadataCache.topics.keys()) {
      if (existing.replace(/\./g, '_') === canon) {
        throw new KafkaApiError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${existing}`);
      }
    }
  }

  /** Replica lists for a new topic or new partitions, validated. */
  private assign(count: number, replicationFactor: number, firstPartition: number, manual?: number[][], expectedLength?: number): number[][] {
    const cache = this.opts.metadataCache;
    if (manual && manual.length > 0) {
      checkManualAssignment(manual, (id) => cache.isAlive(id), expectedLength);
      return manual.map((r) => [...r]);
    }
    if (count < 1) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    const brokers = this.liveBrokers();
    checkReplicationFactor(replicationFactor, brokers.length);
    const start = this.opts.placementStart?.(brokers.length);
    return placeReplicas(brokers, count, replicationFactor, { firstPartition, start });
  }

  /** CreateTopics for one topic: validates, assigns, writes. Throws KafkaApiError with Kafka's code. */
  async createTopic(req: CreateTopicRequest): Promise<CreatedTopic> {
    const fence = this.fence;
    this.checkName(req.name);
    const manual = req.assignments && req.assignments.length > 0 ? req.assignments : undefined;
    if (manual && (req.numPartitions !== -1 || req.replicationFactor !== -1)) {
      throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
    }
    const numPartitions = req.numPartitions === -1 ? this.opts.config.defaultNumPartitions : req.numPartitions;
    const rf = req.replicationFactor === -1 ? this.opts.config.defaultReplicationFactor : req.replicationFactor;
    const replicaLists = this.assign(numPartitions, rf, 0, manual);
    const topic: TopicRecord = {
      name: req.name,
      topicId: newUuid(),
      partitions: replicaLists.length,
      replicationFactor: replicaLists[0].length,
      configs: { ...(req.configs ?? {}) },
      isInternal: req.isInternal ?? false,
    };
    const isAlive = (id: number) => this.opts.metadataCache.isEligible(id);
    const partitions = replicaLists.map((r, i) => initialPartitionState(topic.topicId, i, r, isAlive));
    if (!req.validateOnly) await this.opts.store.createTopic(topic, partitions, fence);
    return { topic, partitions };
  }

  /** CreatePartitions: grows `name` to `totalCount` partitions, placed like the first ones. */
  async createPartitions(name: string, totalCount: number, assignments?: number[][], validateOnly = false): Promise<PartitionState[]> {
    const fence = this.fence;
    const topic = this.opts.metadataCache.topic(name);
    if (!topic) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (totalCount <= topic.partitions) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic currently has ${topic.partitions} partitions, which is higher than the requested ${totalCount}.`);
    }
    if (retiredFrom(topic) < topic.partitions) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has retired partitions ${retiredFrom(topic)}-${topic.partitions - 1} (${PARTITIONS_KEEP}) that are not deleted yet; add partitions once they are gone, or remove ${PARTITIONS_KEEP} to keep them.`);
    }
    const count = totalCount - topic.partitions;
    if (assignments && assignments.length > 0 && assignments.length !== count) {
      throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Attempted to add ${count} additional partition(s), but only ${assignments.length} assignment(s) were specified.`);
    }
    const replicaLists = this.assign(count, topic.replicationFactor, topic.partitions, assignments, assignments ? topic.replicationFactor : undefined);
    const isAlive = (id: number) => this.opts.metadataCache.isEligible(id);
    const added = replicaLists.map((r, i) => initialPartitionState(topic.topicId, topic.partitions + i, r, isAlive));
    if (!validateOnly) await this.opts.store.createPartitions(name, topic.partitions, added, fence);
    return added;
  }

  /**
   * Partition retirement (partition-retirement.ts): deletes the drained partitions `remaining..`
   * of a topic that had `expectedCount`; `samsa.partitions.keep` goes with the last of them.
   */
  async removeRetiredPartitions(name: string, expectedCount: number, remaining: number): Promise<void> {
    const fence = this.fence;
    const topic = this.opts.metadataCache.topic(name);
    if (!topic) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (remaining < retiredFrom(topic)) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Partitions below ${retiredFrom(topic)} of '${name}' are not retired.`);
    const configs = { ...topic.configs };
    if (remaining <= retiredFrom(topic)) delete configs[PARTITIONS_KEEP];
    await this.opts.store.removePartitions(name, expectedCount, remaining, configs, fence);
  }

  async deleteTopic(name: string): Promise<TopicRecord> {
    const deleted = await this.opts.store.deleteTopic(name, this.fence);
    if (!deleted) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    return deleted;
  }
}
