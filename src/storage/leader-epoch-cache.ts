/**
 * `leader-epoch-checkpoint`: the first offset written in each leader epoch (Kafka
 * `LeaderEpochFileCache`). Entries (epoch, startOffset) strictly increase in both fields. Used for
 * ListOffsets leader epochs and, later, OffsetForLeaderEpoch and follower truncation.
 *
 * Persisted in Kafka's checkpoint format ("<epoch> <startOffset>" lines) whenever it changes;
 * rebuildable from the partitionLeaderEpoch field of the batches (recovery does that).
 */
import * as path from 'node:path';
import type { Fs } from './fs.js';
import { LEADER_EPOCH_CHECKPOINT_FILE } from './file-names.js';
import { checkpointBytes, readCheckpoint } from './checkpoint-file.js';

export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

export class LeaderEpochCache {
  private entries: EpochEntry[] = [];
  private dirty = false;
  /** What the checkpoint file holds (as last read or written): an unchanged cache is not rewritten. */
  private persisted = '';

  private constructor(
    private readonly fs: Fs,
    /** The partition directory (the log's own string: the file's path is made when it is used). */
    private readonly dir: string,
  ) {}

  private get file(): string {
    return path.join(this.dir, LEADER_EPOCH_CHECKPOINT_FILE);
  }

  static async load(fs: Fs, dir: string): Promise<LeaderEpochCache> {
    const cache = new LeaderEpochCache(fs, dir);
    try {
      const rows = await readCheckpoint(fs, cache.file);
      for (const [e, o] of rows ?? []) cache.assign(Number(e), Number(o));
    } catch {
      // A damaged checkpoint is rebuilt from the log by recovery; start empty.
      cache.entries = [];
    }
    cache.dirty = false;
    cache.persisted = cache.serialized();
    return cache;
  }

  private serialized(): string {
    return this.entries.map((e) => `${e.epoch} ${e.startOffset}`).join('\n');
  }

  get all(): readonly EpochEntry[] {
    return this.entries;
  }

  latestEpoch(): number {
    return this.entries.length ? this.entries[this.entries.length - 1].epoch : -1;
  }

  /** Records that `epoch` starts at `startOffset` if it is newer than the latest; returns true if changed. */
  assign(epoch: number, startOffset: number): boolean {
    if (epoch < 0) return false;
    const last = this.entries[this.entries.length - 1];
    if (last && epoch <= last.epoch) return false;
    while (this.entries.length && this.entries[this.entries.length - 1].startOffset >= startOffset) this.entries.pop();
    // A new array of exactly its length: a push onto an empty one makes room for 17 entries, and
    // most partitions only ever hold one.
    this.entries = [...this.entries, { epoch, startOffset }];
    this.dirty = true;
    return true;
  }

  /** The epoch of the batch holding `offset` (-1 if unknown). */
  epochForOffset(offset: number): number {
    let e = -1;
    for (const entry of this.entries) {
      if (entry.startOffset <= offset) e = entry.epoch;
      else break;
    }
    return e;
  }

  /**
   * Kafka's LeaderEpochFileCache.endOffsetFor: the epoch (the largest known one <= requested) and
   * its end offset, or -1 / -1 when it cannot be told; the latest epoch (or any epoch of a log
   * without entries) ends at `logEndOffset`. OffsetForLeaderEpoch, Fetch's last_fetched_epoch and
   * follower truncation use it.
   */
  endOffsetFor(requested: number, logEndOffset: number): { leaderEpoch: number; endOffset: number } {
    const entries = this.entries;
    const latest = entries.length ? entries[entries.length - 1].epoch : -1;
    if (requested === latest || (entries.length === 0 && requested >= 0)) return { leaderEpoch: requested, endOffset: logEndOffset };
    const unknown = { leaderEpoch: -1, endOffset: -1 };
    if (requested < 0 || requested > latest) return unknown;
    const nextIndex = entries.findIndex((e) => e.epoch > requested);
    if (nextIndex < 0) return unknown;
    // Older than every epoch this log knows (a replica that joined later, or a log start past
    // them): the requested epoch ends where the first known one starts, as Kafka answers, so a
    // follower still on that epoch can replicate from there.
    if (nextIndex === 0) return { leaderEpoch: requested, endOffset: entries[0].startOffset };
    return { leaderEpoch: entries[nextIndex - 1].epoch, endOffset: entries[nextIndex].startOffset };
  }

  /** Epoch of the earliest entry if it starts at or below `logStartOffset` (ListOffsets -2), else -1. */
  earliestEpochAt(logStartOffset: number): number {
    const first = this.entries[0];
    return first && first.startOffset <= logStartOffset ? first.epoch : -1;
  }

  /** Drops entries starting at or after `endOffset` (log truncated to endOffset). */
  truncateFromEnd(endOffset: number): void {
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => e.startOffset < endOffset);
    if (this.entries.length !== before) this.dirty = true;
  }

  /** Moves the first entry up to the new log start offset (Kafka `truncateFromStartAsyncFlush`). */
  truncateFromStart(startOffset: number): void {
    let i = 0;
    while (i + 1 < this.entries.length && this.entries[i + 1].startOffset <= startOffset) i++;
    if (i > 0) {
      this.entries = this.entries.slice(i);
      this.dirty = true;
    }
    const first = this.entries[0];
    if (first && first.startOffset < startOffset) {
      this.entries[0] = { epoch: first.epoch, startOffset };
      this.dirty = true;
    }
  }

  /** The checkpoint write running now, if any (writes are serialised). */
  private writing: Promise<void> | null = null;

  clear(): void {
    if (this.entries.length) this.dirty = true;
    this.entries = [];
  }

  /**
   * The checkpoint file's path and bytes when the cache differs from it, else null; `written()`
   * once they are durable. A new log writes them with its partition.metadata (one directory
   * fsync for both); `flushIfDirty` otherwise.
   */
  pendingCheckpoint(): { path: string; data: Buffer; written: () => void } | null {
    if (!this.dirty) return null;
    // A truncation at load followed by the same assignment (an empty log: its epoch starts at
    // the log end) leaves the entries as the file has them: no write, no fsyncs at start-up.
    const now = this.serialized();
    if (now === this.persisted) {
      this.dirty = false;
      return null;
    }
    const data = checkpointBytes(this.entries.map((e) => [e.epoch, e.startOffset]));
    return {
      path: this.file,
      data,
      written: () => {
        this.persisted = now;
        // Still dirty if the cache changed while the file was written.
        if (this.serialized() === now) this.dirty = false;
      },
    };
  }

  /** Writes the checkpoint (atomically, fsynced) if it changed; concurrent calls are serialised. */
  flushIfDirty(): Promise<void> {
    const run = (this.writing ?? Promise.resolve()).then(async () => {
      const pending = this.pendingCheckpoint();
      if (!pending) return;
      await this.fs.writeFileAtomic(pending.path, pending.data);
      pending.written();
    });
    const settled = run.catch(() => undefined);
    this.writing = settled;
    // Nothing keeps a finished write alive (a promise per partition on a broker of thousands).
    void settled.then(() => {
      if (this.writing === settled) this.writing = null;
    });
    return run;
  }
}
