/**
 * The JSON Schema provider of the Schema Registry (schemaType "JSON"), mirroring Confluent Schema
 * Registry's `JsonSchemaProvider` / `JsonSchema` (json-schema-provider module):
 *
 * - parse: the text must be JSON (an object or a boolean), valid against the meta-schema of the
 *   draft its `$schema` names (draft-04/06/07, 2019-09, 2020-12; draft-07 when absent or unknown,
 *   as Confluent defaults), checked with ajv in non-strict mode so unknown keywords pass as Confluent
 *   lets them. Every `$ref` in reach must resolve, as everit's loader requires: within the document
 *   (JSON pointer, `$id`, anchor) or to a referenced schema, registered under its reference name
 *   resolved against the root's `$id` (references of references are flattened into one set, first
 *   name wins), as Confluent registers `resolvedReferences`. Every `pattern` must compile. Errors
 *   are InvalidSchemaError: "Invalid JSON <text>: <reason>" for text that is not JSON, "Invalid JSON
 *   Schema: <reason>" for a document that is not a schema (Confluent's own text stops at "Invalid
 *   JSON Schema"; the reason is added to be actionable).
 * - canonical: Confluent's `canonicalString()`, Jackson's `writeValueAsString(readTree(text))`:
 *   compact, keys in document order (a repeated key keeps its first place and last value),
 *   strings escaped as Jackson does (`\"`, `\\`, `\b\t\n\f\r`, other controls `\u00XX` upper-case,
 *   nothing else), integers as written (`-0` is `0`), decimals as Java's `BigDecimal.toString()`
 *   of the written digits (`1.0` stays `1.0`, `1e3` becomes `1E+3`, `1e-7` becomes `1E-7`).
 * - normalize: Confluent's `normalize()`, the same document re-read with every object's keys sorted
 *   (Java `String` order), then written the same way.
 * - checkCompatibility: Confluent's `SchemaDiff` rules (json-schema-diff.ts) on a model of the schema
 *   built the way the everit loader Confluent uses builds its `Schema` objects: `$ref` (siblings
 *   ignored); else, in this order, `enum`, `allOf`/`anyOf`/`oneOf`, `not`, `const`, `type` (a list
 *   of types is an anyOf), then the keywords not yet used sniffed into array/object/number/string
 *   schemas and `if`/`then`/`else`; several parts make a synthetic allOf, none an empty schema.
 *   BACKWARD compares existing → proposed and words the messages ("new", "old"); FORWARD compares
 *   proposed → existing with ("old", "new"), as Confluent's SchemaValidatorBuilder does.
 *
 * Not covered / differences: stricter parsing than Jackson (no trailing text after the document,
 * no NaN/Infinity); the meta-schema check refuses a few documents everit would load (duplicate
 * `required` names, a negative length) and so does a regular expression JavaScript cannot compile;
 * draft-04/06 are checked against the draft-07 meta-schema (after rewriting draft-04's `id` and
 * boolean exclusive limits); remote `$ref`s are never fetched (they must be registered as
 * references); the 2019-09/2020-12 model is an approximation of Confluent's SchemaTranslator
 * (`prefixItems` + `items` as tuple items + additionalItems, `dependentRequired`/
 * `dependentSchemas` as dependencies, unevaluated*, min/maxContains and `$dynamicRef` ignored).
 * See json-schema-diff.ts for what the compatibility rules leave out.
 */
import AjvModule from 'ajv';
import Ajv2019Module from 'ajv/dist/2019.js';
import Ajv2020Module from 'ajv/dist/2020.js';

import {
  type CompatibilityDirection,
  InvalidSchemaError,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaProvider,
} from './schema-type.js';
import {
  COMPATIBLE_CHANGES,
  type Criterion,
  type JavaNumber,
  type RefNode,
  type SchemaNode,
  compareSchemas,
  formatDifference,
  javaHashMapOrder,
} from './json-schema-diff.js';

// ---------------------------------------------------------------------------------------------
// An order-preserving JSON tree (JavaScript objects would move integer-like keys first)
// ---------------------------------------------------------------------------------------------

/** A JSON number, kept as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses text that `JSON.parse` has already accepted, keeping key order and number spelling. */
function parseOrdered(text: string): JsonValue {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    let start = i;
    while (text[i] !== '"') {
      if (text[i] === '\\') {
        out += text.slice(start, i);
        const c = text[i + 1]!;
        if (c === 'u') {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          out += c === 'b' ? '\b' : c === 'f' ? '\f' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c;
          i += 2;
        }
        start = i;
      } else {
        i++;
      }
    }
    out += text.slice(start, i);
    i++; // closing quote
    return out;
  };
  const value = (): JsonValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: JsonObject = new Map();
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const key = str();
        ws();
        i++; // colon
        obj.set(key, value());
        ws();
        if (text[i++] === '}') return obj;
      }
    }
    if (c === '[') {
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i++] === ']') return arr;
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text)!;
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  return value();
}

/** A number as Jackson (integers) or Java's BigDecimal.toString() (decimals) writes it. */
export function javaNumberText(text: string): string {
  if (!/[.eE]/.test(text)) return text === '-0' ? '0' : text;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return text;
  const fraction = m[3] ?? '';
  const digits = (m[2]! + fraction).replace(/^0+(?=\d)/, '');
  const scale = fraction.length - (m[4] === undefined ? 0 : parseInt(m[4], 10));
  const negative = m[1] === '-' && digits !== '0';
  const adjusted = -scale + (digits.length - 1);
  let out: string;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) out = digits;
    else if (digits.length > scale) out = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
    else out = `0.${'0'.repeat(scale - digits.length)}${digits}`;
  } else {
    out = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    if (adjusted !== 0) out += `E${adjusted > 0 ? '+' : ''}${adjusted}`;
  }
  return negative ? `-${out}` : out;
}

/** A string as Jackson quotes it. */
function javaQuote(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x08: out += '\\b'; break;
      case 0x09: out += '\\t'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0c: out += '\\f'; break;
      case 0x0d: out += '\\r'; break;
      default: out += `\\u00${c.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out + s.slice(start) + '"';
}

function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compact JSON as Jackson writes it; with `sorted`, every object's keys in Java String order. */
function writeJava(v: JsonValue, sorted = false): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return javaQuote(v);
  if (v instanceof JsonNumber) return javaNumberText(v.text);
  if (Array.isArray(v)) return `[${v.map((e) => writeJava(e, sorted)).join(',')}]`;
  const keys = [...v.keys()];
  if (sorted) keys.sort(compareJavaStrings);
  return `{${keys.map((k) => `${javaQuote(k)}:${writeJava(v.get(k)!, sorted)}`).join(',')}}`;
}

function sortTree(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sortTree);
  if (!(v instanceof Map)) return v;
  const out: JsonObject = new Map();
  for (const k of [...v.keys()].sort(compareJavaStrings)) out.set(k, sortTree(v.get(k)!));
  return out;
}

/** The tree as plain JavaScript values (what ajv takes). */
function toPlain(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(toPlain);
  if (!(v instanceof Map)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, e] of v) Object.defineProperty(out, k, { value: toPlain(e), enumerable: true, writable: true, configurable: true });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Drafts, URIs and subschema positions
// ---------------------------------------------------------------------------------------------

type Draft = 4 | 6 | 7 | 2019 | 2020;

/** The draft a `$schema` names; draft-07 when there is none or it is not one Confluent knows. */
function draftOf(root: JsonValue): Draft {
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
const DEFAULT_BASE_URI = 'mem://input';

function resolveUri(ref: string, base: string): string {
  try {
    const href = new URL(ref, base).href;
    return href.endsWith('#') ? href.slice(0, -1) : href;
  } catch {
    return ref;
  }
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

function idKeyword(draft: Draft): string {
  return draft === 4 ? 'id' : '$id';
}

const SINGLE_SUBSCHEMA = ['additionalItems', 'additionalProperties', 'contains', 'not', 'propertyNames', 'if', 'then', 'else',
  'unevaluatedItems', 'unevaluatedProperties', 'contentSchema'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'definitions', '$defs', 'dependentSchemas', 'dependencies'];

function isSchemaValue(v: JsonValue | undefined): v is JsonObject | boolean {
  return v instanceof Map || typeof v === 'boolean';
}

/** Calls `fn` with every subschema directly inside the schema `obj`. */
function forEachSubschema(obj: JsonObject, fn: (child: JsonObject | boolean) => void): void {
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

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Checks the document against its draft's meta-schema (ajv, strict mode off). */
function validateAgainstMetaSchema(root: JsonValue, draft: Draft): void {
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
function checkPattern(pattern: string): void {
  try {
    new RegExp(pattern, 'u');
  } catch (e) {
    throw new InvalidSchemaError(`Invalid JSON Schema: ${message(e)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The schema model (everit's SchemaLoader, as Confluent runs it)
// ---------------------------------------------------------------------------------------------

interface ReferenceDocument {
  readonly name: string;
  readonly value: JsonValue;
}

const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format'];
const CONDITIONAL_KEYWORDS = ['if', 'then', 'else'];

function arrayKeywords(draft: Draft): string[] {
  const k = ['items', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems'];
  if (draft >= 6) k.push('contains');
  if (draft === 2020) k.push('prefixItems');
  return k;
}

function objectKeywords(draft: Draft): string[] {
  const k = ['properties', 'required', 'minProperties', 'maxProperties', 'dependencies', 'patternProperties', 'additionalProperties'];
  if (draft >= 6) k.push('propertyNames');
  if (draft >= 2019) k.push('dependentRequired', 'dependentSchemas');
  return k;
}

/** The order everit's CombinedSchemaLoader finds allOf/anyOf/oneOf in (a HashMap's). */
const COMBINED_ORDER = javaHashMapOrder(['allOf', 'anyOf', 'oneOf']) as Criterion[];

/** The equality of two JSON values as Java sees them (Map equality ignores key order). */
function valueKey(v: JsonValue): string {
  return writeJava(v, true);
}

function num(v: JsonValue | undefined): number | undefined {
  return v instanceof JsonNumber ? Number(v.text) : undefined;
}

function javaNumber(v: JsonValue | undefined): JavaNumber | undefined {
  return v instanceof JsonNumber ? { text: javaNumberText(v.text), value: Number(v.text) } : undefined;
}

interface Located {
  readonly value: JsonValue;
  readonly base: string;
}

class ModelBuilder {
  /** Documents by URI: the root and each reference (under its name resolved as Confluent does). */
  private readonly documents = new Map<string, Located>();
  /** Subschemas with an `$id` (or an anchor), by absolute URI. */
  private readonly identified = new Map<string, Located>();
  /** The node of each `$ref` target, so that recursive references meet the same node. */
  private readonly targets = new Map<string, SchemaNode>();
  private readonly refs: RefNode[] = [];

  constructor(private readonly draft: Draft, root: JsonValue, references: readonly ReferenceDocument[]) {
    const rootId = root instanceof Map ? root.get(idKeyword(draft)) : undefined;
    const rootBase = typeof rootId === 'string' ? withoutFragment(resolveUri(rootId, DEFAULT_BASE_URI)) : DEFAULT_BASE_URI;
    this.documents.set(rootBase, { value: root, base: rootBase });
    this.documents.set(DEFAULT_BASE_URI, { value: root, base: rootBase });
    for (const ref of references) {
      for (const uri of [resolveUri(ref.name, rootBase), resolveUri(ref.name, DEFAULT_BASE_URI)]) {
        const doc = withoutFragment(uri);
        if (!this.documents.has(doc)) this.documents.set(doc, { value: ref.value, base: doc });
      }
    }
    for (const { value, base } of [...this.documents.values()]) this.index(value, base);
  }

  /** The root's node, every `$ref` in reach resolved (throws InvalidSchemaError if one is not). */
  build(root: JsonValue): SchemaNode {
    const node = this.node(root, this.documents.get(DEFAULT_BASE_URI)!.base);
    for (let i = 0; i < this.refs.length; i++) this.refs[i]!.target();
    return node;
  }

  private index(v: JsonValue, base: string): void {
    if (!(v instanceof Map)) return;
    let here = base;
    const id = v.get(idKeyword(this.draft));
    if (typeof id === 'string') {
      const uri = resolveUri(id, base);
      here = withoutFragment(uri);
      if (!this.identified.has(uri)) this.identified.set(uri, { value: v, base: here });
    }
    const anchor = v.get('$anchor');
    if (typeof anchor === 'string') this.identified.set(`${here}#${anchor}`, { value: v, base: here });
    forEachSubschema(v, (child) => this.index(child, here));
  }

  private resolve(ref: string, base: string): { key: string; located: Located } {
    const uri = resolveUri(ref, base);
    const direct = this.identified.get(uri);
    if (direct) return { key: uri, located: direct };
    const doc = withoutFragment(uri);
    const start = this.identified.get(doc) ?? this.documents.get(doc);
    if (!start) throw new InvalidSchemaError(`Invalid JSON Schema: cannot resolve $ref '${ref}' (register it as a reference)`);
    const fragment = uri.length > doc.length ? uri.slice(doc.length + 1) : '';
    if (fragment === '') return { key: doc, located: start };
    if (!fragment.startsWith('/')) throw new InvalidSchemaError(`Invalid JSON Schema: cannot resolve $ref '${ref}'`);
    let value: JsonValue | undefined = start.value;
    let at = start.base;
    for (const raw of fragment.slice(1).split('/')) {
      let segment = raw;
      try {
        segment = decodeURIComponent(raw);
      } catch {
        // keep it as written
      }
      segment = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      if (value instanceof Map) {
        const id = value.get(idKeyword(this.draft));
        if (typeof id === 'string' && value !== start.value) at = withoutFragment(resolveUri(id, at));
        value = value.get(segment);
      } else if (Array.isArray(value)) {
        value = value[Number(segment)];
      } else {
        value = undefined;
      }
      if (value === undefined) throw new InvalidSchemaError(`Invalid JSON Schema: cannot resolve $ref '${ref}'`);
    }
    return { key: `${doc}#${fragment}`, located: { value, base: at } };
  }

  private node(v: JsonValue, baseIn: string): SchemaNode {
    if (v === true) return identify({ kind: 'true' }, () => 'true', false);
    if (v === false) return identify({ kind: 'false' }, () => 'false', false);
    if (!(v instanceof Map)) return identify({ kind: 'empty' }, () => '{}', false);
    let base = baseIn;
    const id = v.get(idKeyword(this.draft));
    if (typeof id === 'string') base = withoutFragment(resolveUri(id, base));
    const hasDefault = v.has('default');
    const keyOf = (): string => valueKey(v);

    const ref = v.get('$ref');
    if (typeof ref === 'string') {
      let target: SchemaNode | undefined;
      const refNode = identify({
        kind: 'ref',
        target: (): SchemaNode => {
          if (target === undefined) {
            const { key, located } = this.resolve(ref, base);
            target = this.targets.get(key);
            if (target === undefined) {
              target = this.node(located.value, located.base);
              this.targets.set(key, target);
            }
          }
          return target;
        },
      }, keyOf, hasDefault);
      this.refs.push(refNode);
      return refNode;
    }

    // The parts everit's extractors find, in their order; `used` holds the keywords consumed.
    const used = new Set<string>();
    const parts: Array<[tag: string, part: Unidentified]> = [];
    const child = (c: JsonValue | undefined): SchemaNode => (isSchemaValue(c) ? this.node(c, base) : this.node(new Map(), base));

    const enumValues = v.get('enum');
    if (Array.isArray(enumValues)) {
      used.add('enum');
      parts.push(['enum', { kind: 'enum', values: enumValues.map(valueKey) }]);
    }
    for (const criterion of COMBINED_ORDER) {
      const list = v.get(criterion);
      if (!Array.isArray(list)) continue;
      used.add(criterion);
      parts.push([criterion, { kind: 'combined', criterion, subschemas: list.map(child) }]);
    }
    if (v.has('not')) {
      used.add('not');
      parts.push(['not', { kind: 'not', not: child(v.get('not')) }]);
    }
    if (this.draft !== 4 && v.has('const')) {
      used.add('const');
      parts.push(['const', { kind: 'const', value: valueKey(v.get('const')!) }]);
    }
    const type = v.get('type');
    if (typeof type === 'string') {
      used.add('type');
      parts.push([`type:${type}`, this.explicitType(type, v, base, used)]);
    } else if (Array.isArray(type)) {
      used.add('type');
      const subschemas = type.map((t) => {
        const tag = `type:${String(t)}`;
        return identify(this.explicitType(String(t), v, base, used), () => `${tag}:${keyOf()}`, false);
      });
      parts.push(['type', { kind: 'combined', criterion: 'anyOf', subschemas }]);
    }
    const remains = (keywords: readonly string[]): boolean => keywords.some((k) => v.has(k) && !used.has(k));
    if (remains(arrayKeywords(this.draft))) parts.push(['array', this.array(v, base)]);
    if (remains(objectKeywords(this.draft))) parts.push(['object', this.object(v, base)]);
    if (remains(NUMBER_KEYWORDS)) parts.push(['number', this.number(v, false)]);
    if (remains(STRING_KEYWORDS)) parts.push(['string', this.string(v)]);
    if (this.draft >= 7 && remains(CONDITIONAL_KEYWORDS)) parts.push(['if', { kind: 'conditional' }]);

    // None is the empty schema; one carries the schema's identity and default; more are an allOf.
    if (parts.length === 0) return identify({ kind: 'empty' }, keyOf, hasDefault);
    if (parts.length === 1) return identify(parts[0]![1], keyOf, hasDefault);
    const subschemas = parts.map(([tag, part]) => identify(part, () => `${tag}:${keyOf()}`, false));
    return identify({ kind: 'combined', criterion: 'allOf', subschemas }, keyOf, hasDefault);
  }

  private explicitType(type: string, v: JsonObject, base: string, used: Set<string>): Unidentified {
    const consume = (keywords: readonly string[]): void => keywords.forEach((k) => used.add(k));
    switch (type) {
      case 'string':
        consume(STRING_KEYWORDS);
        return this.string(v);
      case 'integer':
      case 'number':
        consume(NUMBER_KEYWORDS);
        return this.number(v, type === 'integer');
      case 'boolean':
      case 'null':
        return { kind: type };
      case 'array':
        consume(arrayKeywords(this.draft));
        return this.array(v, base);
      case 'object':
        consume(objectKeywords(this.draft));
        return this.object(v, base);
      default:
        throw new InvalidSchemaError(`Invalid JSON Schema: unknown type: [${type}]`);
    }
  }

  private string(v: JsonObject): Unidentified {
    const pattern = v.get('pattern');
    if (typeof pattern === 'string') checkPattern(pattern);
    return {
      kind: 'string',
      minLength: num(v.get('minLength')), maxLength: num(v.get('maxLength')),
      pattern: typeof pattern === 'string' ? pattern : undefined,
    };
  }

  private number(v: JsonObject, requiresInteger: boolean): Unidentified {
    // Draft-04's boolean exclusiveMinimum/Maximum only flag the limits (not compared by Confluent).
    return {
      kind: 'number', requiresInteger,
      minimum: num(v.get('minimum')), maximum: num(v.get('maximum')),
      exclusiveMinimum: num(v.get('exclusiveMinimum')), exclusiveMaximum: num(v.get('exclusiveMaximum')),
      multipleOf: javaNumber(v.get('multipleOf')),
    };
  }

  private array(v: JsonObject, base: string): Unidentified {
    const child = (c: JsonValue | undefined): SchemaNode | undefined => (isSchemaValue(c) ? this.node(c, base) : undefined);
    const childList = (c: JsonValue | undefined): SchemaNode[] | undefined =>
      Array.isArray(c) ? c.filter(isSchemaValue).map((e) => this.node(e, base)) : undefined;
    let allItems: SchemaNode | undefined;
    let tupleItems: SchemaNode[] | undefined;
    let additional: JsonValue | undefined = v.get('additionalItems');
    const items = v.get('items');
    if (this.draft === 2020 && Array.isArray(v.get('prefixItems'))) {
      tupleItems = childList(v.get('prefixItems'));
      if (items !== undefined) additional = items;
    } else if (Array.isArray(items)) {
      tupleItems = childList(items);
    } else {
      allItems = child(items);
    }
    const unique = v.get('uniqueItems');
    return {
      kind: 'array',
      allItems, tupleItems,
      additionalItems: additional !== false,
      additionalItemsSchema: additional instanceof Map ? this.node(additional, base) : undefined,
      minItems: num(v.get('minItems')), maxItems: num(v.get('maxItems')),
      uniqueItems: unique === true,
    };
  }

  private object(v: JsonObject, base: string): Unidentified {
    const properties = new Map<string, SchemaNode>();
    const props = v.get('properties');
    if (props instanceof Map) {
      for (const [name, s] of props) if (isSchemaValue(s)) properties.set(name, this.node(s, base));
    }
    const requiredList = v.get('required');
    const required = Array.isArray(requiredList) ? requiredList.filter((e): e is string => typeof e === 'string') : [];
    const additional = v.get('additionalProperties');
    const patternProperties: Array<[string, SchemaNode]> = [];
    const patterns = v.get('patternProperties');
    if (patterns instanceof Map) {
      for (const [pattern, s] of patterns) {
        checkPattern(pattern);
        if (isSchemaValue(s)) patternProperties.push([pattern, this.node(s, base)]);
      }
    }
    const propertyDependencies = new Map<string, string[]>();
    const schemaDependencies = new Map<string, SchemaNode>();
    const addDependencies = (deps: JsonValue | undefined): void => {
      if (!(deps instanceof Map)) return;
      for (const [name, d] of deps) {
        if (Array.isArray(d)) propertyDependencies.set(name, d.filter((e): e is string => typeof e === 'string'));
        else if (isSchemaValue(d)) schemaDependencies.set(name, this.node(d, base));
      }
    };
    addDependencies(v.get('dependencies'));
    if (this.draft >= 2019) {
      addDependencies(v.get('dependentRequired'));
      addDependencies(v.get('dependentSchemas'));
    }
    return {
      kind: 'object',
      properties, required,
      additionalProperties: additional !== false,
      additionalPropertiesSchema: additional instanceof Map ? this.node(additional, base) : undefined,
      patternProperties, propertyDependencies, schemaDependencies,
      minProperties: num(v.get('minProperties')), maxProperties: num(v.get('maxProperties')),
    };
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A node before it is given its identity (`key`) and `hasDefault`. */
type Unidentified = DistributiveOmit<SchemaNode, 'key' | 'hasDefault'>;

/** Gives a node its `hasDefault` and a lazily computed `key`. */
function identify<T extends Unidentified>(node: T, key: () => string, hasDefault: boolean): T & SchemaNode {
  let cached: string | undefined;
  return Object.defineProperties(node, {
    key: { get: () => (cached ??= key()), enumerable: true },
    hasDefault: { value: hasDefault, enumerable: true },
  }) as T & SchemaNode;
}

// ---------------------------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------------------------

class JsonParsedSchema implements ParsedSchema {
  readonly schemaType = 'JSON' as const;
  readonly canonical: string;
  private rootNode: SchemaNode | undefined;

  constructor(
    private readonly tree: JsonValue,
    readonly references: readonly ResolvedReference[],
    private readonly draft: Draft,
    private readonly referenceDocuments: readonly ReferenceDocument[],
    private readonly sorted: boolean,
  ) {
    this.canonical = writeJava(tree);
  }

  /** The schema model the compatibility rules compare (built once, every `$ref` resolved). */
  root(): SchemaNode {
    return (this.rootNode ??= new ModelBuilder(this.draft, this.tree, this.referenceDocuments).build(this.tree));
  }

  normalize(): ParsedSchema {
    if (this.sorted) return this;
    return new JsonParsedSchema(sortTree(this.tree), this.references, this.draft, this.referenceDocuments, true);
  }
}

function parseJsonText(text: string, what: string): JsonValue {
  try {
    JSON.parse(text);
  } catch (e) {
    throw new InvalidSchemaError(`Invalid JSON ${what}: ${message(e)}`);
  }
  return parseOrdered(text);
}

/** Every reference, and theirs, once each (first occurrence wins), as Confluent flattens them. */
function flattenReferences(references: readonly ResolvedReference[]): ReferenceDocument[] {
  const out: ReferenceDocument[] = [];
  const seen = new Set<string>();
  const visit = (refs: readonly ResolvedReference[]): void => {
    for (const ref of refs) {
      if (seen.has(ref.name)) continue;
      seen.add(ref.name);
      let value: JsonValue;
      try {
        value = parseJsonText(ref.schema, ref.schema);
      } catch (e) {
        throw new InvalidSchemaError(`Invalid JSON Schema: reference '${ref.name}': ${message(e)}`);
      }
      out.push({ name: ref.name, value });
      visit(ref.references);
    }
  };
  visit(references);
  return out;
}

function parseJsonSchema(schema: string, references: readonly ResolvedReference[]): JsonParsedSchema {
  if (schema.trim() === '') throw new InvalidSchemaError('Invalid JSON Schema: the schema is empty');
  const tree = parseJsonText(schema, schema);
  if (!(tree instanceof Map) && typeof tree !== 'boolean') {
    throw new InvalidSchemaError('Invalid JSON Schema: a schema must be a JSON object or a boolean');
  }
  const draft = draftOf(tree);
  const referenceDocuments = flattenReferences(references);
  validateAgainstMetaSchema(tree, draft);
  const parsed = new JsonParsedSchema(tree, references, draft, referenceDocuments, false);
  parsed.root(); // every $ref in reach must resolve, and every pattern compile, now
  return parsed;
}

function asJsonSchema(schema: ParsedSchema): JsonParsedSchema {
  return schema instanceof JsonParsedSchema ? schema : parseJsonSchema(schema.canonical, schema.references);
}

export const jsonSchemaProvider: SchemaProvider = {
  schemaType: 'JSON',

  parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema {
    return parseJsonSchema(schema, references);
  },

  checkCompatibility(direction: CompatibilityDirection, proposed: ParsedSchema, existing: ParsedSchema): string[] {
    if (proposed.schemaType !== 'JSON' || existing.schemaType !== 'JSON') {
      return ['Incompatible because of different schema type'];
    }
    const newer = asJsonSchema(proposed).root();
    const older = asJsonSchema(existing).root();
    // BACKWARD: the new schema reads what the old one wrote; FORWARD: the reverse.
    const [original, update, first, second] =
      direction === 'BACKWARD' ? [older, newer, 'new', 'old'] : [newer, older, 'old', 'new'];
    return compareSchemas(original, update)
      .filter((d) => !COMPATIBLE_CHANGES.has(d.type))
      .map((d) => formatDifference(d, first, second));
  },
};
