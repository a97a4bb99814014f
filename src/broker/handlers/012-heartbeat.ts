/**
 * Heartbeat (key 12), versions 0-4.
 *
 * Behavior (behaviours.md H1-H7): PreparingRebalance REBALANCE_IN_PROGRESS (the session timer is
 * still refreshed); CompletingRebalance/Stable NONE; unknown group or member UNKNOWN_MEMBER_ID;
 * known member with another generation ILLEGAL_GENERATION; group_id "" INVALID_GROUP_ID.
 * Version notes: v1 throttle time; v3 group_instance_id; v4 flexible.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const heartbeatHandler = defineHandler({
  apiKey: 12,
  async handle(ctx, req) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    if (req.groupId === '') return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID };
    return { throttleTimeMs: 0, errorCode: await ctx.broker.groupCoordinator.heartbeat(req) };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode };
  },
});
