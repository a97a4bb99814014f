/**
 * Recycled memory for the segment reads of Fetch responses.
 *
 * A Fetch answer is made of buffers read from segment files (up to fetch.max.bytes, 50 MiB by
 * default). Reading into fresh buffers means the kernel zero-fills and maps new pages for every
 * response, which costs about as much as the read itself. Instead each request gets a SlabLease:
 * reads are carved out of 4 MiB slabs taken from a broker-wide SlabPool, and the connection gives
 * the slabs back once the response has been handed to the kernel (the socket write's callback),
 * when nothing refers to them any more. Idle slabs are freed after 10 s without use (IdleTrim), so
 * an idle broker does not keep the memory.
 */
import type { ReadBuffers } from '../storage/log-read.js';
export type { ReadBuffers };

import { IdleTrim } from './idle-trim.js';

export const SLAB_BYTES = 4 * 1024 * 1024;
/** Reads larger than this get a buffer of their own (still correct, just not recycled). */
const MAX_SLICE_BYTES = SLAB_BYTES / 2;
const EMPTY = Buffer.alloc(0);

export class SlabPool {
  private free: Buffer[] = [];
  private readonly idle = new IdleTrim(() => this.clear());
  /** Counters for tests and benchmarks. */
  created = 0;
  reused = 0;

  constructor(private readonly maxIdleSlabs = 16) {}

  take(): Buffer {
    this.idle.touch();
    const s = this.free.pop();
    if (s) {
      this.reused++;
      return s;
    }
    this.created++;
    return Buffer.allocUnsafeSlow(SLAB_BYTES);
  }

  give(slabs: Buffer[]): void {
    for (const s of slabs) if (this.free.length < this.maxIdleSlabs) this.free.push(s);
    if (this.free.length > 0) this.idle.arm();
  }

  get idleSlabs(): number {
    return this.free.length;
  }

  /** Frees the idle slabs (the broker calls this on stop; the idle timer after 10 s unused). */
  clear(): void {
    this.free = [];
    this.idle.disarm();
  }
}


export class SlabLease implements ReadBuffers {
  private readonly slabs: Buffer[] = [];
  /** Index of the slab being filled, and how much of it is used. */
  private current = -1;
  private used = SLAB_BYTES;
  private released = false;

  constructor(private readonly pool: SlabPool) {}

  alloc(n: number): Buffer {
    if (this.released) throw new Error('SlabLease used after release');
    if (n === 0) return EMPTY;
    if (n > MAX_SLICE_BYTES) return Buffer.allocUnsafe(n);
    if (this.used + n > SLAB_BYTES) {
      this.current++;
      if (this.current === this.slabs.length) this.slabs.push(this.pool.take());
      this.used = 0;
    }
    const slab = this.slabs[this.current];
    const out = slab.subarray(this.used, this.used + n);
    // Keep slices 8-byte aligned.
    this.used += (n + 7) & ~7;
    return out;
  }

  reset(): void {
    this.current = -1;
    this.used = SLAB_BYTES;
  }

  /** Gives the slabs back; nothing handed out by alloc() may be used afterwards. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.pool.give(this.slabs);
    this.slabs.length = 0;
  }

  get slabCount(): number {
    return this.slabs.length;
  }
}
