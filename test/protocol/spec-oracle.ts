/**
 * An interpreter of protocol-specs message JSON, independent of tools/codegen: sample values
 * (Sampler), field defaults (defaultOf) and a reference encoder (Oracle) built only on Writer
 * primitives. Used by round-trip.test.ts and codegen-synthetic.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writer } from '../../src/protocol/writer.js';

// ------------------------------------------------------------------ spec model (independent of tools/codegen)

export interface Field {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  flexibleVersions?: string;
  fields?: Field[];
}
export interface Spec {
  apiKey?: number;
  type: string;
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: Field[];
  commonStructs?: { name: string; fields: Field[] }[];
}

type Range = [number, number];
export function range(s: string | undefined): Range {
  if (s === undefined || s === 'none') return [1, 0];
  if (s.endsWith('+')) return [Number(s.slice(0, -1)), Infinity];
  const dash = s.indexOf('-');
  if (dash > 0) return [Number(s.slice(0, dash)), Number(s.slice(dash + 1))];
  return [Number(s), Number(s)];
}
const inRange = (s: string | undefined, v: number): boolean => {
  const [lo, hi] = range(s);
  return v >= lo && v <= hi;
};

const PRIMS = new Set(['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid']);
const camel = (n: string): string => n[0].toLowerCase() + n.slice(1);
export const kebab = (n: string): string => n.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const elemType = (f: Field): string => (f.type.startsWith('[]') ? f.type.slice(2) : f.type);
const isArray = (f: Field): boolean => f.type.startsWith('[]');
const isStruct = (f: Field): boolean => !PRIMS.has(elemType(f));
/** Tagged in v (Kafka: the field lives in the tag section for taggedVersions). */
const taggedIn = (f: Field, v: number): boolean => f.taggedVersions !== undefined && inRange(f.taggedVersions, v);
/** Present as a regular field in v. */
const regularIn = (f: Field, v: number): boolean => !taggedIn(f, v) && inRange(f.versions, v) && f.taggedVersions === undefined;
const presentIn = (f: Field, v: number): boolean => taggedIn(f, v) || regularIn(f, v);
const nullableIn = (f: Field, v: number): boolean => inRange(f.nullableVersions, v);

export function loadSpecs(dir: string): Spec[] {
  return readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Spec);
}

export class Ctx {
  readonly structs = new Map<string, Field[]>();
  constructor(readonly spec: Spec) {
    for (const s of spec.commonStructs ?? []) this.structs.set(s.name, s.fields);
  }
  fieldsOf(f: Field): Field[] {
    const fields = f.fields ?? this.structs.get(elemType(f));
    if (!fields) throw new Error(`${this.spec.name}: no fields for ${f.type}`);
    return fields;
  }
  flexible(v: number): boolean {
    return inRange(this.spec.flexibleVersions, v);
  }
}

// ------------------------------------------------------------------ defaults and samples

function parseIntDefault(d: string | number): number {
  if (typeof d === 'number') return d;
  const neg = d.startsWith('-');
  const body = neg ? d.slice(1) : d;
  const n = body.startsWith('0x') ? parseInt(body.slice(2), 16) : parseInt(body, 10);
  if (Number.isNaN(n)) throw new Error(`bad int default ${d}`);
  return neg ? -n : n;
}

function parseBigDefault(d: string | number): bigint {
  const s = String(d);
  const neg = s.startsWith('-');
  const n = BigInt(neg ? s.slice(1) : s); // BigInt() parses 0x too
  return neg ? -n : n;
}

export const ZERO_UUID = Buffer.alloc(16).toString('base64url');

/** Default value of a field, as the decoder must produce it when the field is absent. */
export function defaultOf(f: Field): unknown {
  const d = f.default;
  if (isArray(f)) return d === 'null' ? null : [];
  if (isStruct(f)) return null; // Samsa convention: an absent struct is null
  if (d === 'null') return null;
  switch (f.type) {
    case 'bool': return d === true || d === 'true';
    case 'int64': return d === undefined ? 0n : parseBigDefault(d as string);
    case 'float64': return d === undefined ? 0 : Number(d);
    case 'string': return d === undefined ? '' : String(d);
    case 'uuid': return ZERO_UUID;
    case 'bytes': return Buffer.alloc(0);
    case 'records': return null;
    default: return d === undefined ? 0 : parseIntDefault(d as string);
  }
}

export type Mode = 'full' | 'nulls' | 'defaults';

export class Sampler {
  private n = 0;
  constructor(private readonly ctx: Ctx, private readonly mode: Mode) {}

  struct(fields: Field[], v: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of fields) out[camel(f.name)] = this.field(f, v);
    return out;
  }

  private field(f: Field, v: number): unknown {
    if (!presentIn(f, v)) return defaultOf(f);
    if (this.mode === 'nulls' && nullableIn(f, v)) return null;
    if (this.mode === 'defaults') {
      // a present non-nullable struct cannot be null: fill it with defaults
      if (isStruct(f) && !isArray(f) && !nullableIn(f, v) && !taggedIn(f, v)) return this.struct(this.ctx.fieldsOf(f), v);
      // records default to null, which a present non-nullable records field cannot hold
      if (f.type === 'records' && !nullableIn(f, v)) return Buffer.alloc(0);
      return defaultOf(f);
    }
    if (isArray(f)) return [isStruct(f) ? this.struct(this.ctx.fieldsOf(f), v) : this.prim(elemType(f), f, true)];
    if (isStruct(f)) return this.struct(this.ctx.fieldsOf(f), v);
    return this.prim(f.type, f, false);
  }

  /** A value that differs from the field's default and from the other fields' values. */
  private prim(type: string, f: Field, element: boolean): unknown {
    const k = ++this.n;
    const def = element ? undefined : defaultOf(f);
    const pick = <T>(a: T, b: T): T => (a === def ? b : a);
    switch (type) {
      case 'bool': return def === true ? false : true;
      case 'int8': return pick(10 + (k % 100), -3);
      case 'int16': return pick(1000 + k, -300);
      case 'uint16': return pick(40000 + k, 1);
      case 'int32': return pick(100000 + k * 7, -5);
      case 'uint32': return pick(3000000000 + k, 1);
      case 'int64': return pick(1_000_000_000_000n + BigInt(k), -7n);
      case 'float64': return pick(k + 0.25, -0.5);
      case 'string': return `${f.name}-${k}-ü`;
      case 'uuid': {
        const b = Buffer.alloc(16);
        for (let i = 0; i < 16; i++) b[i] = (k * 31 + i * 17) & 0xff;
        return b.toString('base64url');
      }
      case 'bytes': return Buffer.from(`bytes-${f.name}-${k}`);
      case 'records': return Buffer.from(`records-${k}`.repeat(3));
    }
    throw new Error(`prim ${type}`);
  }
}

// ------------------------------------------------------------------ oracle encoder

function valueIsDefault(f: Field, value: unknown): boolean {
  const d = defaultOf(f);
  if (d === null || value === null) return d === value;
  if (Array.isArray(d)) return Array.isArray(value) && value.length === 0;
  if (Buffer.isBuffer(d)) return Buffer.isBuffer(value) && value.length === 0;
  return d === value;
}

export class Oracle {
  constructor(private readonly ctx: Ctx) {}

  struct(w: Writer, fields: Field[], v: number, m: Record<string, unknown>): void {
    const flex = this.ctx.flexible(v);
    for (const f of fields) if (regularIn(f, v)) this.field(w, f, v, flex, m[camel(f.name)]);
    if (!flex) return;
    const tagged = fields.filter((f) => taggedIn(f, v) && !valueIsDefault(f, m[camel(f.name)])).sort((a, b) => a.tag! - b.tag!);
    w.uvarint(tagged.length);
    for (const f of tagged) {
      const sub = new Writer();
      this.field(sub, f, v, true, m[camel(f.name)]);
      const b = sub.toBuffer();
      w.uvarint(f.tag!);
      w.uvarint(b.length);
      w.bytesRaw(b);
    }
  }

  private field(w: Writer, f: Field, v: number, flexMsg: boolean, value: unknown): void {
    const flex = f.flexibleVersions !== undefined ? flexMsg && inRange(f.flexibleVersions, v) : flexMsg;
    const nullable = nullableIn(f, v);
    if (isArray(f)) {
      if (value === null) {
        if (!nullable) throw new Error(`oracle: null array ${f.name}`);
        if (flex) w.uvarint(0); else w.int32(-1);
        return;
      }
      const arr = value as unknown[];
      if (flex) w.uvarint(arr.length + 1); else w.int32(arr.length);
      for (const e of arr) {
        if (isStruct(f)) this.struct(w, this.ctx.fieldsOf(f), v, e as Record<string, unknown>);
        else this.prim(w, elemType(f), false, flex, e);
      }
      return;
    }
    if (isStruct(f)) {
      if (nullable) {
        if (value === null) { w.int8(-1); return; }
        w.int8(1);
      }
      this.struct(w, this.ctx.fieldsOf(f), v, value as Record<string, unknown>);
      return;
    }
    this.prim(w, f.type, nullable, flex, value);
  }

  private prim(w: Writer, type: string, nullable: boolean, flex: boolean, value: unknown): void {
    switch (type) {
      case 'bool': w.int8(value ? 1 : 0); return;
      case 'int8': w.int8(value as number); return;
      case 'int16': w.int16(value as number); return;
      case 'uint16': w.uint16(value as number); return;
      case 'int32': w.int32(value as number); return;
      case 'uint32': w.uint32(value as number); return;
      case 'int64': w.int64(value as bigint); return;
      case 'float64': w.float64(value as number); return;
      case 'uuid': w.bytesRaw(Buffer.from(value as string, 'base64url')); return;
      case 'string': {
        if (value === null) {
          if (!nullable) throw new Error('oracle: null string');
          if (flex) w.uvarint(0); else w.int16(-1);
          return;
        }
        const b = Buffer.from(value as string, 'utf8');
        if (flex) w.uvarint(b.length + 1); else w.int16(b.length);
        w.bytesRaw(b);
        return;
      }
      case 'bytes': case 'records': {
        if (value === null) {
          if (!nullable) throw new Error('oracle: null bytes');
          if (flex) w.uvarint(0); else w.int32(-1);
          return;
        }
        const b = value as Buffer;
        if (flex) w.uvarint(b.length + 1); else w.int32(b.length);
        w.bytesRaw(b);
        return;
      }
    }
    throw new Error(`oracle prim ${type}`);
  }
}

