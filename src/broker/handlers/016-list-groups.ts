/**
 * ListGroups (key 16), versions 0-5.
 *
 * Behavior (behaviours.md G3): every group, including simple Empty groups made by offset commits
 * (protocol_type ""). v4+ states_filter is case-insensitive; unknown names match nothing. v5+
 * types_filter: every Samsa group is "classic".
 * Version notes: v1 throttle time; v3 flexible; v4 states filter and group_state; v5 types
 * filter and group_type.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

export const listGroupsHandler = defineHandler({
  apiKey: 16,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    const groups = await ctx.broker.groupCoordinator.listGroups(v >= 4 ? req.statesFilter : [], v >= 5 ? req.typesFilter : []);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, groups };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, groups: [] };
  },
});
