/**
 * Wires the Schema Registry to a Broker: `_schemas` through the broker's topic creation, logs and
 * replica manager (written as the coordinators write their topics: by the leader of its one
 * partition, acks=all), the broker's schema.compatibility.level.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { BrokerServices } from '../broker-services.js';
import { PartitionCoordinatorLog } from '../../coordinator/runtime/coordinator-log.js';
import { SchemaRegistry } from '../../schema-registry/schema-registry.js';
import { SCHEMAS_TOPIC, type CompatibilityLevel } from '../../schema-registry/schemas-topic.js';
import { ledEpochOf } from './group-environment.js';

/** The registry of `broker`, or null when samsa.schema.registry.enable is off. */
export function schemaRegistryForBroker(broker: BrokerServices): SchemaRegistry | null {
  const config = broker.rawConfig;
  if (!config['samsa.schema.registry.enable']) return null;
  return new SchemaRegistry({
    clock: broker.clock,
    logger: broker.logger,
    compatibility: config['schema.compatibility.level'].toUpperCase() as CompatibilityLevel,
    topic: {
      exists: () => broker.metadataCache.topic(SCHEMAS_TOPIC) !== undefined,
      create: async () => {
        if (broker.metadataCache.topic(SCHEMAS_TOPIC)) return;
        try {
          await broker.createTopic({
            name: SCHEMAS_TOPIC,
            numPartitions: 1,
            replicationFactor: broker.internalTopicReplicationFactor('samsa.schema.registry.topic.replication.factor'),
            configs: { 'cleanup.policy': 'compact' },
          });
        } catch (err) {
          // Another broker's first request created it meanwhile.
          if (!(err instanceof KafkaApiError && err.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS)) throw err;
        }
      },
      log: () => {
        const log = broker.getLog(SCHEMAS_TOPIC, 0);
        if (!log) throw new KafkaApiError(ErrorCode.NOT_COORDINATOR, `${SCHEMAS_TOPIC}-0 has no log here`);
        return new PartitionCoordinatorLog(log, broker.replicaManager.leaderEpochOf(SCHEMAS_TOPIC, 0), {
          flush: broker.flushOnAcksAll,
          leader: () => broker.replicaManager.getPartition(SCHEMAS_TOPIC, 0),
          replicationTimeoutMs: 10_000,
        });
      },
      ledEpoch: () => ledEpochOf(broker, SCHEMAS_TOPIC, 0),
    },
  });
}
