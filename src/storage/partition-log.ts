/**
 * The log of one partition on this broker (Kafka `UnifiedLog`): its offsets, producer state and
 * leader epochs, validation and append as leader or follower, retention and DeleteRecords,
 * truncation, and the tiered-storage view (local log start vs log start, the highest offset in
 * remote storage), over its segments on disk, a LocalLog (local-log.ts, Kafka `LocalLog`, which
 * also says which object owns which state). The offsets, files, producer state, failures and
 * replication are described in docs/architecture.md, "The partition log".
 *
 * Concurrency: every mutation (append, roll, retention, DeleteRecords, truncation, close) runs
 * through one promise-chain queue, here (LocalLog's changes are made from inside it), so offsets
 * are assigned in call order. Reads do not queue: they take a snapshot of the segment list and pin
 * the segments they touch, so a concurrent retention pass cannot close a file under them. fsyncs
 * run outside the queue (group commit).
 */
import { KafkaApiError } from '../errors.js';
import type { Clock } from '../clock.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { LogSegment } from './log-segment.js';
import { LocalLog } from './local-log.js';
import { LeaderEpochCache } from './leader-epoch-cache.js';
import { assignOffsets, validateRecords, type AppendOrigin } from './log-validator.js';
import { loadSegments, readStoredTopicId, rebuildProducerState, settleLoadedLog } from './log-loader.js';
import { LogWatchers } from './log-watchers.js';
import { hasCleanupPolicy, rollJitterMs, storageError, type AppendResult, type LeaderAppendOptions, type LogConfig, type PartitionLogOptions, type ReadResult, type TimestampAndOffset } from './log-config.js';
import { OwnDirCheckpoints, ProducerSnapshots, topicIdFile, type PartitionCheckpoints } from './partition-files.js';
import { maxTimestampAndOffset as maxTimestampIn, offsetForTimestamp as offsetForTimestampIn } from './log-read.js';
import { belowLogStart, deletablePrefix, localRetentionChecks, retentionChecks, type SegmentCheck } from './log-retention.js';
import { duplicateOrUnverified, producerBatchInfos, ProducerStateManager, type AbortedTxn } from './producer-state.js';
import { bytesAfter, nextSegmentToCopy, type SegmentExport } from './segment-export.js';
import { baseOffset as batchBaseOffset, batchSize, partitionLeaderEpoch as batchPartitionLeaderEpoch } from '../protocol/records/record-batch.js';

export { defaultLogConfig, type LogConfig, type AppendResult, type LeaderAppendOptions, type ReadResult, type TimestampAndOffset, type PartitionLogOptions } from './log-config.js';

/** The queue and roll-flush chain of a log that has run nothing yet (one promise for all of them). */
const SETTLED: Promise<void> = Promise.resolve();

export class PartitionLog {
  readonly topic: string;
  readonly partition: number;
  topicId: string;
  /**
   * The checkpointed log start when it lay below the first local segment at load: a tiered log's
   * start, kept until the topic's config says whether it is tiered (the log loads with the
   * broker defaults; the replica manager then sets the topic's config).
   */
  private startBelowLocal: number | null = null;

  private readonly clock: Clock;
  /** The segments on disk with the recovery point and the offline/closed state (local-log.ts says who owns what). */
  private local: LocalLog;
  private startOffset = 0;
  /** Tiered storage: the last offset copied to the remote tier (-1: none); local retention stays below it. */
  private uploadedEnd = -1;
  /** Set while DeleteRecords' new log start is being checkpointed. */
  private pendingStart: number | null = null;
  private endOffset = 0;
  private hw = 0;
  /** The HW follows the log end after every append (one in-sync replica); else replication sets it. */
  private hwFollowsLogEnd = true;
  /** The HW checkpointed before the load (within the log; partition.ts makeFollower starts from it), null without one. */
  checkpointedHighWatermark: number | null = null;
  /** A role or an append (one replica) set the HW since the load: before that, `hw` is only the loaded log's end. */
  private hwKnown = false;
  private epochs!: LeaderEpochCache;
  private queue: Promise<unknown> = SETTLED;
  private readonly watchers = new LogWatchers();
  private rollFlushChain: Promise<void> = SETTLED;
  private producers!: ProducerStateManager;
  /** Offsets of the producer snapshot files on disk, ascending. */
  private snapshots: ProducerSnapshots;
  private checkpoints: PartitionCheckpoints;
  private readonly dirExists: boolean;

  private constructor(opts: PartitionLogOptions) {
    this.local = new LocalLog(opts, this);
    this.snapshots = new ProducerSnapshots(opts.fs, opts.dir);
    this.checkpoints = opts.checkpoints ?? new OwnDirCheckpoints(opts.fs, opts.dir, opts.topic, opts.partition);
    this.dirExists = opts.dirExists ?? false;
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.clock = opts.clock;
    this.topicId = opts.topicId ?? '';
  }

  /** The partition directory (the LocalLog's). */
  get dir(): string {
    return this.local.dir;
  }

  get config(): LogConfig {
    return this.local.config;
  }

  /**
   * The topic's settings; a tiered topic's log start goes back below its local segments (see
   * startBelowLocal). Tiered storage turned off (remote.log.delete.on.disable): the remote tier
   * is gone, so the log starts at its first local segment again.
   */
  set config(config: LogConfig) {
    if (this.local.config.remoteStorageEnable && !config.remoteStorageEnable) {
      this.uploadedEnd = -1;
      const segments = this.local.segments;
      if (segments.length > 0 && this.startOffset < segments[0].baseOffset) {
        this.startOffset = segments[0].baseOffset;
        this.producers?.truncateHead(this.startOffset);
        this.epochs?.truncateFromStart(this.startOffset);
      }
    }
    this.local.config = config;
    if (config.remoteStorageEnable && this.startBelowLocal !== null && this.startBelowLocal < this.startOffset) this.startOffset = this.startBelowLocal;
    this.startBelowLocal = null;
  }

  /** Why the log is offline (the error every call then fails with), or null. */
  get offlineCause(): KafkaApiError | null {
    return this.local.offlineCause;
  }

  get logStartOffset(): number {
    return this.startOffset;
  }

  /** The first offset in a local segment (above logStartOffset only for a tiered topic). */
  get localLogStartOffset(): number {
    const first = this.local.segments[0];
    return first ? Math.max(this.startOffset, first.baseOffset) : this.startOffset;
  }

  /** Whether the topic keeps old segments in the remote tier (remote.storage.enable). */
  get tiered(): boolean {
    return this.config.remoteStorageEnable === true;
  }

  /** Tiered storage: the last offset known copied to the remote tier (-1: none). */
  get highestOffsetInRemoteStorage(): number {
    return this.uploadedEnd;
  }

  /** The remote log manager's word: offsets up to `offset` are in the remote tier (never moves back). */
  setHighestOffsetInRemoteStorage(offset: number): void {
    if (offset > this.uploadedEnd) this.uploadedEnd = offset;
  }

  /** Tiered storage's next copy after `after`, below `below` (segment-export.ts); null when none. */
  nextSegmentToCopy(after: number, below: number): Promise<SegmentExport | null> {
    const local = this.local;
    return nextSegmentToCopy(local.fs, local.dir, local.segments, this.epochs.all, after, below, { config: local.config, nowMs: this.clock.now() });
  }

  /** Tiered storage: local bytes not yet in the remote tier (`closedOnly`: RemoteCopyLagBytes). */
  bytesNotRemote(closedOnly: boolean): number {
    return bytesAfter(this.local.segments, this.endOffset, this.uploadedEnd, closedOnly);
  }

  /** What a log start checkpoint holds: the offset being made durable before the log moves there. */
  get logStartOffsetToCheckpoint(): number {
    return this.pendingStart ?? (this.startBelowLocal !== null ? Math.min(this.startBelowLocal, this.startOffset) : this.startOffset);
  }

  get logEndOffset(): number {
    return this.endOffset;
  }

  get highWatermark(): number {
    return this.hw;
  }

  /** What replication-offset-checkpoint may hold: the HW once known, before that the checkpointed one (or the log start). */
  get highWatermarkToCheckpoint(): number {
    return this.hwKnown ? this.hw : (this.checkpointedHighWatermark ?? this.startOffset);
  }

  /** Offsets below this are known to be on stable storage. */
  get recoveryPoint(): number {
    return this.local.flusher.recoveryPoint;
  }

  /** Kafka `lastStableOffset`: the first offset of the oldest open transaction, capped at the high watermark. */
  get lastStableOffset(): number {
    const fuo = this.producers.firstUnstableOffset();
    return fuo === null ? this.hw : Math.min(fuo, this.hw);
  }

  /** The producer state (read-only use: DescribeProducers, tests). */
  get producerState(): ProducerStateManager {
    return this.producers;
  }

  get leaderEpochCache(): LeaderEpochCache {
    return this.epochs;
  }

  get isOffline(): boolean {
    return this.local.offlineCause !== null;
  }

  /** Total bytes of all segments. */
  get sizeBytes(): number {
    return this.local.sizeBytes;
  }

  get numberOfSegments(): number {
    return this.local.segments.length;
  }

  /** Base offsets of the segments, oldest first (for tests and DescribeLogDirs). */
  get segmentBaseOffsets(): number[] {
    return this.local.segments.map((s) => s.baseOffset);
  }

  /** The log cleaner's view (log-cleaner.ts): the current segment list, never mutated in place. */
  get segmentList(): readonly LogSegment[] {
    return this.local.segments;
  }

  /** The log cleaner's swap: `swap` runs in the serial queue and returns the new list (null: keep). */
  replaceSegments(swap: (current: readonly LogSegment[]) => Promise<readonly LogSegment[] | null>): Promise<boolean> {
    return this.enqueue(() => this.local.replaceSegments(swap));
  }

  /** Time of the last completed flush (for flush.ms). */
  get lastFlushTimeMs(): number {
    return this.local.flusher.lastFlushTimeMs;
  }

  /** Records appended but not yet fsynced (for flush.messages). */
  get unflushedMessages(): number {
    return this.endOffset - this.local.flusher.flushedOffset;
  }

  // -------------------------------------------------------------------------------------------
  // Loading

  /**
   * Opens (creating if needed) the partition directory and loads its segments. Without the
   * clean-shutdown marker, segments from the recovery point on are recovered: each batch is
   * checked, the first invalid or torn one and everything after it is cut off, and the indexes
   * are rebuilt.
   */
  static async open(opts: PartitionLogOptions): Promise<PartitionLog> {
    const log = new PartitionLog(opts);
    await log.load(opts.topicId, opts.initialLeaderEpoch);
    return log;
  }

  private async load(topicId: string | undefined, leaderEpoch: number | undefined): Promise<void> {
    const { fs, dir } = this.local;
    if (!this.dirExists) await fs.mkdir(dir);
    const stored = await readStoredTopicId(fs, dir, topicId);
    this.topicId = stored ?? topicId ?? '';

    const now = this.clock.now();
    const checkpointed = await this.checkpoints.load();
    const loaded = await loadSegments({ fs, dir, nowMs: now, segmentConfig: this.config, rollJitter: () => rollJitterMs(this.config), checkpointed });
    this.checkpoints.afterLoad?.(loaded.names);
    this.epochs = loaded.epochs;
    const settled = await settleLoadedLog(loaded, {
      tiered: this.tiered,
      createSegment: (baseOffset) => this.local.createSegment(baseOffset, true, now),
      writeRecoveryPoint: (offset) => this.checkpoints.writeRecoveryPoint(offset),
      fs, files: topicId && !stored ? [topicIdFile(dir, topicId)] : [], leaderEpoch,
    });
    this.local.segments = settled.segments;
    this.startOffset = settled.startOffset;
    // No checkpoint means 0 (Kafka's LogLoader): a tiered log whose start never moved.
    const cp = loaded.checkpointedStart ?? 0;
    if (cp < settled.startOffset) this.startBelowLocal = cp;
    this.endOffset = settled.endOffset;
    this.local.flusher.resetTo(settled.recoveryPoint);
    this.hw = this.endOffset;
    const cpHw = checkpointed.highWatermark;
    if (cpHw !== undefined && cpHw !== null) this.checkpointedHighWatermark = Math.max(this.startOffset, Math.min(cpHw, this.endOffset));
    await this.rebuildProducers(loaded.names, this.endOffset, (t) => this.local.indexAbortedTxn(t));
  }

  /** Producer state from the latest snapshot and a replay of the batches after it (log-loader.ts). */
  private async rebuildProducers(names: string[], endOffset: number, indexAborted: (t: AbortedTxn) => Promise<void>): Promise<void> {
    const state = await rebuildProducerState({
      fs: this.local.fs, dir: this.local.dir, name: `${this.topic}-${this.partition}`, names, startOffset: this.localLogStartOffset, endOffset, nowMs: this.clock.now(),
      read: (offset, maxBytes, o) => this.read(offset, maxBytes, o), indexAborted,
    });
    this.producers = state.producers;
    this.snapshots.offsets = state.snapshotOffsets;
  }

  /** Sets the topic id and writes partition.metadata (Kafka's format). */
  async persistTopicId(topicId: string): Promise<void> {
    const file = topicIdFile(this.dir, topicId);
    await this.local.fs.writeFileAtomic(file.path, file.data);
    this.topicId = topicId;
  }

  // -------------------------------------------------------------------------------------------
  // Queue and state checks

  private enqueue<T>(op: () => Promise<T> | T): Promise<T> {
    return this.serially(() => {
      this.local.checkOnline();
      return op();
    });
  }

  /** Runs `op` in the queue, offline or closed as the log may be (close, delete). */
  private serially<T>(op: () => Promise<T> | T): Promise<T> {
    const run = this.queue.then(op);
    this.queue = run.catch(() => undefined);
    return run;
  }

  // -------------------------------------------------------------------------------------------
  // Append

  /**
   * Validates `records` (one or more concatenated v2 batches, see log-validator.ts), assigns
   * offsets and the leader epoch in place (and the broker time on LogAppendTime topics), and
   * writes the bytes as they are. The buffer is modified and must not be reused by the caller.
   */
  async appendAsLeader(records: Buffer, leaderEpoch: number, opts?: LeaderAppendOptions): Promise<AppendResult> {
    this.local.checkOnline();
    const origin = opts?.origin ?? 'client';
    const info = validateRecords(records, this.config, origin, { nowMs: this.clock.now(), topicPartition: `${this.topic}-${this.partition}` });
    const result = await this.enqueue(() => this.appendLocked(records, info.validBytes, info.offsetCount, leaderEpoch, origin, opts));
    if (result.duplicate) return result;
    if (this.unflushedMessages >= this.config.flushMessages) await this.flushUpTo(this.endOffset);
    this.watchers.appended();
    return result;
  }

  /**
   * A follower's append of batches fetched from the leader (Kafka `appendAsFollower`): offsets,
   * partition leader epochs and timestamps stay as the leader wrote them; the leader epoch cache
   * takes each new epoch at its first batch, and producer state is updated without sequence
   * checks. The first batch must not start below the log end (the fetcher truncates first).
   */
  async appendAsFollower(records: Buffer): Promise<AppendResult> {
    this.local.checkOnline();
    const info = validateRecords(records, this.config, 'replication');
    const result = await this.enqueue(() => this.appendLocked(records, info.validBytes, info.offsetCount, -1, 'replication'));
    if (this.unflushedMessages >= this.config.flushMessages) await this.flushUpTo(this.endOffset);
    this.watchers.appended();
    return result;
  }

  private async appendLocked(buf: Buffer, validBytes: number, offsetCount: number, leaderEpoch: number, origin: AppendOrigin, opts?: LeaderAppendOptions): Promise<AppendResult> {
    // A retry of a recent batch is answered, not written (producer-state.ts).
    const dup = origin === 'client' ? duplicateOrUnverified(this.producers, buf, opts?.verification) : null;
    if (dup) return { baseOffset: dup.firstOffset, lastOffset: dup.lastOffset, logAppendTimeMs: dup.timestamp, logStartOffset: this.startOffset, recordCount: 0, duplicate: true };
    const now = this.clock.now();
    const follower = origin === 'replication';
    const logAppendTime = !follower && this.config.messageTimestampType === 'LogAppendTime';
    const firstOffset = follower ? batchBaseOffset(buf, 0) : this.endOffset;
    if (firstOffset < this.endOffset) {
      throw new KafkaApiError(ErrorCode.OFFSET_OUT_OF_RANGE, `${this.topic}-${this.partition}: replicated batch at ${firstOffset} is below the log end ${this.endOffset}`);
    }
    const { nextOffset: next, maxTimestamp: maxTs } = assignOffsets(buf, validBytes, { follower, firstOffset, leaderEpoch, logAppendTimeMs: logAppendTime ? now : null, where: `${this.topic}-${this.partition}` });
    const lastOffset = next - 1;

    const infos = producerBatchInfos(buf, validBytes);
    const staged = infos.length > 0 ? this.producers.prepare(infos, now, !follower, origin === 'client', opts?.markerTransactionVersion) : null;

    let segment = this.local.activeSegment;
    if (await segment.shouldRoll({ segmentBytes: this.config.segmentBytes, segmentMs: this.config.segmentMs, nowMs: now, maxTimestampInMessages: maxTs, maxOffsetInMessages: lastOffset, messagesSize: validBytes })) {
      segment = await this.roll(firstOffset);
    }
    try {
      segment.append(buf, 0, validBytes);
    } catch (err) {
      if ((err as { rollbackFailed?: boolean }).rollbackFailed) throw this.local.markOffline(err, 'append');
      throw storageError(err, `append to ${segment.logPath}`);
    }
    this.endOffset = next;
    if (staged) await this.local.appendAbortedTxns(segment, this.producers.commit(staged));
    if (this.hwFollowsLogEnd) this.maybeIncrementHighWatermark(next);
    // Checkpointed by the next flush, before the recovery point passes it (as Kafka since
    // KAFKA-15046); recovery re-assigns the epochs of the batches above the recovery point.
    if (leaderEpoch >= 0) this.epochs.assign(leaderEpoch, firstOffset);
    if (follower) {
      for (let pos = 0; pos < validBytes; pos += batchSize(buf, pos)) this.epochs.assign(batchPartitionLeaderEpoch(buf, pos), batchBaseOffset(buf, pos));
    }
    return { baseOffset: firstOffset, lastOffset, logAppendTimeMs: logAppendTime ? now : -1, logStartOffset: this.startOffset, recordCount: offsetCount };
  }

  /** Single replica: everything appended is "replicated". */
  private maybeIncrementHighWatermark(offset: number): void {
    const hw = Math.min(offset, this.endOffset);
    if (hw <= this.hw) return;
    this.hw = hw;
    this.hwKnown = true;
    this.watchers.highWatermarkMoved(true);
  }

  /**
   * Who moves the high watermark: `true` (one in-sync replica) makes it follow the log end after
   * every append, as on a single node; `false` leaves it to replication (`updateHighWatermark`
   * with the smallest log end offset of the ISR on a leader, the leader's HW on a follower).
   */
  setHighWatermarkFollowsLogEnd(follows: boolean): void {
    this.hwFollowsLogEnd = follows;
    if (!follows) return;
    this.hwKnown = true;
    this.maybeIncrementHighWatermark(this.endOffset);
    this.watchers.flushPendingHighWatermark();
  }

  /**
   * Sets the high watermark (capped at the log end). A move wakes the consumers' long-polling
   * fetches: records below the new HW just became readable. Returns whether it moved.
   */
  updateHighWatermark(offset: number): boolean {
    this.hwKnown = true;
    const hw = Math.max(this.startOffset, Math.min(offset, this.endOffset));
    if (hw === this.hw) return false;
    this.hw = hw;
    this.watchers.highWatermarkMoved(false);
    return true;
  }

  /**
   * A new leader records where its epoch starts (Kafka `maybeAssignEpochStartOffset`): followers
   * asking OffsetForLeaderEpoch for an older epoch learn that it ended at this log end.
   */
  assignEpochStartOffset(leaderEpoch: number, startOffset: number): Promise<void> {
    return this.enqueue(async () => {
      if (this.epochs.assign(leaderEpoch, startOffset)) await this.epochs.flushIfDirty();
    });
  }

  /**
   * A follower's truncation (Kafka `truncateTo`): removes every batch at or after `offset`
   * (whole batches: the log end becomes the start of the batch holding `offset`), drops segments
   * above it, moves the leader epoch cache, the high watermark and the recovery point back, and
   * rebuilds producer state for what is left. Below the log start it empties the log there.
   * At or above the log end nothing is cut, but the leader epoch cache still loses the entries
   * starting at the log end: a replica that led an epoch and wrote nothing in it keeps an entry
   * its new leader never had, and every fetch would diverge on it again (Kafka's truncateTo
   * always truncates the epoch cache for this reason). Returns whether the log was cut.
   */
  truncateTo(offset: number): Promise<boolean> {
    return this.enqueue(async () => {
      if (offset >= this.endOffset) {
        const before = this.epochs.all.length;
        this.epochs.truncateFromEnd(this.endOffset);
        if (this.epochs.all.length !== before) await this.epochs.flushIfDirty().catch(() => undefined);
        return false;
      }
      if (offset <= this.localLogStartOffset) {
        // A tiered log keeps its start below the local data: the remote tier still holds that part.
        await this.truncateFullyLocked(Math.max(offset, 0), this.tiered ? Math.min(this.startOffset, offset) : offset);
        return true;
      }
      try {
        await this.rollFlushChain;
        this.endOffset = await this.local.truncateTo(offset);
      } catch (err) {
        throw this.local.markOffline(err, `truncation to ${offset}`);
      }
      await this.afterTruncation();
      return true;
    });
  }

  /**
   * Deletes everything and starts the log empty at `offset` (a follower far behind the leader's
   * log start). `logStartOffset` below it: a tiered log whose older offsets are in the remote tier.
   */
  truncateFullyAndStartAt(offset: number, logStartOffset = offset): Promise<void> {
    return this.enqueue(() => this.truncateFullyLocked(offset, logStartOffset));
  }

  /**
   * Tiered storage, a replica rebuilding from the remote tier (Kafka's follower
   * buildRemoteLogAuxState, and a leader that lost its disk): the log starts empty at
   * `localStart`, with `logStartOffset` below it, the leader epochs and producer state of the
   * remote segment ending at localStart - 1, and everything below localStart counted as copied.
   */
  rebuildFromRemote(localStart: number, logStartOffset: number, epochs: readonly { epoch: number; startOffset: number }[], producerSnapshot: Buffer | null): Promise<void> {
    return this.enqueue(async () => {
      await this.truncateFullyLocked(localStart, Math.min(logStartOffset, localStart));
      for (const e of epochs) if (e.startOffset <= localStart) this.epochs.assign(e.epoch, e.startOffset);
      await this.epochs.flushIfDirty();
      if (producerSnapshot) {
        this.producers.loadSnapshot(producerSnapshot);
        await this.snapshots.take(localStart, () => producerSnapshot);
      }
      this.uploadedEnd = Math.max(this.uploadedEnd, localStart - 1);
    });
  }

  private async truncateFullyLocked(offset: number, logStartOffset = offset): Promise<void> {
    try {
      await this.rollFlushChain;
      await this.local.truncateFullyAndStartAt(offset);
      this.startOffset = logStartOffset;
      this.endOffset = offset;
      this.hw = offset;
      this.local.flusher.resetTo(offset);
      await this.checkpoints.writeLogStartOffset(logStartOffset);
      await this.checkpoints.writeRecoveryPoint(offset);
    } catch (err) {
      throw this.local.markOffline(err, `truncation to a new log at ${offset}`);
    }
    this.epochs.clear();
    // Producer state of the old log means nothing for the new one.
    await this.snapshots.deleteBelow(Number.MAX_SAFE_INTEGER);
    await this.afterTruncation();
  }

  /** Offsets, epochs and producer state after the log end moved back. */
  private async afterTruncation(): Promise<void> {
    const end = this.endOffset;
    this.hw = Math.min(this.hw, end);
    if (this.local.flusher.truncateTo(end)) {
      await this.checkpoints.writeRecoveryPoint(end).catch(() => undefined);
    }
    this.epochs.truncateFromEnd(end);
    await this.epochs.flushIfDirty().catch(() => undefined);
    // The aborted transactions of what is left are still in the .txnindex files: index nothing again.
    await this.rebuildProducers(await this.local.fs.readdir(this.local.dir), end, async () => undefined);
  }

  /** Starts a new active segment at `newBaseOffset` (Kafka `UnifiedLog.roll`); the old one is flushed in the background. */
  private async roll(newBaseOffset: number): Promise<LogSegment> {
    const old = this.local.activeSegment;
    if (old.sizeBytes === 0) return old;
    old.onBecomeInactive();
    // Kafka takes a producer snapshot at every roll, so loading never replays more than a segment.
    await this.snapshots.take(newBaseOffset, () => this.producers.serialize());
    const seg = await this.local.roll(newBaseOffset);
    // Like Kafka's roll: flush the finished segment asynchronously, then move the recovery point.
    this.rollFlushChain = this.rollFlushChain
      .then(async () => {
        if (await this.local.flushRolled(old, newBaseOffset)) await this.checkpoints.recoveryPointAdvanced(newBaseOffset);
      })
      .catch((err) => {
        this.local.markOffline(err, `flush of rolled segment ${old.baseOffset}`);
      });
    return seg;
  }

  /** producer.id.expiration.ms: forgets producers idle that long without an open transaction. */
  removeExpiredProducers(nowMs: number, expirationMs: number): Promise<number> {
    return this.enqueue(() => this.producers.removeExpiredProducers(nowMs, expirationMs));
  }

  /** Aborted transactions overlapping [fetchOffset, upperBoundOffset), for read_committed fetches. */
  collectAbortedTransactions(fetchOffset: number, upperBoundOffset: number): Promise<AbortedTxn[]> {
    return this.local.collectAbortedTransactions(fetchOffset, upperBoundOffset);
  }

  // -------------------------------------------------------------------------------------------
  // Read (LocalLog, log-read.ts)

  /**
   * Whole batches from the one containing `fetchOffset`, at most `maxBytes` (but the first batch
   * whole when `minOneMessage`), never batches starting at or after `maxOffset` (default: log
   * end); OFFSET_OUT_OF_RANGE outside [logStartOffset, logEndOffset].
   */
  async read(fetchOffset: number, maxBytes: number, opts: { minOneMessage: boolean; maxOffset?: number; alloc?: (n: number) => Buffer }): Promise<ReadResult> {
    this.local.checkOnline();
    const leo = this.endOffset;
    if (fetchOffset < this.startOffset || fetchOffset > leo) {
      throw new KafkaApiError(
        ErrorCode.OFFSET_OUT_OF_RANGE,
        `fetch offset ${fetchOffset} is outside [${this.startOffset}, ${leo}] of ${this.topic}-${this.partition}`,
      );
    }
    const localStart = this.localLogStartOffset;
    if (fetchOffset < localStart) {
      throw new KafkaApiError(ErrorCode.OFFSET_MOVED_TO_TIERED_STORAGE, `fetch offset ${fetchOffset} of ${this.topic}-${this.partition} is in the remote tier (local log starts at ${localStart})`);
    }
    return this.local.read(fetchOffset, maxBytes, Math.min(opts.maxOffset ?? leo, leo), opts);
  }

  /** ListOffsets by timestamp (null when no record at or after it lies below the high watermark). */
  offsetForTimestamp(timestampMs: number): Promise<TimestampAndOffset | null> {
    this.local.checkOnline();
    return offsetForTimestampIn(this.local.segments, this.startOffset, () => this.hw, timestampMs);
  }

  /** ListOffsets MAX_TIMESTAMP (-3). */
  maxTimestampAndOffset(): Promise<TimestampAndOffset> {
    this.local.checkOnline();
    return maxTimestampIn(this.local.segments);
  }

  // -------------------------------------------------------------------------------------------
  // DeleteRecords and retention

  /**
   * DeleteRecords: moves the log start offset to `offset` (-1 = the high watermark) and deletes
   * segments that lie wholly below it. Returns the new log start offset (the low watermark).
   * OFFSET_OUT_OF_RANGE when offset > high watermark or < -1; POLICY_VIOLATION on a compact-only
   * topic (behaviours.md DR1–DR6).
   */
  deleteRecordsBefore(offset: number): Promise<number> {
    return this.enqueue(async () => {
      if (!hasCleanupPolicy(this.config.cleanupPolicy, 'delete')) {
        throw new KafkaApiError(ErrorCode.POLICY_VIOLATION, `records of ${this.topic} cannot be deleted: cleanup.policy=${this.config.cleanupPolicy}`);
      }
      const target = offset === -1 ? this.hw : offset;
      if (target < 0 || target > this.hw) {
        throw new KafkaApiError(ErrorCode.OFFSET_OUT_OF_RANGE, `cannot delete records before ${offset}: high watermark is ${this.hw}`);
      }
      return this.advanceLogStart(target);
    });
  }

  /**
   * Raises the log start offset to `offset`, capped at the high watermark (Kafka's
   * maybeIncrementLogStartOffset): a follower takes its leader's (LeaderOffsetIncremented), so
   * records the leader deleted (DeleteRecords) stay deleted after a failover; tiered storage's
   * remote retention deleted the offsets below it (updateLogStartOffsetFromRemoteTier), and local
   * segments below it go with the next retention pass.
   */
  raiseLogStartOffset(offset: number): Promise<number> {
    return this.enqueue(() => this.advanceLogStart(Math.min(offset, this.hw)));
  }

  private async advanceLogStart(target: number): Promise<number> {
    if (target <= this.startOffset) return this.startOffset;
    this.pendingStart = target;
    try {
      await this.checkpoints.writeLogStartOffset(target);
    } catch (err) {
      throw this.local.markOffline(err, 'log-start-offset-checkpoint');
    } finally {
      this.pendingStart = null;
    }
    this.startOffset = target;
    this.producers.truncateHead(target);
    this.epochs.truncateFromStart(target);
    await this.epochs.flushIfDirty().catch(() => undefined);
    await this.deleteSegments(await this.deletableSegments(belowLogStart(this.startOffset)));
    return this.startOffset;
  }

  /**
   * Deletes whole segments breaching the log start offset, retention.bytes and retention.ms (in
   * Kafka's order, `UnifiedLog.deleteOldSegments`); retention only applies when cleanup.policy
   * includes "delete". The active segment can go too when it is expired and fully below the high
   * watermark; a new empty segment is rolled first. Returns the number of segments deleted.
   */
  enforceRetention(nowMs: number): Promise<number> {
    return this.enqueue(async () => {
      let deleted = await this.deleteSegments(await this.deletableSegments(belowLogStart(this.startOffset)));
      const tiered = this.tiered;
      const checks = tiered ? localRetentionChecks(this.config, this.sizeBytes, nowMs) : retentionChecks(this.config, this.sizeBytes, nowMs);
      const copied = tiered ? (upperBound: number) => upperBound > 0 && upperBound - 1 <= this.uploadedEnd : undefined;
      for (const check of checks) {
        const { segments, rollActive } = await deletablePrefix(this.local.segments, this.endOffset, this.hw, check, copied);
        deleted += await this.deleteSegments(segments);
        if (rollActive && this.local.activeSegment.sizeBytes > 0) {
          try {
            await this.roll(this.endOffset);
          } catch (err) {
            throw this.local.markOffline(err, 'roll for retention');
          }
        }
      }
      return deleted;
    });
  }

  private async deletableSegments(check: SegmentCheck): Promise<LogSegment[]> {
    return (await deletablePrefix(this.local.segments, this.endOffset, this.hw, check)).segments;
  }

  private async deleteSegments(toDelete: LogSegment[]): Promise<number> {
    if (toDelete.length === 0) return 0;
    try {
      if (toDelete.length === this.local.segments.length) await this.roll(this.endOffset);
      this.local.remove(toDelete);
      // A tiered log keeps its start: the deleted offsets are still read from the remote tier.
      const first = this.local.segments[0];
      if (!this.tiered && first.baseOffset > this.startOffset) {
        this.startOffset = first.baseOffset;
        this.producers.truncateHead(this.startOffset);
        this.epochs.truncateFromStart(this.startOffset);
        await this.epochs.flushIfDirty();
      }
      await this.local.retire(toDelete);
    } catch (err) {
      throw this.local.markOffline(err, 'segment deletion');
    }
    return toDelete.length;
  }

  // -------------------------------------------------------------------------------------------
  // Flush (fsync)

  /** Group commit: resolves once every offset below `offset` is fsynced (log-flusher.ts). */
  flushUpTo(offset: number): Promise<void> {
    return this.local.flusher.flushUpTo(offset);
  }

  /** fsyncs everything written so far (logs and indexes). */
  flush(): Promise<void> {
    return this.local.flusher.flush();
  }

  // -------------------------------------------------------------------------------------------
  // Notifications and lifecycle

  /** Calls `listener` after each successful append (followers' long polls). Returns an unsubscribe function. */
  onAppend(listener: () => void): () => void {
    return this.watchers.onAppend(listener);
  }

  /** Calls `listener` after each move of the high watermark (consumers' long polls). */
  onHighWatermark(listener: () => void): () => void {
    return this.watchers.onHighWatermark(listener);
  }

  /** Append and high-watermark listeners registered now (tests: long polls leave none behind). */
  get listenerCount(): number {
    return this.watchers.listenerCount;
  }

  /** Appends so far: long-polling fetches compare it. */
  get appendCount(): number {
    return this.watchers.appends;
  }

  /** High-watermark moves so far. */
  get highWatermarkMoveCount(): number {
    return this.watchers.highWatermarkMoves;
  }

  /**
   * AlterReplicaLogDirs' swap (log-dir-move.ts, Kafka's replaceCurrentWithFutureLog): in the queue (no
   * append interleaves) `swap` returns the caught-up copy opened where it now lives, or null. This
   * object takes over its files, log start, epochs and producer state (its holders keep it) and
   * keeps its HW and listeners. Returns the old files (LocalLog) for the caller to close.
   */
  adoptMovedCopy(swap: () => Promise<PartitionLog | null>): Promise<LocalLog | null> {
    return this.enqueue(async () => {
      await this.rollFlushChain;
      const moved = await swap();
      if (!moved) return null;
      const old = this.local;
      ({ local: this.local, epochs: this.epochs, producers: this.producers, snapshots: this.snapshots, checkpoints: this.checkpoints,
        startOffset: this.startOffset, startBelowLocal: this.startBelowLocal, endOffset: this.endOffset } = moved);
      this.local.adoptedBy(this);
      this.hw = Math.min(this.hw, this.endOffset);
      old.closed = true;
      return old;
    });
  }

  /**
   * Flushes, writes the checkpoints and the clean-shutdown marker, and closes every file. After a
   * storage failure, closes the files without the marker so the next open recovers.
   */
  close(): Promise<void> {
    if (this.local.closed) return Promise.resolve();
    return this.serially(async () => {
      if (this.local.closed) return;
      await this.rollFlushChain;
      const healthy = !this.local.offlineCause;
      if (healthy) {
        try {
          await this.flush();
          await this.snapshots.takeAtClose(this.endOffset, this.endOffset === this.startOffset && this.producers.activeProducers().length === 0, () => this.producers.serialize());
        } catch {
          // Stays offline; no marker is written below.
        }
      }
      await this.closeFiles();
      if (healthy && !this.local.offlineCause) await this.checkpoints.closedCleanly(this.endOffset);
    });
  }

  /** No more calls; pending deletions done, every segment closed (after reads in flight). */
  private async closeFiles(): Promise<void> {
    this.local.closed = true;
    this.watchers.clear();
    await this.rollFlushChain;
    await this.local.close();
  }

  /** Resolves when segment deletions whose delay has passed are done (tests, shutdown). */
  deletionsSettled(): Promise<void> {
    return this.local.deletionsSettled();
  }

  /**
   * Topic deletion: closes the files without flushing, renames the directory to
   * `<topic>-<partition>.<uuid>-delete` (one atomic step, so a crash never leaves a half-deleted
   * partition that would load again) and removes it. LogManager.loadAll removes leftovers.
   */
  delete(): Promise<void> {
    return this.serially(async () => {
      await this.closeFiles();
      await this.local.deleteDir();
    });
  }
}

