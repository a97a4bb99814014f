/**
 * The copying half of a cleaning pass (Kafka's Cleaner.buildOffsetMap and cleanSegments): the
 * offset map over the dirty section, then each group of segments written as
 * `<base>.log.cleaned` with its indexes. It runs either in a worker thread (cleaner-worker.ts,
 * real files) or on the event loop (log-cleaner.ts, any Fs: the tests' MemFs). Everything it
 * needs comes in a `PassPlan` that can cross a thread (plain numbers, strings and arrays); the
 * segments are read through a `BatchSource`, so each side reads files its own way. Swapping the
 * new segments in stays with log-cleaner.ts, in the partition's queue.
 *
 * Crash safety: nothing here renames or deletes a live file; a crash leaves `.cleaned` files
 * that the loader (and the next pass) removes.
 */
import type { Fs, FileHandle } from './fs.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { TransactionIndex } from './txn-index.js';
import { CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX, logFileName, offsetIndexFileName, timeIndexFileName, txnIndexFileName } from './file-names.js';
import {
  baseOffset as batchBaseOffset,
  batchSize,
  isControl,
  lastOffsetDelta,
  maxTimestamp as batchMaxTimestamp,
  producerId as batchProducerId,
  recordsCount,
} from '../protocol/records/record-batch.js';
import { RecordScan, deleteHorizonOf, forEachKey, recordsSection, rewriteBatch } from './cleaner-batch.js';
import { OffsetMap } from './cleaner-offset-map.js';
import { CleanerTxnTracker, CONTROL_ABORT, controlType } from './cleaner-txn.js';
import type { AbortedTxn } from './producer-state.js';

/** A segment below the active one, as the pass saw it when it started. */
export interface SegmentRef {
  baseOffset: number;
  /** Base offset of the segment after it (the end of its offsets). */
  nextBaseOffset: number;
  /** Bytes of the .log to read (its size when the pass started; a segment below the active one does not grow). */
  sizeBytes: number;
  logPath: string;
}

export interface PassPlan {
  dir: string;
  segments: SegmentRef[];
  firstDirty: number;
  firstUncleanable: number;
  abortedTxns: AbortedTxn[];
  /** [producerId, lastOffset of its last batch] from the producer state. */
  producerLast: [number, number][];
  now: number;
  deleteRetentionMs: number;
  /** Bytes of memory for the offset map. */
  mapBytes: number;
  loadFactor: number;
  /** Bytes per read (at least one batch is read). */
  readBytes: number;
  indexIntervalBytes: number;
  segmentIndexBytes: number;
}

export interface CopyStats {
  bytesRead: number;
  bytesWritten: number;
  recordsRead: number;
  recordsRetained: number;
}

/** How one side of the pass reads a segment's batches. */
export interface BatchSource {
  /**
   * Calls `visit(buf, pos)` for every batch of `seg` in order until it answers false, adding the
   * bytes read to `stats.bytesRead`.
   */
  forEachBatch(seg: SegmentRef, stats: CopyStats, visit: (buf: Buffer, pos: number) => void | false): Promise<void>;
}

export interface GroupResult {
  /** Earliest delete horizon of the batches written (-1 if none). */
  horizon: number;
  bytesWritten: number;
  /** Index files written besides the .log (paths without the .cleaned suffix). */
  indexPaths: string[];
}

export const cleanedName = (p: string): string => p + CLEANED_FILE_SUFFIX;
export const swapName = (p: string): string => p + SWAP_FILE_SUFFIX;

/** The four file names of a segment starting at `base`. */
export function segmentFileNames(dir: string, base: number): { log: string; index: string; time: string; txn: string } {
  return { log: logFileName(dir, base), index: offsetIndexFileName(dir, base), time: timeIndexFileName(dir, base), txn: txnIndexFileName(dir, base) };
}

/** One pass's copy work; call buildMap once, then writeGroup for each group in log order. */
export class CleanerCopy {
  readonly stats: CopyStats = { bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsRetained: 0 };
  private readonly txns: CleanerTxnTracker;
  private readonly producerLast: Map<number, number>;
  private map: OffsetMap | null = null;
  private readonly scan = new RecordScan();

  constructor(
    private readonly fs: Fs,
    private readonly source: BatchSource,
    private readonly plan: PassPlan,
  ) {
    this.txns = new CleanerTxnTracker(plan.abortedTxns);
    this.producerLast = new Map(plan.producerLast);
  }

  /**
   * Builds the offset map over the dirty section until the map is full; returns the end of the
   * range it covers (the offset of the first record it refused, or the end of the last segment).
   */
  async buildMap(): Promise<number> {
    const { plan } = this;
    const firstDirty = plan.firstDirty;
    const map = new OffsetMap(plan.mapBytes, plan.loadFactor, { slotsWanted: (plan.firstUncleanable - firstDirty) / plan.loadFactor + 1 });
    this.map = map;
    let end = firstDirty;
    let full = false;
    for (const seg of plan.segments) {
      if (full) break;
      if (seg.nextBaseOffset <= firstDirty) continue;
      if (seg.nextBaseOffset > plan.firstUncleanable) break;
      await this.source.forEachBatch(seg, this.stats, (buf, pos) => {
        const base = batchBaseOffset(buf, pos);
        const last = base + lastOffsetDelta(buf, pos);
        if (last < firstDirty) return;
        if (!isControl(buf, pos) && !this.txns.isAborted(buf, pos)) {
          forEachKey(recordsSection(buf, pos), recordsCount(buf, pos), (section, keyStart, keyLength, delta) => {
            const offset = base + delta;
            if (offset < firstDirty || map.put(section, keyStart, keyLength, offset)) return true;
            full = true;
            end = offset;
            return false;
          });
        }
        if (full) return false;
        end = last + 1;
      });
      if (!full) end = seg.nextBaseOffset;
    }
    return end;
  }

  /**
   * The earliest delete horizon of the batches below plan.firstDirty (-1 when none): the
   * tombstones and markers an earlier pass kept until then (read from batch headers only).
   */
  async earliestDeleteHorizon(): Promise<number> {
    const { plan } = this;
    let earliest = -1;
    for (const seg of plan.segments) {
      if (seg.baseOffset >= plan.firstDirty) break;
      await this.source.forEachBatch(seg, this.stats, (buf, pos) => {
        if (batchBaseOffset(buf, pos) >= plan.firstDirty) return false;
        const h = deleteHorizonOf(buf, pos);
        if (h >= 0 && (earliest < 0 || h < earliest)) earliest = h;
      });
    }
    return earliest;
  }

  /** Writes the cleaned copy of the segments `group` (indices into plan.segments) as .cleaned files, fsynced. */
  async writeGroup(group: number[]): Promise<GroupResult> {
    const { fs, plan, stats } = this;
    const map = this.map;
    if (!map) throw new Error('writeGroup before buildMap');
    const segs = group.map((i) => plan.segments[i]);
    const base = segs[0].baseOffset;
    const names = segmentFileNames(plan.dir, base);
    for (const p of Object.values(names)) for (const q of [cleanedName(p), swapName(p)]) if (await fs.exists(q)) await fs.unlink(q);

    const out: FileHandle = await fs.open(cleanedName(names.log));
    const oi = await OffsetIndex.open(fs, cleanedName(names.index), base, plan.segmentIndexBytes);
    const ti = await TimeIndex.open(fs, cleanedName(names.time), base, plan.segmentIndexBytes);
    let position = 0;
    let bytesSinceIndex = 0;
    let maxTs = -1;
    let offsetOfMaxTs = base;
    let horizon = -1;
    const keptAborted: AbortedTxn[] = [];
    const ctx: FilterContext = {
      map, txns: this.txns, now: plan.now, newHorizon: plan.now + plan.deleteRetentionMs, stats, keptAborted,
      isLastOfProducer: (pid, last) => this.producerLast.get(pid) === last, scan: this.scan,
    };
    const indexPaths = [names.index, names.time];
    try {
      for (const seg of segs) {
        await this.source.forEachBatch(seg, stats, (buf, pos) => {
          const kept = filterBatch(buf, pos, ctx);
          if (!kept) return;
          const h = kept.horizon;
          if (h >= 0 && (horizon < 0 || h < horizon)) horizon = h;
          const bytes = kept.bytes;
          const last = batchBaseOffset(bytes, 0) + lastOffsetDelta(bytes, 0);
          const ts = batchMaxTimestamp(bytes, 0);
          if (ts > maxTs) {
            maxTs = ts;
            offsetOfMaxTs = last;
          }
          if (bytesSinceIndex > plan.indexIntervalBytes) {
            oi.append(last, position);
            ti.maybeAppend(maxTs, offsetOfMaxTs);
            bytesSinceIndex = 0;
          }
          out.append(bytes);
          position += bytes.length;
          bytesSinceIndex += bytes.length;
        });
      }
      ti.maybeAppend(maxTs, offsetOfMaxTs, true);
      if (keptAborted.length > 0) {
        const txn = await TransactionIndex.open(fs, cleanedName(names.txn));
        for (const t of keptAborted) txn.append(t);
        await txn.sync();
        await txn.close();
        indexPaths.push(names.txn);
      }
      await Promise.all([out.sync(), oi.sync(), ti.sync()]);
    } finally {
      await Promise.all([out.close(), oi.close(), ti.close()]);
    }
    stats.bytesWritten += position;
    return { horizon, bytesWritten: position, indexPaths };
  }
}

/**
 * Consecutive runs of the segments below `end` whose total size fits in one segment and whose
 * offsets fit the index's 32-bit relative offsets (Kafka groupSegmentsBySize); indices into
 * `segments`.
 */
export function groupSegments(segments: readonly SegmentRef[], end: number, maxSize: number): number[][] {
  const groups: number[][] = [];
  let i = 0;
  while (i < segments.length && segments[i].baseOffset < end) {
    const group = [i];
    let size = segments[i].sizeBytes;
    const first = segments[i].baseOffset;
    i++;
    while (i < segments.length && segments[i].baseOffset < end) {
      const s = segments[i];
      if (size + s.sizeBytes > maxSize || s.nextBaseOffset - 1 - first > 0x7fffffff) break;
      group.push(i);
      size += s.sizeBytes;
      i++;
    }
    groups.push(group);
  }
  return groups;
}

interface FilterContext {
  map: OffsetMap;
  txns: CleanerTxnTracker;
  now: number;
  /** The horizon given to batches that get one in this pass. */
  newHorizon: number;
  stats: CopyStats;
  /** Aborted transactions whose ABORT marker this group keeps (its .txnindex). */
  keptAborted: AbortedTxn[];
  isLastOfProducer: (producerId: number, lastOffset: number) => boolean;
  /** Reused for every batch of the pass. */
  scan: RecordScan;
}

/**
 * What one batch becomes (Kafka Cleaner.cleanInto's checkBatchRetention / shouldRetainRecord):
 * the bytes to write (the original batch when nothing changes) and its delete horizon when it
 * still holds tombstones or a removable marker (-1 otherwise), or null to drop it. Records: the
 * latest of each key stays, a tombstone until its batch's horizon has passed, records without
 * key go. Aborted batches go. Markers: see cleaner-txn.ts. A producer's last batch stays, emptied.
 */
function filterBatch(buf: Buffer, pos: number, ctx: FilterContext): { bytes: Buffer; horizon: number } | null {
  const { stats } = ctx;
  const size = batchSize(buf, pos);
  const count = recordsCount(buf, pos);
  const base = batchBaseOffset(buf, pos);
  const horizon = deleteHorizonOf(buf, pos);
  const horizonPassed = horizon >= 0 && ctx.now >= horizon;
  stats.recordsRead += count;
  if (isControl(buf, pos)) {
    const abortedTxn = controlType(buf, pos) === CONTROL_ABORT ? ctx.txns.abortedTxnOfMarker(base) : undefined;
    const discardable = ctx.txns.onMarker(buf, pos);
    if (discardable && horizonPassed) return null;
    if (abortedTxn) ctx.keptAborted.push(abortedTxn);
    stats.recordsRetained += count;
    if (discardable && horizon < 0) {
      const section = recordsSection(buf, pos);
      ctx.scan.scan(section, count);
      ctx.scan.keepAll();
      return { bytes: rewriteBatch(buf, pos, section, ctx.scan, ctx.newHorizon), horizon: ctx.newHorizon };
    }
    return { bytes: buf.subarray(pos, pos + size), horizon: discardable ? horizon : -1 };
  }
  ctx.txns.onDataBatch(buf, pos);
  const lastOfProducer = (): boolean => {
    const pid = batchProducerId(buf, pos);
    return pid >= 0 && ctx.isLastOfProducer(pid, base + lastOffsetDelta(buf, pos));
  };
  const section = recordsSection(buf, pos);
  if (ctx.txns.isAborted(buf, pos)) return lastOfProducer() ? { bytes: rewriteBatch(buf, pos, section, null, -1), horizon: -1 } : null;
  const scan = ctx.scan;
  scan.scan(section, count);
  let tombstones = 0;
  for (let i = 0; i < count; i++) {
    if (scan.keyLength[i] < 0) continue;
    const found = ctx.map.get(section, scan.keyStart[i], scan.keyLength[i]);
    const hasValue = scan.hasValue[i] === 1;
    if (base + scan.offsetDelta[i] >= found && (hasValue || !horizonPassed)) {
      scan.keep(i);
      if (!hasValue) tombstones++;
    }
  }
  const kept = scan.keptCount;
  stats.recordsRetained += kept;
  const needHorizon = tombstones > 0 && horizon < 0;
  const keptHorizon = tombstones > 0 ? (needHorizon ? ctx.newHorizon : horizon) : -1;
  if (kept === count && !needHorizon) return { bytes: buf.subarray(pos, pos + size), horizon: keptHorizon };
  if (kept === 0) return lastOfProducer() ? { bytes: rewriteBatch(buf, pos, section, null, -1), horizon: -1 } : null;
  return { bytes: rewriteBatch(buf, pos, section, scan, tombstones > 0 ? keptHorizon : horizon), horizon: keptHorizon };
}
