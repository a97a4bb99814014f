/**
 * Reading back chosen records of the source log for a delivery round. The due records of a
 * round are spread over the log (due order is not offset order), so a batch is decompressed
 * and scanned only when it holds a wanted offset (a binary search on its offset range), and only
 * the wanted records become objects; the others are walked over by position (RecordScan).
 */
import type { DecodedRecord, RecordHeader } from '../protocol/records/record.js';
import { RECORD_BATCH_OVERHEAD, baseOffset, baseTimestamp, batchSize, isControl, isLogAppendTime, lastOffsetDelta, maxTimestamp, recordsCount } from '../protocol/records/record-batch.js';
import { RecordScan, recordsSection } from '../storage/cleaner-batch.js';

const scan = new RecordScan();

/** Index of the first element of sorted[from, to) that is >= x. */
function lowerBound(sorted: Float64Array, from: number, to: number, x: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function varint(buf: Buffer, st: { pos: number }): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    const b = buf[st.pos++];
    if (b === undefined) throw new RangeError('truncated varint in a record');
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      const u = result >>> 0;
      return (u >>> 1) ^ -(u & 1);
    }
    shift += 7;
  }
  throw new RangeError('varint longer than 5 bytes in a record');
}

function bytes(buf: Buffer, st: { pos: number }): Buffer | null {
  const len = varint(buf, st);
  if (len < 0) return null;
  const out = buf.subarray(st.pos, st.pos + len);
  st.pos += len;
  return out;
}

/**
 * For every batch of `buf` (whole batches) holding offsets of sorted[from, to): puts those
 * records into `found`. Returns the offset after the last batch of `buf`.
 */
export function pickRecords(buf: Buffer, sorted: Float64Array, from: number, to: number, found: Map<number, DecodedRecord>): number {
  let next = -1;
  for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= buf.length; pos += batchSize(buf, pos)) {
    const base = baseOffset(buf, pos);
    const last = base + lastOffsetDelta(buf, pos);
    next = last + 1;
    const first = lowerBound(sorted, from, to, base);
    if (first >= to || sorted[first] > last || isControl(buf, pos)) continue;
    const count = recordsCount(buf, pos);
    const section = recordsSection(buf, pos);
    scan.scan(section, count);
    const logAppend = isLogAppendTime(buf, pos);
    const baseTs = baseTimestamp(buf, pos);
    const maxTs = maxTimestamp(buf, pos);
    let w = first;
    for (let i = 0; i < count && w < to && sorted[w] <= last; i++) {
      const offset = base + scan.offsetDelta[i];
      while (w < to && sorted[w] < offset) w++;
      if (w >= to || sorted[w] !== offset) continue;
      const st = { pos: scan.keyStart[i] };
      const key = scan.keyLength[i] < 0 ? null : section.subarray(st.pos, st.pos + scan.keyLength[i]);
      if (scan.keyLength[i] > 0) st.pos += scan.keyLength[i];
      const value = bytes(section, st);
      const n = varint(section, st);
      const headers: RecordHeader[] = [];
      for (let h = 0; h < n; h++) {
        const k = bytes(section, st);
        headers.push({ key: k === null ? '' : k.toString('utf8'), value: bytes(section, st) });
      }
      found.set(offset, { offset: BigInt(offset), timestamp: BigInt(logAppend ? maxTs : baseTs + scan.timestampDelta[i]), key, value, headers });
    }
  }
  return next;
}

const DELIVER_AT = Buffer.from('samsa-deliver-at');
/** samsa-deliver-at as epoch ms from section[start, start + len), or -1 when not decimal digits. */
function decimalAt(section: Buffer, start: number, len: number): number {
  if (len <= 0 || len > 16) return -1;
  let n = 0;
  for (let i = 0; i < len; i++) {
    const c = section[start + i] - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

/**
 * Calls visit(offset, deliverAt, timestamp) for every record of the (data) batch at buf[pos]:
 * deliverAt is the last samsa-deliver-at header if valid, else -1 (the due time is then the
 * timestamp plus the topic's delay: deliver-at.ts dueTimeOf); read by position without creating
 * record objects.
 */
export function forEachDue(buf: Buffer, pos: number, visit: (offset: number, deliverAt: number, timestamp: number) => void): void {
  const base = baseOffset(buf, pos);
  const count = recordsCount(buf, pos);
  const section = recordsSection(buf, pos);
  scan.scan(section, count);
  const logAppend = isLogAppendTime(buf, pos);
  const baseTs = baseTimestamp(buf, pos);
  const maxTs = maxTimestamp(buf, pos);
  const st = { pos: 0 };
  for (let i = 0; i < count; i++) {
    st.pos = scan.keyStart[i] + (scan.keyLength[i] > 0 ? scan.keyLength[i] : 0);
    const vlen = varint(section, st);
    if (vlen > 0) st.pos += vlen;
    const n = varint(section, st);
    let at = -2;
    for (let h = 0; h < n; h++) {
      const klen = varint(section, st);
      const kstart = st.pos;
      st.pos += Math.max(0, klen);
      const hvlen = varint(section, st);
      const vstart = st.pos;
      if (hvlen > 0) st.pos += hvlen;
      if (klen === DELIVER_AT.length && section.compare(DELIVER_AT, 0, klen, kstart, kstart + klen) === 0) at = decimalAt(section, vstart, hvlen);
    }
    const ts = logAppend ? maxTs : baseTs + scan.timestampDelta[i];
    visit(base + scan.offsetDelta[i], at >= 0 ? at : -1, ts);
  }
}
