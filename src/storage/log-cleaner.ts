/**
 * Log compaction (Kafka's LogCleaner / Cleaner / LogCleanerManager), for topics whose
 * cleanup.policy includes "compact".
 *
 * A log is split at its first dirty offset (kept per partition in `cleaner-offset-checkpoint`,
 * Kafka's checkpoint format) into a clean head and a dirty tail. The dirty part ends at the first
 * uncleanable offset: the active segment, the last stable offset (open transactions), the high
 * watermark, and the first segment younger than `min.compaction.lag.ms`. A log is cleaned when
 * dirty / (clean + dirty) bytes passes `min.cleanable.dirty.ratio`, when its first dirty batch is
 * older than `max.compaction.lag.ms`, or when a delete horizon written by an earlier pass has
 * passed (tombstones to drop).
 *
 * One pass: an offset map (key hash → last offset, cleaner-offset-map.ts) is built over the dirty
 * section until the thread's share of `log.cleaner.dedupe.buffer.size` is full (the range may end
 * inside a segment, as Kafka's does); then every segment from the log start to the end of that
 * range is rewritten, in groups that fit in one segment
 * (segment.bytes), keeping a record when no later record has its key. Tombstones are kept until
 * `delete.retention.ms` after the pass that first saw them (the batch's delete horizon, see
 * cleaner-batch.ts). Records without a key are dropped, as Kafka does. The last batch of each
 * producer known to the producer state is kept, empty if need be, so producer state can still be
 * rebuilt from the log. Aborted transactions' batches are removed and kept out of the offset map;
 * markers go once no batch of their transaction is left, after their own delete horizon
 * (cleaner-txn.ts); an ABORT marker that stays keeps its .txnindex entry in the new segment.
 *
 * Files and crash safety (Kafka's replaceSegments): the new segment is written as
 * `<base>.log.cleaned` with its `.index/.timeindex/.txnindex.cleaned`, fsynced, renamed to
 * `.swap` (indexes first, the .log last: a `.log.swap` is the commit point), then the replaced
 * segments are renamed `.deleted`, then `<base>.log.swap` → `<base>.log` and the index swaps. The
 * log loader (log-loader.ts `completeSwaps`) deletes `.cleaned` files, and for a `.log.swap`
 * deletes the segments it replaces and finishes the renames. The swap runs in the partition's
 * serial queue after checking the replaced segments are unchanged; the copying does not.
 *
 * Off the request path: passes run on the Clock every `log.cleaner.backoff.ms`, read half of a
 * thread's share of `log.cleaner.io.buffer.size` at a time (at least one batch) through async
 * reads, give the event loop a turn every millisecond of work, and are throttled by
 * `log.cleaner.io.max.bytes.per.second`. `log.cleaner.threads` logs are cleaned concurrently
 * (interleaved on the one event loop, not on worker threads).
 */
import * as path from 'node:path';
import type { Clock, Timer } from '../clock.js';
import type { Fs, FileHandle } from './fs.js';
import { hasCleanupPolicy } from './log-config.js';
import type { PartitionLog } from './partition-log.js';
import { LogSegment } from './log-segment.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { TransactionIndex } from './txn-index.js';
import { readCheckpoint, writeCheckpoint } from './checkpoint-file.js';
import {
  CLEANED_FILE_SUFFIX,
  DELETED_FILE_SUFFIX,
  SWAP_FILE_SUFFIX,
  logFileName,
  offsetIndexFileName,
  timeIndexFileName,
  txnIndexFileName,
} from './file-names.js';
import {
  baseOffset as batchBaseOffset,
  batchSize,
  isControl,
  lastOffsetDelta,
  maxTimestamp as batchMaxTimestamp,
  baseTimestamp as batchBaseTimestamp,
  producerId as batchProducerId,
  recordsCount,
} from '../protocol/records/record-batch.js';
import { deleteHorizonOf, forEachKey, recordsSection, rewriteBatch, scanRecords, type RawRecord } from './cleaner-batch.js';
import { OffsetMap } from './cleaner-offset-map.js';
import { CleanerTxnTracker, CONTROL_ABORT, controlType } from './cleaner-txn.js';
import type { AbortedTxn } from './producer-state.js';

export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
/** Smallest read, whatever log.cleaner.io.buffer.size says. */
const MIN_READ_BYTES = 64 * 1024;
/** Longest run of synchronous cleaning work between event-loop turns. */
const YIELD_AFTER_MS = 1;

export interface CleanerConfig {
  /** log.cleaner.enable */
  enable: boolean;
  /** log.cleaner.threads */
  threads: number;
  /** log.cleaner.backoff.ms */
  backoffMs: number;
  /** log.cleaner.dedupe.buffer.size */
  dedupeBufferSize: number;
  /** log.cleaner.io.buffer.load.factor */
  loadFactor: number;
  /** log.cleaner.io.buffer.size: a thread reads half its share at a time (at least one batch) */
  ioBufferSize: number;
  /** log.cleaner.io.max.bytes.per.second */
  ioMaxBytesPerSecond: number;
}

export const defaultCleanerConfig: Readonly<CleanerConfig> = Object.freeze({
  enable: true,
  threads: 1,
  backoffMs: 15000,
  dedupeBufferSize: 134217728,
  loadFactor: 0.9,
  ioBufferSize: 524288,
  ioMaxBytesPerSecond: Number.MAX_VALUE,
});

/** Steps of the swap, for crash-injection tests. */
export type SwapStep = 'cleaned-written' | 'swap-renamed' | 'old-renamed-deleted' | 'log-renamed' | 'swap-done';

export interface CleanStats {
  segmentsCleaned: number;
  bytesRead: number;
  bytesWritten: number;
  recordsRead: number;
  recordsRetained: number;
  /** The new first dirty offset. */
  endOffset: number;
  durationMs: number;
}

export interface LogCleanerOptions {
  fs: Fs;
  clock: Clock;
  logs: () => PartitionLog[];
  config?: Partial<CleanerConfig>;
  onError?: (err: unknown, what: string) => void;
  /** Called at each swap step; a test throws here (after crashing its MemFs) to model a crash. */
  onStep?: (step: SwapStep, log: PartitionLog) => void | Promise<void>;
}

interface LogState {
  firstDirty: number | null;
  /**
   * The segment starting at firstDirty after the last pass. When it leaves the log while the log
   * start is still below it, the log was truncated under firstDirty (a follower's truncation):
   * the offsets above the truncation point are new and firstDirty goes back to the log start
   * (Kafka's maybeTruncateCheckpoint).
   */
  firstDirtySegment: LogSegment | null;
  checkpointLoaded: boolean;
  /** Earliest delete horizon left in the log by a pass (-1: none known): the next pass is due then. */
  deleteHorizon: number;
  /**
   * Whether deleteHorizon describes the clean section: set by a pass, or by reading the clean
   * section's batch headers once after a restart (the horizon is not stored).
   */
  deleteHorizonKnown: boolean;
  lastCleanedMs: number;
}

export interface CleanableInfo {
  firstDirtyOffset: number;
  firstUncleanableOffset: number;
  cleanBytes: number;
  dirtyBytes: number;
  dirtyRatio: number;
  lastCleanedMs: number;
}

class CleanerStoppedError extends Error {
  constructor() {
    super('log cleaner stopped');
  }
}

function isCompacted(log: PartitionLog): boolean {
  return hasCleanupPolicy(log.config.cleanupPolicy, 'compact');
}

export class LogCleaner {
  readonly config: CleanerConfig;
  private readonly fs: Fs;
  private readonly clock: Clock;
  private readonly logs: () => PartitionLog[];
  private readonly onError: (err: unknown, what: string) => void;
  private readonly onStep?: LogCleanerOptions['onStep'];
  private readonly states = new WeakMap<PartitionLog, LogState>();
  private readonly inProgress = new Set<PartitionLog>();
  private timer: Timer | null = null;
  private running: Promise<unknown> | null = null;
  /** Replaced segments waiting for file.delete.delay.ms, with what removes them. */
  private readonly pendingDeletes = new Map<Timer, () => Promise<void>>();
  private stopped = false;
  private ioWindowStart = 0;
  private ioWindowBytes = 0;

  private get readBytes(): number {
    return Math.max(MIN_READ_BYTES, Math.floor(this.config.ioBufferSize / Math.max(1, this.config.threads) / 2));
  }

  constructor(opts: LogCleanerOptions) {
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.logs = opts.logs;
    this.config = { ...defaultCleanerConfig, ...opts.config };
    this.onError = opts.onError ?? (() => undefined);
    this.onStep = opts.onStep;
  }

  /** Starts periodic passes (each re-armed after it finishes, so passes never overlap). */
  start(): void {
    if (!this.config.enable || this.config.threads <= 0) return;
    const arm = (): void => {
      if (this.stopped) return;
      this.timer = this.clock.setTimeout(() => {
        this.timer = null;
        this.running = this.runPass()
          .catch((err) => this.onError(err, 'log cleaner pass'))
          .finally(() => {
            this.running = null;
            arm();
          });
      }, this.config.backoffMs);
    };
    arm();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    await this.running;
    // Shutdown closes the replaced segments' handles and removes their files now.
    const pending = [...this.pendingDeletes];
    this.pendingDeletes.clear();
    for (const [t, run] of pending) {
      t.cancel();
      await run();
    }
  }

  /** One pass: cleans every compacted log that needs it, `threads` at a time, filthiest first. */
  async runPass(): Promise<CleanStats[]> {
    const candidates: { log: PartitionLog; ratio: number }[] = [];
    for (const log of this.logs()) {
      if (!isCompacted(log) || log.isOffline || this.inProgress.has(log)) continue;
      const info = await this.cleanable(log);
      if (info && (await this.needsCleaning(log, info))) candidates.push({ log, ratio: info.dirtyRatio });
    }
    candidates.sort((a, b) => b.ratio - a.ratio);
    const out: CleanStats[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < candidates.length && !this.stopped) {
        const { log } = candidates[next++];
        try {
          const s = await this.clean(log);
          if (s) out.push(s);
        } catch (err) {
          if (!(err instanceof CleanerStoppedError)) this.onError(err, `cleaning ${log.topic}-${log.partition}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.config.threads, candidates.length)) }, worker));
    return out;
  }

  private async state(log: PartitionLog): Promise<LogState> {
    let st = this.states.get(log);
    if (!st) {
      st = { firstDirty: null, firstDirtySegment: null, checkpointLoaded: false, deleteHorizon: -1, deleteHorizonKnown: false, lastCleanedMs: -1 };
      this.states.set(log, st);
    }
    if (!st.checkpointLoaded) {
      st.checkpointLoaded = true;
      try {
        const rows = await readCheckpoint(this.fs, path.join(log.dir, CLEANER_OFFSET_CHECKPOINT_FILE));
        const v = Number(rows?.find((r) => r[0] === log.topic && Number(r[1]) === log.partition)?.[2]);
        // A checkpoint past the log end describes data that did not survive a crash.
        if (Number.isSafeInteger(v) && v >= 0 && v <= log.logEndOffset) st.firstDirty = v;
      } catch {
        // Unreadable: start from the log start, as Kafka does.
      }
    }
    return st;
  }

  /** The clean and dirty sections of a log (also for the CLI and DescribeLogDirs later). */
  async cleanable(log: PartitionLog): Promise<CleanableInfo | null> {
    const segs = log.segmentList;
    if (segs.length < 2) return null;
    const st = await this.state(log);
    const start = log.logStartOffset;
    if (st.firstDirtySegment && !segs.includes(st.firstDirtySegment) && st.firstDirtySegment.baseOffset > start) {
      st.firstDirty = null;
      st.firstDirtySegment = null;
    }
    let firstDirty = Math.max(st.firstDirty ?? start, start);
    let bound = Math.min(segs[segs.length - 1].baseOffset, log.lastStableOffset, log.highWatermark);
    const now = this.clock.now();
    const minLag = log.config.minCompactionLagMs ?? 0;
    let cleanBytes = 0;
    let dirtyBytes = 0;
    for (let i = 0; i < segs.length - 1; i++) {
      const seg = segs[i];
      const upper = segs[i + 1].baseOffset;
      if (upper <= firstDirty) {
        cleanBytes += seg.sizeBytes;
        continue;
      }
      if (upper > bound) break;
      if (minLag > 0 && now - (await seg.largestTimestamp()) < minLag) {
        bound = seg.baseOffset;
        break;
      }
      dirtyBytes += seg.sizeBytes;
    }
    if (firstDirty > bound) firstDirty = bound;
    const total = cleanBytes + dirtyBytes;
    return {
      firstDirtyOffset: firstDirty, firstUncleanableOffset: bound, cleanBytes, dirtyBytes,
      dirtyRatio: total > 0 ? dirtyBytes / total : 0, lastCleanedMs: st.lastCleanedMs,
    };
  }

  private async needsCleaning(log: PartitionLog, info: CleanableInfo): Promise<boolean> {
    const st = await this.state(log);
    if (!st.deleteHorizonKnown) {
      st.deleteHorizon = await this.earliestDeleteHorizon(log, info.firstDirtyOffset);
      st.deleteHorizonKnown = true;
    }
    const now = this.clock.now();
    if (st.deleteHorizon >= 0 && now >= st.deleteHorizon) return true;
    if (info.dirtyBytes === 0) return false;
    if (info.dirtyRatio > (log.config.minCleanableDirtyRatio ?? 0.5)) return true;
    const maxLag = log.config.maxCompactionLagMs ?? Number.MAX_SAFE_INTEGER;
    if (maxLag < Number.MAX_SAFE_INTEGER) {
      const first = await log.read(info.firstDirtyOffset, 1, { minOneMessage: true }).catch(() => null);
      const chunk = first?.records[0];
      if (chunk && chunk.length >= 61 && now - batchBaseTimestamp(chunk, 0) > maxLag) return true;
    }
    return false;
  }

  /**
   * The earliest delete horizon of the batches below `firstDirty` (-1 when none): tombstones and
   * markers a pass before a restart kept until then. Kafka keeps nothing either and removes them
   * whenever the log is next cleaned for its dirt; Samsa reads the clean section's batch headers
   * once per log after a start (paced like a pass) so that they go when due without new writes.
   */
  private async earliestDeleteHorizon(log: PartitionLog, firstDirty: number): Promise<number> {
    let earliest = -1;
    const stats: CleanStats = { segmentsCleaned: 0, bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsRetained: 0, endOffset: 0, durationMs: 0 };
    const segs = log.segmentList;
    for (let i = 0; i < segs.length - 1 && segs[i].baseOffset < firstDirty; i++) {
      await this.forEachBatch(segs[i], stats, (buf, pos) => {
        if (batchBaseOffset(buf, pos) >= firstDirty) return false;
        const h = deleteHorizonOf(buf, pos);
        if (h >= 0 && (earliest < 0 || h < earliest)) earliest = h;
      });
    }
    return earliest;
  }

  /** Cleans `log` now if it has anything cleanable (ignores the dirty ratio); null if nothing was done. */
  async clean(log: PartitionLog): Promise<CleanStats | null> {
    if (this.inProgress.has(log)) return null;
    this.inProgress.add(log);
    try {
      return await this.doClean(log);
    } finally {
      this.inProgress.delete(log);
    }
  }

  private async doClean(log: PartitionLog): Promise<CleanStats | null> {
    const started = Date.now();
    const info = await this.cleanable(log);
    if (!info) return null;
    const st = await this.state(log);
    const now = this.clock.now();
    const segs = log.segmentList;
    const stats: CleanStats = { segmentsCleaned: 0, bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsRetained: 0, endOffset: info.firstDirtyOffset, durationMs: 0 };

    // 1. The offset map over the dirty section, until it is full (then the range ends there, as
    // Kafka's does). No more slots than the dirty offsets could fill.
    const firstDirty = info.firstDirtyOffset;
    const map = new OffsetMap(Math.floor(this.config.dedupeBufferSize / Math.max(1, this.config.threads)), this.config.loadFactor, {
      slotsWanted: (info.firstUncleanableOffset - firstDirty) / this.config.loadFactor + 1,
    });
    const txns = new CleanerTxnTracker(await log.collectAbortedTransactions(log.logStartOffset, info.firstUncleanableOffset));
    let end = firstDirty;
    let full = false;
    for (let i = 0; i < segs.length - 1 && !full; i++) {
      const upper = segs[i + 1].baseOffset;
      if (upper <= firstDirty) continue;
      if (upper > info.firstUncleanableOffset) break;
      await this.forEachBatch(segs[i], stats, (buf, pos) => {
        const base = batchBaseOffset(buf, pos);
        const last = base + lastOffsetDelta(buf, pos);
        if (last < firstDirty) return;
        if (!isControl(buf, pos) && !txns.isAborted(buf, pos)) {
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
      if (!full) end = upper;
    }
    if (end === firstDirty && !(st.deleteHorizon >= 0 && now >= st.deleteHorizon)) return null;

    // 2. Rewrite every segment below `end`, in groups that fit one segment.
    const toClean = segs.filter((s, i) => i < segs.length - 1 && s.baseOffset < end && s.baseOffset >= 0);
    const groups = groupSegments(toClean, segs, log.config.segmentBytes);
    const deleteRetentionMs = log.config.deleteRetentionMs ?? 86400000;
    let horizon = -1;
    for (const group of groups) {
      const h = await this.cleanGroup(log, group, map, txns, now, deleteRetentionMs, stats);
      if (h === null) return null; // the log changed under the pass; the next pass retries
      if (h >= 0 && (horizon < 0 || h < horizon)) horizon = h;
      stats.segmentsCleaned += group.length;
    }
    st.firstDirty = end;
    st.firstDirtySegment = segmentContaining(log.segmentList, end);
    st.deleteHorizon = horizon;
    st.deleteHorizonKnown = true;
    st.lastCleanedMs = now;
    await writeCheckpoint(this.fs, path.join(log.dir, CLEANER_OFFSET_CHECKPOINT_FILE), [[log.topic, log.partition, end]]);
    stats.endOffset = end;
    stats.durationMs = Date.now() - started;
    return stats;
  }

  /**
   * Calls `visit` for every batch of the segment (until it answers false), reading a chunk at a
   * time and yielding between chunks.
   */
  private async forEachBatch(seg: LogSegment, stats: CleanStats, visit: (buf: Buffer, pos: number) => void | false): Promise<void> {
    let offset = seg.baseOffset;
    for (;;) {
      // Shutdown does not wait for a long pass: the copy stops, the loader removes the .cleaned files.
      if (this.stopped) throw new CleanerStoppedError();
      const data = await seg.read(offset, this.readBytes, { minOneMessage: true });
      if (!data || data.length === 0) return;
      let next = offset;
      let slice = performance.now();
      for (let pos = 0; pos < data.length; pos += batchSize(data, pos)) {
        if (visit(data, pos) === false) {
          stats.bytesRead += pos + batchSize(data, pos);
          return;
        }
        next = batchBaseOffset(data, pos) + lastOffsetDelta(data, pos) + 1;
        // Compressed chunks decode to many records: give the event loop a turn every millisecond.
        if (performance.now() - slice > YIELD_AFTER_MS) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          slice = performance.now();
        }
      }
      stats.bytesRead += data.length;
      await this.throttle(data.length);
      if (next <= offset) return;
      offset = next;
    }
  }

  /** Waits as long as log.cleaner.io.max.bytes.per.second asks, and always yields once. */
  private async throttle(bytes: number): Promise<void> {
    const limit = this.config.ioMaxBytesPerSecond;
    if (limit > 0 && limit < Number.MAX_VALUE) {
      const now = this.clock.now();
      if (now - this.ioWindowStart >= 1000) {
        this.ioWindowStart = now;
        this.ioWindowBytes = 0;
      }
      this.ioWindowBytes += bytes;
      const waitMs = (this.ioWindowBytes / limit) * 1000 - (now - this.ioWindowStart);
      if (waitMs > 0) await new Promise<void>((resolve) => this.clock.setTimeout(resolve, Math.ceil(waitMs)));
    }
    await new Promise<void>((resolve) => setImmediate(resolve));
  }

  /**
   * Writes the cleaned copy of `group` and swaps it in. Returns the earliest delete horizon of the
   * batches written (-1 if none), or null when the segments changed meanwhile (nothing swapped).
   */
  private async cleanGroup(log: PartitionLog, group: LogSegment[], map: OffsetMap, txns: CleanerTxnTracker, now: number, deleteRetentionMs: number, stats: CleanStats): Promise<number | null> {
    const { fs } = this;
    const dir = log.dir;
    const base = group[0].baseOffset;
    const sizes = group.map((s) => s.sizeBytes);
    const names = {
      log: logFileName(dir, base), index: offsetIndexFileName(dir, base), time: timeIndexFileName(dir, base), txn: txnIndexFileName(dir, base),
    };
    const cleaned = (p: string): string => p + CLEANED_FILE_SUFFIX;
    const swap = (p: string): string => p + SWAP_FILE_SUFFIX;
    for (const p of Object.values(names)) for (const q of [cleaned(p), swap(p)]) if (await fs.exists(q)) await fs.unlink(q);

    const segmentIndexBytes = log.config.segmentIndexBytes;
    const out: FileHandle = await fs.open(cleaned(names.log));
    const oi = await OffsetIndex.open(fs, cleaned(names.index), base, segmentIndexBytes);
    const ti = await TimeIndex.open(fs, cleaned(names.time), base, segmentIndexBytes);
    let position = 0;
    let bytesSinceIndex = 0;
    let maxTs = -1;
    let offsetOfMaxTs = base;
    let horizon = -1;
    const producers = log.producerState;
    const keptAborted: AbortedTxn[] = [];
    const ctx: FilterContext = {
      map, txns, now, newHorizon: now + deleteRetentionMs, stats, keptAborted,
      isLastOfProducer: (pid, last) => {
        const b = producers.get(pid)?.batches;
        return b !== undefined && b.length > 0 && b[b.length - 1].lastOffset === last;
      },
    };
    try {
      for (const seg of group) {
        await this.forEachBatch(seg, stats, (buf, pos) => {
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
          if (bytesSinceIndex > log.config.indexIntervalBytes) {
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
        const txn = await TransactionIndex.open(fs, cleaned(names.txn));
        for (const t of keptAborted) txn.append(t);
        await txn.sync();
        await txn.close();
      }
      await Promise.all([out.sync(), oi.sync(), ti.sync()]);
    } finally {
      await Promise.all([out.close(), oi.close(), ti.close()]);
    }
    stats.bytesWritten += position;
    await this.step('cleaned-written', log);

    const swapped = await log.replaceSegments(async (current) => {
      const at = current.indexOf(group[0]);
      if (at < 0 || group.some((s, i) => current[at + i] !== s || s.sizeBytes !== sizes[i]) || at + group.length >= current.length) return null;
      const present = [];
      for (const p of [names.index, names.time, names.txn]) if (await fs.exists(cleaned(p))) present.push(p);
      for (const p of present) await fs.rename(cleaned(p), swap(p));
      await fs.rename(cleaned(names.log), swap(names.log));
      await fs.syncDir(dir);
      await this.step('swap-renamed', log);
      for (const s of group) await s.renameToDeleted();
      await fs.syncDir(dir);
      await this.step('old-renamed-deleted', log);
      await fs.rename(swap(names.log), names.log);
      await this.step('log-renamed', log);
      for (const p of present) await fs.rename(swap(p), p);
      await fs.syncDir(dir);
      await this.step('swap-done', log);
      const seg = await LogSegment.open({
        fs, dir, baseOffset: base, nowMs: this.clock.now(),
        config: { indexIntervalBytes: log.config.indexIntervalBytes, segmentIndexBytes },
      });
      return [...current.slice(0, at), seg, ...current.slice(at + group.length)];
    });
    if (!swapped) {
      for (const p of Object.values(names)) if (await fs.exists(cleaned(p))) await fs.unlink(cleaned(p));
      return null;
    }
    for (const s of group) this.deleteLater(log, s);
    return horizon;
  }

  private async step(step: SwapStep, log: PartitionLog): Promise<void> {
    if (this.onStep) await this.onStep(step, log);
  }

  /**
   * Removes a replaced segment's `.deleted` files after file.delete.delay.ms, once in-flight reads
   * let go of it. Not LogSegment.deleteFiles: that also unlinks the plain names, which the cleaned
   * segment now owns.
   */
  private deleteLater(log: PartitionLog, seg: LogSegment): void {
    const run = async (): Promise<void> => {
      await seg.close().catch(() => undefined);
      const b = seg.baseOffset;
      for (const p of [logFileName(log.dir, b), offsetIndexFileName(log.dir, b), timeIndexFileName(log.dir, b), txnIndexFileName(log.dir, b)]) {
        const d = p + DELETED_FILE_SUFFIX;
        if (await this.fs.exists(d)) await this.fs.unlink(d).catch(() => undefined);
      }
    };
    const delay = log.config.fileDeleteDelayMs;
    if (delay <= 0) {
      void run();
      return;
    }
    const t = this.clock.setTimeout(() => {
      this.pendingDeletes.delete(t);
      void run();
    }, delay);
    this.pendingDeletes.set(t, run);
  }
}

/** The segment holding `offset` (the last one starting at or below it), or null. */
function segmentContaining(segs: readonly LogSegment[], offset: number): LogSegment | null {
  let found: LogSegment | null = null;
  for (const s of segs) {
    if (s.baseOffset > offset) break;
    found = s;
  }
  return found;
}

/** Consecutive runs of segments whose total size fits in one segment (Kafka groupSegmentsBySize). */
function groupSegments(toClean: LogSegment[], all: readonly LogSegment[], maxSize: number): LogSegment[][] {
  const groups: LogSegment[][] = [];
  let i = 0;
  while (i < toClean.length) {
    const group = [toClean[i]];
    let size = toClean[i].sizeBytes;
    i++;
    while (i < toClean.length) {
      const s = toClean[i];
      const nextBase = all[all.indexOf(s) + 1]?.baseOffset ?? s.baseOffset;
      if (size + s.sizeBytes > maxSize || nextBase - 1 - group[0].baseOffset > 0x7fffffff) break;
      group.push(s);
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
  stats: CleanStats;
  /** Aborted transactions whose ABORT marker this group keeps (its .txnindex). */
  keptAborted: AbortedTxn[];
  isLastOfProducer: (producerId: number, lastOffset: number) => boolean;
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
      return { bytes: rewriteBatch(buf, pos, section, scanRecords(section, count), ctx.newHorizon), horizon: ctx.newHorizon };
    }
    return { bytes: buf.subarray(pos, pos + size), horizon: discardable ? horizon : -1 };
  }
  ctx.txns.onDataBatch(buf, pos);
  const lastOfProducer = (): boolean => {
    const pid = batchProducerId(buf, pos);
    return pid >= 0 && ctx.isLastOfProducer(pid, base + lastOffsetDelta(buf, pos));
  };
  const section = recordsSection(buf, pos);
  if (ctx.txns.isAborted(buf, pos)) return lastOfProducer() ? { bytes: rewriteBatch(buf, pos, section, [], -1), horizon: -1 } : null;
  const recs = scanRecords(section, count);
  const keep: RawRecord[] = [];
  let tombstones = 0;
  for (const r of recs) {
    if (r.keyLength < 0) continue;
    const found = ctx.map.get(section, r.keyStart, r.keyLength);
    const latest = base + r.offsetDelta >= found;
    if (latest && (r.hasValue || !horizonPassed)) {
      keep.push(r);
      if (!r.hasValue) tombstones++;
    }
  }
  stats.recordsRetained += keep.length;
  const needHorizon = tombstones > 0 && horizon < 0;
  const keptHorizon = tombstones > 0 ? (needHorizon ? ctx.newHorizon : horizon) : -1;
  if (keep.length === count && !needHorizon) return { bytes: buf.subarray(pos, pos + size), horizon: keptHorizon };
  if (keep.length === 0) return lastOfProducer() ? { bytes: rewriteBatch(buf, pos, section, keep, -1), horizon: -1 } : null;
  return { bytes: rewriteBatch(buf, pos, section, keep, tombstones > 0 ? keptHorizon : horizon), horizon: keptHorizon };
}
