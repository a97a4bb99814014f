/**
 * ListGroups (key 16), versions 0-5.
 *
 * Behavior (behaviours.md G3): every group, including simple Empty groups made by offset commits
 * (protocol_type ""). v4+ states_filter is case-insensitive; unknown names match nothing. v5+
 * types_filter: "classic" or "consumer" (KIP-848 groups), case-insensitive.
 * Version notes: v1 throttle time; v3 flexible; v4 states filter and group_state; v5 types
 * filter and group_type.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, authorizeCluster, ResourceType } from './auth-helper.js';

export const listGroupsHandler = defineHandler({
  apiKey: 16,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    let groups = await ctx.broker.groupCoordinator.listGroups(v >= 4 ? req.statesFilter : [], v >= 5 ? req.typesFilter : []);
    // ACLs: DESCRIBE on the cluster lists every group, else only the groups the principal may describe.
    if (ctx.broker.authorizer != null && !authorizeCluster(ctx, AclOperation.DESCRIBE)) {
      groups = groups.filter((g) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, g.groupId));
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, groups: [] };
  },
});
