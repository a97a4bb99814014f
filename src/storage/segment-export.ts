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
 * Tiered storage's next copy: the first closed segment of `segs` ending after `after` and wholly
 * below `below` (the last stable offset), exported and pinned; null when none.
 */
export function nextSegmentToCopy(fs: Fs, dir: string, segs: readonly LogSegment[], epochs: readonly EpochEntry[], after: number, below: number): Promise<SegmentExport | null> {
  for (let i = 0; i + 1 < segs.length; i++) {
    const end = segs[i + 1].baseOffset - 1;
    if (end <= after || segs[i].sizeBytes === 0) continue;
    if (end >= below) return Promise.resolve(null);
    return exportSegment(fs, dir, segs[i], segs[i + 1], epochs);
  }
  return Promise.resolve(null);
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
