/**
 * The cluster's metadata store: what Kafka keeps in its KRaft metadata log, as an async interface
 * with two implementations.
 *
 * - `LocalMetadataStore` (local-metadata-store.ts): one node, in memory, optionally persisted in one JSON file
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
 * SCRAM credentials [UserScramCredentialRecord] and delegation tokens [DelegationTokenRecord], both
 * read on demand rather than watched;
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
import type { ScramCredentialChange, ScramCredentialRecord, ScramMechanismName } from './scram-credentials.js';
import type { DelegationTokenRecord, StoredDelegationToken } from './delegation-tokens.js';
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
  /**
   * The min.insync.replicas the ELR fields were computed under (Samsa's own field, absent when
   * they are): a controller finding another effective value clears them, so a change made while
   * no controller watched is not missed (Kafka's ClearElrRecord comes with the config record).
   */
  elrMinIsr?: number;
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
  /**
   * The epoch of the node's last registration, kept after it ended (Kafka's controller keeps a
   * fenced broker's registration); -1 when it never registered here (or registered before this
   * was recorded). KIP-966: a clean-shutdown marker naming another epoch is an unclean shutdown.
   */
  lastBrokerEpoch(nodeId: number): Promise<number>;
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
  /** A delegation token by id (SCRAM tokenauth logins), or null. */
  readDelegationToken(tokenId: string): Promise<StoredDelegationToken | null>;
  /** Every stored delegation token, expired ones included until removed. */
  listDelegationTokens(): Promise<StoredDelegationToken[]>;
  /**
   * Creates, replaces or (with null) removes a delegation token if its stored version is still
   * `expectedVersion` (0: the token must not exist); false when it is not (nothing written).
   */
  writeDelegationToken(tokenId: string, next: DelegationTokenRecord | null, expectedVersion: number, fence?: Fence): Promise<boolean>;

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
