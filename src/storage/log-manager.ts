/**
 * All partition logs of this broker (Kafka `LogManager`).
 *
 * Layout: `<log.dir>/<topic>-<partition>/...` (see partition-log.ts) plus, for all partitions of
 * the log dir, Kafka's `recovery-point-offset-checkpoint`, `log-start-offset-checkpoint`,
 * `replication-offset-checkpoint`, `cleaner-offset-checkpoint` and `.kafka_cleanshutdown`
 * (log-dir-checkpoints.ts). `log.dirs` may list several comma-separated directories; Samsa uses
 * the first one only (JBOD placement is a documented gap).
 *
 * Start-up: `loadAll()` reads (and removes) the clean-shutdown marker and the checkpoint files,
 * opens every partition directory `loadConcurrency` at a time (recovering from its recovery point
 * when the stop was not clean), writes the checkpoint files once, and removes
 * `<topic>-<partition>.<uuid>-delete` directories left by topic deletions. A log dir of the
 * per-partition layout (before issue 19: the same files in every partition directory) is read
 * from those files and converted: the log dir's files are written, then the old ones removed.
 *
 * Stop (`close`): every log is flushed and closed, then the checkpoint files are written and, if
 * no log failed, the clean-shutdown marker: one write of each per log dir.
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
 * Concurrency: the map of logs is only changed from these methods; every per-log operation goes
 * through the log's own queue.
 */
import * as path from 'node:path';
import type { Clock, Timer } from '../clock.js';
import { nodeFs, type Fs } from './fs.js';
import { StartupFs } from './startup-fs.js';
import { PartitionLog, type LogConfig } from './partition-log.js';
import { LogCleaner, type CleanerConfig } from './log-cleaner.js';
import { isDeleteDirName, parsePartitionDirName, partitionDirName } from './file-names.js';
import { LogDirCheckpoints, OffsetCheckpointWriter, SharedPartitionCheckpoints, type LogDirState, type SharedCheckpointOwner } from './log-dir-checkpoints.js';
import { readOwnDirCheckpoints, type CheckpointedState } from './partition-files.js';

export interface LogManagerOptions {
  fs: Fs;
  /** log.dirs: a list or a comma-separated string; the first directory is used. */
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

function key(topic: string, partition: number): string {
  return partitionDirName(topic, partition);
}

export class LogManager implements SharedCheckpointOwner {
  readonly logDir: string;
  private readonly fs: Fs;
  private readonly clock: Clock;
  private readonly defaults: LogConfig;
  private readonly topicConfig?: (topic: string) => LogConfig | undefined;
  private readonly onError: (err: unknown, task: string) => void;
  private readonly loadConcurrency: number;
  private readonly brokerEpoch: () => number;
  private readonly logs = new Map<string, PartitionLog>();
  private readonly files: LogDirCheckpoints;
  /** What the log dir's files said at start-up (read on first need). */
  private dirState: Promise<LogDirState> | null = null;
  /** Every partition directory was loaded (so a clean-shutdown marker speaks for all of them). */
  private loadedAll = false;
  readonly recoveryPoints: OffsetCheckpointWriter<PartitionLog>;
  readonly logStartOffsets: OffsetCheckpointWriter<PartitionLog>;
  private readonly highWatermarks: OffsetCheckpointWriter<PartitionLog>;
  /** The replica manager wrote the high watermarks at its shutdown: later values are not the last ones served. */
  private highWatermarksFinal = false;
  private readonly cleanerOffsetFile: OffsetCheckpointWriter<PartitionLog>;
  /** First dirty offsets of the cleaned logs, keyed like `logs`. */
  private readonly cleanerOffsets = new Map<string, number>();
  readonly leftovers: string[] = [];
  private readonly timers = new Set<Timer>();
  private readonly running = new Set<Promise<unknown>>();
  private stopped = false;
  /** The log cleaner, once startBackgroundTasks was given its settings. */
  cleaner: LogCleaner | null = null;

  private constructor(opts: LogManagerOptions, logDir: string) {
    this.fs = opts.fs;
    this.clock = opts.clock;
    this.defaults = opts.defaults;
    this.topicConfig = opts.topicConfig;
    this.onError = opts.onError ?? (() => undefined);
    this.loadConcurrency = Math.max(1, opts.loadConcurrency ?? 16);
    this.brokerEpoch = opts.brokerEpoch ?? (() => -1);
    this.logDir = logDir;
    this.files = new LogDirCheckpoints(opts.fs, logDir);
    const all = () => this.logs.values();
    this.recoveryPoints = new OffsetCheckpointWriter(opts.fs, this.files.recoveryPointFile, all, (l) => l.recoveryPoint);
    // Kafka keeps only log starts other than the first segment's base offset (the rest follow from
    // the segments): above it after DeleteRecords, below it for a tiered log.
    this.logStartOffsets = new OffsetCheckpointWriter(opts.fs, this.files.logStartOffsetFile, all, (l) => {
      const start = l.logStartOffsetToCheckpoint;
      return start !== (l.segmentBaseOffsets[0] ?? 0) ? start : null;
    });
    this.highWatermarks = new OffsetCheckpointWriter(opts.fs, this.files.replicationOffsetFile, all, (l) => l.highWatermark);
    this.cleanerOffsetFile = new OffsetCheckpointWriter(opts.fs, this.files.cleanerOffsetFile, all, (l) => this.cleanerOffsets.get(key(l.topic, l.partition)) ?? null);
  }

  isRegistered(k: string): boolean {
    return this.logs.has(k);
  }

  private loadDirState(): Promise<LogDirState> {
    this.dirState ??= this.files.load();
    return this.dirState;
  }

  /**
   * The checkpoints of one partition at start-up: the log dir's files, or (a log dir of the
   * per-partition layout) the partition directory's own files, whose cleaner offset is taken over.
   */
  private async checkpointsFor(topic: string, partition: number, dir: string): Promise<SharedPartitionCheckpoints> {
    const state = await this.loadDirState();
    const k = key(topic, partition);
    let cp: CheckpointedState;
    if (state.recoveryPoints !== null) {
      cp = { clean: state.clean, recoveryPoint: state.recoveryPoints.get(k) ?? null, logStartOffset: state.logStartOffsets.get(k) ?? null };
      const cleaner = state.cleanerOffsets.get(k);
      if (cleaner !== undefined) this.cleanerOffsets.set(k, cleaner);
    } else {
      const own = await readOwnDirCheckpoints(this.fs, dir, topic, partition);
      cp = { clean: own.clean, recoveryPoint: own.recoveryPoint, logStartOffset: own.logStartOffset };
      if (own.cleanerOffset !== null) this.cleanerOffsets.set(k, own.cleanerOffset);
    }
    return new SharedPartitionCheckpoints(this, k, dir, cp);
  }

  /** Writes every checkpoint file of the log dir (start-up, stop; the periodic tasks write one each). */
  private async writeCheckpointFiles(): Promise<void> {
    await Promise.all([this.recoveryPoints.write(), this.logStartOffsets.write(), this.checkpointHighWatermarks(), this.cleanerOffsetFile.write()]);
    // Once these are on disk the per-partition files of the old layout mean nothing: remove them.
    const old = this.leftovers.splice(0);
    await forEachLimited(old, this.loadConcurrency, (f) => this.fs.unlink(f).catch(() => undefined));
  }

  /** The log cleaner's first dirty offsets, in the log dir's `cleaner-offset-checkpoint`. */
  private readonly cleanerCheckpoints = {
    read: async (log: PartitionLog): Promise<number | null> => this.cleanerOffsets.get(key(log.topic, log.partition)) ?? null,
    write: async (log: PartitionLog, offset: number): Promise<void> => {
      this.cleanerOffsets.set(key(log.topic, log.partition), offset);
      await this.cleanerOffsetFile.write();
    },
  };

  static async open(opts: LogManagerOptions): Promise<LogManager> {
    const dirs = (Array.isArray(opts.logDirs) ? opts.logDirs : opts.logDirs.split(','))
      .map((d) => d.trim())
      .filter((d) => d.length > 0);
    if (dirs.length === 0) throw new Error('log.dirs is empty');
    const mgr = new LogManager(opts, path.resolve(dirs[0]));
    await opts.fs.mkdir(mgr.logDir);
    return mgr;
  }

  /** Opens every partition directory under the log dir; removes `-delete` directories. */
  async loadAll(): Promise<PartitionLog[]> {
    await this.loadDirState();
    // On the real file system the logs are opened with synchronous metadata calls (startup-fs.ts):
    // nothing is served yet, and a thread-pool round trip per call is most of a start-up's time.
    const loadFs = this.fs === nodeFs ? new StartupFs() : null;
    try {
      return await this.loadAllWith(loadFs ?? this.fs, loadFs ? await loadFs.subdirectories(this.logDir) : null);
    } finally {
      loadFs?.end();
    }
  }

  private async loadAllWith(fs: Fs, subdirectories: Set<string> | null): Promise<PartitionLog[]> {
    const names = await fs.readdir(this.logDir);
    const todo: { topic: string; partition: number; dir: string }[] = [];
    for (const name of names) {
      const full = path.join(this.logDir, name);
      if (isDeleteDirName(name)) {
        await this.fs.rmdir(full);
        continue;
      }
      const parsed = parsePartitionDirName(name);
      if (!parsed) continue;
      if (subdirectories ? !subdirectories.has(name) : !(await fs.stat(full)).isDirectory) continue;
      if (this.logs.has(key(parsed.topic, parsed.partition))) continue;
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
        checkpoints: await this.checkpointsFor(t.topic, t.partition, t.dir),
        dirExists: true,
      });
      loaded.push(log);
    });
    for (const log of loaded) this.logs.set(key(log.topic, log.partition), log);
    this.loadedAll = true;
    // Recovered logs moved their recovery points, and a log dir of the old layout is converted here.
    await this.writeCheckpointFiles();
    return loaded.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  getLog(topic: string, partition: number): PartitionLog | undefined {
    return this.logs.get(key(topic, partition));
  }

  allLogs(): PartitionLog[] {
    return [...this.logs.values()];
  }

  /** Returns the existing log or creates `<topic>-<partition>` (Kafka `getOrCreateLog`). */
  async createLog(topic: string, partition: number, config?: LogConfig, topicId?: string): Promise<PartitionLog> {
    const existing = this.logs.get(key(topic, partition));
    if (existing) return existing;
    const dir = path.join(this.logDir, partitionDirName(topic, partition));
    const log = await PartitionLog.open({
      fs: this.fs,
      dir,
      topic,
      partition,
      config: config ?? this.topicConfig?.(topic) ?? { ...this.defaults },
      clock: this.clock,
      topicId,
      checkpoints: await this.checkpointsFor(topic, partition, dir),
    });
    await this.fs.syncDir(this.logDir);
    this.logs.set(key(topic, partition), log);
    return log;
  }

  /**
   * Creates the missing logs of several partitions of one topic, `loadConcurrency` at a time, with
   * one fsync of the log dir for all their new directories (a topic of thousands of partitions
   * otherwise waits for each partition's fsyncs in turn). `leaderEpochOf` gives the epoch of the
   * partitions this broker will lead: checkpointed with each log's partition.metadata.
   */
  async createLogs(topic: string, partitions: readonly number[], config: LogConfig, topicId: string, leaderEpochOf?: (partition: number) => number | undefined): Promise<void> {
    const missing = partitions.filter((p) => !this.logs.has(key(topic, p)));
    const created: PartitionLog[] = [];
    try {
      await forEachLimited(missing, this.loadConcurrency, async (partition) => {
        const dir = path.join(this.logDir, partitionDirName(topic, partition));
        const checkpoints = await this.checkpointsFor(topic, partition, dir);
        created.push(await PartitionLog.open({ fs: this.fs, dir, topic, partition, config, clock: this.clock, topicId, checkpoints, initialLeaderEpoch: leaderEpochOf?.(partition) }));
      });
      if (created.length > 0) await this.fs.syncDir(this.logDir);
    } finally {
      // Even after a failure the logs that did open are this manager's to close.
      for (const log of created) this.logs.set(key(log.topic, log.partition), log);
    }
  }

  /** Deletes one partition's log (this broker is no longer a replica, or it belonged to an older topic id). */
  async deleteLog(topic: string, partition: number): Promise<boolean> {
    const log = this.logs.get(key(topic, partition));
    if (!log) return false;
    this.logs.delete(key(topic, partition));
    this.cleanerOffsets.delete(key(topic, partition));
    await log.delete();
    return true;
  }

  /** Deletes every partition log of `topic`; returns how many were deleted. */
  async deleteTopic(topic: string): Promise<number> {
    const victims = [...this.logs.values()].filter((l) => l.topic === topic);
    for (const log of victims) {
      this.logs.delete(key(log.topic, log.partition));
      this.cleanerOffsets.delete(key(log.topic, log.partition));
    }
    await Promise.all(victims.map((l) => l.delete()));
    return victims.length;
  }

  /** Starts the retention, flush and checkpoint tasks on the Clock. */
  startBackgroundTasks(opts: BackgroundTaskOptions = {}): void {
    this.schedule('retention', opts.retentionCheckIntervalMs ?? 300000, () => this.enforceRetentionAll());
    if (opts.flushIntervalMs !== undefined) this.schedule('flush', opts.flushIntervalMs, () => this.flushDirtyLogs());
    this.schedule('recovery-point-checkpoint', opts.recoveryPointCheckpointIntervalMs ?? 60000, () => this.checkpointRecoveryPoints());
    this.schedule('log-start-offset-checkpoint', opts.logStartOffsetCheckpointIntervalMs ?? 60000, () => this.logStartOffsets.write());
    this.schedule('high-watermark-checkpoint', opts.highWatermarkCheckpointIntervalMs ?? 5000, () => this.checkpointHighWatermarks());
    if (opts.producerIdExpirationCheckIntervalMs !== undefined) {
      const expirationMs = opts.producerIdExpirationMs ?? 86400000;
      this.schedule('producer-expiry', opts.producerIdExpirationCheckIntervalMs, () => this.removeExpiredProducersAll(expirationMs));
    }
    if (opts.cleaner && !this.cleaner) {
      this.cleaner = new LogCleaner({ fs: this.fs, clock: this.clock, logs: () => this.allLogs(), config: opts.cleaner, onError: this.onError, offsets: this.cleanerCheckpoints });
      this.cleaner.start();
    }
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

  /**
   * Writes `replication-offset-checkpoint` with every log's high watermark (Kafka's
   * ReplicaManager.checkpointHighWatermarks). `final`: the replica manager's shutdown, after which
   * partitions stop leading and their high watermarks no longer mean anything; nothing more is written.
   */
  async checkpointHighWatermarks(final = false): Promise<void> {
    if (this.highWatermarksFinal) return;
    if (final) this.highWatermarksFinal = true;
    await this.highWatermarks.write();
  }

  /** Writes `recovery-point-offset-checkpoint` with every log's recovery point (Kafka checkpointLogRecoveryOffsets). */
  checkpointRecoveryPoints(): Promise<void> {
    return this.recoveryPoints.write();
  }

  async flushAll(): Promise<void> {
    await Promise.all(this.allLogs().map((l) => l.flush()));
  }

  /**
   * Stops the tasks, flushes and closes every log, then writes the checkpoint files and (when every
   * partition directory was loaded and no log failed) `.kafka_cleanshutdown`, as Kafka's
   * LogManager.shutdown does per log dir.
   */
  async close(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    await this.cleaner?.stop();
    await this.idle();
    const logs = this.allLogs();
    let failed = false;
    await forEachLimited(logs, this.loadConcurrency, async (l) => {
      await l.close().catch((err) => {
        failed = true;
        this.onError(err, `close ${l.topic}-${l.partition}`);
      });
      if (l.isOffline) failed = true;
    });
    if (this.dirState === null) {
      this.logs.clear();
      return;
    }
    // The closed logs stay in the map until their offsets are written.
    try {
      await this.writeCheckpointFiles();
      if (this.loadedAll && !failed) await this.files.writeCleanShutdown(this.brokerEpoch());
    } finally {
      this.logs.clear();
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
