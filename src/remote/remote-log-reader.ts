/**
 * Reads of offsets only the remote tier holds (Kafka's RemoteLogManager.read and
 * RemoteIndexCache): a Fetch below the local log start, the aborted transactions of such a read,
 * and ListOffsets by timestamp over remote segments.
 *
 * A read finds the segment holding the offset, looks the offset up in the segment's offset index
 * (fetched whole once and cached), then reads the .log with ranged GETs of `chunkBytes`-aligned
 * chunks through a byte-bounded LRU cache (so a consumer reading on sequentially costs one GET per
 * chunk, not per fetch), and answers whole batches from the batch holding the offset, at most
 * `maxBytes` (but the first whole), within that one segment, as Kafka does.
 *
 * The cache is shared by every partition; concurrent misses of one chunk share one GET.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { baseOffset as batchBaseOffset, lastOffsetDelta, maxTimestamp as batchMaxTimestamp } from '../protocol/records/record-batch.js';
import type { AbortedTxn } from '../storage/producer-state.js';
import type { TimestampAndOffset } from '../storage/log-config.js';
import { TransactionIndex, collectAbortedIn } from '../storage/txn-index.js';
import { searchBatch } from '../storage/log-segment.js';
import type { ObjectStore } from './object-store.js';
import { segmentKey, type RemoteSegment, type SegmentExt } from './remote-segment.js';
import type { RemotePartitionState } from './remote-log-manager.js';

const HEADER = 12;

/** A byte-bounded LRU of object chunks (Map order is recency). */
class ChunkCache {
  private readonly entries = new Map<string, Buffer>();
  private readonly loading = new Map<string, Promise<Buffer>>();
  private bytes = 0;
  hits = 0;
  misses = 0;

  constructor(private readonly maxBytes: number) {}

  get sizeBytes(): number {
    return this.bytes;
  }

  async get(key: string, load: () => Promise<Buffer>): Promise<Buffer> {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      this.hits++;
      return hit;
    }
    const pending = this.loading.get(key);
    if (pending) return pending;
    this.misses++;
    const p = load().then((buf) => {
      this.put(key, buf);
      return buf;
    }).finally(() => this.loading.delete(key));
    this.loading.set(key, p);
    return p;
  }

  private put(key: string, buf: Buffer): void {
    if (buf.length > this.maxBytes) return;
    this.entries.set(key, buf);
    this.bytes += buf.length;
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.length;
    }
  }
}

export interface RemoteReaderOptions {
  cacheBytes: number;
  chunkBytes: number;
  /** Counted into the manager's metrics. */
  onFetched?: (bytes: number) => void;
  /** Fetch the chunk after the one a read ended in (default true). */
  readAhead?: boolean;
}

export class RemoteLogReader {
  private readonly cache: ChunkCache;

  constructor(private readonly store: ObjectStore, private readonly opts: RemoteReaderOptions) {
    this.cache = new ChunkCache(opts.cacheBytes);
  }

  get cacheSizeBytes(): number {
    return this.cache.sizeBytes;
  }

  get cacheStats(): { hits: number; misses: number } {
    return { hits: this.cache.hits, misses: this.cache.misses };
  }

  private whole(state: RemotePartitionState, seg: RemoteSegment, ext: SegmentExt): Promise<Buffer> {
    const key = segmentKey(state.prefix, seg, ext);
    return this.cache.get(key, () => this.store.get(key));
  }

  /** Bytes [start, end) of the segment's .log, through the chunk cache. */
  private async logBytes(state: RemotePartitionState, seg: RemoteSegment, start: number, end: number): Promise<Buffer> {
    end = Math.min(end, seg.sizeBytes);
    if (end <= start) return Buffer.alloc(0);
    const size = this.opts.chunkBytes;
    const key = segmentKey(state.prefix, seg, 'log');
    const load = (c: number) => this.cache.get(`${key}#${c}`, async () => {
      const b = await this.store.get(key, { start: c * size, end: Math.min((c + 1) * size, seg.sizeBytes) });
      this.opts.onFetched?.(b.length);
      return b;
    });
    const parts: Buffer[] = [];
    let c = Math.floor(start / size);
    for (; c * size < end; c++) {
      const chunk = await load(c);
      parts.push(chunk.subarray(Math.max(0, start - c * size), Math.min(chunk.length, end - c * size)));
    }
    // Read-ahead: a consumer reading on needs the next chunk soon; its GET overlaps this answer.
    if (c * size < seg.sizeBytes && this.opts.readAhead !== false) load(c).catch(() => undefined);
    return parts.length === 1 ? parts[0] : Buffer.concat(parts);
  }

  /** The file position of the last index entry at or below `offset` (Kafka's OffsetIndex.lookup). */
  private async positionOf(state: RemotePartitionState, seg: RemoteSegment, offset: number): Promise<number> {
    const index = await this.whole(state, seg, 'index');
    const rel = offset - seg.baseOffset;
    let lo = 0;
    let hi = Math.floor(index.length / 8) - 1;
    let pos = 0;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (index.readInt32BE(mid * 8) <= rel) {
        pos = index.readInt32BE(mid * 8 + 4);
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return pos;
  }

  /**
   * Whole batches from the one holding `fetchOffset`, within one remote segment, at most
   * `maxBytes` (the first whole when `minOneMessage`). OFFSET_OUT_OF_RANGE when no remote segment
   * holds the offset.
   */
  async read(state: RemotePartitionState, fetchOffset: number, maxBytes: number, minOneMessage: boolean): Promise<{ records: Buffer[]; sizeBytes: number }> {
    // Before the first listing (the store unreachable since start-up) "out of range" would make
    // consumers reset their position: a retriable error instead.
    if (!state.loaded) throw new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `the remote tier of ${state.prefix} is not listed yet`);
    const seg = state.find(fetchOffset);
    if (!seg) throw new KafkaApiError(ErrorCode.OFFSET_OUT_OF_RANGE, `no remote segment holds offset ${fetchOffset}`);
    let pos = await this.positionOf(state, seg, fetchOffset);
    // Skip the batches ending before the offset (headers only).
    for (;;) {
      if (pos + HEADER > seg.sizeBytes) return { records: [], sizeBytes: 0 };
      const head = await this.logBytes(state, seg, pos, pos + 27);
      const size = HEADER + head.readInt32BE(8);
      if (batchBaseOffset(head, 0) + lastOffsetDelta(head, 0) >= fetchOffset) break;
      pos += size;
    }
    // Then whole batches within the budget.
    let end = pos;
    while (end + HEADER <= seg.sizeBytes) {
      const head = await this.logBytes(state, seg, end, end + HEADER);
      const size = HEADER + head.readInt32BE(8);
      if (end + size > seg.sizeBytes) break;
      if (end - pos + size > maxBytes && !(minOneMessage && end === pos)) break;
      end += size;
    }
    if (end === pos) return { records: [], sizeBytes: 0 };
    const bytes = await this.logBytes(state, seg, pos, end);
    return { records: [bytes], sizeBytes: bytes.length };
  }

  /**
   * Aborted transactions overlapping [fetchOffset, upperBoundOffset) from the remote segments'
   * .txnindex copies; `complete` when no later segment (remote or local) can hold more.
   */
  async collectAborted(state: RemotePartitionState, fetchOffset: number, upperBoundOffset: number): Promise<{ aborted: AbortedTxn[]; complete: boolean }> {
    const aborted: AbortedTxn[] = [];
    for (const seg of state.segments) {
      if (seg.endOffset < fetchOffset) continue;
      if (seg.baseOffset >= upperBoundOffset) return { aborted, complete: true };
      const r = collectAbortedIn(TransactionIndex.parse(await this.whole(state, seg, 'txnindex')), fetchOffset, upperBoundOffset);
      aborted.push(...r.aborted);
      if (r.complete) return { aborted, complete: true };
    }
    return { aborted, complete: false };
  }

  /** ListOffsets by timestamp over the remote tier: the first record at or after `timestampMs` (null: none remote). */
  async offsetForTimestamp(state: RemotePartitionState, timestampMs: number, startOffset: number): Promise<TimestampAndOffset | null> {
    for (const seg of state.segments) {
      if (seg.endOffset < startOffset || seg.maxTimestampMs < timestampMs) continue;
      let pos = 0;
      while (pos + HEADER <= seg.sizeBytes) {
        const head = await this.logBytes(state, seg, pos, pos + 61);
        const size = HEADER + head.readInt32BE(8);
        const last = batchBaseOffset(head, 0) + lastOffsetDelta(head, 0);
        if (last >= startOffset && batchMaxTimestamp(head, 0) >= timestampMs) {
          const found = searchBatch(await this.logBytes(state, seg, pos, pos + size), (ts, o) => ts >= timestampMs && o >= startOffset);
          if (found) return found;
        }
        pos += size;
      }
    }
    return null;
  }
}
