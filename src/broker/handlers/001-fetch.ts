/**
 * Fetch (key 1), versions 4-17: authorize, resolve the topics, hand the partitions to the
 * replica manager's data path (replication/fetch-messages.ts: reads, KIP-74 limits, leader epochs,
 * diverging epochs, follower fetch state, throttles, read_committed, views, the long poll), and
 * encode its answer. Kafka's KafkaApis.handleFetchRequest.
 *
 * - Unknown topic, topic id or partition: their error with aborted_transactions [] (Kafka's
 *   error entries built before any read); errors from the read itself carry null there.
 * - A partition this broker does not lead: NOT_LEADER_OR_FOLLOWER, from v12 with current_leader
 *   and from v16 the leader's endpoint in node_endpoints (KIP-951).
 * - Fetch sessions (KIP-227) are declined: every response has session_id 0, so clients send full
 *   fetches; an incremental fetch naming an unknown session gets FETCH_SESSION_ID_NOT_FOUND.
 * - ACLs: a follower's fetch needs CLUSTER_ACTION on the cluster, a consumer's READ on each topic,
 *   else TOPIC_AUTHORIZATION_FAILED for its partitions.
 * - consumer_byte_rate (security/quotas.ts): above the quota a consumer's fetch is answered
 *   without data and with throttle_time_ms, and the connection is muted that long.
 * Version notes: v4 isolation level and LSO; v5 log_start_offset; v7 sessions; v9 current leader
 * epoch; v11 rack id / preferred read replica; v12 flexible, last_fetched_epoch; v13+ topics by id
 * (UNKNOWN_TOPIC_ID for an unknown one); v15 replica state; v16+ node_endpoints.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { FetchResponse, PartitionData } from '../../protocol/generated/messages/fetch-response.js';
import type { RequestContext } from '../request-context.js';
import type { FetchPartition, FetchPartitionResult } from '../../replication/fetch-messages.js';
import { currentLeaderOf, LeaderEndpoints } from '../leader-hints.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const NO_RECORDS = Buffer.alloc(0);

function errorPartition(partitionIndex: number, errorCode: number, abortedTransactions: [] | null = null): PartitionData {
  return {
    partitionIndex, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n,
    divergingEpoch: null, currentLeader: null, snapshotId: null, abortedTransactions, preferredReadReplica: -1,
    // Kafka answers an errored partition with an empty record set, not null: librdkafka rejects a
    // null (-1) MessageSetSize as a parse failure and never sees the error code.
    records: NO_RECORDS,
  };
}

function encodePartition(partitionIndex: number, r: FetchPartitionResult): PartitionData {
  return {
    partitionIndex, errorCode: r.errorCode,
    highWatermark: BigInt(r.highWatermark), lastStableOffset: BigInt(r.lastStableOffset), logStartOffset: BigInt(r.logStartOffset),
    divergingEpoch: r.divergingEpoch && { epoch: r.divergingEpoch.epoch, endOffset: BigInt(r.divergingEpoch.endOffset) },
    currentLeader: null, snapshotId: null, preferredReadReplica: -1,
    abortedTransactions: r.abortedTransactions && r.abortedTransactions.map((a) => ({ producerId: BigInt(a.producerId), firstOffset: BigInt(a.firstOffset) })),
    records: r.records,
  };
}

/** Above consumer_byte_rate: no data, throttle_time_ms, and the connection muted that long. */
function withinQuota(ctx: RequestContext, follower: boolean, response: FetchResponse, bytes: number): FetchResponse {
  const quotas = ctx.broker.quotas;
  if (!quotas?.active || follower) return response;
  const ms = quotas.record('consumer_byte_rate', ctx.principal, ctx.clientId, bytes, false);
  if (ms === 0) return response;
  quotas.throttle(ctx.connectionId, ms);
  return { throttleTimeMs: ms, errorCode: ErrorCode.NONE, sessionId: 0, responses: [], nodeEndpoints: [] };
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const v = ctx.apiVersion;
    if (req.sessionId !== 0) return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [], nodeEndpoints: [] };
    // Follower fetches name their broker (replica_id before v15, ReplicaState from v15; KIP-903 epoch).
    const replicaId = v >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId;
    const follower = replicaId >= 0;
    const byId = v >= 13;
    const parts: FetchPartition[] = [];
    const slots: (PartitionData | number)[][] = req.topics.map((t) => {
      const info = byId ? broker.metadata.getById(t.topicId) : broker.metadata.get(t.topic);
      // ACLs: a follower needs CLUSTER_ACTION on the cluster, a consumer READ on the topic (an unknown topic id fails first).
      const readable = broker.authorizer == null || (!info && byId) ||
        (follower ? authorizeCluster(ctx, AclOperation.CLUSTER_ACTION) : authorize(ctx, AclOperation.READ, ResourceType.TOPIC, info ? info.name : t.topic));
      return t.partitions.map((p) => {
        if (!readable) return errorPartition(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED, []);
        if (!info) return errorPartition(p.partition, byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []);
        if (p.partition < 0 || p.partition >= info.partitions) return errorPartition(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []);
        parts.push({
          topic: info, partition: p.partition, fetchOffset: Number(p.fetchOffset), partitionMaxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: v >= 12 ? p.lastFetchedEpoch : -1, logStartOffset: Number(p.logStartOffset),
        });
        return parts.length - 1;
      });
    });
    const early = parts.length < slots.reduce((n, ps) => n + ps.length, 0);
    const maxBytes = Math.max(0, Math.min(req.maxBytes, broker.config.fetchMaxBytes));
    const result = await broker.replicaManager.fetchMessages({
      replicaId, replicaEpoch: v >= 15 ? Number(req.replicaState?.replicaEpoch ?? -1n) : -1,
      maxBytes, minBytes: req.minBytes, maxWaitMs: early ? 0 : req.maxWaitMs, isolationLevel: req.isolationLevel,
      readBuffers: ctx.readBuffers, closed: ctx.closed,
    }, parts, req.topics.length === 0);
    // Kafka's quotas.leader.record(sizeOfThrottledPartitions) for the answer that goes out.
    if (result.throttledBytes > 0) broker.replicationQuotas.leader.record(result.throttledBytes);
    let hints = null as LeaderEndpoints | null;
    const responses = req.topics.map((t, ti) => {
      const info = byId ? broker.metadata.getById(t.topicId) : broker.metadata.get(t.topic);
      const partitions = slots[ti].map((slot, pi) => {
        if (typeof slot !== 'number') return slot;
        const data = encodePartition(t.partitions[pi].partition, result.partitions[slot]);
        if (data.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && v >= 12) {
          data.currentLeader = currentLeaderOf(broker, parts[slot].topic.topicId, data.partitionIndex);
          if (v >= 16) (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).add(data.currentLeader.leaderId);
        }
        return data;
      });
      return { topic: info?.name ?? t.topic, topicId: info?.topicId ?? t.topicId ?? ZERO_UUID, partitions };
    });
    return withinQuota(ctx, follower, { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses, nodeEndpoints: hints?.list() ?? [] }, result.bytes);
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, sessionId: 0, responses: [], nodeEndpoints: [] };
  },
});
