/**
 * SyncGroup (key 14), versions 0-5.
 *
 * Behavior (behaviours.md S1-S8): unknown group or member UNKNOWN_MEMBER_ID; wrong generation
 * ILLEGAL_GENERATION; protocol type/name different from the group's INCONSISTENT_GROUP_PROTOCOL;
 * PreparingRebalance REBALANCE_IN_PROGRESS; in CompletingRebalance the answer waits until the
 * leader's assignment is written; Stable answers the stored assignment at once.
 * Version notes: v3 group_instance_id; v4 flexible; v5 protocol_type/protocol_name in request
 * (null there: INCONSISTENT_GROUP_PROTOCOL, as KafkaApis checks) and response.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { errorSyncResponse } from '../../coordinator/group/classic-group.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const syncGroupHandler = defineHandler({
  apiKey: 14,
  async handle(ctx, req) {
    if (req.groupId === '') return errorSyncResponse(ErrorCode.INVALID_GROUP_ID);
    if (ctx.apiVersion >= 5 && (req.protocolType === null || req.protocolName === null)) {
      return errorSyncResponse(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    }
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return errorSyncResponse(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    return ctx.broker.groupCoordinator.syncGroup(req);
  },
  errorResponse(_req, errorCode) {
    return errorSyncResponse(errorCode);
  },
});
