/**
 * `<baseOffset>.index`: a sparse map from offset to file position in the segment's .log (Kafka
 * `OffsetIndex`).
 *
 * Entry (8 bytes, big-endian): relative offset int32 (offset - baseOffset), position int32.
 * Like Kafka's LogSegment.append, an entry is added for a batch once more than
 * `index.interval.bytes` of log were written since the previous entry; the key is that batch's
 * *last* offset and the value the batch's start position. Offsets strictly increase, positions
 * never decrease. `lookup(t)` returns the entry with the largest offset <= t (or the segment start),
 * from where a forward scan of batch headers finds the batch containing t.
 */
import { AbstractIndex, CorruptIndexError, ENTRY_SCRATCH } from './abstract-index.js';
import type { Fs } from './fs.js';

export interface OffsetPosition {
  offset: number;
  position: number;
}

export class OffsetIndex extends AbstractIndex {
  static readonly ENTRY_SIZE = 8;

  static async open(fs: Fs, filePath: string, baseOffset: number, maxIndexSize: number): Promise<OffsetIndex> {
    const { file, initial } = await AbstractIndex.openFile(fs, filePath);
    return new OffsetIndex(file, baseOffset, maxIndexSize, initial);
  }

  private constructor(file: import('./fs.js').FileHandle, baseOffset: number, maxIndexSize: number, initial: Buffer) {
    super(file, baseOffset, maxIndexSize, OffsetIndex.ENTRY_SIZE, initial);
  }

  private relOffsetAt(slot: number): number {
    return this.buf.readInt32BE(slot * 8);
  }

  private positionAt(slot: number): number {
    return this.buf.readInt32BE(slot * 8 + 4);
  }

  entry(slot: number): OffsetPosition {
    return { offset: this.baseOffset + this.relOffsetAt(slot), position: this.positionAt(slot) };
  }

  get lastOffset(): number {
    return this.entryCount === 0 ? this.baseOffset : this.baseOffset + this.relOffsetAt(this.entryCount - 1);
  }

  append(offset: number, position: number): void {
    if (this.entryCount > 0 && offset <= this.lastOffset) {
      throw new RangeError(`index entry offset ${offset} is not above the last entry ${this.lastOffset} in ${this.path}`);
    }
    if (this.isFull) throw new RangeError(`offset index ${this.path} is full`);
    ENTRY_SCRATCH.writeInt32BE(this.relativeOffset(offset), 0);
    ENTRY_SCRATCH.writeInt32BE(position, 4);
    this.appendEntry(ENTRY_SCRATCH);
  }

  /** The entry with the largest offset <= target, or (baseOffset, 0). */
  lookup(targetOffset: number): OffsetPosition {
    const slot = this.largestLowerBound(targetOffset - this.baseOffset, (s) => this.relOffsetAt(s));
    return slot < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
  }

  /** Removes entries with offset >= `offset` (Kafka `truncateTo`). */
  truncateTo(offset: number): void {
    const slot = this.largestLowerBound(offset - this.baseOffset - 1, (s) => this.relOffsetAt(s));
    this.truncateToEntries(slot + 1);
  }

  sanityCheck(logSizeBytes: number): void {
    if (this.tornBytes !== 0) throw new CorruptIndexError(`${this.path}: length is not a multiple of ${this.entrySize}`);
    let prevOffset = -1;
    let prevPosition = 0;
    for (let s = 0; s < this.entryCount; s++) {
      const rel = this.relOffsetAt(s);
      const pos = this.positionAt(s);
      if (rel <= prevOffset) throw new CorruptIndexError(`${this.path}: entry ${s} offset ${rel} not above ${prevOffset}`);
      if (pos < prevPosition || pos >= logSizeBytes) throw new CorruptIndexError(`${this.path}: entry ${s} position ${pos} out of order or beyond the log (${logSizeBytes})`);
      prevOffset = rel;
      prevPosition = pos;
    }
  }
}
