/**
 * The long poll of Fetch and ShareFetch (Kafka's DelayedFetch in the fetch purgatory): a fetch
 * that found fewer than min_bytes watches its partitions' logs and is woken by the first append
 * (a follower, which reads to the log end) or high-watermark move (a consumer), by its timeout,
 * by its connection closing or by the broker stopping.
 *
 * `watch` notes each log's counter before the read, so an append between the read and the wait
 * is never missed: `wait` then returns at once.
 */
import type { Clock } from '../clock.js';
import type { PartitionLog } from '../storage/partition-log.js';

export type WakeReason = 'append' | 'timeout' | 'closed';

export interface AppendWaiter {
  /**
   * Waits for an append to a watched log since the watch was made (returns at once if one
   * happened already), or the timeout; 'closed' when `closed` is aborted or the broker is stopping.
   */
  wait(timeoutMs: number, closed: AbortSignal): Promise<WakeReason>;
}

export interface FetchPurgatoryOptions {
  clock: Clock;
  /** Aborted when the broker begins to stop: every waiting fetch ends. */
  stopSignal: AbortSignal;
  /** +1 when a fetch starts waiting, -1 when it stops (Kafka's purgatory size metric). */
  onWaiting?: (delta: 1 | -1) => void;
}

export class FetchPurgatory {
  constructor(private readonly opts: FetchPurgatoryOptions) {}

  /** Followers wait for appends; consumers for the high watermark to move. */
  watch(logs: readonly PartitionLog[], follower: boolean): AppendWaiter {
    const count = (log: PartitionLog) => (follower ? log.appendCount : log.highWatermarkMoveCount);
    const counts = logs.map(count);
    const { clock, stopSignal, onWaiting } = this.opts;
    return {
      wait: (timeoutMs, closed) => new Promise((resolve) => {
        for (let i = 0; i < logs.length; i++) if (count(logs[i]) !== counts[i]) return resolve('append');
        if (closed.aborted || stopSignal.aborted) return resolve('closed');
        // Every listener is removed again, whatever ends the wait.
        let finished = false;
        let timer: { cancel(): void } | null = null;
        let unsubscribes: (() => void)[] = [];
        const done = (why: WakeReason): void => {
          if (finished) return;
          finished = true;
          onWaiting?.(-1);
          for (const u of unsubscribes) u();
          closed.removeEventListener('abort', onEnd);
          stopSignal.removeEventListener('abort', onEnd);
          timer?.cancel();
          resolve(why);
        };
        const onEnd = (): void => done('closed');
        onWaiting?.(1);
        unsubscribes = logs.map((log) => (follower ? log.onAppend(() => done('append')) : log.onHighWatermark(() => done('append'))));
        closed.addEventListener('abort', onEnd);
        stopSignal.addEventListener('abort', onEnd);
        timer = clock.setTimeout(() => done('timeout'), timeoutMs);
        if (finished) timer.cancel();
      }),
    };
  }
}
