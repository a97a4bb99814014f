/**
 * The files a log dir keeps for all of its partitions (Kafka's LogManager, LogCleanerManager and
 * ReplicaManager checkpoints, and CleanShutdownFileHandler):
 *
 *   <log.dir>/recovery-point-offset-checkpoint   every log's recovery point
 *   <log.dir>/log-start-offset-checkpoint        log start offsets above the first segment's base
 *   <log.dir>/replication-offset-checkpoint      high watermarks
 *   <log.dir>/cleaner-offset-checkpoint          the log cleaner's first dirty offsets
 *   <log.dir>/.kafka_cleanshutdown               {"version":0,"brokerEpoch":N}: every log was
 *                                                flushed and checkpointed at the last stop
 *
 * The offset files have Kafka's checkpoint format (checkpoint-file.ts): "0", the entry count,
 * then one "<topic> <partition> <offset>" line per partition. Each is rewritten whole and
 * atomically (tmp file, fsync, rename, directory fsync): one write per log dir however many
 * partitions it holds, instead of a file per partition. Writes of the same file never overlap;
 * callers arriving while one runs share the next (`CoalescedWrite`), which reads the values when
 * it starts, so it covers every change made before it was requested.
 *
 * Start-up (`LogDirCheckpoints.load`): the marker is read and deleted (unlink + directory fsync,
 * before any log is opened, so a crash from here on recovers), then the offset files are read.
 * A log dir written before this layout has no `recovery-point-offset-checkpoint`; its partitions
 * then bring their own files (partition-files.ts `OwnDirCheckpoints`), which the LogManager reads
 * once and removes after writing these files.
 */
import * as path from 'node:path';
import type { Fs } from './fs.js';
import { readCheckpoint, writeCheckpoint } from './checkpoint-file.js';
import { OWN_DIR_CHECKPOINT_FILES, type CheckpointedState, type PartitionCheckpoints } from './partition-files.js';
import {
  CLEAN_SHUTDOWN_FILE, CLEANER_OFFSET_CHECKPOINT_FILE, LOG_START_OFFSET_CHECKPOINT_FILE,
  RECOVERY_POINT_CHECKPOINT_FILE, REPLICATION_OFFSET_CHECKPOINT_FILE, partitionDirName,
} from './file-names.js';

/** One offset per partition, keyed `<topic>-<partition>` (partitionDirName). */
export type OffsetMap = Map<string, number>;

/** One log as a checkpoint file sees it. */
export interface CheckpointedLog {
  readonly topic: string;
  readonly partition: number;
}

/** Reads a Kafka offset checkpoint file; null when it does not exist, empty when unreadable. */
export async function readOffsetCheckpointFile(fs: Fs, file: string): Promise<OffsetMap | null> {
  let rows: string[][] | null;
  try {
    rows = await readCheckpoint(fs, file);
  } catch {
    // A damaged file counts as empty: recovery points fall back to 0 (full recovery), as in Kafka
    // when the file cannot be read.
    return new Map();
  }
  if (rows === null) return null;
  const out: OffsetMap = new Map();
  for (const r of rows) {
    const partition = Number(r[1]);
    const offset = Number(r[2]);
    if (r.length !== 3 || !Number.isInteger(partition) || partition < 0 || !Number.isSafeInteger(offset) || offset < 0) continue;
    out.set(partitionDirName(r[0], partition), offset);
  }
  return out;
}

/**
 * Serialises writes of one file: `request()` resolves after a write that started after the call
 * (so it saw the caller's change); callers arriving while a write runs share the one after it.
 */
export class CoalescedWrite {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly write: () => Promise<void>) {}

  request(): Promise<void> {
    if (!this.running) return this.start();
    this.next ??= this.running.catch(() => undefined).then(() => {
      this.next = null;
      return this.start();
    });
    return this.next;
  }

  private start(): Promise<void> {
    const run = this.write().finally(() => {
      if (this.running === run) this.running = null;
    });
    this.running = run;
    return run;
  }

  /** Resolves when no write is running or queued. */
  async idle(): Promise<void> {
    while (this.running || this.next) await (this.next ?? this.running)!.catch(() => undefined);
  }
}

/**
 * The broker epoch a clean-shutdown marker records, -1 when it records none (Kafka too treats the
 * file's presence as the clean shutdown and its content as a hint).
 */
export function cleanShutdownEpoch(text: string): number {
  try {
    const epoch = (JSON.parse(text) as { brokerEpoch?: unknown }).brokerEpoch;
    return typeof epoch === 'number' && Number.isSafeInteger(epoch) ? epoch : -1;
  } catch {
    return -1;
  }
}

/** Kafka's CleanShutdownFileHandler content: `{"version":0,"brokerEpoch":N}`. */
export function cleanShutdownContent(brokerEpoch: number): Buffer {
  return Buffer.from(JSON.stringify({ version: 0, brokerEpoch }), 'utf8');
}

/** What a log dir's files said at start-up. */
export interface LogDirState {
  /** `.kafka_cleanshutdown` was there (it has been removed). */
  clean: boolean;
  /** The broker epoch in the marker (-1 when absent or unreadable). */
  brokerEpoch: number;
  /** Null: the log dir has no `recovery-point-offset-checkpoint` (the per-partition layout, or new). */
  recoveryPoints: OffsetMap | null;
  logStartOffsets: OffsetMap;
  highWatermarks: OffsetMap;
  cleanerOffsets: OffsetMap;
}

export class LogDirCheckpoints {
  readonly recoveryPointFile: string;
  readonly logStartOffsetFile: string;
  readonly replicationOffsetFile: string;
  readonly cleanerOffsetFile: string;
  readonly cleanShutdownFile: string;

  constructor(private readonly fs: Fs, readonly logDir: string) {
    this.recoveryPointFile = path.join(logDir, RECOVERY_POINT_CHECKPOINT_FILE);
    this.logStartOffsetFile = path.join(logDir, LOG_START_OFFSET_CHECKPOINT_FILE);
    this.replicationOffsetFile = path.join(logDir, REPLICATION_OFFSET_CHECKPOINT_FILE);
    this.cleanerOffsetFile = path.join(logDir, CLEANER_OFFSET_CHECKPOINT_FILE);
    this.cleanShutdownFile = path.join(logDir, CLEAN_SHUTDOWN_FILE);
  }

  /** Reads the marker (and deletes it, durably) and the offset files. */
  async load(): Promise<LogDirState> {
    let clean = false;
    let brokerEpoch = -1;
    try {
      const text = (await this.fs.readFile(this.cleanShutdownFile)).toString('utf8');
      clean = true;
      brokerEpoch = cleanShutdownEpoch(text);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (clean) {
      await this.fs.unlink(this.cleanShutdownFile);
      await this.fs.syncDir(this.logDir);
    }
    const [recoveryPoints, logStartOffsets, highWatermarks, cleanerOffsets] = await Promise.all([
      readOffsetCheckpointFile(this.fs, this.recoveryPointFile),
      readOffsetCheckpointFile(this.fs, this.logStartOffsetFile),
      readOffsetCheckpointFile(this.fs, this.replicationOffsetFile),
      readOffsetCheckpointFile(this.fs, this.cleanerOffsetFile),
    ]);
    return {
      clean, brokerEpoch, recoveryPoints,
      logStartOffsets: logStartOffsets ?? new Map(), highWatermarks: highWatermarks ?? new Map(), cleanerOffsets: cleanerOffsets ?? new Map(),
    };
  }

  /** Written last at a clean stop, after every log was flushed and every checkpoint written. */
  writeCleanShutdown(brokerEpoch: number): Promise<void> {
    return this.fs.writeFileAtomic(this.cleanShutdownFile, cleanShutdownContent(brokerEpoch));
  }
}

/**
 * One checkpoint file of a log dir and its writes: the whole file from `offsetOf` over `logs()`
 * each time, coalesced, and skipped when the content would be what the file already holds.
 */
export class OffsetCheckpointWriter<L extends CheckpointedLog> {
  private last: string | null = null;
  private readonly writes: CoalescedWrite;

  constructor(fs: Fs, readonly file: string, logs: () => Iterable<L>, offsetOf: (log: L) => number | null) {
    this.writes = new CoalescedWrite(async () => {
      const entries: (string | number)[][] = [];
      for (const log of logs()) {
        const offset = offsetOf(log);
        if (offset !== null) entries.push([log.topic, log.partition, offset]);
      }
      const key = entries.join('\n');
      if (key === this.last) return;
      await writeCheckpoint(fs, file, entries);
      this.last = key;
    });
  }

  /** Resolves once a write that started after this call is on disk. */
  write(): Promise<void> {
    return this.writes.request();
  }

  idle(): Promise<void> {
    return this.writes.idle();
  }
}

/** What SharedPartitionCheckpoints needs from its LogManager. */
export interface SharedCheckpointOwner {
  /** False while the log is being loaded: the LogManager writes the files once every log is loaded. */
  isRegistered(key: string): boolean;
  recoveryPoints: { write(): Promise<void> };
  logStartOffsets: { write(): Promise<void> };
  /** Files of the per-partition layout found while loading, removed once the log dir's files are written. */
  leftovers: string[];
}

/** A PartitionLog's view of its log dir's shared checkpoint files. */
export class SharedPartitionCheckpoints implements PartitionCheckpoints {
  constructor(
    private readonly owner: SharedCheckpointOwner,
    private readonly key: string,
    private readonly dir: string,
    private readonly state: CheckpointedState,
  ) {}

  async load(): Promise<CheckpointedState> {
    return this.state;
  }

  /** Kafka moves the recovery point in memory and checkpoints it periodically. */
  async recoveryPointAdvanced(): Promise<void> {}

  async writeRecoveryPoint(): Promise<void> {
    if (this.owner.isRegistered(this.key)) await this.owner.recoveryPoints.write();
  }

  /** The writer reads the log's `logStartOffsetToCheckpoint`, which already holds the new offset. */
  async writeLogStartOffset(): Promise<void> {
    if (this.owner.isRegistered(this.key)) await this.owner.logStartOffsets.write();
  }

  /** The LogManager writes the files and the marker once every log of the dir is closed. */
  async closedCleanly(): Promise<void> {}

  /** Per-partition files of the old layout among the directory's names: the owner removes them later. */
  afterLoad(names: readonly string[]): void {
    for (const f of OWN_DIR_CHECKPOINT_FILES) if (names.includes(f)) this.owner.leftovers.push(path.join(this.dir, f));
  }
}
