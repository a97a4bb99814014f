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
 * Then: no complete batch → INVALID_RECORD (P10); total > segment.bytes → RECORD_LIST_TOO_LARGE (P25).
 *
 * Not checked here (gaps): per-record CreateTime bounds (message.timestamp.after/before.max.ms,
 * P17), keys on compacted topics (P18). Producer sequences and epochs are checked inside the
 * append queue (producer-state.ts).
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
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
  lastOffsetDelta,
  producerId,
  recordsCount,
  verifyCrc,
} from '../protocol/records/record-batch.js';

export type AppendOrigin = 'client' | 'coordinator';

export interface ValidationConfig {
  maxMessageBytes: number;
  segmentBytes: number;
  messageTimestampType: 'CreateTime' | 'LogAppendTime';
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

export function validateRecords(buf: Buffer, config: ValidationConfig, origin: AppendOrigin = 'client'): ValidatedRecords {
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
    if (size > config.maxMessageBytes) fail(ErrorCode.MESSAGE_TOO_LARGE, `record batch of ${size} bytes exceeds max.message.bytes ${config.maxMessageBytes}`);
    if (!verifyCrc(buf, pos)) fail(ErrorCode.CORRUPT_MESSAGE, 'record batch CRC mismatch');
    const delta = lastOffsetDelta(buf, pos);
    const count = recordsCount(buf, pos);
    if (delta + 1 <= 0) fail(ErrorCode.INVALID_RECORD, `batch has an invalid offset range (lastOffsetDelta ${delta})`);
    if (count !== delta + 1) fail(ErrorCode.INVALID_RECORD, `inconsistent batch: ${count} records, lastOffsetDelta ${delta}`);
    const attrs = buf[pos + ATTRIBUTES_OFFSET + 1];
    if (origin === 'client' && (attrs & ATTR_CONTROL) !== 0) fail(ErrorCode.INVALID_RECORD, 'clients may not write control batches');
    if (origin === 'client' && producerId(buf, pos) >= 0 && baseSequence(buf, pos) < 0) fail(ErrorCode.INVALID_RECORD, 'idempotent batch without a base sequence');
    if (config.messageTimestampType === 'LogAppendTime' && (attrs & ATTR_TIMESTAMP_TYPE) !== 0 && origin === 'client') {
      fail(ErrorCode.INVALID_TIMESTAMP, 'Producer should not set timestamp type to LogAppendTime');
    }
    if ((attrs & ATTR_COMPRESSION_MASK) > 4) fail(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `unknown compression type ${attrs & ATTR_COMPRESSION_MASK}`);
    batchCount++;
    offsetCount += delta + 1;
    pos += size;
  }
  if (batchCount === 0) fail(ErrorCode.INVALID_RECORD, 'the produce request must have at least one complete record batch');
  if (pos > config.segmentBytes) fail(ErrorCode.RECORD_LIST_TOO_LARGE, `append of ${pos} bytes exceeds segment.bytes ${config.segmentBytes}`);
  return { validBytes: pos, batchCount, offsetCount };
}
