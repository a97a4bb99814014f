/**
 * The message browser's "Schema Registry" format: keys and values in Confluent's wire format
 * (magic byte 0, the schema id as a 4-byte big-endian int, then the serialized data) decoded with
 * the registry's schema of that id and shown as JSON.
 *
 * - AVRO: the Avro binary encoding, read with avsc (referenced schemas parsed first, so their named
 *   types resolve); longs past 2^53 come out as strings, bytes and fixed as Avro's JSON encoding
 *   does (one character per byte).
 * - JSON: the JSON text itself.
 * - PROTOBUF: Confluent's message indexes (a zigzag varint count, then that many zigzag varints;
 *   a count of 0 means [0], the file's first message) pick the message type (top-level messages
 *   in declaration order, then nested ones by index), then the protobuf bytes, read with
 *   protobufjs (referenced files and Google's well-known types loaded beside it).
 *
 * avsc and protobufjs are imported the first time a record of their type is shown. A decoder
 * lives for one request and fetches each schema id once.
 */
import type { SchemaRegistry } from '../../schema-registry/schema-registry.js';
import { NotRegistryLeader, SchemaRegistryError, referencedSchemas } from '../../schema-registry/schema-registry.js';
import type { SchemaReference, SchemaType } from '../../schema-registry/schema-types/schema-type.js';

export type Decoded = { ok: true; label: string; text: string } | { ok: false; reason: string };

/** Decoded JSON past this many characters is cut. */
const MAX_TEXT = 65_536;
/** How deep references may nest before they are taken for a cycle. */

interface Reader {
  type: SchemaType;
  /** "schema id N (subject s vX, TYPE)". */
  label: string;
  /** The payload after the 5-byte frame as a JSON-safe value, and a note on what was read (the Protobuf message). */
  read(payload: Buffer): { value: unknown; note?: string };
}

export class SchemaDecoder {
  private readonly readers = new Map<number, Promise<Reader>>();

  constructor(private readonly registry: SchemaRegistry | null) {}

  async decode(buf: Buffer): Promise<Decoded> {
    if (buf.length < 5 || buf[0] !== 0) return { ok: false, reason: 'not in the Schema Registry wire format (magic byte 0, schema id)' };
    if (!this.registry) return { ok: false, reason: 'the Schema Registry is disabled on this broker' };
    const id = buf.readUInt32BE(1);
    let reader: Reader;
    try {
      reader = await this.reader(id);
    } catch (err) {
      if (err instanceof SchemaRegistryError && err.status === 404) return { ok: false, reason: `unknown schema id ${id}` };
      if (err instanceof NotRegistryLeader) return { ok: false, reason: 'another broker serves the Schema Registry (the leader of _schemas): open its console' };
      return { ok: false, reason: `schema id ${id}: ${(err as Error).message}` };
    }
    try {
      const { value, note } = reader.read(buf.subarray(5));
      let text = JSON.stringify(value, null, 2) ?? 'undefined';
      if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)} … (${text.length} characters)`;
      return { ok: true, label: note ? `${reader.label}, ${note}` : reader.label, text };
    } catch (err) {
      return { ok: false, reason: `${reader.label}: not decodable: ${(err as Error).message}` };
    }
  }

  private reader(id: number): Promise<Reader> {
    let r = this.readers.get(id);
    if (!r) {
      r = this.load(id);
      this.readers.set(id, r);
    }
    return r;
  }

  private async load(id: number): Promise<Reader> {
    const registry = this.registry!;
    const s = await registry.schemaById(id);
    const type: SchemaType = s.schemaType ?? 'AVRO';
    let uses = await registry.versionsById(id);
    if (uses.length === 0) uses = await registry.versionsById(id, true);
    const label = uses.length > 0 ? `schema id ${id} (subject ${uses[0].subject} v${uses[0].version}, ${type})` : `schema id ${id} (${type})`;
    const refs = s.references ?? [];
    if (type === 'JSON') return { type, label, read: (payload) => ({ value: JSON.parse(payload.toString('utf8')) }) };
    if (type === 'AVRO') return { type, label, read: await avroReader(registry, s.schema, refs) };
    return { type, label, read: await protobufReader(registry, s.schema, refs) };
  }
}

/** A value JSON.stringify can write: records as plain objects, bigints as strings, bytes one character a byte. */
function jsonSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (Buffer.isBuffer(v)) return v.toString('latin1');
  if (Array.isArray(v)) return v.map(jsonSafe);
  if (v instanceof Map) return Object.fromEntries([...v].map(([k, x]) => [String(k), jsonSafe(x)]));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = jsonSafe(x);
    return out;
  }
  return v;
}

async function avroReader(registry: SchemaRegistry, schema: string, refs: readonly SchemaReference[]): Promise<Reader['read']> {
  const avro = (await import('avsc')).default;
  // Avro's long is 64 bits: read it whole (a number while that is exact, else a bigint).
  const long = avro.types.LongType.__with({
    fromBuffer: (b: Buffer) => {
      const n = b.readBigInt64LE(0);
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
    },
    toBuffer: (n: number | bigint) => {
      const b = Buffer.alloc(8);
      b.writeBigInt64LE(BigInt(n));
      return b;
    },
    fromJSON: (x: unknown) => (typeof x === 'string' ? BigInt(x) : x),
    toJSON: (n: number | bigint) => (typeof n === 'bigint' ? n.toString() : n),
    isValid: (n: unknown) => typeof n === 'bigint' || Number.isSafeInteger(n),
    compare: (x: number | bigint, y: number | bigint) => (x === y ? 0 : x < y ? -1 : 1),
  });
  const types: Record<string, unknown> = { long };
  const opts = { registry: types as never };
  for (const r of await referencedSchemas(registry, refs)) avro.Type.forSchema(JSON.parse(r.schema), opts);
  const type = avro.Type.forSchema(JSON.parse(schema), opts);
  return (payload) => ({ value: jsonSafe(type.fromBuffer(payload)) });
}

/** Confluent's message-index list at the start of a Protobuf payload, and where the message starts. */
export function readMessageIndexes(buf: Buffer): { path: number[]; offset: number } {
  let pos = 0;
  const zigzag = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated message indexes');
      const byte = buf[pos++];
      n += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) break;
      shift += 7;
      if (shift > 28) throw new Error('a message index varint is too long');
    }
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  };
  const count = zigzag();
  if (count < 0 || count > 64) throw new Error(`bad message index count ${count}`);
  if (count === 0) return { path: [0], offset: pos };
  const path: number[] = [];
  for (let i = 0; i < count; i++) path.push(zigzag());
  return { path, offset: pos };
}

async function protobufReader(registry: SchemaRegistry, schema: string, refs: readonly SchemaReference[]): Promise<Reader['read']> {
  const protobuf = (await import('protobufjs')).default;
  const root = new protobuf.Root();
  const parsed = protobuf.parse(schema, root, { keepCase: true });
  const ns = parsed.package ? root.lookup(parsed.package) : root;
  const messagesOf = (n: unknown): InstanceType<typeof protobuf.Type>[] =>
    n instanceof protobuf.Namespace ? n.nestedArray.filter((x): x is InstanceType<typeof protobuf.Type> => x instanceof protobuf.Type) : [];
  // Taken before other files join the root: they may share the package.
  const top = messagesOf(ns);
  const loaded = new Set<string>();
  const imports = [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])];
  for (const r of await referencedSchemas(registry, refs)) {
    loaded.add(r.name);
    const p = protobuf.parse(r.schema, root, { keepCase: true });
    imports.push(...(p.imports ?? []), ...(p.weakImports ?? []));
  }
  for (const file of imports) {
    if (loaded.has(file)) continue;
    loaded.add(file);
    const known = protobuf.common.get(file);
    if (known?.nested) root.addJSON(known.nested);
  }
  root.resolveAll();
  return (payload) => {
    const { path, offset } = readMessageIndexes(payload);
    let type: InstanceType<typeof protobuf.Type> | undefined;
    let choices = top;
    for (const i of path) {
      type = choices[i];
      if (!type) throw new Error(`no message at index path [${path.join(', ')}]`);
      choices = messagesOf(type);
    }
    const msg = type!.decode(payload.subarray(offset));
    const value = type!.toObject(msg, { longs: String, enums: String, bytes: String });
    return { value: jsonSafe(value), note: `message ${type!.fullName.replace(/^\./, '')}` };
  };
}
