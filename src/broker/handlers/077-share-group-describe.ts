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
import type { DescribedGroup } from '../../protocol/generated/messages/share-group-describe-response.js';
import { describeGroups } from './group-describe.js';

function failed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: -2147483648 };
}

export const shareGroupDescribeHandler = defineHandler({
  apiKey: 77,
  async handle(ctx, req) {
    const groups = await describeGroups(ctx, req.groupIds, req.includeAuthorizedOperations, {
      describe: (groupId, ops) => ctx.broker.groupCoordinator.shareGroupDescribe(groupId, ops),
      failed,
      topicsOf: (g) => g.members.flatMap((m) => (m.assignment?.topicPartitions ?? []).map((tp) => tp.topicName)),
    });
    return { throttleTimeMs: 0, groups };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, groups: req.groupIds.map((g) => failed(g, errorCode)) };
  },
});
