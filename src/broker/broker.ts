/**
 * Composition root: configuration, storage, cluster metadata, the handler registry and the
 * listeners. `Broker.start()` loads every partition (recovering after an unclean stop) before it
 * accepts connections; `stop()` stops accepting, answers in-flight requests, flushes, closes files.
 */
import { KafkaApiError } from '../errors.js';
import { systemClock, type Clock } from '../clock.js';
import { createLogger, type Logger } from '../logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { SocketServer, type BoundListener } from '../network/server.js';
import { LogManager } from '../storage/log-manager.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { nodeFs, type Fs } from '../storage/fs.js';
import { Dispatcher } from './dispatch.js';
import { ClusterMetadata, FileMetadataStore, MemoryMetadataStore, type MetadataStore, type TopicInfo } from './metadata.js';
import { allHandlers } from './handlers/index.js';
import { settingsFromConfig, logConfigFor, type RuntimeSettings } from './settings.js';
import type { BrokerConfig } from '../config.js';
import { validateTopicConfigs } from './topic-configs.js';
import { GroupCoordinator } from '../coordinator/group/group-coordinator.js';
import type { TxnCoordinator } from '../coordinator/txn/txn-coordinator.js';
import { txnCoordinatorForBroker } from '../coordinator/txn/broker-env.js';

export interface BrokerOptions {
  config: BrokerConfig;
  clock?: Clock;
  fs?: Fs;
  logger?: Logger;
  /** Metadata persistence; default a JSON file in the first log dir. */
  metadataStore?: MetadataStore;
}

export interface AppendWaiter {
  /**
   * Waits for an append to a watched partition since the watch was made (returns at once if one
   * happened already), or the timeout: 'append' / 'timeout'; 'closed' when `closed` resolved or
   * the broker is stopping.
   */
  wait(timeoutMs: number, closed: AbortSignal): Promise<'append' | 'timeout' | 'closed'>;
}

export class Broker {
  readonly config: RuntimeSettings;
  readonly rawConfig: BrokerConfig;
  readonly clock: Clock;
  readonly log: Logger;
  readonly dispatcher: Dispatcher;
  readonly metadata: ClusterMetadata;
  readonly logs: LogManager;
  readonly nodeId: number;
  /** Leader epoch of every partition on this single node (bumps come with replication). */
  readonly leaderEpoch = 0;
  /** Consumer groups and committed offsets (state = replay of __consumer_offsets). */
  readonly groupCoordinator: GroupCoordinator;
  /** Producer ids and transactions (state = replay of __transaction_state); set by start(). */
  txnCoordinator!: TxnCoordinator;
  stopping = false;
  private server: SocketServer | null = null;
  private readonly creating = new Map<string, Promise<TopicInfo>>();

  private constructor(opts: { settings: RuntimeSettings; raw: BrokerConfig; clock: Clock; log: Logger; metadata: ClusterMetadata; logs: LogManager }) {
    this.config = opts.settings;
    this.rawConfig = opts.raw;
    this.clock = opts.clock;
    this.log = opts.log;
    this.metadata = opts.metadata;
    this.logs = opts.logs;
    this.nodeId = opts.settings.nodeId;
    this.dispatcher = new Dispatcher(opts.log);
    for (const h of allHandlers) this.dispatcher.register(h);
    this.groupCoordinator = GroupCoordinator.forBroker(this);
  }

  get flushOnAcksAll(): boolean {
    return this.config.flushOnAcksAll;
  }

  /** Opens storage and metadata, loads every partition, binds the listeners. */
  static async start(opts: BrokerOptions): Promise<Broker> {
    const settings = settingsFromConfig(opts.config);
    const clock = opts.clock ?? systemClock;
    const log = opts.logger ?? createLogger();
    const fs = opts.fs ?? nodeFs;
    const store = opts.metadataStore ?? (opts.fs && opts.fs !== nodeFs ? new MemoryMetadataStore() : new FileMetadataStore(settings.logDirs[0]));
    const metadata = new ClusterMetadata(store, settings.nodeId, settings.clusterId);
    const logs = await LogManager.open({ fs, logDirs: settings.logDirs, clock, defaults: logConfigFor(opts.config, {}) });
    await logs.loadAll();
    const broker = new Broker({ settings, raw: opts.config, clock, log, metadata, logs });
    await broker.reconcileLogs();
    await broker.groupCoordinator.startup();
    broker.txnCoordinator = txnCoordinatorForBroker(broker, fs, logs.logDir);
    await broker.txnCoordinator.startup();
    // log.flush.scheduler.interval.ms defaults to Long.MAX (never): schedule nothing then.
    const flushIntervalMs = settings.flushSchedulerIntervalMs < 2 ** 31 ? settings.flushSchedulerIntervalMs : undefined;
    logs.startBackgroundTasks({
      retentionCheckIntervalMs: settings.retentionCheckIntervalMs, flushIntervalMs,
      producerIdExpirationMs: Number(opts.config['producer.id.expiration.ms']),
      producerIdExpirationCheckIntervalMs: Number(opts.config['producer.id.expiration.check.interval.ms']),
    });
    broker.server = new SocketServer({ dispatcher: broker.dispatcher, broker, log, maxFrameBytes: settings.socketRequestMaxBytes });
    try {
      await broker.server.listen(settings.listeners);
    } catch (err) {
      await logs.close();
      throw err;
    }
    for (const l of broker.server.bound) log.info(`listening on ${l.name}://${l.host || '0.0.0.0'}:${l.boundPort}`);
    return broker;
  }

  /** Every partition the metadata knows has a log; logs of unknown topics are left alone but logged. */
  private async reconcileLogs(): Promise<void> {
    for (const t of this.metadata.topics.values()) {
      for (let p = 0; p < t.partitions; p++) {
        if (!this.logs.getLog(t.name, p)) await this.logs.createLog(t.name, p, logConfigFor(this.rawConfig, t.configs), t.topicId);
        else this.logs.getLog(t.name, p)!.config = logConfigFor(this.rawConfig, t.configs);
      }
    }
  }

  get listeners(): BoundListener[] {
    return this.server?.bound ?? [];
  }

  get socketServer(): SocketServer | null {
    return this.server;
  }

  /** The address clients should use for this broker on a listener (advertised.listeners). */
  endpointFor(listenerName: string): { host: string; port: number } {
    const adv = this.config.advertisedListeners.find((l) => l.name === listenerName) ?? this.config.advertisedListeners[0];
    const bound = this.listeners.find((l) => l.name === (adv?.name ?? listenerName)) ?? this.listeners[0];
    const host = adv?.host || 'localhost';
    const port = adv && adv.port !== 0 ? adv.port : (bound?.boundPort ?? 9092);
    return { host, port };
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.getLog(topic, partition);
  }

  /**
   * Creates a topic (CreateTopics and auto-creation). Validates like Kafka's controller;
   * throws KafkaApiError with Kafka's code and message.
   */
  async createTopic(spec: { name: string; numPartitions: number; replicationFactor: number; configs: Record<string, string | null>; validateOnly?: boolean }): Promise<TopicInfo> {
    const { name } = spec;
    if (name === '__cluster_metadata') throw new KafkaApiError(ErrorCode.INVALID_REQUEST, 'Creation of internal topic __cluster_metadata is prohibited.');
    this.metadata.checkCreatable(name);
    if (this.creating.has(name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
    const rf = spec.replicationFactor === -1 ? this.config.defaultReplicationFactor : spec.replicationFactor;
    if (rf === 0 || rf < -1) throw new KafkaApiError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
    const partitions = spec.numPartitions === -1 ? this.config.numPartitions : spec.numPartitions;
    if (partitions <= 0) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
    if (rf > 1) {
      throw new KafkaApiError(ErrorCode.INVALID_REPLICATION_FACTOR,
        `Unable to replicate the partition ${rf} time(s): The target replication factor of ${rf} cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned.`);
    }
    const configs = validateTopicConfigs(spec.configs);
    const draft: TopicInfo = { name, topicId: '', partitions, replicationFactor: rf, configs, isInternal: name.startsWith('__') && (name === '__consumer_offsets' || name === '__transaction_state') };
    if (spec.validateOnly) return draft;
    const work = (async () => {
      const info = this.metadata.addTopic(draft);
      const logConfig = logConfigFor(this.rawConfig, configs);
      for (let p = 0; p < partitions; p++) await this.logs.createLog(name, p, logConfig, info.topicId);
      return info;
    })();
    this.creating.set(name, work);
    try {
      return await work;
    } finally {
      this.creating.delete(name);
    }
  }

  /** Metadata-triggered creation with the broker defaults; concurrent callers share one creation. */
  async autoCreateTopic(name: string): Promise<TopicInfo> {
    const pending = this.creating.get(name);
    if (pending) return pending;
    const existing = this.metadata.get(name);
    if (existing) return existing;
    return this.createTopic({ name, numPartitions: -1, replicationFactor: -1, configs: {} });
  }

  async deleteTopic(name: string): Promise<TopicInfo> {
    const info = this.metadata.get(name);
    if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    this.metadata.removeTopic(name);
    await this.logs.deleteTopic(name);
    if (name !== '__consumer_offsets') {
      await this.groupCoordinator.onTopicDeleted(name).catch((err) => this.log.error(`removing the committed offsets of deleted topic ${name} failed`, err));
    }
    return info;
  }

  async createPartitions(name: string, count: number, validateOnly: boolean): Promise<void> {
    const info = this.metadata.get(name);
    if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    if (count < info.partitions) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `The topic ${name} currently has ${info.partitions} partition(s); ${count} would not be an increase.`);
    if (count === info.partitions) throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${info.partitions} partition(s).`);
    if (validateOnly) return;
    const logConfig = logConfigFor(this.rawConfig, info.configs);
    for (let p = info.partitions; p < count; p++) await this.logs.createLog(name, p, logConfig, info.topicId);
    this.metadata.setPartitionCount(name, count);
  }

  /** Replaces a topic's dynamic config overrides and applies them to its logs. */
  setTopicConfigs(name: string, configs: Record<string, string>): void {
    const info = this.metadata.get(name);
    if (!info) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    this.metadata.setConfigs(name, configs);
    const lc = logConfigFor(this.rawConfig, configs);
    for (let p = 0; p < info.partitions; p++) {
      const log = this.logs.getLog(name, p);
      if (log) log.config = lc;
    }
  }

  /**
   * Watches the partitions a long-polling fetch reads. Made before the read, it only notes each
   * log's append count (cheap: most fetches return data and never wait); wait() subscribes, so an
   * append between the read and the wait is not missed.
   */
  appendSignal(req: { topics: { topic: string; topicId: string; partitions: { partition: number }[] }[] }, byId: boolean): AppendWaiter {
    const logs: PartitionLog[] = [];
    const counts: number[] = [];
    for (const t of req.topics) {
      const info = byId ? this.metadata.getById(t.topicId) : this.metadata.get(t.topic);
      if (!info) continue;
      for (const p of t.partitions) {
        const log = this.logs.getLog(info.name, p.partition);
        if (log) {
          logs.push(log);
          counts.push(log.appendCount);
        }
      }
    }
    return {
      wait: (timeoutMs, closed) => new Promise((resolve) => {
        const stopSignal = this.stopController.signal;
        for (let i = 0; i < logs.length; i++) if (logs[i].appendCount !== counts[i]) return resolve('append');
        if (closed.aborted || stopSignal.aborted) return resolve('closed');
        // Every listener is removed again, whatever ends the wait.
        let finished = false;
        let timer: { cancel(): void } | null = null;
        let unsubscribes: (() => void)[] = [];
        const done = (why: 'append' | 'timeout' | 'closed'): void => {
          if (finished) return;
          finished = true;
          for (const u of unsubscribes) u();
          closed.removeEventListener('abort', onEnd);
          stopSignal.removeEventListener('abort', onEnd);
          timer?.cancel();
          resolve(why);
        };
        const onEnd = (): void => done('closed');
        unsubscribes = logs.map((log) => log.onAppend(() => done('append')));
        closed.addEventListener('abort', onEnd);
        stopSignal.addEventListener('abort', onEnd);
        timer = this.clock.setTimeout(() => done('timeout'), timeoutMs);
        if (finished) timer.cancel();
      }),
    };
  }

  /** Aborted when the broker begins to stop (long polls end). */
  get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  private readonly stopController = new AbortController();

  /** Stops accepting, answers what was received, flushes and closes every log. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.stopController.abort();
    await this.txnCoordinator?.shutdown();
    await this.groupCoordinator.shutdown();
    await this.server?.stop();
    await this.logs.close();
  }
}
