/**
 * Injected time. Everything that waits (session timeouts, long polls, retention, roll.ms) asks a
 * Clock, so tests can drive time with ManualClock instead of sleeping.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs fn once after delayMs (by this clock). */
  setTimeout(fn: () => void, delayMs: number): Timer;
  /**
   * Runs fn once the I/O that has already arrived was read and its handlers have run (Node's
   * check phase, after the poll phase); absent on clocks without real I/O (ManualClock).
   */
  afterPendingIo?(fn: () => void): void;
}

/** Node timers hold at most 2^31-1 ms; longer delays re-arm until due. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, delayMs) {
    const due = Date.now() + delayMs;
    let t: NodeJS.Timeout;
    const arm = (ms: number) => {
      t = setTimeout(() => {
        const left = due - Date.now();
        if (left > 0) arm(Math.min(left, MAX_TIMER_MS));
        else fn();
      }, Math.min(Math.max(ms, 0), MAX_TIMER_MS));
      t.unref?.();
    };
    arm(delayMs);
    return { cancel: () => clearTimeout(t) };
  },
  afterPendingIo(fn) {
    setImmediate(fn);
  },
};

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** A clock that moves only when advance() is called; due timers fire in deadline order. */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private timers: PendingTimer[] = [];

  constructor(startMs = 1_700_000_000_000) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, delayMs: number): Timer {
    const t: PendingTimer = { at: this.current + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.timers.push(t);
    return { cancel: () => { t.cancelled = true; } };
  }

  /** Moves time forward by ms, firing every timer that falls due, including ones scheduled by fired timers. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      let next: PendingTimer | undefined;
      for (const t of this.timers) {
        if (t.at <= target && (!next || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t;
      }
      if (!next) break;
      this.current = Math.max(this.current, next.at);
      next.cancelled = true;
      next.fn();
    }
    this.current = target;
  }

  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}
