/**
 * Normalisers: what must differ between two correct brokers is replaced by a placeholder before
 * the field-by-field comparison, and nothing else. Each rule says why it exists.
 *
 * Values a probe's own set-up produced (topic ids from CreateTopics, producer ids from
 * InitProducerId, member ids from JoinGroup) are registered in the target's `Symbols` and become
 * the same name on both sides ("topic-id:probe-a"), so a response that names the wrong topic or
 * producer is still caught. Unregistered random values become a generic placeholder.
 */
import { ZERO_UUID } from './fill.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Per-target names for values that differ by construction. */
export class Symbols {
  private readonly names = new Map<string, string>();

  set(kind: string, value: string | bigint | number, name: string): void {
    this.names.set(`${kind}:${String(value)}`, name);
  }

  get(kind: string, value: string | bigint | number): string | undefined {
    return this.names.get(`${kind}:${String(value)}`);
  }
}

export interface NormaliseContext {
  symbols: Symbols;
  /** The target's own listener port (only that port is replaced: any other port would be a bug). */
  port: number;
}

const RAW_MESSAGES = process.env.PROBE_RAW_MESSAGES === '1';
const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

function producerIdName(v: bigint, ctx: NormaliseContext): Json {
  if (v < 0n) return Number(v);
  // Producer ids are allocated by each broker's own counter (Kafka from its controller's blocks).
  return ctx.symbols.get('pid', v) ?? '<producer-id>';
}

function memberIdName(v: string, ctx: NormaliseContext): string {
  if (v === '') return v;
  // Member ids are "<client id or instance id>-<random UUID>" (JoinGroup J3/J5): the UUID is random.
  return ctx.symbols.get('member', v) ?? v.replace(UUID_ANYWHERE, '<uuid>');
}

/** Field rules by field name: the value as compared. `undefined` = no rule, compare as is. */
function fieldRule(key: string, v: unknown, ctx: NormaliseContext): Json | undefined {
  switch (key) {
    case 'throttleTimeMs':
      // No client quotas on either broker; a non-zero throttle would be timing, not protocol.
      return typeof v === 'number' ? 0 : undefined;
    case 'clusterId':
      // Each cluster's id is random (Kafka: formatted storage; Samsa: first start).
      return typeof v === 'string' ? '<cluster-id>' : undefined;
    case 'port':
      // Both listen on free loopback ports; hosts are both 127.0.0.1 and stay compared.
      return v === ctx.port ? '<own-port>' : undefined;
    case 'topicId':
      // Topic ids are random UUIDs chosen at creation.
      if (typeof v !== 'string' || v === ZERO_UUID) return undefined;
      return ctx.symbols.get('topic-id', v) ?? '<unregistered-topic-id>';
    case 'producerId':
      return typeof v === 'bigint' ? producerIdName(v, ctx) : undefined;
    case 'memberId':
    case 'leader':
      return typeof v === 'string' ? memberIdName(v, ctx) : undefined;
    case 'logAppendTimeMs':
    case 'transactionStartTimeMs':
      // Broker wall-clock times; -1 ("none") and 0 (a default) stay compared.
      return typeof v === 'bigint' && v > 0n ? '<broker-time>' : undefined;
    case 'logDir':
      // Each broker's own data directory.
      return typeof v === 'string' ? '<log-dir>' : undefined;
    case 'totalBytes':
    case 'usableBytes':
      // Disk capacity of the file system each data directory lives on.
      return typeof v === 'bigint' && v >= 0n ? '<disk-bytes>' : undefined;
    case 'errorMessage':
    case 'batchIndexErrorMessage':
      // Human-readable text: clients show it but decide on the error code. Whether a message is
      // there (null vs text) is compared; its wording is not.
      // PROBE_RAW_MESSAGES=1 (cli.ts, when working on a difference) shows the texts.
      return typeof v === 'string' && v !== '' && !RAW_MESSAGES ? '<message>' : undefined;
    case 'records':
      return v === null || v === undefined ? null : summariseRecords(Array.isArray(v) ? Buffer.concat(v as Buffer[]) : (v as Buffer), ctx);
    default:
      return undefined;
  }
}

/**
 * Record batches as compared: header fields and the records section. The CRC is left out (it
 * covers the fields compared here); control batches' timestamps are broker time; a partial
 * batch at the end (Kafka cuts at the byte limit, F7) is kept as its length.
 */
function summariseRecords(buf: Buffer, ctx: NormaliseContext): Json {
  const out: Json[] = [];
  let pos = 0;
  while (pos + 61 <= buf.length && pos + 12 + buf.readInt32BE(pos + 8) <= buf.length) {
    const len = buf.readInt32BE(pos + 8);
    const attributes = buf.readInt16BE(pos + 21);
    const control = (attributes & 0x20) !== 0;
    const logAppend = (attributes & 0x08) !== 0;
    const time = (off: number): Json => (control || logAppend ? '<broker-time>' : String(buf.readBigInt64BE(pos + off)));
    out.push({
      baseOffset: String(buf.readBigInt64BE(pos)),
      batchLength: len,
      partitionLeaderEpoch: buf.readInt32BE(pos + 12),
      magic: buf.readInt8(pos + 16),
      attributes,
      lastOffsetDelta: buf.readInt32BE(pos + 23),
      baseTimestamp: time(27),
      maxTimestamp: time(35),
      producerId: producerIdName(buf.readBigInt64BE(pos + 43), ctx),
      producerEpoch: buf.readInt16BE(pos + 51),
      baseSequence: buf.readInt32BE(pos + 53),
      recordsCount: buf.readInt32BE(pos + 57),
      records: buf.subarray(pos + 61, pos + 12 + len).toString('hex'),
    });
    pos += 12 + len;
  }
  if (pos < buf.length) out.push({ partialBatchBytes: buf.length - pos });
  return out;
}

/** The comparable form of a decoded response: plain JSON with the rules above applied. */
export function normalise(v: unknown, ctx: NormaliseContext, key = ''): Json {
  const ruled = key ? fieldRule(key, v, ctx) : undefined;
  if (ruled !== undefined) return ruled;
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return v;
  if (Buffer.isBuffer(v)) return `0x${v.toString('hex')}`;
  if (Array.isArray(v)) return v.map((x) => normalise(x, ctx));
  const out: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = normalise(x, ctx, k);
  return out;
}

// ---- helpers for per-probe normalisers ---------------------------------------------------------

/** Sorts the array at `path` (dot-separated; `[]` descends into every element) by `key`. */
export function sortAt(j: Json, path: string, key: string | ((x: Json) => string)): Json {
  const keyOf = typeof key === 'string' ? (x: Json) => String((x as Record<string, Json>)?.[key]) : key;
  const walk = (node: Json, parts: string[]): void => {
    if (node === null || typeof node !== 'object') return;
    if (parts.length === 0) {
      if (Array.isArray(node)) node.sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
      return;
    }
    const [head, ...rest] = parts;
    if (head === '[]') {
      if (Array.isArray(node)) for (const x of node) walk(x, rest);
      return;
    }
    walk((node as Record<string, Json>)[head], rest);
  };
  walk(j, path.split('.').filter((p) => p.length > 0));
  return j;
}

/** Keeps only the elements of the array at `path` for which `keep` holds. */
export function filterAt(j: Json, path: string, keep: (x: Json) => boolean): Json {
  const parts = path.split('.');
  let node: Json = j;
  for (const p of parts.slice(0, -1)) node = (node as Record<string, Json>)?.[p];
  const last = parts[parts.length - 1];
  const parent = node as Record<string, Json> | null;
  if (parent && Array.isArray(parent[last])) parent[last] = (parent[last] as Json[]).filter(keep);
  return j;
}

/** Replaces the value at every path matching `path` (`[]` = every element) with `to`. */
export function replaceAt(j: Json, path: string, to: Json | ((x: Json) => Json)): Json {
  const walk = (node: Json, parts: string[]): void => {
    if (node === null || typeof node !== 'object' || parts.length === 0) return;
    const [head, ...rest] = parts;
    if (head === '[]') {
      if (Array.isArray(node)) node.forEach((x, i) => (rest.length === 0 ? (node[i] = typeof to === 'function' ? to(x) : to) : walk(x, rest)));
      return;
    }
    const obj = node as Record<string, Json>;
    if (!(head in obj)) return;
    if (rest.length === 0) obj[head] = typeof to === 'function' ? to(obj[head]) : to;
    else walk(obj[head], rest);
  };
  walk(j, path.split('.'));
  return j;
}

/** ApiVersions' list as a map "key → min-max", so differences are named per API. */
export function apiKeysAsMap(j: Json): Json {
  const o = j as Record<string, Json>;
  if (!o || !Array.isArray(o.apiKeys)) return j;
  const m: Record<string, Json> = {};
  for (const a of o.apiKeys as Record<string, Json>[]) m[String(a.apiKey)] = `${a.minVersion}-${a.maxVersion}`;
  o.apiKeys = m;
  return j;
}

/**
 * The array at `path` (dot-separated, `[]` = every element) as an object keyed by each
 * element's `key` field, so a missing or extra entry is named in the differences.
 */
export function keyedAt(j: Json, path: string, key = 'name'): Json {
  const walk = (node: Json, parts: string[]): void => {
    if (node === null || typeof node !== 'object') return;
    const [head, ...rest] = parts;
    if (head === '[]') {
      if (Array.isArray(node)) for (const x of node) walk(x, rest);
      return;
    }
    const obj = node as Record<string, Json>;
    if (rest.length === 0) {
      const arr = obj[head];
      if (!Array.isArray(arr)) return;
      const m: Record<string, Json> = {};
      for (const x of arr) {
        const { [key]: k, ...restOf } = x as Record<string, Json>;
        m[String(k)] = restOf;
      }
      obj[head] = m;
      return;
    }
    walk(obj[head], rest);
  };
  walk(j, path.split('.'));
  return j;
}

/**
 * The probes' record timestamps are the run's T0 plus a few milliseconds (fixtures.ts): a value
 * within a day of `t0` (a number, or a decimal string as bigint fields are shown, "…n") becomes
 * "T0+<delta>", so a recorded Kafka run (recording.ts) compares with a later Samsa run. The delta
 * is kept: a broker that returns the wrong record's timestamp still differs.
 */
export function relativeToT0(j: Json, t0: bigint): Json {
  const DAY = 86_400_000n;
  if ((typeof j === 'number' && Number.isSafeInteger(j) && Math.abs(j) >= 1e11) || (typeof j === 'string' && /^-?\d{12,16}n?$/.test(j))) {
    const d = BigInt(typeof j === 'string' ? j.replace(/n$/, '') : j) - t0;
    return d >= -DAY && d <= DAY ? `T0${d < 0n ? '' : '+'}${d}` : j;
  }
  if (Array.isArray(j)) return j.map((x) => relativeToT0(x, t0));
  if (j !== null && typeof j === 'object') return Object.fromEntries(Object.entries(j).map(([k, v]) => [k, relativeToT0(v, t0)]));
  return j;
}
