/**
 * What a Fetch on a view returns for batches read from its source log.
 *
 * - A batch whose records all match goes out as its stored bytes (runs of such batches stay one
 *   slice of the segment read, so the common all-match case adds no buffers).
 * - A batch with no match becomes a header without records that keeps baseOffset and
 *   lastOffsetDelta (what Kafka's cleaner writes for an emptied batch), so the consumer's position
 *   still moves past it: clients take the next fetch offset from lastOffset + 1.
 * - A batch with some matches is rebuilt: decompressed, the matching records kept with their
 *   offset deltas (the others leave gaps, as after compaction), recompressed with the same codec
 *   and a new CRC (storage/cleaner-batch.ts `rewriteBatch`, the cleaner's writer).
 * - Control batches (transaction markers) pass unchanged: read_committed consumers need them.
 *
 * Only this path decodes records; the plain fetch path never comes here.
 */
import { createRequire } from 'node:module';
import { BATCH_LENGTH_OFFSET, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, batchSize, compressionType, isControl, recordsCount, writeCrc } from '../protocol/records/record-batch.js';
import { isXerialSnappy } from '../protocol/records/compression.js';
import { RecordScan, recordsSection, rewriteBatch } from '../storage/cleaner-batch.js';
import type { HeaderFilter } from './filter.js';

export interface ViewFilterStats {
  /** Batches sent as stored. */
  batchesKept: number;
  /** Batches rebuilt with some of their records. */
  batchesRebuilt: number;
  /** Batches sent as empty headers. */
  batchesEmptied: number;
}

/** Position of the header-count varint of the record whose key starts at keyStart (keyLength -1 = null). */
function headersPosition(section: Buffer, keyStart: number, keyLength: number): number {
  let pos = keyStart + (keyLength > 0 ? keyLength : 0);
  // Value length (zig-zag varint), then the value bytes.
  let result = 0;
  let shift = 0;
  for (let i = 0; ; i++) {
    if (i === 5) throw new RangeError('varint longer than 5 bytes in a record');
    const b = section[pos++];
    if (b === undefined) throw new RangeError('truncated record value length');
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
  }
  const u = result >>> 0;
  const vlen = (u >>> 1) ^ -(u & 1);
  return vlen > 0 ? pos + vlen : pos;
}

const scan = new RecordScan();
const require = createRequire(import.meta.url);
const SNAPPY = 2;

/**
 * A rebuilt batch keeps its source's snappy framing. The cleaner's writer compresses snappy in
 * the Java client's xerial framing; a batch that arrived as a bare snappy block (librdkafka,
 * @platformatic/kafka) goes out bare again, since some clients (@platformatic/kafka) read only that.
 */
function keepSnappyFraming(original: Buffer, pos: number, rebuilt: Buffer): Buffer {
  if (compressionType(original, pos) !== SNAPPY || recordsCount(rebuilt, 0) === 0) return rebuilt;
  if (isXerialSnappy(original.subarray(pos + RECORD_BATCH_OVERHEAD, pos + batchSize(original, pos)))) return rebuilt;
  const raw = (require('snappy') as { compressSync(b: Buffer): Buffer }).compressSync(recordsSection(rebuilt, 0));
  const out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + raw.length);
  rebuilt.copy(out, 0, 0, RECORD_BATCH_OVERHEAD);
  raw.copy(out, RECORD_BATCH_OVERHEAD);
  out.writeInt32BE(out.length - LOG_OVERHEAD, BATCH_LENGTH_OFFSET);
  writeCrc(out, 0);
  return out;
}

/**
 * Applies `filter` to every batch of `buffers` (each a concatenation of whole batches, as
 * log.read returns them; `null` keeps every record). Returns buffers of whole batches in the
 * same order and offsets. Synchronous: the shared scan state is never held across an await.
 */
export function filterBatches(buffers: Buffer[], filter: HeaderFilter | null, stats?: ViewFilterStats): Buffer[] {
  if (filter === null) return buffers;
  const out: Buffer[] = [];
  for (const buf of buffers) {
    let runStart = 0;
    let pos = 0;
    while (pos + RECORD_BATCH_OVERHEAD <= buf.length) {
      const size = batchSize(buf, pos);
      if (pos + size > buf.length) break;
      const count = recordsCount(buf, pos);
      if (isControl(buf, pos) || count === 0) {
        pos += size;
        if (stats) stats.batchesKept++;
        continue;
      }
      const section = recordsSection(buf, pos);
      scan.scan(section, count);
      for (let i = 0; i < count; i++) {
        if (filter.matchesHeadersAt(section, headersPosition(section, scan.keyStart[i], scan.keyLength[i]))) scan.keep(i);
      }
      if (scan.keptCount === count) {
        pos += size;
        if (stats) stats.batchesKept++;
        continue;
      }
      if (pos > runStart) out.push(buf.subarray(runStart, pos));
      out.push(keepSnappyFraming(buf, pos, rewriteBatch(buf, pos, section, scan.keptCount === 0 ? null : scan, -1)));
      if (stats) {
        if (scan.keptCount === 0) stats.batchesEmptied++;
        else stats.batchesRebuilt++;
      }
      pos += size;
      runStart = pos;
    }
    if (pos > runStart) out.push(runStart === 0 && pos === buf.length ? buf : buf.subarray(runStart, pos));
  }
  return out;
}
