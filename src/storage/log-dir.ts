/**
 * One entry of `log.dirs` (Kafka keeps the same per dir in its LogManager's maps): the partitions
 * stored there, the dir's checkpoint files (log-dir-checkpoints.ts) and their writers, the log
 * cleaner's offsets of its partitions, and whether the dir is online.
 *
 * The logs of the dir do all their I/O through `fs`, a LogDirFs: the first failure of the disk or
 * the directory (a read, write, flush, roll or checkpoint) takes the whole dir offline, as Kafka's
 * LogDirFailureChannel does, and the LogManager then drops its logs (log-manager.ts).
 *
 * Concurrency: the maps here change only from the LogManager's methods, on the event loop; each
 * checkpoint file has its own coalesced writer (no two writes of one file overlap).
 */
import * as path from 'node:path';
import type { Fs } from './fs.js';
import { LogDirFs } from './log-dir-fs.js';
import type { PartitionLog } from './partition-log.js';
import { LogDirCheckpoints, OffsetCheckpointWriter, SharedPartitionCheckpoints, type LogDirState, type SharedCheckpointOwner } from './log-dir-checkpoints.js';
import { readOwnDirCheckpoints, type CheckpointedState } from './partition-files.js';
import { partitionDirName } from './file-names.js';

export class LogDir implements SharedCheckpointOwner {
  /** The dir's I/O: failures take it offline. */
  readonly fs: LogDirFs;
  readonly files: LogDirCheckpoints;
  /** The partitions stored here, keyed `<topic>-<partition>`. */
  readonly logs = new Map<string, PartitionLog>();
  /**
   * Future logs of replicas being moved here from another dir (log-dir-move.ts owns this map),
   * keyed like `logs`: checkpointed with them (as Kafka's logsByDir), so a restart resumes them.
   */
  readonly futures = new Map<string, PartitionLog>();
  /** The log cleaner's first dirty offsets of this dir's partitions. */
  readonly cleanerOffsets = new Map<string, number>();
  readonly leftovers: string[] = [];
  readonly recoveryPoints: OffsetCheckpointWriter<PartitionLog>;
  readonly logStartOffsets: OffsetCheckpointWriter<PartitionLog>;
  readonly highWatermarks: OffsetCheckpointWriter<PartitionLog>;
  readonly cleanerOffsetFile: OffsetCheckpointWriter<PartitionLog>;
  /** What the dir's files said at start-up (read on first need). */
  private state: Promise<LogDirState> | null = null;
  /** Every partition directory was loaded (so a clean-shutdown marker speaks for all of them). */
  loadedAll = false;

  constructor(base: Fs, readonly path: string, onFailure: (dir: LogDir, err: Error) => void) {
    this.fs = new LogDirFs(base, path, (err) => onFailure(this, err));
    this.files = new LogDirCheckpoints(this.fs, path);
    const all = () => (this.futures.size === 0 ? this.logs.values() : [...this.logs.values(), ...this.futures.values()]);
    this.recoveryPoints = new OffsetCheckpointWriter(this.fs, this.files.recoveryPointFile, all, (l) => l.recoveryPoint);
    // Kafka keeps only log starts other than the first segment's base offset (the rest follow from
    // the segments): above it after DeleteRecords, below it for a tiered log.
    this.logStartOffsets = new OffsetCheckpointWriter(this.fs, this.files.logStartOffsetFile, all, (l) => {
      const start = l.logStartOffsetToCheckpoint;
      return start !== (l.segmentBaseOffsets[0] ?? 0) ? start : null;
    });
    this.highWatermarks = new OffsetCheckpointWriter(this.fs, this.files.replicationOffsetFile, all, (l) => l.highWatermarkToCheckpoint);
    this.cleanerOffsetFile = new OffsetCheckpointWriter(this.fs, this.files.cleanerOffsetFile, all, (l) => this.cleanerOffsets.get(partitionDirName(l.topic, l.partition)) ?? null);
  }

  get isOffline(): boolean {
    return this.fs.isOffline;
  }

  /** Whether the dir's start-up files were read (a dir that never loaded writes no marker). */
  get stateRead(): boolean {
    return this.state !== null;
  }

  isRegistered(key: string): boolean {
    return this.logs.has(key) || this.futures.has(key);
  }

  loadState(): Promise<LogDirState> {
    this.state ??= this.files.load();
    return this.state;
  }

  /** `<dir>/<topic>-<partition>` */
  partitionPath(topic: string, partition: number): string {
    return path.join(this.path, partitionDirName(topic, partition));
  }

  /**
   * The checkpoints of one partition at start-up: the dir's files, or (a dir of the per-partition
   * layout) the partition directory's own files, whose cleaner offset is taken over.
   */
  async checkpointsFor(topic: string, partition: number, dir: string): Promise<SharedPartitionCheckpoints> {
    const state = await this.loadState();
    const k = partitionDirName(topic, partition);
    let cp: CheckpointedState;
    if (state.recoveryPoints !== null) {
      cp = { clean: state.clean, recoveryPoint: state.recoveryPoints.get(k) ?? null, logStartOffset: state.logStartOffsets.get(k) ?? null, highWatermark: state.highWatermarks.get(k) ?? null };
      const cleaner = state.cleanerOffsets.get(k);
      if (cleaner !== undefined) this.cleanerOffsets.set(k, cleaner);
    } else {
      const own = await readOwnDirCheckpoints(this.fs, dir, topic, partition);
      cp = { clean: own.clean, recoveryPoint: own.recoveryPoint, logStartOffset: own.logStartOffset };
      if (own.cleanerOffset !== null) this.cleanerOffsets.set(k, own.cleanerOffset);
    }
    return new SharedPartitionCheckpoints(this, k, dir, cp);
  }

  /** Writes every checkpoint file of the dir but the high watermarks' (start-up, stop). */
  async writeCheckpointFiles(unlinkConcurrency: number): Promise<void> {
    await Promise.all([this.recoveryPoints.write(), this.logStartOffsets.write(), this.cleanerOffsetFile.write()]);
    // Once these are on disk the per-partition files of the old layout mean nothing: remove them.
    const old = this.leftovers.splice(0);
    for (let i = 0; i < old.length; i += unlinkConcurrency) {
      await Promise.all(old.slice(i, i + unlinkConcurrency).map((f) => this.fs.unlink(f).catch(() => undefined)));
    }
  }
}
