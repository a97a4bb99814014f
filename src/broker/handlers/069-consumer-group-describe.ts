/**
 * ConsumerGroupDescribe (key 69), versions 0-1: KIP-848 consumer groups as Kafka describes them
 * (the Java admin's describeConsumerGroups sends it first, and falls back to DescribeGroups on
 * GROUP_ID_NOT_FOUND, which is what classic and unknown groups answer, with Kafka's messages).
 *
 * Behavior: per group its state (Empty, Assigning, Reconciling, Stable), group epoch, target
 * assignment epoch, the assignor in use, and each member's epoch, subscription, current and
 * target assignment (topic ids and names). GROUP_AUTHORIZATION_FAILED without DESCRIBE on the
 * group, TOPIC_AUTHORIZATION_FAILED when a topic of an assignment is not describable; authorized operations (READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS without
 * ACLs) only when asked for, else INT_MIN.
 * Version notes: v1 (KIP-1099) member_type per member: 1 = consumer protocol.
 */
import { defineHandler } from '../handler.js';
import type { DescribedGroup } from '../../protocol/generated/messages/consumer-group-describe-response.js';
import { describeGroups } from './group-describe.js';

function failed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: -2147483648 };
}

export const consumerGroupDescribeHandler = defineHandler({
  apiKey: 69,
  async handle(ctx, req) {
    const groups = await describeGroups(ctx, req.groupIds, req.includeAuthorizedOperations, {
      describe: (groupId, ops) => ctx.broker.groupCoordinator.consumerGroupDescribe(groupId, ops),
      failed,
      // Kafka's handleConsumerGroupDescribe: every topic of an assignment or target must be describable.
      topicsOf: (g) => g.members.flatMap((m) => [...(m.assignment?.topicPartitions ?? []), ...(m.targetAssignment?.topicPartitions ?? [])].map((tp) => tp.topicName)),
    });
    return { throttleTimeMs: 0, groups };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, groups: req.groupIds.map((g) => failed(g, errorCode)) };
  },
});
