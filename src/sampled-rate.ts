/**
 * A rate over a ring of time windows (Kafka's Rate over a SampledStat): `samples` windows of
 * `windowMs` each; a window older than all of them together is reset before it is measured
 * (purgeObsoleteSamples), and a rate measured over fewer full windows than samples - 1 is taken
 * over that many (Kafka's windowSize), so a burst right after start is not overstated. Typed
 * arrays, no allocation per record. Used by client quotas (security/quotas.ts) and replication
 * quotas (replication/replication-quota.ts).
 */
export class SampledRate {
  private readonly starts: Float64Array;
  private readonly values: Float64Array;
  private current = 0;

  constructor(private readonly samples: number, private readonly windowMs: number, now: number) {
    this.starts = new Float64Array(samples).fill(now);
    this.values = new Float64Array(samples);
  }

  private advance(now: number): void {
    if (now < this.starts[this.current] + this.windowMs) return;
    this.current = (this.current + 1) % this.samples;
    this.starts[this.current] = now;
    this.values[this.current] = 0;
  }

  record(value: number, now: number): void {
    this.advance(now);
    this.values[this.current] += value;
  }

  /** Per second now, and the span it was measured over (ms). */
  measure(now: number): { rate: number; windowMs: number } {
    const span = this.samples * this.windowMs;
    let total = 0;
    let oldest = now;
    for (let i = 0; i < this.samples; i++) {
      if (now - this.starts[i] >= span) {
        this.starts[i] = now;
        this.values[i] = 0;
        continue;
      }
      total += this.values[i];
      if (this.starts[i] < oldest) oldest = this.starts[i];
    }
    let elapsed = now - oldest;
    const full = Math.floor(elapsed / this.windowMs);
    if (full < this.samples - 1) elapsed += (this.samples - 1 - full) * this.windowMs;
    return { rate: (total * 1000) / Math.max(elapsed, 1), windowMs: elapsed };
  }

  /** Per second now. */
  rate(now: number): number {
    return this.measure(now).rate;
  }
}
