/**
 * OffsetDelete (key 47), version 0.
 *
 * Behavior (Kafka's GroupCoordinator deleteOffsets): unknown group GROUP_ID_NOT_FOUND; a group
 * with members that does not speak the consumer protocol NON_EMPTY_GROUP (top level); in a
 * consumer group with members, partitions of subscribed topics GROUP_SUBSCRIBED_TO_TOPIC; unknown
 * topic or partition UNKNOWN_TOPIC_OR_PARTITION; the rest are deleted (tombstones).
 */
import { defineHandler } from '../handler.js';
import { codesInRequestOrder, existingPartitions } from './partition-results.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, deniedTopics, ResourceType } from './auth-helper.js';
import type { OffsetDeleteRequest } from '../../protocol/generated/messages/offset-delete-request.js';

function failed(req: OffsetDeleteRequest, errorCode: number) {
  return { errorCode, throttleTimeMs: 0, topics: [] };
}

export const offsetDeleteHandler = defineHandler({
  apiKey: 47,
  async handle(ctx, req) {
    if (req.groupId === '') return failed(req, ErrorCode.INVALID_GROUP_ID);
    // ACLs: DELETE on the group, READ on each topic.
    if (!authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, req.groupId)) return failed(req, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const denied = deniedTopics(ctx, AclOperation.READ, req.topics);
    const allowed = denied ? req.topics.filter((t) => !denied.has(t.name)) : req.topics;
    const res = await ctx.broker.groupCoordinator.deleteOffsets(req.groupId, existingPartitions(ctx.broker.metadataCache, allowed));
    if (res.errorCode !== ErrorCode.NONE) return failed(req, res.errorCode);
    const topics = codesInRequestOrder(req.topics, res.topics);
    if (denied) for (const t of topics) if (denied.has(t.name)) for (const p of t.partitions) p.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics };
  },
  errorResponse(req, errorCode) {
    return failed(req, errorCode);
  },
});
