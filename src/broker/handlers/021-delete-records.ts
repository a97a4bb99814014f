/**
 * DeleteRecords (key 21), versions 0-2.
 *
 * Behavior (Kafka's KafkaApis.handleDeleteRecordsRequest, ReplicaManager.deleteRecordsOnLocalLog,
 * Partition.deleteRecordsOnLeader, UnifiedLog.maybeIncrementLogStartOffset):
 * - Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION, low_watermark -1.
 * - Internal topic (`__consumer_offsets`, `__transaction_state`): INVALID_TOPIC_EXCEPTION once the
 *   partition exists (Kafka checks its metadata cache first, then the name), before leadership.
 * - cleanup.policy without `delete` (compact only): POLICY_VIOLATION.
 * - offset -1: delete up to the high watermark. offset < -1 or above the high watermark:
 *   OFFSET_OUT_OF_RANGE, low_watermark -1.
 * - offset at or below the current log start: nothing changes, low_watermark = log start.
 * - Otherwise the log start offset becomes exactly `offset` (not batch aligned; whole segments
 *   below it are deleted by the storage layer). The answer waits, up to timeout_ms, until every
 *   replica on a live broker has moved its log start there too (Kafka's DelayedDeleteRecords on
 *   the low watermark: the smallest log start over the replicas); low_watermark is that value,
 *   REQUEST_TIMED_OUT (with the leader's log start) when a replica did not follow in time, and
 *   NOT_LEADER_OR_FOLLOWER if leadership moved meanwhile. One node answers at once.
 * - Every error entry carries low_watermark -1.
 * Version notes: v1 same as v0; v2 flexible.
 */
import { defineHandler } from '../handler.js';
import type { BrokerServices } from '../broker-services.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DeleteRecordsPartitionResult } from '../../protocol/generated/messages/delete-records-response.js';
import { KafkaApiError } from '../../errors.js';
import { INTERNAL_TOPICS } from '../../cluster/topic-names.js';
import { leaderPartition } from '../leader-hints.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

const INVALID_LOW_WATERMARK = -1n;

function failed(partitionIndex: number, errorCode: number): DeleteRecordsPartitionResult {
  return { partitionIndex, lowWatermark: INVALID_LOW_WATERMARK, errorCode };
}

async function deleteOne(broker: BrokerServices, topic: string, partitionIndex: number, offset: bigint, timeoutMs: number): Promise<DeleteRecordsPartitionResult> {
  const info = broker.metadataCache.topic(topic);
  // Kafka's handler answers partitions missing from its metadata first (DR8); its replica manager
  // then refuses internal topics by name, before it looks at the partition's leadership (DR7).
  if (!info || partitionIndex < 0 || partitionIndex >= info.partitions) return failed(partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (INTERNAL_TOPICS.has(topic)) return failed(partitionIndex, ErrorCode.INVALID_TOPIC_EXCEPTION);
  // Only the leader deletes (followers follow its log start offset).
  const partition = leaderPartition(broker, info, partitionIndex, -1);
  if (typeof partition === 'number') return failed(partitionIndex, partition);
  const log = partition.log;
  if (info?.isInternal) return failed(partitionIndex, ErrorCode.INVALID_TOPIC_EXCEPTION);
  if (offset < -1n || offset > BigInt(Number.MAX_SAFE_INTEGER)) return failed(partitionIndex, ErrorCode.OFFSET_OUT_OF_RANGE);
  // The log checks the cleanup policy and the high watermark inside its own serial queue.
  const logStart = await log.deleteRecordsBefore(Number(offset));
  // Every live replica must drop the records too before the answer (DelayedDeleteRecords): the
  // followers learn the new log start from their next fetch and report theirs in the one after.
  const required = offset === -1n ? logStart : Math.min(Number(offset), logStart);
  const done = await partition.waitForLowWatermark(required, timeoutMs);
  return { partitionIndex, lowWatermark: BigInt(done.lowWatermark), errorCode: done.errorCode };
}

export const deleteRecordsHandler = defineHandler({
  apiKey: 21,
  async handle(ctx, req) {
    const one = async (topic: string, partitionIndex: number, offset: bigint, deletable: boolean): Promise<DeleteRecordsPartitionResult> => {
      if (!deletable) return failed(partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
      try {
        return await deleteOne(ctx.broker, topic, partitionIndex, offset, req.timeoutMs);
      } catch (err) {
        if (err instanceof KafkaApiError) return failed(partitionIndex, err.errorCode);
        ctx.broker.logger.error(`DeleteRecords: ${topic}-${partitionIndex} failed`, err);
        return failed(partitionIndex, ErrorCode.UNKNOWN_SERVER_ERROR);
      }
    };
    // Every partition at once: each may wait for its followers (up to timeout_ms), as Kafka's one
    // delayed operation for the whole request does.
    const topics = await Promise.all(req.topics.map(async (t) => {
      // ACLs: DELETE on the topic.
      const deletable = authorize(ctx, AclOperation.DELETE, ResourceType.TOPIC, t.name);
      return { name: t.name, partitions: await Promise.all(t.partitions.map((p) => one(t.name, p.partitionIndex, p.offset, deletable))) };
    }));
    return { throttleTimeMs: 0, topics };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => failed(p.partitionIndex, errorCode)) })),
    };
  },
});
