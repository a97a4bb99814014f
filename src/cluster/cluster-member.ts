/**
 * One broker's cluster side, put together: the metadata store (etcd when samsa.etcd.endpoints is
 * set, else the local file store), the metadata cache, the broker's registration and the
 * controller candidacy. This is what the broker will start before it opens its listeners; until
 * then (see docs/architecture.md) it is used by the tests.
 *
 * Losing the registration fences the controller side at once and is reported as 'lost': the
 * broker must then stop acting as leader. With `rejoin` the member then registers again (a new
 * broker epoch, once etcd answers and the old lease is gone), campaigns for the controller again,
 * and reports 'rejoined' (Kafka's broker re-registers after being fenced the same way): the
 * controller has meanwhile moved its leaderships, so it comes back as a follower.
 */
import { EventEmitter } from 'node:events';
import type { BrokerSettings } from '../config/settings.js';
import type { Logger } from '../logger.js';
import { newUuid } from './topic-names.js';
import { BrokerLifecycleManager } from './broker-lifecycle.js';
import { Controller, type ControllerConfig } from './controller.js';
import { EtcdMetadataStore } from './etcd-metadata-store.js';
import { MetadataCache } from './metadata-cache.js';
import { BOOTSTRAP_FEATURE_LEVELS } from './features.js';
import { leaveAfterUncleanShutdown } from './partition-state.js';
import type { BrokerEndpoint, MetadataStore } from './metadata-store.js';
import { LocalMetadataStore } from './local-metadata-store.js';
import { verifyLogDirs, verifyStoredClusterId, writeMetaProperties } from './meta-properties.js';

export interface ClusterSettings {
  /** samsa.etcd.endpoints; empty: one node on the local store. */
  etcdEndpoints: string[];
  /** samsa.etcd.key.prefix */
  etcdKeyPrefix: string;
  /** samsa.etcd.connect.timeout.ms */
  etcdConnectTimeoutMs: number;
  /** node.id */
  nodeId: number;
  /** broker.rack */
  rack: string | null;
  /** broker.session.timeout.ms */
  sessionTimeoutMs: number;
  /** broker.heartbeat.interval.ms */
  heartbeatIntervalMs: number;
  /** cluster.id, if configured */
  clusterId: string | null;
  controller: ControllerConfig;
}

/** The settings the cluster room reads (a part of the settings table; the broker's whole config fits). */
export type ClusterRoomSettings = Pick<BrokerSettings,
  'samsa.etcd.endpoints'
  | 'samsa.etcd.key.prefix'
  | 'samsa.etcd.connect.timeout.ms'
  | 'node.id'
  | 'broker.rack'
  | 'broker.session.timeout.ms'
  | 'broker.heartbeat.interval.ms'
  | 'cluster.id'
  | 'default.replication.factor'
  | 'num.partitions'
  | 'unclean.leader.election.enable'
  | 'auto.leader.rebalance.enable'
  | 'leader.imbalance.check.interval.seconds'
  | 'min.insync.replicas'
>;

/** The cluster settings of a loaded broker configuration (Kafka's names). */
export function clusterSettings(config: ClusterRoomSettings): ClusterSettings {
  return {
    etcdEndpoints: config['samsa.etcd.endpoints'],
    etcdKeyPrefix: config['samsa.etcd.key.prefix'],
    etcdConnectTimeoutMs: config['samsa.etcd.connect.timeout.ms'],
    nodeId: config['node.id'],
    rack: config['broker.rack'],
    sessionTimeoutMs: config['broker.session.timeout.ms'],
    heartbeatIntervalMs: config['broker.heartbeat.interval.ms'],
    clusterId: config['cluster.id'],
    controller: {
      defaultReplicationFactor: config['default.replication.factor'],
      defaultNumPartitions: config['num.partitions'],
      uncleanLeaderElectionEnable: config['unclean.leader.election.enable'],
      autoLeaderRebalanceEnable: config['auto.leader.rebalance.enable'],
      leaderImbalanceCheckIntervalMs: config['leader.imbalance.check.interval.seconds'] * 1000,
      minInsyncReplicas: config['min.insync.replicas'],
    },
  };
}

export interface ClusterMemberOptions {
  settings: ClusterSettings;
  endpoints: BrokerEndpoint[];
  /** The HTTP listener's base URLs, registered with the endpoints. */
  httpUrls?: readonly string[];
  /** Where the local store keeps its file (the first log dir); null: memory. Ignored with etcd. */
  localDir?: string | null;
  /** A store to use instead of opening one (tests share nothing but etcd, so they rarely need it). */
  store?: MetadataStore;
  /** See BrokerLifecycleOptions.registrationRetryMs (default: one session timeout). */
  registrationRetryMs?: number;
  logger?: Logger;
  placementStart?: (brokerCount: number) => number;
  /** Register again after losing the registration (brokers; the cluster tests drive it by hand). */
  rejoin?: boolean;
  /**
   * The broker's log dirs (on disk): their meta.properties must name this cluster and node.id
   * (InconsistentClusterIdError before registering otherwise); dirs without one get it.
   */
  logDirs?: string[];
  /**
   * The log dirs lacked the clean-shutdown marker (a crash or a lost log dir): before registering,
   * the broker leaves every ELR and ISR (partition-state.ts leaveAfterUncleanShutdown).
   */
  uncleanShutdown?: boolean;
  /**
   * The broker epochs the log dirs' clean-shutdown markers record. One that is not the epoch of
   * the node's last registration (a log dir copied from elsewhere or restored from a backup) makes
   * the start an unclean shutdown's end too, as Kafka's controller compares the registration's
   * previous broker epoch (ClusterControlManager; KIP-966).
   */
  cleanShutdownEpochs?: readonly number[];
}

/** Whether the start ends an unclean shutdown: a log dir without its marker, or a marker of another broker epoch than the node's last registration. */
async function uncleanShutdownOf(store: MetadataStore, nodeId: number, opts: Pick<ClusterMemberOptions, 'uncleanShutdown' | 'cleanShutdownEpochs' | 'logger'>): Promise<boolean> {
  if (opts.uncleanShutdown) return true;
  if (!opts.cleanShutdownEpochs?.length) return false;
  const last = await store.lastBrokerEpoch(nodeId);
  const other = opts.cleanShutdownEpochs.find((e) => e !== last);
  if (last < 0 || other === undefined) return false;
  opts.logger?.warn(`broker ${nodeId}: a clean-shutdown marker records broker epoch ${other}, not ${last} of this broker's last registration: treated as an unclean shutdown`);
  return true;
}

/** Leaving the cluster (deregistering, closing the session and the watch) gets at most this long when no controlled shutdown set a deadline. */
const LEAVE_TIMEOUT_MS = 5000;
/** ...and at least this long when one did (a timeout of 0 still deregisters from a store that answers). */
const LEAVE_MIN_MS = 1000;
/** Of a controlled shutdown's timeout, what is kept for leaving the cluster afterwards (at most half of it). */
const LEAVE_RESERVE_MS = 3000;

export class ClusterMember extends EventEmitter<{ lost: [reason: Error]; rejoined: [] }> {
  private stopped = false;
  /** Set by a controlled shutdown: when stop() must be done with etcd, whatever etcd does. */
  private leaveBy: number | null = null;

  private constructor(
    readonly store: MetadataStore,
    readonly metadataCache: MetadataCache,
    /** The current registration (replaced when the member rejoins). */
    public lifecycle: BrokerLifecycleManager,
    /** The current controller candidacy (replaced when the member rejoins). */
    public controller: Controller,
    readonly clusterId: string,
    private readonly opts: ClusterMemberOptions,
  ) {
    super();
  }

  private watchLifecycle(): void {
    const lifecycle = this.lifecycle;
    const controller = this.controller;
    lifecycle.on('lost', (reason) => {
      controller.fenceSelf(reason.message);
      this.emit('lost', reason);
      if (this.opts.rejoin && !this.stopped) void this.rejoin();
    });
  }

  /** The offline log dirs and their replicas reported so far (offline-replicas.ts). */
  private offline: { offlineLogDirs: string[]; offlineReplicas: string[] } | null = null;

  /** A log dir went offline: the registration lists every offline dir and replica so far (again after a rejoin). */
  reportOfflineLogDirs(offline: { offlineLogDirs: string[]; offlineReplicas: string[] }): Promise<void> {
    this.offline = offline;
    return this.lifecycle.reportOfflineLogDirs(offline);
  }

  /** Registers again (new broker epoch) until it works or the member stops. */
  private async rejoin(): Promise<void> {
    const s = this.opts.settings;
    // Backoff capped at a session (at most 5 s): a broker cut off for long comes back within about
    // a session of the network healing, not 5 s later.
    const maxDelay = Math.max(250, Math.min(5000, s.sessionTimeoutMs));
    for (let delay = 250; !this.stopped; delay = Math.min(delay * 2, maxDelay)) {
      try {
        const lifecycle = await BrokerLifecycleManager.start({
          store: this.store, nodeId: s.nodeId, rack: s.rack, endpoints: this.opts.endpoints, httpUrls: this.opts.httpUrls,
          sessionTimeoutMs: s.sessionTimeoutMs, heartbeatIntervalMs: s.heartbeatIntervalMs,
          // The old lease may not have run out in etcd yet.
          registrationRetryMs: s.sessionTimeoutMs * 2, logger: this.opts.logger,
        });
        if (this.stopped) {
          await lifecycle.shutdown();
          return;
        }
        this.lifecycle = lifecycle;
        this.controller = new Controller({
          store: this.store, metadataCache: this.metadataCache, nodeId: s.nodeId, incarnationId: lifecycle.incarnationId, session: lifecycle.session,
          config: s.controller, logger: this.opts.logger, placementStart: this.opts.placementStart,
        });
        this.watchLifecycle();
        if (this.offline) await lifecycle.reportOfflineLogDirs(this.offline).catch(() => undefined);
        this.controller.start();
        this.opts.logger?.info(`broker ${s.nodeId} rejoined the cluster (broker epoch ${lifecycle.brokerEpoch})`);
        this.emit('rejoined');
        return;
      } catch (err) {
        this.opts.logger?.warn(`broker ${s.nodeId}: registering again failed (${(err as Error).message}); retrying in ${delay} ms`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  static async start(opts: ClusterMemberOptions): Promise<ClusterMember> {
    const s = opts.settings;
    const store = opts.store ?? (s.etcdEndpoints.length > 0
      ? await EtcdMetadataStore.connect({ endpoints: s.etcdEndpoints, prefix: s.etcdKeyPrefix, connectTimeoutMs: s.etcdConnectTimeoutMs, logger: opts.logger })
      : new LocalMetadataStore(opts.localDir ?? null, s.nodeId));
    let metadataCache: MetadataCache | null = null;
    try {
      const dirsClusterId = opts.logDirs ? verifyLogDirs(opts.logDirs, { nodeId: s.nodeId, clusterId: s.clusterId }) : null;
      // A new store (etcd lost, or a first start on formatted dirs) takes the log dirs' id.
      // A new cluster starts with Kafka 4.4's format-time default: min.insync.replicas as a
      // cluster-wide dynamic broker config (DescribeConfigs: DYNAMIC_DEFAULT_BROKER_CONFIG).
      const clusterId = await store.ensureClusterId(s.clusterId ?? dirsClusterId ?? newUuid(), { 'min.insync.replicas': String(s.controller.minInsyncReplicas) }, BOOTSTRAP_FEATURE_LEVELS);
      if (s.clusterId && clusterId !== s.clusterId) {
        throw new Error(`cluster.id ${s.clusterId} does not match the cluster id ${clusterId} stored in ${store.description}`);
      }
      if (opts.logDirs) {
        verifyStoredClusterId(opts.logDirs, dirsClusterId, clusterId, store.description);
        writeMetaProperties(opts.logDirs, { clusterId, nodeId: s.nodeId });
      }
      metadataCache = await MetadataCache.start(store, opts.logger);
      if (await uncleanShutdownOf(store, s.nodeId, opts)) await leaveAfterUncleanShutdown(store, metadataCache, s.nodeId, s.controller.minInsyncReplicas, opts.logger);
      const lifecycle = await BrokerLifecycleManager.start({
        store,
        nodeId: s.nodeId,
        rack: s.rack,
        endpoints: opts.endpoints,
        httpUrls: opts.httpUrls,
        sessionTimeoutMs: s.sessionTimeoutMs,
        heartbeatIntervalMs: s.heartbeatIntervalMs,
        registrationRetryMs: opts.registrationRetryMs ?? s.sessionTimeoutMs,
        logger: opts.logger,
      });
      const controller = new Controller({
        store, metadataCache: metadataCache, nodeId: s.nodeId, incarnationId: lifecycle.incarnationId, session: lifecycle.session,
        config: s.controller, logger: opts.logger, placementStart: opts.placementStart,
      });
      const member = new ClusterMember(store, metadataCache, lifecycle, controller, clusterId, opts);
      member.watchLifecycle();
      controller.start();
      return member;
    } catch (e) {
      await metadataCache?.close();
      if (!opts.store) await store.close();
      throw e;
    }
  }

  get nodeId(): number {
    return this.lifecycle.nodeId;
  }

  /**
   * Before a broker loads its logs: refuses log dirs that belong to another cluster or node
   * (InconsistentClusterIdError, nothing written), reading the stored cluster id from etcd when
   * the dirs name one. The local store lives in the first log dir, so its id is checked by start().
   */
  static async preflight(settings: ClusterSettings, logDirs: string[], logger?: Logger): Promise<void> {
    const dirsClusterId = verifyLogDirs(logDirs, { nodeId: settings.nodeId, clusterId: settings.clusterId });
    if (dirsClusterId === null || settings.etcdEndpoints.length === 0) return;
    const store = await EtcdMetadataStore.connect({ endpoints: settings.etcdEndpoints, prefix: settings.etcdKeyPrefix, connectTimeoutMs: settings.etcdConnectTimeoutMs, logger });
    try {
      verifyStoredClusterId(logDirs, dirsClusterId, (await store.readImage()).clusterId, store.description);
    } finally {
      await store.close();
    }
  }

  /**
   * Controlled shutdown, first half (Kafka's want_shut_down): the registration says this broker
   * is shutting down, the controller moves its leaderships to other in-sync replicas and takes it
   * out of every ISR, and this resolves once it is in no ISR with another eligible broker
   * (partitions whose ISR is this broker alone stay until it deregisters). Meanwhile the broker
   * still serves, so clients are told where each partition went (NOT_LEADER_OR_FOLLOWER with the
   * new leader) instead of finding a closed port. Nothing to do alone in the cluster.
   *
   * `timeoutMs` bounds the controlled shutdown and the stop() after it together, whatever etcd
   * does: the wait ends in time to keep a few seconds (LEAVE_RESERVE_MS, at most half) for
   * leaving. Without a registration (lost: etcd gone or cut off) there is nothing to do, the
   * controller already treats this broker as gone; a registration lost while waiting ends the
   * wait. Registering again stops from here on.
   */
  async controlledShutdown(timeoutMs: number): Promise<number> {
    const self = this.opts.settings.nodeId;
    const started = Date.now();
    if (this.stopped) return 0;
    this.stopped = true;
    this.leaveBy = started + timeoutMs;
    const others = [...this.metadataCache.brokers.values()].some((b) => b.nodeId !== self && !b.inControlledShutdown);
    if (!others) return 0;
    const lifecycle = this.lifecycle;
    if (lifecycle.state !== 'registered') {
      this.opts.logger?.warn(`controlled shutdown: broker ${self} is not registered (${lifecycle.state}); stopping without it`);
      return 0;
    }
    const waitUntil = this.leaveBy - Math.min(LEAVE_RESERVE_MS, Math.floor(timeoutMs / 2));
    const ledBefore = this.metadataCache.allPartitions().filter((p) => p.leader === self).length;
    let timer: NodeJS.Timeout | undefined;
    let onLost: (() => void) | undefined;
    // Whichever comes first: the deadline, or the registration lost (the controller then moves
    // everything as for a dead broker, and no write to etcd would be accepted anyway).
    const givenUp = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve(`timed out after ${Date.now() - started} ms (samsa.controlled.shutdown.timeout.ms ${timeoutMs}, less what is kept for leaving)`), Math.max(0, waitUntil - Date.now()));
      onLost = () => resolve('the registration was lost');
      lifecycle.once('lost', onLost);
    });
    const settled = (c: MetadataCache) => c.brokers.get(self)?.inControlledShutdown === true &&
      c.allPartitions().every((p) => !p.isr.includes(self) || p.isr.every((id) => id === self || !c.isEligible(id)));
    const moved = (async () => {
      await lifecycle.beginControlledShutdown();
      await this.metadataCache.waitFor(settled, Math.max(0, waitUntil - Date.now()), 'leaderships moved away for the controlled shutdown');
      return null;
    })();
    try {
      const outcome = await Promise.race([moved, givenUp]);
      if (outcome !== null) this.opts.logger?.warn(`controlled shutdown: ${outcome}; stopping anyway`);
    } catch (err) {
      this.opts.logger?.warn(`controlled shutdown: ${(err as Error).message}; stopping anyway`);
    } finally {
      clearTimeout(timer);
      if (onLost) lifecycle.off('lost', onLost);
      moved.catch(() => undefined);
    }
    const ledAfter = this.metadataCache.allPartitions().filter((p) => p.leader === self).length;
    return ledBefore - ledAfter;
  }

  /**
   * Graceful: resign the controller claim, deregister, close. Bounded whatever etcd does: by the
   * controlled shutdown's deadline when there was one, else LEAVE_TIMEOUT_MS; past it the session
   * is left to run out in etcd (as after a crash) and the client is closed.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const budget = this.leaveBy !== null ? Math.max(LEAVE_MIN_MS, this.leaveBy - Date.now()) : LEAVE_TIMEOUT_MS;
    const leaving = (async () => {
      await this.controller.stop();
      await this.lifecycle.shutdown();
      await this.metadataCache.close();
    })();
    let timer: NodeJS.Timeout | undefined;
    const outOfTime = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), budget);
    });
    const left = await Promise.race([leaving.then(() => true), outOfTime]).catch((err) => {
      this.opts.logger?.warn(`leaving the cluster: ${(err as Error).message}`);
      return true;
    });
    clearTimeout(timer);
    if (!left) {
      leaving.catch(() => undefined);
      this.opts.logger?.warn(`broker ${this.opts.settings.nodeId}: leaving the cluster took longer than ${budget} ms; ${this.store.description} lets the session run out`);
      this.lifecycle.abandon();
      void this.metadataCache.close().catch(() => undefined);
    }
    await this.store.close();
  }

  /** As if the process died: no more heartbeats, nothing deregistered; the lease runs out in etcd. */
  async crash(): Promise<void> {
    this.stopped = true;
    this.lifecycle.abandon();
    this.controller.fenceSelf('crashed');
    await this.metadataCache.close();
    await this.store.close();
  }
}
