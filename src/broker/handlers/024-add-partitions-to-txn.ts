/**
 * AddPartitionsToTxn (key 24), versions 0-5: 0-3 from clients, 4-5 the batched broker form.
 *
 * Behavior (behaviours.md AP1-AP7): unknown transactional id or producer id mismatch:
 * INVALID_PRODUCER_ID_MAPPING for every partition; wrong epoch: PRODUCER_FENCED (v0-1:
 * INVALID_PRODUCER_EPOCH); PrepareCommit/PrepareAbort: CONCURRENT_TRANSACTIONS; an unknown
 * partition: UNKNOWN_TOPIC_OR_PARTITION for it and OPERATION_NOT_ATTEMPTED for the others
 * (nothing added); an internal topic (`__consumer_offsets`: offsets go through AddOffsetsToTxn)
 * is TOPIC_AUTHORIZATION_FAILED in the same way, as Kafka's handler refuses it before the
 * coordinator; otherwise the partitions join the transaction (Ongoing).
 *
 * v4-5 (partition leaders asking, broker/coordinators/add-partitions-to-txn-manager.ts): CLUSTER_ACTION
 * on the cluster, else CLUSTER_AUTHORIZATION_FAILED for the whole request; per transaction the same
 * partition checks (no topic ACLs: a broker asks), then VerifyOnly: is each partition in the ongoing
 * transaction (NONE, TRANSACTION_ABORTABLE (v4 too, as Kafka 4.4), INVALID_PRODUCER_ID_MAPPING,
 * PRODUCER_FENCED), or else the implicit add of transactions V2 (the transaction becomes V2).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { AddPartitionsToTxnRequest } from '../../protocol/generated/messages/add-partitions-to-txn-request.js';
import type { AddPartitionsToTxnResponse, AddPartitionsToTxnTopicResult } from '../../protocol/generated/messages/add-partitions-to-txn-response.js';
import { INTERNAL_TOPICS } from '../../cluster/topic-names.js';
import { AclOperation, authorize, authorizeCluster, deniedTopics, ResourceType } from './auth-helper.js';
import type { AddPartitionsToTxnResult } from '../../protocol/generated/messages/add-partitions-to-txn-response.js';
import { KafkaApiError } from '../../errors.js';
import type { RequestContext } from '../request-context.js';

function uniform(req: AddPartitionsToTxnRequest, code: number | ((topic: string, p: number) => number)): AddPartitionsToTxnTopicResult[] {
  return req.v3AndBelowTopics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: typeof code === 'number' ? code : code(t.name, p) })),
  }));
}

function respond(results: AddPartitionsToTxnTopicResult[]): AddPartitionsToTxnResponse {
  return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction: [], resultsByTopicV3AndBelow: results };
}

type Txn = AddPartitionsToTxnRequest['transactions'][number];

function perPartition(t: Txn, code: (topic: string, p: number) => number): AddPartitionsToTxnResult {
  return {
    transactionalId: t.transactionalId,
    topicResults: t.topics.map((tp) => ({ name: tp.name, resultsByPartition: tp.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(tp.name, p) })) })),
  };
}

/** One transaction of a v4-5 request (Kafka's handleAddPartitionsToTxnRequest for brokers). */
async function brokerTransaction(ctx: RequestContext, t: Txn, known: (topic: string, p: number) => boolean): Promise<AddPartitionsToTxnResult> {
  if (t.topics.some((tp) => tp.partitions.some((p) => !known(tp.name, p)))) {
    return perPartition(t, (topic, p) => (known(topic, p) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
  }
  const coordinator = ctx.broker.txnCoordinator;
  const partitions = t.topics.flatMap((tp) => tp.partitions.map((partition) => ({ topic: tp.name, partition })));
  const pid = Number(t.producerId);
  try {
    if (!t.verifyOnly) {
      const code = await coordinator.addPartitions(t.transactionalId, pid, t.producerEpoch, partitions, ErrorCode.PRODUCER_FENCED, true);
      return perPartition(t, () => code);
    }
    const codes = await coordinator.verifyPartitions(t.transactionalId, pid, t.producerEpoch, partitions);
    let i = 0;
    return perPartition(t, () => {
      const code = codes[i++];
      return code === ErrorCode.INVALID_TXN_STATE ? ErrorCode.TRANSACTION_ABORTABLE : code === ErrorCode.INVALID_PRODUCER_EPOCH ? ErrorCode.PRODUCER_FENCED : code;
    });
  } catch (err) {
    if (!(err instanceof KafkaApiError)) throw err;
    return perPartition(t, () => err.errorCode);
  }
}

export const addPartitionsToTxnHandler = defineHandler({
  apiKey: 24,
  async handle(ctx, req) {
    const broker = ctx.broker;
    // The cluster's metadata decides (Kafka's metadataCache.contains): the coordinator need not
    // host a replica of the partition; its leader gets the marker through WriteTxnMarkers.
    const known = (topic: string, p: number): boolean => {
      const info = broker.metadataCache.topic(topic);
      return !!info && p >= 0 && p < info.partitions;
    };
    if (ctx.apiVersion >= 4) {
      if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, resultsByTransaction: [], resultsByTopicV3AndBelow: [] };
      const resultsByTransaction = await Promise.all(req.transactions.map((t) => brokerTransaction(ctx, t, known)));
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, resultsByTransaction, resultsByTopicV3AndBelow: [] };
    }
    // ACLs: WRITE on the transactional id, then WRITE on each topic (Kafka's handleAddPartitionsToTxnRequest).
    if (!authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.v3AndBelowTransactionalId)) {
      return respond(uniform(req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
    }
    const denied = deniedTopics(ctx, AclOperation.WRITE, req.v3AndBelowTopics);
    if (denied) {
      return respond(uniform(req, (t, p) => (denied.has(t) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : known(t, p) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)));
    }
    if (req.v3AndBelowTopics.some((t) => INTERNAL_TOPICS.has(t.name))) {
      return respond(uniform(req, (t) => (INTERNAL_TOPICS.has(t) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.OPERATION_NOT_ATTEMPTED)));
    }
    if (req.v3AndBelowTopics.some((t) => t.partitions.some((p) => !known(t.name, p)))) {
      return respond(uniform(req, (t, p) => (known(t, p) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)));
    }
    const fenced = ctx.apiVersion >= 2 ? ErrorCode.PRODUCER_FENCED : ErrorCode.INVALID_PRODUCER_EPOCH;
    const partitions = req.v3AndBelowTopics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
    const code = await broker.txnCoordinator.addPartitions(req.v3AndBelowTransactionalId, Number(req.v3AndBelowProducerId), req.v3AndBelowProducerEpoch, partitions, fenced);
    return respond(uniform(req, code));
  },
  errorResponse(req, errorCode) {
    if (req.transactions.length > 0) return { throttleTimeMs: 0, errorCode, resultsByTransaction: [], resultsByTopicV3AndBelow: [] };
    return respond(uniform(req, errorCode));
  },
});
