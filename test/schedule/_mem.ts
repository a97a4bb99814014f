/**
 * In-memory source/target logs and checkpoint store for the scheduler unit tests (not a test file).
 */
import { buildRecordBatch, decodeRecordBatches, type RecordInput } from '../../src/protocol/records/record.js';
import { batchSize } from '../../src/protocol/records/record-batch.js';
import type { CheckpointStore, ScheduleCheckpoint, ScheduleSource, ScheduleTarget } from '../../src/schedule/partition-scheduler.js';

export class MemLog {
  batches: Buffer[] = [];
  next = 0;
  append(batch: Buffer): number {
    const b = Buffer.from(batch);
    const base = this.next;
    b.writeBigInt64BE(BigInt(base), 0);
    this.batches.push(b);
    this.next = base + b.readInt32BE(23) + 1;
    return base;
  }
  appendRecords(records: RecordInput[]): number {
    return this.append(buildRecordBatch({ records }));
  }
  read(offset: number, maxBytes: number, maxOffset = Infinity): Buffer[] {
    const out: Buffer[] = [];
    let bytes = 0;
    for (const b of this.batches) {
      const base = Number(b.readBigInt64BE(0));
      const last = base + b.readInt32BE(23);
      if (last < offset || base >= maxOffset) continue;
      if (out.length > 0 && bytes + batchSize(b, 0) > maxBytes) break;
      out.push(b);
      bytes += batchSize(b, 0);
    }
    return out.length ? [Buffer.concat(out)] : [];
  }
  records() {
    return this.batches.flatMap((b) => decodeRecordBatches(b).flatMap((d) => d.records));
  }
}

export class MemSource implements ScheduleSource {
  aborted: { producerId: number; firstOffset: number; lastOffset: number }[] = [];
  constructor(readonly log: MemLog, readonly count = 1) {}
  async read(offset: number, maxBytes: number, maxOffset: number) { return this.log.read(offset, maxBytes, maxOffset); }
  async abortedTransactions() { return this.aborted; }
  endOffset() { return this.log.next; }
  logStartOffset() { return 0; }
  partitions() { return this.count; }
}

export class MemTarget implements ScheduleTarget {
  logs: MemLog[];
  /** When set, called before each append; throwing simulates a crash at that point. */
  beforeAppend: ((partition: number) => void) | null = null;
  constructor(n: number) { this.logs = Array.from({ length: n }, () => new MemLog()); }
  partitions() { return this.logs.length; }
  async append(p: number, batch: Buffer) { this.beforeAppend?.(p); this.logs[p].append(batch); }
  logStartOffset() { return 0; }
  logEndOffset(p: number) { return this.logs[p].next; }
  async read(p: number, offset: number, maxBytes: number) { return this.logs[p].read(offset, maxBytes); }
  async flush() {}
  all() { return this.logs.flatMap((l, p) => l.records().map((r) => ({ p, r }))); }
}

export class MemCheckpoints implements CheckpointStore {
  saved: ScheduleCheckpoint | null = null;
  failSaves = false;
  saves = 0;
  async load() { return this.saved ? { ...this.saved, targetOffsets: [...this.saved.targetOffsets] } : null; }
  async save(c: ScheduleCheckpoint) {
    if (this.failSaves) throw new Error('crash before the checkpoint');
    this.saved = { ...c, targetOffsets: [...c.targetOffsets] };
    this.saves++;
  }
}

export const hdr = (r: { headers: { key: string; value: Buffer | null }[] }, k: string): string | undefined => r.headers.find((h) => h.key === k)?.value?.toString();
