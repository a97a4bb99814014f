/**
 * OffsetForLeaderEpoch (key 23), versions 2-4.
 *
 * Consumers (librdkafka 2.15 with Metadata v9+, the Java consumer) use it to validate their fetch
 * position after a leader change (KIP-320); followers use it to find where to truncate.
 *
 * Behavior (Kafka's LeaderEpochFileCache.endOffsetFor):
 * - current_leader_epoch older / newer than the partition's: FENCED_LEADER_EPOCH /
 *   UNKNOWN_LEADER_EPOCH; unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION.
 * - leader_epoch equal to the latest epoch (or the log has no epochs yet): the log end offset.
 * - an older epoch: that epoch (the largest one <= requested) and the start offset of the next
 *   epoch; below the earliest epoch: that epoch and the start of the earliest (Kafka's answer,
 *   which lets a follower still on it catch up); newer than the latest: -1, -1.
 * - Views (src/views/): a consumer's question is answered from the source partition's epochs.
 * Version notes: v2 current_leader_epoch and throttle time; v3 replica_id; v4 flexible.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { EpochEndOffset } from '../../protocol/generated/messages/offset-for-leader-epoch-response.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { leaderPartition } from '../leader-hints.js';
import { VIEW_SOURCE } from '../../views/views.js';
import { viewRead } from '../../views/view-fetch.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';

function answer(partition: number, errorCode: number, leaderEpoch = -1, endOffset = -1n): EpochEndOffset {
  return { errorCode, partition, leaderEpoch, endOffset };
}

function endOffsetFor(log: PartitionLog, requested: number, partition: number): EpochEndOffset {
  const e = log.leaderEpochCache.endOffsetFor(requested, log.logEndOffset);
  return answer(partition, ErrorCode.NONE, e.leaderEpoch, BigInt(e.endOffset));
}

export const offsetForLeaderEpochHandler = defineHandler({
  apiKey: 23,
  handle(ctx, req) {
    const broker = ctx.broker;
    // ACLs: CLUSTER_ACTION on the cluster (followers) allows every topic, else DESCRIBE on each.
    const everyTopic = broker.authorizer == null || authorizeCluster(ctx, AclOperation.CLUSTER_ACTION);
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => {
        const info = broker.metadataCache.topic(t.topic);
        const allowed = everyTopic || authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topic);
        return {
          topic: t.topic,
          partitions: t.partitions.map((p) => {
            if (!allowed) return answer(p.partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
            const partition = leaderPartition(broker, info, p.partition, p.currentLeaderEpoch);
            if (typeof partition === 'number') return answer(p.partition, partition);
            // A consumer validating its position on a view (src/views/) asks about the source's
            // epochs: the view's batches are the source's. Followers keep the view's own log.
            if (info!.configs[VIEW_SOURCE] !== undefined && (ctx.apiVersion < 3 || req.replicaId < 0)) {
              const view = viewRead(broker, info!, p.partition);
              if (typeof view === 'number') return answer(p.partition, view);
              return endOffsetFor(view.log, p.leaderEpoch, p.partition);
            }
            return endOffsetFor(partition.log, p.leaderEpoch, p.partition);
          }),
        };
      }),
    };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, topics: req.topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => answer(p.partition, errorCode)) })) };
  },
});
