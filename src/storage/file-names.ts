/**
 * Kafka's on-disk names (LogFileUtils / UnifiedLog / LocalLog), so a Samsa log dir looks like a
 * Kafka one:
 *
 *   <log.dir>/<topic>-<partition>/00000000000000000000.log        segment data
 *                                 00000000000000000000.index      offset index
 *                                 00000000000000000000.timeindex  time index
 *                                 00000000000000000000.txnindex   aborted transactions
 *                                 00000000000000000000.snapshot   producer state
 *                                 partition.metadata              topic id
 *                                 leader-epoch-checkpoint
 *   <log.dir>/recovery-point-offset-checkpoint, log-start-offset-checkpoint,
 *             replication-offset-checkpoint, cleaner-offset-checkpoint, .kafka_cleanshutdown,
 *             meta.properties                                     one each for the whole log dir
 *   <log.dir>/<topic>-<partition>.<uuid>-delete                   a deleted partition, removed later
 *   <log.dir>/<topic>-<partition>.<uuid>-future                   a replica being moved here from another log dir
 *
 * A segment's base offset is zero-padded to 20 digits. Files being deleted carry `.deleted`.
 */
import * as path from 'node:path';

export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
export const TXN_INDEX_FILE_SUFFIX = '.txnindex';
export const PRODUCER_SNAPSHOT_FILE_SUFFIX = '.snapshot';
export const DELETED_FILE_SUFFIX = '.deleted';
export const CLEANED_FILE_SUFFIX = '.cleaned';
export const SWAP_FILE_SUFFIX = '.swap';
export const DELETE_DIR_SUFFIX = '-delete';
export const FUTURE_DIR_SUFFIX = '-future';
export const STRAY_DIR_SUFFIX = '-stray';
export const PARTITION_METADATA_FILE = 'partition.metadata';
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
/**
 * One per log dir, for all its partitions (log-dir-checkpoints.ts); a partition directory of the
 * layout before (and a PartitionLog opened on its own) keeps its own copies (partition-files.ts).
 */
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';

/** `filenamePrefixFromOffset`: the offset as 20 digits, zero-padded. */
export function filenamePrefixFromOffset(offset: number): string {
  return String(offset).padStart(20, '0');
}

export function logFileName(dir: string, baseOffset: number): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + LOG_FILE_SUFFIX);
}

export function offsetIndexFileName(dir: string, baseOffset: number): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + INDEX_FILE_SUFFIX);
}

export function timeIndexFileName(dir: string, baseOffset: number): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + TIME_INDEX_FILE_SUFFIX);
}

export function txnIndexFileName(dir: string, baseOffset: number): string {
  return path.join(dir, filenamePrefixFromOffset(baseOffset) + TXN_INDEX_FILE_SUFFIX);
}

export function producerSnapshotFileName(dir: string, offset: number): string {
  return path.join(dir, filenamePrefixFromOffset(offset) + PRODUCER_SNAPSHOT_FILE_SUFFIX);
}

const OFFSET_FILE = /^(\d{20})\.(log|index|timeindex|txnindex|snapshot)$/;

/** Parses `00000000000000000123.log` (or .index, ...) into its base offset and suffix; null otherwise. */
export function parseOffsetFileName(name: string): { offset: number; suffix: string } | null {
  const m = OFFSET_FILE.exec(name);
  if (!m) return null;
  const offset = Number(m[1]);
  if (!Number.isSafeInteger(offset)) return null;
  return { offset, suffix: '.' + m[2] };
}

/** `<topic>-<partition>`. */
export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

const DELETE_DIR = /^(.+)-(\d+)\.([0-9a-f]{32})-delete$/;

/** `<topic>-<partition>.<32 hex>-delete`, the name a partition dir gets when its topic is deleted. */
export function deleteDirName(topic: string, partition: number, uniqueId: string): string {
  return `${topic}-${partition}.${uniqueId}${DELETE_DIR_SUFFIX}`;
}

export function isDeleteDirName(name: string): boolean {
  return DELETE_DIR.test(name);
}

const FUTURE_DIR = /^(.+)-(\d+)\.([0-9a-f]{32})-future$/;

/** `<topic>-<partition>.<32 hex>-future`: the copy of a replica being moved to this log dir (log-dir-move.ts). */
export function futureDirName(topic: string, partition: number, uniqueId: string): string {
  return `${topic}-${partition}.${uniqueId}${FUTURE_DIR_SUFFIX}`;
}

/** The partition of a `-future` directory name, or null. */
export function parseFutureDirName(name: string): { topic: string; partition: number } | null {
  const m = FUTURE_DIR.exec(name);
  return m ? parsePartitionDirName(`${m[1]}-${m[2]}`) : null;
}

/**
 * Parses `<topic>-<partition>`; the partition is the digits after the *last* '-', so topics with
 * '-' and '.' in their names work (`my-topic.v2-10` → topic `my-topic.v2`, partition 10). Returns
 * null for names that are not partition directories (including `-delete`, `-future` and `-stray`
 * directories, and Kafka's checkpoint files).
 */
export function parsePartitionDirName(name: string): { topic: string; partition: number } | null {
  if (name.endsWith(DELETE_DIR_SUFFIX) || name.endsWith(FUTURE_DIR_SUFFIX) || name.endsWith(STRAY_DIR_SUFFIX)) return null;
  const dash = name.lastIndexOf('-');
  if (dash <= 0 || dash === name.length - 1) return null;
  const digits = name.slice(dash + 1);
  if (!/^\d+$/.test(digits) || (digits.length > 1 && digits[0] === '0')) return null;
  const partition = Number(digits);
  if (partition > 0x7fffffff) return null;
  const topic = name.slice(0, dash);
  if (!/^[a-zA-Z0-9._-]+$/.test(topic)) return null;
  return { topic, partition };
}
