/**
 * The metric primitives behind `/metrics` and the Prometheus text exposition format (version
 * 0.0.4) they are rendered to.
 *
 * Hand-written rather than prom-client: the produce and fetch paths increment counters that were
 * resolved once (a topic's `TopicStats`, an API's `RequestStats`), so an increment is one
 * property add on an object that already exists, with no label hashing and no allocation; the
 * text is built only when something scrapes. See docs/observability.md's metrics section for the
 * measurement behind the choice.
 */

/** A latency distribution with fixed bucket bounds in milliseconds (observe() never allocates). */
export class Histogram {
  /** Upper bounds (ms) of the buckets; one more bucket above the last holds the rest. */
  static readonly BOUNDS_MS: readonly number[] = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000];
  readonly counts = new Float64Array(Histogram.BOUNDS_MS.length + 1);
  count = 0;
  sumMs = 0;

  observe(ms: number): void {
    const bounds = Histogram.BOUNDS_MS;
    let i = 0;
    while (i < bounds.length && ms > bounds[i]) i++;
    this.counts[i]++;
    this.count++;
    this.sumMs += ms;
  }

  /**
   * The q-quantile (0..1), interpolated linearly inside the bucket that holds it (as Prometheus'
   * histogram_quantile does); 0 when nothing was observed.
   */
  quantile(q: number): number {
    if (this.count === 0) return 0;
    const bounds = Histogram.BOUNDS_MS;
    const rank = q * this.count;
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      const c = this.counts[i];
      if (c > 0 && seen + c >= rank) {
        const lower = i === 0 ? 0 : bounds[i - 1];
        const upper = i < bounds.length ? bounds[i] : bounds[bounds.length - 1];
        return lower + (upper - lower) * ((rank - seen) / c);
      }
      seen += c;
    }
    return bounds[bounds.length - 1];
  }
}

export type MetricType = 'counter' | 'gauge' | 'summary' | 'histogram' | 'untyped';
export type Labels = readonly (readonly [string, string | number])[];

/** Escapes a label value: backslash, double quote and line feed (the format's three escapes). */
export function escapeLabelValue(v: string): string {
  if (!/[\\"\n]/.test(v)) return v;
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

/** The `{name="value",...}` part of a sample ('' without labels), for reuse across families. */
export function labelText(labels: Labels): string {
  if (labels.length === 0) return '';
  let text = '{';
  for (let i = 0; i < labels.length; i++) {
    if (i > 0) text += ',';
    text += `${labels[i][0]}="${escapeLabelValue(String(labels[i][1]))}"`;
  }
  return text + '}';
}

function escapeHelp(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function formatValue(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

/**
 * Builds one exposition. Each family is declared once (HELP, TYPE) and its samples follow it;
 * declaring a family twice, or a sample outside its family, throws (a bug, not a scrape error).
 */
export class ExpositionWriter {
  private readonly lines: string[] = [];
  private readonly declared = new Set<string>();
  private current: { name: string; type: MetricType } | null = null;

  family(name: string, type: MetricType, help: string): this {
    if (this.declared.has(name)) throw new Error(`metric family ${name} declared twice`);
    this.declared.add(name);
    this.current = { name, type };
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    return this;
  }

  /** A sample of the current family; `suffix` is '_sum', '_count', '_bucket' for summaries/histograms. */
  sample(labels: Labels, value: number, suffix = ''): this {
    const fam = this.current;
    if (!fam) throw new Error('sample before any family');
    this.lines.push(`${fam.name}${suffix}${labelText(labels)} ${formatValue(value)}`);
    return this;
  }

  /** A sample whose labels were rendered by labelText() (the same labels in many families). */
  sampleWith(renderedLabels: string, value: number): this {
    const fam = this.current;
    if (!fam) throw new Error('sample before any family');
    this.lines.push(`${fam.name}${renderedLabels} ${formatValue(value)}`);
    return this;
  }

  /** A histogram as a Prometheus summary: quantiles (as the JMX exporter's percentile gauges), _sum and _count. */
  summary(labels: Labels, h: Histogram, quantiles: readonly number[] = SUMMARY_QUANTILES): this {
    for (const q of quantiles) this.sample([...labels, ['quantile', String(q)]], h.quantile(q));
    this.sample(labels, h.sumMs, '_sum');
    this.sample(labels, h.count, '_count');
    return this;
  }

  text(): string {
    return this.lines.length === 0 ? '' : this.lines.join('\n') + '\n';
  }
}

/** The percentiles Kafka's Yammer histograms expose (50th … 999th), as quantile labels. */
export const SUMMARY_QUANTILES: readonly number[] = [0.5, 0.75, 0.95, 0.98, 0.99, 0.999];

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
