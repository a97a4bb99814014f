/**
 * The cluster's metadata store: what Kafka keeps in its KRaft metadata log, as an async interface
 * with two implementations.
 *
 * - `LocalMetadataStore` (this file): one node, in memory, optionally persisted in one JSON file
 *   in the first log dir (today's `samsa-metadata.json`, whose version-1 form it reads). Sessions
 *   never expire, so a single broker is a cluster of one that runs the same lifecycle, controller
 *   and partition-state code as a real cluster.
 * - `EtcdMetadataStore` (etcd-metadata-store.ts): every key under one prefix per cluster, broker
 *   registrations and the controller claim bound to etcd leases, every change a transaction.
 *
 * What is stored (Kafka's record names in brackets): the cluster id; broker registrations
 * [RegisterBrokerRecord] with endpoints, rack, incarnation id and the broker epoch; the active
 * controller and its epoch; topics with ids and configs [TopicRecord, ConfigRecord]; one
 * partition state per partition [PartitionRecord / PartitionChangeRecord] holding the replica
 * assignment, ISR, leader, leaderEpoch and partitionEpoch; producer-id blocks [ProducerIdsRecord];
 * dynamic broker configs per broker id or for the cluster-wide default [ConfigRecord on a BROKER
 * resource].
 *
 * Epochs the store hands out instead of trusting callers: the broker epoch is the revision at which
 * a registration was created, the controller epoch the revision at which the controller claim was
 * created (both grow across incarnations, as Kafka's do). A write may carry a `Fence`; the store
 * applies it only if that registration or claim is still the current one, in the same atomic step,
 * so a controller or broker that lost its lease (and may not know it yet) cannot change anything.
 *
 * Partition states change only through `alterPartition`, a compare-and-set on the partition epoch
 * the caller read (Kafka's AlterPartition fencing, see partition-state.ts): the new state must
 * carry partitionEpoch + 1.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyScramChanges, scramKey, type ScramCredentialChange, type ScramCredentialRecord, type ScramMechanismName } from './scram-credentials.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { AclBinding } from '../protocol/acl.js';

/** Kafka's NO_LEADER (-1) in partition states. */
export const NO_LEADER = -1;
/** Producer ids handed to a broker at a time (Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

export interface BrokerEndpoint {
  /** Listener name (PLAINTEXT, ...). */
  name: string;
  host: string;
  port: number;
  securityProtocol: string;
}

export interface BrokerRegistration {
  nodeId: number;
  /** A fresh UUID per broker process start (Kafka's incarnation id). */
  incarnationId: string;
  endpoints: BrokerEndpoint[];
  rack: string | null;
  /**
   * The base URLs of the broker's HTTP listener (samsa.http.listeners), where it has one: other
   * brokers forward Schema Registry requests there when this broker leads `_schemas`.
   */
  httpUrls?: string[];
  /** Set by the store: the revision that created this registration (Kafka's broker epoch). */
  brokerEpoch: number;
  /** Controlled shutdown under way (Kafka's BrokerHeartbeat want_shut_down): no leaderships, no ISR. */
  inControlledShutdown?: boolean;
  /** Log dirs gone offline (directory ids) and the replicas they held (`topicId:partition`), which the controller moves (offline-replicas.ts). */
  offlineLogDirs?: string[]; offlineReplicas?: string[];
}

export interface ControllerRegistration {
  nodeId: number;
  incarnationId: string;
  /** Set by the store: the revision that created this claim. */
  controllerEpoch: number;
}

export interface TopicRecord {
  name: string;
  topicId: string;
  partitions: number;
  replicationFactor: number;
  /** Topic config overrides (Kafka names → string values). */
  configs: Record<string, string>;
  isInternal: boolean;
}

export interface PartitionState {
  topicId: string;
  partition: number;
  /** The assignment, preferred leader first. */
  replicas: number[];
  isr: number[];
  leader: number;
  /** Bumped on every leader change (KIP-101/279 fencing of followers and clients). */
  leaderEpoch: number;
  /** Bumped on every change of this state (AlterPartition's compare-and-set version). */
  partitionEpoch: number;
  /** During a reassignment (cluster/reassignment.ts): target replicas not yet in the old list. */
  addingReplicas?: number[];
  /** During a reassignment: old replicas not in the target, still replicas until it completes. */
  removingReplicas?: number[];
  /** KIP-966 (cluster/partition-change.ts): eligible leader replicas, and the last known leader; absent = []. */
  elr?: number[]; lastKnownElr?: number[];
}

export interface ProducerIdBlock {
  assignedBrokerId: number;
  firstProducerId: bigint;
  size: number;
}

/** Proof that the writer is still who it was when it decided to write. */
export type Fence =
  | { readonly controllerEpoch: number }
  | { readonly nodeId: number; readonly brokerEpoch: number };

export type AlterPartitionOutcome =
  | { ok: true; state: PartitionState }
  /** error: INVALID_UPDATE_VERSION (the partition epoch moved), NOT_CONTROLLER / STALE_BROKER_EPOCH
   *  (the fence failed), UNKNOWN_TOPIC_OR_PARTITION. `current` is the state now stored. */
  | { ok: false; error: number; current: PartitionState | null };

/** Everything at one revision. */
export interface MetadataImage {
  revision: number;
  clusterId: string | null;
  brokers: Map<number, BrokerRegistration>;
  controller: ControllerRegistration | null;
  topics: Map<string, TopicRecord>;
  /** topicId → partition index → state. */
  partitions: Map<string, Map<number, PartitionState>>;
  /** ACLs by id [AccessControlEntryRecord]. */
  acls: Map<string, AclBinding>;
  /** Client quotas by entity key (quotas.ts entityKey) [QuotaRecord]. */
  quotas: Map<string, ClientQuotaRecord>;
  /**
   * Dynamic broker configs [ConfigRecord, resource type BROKER]: by broker id as text, or
   * DEFAULT_BROKER_CONFIGS for the cluster-wide default (Kafka's `<default>`); name → value.
   */
  brokerConfigs: Map<string, Record<string, string>>;
  /**
   * Group configs [ConfigRecord, resource type GROUP] by group id: the overrides set with
   * IncrementalAlterConfigs / AlterConfigs on GROUP resources (group-configs.ts), name → value.
   * A group need not exist to have them.
   */
  groupConfigs: Map<string, Record<string, string>>;
  /**
   * Finalized feature levels [FeatureLevelRecord] by feature name (transaction.version, ...);
   * a feature finalized at level 0 is absent, as in Kafka's FeaturesImage.
   */
  features: Map<string, number>;
}

/** The key of the cluster-wide dynamic broker config defaults (resource name "" on the wire). */
export const DEFAULT_BROKER_CONFIGS = '<default>';

/** The quotas of one client-quota entity (user and/or client id; a null name is the default entity). */
export interface ClientQuotaRecord {
  entity: { entityType: string; entityName: string | null }[];
  values: Record<string, number>;
}

/** One change; `value: null` is a deletion. */
export type MetadataEvent =
  | { kind: 'cluster'; revision: number; clusterId: string }
  | { kind: 'broker'; revision: number; nodeId: number; value: BrokerRegistration | null }
  | { kind: 'controller'; revision: number; value: ControllerRegistration | null }
  | { kind: 'topic'; revision: number; name: string; value: TopicRecord | null }
  | { kind: 'partition'; revision: number; topicId: string; partition: number; value: PartitionState | null }
  | { kind: 'acl'; revision: number; id: string; value: AclBinding | null }
  | { kind: 'quota'; revision: number; key: string; value: ClientQuotaRecord | null }
  | { kind: 'brokerConfig'; revision: number; key: string; value: Record<string, string> | null }
  | { kind: 'groupConfig'; revision: number; groupId: string; value: Record<string, string> | null }
  | { kind: 'feature'; revision: number; name: string; level: number | null };

export interface MetadataWatch {
  cancel(): Promise<void>;
}

/** A liveness session: an etcd lease, or a session that never expires in the local store. */
export interface MetadataSession {
  readonly id: string;
  readonly ttlMs: number;
  /** Renews the session; rejects with SessionExpiredError when it is gone, any other error when unsure. */
  keepAlive(timeoutMs: number): Promise<void>;
  /** Ends the session now: everything bound to it disappears. */
  revoke(): Promise<void>;
}

export interface MetadataStore {
  readonly kind: 'local' | 'etcd';
  /** Human-readable location (file path or etcd endpoints and prefix), for messages. */
  readonly description: string;

  /**
   * The cluster id: the stored one, else `proposed` becomes it (first writer wins). The writer
   * that creates the cluster also stores `bootstrapDefaults` as the cluster-wide dynamic broker
   * configs, in the same change (Kafka's format-time bootstrap records: min.insync.replicas).
   */
  ensureClusterId(proposed: string, bootstrapDefaults?: Readonly<Record<string, string>>, bootstrapFeatures?: ReadonlyMap<string, number>): Promise<string>;
  readImage(): Promise<MetadataImage>;
  /** Delivers every change with revision >= fromRevision, in order, batched per revision. */
  watch(fromRevision: number, onEvents: (events: MetadataEvent[]) => void, onError: (err: Error) => void): Promise<MetadataWatch>;

  grantSession(ttlMs: number): Promise<MetadataSession>;
  /** Refuses (DuplicateBrokerRegistrationError) while another live registration holds the node id. */
  registerBroker(reg: Omit<BrokerRegistration, 'brokerEpoch'>, session: MetadataSession): Promise<BrokerRegistration>;
  /** Controlled shutdown: removes the registration if it is still this broker epoch's. */
  unregisterBroker(nodeId: number, brokerEpoch: number): Promise<void>;
  /** Controlled shutdown begins: the registration of this broker epoch says so (same epoch, same session). */
  markControlledShutdown(reg: BrokerRegistration, session: MetadataSession): Promise<void>;
  /** `reg` of this broker epoch with `changes` (same epoch, same session): offline log dirs. */
  updateBrokerRegistration(reg: BrokerRegistration, session: MetadataSession, changes: Partial<BrokerRegistration>): Promise<void>;
  /** Claims the controller role bound to the session; null if someone holds it. */
  tryClaimController(nodeId: number, incarnationId: string, session: MetadataSession): Promise<ControllerRegistration | null>;
  resignController(controllerEpoch: number): Promise<void>;
  /** A user's SCRAM credential for one mechanism (SASL/SCRAM logins), or null. */
  readScramCredential(user: string, mechanism: ScramMechanismName): Promise<ScramCredentialRecord | null>;
  /** Every stored SCRAM credential (DescribeUserScramCredentials). */
  listScramCredentials(): Promise<ScramCredentialRecord[]>;
  /** Upserts and deletions of one AlterUserScramCredentials request, atomically. */
  alterScramCredentials(changes: readonly ScramCredentialChange[], fence?: Fence): Promise<void>;

  /** TOPIC_ALREADY_EXISTS if the name is taken; partitions carry the new topic's id. */
  createTopic(topic: TopicRecord, partitions: PartitionState[], fence?: Fence): Promise<void>;
  /** Adds partitions `expectedCount..`; INVALID_PARTITIONS if the count moved meanwhile. */
  createPartitions(name: string, expectedCount: number, added: PartitionState[], fence?: Fence): Promise<void>;
  deleteTopic(name: string, fence?: Fence): Promise<TopicRecord | null>;
  /**
   * Partition retirement (partition-retirement.ts): deletes partitions `remaining..expectedCount-1`
   * and sets the topic's count and configs, in one change; INVALID_PARTITIONS if the count moved.
   */
  removePartitions(name: string, expectedCount: number, remaining: number, configs: Record<string, string>, fence?: Fence): Promise<void>;
  /** Replaces the topic's config overrides. */
  alterTopicConfigs(name: string, configs: Record<string, string>, fence?: Fence): Promise<void>;
  /** Compare-and-set on `expectedPartitionEpoch`; `next.partitionEpoch` must be expected + 1. */
  alterPartition(next: PartitionState, expectedPartitionEpoch: number, fence?: Fence): Promise<AlterPartitionOutcome>;
  allocateProducerIds(nodeId: number, fence?: Fence): Promise<ProducerIdBlock>;
  /** Adds and removes ACLs in one atomic change. */
  alterAcls(add: ReadonlyMap<string, AclBinding>, remove: readonly string[], fence?: Fence): Promise<void>;
  /** Replaces (or, with null, removes) the quotas of entities, by entity key, in one change. */
  alterClientQuotas(changes: ReadonlyMap<string, ClientQuotaRecord | null>, fence?: Fence): Promise<void>;
  /**
   * Replaces (or, with null or an empty record, removes) the dynamic configs of one broker id or of
   * DEFAULT_BROKER_CONFIGS.
   */
  alterBrokerConfigs(key: string, configs: Record<string, string> | null, fence?: Fence): Promise<void>;
  /** Replaces (or, with null or an empty record, removes) the config overrides of one group id. */
  alterGroupConfigs(groupId: string, configs: Record<string, string> | null, fence?: Fence): Promise<void>;
  /**
   * Sets finalized feature levels in one change (UpdateFeatures); level 0 removes the feature.
   * The caller validates (broker/features.ts).
   */
  alterFeatures(levels: ReadonlyMap<string, number>, fence?: Fence): Promise<void>;

  close(): Promise<void>;
}

export class SessionExpiredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SessionExpiredError';
  }
}

/** A node.id held by a live broker (Kafka's DUPLICATE_BROKER_REGISTRATION). */
export class DuplicateBrokerRegistrationError extends KafkaApiError {
  constructor(readonly holder: BrokerRegistration) {
    const where = holder.endpoints.map((e) => `${e.name}://${e.host}:${e.port}`).join(',') || 'no endpoints';
    super(
      ErrorCode.DUPLICATE_BROKER_REGISTRATION,
      `node.id ${holder.nodeId} is already registered by a live broker (incarnation ${holder.incarnationId}, ${where}, broker epoch ${holder.brokerEpoch}); give this broker another node.id or stop the other one`,
    );
    this.name = 'DuplicateBrokerRegistrationError';
  }
}

export function checkNextPartitionState(next: PartitionState, expectedPartitionEpoch: number): void {
  if (next.partitionEpoch !== expectedPartitionEpoch + 1) {
    throw new Error(`partition state change must bump the partition epoch by one (${expectedPartitionEpoch} → ${next.partitionEpoch})`);
  }
}

export function clonePartitionState(p: PartitionState): PartitionState {
  const out: PartitionState = { ...p, replicas: [...p.replicas], isr: [...p.isr] };
  for (const k of ['addingReplicas', 'removingReplicas', 'elr', 'lastKnownElr'] as const) if (p[k]) out[k] = [...p[k]];
  return out;
}

export function cloneQuota(q: ClientQuotaRecord): ClientQuotaRecord {
  return { entity: q.entity.map((e) => ({ ...e })), values: { ...q.values } };
}

/** A client-quota entity's key: its (type, name) pairs sorted by type, as JSON. */
export function quotaEntityKey(entity: readonly { entityType: string; entityName: string | null }[]): string {
  return JSON.stringify([...entity].sort((a, b) => (a.entityType < b.entityType ? -1 : a.entityType > b.entityType ? 1 : 0)).map((e) => [e.entityType, e.entityName]));
}

export function cloneTopic(t: TopicRecord): TopicRecord {
  return { ...t, configs: { ...t.configs } };
}

/** Kafka's error text for a fence that no longer holds. */
export function fenceError(fence: Fence): KafkaApiError {
  return 'controllerEpoch' in fence
    ? new KafkaApiError(ErrorCode.NOT_CONTROLLER, `controller epoch ${fence.controllerEpoch} is no longer the active controller`)
    : new KafkaApiError(ErrorCode.STALE_BROKER_EPOCH, `broker ${fence.nodeId} epoch ${fence.brokerEpoch} is no longer registered`);
}

/** Applies one event to an image (readImage, the metadata cache). */
export function applyEvent(image: MetadataImage, ev: MetadataEvent): void {
  image.revision = Math.max(image.revision, ev.revision);
  switch (ev.kind) {
    case 'cluster':
      image.clusterId = ev.clusterId;
      break;
    case 'controller':
      image.controller = ev.value;
      break;
    case 'broker':
      if (ev.value) image.brokers.set(ev.nodeId, ev.value);
      else image.brokers.delete(ev.nodeId);
      break;
    case 'topic':
      if (ev.value) image.topics.set(ev.name, ev.value);
      else image.topics.delete(ev.name);
      break;
    case 'partition': {
      let m = image.partitions.get(ev.topicId);
      if (ev.value) {
        if (!m) image.partitions.set(ev.topicId, (m = new Map()));
        m.set(ev.partition, ev.value);
      } else if (m) {
        m.delete(ev.partition);
        if (m.size === 0) image.partitions.delete(ev.topicId);
      }
      break;
    }
    case 'acl':
      if (ev.value) image.acls.set(ev.id, ev.value);
      else image.acls.delete(ev.id);
      break;
    case 'quota':
      if (ev.value) image.quotas.set(ev.key, ev.value);
      else image.quotas.delete(ev.key);
      break;
    case 'brokerConfig':
      if (ev.value) image.brokerConfigs.set(ev.key, ev.value);
      else image.brokerConfigs.delete(ev.key);
      break;
    case 'groupConfig':
      if (ev.value) image.groupConfigs.set(ev.groupId, ev.value);
      else image.groupConfigs.delete(ev.groupId);
      break;
    case 'feature':
      if (ev.level) image.features.set(ev.name, ev.level);
      else image.features.delete(ev.name);
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// The local store

interface LocalFileV2 {
  version: 2;
  clusterId: string | null;
  /** SCRAM credentials (salted and hashed, never passwords). */
  scramCredentials?: ScramCredentialRecord[];
  topics: TopicRecord[];
  partitions: PartitionState[];
  nextProducerId: string;
  acls?: { id: string; acl: AclBinding }[];
  quotas?: ClientQuotaRecord[];
  brokerConfigs?: { key: string; configs: Record<string, string> }[];
  groupConfigs?: { groupId: string; configs: Record<string, string> }[];
  /** Finalized feature levels (absent: none finalized, a cluster formatted before features). */
  features?: Record<string, number>;
}

/**
 * One node's store. Topics, partition states, the cluster id and the producer-id counter are kept
 * in `<dir>/samsa-metadata.json` when a dir is given (written atomically: temp file, fsync,
 * rename), else in memory. Registrations and the controller claim live only in memory, bound to
 * sessions, as they live only as long as their lease in etcd.
 */
export class LocalMetadataStore implements MetadataStore {
  readonly kind = 'local' as const;
  readonly description: string;
  private readonly file: string | null;
  private revision = 0;
  private clusterId: string | null = null;
  private readonly topics = new Map<string, TopicRecord>();
  private readonly partitions = new Map<string, Map<number, PartitionState>>();
  private readonly brokers = new Map<number, BrokerRegistration & { session: string }>();
  private controller: (ControllerRegistration & { session: string }) | null = null;
  private readonly liveSessions = new Set<string>();
  private nextSession = 1;
  private readonly scram = new Map<string, ScramCredentialRecord>();
  private nextProducerId = 0n;
  private readonly acls = new Map<string, AclBinding>();
  private readonly quotas = new Map<string, ClientQuotaRecord>();
  private readonly brokerConfigs = new Map<string, Record<string, string>>();
  private readonly groupConfigs = new Map<string, Record<string, string>>();
  private readonly features = new Map<string, number>();
  /** Recent events, so a watch can start at a revision slightly in the past (after readImage). */
  private readonly history: MetadataEvent[][] = [];
  private readonly watchers = new Set<(events: MetadataEvent[]) => void>();

  /** `defaultNodeId` fills the replicas of partitions read from a version-1 file (which had none). */
  constructor(dir: string | null = null, private readonly defaultNodeId = 1) {
    this.file = dir ? join(dir, 'samsa-metadata.json') : null;
    this.description = this.file ?? 'memory';
    if (this.file && existsSync(this.file)) this.loadFile(this.file, dir as string);
  }

  private loadFile(file: string, dir: string): void {
    mkdirSync(dir, { recursive: true });
    const data = JSON.parse(readFileSync(file, 'utf8')) as Partial<LocalFileV2> & { version?: number };
    this.clusterId = data.clusterId ?? null;
    applyScramChanges(this.scram, (data.scramCredentials ?? []).map((credential) => ({ kind: 'upsert', credential })));
    for (const a of data.acls ?? []) this.acls.set(a.id, { ...a.acl });
    for (const q of data.quotas ?? []) this.quotas.set(quotaEntityKey(q.entity), cloneQuota(q));
    for (const b of data.brokerConfigs ?? []) this.brokerConfigs.set(b.key, { ...b.configs });
    for (const g of data.groupConfigs ?? []) this.groupConfigs.set(g.groupId, { ...g.configs });
    for (const [name, level] of Object.entries(data.features ?? {})) if (level > 0) this.features.set(name, level);
    for (const t of data.topics ?? []) this.topics.set(t.name, cloneTopic(t));
    if (data.version === 2) {
      for (const p of data.partitions ?? []) this.partitionMap(p.topicId).set(p.partition, clonePartitionState(p));
      this.nextProducerId = BigInt(data.nextProducerId ?? '0');
    } else {
      // Version 1 (broker/metadata.ts) kept only partition counts: one node leads them all at epoch 0.
      for (const t of this.topics.values()) {
        for (let i = 0; i < t.partitions; i++) {
          this.partitionMap(t.topicId).set(i, {
            topicId: t.topicId, partition: i, replicas: [this.defaultNodeId], isr: [this.defaultNodeId],
            leader: this.defaultNodeId, leaderEpoch: 0, partitionEpoch: 0,
          });
        }
      }
    }
  }

  private persist(): void {
    if (!this.file) return;
    const data: LocalFileV2 = {
      version: 2,
      clusterId: this.clusterId,
      scramCredentials: [...this.scram.values()],
      topics: [...this.topics.values()],
      partitions: [...this.partitions.values()].flatMap((m) => [...m.values()]),
      nextProducerId: this.nextProducerId.toString(),
      acls: [...this.acls].map(([id, acl]) => ({ id, acl })),
      quotas: [...this.quotas.values()],
      brokerConfigs: [...this.brokerConfigs].map(([key, configs]) => ({ key, configs })),
      groupConfigs: [...this.groupConfigs].map(([groupId, configs]) => ({ groupId, configs })),
      features: Object.fromEntries(this.features),
    };
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, JSON.stringify(data, null, 1));
    const fd = openSync(tmp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  private partitionMap(topicId: string): Map<number, PartitionState> {
    let m = this.partitions.get(topicId);
    if (!m) this.partitions.set(topicId, (m = new Map()));
    return m;
  }

  /** Applies one atomic change: bumps the revision, persists, and tells the watchers. */
  private commit(build: (rev: number) => MetadataEvent[], durable: boolean): number {
    const rev = ++this.revision;
    const events = build(rev);
    if (durable) this.persist();
    this.history.push(events);
    if (this.history.length > 1000) this.history.shift();
    for (const w of this.watchers) queueMicrotask(() => w(events));
    return rev;
  }

  private checkFence(fence?: Fence): void {
    if (!fence) return;
    const holds = 'controllerEpoch' in fence
      ? this.controller?.controllerEpoch === fence.controllerEpoch
      : this.brokers.get(fence.nodeId)?.brokerEpoch === fence.brokerEpoch;
    if (!holds) throw fenceError(fence);
  }

  async ensureClusterId(proposed: string, bootstrapDefaults?: Readonly<Record<string, string>>, bootstrapFeatures?: ReadonlyMap<string, number>): Promise<string> {
    if (this.clusterId) return this.clusterId;
    this.clusterId = proposed;
    const defaults = bootstrapDefaults && Object.keys(bootstrapDefaults).length > 0 && !this.brokerConfigs.has(DEFAULT_BROKER_CONFIGS)
      ? { ...bootstrapDefaults } : null;
    if (defaults) this.brokerConfigs.set(DEFAULT_BROKER_CONFIGS, defaults);
    const features = [...(bootstrapFeatures ?? [])].filter(([name, level]) => level > 0 && !this.features.has(name));
    for (const [name, level] of features) this.features.set(name, level);
    this.commit((revision) => [
      { kind: 'cluster', revision, clusterId: proposed },
      ...(defaults ? [{ kind: 'brokerConfig' as const, revision, key: DEFAULT_BROKER_CONFIGS, value: { ...defaults } }] : []),
      ...features.map(([name, level]) => ({ kind: 'feature' as const, revision, name, level })),
    ], true);
    return proposed;
  }

  async readImage(): Promise<MetadataImage> {
    const brokers = new Map<number, BrokerRegistration>();
    for (const [id, b] of this.brokers) brokers.set(id, stripSession(b));
    const partitions = new Map<string, Map<number, PartitionState>>();
    for (const [tid, m] of this.partitions) partitions.set(tid, new Map([...m].map(([i, p]) => [i, clonePartitionState(p)])));
    return {
      revision: this.revision,
      clusterId: this.clusterId,
      brokers,
      controller: this.controller ? stripSession(this.controller) : null,
      topics: new Map([...this.topics].map(([n, t]) => [n, cloneTopic(t)])),
      partitions,
      acls: new Map([...this.acls].map(([id, a]) => [id, { ...a }])),
      quotas: new Map([...this.quotas].map(([k, q]) => [k, cloneQuota(q)])),
      brokerConfigs: new Map([...this.brokerConfigs].map(([k, c]) => [k, { ...c }])),
      groupConfigs: new Map([...this.groupConfigs].map(([g, c]) => [g, { ...c }])),
      features: new Map(this.features),
    };
  }

  async watch(fromRevision: number, onEvents: (events: MetadataEvent[]) => void): Promise<MetadataWatch> {
    const oldest = this.history[0]?.[0]?.revision ?? this.revision + 1;
    if (fromRevision < oldest && fromRevision <= this.revision) {
      throw new Error(`local metadata store: revision ${fromRevision} is no longer kept (oldest ${oldest})`);
    }
    for (const batch of this.history) if (batch[0].revision >= fromRevision) queueMicrotask(() => onEvents(batch));
    this.watchers.add(onEvents);
    return { cancel: async () => void this.watchers.delete(onEvents) };
  }

  async grantSession(ttlMs: number): Promise<MetadataSession> {
    const id = `local-${this.nextSession++}`;
    this.liveSessions.add(id);
    return {
      id,
      ttlMs,
      keepAlive: async () => {
        if (!this.liveSessions.has(id)) throw new SessionExpiredError(`session ${id} was revoked`);
      },
      revoke: async () => this.endSession(id),
    };
  }

  private endSession(id: string): void {
    if (!this.liveSessions.delete(id)) return;
    const gone = [...this.brokers.values()].filter((b) => b.session === id);
    const controllerGone = this.controller?.session === id;
    if (gone.length === 0 && !controllerGone) return;
    for (const b of gone) this.brokers.delete(b.nodeId);
    if (controllerGone) this.controller = null;
    this.commit((revision) => [
      ...gone.map((b): MetadataEvent => ({ kind: 'broker', revision, nodeId: b.nodeId, value: null })),
      ...(controllerGone ? [{ kind: 'controller', revision, value: null } as MetadataEvent] : []),
    ], false);
  }

  async registerBroker(reg: Omit<BrokerRegistration, 'brokerEpoch'>, session: MetadataSession): Promise<BrokerRegistration> {
    if (!this.liveSessions.has(session.id)) throw new SessionExpiredError(`session ${session.id} was revoked`);
    const holder = this.brokers.get(reg.nodeId);
    if (holder) throw new DuplicateBrokerRegistrationError(stripSession(holder));
    let out: BrokerRegistration | null = null;
    this.commit((revision) => {
      out = { ...reg, endpoints: reg.endpoints.map((e) => ({ ...e })), brokerEpoch: revision };
      this.brokers.set(reg.nodeId, { ...out, session: session.id });
      return [{ kind: 'broker', revision, nodeId: reg.nodeId, value: out }];
    }, false);
    return out as unknown as BrokerRegistration;
  }

  markControlledShutdown(reg: BrokerRegistration, session: MetadataSession): Promise<void> {
    return this.updateBrokerRegistration(reg, session, { inControlledShutdown: true });
  }

  async updateBrokerRegistration(reg: BrokerRegistration, session: MetadataSession, changes: Partial<BrokerRegistration>): Promise<void> {
    const held = this.brokers.get(reg.nodeId);
    if (!held || held.brokerEpoch !== reg.brokerEpoch) return;
    const next = { ...stripSession(held), ...changes };
    this.brokers.set(reg.nodeId, { ...next, session: session.id });
    this.commit((revision) => [{ kind: 'broker', revision, nodeId: reg.nodeId, value: next }], false);
  }

  async unregisterBroker(nodeId: number, brokerEpoch: number): Promise<void> {
    if (this.brokers.get(nodeId)?.brokerEpoch !== brokerEpoch) return;
    this.brokers.delete(nodeId);
    this.commit((revision) => [{ kind: 'broker', revision, nodeId, value: null }], false);
  }

  async tryClaimController(nodeId: number, incarnationId: string, session: MetadataSession): Promise<ControllerRegistration | null> {
    if (!this.liveSessions.has(session.id)) throw new SessionExpiredError(`session ${session.id} was revoked`);
    if (this.controller) return null;
    let out: ControllerRegistration | null = null;
    this.commit((revision) => {
      out = { nodeId, incarnationId, controllerEpoch: revision };
      this.controller = { ...out, session: session.id };
      return [{ kind: 'controller', revision, value: out }];
    }, false);
    return out;
  }

  async readScramCredential(user: string, mechanism: ScramMechanismName): Promise<ScramCredentialRecord | null> {
    const c = this.scram.get(scramKey(user, mechanism));
    return c ? { ...c } : null;
  }

  async listScramCredentials(): Promise<ScramCredentialRecord[]> {
    return [...this.scram.values()].map((c) => ({ ...c }));
  }

  async alterScramCredentials(changes: readonly ScramCredentialChange[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    applyScramChanges(this.scram, changes);
    this.revision++; // a change, but not one the metadata cache follows
    this.persist();
  }

  async resignController(controllerEpoch: number): Promise<void> {
    if (this.controller?.controllerEpoch !== controllerEpoch) return;
    this.controller = null;
    this.commit((revision) => [{ kind: 'controller', revision, value: null }], false);
  }

  async createTopic(topic: TopicRecord, partitions: PartitionState[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    if (this.topics.has(topic.name)) throw new KafkaApiError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${topic.name}' already exists.`);
    this.commit((revision) => {
      this.topics.set(topic.name, cloneTopic(topic));
      const m = this.partitionMap(topic.topicId);
      for (const p of partitions) m.set(p.partition, clonePartitionState(p));
      return [
        ...partitions.map((p): MetadataEvent => ({ kind: 'partition', revision, topicId: p.topicId, partition: p.partition, value: clonePartitionState(p) })),
        { kind: 'topic', revision, name: topic.name, value: cloneTopic(topic) },
      ];
    }, true);
  }

  async createPartitions(name: string, expectedCount: number, added: PartitionState[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (t.partitions !== expectedCount) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has ${t.partitions} partitions, not ${expectedCount}.`);
    }
    this.commit((revision) => {
      const next = { ...cloneTopic(t), partitions: expectedCount + added.length };
      this.topics.set(name, next);
      const m = this.partitionMap(t.topicId);
      for (const p of added) m.set(p.partition, clonePartitionState(p));
      return [
        ...added.map((p): MetadataEvent => ({ kind: 'partition', revision, topicId: p.topicId, partition: p.partition, value: clonePartitionState(p) })),
        { kind: 'topic', revision, name, value: cloneTopic(next) },
      ];
    }, true);
  }

  async deleteTopic(name: string, fence?: Fence): Promise<TopicRecord | null> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) return null;
    this.commit((revision) => {
      this.topics.delete(name);
      const m = this.partitions.get(t.topicId);
      this.partitions.delete(t.topicId);
      return [
        { kind: 'topic', revision, name, value: null },
        ...[...(m?.keys() ?? [])].map((partition): MetadataEvent => ({ kind: 'partition', revision, topicId: t.topicId, partition, value: null })),
      ];
    }, true);
    return cloneTopic(t);
  }

  async removePartitions(name: string, expectedCount: number, remaining: number, configs: Record<string, string>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    if (t.partitions !== expectedCount || remaining < 1 || remaining >= expectedCount) {
      throw new KafkaApiError(ErrorCode.INVALID_PARTITIONS, `Topic '${name}' has ${t.partitions} partitions, not ${expectedCount}, or ${remaining} is not fewer.`);
    }
    const next = { ...cloneTopic(t), partitions: remaining, configs: { ...configs } };
    this.commit((revision) => {
      this.topics.set(name, next);
      const m = this.partitionMap(t.topicId);
      const gone: number[] = [];
      for (let i = remaining; i < expectedCount; i++) if (m.delete(i)) gone.push(i);
      return [
        { kind: 'topic', revision, name, value: cloneTopic(next) },
        ...gone.map((partition): MetadataEvent => ({ kind: 'partition', revision, topicId: t.topicId, partition, value: null })),
      ];
    }, true);
  }

  async alterTopicConfigs(name: string, configs: Record<string, string>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const t = this.topics.get(name);
    if (!t) throw new KafkaApiError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic '${name}' does not exist.`);
    const next = { ...t, configs: { ...configs } };
    this.commit((revision) => {
      this.topics.set(name, next);
      return [{ kind: 'topic', revision, name, value: cloneTopic(next) }];
    }, true);
  }

  async alterPartition(next: PartitionState, expectedPartitionEpoch: number, fence?: Fence): Promise<AlterPartitionOutcome> {
    checkNextPartitionState(next, expectedPartitionEpoch);
    const current = this.partitions.get(next.topicId)?.get(next.partition) ?? null;
    if (!current) return { ok: false, error: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, current: null };
    if (fence) {
      try {
        this.checkFence(fence);
      } catch (e) {
        return { ok: false, error: (e as KafkaApiError).errorCode, current: clonePartitionState(current) };
      }
    }
    if (current.partitionEpoch !== expectedPartitionEpoch) {
      return { ok: false, error: ErrorCode.INVALID_UPDATE_VERSION, current: clonePartitionState(current) };
    }
    const stored = clonePartitionState(next);
    this.commit((revision) => {
      this.partitionMap(next.topicId).set(next.partition, stored);
      return [{ kind: 'partition', revision, topicId: next.topicId, partition: next.partition, value: clonePartitionState(stored) }];
    }, true);
    return { ok: true, state: clonePartitionState(stored) };
  }

  async allocateProducerIds(nodeId: number, fence?: Fence): Promise<ProducerIdBlock> {
    this.checkFence(fence);
    const first = this.nextProducerId;
    this.nextProducerId += BigInt(PRODUCER_ID_BLOCK_SIZE);
    this.revision++; // a change, but not one watchers care about
    this.persist();
    return { assignedBrokerId: nodeId, firstProducerId: first, size: PRODUCER_ID_BLOCK_SIZE };
  }

  async alterAcls(add: ReadonlyMap<string, AclBinding>, remove: readonly string[], fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const gone = remove.filter((id) => this.acls.has(id));
    if (add.size === 0 && gone.length === 0) return;
    this.commit((revision) => {
      for (const id of gone) this.acls.delete(id);
      for (const [id, a] of add) this.acls.set(id, { ...a });
      return [
        ...gone.map((id): MetadataEvent => ({ kind: 'acl', revision, id, value: null })),
        ...[...add].map(([id, a]): MetadataEvent => ({ kind: 'acl', revision, id, value: { ...a } })),
      ];
    }, true);
  }

  async alterClientQuotas(changes: ReadonlyMap<string, ClientQuotaRecord | null>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    if (changes.size === 0) return;
    this.commit((revision) => [...changes].map(([key, q]): MetadataEvent => {
      if (q) this.quotas.set(key, cloneQuota(q));
      else this.quotas.delete(key);
      return { kind: 'quota', revision, key, value: q ? cloneQuota(q) : null };
    }), true);
  }

  async alterBrokerConfigs(key: string, configs: Record<string, string> | null, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const next = configs && Object.keys(configs).length > 0 ? { ...configs } : null;
    if (!next && !this.brokerConfigs.has(key)) return;
    this.commit((revision) => {
      if (next) this.brokerConfigs.set(key, next);
      else this.brokerConfigs.delete(key);
      return [{ kind: 'brokerConfig', revision, key, value: next ? { ...next } : null }];
    }, true);
  }

  async alterGroupConfigs(groupId: string, configs: Record<string, string> | null, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const next = configs && Object.keys(configs).length > 0 ? { ...configs } : null;
    if (!next && !this.groupConfigs.has(groupId)) return;
    this.commit((revision) => {
      if (next) this.groupConfigs.set(groupId, next);
      else this.groupConfigs.delete(groupId);
      return [{ kind: 'groupConfig', revision, groupId, value: next ? { ...next } : null }];
    }, true);
  }

  async alterFeatures(levels: ReadonlyMap<string, number>, fence?: Fence): Promise<void> {
    this.checkFence(fence);
    const changed = [...levels].filter(([name, level]) => (this.features.get(name) ?? 0) !== level);
    if (changed.length === 0) return;
    this.commit((revision) => changed.map(([name, level]): MetadataEvent => {
      if (level > 0) this.features.set(name, level);
      else this.features.delete(name);
      return { kind: 'feature', revision, name, level: level > 0 ? level : null };
    }), true);
  }

  async close(): Promise<void> {
    this.watchers.clear();
  }
}

function stripSession<T extends { session: string }>(v: T): Omit<T, 'session'> {
  const { session: _session, ...rest } = v;
  void _session;
  return rest;
}
