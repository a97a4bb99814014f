/**
 * DeleteGroups (key 42), versions 0-2.
 *
 * Behavior (behaviours.md G4-G7): an Empty group (including offsets-only groups) is deleted with
 * its committed offsets (tombstones in __consumer_offsets); a group with members:
 * NON_EMPTY_GROUP; unknown: GROUP_ID_NOT_FOUND ("" is a group like any other, as in Kafka 4.4);
 * a group named twice gets one result. A share group's share-partition state goes with it
 * (DeleteShareGroupState through the persister).
 * Version notes: v2 flexible.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

export const deleteGroupsHandler = defineHandler({
  apiKey: 42,
  async handle(ctx, req) {
    const unique = [...new Set(req.groupsNames)];
    // ACLs: DELETE on each group, else GROUP_AUTHORIZATION_FAILED for it.
    const allowed = unique.filter((g) => authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, g));
    const coordinator = ctx.broker.groupCoordinator;
    // Share groups: their share-partitions, to forget once the group is gone.
    const shareState = new Map<string, { topicId: string; partitions: number[] }[]>();
    for (const g of allowed) {
      const parts = await coordinator.sharePartitionsOf(g).catch(() => null);
      if (parts) shareState.set(g, parts);
    }
    const deleted = allowed.length > 0 ? await coordinator.deleteGroups(allowed) : [];
    for (const r of deleted) {
      const parts = shareState.get(r.groupId);
      if (r.errorCode !== ErrorCode.NONE || !parts) continue;
      await ctx.broker.sharePartitions.forget(parts.flatMap((t) => t.partitions.map((partition) => ({ groupId: r.groupId, topicId: t.topicId, partition }))));
    }
    const codes = new Map<string, number>(deleted.map((r) => [r.groupId, r.errorCode]));
    for (const g of unique) if (!codes.has(g)) codes.set(g, ErrorCode.GROUP_AUTHORIZATION_FAILED);
    return {
      throttleTimeMs: 0,
      results: unique.map((groupId) => ({ groupId, errorCode: codes.get(groupId)!, errorMessage: null })),
    };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, results: [...new Set(req.groupsNames)].map((groupId) => ({ groupId, errorCode, errorMessage: null })) };
  },
});
