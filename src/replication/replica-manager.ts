/**
 * The replicas this broker holds (Kafka's ReplicaManager): which partitions it has a log for, and
 * its role in each, kept in line with the metadata cache.
 *
 * Every change of the cache schedules one pass (passes never overlap; changes during a pass
 * schedule one more). A pass is level-triggered, like the controller: it makes the local state
 * right for the metadata as it is now, so a missed or coalesced event costs nothing.
 * - A partition whose replicas include this broker gets a log (created if missing, with the topic
 *   id; a log left by an earlier topic of the same name is deleted first) and a `Partition`, whose
 *   role follows the published leader and leader epoch.
 * - A topic that is gone (deleted, or re-created under a new id) loses its partitions and logs,
 *   and `onTopicDeleted` runs (the group coordinator drops the topic's committed offsets).
 * - A partition this broker is no longer a replica of is dropped, its log deleted; so is one the
 *   topic no longer has (a retired partition, cluster/partition-retirement.ts).
 * - Topic config changes reach the logs.
 * Logs on disk of topics the metadata does not know are left alone (and logged at start-up).
 *
 * Roles (Kafka's makeLeaders / makeFollowers): a partition whose published leader is this broker
 * stops being fetched and becomes leader (partition.ts: followers' positions, high watermark, ISR
 * changes, acks=all waits); one led elsewhere becomes a follower and joins the replica fetcher of
 * its leader (replica-fetcher.ts), which truncates it by leader epoch and then fetches. Every
 * replica.lag.time.max.ms / 2 the leaders look for followers to drop from the ISR.
 *
 * `fenceAll()` is for a broker that lost its registration: it stops leading everything at once,
 * whatever the (possibly stale) cache says.
 *
 * A failed log dir (storage/log-manager.ts, Kafka's handleLogDirFailure): its partitions stop
 * here at once (no fetching, no leading, out of the hosted map: Kafka's HostedPartition.Offline)
 * and are skipped by later passes; Produce and Fetch for them answer KAFKA_STORAGE_ERROR until
 * the broker restarts. The broker reports them to the controller, which elects other leaders.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from '../logger.js';
import type { LogManager } from '../storage/log-manager.js';
import type { LogConfig } from '../storage/partition-log.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { AlterPartitionOutcome, PartitionState, TopicRecord } from '../cluster/metadata-store.js';
import type { Clock, Timer } from '../clock.js';
import { Partition, type PartitionEnv } from './partition.js';
import type { ReplicaFetcherManager } from './replica-fetcher.js';
import { FetchPurgatory } from './delayed-fetch.js';
import type { TieredStorage } from '../remote/tiered-storage.js';
import { fetchMessages, type FetchEnv, type FetchHooks, type FetchParams, type FetchPartition, type FetchResult } from './fetch-messages.js';
import { appendToPartition, type AppendEnv, type AppendHooks, type AppendParams, type AppendResult, type ProducePartition } from './append-records.js';
import type { ReplicationQuotas } from './replication-quota.js';
import { FetchSessionCache } from './fetch-session.js';
import type { ReplicaSelector } from './replica-selector.js';

export interface ReplicaManagerOptions {
  nodeId: number;
  logs: LogManager;
  metadataCache: MetadataCache;
  clock: Clock;
  /** replica.lag.time.max.ms */
  replicaLagTimeMaxMs: number;
  /** The topic's effective min.insync.replicas. */
  minInsyncReplicas: (topic: TopicRecord) => number;
  /** A leader's ISR change (AlterPartition), fenced by this broker's epoch and the partition epoch. */
  alterIsr: (known: PartitionState, newIsr: number[]) => Promise<AlterPartitionOutcome>;
  /** The fetchers followers join (absent: nothing is fetched, e.g. unit tests of one node). */
  fetchers?: ReplicaFetcherManager;
  /** The storage config of a topic with these overrides. */
  logConfig: (overrides: Readonly<Record<string, string>>) => LogConfig;
  logger: Logger;
  /** Runs after a topic's logs were deleted here (with the id the topic had). */
  onTopicDeleted?: (topic: string, topicId: string | undefined) => Promise<void>;
  /** A hosted topic's remote.storage.enable went from true to false (its remote data goes). */
  onTieringDisabled?: (topic: string, topicId: string) => void;
  /** Fetch's long polls end when this is aborted (the broker is stopping). */
  stopSignal?: AbortSignal;
  /** +1 / -1 as a fetch starts / stops waiting in the purgatory (metrics). */
  onDelayedFetch?: (delta: 1 | -1) => void;
  /** The replication throttles (leader side of Fetch). */
  replicationQuotas?: ReplicationQuotas;
  /** Tiered storage, when remote.log.storage.system.enable (remote/tiered-storage.ts). */
  tiered?: TieredStorage;
  /** max.incremental.fetch.session.cache.slots (default Kafka's 1000). */
  fetchSessionCacheSlots?: number;
  /** replica.selector.class made a selector (KIP-392); absent: consumers are never sent to a follower. */
  replicaSelector?: ReplicaSelector | null;
}

/** Partitions of a topic taking their role (and writing their leader-epoch checkpoints) at once. */
const ROLE_CONCURRENCY = 16;

interface HostedTopic {
  topicId: string;
  configs: Readonly<Record<string, string>>;
  /** By partition index; holes for partitions this broker does not hold. */
  partitions: (Partition | undefined)[];
}

type ReplicaManagerEvents = {
  /** A partition's role changed here (after the pass that applied it). */
  leadershipChange: [partition: Partition, role: 'leader' | 'follower'];
};

export class ReplicaManager extends EventEmitter<ReplicaManagerEvents> {
  private readonly hosted = new Map<string, HostedTopic>();
  /** Every topic of the last pass, name → id, hosted here or not (deletions are noticed against it). */
  private readonly known = new Map<string, string>();
  private pass: Promise<void> | null = null;
  private dirty = false;
  private stopped = false;
  private fenced = false;
  /** The cache revision the last finished pass looked at. */
  private appliedRevision = -1;
  private readonly revisionWaiters: { revision: number; resolve: () => void }[] = [];
  private readonly onChange = () => this.requestPass();
  private readonly partitionEnv: PartitionEnv;
  private isrTimer: Timer | null = null;

  /** The long polls of Fetch and ShareFetch (Kafka's fetch purgatory). */
  readonly fetchPurgatory: FetchPurgatory;
  /**
   * Fetch sessions (KIP-227, fetch-session.ts; Kafka's FetchManager, which its BrokerServer hands to
   * KafkaApis). This replica manager owns the cache; the Fetch handler reads and updates it on the
   * event loop, each look-up and update in one synchronous step.
   */
  readonly fetchSessions: FetchSessionCache;
  /** Samsa's topic features on the data path (views, retirement, schedule topics); set by the broker. */
  topicFeatures: (FetchHooks & AppendHooks) | undefined;
  private readonly fetchEnv: FetchEnv;
  private readonly appendEnv: AppendEnv;

  constructor(private readonly opts: ReplicaManagerOptions) {
    super();
    this.fetchPurgatory = new FetchPurgatory({ clock: opts.clock, stopSignal: opts.stopSignal ?? new AbortController().signal, onWaiting: opts.onDelayedFetch });
    this.fetchSessions = new FetchSessionCache({ slots: opts.fetchSessionCacheSlots ?? 1000, clock: opts.clock });
    this.fetchEnv = {
      clock: opts.clock, logger: opts.logger, metadataCache: opts.metadataCache, purgatory: this.fetchPurgatory, quotas: opts.replicationQuotas,
      getPartition: (topic, partition) => this.getPartition(topic, partition),
      isOffline: (topic, partition) => opts.logs.isOffline(topic, partition),
      hooks: () => this.topicFeatures,
      stopping: () => this.stopped || (opts.stopSignal?.aborted ?? false),
      tiered: opts.tiered,
      replicaSelector: opts.replicaSelector ?? null,
      rackOf: (nodeId, listenerName) => {
        const b = opts.metadataCache.brokers.get(nodeId);
        if (b === undefined) return undefined;
        for (const e of b.endpoints) if (e.name === listenerName) return b.rack;
        return undefined;
      },
    };
    this.appendEnv = {
      logger: opts.logger, getPartition: (topic, partition) => this.getPartition(topic, partition), hooks: () => this.topicFeatures,
      isOffline: (topic, partition) => opts.logs.isOffline(topic, partition),
    };
    opts.logs.onLogDirFailure((f) => this.markPartitionsOffline(f.partitions));
    this.partitionEnv = {
      clock: opts.clock, logger: opts.logger, replicaLagTimeMaxMs: opts.replicaLagTimeMaxMs,
      // ISR membership: registered and not in controlled shutdown.
      isAlive: (id) => opts.metadataCache.isEligible(id),
      brokerEpochOf: (id) => opts.metadataCache.brokers.get(id)?.brokerEpoch,
      alterIsr: (known, newIsr) => opts.alterIsr(known, newIsr),
    };
  }

  /** Kafka's isr-expiration task: every half lag time, leaders drop followers that fell behind. */
  private scheduleIsrExpiration(): void {
    if (this.stopped) return;
    this.isrTimer = this.opts.clock.setTimeout(() => {
      for (const p of this.allPartitions()) p.maybeShrinkIsr();
      this.scheduleIsrExpiration();
    }, Math.max(50, Math.floor(this.opts.replicaLagTimeMaxMs / 2)));
  }

  get nodeId(): number {
    return this.opts.nodeId;
  }

  /** Applies the cache as it is now, then follows its changes. */
  async start(): Promise<void> {
    const names = new Set(this.opts.metadataCache.topics.keys());
    const stray = new Set(this.opts.logs.allLogs().filter((l) => !names.has(l.topic)).map((l) => l.topic));
    for (const t of stray) this.opts.logger.warn(`log dir holds partitions of topic ${t}, which the cluster metadata does not know; left alone`);
    // Partitions retired and deleted while this broker was away (cluster/partition-retirement.ts).
    for (const l of this.opts.logs.allLogs()) {
      const t = this.opts.metadataCache.topic(l.topic);
      if (t && l.partition >= t.partitions && l.topicId === t.topicId) {
        this.opts.logger.info(`${l.topic}-${l.partition}: deleting the log of a partition the topic no longer has (retired)`);
        await this.opts.logs.deleteLog(l.topic, l.partition);
      }
    }
    this.opts.metadataCache.on('change', this.onChange);
    this.requestPass();
    await this.settled();
    this.scheduleIsrExpiration();
  }

  /** Tiered storage, when on (ListOffsets, DescribeLogDirs, metrics). */
  get tiered(): TieredStorage | undefined {
    return this.opts.tiered;
  }

  /**
   * Fetch's data path (fetch-messages.ts): reads `parts` (resolved and authorized by the handler)
   * and long-polls until min_bytes, max_wait_ms or an error. `empty`: the request named no topic.
   */
  fetchMessages(params: FetchParams, parts: readonly FetchPartition[], empty: boolean): Promise<FetchResult> {
    return fetchMessages(this.fetchEnv, params, parts, empty);
  }

  /**
   * Produce's data path (append-records.ts): checks and appends each partition's batch on its
   * leader, in order. Each result is final once `waits` settle (the ISR, an fsync): the reply
   * waits for them, the appends do not.
   */
  async appendRecords(params: AppendParams, parts: readonly ProducePartition[]): Promise<{ results: AppendResult[]; waits: Promise<void>[] }> {
    const waits: Promise<void>[] = [];
    const results = await Promise.all(parts.map((p) => appendToPartition(this.appendEnv, params, p, waits)));
    return { results, waits };
  }

  /** The partition if this broker holds a replica of it (no allocation: request hot path). */
  getPartition(topic: string, partition: number): Partition | undefined {
    return this.hosted.get(topic)?.partitions[partition];
  }

  /** The leader epoch this broker serves `topic-partition` with (-1 when it holds no replica). */
  leaderEpochOf(topic: string, partition: number): number {
    return this.getPartition(topic, partition)?.leaderEpoch ?? -1;
  }

  allPartitions(): Partition[] {
    const out: Partition[] = [];
    for (const t of this.hosted.values()) for (const p of t.partitions) if (p) out.push(p);
    return out;
  }

  private requestPass(): void {
    if (this.stopped) return;
    this.dirty = true;
    if (this.pass) return;
    this.pass = (async () => {
      try {
        while (this.dirty && !this.stopped) {
          this.dirty = false;
          const revision = this.opts.metadataCache.revision;
          try {
            await this.applyOnce();
          } catch (err) {
            // A log that cannot be created (disk full, permissions) must not stop the others;
            // the next change retries.
            this.opts.logger.error('replica manager: applying metadata failed', err);
          }
          this.appliedRevision = Math.max(this.appliedRevision, revision);
          this.releaseWaiters();
        }
      } finally {
        this.pass = null;
      }
    })();
  }

  private releaseWaiters(): void {
    for (let i = this.revisionWaiters.length - 1; i >= 0; i--) {
      if (this.revisionWaiters[i].revision <= this.appliedRevision) this.revisionWaiters.splice(i, 1)[0].resolve();
    }
  }

  /** Resolves when no pass is running or pending. */
  async settled(): Promise<void> {
    while (this.pass) await this.pass;
  }

  /** Resolves once a pass that saw cache revision `revision` (or later) has finished. */
  applied(revision: number): Promise<void> {
    if (this.appliedRevision >= revision || this.stopped) return Promise.resolve();
    return new Promise((resolve) => {
      this.revisionWaiters.push({ revision, resolve });
      this.requestPass();
    });
  }

  private async applyOnce(): Promise<void> {
    this.newLeaders = [];
    try {
      await this.applyTopics();
    } finally {
      // One line per partition is 10,000 synchronous stderr writes when a broker with that many
      // starts (~0.3 s, bench/scale.ts): past a handful, one summary line, the rest at debug.
      const lines = this.newLeaders;
      this.newLeaders = null;
      if (lines.length <= 20) for (const l of lines) this.opts.logger.info(l);
      else {
        this.opts.logger.info(`leader of ${lines.length} more partitions (each at debug level)`);
        for (const l of lines) this.opts.logger.debug(l);
      }
    }
  }

  /** Partitions that became leader in the pass running now (their log lines). */
  private newLeaders: string[] | null = null;
  /** Each topic config resolved once (keyed by the configs object, replaced on every change). */
  private logConfigs = new WeakMap<object, LogConfig>();

  /**
   * The broker-wide defaults changed (dynamic broker configs, broker/dynamic-config.ts): every
   * hosted log takes its topic's config again, and every partition its minimum ISR.
   */
  brokerConfigChanged(): void {
    this.logConfigs = new WeakMap();
    for (const [name, hosted] of this.hosted) {
      const lc = this.logConfigOf(hosted.configs);
      const topic = this.opts.metadataCache.topic(name);
      for (const p of hosted.partitions) {
        if (!p) continue;
        p.log.config = lc;
        if (topic && p.replicas.length > 0) p.minInsyncReplicas = Math.min(this.opts.minInsyncReplicas(topic), p.replicas.length);
      }
    }
  }

  private logConfigOf(configs: Readonly<Record<string, string>>): LogConfig {
    let lc = this.logConfigs.get(configs);
    if (!lc) {
      lc = this.opts.logConfig(configs);
      this.logConfigs.set(configs, lc);
    }
    return lc;
  }

  private async applyTopics(): Promise<void> {
    const cache = this.opts.metadataCache;
    const nodeId = this.opts.nodeId;
    // Topics that are gone or were re-created under another id.
    for (const [name, topicId] of [...this.known]) {
      const now = cache.topic(name);
      if (!now || now.topicId !== topicId) await this.removeTopic(name);
    }
    for (const topic of [...cache.topics.values()]) {
      this.known.set(topic.name, topic.topicId);
      const states = cache.partitionsOf(topic.topicId);
      let hosted = this.hosted.get(topic.name);
      // New partitions of this broker get their logs together (concurrent, one directory fsync).
      const fresh = states.filter((st) => st.replicas.includes(nodeId) && !hosted?.partitions[st.partition] && !this.opts.logs.getLog(topic.name, st.partition));
      if (fresh.length > 1) {
        // The epochs of those it leads are written with the logs (one directory fsync for both files).
        const leading = new Map(fresh.filter((st) => st.leader === nodeId && !this.fenced).map((st) => [st.partition, st.leaderEpoch]));
        await this.opts.logs.createLogs(topic.name, fresh.map((st) => st.partition), this.logConfigOf(topic.configs), topic.topicId, (p) => leading.get(p));
      }
      const roles: { partition: Partition; state: PartitionState }[] = [];
      for (const state of states) {
        const mine = state.replicas.includes(nodeId);
        const existing = hosted?.partitions[state.partition];
        if (!mine) {
          if (existing && hosted) await this.removePartition(topic.name, hosted, state.partition);
          continue;
        }
        if (!hosted) {
          hosted = { topicId: topic.topicId, configs: topic.configs, partitions: [] };
          this.hosted.set(topic.name, hosted);
        }
        // A replica on an offline log dir stays offline until the broker restarts.
        if (!existing && this.opts.logs.isOffline(topic.name, state.partition)) continue;
        const partition = existing ?? (await this.createPartition(topic, state.partition));
        hosted.partitions[state.partition] = partition;
        // Capped at the replica count, so a topic with fewer replicas than the setting can be written.
        partition.minInsyncReplicas = Math.min(this.opts.minInsyncReplicas(topic), state.replicas.length);
        roles.push({ partition, state });
      }
      await this.applyStates(roles);
      // Partitions the topic no longer has (retired, then deleted: cluster/partition-retirement.ts).
      if (hosted && hosted.partitions.length > topic.partitions) {
        for (let i = topic.partitions; i < hosted.partitions.length; i++) if (hosted.partitions[i]) await this.removePartition(topic.name, hosted, i);
        hosted.partitions.length = topic.partitions;
      }
      if (hosted && hosted.configs !== topic.configs) {
        hosted.configs = topic.configs;
        const lc = this.opts.logConfig(topic.configs);
        let wasTiered = false;
        for (const p of hosted.partitions) {
          if (!p) continue;
          wasTiered ||= p.log.tiered;
          p.log.config = lc;
        }
        if (wasTiered && !lc.remoteStorageEnable) this.opts.onTieringDisabled?.(topic.name, topic.topicId);
      }
    }
  }

  /**
   * The roles of a topic's partitions, ROLE_CONCURRENCY at a time: becoming leader waits for the
   * leader-epoch checkpoint's two fsyncs (still made before the partition counts as led), and a
   * topic of thousands of partitions otherwise waits for each partition's in turn. Each partition
   * is its own log's queue, so their order does not matter; a failure stops none of the others
   * and is thrown once they are done (the next metadata change retries).
   */
  private async applyStates(items: readonly { partition: Partition; state: PartitionState }[]): Promise<void> {
    let next = 0;
    let failed: { err: unknown } | null = null;
    const worker = async (): Promise<void> => {
      while (next < items.length) {
        const { partition, state } = items[next++];
        try {
          await this.applyState(partition, state);
        } catch (err) {
          failed ??= { err };
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(ROLE_CONCURRENCY, items.length) }, worker));
    if (failed) throw (failed as { err: unknown }).err;
  }

  private async applyState(partition: Partition, state: PartitionState): Promise<void> {
    const role = partition.apply(state);
    if (this.fenced) partition.fence();
    if (role === 'leader') {
      this.opts.fetchers?.removePartition(partition);
      await partition.makeLeader();
      const line = `${partition.topic}-${partition.partitionIndex}: leader at epoch ${state.leaderEpoch}, ISR [${state.isr}]`;
      if (this.newLeaders) this.newLeaders.push(line);
      else this.opts.logger.info(line);
    } else if (role === 'follower') {
      partition.makeFollower();
      if (state.leader >= 0) this.opts.fetchers?.addPartition(partition, state.leader, state.leaderEpoch);
      else this.opts.fetchers?.removePartition(partition);
    }
    if (role) this.emit('leadershipChange', partition, role);
  }

  private async createPartition(topic: TopicRecord, index: number): Promise<Partition> {
    const logs = this.opts.logs;
    const config = this.logConfigOf(topic.configs);
    let log = logs.getLog(topic.name, index);
    if (log && log.topicId && log.topicId !== topic.topicId) {
      // A log of an earlier topic with this name (deleted while this broker was away).
      this.opts.logger.warn(`${topic.name}-${index}: deleting a log of topic id ${log.topicId}, the topic now has id ${topic.topicId}`);
      await logs.deleteLog(topic.name, index);
      log = undefined;
    }
    if (log) {
      log.config = config;
      if (!log.topicId) await log.persistTopicId(topic.topicId);
    } else {
      log = await logs.createLog(topic.name, index, config, topic.topicId);
    }
    return new Partition(topic.name, index, topic.topicId, log, this.opts.nodeId, this.partitionEnv);
  }

  /** Stops following or leading a partition that is about to lose its log. */
  private retire(p: Partition | undefined): void {
    if (!p) return;
    this.opts.fetchers?.removePartition(p);
    p.makeFollower();
  }

  private async removePartition(name: string, hosted: HostedTopic, index: number): Promise<void> {
    this.retire(hosted.partitions[index]);
    hosted.partitions[index] = undefined;
    await this.opts.logs.deleteLog(name, index);
  }

  private async removeTopic(name: string): Promise<void> {
    const topicId = this.known.get(name);
    this.known.delete(name);
    for (const p of this.hosted.get(name)?.partitions ?? []) this.retire(p);
    this.hosted.delete(name);
    await this.opts.logs.deleteTopic(name);
    await this.opts.onTopicDeleted?.(name, topicId).catch((err) => this.opts.logger.error(`after deleting topic ${name}`, err));
  }

  /**
   * Their log dir failed (Kafka's markPartitionOffline): each stops fetching and leading (acks=all
   * waits end NOT_LEADER_OR_FOLLOWER) and leaves the hosted map, on the event loop in one step.
   */
  markPartitionsOffline(partitions: readonly { topic: string; partition: number }[]): void {
    for (const { topic, partition } of partitions) {
      const hosted = this.hosted.get(topic);
      const p = hosted?.partitions[partition];
      if (!hosted || !p) continue;
      this.opts.fetchers?.removePartition(p);
      p.fence();
      p.makeFollower();
      hosted.partitions[partition] = undefined;
      this.opts.logger.error(`${topic}-${partition}: offline (its log dir failed); answering KAFKA_STORAGE_ERROR until restart`);
      // The coordinators of internal partitions resign (Kafka: onResignation for the offline ones).
      this.emit('leadershipChange', p, 'follower');
    }
  }

  /** Stop leading everything now (this broker lost its registration). */
  fenceAll(): void {
    this.fenced = true;
    for (const p of this.allPartitions()) p.fence();
  }

  /** Registered again: roles follow the metadata again (a pass re-applies it). */
  unfenceAll(): void {
    this.fenced = false;
    for (const p of this.allPartitions()) p.unfence();
    this.requestPass();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.isrTimer?.cancel();
    this.opts.metadataCache.off('change', this.onChange);
    await this.settled();
    await this.opts.fetchers?.stop();
    // Kafka's ReplicaManager.shutdown checkpoints the high watermarks last, before anything else
    // changes them (becoming followers below drops them to the log start).
    await this.opts.logs.checkpointHighWatermarks(true).catch((err) => this.opts.logger.warn(`high watermark checkpoint: ${(err as Error).message}`));
    for (const p of this.allPartitions()) p.makeFollower();
    for (const w of this.revisionWaiters.splice(0)) w.resolve();
  }
}
