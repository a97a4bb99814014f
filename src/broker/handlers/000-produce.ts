/**
 * Produce (key 0), advertised 0-11; v0-2 (message formats 0/1) answered UNSUPPORTED_VERSION:
 * authorize, resolve the topics, hand the batches to the replica manager's data path
 * (replication/append-records.ts: batch checks, transaction verification, min.insync.replicas,
 * the append, acks=-1 waits, Samsa's topic features), and encode its answer. Kafka's
 * KafkaApis.handleProduceRequest.
 *
 * - Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION for that partition; Produce never
 *   creates topics. Internal topics: INVALID_TOPIC_EXCEPTION.
 * - acks outside {-1, 0, 1}: INVALID_REQUIRED_ACKS for every partition that passed the topic checks.
 * - acks=0: no response is written; if any partition failed the connection is closed instead,
 *   so the client notices and refreshes metadata.
 * - Transactional batches: a null transactional_id fails every partition with
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED (P22); with `transaction.partition.verification.enable`
 *   the coordinator checks the partition is in the producer's ongoing transaction (R8-R11).
 * - A partition this broker does not lead: NOT_LEADER_OR_FOLLOWER; from v10 with the current
 *   leader and its endpoint (KIP-951), so the client retries there at once.
 * - ACLs: WRITE on the transactional id (transactional batches), else TRANSACTIONAL_ID_AUTHORIZATION_FAILED
 *   for the whole request; WRITE on the topic, else TOPIC_AUTHORIZATION_FAILED for its partitions.
 * - producer_byte_rate (security/quotas.ts): throttle_time_ms above the quota, connection muted.
 * Version notes: v3 transactional_id; v5 log_start_offset; v7 zstd; v8 record_errors and
 * error_message; v9 flexible; v10 current_leader/node_endpoints tagged fields (KIP-951).
 */
import { KafkaApiError, ProtocolError } from '../../errors.js';
import { DeferredResponse, defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { PartitionProduceResponse } from '../../protocol/generated/messages/produce-response.js';
import type { ProduceRequest } from '../../protocol/generated/messages/produce-request.js';
import { INTERNAL_TOPICS } from '../../cluster/topic-names.js';
import { isTransactionalBatch, type AppendResult, type ProducePartition } from '../../replication/append-records.js';
import { currentLeaderOf, LeaderEndpoints } from '../leader-hints.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

function failed(index: number, errorCode: number): PartitionProduceResponse {
  return { index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: null, currentLeader: null };
}

function encode(index: number, r: AppendResult): PartitionProduceResponse {
  return {
    index, errorCode: r.errorCode, baseOffset: BigInt(r.baseOffset), logAppendTimeMs: BigInt(r.logAppendTimeMs), logStartOffset: BigInt(r.logStartOffset),
    recordErrors: r.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })), errorMessage: r.errorMessage, currentLeader: null,
  };
}

export const produceHandler = defineHandler({
  apiKey: 0,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const transactional = req.topicData.some((t) => t.partitionData.some((p) => isTransactionalBatch(p.records)));
    if (transactional && (req.transactionalId === null || !authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId))) {
      throw new KafkaApiError(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    const acksValid = req.acks === -1 || req.acks === 0 || req.acks === 1;
    const parts: ProducePartition[] = [];
    const slots = req.topicData.map((topic) => {
      const info = broker.metadata.get(topic.name);
      const writable = authorize(ctx, AclOperation.WRITE, ResourceType.TOPIC, topic.name);
      return topic.partitionData.map((p): PartitionProduceResponse | number => {
        if (!writable) return failed(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        if (!info || p.index < 0 || p.index >= info.partitions) return failed(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (INTERNAL_TOPICS.has(topic.name) && ctx.clientId !== '__admin_client') return failed(p.index, ErrorCode.INVALID_TOPIC_EXCEPTION);
        if (!acksValid) return failed(p.index, ErrorCode.INVALID_REQUIRED_ACKS);
        return parts.push({ topic: info, partition: p.index, records: p.records }) - 1;
      });
    });
    const txnId = req.transactionalId;
    const verify = txnId !== null && broker.rawConfig['transaction.partition.verification.enable' as keyof typeof broker.rawConfig] !== false
      ? (topic: string, partition: number, producerId: number, epoch: number) => broker.txnCoordinator.verifyPartition(txnId, producerId, epoch, topic, partition)
      : null;
    const { results, waits } = await broker.replicaManager.appendRecords({
      acks: req.acks, timeoutMs: req.timeoutMs, apiVersion: ctx.apiVersion, durable: broker.flushOnAcksAll, verify,
    }, parts);
    // producer_byte_rate (security/quotas.ts): throttle_time_ms above the quota, and the connection muted that long.
    let throttleTimeMs = 0;
    if (broker.quotas?.active) {
      let bytes = 0;
      for (const t of req.topicData) for (const p of t.partitionData) if (Buffer.isBuffer(p.records)) bytes += p.records.length;
      throttleTimeMs = broker.quotas.record('producer_byte_rate', ctx.principal, ctx.clientId, bytes);
      broker.quotas.throttle(ctx.connectionId, throttleTimeMs);
    }
    let hints = null as LeaderEndpoints | null;
    const respond = () => {
      const responses = req.topicData.map((t, ti) => ({
        name: t.name,
        partitionResponses: slots[ti].map((slot, pi) => {
          if (typeof slot !== 'number') return slot;
          const res = encode(t.partitionData[pi].index, results[slot]);
          // KIP-951: name the current leader so the client retries there without a Metadata call.
          if (results[slot].otherLeader && ctx.apiVersion >= 10) {
            res.currentLeader = currentLeaderOf(broker, parts[slot].topic.topicId, res.index);
            (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).add(res.currentLeader.leaderId);
          }
          return res;
        }),
      }));
      return { responses, throttleTimeMs, nodeEndpoints: hints?.list() ?? [] };
    };
    if (req.acks === 0) {
      if (parts.length < slots.flat().length || results.some((r) => r.errorCode !== ErrorCode.NONE)) throw new ProtocolError('acks=0 produce failed: closing the connection so the client refreshes metadata');
      return undefined;
    }
    // The batches are appended in request order; only the reply waits for the fsync or the
    // replication, so the connection reads its next request meanwhile and concurrent fsyncs are shared.
    if (waits.length > 0) return new DeferredResponse(Promise.all(waits).then(respond));
    return respond();
  },
  errorResponse(req: ProduceRequest, errorCode) {
    return {
      responses: req.topicData.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map((p) => failed(p.index, errorCode)) })),
      throttleTimeMs: 0,
      nodeEndpoints: [],
    };
  },
});
