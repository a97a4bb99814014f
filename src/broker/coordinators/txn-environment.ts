/**
 * Wires the transaction coordinator to a Broker: `__transaction_state` through the broker's topic
 * creation and logs, data partitions for markers, the producer-id block file in the log dir, and
 * the Kafka-named settings.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { BrokerServices } from '../broker-services.js';
import type { Fs } from '../../storage/fs.js';
import { PartitionCoordinatorLog } from '../../coordinator/runtime/coordinator-log.js';
import { awaitsLeadership, ledEpochOf } from './group-environment.js';
import { writeMarkers } from './txn-markers.js';
import { ProducerIdManager } from '../../coordinator/txn/producer-id-manager.js';
import { partitionForTxnId, TRANSACTION_STATE_TOPIC, TxnCoordinator, type TxnEnvironment } from '../../coordinator/txn/txn-coordinator.js';
import { AddPartitionsToTxnManager } from './add-partitions-to-txn-manager.js';

/** Kafka's request.timeout.ms default: how long transaction-log appends wait for the ISR. */
const REQUEST_TIMEOUT_MS = 30_000;

export function txnCoordinatorForBroker(broker: BrokerServices, fs: Fs, logDir: string): TxnCoordinator {
  // Kafka's settings, with the defaults of the settings table (config/).
  const c = broker.rawConfig;
  const segmentBytes = c['transaction.state.log.segment.bytes'];
  const env: TxnEnvironment = {
    stateTopicPartitions: () => broker.metadataCache.topic(TRANSACTION_STATE_TOPIC)?.partitions ?? null,
    createStateTopic: async (numPartitions) => {
      if (broker.metadataCache.topic(TRANSACTION_STATE_TOPIC)) return;
      await broker.createTopic({
        name: TRANSACTION_STATE_TOPIC,
        numPartitions,
        replicationFactor: broker.internalTopicReplicationFactor('transaction.state.log.replication.factor'),
        configs: { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': String(segmentBytes) },
      });
    },
    stateLog: (partition) => {
      const log = broker.getLog(TRANSACTION_STATE_TOPIC, partition);
      if (!log) throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `${TRANSACTION_STATE_TOPIC}-${partition} has no log`);
      // Transaction state must survive a crash once acknowledged: always fsync.
      return new PartitionCoordinatorLog(log, broker.replicaManager.leaderEpochOf(TRANSACTION_STATE_TOPIC, partition), {
        flush: true,
        leader: () => broker.replicaManager.getPartition(TRANSACTION_STATE_TOPIC, partition),
        replicationTimeoutMs: REQUEST_TIMEOUT_MS,
      });
    },
    stateLedEpoch: (partition) => ledEpochOf(broker, TRANSACTION_STATE_TOPIC, partition),
    stateAwaitingLeadership: (partition) => awaitsLeadership(broker, TRANSACTION_STATE_TOPIC, partition),
    // Markers go to each partition's leader: appended here, or one WriteTxnMarkers per leader.
    writeMarkers: (partitions, marker) => writeMarkers(broker, partitions, marker),
    offsetsPartitionFor: async (groupId) => {
      await broker.groupCoordinator.ensureActive();
      return broker.groupCoordinator.partitionFor(groupId);
    },
  };
  return new TxnCoordinator({
    clock: broker.clock,
    logger: broker.logger,
    producerIds: new ProducerIdManager(fs, logDir, broker.nodeId, broker.cluster.store.kind === 'etcd'
      ? () => broker.cluster.store.allocateProducerIds(broker.nodeId, broker.cluster.lifecycle.fence)
      : undefined),
    env,
    numPartitions: c['transaction.state.log.num.partitions'],
    settings: {
      transactionMaxTimeoutMs: c['transaction.max.timeout.ms'],
      transactionalIdExpirationMs: c['transactional.id.expiration.ms'],
      abortTimedOutIntervalMs: c['transaction.abort.timed.out.transaction.cleanup.interval.ms'],
      removeExpiredIntervalMs: c['transaction.remove.expired.transaction.cleanup.interval.ms'],
    },
  });
}

/**
 * The partition leaders' questions to transaction coordinators (add-partitions-to-txn-manager.ts):
 * the coordinator of an id is the leader of its __transaction_state partition in this broker's
 * metadata; other brokers are reached on the inter-broker listener.
 */
export function addPartitionsToTxnManagerForBroker(broker: BrokerServices): AddPartitionsToTxnManager {
  return new AddPartitionsToTxnManager({
    nodeId: broker.nodeId,
    clock: broker.clock,
    logger: broker.logger,
    coordinator: broker.txnCoordinator,
    coordinatorOf: (transactionalId) => {
      const t = broker.metadataCache.topic(TRANSACTION_STATE_TOPIC);
      if (!t) return null;
      const leader = broker.partitionState(t.topicId, partitionForTxnId(transactionalId, t.partitions))?.leader ?? -1;
      return leader >= 0 && (leader === broker.nodeId || broker.isRegisteredBroker(leader)) ? leader : null;
    },
    client: (nodeId) => broker.brokerClients.get(nodeId, 'txn-add-partitions'),
  });
}
