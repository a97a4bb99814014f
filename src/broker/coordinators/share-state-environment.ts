/**
 * Wires the share coordinator to a Broker: `__share_group_state` through the broker's topic
 * creation and logs (Kafka's configs: cleanup.policy=delete, retention.ms=-1, compression.type
 * producer, segment.bytes and min.insync.replicas from share.coordinator.state.topic.*, the
 * replication factor capped at the live brokers), data-topic partition counts from the metadata
 * cache, and the persister share-partition leaders use (`broker.sharePersister`).
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { BrokerServices } from '../broker-services.js';
import { PartitionCoordinatorLog } from '../../coordinator/runtime/coordinator-log.js';
import { ledEpochOf } from './group-environment.js';
import { SHARE_GROUP_STATE_TOPIC, ShareCoordinator, type ShareStateTopic } from '../../coordinator/share-state/share-coordinator.js';
import { CoordinatorPersister } from '../../coordinator/share-state/coordinator-persister.js';
import { BrokerStateChannel } from '../../coordinator/share-state/state-channel.js';

export function shareCoordinatorForBroker(broker: BrokerServices): ShareCoordinator {
  // Kafka's settings, with the defaults of the settings table (config/).
  const c = broker.rawConfig;
  const writeTimeoutMs = c['share.coordinator.write.timeout.ms'];
  const topic: ShareStateTopic = {
    partitions: () => broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC)?.partitions ?? null,
    create: async (numPartitions) => {
      if (broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC)) return;
      const replicationFactor = Math.max(1, Math.min(c['share.coordinator.state.topic.replication.factor'], broker.metadataCache.brokers.size));
      await broker.createTopic({
        name: SHARE_GROUP_STATE_TOPIC,
        numPartitions,
        replicationFactor,
        // ShareCoordinatorService.shareGroupStateTopicConfigs (Kafka 4.4).
        configs: {
          'cleanup.policy': 'delete',
          'retention.ms': '-1',
          'compression.type': 'producer',
          'segment.bytes': String(c['share.coordinator.state.topic.segment.bytes']),
          'min.insync.replicas': String(Math.min(c['share.coordinator.state.topic.min.isr'], replicationFactor)),
        },
      });
    },
    log: (partition) => {
      const log = broker.getLog(SHARE_GROUP_STATE_TOPIC, partition);
      if (!log) throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `${SHARE_GROUP_STATE_TOPIC}-${partition} has no log`);
      return new PartitionCoordinatorLog(log, broker.replicaManager.leaderEpochOf(SHARE_GROUP_STATE_TOPIC, partition), {
        flush: broker.flushOnAcksAll,
        leader: () => broker.replicaManager.getPartition(SHARE_GROUP_STATE_TOPIC, partition),
        replicationTimeoutMs: writeTimeoutMs,
      });
    },
    ledEpoch: (partition) => ledEpochOf(broker, SHARE_GROUP_STATE_TOPIC, partition),
    // Pruning: DeleteRecords on the leader's log, up to its high watermark; followers follow its log start.
    deleteRecordsBefore: async (partition, offset) => {
      const p = broker.replicaManager.getPartition(SHARE_GROUP_STATE_TOPIC, partition);
      if (!p?.isLeader) return;
      await p.log.deleteRecordsBefore(Math.min(offset, p.log.highWatermark));
    },
  };
  return new ShareCoordinator({
    clock: broker.clock,
    logger: broker.logger,
    topic,
    numPartitions: c['share.coordinator.state.topic.num.partitions'],
    snapshotUpdateRecordsPerSnapshot: c['share.coordinator.snapshot.update.records.per.snapshot'],
    coldPartitionSnapshotIntervalMs: c['share.coordinator.cold.partition.snapshot.interval.ms'],
    pruneIntervalMs: c['share.coordinator.state.topic.prune.interval.ms'],
    topics: (topicId) => broker.metadataCache.topicById(topicId)?.partitions ?? null,
  });
}

/** The persister of `broker`: its own coordinator, or the leader of the key's state partition. */
export function sharePersisterForBroker(broker: BrokerServices): CoordinatorPersister {
  return new CoordinatorPersister(new BrokerStateChannel(broker), requestTimeoutMs(broker), (key) => broker.metadataCache.partition(key.topicId, key.partition)?.leaderEpoch ?? null);
}

function requestTimeoutMs(broker: BrokerServices): number {
  const v = Number((broker.rawConfig as Record<string, unknown>)['request.timeout.ms']);
  return Number.isFinite(v) ? v : 30_000;
}
