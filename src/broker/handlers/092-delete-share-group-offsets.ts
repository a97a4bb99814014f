/**
 * DeleteShareGroupOffsets (key 92), version 0: forgets a share group's state for whole topics
 * (`kafka-share-groups --delete-offsets`, the Java admin's deleteShareGroupOffsets).
 *
 * Behavior: the group must be an empty share group (NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND); each
 * named topic's share-partitions lose their state (the next member starts at
 * share.auto.offset.reset again) and leave the group's initialised partitions. Per topic:
 * UNKNOWN_TOPIC_OR_PARTITION for an unknown topic. ACLs: DELETE on the group, READ on each topic.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DeleteShareGroupOffsetsResponse } from '../../protocol/generated/messages/delete-share-group-offsets-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { ZERO_UUID } from '../../protocol/reader.js';

function failed(errorCode: number, errorMessage: string | null = null): DeleteShareGroupOffsetsResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage, responses: [] };
}

export const deleteShareGroupOffsetsHandler = defineHandler({
  apiKey: 92,
  async handle(ctx, req) {
    const broker = ctx.broker;
    if (!authorize(ctx, AclOperation.DELETE, ResourceType.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const empty = await broker.groupCoordinator.shareGroupEmpty(req.groupId);
    if (empty === null) return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    if (!empty) return failed(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.');
    const mgr = broker.sharePartitions;
    const removed: string[] = [];
    const responses: DeleteShareGroupOffsetsResponse['responses'] = [];
    for (const t of req.topics) {
      const info = broker.metadataCache.topic(t.topicName);
      if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.topicName)) {
        responses.push({ topicName: t.topicName, topicId: info?.topicId ?? ZERO_UUID, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null });
        continue;
      }
      if (!info) {
        responses.push({ topicName: t.topicName, topicId: ZERO_UUID, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' });
        continue;
      }
      const keys = Array.from({ length: info.partitions }, (_, partition) => ({ groupId: req.groupId, topicId: info.topicId, partition }));
      await mgr.forget(keys);
      removed.push(info.topicId);
      responses.push({ topicName: t.topicName, topicId: info.topicId, errorCode: ErrorCode.NONE, errorMessage: null });
    }
    if (removed.length > 0) await broker.groupCoordinator.updateSharePartitions(req.groupId, [], removed);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
