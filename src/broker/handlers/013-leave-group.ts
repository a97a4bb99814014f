/**
 * LeaveGroup (key 13), versions 0-5.
 *
 * Behavior (behaviours.md LG1-LG6): members leave and the group rebalances (the last one makes
 * it Empty). v3+ answers per member (unknown: UNKNOWN_MEMBER_ID, wrong id for an instance:
 * FENCED_INSTANCE_ID) with a top-level NONE; v0-2 name one member and lift its error to the top
 * level. A member_id "" with a group_instance_id removes that static member (admin removal).
 * Version notes: v1 throttle time; v3 batched members with group_instance_id; v4 flexible; v5
 * reason.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import type { LeaveGroupRequest } from '../../protocol/generated/messages/leave-group-request.js';

function leaving(req: LeaveGroupRequest, v: number) {
  return v >= 3
    ? req.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId }))
    : [{ memberId: req.memberId, groupInstanceId: null }];
}

export const leaveGroupHandler = defineHandler({
  apiKey: 13,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, members: [] };
    if (req.groupId === '') return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_GROUP_ID, members: [] };
    const res = await ctx.broker.groupCoordinator.leaveGroup(req.groupId, leaving(req, v));
    if (v >= 3) return { throttleTimeMs: 0, errorCode: res.errorCode, members: res.members };
    const single = res.members[0]?.errorCode ?? ErrorCode.NONE;
    return { throttleTimeMs: 0, errorCode: res.errorCode !== ErrorCode.NONE ? res.errorCode : single, members: [] };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, members: [] };
  },
});
