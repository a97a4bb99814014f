/**
 * Two kinds of small files in a partition directory that PartitionLog writes now and then:
 * - offset checkpoints (log start, recovery point; Kafka's checkpoint format with one
 *   "<topic> <partition> <offset>" entry), remembered as read or written so that an unchanged
 *   one is not rewritten (a restart of thousands of partitions otherwise pays their fsyncs);
 * - producer state snapshots (`<offset>.snapshot`), of which the newest three are kept.
 */
import path from 'node:path';
import type { Fs } from './fs.js';
import { writeCheckpoint } from './checkpoint-file.js';
import { readPartitionCheckpoint } from './log-loader.js';
import { producerSnapshotFileName } from './file-names.js';

export class OffsetCheckpoints {
  private readonly known = new Map<string, number>();

  constructor(private readonly fs: Fs, private readonly dir: string, private readonly topic: string, private readonly partition: number) {}

  async read(file: string): Promise<number | null> {
    const offset = await readPartitionCheckpoint(this.fs, path.join(this.dir, file), this.topic, this.partition);
    if (offset !== null) this.known.set(file, offset);
    return offset;
  }

  async write(file: string, offset: number): Promise<void> {
    if (this.known.get(file) === offset) return;
    await writeCheckpoint(this.fs, path.join(this.dir, file), [[this.topic, this.partition, offset]]);
    this.known.set(file, offset);
  }
}

export class ProducerSnapshots {
  /** Offsets of the snapshot files on disk, ascending. */
  offsets: number[] = [];

  constructor(private readonly fs: Fs, private readonly dir: string) {}

  /** Writes the snapshot taken at `offset` (unless the newest is already there), keeping three. */
  async take(offset: number, serialize: () => Uint8Array): Promise<void> {
    if (this.offsets[this.offsets.length - 1] === offset) return;
    await this.fs.writeFileAtomic(producerSnapshotFileName(this.dir, offset), serialize());
    this.offsets = [...this.offsets.filter((o) => o < offset), offset];
    await this.deleteBelow(this.offsets.length > 3 ? this.offsets[this.offsets.length - 3] : 0);
  }

  async deleteBelow(offset: number): Promise<void> {
    for (const o of this.offsets.filter((x) => x < offset)) await this.fs.unlink(producerSnapshotFileName(this.dir, o)).catch(() => undefined);
    this.offsets = this.offsets.filter((x) => x >= offset);
  }
}
