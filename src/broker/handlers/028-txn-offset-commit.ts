/**
 * TxnOffsetCommit (key 28), versions 0-6 (v6: topics by id, KIP-1319; an unknown id UNKNOWN_TOPIC_ID).
 *
 * Behavior (behaviours.md TO1-TO9): the group's `__consumer_offsets` partition must be in the
 * producer's ongoing transaction (AddOffsetsToTxn first), else INVALID_TXN_STATE (v4:
 * TRANSACTION_ABORTABLE); wrong epoch INVALID_PRODUCER_EPOCH; unknown topic or partition:
 * UNKNOWN_TOPIC_OR_PARTITION for it; metadata above offset.metadata.max.bytes:
 * OFFSET_METADATA_TOO_LARGE. Accepted offsets are written at once to the group's
 * `__consumer_offsets` partition as the producer's transactional batch (Kafka's design) and stay
 * invisible to OffsetFetch until the COMMIT marker lands there; the ABORT marker drops them. Group membership is checked after the transaction (TO3-TO5): generation
 * -1 with no member is accepted, even on a group with members or in CompletingRebalance; a member
 * or generation that is given must be the group's (UNKNOWN_MEMBER_ID / FENCED_INSTANCE_ID /
 * ILLEGAL_GENERATION); a missing group with generation >= 0 is ILLEGAL_GENERATION.
 *
 * v5 (transactions V2, KIP-890 part 2, Kafka's addPartition operation when the request version is
 * 5 or more): no AddOffsetsToTxn precedes it; the group's `__consumer_offsets` partition is added
 * to the transaction here (one queued operation of the transactional id's coordinator shard,
 * retried while the previous transaction's markers are written), then the offsets are written.
 */
import { defineHandler } from '../handler.js';
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorize, deniedTopics, ResourceType } from './auth-helper.js';
import { withTopicNames } from './partition-results.js';
import { RETRIABLE_TXN_ANSWERS } from '../coordinators/add-partitions-to-txn-manager.js';
import type { TxnOffsetCommitRequest } from '../../protocol/generated/messages/txn-offset-commit-request.js';
import type { TxnOffsetCommitResponse } from '../../protocol/generated/messages/txn-offset-commit-response.js';
import type { PendingOffset } from '../../coordinator/txn/txn-coordinator.js';
import { OFFSETS_TOPIC } from '../../coordinator/group/group-coordinator.js';

function uniform(req: TxnOffsetCommitRequest, code: (topic: TxnOffsetCommitRequest['topics'][number], p: number) => number): TxnOffsetCommitResponse {
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code(t, p.partitionIndex) })) })),
  };
}

export const txnOffsetCommitHandler = defineHandler({
  apiKey: 28,
  async handle(ctx, rawReq) {
    const broker = ctx.broker;
    // v6 names topics by id (KIP-1319): an unknown id is UNKNOWN_TOPIC_ID for its partitions.
    const unknownIds = new Set<string>();
    const req = ctx.apiVersion >= 6 ? { ...rawReq, topics: withTopicNames(broker.metadataCache, rawReq.topics, unknownIds) } : rawReq;
    // ACLs: WRITE on the transactional id, READ on the group, READ on each topic.
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)) return uniform(req, () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, req.groupId)) return uniform(req, () => ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const denied = deniedTopics(ctx, AclOperation.READ, req.topics.filter((t) => !unknownIds.has(t.topicId)));
    const maxMeta = broker.groupCoordinator.config.offsetMetadataMaxBytes;
    const perPartition = new Map<string, number>();
    const offsets: PendingOffset[] = [];
    for (const t of req.topics) {
      const info = broker.metadataCache.topic(t.name);
      for (const p of t.partitions) {
        const k = `${t.name}\u0000${p.partitionIndex}`;
        if (unknownIds.has(t.topicId)) continue;
        if (denied?.has(t.name)) perPartition.set(k, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        else if (!info || p.partitionIndex < 0 || p.partitionIndex >= info.partitions) perPartition.set(k, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        else if (Buffer.byteLength(p.committedMetadata ?? '', 'utf8') > maxMeta) perPartition.set(k, ErrorCode.OFFSET_METADATA_TOO_LARGE);
        else offsets.push({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata: p.committedMetadata ?? '' });
      }
    }
    let code: number = ErrorCode.NONE;
    if (offsets.length > 0) {
      const notAdded = ctx.apiVersion >= 4 ? ErrorCode.TRANSACTION_ABORTABLE : ErrorCode.INVALID_TXN_STATE;
      const producer = { producerId: Number(req.producerId), producerEpoch: req.producerEpoch };
      // Kafka verifies the transaction first at its coordinator (v5: adds the group's offsets
      // partition to it, transactions V2), then validates the group and appends in one write of
      // the group's shard.
      await broker.groupCoordinator.ensureActive();
      const offsetsPartition = broker.groupCoordinator.partitionFor(req.groupId);
      code = await broker.addPartitionsToTxn.addOrVerify(req.transactionalId, producer.producerId, producer.producerEpoch,
        { topic: OFFSETS_TOPIC, partition: offsetsPartition }, ctx.apiVersion >= 5 ? 'add' : 'verify');
      // Still completing the previous transaction or the coordinator moving: the client looks the
      // group coordinator up again and retries.
      if (RETRIABLE_TXN_ANSWERS.has(code)) code = ErrorCode.COORDINATOR_NOT_AVAILABLE;
      else if (code === ErrorCode.INVALID_TXN_STATE) code = notAdded;
      if (code === ErrorCode.NONE) {
        try {
          const member = { groupId: req.groupId, generationId: req.generationIdOrMemberEpoch, memberId: req.memberId, groupInstanceId: req.groupInstanceId };
          code = await broker.groupCoordinator.txnOffsetCommit(member, producer, offsets);
        } catch (err) {
          if (!(err instanceof KafkaApiError)) throw err;
          code = err.errorCode;
        }
      }
      if (code === ErrorCode.PRODUCER_FENCED) code = ErrorCode.INVALID_PRODUCER_EPOCH;
    }
    return uniform(req, (t, p) => (unknownIds.has(t.topicId) ? ErrorCode.UNKNOWN_TOPIC_ID : perPartition.get(`${t.name}\u0000${p}`) ?? code));
  },
  errorResponse(req, errorCode) {
    return uniform(req, () => errorCode);
  },
});
