/**
 * Fetch (key 1), versions 4-17. Kafka's KafkaApis.handleFetchRequest: authorize (a follower
 * CLUSTER_ACTION, a consumer READ per topic), resolve the topics, hand the partitions to the replica
 * manager (replication/fetch-messages.ts: reads, KIP-74 limits, epochs, follower state, throttles,
 * read_committed, views, the long poll), encode. Errors found here carry aborted_transactions []
 * (Kafka's entries built before any read); NOT_LEADER_OR_FOLLOWER names the leader from v12, its
 * endpoint from v16 (KIP-951). Fetch sessions (KIP-227) are declined: session_id 0 (an unknown one
 * FETCH_SESSION_ID_NOT_FOUND). consumer_byte_rate: above it no data, throttle_time_ms, muted.
 * Versions: v4 isolation level; v5 log_start_offset; v7 sessions; v9 current leader epoch; v12
 * flexible, last_fetched_epoch; v13+ topic ids (UNKNOWN_TOPIC_ID); v15 replica state; v16 endpoints.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { PartitionData } from '../../protocol/generated/messages/fetch-response.js';
import type { FetchPartition, FetchPartitionResult } from '../../replication/fetch-messages.js';
import { LeaderEndpoints } from '../leader-hints.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const NO_RECORDS = Buffer.alloc(0);
const empty = (errorCode: number, throttleTimeMs = 0) => ({ throttleTimeMs, errorCode, sessionId: 0, responses: [], nodeEndpoints: [] });

function encode(partitionIndex: number, r: FetchPartitionResult | { errorCode: number; abortedTransactions: [] }): PartitionData {
  const ok = 'records' in r;
  return {
    partitionIndex, errorCode: r.errorCode, divergingEpoch: ok && r.divergingEpoch ? { epoch: r.divergingEpoch.epoch, endOffset: BigInt(r.divergingEpoch.endOffset) } : null,
    highWatermark: BigInt(ok ? r.highWatermark : -1), lastStableOffset: BigInt(ok ? r.lastStableOffset : -1), logStartOffset: BigInt(ok ? r.logStartOffset : -1),
    currentLeader: null, snapshotId: null, preferredReadReplica: -1,
    abortedTransactions: r.abortedTransactions && r.abortedTransactions.map((a) => ({ producerId: BigInt(a.producerId), firstOffset: BigInt(a.firstOffset) })),
    // An errored partition has an empty record set, not null: librdkafka rejects a null one.
    records: ok ? r.records : NO_RECORDS,
  };
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  async handle(ctx, req) {
    const { broker, apiVersion: v } = ctx;
    if (req.sessionId !== 0) return empty(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    const replicaId = v >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId;
    const byId = v >= 13;
    const parts: FetchPartition[] = [];
    const slots = req.topics.map((t) => {
      const info = byId ? broker.metadataCache.topicById(t.topicId) : broker.metadataCache.topic(t.topic);
      const readable = broker.authorizer == null || (!info && byId) ||
        (replicaId >= 0 ? authorizeCluster(ctx, AclOperation.CLUSTER_ACTION) : authorize(ctx, AclOperation.READ, ResourceType.TOPIC, info ? info.name : t.topic));
      const slot = t.partitions.map((p) => {
        const errorCode = !readable ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : !info && byId ? ErrorCode.UNKNOWN_TOPIC_ID : !info || p.partition < 0 || p.partition >= info.partitions ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.NONE;
        if (errorCode !== ErrorCode.NONE || !info) return encode(p.partition, { errorCode, abortedTransactions: [] });
        return parts.push({
          topic: info, partition: p.partition, fetchOffset: Number(p.fetchOffset), partitionMaxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: v >= 12 ? p.lastFetchedEpoch : -1, logStartOffset: Number(p.logStartOffset),
        }) - 1;
      });
      return { name: info?.name ?? t.topic, topicId: info?.topicId ?? t.topicId ?? ZERO_UUID, slot };
    });
    const result = await broker.replicaManager.fetchMessages({
      replicaId, replicaEpoch: v >= 15 ? Number(req.replicaState?.replicaEpoch ?? -1n) : -1, maxBytes: Math.max(0, Math.min(req.maxBytes, broker.config.fetchMaxBytes)),
      minBytes: req.minBytes, maxWaitMs: slots.some((s) => s.slot.some((x) => typeof x !== 'number')) ? 0 : req.maxWaitMs, isolationLevel: req.isolationLevel, readBuffers: ctx.readBuffers, closed: ctx.closed,
    }, parts, req.topics.length === 0);
    if (result.throttledBytes > 0) broker.replicationQuotas.leader.record(result.throttledBytes);
    const throttled = replicaId < 0 ? broker.quotas.recordAndThrottle('consumer_byte_rate', ctx.principal, ctx.clientId, ctx.connectionId, result.bytes, false) : 0;
    if (throttled > 0) return empty(ErrorCode.NONE, throttled);
    let hints = null as LeaderEndpoints | null;
    const responses = slots.map(({ name, topicId, slot }) => ({
      topic: name, topicId,
      partitions: slot.map((s) => {
        if (typeof s !== 'number') return s;
        const data = encode(parts[s].partition, result.partitions[s]);
        if (data.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && v >= 12) data.currentLeader = (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).hint(parts[s].topic.topicId, data.partitionIndex, v >= 16);
        return data;
      }),
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses, nodeEndpoints: hints?.list() ?? [] };
  },
  errorResponse(_req, errorCode) {
    return empty(errorCode);
  },
});
