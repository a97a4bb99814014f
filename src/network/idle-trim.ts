/**
 * Calls `onIdle` once nothing has touched a buffer pool for `idleMs`, so an idle broker gives the
 * memory it keeps for reuse back. The timer is unref'd (it never keeps the process alive) and only
 * runs while the pool holds something.
 */
export const POOL_IDLE_MS = 10_000;

export class IdleTrim {
  private lastUse = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly onIdle: () => void, private readonly idleMs = POOL_IDLE_MS) {}

  /** The pool was used now. */
  touch(): void {
    this.lastUse = Date.now();
  }

  /** The pool holds memory: start watching (if not already). */
  arm(): void {
    this.lastUse = Date.now();
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (Date.now() - this.lastUse >= this.idleMs) this.onIdle();
    }, this.idleMs / 2);
    this.timer.unref();
  }

  /** The pool is empty: stop watching. */
  disarm(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
