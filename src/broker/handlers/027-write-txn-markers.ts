/**
 * WriteTxnMarkers (key 27), versions 1-2 (v2: each marker carries its transaction's version,
 * KIP-890 part 2): a transaction coordinator on another broker asks this one
 * to write COMMIT/ABORT markers into partitions it leads (broker/coordinators/txn-markers.ts). Each
 * partition answers on its own: NONE once the marker is in the ISR, NOT_LEADER_OR_FOLLOWER,
 * UNKNOWN_TOPIC_OR_PARTITION, NOT_ENOUGH_REPLICAS(_AFTER_APPEND), REQUEST_TIMED_OUT or the log's
 * error. Kafka requires CLUSTER_ACTION on the cluster (CLUSTER_AUTHORIZATION_FAILED otherwise).
 */
import { defineHandler } from '../handler.js';
import { AclOperation } from '../../protocol/acl.js';
import { requireCluster } from './auth-helper.js';
import { appendMarker } from '../coordinators/txn-markers.js';

export const writeTxnMarkersHandler = defineHandler({
  apiKey: 27,
  async handle(ctx, req) {
    requireCluster(ctx, AclOperation.CLUSTER_ACTION);
    const markers = await Promise.all(req.markers.map(async (m) => ({
      producerId: m.producerId,
      topics: await Promise.all(m.topics.map(async (t) => ({
        name: t.name,
        partitions: await Promise.all(t.partitionIndexes.map(async (partitionIndex) => ({
          partitionIndex,
          errorCode: await appendMarker(ctx.broker, t.name, partitionIndex, {
            producerId: Number(m.producerId), producerEpoch: m.producerEpoch, commit: m.transactionResult, coordinatorEpoch: m.coordinatorEpoch, transactionVersion: m.transactionVersion,
          }),
        }))),
      }))),
    })));
    return { markers };
  },
  errorResponse(req, errorCode) {
    return {
      markers: req.markers.map((m) => ({
        producerId: m.producerId,
        topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode })) })),
      })),
    };
  },
});
