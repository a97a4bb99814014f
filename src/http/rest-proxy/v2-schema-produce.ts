/**
 * REST Proxy v2 produce in the Schema Registry formats (Content-Type
 * `application/vnd.kafka.avro.v2+json`, `.jsonschema.v2+json`, `.protobuf.v2+json`): the body names
 * the key's and the value's schema, as text (`key_schema`, `value_schema`: registered under the
 * topic's `<topic>-key` / `<topic>-value` subject unless already there) or by id (`key_schema_id`,
 * `value_schema_id`); each record's key and value (Avro's JSON encoding, a JSON value, protobufjs'
 * JSON object form) are written in Confluent's wire format with it (the v3 produce path's
 * serializer, v3-serialize.ts). The answer names the schema ids used.
 *
 * Confluent's errors: keys (values) without a key (value) schema 42201 (42202), data the schema
 * does not take 42203, a schema the registry refuses 42205.
 */
import type { RestProxyRequest } from './rest-common.js';
import { RestProxyError } from './rest-common.js';
import { RecordError, serializePart } from './v3-serialize.js';
import { SchemaLookup } from './v3-schemas.js';
import { produceRecordsOf, recordPartitionOf } from './v2-common.js';
import type { OutRecord } from './v2-common.js';

export interface SchemaRecords {
  records: OutRecord[];
  keySchemaId: number | null;
  valueSchemaId: number | null;
}

const KEY_SCHEMA_MISSING = 42201;
const VALUE_SCHEMA_MISSING = 42202;
const CONVERSION_FAILED = 42203;
const INVALID_SCHEMA = 42205;

/** The schema fields of a v2 request for keys or values: text, id, or none. */
function schemaOf(body: Record<string, unknown>, which: 'key' | 'value'): { schema?: string; schema_id?: number } | null {
  const text = body[`${which}_schema`];
  const id = body[`${which}_schema_id`];
  if (id !== undefined && id !== null) {
    if (!Number.isInteger(id)) throw new RestProxyError(422, 42200, `${which}_schema_id must be an integer`);
    return { schema_id: id as number };
  }
  if (text !== undefined && text !== null) {
    if (typeof text !== 'string') throw new RestProxyError(422, 42200, `${which}_schema must be a string (the schema's text)`);
    return { schema: text };
  }
  return null;
}

function restError(err: RecordError, rawSchema: boolean): RestProxyError {
  if (err.message.startsWith('Conversion of JSON')) return new RestProxyError(422, CONVERSION_FAILED, err.message);
  if (rawSchema && (err.errorCode === 40801 || err.errorCode === 400)) return new RestProxyError(422, INVALID_SCHEMA, `Invalid schema: ${err.message}`);
  const status = err.errorCode >= 10000 ? Math.floor(err.errorCode / 100) : err.errorCode;
  return new RestProxyError(status >= 400 && status < 600 ? status : 500, err.errorCode, err.message);
}

export async function schemaRecords(r: RestProxyRequest, topic: string, body: Record<string, unknown>, fmt: 'avro' | 'jsonschema' | 'protobuf', perRecordPartition: boolean): Promise<SchemaRecords> {
  const records = produceRecordsOf(body);
  const keySchema = schemaOf(body, 'key');
  const valueSchema = schemaOf(body, 'value');
  const present = (v: unknown) => v !== undefined && v !== null;
  if (!keySchema && records.some((o) => present(o.key))) throw new RestProxyError(422, KEY_SCHEMA_MISSING, 'Request includes keys but does not include key schema');
  if (!valueSchema && records.some((o) => present(o.value))) throw new RestProxyError(422, VALUE_SCHEMA_MISSING, 'Request includes values but does not include value schema');
  const type = fmt.toUpperCase();
  const lookup = new SchemaLookup(r);
  const ids = { key: null as number | null, value: null as number | null };
  const write = async (which: 'key' | 'value', schema: { schema?: string; schema_id?: number } | null, data: unknown): Promise<Buffer | null> => {
    if (!schema || !present(data)) return null;
    try {
      const out = await serializePart(lookup, topic, which === 'key', { type, ...schema, data });
      if (out?.info.schema_id !== undefined) ids[which] = out.info.schema_id;
      return out?.bytes ?? null;
    } catch (err) {
      if (err instanceof RecordError) throw restError(err, schema.schema !== undefined);
      throw err;
    }
  };
  const out: OutRecord[] = [];
  for (const [i, o] of records.entries()) {
    out.push({ key: await write('key', keySchema, o.key), value: await write('value', valueSchema, o.value), partition: recordPartitionOf(o, i, perRecordPartition) });
  }
  return { records: out, keySchemaId: ids.key, valueSchemaId: ids.value };
}
