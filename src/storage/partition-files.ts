/**
 * Small files of a partition that PartitionLog writes now and then:
 * - where its checkpoints go (`PartitionCheckpoints`): the log dir's shared files when a
 *   LogManager opened the log (log-manager.ts, log-dir-checkpoints.ts), or, for a PartitionLog
 *   opened on its own, files in the partition directory (`OwnDirCheckpoints`: the layout of every
 *   partition before issue 19, still read to migrate such a log dir);
 * - producer state snapshots (`<offset>.snapshot`), of which the newest three are kept.
 */
import path from 'node:path';
import type { AtomicFile, Fs } from './fs.js';
import { readCheckpoint, writeCheckpoint } from './checkpoint-file.js';
import { CLEAN_SHUTDOWN_FILE, CLEANER_OFFSET_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, PARTITION_METADATA_FILE, RECOVERY_POINT_CHECKPOINT_FILE,
  producerSnapshotFileName } from './file-names.js';

/** `partition.metadata` in Kafka's format, for writeFileAtomic / writeFilesAtomic. */
export function topicIdFile(dir: string, topicId: string): AtomicFile {
  return { path: path.join(dir, PARTITION_METADATA_FILE), data: Buffer.from(`version: 0\ntopic_id: ${topicId}\n`, 'utf8') };
}

/** What the last run left for one partition. */
export interface CheckpointedState {
  /** The last stop was clean: no recovery is needed. */
  clean: boolean;
  recoveryPoint: number | null;
  logStartOffset: number | null;
  /** The high watermark of the log dir's replication-offset-checkpoint (absent in the per-partition layout). */
  highWatermark?: number | null;
}

/**
 * Where a PartitionLog's offsets are made durable. The log calls these from its serial queue.
 * - `recoveryPointAdvanced`: a rolled segment is flushed; writing it may wait for the periodic
 *   checkpoint (an older recovery point only means more recovery after a crash);
 * - `writeRecoveryPoint`: durable before it resolves (after recovery, after a truncation moved it
 *   back: a stale, higher one would skip recovering what is appended next);
 * - `writeLogStartOffset`: durable before it resolves (DeleteRecords must survive a crash);
 * - `closedCleanly`: the log was flushed and closed without error.
 */
export interface PartitionCheckpoints {
  load(): Promise<CheckpointedState>;
  recoveryPointAdvanced(offset: number): Promise<void>;
  writeRecoveryPoint(offset: number): Promise<void>;
  writeLogStartOffset(offset: number): Promise<void>;
  closedCleanly(endOffset: number): Promise<void>;
  /** Sees the partition directory's names once loaded (the shared kind finds old-layout files). */
  afterLoad?(names: readonly string[]): void;
}

/**
 * Checkpoints in the partition directory itself (each file with one "<topic> <partition>
 * <offset>" entry, and a per-partition `.kafka_cleanshutdown`). A file whose content is already
 * on disk is not rewritten.
 */
export class OwnDirCheckpoints implements PartitionCheckpoints {
  private readonly known = new Map<string, number>();

  constructor(private readonly fs: Fs, private readonly dir: string, private readonly topic: string, private readonly partition: number) {}

  /** Reads the files and consumes the marker (unlink + directory fsync). */
  async load(): Promise<CheckpointedState> {
    const state = await readOwnDirCheckpoints(this.fs, this.dir, this.topic, this.partition);
    if (state.clean) {
      await this.fs.unlink(path.join(this.dir, CLEAN_SHUTDOWN_FILE));
      await this.fs.syncDir(this.dir);
    }
    if (state.recoveryPoint !== null) this.known.set(RECOVERY_POINT_CHECKPOINT_FILE, state.recoveryPoint);
    if (state.logStartOffset !== null) this.known.set(LOG_START_OFFSET_CHECKPOINT_FILE, state.logStartOffset);
    return state;
  }

  recoveryPointAdvanced(offset: number): Promise<void> {
    return this.write(RECOVERY_POINT_CHECKPOINT_FILE, offset);
  }

  writeRecoveryPoint(offset: number): Promise<void> {
    return this.write(RECOVERY_POINT_CHECKPOINT_FILE, offset);
  }

  writeLogStartOffset(offset: number): Promise<void> {
    return this.write(LOG_START_OFFSET_CHECKPOINT_FILE, offset);
  }

  async closedCleanly(endOffset: number): Promise<void> {
    await this.write(RECOVERY_POINT_CHECKPOINT_FILE, endOffset);
    await this.fs.writeFileAtomic(path.join(this.dir, CLEAN_SHUTDOWN_FILE), Buffer.alloc(0));
  }

  private async write(file: string, offset: number): Promise<void> {
    if (this.known.get(file) === offset) return;
    await writeCheckpoint(this.fs, path.join(this.dir, file), [[this.topic, this.partition, offset]]);
    this.known.set(file, offset);
  }
}

/** The per-partition files of the old layout (nothing is changed). */
export async function readOwnDirCheckpoints(fs: Fs, dir: string, topic: string, partition: number): Promise<CheckpointedState & { cleanerOffset: number | null }> {
  const [clean, recoveryPoint, logStartOffset, cleanerOffset] = await Promise.all([
    fs.exists(path.join(dir, CLEAN_SHUTDOWN_FILE)),
    readPartitionCheckpoint(fs, path.join(dir, RECOVERY_POINT_CHECKPOINT_FILE), topic, partition),
    readPartitionCheckpoint(fs, path.join(dir, LOG_START_OFFSET_CHECKPOINT_FILE), topic, partition),
    readPartitionCheckpoint(fs, path.join(dir, CLEANER_OFFSET_CHECKPOINT_FILE), topic, partition),
  ]);
  return { clean, recoveryPoint, logStartOffset, cleanerOffset };
}

/** The old layout's per-partition files, in the order a migration removes them. */
export const OWN_DIR_CHECKPOINT_FILES = [RECOVERY_POINT_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE, CLEANER_OFFSET_CHECKPOINT_FILE, CLEAN_SHUTDOWN_FILE];

export class ProducerSnapshots {
  /** Offsets of the snapshot files on disk, ascending. */
  offsets: number[] = [];

  constructor(private readonly fs: Fs, private readonly dir: string) {}

  /** Writes the snapshot taken at `offset` (unless the newest is already there), keeping three. */
  async take(offset: number, serialize: () => Uint8Array): Promise<void> {
    if (this.offsets[this.offsets.length - 1] === offset) return;
    await this.fs.writeFileAtomic(producerSnapshotFileName(this.dir, offset), serialize());
    this.offsets = [...this.offsets.filter((o) => o < offset), offset];
    await this.deleteBelow(this.offsets.length > 3 ? this.offsets[this.offsets.length - 3] : 0);
  }

  /**
   * The snapshot at a clean close. Kafka's takeSnapshot skips an unchanged state; an empty log
   * without producers has nothing to replay on the next load either, so idle partitions write none.
   */
  async takeAtClose(offset: number, emptyWithoutProducers: boolean, serialize: () => Uint8Array): Promise<void> {
    if (emptyWithoutProducers && this.offsets.length === 0) return;
    await this.take(offset, serialize);
  }

  async deleteBelow(offset: number): Promise<void> {
    for (const o of this.offsets.filter((x) => x < offset)) await this.fs.unlink(producerSnapshotFileName(this.dir, o)).catch(() => undefined);
    this.offsets = this.offsets.filter((x) => x >= offset);
  }
}

/** This partition's entry of a Kafka offset checkpoint file; null when missing or unreadable. */
export async function readPartitionCheckpoint(fs: Fs, file: string, topic: string, partition: number): Promise<number | null> {
  try {
    const rows = await readCheckpoint(fs, file);
    const row = rows?.find((r) => r[0] === topic && Number(r[1]) === partition);
    const v = row ? Number(row[2]) : NaN;
    return Number.isSafeInteger(v) && v >= 0 ? v : null;
  } catch {
    return null;
  }
}
