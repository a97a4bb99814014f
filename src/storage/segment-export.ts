/**
 * What tiered storage copies of one closed segment (Kafka's LogSegmentData): the .log bytes, read
 * a part at a time; the offset, time and transaction indexes; the producer snapshot taken at the
 * segment's end (when still on disk: the log keeps the last three); and the leader-epoch
 * checkpoint up to the segment's last offset. The segment stays pinned until `release`, so local
 * retention cannot close its file during the upload.
 */
import type { Fs } from './fs.js';
import type { LogSegment } from './log-segment.js';
import type { EpochEntry } from './leader-epoch-cache.js';
import type { LogConfig } from './log-config.js';
import { TransactionIndex } from './txn-index.js';
import { producerSnapshotFileName } from './file-names.js';
import { readFileIfExists } from './checkpoint-file.js';

export interface SegmentExport {
  baseOffset: number;
  /** The segment's last offset (the next segment's base - 1). */
  endOffset: number;
  sizeBytes: number;
  /** Largest record timestamp in the segment (-1: none). */
  maxTimestampMs: number;
  read(position: number, length: number): Promise<Buffer>;
  offsetIndex: Buffer;
  timeIndex: Buffer;
  txnIndex: Buffer;
  producerSnapshot: Buffer | null;
  /** The leader epochs whose start is at or below endOffset (the checkpoint as of the segment's end). */
  leaderEpochs: EpochEntry[];
  release(): void;
}

export async function exportSegment(fs: Fs, dir: string, seg: LogSegment, next: LogSegment, epochs: readonly EpochEntry[]): Promise<SegmentExport> {
  seg.pin();
  try {
    const { offsetIndex, timeIndex } = await seg.indexBytes();
    const txn = await seg.existingTxnIndex();
    const endOffset = next.baseOffset - 1;
    return {
      baseOffset: seg.baseOffset,
      endOffset,
      sizeBytes: seg.sizeBytes,
      maxTimestampMs: seg.maxTimestampSoFar,
      read: (position, length) => seg.readRaw(position, length),
      offsetIndex,
      timeIndex,
      txnIndex: TransactionIndex.encode(txn?.allEntries ?? []),
      producerSnapshot: await readFileIfExists(fs, producerSnapshotFileName(dir, next.baseOffset)),
      leaderEpochs: epochs.filter((e) => e.startOffset <= endOffset).map((e) => ({ ...e })),
      release: () => seg.unpin(),
    };
  } catch (err) {
    seg.unpin();
    throw err;
  }
}

/**
 * KIP-1241's copy lag: whether a closed segment may be copied now. Either check passing is
 * enough. A lag of 0 passes at once; -1 takes the effective local retention (local.retention.*,
 * -2 meaning retention.*), and an unlimited one (-1) does not apply that check; a positive lag
 * passes once the segment's newest record is that old (ms), or once that many bytes of newer local
 * data follow it (bytes). Kafka's RLMCopyTask.candidateLogSegments.
 */
export async function copyLagPassed(config: LogConfig, nowMs: number, segment: Pick<LogSegment, 'largestTimestamp'>, newerBytes: () => number): Promise<boolean> {
  const effective = (lag: number | undefined, local: number | undefined, total: number): number => {
    if (lag === undefined || lag !== -1) return lag ?? 0;
    return local === undefined || local === -2 ? total : local;
  };
  const lagMs = effective(config.remoteCopyLagMs, config.localRetentionMs, config.retentionMs);
  const lagBytes = effective(config.remoteCopyLagBytes, config.localRetentionBytes, config.retentionBytes);
  // The default (remote.copy.lag.ms 0) passes here, without reading the segment's timestamp.
  if (lagMs === 0 || lagBytes === 0) return true;
  if (lagMs > 0 && nowMs - (await segment.largestTimestamp()) >= lagMs) return true;
  return lagBytes > 0 && newerBytes() >= lagBytes;
}

/**
 * Tiered storage's next copy: the first closed segment of `segs` ending after `after` and wholly
 * below `below` (the last stable offset), exported and pinned; null when none, or when that
 * segment's copy lag (copyLagPassed) has not passed yet: segments are copied in order.
 */
export async function nextSegmentToCopy(fs: Fs, dir: string, segs: readonly LogSegment[], epochs: readonly EpochEntry[], after: number, below: number, lag?: { config: LogConfig; nowMs: number }): Promise<SegmentExport | null> {
  for (let i = 0; i + 1 < segs.length; i++) {
    const end = segs[i + 1].baseOffset - 1;
    if (end <= after || segs[i].sizeBytes === 0) continue;
    if (end >= below) return null;
    const newer = () => segs.slice(i + 1).reduce((n, seg) => n + seg.sizeBytes, 0);
    if (lag && !(await copyLagPassed(lag.config, lag.nowMs, segs[i], newer))) return null;
    return exportSegment(fs, dir, segs[i], segs[i + 1], epochs);
  }
  return null;
}

/** Bytes of the segments whose last offset is after `offset` (`closedOnly`: not the active one): what is not remote yet. */
export function bytesAfter(segs: readonly LogSegment[], logEndOffset: number, offset: number, closedOnly: boolean): number {
  let bytes = 0;
  for (let i = 0; i < segs.length; i++) {
    const next = segs[i + 1];
    if (!next && closedOnly) break;
    if ((next ? next.baseOffset : logEndOffset) - 1 > offset) bytes += segs[i].sizeBytes;
  }
  return bytes;
}
