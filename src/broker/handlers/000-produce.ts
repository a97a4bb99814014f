/**
 * Produce (key 0), advertised 0-11; v0-2 (message formats 0/1) answered UNSUPPORTED_VERSION.
 *
 * Behavior (Kafka's KafkaApis.handleProduceRequest / ReplicaManager.appendRecords):
 * - Unknown topic or partition: UNKNOWN_TOPIC_OR_PARTITION for that partition; Produce never
 *   creates topics. Internal topics: INVALID_TOPIC_EXCEPTION.
 * - acks outside {-1, 0, 1}: INVALID_REQUIRED_ACKS for every partition that passed the topic checks.
 * - Each partition's bytes must be exactly one v2 batch (v3+): otherwise INVALID_RECORD; magic
 *   0/1: INVALID_RECORD; a declared length below 14 or a magic outside 0-2: CORRUPT_MESSAGE with
 *   Kafka's message (its batch iterator throws those); CRC, size, batch-field and record-level
 *   checks happen in PartitionLog.appendAsLeader (log-validator.ts). Record-level failures
 *   (P17, P17b, P18) answer record_errors and Kafka's summary as error_message.
 * - log_start_offset on errors follows ReplicaManager.appendToLocalLog: -1 for the checks made
 *   before the log (topic, acks, shape, verification) and for CORRUPT_MESSAGE, MESSAGE_TOO_LARGE,
 *   RECORD_LIST_TOO_LARGE, KAFKA_STORAGE_ERROR; the partition's log start for the rest.
 * - acks=0: no response is written; if any partition failed the connection is closed instead,
 *   so the client notices and refreshes metadata.
 * - acks=-1 with `samsa.flush.on.acks.all`: the reply waits for an fsync covering the batch
 *   (group commit: concurrent producers share one fsync).
 * - acks=-1 on a replicated partition: NOT_ENOUGH_REPLICAS before the append when the ISR is
 *   smaller than min.insync.replicas (capped at the replica count); then the reply waits until
 *   every ISR member has the batch (the high watermark passes it), NOT_ENOUGH_REPLICAS_AFTER_APPEND
 *   if the ISR shrank below it meanwhile, REQUEST_TIMED_OUT after timeout_ms,
 *   NOT_LEADER_OR_FOLLOWER if leadership moved.
 * - Idempotent batches (producer id >= 0): sequence/epoch checks in the partition's producer
 *   state; an exact retry of a recent batch answers NONE with the original base offset (I2).
 * - Transactional batches: a null transactional_id fails every partition with
 *   TRANSACTIONAL_ID_AUTHORIZATION_FAILED (P22); with `transaction.partition.verification.enable`
 *   the coordinator must have the partition in the producer's ongoing transaction, else
 *   INVALID_TXN_STATE "Partition was not added to the transaction" (v11: TRANSACTION_ABORTABLE,
 *   no message), INVALID_PRODUCER_ID_MAPPING,
 *   INVALID_PRODUCER_EPOCH, or NOT_ENOUGH_REPLICAS when the coordinator cannot tell (R8-R11).
 * - A partition this broker does not lead: NOT_LEADER_OR_FOLLOWER; from v10 with the current
 *   leader and its endpoint (KIP-951), so the client retries there at once.
 * - ACLs: WRITE on the transactional id (transactional batches), else TRANSACTIONAL_ID_AUTHORIZATION_FAILED
 *   for the whole request; WRITE on the topic, else TOPIC_AUTHORIZATION_FAILED for its partitions.
 * - Schedule topics (src/schedule/): a record whose samsa-deliver-at header is not decimal epoch ms
 *   fails the batch with INVALID_RECORD, its index in record_errors, nothing stored.
 * - Views (src/views/): read-only, INVALID_TOPIC_EXCEPTION with a message naming the source.
 * - Retired partitions (cluster/partition-retirement.ts, samsa.partitions.keep): keyless batches
 *   NOT_LEADER_OR_FOLLOWER (retriable, no leader hint: the client refreshes metadata and picks
 *   another partition), batches with a keyed record INVALID_RECORD with a message naming the
 *   retirement.
 * Version notes: v3 transactional_id; v5 log_start_offset; v7 zstd; v8 record_errors and
 * error_message; v9 flexible; v10 current_leader/node_endpoints tagged fields (KIP-951).
 */
import { KafkaApiError, ProtocolError, toErrorCode } from '../../errors.js';
import { DeferredResponse, defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { PartitionProduceResponse, TopicProduceResponse } from '../../protocol/generated/messages/produce-response.js';
import type { ProduceRequest } from '../../protocol/generated/messages/produce-request.js';
import { INTERNAL_TOPICS } from '../../cluster/topic-names.js';
import { RecordValidationError } from '../../storage/log-validator.js';
import { currentLeaderOf, LeaderEndpoints, leads } from '../leader-hints.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { VIEW_SOURCE, viewProduceError } from '../../views/views.js';
import { SCHEDULE_TARGET, checkDeliverAtHeaders } from '../../schedule/deliver-at.js';
import { PARTITIONS_KEEP, isRetired, keyedRecords, retiredFrom, retiredMessage } from '../../cluster/partition-retirement.js';

const BATCH_HEADER_BYTES = 61;
const MAGIC_OFFSET = 16;
const LENGTH_OFFSET = 8;
const ATTRIBUTES_OFFSET = 21;
const COMPRESSION_ZSTD = 4;
const ATTR_TRANSACTIONAL = 0x10;

function isTransactionalBatch(records: Buffer | null | unknown): boolean {
  return Buffer.isBuffer(records) && records.length >= BATCH_HEADER_BYTES && (records[ATTRIBUTES_OFFSET + 1] & ATTR_TRANSACTIONAL) !== 0;
}

function failed(index: number, errorCode: number, errorMessage: string | null = null): PartitionProduceResponse {
  return { index, errorCode, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage, currentLeader: null };
}

/**
 * A retired partition (cluster/partition-retirement.ts): keyless batches NOT_LEADER_OR_FOLLOWER
 * without a leader hint (the client refreshes metadata, which then hides the partition from it),
 * keyed ones INVALID_RECORD naming the retirement, each keyed record in record_errors.
 */
function retiredAnswer(topic: string, index: number, info: { partitions: number; configs: Record<string, string> }, records: unknown): PartitionProduceResponse {
  const keep = retiredFrom(info);
  const keyed = Buffer.isBuffer(records) && records.length >= BATCH_HEADER_BYTES ? keyedRecords(records) : [];
  if (keyed.length === 0) return failed(index, ErrorCode.NOT_LEADER_OR_FOLLOWER, retiredMessage(topic, index, keep, false));
  const message = retiredMessage(topic, index, keep, true);
  return { ...failed(index, ErrorCode.INVALID_RECORD, message), recordErrors: keyed.map((batchIndex) => ({ batchIndex, batchIndexErrorMessage: message })) };
}

/** Errors of Kafka's batch iterator, whose message Kafka puts in the partition's error_message. */
class CorruptBatch extends KafkaApiError {}

/** Codes whose failed append answers log_start_offset -1 (ReplicaManager.appendToLocalLog). */
const NO_LOG_START = new Set<number>([ErrorCode.CORRUPT_MESSAGE, ErrorCode.MESSAGE_TOO_LARGE, ErrorCode.RECORD_LIST_TOO_LARGE, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);

/** Kafka's ProduceRequest.validateRecords: one batch of magic 2, zstd only from v7. */
function validateRecordsShape(records: Buffer, apiVersion: number): void {
  // ByteBufferLogInputStream.nextBatchSize: the length first, then the magic byte.
  if (records.length >= 12 && records.readInt32BE(LENGTH_OFFSET) < 14) {
    throw new CorruptBatch(ErrorCode.CORRUPT_MESSAGE, `Record size ${records.readInt32BE(LENGTH_OFFSET)} is less than the minimum record overhead (14)`);
  }
  if (records.length > MAGIC_OFFSET) {
    const magic = records.readInt8(MAGIC_OFFSET);
    if (magic < 0 || magic > 2) throw new CorruptBatch(ErrorCode.CORRUPT_MESSAGE, `Invalid magic found in record: ${magic}`);
  }
  if (records.length < BATCH_HEADER_BYTES) throw new KafkaApiError(ErrorCode.INVALID_RECORD, 'Produce requests must have at least one record batch');
  const magic = records.readInt8(MAGIC_OFFSET);
  if (magic < 2) throw new KafkaApiError(ErrorCode.INVALID_RECORD, 'Produce requests with version 3 and above must use message format v2');
  const total = 12 + records.readInt32BE(LENGTH_OFFSET);
  if (total > records.length) throw new KafkaApiError(ErrorCode.INVALID_RECORD, 'Produce requests must have at least one record batch');
  if (total < records.length) throw new KafkaApiError(ErrorCode.INVALID_RECORD, 'Produce requests with version 3 and above must have exactly one record batch');
  if (apiVersion < 7 && (records.readInt16BE(ATTRIBUTES_OFFSET) & 7) === COMPRESSION_ZSTD) {
    throw new KafkaApiError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, 'zstd requires Produce v7 or later');
  }
}

export const produceHandler = defineHandler({
  apiKey: 0,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const acksValid = req.acks === -1 || req.acks === 0 || req.acks === 1;
    const durable = req.acks === -1 && broker.flushOnAcksAll;
    let anyError = false;
    const durableWaits: Promise<void>[] = [];
    if (req.transactionalId === null && req.topicData.some((t) => t.partitionData.some((p) => isTransactionalBatch(p.records)))) {
      throw new KafkaApiError(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    // ACLs (Kafka's handleProduceRequest): WRITE on the transactional id for transactional batches, WRITE on each topic.
    if (broker.authorizer != null && req.transactionalId !== null && !authorize(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, req.transactionalId)
      && req.topicData.some((t) => t.partitionData.some((p) => isTransactionalBatch(p.records)))) {
      throw new KafkaApiError(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    const verify = broker.rawConfig['transaction.partition.verification.enable' as keyof typeof broker.rawConfig] !== false;
    let leaderEndpoints = null as LeaderEndpoints | null;
    const responses: TopicProduceResponse[] = await Promise.all(req.topicData.map(async (topic) => {
      const info = broker.metadata.get(topic.name);
      const writable = authorize(ctx, AclOperation.WRITE, ResourceType.TOPIC, topic.name);
      const partitionResponses = await Promise.all(topic.partitionData.map(async (p): Promise<PartitionProduceResponse> => {
        if (!writable) return failed(p.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
        if (!info || p.index < 0 || p.index >= info.partitions) return failed(p.index, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        if (INTERNAL_TOPICS.has(topic.name) && ctx.clientId !== '__admin_client') return failed(p.index, ErrorCode.INVALID_TOPIC_EXCEPTION);
        if (!acksValid) return failed(p.index, ErrorCode.INVALID_REQUIRED_ACKS);
        // Views (src/views/) are read-only.
        if (info.configs[VIEW_SOURCE] !== undefined) {
          const e = viewProduceError(info);
          return failed(p.index, e.errorCode, e.message);
        }
        const partition = broker.replicaManager.getPartition(topic.name, p.index);
        if (leads(partition) && info.configs[PARTITIONS_KEEP] !== undefined && isRetired(info, p.index)) return retiredAnswer(topic.name, p.index, info, p.records);
        if (!leads(partition)) {
          // KIP-951: name the current leader so the client retries there without a Metadata call.
          const res = failed(p.index, ErrorCode.NOT_LEADER_OR_FOLLOWER);
          if (ctx.apiVersion >= 10) {
            res.currentLeader = currentLeaderOf(broker, info.topicId, p.index);
            (leaderEndpoints ??= new LeaderEndpoints(broker, ctx.listenerName)).add(res.currentLeader.leaderId);
          }
          return res;
        }
        const log = partition.log;
        const records = p.records;
        if (records === null || Array.isArray(records)) return failed(p.index, ErrorCode.INVALID_RECORD, 'null records');
        try {
          validateRecordsShape(records, ctx.apiVersion);
          if (req.transactionalId !== null && verify && isTransactionalBatch(records)) {
            const code = await broker.txnCoordinator.verifyPartition(req.transactionalId, records.readInt32BE(43) * 0x1_0000_0000 + records.readUInt32BE(47), records.readInt16BE(51), topic.name, p.index);
            if (code === ErrorCode.INVALID_TXN_STATE) {
              return ctx.apiVersion >= 11
                ? failed(p.index, ErrorCode.TRANSACTION_ABORTABLE)
                : failed(p.index, ErrorCode.INVALID_TXN_STATE, 'Partition was not added to the transaction');
            }
            if (code !== ErrorCode.NONE) return failed(p.index, code);
          }
        } catch (err) {
          if (!(err instanceof KafkaApiError)) throw err;
          return failed(p.index, err.errorCode, err instanceof CorruptBatch ? err.message : null);
        }
        // Schedule topics (src/schedule/): a malformed samsa-deliver-at refuses the whole batch.
        if (info.configs[SCHEDULE_TARGET] !== undefined) {
          const bad = checkDeliverAtHeaders(records);
          if (bad) return { ...failed(p.index, ErrorCode.INVALID_RECORD, bad.message), recordErrors: [{ batchIndex: bad.batchIndex, batchIndexErrorMessage: bad.message }] };
        }
        // acks=all needs min.insync.replicas in the ISR before anything is appended (Kafka's appendRecordsToLeader).
        if (req.acks === -1 && partition.isr.length < partition.minInsyncReplicas) {
          return { ...failed(p.index, ErrorCode.NOT_ENOUGH_REPLICAS), logStartOffset: BigInt(log.logStartOffset) };
        }
        try {
          const result = await log.appendAsLeader(records, partition.leaderEpoch);
          const res: PartitionProduceResponse = {
            index: p.index, errorCode: ErrorCode.NONE, baseOffset: BigInt(result.baseOffset),
            logAppendTimeMs: BigInt(result.logAppendTimeMs), logStartOffset: BigInt(result.logStartOffset),
            recordErrors: [], errorMessage: null, currentLeader: null,
          };
          if (req.acks === -1) {
            // Kafka's DelayedProduce: answered when the high watermark passes the batch (every ISR
            // member has it), a retried duplicate included. One ISR member: at once.
            const required = result.lastOffset + 1;
            if (log.highWatermark >= required) {
              if (partition.isr.length < partition.minInsyncReplicas) Object.assign(res, failed(p.index, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND));
            } else {
              durableWaits.push(partition.waitForReplication(required, req.timeoutMs).then((code) => {
                if (code !== ErrorCode.NONE) Object.assign(res, failed(p.index, code));
              }));
            }
          }
          if (durable) {
            durableWaits.push(log.flushUpTo(result.lastOffset + 1).catch((err) => {
              broker.log.error(`fsync of ${topic.name}-${p.index} failed`, err);
              Object.assign(res, failed(p.index, toErrorCode(err) === ErrorCode.UNKNOWN_SERVER_ERROR ? ErrorCode.KAFKA_STORAGE_ERROR : toErrorCode(err)));
            }));
          }
          return res;
        } catch (err) {
          if (!(err instanceof KafkaApiError)) broker.log.error(`append to ${topic.name}-${p.index} failed`, err);
          const code = toErrorCode(err);
          const res = { ...failed(p.index, code), logStartOffset: NO_LOG_START.has(code) ? -1n : BigInt(log.logStartOffset) };
          if (err instanceof RecordValidationError) {
            res.recordErrors = err.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message }));
            res.errorMessage = err.message;
          }
          return res;
        }
      }));
      for (const r of partitionResponses) if (r.errorCode !== ErrorCode.NONE) anyError = true;
      return { name: topic.name, partitionResponses };
    }));
    // producer_byte_rate (security/quotas.ts): throttle_time_ms above the quota, and the connection muted that long.
    let throttleTimeMs = 0;
    if (broker.quotas?.active) {
      let bytes = 0;
      for (const t of req.topicData) for (const p of t.partitionData) if (Buffer.isBuffer(p.records)) bytes += p.records.length;
      throttleTimeMs = broker.quotas.record('producer_byte_rate', ctx.principal, ctx.clientId, bytes);
      broker.quotas.throttle(ctx.connectionId, throttleTimeMs);
    }
    if (req.acks === 0) {
      if (anyError) throw new ProtocolError('acks=0 produce failed: closing the connection so the client refreshes metadata');
      return undefined;
    }
    const response = { responses, throttleTimeMs, nodeEndpoints: leaderEndpoints?.list() ?? [] };
    // The batches are appended in request order; only the reply waits for the fsync or the
    // replication, so the connection reads its next request meanwhile and concurrent fsyncs are shared.
    if (durableWaits.length > 0) return new DeferredResponse(Promise.all(durableWaits).then(() => response));
    return response;
  },
  errorResponse(req: ProduceRequest, errorCode) {
    return {
      responses: req.topicData.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map((p) => failed(p.index, errorCode)) })),
      throttleTimeMs: 0,
      nodeEndpoints: [],
    };
  },
});
