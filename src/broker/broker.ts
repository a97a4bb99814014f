/**
 * Composition root: configuration, storage, the cluster member, the replica manager, the handler
 * registry and the listeners.
 *
 * `Broker.start()`: loads every partition (recovering after an unclean stop), binds the listeners
 * (without serving yet, so that port 0 has its real port), joins the cluster with those endpoints
 * (`ClusterMember`: etcd when samsa.etcd.endpoints is set, else a cluster of one on the local
 * metadata file; one code path), lets the replica manager create the logs of the partitions this
 * broker holds, starts the coordinators, then serves. `stop()` stops accepting, answers in-flight
 * requests, leaves the cluster (the controller moves this broker's leaderships), flushes, closes.
 *
 * Topic changes (create, delete, add partitions) are controller work: on the active controller
 * they run here; any other broker forwards them (controller-channel.ts). Either way the call
 * returns once this broker's metadata cache shows the change (and, for a local change, once the
 * replica manager applied it), so a client that asks this broker next sees it.
 */
import type { ConnectionObserver } from '../network/request-processor.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import { setMaxListeners } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLEAN_SHUTDOWN_FILE } from '../storage/file-names.js';
import { cleanShutdownEpoch } from '../storage/log-dir-checkpoints.js';
import { systemClock, type Clock } from '../clock.js';
import { createLogger, namedLogger, setLogFormat, type Logger } from '../logger.js';
import { SocketServer, type BoundListener } from '../network/server.js';
import { LogManager } from '../storage/log-manager.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { nodeFs, type Fs } from '../storage/fs.js';
import { reportLogDirFailures } from './log-dir-failures.js';
import { TopicAdmin, CONTROLLER_WAIT_MS } from './topic-admin.js';
import { MetadataWriter } from './metadata-writer.js';
import { Dispatcher } from './dispatch.js';
import { DynamicBrokerConfig } from './dynamic-config.js';
import type { AppendWaiter, BrokerServices, CreateTopicSpec, HttpService, HttpTestControl } from './broker-services.js';
export type { AppendWaiter, CreateTopicSpec } from './broker-services.js';
import { settingsFromConfig, logConfigFor, cleanerConfigFor, type RuntimeSettings } from './settings.js';
import { advertisedListeners, listenerSecurityProtocol, type BrokerConfig } from '../config.js';
import { VIEW_SOURCE } from '../views/views.js';
import { topicFeatures } from './topic-features.js';
import { ScheduleManager } from '../schedule/schedule-manager.js';
import { PartitionRetirementTask } from './partition-retirement-task.js';
import { ClientRoles } from '../cluster/partition-retirement.js';
import { GroupConfigManager, type GroupConfigBroker } from '../coordinator/group/group-configs.js';
import { GroupCoordinator, OFFSETS_TOPIC } from '../coordinator/group/group-coordinator.js';
import { TRANSACTION_STATE_TOPIC, type TxnCoordinator } from '../coordinator/txn/txn-coordinator.js';
import { groupCoordinatorForBroker } from './coordinators/group-environment.js';
import { schemaRegistryForBroker } from './coordinators/schema-registry-environment.js';
import type { SchemaRegistry } from '../schema-registry/schema-registry.js';
import { SCHEMAS_TOPIC } from '../schema-registry/schemas-topic.js';
import { addPartitionsToTxnManagerForBroker, txnCoordinatorForBroker } from './coordinators/txn-environment.js';
import type { AddPartitionsToTxnManager } from './coordinators/add-partitions-to-txn-manager.js';
import { shareCoordinatorForBroker, sharePersisterForBroker } from './coordinators/share-state-environment.js';
import { SHARE_GROUP_STATE_TOPIC, type ShareCoordinator } from '../coordinator/share-state/share-coordinator.js';
import { SharePartitionManager } from '../coordinator/share/share-partition-manager.js';
import type { CoordinatorPersister } from '../coordinator/share-state/coordinator-persister.js';
import { ClusterMember, clusterSettings } from '../cluster/cluster-member.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { BrokerEndpoint, MetadataStore, PartitionState } from '../cluster/metadata-store.js';
import { ReplicaManager } from '../replication/replica-manager.js';
import { ReplicaFetcherManager } from '../replication/replica-fetcher.js';
import { createReplicaSelector } from '../replication/replica-selector.js';
import { minInsyncReplicas, type ElectionResult } from '../cluster/controller.js';
import { alterPartition } from '../cluster/partition-state.js';
import { elrSettingsOf } from '../cluster/partition-change.js';
import { BrokerClientPool, type BrokerAddress } from '../replication/broker-client.js';
import { ControllerChannel, forwardingClientId } from './controller-channel.js';
import { resolveAllListenerSecurity } from '../security/listener-security.js';
import { interBrokerSecurity } from '../security/inter-broker.js';
import { StandardAuthorizer } from '../security/authorizer.js';
import { ClientQuotaManager } from '../security/quotas.js';
import { DelegationTokenManager } from '../security/delegation-token-manager.js';
import { BrokerMetrics } from '../http/metrics/broker-metrics.js';
import { ClientMetricsManager } from './client-metrics-manager.js';
import type { Handler } from './handler.js';
import type { ListenerSecurity } from '../security/listener-security.js';
import { codecFor } from '../protocol/generated/api-table.js';
import { ALTER_LOG_DIRS_RATE, dynamicBrokerConfig, FOLLOWER_THROTTLED_REPLICAS, ReplicationQuotas } from '../replication/replication-quota.js';
import { TieredStorage, connectObjectStore } from '../remote/tiered-storage.js';
import type { ObjectStore } from '../remote/object-store.js';

export interface BrokerOptions {
  config: BrokerConfig;
  clock?: Clock;
  fs?: Fs;
  logger?: Logger;
  /** The cluster metadata store to use (default: etcd with samsa.etcd.endpoints, else the file in the first log dir). */
  metadataStore?: MetadataStore;
  /**
   * The request handlers to serve (handlers/index.ts `allHandlers`): the handler room sits above
   * this composition root, so the entry points (main.ts, testing/start-broker.ts) hand them in.
   */
  handlers: readonly Handler<any>[];
  /** Starts the HTTP listener (http/server.ts `startBrokerHttp`) once the Kafka listeners are bound; absent: none. */
  http?: HttpStarter;
  /** Tiered storage's object store instead of samsa.remote.s3.* (tests: remote/memory-object-store.ts). */
  remoteStore?: ObjectStore;
}


/** Starts the HTTP listener for a broker whose Kafka listeners are bound; null when samsa.http.listeners is empty. */
export type HttpStarter = (broker: Broker, security: ReadonlyMap<string, ListenerSecurity>) => Promise<HttpService | null>;

export class Broker implements BrokerServices {
  readonly config: RuntimeSettings;
  /** The configuration the broker started with and the dynamic broker configs over it (broker/dynamic-config.ts). */
  readonly dynamicConfig: DynamicBrokerConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly dispatcher: Dispatcher;
  readonly logs: LogManager;
  readonly nodeId: number;
  /** Consumer groups and committed offsets (state = replay of __consumer_offsets); set by start(). */
  groupCoordinator!: GroupCoordinator;
  /** Producer ids and transactions (state = replay of __transaction_state); set by start(). */
  txnCoordinator!: TxnCoordinator;
  addPartitionsToTxn!: AddPartitionsToTxnManager;
  /** Share-partition state (state = replay of __share_group_state); set by start(). */
  shareCoordinator!: ShareCoordinator;
  /** The test control over HTTP (`samsa start --control`, set by the entry point); null when off. */
  testControl: HttpTestControl | null = null;
  /** The Schema Registry (samsa.schema.registry.enable), served on the HTTP listener; null when off. */
  schemaRegistry: SchemaRegistry | null = null;
  /** Where share-partition leaders read and write their state (the share coordinator, here or on the state partition's leader); set by start(). */
  sharePersister!: CoordinatorPersister;
  /** The share-partitions this broker leads: their windows, locks and sessions. */
  sharePartitions!: SharePartitionManager;
  /** This broker's membership of the cluster (store, cache, registration, controller); set by start(). */
  cluster!: ClusterMember;
  /** The partitions this broker holds and its role in each; set by start(). */
  replicaManager!: ReplicaManager;
  /** Connections to other brokers (replica fetchers); set by start(). */
  brokerClients!: BrokerClientPool;
  private controllerChannel!: ControllerChannel;
  /** Topic administration (topic-admin.ts). */
  topicAdmin!: TopicAdmin;
  /** The one writer of the cluster metadata outside the controller (metadata-writer.ts). */
  metadataWriter!: MetadataWriter;
  private controllerClients!: BrokerClientPool;
  stopping = false;
  /** Schedulers of the schedule topics led here (src/schedule/). */
  scheduler?: ScheduleManager;
  /** ACL decisions (authorizer.class.name); null: every request is allowed. Set by start(). */
  authorizer: StandardAuthorizer | null = null;
  /** Client quotas (AlterClientQuotas); set by start(). */
  quotas!: ClientQuotaManager;
  /** Delegation tokens (KIP-48), kept in the cluster metadata; set by start(). */
  delegationTokens!: DelegationTokenManager;
  /** Replication throttles (dynamic *.replication.throttled.rate); set by start(). */
  replicationQuotas!: ReplicationQuotas;
  /** Group configs on GROUP resources (consumer.*, share.*, streams.*), from the metadata; set by start(). */
  groupConfigs!: GroupConfigManager;
  /** Deletes drained retired partitions while this broker is the controller; set by start(). */
  retirement: PartitionRetirementTask | null = null;
  /** Producer and consumer roles by client, for Metadata answers about retired partitions. */
  readonly clientRoles = new ClientRoles();
  /** Client telemetry instances (KIP-714), as a Kafka broker with no subscriptions keeps them. */
  readonly clientMetrics = new ClientMetricsManager(() => this.clock.now());
  private server: SocketServer | null = null;
  /** Tiered storage (remote/), when remote.log.storage.system.enable; set by start(). */
  tiered?: TieredStorage;
  /** Counters for /metrics (requests, topics, connections, ISR changes, purgatories). */
  readonly metrics: BrokerMetrics;
  /** The HTTP listener (samsa.http.listeners: metrics, health, console); null when off. */
  http: HttpService | null = null;

  private constructor(opts: { settings: RuntimeSettings; raw: BrokerConfig; clock: Clock; logger: Logger; logs: LogManager; handlers: readonly Handler<any>[] }) {
    this.config = opts.settings;
    this.dynamicConfig = new DynamicBrokerConfig(opts.raw, opts.settings.nodeId);
    this.clock = opts.clock;
    this.logger = opts.logger;
    this.logs = opts.logs;
    this.nodeId = opts.settings.nodeId;
    this.dispatcher = new Dispatcher(opts.logger, this);
    for (const h of opts.handlers) this.dispatcher.register(h);
    this.metrics = new BrokerMetrics((apiKey) => codecFor(apiKey)?.name ?? `ApiKey${apiKey}`);
    this.dispatcher.metrics = this.metrics;
    this.dispatcher.requestLog = namedLogger(opts.logger, 'kafka.request.logger');
  }

  /** The configuration in effect: the static settings with the dynamic broker configs over them. */
  get rawConfig(): BrokerConfig {
    return this.dynamicConfig.current;
  }

  get flushOnAcksAll(): boolean {
    return this.config.flushOnAcksAll;
  }

  /** The metadata cache: live brokers, controller, topics, partition states. */
  get metadataCache(): MetadataCache {
    return this.cluster.metadataCache;
  }

  /** Opens storage, binds the listeners, joins the cluster, applies its metadata, then serves. */
  static async start(opts: BrokerOptions): Promise<Broker> {
    const settings = settingsFromConfig(opts.config);
    const clock = opts.clock ?? systemClock;
    const logger = opts.logger ?? createLogger();
    const fs = opts.fs ?? nodeFs;
    if (opts.config.explicit['samsa.log.format']) setLogFormat(logger, opts.config['samsa.log.format'] === 'json' ? 'json' : 'text');
    const security = resolveAllListenerSecurity(opts.config, settings.listeners, logger);
    // Log dirs of another cluster or node are refused before a log is loaded (meta.properties).
    if (fs === nodeFs && !opts.metadataStore) await ClusterMember.preflight(clusterSettings(opts.config), settings.logDirs, logger);
    // The clean-shutdown marker records the broker epoch (KIP-966), known once registered. Without
    // one in every log dir (a crash, or a lost log dir), or with one of another epoch than the
    // node's last registration (ClusterMember compares), this start is an unclean shutdown's end:
    // the broker leaves the ELRs before it registers (cluster/partition-state.ts leaveAfterUncleanShutdown).
    const markers = fs === nodeFs ? settings.logDirs.map((d) => join(d, CLEAN_SHUTDOWN_FILE)) : [];
    const uncleanShutdown = !markers.every((m) => existsSync(m));
    const cleanShutdownEpochs = uncleanShutdown ? [] : markers.map((m) => cleanShutdownEpoch(readFileSync(m, 'utf8')));
    let brokerEpoch = (): number => -1;
    const onError = (err: unknown, task: string) => logger.error(`${task}: ${(err as Error)?.message ?? String(err)}`);
    const logs = await LogManager.open({ fs, logDirs: settings.logDirs, clock, defaults: logConfigFor(opts.config, {}), brokerEpoch: () => brokerEpoch(), onError });
    await logs.loadAll();
    const broker = new Broker({ settings, raw: opts.config, clock, logger: logger, logs, handlers: opts.handlers });
    // A log dir failing at run time: the controller moves its partitions (log-dir-failures.ts).
    reportLogDirFailures({
      logs, logger, metadataCache: () => broker.cluster?.metadataCache, onAllFailed: () => void broker.stop(),
      report: () => (broker.cluster ? (offline) => broker.cluster.reportOfflineLogDirs(offline) : undefined),
    });
    brokerEpoch = () => {
      try {
        return broker.cluster?.lifecycle.brokerEpoch ?? -1;
      } catch {
        return -1;
      }
    };
    const server = new SocketServer({
      processor: broker.dispatcher, observer: connectionObserver(broker), logger: logger, maxFrameBytes: settings.socketRequestMaxBytes, processing: false, security,
      sasl: {
        now: () => broker.clock.now(),
        scram: (user, mechanism) => broker.cluster.store.readScramCredential(user, mechanism),
        tokens: (tokenId, mechanism) => broker.delegationTokens.tokenCredential(tokenId, mechanism),
      },
    });
    broker.server = server;
    try {
      await server.listen(settings.listeners);
      if (opts.http) broker.http = await opts.http(broker, security);
      await broker.joinCluster(opts, fs, uncleanShutdown, cleanShutdownEpochs);
    } catch (err) {
      await broker.http?.stop().catch(() => undefined);
      await server.stop().catch(() => undefined);
      await broker.cluster?.stop().catch(() => undefined);
      await logs.close();
      throw err;
    }
    broker.authorizer = StandardAuthorizer.fromConfig(opts.config, broker.metadataCache);
    broker.delegationTokens = new DelegationTokenManager({
      settings: opts.config, store: broker.cluster.store, fence: () => broker.metadataWriter.fence, clock, logger,
    });
    broker.delegationTokens.startExpirySweep(() => broker.cluster.controller.isActive);
    broker.quotas = new ClientQuotaManager(broker.metadataCache, opts.config['quota.window.num'], opts.config['quota.window.size.seconds'] * 1000, clock);
    broker.quotas.mutationBurstSeconds = opts.config['controller.quota.window.num'] * opts.config['controller.quota.window.size.seconds'];
    broker.groupConfigs = new GroupConfigManager(opts.config as unknown as GroupConfigBroker, broker.metadataCache);
    // After the cluster: the coordinators read the metadata (their topics' partition counts).
    broker.groupCoordinator = groupCoordinatorForBroker(broker);
    await broker.groupCoordinator.startup();
    broker.txnCoordinator = txnCoordinatorForBroker(broker, fs, logs.logDir);
    await broker.txnCoordinator.startup();
    broker.addPartitionsToTxn = addPartitionsToTxnManagerForBroker(broker);
    broker.shareCoordinator = shareCoordinatorForBroker(broker);
    await broker.shareCoordinator.startup();
    broker.sharePersister = sharePersisterForBroker(broker);
    broker.schemaRegistry = schemaRegistryForBroker(broker);
    await broker.schemaRegistry?.startup();
    broker.sharePartitions = new SharePartitionManager(broker);
    // Schedule topics (src/schedule/): a scheduler per led partition of each.
    broker.scheduler = new ScheduleManager(broker, fs);
    broker.scheduler.start();
    // Partition retirement (cluster/partition-retirement.ts): the controller deletes drained retired partitions.
    broker.retirement = new PartitionRetirementTask(broker, settings.retentionCheckIntervalMs);
    broker.retirement.start();
    // Coordinators follow the leadership of their internal partitions (onElection / onResignation).
    broker.replicaManager.on('leadershipChange', (p) => {
      if (p.topic === OFFSETS_TOPIC) void broker.groupCoordinator.onLeadershipChange();
      else if (p.topic === TRANSACTION_STATE_TOPIC) void broker.txnCoordinator.onLeadershipChange();
      else if (p.topic === SHARE_GROUP_STATE_TOPIC) void broker.shareCoordinator.onLeadershipChange();
      else if (p.topic === SCHEMAS_TOPIC) void broker.schemaRegistry?.onLeadershipChange();
    });
    // log.flush.scheduler.interval.ms defaults to Long.MAX (never): schedule nothing then.
    const flushIntervalMs = settings.flushSchedulerIntervalMs < 2 ** 31 ? settings.flushSchedulerIntervalMs : undefined;
    logs.startBackgroundTasks({
      retentionCheckIntervalMs: settings.retentionCheckIntervalMs, flushIntervalMs,
      recoveryPointCheckpointIntervalMs: opts.config['log.flush.offset.checkpoint.interval.ms'],
      logStartOffsetCheckpointIntervalMs: opts.config['log.flush.start.offset.checkpoint.interval.ms'],
      highWatermarkCheckpointIntervalMs: opts.config['replica.high.watermark.checkpoint.interval.ms'],
      producerIdExpirationMs: opts.config['producer.id.expiration.ms'],
      producerIdExpirationCheckIntervalMs: opts.config['producer.id.expiration.check.interval.ms'],
      cleaner: cleanerConfigFor(broker.rawConfig),
    });
    server.enableRequestProcessing();
    for (const l of server.bound) logger.info(`listening on ${l.name}://${l.host || '0.0.0.0'}:${l.boundPort}`);
    if (broker.http) {
      broker.http.markReady();
      logger.info(`HTTP (metrics, health, console) on ${broker.http.urls.join(', ')}`);
    }
    return broker;
  }

  /** The advertised endpoints, with the ports actually bound, as the cluster registration lists them. */
  private registrationEndpoints(): BrokerEndpoint[] {
    const bound = new Map(this.listeners.map((l) => [l.name, l.boundPort]));
    return advertisedListeners(this.rawConfig, bound).map((l) => ({
      name: l.name, host: l.host, port: l.port, securityProtocol: listenerSecurityProtocol(this.rawConfig, l.name) ?? 'PLAINTEXT',
    }));
  }

  private async joinCluster(opts: BrokerOptions, fs: Fs, uncleanShutdown: boolean, cleanShutdownEpochs: readonly number[]): Promise<void> {
    const memory = fs !== nodeFs;
    const clusterConfig = clusterSettings(this.rawConfig);
    this.cluster = await ClusterMember.start({
      settings: clusterConfig,
      endpoints: this.registrationEndpoints(),
      httpUrls: this.http?.urls,
      localDir: memory ? null : this.config.logDirs[0],
      logDirs: memory ? undefined : this.config.logDirs,
      store: opts.metadataStore,
      // A broker restarted right after a crash waits for its previous registration to run out.
      registrationRetryMs: this.rawConfig['broker.session.timeout.ms'] * 2,
      logger: this.logger,
      rejoin: true,
      uncleanShutdown,
      cleanShutdownEpochs,
    });
    // Dynamic broker configs from the cluster metadata, in effect before any log is configured.
    this.dynamicConfig.follow(this.cluster.metadataCache, () => ({
      replicaManager: this.replicaManager, cleaner: this.logs.cleaner, controller: clusterConfig.controller, logger: this.logger,
    }));
    this.cluster.on('lost', (reason) => {
      // The cluster may already have moved this broker's leaderships: stop leading at once.
      this.logger.error(`broker ${this.nodeId} left the cluster (${reason.message}); it no longer leads any partition until it has registered again`);
      this.replicaManager?.fenceAll();
    });
    // Registered again: lead what the metadata says this broker leads (the controller re-elected
    // leaders while it was away; where it still is the leader nobody else led meanwhile).
    this.cluster.on('rejoined', () => this.replicaManager?.unfenceAll());
    const interBroker = this.rawConfig['inter.broker.listener.name'];
    const lookup = (nodeId: number): BrokerAddress | null => {
      const reg = this.metadataCache.brokers.get(nodeId);
      if (!reg || reg.endpoints.length === 0) return null;
      const e = (interBroker && reg.endpoints.find((x) => x.name === interBroker.toUpperCase())) || reg.endpoints[0];
      return { host: e.host, port: e.port };
    };
    const requestTimeoutMs = this.rawConfig['replica.socket.timeout.ms'];
    const security = interBrokerSecurity(this.rawConfig);
    this.brokerClients = new BrokerClientPool(lookup, { clientId: `samsa-broker-${this.nodeId}`, requestTimeoutMs, logger: this.logger, security });
    this.controllerClients = new BrokerClientPool(lookup, { clientId: forwardingClientId(this.nodeId), requestTimeoutMs: CONTROLLER_WAIT_MS, logger: this.logger, security });
    this.controllerChannel = new ControllerChannel({
      metadataCache: this.metadataCache, nodeId: this.nodeId, clients: this.controllerClients,
      isActiveController: () => this.cluster.controller.isActive, logger: this.logger,
    });
    const raw = this.rawConfig;
    // Tiered storage (remote/): the object store and the remote log manager, when turned on.
    if (raw['remote.log.storage.system.enable']) {
      const store = await connectObjectStore(raw, this.logger, opts.remoteStore);
      this.tiered = new TieredStorage(store, {
        config: raw, brokerId: this.nodeId, clock: this.clock, logger: namedLogger(this.logger, 'kafka.log.remote.RemoteLogManager'),
        partitions: () => this.replicaManager.allPartitions().filter((p) => p.log.tiered),
        fetchMaxWaitMs: () => Number(this.rawConfig['remote.fetch.max.wait.ms']),
        copyMaxBytesPerSecond: () => Number(this.rawConfig['remote.log.manager.copy.max.bytes.per.second']),
        fetchMaxBytesPerSecond: () => Number(this.rawConfig['remote.log.manager.fetch.max.bytes.per.second']),
      });
    }
    const tiered = this.tiered;
    this.replicationQuotas = new ReplicationQuotas(this.nodeId, raw['replication.quota.window.num'], raw['replication.quota.window.size.seconds'] * 1000, this.clock);
    this.replicationQuotas.follow(this.metadataCache);
    // AlterReplicaLogDirs' copies (storage/log-dir-move.ts) follow the dynamic broker config.
    this.logs.alterLogDirsMaxBytesPerSecond = () => Number(dynamicBrokerConfig(this.metadataCache, this.nodeId, ALTER_LOG_DIRS_RATE) ?? Infinity);
    const fetchers = new ReplicaFetcherManager(this.brokerClients, {
      nodeId: this.nodeId, brokerEpoch: () => this.cluster.lifecycle.brokerEpoch, clusterId: this.cluster.clusterId,
      maxWaitMs: raw['replica.fetch.wait.max.ms'], minBytes: raw['replica.fetch.min.bytes'],
      maxBytes: raw['replica.fetch.response.max.bytes'], partitionMaxBytes: raw['replica.fetch.max.bytes'],
      backoffMs: raw['replica.fetch.backoff.ms'],
      rebuildFromRemote: tiered ? (p, localStart, logStart) => tiered.rebuildFollower(p, localStart, logStart) : undefined,
      throttle: {
        quota: this.replicationQuotas.follower,
        isThrottled: (topic, partition) => this.replicationQuotas.throttled.isThrottled(this.metadataCache.topic(topic)?.configs[FOLLOWER_THROTTLED_REPLICAS], partition),
      },
    }, this.logger);
    this.replicaManager = new ReplicaManager({
      nodeId: this.nodeId, logs: this.logs, metadataCache: this.metadataCache, logger: this.logger, clock: this.clock,
      replicaLagTimeMaxMs: raw['replica.lag.time.max.ms'],
      minInsyncReplicas: (topic) => minInsyncReplicas(topic, this.rawConfig['min.insync.replicas']),
      alterIsr: async (known, newIsr) => {
        const out = await alterPartition(this.cluster.store, known, {
          brokerId: this.nodeId, brokerEpoch: this.cluster.lifecycle.brokerEpoch,
          leaderEpoch: known.leaderEpoch, partitionEpoch: known.partitionEpoch, newIsr,
        }, (id) => this.metadataCache.isEligible(id), elrSettingsOf(this.metadataCache, known, this.rawConfig['min.insync.replicas']));
        // Kafka's IsrShrinksPerSec / IsrExpandsPerSec count the leader's committed ISR changes.
        if (out.ok) {
          if (newIsr.length < known.isr.length) this.metrics.isrShrinks++;
          else if (newIsr.length > known.isr.length) this.metrics.isrExpands++;
        }
        return out;
      },
      fetchers,
      logConfig: (overrides) => logConfigFor(this.rawConfig, overrides),
      stopSignal: this.stopController.signal,
      onDelayedFetch: (delta) => { this.metrics.delayedFetch += delta; },
      replicationQuotas: this.replicationQuotas,
      tiered,
      fetchSessionCacheSlots: raw['max.incremental.fetch.session.cache.slots'],
      replicaSelector: createReplicaSelector(raw['replica.selector.class']),
      onTieringDisabled: (name, topicId) => this.tiered?.disableTopic(name, topicId),
      onTopicDeleted: async (name, topicId) => {
        this.metrics.removeTopic(name);
        // Kafka deletes a deleted topic's remote segments too (in the background here).
        if (topicId) this.tiered?.deleteTopic(name, topicId);
        if (name === '__consumer_offsets') return;
        await this.groupCoordinator?.onTopicDeleted(name).catch((err) => this.logger.error(`removing the committed offsets of deleted topic ${name} failed`, err));
        if (name !== SHARE_GROUP_STATE_TOPIC) await this.shareCoordinator?.onTopicDeleted().catch((err) => this.logger.error(`removing the share state of deleted topic ${name} failed`, err));
      },
    });
    // Samsa's topic features on the data path (views, retired partitions, schedule topics).
    this.replicaManager.topicFeatures = topicFeatures;
    this.metadataWriter = new MetadataWriter({ cluster: this.cluster, metadataCache: this.metadataCache, replicaManager: this.replicaManager });
    this.topicAdmin = new TopicAdmin({
      logger: this.logger, cluster: this.cluster, metadataCache: this.metadataCache, replicaManager: this.replicaManager,
      controllerChannel: this.controllerChannel, writer: this.metadataWriter, partitionState: (id, p) => this.partitionState(id, p),
    });
    await this.replicaManager.start();
    this.tiered?.start();
    // Metadata answers name the controller: give the election a moment (a cluster of one wins at once).
    await this.metadataCache.waitFor((c) => c.controller !== null, Math.min(5000, this.rawConfig['broker.session.timeout.ms'])).catch(() => {
      this.logger.warn(`no active controller yet; serving without one (topic changes wait for it)`);
    });
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

  /**
   * A live broker's address for clients on `listenerName` (this broker's own from its listeners),
   * or null when that broker is not registered or has no such listener (Kafka's getAliveEndpoint).
   */
  brokerEndpoint(nodeId: number, listenerName: string): { host: string; port: number; rack: string | null } | null {
    const reg = this.metadataCache.brokers.get(nodeId);
    if (nodeId === this.nodeId) return { ...this.endpointFor(listenerName), rack: reg?.rack ?? this.rawConfig['broker.rack'] };
    if (!reg) return null;
    const e = reg.endpoints.find((x) => x.name === listenerName);
    return e ? { host: e.host, port: e.port, rack: reg.rack } : null;
  }

  /** Whether `nodeId` is a registered (live) broker. */
  isRegisteredBroker(nodeId: number): boolean {
    return this.metadataCache.isAlive(nodeId);
  }

  /** Whether this broker holds its cluster registration (false after losing it, until it registered again). */
  get registered(): boolean {
    return this.cluster.lifecycle.state === 'registered';
  }

  /** The published state of a partition (leader, epochs, replicas, ISR), if the topic exists. */
  partitionState(topicId: string, partition: number): PartitionState | undefined {
    return this.metadataCache.partition(topicId, partition);
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.getLog(topic, partition);
  }

  /** Replication factor for an internal topic: its setting, capped at the live broker count (see offsets.topic.replication.factor). */
  internalTopicReplicationFactor(setting: 'offsets.topic.replication.factor' | 'transaction.state.log.replication.factor' | 'samsa.schema.registry.topic.replication.factor'): number {
    return Math.max(1, Math.min(Number(this.rawConfig[setting]), this.metadataCache.brokers.size));
  }

  /** The dynamic broker configs of a broker id or '<default>' (AlterConfigs on BROKER resources). */
  dynamicBrokerConfigs(key: string): Readonly<Record<string, string>> {
    return this.metadataCache.brokerConfigs.get(key) ?? {};
  }

  // Topic administration (topic-admin.ts): through the controller, then this broker's cache.
  createTopic(spec: CreateTopicSpec): Promise<TopicRecord> { return this.topicAdmin.createTopic(spec); }
  autoCreateTopic(name: string): Promise<TopicRecord> { return this.topicAdmin.autoCreateTopic(name); }
  deleteTopic(name: string, opts: { forwarded?: boolean } = {}): Promise<TopicRecord> { return this.topicAdmin.deleteTopic(name, opts); }
  createPartitions(name: string, count: number, validateOnly: boolean, opts: { assignments?: number[][] | null; forwarded?: boolean } = {}): Promise<void> {
    return this.topicAdmin.createPartitions(name, count, validateOnly, opts);
  }
  electLeaders(targets: { topic: string; partitions: number[] }[] | null, unclean: boolean, forwarded: boolean): Promise<ElectionResult[]> { return this.topicAdmin.electLeaders(targets, unclean, forwarded); }
  alterPartitionReassignments(topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[], forwarded: boolean): Promise<ElectionResult[]> {
    return this.topicAdmin.alterPartitionReassignments(topics, forwarded);
  }
  setTopicConfigs(name: string, configs: Record<string, string>): Promise<void> { return this.topicAdmin.setTopicConfigs(name, configs); }
  setBrokerConfigs(key: string, configs: Record<string, string>): Promise<void> { return this.topicAdmin.setBrokerConfigs(key, configs); }
  setGroupConfigs(groupId: string, configs: Record<string, string>): Promise<void> { return this.topicAdmin.setGroupConfigs(groupId, configs); }
  setFeatureLevels(levels: ReadonlyMap<string, number>): Promise<void> { return this.topicAdmin.setFeatureLevels(levels); }

  /**
   * Watches the partitions a long-polling fetch reads. Made before the read, it only notes each
   * log's append count (a follower's fetch) or high-watermark move count (a consumer's: it reads
   * below the HW, which on a replicated partition moves after the append) — cheap, as most fetches
   * return data and never wait; wait() subscribes, so a change between the read and the wait is
   * not missed.
   */
  appendSignal(req: { topics: { topic: string; topicId: string; partitions: { partition: number }[] }[] }, byId: boolean, follower = false): AppendWaiter {
    const logs: PartitionLog[] = [];
    for (const t of req.topics) {
      const info = byId ? this.metadataCache.topicById(t.topicId) : this.metadataCache.topic(t.topic);
      if (!info) continue;
      for (const p of t.partitions) {
        // A view's records are appended to its source (src/views/).
        const log = this.logs.getLog(info.configs[VIEW_SOURCE] ?? info.name, p.partition);
        if (log) logs.push(log);
      }
    }
    return this.replicaManager.fetchPurgatory.watch(logs, follower);
  }

  /** Aborted when the broker begins to stop (long polls end). */
  get stopSignal(): AbortSignal {
    return this.stopController.signal;
  }

  /** Aborted when the broker starts stopping; every long poll listens to it (no listener limit: a busy broker has hundreds). */
  private readonly stopController = unlimitedAbortController();

  /** Stops accepting, answers what was received, leaves the cluster, flushes and closes every log. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    // Controlled shutdown first, while still serving: leaderships move, clients follow them.
    if (this.cluster && String(this.rawConfig['controlled.shutdown.enable']) !== 'false') {
      const moved = await this.cluster.controlledShutdown(this.rawConfig['samsa.controlled.shutdown.timeout.ms']).catch((err) => {
        this.logger.warn(`controlled shutdown: ${(err as Error).message}`);
        return 0;
      });
      if (moved > 0) this.logger.info(`controlled shutdown: ${moved} leadership(s) moved to other brokers`);
    }
    this.stopController.abort();
    this.retirement?.stop();
    this.delegationTokens?.stopExpirySweep();
    await this.scheduler?.stop();
    this.sharePartitions?.shutdown();
    await this.shareCoordinator?.shutdown();
    await this.schemaRegistry?.close();
    this.addPartitionsToTxn?.close();
    await this.txnCoordinator?.shutdown();
    await this.groupCoordinator?.shutdown();
    await this.server?.stop();
    await this.replicaManager?.stop();
    await this.tiered?.stop();
    this.brokerClients?.closeAll();
    this.controllerClients?.closeAll();
    await this.cluster?.stop().catch((err) => this.logger.warn(`leaving the cluster: ${(err as Error).message}`));
    await this.logs.close();
    // Last: /health/ready answers 503 (stopping) while the broker shuts down.
    await this.http?.stop();
  }
}

function unlimitedAbortController(): AbortController {
  const c = new AbortController();
  setMaxListeners(0, c.signal);
  return c;
}

/** The network layer's view of the broker's metrics and quotas. */
function connectionObserver(broker: Broker): ConnectionObserver {
  return {
    connectionOpened: (listener) => broker.metrics?.connectionOpened(listener),
    connectionClosed: (listener) => broker.metrics?.connectionClosed(listener),
    authenticated: (listener, ok) => {
      const m = broker.metrics?.listener(listener);
      if (!m) return;
      if (ok) m.successfulAuthentication++;
      else m.failedAuthentication++;
    },
    takeThrottle: (connectionId) => broker.quotas?.takeThrottle(connectionId) ?? 0,
  };
}
