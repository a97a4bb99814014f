/**
 * Moving a replica between two log dirs of this broker (AlterReplicaLogDirs, KIP-113): Kafka's
 * future log, its ReplicaAlterLogDirsThread, and the swap of Partition.maybeReplaceCurrentWithFutureReplica
 * and LogManager.replaceCurrentWithFutureLog.
 *
 * The copy: the partition's log (the current log: the PartitionLog every component holds, which
 * stays that object) is copied into `<dest>/<topic>-<partition>.<uuid>-future`, a PartitionLog of
 * its own in the destination LogDir (the future log). The move reads the current log from the
 * future's log end and appends what it reads as a follower would, so the future's offsets, leader
 * epochs and producer state come from the batches; it starts at the current log start (the local
 * log start of a tiered log). Before each read it follows the current log as Kafka's fetcher
 * follows a leader: a raised log start (DeleteRecords, retention) is taken, and a truncation of
 * the current log (a follower truncated by its leader) is found by the leader epochs (the
 * future's latest epoch ends earlier in the current log) and cut from the future.
 *
 * The swap, once the future has caught up (or a read reached the log end as it was when it
 * started: Kafka waits for the two log ends to be equal between two fetches, which a producer
 * writing all the time may never allow): in the current log's serial queue, so no append
 * interleaves (PartitionLog.adoptMovedCopy), the rest is copied, the future log is closed
 * (flushed, producer snapshot, epoch checkpoint), its directory renamed `<dest>/<topic>-<partition>`
 * and opened there; the current PartitionLog takes over those files and keeps its high
 * watermark. The LogManager then moves the partition between its dirs' maps and writes both dirs'
 * checkpoint files; the old directory is renamed `<topic>-<partition>.<uuid>-delete` (its
 * segments follow the rename), its files are closed once the reads that pinned them are done,
 * and it is removed. A crash between the two renames leaves the partition in both dirs, which the
 * loader refuses, as Kafka's does.
 *
 * The log cleaner does not pick a log being moved (the LogManager leaves it out), and the swap
 * waits for a pass already cleaning it (Kafka's abortAndPauseCleaning, without the abort).
 * `replica.alter.log.dirs.io.max.bytes.per.second` bounds the bytes copied per second by all
 * moves of the broker together (each read asks for a tenth of a second's worth when it is set).
 *
 * Errors (Kafka's): a move is dropped and its future log deleted when the partition's log is
 * deleted (topic deletion, the broker no longer a replica) or another destination is named; when
 * the future's dir fails, the move stops and its files stay there (the dir is offline); when the
 * current log's dir fails, the partition goes offline and the move stops, the future's files
 * left in place. Any other failure of a step is reported and the step retried a second later.
 *
 * A future log is in its dir's `futures` while it exists, so the dir's checkpoint files carry it
 * (Kafka's logsByDir): a broker stopped or crashed mid-move opens it at start-up and the move goes
 * on from its end (LogManager.resumeMoves).
 *
 * State: the moves of a LogManager are in LogDirMoves (changed on the event loop only, one
 * operation per partition at a time), which also owns each destination LogDir's `futures`; each
 * future log's mutations go through its own PartitionLog queue, the swap through the current
 * log's. `stopped` is set by `stop` and checked between steps and at the start of the swap.
 */
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../clock.js';
import { baseOffset as batchBaseOffset, batchSize, lastOffsetDelta } from '../protocol/records/record-batch.js';
import { PartitionLog } from './partition-log.js';
import type { LocalLog } from './local-log.js';
import type { LogDir } from './log-dir.js';
import { SharedPartitionCheckpoints } from './log-dir-checkpoints.js';
import type { Fs } from './fs.js';
import { OWN_DIR_CHECKPOINT_FILES } from './partition-files.js';
import { deleteDirName, futureDirName, LEADER_EPOCH_CHECKPOINT_FILE, parseOffsetFileName, PARTITION_METADATA_FILE, partitionDirName } from './file-names.js';

/** Bytes read from the current log per step (unthrottled). */
const CHUNK_BYTES = 1 << 20;
/** Wait after a failed step before the next one (Kafka's replica.fetch.backoff.ms default). */
const RETRY_MS = 1000;

/** What the moves need from their LogManager. */
export interface LogDirMovesHost {
  readonly clock: Clock;
  /** The log cleaner, if any: the swap waits for a pass cleaning the log. */
  cleaner(): { cleaningDone(log: PartitionLog): Promise<void> } | null;
  /** replica.alter.log.dirs.io.max.bytes.per.second; not finite or not positive: unthrottled. */
  maxBytesPerSecond(): number;
  /** The swap is done: the log lives in `to` now (maps at once, then both dirs' checkpoint files). */
  moved(log: PartitionLog, from: LogDir, to: LogDir): Promise<void>;
  onError(err: unknown, task: string): void;
}

/** One replica being moved from `source` to `dest`. */
export class LogDirMove {
  /** Set by `stop`: no further step starts. */
  stopped = false;
  /** The future log replaced the current log's files. */
  swapped = false;
  /** The future log was closed (for the swap, or when the move stopped). */
  private futureClosed = false;
  /** The run loop; resolves when it ends. */
  done: Promise<void> = Promise.resolve();
  /** The removal of the old copy after the swap (tests wait for it). */
  cleanup: Promise<void> = Promise.resolve();
  private sleeping: { timer: Timer; wake: () => void } | null = null;
  /** The last read copied up to the log end as it was when it started. */
  private reachedEnd = false;

  constructor(
    private readonly moves: LogDirMoves,
    readonly log: PartitionLog,
    readonly source: LogDir,
    readonly dest: LogDir,
    readonly future: PartitionLog,
  ) {}

  private get host(): LogDirMovesHost {
    return this.moves.host;
  }

  private get name(): string {
    return partitionDirName(this.log.topic, this.log.partition);
  }

  /** The future log is there to describe (DescribeLogDirs lists it with is_future_key). */
  get active(): boolean {
    return !this.futureClosed && !this.swapped;
  }

  /** DescribeLogDirs' offset_lag of the future replica: the current log end minus the future's. */
  get offsetLag(): number {
    return Math.max(0, this.log.logEndOffset - this.future.logEndOffset);
  }

  /** Copies until the future has caught up, then swaps; ends when stopped. */
  async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (this.future.config !== this.log.config) this.future.config = this.log.config;
        await this.follow();
        // Caught up, or the last read reached the log end as it was then: the swap copies what
        // came since under the queue (a producer writing all the time never lets the future log
        // be level with it between two reads, least of all when throttled).
        if (this.reachedEnd || this.future.logEndOffset >= this.log.logEndOffset) {
          this.reachedEnd = false;
          await this.host.cleaner()?.cleaningDone(this.log);
          if (await this.swap()) return;
          continue;
        }
        const end = this.log.logEndOffset;
        const bytes = await this.copyOnce(this.moves.chunkBytes());
        this.reachedEnd = this.future.logEndOffset >= end;
        if (bytes === 0) await this.sleep(100);
        else await this.moves.pace(bytes, this, (ms) => this.sleep(ms));
      } catch (err) {
        if (this.stopped) return;
        if (this.source.isOffline || this.dest.isOffline || this.log.isOffline) {
          // The LogManager stops it too (its dir failed); the future log's files stay (Kafka's).
          this.stopped = true;
          this.moves.drop(this);
          if (!this.futureClosed) {
            this.futureClosed = true;
            await this.future.close().catch(() => undefined);
          }
          return;
        }
        this.host.onError(err, `moving ${this.name} to ${this.dest.path}`);
        if (this.futureClosed) {
          // The swap failed after the future was closed: the move is dropped, the current log stays.
          this.stopped = true;
          this.moves.drop(this);
          this.dest.futures.delete(this.name);
          await this.dest.fs.rmdir(this.future.dir).catch(() => undefined);
          return;
        }
        await this.sleep(RETRY_MS);
      }
    }
  }

  /** Takes the current log's log start and truncations into the future log. */
  private async follow(): Promise<void> {
    const { log, future } = this;
    const localStart = log.localLogStartOffset;
    if (future.logEndOffset < localStart) {
      await future.truncateFullyAndStartAt(localStart, log.logStartOffset);
      return;
    }
    if (future.logStartOffset < log.logStartOffset) await future.raiseLogStartOffset(log.logStartOffset);
    // Kafka's truncation by leader epoch: where the future's latest epoch ends in the current log.
    // (An epoch the current log cannot place tells nothing: no cut, so no copy loop either.)
    let cut = Math.min(future.logEndOffset, log.logEndOffset);
    const epoch = future.leaderEpochCache.latestEpoch();
    if (epoch >= 0) {
      const end = log.leaderEpochCache.endOffsetFor(epoch, log.logEndOffset).endOffset;
      if (end >= 0) cut = Math.min(cut, end);
    }
    if (cut < future.logEndOffset) {
      if (cut <= localStart) await future.truncateFullyAndStartAt(localStart, log.logStartOffset);
      else await future.truncateTo(cut);
    }
  }

  /** One read of the current log from the future's log end, appended as a follower; returns the bytes copied. */
  private async copyOnce(maxBytes: number): Promise<number> {
    const from = this.future.logEndOffset;
    const { records } = await this.log.read(from, maxBytes, { minOneMessage: true });
    let bytes = 0;
    for (const chunk of records) {
      const buf = batchesFrom(chunk, from);
      if (buf.length === 0) continue;
      await this.future.appendAsFollower(buf);
      bytes += buf.length;
    }
    return bytes;
  }

  /** The swap (see the header); false when the move was stopped first. */
  private async swap(): Promise<boolean> {
    const { log, future, dest, source } = this;
    const target = path.join(dest.path, this.name);
    const futureDir = future.dir;
    const old = await log.adoptMovedCopy(async () => {
      if (this.stopped) return null;
      await this.follow();
      while (future.logEndOffset < log.logEndOffset) {
        if ((await this.copyOnce(CHUNK_BYTES)) === 0) throw new Error(`nothing read from ${this.name} at ${future.logEndOffset} below its log end ${log.logEndOffset}`);
      }
      this.futureClosed = true;
      await future.close();
      if (future.offlineCause) throw future.offlineCause;
      await carryOtherFiles(source.fs, log.dir, dest.fs, futureDir);
      await dest.fs.rename(futureDir, target);
      await dest.fs.syncDir(dest.path);
      try {
        const checkpoints = new SharedPartitionCheckpoints(dest, this.name, target, { clean: true, recoveryPoint: future.logEndOffset, logStartOffset: log.logStartOffsetToCheckpoint, highWatermark: null });
        const moved = await PartitionLog.open({
          fs: dest.fs, dir: target, topic: log.topic, partition: log.partition, config: log.config, clock: this.host.clock,
          topicId: log.topicId || undefined, checkpoints, dirExists: true,
        });
        this.swapped = true;
        dest.futures.delete(this.name);
        return moved;
      } catch (err) {
        // The current log is untouched: the copy takes its -future name back and is dropped.
        await dest.fs.rename(target, futureDir).catch(() => undefined);
        throw err;
      }
    });
    if (!old) return false;
    const cleanup = this.host.moved(log, source, dest).then(() => this.removeOldCopy(old));
    this.cleanup = cleanup;
    this.moves.cleanups.add(cleanup);
    void cleanup.finally(() => this.moves.cleanups.delete(cleanup));
    return true;
  }

  /** The old directory: renamed `-delete`, closed once unpinned, removed. */
  private async removeOldCopy(old: LocalLog): Promise<void> {
    const { source, log } = this;
    const renamed = path.join(source.path, deleteDirName(log.topic, log.partition, randomUUID().replace(/-/g, '')));
    try {
      old.movedTo(renamed);
      await source.fs.rename(path.join(source.path, this.name), renamed);
      await source.fs.syncDir(source.path);
      await old.close();
      await source.fs.rmdir(renamed);
    } catch (err) {
      this.host.onError(err, `removing the old copy of ${this.name} from ${source.path}`);
    }
  }

  /** Waits `ms` on the Clock (woken early by `stop`). */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        this.sleeping = null;
        resolve();
      };
      this.sleeping = { timer: this.host.clock.setTimeout(wake, ms), wake };
    });
  }

  /**
   * Stops the move (a swap already running finishes first) and closes the future log;
   * `deleteFuture`: its directory is removed too (not when its dir is offline).
   */
  async stop(deleteFuture: boolean): Promise<void> {
    this.stopped = true;
    if (this.sleeping) {
      this.sleeping.timer.cancel();
      this.sleeping.wake();
    }
    await this.done;
    if (this.swapped) return;
    const wasClosed = this.futureClosed;
    this.futureClosed = true;
    if (!deleteFuture || this.dest.isOffline) {
      // Kept: still in the dir's checkpoint files, for a restart to resume.
      if (!wasClosed) await this.future.close().catch(() => undefined);
      return;
    }
    if (this.dest.futures.get(this.name) === this.future) this.dest.futures.delete(this.name);
    if (!wasClosed) await this.future.delete().catch((err) => this.host.onError(err, `deleting the future log of ${this.name}`));
    else await this.dest.fs.rmdir(this.future.dir).catch(() => undefined);
  }
}

/** The names a partition log owns in its directory (the rest belong to others: carryOtherFiles). */
function ownedByLog(name: string): boolean {
  return parseOffsetFileName(name) !== null || name === PARTITION_METADATA_FILE || name === LEADER_EPOCH_CHECKPOINT_FILE
    || OWN_DIR_CHECKPOINT_FILES.includes(name) || /\.(deleted|cleaned|swap|tmp)$/.test(name);
}

/**
 * Files other components keep in the partition directory (the scheduler's
 * samsa-schedule.checkpoint) go with the log: copied into the future directory before it takes
 * the partition's place. Their writers find the directory through the log (`log.dir`).
 */
async function carryOtherFiles(fromFs: Fs, from: string, toFs: Fs, to: string): Promise<void> {
  for (const name of await fromFs.readdir(from)) {
    if (ownedByLog(name) || (await fromFs.stat(path.join(from, name))).isDirectory) continue;
    await toFs.writeFileAtomic(path.join(to, name), await fromFs.readFile(path.join(from, name)));
  }
}

/** Whole batches of `buf` from the one holding `offset` on (a read may start with one below it). */
function batchesFrom(buf: Buffer, offset: number): Buffer {
  let pos = 0;
  while (pos + 61 <= buf.length && batchBaseOffset(buf, pos) + lastOffsetDelta(buf, pos) < offset) pos += batchSize(buf, pos);
  return pos === 0 ? buf : buf.subarray(pos);
}

/** Whether a rate bounds the copies (Kafka's unset quota is Long.MAX_VALUE). */
function throttled(rate: number): boolean {
  return rate > 0 && Number.isFinite(rate) && rate < Number.MAX_SAFE_INTEGER;
}

/** The moves of one LogManager, keyed `<topic>-<partition>`. */
export class LogDirMoves {
  private readonly moves = new Map<string, LogDirMove>();
  /** One start or stop per partition at a time. */
  private readonly chains = new Map<string, Promise<unknown>>();
  private paceStart = 0;
  private paceBytes = 0;
  /** Old copies being removed after their swap. */
  readonly cleanups = new Set<Promise<void>>();

  constructor(readonly host: LogDirMovesHost) {}

  /** The running move of a partition, if any. */
  get(topic: string, partition: number): LogDirMove | undefined {
    return this.moves.get(partitionDirName(topic, partition));
  }

  /** Whether `log` is being moved (the cleaner leaves it alone). */
  isMoving(log: PartitionLog): boolean {
    return this.moves.get(partitionDirName(log.topic, log.partition))?.log === log;
  }

  /** The moves whose future log is in `dir` and still copying (DescribeLogDirs). */
  into(dir: LogDir): LogDirMove[] {
    return [...this.moves.values()].filter((m) => m.dest === dir && m.active);
  }

  all(): LogDirMove[] {
    return [...this.moves.values()];
  }

  private serially<T>(key: string, op: () => Promise<T>): Promise<T> {
    const run = (this.chains.get(key) ?? Promise.resolve()).then(op, op);
    const settled = run.then(() => undefined, () => undefined);
    this.chains.set(key, settled);
    void settled.then(() => {
      if (this.chains.get(key) === settled) this.chains.delete(key);
    });
    return run;
  }

  /**
   * Moves `log` from `source` to `dest` unless it is going there already. A move to another dir
   * is dropped first (its future log deleted); `dest` being the log's own dir only drops it.
   * `future`: a future log found in `dest` at start-up (LogManager.loadAll), resumed from its end.
   */
  start(log: PartitionLog, source: LogDir, dest: LogDir, future?: PartitionLog): Promise<void> {
    const key = partitionDirName(log.topic, log.partition);
    return this.serially(key, async () => {
      const running = this.moves.get(key);
      if (running && running.dest === dest && running.log === log && !running.stopped) return;
      if (running) await this.forget(running, true);
      if (source === dest) return;
      if (!future) {
        const dir = path.join(dest.path, futureDirName(log.topic, log.partition, randomUUID().replace(/-/g, '')));
        const checkpoints = new SharedPartitionCheckpoints(dest, key, dir, { clean: true, recoveryPoint: null, logStartOffset: null, highWatermark: null });
        future = await PartitionLog.open({ fs: dest.fs, dir, topic: log.topic, partition: log.partition, config: log.config, clock: this.host.clock, topicId: log.topicId || undefined, checkpoints });
        await dest.fs.syncDir(dest.path);
      }
      dest.futures.set(key, future);
      const move = new LogDirMove(this, log, source, dest, future);
      this.moves.set(key, move);
      move.done = move.run().finally(() => {
        if (move.swapped && this.moves.get(key) === move) this.moves.delete(key);
      });
    });
  }

  /** Stops a partition's move (if any); `deleteFuture`: its files are removed. */
  stop(topic: string, partition: number, deleteFuture: boolean): Promise<void> {
    const key = partitionDirName(topic, partition);
    return this.serially(key, async () => {
      const move = this.moves.get(key);
      if (move) await this.forget(move, deleteFuture);
    });
  }

  /** Removes `move` from the map (it stopped by itself). */
  drop(move: LogDirMove): void {
    const key = partitionDirName(move.log.topic, move.log.partition);
    if (this.moves.get(key) === move) this.moves.delete(key);
  }

  /** Stops `move` and removes it from the map. */
  async forget(move: LogDirMove, deleteFuture: boolean): Promise<void> {
    this.drop(move);
    await move.stop(deleteFuture);
  }

  /** Stops every move, keeping the future logs on disk (a restart resumes them: LogManager.loadAll). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.moves.values()].map((m) => this.forget(m, false)));
    await Promise.all([...this.chains.values()]);
    await this.idle();
  }

  /** Resolves once the old copies of finished moves are removed (tests, stop). */
  async idle(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.all([...this.cleanups]);
  }

  /** Bytes per read: a tenth of a second's worth when throttled. */
  chunkBytes(): number {
    const rate = this.host.maxBytesPerSecond();
    // A read returns at least one whole batch, whatever the size asked for.
    return throttled(rate) ? Math.max(1, Math.min(CHUNK_BYTES, Math.floor(rate / 10))) : CHUNK_BYTES;
  }

  /**
   * replica.alter.log.dirs.io.max.bytes.per.second over all moves: after `bytes` were copied,
   * waits until the bytes so far fit the rate (in steps of at most 100 ms, so a new rate, or
   * none, applies at once).
   */
  async pace(bytes: number, move: LogDirMove, sleep: (ms: number) => Promise<void>): Promise<void> {
    let rate = this.host.maxBytesPerSecond();
    if (!throttled(rate)) return;
    const now = this.host.clock.now();
    // Idle for more than a second: the count starts again (no burst saved up).
    if (this.paceStart + (this.paceBytes / rate) * 1000 < now - 1000) {
      this.paceStart = now;
      this.paceBytes = 0;
    }
    this.paceBytes += bytes;
    for (;;) {
      rate = this.host.maxBytesPerSecond();
      if (!throttled(rate)) {
        this.paceBytes = 0;
        return;
      }
      const wait = this.paceStart + (this.paceBytes / rate) * 1000 - this.host.clock.now();
      if (wait <= 0 || move.stopped) return;
      await sleep(Math.min(wait, 100));
    }
  }
}
