/**
 * Shared machinery of the offset and time indexes (Kafka `AbstractIndex`): fixed-size entries,
 * kept in memory for binary search and written through to the file as they are appended.
 *
 * Sizing (a documented deviation): Kafka preallocates each index file to `segment.index.bytes`
 * and mmaps it, trimming it to the used size on roll and close. Node has no mmap, so Samsa keeps
 * the entries in a Buffer that grows by doubling and writes them to the file behind the appends,
 * WRITE_BEHIND_ENTRIES at a time and on sync/close (one page-cache `writeSync` per batch of
 * entries instead of one per entry: bench/storage.ts showed a per-entry 8-byte pwrite costing
 * as much as the 16 KiB log append itself). The file therefore holds exactly
 * `entries * entrySize` bytes once synced or closed, never needs trimming, and a torn tail shows
 * as a size that is not a multiple of the entry size. Entries not yet written when the process
 * dies are simply missing from a sparse index (still correct), and an unclean shutdown rebuilds
 * the indexes of the unflushed segments anyway. `segment.index.bytes` still bounds the number of
 * entries (`isFull` rolls the segment, as in Kafka).
 *
 * Indexes are derived data: no checksum; if `sanityCheck` fails the segment rebuilds them from
 * the log (LogSegment.recover). Concurrency: call only from the owning partition's serial queue,
 * except `lookup`, which only reads memory.
 */
import type { FileHandle, Fs } from './fs.js';

export class CorruptIndexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CorruptIndexError';
  }
}

/** Entries buffered in memory before they are written to the file in one call. */
export const WRITE_BEHIND_ENTRIES = 128;

/** Entries the first append of an empty index makes room for (the buffer then doubles). */
const FIRST_CAPACITY_ENTRIES = 64;

/** What an empty index holds until its first append: no memory of its own (10,000 idle partitions). */
const NO_ENTRIES = Buffer.alloc(0);

/**
 * One entry being encoded by a subclass's append, shared by every index: appends are synchronous
 * and copy it into their own buffer at once.
 */
export const ENTRY_SCRATCH = Buffer.alloc(16);

export abstract class AbstractIndex {
  protected buf: Buffer;
  protected entryCount: number;
  /** Entries already written to the file. */
  protected writtenEntries: number;
  /** Set when the file's length is not a whole number of entries (a torn write). */
  protected tornBytes: number;

  protected constructor(
    protected readonly file: FileHandle,
    readonly baseOffset: number,
    readonly maxIndexSize: number,
    protected readonly entrySize: number,
    initial: Buffer,
  ) {
    this.entryCount = Math.floor(initial.length / entrySize);
    this.tornBytes = initial.length - this.entryCount * entrySize;
    this.writtenEntries = this.entryCount;
    // Memory is allocated for the entries there are; an empty index gets its buffer with its
    // first append (most segments of an idle partition never get one).
    if (this.entryCount === 0) this.buf = NO_ENTRIES;
    else {
      this.buf = Buffer.alloc(this.entryCount * entrySize);
      initial.copy(this.buf, 0, 0, this.entryCount * entrySize);
    }
  }

  /** Bytes of memory the entries take now (tests: an empty index holds none). */
  get allocatedBytes(): number {
    return this.buf.length;
  }

  /** Opens (or creates) an index file and reads what it holds, for a subclass's `open`. */
  protected static async openFile(fs: Fs, filePath: string): Promise<{ file: FileHandle; initial: Buffer }> {
    // The entries live in memory; the file is only written back: no descriptor held meanwhile.
    if (fs.openDetachedWithContents) {
      const { file, contents } = await fs.openDetachedWithContents(filePath);
      return { file, initial: contents };
    }
    const file = await (fs.openDetached ? fs.openDetached(filePath) : fs.open(filePath));
    return { file, initial: file.size() === 0 ? Buffer.alloc(0) : await file.read(0, file.size()) };
  }

  get path(): string {
    return this.file.path;
  }

  get entries(): number {
    return this.entryCount;
  }

  get maxEntries(): number {
    return Math.floor(this.maxIndexSize / this.entrySize);
  }

  get isFull(): boolean {
    return this.entryCount >= this.maxEntries;
  }

  get sizeBytes(): number {
    return this.entryCount * this.entrySize;
  }

  /** A copy of the entries as the file holds them (without the preallocated tail): tiered storage's upload. */
  entriesBytes(): Buffer {
    return this.entryCount === 0 ? Buffer.alloc(0) : Buffer.from(this.buf.subarray(0, this.entryCount * this.entrySize));
  }

  protected relativeOffset(offset: number): number {
    const rel = offset - this.baseOffset;
    if (rel < 0 || rel > 0x7fffffff) throw new RangeError(`offset ${offset} cannot be relative to ${this.baseOffset}`);
    return rel;
  }

  /** Appends one encoded entry in memory; the file catches up every WRITE_BEHIND_ENTRIES entries. */
  protected appendEntry(entry: Buffer): void {
    const at = this.entryCount * this.entrySize;
    if (at + this.entrySize > this.buf.length) {
      const wanted = Math.max(this.buf.length * 2, this.entrySize * FIRST_CAPACITY_ENTRIES, at + this.entrySize);
      const next = Buffer.alloc(Math.min(wanted, Math.max(this.maxIndexSize, at + this.entrySize)));
      this.buf.copy(next, 0, 0, at);
      this.buf = next;
    }
    entry.copy(this.buf, at, 0, this.entrySize);
    this.entryCount++;
    if (this.entryCount - this.writtenEntries >= WRITE_BEHIND_ENTRIES) this.writePending();
  }

  /** Writes the entries not yet in the file (one write call). */
  writePending(): void {
    if (this.entryCount === this.writtenEntries && this.tornBytes === 0) return;
    const from = this.writtenEntries * this.entrySize;
    if (this.tornBytes > 0) {
      this.file.truncate(from);
      this.tornBytes = 0;
    }
    if (this.entryCount > this.writtenEntries) this.file.writeAt(this.buf.subarray(from, this.entryCount * this.entrySize), from);
    this.writtenEntries = this.entryCount;
  }

  /** Largest slot whose key (read by keyAt) is <= target, or -1. */
  protected largestLowerBound(target: number, keyAt: (slot: number) => number): number {
    let lo = 0;
    let hi = this.entryCount - 1;
    if (hi < 0 || keyAt(0) > target) return -1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (keyAt(mid) <= target) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Keeps the first n entries (file and memory). */
  protected truncateToEntries(n: number): void {
    if (n >= this.entryCount && this.tornBytes === 0) return;
    this.entryCount = Math.min(n, this.entryCount);
    if (this.writtenEntries > this.entryCount || this.tornBytes > 0) {
      this.file.truncate(this.entryCount * this.entrySize);
      this.writtenEntries = this.entryCount;
      this.tornBytes = 0;
    }
  }

  /** Drops every entry (an empty file is left as it is: no open and truncate of a new segment's index). */
  reset(): void {
    this.entryCount = 0;
    this.writtenEntries = 0;
    this.tornBytes = 0;
    if (this.file.size() > 0) this.file.truncate(0);
  }

  async sync(): Promise<void> {
    // async: a failed write of the pending entries rejects (LogSegment.flush syncs its files
    // together; a synchronous throw here would leave the .log's sync promise unhandled).
    this.writePending();
    return this.file.sync();
  }

  async close(): Promise<void> {
    try {
      this.writePending();
    } finally {
      await this.file.close();
    }
  }

  abstract sanityCheck(logSizeBytes: number): void;
}
