/**
 * Fills a partial message body with the defaults of protocol-specs/ (the same defaults the
 * generated `defaultX()` factories use), so a probe names only the fields it cares about:
 * `fill('MetadataRequest', 12, { topics: [{ name: 't' }] })`.
 *
 * Also converts the convenient forms a probe table writes into the generated types: numbers
 * for int64 fields become bigint, strings for bytes fields become UTF-8 Buffers.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SPEC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'protocol-specs', 'messages');
const PRIMITIVES = new Set(['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'string', 'bytes', 'records', 'uuid']);
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

interface FieldSpec {
  name: string;
  type: string;
  default?: string | number | boolean;
  nullableVersions?: string;
  fields?: FieldSpec[];
}

interface MessageSpec {
  name: string;
  fields: FieldSpec[];
  commonStructs?: { name: string; fields: FieldSpec[] }[];
}

const specs = new Map<string, MessageSpec>();

function spec(name: string): MessageSpec {
  let s = specs.get(name);
  if (!s) {
    s = JSON.parse(readFileSync(path.join(SPEC_DIR, `${name}.json`), 'utf8')) as MessageSpec;
    specs.set(name, s);
  }
  return s;
}

const camel = (n: string) => n[0].toLowerCase() + n.slice(1);

function defaultOf(f: FieldSpec, elem: string, isArray: boolean): unknown {
  const d = f.default;
  if (isArray) return d === 'null' ? null : [];
  if (!PRIMITIVES.has(elem)) return null;
  if (d === 'null') return null;
  switch (elem) {
    case 'bool': return d === true || d === 'true';
    case 'int64': return d === undefined ? 0n : BigInt(String(d));
    case 'string': return d === undefined ? '' : String(d);
    case 'uuid': return ZERO_UUID;
    case 'bytes': return Buffer.alloc(0);
    case 'records': return null;
    default: return d === undefined ? 0 : Number(d);
  }
}

function convert(elem: string, v: unknown): unknown {
  if (v === null || v === undefined) return v;
  if (elem === 'int64' && typeof v === 'number') return BigInt(v);
  if (elem === 'bytes' && typeof v === 'string') return Buffer.from(v, 'utf8');
  return v;
}

function fillStruct(msg: MessageSpec, fields: FieldSpec[], given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const known = new Set<string>();
  for (const f of fields) {
    const key = camel(f.name);
    known.add(key);
    const isArray = f.type.startsWith('[]');
    const elem = isArray ? f.type.slice(2) : f.type;
    const sub = PRIMITIVES.has(elem) ? null : (f.fields ?? msg.commonStructs?.find((s) => s.name === elem)?.fields);
    if (!PRIMITIVES.has(elem) && !sub) throw new Error(`${msg.name}: no fields for ${elem}`);
    if (!(key in given)) {
      out[key] = defaultOf(f, elem, isArray);
      continue;
    }
    const v = given[key];
    if (v === null) out[key] = null;
    else if (isArray) out[key] = (v as unknown[]).map((x) => (sub ? fillStruct(msg, sub, x as Record<string, unknown>) : convert(elem, x)));
    else out[key] = sub ? fillStruct(msg, sub, v as Record<string, unknown>) : convert(elem, v);
  }
  for (const k of Object.keys(given)) if (!known.has(k)) throw new Error(`${msg.name}: no field ${k}`);
  return out;
}

/** `given` completed with defaults; throws on a field name the message does not have. */
export function fill(messageName: string, _version: number, given: Record<string, unknown>): Record<string, unknown> {
  const msg = spec(messageName);
  return fillStruct(msg, msg.fields, given);
}
