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
import type { OffsetDeleteRequest } from '../../protocol/generated/messages/offset-delete-request.js';

function failed(req: OffsetDeleteRequest, errorCode: number) {
  return { errorCode, throttleTimeMs: 0, topics: [] };
}

export const offsetDeleteHandler = defineHandler({
  apiKey: 47,
  async handle(ctx, req) {
    if (req.groupId === '') return failed(req, ErrorCode.INVALID_GROUP_ID);
    const res = await ctx.broker.groupCoordinator.deleteOffsets(req.groupId, existingPartitions(ctx.broker.metadata, req.topics));
    if (res.errorCode !== ErrorCode.NONE) return failed(req, res.errorCode);
    return { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: codesInRequestOrder(req.topics, res.topics) };
  },
  errorResponse(req, errorCode) {
    return failed(req, errorCode);
  },
});
