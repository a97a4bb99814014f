/**
 * DeleteRecords (key 21), versions 0-2.
 *
 * Behavior (Kafka's KafkaApis.handleDeleteRecordsRequest, ReplicaManager.deleteRecordsOnLocalLog,
 * Partition.deleteRecordsOnLeader, UnifiedLog.maybeIncrementLogStartOffset):
 * - Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION, low_watermark -1.
 * - Internal topic (`__consumer_offsets`, `__transaction_state`): INVALID_TOPIC_EXCEPTION, whether
 *   it exists yet or not (checked first).
 * - cleanup.policy without `delete` (compact only): POLICY_VIOLATION.
 * - offset -1: delete up to the high watermark. offset < -1 or above the high watermark:
 *   OFFSET_OUT_OF_RANGE, low_watermark -1.
 * - offset at or below the current log start: nothing changes, low_watermark = log start.
 * - Otherwise the log start offset becomes exactly `offset` (not batch aligned; whole segments
 *   below it are deleted by the storage layer) and low_watermark is the new log start. One node
 *   has no followers to wait for, so timeout_ms is not waited on.
 * - Every error entry carries low_watermark -1.
 * Version notes: v1 same as v0; v2 flexible.
 */
import { defineHandler } from '../handler.js';
import type { Broker } from '../broker.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DeleteRecordsPartitionResult } from '../../protocol/generated/messages/delete-records-response.js';
import { KafkaApiError } from '../../errors.js';
import { INTERNAL_TOPICS } from '../metadata.js';
import { leaderPartition } from '../leader-hints.js';
import { AclOperation, authorize, ResourceType } from '../../security/authz.js';

const INVALID_LOW_WATERMARK = -1n;

function failed(partitionIndex: number, errorCode: number): DeleteRecordsPartitionResult {
  return { partitionIndex, lowWatermark: INVALID_LOW_WATERMARK, errorCode };
}

async function deleteOne(broker: Broker, topic: string, partitionIndex: number, offset: bigint): Promise<DeleteRecordsPartitionResult> {
  // Kafka refuses internal topics by name before looking the partition up (DR7).
  if (INTERNAL_TOPICS.has(topic)) return failed(partitionIndex, ErrorCode.INVALID_TOPIC_EXCEPTION);
  const info = broker.metadata.get(topic);
  // Only the leader deletes (followers follow its log start offset).
  const partition = leaderPartition(broker, info, partitionIndex, -1);
  if (typeof partition === 'number') return failed(partitionIndex, partition);
  const log = partition.log;
  if (info?.isInternal) return failed(partitionIndex, ErrorCode.INVALID_TOPIC_EXCEPTION);
  if (offset < -1n || offset > BigInt(Number.MAX_SAFE_INTEGER)) return failed(partitionIndex, ErrorCode.OFFSET_OUT_OF_RANGE);
  // The log checks the cleanup policy and the high watermark inside its own serial queue.
  const lowWatermark = await log.deleteRecordsBefore(Number(offset));
  return { partitionIndex, lowWatermark: BigInt(lowWatermark), errorCode: ErrorCode.NONE };
}

export const deleteRecordsHandler = defineHandler({
  apiKey: 21,
  async handle(ctx, req) {
    const topics = [];
    for (const t of req.topics) {
      const partitions: DeleteRecordsPartitionResult[] = [];
      // ACLs: DELETE on the topic.
      const deletable = authorize(ctx, AclOperation.DELETE, ResourceType.TOPIC, t.name);
      for (const p of t.partitions) {
        if (!deletable) {
          partitions.push(failed(p.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
          continue;
        }
        try {
          partitions.push(await deleteOne(ctx.broker, t.name, p.partitionIndex, p.offset));
        } catch (err) {
          if (err instanceof KafkaApiError) {
            partitions.push(failed(p.partitionIndex, err.errorCode));
          } else {
            ctx.broker.log.error(`DeleteRecords: ${t.name}-${p.partitionIndex} failed`, err);
            partitions.push(failed(p.partitionIndex, ErrorCode.UNKNOWN_SERVER_ERROR));
          }
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => failed(p.partitionIndex, errorCode)) })),
    };
  },
});
