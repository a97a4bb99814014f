/**
 * The Schema Registry as the v3 produce path sees it (Confluent's SchemaManager): which schema a
 * record's key or value is written with — by `schema_id`, by `schema_version` of a subject, by a
 * raw `schema` (looked up, else registered), or the subject's latest — the subject given, or
 * named by a subject name strategy (TOPIC_NAME: `<topic>-key` / `<topic>-value`; RECORD_NAME and
 * TOPIC_RECORD_NAME from an Avro schema's full name).
 *
 * The broker's own registry answers when this broker leads `_schemas`; on another broker
 * (NotRegistryLeader) the same question goes to the leader's registry REST API, as the HTTP
 * user (its Authorization header is passed on).
 */
import type { RestProxyRequest } from './rest-common.js';
import { NotRegistryLeader, SchemaRegistryError } from '../../schema-registry/schema-registry.js';
import { SCHEMAS_TOPIC } from '../../schema-registry/schemas-topic.js';
import type { SchemaReference, SchemaType } from '../../schema-registry/schema-types/schema-type.js';

/** A schema as a record is written with it. */
export interface RegisteredSchema {
  subject: string;
  id: number;
  version: number;
  /** The REST proxy's name of its format. */
  format: 'AVRO' | 'JSONSCHEMA' | 'PROTOBUF';
  schema: string;
  references: SchemaReference[];
}

/** How a request names its schema (the fields of Confluent's ProduceRequestData). */
export interface SchemaSpec {
  subject?: string;
  strategy?: string;
  schemaId?: number;
  schemaVersion?: number;
  rawSchema?: string;
  /** The format the request names, if any. */
  format?: 'AVRO' | 'JSONSCHEMA' | 'PROTOBUF';
}

/** A failure to find or register the schema: Confluent's per-record error. */
export class SchemaLookupError extends Error {
  constructor(readonly errorCode: number, message: string) {
    super(message);
  }
}

const FORWARD_TIMEOUT_MS = 30_000;
const FORWARDED_HEADER = 'x-samsa-forwarded-by';
const CT = 'application/vnd.schemaregistry.v1+json';

export const formatOf = (t: SchemaType | undefined): RegisteredSchema['format'] => (t === 'JSON' ? 'JSONSCHEMA' : t === 'PROTOBUF' ? 'PROTOBUF' : 'AVRO');
const registryType = (f: RegisteredSchema['format']): SchemaType => (f === 'JSONSCHEMA' ? 'JSON' : f);

interface VersionJson { subject: string; version: number; id: number; schemaType?: SchemaType; references?: SchemaReference[]; schema: string }

/** The registry's answers for one produce request (each schema looked up once a request). */
export class SchemaLookup {
  private readonly cache = new Map<string, Promise<RegisteredSchema>>();
  /** What a schema id's meaning is stable within: this broker's registry. */
  readonly cacheKey: object;

  constructor(private readonly r: RestProxyRequest) {
    this.cacheKey = r.broker.schemaRegistry ?? r.broker;
  }

  private async call<T>(local: () => Promise<T>, method: string, path: string, body?: unknown): Promise<T> {
    const registry = this.r.broker.schemaRegistry;
    if (!registry) throw new SchemaLookupError(40002, 'The Schema Registry is not enabled on this broker (samsa.schema.registry.enable).');
    try {
      return await local();
    } catch (err) {
      if (!(err instanceof NotRegistryLeader)) throw err;
    }
    const cache = this.r.broker.metadataCache;
    const topic = cache.topic(SCHEMAS_TOPIC);
    const leader = topic ? cache.partition(topic.topicId, 0)?.leader : undefined;
    const url = leader !== undefined && leader !== this.r.broker.nodeId ? cache.brokers.get(leader)?.httpUrls?.[0] : undefined;
    if (url === undefined) throw new SchemaRegistryError(500, 50004, 'Unknown leader of the schema registry');
    const headers: Record<string, string> = { [FORWARDED_HEADER]: String(this.r.broker.nodeId), 'content-type': CT, accept: CT };
    const auth = this.r.req.headers.authorization;
    if (typeof auth === 'string') headers.authorization = auth;
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    const json = await res.json().catch(() => ({})) as { error_code?: number; message?: string };
    if (!res.ok) throw new SchemaRegistryError(res.status, json.error_code ?? res.status, json.message ?? `HTTP ${res.status}`);
    return json as T;
  }

  private getVersion(subject: string, version: number | 'latest'): Promise<VersionJson> {
    return this.call(() => this.r.broker.schemaRegistry!.getVersion(subject, version), 'GET', `/subjects/${encodeURIComponent(subject)}/versions/${version}`);
  }

  private byId(id: number): Promise<{ schemaType?: SchemaType; references?: SchemaReference[]; schema: string }> {
    return this.call(() => this.r.broker.schemaRegistry!.schemaById(id), 'GET', `/schemas/ids/${id}`);
  }

  private versionsById(id: number): Promise<{ subject: string; version: number }[]> {
    return this.call(() => this.r.broker.schemaRegistry!.versionsById(id), 'GET', `/schemas/ids/${id}/versions`);
  }

  /** A referenced schema's text (Avro references are parsed before the schema that names them). */
  async reference(ref: SchemaReference): Promise<VersionJson> {
    return this.getVersion(ref.subject, ref.version === -1 ? 'latest' : ref.version);
  }

  private async lookupOrRegister(subject: string, schema: string, type: SchemaType): Promise<VersionJson> {
    const req = { schema, schemaType: type, references: [] };
    const wire = { schema, ...(type !== 'AVRO' ? { schemaType: type } : {}) };
    const path = `/subjects/${encodeURIComponent(subject)}`;
    try {
      return await this.call(() => this.r.broker.schemaRegistry!.lookup(subject, req), 'POST', path, wire);
    } catch (err) {
      if (!(err instanceof SchemaRegistryError) || err.status !== 404) throw err;
    }
    await this.call(() => this.r.broker.schemaRegistry!.register(subject, req), 'POST', `${path}/versions`, wire);
    return this.call(() => this.r.broker.schemaRegistry!.lookup(subject, req), 'POST', path, wire);
  }

  /** The subject a strategy names (`schema` only for the record-name strategies). */
  private subjectFor(topic: string, isKey: boolean, spec: SchemaSpec, schema?: { text: string; format: RegisteredSchema['format'] }): string {
    if (spec.subject !== undefined) return spec.subject;
    const strategy = (spec.strategy ?? 'TOPIC_NAME').toUpperCase();
    if (strategy === 'TOPIC_NAME') return `${topic}-${isKey ? 'key' : 'value'}`;
    if (strategy !== 'RECORD_NAME' && strategy !== 'TOPIC_RECORD_NAME') throw new SchemaLookupError(400, `Unknown subject_name_strategy ${spec.strategy}.`);
    const name = schema ? recordName(schema.text, schema.format) : null;
    if (name === null) {
      throw new SchemaLookupError(400, `Cannot use${spec.strategy ? '' : ' default'} schema_subject_strategy${spec.strategy ? `=${strategy}` : ''} without schema_id or schema.`);
    }
    return strategy === 'RECORD_NAME' ? name : `${topic}-${name}`;
  }

  /** The schema a key (`isKey`) or value of `topic` is written with. */
  resolve(topic: string, isKey: boolean, spec: SchemaSpec): Promise<RegisteredSchema> {
    const key = JSON.stringify([topic, isKey, spec]);
    let p = this.cache.get(key);
    if (!p) {
      p = this.resolveUncached(topic, isKey, spec);
      this.cache.set(key, p);
    }
    return p;
  }

  private async resolveUncached(topic: string, isKey: boolean, spec: SchemaSpec): Promise<RegisteredSchema> {
    let what = '';
    try {
      let out: RegisteredSchema;
      if (spec.schemaId !== undefined) {
        what = `Error when fetching schema by id. schemaId = ${spec.schemaId}`;
        const s = await this.byId(spec.schemaId);
        const format = formatOf(s.schemaType);
        const subject = this.subjectFor(topic, isKey, spec, { text: s.schema, format });
        what = `Error when fetching schema version. subject = ${subject}, schema id = ${spec.schemaId}`;
        const uses = await this.versionsById(spec.schemaId);
        const use = uses.find((u) => u.subject === subject);
        if (!use) throw new SchemaLookupError(40403, `${what}: schema ${spec.schemaId} is not registered under subject ${subject}`);
        out = { subject, id: spec.schemaId, version: use.version, format, schema: s.schema, references: s.references ?? [] };
      } else if (spec.rawSchema !== undefined) {
        const format = spec.format ?? 'AVRO';
        const subject = this.subjectFor(topic, isKey, spec, { text: spec.rawSchema, format });
        what = `Error when registering schema. format = ${format}, subject = ${subject}`;
        out = fromVersion(await this.lookupOrRegister(subject, spec.rawSchema, registryType(format)));
      } else {
        const subject = this.subjectFor(topic, isKey, spec);
        const version = spec.schemaVersion ?? 'latest';
        what = version === 'latest' ? `Error when fetching latest schema version. subject = ${subject}` : `Schema does not exist for subject: ${subject}, version: ${version}`;
        out = fromVersion(await this.getVersion(subject, version));
      }
      if (spec.format !== undefined && spec.format !== out.format) {
        throw new SchemaLookupError(400, `The schema of subject ${out.subject} (id ${out.id}) is ${out.format}, not ${spec.format}.`);
      }
      return out;
    } catch (err) {
      if (err instanceof SchemaLookupError) throw err;
      if (err instanceof SchemaRegistryError) {
        if (err.errorCode === 40301 || err.status === 403) throw new SchemaLookupError(40301, `${what}: ${err.message}`);
        throw new SchemaLookupError(50002, `${what}: ${err.message}`);
      }
      throw new SchemaLookupError(50002, `${what}: ${(err as Error).message}`);
    }
  }
}

function fromVersion(v: VersionJson): RegisteredSchema {
  return { subject: v.subject, id: v.id, version: v.version, format: formatOf(v.schemaType), schema: v.schema, references: v.references ?? [] };
}

/** An Avro schema's full record name (namespace.name), or null for another format or a non-record. */
function recordName(text: string, format: RegisteredSchema['format']): string | null {
  if (format !== 'AVRO') return null;
  try {
    const s = JSON.parse(text) as { name?: unknown; namespace?: unknown };
    if (typeof s?.name !== 'string') return null;
    return s.name.includes('.') || typeof s.namespace !== 'string' || s.namespace === '' ? s.name : `${s.namespace}.${s.name}`;
  } catch {
    return null;
  }
}
