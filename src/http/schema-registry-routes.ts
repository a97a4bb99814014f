/**
 * Confluent's Schema Registry REST API on the broker's HTTP listener: the endpoints the
 * serializers and tools call (`/subjects`, `/schemas`, `/config`, `/mode`, `/compatibility`),
 * answered with Confluent's JSON shapes, status codes and `{"error_code","message"}` errors in
 * `application/vnd.schemaregistry.v1+json`. The registry itself is src/schema-registry/; this file
 * only maps requests onto it.
 *
 * When another broker leads `_schemas`, the request is forwarded to that broker's HTTP listener
 * (`forward`), as Confluent's followers forward to their leader.
 */
import type { ServerResponse } from 'node:http';
import { COMPATIBILITY_LEVELS, MODES, type CompatibilityLevel, type Mode } from '../schema-registry/schemas-topic.js';
import { NotRegistryLeader, SCHEMA_TYPES, SchemaRegistryError, type SchemaRegistry, type SchemaRequest, type VersionSpec } from '../schema-registry/schema-registry.js';
import { Errors } from '../schema-registry/errors.js';
import type { SchemaReference, SchemaType } from '../schema-registry/schema-types/schema-type.js';
import { send } from './respond.js';
import type { HttpBroker } from './http-broker.js';
import { AclOperation, ResourceType } from '../protocol/acl.js';

export const REGISTRY_CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
const ROOTS = new Set(['subjects', 'schemas', 'config', 'mode', 'compatibility']);

/** Whether a path (its first segment) is the registry's. */
export function isRegistryPath(segments: readonly string[]): boolean {
  return ROOTS.has(segments[0] ?? '');
}

export interface RegistryRequest {
  method: string;
  segments: string[];
  query: URLSearchParams;
  /** The request body's text ('' when none). */
  body: string;
  res: ServerResponse;
}

export function sendRegistryJson(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, REGISTRY_CONTENT_TYPE, JSON.stringify(value));
}

export function sendRegistryError(res: ServerResponse, err: SchemaRegistryError): void {
  sendRegistryJson(res, err.status, { error_code: err.errorCode, message: err.message });
}

function flag(query: URLSearchParams, name: string): boolean {
  return (query.get(name) ?? '').toLowerCase() === 'true';
}

function versionOf(text: string): VersionSpec {
  if (text === 'latest' || text === '-1') return 'latest';
  const n = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 2 ** 31 - 1) throw Errors.invalidVersion(text);
  return n;
}

function idOf(text: string): number {
  const n = /^-?\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!Number.isInteger(n)) throw new SchemaRegistryError(404, 404, 'HTTP 404 Not Found');
  return n;
}

function jsonBody(body: string): Record<string, unknown> {
  if (body.trim() === '') throw Errors.badBody('The request body is empty');
  let v: unknown;
  try {
    v = JSON.parse(body);
  } catch (err) {
    throw new SchemaRegistryError(400, 50005, `Unrecognized request body: ${(err as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw Errors.badBody('The request body must be a JSON object');
  return v as Record<string, unknown>;
}

function schemaRequestOf(body: string): SchemaRequest {
  const b = jsonBody(body);
  if (typeof b.schema !== 'string' || b.schema === '') throw Errors.invalidSchema('Empty schema');
  const type = b.schemaType ?? 'AVRO';
  if (typeof type !== 'string' || !(SCHEMA_TYPES as readonly string[]).includes(type.toUpperCase())) throw Errors.invalidSchema(`Invalid schema type ${String(type)}`);
  const refs: SchemaReference[] = [];
  if (b.references !== undefined && b.references !== null) {
    if (!Array.isArray(b.references)) throw Errors.invalidSchema('references must be a list');
    for (const r of b.references as Record<string, unknown>[]) {
      if (!r || typeof r.name !== 'string' || typeof r.subject !== 'string' || !Number.isInteger(r.version)) {
        throw Errors.invalidSchema('Invalid reference: name, subject and version are required');
      }
      refs.push({ name: r.name, subject: r.subject, version: r.version as number });
    }
  }
  return {
    schema: b.schema, schemaType: type.toUpperCase() as SchemaType, references: refs,
    ...(Number.isInteger(b.id) ? { id: b.id as number } : {}),
    ...(Number.isInteger(b.version) ? { version: b.version as number } : {}),
  };
}

function levelOf(body: string): CompatibilityLevel {
  const b = jsonBody(body);
  const level = typeof b.compatibility === 'string' ? b.compatibility.toUpperCase() : typeof b.compatibilityLevel === 'string' ? b.compatibilityLevel.toUpperCase() : '';
  if (!(COMPATIBILITY_LEVELS as readonly string[]).includes(level)) throw Errors.invalidCompatibility();
  return level as CompatibilityLevel;
}

function modeOf(body: string): Mode {
  const b = jsonBody(body);
  const mode = typeof b.mode === 'string' ? b.mode.toUpperCase() : '';
  if (!(MODES as readonly string[]).includes(mode)) throw Errors.invalidMode();
  return mode as Mode;
}

/**
 * ACLs, when the broker has an authorizer: the registry's requests are reads and writes of its
 * topic. Reading (GET, lookups and compatibility checks, which change nothing) needs READ on the
 * topic `_schemas`, and every change (registering, deleting, PUT /config and /mode) needs WRITE on
 * it, for `User:<the basic-auth user>`, as a Kafka client reading or writing that topic would.
 * Denied: 403 with Confluent's security plugin's error code 40301.
 */
export function registryAclDenial(broker: Pick<HttpBroker, 'authorizer'>, user: string, remoteAddress: string, method: string, segments: readonly string[]): SchemaRegistryError | null {
  const authorizer = broker.authorizer;
  if (!authorizer) return null;
  const reads = method === 'GET' || (method === 'POST' && (segments[0] === 'compatibility' || (segments[0] === 'subjects' && segments.length === 2)));
  const op = reads ? AclOperation.READ : AclOperation.WRITE;
  if (authorizer.authorize(`User:${user || 'ANONYMOUS'}`, remoteAddress, op, ResourceType.TOPIC, '_schemas')) return null;
  return new SchemaRegistryError(403, 40301, `User is denied operation ${reads ? 'Read' : 'Write'} on the schema registry (topic _schemas)`);
}

const NOT_FOUND = () => new SchemaRegistryError(404, 404, 'HTTP 404 Not Found');
const NOT_ALLOWED = () => new SchemaRegistryError(405, 405, 'HTTP 405 Method Not Allowed');

/** Answers one registry request; `forward` sends it to the leader of `_schemas` when that is another broker. */
export async function serveRegistry(registry: SchemaRegistry, r: RegistryRequest, forward?: (r: RegistryRequest) => Promise<void>): Promise<void> {
  try {
    const value = await route(registry, r);
    if (value !== undefined) sendRegistryJson(r.res, 200, value);
  } catch (err) {
    if (err instanceof NotRegistryLeader && forward) return forward(r);
    if (err instanceof NotRegistryLeader) return sendRegistryError(r.res, Errors.unknownLeader('Unknown leader of the schema registry'));
    if (err instanceof SchemaRegistryError) return sendRegistryError(r.res, err);
    throw err;
  }
}

async function route(registry: SchemaRegistry, r: RegistryRequest): Promise<unknown> {
  const { method, segments: s, query: q } = r;
  const [root] = s;
  const n = s.length;
  if (root === 'schemas') {
    if (n === 1 && method === 'GET') return registry.listSchemas(q.get('subjectPrefix') ?? '', flag(q, 'deleted'), flag(q, 'latestOnly'));
    if (n === 2 && s[1] === 'types' && method === 'GET') return SCHEMA_TYPES;
    if (s[1] === 'ids' && n >= 3 && method === 'GET') {
      const id = idOf(s[2]);
      if (n === 3) return registry.schemaById(id);
      if (n === 4 && s[3] === 'schema') {
        const { schema } = await registry.schemaById(id);
        send(r.res, 200, REGISTRY_CONTENT_TYPE, schema);
        return undefined;
      }
      if (n === 4 && s[3] === 'subjects') return [...new Set((await registry.versionsById(id, flag(q, 'deleted'))).map((v) => v.subject))];
      if (n === 4 && s[3] === 'versions') return registry.versionsById(id, flag(q, 'deleted'));
    }
    throw n >= 1 && method !== 'GET' ? NOT_ALLOWED() : NOT_FOUND();
  }
  if (root === 'subjects') {
    if (n === 1) {
      if (method !== 'GET') throw NOT_ALLOWED();
      return registry.listSubjects(q.get('subjectPrefix') ?? '', flag(q, 'deleted'));
    }
    const subject = s[1];
    if (n === 2) {
      if (method === 'POST') return registry.lookup(subject, schemaRequestOf(r.body), { normalize: flag(q, 'normalize'), deleted: flag(q, 'deleted') });
      if (method === 'DELETE') return registry.deleteSubject(subject, flag(q, 'permanent'));
      throw NOT_ALLOWED();
    }
    if (s[2] !== 'versions') throw NOT_FOUND();
    if (n === 3) {
      if (method === 'GET') return registry.listVersions(subject, flag(q, 'deleted'));
      if (method === 'POST') return registry.register(subject, schemaRequestOf(r.body), flag(q, 'normalize'));
      throw NOT_ALLOWED();
    }
    const version = versionOf(s[3]);
    if (n === 4) {
      if (method === 'GET') return registry.getVersion(subject, version, flag(q, 'deleted'));
      if (method === 'DELETE') return registry.deleteVersion(subject, version, flag(q, 'permanent'));
      throw NOT_ALLOWED();
    }
    if (n === 5 && method === 'GET' && s[4] === 'schema') {
      const v = await registry.getVersion(subject, version, flag(q, 'deleted'));
      send(r.res, 200, REGISTRY_CONTENT_TYPE, v.schema);
      return undefined;
    }
    if (n === 5 && method === 'GET' && s[4] === 'referencedby') return registry.referencedBy(subject, version);
    throw NOT_FOUND();
  }
  if (root === 'compatibility') {
    if (s[1] !== 'subjects' || s[3] !== 'versions' || (n !== 4 && n !== 5)) throw NOT_FOUND();
    if (method !== 'POST') throw NOT_ALLOWED();
    const result = await registry.testCompatibility(s[2], n === 5 ? versionOf(s[4]) : null, schemaRequestOf(r.body), flag(q, 'normalize'));
    return flag(q, 'verbose') ? { is_compatible: result.compatible, messages: result.messages } : { is_compatible: result.compatible };
  }
  if (root === 'config' && n <= 2) {
    const subject = n === 2 ? s[1] : null;
    if (method === 'GET') return registry.getConfig(subject, subject === null || flag(q, 'defaultToGlobal'));
    if (method === 'PUT') return registry.setConfig(subject, levelOf(r.body));
    if (method === 'DELETE') return registry.deleteConfig(subject);
    throw NOT_ALLOWED();
  }
  if (root === 'mode' && n <= 2) {
    const subject = n === 2 ? s[1] : null;
    if (method === 'GET') return registry.getMode(subject, subject === null || flag(q, 'defaultToGlobal'));
    if (method === 'PUT') return registry.setMode(subject, modeOf(r.body), flag(q, 'force'));
    if (method === 'DELETE' && subject !== null) return registry.deleteMode(subject);
    throw NOT_ALLOWED();
  }
  throw NOT_FOUND();
}
