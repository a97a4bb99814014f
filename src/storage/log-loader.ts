/**
 * Loading a partition directory (Kafka's LogLoader): removes leftovers of interrupted operations
 * (.deleted, .cleaned, .swap, .tmp files and orphan indexes), opens the active segment (older
 * ones and their indexes are opened on first use, as Kafka's LazyIndex), and — when the last stop
 * was not clean (partition-files.ts) — recovers the segments from the one holding the recovery
 * point: each batch is checked, the first invalid or torn one and everything after it are cut off
 * (later segments deleted), and the indexes and leader epochs are rebuilt.
 */
import * as path from 'node:path';
import { writeFilesAtomic, type AtomicFile, type Fs } from './fs.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { LogSegment, type SegmentConfig } from './log-segment.js';
import { LeaderEpochCache } from './leader-epoch-cache.js';
import { readFileIfExists } from './checkpoint-file.js';
import { ProducerStateManager, batchInfoAt, type AbortedTxn } from './producer-state.js';
import type { ReadResult } from './log-config.js';
import type { CheckpointedState } from './partition-files.js';
import {
  CLEANED_FILE_SUFFIX,
  DELETED_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  SWAP_FILE_SUFFIX,
  PARTITION_METADATA_FILE,
  PRODUCER_SNAPSHOT_FILE_SUFFIX,
  logFileName,
  parseOffsetFileName,
  producerSnapshotFileName,
} from './file-names.js';
import { baseOffset as batchBaseOffset, batchSize, lastOffsetDelta, partitionLeaderEpoch } from '../protocol/records/record-batch.js';

export interface LoadedSegments {
  /** The directory's file names as found (before leftovers were removed). */
  names: string[];
  /** The last stop was clean (the checkpoints' clean-shutdown marker). */
  clean: boolean;
  /** Recovery ran on some segments. */
  recovered: boolean;
  /** Surviving segments, oldest first (possibly none). */
  segments: LogSegment[];
  epochs: LeaderEpochCache;
  checkpointedStart: number | null;
  checkpointedRecovery: number | null;
}

export async function loadSegments(opts: {
  fs: Fs;
  dir: string;
  nowMs: number;
  segmentConfig: SegmentConfig;
  rollJitter: () => number;
  /** What the checkpoints say (partition-files.ts): the last stop was clean, the recovery point, the log start. */
  checkpointed: CheckpointedState;
}): Promise<LoadedSegments> {
  const { fs, dir } = opts;
  const { clean, recoveryPoint: checkpointedRecovery, logStartOffset: checkpointedStart } = opts.checkpointed;

  const names = await fs.readdir(dir);
  const bases: number[] = [];
  const indexFiles: { name: string; offset: number }[] = [];
  for (const name of await completeSwaps(fs, dir, names)) {
    const parsed = parseOffsetFileName(name);
    if (!parsed) continue;
    if (parsed.suffix === LOG_FILE_SUFFIX) bases.push(parsed.offset);
    else if (parsed.suffix === '.index' || parsed.suffix === '.timeindex' || parsed.suffix === '.txnindex') indexFiles.push({ name, offset: parsed.offset });
  }
  bases.sort((a, b) => a - b);
  const baseSet = new Set(bases);
  for (const f of indexFiles) if (!baseSet.has(f.offset)) await fs.unlink(path.join(dir, f.name)); // orphan index

  const epochs = await LeaderEpochCache.load(fs, dir);

  // Only the active (last) segment's .log is opened now; the older ones are stat'ed and opened
  // when something reads them (recovery below, a fetch, retention, the cleaner).
  const segs: LogSegment[] = [];
  for (let i = 0; i < bases.length; i++) {
    const base = bases[i];
    const segOpts = { fs, dir, baseOffset: base, config: opts.segmentConfig, nowMs: opts.nowMs, rollJitterMs: opts.rollJitter() };
    if (i === bases.length - 1) segs.push(await LogSegment.open(segOpts));
    else segs.push(LogSegment.openLazy({ ...segOpts, sizeBytes: (await fs.stat(logFileName(dir, base))).size }));
  }

  let recovered = false;
  if (!clean && segs.length > 0) {
    const recoveryPoint = checkpointedRecovery ?? 0;
    let first = 0;
    for (let i = 0; i < segs.length; i++) if (segs[i].baseOffset <= recoveryPoint) first = i;
    recovered = true;
    for (let i = first; i < segs.length; i++) {
      const res = await segs[i].recover((buf, pos) => {
        epochs.assign(partitionLeaderEpoch(buf, pos), batchBaseOffset(buf, pos));
      });
      if (res.truncatedBytes > 0) {
        // Everything after damage is unreliable: drop later segments (Kafka LogLoader.recoverSegment).
        for (const later of segs.splice(i + 1)) await later.deleteFiles();
        break;
      }
    }
  }
  return { names, clean, recovered, segments: segs, epochs, checkpointedStart, checkpointedRecovery };
}

/**
 * Leftovers of interrupted operations (Kafka LogLoader's removeTempFilesAndCollectSwapFiles and
 * swap completion), for the log cleaner's steps (log-cleaner.ts): `.deleted`, `.tmp` and
 * `.cleaned` files are removed; a `<base>.log.swap` is the commit point of a cleaning, so the
 * segments whose base offsets it covers are deleted and it is renamed to `<base>.log`; an index
 * `.swap` is finished likewise, unless its `.log.cleaned` shows the commit point was not reached.
 * Returns the directory's names afterwards.
 */
async function completeSwaps(fs: Fs, dir: string, names: string[]): Promise<string[]> {
  const swaps: string[] = [];
  const removed = new Set<string>();
  const uncommitted = new Set<string>();
  for (const name of names) {
    if (name.endsWith(CLEANED_FILE_SUFFIX) && name.endsWith(LOG_FILE_SUFFIX + CLEANED_FILE_SUFFIX)) uncommitted.add(name.slice(0, 20));
  }
  for (const name of names) {
    if (name.endsWith(DELETED_FILE_SUFFIX) || name.endsWith(CLEANED_FILE_SUFFIX) || name.endsWith('.tmp')) {
      await fs.unlink(path.join(dir, name));
      removed.add(name);
    } else if (name.endsWith(SWAP_FILE_SUFFIX)) {
      const real = parseOffsetFileName(name.slice(0, -SWAP_FILE_SUFFIX.length));
      if (!real || uncommitted.has(name.slice(0, 20))) {
        await fs.unlink(path.join(dir, name));
        removed.add(name);
      } else {
        swaps.push(name);
      }
    }
  }
  if (swaps.length === 0) return removed.size === 0 ? names : names.filter((n) => !removed.has(n));
  for (const name of swaps.filter((n) => n.endsWith(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX))) {
    const base = Number(name.slice(0, 20));
    const next = await nextOffsetOfFile(fs, path.join(dir, name), base);
    for (const other of await fs.readdir(dir)) {
      const parsed = parseOffsetFileName(other);
      if (!parsed || parsed.suffix === PRODUCER_SNAPSHOT_FILE_SUFFIX) continue;
      if (parsed.offset >= base && parsed.offset < Math.max(next, base + 1)) await fs.unlink(path.join(dir, other));
    }
  }
  // The .log first, then its indexes: the order the cleaner renames them in.
  swaps.sort((a, b) => Number(b.endsWith(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX)) - Number(a.endsWith(LOG_FILE_SUFFIX + SWAP_FILE_SUFFIX)));
  for (const name of swaps) await fs.rename(path.join(dir, name), path.join(dir, name.slice(0, -SWAP_FILE_SUFFIX.length)));
  await fs.syncDir(dir);
  return fs.readdir(dir);
}

/** Offset after the last whole batch of a segment file (header scan). */
async function nextOffsetOfFile(fs: Fs, file: string, base: number): Promise<number> {
  const h = await fs.open(file);
  try {
    let pos = 0;
    let next = base;
    const size = h.size();
    while (size - pos >= 61) {
      const header = await h.read(pos, 61);
      if (header.length < 61) break;
      const len = batchSize(header, 0);
      if (len < 61 || pos + len > size) break;
      next = batchBaseOffset(header, 0) + lastOffsetDelta(header, 0) + 1;
      pos += len;
    }
    return next;
  } finally {
    await h.close();
  }
}

/**
 * The offsets of a loaded log (after loadSegments): an empty directory gets its first segment at
 * the checkpointed log start; a log start past data that did not survive empties the log there;
 * the epoch cache is cut to [start, end); what recovery validated is made durable so the recovery
 * point can move to the end.
 */
export async function settleLoadedLog(loaded: LoadedSegments, opts: {
  /** A tiered log's start may lie below its first local segment (the rest is in the remote tier). */
  tiered?: boolean;
  createSegment: (baseOffset: number) => Promise<LogSegment>;
  writeRecoveryPoint: (offset: number) => Promise<void>;
  fs: Fs;
  /** Small files to write now (a new log's partition.metadata), in one go with the epoch checkpoint. */
  files: AtomicFile[];
  /** The leader epoch this broker starts leading a new log at, from its log end (Kafka's makeLeader assignment). */
  leaderEpoch?: number;
}): Promise<{ segments: LogSegment[]; startOffset: number; endOffset: number; recoveryPoint: number }> {
  const { clean, recovered, checkpointedStart, checkpointedRecovery, epochs } = loaded;
  let segments = loaded.segments;
  if (segments.length === 0) segments.push(await opts.createSegment(checkpointedStart ?? 0));
  const active = segments[segments.length - 1];
  await active.openFile();
  // An empty active segment (an idle partition) needs no index to find its end.
  if (active.sizeBytes > 0) await active.loadIndexes();
  let endOffset = await active.readNextOffset();
  const firstLocal = segments[0].baseOffset;
  const startOffset = opts.tiered && checkpointedStart !== null && checkpointedStart !== undefined && checkpointedStart < firstLocal
    ? checkpointedStart
    : Math.max(checkpointedStart ?? 0, firstLocal);
  if (startOffset > endOffset) {
    for (const s of segments) await s.deleteFiles();
    segments = [await opts.createSegment(startOffset)];
    endOffset = startOffset;
    epochs.clear();
  }
  epochs.truncateFromEnd(endOffset);
  // Epochs from the checkpointed log start on: a tiered log's start lies below its first local
  // segment, and its remote segments are checked against these (remote/remote-segment.ts).
  epochs.truncateFromStart(Math.min(startOffset, checkpointedStart ?? startOffset));
  // After a clean stop the cut only drops an epoch starting at the log end (an empty log's), which
  // the leader assigns again right away: written by the next flush if it still differs (as Kafka's
  // truncateFromEndAsyncFlush), not with two fsyncs per partition here. Every load cuts it again.
  if (recovered) await epochs.flushIfDirty();
  // A new leader's epoch goes to disk with the log's partition.metadata: one directory fsync for
  // both, and the replica manager's makeLeader then finds it assigned and writes nothing.
  if (opts.leaderEpoch !== undefined) epochs.assign(opts.leaderEpoch, endOffset);
  const epochFile = opts.leaderEpoch !== undefined ? epochs.pendingCheckpoint() : null;
  await writeFilesAtomic(opts.fs, epochFile ? [...opts.files, epochFile] : opts.files);
  epochFile?.written();
  if (recovered) {
    for (const s of segments) await s.flush();
    await opts.writeRecoveryPoint(endOffset);
  }
  // A copy of exactly its length: the list grew by push, which makes room for 17 segments.
  return { segments: segments.slice(), startOffset, endOffset, recoveryPoint: clean || recovered ? endOffset : checkpointedRecovery ?? 0 };
}

/**
 * Rebuilds the producer state: the latest readable snapshot at or below the log end (snapshots
 * above it describe data that is gone and are deleted), then every batch after it, which also
 * re-adds aborted transactions missing from the .txnindex.
 */
export async function rebuildProducerState(opts: {
  fs: Fs;
  dir: string;
  /** `<topic>-<partition>`, for messages. */
  name: string;
  names: string[];
  startOffset: number;
  endOffset: number;
  nowMs: number;
  read: (offset: number, maxBytes: number, o: { minOneMessage: boolean; maxOffset?: number }) => Promise<ReadResult>;
  indexAborted: (t: AbortedTxn) => Promise<void>;
}): Promise<{ producers: ProducerStateManager; snapshotOffsets: number[] }> {
  const { names } = opts;
  const producers = new ProducerStateManager(opts.name);
  const offsets: number[] = [];
  for (const name of names) {
    const parsed = parseOffsetFileName(name);
    if (parsed && parsed.suffix === PRODUCER_SNAPSHOT_FILE_SUFFIX) offsets.push(parsed.offset);
  }
  offsets.sort((a, b) => a - b);
  let from = opts.startOffset;
  const kept: number[] = [];
  let loaded = false;
  for (let i = offsets.length - 1; i >= 0; i--) {
    const off = offsets[i];
    const file = producerSnapshotFileName(opts.dir, off);
    if (off > opts.endOffset) {
      await opts.fs.unlink(file).catch(() => undefined);
      continue;
    }
    if (!loaded) {
      try {
        producers.loadSnapshot(await opts.fs.readFile(file));
        loaded = true;
        from = Math.max(off, opts.startOffset);
      } catch {
        producers.clear();
        await opts.fs.unlink(file).catch(() => undefined);
        continue;
      }
    }
    kept.unshift(off);
  }
  const now = opts.nowMs;
  let offset = from;
  while (offset < opts.endOffset) {
    const { records } = await opts.read(offset, 1 << 20, { minOneMessage: true, maxOffset: opts.endOffset });
    if (records.length === 0) break;
    let next = offset;
    for (const chunk of records) {
      for (let pos = 0; pos < chunk.length; pos += batchSize(chunk, pos)) {
        next = batchBaseOffset(chunk, pos) + lastOffsetDelta(chunk, pos) + 1;
        if (batchBaseOffset(chunk, pos) < offset && next <= offset) continue;
        const info = batchInfoAt(chunk, pos);
        if (info.producerId < 0) continue;
        const aborted = producers.replayBatch(info, now);
        if (aborted) await opts.indexAborted(aborted);
      }
    }
    if (next <= offset) break;
    offset = next;
  }
  return { producers, snapshotOffsets: kept };
}

/** Index of the last segment whose base offset is <= offset (-1 if none). */
export function floorSegmentIndex(segs: readonly LogSegment[], offset: number): number {
  let lo = 0;
  let hi = segs.length - 1;
  let ans = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (segs[mid].baseOffset <= offset) {
      ans = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return ans;
}

/**
 * The topic id stored in partition.metadata (Kafka's "version: 0\ntopic_id: <id>"), if any;
 * INCONSISTENT_TOPIC_ID when it is not `expected` (a log of an older topic with this name).
 */
export async function readStoredTopicId(fs: Fs, dir: string, expected?: string): Promise<string | undefined> {
  const bytes = await readFileIfExists(fs, path.join(dir, PARTITION_METADATA_FILE));
  if (bytes === null) return undefined;
  const stored = /topic_id:\s*(\S+)/.exec(bytes.toString('utf8'))?.[1];
  if (stored && expected && stored !== expected) {
    throw new KafkaApiError(ErrorCode.INCONSISTENT_TOPIC_ID, `${dir}: partition.metadata has topic id ${stored}, expected ${expected}`);
  }
  return stored;
}

