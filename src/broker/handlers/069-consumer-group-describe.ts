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
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribedGroup } from '../../protocol/generated/messages/consumer-group-describe-response.js';
import { GROUP_AUTHORIZED_OPERATIONS } from '../../coordinator/group/group-metadata-manager.js';
import { KafkaApiError } from '../../errors.js';
import { AclOperation, authorize, authorizedOperations, ResourceType } from '../../security/authz.js';

function failed(groupId: string, errorCode: number, errorMessage: string | null = null): DescribedGroup {
  return { errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: -2147483648 };
}

export const consumerGroupDescribeHandler = defineHandler({
  apiKey: 69,
  async handle(ctx, req) {
    const coordinator = ctx.broker.groupCoordinator;
    const groups = await Promise.all(req.groupIds.map(async (groupId) => {
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return failed(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED);
      const ops = !req.includeAuthorizedOperations ? null
        : ctx.broker.authorizer != null ? authorizedOperations(ctx, ResourceType.GROUP, groupId, GROUP_AUTHORIZED_OPERATIONS) : GROUP_AUTHORIZED_OPERATIONS;
      try {
        const g = await coordinator.consumerGroupDescribe(groupId, ops);
        // Kafka's handleConsumerGroupDescribe: every topic of an assignment or target must be describable.
        const topics = g.members.flatMap((m) => [...(m.assignment?.topicPartitions ?? []), ...(m.targetAssignment?.topicPartitions ?? [])].map((tp) => tp.topicName));
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
