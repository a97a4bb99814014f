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
    const entries = whole > 0 ? TransactionIndex.parse(await file.read(0, whole)) : [];
    if (entries.length * ENTRY_SIZE !== size) file.truncate(entries.length * ENTRY_SIZE);
    return new TransactionIndex(file, entries);
  }

  /** The entries of a .txnindex's bytes (up to the first torn or unknown entry). */
  static parse(buf: Buffer): AbortedTxn[] {
    const entries: AbortedTxn[] = [];
    for (let pos = 0; pos + ENTRY_SIZE <= buf.length; pos += ENTRY_SIZE) {
      if (buf.readInt16BE(pos) !== VERSION) break;
      entries.push({
        producerId: readInt64AsNumber(buf, pos + 2),
        firstOffset: readInt64AsNumber(buf, pos + 10),
        lastOffset: readInt64AsNumber(buf, pos + 18),
        lastStableOffset: readInt64AsNumber(buf, pos + 26),
      });
    }
    return entries;
  }

  /** The file's bytes for these entries. */
  static encode(entries: readonly AbortedTxn[]): Buffer {
    const out = Buffer.alloc(entries.length * ENTRY_SIZE);
    entries.forEach((t, i) => {
      const pos = i * ENTRY_SIZE;
      out.writeInt16BE(VERSION, pos);
      writeInt64FromNumber(out, pos + 2, t.producerId);
      writeInt64FromNumber(out, pos + 10, t.firstOffset);
      writeInt64FromNumber(out, pos + 18, t.lastOffset);
      writeInt64FromNumber(out, pos + 26, t.lastStableOffset);
    });
    return out;
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
    this.file.append(TransactionIndex.encode([t]));
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
    return collectAbortedIn(this.entries, fetchOffset, upperBoundOffset);
  }

  sync(): Promise<void> {
    return this.file.sync();
  }

  close(): Promise<void> {
    return this.file.close();
  }
}

/** Kafka `collectAbortedTxns` over one index's entries (also the remote tier's copies). */
export function collectAbortedIn(entries: readonly AbortedTxn[], fetchOffset: number, upperBoundOffset: number): { aborted: AbortedTxn[]; complete: boolean } {
  const aborted: AbortedTxn[] = [];
  for (const e of entries) {
    if (e.lastOffset >= fetchOffset && e.firstOffset < upperBoundOffset) aborted.push(e);
    if (e.lastStableOffset >= upperBoundOffset) return { aborted, complete: true };
  }
  return { aborted, complete: false };
}
