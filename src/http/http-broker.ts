/**
 * What the HTTP room (metrics page, health, console, share-group and lag pages) uses of the broker:
 * an interface the room owns, as Kafka's pages get their collaborators, never the `Broker` class.
 * The composition root's Broker satisfies it structurally (`startBrokerHttp` is handed it).
 */
import type { BrokerServices } from '../broker/broker-services.js';
import type { LogManager } from '../storage/log-manager.js';
import type { CoordinatorPersister } from '../coordinator/share-state/coordinator-persister.js';
import type { TieredStorage } from '../remote/tiered-storage.js';
import type { BoundListener } from '../network/server.js';
import type { RequestProcessor } from '../network/request-processor.js';
import type { HttpService, HttpTestControl } from '../broker/broker-services.js';
import type { SchemaRegistry } from '../schema-registry/schema-registry.js';

export interface HttpBroker extends Pick<BrokerServices,
  | 'config' | 'rawConfig' | 'logger' | 'nodeId' | 'metadataCache' | 'cluster' | 'replicaManager' | 'authorizer'
  | 'groupCoordinator' | 'sharePartitions' | 'metrics' | 'stopping' | 'registered'
  | 'getLog' | 'createTopic' | 'deleteTopic' | 'setTopicConfigs'
> {
  /** Every partition log of this broker (the metrics page's per-log gauges). */
  readonly logs: Pick<LogManager, 'allLogs'>;
  /** Share-group state reads (the share-group page's start offsets). */
  readonly sharePersister: Pick<CoordinatorPersister, 'read'>;
  /** Tiered storage, when remote.log.storage.system.enable is on. */
  readonly tiered?: TieredStorage;
  /** The Schema Registry served at /subjects, /schemas, ... (null when samsa.schema.registry.enable is off). */
  readonly schemaRegistry: SchemaRegistry | null;
  /** The test control over HTTP (`samsa start --control`), served to loopback clients at /control; null when off. */
  readonly testControl: HttpTestControl | null;
  /** This broker's own HTTP service (its readiness). */
  readonly http: HttpService | null;
  /** The request path, for the console's in-process Produce (as a client would send it). */
  readonly dispatcher: RequestProcessor;
  /** The bound Kafka listeners (the metrics page's listener labels). */
  readonly listeners: readonly BoundListener[];
}
