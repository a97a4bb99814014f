/**
 * ShareGroupDescribe (key 77), version 1: share groups as Kafka describes them (the Java admin's
 * describeShareGroups, `kafka-share-groups --describe`).
 *
 * Behavior: per group its state (Empty, Stable), group epoch, target assignment epoch, the
 * assignor ("simple") and each member's epoch, rack, client, subscription and assignment (topic
 * ids and names). GROUP_ID_NOT_FOUND for unknown groups and for classic or consumer groups
 * ("Group X is not a share group."); GROUP_AUTHORIZATION_FAILED without DESCRIBE on the group,
 * TOPIC_AUTHORIZATION_FAILED when a topic of an assignment is not describable; authorized
 * operations only when asked for, else INT_MIN.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribedGroup } from '../../protocol/generated/messages/share-group-describe-response.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../../coordinator/group/group-metadata-manager.js';
import { KafkaApiError } from '../../errors.js';
import { AclOperation, authorize, authorizedOperations, ResourceType } from '../../security/authz.js';

function failed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: -2147483648 };
}

export const shareGroupDescribeHandler = defineHandler({
  apiKey: 77,
  async handle(ctx, req) {
    const groups = await Promise.all(req.groupIds.map(async (groupId) => {
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const ops = !req.includeAuthorizedOperations ? null
        : ctx.broker.authorizer != null ? authorizedOperations(ctx, ResourceType.GROUP, groupId, GROUP_AUTHORIZED_OPERATIONS) : GROUP_AUTHORIZED_OPERATIONS;
      try {
        const g = await ctx.broker.groupCoordinator.shareGroupDescribe(groupId, ops);
        const topics = g.members.flatMap((m) => (m.assignment?.topicPartitions ?? []).map((tp) => tp.topicName));
        if (topics.some((t) => !authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t))) {
          return failed(groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'The group has described topic(s) that the client is not authorized to describe.');
        }
        return g;
      } catch (err) {
        if (!(err instanceof KafkaApiError)) throw err;
        return failed(groupId, err.errorCode);
      }
    }));
    return { throttleTimeMs: 0, groups };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, groups: req.groupIds.map((g) => failed(g, errorCode)) };
  },
});
