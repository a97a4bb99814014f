/**
 * A partition log's fsync state (Kafka's flush bookkeeping in UnifiedLog/LocalLog): how far the
 * log is known to be on disk (`flushedOffset`), the recovery point (offsets below it are fsynced;
 * recovery after a crash starts at its segment), the time of the last flush, and group commit.
 *
 * Group commit: `flushUpTo(offset)` resolves once every offset below `offset` is fsynced. Callers
 * arriving while an fsync is running share the next one, so N concurrent producers cost about two
 * fsyncs, not N. The log supplies the sync itself (`sync(full)`: .log files only, or logs and
 * indexes) and marks itself offline when it fails (`fail`).
 */
import type { Clock } from '../clock.js';

export interface LogFlusherEnv {
  clock: Clock;
  /** The log end offset now (what a sync round started now covers). */
  endOffset(): number;
  /** fsyncs what is unsynced (`full`: indexes too); rejects with the I/O error. */
  sync(full: boolean): Promise<void>;
  /** The error to reject with once the log is offline, or null. */
  offline(): Error | null;
  /** Marks the log offline after a failed fsync; returns the error to throw. */
  fail(err: unknown): Error;
}

export class LogFlusher {
  private flushed = 0;
  private recovery = 0;
  private lastMs: number;
  private inFlight: { target: number; promise: Promise<void> } | null = null;
  private next: Promise<void> | null = null;

  constructor(private readonly env: LogFlusherEnv) {
    this.lastMs = env.clock.now();
  }

  get flushedOffset(): number {
    return this.flushed;
  }

  get recoveryPoint(): number {
    return this.recovery;
  }

  get lastFlushTimeMs(): number {
    return this.lastMs;
  }

  /** After loading or a full truncation: everything below `offset` is on disk. */
  resetTo(offset: number): void {
    this.flushed = offset;
    this.recovery = offset;
  }

  /** The log end moved back to `end`; returns whether the recovery point moved back with it. */
  truncateTo(end: number): boolean {
    this.flushed = Math.min(this.flushed, end);
    if (this.recovery <= end) return false;
    this.recovery = end;
    return true;
  }

  /** A rolled segment below `offset` was flushed: the recovery point may move there. */
  advanceRecoveryPoint(offset: number): boolean {
    if (offset <= this.recovery) return false;
    this.recovery = offset;
    return true;
  }

  flushUpTo(offset: number): Promise<void> {
    const offline = this.env.offline();
    if (offline) return Promise.reject(offline);
    if (offset <= this.flushed) return Promise.resolve();
    if (this.inFlight && this.inFlight.target >= offset) return this.inFlight.promise;
    if (!this.next) {
      const prev = this.inFlight?.promise.catch(() => undefined) ?? Promise.resolve();
      this.next = prev.then(() => {
        this.next = null;
        return this.startRound(false);
      });
    }
    return this.next;
  }

  /** fsyncs everything written so far (logs and indexes). */
  async flush(): Promise<void> {
    await this.inFlight?.promise.catch(() => undefined);
    await this.startRound(true);
  }

  private startRound(full: boolean): Promise<void> {
    const offline = this.env.offline();
    if (offline) return Promise.reject(offline);
    const target = this.env.endOffset();
    const promise = this.env.sync(full).then(
      () => {
        if (target > this.flushed) this.flushed = target;
        if (this.flushed > this.recovery) this.recovery = this.flushed;
        this.lastMs = this.env.clock.now();
      },
      (err) => {
        throw this.env.fail(err);
      },
    );
    const entry = { target, promise };
    this.inFlight = entry;
    const clear = (): void => {
      if (this.inFlight === entry) this.inFlight = null;
    };
    promise.then(clear, clear);
    return promise;
  }
}
