/**
 * Produce (key 0), advertised 0-12; v0-2 (message formats 0/1) answered UNSUPPORTED_VERSION.
 * Kafka's KafkaApis.handleProduceRequest: authorize, resolve, hand the batches to the replica
 * manager (replication/append-records.ts: batch checks, transaction verification,
 * min.insync.replicas, the append, acks=-1 waits, Samsa's topic features), encode.
 * - Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION (Produce never creates topics);
 *   acks outside {-1, 0, 1} INVALID_REQUIRED_ACKS (before the internal-topic check, P3); internal topics
 *   INVALID_TOPIC_EXCEPTION.
 * - acks=0: no response; if any partition failed the connection is closed instead, so the client
 *   refreshes metadata.
 * - Transactional batches need a transactional_id (P22) the principal may WRITE, else
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED for the whole request; topics need WRITE.
 * - NOT_LEADER_OR_FOLLOWER names the current leader from v10 (KIP-951); producer_byte_rate throttles.
 * Versions: v3 transactional_id; v5 log_start_offset; v7 zstd; v8 record_errors; v9 flexible;
 * v11 TRANSACTION_ABORTABLE; v12 (same fields) adds a transactional batch's partition to the
 * transaction when transaction.version 2 is finalized (transactions V2, KIP-890 part 2).
 */
import { KafkaApiError, ProtocolError } from '../../errors.js';
import { DeferredResponse, defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { PartitionProduceResponse } from '../../protocol/generated/messages/produce-response.js';
import { INTERNAL_TOPICS } from '../../cluster/topic-names.js';
import { transactionVersionOf } from '../../cluster/features.js';
import { appendFailed, isTransactionalBatch, type AppendResult, type ProducePartition } from '../../replication/append-records.js';
import { LeaderEndpoints } from '../leader-hints.js';
import { RETRIABLE_TXN_ANSWERS } from '../coordinators/add-partitions-to-txn-manager.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';

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
    const txnId = req.transactionalId;
    if (req.topicData.some((t) => t.partitionData.some((p) => isTransactionalBatch(p.records))) && (txnId === null || !authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, txnId))) {
      throw new KafkaApiError(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    const parts: ProducePartition[] = [];
    // v13 names topics by id (KIP-516): an unknown id is UNKNOWN_TOPIC_ID, as Kafka answers.
    const byId = ctx.apiVersion >= 13;
    const infos = req.topicData.map((topic) => (byId ? broker.metadataCache.topicById(topic.topicId) : broker.metadataCache.topic(topic.name)));
    const slots = req.topicData.map((topic, ti) => {
      const info = infos[ti];
      const name = byId ? info?.name : topic.name;
      const writable = name !== undefined && authorize(ctx, AclOperation.WRITE, ResourceType.TOPIC, name);
      return topic.partitionData.map((p): AppendResult | number => {
        if (byId && !info) return appendFailed(ErrorCode.UNKNOWN_TOPIC_ID);
        if (!writable) return appendFailed(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        if (!info || p.index < 0 || p.index >= info.partitions) return appendFailed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (req.acks !== -1 && req.acks !== 0 && req.acks !== 1) return appendFailed(ErrorCode.INVALID_REQUIRED_ACKS);
        if (INTERNAL_TOPICS.has(info.name) && ctx.clientId !== '__admin_client') return appendFailed(ErrorCode.INVALID_TOPIC_EXCEPTION);
        return parts.push({ topic: info, partition: p.index, records: p.records }) - 1;
      });
    });
    // Transactional batches: v12+ on a cluster that finalized transaction.version 2 adds the
    // partition to the transaction (transactions V2, Kafka's addPartition operation, done whatever
    // transaction.partition.verification.enable says); otherwise the partition is verified (KIP-890
    // part 1). Either way one queued operation of the transactional id's coordinator shard.
    const implicitAdd = txnId !== null && ctx.apiVersion >= 12 && transactionVersionOf(broker.metadataCache.features) >= 2;
    const verifying = implicitAdd || broker.rawConfig['transaction.partition.verification.enable' as keyof typeof broker.rawConfig] !== false;
    const verify = txnId === null || !verifying ? null : async (topic: string, partition: number, producerId: number, epoch: number) => {
      const code = await broker.addPartitionsToTxn.addOrVerify(txnId, producerId, epoch, { topic, partition }, implicitAdd ? 'add' : 'verify');
      // Kafka's ReplicaManager: a retriable answer older clients may not retry well becomes
      // NOT_ENOUGH_REPLICAS, which they retry without a metadata refresh.
      return RETRIABLE_TXN_ANSWERS.has(code) ? ErrorCode.NOT_ENOUGH_REPLICAS : code;
    };
    const { results, waits } = await broker.replicaManager.appendRecords({ acks: req.acks, timeoutMs: req.timeoutMs, apiVersion: ctx.apiVersion, durable: broker.flushOnAcksAll, verify, transactionV2: implicitAdd }, parts);
    const bytes = broker.quotas.active ? req.topicData.reduce((n, t) => t.partitionData.reduce((m, p) => m + (Buffer.isBuffer(p.records) ? p.records.length : 0), n), 0) : 0;
    const throttleTimeMs = broker.quotas.recordAndThrottle('producer_byte_rate', ctx.principal, ctx.clientId, ctx.connectionId, bytes);
    if (req.acks === 0) {
      if (slots.some((ps) => ps.some((s) => (typeof s === 'number' ? results[s] : s).errorCode !== ErrorCode.NONE))) throw new ProtocolError('acks=0 produce failed: closing the connection so the client refreshes metadata');
      return undefined;
    }
    const respond = () => {
      let hints = null as LeaderEndpoints | null;
      const responses = req.topicData.map((t, ti) => ({
        name: t.name, topicId: t.topicId,
        partitionResponses: slots[ti].map((slot, pi) => {
          const res = encode(t.partitionData[pi].index, typeof slot === 'number' ? results[slot] : slot);
          if (typeof slot === 'number' && results[slot].otherLeader && ctx.apiVersion >= 10) res.currentLeader = (hints ??= new LeaderEndpoints(broker, ctx.listenerName)).hint(parts[slot].topic.topicId, res.index, true);
          return res;
        }),
      }));
      return { responses, throttleTimeMs, nodeEndpoints: hints?.list() ?? [] };
    };
    // The batches are appended in request order; only the reply waits (fsync, replication).
    return waits.length > 0 ? new DeferredResponse(Promise.all(waits).then(respond)) : respond();
  },
  errorResponse(req, errorCode) {
    return { responses: req.topicData.map((t) => ({ name: t.name, topicId: t.topicId, partitionResponses: t.partitionData.map((p) => encode(p.index, appendFailed(errorCode))) })), throttleTimeMs: 0, nodeEndpoints: [] };
  },
});
