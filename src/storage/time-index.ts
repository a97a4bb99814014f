/**
 * `<baseOffset>.timeindex`: a sparse map from timestamp to offset (Kafka `TimeIndex`).
 *
 * Entry (12 bytes, big-endian): timestamp int64, relative offset int32. An entry (T, o) says: the
 * largest timestamp among batches up to and including offset o is T. Entries are only added when
 * the timestamp grows, so timestamps and offsets both strictly increase. `lookup(t)` returns the
 * entry with the largest timestamp <= t (or (-1, baseOffset)); every batch before that entry's
 * batch has a max timestamp below t, so a scan from there finds the first batch with
 * maxTimestamp >= t.
 */
import { AbstractIndex, CorruptIndexError, ENTRY_SCRATCH } from './abstract-index.js';
import type { FileHandle, Fs } from './fs.js';
import { readInt64AsNumber, writeInt64FromNumber } from '../protocol/records/record-batch.js';

export interface TimestampOffset {
  timestamp: number;
  offset: number;
}

export class TimeIndex extends AbstractIndex {
  static readonly ENTRY_SIZE = 12;

  static async open(fs: Fs, filePath: string, baseOffset: number, maxIndexSize: number): Promise<TimeIndex> {
    const { file, initial } = await AbstractIndex.openFile(fs, filePath);
    return new TimeIndex(file, baseOffset, maxIndexSize, initial);
  }

  private constructor(file: FileHandle, baseOffset: number, maxIndexSize: number, initial: Buffer) {
    super(file, baseOffset, maxIndexSize, TimeIndex.ENTRY_SIZE, initial);
  }

  private timestampAt(slot: number): number {
    return readInt64AsNumber(this.buf, slot * 12);
  }

  private relOffsetAt(slot: number): number {
    return this.buf.readInt32BE(slot * 12 + 8);
  }

  entry(slot: number): TimestampOffset {
    return { timestamp: this.timestampAt(slot), offset: this.baseOffset + this.relOffsetAt(slot) };
  }

  /** The last entry, or (-1, baseOffset) when empty. */
  lastEntry(): TimestampOffset {
    return this.entryCount === 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(this.entryCount - 1);
  }

  /**
   * Appends (timestamp, offset) if the timestamp is above the last entry's (Kafka `maybeAppend`).
   * `skipFullCheck` lets the final entry of a segment being rolled go in even when full.
   */
  maybeAppend(timestamp: number, offset: number, skipFullCheck = false): void {
    if (!skipFullCheck && this.isFull) throw new RangeError(`time index ${this.path} is full`);
    const last = this.lastEntry();
    if (this.entryCount > 0 && (timestamp <= last.timestamp || offset < last.offset)) return;
    if (this.entryCount === 0 && timestamp < 0) return;
    writeInt64FromNumber(ENTRY_SCRATCH, 0, timestamp);
    ENTRY_SCRATCH.writeInt32BE(this.relativeOffset(offset), 8);
    this.appendEntry(ENTRY_SCRATCH);
  }

  /** The entry with the largest timestamp <= target, or (-1, baseOffset). */
  lookup(targetTimestamp: number): TimestampOffset {
    const slot = this.largestLowerBound(targetTimestamp, (s) => this.timestampAt(s));
    return slot < 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(slot);
  }

  /** Removes entries whose offset >= `offset`. */
  truncateTo(offset: number): void {
    let n = this.entryCount;
    while (n > 0 && this.baseOffset + this.relOffsetAt(n - 1) >= offset) n--;
    this.truncateToEntries(n);
  }

  sanityCheck(): void {
    if (this.tornBytes !== 0) throw new CorruptIndexError(`${this.path}: length is not a multiple of ${this.entrySize}`);
    let prevTs = -Infinity;
    let prevRel = -1;
    for (let s = 0; s < this.entryCount; s++) {
      const ts = this.timestampAt(s);
      const rel = this.relOffsetAt(s);
      if (ts <= prevTs || rel < prevRel || rel < 0) throw new CorruptIndexError(`${this.path}: entry ${s} (${ts}, ${rel}) out of order`);
      prevTs = ts;
      prevRel = rel;
    }
  }
}
