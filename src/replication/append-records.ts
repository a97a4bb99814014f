/**
 * The data path of Produce (Kafka's ReplicaManager.appendRecords / appendToLocalLog,
 * Partition.appendRecordsToLeader, DelayedProduce): the handler authorizes and resolves topics,
 * this checks and appends each partition's batch on the leader and says what the reply waits for.
 *
 * - Each partition's bytes must be exactly one v2 batch (v3+): otherwise INVALID_RECORD; magic
 *   0/1: INVALID_RECORD; a declared length below 14 or a magic outside 0-2: CORRUPT_MESSAGE with
 *   Kafka's message (its batch iterator throws those); zstd before v7 UNSUPPORTED_COMPRESSION_TYPE.
 *   CRC, size, batch-field and record-level checks happen in PartitionLog.appendAsLeader
 *   (log-validator.ts); record-level failures answer record_errors and Kafka's summary.
 * - log_start_offset on errors follows appendToLocalLog: -1 for the checks made before the log
 *   and for CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE, KAFKA_STORAGE_ERROR; the
 *   partition's log start for the rest.
 * - Transactional batches are verified first (`verify`, the transaction coordinator's view).
 * - acks=-1: NOT_ENOUGH_REPLICAS before the append when the ISR is smaller than
 *   min.insync.replicas; then the reply waits until the high watermark passes the batch
 *   (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR shrank below it, REQUEST_TIMED_OUT after
 *   timeout_ms, NOT_LEADER_OR_FOLLOWER if leadership moved); with `durable` it also waits for an
 *   fsync covering the batch (group commit: concurrent producers share one fsync).
 * - Samsa's topic features plug in through AppendHooks (views refuse produce, retired partitions
 *   refuse it, schedule topics check their headers), at the points Kafka-compatible answers need.
 *
 * Partitions are appended in request order (each append is synchronous up to the write); only
 * the reply waits.
 */
import { KafkaApiError, toErrorCode } from '../errors.js';
import type { Logger } from '../logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import { RecordValidationError } from '../storage/log-validator.js';
import type { VerificationGuard } from '../storage/producer-state.js';
import type { Partition } from './partition.js';

const BATCH_HEADER_BYTES = 61;
const MAGIC_OFFSET = 16;
const LENGTH_OFFSET = 8;
const ATTRIBUTES_OFFSET = 21;
const COMPRESSION_ZSTD = 4;
const ATTR_TRANSACTIONAL = 0x10;

/** Whether `records` starts with a transactional batch. */
export function isTransactionalBatch(records: unknown): boolean {
  return Buffer.isBuffer(records) && records.length >= BATCH_HEADER_BYTES && (records[ATTRIBUTES_OFFSET + 1] & ATTR_TRANSACTIONAL) !== 0;
}

/** One partition's answer (the handler encodes it). */
export interface AppendResult {
  errorCode: number;
  errorMessage: string | null;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
  recordErrors: { batchIndex: number; message: string }[];
  /** NOT_LEADER_OR_FOLLOWER because another broker leads it: the answer names that leader (KIP-951). */
  otherLeader?: true;
}

export function appendFailed(errorCode: number, errorMessage: string | null = null): AppendResult {
  return { errorCode, errorMessage, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, recordErrors: [] };
}

/** Samsa's topic features on the produce path (broker/ wires views, retirement, schedule topics). */
export interface AppendHooks {
  /** Before leadership is looked at: a topic that takes no produce (a view). */
  refuseTopic(topic: TopicRecord): AppendResult | null;
  /** On the leader, before the batch is checked: a partition that takes no produce now (retired). */
  refusePartition(topic: TopicRecord, partition: number, records: unknown): AppendResult | null;
  /** After the batch's shape and transaction checks: the topic's own rules for it (schedule headers). */
  checkBatch(topic: TopicRecord, records: Buffer): AppendResult | null;
}

export interface ProducePartition {
  topic: TopicRecord;
  partition: number;
  records: Buffer | Buffer[] | null;
}

export interface AppendParams {
  acks: number;
  timeoutMs: number;
  apiVersion: number;
  /** acks=-1 replies also wait for an fsync (samsa.flush.on.acks.all). */
  durable: boolean;
  /**
   * Transactional batches (transaction.partition.verification.enable): the coordinator's check
   * that the partition is in the producer's ongoing transaction; null: not verified.
   */
  verify: ((topic: string, partition: number, producerId: number, producerEpoch: number) => Promise<number>) | null;
  /** `verify` is the implicit add of transactions V2 (the epoch is bumped at every end). */
  transactionV2?: boolean;
}

export interface AppendEnv {
  logger: Logger;
  getPartition(topic: string, partition: number): Partition | undefined;
  /** The partition's log dir failed here (Kafka's HostedPartition.Offline): KAFKA_STORAGE_ERROR. */
  isOffline?(topic: string, partition: number): boolean;
  hooks(): AppendHooks | undefined;
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

/**
 * A transactional batch whose partition is not in the producer's transaction: Produce v11+
 * TRANSACTION_ABORTABLE (KIP-890), older INVALID_TXN_STATE with Kafka's message; other codes as they are.
 */
function verificationFailed(code: number, apiVersion: number): AppendResult {
  if (code !== ErrorCode.INVALID_TXN_STATE) return appendFailed(code);
  return apiVersion >= 11 ? appendFailed(ErrorCode.TRANSACTION_ABORTABLE) : appendFailed(ErrorCode.INVALID_TXN_STATE, 'Partition was not added to the transaction');
}

/**
 * Checks and appends one partition's batch; `waits` collects what the reply must wait for (the
 * ISR, an fsync), each of which may turn the result into an error.
 */
export async function appendToPartition(env: AppendEnv, params: AppendParams, p: ProducePartition, waits: Promise<void>[]): Promise<AppendResult> {
  const hooks = env.hooks();
  const refused = hooks?.refuseTopic(p.topic);
  if (refused) return refused;
  const partition = env.getPartition(p.topic.name, p.partition);
  if (partition === undefined && env.isOffline?.(p.topic.name, p.partition)) return appendFailed(ErrorCode.KAFKA_STORAGE_ERROR);
  if (!partition?.isLeader) return { ...appendFailed(ErrorCode.NOT_LEADER_OR_FOLLOWER), otherLeader: true };
  const retired = hooks?.refusePartition(p.topic, p.partition, p.records);
  if (retired) return retired;
  const log = partition.log;
  const records = p.records;
  if (records === null || Array.isArray(records)) return appendFailed(ErrorCode.INVALID_RECORD, 'null records');
  let verification: VerificationGuard | null | undefined;
  try {
    validateRecordsShape(records, params.apiVersion);
    if (params.verify !== null && isTransactionalBatch(records)) {
      // Kafka's maybeStartTransactionVerificationForPartition: the coordinator is asked only when
      // the producer has no transaction open here at this epoch; the guard taken first lets the
      // log turn the batch away if a marker lands while the coordinator answers.
      const producerId = records.readInt32BE(43) * 0x1_0000_0000 + records.readUInt32BE(47);
      const epoch = records.readInt16BE(51);
      verification = null;
      if (!log.producerState.hasOngoingTransaction(producerId, epoch)) {
        verification = log.producerState.startVerification(producerId, epoch, params.transactionV2 === true);
        const code = await params.verify(p.topic.name, p.partition, producerId, epoch);
        if (code !== ErrorCode.NONE) return verificationFailed(code, params.apiVersion);
      }
    }
  } catch (err) {
    if (!(err instanceof KafkaApiError)) throw err;
    return appendFailed(err.errorCode, err instanceof CorruptBatch ? err.message : null);
  }
  const bad = hooks?.checkBatch(p.topic, records);
  if (bad) return bad;
  // acks=all needs min.insync.replicas in the ISR before anything is appended (Kafka's appendRecordsToLeader).
  if (params.acks === -1 && partition.isr.length < partition.minInsyncReplicas) {
    return { ...appendFailed(ErrorCode.NOT_ENOUGH_REPLICAS), logStartOffset: log.logStartOffset };
  }
  try {
    const result = await log.appendAsLeader(records, partition.leaderEpoch, verification === undefined ? undefined : { verification });
    const res: AppendResult = {
      errorCode: ErrorCode.NONE, errorMessage: null, baseOffset: result.baseOffset,
      logAppendTimeMs: result.logAppendTimeMs, logStartOffset: result.logStartOffset, recordErrors: [],
    };
    if (params.acks === -1) {
      // Kafka's DelayedProduce: answered when the high watermark passes the batch (every ISR
      // member has it), a retried duplicate included. One ISR member: at once.
      const required = result.lastOffset + 1;
      if (log.highWatermark >= required) {
        if (partition.isr.length < partition.minInsyncReplicas) Object.assign(res, appendFailed(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND));
      } else {
        waits.push(partition.waitForReplication(required, params.timeoutMs).then((code) => {
          if (code !== ErrorCode.NONE) Object.assign(res, appendFailed(code));
        }));
      }
      if (params.durable) {
        waits.push(log.flushUpTo(result.lastOffset + 1).catch((err) => {
          env.logger.error(`fsync of ${p.topic.name}-${p.partition} failed`, err);
          Object.assign(res, appendFailed(toErrorCode(err) === ErrorCode.UNKNOWN_SERVER_ERROR ? ErrorCode.KAFKA_STORAGE_ERROR : toErrorCode(err)));
        }));
      }
    }
    return res;
  } catch (err) {
    if (!(err instanceof KafkaApiError)) env.logger.error(`append to ${p.topic.name}-${p.partition} failed`, err);
    const code = toErrorCode(err);
    if (code === ErrorCode.INVALID_TXN_STATE && verification !== undefined) return verificationFailed(code, params.apiVersion);
    const res = { ...appendFailed(code), logStartOffset: NO_LOG_START.has(code) ? -1 : log.logStartOffset };
    if (err instanceof RecordValidationError) {
      res.recordErrors = err.recordErrors.map((e) => ({ batchIndex: e.batchIndex, message: e.message }));
      res.errorMessage = err.message;
    }
    return res;
  }
}
