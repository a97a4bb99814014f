/**
 * Deletes segments that retention or DeleteRecords removed from a log: their files were renamed
 * to `.deleted` at once, and are removed after `file.delete.delay.ms` (by the log's Clock) so
 * reads already in flight finish first (Kafka's LocalLog.deleteSegmentFiles with the async
 * delay). Leftovers of a crash keep the `.deleted` suffix and are removed at the next load.
 */
import type { Clock, Timer } from '../clock.js';
import type { LogSegment } from './log-segment.js';

export class SegmentDeleter {
  private readonly pending = new Map<LogSegment, Timer>();
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly clock: Clock, private readonly delayMs: () => number) {}

  schedule(seg: LogSegment): void {
    const run = (): void => {
      this.pending.delete(seg);
      const p: Promise<void> = seg
        .deleteFiles()
        .catch(() => undefined)
        .finally(() => this.running.delete(p));
      this.running.add(p);
    };
    const delay = this.delayMs();
    if (delay <= 0) {
      run();
      return;
    }
    this.pending.set(seg, this.clock.setTimeout(run, delay));
  }

  /** Resolves when the deletions whose delay has passed are done. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  /** Deletes everything still waiting now (close, topic deletion); no timer is left behind. */
  async finishAll(): Promise<void> {
    await this.settled();
    for (const [seg, timer] of [...this.pending]) {
      timer.cancel();
      this.pending.delete(seg);
      await seg.deleteFiles().catch(() => undefined);
    }
  }
}
