/**
 * The v2 RecordBatch header (magic 2, Kafka 0.11+), read and patched in place.
 *
 * Layout (big-endian, 61 bytes before the records):
 *
 * | offset | field                | type   | note                                               |
 * | ------ | -------------------- | ------ | -------------------------------------------------- |
 * | 0      | baseOffset           | int64  | assigned by the leader; outside the CRC            |
 * | 8      | batchLength          | int32  | bytes after this field (whole batch = 12 + length) |
 * | 12     | partitionLeaderEpoch | int32  | stamped by the leader; outside the CRC             |
 * | 16     | magic                | int8   | 2                                                  |
 * | 17     | crc                  | uint32 | CRC-32C of bytes 21..end                           |
 * | 21     | attributes           | int16  | see ATTR_*                                         |
 * | 23     | lastOffsetDelta      | int32  |                                                    |
 * | 27     | baseTimestamp        | int64  |                                                    |
 * | 35     | maxTimestamp         | int64  | LogAppendTime: the broker's time                   |
 * | 43     | producerId           | int64  |                                                    |
 * | 51     | producerEpoch        | int16  |                                                    |
 * | 53     | baseSequence         | int32  |                                                    |
 * | 57     | recordsCount         | int32  |                                                    |
 *
 * Every function here takes (buf, pos) where pos is the first byte of a batch, and allocates
 * nothing: int64 fields are read as two int32 halves into a `number` (exact below 2^53; offsets and
 * millisecond timestamps always are). Use `decodeRecordBatch` in record.ts for bigint fields.
 */
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../generated/error-codes.js';
import { crc32c } from './crc32c.js';

export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;

/** baseOffset + batchLength: the part of a batch not counted by batchLength (Kafka LOG_OVERHEAD). */
export const LOG_OVERHEAD = 12;
/** Size of the v2 header, i.e. of a batch with no records (Kafka RECORD_BATCH_OVERHEAD). */
export const RECORD_BATCH_OVERHEAD = 61;
/** Bytes up to and including magic (Kafka HEADER_SIZE_UP_TO_MAGIC). */
export const HEADER_SIZE_UP_TO_MAGIC = 17;
/** Smallest batchLength Kafka's batch iterator accepts before looking at magic (MIN_RECORD_OVERHEAD for magic 0). */
export const MIN_BATCH_LENGTH = 14;
export const CURRENT_MAGIC = 2;

export const ATTR_COMPRESSION_MASK = 0x07;
export const ATTR_TIMESTAMP_TYPE = 0x08;
export const ATTR_TRANSACTIONAL = 0x10;
export const ATTR_CONTROL = 0x20;
export const ATTR_DELETE_HORIZON = 0x40;

export const CompressionType = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;
export type CompressionName = keyof typeof CompressionType;
const COMPRESSION_NAMES: readonly CompressionName[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export const NO_PRODUCER_ID = -1;
export const NO_PARTITION_LEADER_EPOCH = -1;
export const NO_TIMESTAMP = -1;

const TWO_32 = 0x1_0000_0000;

/** Reads an int64 as a number (exact for |v| < 2^53), without a BigInt. */
export function readInt64AsNumber(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * TWO_32 + buf.readUInt32BE(pos + 4);
}

/** Writes a safe integer as an int64, without a BigInt. */
export function writeInt64FromNumber(buf: Buffer, pos: number, v: number): void {
  const hi = Math.floor(v / TWO_32);
  buf.writeInt32BE(hi, pos);
  buf.writeUInt32BE(v - hi * TWO_32, pos + 4);
}

export function baseOffset(buf: Buffer, pos: number): number { return readInt64AsNumber(buf, pos + BASE_OFFSET_OFFSET); }
export function batchLength(buf: Buffer, pos: number): number { return buf.readInt32BE(pos + BATCH_LENGTH_OFFSET); }
/** Whole batch size in bytes, including the 12-byte offset/length prefix. */
export function batchSize(buf: Buffer, pos: number): number { return LOG_OVERHEAD + buf.readInt32BE(pos + BATCH_LENGTH_OFFSET); }
export function partitionLeaderEpoch(buf: Buffer, pos: number): number { return buf.readInt32BE(pos + PARTITION_LEADER_EPOCH_OFFSET); }
export function magic(buf: Buffer, pos: number): number { return buf.readInt8(pos + MAGIC_OFFSET); }
export function storedCrc(buf: Buffer, pos: number): number { return buf.readUInt32BE(pos + CRC_OFFSET); }
export function attributes(buf: Buffer, pos: number): number { return buf.readInt16BE(pos + ATTRIBUTES_OFFSET); }
export function compressionType(buf: Buffer, pos: number): number { return buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_COMPRESSION_MASK; }
export function compressionName(code: number): CompressionName | undefined { return COMPRESSION_NAMES[code]; }
export function isLogAppendTime(buf: Buffer, pos: number): boolean { return (buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_TIMESTAMP_TYPE) !== 0; }
export function isTransactional(buf: Buffer, pos: number): boolean { return (buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_TRANSACTIONAL) !== 0; }
export function isControl(buf: Buffer, pos: number): boolean { return (buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_CONTROL) !== 0; }
export function hasDeleteHorizon(buf: Buffer, pos: number): boolean { return (buf[pos + ATTRIBUTES_OFFSET + 1] & ATTR_DELETE_HORIZON) !== 0; }
export function lastOffsetDelta(buf: Buffer, pos: number): number { return buf.readInt32BE(pos + LAST_OFFSET_DELTA_OFFSET); }
export function lastOffset(buf: Buffer, pos: number): number { return baseOffset(buf, pos) + lastOffsetDelta(buf, pos); }

/** Last offset of the last batch in a buffer of whole batches (-1 when empty). */
export function lastOffsetOfBatches(data: Buffer): number {
  let last = -1;
  for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= data.length; pos += 12 + data.readInt32BE(pos + 8)) last = lastOffset(data, pos);
  return last;
}
export function baseTimestamp(buf: Buffer, pos: number): number { return readInt64AsNumber(buf, pos + BASE_TIMESTAMP_OFFSET); }
export function maxTimestamp(buf: Buffer, pos: number): number { return readInt64AsNumber(buf, pos + MAX_TIMESTAMP_OFFSET); }
export function producerId(buf: Buffer, pos: number): number { return readInt64AsNumber(buf, pos + PRODUCER_ID_OFFSET); }
export function producerEpoch(buf: Buffer, pos: number): number { return buf.readInt16BE(pos + PRODUCER_EPOCH_OFFSET); }
export function baseSequence(buf: Buffer, pos: number): number { return buf.readInt32BE(pos + BASE_SEQUENCE_OFFSET); }
export function recordsCount(buf: Buffer, pos: number): number { return buf.readInt32BE(pos + RECORDS_COUNT_OFFSET); }

/** Rewrites baseOffset (outside the CRC, so the CRC stays valid). */
export function setBaseOffset(buf: Buffer, pos: number, offset: number): void {
  writeInt64FromNumber(buf, pos + BASE_OFFSET_OFFSET, offset);
}

/** Rewrites partitionLeaderEpoch (outside the CRC). */
export function setPartitionLeaderEpoch(buf: Buffer, pos: number, epoch: number): void {
  buf.writeInt32BE(epoch, pos + PARTITION_LEADER_EPOCH_OFFSET);
}

/** CRC-32C over attributes..end of the batch at pos (size from its batchLength). */
export function computeCrc(buf: Buffer, pos: number): number {
  return crc32c(buf, pos + ATTRIBUTES_OFFSET, pos + batchSize(buf, pos));
}

export function verifyCrc(buf: Buffer, pos: number): boolean {
  return computeCrc(buf, pos) === storedCrc(buf, pos);
}

export function writeCrc(buf: Buffer, pos: number): void {
  buf.writeUInt32BE(computeCrc(buf, pos), pos + CRC_OFFSET);
}

/**
 * Marks the batch LogAppendTime and stores the broker's time as maxTimestamp (what consumers then
 * read as every record's timestamp), then recomputes the CRC. Like Kafka's
 * `MutableRecordBatch.setMaxTimestamp(LOG_APPEND_TIME, now)`.
 */
export function setLogAppendTime(buf: Buffer, pos: number, timestampMs: number): void {
  buf[pos + ATTRIBUTES_OFFSET + 1] |= ATTR_TIMESTAMP_TYPE;
  writeInt64FromNumber(buf, pos + MAX_TIMESTAMP_OFFSET, timestampMs);
  writeCrc(buf, pos);
}

/**
 * Positions of the batches in a concatenation buf[start, end). Checks that each batch's declared
 * length is at least a v2 header and fits in the bytes left; throws KafkaApiError(CORRUPT_MESSAGE)
 * otherwise. Yields numbers only (no per-batch objects beyond the iterator result).
 */
export function* iterateBatches(buf: Buffer, start = 0, end = buf.length): Generator<number, void, undefined> {
  let pos = start;
  while (pos < end) {
    const next = nextBatchPosition(buf, pos, end);
    yield pos;
    pos = next;
  }
}

/** Position after the batch at pos, validating its length against [pos, end). */
export function nextBatchPosition(buf: Buffer, pos: number, end = buf.length): number {
  if (end - pos < LOG_OVERHEAD) {
    throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `truncated batch header at ${pos}: ${end - pos} bytes left`);
  }
  const len = buf.readInt32BE(pos + BATCH_LENGTH_OFFSET);
  if (len < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `batch length ${len} at ${pos} is below the v2 header size`);
  }
  if (len > end - pos - LOG_OVERHEAD) {
    throw new KafkaApiError(ErrorCode.CORRUPT_MESSAGE, `batch at ${pos} declares ${len} bytes, ${end - pos - LOG_OVERHEAD} left`);
  }
  return pos + LOG_OVERHEAD + len;
}
