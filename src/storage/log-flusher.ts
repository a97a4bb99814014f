/**
 * A partition log's fsync state (Kafka's flush bookkeeping in UnifiedLog/LocalLog): how far the
 * log is known to be on disk (`flushedOffset`), the recovery point (offsets below it are fsynced;
 * recovery after a crash starts at its segment), the time of the last flush, and group commit.
 *
 * Group commit: `flushUpTo(offset)` resolves once every offset below `offset` is fsynced. Callers
 * arriving while an fsync is running share the next one, so N concurrent producers cost about two
 * fsyncs, not N. The log supplies the sync itself (`syncUnflushed(full)`: .log files only, or logs and
 * indexes) and marks itself offline when it fails.
 */
import type { Clock } from '../clock.js';

/**
 * The log a flusher works for (the LocalLog itself: no closures per partition, which cost
 * a few hundred bytes each on a broker of 10,000 partitions).
 */
export interface LogFlusherHost {
  /** The log end offset now (what a sync round started now covers). */
  readonly logEndOffset: number;
  /** fsyncs what is unsynced (`full`: indexes too); a failure takes the log offline and rejects with the error to throw. */
  syncUnflushed(full: boolean): Promise<void>;
  /** The error to reject with once the log is offline, or null. */
  readonly offlineCause: Error | null;
}

export class LogFlusher {
  private flushed = 0;
  private recovery = 0;
  private lastMs: number;
  private inFlight: { target: number; promise: Promise<void> } | null = null;
  private next: Promise<void> | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly host: LogFlusherHost,
  ) {
    this.lastMs = clock.now();
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
    const offline = this.host.offlineCause;
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
    const offline = this.host.offlineCause;
    if (offline) return Promise.reject(offline);
    const target = this.host.logEndOffset;
    const promise = this.host.syncUnflushed(full).then(() => {
      if (target > this.flushed) this.flushed = target;
      if (this.flushed > this.recovery) this.recovery = this.flushed;
      this.lastMs = this.clock.now();
    });
    const entry = { target, promise };
    this.inFlight = entry;
    const clear = (): void => {
      if (this.inFlight === entry) this.inFlight = null;
    };
    promise.then(clear, clear);
    return promise;
  }
}
