/**
 * Leader-side checks of the batches a producer (or a coordinator) appends, in Kafka's order
 * (ByteBufferLogInputStream → ProduceRequest.validateRecords → UnifiedLog.analyzeAndValidateRecords
 * → LogValidator.validateBatch). Reads batch headers only: no record is decoded, nothing is
 * allocated per record, and compressed batches stay compressed.
 *
 * Per batch:
 * 1. declared batchLength < 14 → CORRUPT_MESSAGE; magic < 0 or > 2 → CORRUPT_MESSAGE (the batch
 *    iterator); a trailing batch cut short ends the iteration (Kafka trims those bytes).
 * 2. magic 0 or 1 → INVALID_RECORD (Produce v3+ accepts only v2 batches; behaviours.md P8).
 * 3. client batch with baseOffset != 0 → INVALID_RECORD (P13).
 * 4. sizeInBytes (with the 12-byte prefix) > max.message.bytes → MESSAGE_TOO_LARGE, checked
 *    before the CRC (P7).
 * 5. batchLength below the v2 header, CRC-32C mismatch → CORRUPT_MESSAGE (P6).
 * 6. lastOffsetDelta + 1 != recordsCount, or recordsCount <= 0 → INVALID_RECORD (P14).
 * 7. control bit from a client → INVALID_RECORD (P15); producerId >= 0 with baseSequence < 0 →
 *    INVALID_RECORD (P16) (client batches only: transaction markers carry sequence -1).
 * 8. LogAppendTime topic and the producer set the LogAppendTime bit → INVALID_TIMESTAMP (P17b).
 * 9. unknown compression codec (5-7) → UNSUPPORTED_COMPRESSION_TYPE.
 * 10. record-level checks (Kafka's LogValidator.validateRecord), client batches only: a record
 *    without a key on a compacted topic → INVALID_RECORD (P18); a CreateTime timestamp more than
 *    message.timestamp.after.max.ms ahead of broker time or before.max.ms behind it → INVALID_TIMESTAMP
 *    (P17, records without a timestamp are not checked); the LogAppendTime bit on a LogAppendTime
 *    topic → INVALID_TIMESTAMP for every record (P17b). Each failure lists its records
 *    (record_errors, index within the batch) in a RecordValidationError. Records are walked only
 *    where an error is possible: on compacted topics, when the batch's max timestamp is beyond
 *    the future limit, when a past limit is configured, and for the LogAppendTime bit; a
 *    compressed batch is then decompressed (Kafka decompresses every batch).
 * Then: no complete batch → INVALID_RECORD (P10); total > segment.bytes → RECORD_LIST_TOO_LARGE (P25).
 *
 * Producer sequences and epochs are checked inside the append queue (producer-state.ts).
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { decompressSync } from '../protocol/records/compression.js';
import { hasCleanupPolicy, type AppendOrigin } from './log-config.js';
import { Reader } from '../protocol/reader.js';
import {
  ATTRIBUTES_OFFSET,
  ATTR_COMPRESSION_MASK,
  ATTR_CONTROL,
  ATTR_TIMESTAMP_TYPE,
  BATCH_LENGTH_OFFSET,
  CURRENT_MAGIC,
  HEADER_SIZE_UP_TO_MAGIC,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MIN_BATCH_LENGTH,
  RECORD_BATCH_OVERHEAD,
  baseOffset,
  baseSequence,
  baseTimestamp,
  lastOffsetDelta,
  maxTimestamp,
  producerId,
  recordsCount,
  verifyCrc,
  batchSize,
  setBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
} from '../protocol/records/record-batch.js';

export type { AppendOrigin } from './log-config.js';

export interface ValidationConfig {
  maxMessageBytes: number;
  segmentBytes: number;
  messageTimestampType: 'CreateTime' | 'LogAppendTime';
  /** message.timestamp.before.max.ms / after.max.ms; absent = not checked. */
  messageTimestampBeforeMaxMs?: number;
  messageTimestampAfterMaxMs?: number;
  /** cleanup.policy: records of a compacted topic need keys. */
  cleanupPolicy?: string;
}

/** Where an append happens, for the record-level checks and their messages. */
export interface ValidationContext {
  nowMs: number;
  /** "topic-partition", as Kafka names it in messages. */
  topicPartition: string;
}

export interface RecordError {
  batchIndex: number;
  message: string;
}

/** A batch failed record-level checks: the code, Kafka's summary message and each record's error. */
export class RecordValidationError extends KafkaApiError {
  constructor(errorCode: number, message: string, readonly recordErrors: RecordError[]) {
    super(errorCode, message);
  }
}

export interface ValidatedRecords {
  /** Bytes holding complete batches (a trailing partial batch is left out, as Kafka trims it). */
  validBytes: number;
  batchCount: number;
  /** Sum of lastOffsetDelta + 1 over the batches: the offsets this append takes. */
  offsetCount: number;
}

function fail(code: number, message: string): never {
  throw new KafkaApiError(code, message);
}

export function validateRecords(buf: Buffer, config: ValidationConfig, origin: AppendOrigin = 'client', where?: ValidationContext): ValidatedRecords {
  let pos = 0;
  let batchCount = 0;
  let offsetCount = 0;
  const end = buf.length;
  while (end - pos >= LOG_OVERHEAD) {
    const length = buf.readInt32BE(pos + BATCH_LENGTH_OFFSET);
    if (length < MIN_BATCH_LENGTH) fail(ErrorCode.CORRUPT_MESSAGE, `record batch length ${length} is below ${MIN_BATCH_LENGTH}`);
    if (end - pos < HEADER_SIZE_UP_TO_MAGIC) break;
    const magic = buf.readInt8(pos + MAGIC_OFFSET);
    if (magic < 0 || magic > CURRENT_MAGIC) fail(ErrorCode.CORRUPT_MESSAGE, `invalid magic ${magic}`);
    const size = LOG_OVERHEAD + length;
    if (end - pos < size) break;
    if (magic !== CURRENT_MAGIC) fail(ErrorCode.INVALID_RECORD, `magic ${magic} message sets are not accepted; produce v2 record batches`);
    if (size < RECORD_BATCH_OVERHEAD) fail(ErrorCode.CORRUPT_MESSAGE, `record batch size ${size} is below the v2 header size`);
    if (origin === 'client' && baseOffset(buf, pos) !== 0) fail(ErrorCode.INVALID_RECORD, 'the base offset of a produced batch must be 0');
    if (size > config.maxMessageBytes && origin !== 'replication') fail(ErrorCode.MESSAGE_TOO_LARGE, `record batch of ${size} bytes exceeds max.message.bytes ${config.maxMessageBytes}`);
    if (!verifyCrc(buf, pos)) fail(ErrorCode.CORRUPT_MESSAGE, 'record batch CRC mismatch');
    const delta = lastOffsetDelta(buf, pos);
    const count = recordsCount(buf, pos);
    if (delta + 1 <= 0) fail(ErrorCode.INVALID_RECORD, `batch has an invalid offset range (lastOffsetDelta ${delta})`);
    if (count !== delta + 1) fail(ErrorCode.INVALID_RECORD, `inconsistent batch: ${count} records, lastOffsetDelta ${delta}`);
    const attrs = buf[pos + ATTRIBUTES_OFFSET + 1];
    if (origin === 'client' && (attrs & ATTR_CONTROL) !== 0) fail(ErrorCode.INVALID_RECORD, 'clients may not write control batches');
    if (origin === 'client' && producerId(buf, pos) >= 0 && baseSequence(buf, pos) < 0) fail(ErrorCode.INVALID_RECORD, 'idempotent batch without a base sequence');
    if (config.messageTimestampType === 'LogAppendTime' && (attrs & ATTR_TIMESTAMP_TYPE) !== 0 && origin === 'client' && !where) {
      fail(ErrorCode.INVALID_TIMESTAMP, 'Producer should not set timestamp type to LogAppendTime');
    }
    if ((attrs & ATTR_COMPRESSION_MASK) > 4) fail(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `unknown compression type ${attrs & ATTR_COMPRESSION_MASK}`);
    if (origin === 'client' && where) validateRecordLevel(buf, pos, size, config, where);
    batchCount++;
    offsetCount += delta + 1;
    pos += size;
  }
  if (batchCount === 0) fail(ErrorCode.INVALID_RECORD, 'the produce request must have at least one complete record batch');
  if (pos > config.segmentBytes && origin !== 'replication') fail(ErrorCode.RECORD_LIST_TOO_LARGE, `append of ${pos} bytes exceeds segment.bytes ${config.segmentBytes}`);
  return { validBytes: pos, batchCount, offsetCount };
}

// ---- record level (LogValidator.validateRecord) ------------------------------------------------

/** Calls `each(index, timestamp, hasKey)` for every record of the batch at `pos` (decompressing if needed). */
function forEachRecord(buf: Buffer, pos: number, size: number, each: (index: number, timestamp: number, hasKey: boolean) => void): void {
  const codec = buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_COMPRESSION_MASK;
  const payload = buf.subarray(pos + RECORD_BATCH_OVERHEAD, pos + size);
  const data = codec === 0 ? payload : decompressSync(codec, payload);
  const base = baseTimestamp(buf, pos);
  const logAppendBit = (buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_TIMESTAMP_TYPE) !== 0;
  const r = new Reader(data);
  const count = recordsCount(buf, pos);
  try {
    for (let i = 0; i < count && r.remaining > 0; i++) {
      const length = r.varint();
      const start = r.pos;
      r.int8(); // attributes
      const delta = Number(r.varlong());
      r.varint(); // offset delta
      const keyLength = r.varint();
      // A LogAppendTime batch's records all read as its max timestamp.
      each(i, logAppendBit ? maxTimestamp(buf, pos) : base + delta, keyLength >= 0);
      r.pos = start + length;
    }
  } catch (err) {
    fail(ErrorCode.CORRUPT_MESSAGE, `record of the batch at ${pos} cannot be read: ${(err as Error).message}`);
  }
}

function validateRecordLevel(buf: Buffer, pos: number, size: number, config: ValidationConfig, where: ValidationContext): void {
  const compacted = hasCleanupPolicy(config.cleanupPolicy, 'compact');
  const logAppendBit = (buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_TIMESTAMP_TYPE) !== 0;
  const createTime = config.messageTimestampType === 'CreateTime';
  const after = config.messageTimestampAfterMaxMs;
  const before = config.messageTimestampBeforeMaxMs;
  const now = where.nowMs;
  const pastLimit = before !== undefined && before < Number.MAX_SAFE_INTEGER;
  const futureSuspect = after !== undefined && maxTimestamp(buf, pos) > now + after;
  if (!compacted && !logAppendBit && !(createTime && (futureSuspect || pastLimit))) return;
  const lo = pastLimit ? now - before! : -Infinity;
  const hi = after !== undefined ? now + after : Infinity;
  const errors: { code: number; error: RecordError }[] = [];
  forEachRecord(buf, pos, size, (batchIndex, ts, hasKey) => {
    if (compacted && !hasKey) {
      errors.push({ code: ErrorCode.INVALID_RECORD, error: { batchIndex, message: `Compacted topic cannot accept message without key in topic partition ${where.topicPartition}.` } });
    } else if (createTime && ts !== -1) {
      if (ts < lo || ts > hi) {
        const range = `[${pastLimit ? lo : now - Number.MAX_SAFE_INTEGER}, ${hi}]`;
        errors.push({ code: ErrorCode.INVALID_TIMESTAMP, error: { batchIndex, message: `Timestamp ${ts} of message with offset ${batchIndex} is out of range. The timestamp should be within ${range}` } });
      }
    } else if (logAppendBit) {
      errors.push({ code: ErrorCode.INVALID_TIMESTAMP, error: { batchIndex, message: `Invalid timestamp type in message with offset ${batchIndex}. Producer should not set timestamp type to LogAppendTime.` } });
    }
  });
  if (errors.length === 0) return;
  const list = errors.map((e) => e.error);
  if (errors.some((e) => e.code === ErrorCode.INVALID_TIMESTAMP)) {
    throw new RecordValidationError(ErrorCode.INVALID_TIMESTAMP, 'One or more records have been rejected due to invalid timestamp', list);
  }
  const shown = list.slice(0, 3).map((e) => `RecordError(batchIndex=${e.batchIndex}, message='${e.message}')`).join(', ');
  throw new RecordValidationError(ErrorCode.INVALID_RECORD, `One or more records have been rejected due to ${list.length} record errors in total, and only showing the first three errors at most: [${shown}]`, list);
}

/** What assignOffsets found: the next offset after the batches, and their largest max timestamp. */
export interface AssignedOffsets {
  nextOffset: number;
  maxTimestamp: number;
}

/**
 * Kafka's LogValidator offset assignment, in place: a leader's batches get consecutive base offsets
 * from `firstOffset`, its leader epoch and (LogAppendTime topics) the append time; a follower's keep
 * the leader's offsets, which must not go backwards. Throws CORRUPT_MESSAGE for a follower batch
 * below the one before it.
 */
export function assignOffsets(buf: Buffer, validBytes: number, o: { follower: boolean; firstOffset: number; leaderEpoch: number; logAppendTimeMs: number | null; where: string }): AssignedOffsets {
  let next = o.firstOffset;
  let maxTs = -1;
  for (let pos = 0; pos < validBytes; ) {
    if (o.follower) {
      const base = baseOffset(buf, pos);
      if (base < next) throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `${o.where}: replicated offsets out of order at ${base}`);
      next = base;
    } else {
      setBaseOffset(buf, pos, next);
      setPartitionLeaderEpoch(buf, pos, o.leaderEpoch);
      if (o.logAppendTimeMs !== null) setLogAppendTime(buf, pos, o.logAppendTimeMs);
    }
    const ts = maxTimestamp(buf, pos);
    if (ts > maxTs) maxTs = ts;
    next += lastOffsetDelta(buf, pos) + 1;
    pos += batchSize(buf, pos);
  }
  return { nextOffset: next, maxTimestamp: maxTs };
}
