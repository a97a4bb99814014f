/**
 * Transaction markers on a cluster (Kafka's TransactionMarkerChannelManager and the
 * WriteTxnMarkers path of ReplicaManager).
 *
 * The coordinator writes a transaction's COMMIT or ABORT marker into every partition of the
 * transaction at once. A partition this broker leads gets it straight from `appendMarker`; the
 * partitions led elsewhere get it through one WriteTxnMarkers (v2, carrying the transaction version) per leader, which runs the
 * same `appendMarker` for each, in parallel. Like Kafka's, a marker append waits for the ISR (acks=-1) before it counts, so
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
import type { BrokerServices } from '../broker-services.js';
import { BrokerConnectionError } from '../../replication/broker-client.js';
import { buildMarkerBatch, type TxnMarker } from '../../coordinator/txn/txn-coordinator.js';
import { OFFSETS_TOPIC } from '../../coordinator/group/group-coordinator.js';

/** How long a marker waits for the ISR (Kafka: the coordinator's request timeout). */
const MARKER_REPLICATION_TIMEOUT_MS = 30_000;

/** Appends `m` to a partition this broker leads and waits for its ISR; returns the error code. */
export async function appendMarker(broker: BrokerServices, topic: string, partition: number, m: TxnMarker): Promise<number> {
  const p = broker.replicaManager.getPartition(topic, partition);
  if (!p) return partition < (broker.metadataCache.topic(topic)?.partitions ?? 0) ? ErrorCode.NOT_LEADER_OR_FOLLOWER : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  if (!p.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  if (p.isr.length < p.minInsyncReplicas) return ErrorCode.NOT_ENOUGH_REPLICAS;
  try {
    const batch = buildMarkerBatch(m.producerId, m.producerEpoch, m.commit, m.coordinatorEpoch, broker.clock.now());
    const result = await p.log.appendAsLeader(batch, p.leaderEpoch, { origin: 'coordinator', markerTransactionVersion: m.transactionVersion ?? 0 });
    const code = p.log.highWatermark > result.lastOffset ? ErrorCode.NONE : await p.waitForReplication(result.lastOffset + 1, MARKER_REPLICATION_TIMEOUT_MS);
    // In __consumer_offsets the marker completes the producer's transactional offsets there.
    if (code === ErrorCode.NONE && topic === OFFSETS_TOPIC) await broker.groupCoordinator.onTransactionMarker(partition, m.producerId, m.commit);
    return code;
  } catch (err) {
    if (err instanceof KafkaApiError) return err.errorCode;
    broker.logger.error(`transaction marker to ${topic}-${partition} failed`, err);
    return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

/** One partition a marker goes to. */
export interface MarkerTarget {
  topic: string;
  partition: number;
}

/**
 * Writes `m` into every partition of `targets` wherever each is led, all at once (Kafka's
 * TransactionMarkerChannelManager): the partitions this broker leads are appended here in
 * parallel, and each other leader gets one WriteTxnMarkers request with all of its partitions,
 * every leader at the same time. Each target's answer, in `targets`' order: an error code (NONE
 * once written and in the ISR) or 'gone' when the partition no longer exists (nothing to mark, as
 * Kafka skips it).
 */
export async function writeMarkers(broker: BrokerServices, targets: readonly MarkerTarget[], m: TxnMarker): Promise<(number | 'gone')[]> {
  const out = new Array<number | 'gone'>(targets.length);
  const local: Promise<void>[] = [];
  const remote = new Map<number, number[]>(); // leader id -> indexes into targets
  targets.forEach(({ topic, partition }, i) => {
    if (broker.replicaManager.getPartition(topic, partition)?.isLeader) {
      local.push(appendMarker(broker, topic, partition, m).then((code) => { out[i] = code; }));
      return;
    }
    const t = broker.cluster.metadataCache.topic(topic);
    const state = t ? broker.cluster.metadataCache.partition(t.topicId, partition) : undefined;
    if (!state) out[i] = 'gone';
    else if (state.leader < 0 || state.leader === broker.nodeId) out[i] = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    else {
      let list = remote.get(state.leader);
      if (!list) remote.set(state.leader, (list = []));
      list.push(i);
    }
  });
  const sends = [...remote].map(async ([leader, indexes]) => {
    const codes = await sendMarkers(broker, leader, indexes.map((i) => targets[i]), m);
    indexes.forEach((i, j) => { out[i] = codes[j]; });
  });
  await Promise.all([...local, ...sends]);
  return out;
}

/** One WriteTxnMarkers (v2 for a V2 transaction, else v1) to `leader` for `targets`; each target's code, in order. */
async function sendMarkers(broker: BrokerServices, leader: number, targets: readonly MarkerTarget[], m: TxnMarker): Promise<number[]> {
  const client = broker.brokerClients.get(leader, 'txn-markers');
  if (!client) return targets.map(() => ErrorCode.NOT_LEADER_OR_FOLLOWER);
  const byTopic = new Map<string, number[]>();
  for (const t of targets) {
    let list = byTopic.get(t.topic);
    if (!list) byTopic.set(t.topic, (list = []));
    list.push(t.partition);
  }
  try {
    // v2 only for a V2 transaction (all brokers run V2 once transaction.version 2 is finalized),
    // v1 otherwise, so a broker of an older Samsa still takes the markers of V1 transactions.
    const r = await client.send(27, (m.transactionVersion ?? 0) >= 2 ? 2 : 1, {
      markers: [{
        producerId: BigInt(m.producerId), producerEpoch: m.producerEpoch, transactionResult: m.commit,
        coordinatorEpoch: m.coordinatorEpoch, transactionVersion: m.transactionVersion ?? 0, topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      }],
    }, MARKER_REPLICATION_TIMEOUT_MS + 5000);
    const codes = new Map<string, number>();
    for (const t of r.markers[0]?.topics ?? []) for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partitionIndex}`, p.errorCode);
    return targets.map((t) => codes.get(`${t.topic}\u0000${t.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR);
  } catch (err) {
    if (err instanceof BrokerConnectionError) return targets.map(() => ErrorCode.NETWORK_EXCEPTION);
    throw err;
  }
}
