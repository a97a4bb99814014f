/**
 * Keys and values of REST Proxy v2 consumer instances in the avro and jsonschema formats: bytes in
 * Confluent's wire format (byte 0, the schema id big-endian, the data) read with this broker's
 * Schema Registry. AVRO comes out in Avro's JSON encoding, as Confluent's AvroConverter writes it
 * (unions wrapped as `{"type": value}`, bytes and fixed one character a byte; avsc reads, referenced
 * schemas first); JSONSCHEMA is the JSON text itself. Bytes not in the wire format, or of an
 * unknown schema, fail as the Java deserializer does (the read ends before them).
 *
 * One deserializer per consumer instance: each schema id is fetched once (ids never change what
 * they name). When another broker serves the registry (it leads `_schemas`), reads fail: this
 * proxy reads schemas from its own broker's registry only.
 */
import { referencedSchemas, type SchemaRegistry } from '../../schema-registry/schema-registry.js';

/** A key's or value's bytes as the JSON the client gets; throws when they cannot be read. */
export type Deserialize = (buf: Buffer) => Promise<unknown>;

const MAX_READERS = 256;

type Read = (payload: Buffer) => unknown;

export function schemaDeserializer(registry: SchemaRegistry | null, format: 'avro' | 'jsonschema'): Deserialize {
  const readers = new Map<number, Promise<Read>>();
  const readerFor = (id: number): Promise<Read> => {
    let r = readers.get(id);
    if (!r) {
      r = load(registry!, id, format);
      r.catch(() => readers.delete(id));
      if (readers.size >= MAX_READERS) readers.delete(readers.keys().next().value as number);
      readers.set(id, r);
    }
    return r;
  };
  return async (buf) => {
    if (buf.length < 5 || buf[0] !== 0) throw new Error('Unknown magic byte!');
    if (!registry) throw new Error('the Schema Registry is not enabled on this broker (samsa.schema.registry.enable)');
    const read = await readerFor(buf.readUInt32BE(1));
    return read(buf.subarray(5));
  };
}

async function load(registry: SchemaRegistry, id: number, format: 'avro' | 'jsonschema'): Promise<Read> {
  const s = await registry.schemaById(id);
  const type = s.schemaType ?? 'AVRO';
  if (format === 'jsonschema') {
    if (type !== 'JSON') throw new Error(`schema id ${id} is ${type}, not JSON`);
    return (payload) => JSON.parse(payload.toString('utf8'));
  }
  if (type !== 'AVRO') throw new Error(`schema id ${id} is ${type}, not AVRO`);
  const avro = (await import('avsc')).default;
  const named: Record<string, unknown> = {};
  const opts = { wrapUnions: true, registry: named as never };
  for (const r of await referencedSchemas(registry, s.references ?? [])) avro.Type.forSchema(JSON.parse(r.schema), opts);
  const t = avro.Type.forSchema(JSON.parse(s.schema), opts);
  // avsc's toString is Avro's JSON encoding of the value.
  return (payload) => JSON.parse(t.toString(t.fromBuffer(payload)));
}
