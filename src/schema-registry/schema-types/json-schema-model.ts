/**
 * The schema model loader of the JSON Schema provider (json-schema.ts): builds, from a document and
 * its references, the `SchemaNode` tree the compatibility rules (json-schema-diff.ts) compare, the
 * way the everit loader Confluent uses builds its `Schema` objects: `$ref` (siblings ignored, every
 * one in reach resolved within the document, by `$id`/anchor, or to a referenced schema); else, in
 * this order, `enum`, `allOf`/`anyOf`/`oneOf`, `not`, `const`, `type` (a list of types is an
 * anyOf), then the keywords not yet used sniffed into array/object/number/string schemas and
 * `if`/`then`/`else`; several parts make a synthetic allOf, none an empty schema.
 */
import { InvalidSchemaError } from './schema-type.js';
import {
  DEFAULT_BASE_URI, type Draft, checkPattern, forEachSubschema, idKeyword, isSchemaValue, resolveUri, withoutFragment,
} from './json-schema-drafts.js';
import { javaHashMapOrder } from './json-schema-java-order.js';
import type { Criterion, JavaNumber, RefNode, SchemaNode } from './json-schema-nodes.js';
import { JsonNumber, type JsonObject, type JsonValue, javaNumberText, writeJava } from './json-schema-text.js';

// ---------------------------------------------------------------------------------------------
// The schema model (everit's SchemaLoader, as Confluent runs it)
// ---------------------------------------------------------------------------------------------

export interface ReferenceDocument {
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

export class ModelBuilder {
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
