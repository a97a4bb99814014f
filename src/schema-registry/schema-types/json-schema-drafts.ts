/**
 * Drafts, URIs and validation for the JSON Schema provider (json-schema.ts): the draft a document's
 * `$schema` names, `$id`/`$ref` URI resolution, where subschemas sit in a document, and the check of
 * a document against its draft's meta-schema with ajv (non-strict; draft-04 rewritten for the
 * draft-07 meta-schema), plus the check that a `pattern` compiles.
 */
import AjvModule from 'ajv';
import Ajv2019Module from 'ajv/dist/2019.js';
import Ajv2020Module from 'ajv/dist/2020.js';

import { InvalidSchemaError } from './schema-type.js';
import { JsonNumber, type JsonObject, type JsonValue, toPlain } from './json-schema-text.js';

// ---------------------------------------------------------------------------------------------
// Drafts, URIs and subschema positions
// ---------------------------------------------------------------------------------------------

export type Draft = 4 | 6 | 7 | 2019 | 2020;

/** The draft a `$schema` names; draft-07 when there is none or it is not one Confluent knows. */
export function draftOf(root: JsonValue): Draft {
  const url = root instanceof Map ? root.get('$schema') : undefined;
  if (typeof url !== 'string') return 7;
  if (url.includes('draft-04')) return 4;
  if (url.includes('draft-06')) return 6;
  if (url.includes('draft-07')) return 7;
  if (url.includes('draft/2019-09')) return 2019;
  if (url.includes('draft/2020-12')) return 2020;
  return 7;
}

/** The base URI of a schema without `$id` (Confluent's JsonSchema.DEFAULT_BASE_URI). */
export const DEFAULT_BASE_URI = 'mem://input';

export function resolveUri(ref: string, base: string): string {
  try {
    const href = new URL(ref, base).href;
    return href.endsWith('#') ? href.slice(0, -1) : href;
  } catch {
    return ref;
  }
}

export function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

export function idKeyword(draft: Draft): string {
  return draft === 4 ? 'id' : '$id';
}

const SINGLE_SUBSCHEMA = ['additionalItems', 'additionalProperties', 'contains', 'not', 'propertyNames', 'if', 'then', 'else',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies'];

export function isSchemaValue(v: JsonValue | undefined): v is JsonObject | boolean {
  return v instanceof Map || typeof v === 'boolean';
}

/** Calls `fn` with every subschema directly inside the schema `obj`. */
export function forEachSubschema(obj: JsonObject, fn: (child: JsonObject | boolean) => void): void {
  for (const k of SINGLE_SUBSCHEMA) {
    const v = obj.get(k);
    if (isSchemaValue(v)) fn(v);
  }
  const items = obj.get('items');
  if (isSchemaValue(items)) fn(items);
  else if (Array.isArray(items)) items.forEach((e) => isSchemaValue(e) && fn(e));
  for (const k of SUBSCHEMA_LISTS) {
    const v = obj.get(k);
    if (Array.isArray(v)) v.forEach((e) => isSchemaValue(e) && fn(e));
  }
  for (const k of SUBSCHEMA_MAPS) {
    const v = obj.get(k);
    if (v instanceof Map) for (const e of v.values()) if (isSchemaValue(e)) fn(e);
  }
}

/** A draft-04 schema rewritten for ajv's draft-07 checks: `id` → `$id`, boolean exclusive limits. */
function draft4ToDraft7(v: JsonObject | boolean): JsonObject | boolean {
  if (!(v instanceof Map)) return v;
  const out: JsonObject = new Map(v);
  const id = out.get('id');
  if (typeof id === 'string' && !out.has('$id')) {
    out.delete('id');
    out.set('$id', id);
  }
  for (const [exclusive, limit] of [['exclusiveMaximum', 'maximum'], ['exclusiveMinimum', 'minimum']] as const) {
    const flag = out.get(exclusive);
    if (typeof flag !== 'boolean') continue;
    out.delete(exclusive);
    const value = out.get(limit);
    if (flag && value instanceof JsonNumber) {
      out.delete(limit);
      out.set(exclusive, value);
    }
  }
  const rewritten = new Map<JsonObject | boolean, JsonObject | boolean>();
  forEachSubschema(v, (child) => rewritten.set(child, draft4ToDraft7(child)));
  const swap = (e: JsonValue): JsonValue => (isSchemaValue(e) && rewritten.has(e) ? rewritten.get(e)! : e);
  for (const [k, e] of out) {
    if (Array.isArray(e)) out.set(k, e.map(swap));
    else if (e instanceof Map && SUBSCHEMA_MAPS.includes(k)) out.set(k, new Map([...e].map(([name, s]) => [name, swap(s)])));
    else out.set(k, swap(e));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Validation with ajv
// ---------------------------------------------------------------------------------------------

interface AjvLike {
  validateSchema(schema: unknown): unknown;
  errors?: unknown;
  errorsText(errors?: unknown): string;
}
type AjvClass = new (options: Record<string, unknown>) => AjvLike;

function ajvClass(module: unknown): AjvClass {
  const m = module as { default?: AjvClass };
  return (typeof m.default === 'function' ? m.default : module) as AjvClass;
}

/** One ajv per meta-schema, kept: it only checks documents against the meta-schema, stores none. */
const metaValidators = new Map<Draft, AjvLike>();

function metaValidator(draft: Draft): AjvLike {
  // Draft-04 (rewritten) and draft-06 documents are checked against draft-07, which only adds to them.
  const meta: Draft = draft === 2019 || draft === 2020 ? draft : 7;
  let ajv = metaValidators.get(meta);
  if (!ajv) {
    const Ajv = meta === 2019 ? ajvClass(Ajv2019Module) : meta === 2020 ? ajvClass(Ajv2020Module) : ajvClass(AjvModule);
    ajv = new Ajv({ strict: false, validateFormats: false, logger: false });
    metaValidators.set(meta, ajv);
  }
  return ajv;
}

export function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Checks the document against its draft's meta-schema (ajv, strict mode off). */
export function validateAgainstMetaSchema(root: JsonValue, draft: Draft): void {
  let tree = root;
  if (draft === 4 && isSchemaValue(tree)) tree = draft4ToDraft7(tree);
  if (tree instanceof Map && tree.has('$schema')) {
    // The meta-schema is chosen by the draft; ajv would otherwise look the URL up.
    tree = new Map(tree);
    tree.delete('$schema');
  }
  const ajv = metaValidator(draft);
  if (ajv.validateSchema(toPlain(tree)) !== true) {
    throw new InvalidSchemaError(`Invalid JSON Schema: schema is invalid: ${ajv.errorsText(ajv.errors)}`);
  }
}

/** Throws InvalidSchemaError if JavaScript cannot compile the regular expression. */
export function checkPattern(pattern: string): void {
  try {
    new RegExp(pattern, 'u');
  } catch (e) {
    throw new InvalidSchemaError(`Invalid JSON Schema: ${message(e)}`);
  }
}
