/**
 * Record-level work of the log cleaner (log-cleaner.ts): reading the keys of a batch and writing a
 * batch that keeps only some of its records. Only the cleaner decodes records; produce and fetch
 * never come here.
 *
 * A rewritten batch keeps everything that identifies it (Kafka's `MemoryRecords.filterTo`):
 * baseOffset and lastOffsetDelta (so the producer's last sequence, baseSequence + lastOffsetDelta,
 * can still be rebuilt from the log), producer id, epoch, baseSequence, partitionLeaderEpoch,
 * compression codec and timestamp type. Records keep their offset deltas, so offsets never move;
 * the removed ones simply leave gaps.
 *
 * Delete horizon (KIP-534): when a batch holding tombstones is first cleaned, its baseTimestamp
 * becomes `now + delete.retention.ms` and attribute bit 6 is set; the record timestamp deltas are
 * re-encoded against the new base so every record keeps its timestamp. A later pass after the
 * horizon drops the tombstones.
 */
import {
  ATTR_DELETE_HORIZON,
  ATTRIBUTES_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  BATCH_LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAX_TIMESTAMP_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  baseOffset as batchBaseOffset,
  baseTimestamp as batchBaseTimestamp,
  batchSize,
  compressionType,
  hasDeleteHorizon,
  isLogAppendTime,
  maxTimestamp as batchMaxTimestamp,
  recordsCount,
  writeCrc,
  writeInt64FromNumber,
} from '../protocol/records/record-batch.js';
import { compressSync, decompressSync } from '../protocol/records/compression.js';

/** One record of a batch, as positions in the (decompressed) records section. */
export interface RawRecord {
  /** Start of the length varint. */
  start: number;
  /** End of the record. */
  end: number;
  /** Position right after the timestamp delta (offset delta, key, value, headers follow). */
  afterTimestamp: number;
  timestampDelta: number;
  offsetDelta: number;
  /** Position of the key in the section, and its length (-1 for a record without key). */
  keyStart: number;
  keyLength: number;
  hasValue: boolean;
}

function readVarint(buf: Buffer, st: { pos: number }): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    const b = buf[st.pos++];
    if (b === undefined) throw new Error('truncated varint in a record');
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      const u = result >>> 0;
      return (u >>> 1) ^ -(u & 1);
    }
    shift += 7;
  }
  throw new Error('varint longer than 5 bytes in a record');
}

/** Zig-zag varlong as a number (timestamp deltas fit in 53 bits). */
function readVarlong(buf: Buffer, st: { pos: number }): number {
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    const b = buf[st.pos++];
    if (b === undefined) throw new Error('truncated varlong in a record');
    result += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return result % 2 === 0 ? result / 2 : -(result + 1) / 2;
    mul *= 128;
  }
  throw new Error('varlong longer than 10 bytes in a record');
}

function varlongSize(v: number): number {
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (z >= 128) {
    z = Math.floor(z / 128);
    n++;
  }
  return n;
}

function writeVarlong(out: Buffer, pos: number, v: number): number {
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  while (z >= 128) {
    out[pos++] = (z % 128) | 0x80;
    z = Math.floor(z / 128);
  }
  out[pos++] = z;
  return pos;
}

/** The records section of the batch at `pos`, decompressed when needed. */
export function recordsSection(buf: Buffer, pos: number): Buffer {
  const payload = buf.subarray(pos + RECORD_BATCH_OVERHEAD, pos + batchSize(buf, pos));
  const codec = compressionType(buf, pos);
  return codec === 0 ? payload : decompressSync(codec, payload);
}

/** The records of a batch (section from `recordsSection`). */
export function scanRecords(section: Buffer, count: number): RawRecord[] {
  const out: RawRecord[] = [];
  const st = { pos: 0 };
  for (let i = 0; i < count; i++) {
    const start = st.pos;
    const len = readVarint(section, st);
    const bodyStart = st.pos;
    const end = bodyStart + len;
    if (len < 0 || end > section.length) throw new Error(`record length ${len} overruns the batch`);
    st.pos++; // attributes
    const timestampDelta = readVarlong(section, st);
    const afterTimestamp = st.pos;
    const offsetDelta = readVarint(section, st);
    const klen = readVarint(section, st);
    const keyStart = st.pos;
    if (klen > 0) st.pos += klen;
    const vlen = readVarint(section, st);
    out.push({ start, end, afterTimestamp, timestampDelta, offsetDelta, keyStart, keyLength: klen, hasValue: vlen >= 0 });
    st.pos = end;
  }
  return out;
}

/**
 * Calls `visit(section, keyStart, keyLength, offsetDelta)` for every record with a key (the offset
 * map's pass): the same walk as scanRecords without an object per record. A visit answering
 * false stops the walk.
 */
export function forEachKey(section: Buffer, count: number, visit: (section: Buffer, keyStart: number, keyLength: number, offsetDelta: number) => boolean): void {
  const st = { pos: 0 };
  for (let i = 0; i < count; i++) {
    const len = readVarint(section, st);
    const end = st.pos + len;
    if (len < 0 || end > section.length) throw new Error(`record length ${len} overruns the batch`);
    st.pos++; // attributes
    readVarlong(section, st);
    const offsetDelta = readVarint(section, st);
    const klen = readVarint(section, st);
    if (klen >= 0 && !visit(section, st.pos, klen, offsetDelta)) return;
    st.pos = end;
  }
}

/**
 * Builds the batch at `buf[pos]` with only `keep` (a subset of its records, in order). With
 * `deleteHorizonMs` >= 0 the batch is stamped with that horizon. An empty `keep` gives a header
 * with no records (Kafka keeps such a batch for a producer's last sequence).
 */
export function rewriteBatch(buf: Buffer, pos: number, section: Buffer, keep: readonly RawRecord[], deleteHorizonMs: number): Buffer {
  const oldBase = batchBaseTimestamp(buf, pos);
  const horizon = deleteHorizonMs >= 0;
  const newBase = horizon ? deleteHorizonMs : keep.length > 0 ? oldBase + keep[0].timestampDelta : oldBase;
  const shift = oldBase - newBase;
  let size = 0;
  for (const r of keep) {
    if (shift === 0) {
      size += r.end - r.start;
    } else {
      const body = 1 + varlongSize(r.timestampDelta + shift) + (r.end - r.afterTimestamp);
      size += varlongSize(body) + body;
    }
  }
  let plain = Buffer.allocUnsafe(size);
  let at = 0;
  let maxTs = -1;
  for (const r of keep) {
    const ts = oldBase + r.timestampDelta;
    if (ts > maxTs) maxTs = ts;
    if (shift === 0) {
      at += section.copy(plain, at, r.start, r.end);
    } else {
      const rest = r.end - r.afterTimestamp;
      const body = 1 + varlongSize(r.timestampDelta + shift) + rest;
      at = writeVarlong(plain, at, body);
      plain[at++] = 0;
      at = writeVarlong(plain, at, r.timestampDelta + shift);
      at += section.copy(plain, at, r.afterTimestamp, r.end);
    }
  }
  if (at !== size) plain = plain.subarray(0, at);
  const codec = compressionType(buf, pos);
  const payload = codec === 0 || keep.length === 0 ? plain : compressSync(codec, plain);
  const out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + payload.length);
  buf.copy(out, 0, pos, pos + RECORD_BATCH_OVERHEAD);
  payload.copy(out, RECORD_BATCH_OVERHEAD);
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  out.writeInt32BE(keep.length, RECORDS_COUNT_OFFSET);
  if (horizon) out[ATTRIBUTES_OFFSET + 1] |= ATTR_DELETE_HORIZON;
  // An empty batch is written uncompressed, as Kafka's writeEmptyHeader does.
  if (keep.length === 0) out[ATTRIBUTES_OFFSET + 1] &= ~0x07;
  writeInt64FromNumber(out, BASE_TIMESTAMP_OFFSET, newBase);
  // LogAppendTime batches carry the broker's time as maxTimestamp for every record: keep it.
  if (!isLogAppendTime(buf, pos) && keep.length > 0) writeInt64FromNumber(out, MAX_TIMESTAMP_OFFSET, maxTs);
  writeCrc(out, 0);
  return out;
}

/** The batch's delete horizon, or -1 when it has none. */
export function deleteHorizonOf(buf: Buffer, pos: number): number {
  return hasDeleteHorizon(buf, pos) ? batchBaseTimestamp(buf, pos) : -1;
}

export { batchBaseOffset, batchMaxTimestamp, recordsCount };
