/**
 * How share-state requests reach the share coordinator of their share-partition (Kafka's
 * PersisterStateManager sender): `LocalStateChannel` calls this broker's ShareCoordinator;
 * `BrokerStateChannel` does so while this broker leads the key's `__share_group_state` partition
 * (or the topic does not exist yet: this broker's coordinator creates it), and otherwise sends
 * the request to the leader over the inter-broker client at the versions Kafka 4.4 advertises
 * (83 v0, 84 v0, 85 v1, 86 v0, 87 v1). Kafka looks the leader up with FindCoordinator key type 2;
 * a broker has the same answer in its metadata cache.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { MetadataCache } from '../../cluster/metadata-cache.js';
import type { BrokerClientPool } from '../../replication/broker-client.js';
import { BrokerConnectionError } from '../../replication/broker-client.js';
import type { InitializeShareGroupStateRequest } from '../../protocol/generated/messages/initialize-share-group-state-request.js';
import type { InitializeShareGroupStateResponse } from '../../protocol/generated/messages/initialize-share-group-state-response.js';
import type { ReadShareGroupStateRequest } from '../../protocol/generated/messages/read-share-group-state-request.js';
import type { ReadShareGroupStateResponse } from '../../protocol/generated/messages/read-share-group-state-response.js';
import type { WriteShareGroupStateRequest } from '../../protocol/generated/messages/write-share-group-state-request.js';
import type { WriteShareGroupStateResponse } from '../../protocol/generated/messages/write-share-group-state-response.js';
import type { DeleteShareGroupStateRequest } from '../../protocol/generated/messages/delete-share-group-state-request.js';
import type { DeleteShareGroupStateResponse } from '../../protocol/generated/messages/delete-share-group-state-response.js';
import type { ReadShareGroupStateSummaryRequest } from '../../protocol/generated/messages/read-share-group-state-summary-request.js';
import type { ReadShareGroupStateSummaryResponse } from '../../protocol/generated/messages/read-share-group-state-summary-response.js';
import type { ShareStateKey } from '../share/persister.js';
import { partitionForShareKey, SHARE_GROUP_STATE_TOPIC, type ShareCoordinator } from './share-coordinator.js';
import { coordinatorKey } from './share-shard.js';

/** What the broker's state channel needs of it (the broker provides it). */
export interface StateChannelEnv {
  readonly nodeId: number;
  readonly shareCoordinator: ShareCoordinator;
  readonly cluster: { readonly metadataCache: MetadataCache };
  readonly brokerClients: BrokerClientPool;
}

export interface ShareStateChannel {
  initializeState(key: ShareStateKey, req: InitializeShareGroupStateRequest): Promise<InitializeShareGroupStateResponse>;
  readState(key: ShareStateKey, req: ReadShareGroupStateRequest): Promise<ReadShareGroupStateResponse>;
  writeState(key: ShareStateKey, req: WriteShareGroupStateRequest): Promise<WriteShareGroupStateResponse>;
  deleteState(key: ShareStateKey, req: DeleteShareGroupStateRequest): Promise<DeleteShareGroupStateResponse>;
  readStateSummary(key: ShareStateKey, req: ReadShareGroupStateSummaryRequest): Promise<ReadShareGroupStateSummaryResponse>;
}

/** Every request to this process's coordinator (unit tests; the local half of the broker's). */
export class LocalStateChannel implements ShareStateChannel {
  constructor(private readonly coordinator: () => ShareCoordinator) {}
  initializeState(_k: ShareStateKey, req: InitializeShareGroupStateRequest) { return this.coordinator().initializeState(req); }
  readState(_k: ShareStateKey, req: ReadShareGroupStateRequest) { return this.coordinator().readState(req); }
  writeState(_k: ShareStateKey, req: WriteShareGroupStateRequest) { return this.coordinator().writeState(req); }
  deleteState(_k: ShareStateKey, req: DeleteShareGroupStateRequest) { return this.coordinator().deleteState(req); }
  readStateSummary(_k: ShareStateKey, req: ReadShareGroupStateSummaryRequest) { return this.coordinator().readStateSummary(req); }
}

/** How long a share-state request may wait for the remote coordinator (its ISR write included). */
const REQUEST_TIMEOUT_MS = 30_000;

export class BrokerStateChannel implements ShareStateChannel {
  private readonly local: LocalStateChannel;

  constructor(private readonly broker: StateChannelEnv) {
    this.local = new LocalStateChannel(() => broker.shareCoordinator);
  }

  /** The leader of the key's state partition when it is another broker, else null (serve here). */
  private remoteLeader(key: ShareStateKey): number | null {
    const cache = this.broker.cluster.metadataCache;
    const topic = cache.topic(SHARE_GROUP_STATE_TOPIC);
    if (!topic) return null;
    const p = partitionForShareKey(coordinatorKey(key.groupId, key.topicId, key.partition), topic.partitions);
    const leader = cache.partition(topic.topicId, p)?.leader ?? -1;
    if (leader === this.broker.nodeId) return null;
    if (leader < 0) throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    return leader;
  }

  private async remote(leader: number, apiKey: 83 | 84 | 85 | 86 | 87, version: number, req: unknown): Promise<unknown> {
    const client = this.broker.brokerClients.get(leader, 'share-state');
    if (!client) throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    try {
      return await client.send(apiKey, version, req as never, REQUEST_TIMEOUT_MS);
    } catch (e) {
      if (e instanceof BrokerConnectionError) throw new KafkaApiError(ErrorCode.NETWORK_EXCEPTION, e.message);
      throw e;
    }
  }

  async initializeState(key: ShareStateKey, req: InitializeShareGroupStateRequest): Promise<InitializeShareGroupStateResponse> {
    const leader = this.remoteLeader(key);
    return leader === null ? this.local.initializeState(key, req) : this.remote(leader, 83, 0, req) as Promise<InitializeShareGroupStateResponse>;
  }

  async readState(key: ShareStateKey, req: ReadShareGroupStateRequest): Promise<ReadShareGroupStateResponse> {
    const leader = this.remoteLeader(key);
    return leader === null ? this.local.readState(key, req) : this.remote(leader, 84, 0, req) as Promise<ReadShareGroupStateResponse>;
  }

  async writeState(key: ShareStateKey, req: WriteShareGroupStateRequest): Promise<WriteShareGroupStateResponse> {
    const leader = this.remoteLeader(key);
    return leader === null ? this.local.writeState(key, req) : this.remote(leader, 85, 1, req) as Promise<WriteShareGroupStateResponse>;
  }

  async deleteState(key: ShareStateKey, req: DeleteShareGroupStateRequest): Promise<DeleteShareGroupStateResponse> {
    const leader = this.remoteLeader(key);
    return leader === null ? this.local.deleteState(key, req) : this.remote(leader, 86, 0, req) as Promise<DeleteShareGroupStateResponse>;
  }

  async readStateSummary(key: ShareStateKey, req: ReadShareGroupStateSummaryRequest): Promise<ReadShareGroupStateSummaryResponse> {
    const leader = this.remoteLeader(key);
    return leader === null ? this.local.readStateSummary(key, req) : this.remote(leader, 87, 1, req) as Promise<ReadShareGroupStateSummaryResponse>;
  }
}
