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
 * - Fetch sessions (KIP-227) are declined: every response has session_id 0, so clients send full
 *   fetches; an incremental fetch naming an unknown session gets FETCH_SESSION_ID_NOT_FOUND.
 * - Consumers read up to the high watermark (read_uncommitted) or the last stable offset
 *   (read_committed, R1-R5): read_committed answers also list the aborted transactions that
 *   overlap the returned batches (from the .txnindex); the client drops their records.
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

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const READ_COMMITTED = 1;
const NO_RECORDS = Buffer.alloc(0);

function errorPartition(partitionIndex: number, errorCode: number): PartitionData {
  return {
    partitionIndex, errorCode, highWatermark: -1n, lastStableOffset: -1n, logStartOffset: -1n,
    divergingEpoch: null, currentLeader: null, snapshotId: null, abortedTransactions: null, preferredReadReplica: -1,
    // Kafka answers an errored partition with an empty record set, not null: librdkafka rejects a
    // null (-1) MessageSetSize as a parse failure and never sees the error code.
    records: NO_RECORDS,
  };
}

async function readOnce(ctx: RequestContext, req: FetchRequest, maxBytesCap: number): Promise<{ response: FetchResponse; bytes: number }> {
  const broker = ctx.broker;
  const byId = ctx.apiVersion >= 13;
  let bytesLeft = Math.max(0, Math.min(req.maxBytes, maxBytesCap));
  let total = 0;
  const responses: FetchResponse['responses'] = [];
  for (const t of req.topics) {
    const info = byId ? broker.metadata.getById(t.topicId) : broker.metadata.get(t.topic);
    const partitions: PartitionData[] = [];
    for (const p of t.partitions) {
      if (!info) {
        partitions.push(errorPartition(p.partition, byId ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      const log = p.partition >= 0 && p.partition < info.partitions ? broker.logs.getLog(info.name, p.partition) : undefined;
      if (!log) {
        partitions.push(errorPartition(p.partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
        continue;
      }
      if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch !== broker.leaderEpoch) {
        partitions.push(errorPartition(p.partition, p.currentLeaderEpoch < broker.leaderEpoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH));
        continue;
      }
      try {
        const lso = log.lastStableOffset;
        const maxOffset = req.isolationLevel === READ_COMMITTED ? lso : log.highWatermark;
        const limit = Math.min(p.partitionMaxBytes, bytesLeft);
        const fetchOffset = Number(p.fetchOffset);
        const read = limit > 0 || total === 0
          ? await log.read(fetchOffset, Math.max(limit, 0), { minOneMessage: total === 0, maxOffset })
          : await log.read(fetchOffset, 0, { minOneMessage: false, maxOffset });
        let abortedTransactions: PartitionData['abortedTransactions'] = null;
        if (req.isolationLevel === READ_COMMITTED) {
          abortedTransactions = [];
          if (read.records.length > 0) {
            const upper = nextOffsetAfter(read.records[read.records.length - 1]);
            for (const t of await log.collectAbortedTransactions(fetchOffset, upper)) {
              abortedTransactions.push({ producerId: BigInt(t.producerId), firstOffset: BigInt(t.firstOffset) });
            }
          }
        }
        bytesLeft -= read.sizeBytes;
        total += read.sizeBytes;
        partitions.push({
          partitionIndex: p.partition, errorCode: ErrorCode.NONE,
          highWatermark: BigInt(log.highWatermark), lastStableOffset: BigInt(lso), logStartOffset: BigInt(log.logStartOffset),
          divergingEpoch: null, currentLeader: null, snapshotId: null,
          abortedTransactions,
          preferredReadReplica: -1,
          records: read.records,
        });
      } catch (err) {
        if (!(err instanceof KafkaApiError)) broker.log.error(`fetch from ${info.name}-${p.partition} failed`, err);
        partitions.push(errorPartition(p.partition, toErrorCode(err)));
      }
    }
    responses.push({ topic: info?.name ?? t.topic, topicId: info?.topicId ?? t.topicId ?? ZERO_UUID, partitions });
  }
  return { response: { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses, nodeEndpoints: [] }, bytes: total };
}

/** The offset after the last batch of a buffer of whole batches. */
function nextOffsetAfter(data: Buffer): number {
  let next = 0;
  for (let pos = 0; pos + 61 <= data.length; pos += 12 + data.readInt32BE(pos + 8)) {
    next = data.readInt32BE(pos) * 0x1_0000_0000 + data.readUInt32BE(pos + 4) + data.readInt32BE(pos + 23) + 1;
  }
  return next;
}

function hasError(res: FetchResponse): boolean {
  for (const t of res.responses) for (const p of t.partitions) if (p.errorCode !== ErrorCode.NONE) return true;
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
      // Subscribe before reading so an append between the read and the wait is not missed.
      const wake = broker.appendSignal(req, ctx.apiVersion >= 13);
      const { response, bytes } = await readOnce(ctx, req, cap);
      const remaining = deadline - broker.clock.now();
      if (bytes >= minBytes || remaining <= 0 || hasError(response) || req.topics.length === 0 || broker.stopping) {
        wake.cancel();
        return response;
      }
      await wake.wait(remaining, ctx.closed);
    }
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, sessionId: 0, responses: [], nodeEndpoints: [] };
  },
});
