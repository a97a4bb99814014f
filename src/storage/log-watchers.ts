/**
 * Who is waiting on a partition log: followers' long-polling fetches wake on appends, consumers'
 * on high-watermark moves (they read only below it, so on a replicated partition an append alone
 * gives them nothing new). Counters let a long poll notice a change without subscribing first.
 * A high-watermark move made inside an append is told with the append, once it has completed.
 */
export class LogWatchers {
  /** Appends so far. */
  appends = 0;
  /** High-watermark moves so far. */
  highWatermarkMoves = 0;
  /** Created by the first listener of each kind: most partitions of a big broker never get one. */
  private appendListeners: Set<() => void> | null = null;
  private hwListeners: Set<() => void> | null = null;
  private hwMovePending = false;

  /** Listeners registered now, of both kinds (a long poll that ended must have removed its own). */
  get listenerCount(): number {
    return (this.appendListeners?.size ?? 0) + (this.hwListeners?.size ?? 0);
  }

  onAppend(listener: () => void): () => void {
    const set = (this.appendListeners ??= new Set());
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  onHighWatermark(listener: () => void): () => void {
    const set = (this.hwListeners ??= new Set());
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /** The high watermark moved; `withNextAppend` defers telling until appended() (inside an append). */
  highWatermarkMoved(withNextAppend: boolean): void {
    this.highWatermarkMoves++;
    if (withNextAppend) this.hwMovePending = true;
    else this.tellHighWatermark();
  }

  /** Tells a deferred high-watermark move now, if there is one. */
  flushPendingHighWatermark(): void {
    if (this.hwMovePending) this.tellHighWatermark();
  }

  appended(): void {
    this.appends++;
    this.flushPendingHighWatermark();
    callAll(this.appendListeners);
  }

  clear(): void {
    this.appendListeners?.clear();
    this.hwListeners?.clear();
  }

  private tellHighWatermark(): void {
    this.hwMovePending = false;
    callAll(this.hwListeners);
  }
}

function callAll(listeners: Set<() => void> | null): void {
  if (listeners === null || listeners.size === 0) return;
  for (const l of [...listeners]) {
    try {
      l();
    } catch {
      // A listener's failure is its own; the append succeeded.
    }
  }
}
