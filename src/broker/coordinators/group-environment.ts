/**
 * Wires the group coordinator to a Broker: `__consumer_offsets` through the broker's topic
 * creation, logs and replica manager, the broker's topics as the consumer groups see them, and
 * the per-group configs.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { BrokerServices } from '../broker-services.js';
import { PartitionCoordinatorLog } from '../../coordinator/runtime/coordinator-log.js';
import { GroupCoordinator, OFFSETS_TOPIC, type OffsetsTopic } from '../../coordinator/group/group-coordinator.js';
import { groupConfigFrom, type GroupConfig } from '../../coordinator/group/group-config.js';
import type { TopicView } from '../../coordinator/group/topic-view.js';

export function groupCoordinatorForBroker(broker: BrokerServices): GroupCoordinator {
  const config = groupConfigFrom(broker.rawConfig);
  return new GroupCoordinator({
    clock: broker.clock, logger: broker.logger, config, topic: brokerOffsetsTopic(broker, config), topics: brokerTopicView(broker), groupConfigs: broker.groupConfigs,
  });
}

function brokerOffsetsTopic(broker: BrokerServices, config: GroupConfig): OffsetsTopic {
  return {
    partitions: () => broker.metadataCache.topic(OFFSETS_TOPIC)?.partitions ?? null,
    create: async (numPartitions) => {
      if (broker.metadataCache.topic(OFFSETS_TOPIC)) return;
      await broker.createTopic({
        name: OFFSETS_TOPIC,
        numPartitions,
        // offsets.topic.replication.factor, capped at the live broker count (Kafka refuses instead).
        replicationFactor: broker.internalTopicReplicationFactor('offsets.topic.replication.factor'),
        configs: { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': String(config.segmentBytes) },
      });
    },
    log: (partition) => {
      const log = broker.getLog(OFFSETS_TOPIC, partition);
      if (!log) throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `${OFFSETS_TOPIC}-${partition} has no log`);
      return new PartitionCoordinatorLog(log, broker.replicaManager.leaderEpochOf(OFFSETS_TOPIC, partition), {
        flush: broker.flushOnAcksAll,
        leader: () => broker.replicaManager.getPartition(OFFSETS_TOPIC, partition),
        replicationTimeoutMs: config.commitTimeoutMs,
      });
    },
    ledEpoch: (partition) => ledEpochOf(broker, OFFSETS_TOPIC, partition),
    awaitingLeadership: (partition) => awaitsLeadership(broker, OFFSETS_TOPIC, partition),
  };
}

/** The leader epoch `broker` leads an internal partition at, or null when it does not lead it. */
export function ledEpochOf(broker: BrokerServices, topic: string, partition: number): number | null {
  const p = broker.replicaManager.getPartition(topic, partition);
  return p?.isLeader ? p.leaderEpoch : null;
}

/**
 * Whether this broker's metadata names it the leader of an internal partition it does not lead
 * yet, or does not know the partition (the etcd watch has not brought it): its coordinator then
 * answers COORDINATOR_LOAD_IN_PROGRESS rather than NOT_COORDINATOR (coordinator-leadership.ts).
 */
export function awaitsLeadership(broker: BrokerServices, topic: string, partition: number): boolean {
  // A broker that is stopping or has lost its registration (cut off from etcd) is not about to
  // lead anything: its clients must find the coordinator elsewhere.
  if (broker.stopping || !broker.registered) return false;
  const t = broker.metadataCache.topic(topic);
  const state = t && partition < t.partitions ? broker.partitionState(t.topicId, partition) : undefined;
  return state === undefined || state.leader === broker.nodeId;
}

/** The consumer groups' view of the broker's topics (internal ones included, regexes skip them). */
function brokerTopicView(broker: BrokerServices): TopicView {
  const describe = (t: { name: string; topicId: string; partitions: number } | undefined) => t && { name: t.name, topicId: t.topicId, partitions: t.partitions };
  return {
    byName: (name) => describe(broker.metadataCache.topic(name)),
    byId: (id) => describe(broker.metadataCache.topicById(id)),
    names: () => broker.metadataCache.topics.keys(),
    partitionRacks: (topicId) => {
      const racks: string[][] = [];
      for (const p of broker.metadataCache.partitionsOf(topicId)) {
        racks[p.partition] = [...new Set(p.replicas.map((id) => broker.metadataCache.brokers.get(id)?.rack).filter((r): r is string => typeof r === 'string'))].sort();
      }
      return racks;
    },
  };
}
