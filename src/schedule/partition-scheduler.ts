/**
 * The scheduler of one partition of a schedule topic (`samsa.schedule.target=<topic>`): delivers
 * each record to the target when it is due, in due-time order, exactly once across crashes.
 *
 * State (all in memory is rebuilt from the checkpoint and the logs):
 * - `scanOffset` S: records below it have been admitted (read and sorted by due time).
 * - `doneBeforeMs` C (the wheel's fired boundary): every admitted record due before C has been
 *   delivered; every admitted record due at or after C has not. A newly read record already
 *   due before C is delivered at once (it was produced late, or its header names a past time).
 * - The timing wheel holds exactly the admitted undelivered records due before `horizonEnd`; the
 *   others are *cold*: only counted per chunk of offsets (min/max due, count), and re-read from
 *   the log when the wheel has drained enough (refill). The wheel has a soft capacity
 *   (`wheelCapacity`): when it fills, the latest quarter is evicted to cold and the horizon moves
 *   down. Memory is therefore bounded by the capacity plus one small object per chunk.
 *
 * Crash contract (exactly once): a checkpoint {S, C, first pending offset F, target log end
 * offsets} is written atomically after deliveries, once their target appends are flushed. A
 * delivery is one batch append per target partition, so it is in the target log entirely or
 * not at all. Recovery loads the checkpoint, reads the target partitions from the checkpointed
 * log ends and collects the source offsets named by their `samsa-scheduled-from` headers (the
 * deliveries made after the checkpoint: set D), then re-reads the source from F: records below
 * S due before C were delivered; the rest are admitted again, and a delivery of an offset in D
 * is skipped (it is already in the target). No checkpoint is written while D is not empty, so a
 * second crash reconciles from the same target offsets. Without a checkpoint (first start, or a
 * new leader on another broker) the targets are reconciled from their log start.
 *
 * A failed delivery (target gone, not led here, storage error) throws from `runOnce`; the owner
 * then calls `recover()` again after a pause, which is the crash path.
 *
 * Concurrency: one owner calls recover/runOnce/checkpoint one at a time (ScheduleManager's loop).
 */
import { decodeRecordBatch, buildRecordBatch, type DecodedRecord, type RecordInput } from '../protocol/records/record.js';
import { RECORD_BATCH_OVERHEAD, batchSize, baseOffset, isControl, isTransactional, lastOffsetDelta, producerId } from '../protocol/records/record-batch.js';
import { partitionForKey } from '../protocol/murmur2.js';
import type { Clock } from '../clock.js';
import { TimingWheel } from './timing-wheel.js';
import { SCHEDULED_FROM_HEADER } from './deliver-at.js';
import { forEachDue, pickRecords } from './record-pick.js';

export interface ScheduleSource {
  /** Whole batches from the one holding `offset`, none starting at or after `maxOffset`. */
  read(offset: number, maxBytes: number, maxOffset: number): Promise<Buffer[]>;
  /** Aborted transactions overlapping [from, to). */
  abortedTransactions(from: number, to: number): Promise<{ producerId: number; firstOffset: number; lastOffset: number }[]>;
  /** Records below this may be scheduled (the last stable offset). */
  endOffset(): number;
  logStartOffset(): number;
  partitions(): number;
}

export interface ScheduleTarget {
  /** The target's partition count; 0 when it does not exist. */
  partitions(): number;
  append(partition: number, batch: Buffer): Promise<void>;
  logStartOffset(partition: number): number | Promise<number>;
  /** The end of what is readable (a remote leader's high watermark). */
  logEndOffset(partition: number): number | Promise<number>;
  /**
   * For the recovery's read: the end of the partition once everything its leader holds is
   * readable (a new leader's high watermark can trail its log end for a while; a delivery hidden
   * there would be sent again). Defaults to logEndOffset.
   */
  settledEndOffset?(partition: number): Promise<number>;
  read(partition: number, offset: number, maxBytes: number): Promise<Buffer[]>;
  flush(partition: number): Promise<void>;
}

export interface ScheduleCheckpoint {
  version: 1;
  scanOffset: number;
  doneBeforeMs: number;
  firstPendingOffset: number;
  targetOffsets: number[];
  /** The delay in force (a changed samsa.schedule.delay.ms applies to the records not yet delivered). */
  delayMs?: number;
}

export interface CheckpointStore {
  load(): Promise<ScheduleCheckpoint | null>;
  save(c: ScheduleCheckpoint): Promise<void>;
}

export interface PartitionSchedulerOptions {
  topic: string;
  partition: number;
  delayMs: number;
  tickMs: number;
  clock: Clock;
  source: ScheduleSource;
  target: ScheduleTarget;
  checkpoints: CheckpointStore;
  /** Soft bound of records held in the wheel (default 262144, about 5 MB). */
  wheelCapacity?: number;
  /** Offsets per cold-summary chunk (default 4096). */
  chunkSize?: number;
  /** Records delivered per round at most (default 20000; a round reads the source in 1 MiB steps, yielding between them). */
  maxPerRound?: number;
  /** Least time between checkpoints (default 200 ms). */
  checkpointIntervalMs?: number;
  /** Called for each record written to the target (benchmarks: lateness). */
  onDelivered?: (dueMs: number, deliveredAtMs: number) => void;
}

interface Chunk {
  /** Admitted records of this chunk not yet delivered (wheel, immediate or cold). */
  pending: number;
  coldCount: number;
  coldMin: number;
  coldMax: number;
}

const READ_BYTES = 1 << 20;
const HISTOGRAM_BUCKETS = 1024;
const MAX_BATCH_RECORDS = 500;
const MAX_BATCH_BYTES = 512 * 1024;

export class PartitionScheduler {
  readonly topic: string;
  readonly partition: number;
  private readonly o: PartitionSchedulerOptions;
  private readonly cap: number;
  private readonly chunkSize: number;
  private wheel!: TimingWheel;
  private scanOffset = 0;
  private horizonEnd = 0;
  private chunks = new Map<number, Chunk>();
  private coldTotal = 0;
  private recoveredScan = 0;
  private recoveredDone = -Infinity;
  /** samsa.schedule.delay.ms when the checkpoint was written (it decides what was delivered). */
  private recoveredDelayMs = 0;
  /** Source offsets already in the target after the checkpoint (set D). */
  private alreadyDelivered = new Set<number>();
  private dEndOffset = 0;
  private immediateOffsets: number[] = [];
  private immediateDues: number[] = [];
  private lastCheckpointMs = -Infinity;
  private dirty = false;
  private touched = new Set<number>();
  private lastRoundFull = false;
  private roundSize = 0;
  delivered = 0;
  duplicatesSkipped = 0;

  constructor(opts: PartitionSchedulerOptions) {
    this.o = opts;
    this.topic = opts.topic;
    this.partition = opts.partition;
    this.cap = opts.wheelCapacity ?? 262_144;
    this.chunkSize = opts.chunkSize ?? 4096;
  }

  private get fromPrefix(): string {
    return `${this.topic}/${this.partition}/`;
  }

  /** Records admitted and not delivered. */
  get pending(): number {
    let n = 0;
    for (const c of this.chunks.values()) n += c.pending;
    return n;
  }

  /** Records held in the wheel now (memory). */
  get inWheel(): number {
    return this.wheel.size;
  }

  get scanned(): number {
    return this.scanOffset;
  }

  /** (Re)builds every piece of state from the checkpoint and the logs. */
  async recover(): Promise<void> {
    const now = this.o.clock.now();
    const ck = await this.o.checkpoints.load();
    const done = ck ? ck.doneBeforeMs : now;
    this.wheel = new TimingWheel({ tickMs: this.o.tickMs, startMs: Math.min(done, now), capacity: this.cap * 2 });
    this.chunks = new Map();
    this.coldTotal = 0;
    this.immediateOffsets = [];
    this.immediateDues = [];
    this.touched.clear();
    this.recoveredScan = ck ? ck.scanOffset : 0;
    this.recoveredDone = ck ? ck.doneBeforeMs : -Infinity;
    this.recoveredDelayMs = ck?.delayMs ?? this.o.delayMs;
    this.horizonEnd = this.wheelLimit();
    this.scanOffset = Math.max(this.o.source.logStartOffset(), ck ? Math.min(ck.firstPendingOffset, ck.scanOffset) : 0);
    this.alreadyDelivered = await this.reconcile(ck?.targetOffsets ?? null);
    this.dEndOffset = this.o.source.endOffset();
    this.dirty = ck === null || this.alreadyDelivered.size > 0;
    this.lastCheckpointMs = -Infinity;
  }

  /** The source offsets this partition delivered into the target after `from` (or the log starts). */
  private async reconcile(from: number[] | null): Promise<Set<number>> {
    const out = new Set<number>();
    const t = this.o.target;
    const prefix = this.fromPrefix;
    for (let p = 0; p < t.partitions(); p++) {
      let offset = Math.max(await t.logStartOffset(p), from?.[p] ?? 0);
      const end = t.settledEndOffset ? await t.settledEndOffset(p) : await t.logEndOffset(p);
      while (offset < end) {
        const bufs = await t.read(p, offset, READ_BYTES);
        if (bufs.length === 0) break;
        let next = offset;
        for (const buf of bufs) {
          for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= buf.length; pos += batchSize(buf, pos)) {
            next = Math.max(next, baseOffset(buf, pos) + lastOffsetDelta(buf, pos) + 1);
            if (isControl(buf, pos)) continue;
            for (const r of decodeRecordBatch(buf, pos).records) {
              for (const h of r.headers) {
                if (h.key !== SCHEDULED_FROM_HEADER || h.value === null) continue;
                const s = h.value.toString('utf8');
                if (s.startsWith(prefix)) out.add(Number(s.slice(prefix.length)));
              }
            }
          }
        }
        if (next <= offset) break;
        offset = next;
      }
    }
    return out;
  }

  private wheelLimit(): number {
    return this.wheel.firedBeforeMs + this.wheel.spanMs - this.o.tickMs;
  }

  private chunkOf(offset: number): Chunk {
    const k = Math.floor(offset / this.chunkSize);
    let c = this.chunks.get(k);
    if (!c) {
      c = { pending: 0, coldCount: 0, coldMin: Infinity, coldMax: -Infinity };
      this.chunks.set(k, c);
    }
    return c;
  }

  private makeCold(offset: number, due: number): void {
    const c = this.chunkOf(offset);
    c.coldCount++;
    if (due < c.coldMin) c.coldMin = due;
    if (due > c.coldMax) c.coldMax = due;
    this.coldTotal++;
  }

  /** Sorts one read record into immediate / wheel / cold. */
  private admit(offset: number, due: number, delivered: boolean): void {
    if (delivered) return;
    this.chunkOf(offset).pending++;
    if (due < this.wheel.firedBeforeMs) {
      this.immediateOffsets.push(offset);
      this.immediateDues.push(due);
      return;
    }
    if (due < this.horizonEnd) {
      if (this.wheel.size >= this.cap) this.shrinkHorizon();
      if (due < this.horizonEnd) {
        if (this.wheel.add(due, offset)) return;
        // The hard limit (twice the capacity, only when one tick holds more): the horizon moves below this record.
        this.wheel.evictFrom(due, (d, off) => this.makeCold(off, d));
        this.horizonEnd = due;
      }
    }
    this.makeCold(offset, due);
  }

  /** The wheel is full: the latest quarter of its entries goes cold and the horizon moves down to them. */
  private shrinkHorizon(): void {
    const lo = this.wheel.firedBeforeMs;
    let hi = -Infinity;
    this.wheel.forEach((d) => { if (d > hi) hi = d; });
    hi += 1;
    const width = (hi - lo) / HISTOGRAM_BUCKETS;
    const hist = new Uint32Array(HISTOGRAM_BUCKETS);
    this.wheel.forEach((d) => { hist[Math.min(HISTOGRAM_BUCKETS - 1, Math.max(0, Math.floor((d - lo) / width)))]++; });
    const keep = Math.floor(this.cap * 0.75);
    let sum = 0;
    let b = 0;
    while (b < HISTOGRAM_BUCKETS && sum + hist[b] <= keep) sum += hist[b++];
    // Everything in one tick's bucket: the capacity is exceeded rather than a tick split.
    const threshold = Math.max(lo + this.o.tickMs, lo + b * width);
    if (threshold >= this.horizonEnd) return;
    this.wheel.evictFrom(threshold, (d, off) => this.makeCold(off, d));
    this.horizonEnd = threshold;
  }

  /**
   * Calls visit(record, offset, due) for every data record in [from, to) not in an aborted
   * transaction; returns the offset after the last batch read.
   */
  private async forEachRecord(from: number, to: number, visit: (offset: number, due: number, delivered: boolean) => void, stop?: () => boolean): Promise<number> {
    let offset = from;
    while (offset < to && !stop?.()) {
      const bufs = await this.o.source.read(offset, READ_BYTES, to);
      if (bufs.length === 0) break;
      let aborted: { producerId: number; firstOffset: number; lastOffset: number }[] | null = null;
      let next = offset;
      for (const buf of bufs) {
        for (let pos = 0; pos + RECORD_BATCH_OVERHEAD <= buf.length; pos += batchSize(buf, pos)) {
          const base = baseOffset(buf, pos);
          const last = base + lastOffsetDelta(buf, pos);
          next = Math.max(next, last + 1);
          if (last < offset || isControl(buf, pos)) continue;
          if (isTransactional(buf, pos)) {
            aborted ??= await this.o.source.abortedTransactions(offset, to);
            const pid = producerId(buf, pos);
            if (aborted.some((a) => a.producerId === pid && a.firstOffset <= base && base <= a.lastOffset)) continue;
          }
          forEachDue(buf, pos, (o, at, ts) => {
            if (o < offset || o >= to) return;
            // Delivered before the checkpoint: below its scan offset and due (by the delay then in force) before its boundary.
            const delivered = o < this.recoveredScan && (at >= 0 ? at : ts + this.recoveredDelayMs) < this.recoveredDone;
            visit(o, at >= 0 ? at : ts + this.o.delayMs, delivered);
          });
        }
      }
      if (next <= offset) break;
      offset = next;
    }
    return offset;
  }

  /** Reads newly appended records (up to the last stable offset) into the wheel. */
  private async scan(): Promise<void> {
    const end = this.o.source.endOffset();
    if (this.scanOffset >= end) return;
    this.scanOffset = Math.max(this.scanOffset, this.o.source.logStartOffset());
    // Past-due records wait as offsets: the scan pauses while many are waiting (bounded memory).
    const limit = 4 * (this.o.maxPerRound ?? 20_000);
    const reached = await this.forEachRecord(this.scanOffset, end, (offset, due, delivered) => this.admit(offset, due, delivered), () => this.immediateOffsets.length >= limit);
    if (reached > this.scanOffset) {
      this.scanOffset = reached;
      this.dirty = true;
    }
  }

  /** Moves cold records due before a new horizon into the wheel (two passes over the cold chunks). */
  private async refill(): Promise<void> {
    if (this.coldTotal === 0) {
      this.horizonEnd = this.wheelLimit();
      return;
    }
    const now = this.o.clock.now();
    if (!(this.wheel.size <= this.cap / 2 || now + 2 * this.o.tickMs >= this.horizonEnd)) return;
    const lo = this.horizonEnd;
    let hi = -Infinity;
    for (const c of this.chunks.values()) if (c.coldCount > 0 && c.coldMax > hi) hi = c.coldMax;
    hi = Math.min(hi + 1, this.wheelLimit());
    if (hi <= lo) return;
    const free = Math.max(1, this.cap - this.wheel.size);
    let newEnd = hi;
    for (let pass = 0; pass < 3; pass++) {
      const width = (hi - lo) / HISTOGRAM_BUCKETS;
      const hist = new Uint32Array(HISTOGRAM_BUCKETS);
      await this.forEachCold(lo, hi, (_o, due) => { hist[Math.min(HISTOGRAM_BUCKETS - 1, Math.floor((due - lo) / width))]++; });
      let sum = 0;
      let b = 0;
      while (b < HISTOGRAM_BUCKETS && sum + hist[b] <= free) sum += hist[b++];
      if (b === HISTOGRAM_BUCKETS) { newEnd = hi; break; }
      if (b > 0 || width <= this.o.tickMs) { newEnd = lo + Math.max(b, 1) * width; break; }
      hi = lo + width;
      newEnd = hi;
    }
    newEnd = Math.max(newEnd, lo + this.o.tickMs);
    let failedMin = Infinity;
    // Second pass: records due in [lo, newEnd) enter the wheel; the chunk summaries are rebuilt for the rest.
    for (const [k, c] of this.chunks) {
      if (c.coldCount === 0 || c.coldMin >= newEnd) continue;
      let count = 0;
      let min = Infinity;
      let max = -Infinity;
      await this.forEachRecord(k * this.chunkSize, Math.min((k + 1) * this.chunkSize, this.scanOffset), (offset, due, delivered) => {
        if (due < lo || delivered) return;
        if (due < newEnd && this.wheel.add(due, offset)) return;
        if (due < newEnd) failedMin = Math.min(failedMin, due);
        {
          count++;
          if (due < min) min = due;
          if (due > max) max = due;
        }
      });
      this.coldTotal -= c.coldCount - count;
      c.coldCount = count;
      c.coldMin = min;
      c.coldMax = max;
    }
    if (failedMin < newEnd) {
      this.wheel.evictFrom(failedMin, (d, off) => this.makeCold(off, d));
      newEnd = failedMin;
    }
    this.horizonEnd = newEnd;
  }

  /** visit(offset, due) for every cold record due in [lo, hi). */
  private async forEachCold(lo: number, hi: number, visit: (offset: number, due: number) => void): Promise<void> {
    for (const [k, c] of this.chunks) {
      if (c.coldCount === 0 || c.coldMin >= hi) continue;
      await this.forEachRecord(k * this.chunkSize, Math.min((k + 1) * this.chunkSize, this.scanOffset), (offset, due, delivered) => {
        if (due >= lo && due < hi && !delivered) visit(offset, due);
      });
    }
  }

  /** One round: read new records, refill, fire what is due, deliver it, maybe checkpoint. Returns the records delivered. */
  async runOnce(): Promise<number> {
    await this.scan();
    await this.refill();
    const now = this.o.clock.now();
    const offsets = this.immediateOffsets;
    const dues = this.immediateDues;
    this.immediateOffsets = [];
    this.immediateDues = [];
    // A backlog doubles the round (up to 2×): reading due records back costs a pass over the
    // source batches that hold them, shared by every record of the round.
    const base = this.o.maxPerRound ?? 20_000;
    const max = this.lastRoundFull ? Math.min(this.roundSize * 2, base * 2) : base;
    this.roundSize = max;
    this.wheel.advance(Math.min(now, this.horizonEnd), (due, offset) => { offsets.push(offset); dues.push(due); }, Math.max(1, max - offsets.length));
    this.lastRoundFull = offsets.length >= max;
    if (offsets.length > 0) {
      await this.deliver(offsets, dues);
      this.dirty = true;
    }
    // D holds only records due by the crash: once those have been seen again, what is left is stale.
    if (this.alreadyDelivered.size > 0 && this.scanOffset >= this.dEndOffset && this.wheel.firedBeforeMs >= now - this.o.tickMs && this.immediateOffsets.length === 0) {
      this.alreadyDelivered.clear();
    }
    if (this.dirty && this.alreadyDelivered.size === 0 && now - this.lastCheckpointMs >= (this.o.checkpointIntervalMs ?? 200)) await this.checkpoint();
    return offsets.length;
  }

  /** Whether records are waiting to be delivered right now (the loop then runs again without waiting). */
  get backlogged(): boolean {
    return this.lastRoundFull || this.immediateOffsets.length > 0 || this.scanOffset < this.o.source.endOffset();
  }

  private targetPartitionOf(key: Buffer | null, n: number): number {
    if (n === this.o.source.partitions()) return this.partition;
    if (key !== null) return partitionForKey(key, n);
    return this.partition % n;
  }

  private async deliver(offsets: number[], dues: number[]): Promise<void> {
    const n = this.o.target.partitions();
    if (n === 0) throw new Error(`schedule target of ${this.topic} does not exist`);
    // Read the records in offset order, in runs of nearby offsets.
    const sorted = Float64Array.from(offsets).sort();
    const found = new Map<number, DecodedRecord>();
    for (let i = 0; i < sorted.length;) {
      let j = i + 1;
      while (j < sorted.length && sorted[j] - sorted[j - 1] <= 1000) j++;
      let offset = sorted[i];
      const end = sorted[j - 1] + 1;
      while (offset < end) {
        const bufs = await this.o.source.read(offset, READ_BYTES, end);
        if (bufs.length === 0) break;
        let next = offset;
        for (const buf of bufs) next = Math.max(next, pickRecords(buf, sorted, i, j, found));
        if (next <= offset) break;
        offset = next;
      }
      i = j;
    }
    const order = offsets.map((_, i) => i).sort((a, b) => dues[a] - dues[b] || offsets[a] - offsets[b]);
    const byPartition = new Map<number, { records: RecordInput[]; dues: number[]; bytes: number }>();
    const flushPartition = async (p: number) => {
      const g = byPartition.get(p);
      if (!g || g.records.length === 0) return;
      await this.o.target.append(p, buildRecordBatch({ records: g.records }));
      this.touched.add(p);
      const at = this.o.clock.now();
      if (this.o.onDelivered) for (const d of g.dues) this.o.onDelivered(d, at);
      this.delivered += g.records.length;
      byPartition.set(p, { records: [], dues: [], bytes: 0 });
      // A local append can complete without a real I/O wait: let requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    };
    for (const i of order) {
      const offset = offsets[i];
      const chunk = this.chunks.get(Math.floor(offset / this.chunkSize));
      if (chunk && --chunk.pending === 0 && chunk.coldCount === 0) this.chunks.delete(Math.floor(offset / this.chunkSize));
      const r = found.get(offset);
      if (!r) continue; // gone from the source (retention, truncation)
      if (this.alreadyDelivered.delete(offset)) {
        this.duplicatesSkipped++;
        continue;
      }
      const p = this.targetPartitionOf(r.key, n);
      let g = byPartition.get(p);
      if (!g) byPartition.set(p, (g = { records: [], dues: [], bytes: 0 }));
      g.records.push({
        key: r.key, value: r.value, timestamp: r.timestamp,
        headers: [...r.headers, { key: SCHEDULED_FROM_HEADER, value: Buffer.from(`${this.fromPrefix}${offset}`) }],
      });
      g.dues.push(dues[i]);
      g.bytes += 64 + (r.key?.length ?? 0) + (r.value?.length ?? 0);
      if (g.records.length >= MAX_BATCH_RECORDS || g.bytes >= MAX_BATCH_BYTES) await flushPartition(p);
    }
    for (const p of [...byPartition.keys()]) await flushPartition(p);
  }

  /** Flushes the targets written since the last checkpoint, then saves the checkpoint. */
  async checkpoint(): Promise<void> {
    if (this.alreadyDelivered.size > 0) return;
    for (const p of this.touched) await this.o.target.flush(p);
    this.touched.clear();
    let first = this.scanOffset;
    for (const [k, c] of this.chunks) if (c.pending > 0) first = Math.min(first, k * this.chunkSize);
    const n = this.o.target.partitions();
    const targetOffsets: number[] = [];
    for (let p = 0; p < n; p++) targetOffsets.push(await this.o.target.logEndOffset(p));
    await this.o.checkpoints.save({ version: 1, scanOffset: this.scanOffset, doneBeforeMs: this.wheel.firedBeforeMs, firstPendingOffset: first, targetOffsets, delayMs: this.o.delayMs });
    this.lastCheckpointMs = this.o.clock.now();
    this.dirty = false;
  }

  /** Pending records by due minute (epoch ms of the minute → count), from the wheel and the cold chunks' re-read. */
  async pendingByMinute(): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    const add = (due: number) => { const m = Math.floor(due / 60_000) * 60_000; out.set(m, (out.get(m) ?? 0) + 1); };
    this.wheel.forEach((d) => add(d));
    for (const d of this.immediateDues) add(d);
    await this.forEachCold(this.horizonEnd, Infinity, (_o, d) => add(d));
    return out;
  }
}
