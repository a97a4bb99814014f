/**
 * DescribeShareGroupOffsets (key 90), versions 0-1: each share-partition's start offset (the
 * share group's "committed offset"), as `kafka-share-groups --describe --offsets` and the Java
 * admin's listShareGroupOffsets ask for it.
 *
 * Behavior: topics null = every share-partition the group was assigned; per partition the start
 * offset and leader epoch of its persisted state (-1 when it has none yet) and, from v1 (KIP-1226),
 * the lag: high watermark - start offset - records above it already acknowledged or archived.
 * An unknown topic: UNKNOWN_TOPIC_OR_PARTITION per partition. An unknown group: no topics, no
 * error, as Kafka 4.4. GROUP_AUTHORIZATION_FAILED without DESCRIBE on the group;
 * topics not describable are left out (with topics named: TOPIC_AUTHORIZATION_FAILED).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribeShareGroupOffsetsResponseGroup } from '../../protocol/generated/messages/describe-share-group-offsets-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { KafkaApiError } from '../../errors.js';
import { ZERO_UUID } from '../../protocol/reader.js';

function failedGroup(groupId: string, errorCode: number, errorMessage: string | null = null): DescribeShareGroupOffsetsResponseGroup {
  return { groupId, topics: [], errorCode, errorMessage };
}

export const describeShareGroupOffsetsHandler = defineHandler({
  apiKey: 90,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const mgr = broker.sharePartitions;
    const groups = await Promise.all(req.groups.map(async (g): Promise<DescribeShareGroupOffsetsResponseGroup> => {
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId)) return failedGroup(g.groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      let assigned: { topicId: string; topicName: string; partitions: number[] }[] | null;
      try {
        assigned = await broker.groupCoordinator.sharePartitionsOf(g.groupId);
      } catch (err) {
        if (!(err instanceof KafkaApiError)) throw err;
        return failedGroup(g.groupId, err.errorCode);
      }
      // An unknown group has no share-partitions (Kafka 4.4 answers it without an error).
      if (assigned === null) assigned = [];
      const wanted = g.topics ?? assigned.map((t) => ({ topicName: t.topicName, partitions: t.partitions }));
      const topics = [];
      for (const t of wanted) {
        const info = broker.metadataCache.topic(t.topicName);
        if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.topicName)) {
          if (g.topics === null) continue;
          topics.push({ topicName: t.topicName, topicId: info?.topicId ?? ZERO_UUID, partitions: t.partitions.map((p) => ({ partitionIndex: p, startOffset: -1n, leaderEpoch: -1, lag: -1n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null })) });
          continue;
        }
        const partitions = await Promise.all(t.partitions.map(async (p) => {
          if (!info || p < 0 || p >= info.partitions) return { partitionIndex: p, startOffset: -1n, leaderEpoch: -1, lag: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' };
          const o = await mgr.offsetsOf({ groupId: g.groupId, topicId: info.topicId, partition: p });
          return { partitionIndex: p, startOffset: BigInt(o.startOffset), leaderEpoch: o.leaderEpoch, lag: BigInt(o.lag), errorCode: ErrorCode.NONE, errorMessage: null };
        }));
        topics.push({ topicName: t.topicName, topicId: info?.topicId ?? ZERO_UUID, partitions });
      }
      return { groupId: g.groupId, topics, errorCode: ErrorCode.NONE, errorMessage: null };
    }));
    return { throttleTimeMs: 0, groups };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, groups: req.groups.map((g) => failedGroup(g.groupId, errorCode)) };
  },
});
