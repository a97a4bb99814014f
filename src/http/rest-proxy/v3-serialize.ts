/**
 * A v3 produce record's key or value as bytes (Confluent's RecordSerializer):
 *
 * - BINARY: `data` is base64 (standard alphabet, padded); JSON: any JSON, written as its JSON
 *   text; STRING: a string, written as UTF-8. A null or absent `data` writes a null key/value.
 * - AVRO / JSONSCHEMA / PROTOBUF, or no type at all (the subject's schema decides): the schema is
 *   found in the Schema Registry (v3-schemas.ts) and the data written in Confluent's wire format:
 *   byte 0, the schema id (4 bytes, big-endian), then
 *     AVRO: the Avro binary encoding of `data` given in Avro's JSON encoding (unions wrapped as
 *       `{"string": "x"}`, bytes and fixed as one character a byte), with avsc; an unwrapped union
 *       value is accepted too when one branch takes it;
 *     JSONSCHEMA: the JSON text of `data` (not validated against the schema);
 *     PROTOBUF: the message indexes of the schema's first message (one 0 byte), then `data`
 *       (protobufjs' JSON object form: field names as declared, enums by name, 64-bit integers as
 *       numbers or strings, bytes base64) encoded with protobufjs.
 *
 * avsc and protobufjs are imported the first time a record of their format is written; the
 * writer of a schema id is kept (ids never change what they name).
 */
import { referencedSchemas } from '../../schema-registry/schema-registry.js';
import { SchemaLookup, SchemaLookupError, type RegisteredSchema, type SchemaSpec } from './v3-schemas.js';

export type DataFormat = 'BINARY' | 'JSON' | 'STRING' | 'AVRO' | 'JSONSCHEMA' | 'PROTOBUF';
const FORMATS: readonly DataFormat[] = ['BINARY', 'JSON', 'STRING', 'AVRO', 'JSONSCHEMA', 'PROTOBUF'];
const FIELDS = new Set(['type', 'subject', 'subject_name_strategy', 'schema_id', 'schema_version', 'schema', 'data']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MAX_WRITERS = 256;

/** A key or value written: its bytes and what the produce answer says of it. */
export interface Serialized {
  bytes: Buffer | null;
  info: { type: DataFormat; size: number; subject?: string; schema_id?: number; schema_version?: number };
}

/** A record's key or value that cannot be written: answered as `{error_code, message}`. */
export class RecordError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

type Writer = (data: unknown) => Buffer;
/** Writers by schema id, per registry (several brokers, of several clusters, may share a process). */
const writers = new WeakMap<object, Map<number, Promise<Writer>>>();

function fail(message: string): never {
  throw new RecordError(400, message);
}

/** `part` (the request's `key` or `value`) written; null when the record has none. */
export async function serializePart(lookup: SchemaLookup, topic: string, isKey: boolean, part: unknown): Promise<Serialized | null> {
  if (part === undefined || part === null) return null;
  if (typeof part !== 'object' || Array.isArray(part)) fail(`Cannot construct instance of ProduceRequestData: ${isKey ? 'key' : 'value'} must be an object`);
  const d = part as Record<string, unknown>;
  for (const k of Object.keys(d)) if (!FIELDS.has(k)) fail(`Unrecognized field "${k}" (class ProduceRequestData), not marked as ignorable`);
  const typeText = d.type === undefined || d.type === null ? undefined : String(d.type).toUpperCase();
  if (typeText !== undefined && !FORMATS.includes(typeText as DataFormat)) fail(`Cannot deserialize value of type EmbeddedFormat from String "${String(d.type)}": not one of the values accepted for Enum class: [${FORMATS.join(', ')}]`);
  const type = typeText as DataFormat | undefined;
  const data = d.data;
  if (type === 'BINARY' || type === 'JSON' || type === 'STRING') {
    const bytes = plainBytes(type, data);
    return { bytes, info: { type, size: bytes === null ? -1 : bytes.length } };
  }
  const spec: SchemaSpec = {
    ...(d.subject !== undefined && d.subject !== null ? { subject: String(d.subject) } : {}),
    ...(d.subject_name_strategy !== undefined && d.subject_name_strategy !== null ? { strategy: String(d.subject_name_strategy) } : {}),
    ...(d.schema_id !== undefined && d.schema_id !== null ? { schemaId: intField(d.schema_id, 'schema_id') } : {}),
    ...(d.schema_version !== undefined && d.schema_version !== null ? { schemaVersion: intField(d.schema_version, 'schema_version') } : {}),
    ...(typeof d.schema === 'string' ? { rawSchema: d.schema } : {}),
    ...(type !== undefined ? { format: type } : {}),
  };
  let schema: RegisteredSchema;
  try {
    schema = await lookup.resolve(topic, isKey, spec);
  } catch (err) {
    if (err instanceof SchemaLookupError) throw new RecordError(err.errorCode, err.message);
    throw err;
  }
  let payload: Buffer | null = null;
  if (data !== undefined && data !== null) {
    const write = await writerFor(lookup, schema);
    try {
      payload = write(data);
    } catch (err) {
      if (err instanceof RecordError) throw err;
      fail(`Conversion of JSON to ${schema.format} failed: ${(err as Error).message}`);
    }
  }
  const bytes = payload === null ? null : frame(schema.id, payload);
  return { bytes, info: { type: schema.format, subject: schema.subject, schema_id: schema.id, schema_version: schema.version, size: bytes === null ? -1 : bytes.length } };
}

function intField(v: unknown, name: string): number {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) fail(`Cannot deserialize value of type \`java.lang.Integer\` from ${JSON.stringify(v)} (field "${name}")`);
  return n as number;
}

function plainBytes(type: 'BINARY' | 'JSON' | 'STRING', data: unknown): Buffer | null {
  if (data === undefined || data === null) return null;
  if (type === 'JSON') return Buffer.from(JSON.stringify(data), 'utf8');
  if (type === 'STRING') {
    if (typeof data === 'object') fail('STRING data must be a string');
    return Buffer.from(String(data), 'utf8');
  }
  if (typeof data !== 'string') fail('Cannot access contents of TextNode as binary due to broken Base64 encoding: BINARY data must be a base64 string');
  const text = (data as string).replace(/\s+/g, '');
  if (!BASE64.test(text)) fail(`Cannot access contents of TextNode as binary due to broken Base64 encoding: "${(data as string).slice(0, 64)}"`);
  return Buffer.from(text, 'base64');
}

function frame(id: number, payload: Buffer): Buffer {
  const out = Buffer.allocUnsafe(5 + payload.length);
  out[0] = 0;
  out.writeUInt32BE(id >>> 0, 1);
  payload.copy(out, 5);
  return out;
}

function writerFor(lookup: SchemaLookup, s: RegisteredSchema): Promise<Writer> {
  let byId = writers.get(lookup.cacheKey);
  if (!byId) writers.set(lookup.cacheKey, (byId = new Map()));
  const cache = byId;
  let w = cache.get(s.id);
  if (!w) {
    w = buildWriter(lookup, s);
    w.catch(() => cache.delete(s.id));
    if (cache.size >= MAX_WRITERS) cache.delete(cache.keys().next().value as number);
    cache.set(s.id, w);
  }
  return w;
}

async function buildWriter(lookup: SchemaLookup, s: RegisteredSchema): Promise<Writer> {
  try {
    if (s.format === 'JSONSCHEMA') return (data) => Buffer.from(JSON.stringify(data), 'utf8');
    if (s.format === 'AVRO') return await avroWriter(lookup, s);
    return await protobufWriter(s);
  } catch (err) {
    if (err instanceof RecordError) throw err;
    throw new RecordError(400, `Error parsing schema id ${s.id} (${s.format}, subject ${s.subject}): ${(err as Error).message}`);
  }
}

async function avroWriter(lookup: SchemaLookup, s: RegisteredSchema): Promise<Writer> {
  const avro = (await import('avsc')).default;
  const registry: Record<string, unknown> = {};
  // Referenced schemas first (depth first), so the named types they declare resolve; read through
  // the lookup, which forwards to the registry's leader when that is another broker.
  let refs: { name: string; schema: string }[];
  try {
    refs = await referencedSchemas({ getVersion: (subject, version) => lookup.reference({ name: '', subject, version: version === 'latest' ? -1 : version }) as never }, s.references);
  } catch (err) {
    if (err instanceof RecordError) throw err;
    throw new RecordError(400, (err as Error).message);
  }
  for (const r of refs) avro.Type.forSchema(JSON.parse(r.schema), { wrapUnions: true, registry: registry as never });
  const type = avro.Type.forSchema(JSON.parse(s.schema), { wrapUnions: true, registry: registry as never });
  return (data) => type.toBuffer(fromAvroJson(type as unknown as AvroType, data, '$'));
}

/** The parts of an avsc Type the conversion reads. */
interface AvroType {
  typeName: string;
  branchName?: string;
  size?: number;
  symbols?: string[];
  types?: AvroType[];
  itemsType?: AvroType;
  valuesType?: AvroType;
  fields?: { name: string; type: AvroType; defaultValue(): unknown }[];
  isValid(v: unknown): boolean;
}

/** A value in Avro's JSON encoding as avsc wants it (unions wrapped, bytes as Buffers). */
function fromAvroJson(t: AvroType, v: unknown, path: string): unknown {
  const bad = (what: string) => new RecordError(400, `Conversion of JSON to Avro failed: ${path}: expected ${what}, got ${JSON.stringify(v)?.slice(0, 80)}`);
  switch (t.typeName) {
    case 'bytes':
    case 'fixed': {
      if (typeof v !== 'string') throw bad(t.typeName);
      const b = Buffer.from(v, 'latin1');
      if (t.typeName === 'fixed' && b.length !== t.size) throw bad(`${t.size} bytes`);
      return b;
    }
    case 'record':
    case 'error': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('an object');
      const o = v as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      for (const f of t.fields!) {
        if (o[f.name] === undefined) {
          const def = f.defaultValue();
          if (def === undefined) throw new RecordError(400, `Conversion of JSON to Avro failed: ${path}.${f.name}: missing field`);
          out[f.name] = def;
        } else {
          out[f.name] = fromAvroJson(f.type, o[f.name], `${path}.${f.name}`);
        }
      }
      return out;
    }
    case 'array':
      if (!Array.isArray(v)) throw bad('an array');
      return v.map((x, i) => fromAvroJson(t.itemsType!, x, `${path}[${i}]`));
    case 'map': {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('an object');
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[k] = fromAvroJson(t.valuesType!, x, `${path}.${k}`);
      return out;
    }
    case 'union:wrapped': {
      const branches = t.types!;
      if (v === null) {
        if (branches.some((b) => b.typeName === 'null')) return null;
        throw bad('a union value');
      }
      if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1) {
        const [name, inner] = Object.entries(v)[0]!;
        const b = branches.find((x) => x.branchName === name);
        if (b) return { [name]: fromAvroJson(b, inner, `${path}<${name}>`) };
      }
      for (const b of branches) {
        if (b.typeName === 'null') continue;
        try {
          const x = fromAvroJson(b, v, path);
          if (b.isValid(x)) return { [b.branchName!]: x };
        } catch {
          // Not this branch.
        }
      }
      throw bad(`one of ${branches.map((b) => b.branchName).join(', ')}`);
    }
    default:
      if (!t.isValid(v)) throw bad(t.typeName);
      return v;
  }
}

async function protobufWriter(s: RegisteredSchema): Promise<Writer> {
  const protobuf = (await import('protobufjs')).default;
  if (s.references.length > 0) throw new RecordError(400, 'Protobuf schemas with references are not supported by this REST proxy');
  const parsed = protobuf.parse(s.schema, { keepCase: true });
  const scope = parsed.package ? parsed.root.lookup(parsed.package) : parsed.root;
  const first = (scope as { nestedArray?: unknown[] } | null)?.nestedArray?.find((x) => x instanceof protobuf.Type) as InstanceType<typeof protobuf.Type> | undefined;
  if (!first) throw new RecordError(400, 'the Protobuf schema declares no message');
  parsed.root.resolveAll();
  return (data) => {
    if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new RecordError(400, `Conversion of JSON to PROTOBUF failed: ${first.name} wants an object`);
    const message = first.fromObject(data as Record<string, unknown>);
    const problem = first.verify(message);
    if (problem) throw new RecordError(400, `Conversion of JSON to PROTOBUF failed: ${problem}`);
    const body = Buffer.from(first.encode(message).finish());
    // Confluent's message indexes: [0] (the file's first message) is written as a single 0.
    return Buffer.concat([Buffer.from([0]), body]);
  };
}
