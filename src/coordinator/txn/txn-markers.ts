/**
 * Transaction markers on a cluster (Kafka's TransactionMarkerChannelManager and the
 * WriteTxnMarkers path of ReplicaManager).
 *
 * The coordinator writes a transaction's COMMIT or ABORT marker into every partition of the
 * transaction. A partition this broker leads gets it straight from `appendMarker`; one led
 * elsewhere gets it through WriteTxnMarkers (v1) sent to its leader, which runs the same
 * `appendMarker`. Like Kafka's, a marker append waits for the ISR (acks=-1) before it counts, so
 * a transaction is completed only once its markers survive the loss of a leader. A marker in a
 * `__consumer_offsets` partition then completes the producer's pending transactional offsets in
 * the group coordinator's shard there.
 *
 * Answers per partition, as Kafka's: NOT_LEADER_OR_FOLLOWER when the broker does not lead it,
 * UNKNOWN_TOPIC_OR_PARTITION when it does not exist, NOT_ENOUGH_REPLICAS(_AFTER_APPEND) /
 * REQUEST_TIMED_OUT from the replication wait, and the log's own errors (INVALID_PRODUCER_EPOCH
 * for a marker older than the producer's epoch there).
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { Broker } from '../../broker/broker.js';
import { BrokerConnectionError } from '../../replication/broker-client.js';
import { buildMarkerBatch, type TxnMarker } from './txn-coordinator.js';
import { OFFSETS_TOPIC } from '../group/group-coordinator.js';

/** How long a marker waits for the ISR (Kafka: the coordinator's request timeout). */
const MARKER_REPLICATION_TIMEOUT_MS = 30_000;

/** Appends `m` to a partition this broker leads and waits for its ISR; returns the error code. */
export async function appendMarker(broker: Broker, topic: string, partition: number, m: TxnMarker): Promise<number> {
  const p = broker.replicaManager.getPartition(topic, partition);
  if (!p) return partition < (broker.metadata.get(topic)?.partitions ?? 0) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  if (!p.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  if (p.isr.length < p.minInsyncReplicas) return ErrorCode.NOT_ENOUGH_REPLICAS;
  try {
    const batch = buildMarkerBatch(m.producerId, m.producerEpoch, m.commit, m.coordinatorEpoch, broker.clock.now());
    const result = await p.log.appendAsLeader(batch, p.leaderEpoch, { origin: 'coordinator' });
    const code = p.log.highWatermark > result.lastOffset ? ErrorCode.NONE : await p.waitForReplication(result.lastOffset + 1, MARKER_REPLICATION_TIMEOUT_MS);
    // In __consumer_offsets the marker completes the producer's transactional offsets there.
    if (code === ErrorCode.NONE && topic === OFFSETS_TOPIC) await broker.groupCoordinator.onTransactionMarker(partition, m.producerId, m.commit);
    return code;
  } catch (err) {
    if (err instanceof KafkaApiError) return err.errorCode;
    broker.log.error(`transaction marker to ${topic}-${partition} failed`, err);
    return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

/**
 * Writes `m` into `topic-partition` wherever it is led: here, or through WriteTxnMarkers to its
 * leader. 'gone' when the partition no longer exists (nothing to mark, as Kafka skips it).
 */
export async function writeMarker(broker: Broker, topic: string, partition: number, m: TxnMarker): Promise<number | 'gone'> {
  const local = broker.replicaManager.getPartition(topic, partition);
  if (local?.isLeader) return appendMarker(broker, topic, partition, m);
  const t = broker.cluster.cache.topic(topic);
  const state = t ? broker.cluster.cache.partition(t.topicId, partition) : undefined;
  if (!state) return 'gone';
  if (state.leader < 0 || state.leader === broker.nodeId) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  const client = broker.brokerClients.get(state.leader, 'txn-markers');
  if (!client) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  try {
    const r = await client.send(27, 1, {
      markers: [{
        producerId: BigInt(m.producerId), producerEpoch: m.producerEpoch, transactionResult: m.commit,
        coordinatorEpoch: m.coordinatorEpoch, topics: [{ name: topic, partitionIndexes: [partition] }],
      }],
    }, MARKER_REPLICATION_TIMEOUT_MS + 5000);
    const code = r.markers[0]?.topics[0]?.partitions[0]?.errorCode;
    return code ?? ErrorCode.UNKNOWN_SERVER_ERROR;
  } catch (err) {
    if (err instanceof BrokerConnectionError) return ErrorCode.NETWORK_EXCEPTION;
    throw err;
  }
}
