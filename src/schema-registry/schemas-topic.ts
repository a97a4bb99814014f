/**
 * The records of the registry's topic (`_schemas`, Confluent's `kafkastore.topic`), in the JSON
 * form Confluent's registry writes, so a topic one of them wrote can be read by the other:
 *
 *   SCHEMA          key {"keytype":"SCHEMA","subject":s,"version":v,"magic":1}
 *                   value {"subject","version","id","schemaType"?,"references"?,"schema","deleted"}
 *                   (a null value: the version was deleted permanently)
 *   CONFIG          key {"keytype":"CONFIG","subject":s|null,"magic":0}   value {"compatibilityLevel"}
 *   MODE            key {"keytype":"MODE","subject":s|null,"magic":0}     value {"mode"}
 *   DELETE_SUBJECT  key {"keytype":"DELETE_SUBJECT","subject":s,"magic":0} value {"subject","version"}:
 *                   every version up to `version` is soft-deleted
 *   NOOP            Confluent's leader-election marker; read and ignored
 *
 * One record is Samsa's own: `{"keytype":"SAMSA_MAX_ID","magic":0}` → `{"maxId":n}`, written with a
 * permanent delete so that the highest id ever assigned survives compaction of the deleted
 * schema's records (ids are never reused). Confluent's registry does not know it and would skip it.
 */
import type { LogRecord } from '../coordinator/runtime/coordinator-log.js';
import type { RecordSerde } from '../coordinator/runtime/runtime.js';
import type { SchemaReference, SchemaType } from './schema-types/schema-type.js';

export const SCHEMAS_TOPIC = '_schemas';

export const COMPATIBILITY_LEVELS = ['NONE', 'BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE'] as const;
export type CompatibilityLevel = (typeof COMPATIBILITY_LEVELS)[number];
export const MODES = ['READWRITE', 'READONLY', 'IMPORT'] as const;
export type Mode = (typeof MODES)[number];

/** One version of a subject as stored. */
export interface SchemaValue {
  subject: string;
  version: number;
  id: number;
  schemaType: SchemaType;
  schema: string;
  references: SchemaReference[];
  deleted: boolean;
}

export type RegistryRecord =
  | { kind: 'schema'; subject: string; version: number; value: SchemaValue | null }
  | { kind: 'config'; subject: string | null; level: CompatibilityLevel | null }
  | { kind: 'mode'; subject: string | null; mode: Mode | null }
  | { kind: 'delete-subject'; subject: string; version: number | null }
  | { kind: 'max-id'; maxId: number };

function keyOf(r: RegistryRecord): object {
  switch (r.kind) {
    case 'schema': return { keytype: 'SCHEMA', subject: r.subject, version: r.version, magic: 1 };
    case 'config': return { keytype: 'CONFIG', subject: r.subject, magic: 0 };
    case 'mode': return { keytype: 'MODE', subject: r.subject, magic: 0 };
    case 'delete-subject': return { keytype: 'DELETE_SUBJECT', subject: r.subject, magic: 0 };
    case 'max-id': return { keytype: 'SAMSA_MAX_ID', magic: 0 };
  }
}

function valueOf(r: RegistryRecord): object | null {
  switch (r.kind) {
    case 'schema': {
      const v = r.value;
      if (!v) return null;
      return {
        subject: v.subject, version: v.version, id: v.id,
        ...(v.schemaType !== 'AVRO' ? { schemaType: v.schemaType } : {}),
        ...(v.references.length > 0 ? { references: v.references } : {}),
        schema: v.schema, deleted: v.deleted,
      };
    }
    case 'config': return r.level === null ? null : { compatibilityLevel: r.level };
    case 'mode': return r.mode === null ? null : { mode: r.mode };
    case 'delete-subject': return r.version === null ? null : { subject: r.subject, version: r.version };
    case 'max-id': return { maxId: r.maxId };
  }
}

function parseJson(buf: Buffer | null): Record<string, unknown> | null {
  if (!buf) return null;
  const v: unknown = JSON.parse(buf.toString('utf8'));
  return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : null;
}

function schemaTypeOf(v: unknown): SchemaType {
  return v === 'JSON' || v === 'PROTOBUF' ? v : 'AVRO';
}

function referencesOf(v: unknown): SchemaReference[] {
  if (!Array.isArray(v)) return [];
  return v.map((r: Record<string, unknown>) => ({ name: String(r.name), subject: String(r.subject), version: Number(r.version) }));
}

export const registryRecordSerde: RecordSerde<RegistryRecord> = {
  serialize: (r: RegistryRecord): LogRecord => {
    const value = valueOf(r);
    return { key: Buffer.from(JSON.stringify(keyOf(r))), value: value === null ? null : Buffer.from(JSON.stringify(value)) };
  },
  deserialize: (rec: LogRecord): RegistryRecord | null => {
    let key: Record<string, unknown> | null;
    let value: Record<string, unknown> | null;
    try {
      key = parseJson(rec.key);
      value = parseJson(rec.value);
    } catch {
      return null;
    }
    if (!key) return null;
    const subject = typeof key.subject === 'string' ? key.subject : null;
    switch (key.keytype) {
      case 'SCHEMA': {
        if (subject === null) return null;
        const version = Number(key.version);
        if (!value) return { kind: 'schema', subject, version, value: null };
        return {
          kind: 'schema', subject, version,
          value: {
            subject, version, id: Number(value.id), schemaType: schemaTypeOf(value.schemaType), schema: String(value.schema),
            references: referencesOf(value.references), deleted: value.deleted === true,
          },
        };
      }
      case 'CONFIG': {
        const level = value?.compatibilityLevel ?? value?.compatibility;
        return { kind: 'config', subject, level: (COMPATIBILITY_LEVELS as readonly unknown[]).includes(level) ? (level as CompatibilityLevel) : null };
      }
      case 'MODE':
        return { kind: 'mode', subject, mode: (MODES as readonly unknown[]).includes(value?.mode) ? (value!.mode as Mode) : null };
      case 'DELETE_SUBJECT':
        return subject === null ? null : { kind: 'delete-subject', subject, version: value ? Number(value.version) : null };
      case 'SAMSA_MAX_ID':
        return value ? { kind: 'max-id', maxId: Number(value.maxId) } : null;
      default:
        return null;
    }
  },
};
