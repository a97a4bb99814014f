/**
 * All partition logs of this broker (Kafka `LogManager`).
 *
 * Layout: every entry of `log.dirs` (a LogDir, log-dir.ts) holds `<topic>-<partition>/...` (see
 * partition-log.ts) plus, for all partitions stored there, Kafka's
 * `recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
 * `replication-offset-checkpoint`, `cleaner-offset-checkpoint` and `.kafka_cleanshutdown`
 * (log-dir-checkpoints.ts). A partition lives in one dir; a new one goes to the online dir holding
 * the fewest partitions (Kafka's nextLogDirs; ties: the order of log.dirs), the next one tried if
 * its directory cannot be created.
 *
 * Failed dirs (Kafka's LogDirFailureChannel): a dir that cannot be created or read at start-up is
 * offline from the start (the broker starts while one dir works; with none it refuses). At run
 * time the first I/O failure under a dir (log-dir-fs.ts) takes it offline: its logs leave the
 * maps (their partitions are `offline` here, KAFKA_STORAGE_ERROR), their descriptors are closed,
 * nothing more is written there, and the listeners (`onLogDirFailure`) hear which partitions went
 * (the replica manager stops serving them, the broker tells the controller). With every dir
 * offline the listeners hear `allFailed` (Kafka halts the broker).
 *
 * Moves between dirs (AlterReplicaLogDirs): `alterReplicaLogDir` starts one (log-dir-move.ts,
 * Kafka's future log); the moves are this manager's `moves`, which keeps a moving log out of the
 * cleaner's choice and stops moves when their partition is deleted or one of their dirs fails.
 *
 * Start-up: `loadAll()` reads (and removes), per dir, the clean-shutdown marker and the checkpoint files,
 * opens every partition directory `loadConcurrency` at a time (recovering from its recovery point
 * when the stop was not clean), writes the checkpoint files once, and removes
 * `<topic>-<partition>.<uuid>-delete` directories left by topic deletions and moves; a
 * `<topic>-<partition>.<uuid>-future` directory (a move a stop or crash interrupted) is opened and
 * its move resumed (resumeMoves). A log dir of the
 * per-partition layout (before issue 19: the same files in every partition directory) is read
 * from those files and converted: the log dir's files are written, then the old ones removed.
 *
 * Stop (`close`): every log is flushed and closed, then the checkpoint files are written and, if
 * no log of the dir failed, the clean-shutdown marker: one write of each per online log dir.
 *
 * Background tasks run on the injected Clock (so tests drive them with ManualClock):
 * - retention every `log.retention.check.interval.ms` (default 300000): retention.ms,
 *   retention.bytes and log-start-offset breaches, per log;
 * - the flush check every `log.flush.scheduler.interval.ms` (off unless given): logs whose last
 *   flush is older than their flush.ms are fsynced;
 * - the recovery-point checkpoint every `log.flush.offset.checkpoint.interval.ms` (default 60000),
 *   the log-start checkpoint every `log.flush.start.offset.checkpoint.interval.ms` (60000) and the
 *   high-watermark checkpoint every `replica.high.watermark.checkpoint.interval.ms` (5000);
 * - producer expiry every `producer.id.expiration.check.interval.ms` (when given): producers idle
 *   longer than `producer.id.expiration.ms` without an open transaction are forgotten.
 * - the log cleaner every `log.cleaner.backoff.ms` (when `cleaner` is given): compaction.
 * Each task re-arms itself after it finishes, so runs never overlap.
 *
 * Concurrency: the maps of logs (this manager's and each LogDir's) change only from these methods,
 * on the event loop (a move's swap through `movedLog`); every per-log operation goes through the
 * log's own queue.
 */
import * as path from 'node:path';
import type { Clock, Timer } from '../clock.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { nodeFs, type Fs } from './fs.js';
import { StartupFs } from './startup-fs.js';
import { PartitionLog, type LogConfig } from './partition-log.js';
import { LogCleaner, type CleanerConfig } from './log-cleaner.js';
import { isDeleteDirName, parseFutureDirName, parsePartitionDirName, partitionDirName } from './file-names.js';
import { LogDir } from './log-dir.js';
import { LogDirMoves, type LogDirMove } from './log-dir-move.js';

export interface LogManagerOptions {
  fs: Fs;
  /** log.dirs: a list or a comma-separated string. */
  logDirs: string | string[];
  clock: Clock;
  /** Broker-level defaults for topics without their own config. */
  defaults: LogConfig;
  /** Topic config overrides known at start-up (from the metadata store). */
  topicConfig?: (topic: string) => LogConfig | undefined;
  /** Called with errors of background tasks (the affected log is already offline if it was an I/O error). */
  onError?: (err: unknown, task: string) => void;
  /** Partitions opened (and closed) concurrently (Kafka num.recovery.threads.per.data.dir; default 16). */
  loadConcurrency?: number;
  /** The broker epoch recorded in `.kafka_cleanshutdown` (KIP-966); -1 when absent. */
  brokerEpoch?: () => number;
}

export interface BackgroundTaskOptions {
  /** log.retention.check.interval.ms */
  retentionCheckIntervalMs?: number;
  /** log.flush.scheduler.interval.ms; no flush.ms checks when omitted */
  flushIntervalMs?: number;
  /** log.flush.offset.checkpoint.interval.ms */
  recoveryPointCheckpointIntervalMs?: number;
  /** log.flush.start.offset.checkpoint.interval.ms */
  logStartOffsetCheckpointIntervalMs?: number;
  /** replica.high.watermark.checkpoint.interval.ms */
  highWatermarkCheckpointIntervalMs?: number;
  /** producer.id.expiration.check.interval.ms; no producer expiry when omitted */
  producerIdExpirationCheckIntervalMs?: number;
  /** producer.id.expiration.ms (default 86400000) */
  producerIdExpirationMs?: number;
  /** log.cleaner.*: compaction of cleanup.policy=compact logs (log-cleaner.ts); off when omitted */
  cleaner?: Partial<CleanerConfig>;
}

/** A log dir taken offline, as the listeners of LogManager.onLogDirFailure hear it. */
export interface LogDirFailure {
  /** The dir's absolute path. */
  dir: string;
  error: Error;
  /** The partitions that were stored there (now offline on this broker). */
  partitions: { topic: string; partition: number }[];
  /** No dir is left online (Kafka halts the broker). */
  allFailed: boolean;
}

/** One log dir as DescribeLogDirs reports it. */
export interface LogDirDescription {
  dir: string;
  /** Why the dir is offline, or null. */
  error: Error | null;
  /** Its partitions (none when offline). */
  logs: PartitionLog[];
  /** Future logs of replicas being moved here (log-dir-move.ts), with their lag behind the current log. */
  futures: { log: PartitionLog; offsetLag: number }[];
}

function key(topic: string, partition: number): string {
  return partitionDirName(topic, partition);
}

/** The configured dirs, absolute, without blanks; a dir named twice is refused (as Kafka does). */
export function parseLogDirs(logDirs: string | readonly string[]): string[] {
  const dirs = (typeof logDirs === 'string' ? logDirs.split(',') : logDirs).map((d) => d.trim()).filter((d) => d.length > 0).map((d) => path.resolve(d));
  if (dirs.length === 0) throw new Error('log.dirs is empty');
  const seen = new Set<string>();
  for (const d of dirs) {
    if (seen.has(d)) throw new Error(`Duplicate log directory found: ${dirs.join(', ')}`);
    seen.add(d);
  }
  return dirs;
}

export class LogManager {
  /** The first online log dir at start-up (files of the broker's own: the producer id block). */
  readonly logDir: string;
  /** Every configured log dir, in the order of log.dirs. */
  readonly logDirs: readonly LogDir[];
  private readonly fs: Fs;
  private readonly clock: Clock;
  private readonly defaults: LogConfig;
  private readonly topicConfig?: (topic: string) => LogConfig | undefined;
  private readonly onError: (err: unknown, task: string) => void;
  private readonly loadConcurrency: number;
  private readonly brokerEpoch: () => number;
  private readonly logs = new Map<string, PartitionLog>();
  /** The dir of each log in `logs`. */
  private readonly dirOf = new Map<string, LogDir>();
  /** Partitions whose dir went offline (Kafka's HostedPartition.Offline), keyed like `logs`. */
  private readonly offline = new Map<string, LogDir>();
  private readonly failureListeners: ((f: LogDirFailure) => void)[] = [];
  private readonly timers = new Set<Timer>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;
  /** The log cleaner, once startBackgroundTasks was given its settings. */
  cleaner: LogCleaner | null = null;
  /** replica.alter.log.dirs.io.max.bytes.per.second (the broker follows the dynamic config); Infinity: unthrottled. */
  alterLogDirsMaxBytesPerSecond: () => number = () => Infinity;
  /** Replicas being moved between this broker's dirs (AlterReplicaLogDirs, log-dir-move.ts). */
  private readonly moves: LogDirMoves;
  /** `-future` directories found by loadAll (moves a restart resumes). */
  private readonly futureDirsFound: { dir: LogDir; path: string; topic: string; partition: number }[] = [];

  private constructor(opts: LogManagerOptions, dirs: string[]) {
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.defaults = opts.defaults;
    this.topicConfig = opts.topicConfig;
    this.onError = opts.onError ?? (() => undefined);
    this.loadConcurrency = Math.max(1, opts.loadConcurrency ?? 16);
    this.brokerEpoch = opts.brokerEpoch ?? (() => -1);
    this.logDirs = dirs.map((d) => new LogDir(opts.fs, d, (dir, err) => this.handleLogDirFailure(dir, err)));
    this.logDir = dirs[0];
    this.moves = new LogDirMoves({
      clock: opts.clock,
      cleaner: () => this.cleaner,
      maxBytesPerSecond: () => this.alterLogDirsMaxBytesPerSecond(),
      moved: (log, from, to) => this.movedLog(log, from, to),
      onError: this.onError,
    });
  }

  /**
   * Creates the dirs that are missing and checks each is a directory that can be listed (Kafka's
   * createAndValidateLogDirs): one that fails is offline from the start; with none left, refuses.
   */
  static async open(opts: LogManagerOptions): Promise<LogManager> {
    const mgr = new LogManager(opts, parseLogDirs(opts.logDirs));
    for (const dir of mgr.logDirs) {
      try {
        await opts.fs.mkdir(dir.path);
        if (!(await opts.fs.stat(dir.path)).isDirectory) throw Object.assign(new Error(`${dir.path} is not a readable log directory`), { code: 'ENOTDIR' });
        await opts.fs.readdir(dir.path);
      } catch (err) {
        dir.fs.fail(err as Error);
        mgr.onError(err, `log dir ${dir.path}`);
      }
    }
    const online = mgr.logDirs.find((d) => !d.isOffline);
    if (!online) throw new Error(`None of the specified log dirs from ${mgr.logDirs.map((d) => d.path).join(', ')} can be created or validated`);
    (mgr as { logDir: string }).logDir = online.path;
    return mgr;
  }

  /** The dirs that are online now. */
  get onlineLogDirs(): LogDir[] {
    return this.logDirs.filter((d) => !d.isOffline);
  }

  /** Registers a listener for dirs going offline at run time. */
  onLogDirFailure(listener: (f: LogDirFailure) => void): void {
    this.failureListeners.push(listener);
  }

  /** Opens every partition directory under every online log dir; removes `-delete` directories. */
  async loadAll(): Promise<PartitionLog[]> {
    // On the real file system the logs are opened with synchronous metadata calls (startup-fs.ts):
    // nothing is served yet, and a thread-pool round trip per call is most of a start-up's time.
    const loadFs = this.fs === nodeFs ? new StartupFs() : null;
    const loaded: PartitionLog[] = [];
    try {
      for (const dir of this.onlineLogDirs) {
        try {
          await dir.loadState();
          const fs = loadFs ? dir.fs.over(loadFs) : dir.fs;
          loaded.push(...(await this.loadDir(dir, fs, loadFs ? await loadFs.subdirectories(dir.path) : null)));
        } catch (err) {
          // Kafka's loadLogs: an I/O failure of one dir takes it offline, the others load.
          dir.fs.check(err);
          if (!dir.isOffline) throw err;
          this.onError(err, `loading log dir ${dir.path}`);
        }
      }
    } finally {
      loadFs?.end();
    }
    if (this.onlineLogDirs.length === 0) throw new Error(`All log dirs failed while loading: ${this.logDirs.map((d) => d.path).join(', ')}`);
    await this.resumeMoves();
    return loaded.filter((l) => this.logs.get(key(l.topic, l.partition)) === l)
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  private async loadDir(dir: LogDir, fs: Fs, subdirectories: Set<string> | null): Promise<PartitionLog[]> {
    const names = await fs.readdir(dir.path);
    const todo: { topic: string; partition: number; dir: string }[] = [];
    for (const name of names) {
      const full = path.join(dir.path, name);
      if (isDeleteDirName(name)) {
        await dir.fs.rmdir(full);
        continue;
      }
      const future = parseFutureDirName(name);
      if (future) {
        this.futureDirsFound.push({ dir, path: full, ...future });
        continue;
      }
      const parsed = parsePartitionDirName(name);
      if (!parsed) continue;
      if (subdirectories ? !subdirectories.has(name) : !(await fs.stat(full)).isDirectory) continue;
      const k = key(parsed.topic, parsed.partition);
      const other = this.dirOf.get(k);
      if (other && other !== dir) throw new Error(`Duplicate log directories for ${k} are found in both ${other.partitionPath(parsed.topic, parsed.partition)} and ${full}. It is likely because log directory failure happened while broker was replacing current replica with future replica. Recover broker from this failure by manually deleting one of the two directories for this partition. It is recommended to delete the partition in the log directory that is known to have failed recently.`);
      if (this.logs.has(k)) continue;
      todo.push({ ...parsed, dir: full });
    }
    const loaded: PartitionLog[] = [];
    await forEachLimited(todo, this.loadConcurrency, async (t) => {
      const log = await PartitionLog.open({
        fs,
        dir: t.dir,
        topic: t.topic,
        partition: t.partition,
        config: this.topicConfig?.(t.topic) ?? { ...this.defaults },
        clock: this.clock,
        checkpoints: await dir.checkpointsFor(t.topic, t.partition, t.dir),
        dirExists: true,
      });
      loaded.push(log);
    });
    for (const log of loaded) this.register(dir, log);
    dir.loadedAll = true;
    // Recovered logs moved their recovery points, and a log dir of the old layout is converted here.
    await Promise.all([dir.writeCheckpointFiles(this.loadConcurrency), dir.highWatermarks.write()]);
    return loaded;
  }

  /**
   * Moves a stop or a crash interrupted (Kafka's loader loads future logs and the replica manager
   * restarts their copy): each `-future` directory whose partition's log loaded in another dir is
   * opened as the future log (its dir's checkpoint files hold it: recovered from its recovery
   * point after a crash) and the move goes on from its end. One whose partition has no log here,
   * or found while a dir is offline (no future log is made then), is left where it is; one in the
   * partition's own dir, or that cannot be opened, is removed.
   */
  private async resumeMoves(): Promise<void> {
    for (const f of this.futureDirsFound.splice(0)) {
      const k = key(f.topic, f.partition);
      const log = this.logs.get(k);
      const current = this.dirOf.get(k);
      if (!log || !current || f.dir.isOffline || this.logDirs.some((d) => d.isOffline) || this.moves.get(f.topic, f.partition)) {
        this.onError(new Error(`${f.path}: the move of ${k} cannot resume now (its log is not loaded here, a log dir is offline, or another future log was found); left in place`), 'loading log dirs');
        continue;
      }
      try {
        if (current === f.dir) {
          await f.dir.fs.rmdir(f.path);
          continue;
        }
        let future: PartitionLog;
        try {
          future = await PartitionLog.open({
            fs: f.dir.fs, dir: f.path, topic: f.topic, partition: f.partition, config: log.config, clock: this.clock,
            checkpoints: await f.dir.checkpointsFor(f.topic, f.partition, f.path), dirExists: true,
          });
        } catch (err) {
          // Unreadable (not the dir failing): the move starts over.
          if (f.dir.isOffline) throw err;
          this.onError(err, `opening the future log ${f.path}; it is removed and the move starts over`);
          await f.dir.fs.rmdir(f.path);
          await this.moves.start(log, current, f.dir);
          continue;
        }
        await this.moves.start(log, current, f.dir, future);
      } catch (err) {
        this.onError(err, `resuming the move of ${k} to ${f.dir.path}`);
      }
    }
  }

  private register(dir: LogDir, log: PartitionLog): void {
    const k = key(log.topic, log.partition);
    this.preferredLogDirs.delete(k);
    this.logs.set(k, log);
    this.dirOf.set(k, dir);
    dir.logs.set(k, log);
  }

  private unregister(k: string): LogDir | undefined {
    const dir = this.dirOf.get(k);
    this.logs.delete(k);
    this.dirOf.delete(k);
    dir?.logs.delete(k);
    dir?.cleanerOffsets.delete(k);
    return dir;
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(key(topic, partition));
  }

  /** The log dir holding the partition's log (undefined when there is none). */
  logDirOf(topic: string, partition: number): LogDir | undefined {
    return this.dirOf.get(key(topic, partition));
  }

  /** The partition was stored in a dir that is offline now (Kafka: HostedPartition.Offline). */
  isOffline(topic: string, partition: number): boolean {
    return this.offline.has(key(topic, partition));
  }

  /** The partitions stored in offline dirs. */
  offlinePartitions(): { topic: string; partition: number; dir: string }[] {
    return [...this.offline].map(([k, dir]) => ({ ...parsePartitionDirName(k)!, dir: dir.path }));
  }

  allLogs(): PartitionLog[] {
    return [...this.logs.values()];
  }

  /** Every log dir with its partitions and future logs, or the reason it is offline (DescribeLogDirs). */
  describeLogDirs(): LogDirDescription[] {
    return this.logDirs.map((d) => ({
      dir: d.path, error: d.fs.offlineCause, logs: d.isOffline ? [] : [...d.logs.values()],
      futures: d.isOffline ? [] : this.moves.into(d).map((m) => ({ log: m.future, offsetLag: m.offsetLag })),
    }));
  }

  /** The move of a partition's replica to another dir of this broker, while it runs. */
  logDirMove(topic: string, partition: number): LogDirMove | undefined {
    return this.moves.get(topic, partition);
  }

  /**
   * Kafka's nextLogDirs: the online dirs, those holding the fewest partitions first (ties: the
   * order of log.dirs); future logs count, as in Kafka. `extra` counts partitions about to be placed.
   */
  nextLogDirs(extra?: ReadonlyMap<LogDir, number>): LogDir[] {
    const online = this.onlineLogDirs;
    if (online.length <= 1) return online;
    const count = (d: LogDir) => d.logs.size + d.futures.size + (extra?.get(d) ?? 0);
    return online.map((d, i) => ({ d, i, n: count(d) })).sort((a, b) => a.n - b.n || a.i - b.i).map((x) => x.d);
  }

  /** Opens a new partition's log in the first of `dirs` where its directory can be created. */
  private async openNewLog(dirs: LogDir[], topic: string, partition: number, open: (dir: LogDir, partitionDir: string) => Promise<PartitionLog>): Promise<{ dir: LogDir; log: PartitionLog }> {
    let last: unknown = null;
    for (const dir of dirs) {
      if (dir.isOffline) continue;
      try {
        return { dir, log: await open(dir, dir.partitionPath(topic, partition)) };
      } catch (err) {
        // A failure of the dir took it offline (its LogDirFs reported it): try the next one.
        if (!dir.isOffline) throw err;
        last = err;
      }
    }
    throw new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `No log directories available. Tried ${dirs.map((d) => d.path).join(', ')}`, { cause: last });
  }

  /** Dirs named by AlterReplicaLogDirs for partitions not created here yet (Kafka's preferredLogDirs). */
  private readonly preferredLogDirs = new Map<string, LogDir>();

  /** Where a new partition may go: its preferred dir (AlterReplicaLogDirs) alone, else nextLogDirs. */
  private placementFor(topic: string, partition: number, extra?: ReadonlyMap<LogDir, number>): LogDir[] {
    const preferred = this.preferredLogDirs.get(key(topic, partition));
    return preferred ? [preferred] : this.nextLogDirs(extra);
  }

  /**
   * AlterReplicaLogDirs for one partition (Kafka's ReplicaManager.alterReplicaLogDirs), an error
   * code: INVALID_TOPIC_EXCEPTION when the future log's directory name would pass 255 bytes;
   * LOG_DIR_NOT_FOUND for a dir not in log.dirs; KAFKA_STORAGE_ERROR for an offline dir or
   * partition; a partition without a log here is created in that dir when it comes
   * (REPLICA_NOT_AVAILABLE now). A move to another dir running for the partition is dropped (its
   * future log deleted) when another dir is named. NONE when the log lives there (nothing to do),
   * when a move there is running already, and when a move there starts (log-dir-move.ts: the
   * future log is created before the answer); no move starts while any log dir is offline
   * (KAFKA_STORAGE_ERROR, so that no future log is made in two dirs: Kafka's getOrCreateLog).
   */
  async alterReplicaLogDir(topic: string, partition: number, destination: string): Promise<number> {
    const k = key(topic, partition);
    if (Buffer.byteLength(`${k}.${'0'.repeat(32)}-future`) > 255) return ErrorCode.INVALID_TOPIC_EXCEPTION;
    const dir = this.logDirs.find((d) => d.path === destination);
    if (!dir) return ErrorCode.LOG_DIR_NOT_FOUND;
    if (dir.isOffline || this.offline.has(k)) return ErrorCode.KAFKA_STORAGE_ERROR;
    const running = this.moves.get(topic, partition);
    if (running && running.dest !== dir) await this.moves.stop(topic, partition, true);
    else if (running) return ErrorCode.NONE;
    const current = this.dirOf.get(k);
    const log = this.logs.get(k);
    if (!current || !log) {
      this.preferredLogDirs.set(k, dir);
      return ErrorCode.REPLICA_NOT_AVAILABLE;
    }
    if (current === dir) return ErrorCode.NONE;
    if (this.logDirs.some((d) => d.isOffline)) return ErrorCode.KAFKA_STORAGE_ERROR;
    try {
      await this.moves.start(log, current, dir);
    } catch (err) {
      // Its dir failed while the future log was made (the dir is offline now).
      if (dir.isOffline) return ErrorCode.KAFKA_STORAGE_ERROR;
      throw err;
    }
    return ErrorCode.NONE;
  }

  /** A move's swap is done: the partition's log lives in `to` (maps, both dirs' checkpoint files). */
  private async movedLog(log: PartitionLog, from: LogDir, to: LogDir): Promise<void> {
    const k = key(log.topic, log.partition);
    const cleanerOffset = from.cleanerOffsets.get(k);
    this.unregister(k);
    this.register(to, log);
    if (cleanerOffset !== undefined) to.cleanerOffsets.set(k, cleanerOffset);
    await Promise.all([from, to].filter((d) => !d.isOffline).map((d) => Promise.all([
      d.recoveryPoints.write(), d.logStartOffsets.write(), d.highWatermarks.write(), d.cleanerOffsetFile.write(),
    ]))).catch((err) => this.onError(err, `checkpoints after moving ${k} to ${to.path}`));
  }

  private refuseOffline(topic: string, partition: number): void {
    const dir = this.offline.get(key(topic, partition));
    if (dir) throw new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `${key(topic, partition)} is in the offline log directory ${dir.path}`);
  }

  /** Returns the existing log or creates `<topic>-<partition>` (Kafka `getOrCreateLog`). */
  async createLog(topic: string, partition: number, config?: LogConfig, topicId?: string): Promise<PartitionLog> {
    const existing = this.logs.get(key(topic, partition));
    if (existing) return existing;
    this.refuseOffline(topic, partition);
    const { dir, log } = await this.openNewLog(this.placementFor(topic, partition), topic, partition, async (d, partitionDir) => PartitionLog.open({
      fs: d.fs,
      dir: partitionDir,
      topic,
      partition,
      config: config ?? this.topicConfig?.(topic) ?? { ...this.defaults },
      clock: this.clock,
      topicId,
      checkpoints: await d.checkpointsFor(topic, partition, partitionDir),
    }));
    await dir.fs.syncDir(dir.path);
    this.register(dir, log);
    return log;
  }

  /**
   * Creates the missing logs of several partitions of one topic, `loadConcurrency` at a time, with
   * one fsync per log dir for all their new directories (a topic of thousands of partitions
   * otherwise waits for each partition's fsyncs in turn). Each partition goes where nextLogDirs
   * says, counting those placed before it. `leaderEpochOf` gives the epoch of the partitions this
   * broker will lead: checkpointed with each log's partition.metadata.
   */
  async createLogs(topic: string, partitions: readonly number[], config: LogConfig, topicId: string, leaderEpochOf?: (partition: number) => number | undefined): Promise<void> {
    const missing = partitions.filter((p) => !this.logs.has(key(topic, p)) && !this.offline.has(key(topic, p)));
    const placed = new Map<LogDir, number>();
    const plan = missing.map((partition) => {
      const dirs = this.placementFor(topic, partition, placed);
      if (dirs[0]) placed.set(dirs[0], (placed.get(dirs[0]) ?? 0) + 1);
      return { partition, dirs };
    });
    const created: { dir: LogDir; log: PartitionLog }[] = [];
    try {
      await forEachLimited(plan, this.loadConcurrency, async ({ partition, dirs }) => {
        created.push(await this.openNewLog(dirs, topic, partition, async (d, partitionDir) => {
          const checkpoints = await d.checkpointsFor(topic, partition, partitionDir);
          return PartitionLog.open({ fs: d.fs, dir: partitionDir, topic, partition, config, clock: this.clock, topicId, checkpoints, initialLeaderEpoch: leaderEpochOf?.(partition) });
        }));
      });
      await Promise.all([...new Set(created.map((c) => c.dir))].map((d) => d.fs.syncDir(d.path)));
    } finally {
      // Even after a failure the logs that did open are this manager's to close.
      for (const c of created) this.register(c.dir, c.log);
    }
  }

  /** Deletes one partition's log (this broker is no longer a replica, or it belonged to an older topic id). */
  async deleteLog(topic: string, partition: number): Promise<boolean> {
    const k = key(topic, partition);
    await this.moves.stop(topic, partition, true);
    if (this.offline.delete(k)) return true;
    const log = this.logs.get(k);
    if (!log) return false;
    this.unregister(k);
    await log.delete();
    return true;
  }

  /** Deletes every partition log of `topic`; returns how many were deleted. */
  async deleteTopic(topic: string): Promise<number> {
    await Promise.all(this.moves.all().filter((m) => m.log.topic === topic).map((m) => this.moves.stop(topic, m.log.partition, true)));
    for (const k of [...this.offline.keys()]) if (parsePartitionDirName(k)?.topic === topic) this.offline.delete(k);
    const victims = [...this.logs.values()].filter((l) => l.topic === topic);
    for (const log of victims) this.unregister(key(log.topic, log.partition));
    await Promise.all(victims.map((l) => l.delete()));
    return victims.length;
  }

  /**
   * A dir failed (its LogDirFs saw an I/O error, or a checkpoint of it failed): Kafka's
   * LogManager.handleLogDirFailure. Its logs leave the maps at once (so nothing is served from
   * them and no task touches them), their files are closed, and the listeners are told.
   */
  private handleLogDirFailure(dir: LogDir, err: Error): void {
    // Kafka: the moves into the dir stop (their future logs stay there); those out of it stop
    // with their partition, which goes offline below.
    for (const m of this.moves.all()) {
      if (m.dest === dir || m.source === dir) void this.moves.stop(m.log.topic, m.log.partition, false).catch(() => undefined);
    }
    const partitions: { topic: string; partition: number }[] = [];
    for (const [k, log] of [...dir.logs]) {
      this.unregister(k);
      this.offline.set(k, dir);
      partitions.push({ topic: log.topic, partition: log.partition });
      // The dir refuses every call but close: this only lets go of the descriptors.
      void log.close().catch(() => undefined);
    }
    const allFailed = this.onlineLogDirs.length === 0;
    this.onError(err, `log dir ${dir.path} is offline (${partitions.length} partitions)${allFailed ? '; no log dir is left online' : ''}`);
    for (const l of this.failureListeners) l({ dir: dir.path, error: err, partitions, allFailed });
  }

  /** Starts the retention, flush and checkpoint tasks on the Clock. */
  startBackgroundTasks(opts: BackgroundTaskOptions = {}): void {
    this.schedule('retention', opts.retentionCheckIntervalMs ?? 300000, () => this.enforceRetentionAll());
    if (opts.flushIntervalMs !== undefined) this.schedule('flush', opts.flushIntervalMs, () => this.flushDirtyLogs());
    this.schedule('recovery-point-checkpoint', opts.recoveryPointCheckpointIntervalMs ?? 60000, () => this.checkpointRecoveryPoints());
    this.schedule('log-start-offset-checkpoint', opts.logStartOffsetCheckpointIntervalMs ?? 60000, () => this.eachOnlineDir((d) => d.logStartOffsets.write()));
    this.schedule('high-watermark-checkpoint', opts.highWatermarkCheckpointIntervalMs ?? 5000, () => this.checkpointHighWatermarks());
    if (opts.producerIdExpirationCheckIntervalMs !== undefined) {
      const expirationMs = opts.producerIdExpirationMs ?? 86400000;
      this.schedule('producer-expiry', opts.producerIdExpirationCheckIntervalMs, () => this.removeExpiredProducersAll(expirationMs));
    }
    if (opts.cleaner && !this.cleaner) {
      // Not the logs being moved (Kafka pauses their cleaning): log-dir-move.ts.
      this.cleaner = new LogCleaner({ fs: this.fs, clock: this.clock, logs: () => this.allLogs().filter((l) => !this.moves.isMoving(l)), config: opts.cleaner, onError: this.onError, offsets: this.cleanerCheckpoints });
      this.cleaner.start();
    }
  }

  /** The log cleaner's first dirty offsets, in the `cleaner-offset-checkpoint` of each log's dir. */
  private readonly cleanerCheckpoints = {
    read: async (log: PartitionLog): Promise<number | null> => this.dirOf.get(key(log.topic, log.partition))?.cleanerOffsets.get(key(log.topic, log.partition)) ?? null,
    write: async (log: PartitionLog, offset: number): Promise<void> => {
      const dir = this.dirOf.get(key(log.topic, log.partition));
      if (!dir) return;
      dir.cleanerOffsets.set(key(log.topic, log.partition), offset);
      await dir.cleanerOffsetFile.write();
    },
  };

  /** Runs `fn` for every online dir; a dir's failure is its own (it goes offline), the others go on. */
  private async eachOnlineDir(fn: (dir: LogDir) => Promise<void>): Promise<void> {
    const results = await Promise.allSettled(this.onlineLogDirs.map(fn));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** One producer-expiry pass over every log; returns producers removed. */
  async removeExpiredProducersAll(expirationMs: number): Promise<number> {
    let removed = 0;
    const now = this.clock.now();
    for (const log of this.allLogs()) {
      if (log.isOffline) continue;
      try {
        removed += await log.removeExpiredProducers(now, expirationMs);
      } catch (err) {
        this.onError(err, `producer expiry ${log.topic}-${log.partition}`);
      }
    }
    return removed;
  }

  private schedule(task: string, intervalMs: number, fn: () => Promise<unknown>): void {
    const arm = (): void => {
      if (this.stopped) return;
      const timer = this.clock.setTimeout(() => {
        this.timers.delete(timer);
        const p = fn()
          .catch((err) => this.onError(err, task))
          .finally(() => {
            this.running.delete(p);
            arm();
          });
        this.running.add(p);
      }, intervalMs);
      this.timers.add(timer);
    };
    arm();
  }

  /** Resolves when the background tasks that are running now have finished (tests). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** One retention pass over every log; returns segments deleted. */
  async enforceRetentionAll(): Promise<number> {
    let deleted = 0;
    const now = this.clock.now();
    for (const log of this.allLogs()) {
      if (log.isOffline) continue;
      try {
        deleted += await log.enforceRetention(now);
      } catch (err) {
        this.onError(err, `retention ${log.topic}-${log.partition}`);
      }
    }
    return deleted;
  }

  /** flush.ms: fsyncs logs whose last flush is older than their flush.ms. */
  async flushDirtyLogs(): Promise<void> {
    const now = this.clock.now();
    for (const log of this.allLogs()) {
      if (log.isOffline || log.unflushedMessages === 0) continue;
      if (now - log.lastFlushTimeMs >= log.config.flushMs) {
        try {
          await log.flush();
        } catch (err) {
          this.onError(err, `flush ${log.topic}-${log.partition}`);
        }
      }
    }
  }

  /** The replica manager wrote the high watermarks at its shutdown: later values are not the last ones served. */
  private highWatermarksFinal = false;

  /**
   * Writes `replication-offset-checkpoint` of every online dir with its logs' high watermarks
   * (Kafka's ReplicaManager.checkpointHighWatermarks). `final`: the replica manager's shutdown,
   * after which partitions stop leading and their high watermarks no longer mean anything;
   * nothing more is written.
   */
  async checkpointHighWatermarks(final = false): Promise<void> {
    if (this.highWatermarksFinal) return;
    if (final) this.highWatermarksFinal = true;
    await this.eachOnlineDir((d) => d.highWatermarks.write());
  }

  /** Writes `recovery-point-offset-checkpoint` of every online dir (Kafka checkpointLogRecoveryOffsets). */
  checkpointRecoveryPoints(): Promise<void> {
    return this.eachOnlineDir((d) => d.recoveryPoints.write());
  }

  /** Writes `log-start-offset-checkpoint` of every online dir. */
  checkpointLogStartOffsets(): Promise<void> {
    return this.eachOnlineDir((d) => d.logStartOffsets.write());
  }

  async flushAll(): Promise<void> {
    await Promise.all(this.allLogs().map((l) => l.flush()));
  }

  /**
   * Stops the tasks, flushes and closes every log, then writes, per online dir, the checkpoint
   * files and (when every partition directory of it was loaded and none of its logs failed)
   * `.kafka_cleanshutdown`, as Kafka's LogManager.shutdown does per log dir.
   */
  async close(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    await this.cleaner?.stop();
    // Stopped moves keep their future logs: the next start resumes them (resumeMoves).
    await this.moves.stopAll();
    await this.idle();
    const failedDirs = new Set<LogDir>();
    await forEachLimited(this.allLogs(), this.loadConcurrency, async (l) => {
      const dir = this.dirOf.get(key(l.topic, l.partition));
      await l.close().catch((err) => {
        if (dir) failedDirs.add(dir);
        this.onError(err, `close ${l.topic}-${l.partition}`);
      });
      if (l.isOffline && dir) failedDirs.add(dir);
    });
    // The closed logs stay in the maps until their offsets are written.
    try {
      await Promise.allSettled(this.onlineLogDirs.filter((d) => d.stateRead).map(async (d) => {
        try {
          await Promise.all([d.writeCheckpointFiles(this.loadConcurrency), this.highWatermarksFinal ? undefined : d.highWatermarks.write()]);
          if (d.loadedAll && !failedDirs.has(d)) await d.files.writeCleanShutdown(this.brokerEpoch());
        } catch (err) {
          this.onError(err, `checkpoints of ${d.path}`);
        }
      }));
    } finally {
      for (const k of [...this.logs.keys()]) this.unregister(k);
    }
  }
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function forEachLimited<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
