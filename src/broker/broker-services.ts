/**
 * What the request handlers (and the dispatcher) use of the broker: the services the composition
 * root (broker.ts) builds, named as Kafka's KafkaApis names its collaborators. Handlers see only
 * this interface, never the Broker class, so the handler room depends on the rooms below it and
 * on this file alone.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { LogManager } from '../storage/log-manager.js';
import type { BrokerConfig } from '../config.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import type { PartitionState } from '../cluster/metadata-store.js';
import type { ClusterMember } from '../cluster/cluster-member.js';
import type { ElectionResult } from '../cluster/controller.js';
import type { ClientRoles } from '../cluster/partition-retirement.js';
import type { StandardAuthorizer } from '../security/authorizer.js';
import type { ClientQuotaManager } from '../security/quotas.js';
import type { DelegationTokenManager } from '../security/delegation-token-manager.js';
import type { ReplicaManager } from '../replication/replica-manager.js';
import type { AppendWaiter } from '../replication/delayed-fetch.js';
import type { ReplicationQuotas } from '../replication/replication-quota.js';
import type { BrokerClientPool } from '../replication/broker-client.js';
import type { GroupCoordinator } from '../coordinator/group/group-coordinator.js';
import type { GroupConfigManager } from '../coordinator/group/group-configs.js';
import type { TxnCoordinator } from '../coordinator/txn/txn-coordinator.js';
import type { AddPartitionsToTxnManager } from './coordinators/add-partitions-to-txn-manager.js';
import type { ShareCoordinator } from '../coordinator/share-state/share-coordinator.js';
import type { SharePartitionManager } from '../coordinator/share/share-partition-manager.js';
import type { BrokerMetrics } from '../http/metrics/broker-metrics.js';
import type { RuntimeSettings } from './settings.js';
import type { MetadataWriter } from './metadata-writer.js';
import type { ClientMetricsManager } from './client-metrics-manager.js';

export type { AppendWaiter };

/** Spec of a topic to create (CreateTopics, auto-creation, internal topics). */
export interface CreateTopicSpec {
  name: string;
  /** -1: num.partitions. */
  numPartitions: number;
  /** -1: default.replication.factor. */
  replicationFactor: number;
  /** Manual assignment, replicas per partition (numPartitions and replicationFactor then -1). */
  assignments?: number[][];
  configs: Record<string, string | null>;
  validateOnly?: boolean;
  /** Serves a request another broker forwarded (answer NOT_CONTROLLER rather than forward again). */
  forwarded?: boolean;
}

/** What the broker does with its HTTP listener (metrics, health, console); http/server.ts makes one. */
export interface HttpService {
  readonly urls: string[];
  readonly isReady: boolean;
  /** Readiness turns 200 (after the broker joined the cluster and serves). */
  markReady(): void;
  stop(): Promise<void>;
}

/**
 * The test control offered over HTTP (`samsa start --control`, src/testing/control-http.ts): the
 * HTTP listener hands it `/control/...` requests from loopback clients.
 */
export interface HttpTestControl {
  handle(method: string, path: readonly string[], body: string): Promise<{ status: number; body: unknown }>;
}

/** One row of the ApiVersions table. */
export interface ApiVersionEntry {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

export interface BrokerServices {
  readonly config: RuntimeSettings;
  readonly rawConfig: BrokerConfig;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly nodeId: number;
  readonly metadataCache: MetadataCache;
  readonly cluster: ClusterMember;
  readonly replicaManager: ReplicaManager;
  readonly brokerClients: BrokerClientPool;
  readonly groupCoordinator: GroupCoordinator;
  readonly txnCoordinator: TxnCoordinator;
  /** Partition leaders' verifications and implicit adds at the transaction coordinators (KIP-890). */
  readonly addPartitionsToTxn: AddPartitionsToTxnManager;
  readonly shareCoordinator: ShareCoordinator;
  /** The share-partitions this broker leads (ShareFetch, ShareAcknowledge, the share offsets APIs). */
  readonly sharePartitions: SharePartitionManager;
  readonly groupConfigs: GroupConfigManager;
  readonly authorizer: StandardAuthorizer | null;
  readonly quotas: ClientQuotaManager;
  /** Delegation tokens (CreateDelegationToken … DescribeDelegationToken, KIP-48). */
  readonly delegationTokens: DelegationTokenManager;
  readonly replicationQuotas: ReplicationQuotas;
  readonly clientRoles: ClientRoles;
  /** Client telemetry instances (GetTelemetrySubscriptions, PushTelemetry; KIP-714). */
  readonly clientMetrics: ClientMetricsManager;
  /** Fenced writes to the cluster metadata, waited for in this broker's cache. */
  readonly metadataWriter: MetadataWriter;
  readonly metrics: BrokerMetrics;
  readonly flushOnAcksAll: boolean;
  /** The broker is shutting down (long polls end, new work is refused). */
  readonly stopping: boolean;
  /** This broker is registered in the cluster (it answers with itself in Metadata until then). */
  readonly registered: boolean;
  /** The request table: what ApiVersions advertises. */
  readonly dispatcher: { advertised(): ApiVersionEntry[] };
  /** This broker's address on a listener. */
  endpointFor(listenerName: string): { host: string; port: number };
  /** Another registered broker's address on a listener, or null. */
  brokerEndpoint(nodeId: number, listenerName: string): { host: string; port: number; rack: string | null } | null;
  isRegisteredBroker(nodeId: number): boolean;
  partitionState(topicId: string, partition: number): PartitionState | undefined;
  getLog(topic: string, partition: number): PartitionLog | undefined;
  /** The log dirs and the partitions in each (DescribeLogDirs, AlterReplicaLogDirs). */
  readonly logs: LogManager;
  internalTopicReplicationFactor(setting: 'offsets.topic.replication.factor' | 'transaction.state.log.replication.factor' | 'samsa.schema.registry.topic.replication.factor'): number;
  // Topic administration, through the controller.
  createTopic(spec: CreateTopicSpec): Promise<TopicRecord>;
  autoCreateTopic(name: string): Promise<TopicRecord>;
  deleteTopic(name: string, opts?: { forwarded?: boolean }): Promise<TopicRecord>;
  createPartitions(name: string, count: number, validateOnly: boolean, opts?: { assignments?: number[][] | null; forwarded?: boolean }): Promise<void>;
  electLeaders(targets: { topic: string; partitions: number[] }[] | null, unclean: boolean, forwarded: boolean): Promise<ElectionResult[]>;
  alterPartitionReassignments(topics: { name: string; partitions: { partitionIndex: number; replicas: number[] | null }[] }[], forwarded: boolean): Promise<ElectionResult[]>;
  setTopicConfigs(name: string, configs: Record<string, string>): Promise<void>;
  dynamicBrokerConfigs(key: string): Readonly<Record<string, string>>;
  setBrokerConfigs(key: string, configs: Record<string, string>): Promise<void>;
  setGroupConfigs(groupId: string, configs: Record<string, string>): Promise<void>;
  /** Finalized feature levels (UpdateFeatures); level 0 removes a feature. */
  setFeatureLevels(levels: ReadonlyMap<string, number>): Promise<void>;
  /** Watches partitions for appends (long polls: Fetch, ShareFetch). */
  appendSignal(req: { topics: { topic: string; topicId: string; partitions: { partition: number }[] }[] }, byId: boolean, follower?: boolean): AppendWaiter;
}
