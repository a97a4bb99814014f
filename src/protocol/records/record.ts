/**
 * Individual v2 records inside a RecordBatch: encode whole batches and decode them back into
 * objects. For tests, benchmarks, coordinators that write internal topics, and the ListOffsets
 * record search; the produce and fetch paths never come here (they move batch bytes untouched).
 *
 * Record layout (after the 61-byte batch header, possibly compressed as one block):
 *   length varint | attributes int8 (unused, 0) | timestampDelta varlong | offsetDelta varint |
 *   keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
 *   headerCount varint | [headerKeyLength varint | headerKey utf8 | headerValueLength varint | headerValue]
 */
import { ProtocolError } from '../../errors.js';
import { Reader } from '../reader.js';
import { Writer } from '../writer.js';
import { compressSync, decompressSync } from './compression.js';
import {
  ATTR_CONTROL,
  ATTR_COMPRESSION_MASK,
  ATTR_DELETE_HORIZON,
  ATTR_TIMESTAMP_TYPE,
  ATTR_TRANSACTIONAL,
  CompressionType,
  CURRENT_MAGIC,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  batchSize,
  compressionName,
  nextBatchPosition,
  storedCrc,
  writeCrc,
  type CompressionName,
} from './record-batch.js';

export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface RecordInput {
  key: Buffer | null;
  value: Buffer | null;
  headers?: RecordHeader[];
  /** Create time in ms; defaults to Date.now() at build time. */
  timestamp?: bigint;
}

export interface BuildRecordBatchOptions {
  baseOffset?: bigint;
  records: RecordInput[];
  compression?: CompressionName;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  transactional?: boolean;
  control?: boolean;
  partitionLeaderEpoch?: number;
  timestampType?: 'create' | 'logAppend';
}

export interface DecodedRecord {
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}

export interface DecodedRecordBatch {
  baseOffset: bigint;
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: CompressionName;
  timestampType: 'create' | 'logAppend';
  isTransactional: boolean;
  isControl: boolean;
  hasDeleteHorizon: boolean;
  lastOffsetDelta: number;
  baseTimestamp: bigint;
  maxTimestamp: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  recordsCount: number;
  /** Size of the whole batch in bytes (12 + batchLength). */
  sizeBytes: number;
  records: DecodedRecord[];
}

function writeNullableVarBytes(w: Writer, b: Buffer | null): void {
  if (b === null) {
    w.varint(-1);
  } else {
    w.varint(b.length);
    w.bytesRaw(b);
  }
}

function encodeRecordsSection(records: RecordInput[], baseTimestamp: bigint, timestamps: bigint[]): Buffer {
  const out = new Writer(records.length * 32 + 64);
  records.forEach((r, i) => {
    const b = new Writer(64 + (r.key?.length ?? 0) + (r.value?.length ?? 0));
    b.int8(0);
    b.varlong(timestamps[i] - baseTimestamp);
    b.varint(i);
    writeNullableVarBytes(b, r.key);
    writeNullableVarBytes(b, r.value);
    const headers = r.headers ?? [];
    b.varint(headers.length);
    for (const h of headers) {
      const k = Buffer.from(h.key, 'utf8');
      b.varint(k.length);
      b.bytesRaw(k);
      writeNullableVarBytes(b, h.value);
    }
    const encoded = b.toBuffer();
    out.varint(encoded.length);
    out.bytesRaw(encoded);
  });
  return out.toBuffer();
}

/** Builds one v2 record batch (synchronous: every codec has a synchronous form). */
export function buildRecordBatch(opts: BuildRecordBatchOptions): Buffer {
  const { records } = opts;
  if (records.length === 0) throw new RangeError('a record batch needs at least one record');
  const now = BigInt(Date.now());
  const timestamps = records.map((r) => r.timestamp ?? now);
  const baseTimestamp = timestamps[0];
  let maxTimestamp = timestamps[0];
  for (const t of timestamps) if (t > maxTimestamp) maxTimestamp = t;

  const codec = opts.compression ?? 'none';
  const plain = encodeRecordsSection(records, baseTimestamp, timestamps);
  const payload = codec === 'none' ? plain : compressSync(codec, plain);

  let attributes = CompressionType[codec];
  if (opts.timestampType === 'logAppend') attributes |= ATTR_TIMESTAMP_TYPE;
  if (opts.transactional) attributes |= ATTR_TRANSACTIONAL;
  if (opts.control) attributes |= ATTR_CONTROL;

  const size = RECORD_BATCH_OVERHEAD + payload.length;
  const buf = Buffer.allocUnsafe(size);
  buf.writeBigInt64BE(opts.baseOffset ?? 0n, 0);
  buf.writeInt32BE(size - LOG_OVERHEAD, 8);
  buf.writeInt32BE(opts.partitionLeaderEpoch ?? -1, 12);
  buf.writeInt8(CURRENT_MAGIC, 16);
  buf.writeUInt32BE(0, 17);
  buf.writeInt16BE(attributes, 21);
  buf.writeInt32BE(records.length - 1, 23);
  buf.writeBigInt64BE(baseTimestamp, 27);
  buf.writeBigInt64BE(maxTimestamp, 35);
  buf.writeBigInt64BE(opts.producerId ?? -1n, 43);
  buf.writeInt16BE(opts.producerEpoch ?? -1, 51);
  buf.writeInt32BE(opts.baseSequence ?? -1, 53);
  buf.writeInt32BE(records.length, 57);
  payload.copy(buf, RECORD_BATCH_OVERHEAD);
  writeCrc(buf, 0);
  return buf;
}

function readNullableVarBytes(r: Reader): Buffer | null {
  const len = r.varint();
  if (len < -1) throw new ProtocolError(`negative record field length ${len}`);
  return len === -1 ? null : r.raw(len);
}

/**
 * Decodes the batch at buf[pos] (default 0) with its records. Record fields are views of `buf`
 * (or of the decompressed block). Throws ProtocolError on malformed record data and
 * KafkaApiError(CORRUPT_MESSAGE) on a bad batch length or undecodable compressed payload.
 * The CRC is not checked here (see verifyCrc).
 */
export function decodeRecordBatch(buf: Buffer, pos = 0): DecodedRecordBatch {
  const end = nextBatchPosition(buf, pos);
  const magicByte = buf.readInt8(pos + 16);
  if (magicByte !== CURRENT_MAGIC) throw new ProtocolError(`unsupported record batch magic ${magicByte}`);
  const attributes = buf.readInt16BE(pos + 21);
  const codecCode = attributes & ATTR_COMPRESSION_MASK;
  const compression = compressionName(codecCode);
  if (compression === undefined) throw new ProtocolError(`unknown compression type ${codecCode}`);
  const baseOffset = buf.readBigInt64BE(pos);
  const maxTimestamp = buf.readBigInt64BE(pos + 35);
  const baseTimestamp = buf.readBigInt64BE(pos + 27);
  const logAppend = (attributes & ATTR_TIMESTAMP_TYPE) !== 0;
  const recordsCount = buf.readInt32BE(pos + 57);

  const payload = buf.subarray(pos + RECORD_BATCH_OVERHEAD, end);
  const data = compression === 'none' ? payload : decompressSync(compression, payload);
  const r = new Reader(data);
  if (recordsCount < 0 || recordsCount > r.remaining) {
    throw new ProtocolError(`record count ${recordsCount} does not fit in ${r.remaining} bytes`);
  }
  const records: DecodedRecord[] = [];
  for (let i = 0; i < recordsCount; i++) {
    const len = r.varint();
    if (len < 0 || len > r.remaining) throw new ProtocolError(`record length ${len} exceeds the ${r.remaining} bytes left`);
    const rec = new Reader(data, r.pos, r.pos + len);
    r.skip(len);
    rec.int8();
    const timestampDelta = rec.varlong();
    const offsetDelta = rec.varint();
    const key = readNullableVarBytes(rec);
    const value = readNullableVarBytes(rec);
    const headerCount = rec.varint();
    if (headerCount < 0 || headerCount > rec.remaining) throw new ProtocolError(`header count ${headerCount} out of range`);
    const headers: RecordHeader[] = [];
    for (let h = 0; h < headerCount; h++) {
      const klen = rec.varint();
      if (klen < 0) throw new ProtocolError('null record header key');
      const hkey = rec.raw(klen).toString('utf8');
      headers.push({ key: hkey, value: readNullableVarBytes(rec) });
    }
    records.push({
      offset: baseOffset + BigInt(offsetDelta),
      timestamp: logAppend ? maxTimestamp : baseTimestamp + timestampDelta,
      key,
      value,
      headers,
    });
  }

  return {
    baseOffset,
    batchLength: buf.readInt32BE(pos + 8),
    partitionLeaderEpoch: buf.readInt32BE(pos + 12),
    magic: magicByte,
    crc: storedCrc(buf, pos),
    attributes,
    compression,
    timestampType: logAppend ? 'logAppend' : 'create',
    isTransactional: (attributes & ATTR_TRANSACTIONAL) !== 0,
    isControl: (attributes & ATTR_CONTROL) !== 0,
    hasDeleteHorizon: (attributes & ATTR_DELETE_HORIZON) !== 0,
    lastOffsetDelta: buf.readInt32BE(pos + 23),
    baseTimestamp,
    maxTimestamp,
    producerId: buf.readBigInt64BE(pos + 43),
    producerEpoch: buf.readInt16BE(pos + 51),
    baseSequence: buf.readInt32BE(pos + 53),
    recordsCount,
    sizeBytes: batchSize(buf, pos),
    records,
  };
}

/** Decodes every batch of a concatenation. */
export function decodeRecordBatches(buf: Buffer): DecodedRecordBatch[] {
  const out: DecodedRecordBatch[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const next = nextBatchPosition(buf, pos);
    out.push(decodeRecordBatch(buf, pos));
    pos = next;
  }
  return out;
}
