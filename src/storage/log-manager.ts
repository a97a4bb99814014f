/**
 * All partition logs of this broker (Kafka `LogManager`).
 *
 * Layout: `<log.dir>/<topic>-<partition>/...` (see partition-log.ts). `log.dirs` may list several
 * comma-separated directories; Samsa uses the first one only (JBOD placement is a documented gap).
 *
 * Start-up: `loadAll()` opens every partition directory (recovering those not shut down cleanly)
 * and removes `<topic>-<partition>.<uuid>-delete` directories left by topic deletions.
 *
 * Background tasks run on the injected Clock (so tests drive them with ManualClock):
 * - retention every `log.retention.check.interval.ms` (default 300000): retention.ms,
 *   retention.bytes and log-start-offset breaches, per log;
 * - the flush check every `log.flush.scheduler.interval.ms` (off unless given): logs whose last
 *   flush is older than their flush.ms are fsynced;
 * - recovery-point checkpoints every `log.flush.offset.checkpoint.interval.ms` (default 60000);
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
import type { Fs } from './fs.js';
import { PartitionLog, type LogConfig } from './partition-log.js';
import { LogCleaner, type CleanerConfig } from './log-cleaner.js';
import { isDeleteDirName, parsePartitionDirName, partitionDirName } from './file-names.js';

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
  /** Partitions opened concurrently by loadAll (Kafka num.recovery.threads.per.data.dir; default 4). */
  loadConcurrency?: number;
}

export interface BackgroundTaskOptions {
  /** log.retention.check.interval.ms */
  retentionCheckIntervalMs?: number;
  /** log.flush.scheduler.interval.ms; no flush.ms checks when omitted */
  flushIntervalMs?: number;
  /** log.flush.offset.checkpoint.interval.ms */
  recoveryPointCheckpointIntervalMs?: number;
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

export class LogManager {
  readonly logDir: string;
  private readonly fs: Fs;
  private readonly clock: Clock;
  private readonly defaults: LogConfig;
  private readonly topicConfig?: (topic: string) => LogConfig | undefined;
  private readonly onError: (err: unknown, task: string) => void;
  private readonly loadConcurrency: number;
  private readonly logs = new Map<string, PartitionLog>();
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
    this.loadConcurrency = Math.max(1, opts.loadConcurrency ?? 4);
    this.logDir = logDir;
  }

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
    const names = await this.fs.readdir(this.logDir);
    const todo: { topic: string; partition: number; dir: string }[] = [];
    for (const name of names) {
      const full = path.join(this.logDir, name);
      if (isDeleteDirName(name)) {
        await this.fs.rmdir(full);
        continue;
      }
      const parsed = parsePartitionDirName(name);
      if (!parsed) continue;
      if (!(await this.fs.stat(full)).isDirectory) continue;
      if (this.logs.has(key(parsed.topic, parsed.partition))) continue;
      todo.push({ ...parsed, dir: full });
    }
    const loaded: PartitionLog[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        const t = todo[next++];
        const log = await PartitionLog.open({
          fs: this.fs,
          dir: t.dir,
          topic: t.topic,
          partition: t.partition,
          config: this.topicConfig?.(t.topic) ?? { ...this.defaults },
          clock: this.clock,
        });
        this.logs.set(key(t.topic, t.partition), log);
        loaded.push(log);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.loadConcurrency, todo.length) }, worker));
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
    const log = await PartitionLog.open({
      fs: this.fs,
      dir: path.join(this.logDir, partitionDirName(topic, partition)),
      topic,
      partition,
      config: config ?? this.topicConfig?.(topic) ?? { ...this.defaults },
      clock: this.clock,
      topicId,
    });
    await this.fs.syncDir(this.logDir);
    this.logs.set(key(topic, partition), log);
    return log;
  }

  /** Deletes one partition's log (this broker is no longer a replica, or it belonged to an older topic id). */
  async deleteLog(topic: string, partition: number): Promise<boolean> {
    const log = this.logs.get(key(topic, partition));
    if (!log) return false;
    this.logs.delete(key(topic, partition));
    await log.delete();
    return true;
  }

  /** Deletes every partition log of `topic`; returns how many were deleted. */
  async deleteTopic(topic: string): Promise<number> {
    const victims = [...this.logs.values()].filter((l) => l.topic === topic);
    for (const log of victims) this.logs.delete(key(log.topic, log.partition));
    await Promise.all(victims.map((l) => l.delete()));
    return victims.length;
  }

  /** Starts the retention, flush and checkpoint tasks on the Clock. */
  startBackgroundTasks(opts: BackgroundTaskOptions = {}): void {
    this.schedule('retention', opts.retentionCheckIntervalMs ?? 300000, () => this.enforceRetentionAll());
    if (opts.flushIntervalMs !== undefined) this.schedule('flush', opts.flushIntervalMs, () => this.flushDirtyLogs());
    this.schedule('recovery-point-checkpoint', opts.recoveryPointCheckpointIntervalMs ?? 60000, () => this.checkpointRecoveryPoints());
    if (opts.producerIdExpirationCheckIntervalMs !== undefined) {
      const expirationMs = opts.producerIdExpirationMs ?? 86400000;
      this.schedule('producer-expiry', opts.producerIdExpirationCheckIntervalMs, () => this.removeExpiredProducersAll(expirationMs));
    }
    if (opts.cleaner && !this.cleaner) {
      this.cleaner = new LogCleaner({ fs: this.fs, clock: this.clock, logs: () => this.allLogs(), config: opts.cleaner, onError: this.onError });
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

  async checkpointRecoveryPoints(): Promise<void> {
    for (const log of this.allLogs()) {
      try {
        await log.checkpointRecoveryPoint();
      } catch (err) {
        this.onError(err, `checkpoint ${log.topic}-${log.partition}`);
      }
    }
  }

  async flushAll(): Promise<void> {
    await Promise.all(this.allLogs().map((l) => l.flush()));
  }

  /** Stops the tasks, then flushes and closes every log (writing clean-shutdown markers). */
  async close(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
    await this.cleaner?.stop();
    await this.idle();
    const logs = this.allLogs();
    this.logs.clear();
    await Promise.all(logs.map((l) => l.close()));
  }
}
