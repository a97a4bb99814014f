/**
 * One segment of a partition log: `<base>.log` plus its `.index`, `.timeindex` and `.txnindex`
 * (Kafka `LogSegment`). The .txnindex (aborted transactions whose marker is in this segment) is
 * opened on first use; PartitionLog appends to it and `recover()` cuts entries past the log end.
 *
 * The .log file is a concatenation of v2 record batches exactly as they were appended (the
 * bytes a producer sent, with baseOffset and partitionLeaderEpoch assigned). `read` returns slices
 * of it; nothing is decoded on the produce or fetch path.
 *
 * Indexes of the active segment are loaded when the segment is opened; those of older segments
 * are loaded on first use (Kafka's `LazyIndex`) and checked with `sanityCheck`; a failed check
 * rebuilds them by `recover()`.
 *
 * Crash behaviour: bytes past the last fsync may be missing or torn after a crash. `recover()`
 * scans the batches, truncates the file at the first one that is cut short or fails its checks
 * (length, magic, CRC-32C, offset order) and rebuilds both indexes, like Kafka's
 * `LogSegment.recover`.
 *
 * Concurrency: mutating methods (`append`, `recover`, `truncateTo`, `close`, deletion) are called
 * only from the owning PartitionLog's serial queue. `read`, `translateOffset` and the timestamp
 * searches may run concurrently with them: they capture the file size when they start and
 * `pin()` the segment so its file handle is not closed under them.
 */
import * as path from 'node:path';
import { LazyFileHandle, type FileHandle, type Fs } from './fs.js';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { CorruptIndexError } from './abstract-index.js';
import { TransactionIndex } from './txn-index.js';
import type { AbortedTxn } from './producer-state.js';
import {
  DELETED_FILE_SUFFIX,
  logFileName,
  offsetIndexFileName,
  timeIndexFileName,
  txnIndexFileName,
} from './file-names.js';
import {
  CURRENT_MAGIC,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
  baseOffset as batchBaseOffset,
  batchSize,
  lastOffsetDelta,
  maxTimestamp as batchMaxTimestamp,
  partitionLeaderEpoch,
  verifyCrc,
} from '../protocol/records/record-batch.js';
import { decodeRecordBatch } from '../protocol/records/record.js';

/** Bytes read per I/O while scanning batch headers. */
const SCAN_CHUNK_BYTES = 64 * 1024;
/** Bytes read per I/O while recovering (whole batches are checked). */
const RECOVER_CHUNK_BYTES = 1024 * 1024;

export interface SegmentConfig {
  indexIntervalBytes: number;
  segmentIndexBytes: number;
}

export interface BatchLocation {
  position: number;
  sizeBytes: number;
  baseOffset: number;
  lastOffset: number;
}

export interface TimestampSearchResult {
  offset: number;
  timestamp: number;
  leaderEpoch: number;
}

export interface RollParams {
  segmentBytes: number;
  segmentMs: number;
  nowMs: number;
  /** Max timestamp of the incoming batches. */
  maxTimestampInMessages: number;
  /** Last offset of the incoming batches. */
  maxOffsetInMessages: number;
  messagesSize: number;
}

export interface RecoverResult {
  truncatedBytes: number;
  /** Why recovery stopped early, when it truncated. */
  reason?: string;
}

export class LogSegment {
  private offsetIdx: OffsetIndex | null = null;
  private timeIdx: TimeIndex | null = null;
  private txnIdx: TransactionIndex | null = null;
  private txnIdxLoad: Promise<TransactionIndex> | null = null;
  private indexLoad: Promise<void> | null = null;
  private bytesSinceLastIndexEntry = 0;
  private maxTs = -1;
  private offsetOfMaxTs: number;
  private maxTsKnown: boolean;
  private firstBatchTs: number | null = null;
  private nextOff: number | null = null;
  /**
   * Where the last read stopped (offset of the next batch → its file position). Consumers read
   * sequentially, so the next fetch usually starts exactly there and skips the index lookup and
   * header scan. Cleared whenever the file is truncated.
   */
  private readHint: { offset: number; position: number } | null = null;
  private pins = 0;
  private unpinned: (() => void) | null = null;
  private closed = false;
  /** Incremented by every append; compared with `syncedGeneration` to know if an fsync is needed. */
  writeGeneration = 0;
  syncedGeneration = 0;
  /** `writeGeneration` at the last `flush` (log and indexes): a full flush skips an unchanged segment. */
  private flushedGeneration = 0;

  private constructor(
    private readonly fs: Fs,
    /** The partition directory; `movedTo` follows a rename of it. */
    public dir: string,
    readonly baseOffset: number,
    private log: FileHandle,
    private readonly config: SegmentConfig,
    /** Wall-clock creation (or load) time, for segment.ms when batches carry no timestamp. */
    readonly createdMs: number,
    readonly rollJitterMs: number,
    fresh: boolean,
  ) {
    this.offsetOfMaxTs = baseOffset;
    this.maxTsKnown = fresh;
    if (fresh) this.nextOff = baseOffset;
  }

  /**
   * Creates a new, empty segment (stale files with the same base offset are emptied). Its
   * `.index` and `.timeindex` files are created as Kafka creates them; with `idle` (a new or
   * emptied log, not a roll) their in-memory indexes are let go again, and the first append
   * reads the empty files back (as after a restart), so an idle partition holds no index.
   */
  static async create(opts: { fs: Fs; dir: string; baseOffset: number; config: SegmentConfig; nowMs: number; rollJitterMs?: number; idle?: boolean }): Promise<LogSegment> {
    const log = await opts.fs.open(logFileName(opts.dir, opts.baseOffset));
    if (log.size() > 0) log.truncate(0);
    const seg = new LogSegment(opts.fs, opts.dir, opts.baseOffset, log, opts.config, opts.nowMs, opts.rollJitterMs ?? 0, true);
    await seg.loadIndexes();
    seg.offsetIdx!.reset();
    seg.timeIdx!.reset();
    (await seg.existingTxnIndex())?.truncateTo(opts.baseOffset);
    if (opts.idle) await seg.releaseIndexes();
    return seg;
  }

  /** Writes back and lets go of the in-memory indexes; the next use loads them from their files. */
  private async releaseIndexes(): Promise<void> {
    const oi = this.offsetIdx;
    const ti = this.timeIdx;
    this.offsetIdx = null;
    this.timeIdx = null;
    await Promise.all([oi?.close(), ti?.close()]);
  }

  /** Opens an existing segment. Indexes load on first use. */
  static async open(opts: { fs: Fs; dir: string; baseOffset: number; config: SegmentConfig; nowMs: number; rollJitterMs?: number }): Promise<LogSegment> {
    const log = await opts.fs.open(logFileName(opts.dir, opts.baseOffset));
    return new LogSegment(opts.fs, opts.dir, opts.baseOffset, log, opts.config, opts.nowMs, opts.rollJitterMs ?? 0, false);
  }

  /**
   * An existing segment of `sizeBytes` whose .log is opened on first use (an older segment at
   * start-up: no descriptor and no read until something needs it). `openFile` before writing.
   */
  static openLazy(opts: { fs: Fs; dir: string; baseOffset: number; sizeBytes: number; config: SegmentConfig; nowMs: number; rollJitterMs?: number }): LogSegment {
    const log = new LazyFileHandle(opts.fs, logFileName(opts.dir, opts.baseOffset), opts.sizeBytes);
    return new LogSegment(opts.fs, opts.dir, opts.baseOffset, log, opts.config, opts.nowMs, opts.rollJitterMs ?? 0, false);
  }

  /** Opens the .log of a lazily opened segment (a no-op otherwise). */
  async openFile(): Promise<void> {
    if (this.log instanceof LazyFileHandle) await this.log.ensureOpen();
  }

  /** Whether the .log has a descriptor (tests: segments opened lazily). */
  get isFileOpen(): boolean {
    return !(this.log instanceof LazyFileHandle) || this.log.isOpen;
  }

  get sizeBytes(): number {
    return this.log.size();
  }

  get logPath(): string {
    return this.log.path;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Opens and sanity-checks the indexes; rebuilds them from the log if they are corrupt. */
  async loadIndexes(): Promise<void> {
    if (this.offsetIdx && this.timeIdx) return;
    this.indexLoad ??= (async () => {
      const oi = await OffsetIndex.open(this.fs, offsetIndexFileName(this.dir, this.baseOffset), this.baseOffset, this.config.segmentIndexBytes);
      const ti = await TimeIndex.open(this.fs, timeIndexFileName(this.dir, this.baseOffset), this.baseOffset, this.config.segmentIndexBytes);
      this.offsetIdx = oi;
      this.timeIdx = ti;
      try {
        oi.sanityCheck(this.log.size());
        ti.sanityCheck();
      } catch (err) {
        if (!(err instanceof CorruptIndexError)) throw err;
        await this.recover();
      }
      if (!this.maxTsKnown) {
        const last = ti.lastEntry();
        this.maxTs = last.timestamp;
        this.offsetOfMaxTs = last.offset;
        this.maxTsKnown = true;
      }
    })();
    try {
      await this.indexLoad;
    } finally {
      this.indexLoad = null;
    }
  }

  /** The aborted-transaction index, opened (and created if missing) on first use. */
  async txnIndex(): Promise<TransactionIndex> {
    if (this.txnIdx) return this.txnIdx;
    this.txnIdxLoad ??= TransactionIndex.open(this.fs, txnIndexFileName(this.dir, this.baseOffset)).then((t) => {
      this.txnIdx = t;
      return t;
    });
    return this.txnIdxLoad;
  }

  /** Adds an aborted transaction to the .txnindex (counted as a write, so the next flush syncs it). */
  async appendAbortedTxn(t: AbortedTxn): Promise<void> {
    (await this.txnIndex()).append(t);
    this.writeGeneration++;
  }

  /** The .txnindex if it exists or is open (no file is created). */
  async existingTxnIndex(): Promise<TransactionIndex | null> {
    if (this.txnIdx) return this.txnIdx;
    if (this.txnIdxLoad || (await this.fs.exists(txnIndexFileName(this.dir, this.baseOffset)))) return this.txnIndex();
    return null;
  }

  private get offsetIndex(): OffsetIndex {
    if (!this.offsetIdx) throw new Error(`indexes of segment ${this.baseOffset} are not loaded`);
    return this.offsetIdx;
  }

  private get timeIndex(): TimeIndex {
    if (!this.timeIdx) throw new Error(`indexes of segment ${this.baseOffset} are not loaded`);
    return this.timeIdx;
  }

  get indexesLoaded(): boolean {
    return this.offsetIdx !== null && this.timeIdx !== null;
  }

  /** The largest batch max timestamp in the segment (-1 if none); needs indexes loaded. */
  get maxTimestampSoFar(): number {
    return this.maxTs;
  }

  /** Last offset of the first batch carrying maxTimestampSoFar. */
  get offsetOfMaxTimestampSoFar(): number {
    return this.offsetOfMaxTs;
  }

  pin(): void {
    this.pins++;
  }

  unpin(): void {
    this.pins--;
    if (this.pins === 0 && this.unpinned) {
      const f = this.unpinned;
      this.unpinned = null;
      f();
    }
  }

  private async waitUnpinned(): Promise<void> {
    if (this.pins === 0) return;
    await new Promise<void>((resolve) => {
      this.unpinned = resolve;
    });
  }

  /**
   * Appends batches buf[start, end) (already validated, offsets assigned) at the end of the .log
   * and adds index entries every `index.interval.bytes`. Synchronous. On a write failure the
   * segment is rolled back to its previous size and the error rethrown; if even the rollback
   * fails, the error carries `rollbackFailed = true`.
   */
  append(buf: Buffer, start: number, end: number): void {
    const oi = this.offsetIndex;
    const ti = this.timeIndex;
    const startPosition = this.log.size();
    const saved = {
      bytesSince: this.bytesSinceLastIndexEntry,
      maxTs: this.maxTs,
      offsetOfMaxTs: this.offsetOfMaxTs,
      firstBatchTs: this.firstBatchTs,
      nextOff: this.nextOff,
      oiEntries: oi.entries,
      tiEntries: ti.entries,
    };
    try {
      this.log.append(start === 0 && end === buf.length ? buf : buf.subarray(start, end));
      let physical = startPosition;
      for (let pos = start; pos < end; ) {
        const size = batchSize(buf, pos);
        const last = batchBaseOffset(buf, pos) + lastOffsetDelta(buf, pos);
        const ts = batchMaxTimestamp(buf, pos);
        if (physical === 0) this.firstBatchTs = ts;
        if (ts > this.maxTs) {
          this.maxTs = ts;
          this.offsetOfMaxTs = last;
        }
        if (this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes) {
          oi.append(last, physical);
          ti.maybeAppend(this.maxTs, this.offsetOfMaxTs);
          this.bytesSinceLastIndexEntry = 0;
        }
        physical += size;
        this.bytesSinceLastIndexEntry += size;
        this.nextOff = last + 1;
        pos += size;
      }
      this.writeGeneration++;
    } catch (err) {
      this.bytesSinceLastIndexEntry = saved.bytesSince;
      this.maxTs = saved.maxTs;
      this.offsetOfMaxTs = saved.offsetOfMaxTs;
      this.firstBatchTs = saved.firstBatchTs;
      this.nextOff = saved.nextOff;
      try {
        this.log.truncate(startPosition);
        this.readHint = null;
        if (oi.entries > saved.oiEntries) oi.truncateTo(oi.entry(saved.oiEntries).offset);
        if (ti.entries > saved.tiEntries) ti.truncateTo(ti.entry(saved.tiEntries).offset);
      } catch (rollbackErr) {
        throw Object.assign(err instanceof Error ? err : new Error(String(err)), { rollbackFailed: true, rollbackError: rollbackErr });
      }
      throw err;
    }
  }

  /**
   * Visits batch headers from `fromPos` up to `endPos` (exclusive). `visit` gets a buffer holding
   * at least the 61-byte header at `off`, the batch's file position and size; it returns false to
   * stop. Stops silently at a header that is cut short.
   */
  private async scanHeaders(fromPos: number, endPos: number, visit: (chunk: Buffer, off: number, filePos: number, size: number) => boolean): Promise<void> {
    let pos = fromPos;
    while (endPos - pos >= RECORD_BATCH_OVERHEAD) {
      const chunk = await this.log.read(pos, Math.min(SCAN_CHUNK_BYTES, endPos - pos));
      let off = 0;
      while (chunk.length - off >= RECORD_BATCH_OVERHEAD) {
        const size = batchSize(chunk, off);
        if (size < RECORD_BATCH_OVERHEAD) return;
        if (!visit(chunk, off, pos + off, size)) return;
        off += size;
      }
      if (off === 0) return;
      pos += off;
    }
  }

  /**
   * The first batch at or after `startingPosition` whose last offset is >= `offset` (Kafka
   * `translateOffset`), within the first `endPos` bytes; null if none.
   */
  async translateOffset(offset: number, startingPosition = 0, endPos = this.log.size()): Promise<BatchLocation | null> {
    let found: BatchLocation | null = null;
    await this.scanHeaders(startingPosition, endPos, (chunk, off, filePos, size) => {
      const base = batchBaseOffset(chunk, off);
      const last = base + lastOffsetDelta(chunk, off);
      if (last >= offset) {
        if (filePos + size <= endPos) found = { position: filePos, sizeBytes: size, baseOffset: base, lastOffset: last };
        return false;
      }
      return true;
    });
    return found;
  }

  /**
   * Reads whole batches starting with the one that contains `startOffset`: at most `maxBytes`,
   * except that with `minOneMessage` the first batch is returned whole even when larger. Batches
   * whose base offset is >= `maxOffset` are not returned. Returns null when the segment holds no
   * batch with last offset >= startOffset; an empty Buffer when nothing fits.
   */
  async read(startOffset: number, maxBytes: number, opts: { minOneMessage: boolean; maxOffset?: number; alloc?: (n: number) => Buffer }): Promise<Buffer | null> {
    this.pin();
    try {
      // An empty segment has nothing to find: its indexes stay unread (idle partitions polled).
      if (this.log.size() === 0) return null;
      await this.loadIndexes();
      const endPos = this.log.size();
      const maxOffset = opts.maxOffset ?? Number.MAX_SAFE_INTEGER;
      let data: Buffer;
      let position: number;
      const hint = this.readHint;
      if (hint && hint.offset === startOffset && hint.position < endPos) {
        // Sequential read: the batch at `startOffset` starts exactly at the hinted position.
        position = hint.position;
        data = await this.log.read(position, Math.min(Math.max(maxBytes, RECORD_BATCH_OVERHEAD), endPos - position), opts.alloc);
        if (data.length < RECORD_BATCH_OVERHEAD) return null;
        const firstSize = batchSize(data, 0);
        if (batchBaseOffset(data, 0) >= maxOffset) return Buffer.alloc(0);
        if (firstSize > data.length) {
          if (!opts.minOneMessage || firstSize > endPos - position) return Buffer.alloc(0);
          data = await this.log.read(position, firstSize, opts.alloc);
        }
      } else {
        const startPos = this.offsetIndex.lookup(startOffset).position;
        const first = await this.translateOffset(startOffset, startPos, endPos);
        if (!first) return null;
        if (first.baseOffset >= maxOffset) return Buffer.alloc(0);
        let want = opts.minOneMessage ? Math.max(maxBytes, first.sizeBytes) : maxBytes;
        want = Math.min(want, endPos - first.position);
        if (want < first.sizeBytes) return Buffer.alloc(0);
        position = first.position;
        data = await this.log.read(position, want, opts.alloc);
      }
      let end = 0;
      let nextOffset = -1;
      while (data.length - end >= RECORD_BATCH_OVERHEAD) {
        const size = batchSize(data, end);
        if (size < RECORD_BATCH_OVERHEAD || end + size > data.length) break;
        if (batchBaseOffset(data, end) >= maxOffset) break;
        nextOffset = batchBaseOffset(data, end) + lastOffsetDelta(data, end) + 1;
        end += size;
      }
      if (nextOffset >= 0) this.readHint = { offset: nextOffset, position: position + end };
      return end === data.length ? data : data.subarray(0, end);
    } finally {
      this.unpin();
    }
  }

  /** Offset after the last batch (Kafka `readNextOffset`): index hint, then a header scan. */
  async readNextOffset(): Promise<number> {
    if (this.nextOff !== null) return this.nextOff;
    if (this.log.size() === 0) {
      // Nothing to scan: the indexes stay unread until something uses them (thousands of idle
      // partitions start without opening theirs).
      this.nextOff = this.baseOffset;
      return this.nextOff;
    }
    await this.loadIndexes();
    if (this.nextOff !== null) return this.nextOff;
    const hint = this.offsetIndex.lookup(Number.MAX_SAFE_INTEGER);
    let next = this.baseOffset;
    await this.scanHeaders(hint.position, this.log.size(), (chunk, off) => {
      next = batchBaseOffset(chunk, off) + lastOffsetDelta(chunk, off) + 1;
      return true;
    });
    this.nextOff = next;
    return next;
  }

  /** Max timestamp of the first batch (Kafka's `rollingBasedTimestamp`), or -1. */
  private async firstBatchTimestamp(): Promise<number> {
    if (this.firstBatchTs !== null) return this.firstBatchTs;
    if (this.log.size() < RECORD_BATCH_OVERHEAD) return -1;
    const header = await this.log.read(0, RECORD_BATCH_OVERHEAD);
    this.firstBatchTs = header.length === RECORD_BATCH_OVERHEAD ? batchMaxTimestamp(header, 0) : -1;
    return this.firstBatchTs;
  }

  /** Kafka `LogSegment.shouldRoll`; loads the indexes if they are not yet (before the first append). */
  async shouldRoll(p: RollParams): Promise<boolean> {
    // An empty active segment's indexes are loaded by the first append that asks (see readNextOffset).
    if (!this.offsetIdx || !this.timeIdx) await this.loadIndexes();
    const size = this.log.size();
    if (size === 0) return false;
    if (size > p.segmentBytes - p.messagesSize) return true;
    if (this.offsetIndex.isFull || this.timeIndex.isFull) return true;
    if (p.maxOffsetInMessages - this.baseOffset > 0x7fffffff) return true;
    const firstTs = await this.firstBatchTimestamp();
    const waited = firstTs >= 0 ? p.maxTimestampInMessages - firstTs : p.nowMs - this.createdMs;
    return waited > p.segmentMs - this.rollJitterMs;
  }

  /**
   * Finds the first record with timestamp >= target and offset >= startingOffset (Kafka
   * `LogSegment.findOffsetByTimestamp` + `FileRecords.searchForTimestamp`). Decodes only the one
   * batch that contains it.
   */
  async findOffsetByTimestamp(target: number, startingOffset: number): Promise<TimestampSearchResult | null> {
    this.pin();
    try {
      await this.loadIndexes();
      const endPos = this.log.size();
      const hint = this.timeIndex.lookup(target);
      const startPos = this.offsetIndex.lookup(Math.max(hint.offset, startingOffset)).position;
      let loc: BatchLocation | null = null;
      await this.scanHeaders(startPos, endPos, (chunk, off, filePos, size) => {
        const base = batchBaseOffset(chunk, off);
        const last = base + lastOffsetDelta(chunk, off);
        if (last >= startingOffset && batchMaxTimestamp(chunk, off) >= target) {
          loc = { position: filePos, sizeBytes: size, baseOffset: base, lastOffset: last };
          return false;
        }
        return true;
      });
      if (!loc) return null;
      const found: BatchLocation = loc;
      const bytes = await this.log.read(found.position, found.sizeBytes);
      return searchBatch(bytes, (ts, offset) => ts >= target && offset >= startingOffset);
    } finally {
      this.unpin();
    }
  }

  /** The first record carrying this segment's max timestamp (ListOffsets MAX_TIMESTAMP); null if empty. */
  async findMaxTimestampRecord(): Promise<TimestampSearchResult | null> {
    this.pin();
    try {
      await this.loadIndexes();
      if (this.log.size() === 0 || this.maxTs < 0) return null;
      const target = this.maxTs;
      const startPos = this.offsetIndex.lookup(this.timeIndex.lookup(target - 1).offset).position;
      let loc: BatchLocation | null = null;
      await this.scanHeaders(startPos, this.log.size(), (chunk, off, filePos, size) => {
        if (batchMaxTimestamp(chunk, off) === target) {
          const base = batchBaseOffset(chunk, off);
          loc = { position: filePos, sizeBytes: size, baseOffset: base, lastOffset: base + lastOffsetDelta(chunk, off) };
          return false;
        }
        return true;
      });
      if (!loc) return null;
      const found: BatchLocation = loc;
      const bytes = await this.log.read(found.position, found.sizeBytes);
      return searchBatch(bytes, (ts) => ts === target);
    } finally {
      this.unpin();
    }
  }

  /**
   * Rebuilds the indexes by scanning every batch; truncates the .log at the first batch that is
   * torn or invalid (Kafka `LogSegment.recover`). `onBatch` sees each valid batch (leader epochs).
   */
  async recover(onBatch?: (buf: Buffer, pos: number) => void): Promise<RecoverResult> {
    await this.openFile();
    if (!this.offsetIdx || !this.timeIdx) {
      this.offsetIdx = await OffsetIndex.open(this.fs, offsetIndexFileName(this.dir, this.baseOffset), this.baseOffset, this.config.segmentIndexBytes);
      this.timeIdx = await TimeIndex.open(this.fs, timeIndexFileName(this.dir, this.baseOffset), this.baseOffset, this.config.segmentIndexBytes);
    }
    const oi = this.offsetIdx;
    const ti = this.timeIdx;
    oi.reset();
    ti.reset();
    this.maxTs = -1;
    this.offsetOfMaxTs = this.baseOffset;
    this.firstBatchTs = null;
    const fileSize = this.log.size();
    let pos = 0;
    let lastIndexEntry = 0;
    let nextOffset = this.baseOffset;
    let reason: string | undefined;
    let chunk: Buffer = Buffer.alloc(0);
    let chunkStart = 0;

    while (pos < fileSize) {
      if (fileSize - pos < RECORD_BATCH_OVERHEAD) { reason = `torn batch header at ${pos}`; break; }
      if (pos + RECORD_BATCH_OVERHEAD > chunkStart + chunk.length) {
        chunk = await this.log.read(pos, Math.min(RECOVER_CHUNK_BYTES, fileSize - pos));
        chunkStart = pos;
      }
      let at = pos - chunkStart;
      const size = batchSize(chunk, at);
      if (size < RECORD_BATCH_OVERHEAD) { reason = `batch length ${size - LOG_OVERHEAD} at ${pos}`; break; }
      if (pos + size > fileSize) { reason = `batch at ${pos} cut short (${size} bytes declared, ${fileSize - pos} present)`; break; }
      if (pos + size > chunkStart + chunk.length) {
        chunk = await this.log.read(pos, Math.max(size, Math.min(RECOVER_CHUNK_BYTES, fileSize - pos)));
        chunkStart = pos;
        at = 0;
      }
      if (chunk[at + MAGIC_OFFSET] !== CURRENT_MAGIC) { reason = `magic ${chunk[at + MAGIC_OFFSET]} at ${pos}`; break; }
      const base = batchBaseOffset(chunk, at);
      const delta = lastOffsetDelta(chunk, at);
      const last = base + delta;
      if (base < nextOffset || delta < 0 || last - this.baseOffset > 0x7fffffff) { reason = `batch offsets ${base}..${last} out of order at ${pos}`; break; }
      if (!verifyCrc(chunk, at)) { reason = `CRC mismatch in batch at ${pos}`; break; }
      const ts = batchMaxTimestamp(chunk, at);
      if (pos === 0) this.firstBatchTs = ts;
      if (ts > this.maxTs) {
        this.maxTs = ts;
        this.offsetOfMaxTs = last;
      }
      if (pos - lastIndexEntry > this.config.indexIntervalBytes) {
        oi.append(last, pos);
        ti.maybeAppend(this.maxTs, this.offsetOfMaxTs);
        lastIndexEntry = pos;
      }
      onBatch?.(chunk, at);
      nextOffset = last + 1;
      pos += size;
    }
    const validBytes = pos;

    const truncatedBytes = fileSize - validBytes;
    if (truncatedBytes > 0) this.log.truncate(validBytes);
    this.readHint = null;
    ti.maybeAppend(this.maxTs, this.offsetOfMaxTs, true);
    this.bytesSinceLastIndexEntry = validBytes - lastIndexEntry;
    this.nextOff = nextOffset;
    this.maxTsKnown = true;
    this.writeGeneration++;
    (await this.existingTxnIndex())?.truncateTo(nextOffset);
    return { truncatedBytes, reason: truncatedBytes > 0 ? reason : undefined };
  }

  /**
   * Removes every batch whose last offset is >= `offset` (the batch containing `offset` goes
   * too, as in Kafka's `LogSegment.truncateTo`). Returns the bytes removed.
   */
  async truncateTo(offset: number): Promise<number> {
    await this.openFile();
    await this.loadIndexes();
    const loc = await this.translateOffset(offset, this.offsetIndex.lookup(offset).position);
    if (!loc) return 0;
    const before = this.log.size();
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    this.log.truncate(loc.position);
    this.readHint = null;
    // Recompute the max timestamp and next offset from what is left.
    await this.recover();
    return before - this.log.size();
  }

  /** Bytes [position, position + length) of the .log as stored (tiered storage's upload reads it in parts). */
  async readRaw(position: number, length: number): Promise<Buffer> {
    await this.openFile();
    return this.log.read(position, length);
  }

  /** The offset and time index entries as their files hold them (tiered storage's upload). */
  async indexBytes(): Promise<{ offsetIndex: Buffer; timeIndex: Buffer }> {
    await this.loadIndexes();
    return { offsetIndex: this.offsetIndex.entriesBytes(), timeIndex: this.timeIndex.entriesBytes() };
  }

  /** Kafka `onBecomeInactiveSegment`: make the last time-index entry carry the final max timestamp. */
  onBecomeInactive(): void {
    if (this.timeIdx) this.timeIdx.maybeAppend(this.maxTs, this.offsetOfMaxTs, true);
  }

  /** fsyncs the .log only (what an acknowledged write needs; indexes are rebuildable). */
  async syncLog(): Promise<void> {
    const gen = this.writeGeneration;
    this.pin();
    try {
      await this.log.sync();
    } finally {
      this.unpin();
    }
    if (gen > this.syncedGeneration) this.syncedGeneration = gen;
  }

  /** fsyncs the .log and both indexes. */
  async flush(): Promise<void> {
    this.pin();
    try {
      const gen = this.writeGeneration;
      await Promise.all([this.log.sync(), this.offsetIdx?.sync(), this.timeIdx?.sync(), this.txnIdx?.sync()]);
      if (gen > this.syncedGeneration) this.syncedGeneration = gen;
      if (gen > this.flushedGeneration) this.flushedGeneration = gen;
    } finally {
      this.unpin();
    }
  }

  get needsSync(): boolean {
    return this.writeGeneration > this.syncedGeneration;
  }

  /**
   * Something was written (log, indexes) since the last `flush`, or since the segment was opened:
   * a stop of thousands of idle partitions then fsyncs none of their files.
   */
  get needsFlush(): boolean {
    return this.writeGeneration > this.flushedGeneration;
  }

  /** Wall-clock-ish age for retention.ms: the largest timestamp, else the file's mtime (Kafka `largestTimestamp`). */
  async largestTimestamp(): Promise<number> {
    await this.loadIndexes();
    if (this.maxTs >= 0) return this.maxTs;
    const st = await this.fs.stat(this.log.path);
    return st.mtimeMs;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onBecomeInactive();
    await this.waitUnpinned();
    const txn = this.txnIdx ?? (this.txnIdxLoad ? await this.txnIdxLoad.catch(() => null) : null);
    await Promise.all([this.log.close(), this.offsetIdx?.close(), this.timeIdx?.close(), txn?.close()]);
  }

  /**
   * Kafka's updateParentDir: the partition directory was renamed to `dir` (the old copy of a
   * replica moved between log dirs, log-dir-move.ts); files opened from now on are found there.
   */
  movedTo(dir: string): void {
    this.dir = dir;
    if (this.log instanceof LazyFileHandle && !this.log.isOpen) this.log.path = logFileName(dir, this.baseOffset);
  }

  /** Renames the segment's files with the `.deleted` suffix (Kafka's asynchronous delete, step 1). */
  async renameToDeleted(): Promise<void> {
    for (const file of this.filePaths()) {
      if (await this.fs.exists(file)) await this.fs.rename(file, file + DELETED_FILE_SUFFIX);
    }
  }

  /** Closes the handles (after in-flight reads) and unlinks the files (renamed or not). */
  async deleteFiles(): Promise<void> {
    await this.close();
    for (const file of this.filePaths()) {
      for (const p of [file, file + DELETED_FILE_SUFFIX]) {
        if (await this.fs.exists(p)) await this.fs.unlink(p);
      }
    }
  }

  private filePaths(): string[] {
    return [
      logFileName(this.dir, this.baseOffset),
      offsetIndexFileName(this.dir, this.baseOffset),
      timeIndexFileName(this.dir, this.baseOffset),
      txnIndexFileName(this.dir, this.baseOffset),
    ];
  }

  toString(): string {
    return `LogSegment(${path.basename(this.log.path)}, size=${this.log.size()})`;
  }
}

/**
 * Finds the first record of the batch in `bytes` (at 0) matching `match(timestamp, offset)`.
 * LogAppendTime batches carry one timestamp for every record; compressed batches are decoded.
 */
export function searchBatch(bytes: Buffer, match: (timestamp: number, offset: number) => boolean): TimestampSearchResult | null {
  const leaderEpoch = partitionLeaderEpoch(bytes, 0);
  const logAppend = (bytes[22] & 0x08) !== 0;
  if (logAppend) {
    const ts = batchMaxTimestamp(bytes, 0);
    const base = batchBaseOffset(bytes, 0);
    const last = base + lastOffsetDelta(bytes, 0);
    for (let o = base; o <= last; o++) if (match(ts, o)) return { offset: o, timestamp: ts, leaderEpoch };
    return null;
  }
  const decoded = decodeRecordBatch(bytes, 0);
  for (const r of decoded.records) {
    const ts = Number(r.timestamp);
    const offset = Number(r.offset);
    if (match(ts, offset)) return { offset, timestamp: ts, leaderEpoch };
  }
  return null;
}
