/**
 * ConsumerGroupHeartbeat (key 68), versions 0-1: the KIP-848 consumer group protocol (Java
 * client 4.x and librdkafka 2.12+ with group.protocol=consumer).
 *
 * Behavior: member epoch 0 joins (or rejoins), a positive epoch heartbeats, -1 leaves, -2 is a
 * static member leaving for a while (it keeps its partitions until its session expires). Each
 * answer carries the member epoch, the heartbeat interval (group.consumer.heartbeat.interval.ms)
 * and, when it changed, the member's assignment; the coordinator computes the target assignment
 * with a server-side assignor (uniform, range) and moves partitions one member at a time
 * (coordinator/group/consumer-group-manager.ts). Errors as Kafka's: INVALID_REQUEST with Kafka's
 * messages for malformed requests, UNSUPPORTED_ASSIGNOR, INVALID_REGULAR_EXPRESSION,
 * GROUP_ID_NOT_FOUND, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID,
 * FENCED_INSTANCE_ID, GROUP_MAX_SIZE_REACHED; GROUP_AUTHORIZATION_FAILED without READ on the group,
 * TOPIC_AUTHORIZATION_FAILED when a subscribed topic name is not describable (regex subscriptions
 * are not filtered by ACLs: docs/gaps.md).
 * Version notes: v0 the coordinator makes the member id of a joining member; v1 (KIP-1082) the
 * member makes it (an empty one is INVALID_REQUEST) and subscribed_topic_regex (RE2/J syntax,
 * evaluated on the broker).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/generated/messages/consumer-group-heartbeat-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { clientHost } from './011-join-group.js';

const TOPIC_AUTHORIZATION_MESSAGE = 'Not authorized to access topics: [Topic authorization failed.]';

function failed(errorCode: number, errorMessage: string | null = null): ConsumerGroupHeartbeatResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export const consumerGroupHeartbeatHandler = defineHandler({
  apiKey: 68,
  async handle(ctx, req) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    // Kafka's handleConsumerGroupHeartbeat: every subscribed topic name must be describable.
    if (req.subscribedTopicNames !== null && req.subscribedTopicNames.some((t) => !authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t))) {
      return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, TOPIC_AUTHORIZATION_MESSAGE);
    }
    return ctx.broker.groupCoordinator.consumerGroupHeartbeat(
      { apiVersion: ctx.apiVersion, clientId: ctx.clientId ?? '', clientHost: clientHost(ctx.remoteAddress) },
      req,
    );
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
