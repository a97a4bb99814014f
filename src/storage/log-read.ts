/**
 * The read side of a partition log over a snapshot of its segment list (LocalLog replaces the
 * list, never mutates it, so a reader keeps a consistent view): batches for Fetch, aborted
 * transactions for read_committed, and the timestamp lookups of ListOffsets. Each function pins
 * the segments it touches so that retention or truncation cannot close a file under it.
 */
import type { LogSegment } from './log-segment.js';
import type { ReadResult, TimestampAndOffset } from './log-config.js';
import type { AbortedTxn } from './producer-state.js';
import { floorSegmentIndex } from './log-loader.js';
import { lastOffsetOfBatches } from '../protocol/records/record-batch.js';

/**
 * Whole batches from the one containing `fetchOffset` (already checked to lie in the log), at most
 * `maxBytes` (but the first batch whole when `minOneMessage`), never batches starting at or after
 * `limit`. Continues into following segments while bytes remain. Buffers are slices of what was
 * read from the segment files, not decoded.
 */
export async function readBatches(
  segs: readonly LogSegment[], fetchOffset: number, maxBytes: number, limit: number,
  opts: { minOneMessage: boolean; alloc?: (n: number) => Buffer },
): Promise<ReadResult> {
  if (fetchOffset >= limit) return { records: [], sizeBytes: 0 };
  let idx = floorSegmentIndex(segs, fetchOffset);
  if (idx < 0) idx = 0;
  const pinned = segs.slice(idx);
  for (const s of pinned) s.pin();
  try {
    const records: Buffer[] = [];
    let sizeBytes = 0;
    let offset = fetchOffset;
    for (const seg of pinned) {
      if (seg.baseOffset >= limit) break;
      const remaining = maxBytes - sizeBytes;
      const first = records.length === 0;
      if (!first && remaining <= 0) break;
      const data = await seg.read(offset, Math.max(0, remaining), { minOneMessage: opts.minOneMessage && first, maxOffset: limit, alloc: opts.alloc });
      if (data === null) continue;
      if (data.length === 0) break;
      records.push(data);
      sizeBytes += data.length;
      offset = lastOffsetOfBatches(data) + 1;
      if (offset >= limit) break;
    }
    return { records, sizeBytes };
  } finally {
    for (const s of pinned) s.unpin();
  }
}

/** Aborted transactions overlapping [fetchOffset, upperBoundOffset) (Kafka `collectAbortedTransactions`). */
export async function collectAbortedTransactions(segs: readonly LogSegment[], fetchOffset: number, upperBoundOffset: number): Promise<AbortedTxn[]> {
  const out: AbortedTxn[] = [];
  for (let i = Math.max(0, floorSegmentIndex(segs, fetchOffset)); i < segs.length; i++) {
    const seg = segs[i];
    if (seg.isClosed) continue;
    const idx = await seg.existingTxnIndex();
    if (!idx) continue;
    const r = idx.collect(fetchOffset, upperBoundOffset);
    out.push(...r.aborted);
    if (r.complete) break;
  }
  return out;
}

/**
 * ListOffsets by timestamp: the first record (not batch) with timestamp >= `timestampMs` and
 * offset >= `startOffset`; null when there is none below `highWatermark` (behaviours.md L8–L10).
 */
export async function offsetForTimestamp(segs: readonly LogSegment[], startOffset: number, highWatermark: () => number, timestampMs: number): Promise<TimestampAndOffset | null> {
  for (const s of segs) s.pin();
  try {
    for (const seg of segs) {
      if (seg.isClosed) continue;
      await seg.loadIndexes();
      if (seg.maxTimestampSoFar < timestampMs) continue;
      const found = await seg.findOffsetByTimestamp(timestampMs, startOffset);
      if (found) return found.offset < highWatermark() ? found : null;
    }
    return null;
  } finally {
    for (const s of segs) s.unpin();
  }
}

/** ListOffsets MAX_TIMESTAMP (-3): the first record carrying the largest timestamp; -1/-1 when empty. */
export async function maxTimestampAndOffset(segs: readonly LogSegment[]): Promise<TimestampAndOffset> {
  for (const s of segs) s.pin();
  try {
    let best: LogSegment | null = null;
    for (const seg of segs) {
      if (seg.isClosed) continue;
      await seg.loadIndexes();
      if (seg.sizeBytes > 0 && seg.maxTimestampSoFar >= 0 && (!best || seg.maxTimestampSoFar > best.maxTimestampSoFar)) best = seg;
    }
    const found = best ? await best.findMaxTimestampRecord() : null;
    return found ?? { offset: -1, timestamp: -1, leaderEpoch: -1 };
  } finally {
    for (const s of segs) s.unpin();
  }
}

/** Recycled memory that segment reads may go into (network/read-slabs.ts lends it per response). */
export interface ReadBuffers {
  /** A buffer of exactly `n` bytes, valid until the response has been written. */
  alloc(n: number): Buffer;
  /** Forget every buffer handed out so far (their content is no longer needed): reuse the space. */
  reset(): void;
}
