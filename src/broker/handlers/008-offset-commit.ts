/**
 * OffsetCommit (key 8), versions 2-10.
 *
 * Behavior (behaviours.md OC1-OC10):
 * - group_id "" is a group like any other (Kafka 4.4 commits to it). Unknown topic or partition
 *   index: UNKNOWN_TOPIC_OR_PARTITION for those partitions; the rest is committed.
 * - Generation -1 without member id (assign mode: kcat, librdkafka assign()) commits to an Empty
 *   or missing group (a missing one becomes a simple Empty group); otherwise the member must be
 *   known (UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID) and of the current generation
 *   (ILLEGAL_GENERATION); CompletingRebalance gives REBALANCE_IN_PROGRESS.
 * - Generation >= 0 to a missing group: ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from v9.
 * - Metadata longer than offset.metadata.max.bytes: OFFSET_METADATA_TOO_LARGE (that partition).
 * Version notes: v2-4 retention_time_ms (-1: offsets.retention.minutes); v3 throttle time; v6
 * committed_leader_epoch; v7 group_instance_id; v8 flexible; v9 (KIP-848) memberEpoch naming;
 * v10 names topics by id (an id the cluster does not know: UNKNOWN_TOPIC_ID for its partitions).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, deniedTopics, ResourceType } from './auth-helper.js';
import { codesInRequestOrder, existingPartitions, withTopicNames } from './partition-results.js';
import type { OffsetCommitRequest } from '../../protocol/generated/messages/offset-commit-request.js';
import type { OffsetCommitResponseTopic } from '../../protocol/generated/messages/offset-commit-response.js';

function everyPartition(req: OffsetCommitRequest, errorCode: number): OffsetCommitResponseTopic[] {
  return req.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) }));
}

export const offsetCommitHandler = defineHandler({
  apiKey: 8,
  async handle(ctx, rawReq) {
    // ACLs: READ on the group (else every partition GROUP_AUTHORIZATION_FAILED), READ on each topic.
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, rawReq.groupId)) return { throttleTimeMs: 0, topics: everyPartition(rawReq, ErrorCode.GROUP_AUTHORIZATION_FAILED) };
    const unknownIds = new Set<string>();
    const req = ctx.apiVersion >= 10 ? { ...rawReq, topics: withTopicNames(ctx.broker.metadataCache, rawReq.topics, unknownIds) } : rawReq;
    const known = unknownIds.size === 0 ? req.topics : req.topics.filter((t) => !unknownIds.has(t.topicId));
    const denied = deniedTopics(ctx, AclOperation.READ, known);
    const allowed = denied ? known.filter((t) => !denied.has(t.name)) : known;
    const valid = existingPartitions(ctx.broker.metadataCache, allowed).filter((t) => t.partitions.length > 0);
    const committed = valid.length === 0 ? [] : await ctx.broker.groupCoordinator.commitOffsets({
      groupId: req.groupId,
      generationId: req.generationIdOrMemberEpoch,
      memberId: req.memberId,
      groupInstanceId: req.groupInstanceId,
      retentionTimeMs: ctx.apiVersion <= 4 ? Number(req.retentionTimeMs) : -1,
      topics: valid,
    }, ctx.apiVersion);
    const topics = codesInRequestOrder(req.topics, committed);
    for (const t of topics) {
      const code = unknownIds.has(t.topicId) ? ErrorCode.UNKNOWN_TOPIC_ID : denied?.has(t.name) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.NONE;
      if (code !== ErrorCode.NONE) for (const p of t.partitions) p.errorCode = code;
    }
    return { throttleTimeMs: 0, topics };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, topics: everyPartition(req, errorCode) };
  },
});
