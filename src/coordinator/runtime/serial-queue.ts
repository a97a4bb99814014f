/**
 * One operation at a time: each task starts after the previous one settled (whatever its
 * outcome). A coordinator shard owns one queue; nothing touches the shard's state outside it.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  /** Runs `task` after every task queued before it; resolves or rejects with its outcome. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    this.pending++;
    const result = this.tail.then(task);
    this.tail = result.then(
      () => { this.pending--; },
      () => { this.pending--; },
    );
    return result;
  }

  /** Tasks queued or running. */
  get size(): number {
    return this.pending;
  }

  /** Resolves once every task queued so far (and any queued meanwhile) has settled. */
  async idle(): Promise<void> {
    while (this.pending > 0) await this.tail;
  }
}
