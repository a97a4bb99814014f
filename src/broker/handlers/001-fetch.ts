/**
 * Fetch (key 1), versions 4-17.
 *
 * Behavior (Kafka's KafkaApis.handleFetchRequest / ReplicaManager.fetchMessages):
 * - Batches go back exactly as stored (byte slices of segment files, never re-encoded); a fetch
 *   offset inside a batch returns the whole batch and the client skips the records before it.
 * - max_bytes (capped at fetch.max.bytes) bounds the response and partition_max_bytes each
 *   partition, but the first partition that yields data returns at least one whole batch even if
 *   larger (KIP-74); a later partition whose first batch does not fit returns no records.
 * - Long poll: when fewer than min_bytes are available the reply waits for appends to any fetched
 *   partition or max_wait_ms, whichever first (Kafka's DelayedFetch).
 * - Out-of-range offsets: OFFSET_OUT_OF_RANGE with high watermark / LSO / log start -1.
 * - Unknown topic, topic id or partition: their error with aborted_transactions [] (Kafka's
 *   error entries built before any read); errors from the read itself carry null there.
 * - last_fetched_epoch (v12+, KIP-320 truncation detection, sent by kafka-python 3 and the Java
 *   consumer): when that epoch ends before fetch_offset, or only an older epoch is known, no
 *   records and diverging_epoch = (epoch, end offset), answered at once; when its end cannot be
 *   told, OFFSET_OUT_OF_RANGE (Kafka's Partition.readRecords).
 * - A negative partition_max_bytes where there is data to read: UNKNOWN_SERVER_ERROR (Kafka's
 *   segment read rejects the size), nothing when the offset is at the end.
 * - A partition this broker does not lead: NOT_LEADER_OR_FOLLOWER (after the current_leader_epoch
 *   check, FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH, as Kafka's Partition.getLocalLog), from v12
 *   with current_leader and from v16 the leader's endpoint in node_endpoints (KIP-951).
 * - A follower's fetch (replica_id, ReplicaState from v15) reads up to the log end, reports the
 *   follower's log end offset to the partition (high watermark, ISR expansion) and gets the HW
 *   in the answer (Kafka's fetchMessages from a follower).
 * - Replication throttles (src/replication/replication-quota.ts, Kafka's shouldLeaderThrottle): a
 *   partition listed for this broker in leader.replication.throttled.replicas whose follower is
 *   not in the ISR gets no records while this broker's leader.replication.throttled.rate is
 *   exceeded; the bytes sent for throttled partitions are recorded. Without a leader rate this is
 *   one boolean test per partition.
 * - Fetch sessions (KIP-227) are declined: every response has session_id 0, so clients send full
 *   fetches; an incremental fetch naming an unknown session gets FETCH_SESSION_ID_NOT_FOUND.
 * - Consumers read up to the high watermark (read_uncommitted) or the last stable offset
 *   (read_committed, R1-R5): read_committed answers also list the aborted transactions that
 *   overlap the returned batches (from the .txnindex); the client drops their records.
 * - ACLs: a follower's fetch needs CLUSTER_ACTION on the cluster, a consumer's READ on each topic,
 *   else TOPIC_AUTHORIZATION_FAILED for its partitions.
 * - Views (src/views/, samsa.view.source): a consumer's fetch reads the source partition of the same
 *   index and filters its batches on record headers (view-batches.ts); offsets, HW and LSO are the
 *   source's; a long poll wakes on any append to the source.
 * Version notes: v4 isolation level and LSO; v5 log_start_offset; v7 sessions; v9 current leader
 * epoch; v11 rack id / preferred read replica; v12 flexible; v13+ topics by id (UNKNOWN_TOPIC_ID
 * for an unknown one); v15 replica state; v16+ node_endpoints.
 */
import { KafkaApiError, toErrorCode } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { FetchRequest } from '../../protocol/generated/messages/fetch-request.js';
import type { FetchResponse, PartitionData } from '../../protocol/generated/messages/fetch-response.js';
import type { RequestContext } from '../request-context.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { lastOffsetOfBatches } from '../../protocol/records/record-batch.js';
import { currentLeaderOf, LeaderEndpoints, leads } from '../leader-hints.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';
import { VIEW_SOURCE } from '../../views/views.js';
import { viewRead, viewRecords, type ViewRead } from '../../views/view-fetch.js';
import { LEADER_THROTTLED_REPLICAS } from '../../replication/replication-quota.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const READ_COMMITTED = 1;
const NO_RECORDS = Buffer.alloc(0);
/** A throttled partition's read: no records (Kafka answers it with an empty record set). */
const THROTTLED_READ: Promise<{ records: Buffer[] }> = Promise.resolve({ records: [] });

function errorPartition(partitionIndex: number, errorCode: number, abortedTransactions: [] | null = null): PartitionData {
  return {
    partitionIndex, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n,
    divergingEpoch: null, currentLeader: null, snapshotId: null, abortedTransactions, preferredReadReplica: -1,
    // Kafka answers an errored partition with an empty record set, not null: librdkafka rejects a
    // null (-1) MessageSetSize as a parse failure and never sees the error code.
    records: NO_RECORDS,
  };
}

/** Whole batches from the front of `buffers` (each holds whole batches) within `limit` bytes; with `minOne`, at least the first batch. */
function takeWholeBatches(buffers: Buffer[], limit: number, minOne: boolean): { records: Buffer[]; sizeBytes: number } {
  const records: Buffer[] = [];
  let taken = 0;
  for (const buf of buffers) {
    let end = 0;
    while (end + 12 <= buf.length) {
      const size = 12 + buf.readInt32BE(end + 8);
      if (taken + size > limit && !(minOne && taken === 0)) break;
      taken += size;
      end += size;
    }
    if (end > 0) records.push(end === buf.length ? buf : buf.subarray(0, end));
    if (end < buf.length) break;
  }
  return { records, sizeBytes: taken };
}

type Slot =
  | { kind: 'error'; data: PartitionData }
  | { kind: 'read'; partition: number; partitionMaxBytes: number; fetchOffset: number; log: PartitionLog; lso: number; throttled: boolean; read: Promise<{ records: Buffer[] } | { errorCode: number }> };

/**
 * One pass over the requested partitions. The partitions' reads run concurrently (each is a file
 * read off the event loop); the byte limits are then applied in request order, keeping whole
 * batches: the first partition with data gets at least one batch (KIP-74), later ones only what
 * fits in max_bytes and partition_max_bytes.
 */
async function readOnce(ctx: RequestContext, req: FetchRequest, maxBytesCap: number): Promise<{ response: FetchResponse; bytes: number; throttledBytes: number }> {
  const broker = ctx.broker;
  const byId = ctx.apiVersion >= 13;
  // Follower fetches name their broker (replica_id before v15, ReplicaState from v15).
  const replicaId = ctx.apiVersion >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId;
  const follower = replicaId >= 0;
  // KIP-903: the follower's broker epoch (v15+ ReplicaState; -1 before).
  const replicaEpoch = ctx.apiVersion >= 15 ? Number(req.replicaState?.replicaEpoch ?? -1n) : -1;
  const maxBytes = Math.max(0, Math.min(req.maxBytes, maxBytesCap));
  // Leader-side replication throttle: only while a leader rate is set (checked lazily, once per pass).
  const leaderQuota = follower && broker.replicationQuotas?.leader.active ? broker.replicationQuotas : null;
  let leaderExceeded: boolean | null = null;
  // Reads of an earlier pass were discarded: their space is reused.
  ctx.readBuffers?.reset();
  const alloc = ctx.readBuffers ? (n: number) => ctx.readBuffers!.alloc(n) : undefined;
  let hints = null as LeaderEndpoints | null;
  const topics = req.topics.map((t) => {
    const info = byId ? broker.metadata.getById(t.topicId) : broker.metadata.get(t.topic);
    // ACLs: a follower needs CLUSTER_ACTION on the cluster, a consumer READ on the topic (an unknown topic id fails first).
    const readable = broker.authorizer == null || (!info && byId) ||
      (follower ? authorizeCluster(ctx, AclOperation.CLUSTER_ACTION) : authorize(ctx, AclOperation.READ, ResourceType.TOPIC, info ? info.name : t.topic));
    const slots: Slot[] = t.partitions.map((p): Slot => {
      if (!readable) return { kind: 'error', data: errorPartition(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED, []) };
      if (!info) return { kind: 'error', data: errorPartition(p.partition, byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []) };
      if (p.partition < 0 || p.partition >= info.partitions) return { kind: 'error', data: errorPartition(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []) };
      const partition = broker.replicaManager.getPartition(info.name, p.partition);
      // Kafka's Partition.getLocalLog: the client's leader epoch first, then leadership.
      const epoch = partition?.leaderEpoch ?? broker.partitionState(info.topicId, p.partition)?.leaderEpoch ?? -1;
      if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch !== epoch) {
        return { kind: 'error', data: errorPartition(p.partition, p.currentLeaderEpoch < epoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH) };
      }
      if (!leads(partition)) {
        const data = errorPartition(p.partition, ErrorCode.NOT_LEADER_OR_FOLLOWER);
        if (ctx.apiVersion >= 12) {
          data.currentLeader = currentLeaderOf(broker, info.topicId, p.partition);
          if (ctx.apiVersion >= 16) (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).add(data.currentLeader.leaderId);
        }
        return { kind: 'error', data };
      }
      // A consumer's fetch on a view (src/views/) reads the source partition and filters the
      // batches; one property test per partition, the plain path below is unchanged.
      let view: ViewRead | null = null;
      if (info.configs[VIEW_SOURCE] !== undefined && !follower) {
        const v = viewRead(broker, info, p.partition);
        if (typeof v === 'number') return { kind: 'error', data: errorPartition(p.partition, v) };
        view = v;
      }
      const log = view === null ? partition.log : view.log;
      const lso = log.lastStableOffset;
      // A follower reads up to the log end; consumers up to the high watermark (or the LSO).
      const maxOffset = follower ? log.logEndOffset : req.isolationLevel === READ_COMMITTED ? lso : log.highWatermark;
      const fetchOffset = Number(p.fetchOffset);
      if (ctx.apiVersion >= 12 && p.lastFetchedEpoch >= 0) {
        const e = log.leaderEpochCache.endOffsetFor(p.lastFetchedEpoch, log.logEndOffset);
        if (e.leaderEpoch < 0 || e.endOffset < 0) return { kind: 'error', data: errorPartition(p.partition, ErrorCode.OFFSET_OUT_OF_RANGE) };
        if (e.leaderEpoch < p.lastFetchedEpoch || e.endOffset < fetchOffset) {
          return {
            kind: 'error',
            data: {
              ...errorPartition(p.partition, ErrorCode.NONE, req.isolationLevel === READ_COMMITTED ? [] : null),
              highWatermark: BigInt(log.highWatermark), lastStableOffset: BigInt(lso), logStartOffset: BigInt(log.logStartOffset),
              divergingEpoch: { epoch: e.leaderEpoch, endOffset: BigInt(e.endOffset) },
            },
          };
        }
      }
      if (p.partitionMaxBytes < 0 && fetchOffset >= log.logStartOffset && fetchOffset < maxOffset) {
        return { kind: 'error', data: errorPartition(p.partition, ErrorCode.UNKNOWN_SERVER_ERROR) };
      }
      // The follower has everything below its fetch offset: that may move the HW and the ISR
      // (Kafka's updateFollowerFetchState, after the divergence check). The answer's HW is read later.
      if (follower && fetchOffset <= log.logEndOffset) {
        const stale = partition.updateFollowerFetchState(replicaId, fetchOffset, log.logEndOffset, broker.clock.now(), Number(p.logStartOffset), replicaEpoch);
        if (stale !== ErrorCode.NONE) return { kind: 'error', data: errorPartition(p.partition, stale) };
      }
      let throttled = false;
      if (leaderQuota !== null && leaderQuota.throttled.isThrottled(info.configs[LEADER_THROTTLED_REPLICAS], p.partition)) {
        throttled = true;
        if (!partition.isr.includes(replicaId) && (leaderExceeded ??= leaderQuota.leader.isQuotaExceeded())) {
          return { kind: 'read', partition: p.partition, partitionMaxBytes: p.partitionMaxBytes, fetchOffset, log, lso, throttled, read: THROTTLED_READ };
        }
      }
      const limit = Math.max(0, Math.min(p.partitionMaxBytes, maxBytes));
      const raw = log.read(fetchOffset, limit, { minOneMessage: true, maxOffset, alloc });
      const read = (view === null ? raw : raw.then((r) => viewRecords(r, view))).then(
        (r) => ({ records: r.records }),
        (err) => {
          if (!(err instanceof KafkaApiError)) broker.log.error(`fetch from ${info.name}-${p.partition} failed`, err);
          return { errorCode: toErrorCode(err) };
        },
      );
      return { kind: 'read', partition: p.partition, partitionMaxBytes: p.partitionMaxBytes, fetchOffset, log, lso, throttled, read };
    });
    return { t, info, slots };
  });

  let total = 0;
  let throttledBytes = 0;
  const responses: FetchResponse['responses'] = [];
  try {
    for (const { t, info, slots } of topics) {
      const partitions: PartitionData[] = [];
      for (const slot of slots) {
        if (slot.kind === 'error') {
          partitions.push(slot.data);
          continue;
        }
        const got = await slot.read;
        if ('errorCode' in got) {
          partitions.push(errorPartition(slot.partition, got.errorCode));
          continue;
        }
        const { log, lso, fetchOffset } = slot;
        const kept = takeWholeBatches(got.records, Math.max(0, Math.min(slot.partitionMaxBytes, maxBytes - total)), total === 0);
        total += kept.sizeBytes;
        if (slot.throttled) throttledBytes += kept.sizeBytes;
        let abortedTransactions: PartitionData['abortedTransactions'] = null;
        if (req.isolationLevel === READ_COMMITTED) {
          abortedTransactions = [];
          if (kept.records.length > 0) {
            const upper = lastOffsetOfBatches(kept.records[kept.records.length - 1]) + 1;
            for (const a of await log.collectAbortedTransactions(fetchOffset, upper)) {
              abortedTransactions.push({ producerId: BigInt(a.producerId), firstOffset: BigInt(a.firstOffset) });
            }
          }
        }
        partitions.push({
          partitionIndex: slot.partition, errorCode: ErrorCode.NONE,
          highWatermark: BigInt(log.highWatermark), lastStableOffset: BigInt(lso), logStartOffset: BigInt(log.logStartOffset),
          divergingEpoch: null, currentLeader: null, snapshotId: null,
          abortedTransactions,
          preferredReadReplica: -1,
          records: kept.records,
        });
      }
      responses.push({ topic: info?.name ?? t.topic, topicId: info?.topicId ?? t.topicId ?? ZERO_UUID, partitions });
    }
  } catch (err) {
    // Every read must have finished before its buffer can be reused for another response.
    await Promise.all(topics.flatMap(({ slots }) => slots.map((s) => (s.kind === 'read' ? s.read : undefined))));
    throw err;
  }
  return { response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses, nodeEndpoints: hints?.list() ?? [] }, bytes: total, throttledBytes };
}


/**
 * consumer_byte_rate (security/quotas.ts): above the quota a consumer's fetch is answered without
 * data and with throttle_time_ms, and the connection is muted that long (Kafka's throttled fetch).
 */
function withinQuota(ctx: RequestContext, follower: boolean, response: FetchResponse, bytes: number): FetchResponse {
  const quotas = ctx.broker.quotas;
  if (!quotas?.active || follower) return response;
  const ms = quotas.record('consumer_byte_rate', ctx.principal, ctx.clientId, bytes, false);
  if (ms === 0) return response;
  quotas.throttle(ctx.connectionId, ms);
  return { throttleTimeMs: ms, errorCode: ErrorCode.NONE, sessionId: 0, responses: [], nodeEndpoints: [] };
}

/** An error or a diverging epoch ends the long poll at once (Kafka's fetchMessages). */
function hasError(res: FetchResponse): boolean {
  for (const t of res.responses) for (const p of t.partitions) if (p.errorCode !== ErrorCode.NONE || p.divergingEpoch !== null) return true;
  return false;
}

export const fetchHandler = defineHandler({
  apiKey: 1,
  async handle(ctx, req) {
    const broker = ctx.broker;
    if (req.sessionId !== 0) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND, sessionId: 0, responses: [], nodeEndpoints: [] };
    }
    const cap = broker.config.fetchMaxBytes;
    const minBytes = Math.min(req.minBytes, Math.max(0, Math.min(req.maxBytes, cap)));
    const deadline = broker.clock.now() + Math.max(0, req.maxWaitMs);
    for (;;) {
      // Note the append counts before reading so an append between the read and the wait is not missed.
      const follower = (ctx.apiVersion >= 15 ? (req.replicaState?.replicaId ?? -1) : req.replicaId) >= 0;
      const wake = broker.appendSignal(req, ctx.apiVersion >= 13, follower);
      const { response, bytes, throttledBytes } = await readOnce(ctx, req, cap);
      const remaining = deadline - broker.clock.now();
      if (bytes >= minBytes || remaining <= 0 || hasError(response) || req.topics.length === 0 || broker.stopping) {
        // Kafka's quotas.leader.record(sizeOfThrottledPartitions) for the answer that goes out.
        if (throttledBytes > 0) broker.replicationQuotas.leader.record(throttledBytes);
        return withinQuota(ctx, follower, response, bytes);
      }
      // After the client went away (or the broker began stopping) nobody waits for the answer.
      if ((await wake.wait(remaining, ctx.closed)) === 'closed') return response;
    }
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, sessionId: 0, responses: [], nodeEndpoints: [] };
  },
});
