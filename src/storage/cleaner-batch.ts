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

/**
 * The records of one batch as positions in its (decompressed) records section, held in typed
 * arrays reused from batch to batch: no object per record. Record i starts at `start[i]` (its
 * length varint) and ends at `end[i]`; `afterTimestamp[i]` is right after its timestamp delta
 * (offset delta, key, value and headers follow); `keyLength[i]` is -1 for a record without key.
 * `kept[0 … keptCount)` are the indices of the records a rewrite keeps, in order.
 */
export class RecordScan {
  count = 0;
  start = new Int32Array(16);
  end = new Int32Array(16);
  afterTimestamp = new Int32Array(16);
  offsetDelta = new Int32Array(16);
  keyStart = new Int32Array(16);
  keyLength = new Int32Array(16);
  hasValue = new Uint8Array(16);
  timestampDelta = new Float64Array(16);
  kept = new Int32Array(16);
  keptCount = 0;

  private ensure(n: number): void {
    if (n <= this.start.length) return;
    const size = Math.max(n, this.start.length * 2);
    this.start = new Int32Array(size);
    this.end = new Int32Array(size);
    this.afterTimestamp = new Int32Array(size);
    this.offsetDelta = new Int32Array(size);
    this.keyStart = new Int32Array(size);
    this.keyLength = new Int32Array(size);
    this.hasValue = new Uint8Array(size);
    this.timestampDelta = new Float64Array(size);
    this.kept = new Int32Array(size);
  }

  /** Reads the positions of the `count` records of `section`; none kept yet. */
  scan(section: Buffer, count: number): void {
    this.ensure(count);
    this.count = count;
    this.keptCount = 0;
    const st = { pos: 0 };
    for (let i = 0; i < count; i++) {
      this.start[i] = st.pos;
      const len = readVarint(section, st);
      const end = st.pos + len;
      if (len < 0 || end > section.length) throw new Error(`record length ${len} overruns the batch`);
      st.pos++; // attributes
      this.timestampDelta[i] = readVarlong(section, st);
      this.afterTimestamp[i] = st.pos;
      this.offsetDelta[i] = readVarint(section, st);
      const klen = readVarint(section, st);
      this.keyStart[i] = st.pos;
      this.keyLength[i] = klen;
      if (klen > 0) st.pos += klen;
      this.hasValue[i] = readVarint(section, st) >= 0 ? 1 : 0;
      this.end[i] = end;
      st.pos = end;
    }
  }

  keep(i: number): void {
    this.kept[this.keptCount++] = i;
  }

  keepAll(): void {
    for (let i = 0; i < this.count; i++) this.kept[i] = i;
    this.keptCount = this.count;
  }
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

/**
 * Calls `visit(section, keyStart, keyLength, offsetDelta)` for every record with a key (the offset
 * map's pass): the same walk as RecordScan without storing anything. A visit answering
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
 * Builds the batch at `buf[pos]` with only the records `scan` keeps (scan.kept, in order; a null
 * scan keeps none). With `deleteHorizonMs` >= 0 the batch is stamped with that horizon. Keeping
 * none gives a header with no records (Kafka keeps such a batch for a producer's last sequence).
 */
export function rewriteBatch(buf: Buffer, pos: number, section: Buffer, scan: RecordScan | null, deleteHorizonMs: number): Buffer {
  const n = scan?.keptCount ?? 0;
  const oldBase = batchBaseTimestamp(buf, pos);
  const horizon = deleteHorizonMs >= 0;
  const newBase = horizon ? deleteHorizonMs : n > 0 ? oldBase + scan!.timestampDelta[scan!.kept[0]] : oldBase;
  const shift = oldBase - newBase;
  let size = 0;
  for (let j = 0; j < n; j++) {
    const i = scan!.kept[j];
    if (shift === 0) {
      size += scan!.end[i] - scan!.start[i];
    } else {
      const body = 1 + varlongSize(scan!.timestampDelta[i] + shift) + (scan!.end[i] - scan!.afterTimestamp[i]);
      size += varlongSize(body) + body;
    }
  }
  let plain = Buffer.allocUnsafe(size);
  let at = 0;
  let maxTs = -1;
  for (let j = 0; j < n; j++) {
    const i = scan!.kept[j];
    const tsDelta = scan!.timestampDelta[i];
    const ts = oldBase + tsDelta;
    if (ts > maxTs) maxTs = ts;
    if (shift === 0) {
      at += section.copy(plain, at, scan!.start[i], scan!.end[i]);
    } else {
      const rest = scan!.end[i] - scan!.afterTimestamp[i];
      const body = 1 + varlongSize(tsDelta + shift) + rest;
      at = writeVarlong(plain, at, body);
      plain[at++] = 0;
      at = writeVarlong(plain, at, tsDelta + shift);
      at += section.copy(plain, at, scan!.afterTimestamp[i], scan!.end[i]);
    }
  }
  if (at !== size) plain = plain.subarray(0, at);
  const codec = compressionType(buf, pos);
  const payload = codec === 0 || n === 0 ? plain : compressSync(codec, plain);
  const out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + payload.length);
  buf.copy(out, 0, pos, pos + RECORD_BATCH_OVERHEAD);
  payload.copy(out, RECORD_BATCH_OVERHEAD);
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  out.writeInt32BE(n, RECORDS_COUNT_OFFSET);
  if (horizon) out[ATTRIBUTES_OFFSET + 1] |= ATTR_DELETE_HORIZON;
  // An empty batch is written uncompressed, as Kafka's writeEmptyHeader does.
  if (n === 0) out[ATTRIBUTES_OFFSET + 1] &= ~0x07;
  writeInt64FromNumber(out, BASE_TIMESTAMP_OFFSET, newBase);
  // LogAppendTime batches carry the broker's time as maxTimestamp for every record: keep it.
  if (!isLogAppendTime(buf, pos) && n > 0) writeInt64FromNumber(out, MAX_TIMESTAMP_OFFSET, maxTs);
  writeCrc(out, 0);
  return out;
}

/** The batch's delete horizon, or -1 when it has none. */
export function deleteHorizonOf(buf: Buffer, pos: number): number {
  return hasDeleteHorizon(buf, pos) ? batchBaseTimestamp(buf, pos) : -1;
}

export { batchBaseOffset, batchMaxTimestamp, recordsCount };
