/**
 * AlterShareGroupOffsets (key 91), version 0: moves share-partitions' start offsets
 * (`kafka-share-groups --reset-offsets`, the Java admin's alterShareGroupOffsets).
 *
 * Behavior: the group must be an empty share group (NON_EMPTY_GROUP while it has members,
 * GROUP_ID_NOT_FOUND when it is another kind of group; a group that does not exist is created); each named partition's state is reset to the
 * new start offset with a new state epoch (in-flight records forgotten) and the partition counts
 * as initialised for the group. Per partition: UNKNOWN_TOPIC_OR_PARTITION for an unknown topic or
 * partition. ACLs: READ on the group, READ on each topic (TOPIC_AUTHORIZATION_FAILED).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { AlterShareGroupOffsetsResponse } from '../../protocol/generated/messages/alter-share-group-offsets-response.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { ZERO_UUID } from '../../protocol/reader.js';

function failed(errorCode: number, errorMessage: string | null = null): AlterShareGroupOffsetsResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage, responses: [] };
}

export const alterShareGroupOffsetsHandler = defineHandler({
  apiKey: 91,
  async handle(ctx, req) {
    const broker = ctx.broker;
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return failed(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    // A group that does not exist yet is created empty (as Kafka 4.4 does); another kind of group is not a share group.
    if (!(await broker.groupCoordinator.createEmptyShareGroup(req.groupId))) return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} is not a share group.`);
    const empty = await broker.groupCoordinator.shareGroupEmpty(req.groupId);
    if (empty === null) return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${req.groupId} not found.`);
    if (!empty) return failed(ErrorCode.NON_EMPTY_GROUP, 'The group is not empty.');
    const mgr = broker.sharePartitions;
    const initialized: { topicId: string; topicName: string; partitions: number[] }[] = [];
    const responses: AlterShareGroupOffsetsResponse['responses'] = [];
    for (const t of req.topics) {
      const info = broker.metadataCache.topic(t.topicName);
      const readable = authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.topicName);
      const done: number[] = [];
      const partitions = await Promise.all(t.partitions.map(async (p) => {
        if (!readable) return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null };
        if (!info || p.partitionIndex < 0 || p.partitionIndex >= info.partitions) return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: 'This server does not host this topic-partition.' };
        await mgr.reset({ groupId: req.groupId, topicId: info.topicId, partition: p.partitionIndex }, Number(p.startOffset));
        done.push(p.partitionIndex);
        return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null };
      }));
      if (info && done.length > 0) initialized.push({ topicId: info.topicId, topicName: info.name, partitions: done });
      responses.push({ topicName: t.topicName, topicId: info?.topicId ?? ZERO_UUID, partitions });
    }
    if (initialized.length > 0) await broker.groupCoordinator.updateSharePartitions(req.groupId, initialized, []);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses };
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
