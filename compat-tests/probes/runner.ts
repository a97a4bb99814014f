/**
 * Runs the probe table against two brokers (Kafka, the reference, and Samsa) and compares the
 * normalised outcomes field by field.
 *
 * Per probe and target: the probe's set-up (fresh topics, groups, producers: through a separate
 * set-up connection, waiting for observable conditions), then the probe's frame on a fresh
 * connection (see wire.ts `exchange`), then normalisation (normalise.ts plus the probe's own).
 * Both targets run the same probe at the same time; probes run one after another, so the state
 * a probe sees is the same on both.
 */
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import type { ApiTypes } from '../../src/protocol/generated/api-table.js';
import { fill } from './fill.js';
import { T0 } from './fixtures.js';
import { normalise, relativeToT0, Symbols, type Json } from './normalise.js';
import { codec, exchange, RawConn, requestFrame, type Outcome } from './wire.js';

export type TargetName = 'kafka' | 'samsa';

export interface ProbeCtx {
  target: TargetName;
  port: number;
  symbols: Symbols;
  /** Values set-ups leave for the probe (member ids, producer ids, epochs), per target. */
  state: Record<string, any>;
  /** A set-up request on the shared set-up connection; resolves with the decoded response. */
  call(apiKey: number, version: number, body: Record<string, unknown>): Promise<any>;
  /** Runs `fn` once per target for `key` (shared fixtures), later callers get the same promise. */
  once<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Polls `check` until it holds (bounded); for conditions the broker reaches asynchronously. */
  waitFor(what: string, check: () => Promise<boolean>, timeoutMs?: number): Promise<void>;
  /** Opens an extra connection (e.g. to hold a parked JoinGroup); closed after the probe. */
  connect(): Promise<KafkaConn>;
}

export interface Probe {
  /** Unique and stable: expected-differences.json refers to it. */
  id: string;
  /** API key and version the probe exercises (coverage accounting; the frame header's for raw frames). */
  api: number;
  version: number;
  /** What is probed, with the behaviours.md row where there is one. */
  about: string;
  setup?: (ctx: ProbeCtx) => Promise<void>;
  body?: Record<string, unknown> | ((ctx: ProbeCtx) => Record<string, unknown>);
  /** A whole frame instead of `body` (size prefix included; correlation id at bytes 8-11 if it has one). */
  frame?: (ctx: ProbeCtx) => Buffer;
  decodeAs?: { apiKey: number; version: number };
  /**
   * How long to wait for an answer (default 15 s). Set lower only where a broker is known not to
   * answer at all (the outcome is then "timeout" and compared as such).
   */
  deadlineMs?: number;
  /** Probe-specific normalisation of the answered body (after the generic rules). */
  normalise?: (j: Json, ctx: ProbeCtx) => Json;
  /** Runs after the exchange (e.g. waits for a state both must reach before the next probe). */
  after?: (ctx: ProbeCtx, outcome: Outcome) => Promise<void>;
}

export interface Difference {
  path: string;
  kafka: string;
  samsa: string;
}

export interface ProbeResult {
  probe: Probe;
  kafka: Json;
  samsa: Json;
  differences: Difference[];
  error?: string;
}

const show = (j: Json | undefined): string => {
  if (j === undefined) return '<absent>';
  const s = JSON.stringify(j);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

/** Field-by-field differences between two normalised outcomes. */
export function diff(a: Json | undefined, b: Json | undefined, path = ''): Difference[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  const isObj = (x: Json | undefined): x is { [k: string]: Json } => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [{ path: `${path}.length`, kafka: `${a.length}: ${show(a)}`, samsa: `${b.length}: ${show(b)}` }];
    return a.flatMap((x, i) => diff(x, b[i], `${path}[${i}]`));
  }
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => diff(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return [{ path: path || '$', kafka: show(a), samsa: show(b) }];
}

class TargetRunner {
  readonly symbols = new Symbols();
  readonly state: Record<string, any> = {};
  private readonly onceMap = new Map<string, Promise<unknown>>();
  private setupConn: KafkaConn | null = null;
  private extra: KafkaConn[] = [];
  readonly ctx: ProbeCtx;

  constructor(readonly name: TargetName, readonly port: number) {
    this.ctx = {
      target: name,
      port,
      symbols: this.symbols,
      state: this.state,
      call: (k, v, b) => this.call(k, v, b),
      once: <T>(key: string, fn: () => Promise<T>) => {
        let p = this.onceMap.get(key) as Promise<T> | undefined;
        if (!p) {
          p = fn();
          this.onceMap.set(key, p);
        }
        return p;
      },
      waitFor: (what, check, timeoutMs = 15_000) => waitFor(`${name}: ${what}`, check, timeoutMs),
      connect: async () => {
        const c = await KafkaConn.connect('127.0.0.1', port);
        this.extra.push(c);
        return c;
      },
    };
  }

  async call(apiKey: number, version: number, body: Record<string, unknown>): Promise<any> {
    if (!this.setupConn) this.setupConn = await KafkaConn.connect('127.0.0.1', this.port);
    try {
      return await this.setupConn.request(apiKey as keyof ApiTypes, version, fill(`${codec(apiKey).name}Request`, version, body) as never);
    } catch (e) {
      this.setupConn.close();
      this.setupConn = null;
      throw e;
    }
  }

  async run(p: Probe): Promise<{ outcome: Outcome; json: Json }> {
    if (p.setup) await p.setup(this.ctx);
    const frame = p.frame ? p.frame(this.ctx) : requestFrame(p.api, p.version, typeof p.body === 'function' ? p.body(this.ctx) : (p.body ?? {}), { correlationId: 7 });
    const conn = await RawConn.open(this.port);
    let outcome: Outcome;
    try {
      outcome = await exchange(conn, frame, p.decodeAs, p.deadlineMs);
    } finally {
      conn.close();
    }
    if (p.after) await p.after(this.ctx, outcome);
    for (const c of this.extra.splice(0)) c.close();
    return { outcome, json: this.comparable(p, outcome) };
  }

  private comparable(p: Probe, o: Outcome): Json {
    if (o.kind !== 'answered') return { outcome: o.kind };
    const nctx = { symbols: this.symbols, port: this.port };
    let body = normalise(o.body, nctx);
    if (p.normalise && o.decodeError === undefined) body = p.normalise(body, this.ctx);
    body = relativeToT0(body, T0);
    const j: { [k: string]: Json } = { outcome: 'answered', body };
    if (o.trailingBytes !== 0) j.trailingBytes = o.trailingBytes;
    if (o.unknownTags.length > 0) j.unknownTags = o.unknownTags;
    if (o.decodeError !== undefined) j.decodeError = o.decodeError;
    return j;
  }

  close(): void {
    this.setupConn?.close();
    for (const c of this.extra.splice(0)) c.close();
  }
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  let last: unknown = null;
  for (;;) {
    try {
      if (await check()) return;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 100);
  }
}

export interface Run {
  results: ProbeResult[];
  ms: number;
}

/** Kafka's recorded outcomes, by probe id (the comparable JSON of a clean run: recording.ts). */
export type RecordedAnswers = Record<string, Json>;

/**
 * Runs every probe on both brokers, or on Samsa against Kafka's recorded outcomes (`kafka` given
 * as a record); never throws for a probe (its error is part of the result).
 */
export async function runProbes(probes: Probe[], ports: { kafka: number | RecordedAnswers; samsa: number }, log: (l: string) => void = () => {}): Promise<Run> {
  const t0 = Date.now();
  const seen = new Set<string>();
  for (const p of probes) {
    if (seen.has(p.id)) throw new Error(`duplicate probe id ${p.id}`);
    seen.add(p.id);
  }
  const recorded = typeof ports.kafka === 'number' ? null : ports.kafka;
  const kafka = typeof ports.kafka === 'number' ? new TargetRunner('kafka', ports.kafka) : null;
  const samsa = new TargetRunner('samsa', ports.samsa);
  const kafkaRun = async (p: Probe) => {
    if (kafka) return kafka.run(p);
    if (!(p.id in recorded!)) throw new Error(`no recorded Kafka outcome for probe ${p.id}`);
    return { json: recorded![p.id] };
  };
  const results: ProbeResult[] = [];
  try {
    for (const p of probes) {
      const t = Date.now();
      const [k, s] = await Promise.allSettled([kafkaRun(p), samsa.run(p)]);
      const err = (r: PromiseSettledResult<unknown>) => (r.status === 'rejected' ? String((r.reason as Error)?.stack ?? r.reason) : undefined);
      const kj: Json = k.status === 'fulfilled' ? k.value.json : { probeError: err(k)! };
      const sj: Json = s.status === 'fulfilled' ? s.value.json : { probeError: err(s)! };
      const error = [err(k) && `kafka: ${err(k)}`, err(s) && `samsa: ${err(s)}`].filter(Boolean).join('\n') || undefined;
      results.push({ probe: p, kafka: kj, samsa: sj, differences: diff(kj, sj), error });
      const ms = Date.now() - t;
      if (ms > 1000) log(`probe ${p.id} took ${ms} ms`);
    }
  } finally {
    kafka?.close();
    samsa.close();
  }
  return { results, ms: Date.now() - t0 };
}
