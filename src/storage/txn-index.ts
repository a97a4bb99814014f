/**
 * The aborted-transaction index of one segment, `<base>.txnindex` (Kafka `TransactionIndex`):
 * one 34-byte entry per transaction aborted by a marker in this segment, in marker order:
 *   int16 version (0) | int64 producerId | int64 firstOffset | int64 lastOffset | int64 lastStableOffset
 * lastOffset is the offset of the ABORT marker; lastStableOffset the partition's LSO right after
 * the abort (a fetch whose upper bound is at or below it needs no later segment).
 *
 * Entries are few, so they are kept in memory after the file is read; appends go to the file
 * (page cache) and are fsynced with the segment. The index is rebuildable from the log.
 */
import type { FileHandle, Fs } from './fs.js';
import type { AbortedTxn } from './producer-state.js';
import { readInt64AsNumber, writeInt64FromNumber } from '../protocol/records/record-batch.js';

const ENTRY_SIZE = 34;
const VERSION = 0;

export class TransactionIndex {
  private constructor(private readonly file: FileHandle, private entries: AbortedTxn[]) {}

  static async open(fs: Fs, filePath: string): Promise<TransactionIndex> {
    const file = await fs.open(filePath);
    const size = file.size();
    const whole = size - (size % ENTRY_SIZE);
    const entries: AbortedTxn[] = [];
    if (whole > 0) {
      const buf = await file.read(0, whole);
      for (let pos = 0; pos + ENTRY_SIZE <= buf.length; pos += ENTRY_SIZE) {
        if (buf.readInt16BE(pos) !== VERSION) break;
        entries.push({
          producerId: readInt64AsNumber(buf, pos + 2),
          firstOffset: readInt64AsNumber(buf, pos + 10),
          lastOffset: readInt64AsNumber(buf, pos + 18),
          lastStableOffset: readInt64AsNumber(buf, pos + 26),
        });
      }
    }
    if (entries.length * ENTRY_SIZE !== size) file.truncate(entries.length * ENTRY_SIZE);
    return new TransactionIndex(file, entries);
  }

  get path(): string {
    return this.file.path;
  }

  get allEntries(): readonly AbortedTxn[] {
    return this.entries;
  }

  /** Last marker offset indexed, -1 when empty. */
  get lastOffset(): number {
    return this.entries.length > 0 ? this.entries[this.entries.length - 1].lastOffset : -1;
  }

  /** Appends an entry; entries must come in marker order (an older one is ignored: already indexed). */
  append(t: AbortedTxn): boolean {
    if (t.lastOffset <= this.lastOffset) return false;
    const buf = Buffer.alloc(ENTRY_SIZE);
    buf.writeInt16BE(VERSION, 0);
    writeInt64FromNumber(buf, 2, t.producerId);
    writeInt64FromNumber(buf, 10, t.firstOffset);
    writeInt64FromNumber(buf, 18, t.lastOffset);
    writeInt64FromNumber(buf, 26, t.lastStableOffset);
    this.file.append(buf);
    this.entries = [...this.entries, t];
    return true;
  }

  /** Removes entries whose marker is at or after `offset`. */
  truncateTo(offset: number): void {
    const keep = this.entries.filter((e) => e.lastOffset < offset);
    if (keep.length === this.entries.length) return;
    this.entries = keep;
    this.file.truncate(keep.length * ENTRY_SIZE);
  }

  /**
   * Kafka `collectAbortedTxns`: entries overlapping [fetchOffset, upperBoundOffset); `complete`
   * when an entry shows no later segment can hold more.
   */
  collect(fetchOffset: number, upperBoundOffset: number): { aborted: AbortedTxn[]; complete: boolean } {
    const aborted: AbortedTxn[] = [];
    for (const e of this.entries) {
      if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset) aborted.push(e);
      if (e.lastStableOffset >= upperBoundOffset) return { aborted, complete: true };
    }
    return { aborted, complete: false };
  }

  sync(): Promise<void> {
    return this.file.sync();
  }

  close(): Promise<void> {
    return this.file.close();
  }
}
