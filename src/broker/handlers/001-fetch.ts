/**
 * Fetch (key 1), versions 4-18. Kafka's KafkaApis.handleFetchRequest: the fetch session context
 * (replication/fetch-session.ts, KIP-227: sessionless, full with a new session, incremental, or a
 * session error answered with no partitions), authorize (a follower CLUSTER_ACTION, a consumer READ
 * per topic), resolve the topics, hand the context's partitions (for an incremental fetch every
 * partition of the session) to the replica manager (replication/fetch-messages.ts: reads, KIP-74
 * limits, epochs, follower state, throttles, read_committed, views, the long poll), encode what the
 * context lets through (an incremental answer only the partitions that changed), with consecutive
 * partitions of one topic under one topic entry as Kafka's FetchResponse.of. Errors found here
 * carry aborted_transactions [] (Kafka's entries built before any read) and do not end the long
 * poll; a fetch with nothing readable is answered at once. NOT_LEADER_OR_FOLLOWER names the leader
 * from v12, its endpoint from v16 (KIP-951). consumer_byte_rate: above it no data, throttle_time_ms,
 * muted, the session kept. Versions: v4 isolation level; v5 log_start_offset; v7 sessions; v9
 * current leader epoch; v12 flexible, last_fetched_epoch; v13+ topic ids (UNKNOWN_TOPIC_ID);
 * v11 rack_id and preferred_read_replica (KIP-392: any replica serves a v11+ consumer up to its
 * own high watermark; with replica.selector.class the leader names the replica in the client's
 * rack, replication/replica-selector.ts); v15 replica state; v16 endpoints; v17 replica directory
 * id; v18 a follower's high watermark
 * (KIP-1166, tagged: Kafka's KRaft quorum uses it to stop parking fetches, its replica manager
 * does not, nor does Samsa's).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { FetchResponse, PartitionData } from '../../protocol/generated/messages/fetch-response.js';
import type { FetchPartition, FetchPartitionResult } from '../../replication/fetch-messages.js';
import type { TopicRecord } from '../../cluster/metadata-store.js';
import { LeaderEndpoints } from '../leader-hints.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';
import { ZERO_UUID } from '../../protocol/reader.js';

const NO_RECORDS = Buffer.alloc(0);
const empty = (errorCode: number, throttleTimeMs = 0, sessionId = 0) => ({ throttleTimeMs, errorCode, sessionId, responses: [], nodeEndpoints: [] });

function encode(partitionIndex: number, r: FetchPartitionResult | { errorCode: number; abortedTransactions: [] }): PartitionData {
  const ok = 'records' in r;
  return {
    partitionIndex, errorCode: r.errorCode, divergingEpoch: ok && r.divergingEpoch ? { epoch: r.divergingEpoch.epoch, endOffset: BigInt(r.divergingEpoch.endOffset) } : null,
    highWatermark: BigInt(ok ? r.highWatermark : -1), lastStableOffset: BigInt(ok ? r.lastStableOffset : -1), logStartOffset: BigInt(ok ? r.logStartOffset : -1),
    currentLeader: null, snapshotId: null, preferredReadReplica: ok ? r.preferredReadReplica : -1,
    abortedTransactions: r.abortedTransactions && r.abortedTransactions.map((a) => ({ producerId: BigInt(a.producerId), firstOffset: BigInt(a.firstOffset) })),
    // An errored partition has an empty record set, not null: librdkafka rejects a null one.
    records: ok ? r.records : NO_RECORDS,
  };
}

function bytesOf(records: Buffer[]): number {
  let n = 0;
  for (let i = 0; i < records.length; i++) n += records[i].length;
  return n;
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  async handle(ctx, req) {
    const { broker, apiVersion: v } = ctx;
    const replicaId = v >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId;
    const byId = v >= 13;
    const cache = broker.metadataCache;
    const fctx = broker.replicaManager.fetchSessions.newContext({
      version: v, sessionId: req.sessionId, sessionEpoch: req.sessionEpoch, follower: replicaId >= 0,
      topics: req.topics, forgotten: req.forgottenTopicsData, topicName: (id) => cache.topicById(id)?.name,
    });
    if (fctx.errorCode !== ErrorCode.NONE) return empty(fctx.errorCode);
    const list = fctx.partitions;
    const parts: FetchPartition[] = [];
    // Per partition of the context: an index into parts, or the error answered without a read.
    const slots = new Array<number | PartitionData>(list.length);
    const authorized = broker.authorizer == null ? null : new Map<string, boolean>();
    let lastKey: string | null = null;
    let info: TopicRecord | undefined;
    for (let i = 0; i < list.length; i++) {
      const p = list[i];
      const key = byId ? p.topicId : p.topic!;
      if (key !== lastKey) {
        lastKey = key;
        info = byId ? cache.topicById(key) : cache.topic(key);
      }
      // A session keeps a topic id's name once known (Kafka's maybeResolveUnknownName).
      if (info && p.topic === null) p.topic = info.name;
      const name = info?.name ?? p.topic;
      let readable = true;
      if (authorized !== null && name !== null) {
        const akey = replicaId >= 0 ? '' : name;
        let ok = authorized.get(akey);
        if (ok === undefined) authorized.set(akey, (ok = replicaId >= 0 ? authorizeCluster(ctx, AclOperation.CLUSTER_ACTION) : authorize(ctx, AclOperation.READ, ResourceType.TOPIC, name)));
        readable = ok;
      }
      const errorCode = !readable ? ErrorCode.TOPIC_AUTHORIZATION_FAILED
        : name === null ? ErrorCode.UNKNOWN_TOPIC_ID
        : !info || p.partition < 0 || p.partition >= info.partitions ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.NONE;
      if (errorCode !== ErrorCode.NONE || !info) {
        slots[i] = encode(p.partition, { errorCode, abortedTransactions: [] });
        continue;
      }
      slots[i] = parts.push({
        topic: info, partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: p.maxBytes,
        currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch, logStartOffset: p.logStartOffset,
      }) - 1;
    }
    const result = await broker.replicaManager.fetchMessages({
      replicaId, replicaEpoch: v >= 15 ? Number(req.replicaState?.replicaEpoch ?? -1n) : -1, maxBytes: Math.max(0, Math.min(req.maxBytes, broker.config.fetchMaxBytes)),
      minBytes: req.minBytes, maxWaitMs: req.maxWaitMs, isolationLevel: req.isolationLevel, readBuffers: ctx.readBuffers, closed: ctx.closed,
      // Kafka's ClientMetadata: from v11 (rack_id) a consumer may read from any replica (KIP-392).
      clientMetadata: v >= 11 && replicaId < 0 ? { rackId: req.rackId, listenerName: ctx.listenerName } : null,
    }, parts, parts.length === 0);
    if (result.throttledBytes > 0) broker.replicationQuotas.leader.record(result.throttledBytes);
    broker.metrics.onFetchReads(parts, result.partitions);
    const throttled = replicaId < 0 ? broker.quotas.recordAndThrottle('consumer_byte_rate', ctx.principal, ctx.clientId, ctx.connectionId, result.bytes, false) : 0;
    if (throttled > 0) {
      const t = fctx.throttled();
      return empty(t.errorCode, throttled, t.sessionId);
    }
    // An incremental fetch whose session another request used meanwhile (Kafka: a duplicate request).
    const stale = fctx.start();
    if (stale !== ErrorCode.NONE) return empty(stale, 0, fctx.finish());
    let hints = null as LeaderEndpoints | null;
    const responses: FetchResponse['responses'] = [];
    let topic: FetchResponse['responses'][number] | null = null;
    let topicKey: string | null = null;
    // The partitions read first, then those answered without a read (unknown, unauthorized), each
    // in the context's order: Kafka's KafkaApis appends its `erroneous` map after the read ones,
    // and a new session takes the answer's order (FetchContext.include).
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < list.length; i++) {
        const p = list[i];
        const s = slots[i];
        let data: PartitionData;
        if (typeof s === 'number') {
          if (pass === 1) continue;
          const r = result.partitions[s];
          if (!fctx.include(i, r.errorCode, r.highWatermark, r.logStartOffset, bytesOf(r.records), r.divergingEpoch !== null, r.preferredReadReplica)) continue;
          data = encode(p.partition, r);
          if (data.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && v >= 12) data.currentLeader = (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).hint(parts[s].topic.topicId, data.partitionIndex, v >= 16);
        } else {
          if (pass === 0 || !fctx.include(i, s.errorCode, -1, -1, 0, false, -1, true)) continue;
          data = s;
        }
        const key = byId ? p.topicId : p.topic!;
        if (topic === null || key !== topicKey) {
          topicKey = key;
          topic = { topic: p.topic ?? '', topicId: byId ? p.topicId : (typeof s === 'number' ? parts[s].topic.topicId : ZERO_UUID), partitions: [] };
          responses.push(topic);
        }
        topic.partitions.push(data);
      }
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: fctx.finish(), responses, nodeEndpoints: hints?.list() ?? [] };
  },
  // Kafka's FetchRequest.getErrorResponse: the request's session id; before v13 every requested
  // partition carries the error too (v13+ clients read the top-level code).
  errorResponse(req, errorCode, ctx) {
    const res: FetchResponse = empty(errorCode, 0, req.sessionId);
    if (ctx.apiVersion < 13) {
      res.responses = req.topics.map((t) => ({ topic: t.topic, topicId: t.topicId, partitions: t.partitions.map((p) => encode(p.partition, { errorCode, abortedTransactions: [] })) }));
    }
    return res;
  },
});
