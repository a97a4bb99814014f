/**
 * ShareGroupHeartbeat (key 76), version 1: KIP-932 share group membership (the Java client's
 * KafkaShareConsumer 4.x, librdkafka 2.15+'s share consumer).
 *
 * Behavior: member epoch 0 joins (the member makes its id; an empty one is INVALID_REQUEST), a
 * positive epoch heartbeats, -1 leaves. Each answer carries the member epoch, the heartbeat
 * interval (share.heartbeat.interval.ms of the group, else group.share.heartbeat.interval.ms) and,
 * when it changed, the member's assignment, computed on the coordinator by the simple assignor
 * (coordinator/group/share-group-manager.ts). Share members do not own partitions: a partition
 * may be assigned to several members, the share-partition leader shares its records out.
 * Errors as Kafka's: INVALID_REQUEST with Kafka's messages, GROUP_ID_NOT_FOUND for a classic or
 * consumer group of that id, UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, GROUP_MAX_SIZE_REACHED
 * (group.share.max.size); GROUP_AUTHORIZATION_FAILED without READ on the group,
 * TOPIC_AUTHORIZATION_FAILED when a subscribed topic is not describable.
 * Version notes: v0 (Kafka 4.0 early access) was removed by Kafka 4.1; v1 is the stable version.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ShareGroupHeartbeatResponse } from '../../protocol/generated/messages/share-group-heartbeat-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { clientHost } from './011-join-group.js';

function failed(errorCode: number, errorMessage: string | null = null): ShareGroupHeartbeatResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

export const shareGroupHeartbeatHandler = defineHandler({
  apiKey: 76,
  async handle(ctx, req) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    if (req.subscribedTopicNames !== null && req.subscribedTopicNames.some((t) => !authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t))) {
      return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Not authorized to access topics: [Topic authorization failed.]');
    }
    return ctx.broker.groupCoordinator.shareGroupHeartbeat({ clientId: ctx.clientId ?? '', clientHost: clientHost(ctx.remoteAddress) }, req);
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
