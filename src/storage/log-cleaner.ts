/**
 * Log compaction (Kafka's LogCleaner / Cleaner / LogCleanerManager), for topics whose
 * cleanup.policy includes "compact".
 *
 * A log is split at its first dirty offset (kept in `cleaner-offset-checkpoint`, one per log dir
 * under a LogManager as in Kafka, Kafka's checkpoint format) into a clean head and a dirty tail. The dirty part ends at the first
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
 * Off the request path: passes run on the Clock every `log.cleaner.backoff.ms`. The copying half
 * of a pass (offset map, `.cleaned` files; cleaner-copy.ts) runs in a worker thread
 * (cleaner-runner.ts, cleaner-worker.ts) when the log is on the real file system, with blocking
 * reads there, paced by `log.cleaner.io.max.bytes.per.second` (split over the threads); on any
 * other Fs (the tests' MemFs) it runs on the event loop through async segment reads, a turn to the
 * event loop every millisecond of work, paced on the Clock. `log.cleaner.threads` logs are
 * cleaned concurrently (one worker each). The read of the clean section's batch headers once per
 * log after a start (the earliest delete horizon) runs the same way. What stays on the event
 * loop: choosing logs, the swap, the checkpoint.
 */
import * as path from 'node:path';
import type { Clock, Timer } from '../clock.js';
import { nodeFs, type Fs } from './fs.js';
import { hasCleanupPolicy } from './log-config.js';
import type { PartitionLog } from './partition-log.js';
import { LogSegment } from './log-segment.js';
import { readCheckpoint, writeCheckpoint } from './checkpoint-file.js';
import { CLEANER_OFFSET_CHECKPOINT_FILE, DELETED_FILE_SUFFIX, logFileName, offsetIndexFileName, timeIndexFileName, txnIndexFileName } from './file-names.js';
import { baseOffset as batchBaseOffset, baseTimestamp as batchBaseTimestamp, batchSize, lastOffsetDelta } from '../protocol/records/record-batch.js';
import { cleanedName, groupSegments, segmentFileNames, swapName, type BatchSource, type PassPlan } from './cleaner-copy.js';
import { CleanerStopped, CleanerWorkerPool, cleanerWorkerUrl, inProcessRunner, type PassRunner } from './cleaner-runner.js';

export { CLEANER_OFFSET_CHECKPOINT_FILE };

/**
 * Where first dirty offsets are kept: the log dir's `cleaner-offset-checkpoint` under a LogManager
 * (log-manager.ts); by default a `cleaner-offset-checkpoint` in each partition directory.
 */
export interface CleanerOffsetCheckpoints {
  read(log: PartitionLog): Promise<number | null>;
  write(log: PartitionLog, offset: number): Promise<void>;
}

const ownDirCleanerOffsets: (fs: Fs) => CleanerOffsetCheckpoints = (fs) => ({
  async read(log) {
    const rows = await readCheckpoint(fs, path.join(log.dir, CLEANER_OFFSET_CHECKPOINT_FILE));
    const v = Number(rows?.find((r) => r[0] === log.topic && Number(r[1]) === log.partition)?.[2]);
    return Number.isSafeInteger(v) && v >= 0 ? v : null;
  },
  write: (log, offset) => writeCheckpoint(fs, path.join(log.dir, CLEANER_OFFSET_CHECKPOINT_FILE), [[log.topic, log.partition, offset]]),
});
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
  /**
   * Copy in worker threads (cleaner-worker.ts) when `fs` is the real file system (the tests'
   * MemFs cannot be shared with a thread) and the worker script exists; false keeps the copy on
   * the event loop. Default true.
   */
  workerThreads?: boolean;
  /** Where first dirty offsets are kept (default: a file in each partition directory). */
  offsets?: CleanerOffsetCheckpoints;
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

function isCompacted(log: PartitionLog): boolean {
  return hasCleanupPolicy(log.config.cleanupPolicy, 'compact');
}

export class LogCleaner {
  readonly config: CleanerConfig;
  private readonly fs: Fs;
  private readonly clock: Clock;
  private readonly logs: () => PartitionLog[];
  private readonly onError: (err: unknown, what: string) => void;
  private readonly offsets: CleanerOffsetCheckpoints;
  private readonly onStep?: LogCleanerOptions['onStep'];
  private readonly states = new WeakMap<PartitionLog, LogState>();
  /** The logs being cleaned, with the end of their pass. */
  private readonly inProgress = new Map<PartitionLog, Promise<void>>();
  private timer: Timer | null = null;
  private running: Promise<unknown> | null = null;
  /** Replaced segments waiting for file.delete.delay.ms, with what removes them. */
  private readonly pendingDeletes = new Map<Timer, () => Promise<void>>();
  private stopped = false;
  private ioWindowStart = 0;
  private ioWindowBytes = 0;
  /** The worker threads passes copy in (null: on the event loop). */
  private readonly workers: CleanerWorkerPool | null;

  private get readBytes(): number {
    return Math.max(MIN_READ_BYTES, Math.floor(this.config.ioBufferSize / Math.max(1, this.config.threads) / 2));
  }

  constructor(opts: LogCleanerOptions) {
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.logs = opts.logs;
    this.config = { ...defaultCleanerConfig, ...opts.config };
    this.onError = opts.onError ?? (() => undefined);
    this.offsets = opts.offsets ?? ownDirCleanerOffsets(opts.fs);
    this.onStep = opts.onStep;
    const url = opts.fs === nodeFs && opts.workerThreads !== false ? cleanerWorkerUrl() : null;
    this.workers = url ? new CleanerWorkerPool(url, this.config.ioMaxBytesPerSecond, this.config.threads) : null;
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

  /**
   * New log.cleaner.* values (dynamic broker configs; Kafka's LogCleaner.reconfigure). The next
   * pass uses them (one in progress may see some of them); a new backoff re-arms the wait.
   */
  reconfigure(next: Partial<CleanerConfig>): void {
    const backoffChanged = next.backoffMs !== undefined && next.backoffMs !== this.config.backoffMs;
    Object.assign(this.config, next);
    this.workers?.reconfigure(this.config.ioMaxBytesPerSecond, this.config.threads);
    if (backoffChanged && this.timer && !this.stopped) {
      this.timer.cancel();
      this.timer = null;
      this.start();
    } else if (!this.timer && !this.running && !this.stopped) {
      this.start();
    }
  }

  /** Whether passes copy in worker threads. */
  get usesWorkerThreads(): boolean {
    return this.workers !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.workers?.stop();
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
          if (!(err instanceof CleanerStopped)) this.onError(err, `cleaning ${log.topic}-${log.partition}`);
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
        const v = await this.offsets.read(log);
        // A checkpoint past the log end describes data that did not survive a crash.
        if (v !== null && v <= log.logEndOffset) st.firstDirty = v;
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
      try {
        st.deleteHorizon = await this.earliestDeleteHorizon(log, info.firstDirtyOffset);
        st.deleteHorizonKnown = true;
      } catch (err) {
        // A segment replaced or deleted meanwhile: the next pass reads the headers again.
        if (err instanceof CleanerStopped) throw err;
      }
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
    const all = log.segmentList;
    const runner = await this.runnerFor(this.planFor(log, all, firstDirty, firstDirty, [], []), all.slice(0, -1));
    try {
      return await runner.earliestDeleteHorizon();
    } finally {
      runner.close();
    }
  }

  /** What the copy half of a pass needs (it may cross to a worker thread). */
  private planFor(log: PartitionLog, all: readonly LogSegment[], firstDirty: number, firstUncleanable: number, abortedTxns: PassPlan['abortedTxns'], producerLast: PassPlan['producerLast']): PassPlan {
    return {
      dir: log.dir,
      // The segments below the active one (the last of `all`).
      segments: all.slice(0, -1).map((s, i) => ({ baseOffset: s.baseOffset, nextBaseOffset: all[i + 1].baseOffset, sizeBytes: s.sizeBytes, logPath: s.logPath })),
      firstDirty,
      firstUncleanable,
      abortedTxns,
      producerLast,
      now: this.clock.now(),
      deleteRetentionMs: log.config.deleteRetentionMs ?? 86400000,
      mapBytes: Math.floor(this.config.dedupeBufferSize / Math.max(1, this.config.threads)),
      loadFactor: this.config.loadFactor,
      readBytes: this.readBytes,
      indexIntervalBytes: log.config.indexIntervalBytes,
      segmentIndexBytes: log.config.segmentIndexBytes,
    };
  }

  /** Resolves once no pass is cleaning `log` (a replica move's swap waits for it: log-dir-move.ts). */
  async cleaningDone(log: PartitionLog): Promise<void> {
    while (this.inProgress.has(log)) await this.inProgress.get(log);
  }

  /** Cleans `log` now if it has anything cleanable (ignores the dirty ratio); null if nothing was done. */
  clean(log: PartitionLog): Promise<CleanStats | null> {
    if (this.inProgress.has(log)) return Promise.resolve(null);
    const run = this.doClean(log).finally(() => this.inProgress.delete(log));
    this.inProgress.set(log, run.then(() => undefined, () => undefined));
    return run;
  }

  private async doClean(log: PartitionLog): Promise<CleanStats | null> {
    const started = Date.now();
    const info = await this.cleanable(log);
    if (!info) return null;
    const st = await this.state(log);
    const now = this.clock.now();
    const all = log.segmentList;
    const segs = all.slice(0, -1);
    const firstDirty = info.firstDirtyOffset;
    const abortedTxns = await log.collectAbortedTransactions(log.logStartOffset, info.firstUncleanableOffset);
    const plan = this.planFor(log, all, firstDirty, info.firstUncleanableOffset, abortedTxns, lastBatchOfProducers(log));
    plan.now = now;
    const runner = await this.runnerFor(plan, segs);
    const stats: CleanStats = { segmentsCleaned: 0, bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsRetained: 0, endOffset: firstDirty, durationMs: 0 };
    try {
      // 1. The offset map over the dirty section, until it is full (the range may end there).
      const end = await runner.buildMap();
      if (end === firstDirty && !(st.deleteHorizon >= 0 && now >= st.deleteHorizon)) return null;
      // 2. Rewrite every segment below `end`, in groups that fit one segment, each swapped in as it is done.
      let horizon = -1;
      for (const group of groupSegments(plan.segments, end, log.config.segmentBytes)) {
        const written = await runner.writeGroup(group);
        // Once stop() is called nothing more is swapped in; the loader removes the .cleaned files.
        if (this.stopped) throw new CleanerStopped();
        await this.step('cleaned-written', log);
        const replaced = group.map((i) => segs[i]);
        if (!(await this.swapIn(log, replaced, plan.segments[group[0]].baseOffset, group.map((i) => plan.segments[i].sizeBytes), written.indexPaths))) {
          return null; // the log changed under the pass; the next pass retries
        }
        if (written.horizon >= 0 && (horizon < 0 || written.horizon < horizon)) horizon = written.horizon;
        stats.segmentsCleaned += group.length;
      }
      st.firstDirty = end;
      st.firstDirtySegment = segmentContaining(log.segmentList, end);
      st.deleteHorizon = horizon;
      st.deleteHorizonKnown = true;
      st.lastCleanedMs = now;
      await this.offsets.write(log, end);
      stats.endOffset = end;
    } finally {
      runner.close();
      Object.assign(stats, { bytesRead: runner.stats.bytesRead, bytesWritten: runner.stats.bytesWritten, recordsRead: runner.stats.recordsRead, recordsRetained: runner.stats.recordsRetained });
    }
    stats.durationMs = Date.now() - started;
    return stats;
  }

  /** A worker thread for real files (when one can be started), else the event loop. */
  private async runnerFor(plan: PassPlan, segs: readonly LogSegment[]): Promise<PassRunner> {
    if (this.workers) {
      try {
        return await this.workers.begin(plan);
      } catch (err) {
        if (err instanceof CleanerStopped) throw err;
        // A worker that cannot start (or died): this pass copies on the event loop.
        this.onError(err, 'starting a log cleaner worker');
      }
    }
    const byBase = new Map(segs.map((s) => [s.baseOffset, s]));
    const source: BatchSource = { forEachBatch: (ref, stats, visit) => this.forEachBatch(byBase.get(ref.baseOffset)!, stats, visit) };
    return inProcessRunner(this.fs, source, plan);
  }

  /**
   * Calls `visit` for every batch of the segment (until it answers false), reading a chunk at a
   * time through the segment (pinned like a fetch) and yielding to the event loop between chunks
   * and every millisecond of work.
   */
  private async forEachBatch(seg: LogSegment, stats: { bytesRead: number }, visit: (buf: Buffer, pos: number) => void | false): Promise<void> {
    let offset = seg.baseOffset;
    for (;;) {
      // Shutdown does not wait for a long pass: the copy stops, the loader removes the .cleaned files.
      if (this.stopped) throw new CleanerStopped();
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
   * Swaps the `.cleaned` files of the segment at `base` in for `group` (Kafka's replaceSegments),
   * in the partition's queue, after checking the group is still in the log, unchanged and not
   * the active segment. False (nothing swapped, the .cleaned files removed) otherwise.
   */
  private async swapIn(log: PartitionLog, group: LogSegment[], base: number, sizes: number[], indexPaths: string[]): Promise<boolean> {
    const { fs } = this;
    const dir = log.dir;
    const names = segmentFileNames(dir, base);
    const segmentIndexBytes = log.config.segmentIndexBytes;
    const swapped = await log.replaceSegments(async (current) => {
      const at = current.indexOf(group[0]);
      if (at < 0 || group.some((s, i) => current[at + i] !== s || s.sizeBytes !== sizes[i]) || at + group.length >= current.length) return null;
      for (const p of indexPaths) await fs.rename(cleanedName(p), swapName(p));
      await fs.rename(cleanedName(names.log), swapName(names.log));
      await fs.syncDir(dir);
      await this.step('swap-renamed', log);
      for (const s of group) await s.renameToDeleted();
      await fs.syncDir(dir);
      await this.step('old-renamed-deleted', log);
      await fs.rename(swapName(names.log), names.log);
      await this.step('log-renamed', log);
      for (const p of indexPaths) await fs.rename(swapName(p), p);
      await fs.syncDir(dir);
      await this.step('swap-done', log);
      const seg = await LogSegment.open({
        fs, dir, baseOffset: base, nowMs: this.clock.now(),
        config: { indexIntervalBytes: log.config.indexIntervalBytes, segmentIndexBytes },
      });
      return [...current.slice(0, at), seg, ...current.slice(at + group.length)];
    });
    if (!swapped) {
      for (const p of Object.values(names)) if (await fs.exists(cleanedName(p))) await fs.unlink(cleanedName(p));
      return false;
    }
    for (const s of group) this.deleteLater(log, s);
    return true;
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

/** [producerId, last offset of its last batch] for every producer the log knows. */
function lastBatchOfProducers(log: PartitionLog): [number, number][] {
  const out: [number, number][] = [];
  for (const e of log.producerState.activeProducers()) {
    const b = e.batches;
    if (b.length > 0) out.push([e.producerId, b[b.length - 1].lastOffset]);
  }
  return out;
}
