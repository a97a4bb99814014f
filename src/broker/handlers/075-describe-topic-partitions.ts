/**
 * DescribeTopicPartitions (key 75), version 0 (KIP-966). The Java admin client (3.8+) describes
 * topics by name with it (after a DescribeCluster for the nodes), kafka-python 3.x too.
 *
 * Behavior (Kafka 4.4's DescribeTopicPartitionsRequestHandler + KRaftMetadataCache.describeTopicResponse,
 * checked against a real 4.4.0 broker):
 * - topics []: every topic, internal ones included (is_internal set), no entries for missing
 *   topics. Named topics: duplicates collapse; missing names answer UNKNOWN_TOPIC_OR_PARTITION,
 *   illegal ones INVALID_TOPIC_EXCEPTION (zero topic id, no partitions).
 * - Only topics whose name sorts at or after the cursor topic are considered, answered in name
 *   order (UTF-16 code unit order, as Java's String.compareTo). The cursor's partition index
 *   applies to the cursor topic only; every other topic starts at partition 0. A start beyond the
 *   partition count gives the topic with no partitions.
 * - Limit = max(1, min(response_partition_limit, max.request.partition.size.limit (2000))).
 *   Topics are filled in order until the limit: a topic cut short ends the response with
 *   next_cursor = (that topic, first partition left out); when the limit is used up exactly,
 *   next_cursor = (next topic considered, 0), even if that topic does not exist. Error entries
 *   take no room. start + limit wraps like a Java int (a cursor index near 2^31 yields a
 *   negative next_cursor index, as Kafka does).
 * - Whole-request INVALID_REQUEST: a cursor whose partition index is negative; with named topics,
 *   a cursor topic that is not among them (or sorts before itself, i.e. not requested). With
 *   topics [], a cursor on a missing topic is fine.
 * - A named "" without a cursor: Kafka fails with a NullPointerException (it compares each topic
 *   with the empty cursor name and then reads the null cursor) and answers UNKNOWN_SERVER_ERROR;
 *   Samsa answers the same. With a cursor, "" is INVALID_TOPIC_EXCEPTION.
 * - Whole-request errors (Kafka's DescribeTopicPartitionsRequest.getErrorResponse): one entry per
 *   requested name, in request order with duplicates, the error code, zero topic id, no
 *   partitions, authorized operations unset; no next_cursor.
 * - Each partition from the metadata cache, as Metadata answers it (leader, leader epoch, replicas,
 *   ISR, offline replicas = replicas whose broker is not registered; LEADER_NOT_AVAILABLE without a
 *   live leader), plus the partition state's eligible leader replicas and last known ELR (KIP-966,
 *   cluster/partition-change.ts): [] when there are none, never null (the Java client streams
 *   them). `kafka-topics.sh --describe` prints them as "Elr:" and "LastKnownElr:".
 * - topic_authorized_operations: always filled in (the request has no flag), on error entries for
 *   missing topics too: every TOPIC operation (no authorizer: READ, WRITE, CREATE, DELETE, ALTER,
 *   DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS = 3576).
 * - is_internal follows the name, as Kafka's Topic.isInternal: __consumer_offsets,
 *   __transaction_state, __share_group_state, also on UNKNOWN_TOPIC_OR_PARTITION entries.
 */
import { KafkaApiError } from '../../errors.js';
import { AclOperation, authorize, authorizedOperations, ResourceType } from './auth-helper.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type {
  Cursor, DescribeTopicPartitionsResponse, DescribeTopicPartitionsResponsePartition, DescribeTopicPartitionsResponseTopic,
} from '../../protocol/generated/messages/describe-topic-partitions-response.js';
import type { TopicRecord } from '../../cluster/metadata-store.js';
import { INTERNAL_TOPICS, topicNameProblem } from '../../cluster/topic-names.js';
import { ZERO_UUID } from '../../protocol/reader.js';

const NOT_PROVIDED = -2147483648;
/** AclOperation codes READ(3) WRITE(4) CREATE(5) DELETE(6) ALTER(7) DESCRIBE(8) DESCRIBE_CONFIGS(10) ALTER_CONFIGS(11). */
export const TOPIC_OPERATIONS = [3, 4, 5, 6, 7, 8, 10, 11].reduce((bits, op) => bits | (1 << op), 0);

/** Kafka's Topic.isInternal (4.x adds the share-group state topic). */
function internalName(name: string): boolean {
  return INTERNAL_TOPICS.has(name) || name === '__share_group_state';
}

function errorTopic(name: string, errorCode: number, ops: number): DescribeTopicPartitionsResponseTopic {
  return { errorCode, name, topicId: ZERO_UUID, isInternal: internalName(name), partitions: [], topicAuthorizedOperations: ops };
}

export const describeTopicPartitionsHandler = defineHandler({
  apiKey: 75,
  handle(ctx, req): DescribeTopicPartitionsResponse {
    const broker = ctx.broker;
    const cursor = req.cursor;
    const cursorTopic = cursor?.topicName ?? '';
    const all = req.topics.length === 0;
    const names = new Set<string>();
    const describable = (name: string) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name);
    if (all) {
      // ACLs: topics the principal may not describe are left out of "all", named ones fail below.
      for (const name of broker.metadataCache.topics.keys()) if (name >= cursorTopic && describable(name)) names.add(name);
    } else {
      for (const t of req.topics) if (t.name >= cursorTopic) names.add(t.name);
      if (cursor && !names.has(cursor.topicName)) {
        throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `DescribeTopicPartitionsRequest topic list should contain the cursor topic: ${cursor.topicName}`);
      }
    }
    if (cursor && cursor.partitionIndex < 0) {
      throw new KafkaApiError(ErrorCode.INVALID_REQUEST, `DescribeTopicPartitionsRequest cursor partition must be valid: ${cursor.topicName}-${cursor.partitionIndex}`);
    }
    if (!cursor && names.has('')) {
      throw new KafkaApiError(ErrorCode.UNKNOWN_SERVER_ERROR, 'the empty topic name without a cursor (Kafka 4.4 fails here with a NullPointerException)');
    }

    const cap = Number(broker.rawConfig['max.request.partition.size.limit']);
    let remaining = Math.max(Math.min(cap, req.responsePartitionLimit), 1);
    // From the metadata cache, as Metadata answers (leader, epochs, replicas, ISR, offline replicas).
    const partition = (info: TopicRecord, index: number): DescribeTopicPartitionsResponsePartition => {
      const state = broker.partitionState(info.topicId, index);
      const leaderAlive = state !== undefined && state.leader >= 0 && broker.isRegisteredBroker(state.leader);
      return {
        errorCode: leaderAlive ? ErrorCode.NONE : ErrorCode.LEADER_NOT_AVAILABLE, partitionIndex: index,
        leaderId: leaderAlive ? state.leader : -1, leaderEpoch: state?.leaderEpoch ?? -1,
        replicaNodes: [...(state?.replicas ?? [])], isrNodes: [...(state?.isr ?? [])],
        eligibleLeaderReplicas: [...(state?.elr ?? [])], lastKnownElr: [...(state?.lastKnownElr ?? [])],
        offlineReplicas: (state?.replicas ?? []).filter((id) => !broker.isRegisteredBroker(id)),
      };
    };
    const topics: DescribeTopicPartitionsResponseTopic[] = [];
    let nextCursor: Cursor | null = null;
    for (const name of [...names].sort()) {
      if (remaining === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      if (!describable(name)) {
        topics.push(errorTopic(name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, NOT_PROVIDED));
        continue;
      }
      const info: TopicRecord | undefined = broker.metadataCache.topic(name);
      if (!info) {
        // only named topics can be missing (topics [] lists existing ones)
        const code = topicNameProblem(name) ? ErrorCode.INVALID_TOPIC_EXCEPTION : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
        topics.push(errorTopic(name, code, TOPIC_OPERATIONS));
        continue;
      }
      const start = name === cursorTopic && cursor ? cursor.partitionIndex : 0;
      // Java int arithmetic: start + remaining may wrap to a negative end.
      const end = Math.min(info.partitions, (start + remaining) | 0);
      const partitions: DescribeTopicPartitionsResponsePartition[] = [];
      for (let p = start; p < end; p++) partitions.push(partition(info, p));
      topics.push({
        errorCode: ErrorCode.NONE, name, topicId: info.topicId, isInternal: info.isInternal || internalName(name),
        partitions, topicAuthorizedOperations: authorizedOperations(ctx, ResourceType.TOPIC, name, TOPIC_OPERATIONS),
      });
      if (end < info.partitions) {
        nextCursor = { topicName: name, partitionIndex: end };
        break;
      }
      remaining -= partitions.length;
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
  errorResponse(req, errorCode) {
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({ ...errorTopic(t.name, errorCode, NOT_PROVIDED), isInternal: false })),
      nextCursor: null,
    };
  },
});
