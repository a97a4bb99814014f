/**
 * The segments of one partition on this broker's disk (Kafka `LocalLog`): the segment list and
 * its active segment, creating and rolling segments, reading batches across them, truncating
 * them, removing segments from the list and retiring their files (renamed `.deleted`, removed
 * after file.delete.delay.ms by the SegmentDeleter), fsyncing them (the recovery point), closing
 * them and deleting the partition directory; and, as Kafka's LocalLog, whether the log is closed
 * or offline after a storage failure. partition-log.ts (Kafka `UnifiedLog`) is built on it.
 *
 * Who owns what:
 *   - LocalLog: the directory and its Fs, the segment list (`segments`, replaced and never
 *     mutated, so readers can hold a snapshot), the segment deleter, the LogFlusher (recovery
 *     point, flushed offset, last flush time; LocalLog is its host), the offline error and the
 *     closed flag, and the topic's config (PartitionLog's `config` setter writes it: one copy).
 *   - PartitionLog: every other offset (log start, local log start, log end, high watermark,
 *     last stable offset, the highest offset in remote storage), leader epochs, producer state and
 *     its snapshots, the checkpoints, the watchers, the background flush of rolled segments
 *     (`rollFlushChain`) and the serial queue. LocalLog reads the log end and the epoch cache from
 *     it (LocalLogHost: a flush covers the log end and checkpoints the epochs with the segments).
 *
 * LocalLog has no queue or lock of its own: each call that changes the list (roll, remove,
 * truncateTo, truncateFullyAndStartAt, close, deleteDir, and the list swaps of loading and of the
 * log cleaner) runs inside PartitionLog's queue; reads run outside it on a snapshot of the list
 * and pin the segments they touch (log-read.ts). Only fsyncs (syncUnflushed) take the log offline
 * here; other errors are thrown as they are, and PartitionLog decides which ones do.
 */
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import { KafkaApiError } from '../errors.js';
import type { Clock } from '../clock.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Fs } from './fs.js';
import { LogSegment } from './log-segment.js';
import { SegmentDeleter } from './segment-deleter.js';
import { LogFlusher, type LogFlusherHost } from './log-flusher.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import { rollJitterMs, storageError, type LogConfig, type PartitionLogOptions, type ReadResult } from './log-config.js';
import { floorSegmentIndex } from './log-loader.js';
import { collectAbortedTransactions, readBatches } from './log-read.js';
import type { AbortedTxn } from './producer-state.js';
import { deleteDirName } from './file-names.js';

/** What a LocalLog reads of the log above it (the PartitionLog itself: no closures per partition). */
export interface LocalLogHost {
  /** The log end offset: what a flush started now covers. */
  readonly logEndOffset: number;
  /** Checkpointed with every fsync of the segments, before the recovery point passes its entries. */
  readonly leaderEpochCache: LeaderEpochCache;
}

export class LocalLog implements LogFlusherHost {
  readonly fs: Fs;
  /** The partition directory; changes only by `movedTo` (the old copy of a moved replica). */
  dir: string;
  private readonly topic: string;
  private readonly partition: number;
  private readonly clock: Clock;
  /** The topic's settings; PartitionLog's `config` setter replaces them. */
  config: LogConfig;
  /** Sorted by base offset; replaced (never mutated) so readers can hold a snapshot. */
  segments: LogSegment[] = [];
  /** fsync bookkeeping: the recovery point, the flushed offset, the last flush time, group commit. */
  readonly flusher: LogFlusher;
  private offlineError: KafkaApiError | null = null;
  /** No more calls: set by PartitionLog when it closes or deletes the log. */
  closed = false;
  private segmentDeleter: SegmentDeleter | null = null;

  constructor(opts: PartitionLogOptions, private host: LocalLogHost) {
    this.fs = opts.fs;
    this.dir = opts.dir;
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.clock = opts.clock;
    this.config = opts.config;
    this.flusher = new LogFlusher(opts.clock, this);
  }

  /** A PartitionLog took these segments over from the one that opened them (log-dir-move.ts). */
  adoptedBy(host: LocalLogHost): void {
    this.host = host;
  }

  /**
   * Kafka's LocalLog.renameDir for the old copy of a moved replica: its directory is now `dir`
   * (renamed `-delete`); segments still read until closed open their files there.
   */
  movedTo(dir: string): void {
    this.dir = dir;
    for (const seg of this.segments) seg.movedTo(dir);
  }

  /** The log end offset (the PartitionLog's; LogFlusherHost). */
  get logEndOffset(): number {
    return this.host.logEndOffset;
  }

  /** LogFlusher's sync: segments written since their last fsync (`full`: indexes too), the epoch checkpoint; a failure takes the log offline. */
  syncUnflushed(full: boolean): Promise<void> {
    const segs = this.segments.filter((s) => !s.isClosed && (full ? s.needsFlush : s.needsSync));
    return Promise.all([...segs.map((s) => (full ? s.flush() : s.syncLog())), this.host.leaderEpochCache.flushIfDirty()]).then(
      () => undefined,
      (err) => { throw this.markOffline(err, 'fsync'); },
    );
  }

  /** Why the log is offline (the error every call then fails with), or null. */
  get offlineCause(): KafkaApiError | null {
    return this.offlineError;
  }

  /** Throws when the log is offline or closed. */
  checkOnline(): void {
    if (this.offlineError) throw this.offlineError;
    if (this.closed) throw new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `log ${this.topic}-${this.partition} is closed`);
  }

  /** Takes the log offline after `err` (the first cause stays); returns the error to throw now. */
  markOffline(err: unknown, what: string): KafkaApiError {
    const e = storageError(err, what);
    this.offlineError ??= new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `log ${this.topic}-${this.partition} is offline after: ${e.message}`, { cause: err });
    return e;
  }

  /** The segment appends go to (the last one). */
  get activeSegment(): LogSegment {
    return this.segments[this.segments.length - 1];
  }

  /** Total bytes of all segments. */
  get sizeBytes(): number {
    let s = 0;
    for (const seg of this.segments) s += seg.sizeBytes;
    return s;
  }

  /** Made by the first segment deletion (most partitions never delete one). */
  private get deleter(): SegmentDeleter {
    return (this.segmentDeleter ??= new SegmentDeleter(this.clock, () => this.config.fileDeleteDelayMs));
  }

  /** A new segment at `baseOffset` (not added to the list); `idle`: its empty indexes are let go. */
  createSegment(baseOffset: number, idle = false, nowMs = this.clock.now()): Promise<LogSegment> {
    return LogSegment.create({ fs: this.fs, dir: this.dir, baseOffset, config: this.config, nowMs, rollJitterMs: rollJitterMs(this.config), idle });
  }

  /**
   * Kafka `LocalLog.roll`: a new active segment at `newBaseOffset`, added to the list. The caller
   * (PartitionLog.roll) has made the old one inactive and schedules its flush.
   */
  async roll(newBaseOffset: number): Promise<LogSegment> {
    const seg = await this.createSegment(newBaseOffset);
    this.segments = [...this.segments, seg];
    return seg;
  }

  /**
   * The background flush of `old`, rolled at `newBaseOffset` (PartitionLog chains these): its
   * files, then the epoch checkpoint; returns whether the recovery point moved to `newBaseOffset`
   * (every inactive segment below it synced), for PartitionLog to checkpoint it.
   */
  async flushRolled(old: LogSegment, newBaseOffset: number): Promise<boolean> {
    if (old.isClosed) return false;
    await old.flush();
    await this.host.leaderEpochCache.flushIfDirty();
    return this.allSyncedBelow(newBaseOffset) && this.flusher.advanceRecoveryPoint(newBaseOffset);
  }

  /** Whether every inactive segment below `offset` has been fsynced. */
  private allSyncedBelow(offset: number): boolean {
    for (const s of this.segments) if (s.baseOffset < offset && s.needsSync && s !== this.activeSegment) return false;
    return true;
  }

  /**
   * Whole batches from the one containing `fetchOffset` (checked by PartitionLog to lie in the
   * local log), at most `maxBytes`, none starting at or after `maxOffset` (log-read.ts).
   */
  read(fetchOffset: number, maxBytes: number, maxOffset: number, opts: { minOneMessage: boolean; alloc?: (n: number) => Buffer }): Promise<ReadResult> {
    return readBatches(this.segments, fetchOffset, maxBytes, maxOffset, opts);
  }

  /** The transactions an append aborted, into the .txnindex of its segment; a failure takes the log offline. */
  async appendAbortedTxns(segment: LogSegment, txns: readonly AbortedTxn[]): Promise<void> {
    try {
      for (const t of txns) await segment.appendAbortedTxn(t);
    } catch (err) {
      throw this.markOffline(err, 'txnindex append');
    }
  }

  /** Aborted transactions overlapping [fetchOffset, upperBoundOffset), from the .txnindex files. */
  collectAbortedTransactions(fetchOffset: number, upperBoundOffset: number): Promise<AbortedTxn[]> {
    return collectAbortedTransactions(this.segments, fetchOffset, upperBoundOffset);
  }

  /** Adds an aborted transaction to the .txnindex of the segment holding its marker. */
  async indexAbortedTxn(t: AbortedTxn): Promise<void> {
    const segs = this.segments;
    await segs[Math.max(0, floorSegmentIndex(segs, t.lastOffset))].appendAbortedTxn(t);
  }

  /** Kafka `LocalLog.replaceSegments`, for the log cleaner: `swap` returns the new list (null: keep). */
  async replaceSegments(swap: (current: readonly LogSegment[]) => Promise<readonly LogSegment[] | null>): Promise<boolean> {
    const next = await swap(this.segments).catch((err) => { throw this.markOffline(err, 'cleaned segment swap'); });
    if (next) this.segments = [...next];
    return next !== null;
  }

  /** Takes `toDelete` out of the list (their files stay until `retire`). */
  remove(toDelete: readonly LogSegment[]): void {
    const gone = new Set(toDelete);
    this.segments = this.segments.filter((s) => !gone.has(s));
  }

  /** Renames segments to `.deleted` and hands them to the delayed deleter (file.delete.delay.ms). */
  async retire(segs: readonly LogSegment[]): Promise<void> {
    for (const seg of segs) {
      await seg.renameToDeleted();
      this.deleter.schedule(seg);
    }
  }

  /**
   * Kafka `LocalLog.truncateTo`: cuts the segment holding `offset` there and retires the segments
   * above it. `offset` must lie above the first segment's base. Returns the new log end offset.
   */
  async truncateTo(offset: number): Promise<number> {
    const keep = this.segments.filter((seg) => seg.baseOffset < offset);
    const drop = this.segments.filter((seg) => seg.baseOffset >= offset);
    const last = keep[keep.length - 1];
    await last.truncateTo(offset);
    this.segments = keep;
    await this.retire(drop);
    return last.readNextOffset();
  }

  /** Retires every segment and starts over with one empty (idle) segment at `offset`. */
  async truncateFullyAndStartAt(offset: number): Promise<void> {
    await this.retire(this.segments);
    this.segments = [await this.createSegment(offset, true)];
  }

  /** Resolves when segment deletions whose delay has passed are done (tests, shutdown). */
  deletionsSettled(): Promise<void> {
    return this.segmentDeleter?.settled() ?? Promise.resolve();
  }

  /** After `closed` is set: pending deletions done, every segment closed (errors ignored). */
  async close(): Promise<void> {
    await this.segmentDeleter?.finishAll();
    for (const seg of this.segments) await seg.close().catch(() => undefined);
  }

  /**
   * Topic deletion, after `close`: renames the directory to `<topic>-<partition>.<uuid>-delete`
   * (one atomic step, so a crash never leaves a half-deleted partition that would load again)
   * and removes it. LogManager.loadAll removes leftovers.
   */
  async deleteDir(): Promise<void> {
    this.segments = [];
    const parent = path.dirname(this.dir);
    const renamed = path.join(parent, deleteDirName(this.topic, this.partition, randomUUID().replace(/-/g, '')));
    await this.fs.rename(this.dir, renamed);
    await this.fs.syncDir(parent);
    await this.fs.rmdir(renamed);
  }
}
