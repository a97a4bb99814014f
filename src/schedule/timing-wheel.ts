/**
 * A hierarchical timing wheel (Varghese and Lauck, "Hashed and Hierarchical Timing Wheels",
 * scheme 7) for the scheduler's pending records: entries are (due time, source offset) pairs
 * held in typed arrays (an entry pool with free list; no object per entry), so a wheel of a
 * million entries costs about 20 MB.
 *
 * Time is counted in ticks of `tickMs`; tick k covers [k·tickMs, (k+1)·tickMs). Level L has
 * `WHEEL_SIZE` slots of WHEEL_SIZE^L ticks each; an entry sits in the lowest level whose span
 * reaches its tick from the current one, and moves down a level (cascades) when the lower wheel
 * wraps. Tick k fires once the clock reaches (k+1)·tickMs, so nothing fires before it is due:
 * lateness is below one tick plus the caller's timer delay. An entry whose tick has already
 * fired when it is added fires on the next advance.
 *
 * The span of the top level bounds what can be added (`spanMs`): the scheduler keeps records due
 * later out of the wheel (its horizon) and re-reads them from the log when their time nears.
 * Not thread-safe; one owner (the partition scheduler's loop).
 */

export const WHEEL_SIZE = 64;
const LEVELS = 4;
const NIL = -1;

export class TimingWheel {
  readonly tickMs: number;
  /** The next tick to fire: every tick before it has fired. */
  private currentTick: number;
  /** Whether the upper levels were already cascaded into the current tick. */
  private cascaded = false;
  private readonly heads = new Int32Array(LEVELS * WHEEL_SIZE).fill(NIL);
  /** Entries whose tick had already fired when added: fired by the next advance. */
  private lateHead = NIL;
  private dueMs: Float64Array;
  private offset: Float64Array;
  private next: Int32Array;
  private freeHead = NIL;
  private used = 0;
  readonly capacity: number;

  constructor(opts: { tickMs: number; startMs: number; capacity: number }) {
    if (!(opts.tickMs >= 1)) throw new RangeError('tickMs must be at least 1');
    this.tickMs = opts.tickMs;
    this.currentTick = Math.floor(opts.startMs / opts.tickMs);
    this.capacity = opts.capacity;
    const initial = Math.min(opts.capacity, 1024);
    this.dueMs = new Float64Array(initial);
    this.offset = new Float64Array(initial);
    this.next = new Int32Array(initial);
    this.linkFree(0, initial);
  }

  /** Entries held. */
  get size(): number {
    return this.used;
  }

  get isFull(): boolean {
    return this.used >= this.capacity;
  }

  /** Start of the next tick to fire (ms): entries due before it have fired. */
  get firedBeforeMs(): number {
    return this.currentTick * this.tickMs;
  }

  /** How far past the next tick the wheel can hold entries. */
  get spanMs(): number {
    return WHEEL_SIZE ** LEVELS * this.tickMs;
  }

  private linkFree(from: number, to: number): void {
    for (let i = to - 1; i >= from; i--) {
      this.next[i] = this.freeHead;
      this.freeHead = i;
    }
  }

  private grow(): void {
    const size = Math.min(this.capacity, this.dueMs.length * 2);
    const d = new Float64Array(size); d.set(this.dueMs); this.dueMs = d;
    const o = new Float64Array(size); o.set(this.offset); this.offset = o;
    const n = new Int32Array(size); n.set(this.next); this.next = n;
    this.linkFree(this.used, size);
  }

  /** Adds an entry; false when the wheel is full or the due time lies beyond its span. */
  add(dueMs: number, offset: number): boolean {
    if (this.used >= this.capacity) return false;
    const tick = Math.floor(dueMs / this.tickMs);
    if (tick - this.currentTick >= WHEEL_SIZE ** LEVELS) return false;
    if (this.freeHead === NIL) this.grow();
    const e = this.freeHead;
    this.freeHead = this.next[e];
    this.dueMs[e] = dueMs;
    this.offset[e] = offset;
    this.used++;
    this.place(e, tick);
    return true;
  }

  private place(e: number, tick: number): void {
    const delta = tick - this.currentTick;
    if (delta < 0) {
      this.next[e] = this.lateHead;
      this.lateHead = e;
      return;
    }
    let level = 0;
    let span = WHEEL_SIZE;
    while (delta >= span && level < LEVELS - 1) {
      level++;
      span *= WHEEL_SIZE;
    }
    const slot = level * WHEEL_SIZE + (Math.floor(tick / WHEEL_SIZE ** level) & (WHEEL_SIZE - 1));
    this.next[e] = this.heads[slot];
    this.heads[slot] = e;
  }

  private release(e: number): void {
    this.next[e] = this.freeHead;
    this.freeHead = e;
    this.used--;
  }

  /** Moves the entries of level `level`'s slot for the current tick down the wheel. */
  private cascade(level: number): void {
    const slot = level * WHEEL_SIZE + (Math.floor(this.currentTick / WHEEL_SIZE ** level) & (WHEEL_SIZE - 1));
    let e = this.heads[slot];
    this.heads[slot] = NIL;
    while (e !== NIL) {
      const nx = this.next[e];
      this.place(e, Math.floor(this.dueMs[e] / this.tickMs));
      e = nx;
    }
  }

  /**
   * Fires every tick that has ended by `nowMs`, calling `fire(dueMs, offset)` for each entry
   * (entries of one tick in no particular order; the caller sorts what it delivers). At most
   * `maxEntries` entries fire per call; a tick left part-fired stays the current one, so
   * `firedBeforeMs` never passes an entry that has not fired. Returns how many fired. An empty
   * wheel jumps to the current tick at once.
   */
  advance(nowMs: number, fire: (dueMs: number, offset: number) => void, maxEntries = Infinity): number {
    let fired = 0;
    while (this.lateHead !== NIL && fired < maxEntries) {
      const e = this.lateHead;
      this.lateHead = this.next[e];
      fire(this.dueMs[e], this.offset[e]);
      this.release(e);
      fired++;
    }
    const endTick = Math.floor(nowMs / this.tickMs);
    while (this.currentTick < endTick && fired < maxEntries) {
      if (this.used === 0) {
        this.currentTick = endTick;
        break;
      }
      // Cascade the upper levels whose slot boundary this tick crosses, top first (once per tick:
      // a tick left part-fired is resumed without cascading again).
      if (!this.cascaded) {
        for (let level = LEVELS - 1; level >= 1; level--) {
          if (this.currentTick % WHEEL_SIZE ** level === 0) this.cascade(level);
        }
        this.cascaded = true;
      }
      const slot = this.currentTick & (WHEEL_SIZE - 1);
      while (this.heads[slot] !== NIL && fired < maxEntries) {
        const e = this.heads[slot];
        this.heads[slot] = this.next[e];
        fire(this.dueMs[e], this.offset[e]);
        this.release(e);
        fired++;
      }
      // A tick with entries left stays current (firedBeforeMs does not pass it) until they have fired.
      if (this.heads[slot] !== NIL) break;
      this.currentTick++;
      this.cascaded = false;
    }
    return fired;
  }

  /** Removes every entry due at or after `fromMs`, calling `out(dueMs, offset)` for each (the horizon shrinks). */
  evictFrom(fromMs: number, out: (dueMs: number, offset: number) => void): void {
    const lists = this.heads.length;
    for (let slot = -1; slot < lists; slot++) {
      let prev = NIL;
      let e = slot < 0 ? this.lateHead : this.heads[slot];
      while (e !== NIL) {
        const nx = this.next[e];
        if (this.dueMs[e] >= fromMs) {
          if (prev === NIL) {
            if (slot < 0) this.lateHead = nx;
            else this.heads[slot] = nx;
          } else {
            this.next[prev] = nx;
          }
          out(this.dueMs[e], this.offset[e]);
          this.release(e);
        } else {
          prev = e;
        }
        e = nx;
      }
    }
  }

  /** The earliest due time held (a scan of the wheel; for timers and status). */
  earliestDueMs(): number {
    let min = Infinity;
    for (let slot = -1; slot < this.heads.length; slot++) {
      for (let e = slot < 0 ? this.lateHead : this.heads[slot]; e !== NIL; e = this.next[e]) if (this.dueMs[e] < min) min = this.dueMs[e];
    }
    return min;
  }

  /** Calls `visit(dueMs, offset)` for every entry (status listings). */
  forEach(visit: (dueMs: number, offset: number) => void): void {
    for (let slot = -1; slot < this.heads.length; slot++) {
      for (let e = slot < 0 ? this.lateHead : this.heads[slot]; e !== NIL; e = this.next[e]) visit(this.dueMs[e], this.offset[e]);
    }
  }
}
