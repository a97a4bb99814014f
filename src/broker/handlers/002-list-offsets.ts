/**
 * ListOffsets (key 2), versions 1-11.
 *
 * Behavior (Kafka's ReplicaManager.fetchOffset / UnifiedLog.fetchOffsetByTimestamp):
 * - -1 latest: the high watermark (read_uncommitted) or last stable offset (read_committed), with
 *   the current leader epoch. The other answers carry the log's epoch of the offset answered.
 * - -2 earliest: the log start offset (epoch: the earliest epoch entry's, if it starts at or below
 *   it); -4 earliest-local (v8+): the first offset on local disk (the same unless the topic is
 *   tiered).
 * - -3 max timestamp (v7+): first record carrying the partition's largest timestamp, its batch's
 *   epoch; empty log -1.
 * - -5 latest-tiered (v9+): the last offset copied to the remote tier, -1 when none or not tiered.
 * - -6 earliest-pending-upload (v11+, KIP-1023): the first offset not yet copied to the remote
 *   tier, max(last copied + 1, log start); nothing copied yet: the log start offset if no local
 *   segment was deleted, else -1 (the leader does not know what was copied); not tiered: -1.
 * - Other negative values, or a special value below the version that introduced it:
 *   UNSUPPORTED_VERSION for that partition.
 * - A timestamp: first record whose timestamp >= target below the fetchable offset (its batch's
 *   epoch), else -1/-1.
 * - The same partition twice: INVALID_REQUEST for it, in one entry.
 * - ACLs: DESCRIBE on the topic, else TOPIC_AUTHORIZATION_FAILED for each partition listed.
 * - Views (src/views/): the source partition's offsets (a view has its source's offsets).
 * Version notes: v1 single offset (v0's old_style_offsets unused); v2 isolation level; v4 leader
 * epochs; v6 flexible; v7 -3; v8 -4; v9 -5; v10 timeout_ms (KIP-1075: how long a remote offset
 * lookup may take; Samsa's lookups answer before the request's own timeout); v11 -6.
 */
import { KafkaApiError, toErrorCode } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ListOffsetsPartitionResponse } from '../../protocol/generated/messages/list-offsets-response.js';
import { leaderPartition } from '../leader-hints.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { VIEW_SOURCE } from '../../views/views.js';
import { viewRead } from '../../views/view-fetch.js';

const LATEST = -1n;
const EARLIEST = -2n;
const MAX_TIMESTAMP = -3n;
const EARLIEST_LOCAL = -4n;
const LATEST_TIERED = -5n;
const EARLIEST_PENDING_UPLOAD = -6n;

function result(partitionIndex: number, errorCode: number, offset = -1n, timestamp = -1n, leaderEpoch = -1): ListOffsetsPartitionResponse {
  return { partitionIndex, errorCode, timestamp, offset, leaderEpoch };
}

export const listOffsetsHandler = defineHandler({
  apiKey: 2,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const v = ctx.apiVersion;
    const topics = await Promise.all(req.topics.map(async (t) => {
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.name)) {
        return { name: t.name, partitions: t.partitions.map((p) => result(p.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED)) };
      }
      const info = broker.metadataCache.topic(t.name);
      const seen = new Map<number, number>();
      for (const p of t.partitions) seen.set(p.partitionIndex, (seen.get(p.partitionIndex) ?? 0) + 1);
      // A partition listed twice is answered once (Kafka keys its results by partition).
      const once = t.partitions.filter((p, i) => t.partitions.findIndex((q) => q.partitionIndex === p.partitionIndex) === i);
      const partitions = await Promise.all(once.map(async (p) => {
        if ((seen.get(p.partitionIndex) ?? 0) > 1) return result(p.partitionIndex, ErrorCode.INVALID_REQUEST);
        const partition = leaderPartition(broker, info, p.partitionIndex, p.currentLeaderEpoch);
        if (typeof partition === 'number') return result(p.partitionIndex, partition);
        // A view's offsets are its source's (src/views/).
        const view = info!.configs[VIEW_SOURCE] === undefined ? null : viewRead(broker, info!, p.partitionIndex);
        if (typeof view === 'number') return result(p.partitionIndex, view);
        const log = view === null ? partition.log : view.log;
        const epoch = partition.leaderEpoch;
        const ts = p.timestamp;
        const fetchable = req.isolationLevel === 1 ? log.lastStableOffset : log.highWatermark;
        try {
          if (ts === LATEST) return result(p.partitionIndex, ErrorCode.NONE, BigInt(fetchable), -1n, epoch);
          // Leader epochs other than latest's are the log's, not the partition's current one (UnifiedLog.fetchOffsetByTimestamp).
          if (ts === EARLIEST) return result(p.partitionIndex, ErrorCode.NONE, BigInt(log.logStartOffset), -1n, log.leaderEpochCache.earliestEpochAt(log.logStartOffset));
          if (ts === EARLIEST_LOCAL && v >= 8) return result(p.partitionIndex, ErrorCode.NONE, BigInt(log.localLogStartOffset), -1n, log.leaderEpochCache.epochForOffset(log.localLogStartOffset));
          if (ts === MAX_TIMESTAMP && v >= 7) {
            const m = await log.maxTimestampAndOffset();
            if (m.offset < 0) return result(p.partitionIndex, ErrorCode.NONE);
            return result(p.partitionIndex, ErrorCode.NONE, BigInt(m.offset), BigInt(m.timestamp), m.leaderEpoch);
          }
          if (ts === LATEST_TIERED && v >= 9) {
            const last = log.tiered ? log.highestOffsetInRemoteStorage : -1;
            return last < 0 ? result(p.partitionIndex, ErrorCode.NONE) : result(p.partitionIndex, ErrorCode.NONE, BigInt(last), -1n, log.leaderEpochCache.epochForOffset(last));
          }
          if (ts === EARLIEST_PENDING_UPLOAD && v >= 11) {
            if (!log.tiered) return result(p.partitionIndex, ErrorCode.NONE);
            const last = log.highestOffsetInRemoteStorage;
            if (last < 0 && log.localLogStartOffset !== log.logStartOffset) return result(p.partitionIndex, ErrorCode.NONE);
            const pending = last < 0 ? log.logStartOffset : Math.max(last + 1, log.logStartOffset);
            return result(p.partitionIndex, ErrorCode.NONE, BigInt(pending), -1n, log.leaderEpochCache.epochForOffset(pending));
          }
          if (ts < 0n) return result(p.partitionIndex, ErrorCode.UNSUPPORTED_VERSION);
          const tiered = log.tiered && view === null ? broker.replicaManager.tiered : undefined;
          const found = tiered
            ? await tiered.offsetForTimestamp({ topic: t.name, topicId: info!.topicId, partition: p.partitionIndex, log }, Number(ts))
            : await log.offsetForTimestamp(Number(ts));
          if (!found || found.offset >= fetchable) return result(p.partitionIndex, ErrorCode.NONE);
          return result(p.partitionIndex, ErrorCode.NONE, BigInt(found.offset), BigInt(found.timestamp), found.leaderEpoch);
        } catch (err) {
          if (!(err instanceof KafkaApiError)) broker.logger.error(`list offsets ${t.name}-${p.partitionIndex} failed`, err);
          return result(p.partitionIndex, toErrorCode(err));
        }
      }));
      return { name: t.name, partitions };
    }));
    return { throttleTimeMs: 0, topics };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => result(p.partitionIndex, errorCode)) })) };
  },
});
