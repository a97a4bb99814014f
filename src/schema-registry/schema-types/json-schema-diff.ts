/**
 * The compatibility rules of the JSON Schema provider (json-schema.ts): a TypeScript rendering of
 * Confluent Schema Registry's `io.confluent.kafka.schemaregistry.json.diff` package (SchemaDiff,
 * ObjectSchemaDiff, ArraySchemaDiff, StringSchemaDiff, NumberSchemaDiff, EnumSchemaDiff,
 * ConstSchemaDiff, NotSchemaDiff, CombinedSchemaDiff, Difference, Context).
 *
 * `compareSchemas(original, update)` walks two schema models (`SchemaNode`, built by json-schema.ts
 * the way the everit loader Confluent uses builds its `Schema` objects) and lists every
 * `Difference` (a type and a JSON path such as `#/properties/b`). A difference is compatible when
 * its type is in `COMPATIBLE_CHANGES`, the set Confluent's SchemaDiff declares: the change is safe
 * when `update` reads data written with `original`. `formatDifference` renders one incompatible
 * difference as Confluent's message, `{errorType:"…", description:"…"}`, with the two `%s` of the
 * description filled by the registry's caller ("new"/"old" for BACKWARD, "old"/"new" for FORWARD,
 * as Confluent's SchemaValidatorBuilder does).
 *
 * Mirrored from Confluent's source: the order of the checks and of the messages (including the
 * iteration order of Java's HashMap/HashSet over property and dependency names, simulated below),
 * the singleton/sum/product special cases of combined schemas, the maximum-cardinality matching of
 * subschemas, `not` compared in reverse, `$ref` followed to its target, cycles in recursive
 * schemas treated as compatible, and two quirks kept on purpose: a `multipleOf` is compared through
 * its integer part, and a decreased `exclusiveMaximum` is measured against the new `maximum`
 * (where Confluent would fail with an exception, we compare exactly instead).
 *
 * Not covered: the metadata rules (reserved properties in `confluent:reserved`), the draft
 * 2019-09/2020-12 keywords unevaluatedProperties/unevaluatedItems/minContains/maxContains, and the
 * changes of id, title, description and default (all compatible, so no message is lost by omitting
 * them). Adding a property to an open content model is reported with the 8.x split
 * (REQUIRED_/REQUIRED_WITH_DEFAULT_/OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL), not the 7.x
 * PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL.
 */

// ---------------------------------------------------------------------------------------------
// The schema model (what everit's SchemaLoader builds; one node kind per everit Schema class)
// ---------------------------------------------------------------------------------------------

interface NodeBase {
  /** A `default` was given (everit is run with useDefaults). */
  readonly hasDefault: boolean;
  /** Identity for de-duplicating the subschemas of a combined schema (Confluent uses a Set). */
  readonly key: string;
}

export interface SimpleNode extends NodeBase {
  readonly kind: 'empty' | 'true' | 'false' | 'null' | 'boolean' | 'conditional';
}

export interface StringNode extends NodeBase {
  readonly kind: 'string';
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
}

/** A number as Java holds it: its `toString()` (Integer/Long/BigInteger/BigDecimal) and its value. */
export interface JavaNumber {
  readonly text: string;
  readonly value: number;
}

export interface NumberNode extends NodeBase {
  readonly kind: 'number';
  readonly requiresInteger: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: JavaNumber;
}

export interface ObjectNode extends NodeBase {
  readonly kind: 'object';
  /** Property schemas in document order. */
  readonly properties: ReadonlyMap<string, SchemaNode>;
  readonly required: readonly string[];
  readonly additionalProperties: boolean;
  readonly additionalPropertiesSchema?: SchemaNode;
  readonly patternProperties: ReadonlyArray<readonly [string, SchemaNode]>;
  readonly propertyDependencies: ReadonlyMap<string, readonly string[]>;
  readonly schemaDependencies: ReadonlyMap<string, SchemaNode>;
  readonly minProperties?: number;
  readonly maxProperties?: number;
}

export interface ArrayNode extends NodeBase {
  readonly kind: 'array';
  readonly allItems?: SchemaNode;
  readonly tupleItems?: readonly SchemaNode[];
  readonly additionalItems: boolean;
  readonly additionalItemsSchema?: SchemaNode;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly uniqueItems: boolean;
}

export interface EnumNode extends NodeBase {
  readonly kind: 'enum';
  /** Each value's equality key (its JSON text with sorted keys and Java number spelling). */
  readonly values: readonly string[];
}

export interface ConstNode extends NodeBase {
  readonly kind: 'const';
  readonly value: string;
}

export interface NotNode extends NodeBase {
  readonly kind: 'not';
  readonly not: SchemaNode;
}

export type Criterion = 'allOf' | 'anyOf' | 'oneOf';

export interface CombinedNode extends NodeBase {
  readonly kind: 'combined';
  readonly criterion: Criterion;
  readonly subschemas: readonly SchemaNode[];
}

export interface RefNode extends NodeBase {
  readonly kind: 'ref';
  /** The referred schema (resolved, and memoized, by the builder). */
  target(): SchemaNode;
}

export type SchemaNode =
  | SimpleNode
  | StringNode
  | NumberNode
  | ObjectNode
  | ArrayNode
  | EnumNode
  | ConstNode
  | NotNode
  | CombinedNode
  | RefNode;

// ---------------------------------------------------------------------------------------------
// Differences
// ---------------------------------------------------------------------------------------------

export type DifferenceType =
  | 'SCHEMA_ADDED' | 'SCHEMA_REMOVED' | 'TYPE_EXTENDED' | 'TYPE_NARROWED' | 'TYPE_CHANGED'
  | 'MAX_LENGTH_ADDED' | 'MAX_LENGTH_REMOVED' | 'MAX_LENGTH_INCREASED' | 'MAX_LENGTH_DECREASED'
  | 'MIN_LENGTH_ADDED' | 'MIN_LENGTH_REMOVED' | 'MIN_LENGTH_INCREASED' | 'MIN_LENGTH_DECREASED'
  | 'PATTERN_ADDED' | 'PATTERN_REMOVED' | 'PATTERN_CHANGED'
  | 'MAXIMUM_ADDED' | 'MAXIMUM_REMOVED' | 'MAXIMUM_INCREASED' | 'MAXIMUM_DECREASED'
  | 'MINIMUM_ADDED' | 'MINIMUM_REMOVED' | 'MINIMUM_INCREASED' | 'MINIMUM_DECREASED'
  | 'EXCLUSIVE_MAXIMUM_ADDED' | 'EXCLUSIVE_MAXIMUM_REMOVED' | 'EXCLUSIVE_MAXIMUM_INCREASED'
  | 'EXCLUSIVE_MAXIMUM_DECREASED' | 'EXCLUSIVE_MINIMUM_ADDED' | 'EXCLUSIVE_MINIMUM_REMOVED'
  | 'EXCLUSIVE_MINIMUM_INCREASED' | 'EXCLUSIVE_MINIMUM_DECREASED'
  | 'MULTIPLE_OF_ADDED' | 'MULTIPLE_OF_REMOVED' | 'MULTIPLE_OF_EXPANDED' | 'MULTIPLE_OF_REDUCED'
  | 'MULTIPLE_OF_CHANGED'
  | 'REQUIRED_ATTRIBUTE_ADDED' | 'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED' | 'REQUIRED_ATTRIBUTE_REMOVED'
  | 'MAX_PROPERTIES_ADDED' | 'MAX_PROPERTIES_REMOVED' | 'MAX_PROPERTIES_INCREASED'
  | 'MAX_PROPERTIES_DECREASED' | 'MIN_PROPERTIES_ADDED' | 'MIN_PROPERTIES_REMOVED'
  | 'MIN_PROPERTIES_INCREASED' | 'MIN_PROPERTIES_DECREASED'
  | 'ADDITIONAL_PROPERTIES_ADDED' | 'ADDITIONAL_PROPERTIES_REMOVED'
  | 'ADDITIONAL_PROPERTIES_EXTENDED' | 'ADDITIONAL_PROPERTIES_NARROWED'
  | 'DEPENDENCY_ARRAY_ADDED' | 'DEPENDENCY_ARRAY_REMOVED' | 'DEPENDENCY_ARRAY_EXTENDED'
  | 'DEPENDENCY_ARRAY_NARROWED' | 'DEPENDENCY_ARRAY_CHANGED' | 'DEPENDENCY_SCHEMA_ADDED'
  | 'DEPENDENCY_SCHEMA_REMOVED'
  | 'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL'
  | 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL'
  | 'OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL'
  | 'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'MAX_ITEMS_ADDED' | 'MAX_ITEMS_REMOVED' | 'MAX_ITEMS_INCREASED' | 'MAX_ITEMS_DECREASED'
  | 'MIN_ITEMS_ADDED' | 'MIN_ITEMS_REMOVED' | 'MIN_ITEMS_INCREASED' | 'MIN_ITEMS_DECREASED'
  | 'UNIQUE_ITEMS_ADDED' | 'UNIQUE_ITEMS_REMOVED'
  | 'ADDITIONAL_ITEMS_ADDED' | 'ADDITIONAL_ITEMS_REMOVED' | 'ADDITIONAL_ITEMS_EXTENDED'
  | 'ADDITIONAL_ITEMS_NARROWED'
  | 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL' | 'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL'
  | 'ITEM_ADDED_TO_CLOSED_CONTENT_MODEL' | 'ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL'
  | 'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL' | 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL'
  | 'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
  | 'ENUM_ARRAY_EXTENDED' | 'ENUM_ARRAY_NARROWED' | 'ENUM_ARRAY_CHANGED'
  | 'COMBINED_TYPE_EXTENDED' | 'COMBINED_TYPE_CHANGED' | 'PRODUCT_TYPE_EXTENDED'
  | 'PRODUCT_TYPE_NARROWED' | 'SUM_TYPE_EXTENDED' | 'SUM_TYPE_NARROWED'
  | 'COMBINED_TYPE_SUBSCHEMAS_CHANGED' | 'NOT_TYPE_EXTENDED' | 'NOT_TYPE_NARROWED';

/** One difference; `path` is relative to the pair being compared (joined as `#/a/b`). */
export interface Difference {
  readonly type: DifferenceType;
  readonly path: readonly string[];
}

/** The changes Confluent's SchemaDiff.COMPATIBLE_CHANGES lists (of those this module reports). */
export const COMPATIBLE_CHANGES: ReadonlySet<DifferenceType> = new Set<DifferenceType>([
  'SCHEMA_REMOVED', 'TYPE_EXTENDED',
  'MAX_LENGTH_INCREASED', 'MAX_LENGTH_REMOVED', 'MIN_LENGTH_DECREASED', 'MIN_LENGTH_REMOVED',
  'PATTERN_REMOVED',
  'MAXIMUM_INCREASED', 'MAXIMUM_REMOVED', 'MINIMUM_DECREASED', 'MINIMUM_REMOVED',
  'EXCLUSIVE_MAXIMUM_INCREASED', 'EXCLUSIVE_MAXIMUM_REMOVED', 'EXCLUSIVE_MINIMUM_DECREASED',
  'EXCLUSIVE_MINIMUM_REMOVED', 'MULTIPLE_OF_REDUCED', 'MULTIPLE_OF_REMOVED',
  'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED', 'REQUIRED_ATTRIBUTE_REMOVED',
  'DEPENDENCY_ARRAY_NARROWED', 'DEPENDENCY_ARRAY_REMOVED', 'DEPENDENCY_SCHEMA_REMOVED',
  'MAX_PROPERTIES_INCREASED', 'MAX_PROPERTIES_REMOVED', 'MIN_PROPERTIES_DECREASED',
  'MIN_PROPERTIES_REMOVED', 'ADDITIONAL_PROPERTIES_ADDED', 'ADDITIONAL_PROPERTIES_EXTENDED',
  'PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL',
  'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL',
  'OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL',
  'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL',
  'PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'MAX_ITEMS_INCREASED', 'MAX_ITEMS_REMOVED', 'MIN_ITEMS_DECREASED', 'MIN_ITEMS_REMOVED',
  'UNIQUE_ITEMS_REMOVED', 'ADDITIONAL_ITEMS_ADDED', 'ADDITIONAL_ITEMS_EXTENDED',
  'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL', 'ITEM_ADDED_TO_CLOSED_CONTENT_MODEL',
  'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL', 'ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL',
  'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL',
  'ENUM_ARRAY_EXTENDED',
  'COMBINED_TYPE_EXTENDED', 'PRODUCT_TYPE_NARROWED', 'SUM_TYPE_EXTENDED', 'NOT_TYPE_NARROWED',
]);

export function isCompatible(differences: readonly Difference[]): boolean {
  return differences.every((d) => COMPATIBLE_CHANGES.has(d.type));
}

export function pathString(path: readonly string[]): string {
  return '#/' + path.join('/');
}

// The groups Confluent's Difference.error() picks its sentence by.
const KEYWORD_ADDED_OR_REMOVED = new Set<DifferenceType>([
  'MAXIMUM_ADDED', 'MINIMUM_ADDED', 'EXCLUSIVE_MAXIMUM_ADDED', 'EXCLUSIVE_MINIMUM_ADDED',
  'MULTIPLE_OF_ADDED', 'MAX_LENGTH_ADDED', 'MIN_LENGTH_ADDED', 'PATTERN_ADDED',
  'REQUIRED_ATTRIBUTE_ADDED', 'MAX_PROPERTIES_ADDED', 'MIN_PROPERTIES_ADDED',
  'DEPENDENCY_ARRAY_ADDED', 'DEPENDENCY_SCHEMA_ADDED', 'MAX_ITEMS_ADDED', 'MIN_ITEMS_ADDED',
  'UNIQUE_ITEMS_ADDED', 'ADDITIONAL_ITEMS_REMOVED', 'ADDITIONAL_PROPERTIES_REMOVED',
]);
const VALUE_INCREASED = new Set<DifferenceType>([
  'MIN_LENGTH_INCREASED', 'MINIMUM_INCREASED', 'EXCLUSIVE_MINIMUM_INCREASED',
  'MIN_PROPERTIES_INCREASED', 'MULTIPLE_OF_EXPANDED', 'MIN_ITEMS_INCREASED',
]);
const VALUE_DECREASED = new Set<DifferenceType>([
  'MAX_LENGTH_DECREASED', 'MAXIMUM_DECREASED', 'MAX_ITEMS_DECREASED',
  'EXCLUSIVE_MAXIMUM_DECREASED', 'MAX_PROPERTIES_DECREASED',
]);
const TYPE_NARROWED_GROUP = new Set<DifferenceType>([
  'ADDITIONAL_ITEMS_NARROWED', 'ENUM_ARRAY_NARROWED', 'SUM_TYPE_NARROWED',
  'ADDITIONAL_PROPERTIES_NARROWED',
]);
const VALUE_CHANGED = new Set<DifferenceType>([
  'PATTERN_CHANGED', 'MULTIPLE_OF_CHANGED', 'DEPENDENCY_ARRAY_CHANGED',
]);
const TYPE_CHANGED_GROUP = new Set<DifferenceType>([
  'TYPE_CHANGED', 'TYPE_NARROWED', 'COMBINED_TYPE_CHANGED', 'COMBINED_TYPE_SUBSCHEMAS_CHANGED',
  'ENUM_ARRAY_CHANGED',
]);
const TYPE_EXTENDED_GROUP = new Set<DifferenceType>([
  'DEPENDENCY_ARRAY_EXTENDED', 'PRODUCT_TYPE_EXTENDED', 'SUM_TYPE_EXTENDED', 'NOT_TYPE_EXTENDED',
]);
const ADDED_TO_OPEN = new Set<DifferenceType>([
  'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL',
  'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL',
  'OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL',
]);

/** The description of a difference, with Confluent's two `%s` placeholders (first, second). */
function describe(type: DifferenceType, p: string, first: string, second: string): string {
  if (KEYWORD_ADDED_OR_REMOVED.has(type)) {
    return `The keyword at path '${p}' in the ${first} schema is not present in the ${second} schema`;
  }
  if (VALUE_INCREASED.has(type)) {
    return `The value at path '${p}' in the ${first} schema is more than its value in the ${second} schema`;
  }
  if (VALUE_DECREASED.has(type)) {
    return `The value at path '${p}' in the ${first} schema is less than its value in the ${second} schema`;
  }
  if (VALUE_CHANGED.has(type)) {
    return `The value at path '${p}' is different between the ${first} and ${second} schema`;
  }
  if (TYPE_NARROWED_GROUP.has(type)) {
    return `An array or combined type at path '${p}' has fewer elements in the ${first} schema than the ${second} schema`;
  }
  if (TYPE_EXTENDED_GROUP.has(type)) {
    return `An array or combined type at path '${p}' has more elements in the ${first} schema than the ${second} schema`;
  }
  if (TYPE_CHANGED_GROUP.has(type)) {
    return `A type at path '${p}' is different between the ${first} schema and the ${second} schema`;
  }
  if (ADDED_TO_OPEN.has(type)) {
    return `The ${first} schema has an open content model and has a property or item at path '${p}' which is missing in the ${second} schema`;
  }
  switch (type) {
    case 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL':
      return `The ${first} schema has an unopen content model and has a required property at path '${p}' which is missing in the ${second} schema`;
    case 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL':
    case 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL':
      return `The ${first} schema has a closed content model and is missing a property or item present at path '${p}' in the ${second} schema`;
    case 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
    case 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
      return `A property or item is missing in the ${first} schema but present at path '${p}' in the ${second} schema and is not covered by its partially open content model`;
    case 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
    case 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL':
      return `The ${first} schema has a property or item at path '${p}' which is missing in the ${second} schema and is not covered by its partially open content model`;
    default:
      return '';
  }
}

/**
 * Confluent's message for one difference: `Difference.toString()` formatted with (first, second),
 * i.e. ("new", "old") for a BACKWARD check and ("old", "new") for a FORWARD one.
 */
export function formatDifference(d: Difference, first: string, second: string): string {
  return `{errorType:"${d.type}", description:"${describe(d.type, pathString(d.path), first, second)}"}`;
}

// ---------------------------------------------------------------------------------------------
// Java's HashMap/HashSet iteration order (Confluent iterates property names through them)
// ---------------------------------------------------------------------------------------------

function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function tableSizeFor(capacity: number): number {
  let n = 1;
  while (n < capacity) n *= 2;
  return n;
}

/** The bucket layout of a java.util.HashMap with String keys (load factor 0.75). */
class JavaHashOrder {
  private table: Array<Array<{ key: string; hash: number }>>;
  private size = 0;
  private threshold: number;
  private readonly present = new Set<string>();

  constructor(initialCapacity?: number) {
    const capacity = initialCapacity === undefined ? 16 : tableSizeFor(initialCapacity);
    this.table = Array.from({ length: capacity }, () => []);
    this.threshold = Math.floor(capacity * 0.75);
  }

  add(key: string): void {
    if (this.present.has(key)) return;
    this.present.add(key);
    const h = javaStringHash(key);
    const hash = h ^ (h >>> 16);
    this.table[hash & (this.table.length - 1)]!.push({ key, hash });
    if (++this.size > this.threshold) this.resize();
  }

  private resize(): void {
    const oldCapacity = this.table.length;
    const table: Array<Array<{ key: string; hash: number }>> = Array.from({ length: oldCapacity * 2 }, () => []);
    for (let j = 0; j < oldCapacity; j++) {
      for (const e of this.table[j]!) table[(e.hash & oldCapacity) === 0 ? j : j + oldCapacity]!.push(e);
    }
    this.table = table;
    this.threshold = Math.floor(table.length * 0.75);
  }

  keys(): string[] {
    return this.table.flatMap((bucket) => bucket.map((e) => e.key));
  }
}

/** The iteration order of a `new HashMap<>()` filled with `keys` in that order. */
export function javaHashMapOrder(keys: Iterable<string>): string[] {
  const order = new JavaHashOrder();
  for (const k of keys) order.add(k);
  return order.keys();
}

/** The iteration order of `new HashMap<>(source)` where `source` iterates as `keys`. */
function javaCopiedMapOrder(keys: readonly string[]): string[] {
  const order = new JavaHashOrder(keys.length === 0 ? undefined : Math.floor(keys.length / 0.75 + 1));
  for (const k of keys) order.add(k);
  return order.keys();
}

/** The iteration order of `new HashSet<>(first)` followed by `addAll(second)`. */
function javaHashSetUnion(first: readonly string[], second: readonly string[]): string[] {
  const order = new JavaHashOrder(Math.max(Math.floor(first.length / 0.75) + 1, 16));
  for (const k of first) order.add(k);
  for (const k of second) order.add(k);
  return order.keys();
}

// ---------------------------------------------------------------------------------------------
// The comparison (Confluent's SchemaDiff and the per-type *SchemaDiff classes)
// ---------------------------------------------------------------------------------------------

function diff(type: DifferenceType, ...path: string[]): Difference {
  return { type, path };
}

function under(prefix: readonly string[], differences: readonly Difference[]): Difference[] {
  return differences.map((d) => ({ type: d.type, path: [...prefix, ...d.path] }));
}

/** A `$ref` is compared as the schema it refers to (Confluent's SchemaDiff.normalizeSchema). */
function deref(node: SchemaNode): SchemaNode {
  let n = node;
  const seen = new Set<SchemaNode>();
  while (n.kind === 'ref' && !seen.has(n)) {
    seen.add(n);
    n = n.target();
  }
  return n.kind === 'ref' ? { kind: 'empty', hasDefault: false, key: '{}' } : n;
}

function isEmptyClass(node: SchemaNode): boolean {
  return node.kind === 'empty' || node.kind === 'true';
}

/**
 * Compares `original` (the writer's schema) with `update` (the reader's) and lists the
 * differences, compatible or not, in Confluent's order.
 */
export function compareSchemas(original: SchemaNode, update: SchemaNode): Difference[] {
  return new Comparer().compare(original, update);
}

class Comparer {
  /** Results per (original, update) pair, with paths relative to the pair. */
  private readonly memo = new Map<SchemaNode, Map<SchemaNode, Difference[]>>();
  /** Pairs being compared further up the stack: meeting one again is a cycle (compatible). */
  private readonly inProgress = new Map<SchemaNode, Set<SchemaNode>>();

  compare(originalIn: SchemaNode | undefined, updateIn: SchemaNode | undefined): Difference[] {
    if (originalIn === undefined && updateIn === undefined) return [];
    if (originalIn === undefined) return [diff('SCHEMA_ADDED')];
    if (updateIn === undefined) return [diff('SCHEMA_REMOVED')];
    const original = deref(originalIn);
    const update = deref(updateIn);

    if (original.kind !== 'combined' && update.kind === 'combined') {
      if (update.subschemas.length === 1) {
        const sub = this.compare(original, update.subschemas[0]);
        if (isCompatible(sub)) return sub;
      } else if (update.criterion === 'anyOf' || update.criterion === 'oneOf') {
        for (const subschema of update.subschemas) {
          const sub = this.compare(original, subschema);
          if (isCompatible(sub)) return [...sub, diff('SUM_TYPE_EXTENDED')];
        }
      }
    } else if (original.kind === 'combined' && update.kind !== 'combined') {
      if (original.subschemas.length === 1) {
        const sub = this.compare(original.subschemas[0], update);
        if (isCompatible(sub)) return sub;
      } else if (original.criterion === 'allOf') {
        for (const subschema of original.subschemas) {
          const sub = this.compare(subschema, update);
          if (isCompatible(sub)) return [...sub, diff('PRODUCT_TYPE_NARROWED')];
        }
      }
    }

    if (original.kind !== update.kind) {
      // Anything may become the empty schema (or `true`); `false` may become anything.
      return original.kind === 'false' || isEmptyClass(update) ? [] : [diff('TYPE_CHANGED')];
    }
    return this.compareSameKind(original, update);
  }

  private compareSameKind(original: SchemaNode, update: SchemaNode): Difference[] {
    const cached = this.memo.get(original)?.get(update);
    if (cached) return cached;
    let active = this.inProgress.get(original);
    if (active?.has(update)) return [];
    if (!active) this.inProgress.set(original, (active = new Set()));
    active.add(update);
    try {
      const result = this.dispatch(original, update);
      let row = this.memo.get(original);
      if (!row) this.memo.set(original, (row = new Map()));
      row.set(update, result);
      return result;
    } finally {
      active.delete(update);
    }
  }

  private dispatch(original: SchemaNode, update: SchemaNode): Difference[] {
    switch (original.kind) {
      case 'string':
        return compareString(original, update as StringNode);
      case 'number':
        return compareNumber(original, update as NumberNode);
      case 'enum':
        return compareEnum(original, update as EnumNode);
      case 'const':
        return original.value === (update as ConstNode).value ? [] : [diff('ENUM_ARRAY_CHANGED', 'const')];
      case 'combined':
        return this.compareCombined(original, update as CombinedNode);
      case 'not':
        return this.compareNot(original, update as NotNode);
      case 'object':
        return this.compareObject(original, update as ObjectNode);
      case 'array':
        return this.compareArray(original, update as ArrayNode);
      default:
        return [];
    }
  }

  private compareNot(original: NotNode, update: NotNode): Difference[] {
    // The wrapped schemas are compared in reverse: `not A` may become `not B` when A reads B.
    const sub = this.compare(update.not, original.not);
    return [diff(isCompatible(sub) ? 'NOT_TYPE_NARROWED' : 'NOT_TYPE_EXTENDED', 'not')];
  }

  private compareCombined(original: CombinedNode, update: CombinedNode): Difference[] {
    const out: Difference[] = [];
    const type = compareCriteria(original, update);
    if (type !== undefined) out.push(diff(type));
    if (type === 'COMBINED_TYPE_CHANGED') return out;

    const originals = distinct(original.subschemas);
    const updates = distinct(update.subschemas);
    if (originals.length < updates.length) {
      out.push(diff(update.criterion === 'allOf' ? 'PRODUCT_TYPE_EXTENDED' : 'SUM_TYPE_EXTENDED'));
    } else if (originals.length > updates.length) {
      out.push(diff(update.criterion === 'allOf' ? 'PRODUCT_TYPE_NARROWED' : 'SUM_TYPE_NARROWED'));
    }
    // Which original subschema each update subschema can stand for, then a maximum matching.
    const edges = originals.map((o, i) =>
      updates.map((u) => {
        const sub = this.compare(o, u);
        return isCompatible(sub) ? under([`${original.criterion}/${i}`], sub) : undefined;
      }),
    );
    const matching = maximumMatching(edges.map((row) => row.map((e) => e !== undefined)), updates.length);
    matching.forEach((j, i) => {
      if (j !== undefined) out.push(...edges[i]![j]!);
    });
    const matched = matching.filter((j) => j !== undefined).length;
    if (matched < Math.min(originals.length, updates.length)) out.push(diff('COMBINED_TYPE_SUBSCHEMAS_CHANGED'));
    return out;
  }

  private compareObject(original: ObjectNode, update: ObjectNode): Difference[] {
    const out: Difference[] = [];
    const originalKeys = javaHashMapOrder(original.properties.keys());
    const updateKeys = javaHashMapOrder(update.properties.keys());

    // required
    for (const key of originalKeys) {
      const updateSchema = update.properties.get(key);
      if (updateSchema === undefined) continue;
      const wasRequired = original.required.includes(key);
      const isRequired = update.required.includes(key);
      if (wasRequired && !isRequired) {
        out.push(diff('REQUIRED_ATTRIBUTE_REMOVED', 'required', key));
      } else if (!wasRequired && isRequired) {
        out.push(diff(updateSchema.hasDefault ? 'REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED' : 'REQUIRED_ATTRIBUTE_ADDED', 'required', key));
      }
    }

    // properties
    for (const key of javaHashSetUnion(originalKeys, updateKeys)) {
      const path = ['properties', key];
      const originalSchema = original.properties.get(key);
      const updateSchema = update.properties.get(key);
      if (updateSchema === undefined) {
        // Only the update's content model matters: a property can go if the reader is open.
        if (isOpenObject(update)) {
          out.push(diff('PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL', ...path));
          continue;
        }
        const partial = partialObjectSchema(update, key);
        if (partial !== undefined) {
          const sub = this.compare(originalSchema, partial);
          out.push(...under(path, sub));
          out.push(diff(isCompatible(sub)
            ? 'PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
            : 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', ...path));
        } else {
          out.push(diff(originalSchema!.kind === 'false'
            ? 'PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL'
            : 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL', ...path));
        }
      } else if (originalSchema === undefined) {
        // Only the original's content model matters: a property can come if the writer is closed.
        const required = update.required.includes(key);
        if (isOpenObject(original)) {
          if (isEmptyClass(updateSchema)) {
            out.push(diff('PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL', ...path));
          } else if (required) {
            out.push(diff(updateSchema.hasDefault
              ? 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL'
              : 'REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', ...path));
          } else {
            out.push(diff('OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL', ...path));
          }
          continue;
        }
        const partial = partialObjectSchema(original, key);
        if (partial !== undefined) {
          const sub = this.compare(partial, updateSchema);
          out.push(...under(path, sub));
          out.push(diff(isCompatible(sub)
            ? 'PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
            : 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', ...path));
        }
        if (required) {
          out.push(diff(updateSchema.hasDefault
            ? 'REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL'
            : 'REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL', ...path));
        } else {
          out.push(diff('OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL', ...path));
        }
      } else {
        out.push(...under(path, this.compare(originalSchema, updateSchema)));
      }
    }

    // dependencies
    const originalDeps = javaCopiedMapOrder(javaHashMapOrder(original.propertyDependencies.keys()));
    const updateDeps = javaCopiedMapOrder(javaHashMapOrder(update.propertyDependencies.keys()));
    for (const key of javaHashSetUnion(originalDeps, updateDeps)) {
      const before = original.propertyDependencies.get(key);
      const after = update.propertyDependencies.get(key);
      if (after === undefined) {
        out.push(diff('DEPENDENCY_ARRAY_REMOVED', 'dependencies', key));
      } else if (before === undefined) {
        out.push(diff('DEPENDENCY_ARRAY_ADDED', 'dependencies', key));
      } else {
        const beforeSet = new Set(before);
        const afterSet = new Set(after);
        const equal = beforeSet.size === afterSet.size && [...beforeSet].every((k) => afterSet.has(k));
        if (!equal) {
          if ([...beforeSet].every((k) => afterSet.has(k))) {
            out.push(diff('DEPENDENCY_ARRAY_EXTENDED', 'dependencies', key));
          } else if ([...afterSet].every((k) => beforeSet.has(k))) {
            out.push(diff('DEPENDENCY_ARRAY_NARROWED', 'dependencies', key));
          } else {
            out.push(diff('DEPENDENCY_ARRAY_CHANGED', 'dependencies', key));
          }
        }
      }
    }
    const originalSchemaDeps = javaCopiedMapOrder(javaHashMapOrder(original.schemaDependencies.keys()));
    const updateSchemaDeps = javaCopiedMapOrder(javaHashMapOrder(update.schemaDependencies.keys()));
    for (const key of javaHashSetUnion(originalSchemaDeps, updateSchemaDeps)) {
      const before = original.schemaDependencies.get(key);
      const after = update.schemaDependencies.get(key);
      if (after === undefined) {
        out.push(diff('DEPENDENCY_SCHEMA_REMOVED', 'dependencies', key));
      } else if (before === undefined) {
        out.push(diff('DEPENDENCY_SCHEMA_ADDED', 'dependencies', key));
      } else {
        out.push(...under(['dependencies', key], this.compare(before, after)));
      }
    }

    // additionalProperties
    if (original.additionalProperties !== update.additionalProperties) {
      out.push(diff(update.additionalProperties ? 'ADDITIONAL_PROPERTIES_ADDED' : 'ADDITIONAL_PROPERTIES_REMOVED', 'additionalProperties'));
    } else if (original.additionalPropertiesSchema === undefined && update.additionalPropertiesSchema !== undefined) {
      out.push(diff('ADDITIONAL_PROPERTIES_NARROWED', 'additionalProperties'));
    } else if (update.additionalPropertiesSchema === undefined && original.additionalPropertiesSchema !== undefined) {
      out.push(diff('ADDITIONAL_PROPERTIES_EXTENDED', 'additionalProperties'));
    } else {
      out.push(...under(['additionalProperties'], this.compare(original.additionalPropertiesSchema, update.additionalPropertiesSchema)));
    }

    compareLimit(out, 'maxProperties', original.maxProperties, update.maxProperties,
      'MAX_PROPERTIES_ADDED', 'MAX_PROPERTIES_REMOVED', 'MAX_PROPERTIES_INCREASED', 'MAX_PROPERTIES_DECREASED');
    compareLimit(out, 'minProperties', original.minProperties, update.minProperties,
      'MIN_PROPERTIES_ADDED', 'MIN_PROPERTIES_REMOVED', 'MIN_PROPERTIES_INCREASED', 'MIN_PROPERTIES_DECREASED');
    return out;
  }

  private compareArray(original: ArrayNode, update: ArrayNode): Difference[] {
    const out: Difference[] = [];
    out.push(...under(['items'], this.compare(original.allItems, update.allItems)));

    const originalItems = original.tupleItems ?? [];
    const updateItems = update.tupleItems ?? [];
    const common = Math.min(originalItems.length, updateItems.length);
    for (let i = 0; i < common; i++) {
      out.push(...under([`items/${i}`], this.compare(originalItems[i], updateItems[i])));
    }
    for (let i = common; i < originalItems.length; i++) {
      const path = `items/${i}`;
      const originalSchema = originalItems[i]!;
      if (isOpenArray(update)) {
        out.push(diff('ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL', path));
      } else if (update.additionalItemsSchema !== undefined) {
        const sub = this.compare(originalSchema, update.additionalItemsSchema);
        out.push(...under([path], sub));
        out.push(diff(isCompatible(sub)
          ? 'ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
          : 'ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', path));
      } else {
        out.push(diff(originalSchema.kind === 'false'
          ? 'ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL'
          : 'ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL', path));
      }
    }
    for (let i = common; i < updateItems.length; i++) {
      const path = `items/${i}`;
      const updateSchema = updateItems[i]!;
      if (isOpenArray(original)) {
        out.push(diff(isEmptyClass(updateSchema) ? 'ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL' : 'ITEM_ADDED_TO_OPEN_CONTENT_MODEL', path));
      } else if (original.additionalItemsSchema !== undefined) {
        const sub = this.compare(original.additionalItemsSchema, updateSchema);
        out.push(...under([path], sub));
        out.push(diff(isCompatible(sub)
          ? 'ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL'
          : 'ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL', path));
      } else {
        out.push(diff('ITEM_ADDED_TO_CLOSED_CONTENT_MODEL', path));
      }
    }

    if (original.additionalItems !== update.additionalItems) {
      out.push(diff(original.additionalItems ? 'ADDITIONAL_ITEMS_REMOVED' : 'ADDITIONAL_ITEMS_ADDED', 'additionalItems'));
    } else if (original.additionalItemsSchema === undefined && update.additionalItemsSchema !== undefined) {
      out.push(diff('ADDITIONAL_ITEMS_NARROWED', 'additionalItems'));
    } else if (update.additionalItemsSchema === undefined && original.additionalItemsSchema !== undefined) {
      out.push(diff('ADDITIONAL_ITEMS_EXTENDED', 'additionalItems'));
    } else {
      out.push(...under(['additionalItems'], this.compare(original.additionalItemsSchema, update.additionalItemsSchema)));
    }

    compareLimit(out, 'maxItems', original.maxItems, update.maxItems,
      'MAX_ITEMS_ADDED', 'MAX_ITEMS_REMOVED', 'MAX_ITEMS_INCREASED', 'MAX_ITEMS_DECREASED');
    compareLimit(out, 'minItems', original.minItems, update.minItems,
      'MIN_ITEMS_ADDED', 'MIN_ITEMS_REMOVED', 'MIN_ITEMS_INCREASED', 'MIN_ITEMS_DECREASED');
    if (original.uniqueItems !== update.uniqueItems) {
      out.push(diff(original.uniqueItems ? 'UNIQUE_ITEMS_REMOVED' : 'UNIQUE_ITEMS_ADDED', 'uniqueItems'));
    }
    return out;
  }
}

/** Added / removed / increased / decreased, for a keyword holding a number (or absent). */
function compareLimit(
  out: Difference[], keyword: string, before: number | undefined, after: number | undefined,
  added: DifferenceType, removed: DifferenceType, increased: DifferenceType, decreased: DifferenceType,
): void {
  if (before === after) return;
  if (before === undefined) out.push(diff(added, keyword));
  else if (after === undefined) out.push(diff(removed, keyword));
  else if (before < after) out.push(diff(increased, keyword));
  else if (before > after) out.push(diff(decreased, keyword));
}

function compareString(original: StringNode, update: StringNode): Difference[] {
  const out: Difference[] = [];
  compareLimit(out, 'maxLength', original.maxLength, update.maxLength,
    'MAX_LENGTH_ADDED', 'MAX_LENGTH_REMOVED', 'MAX_LENGTH_INCREASED', 'MAX_LENGTH_DECREASED');
  compareLimit(out, 'minLength', original.minLength, update.minLength,
    'MIN_LENGTH_ADDED', 'MIN_LENGTH_REMOVED', 'MIN_LENGTH_INCREASED', 'MIN_LENGTH_DECREASED');
  if (original.pattern === undefined && update.pattern !== undefined) out.push(diff('PATTERN_ADDED', 'pattern'));
  else if (original.pattern !== undefined && update.pattern === undefined) out.push(diff('PATTERN_REMOVED', 'pattern'));
  else if (original.pattern !== update.pattern) out.push(diff('PATTERN_CHANGED', 'pattern'));
  return out;
}

/** Java's `Number.intValue()` of a JSON number (truncation toward zero, then 32 bits). */
function javaIntValue(n: JavaNumber): number {
  return Math.trunc(n.value) | 0;
}

function compareNumber(original: NumberNode, update: NumberNode): Difference[] {
  const out: Difference[] = [];
  compareLimit(out, 'maximum', original.maximum, update.maximum,
    'MAXIMUM_ADDED', 'MAXIMUM_REMOVED', 'MAXIMUM_INCREASED', 'MAXIMUM_DECREASED');
  compareLimit(out, 'minimum', original.minimum, update.minimum,
    'MINIMUM_ADDED', 'MINIMUM_REMOVED', 'MINIMUM_INCREASED', 'MINIMUM_DECREASED');

  const beforeMax = original.exclusiveMaximum;
  const afterMax = update.exclusiveMaximum;
  if (beforeMax !== afterMax) {
    if (beforeMax === undefined) out.push(diff('EXCLUSIVE_MAXIMUM_ADDED', 'exclusiveMaximum'));
    else if (afterMax === undefined) out.push(diff('EXCLUSIVE_MAXIMUM_REMOVED', 'exclusiveMaximum'));
    else if (beforeMax < afterMax) out.push(diff('EXCLUSIVE_MAXIMUM_INCREASED', 'exclusiveMaximum'));
    // Confluent measures the decrease against the new `maximum` (and fails without one).
    else if (beforeMax > (update.maximum ?? afterMax)) out.push(diff('EXCLUSIVE_MAXIMUM_DECREASED', 'exclusiveMaximum'));
  }
  compareLimit(out, 'exclusiveMinimum', original.exclusiveMinimum, update.exclusiveMinimum,
    'EXCLUSIVE_MINIMUM_ADDED', 'EXCLUSIVE_MINIMUM_REMOVED', 'EXCLUSIVE_MINIMUM_INCREASED', 'EXCLUSIVE_MINIMUM_DECREASED');

  const before = original.multipleOf;
  const after = update.multipleOf;
  if (before?.text !== after?.text) {
    if (before === undefined) out.push(diff('MULTIPLE_OF_ADDED', 'multipleOf'));
    else if (after === undefined) out.push(diff('MULTIPLE_OF_REMOVED', 'multipleOf'));
    else out.push(diff(multipleOfChange(before, after), 'multipleOf'));
  }

  if (original.requiresInteger !== update.requiresInteger) {
    out.push(diff(original.requiresInteger ? 'TYPE_EXTENDED' : 'TYPE_NARROWED'));
  }
  return out;
}

function multipleOfChange(before: JavaNumber, after: JavaNumber): DifferenceType {
  const b = javaIntValue(before);
  const a = javaIntValue(after);
  if (b !== 0) {
    // Confluent divides the integer parts.
    if (a % b === 0) return 'MULTIPLE_OF_EXPANDED';
    if (a !== 0 && b % a === 0) return 'MULTIPLE_OF_REDUCED';
    if (a !== 0) return 'MULTIPLE_OF_CHANGED';
  }
  // A fractional multipleOf makes Confluent divide by zero; decide with the exact ratio instead.
  const isMultiple = (x: number, y: number): boolean => {
    const q = x / y;
    return Math.abs(q - Math.round(q)) < 1e-9;
  };
  if (isMultiple(after.value, before.value)) return 'MULTIPLE_OF_EXPANDED';
  if (isMultiple(before.value, after.value)) return 'MULTIPLE_OF_REDUCED';
  return 'MULTIPLE_OF_CHANGED';
}

function compareEnum(original: EnumNode, update: EnumNode): Difference[] {
  const before = new Set(original.values);
  const after = new Set(update.values);
  const beforeInAfter = [...before].every((v) => after.has(v));
  const afterInBefore = [...after].every((v) => before.has(v));
  if (beforeInAfter && afterInBefore) return [];
  if (beforeInAfter) return [diff('ENUM_ARRAY_EXTENDED', 'enum')];
  if (afterInBefore) return [diff('ENUM_ARRAY_NARROWED', 'enum')];
  return [diff('ENUM_ARRAY_CHANGED', 'enum')];
}

function compareCriteria(original: CombinedNode, update: CombinedNode): DifferenceType | undefined {
  if (original.criterion === update.criterion) return undefined;
  if (update.criterion === 'anyOf') return 'COMBINED_TYPE_EXTENDED'; // allOf/oneOf to anyOf
  if (update.criterion === 'oneOf') {
    return original.subschemas.length === 1 ? 'COMBINED_TYPE_EXTENDED' : 'COMBINED_TYPE_CHANGED';
  }
  return original.subschemas.length === 1 && update.subschemas.length === 1
    ? 'COMBINED_TYPE_EXTENDED'
    : 'COMBINED_TYPE_CHANGED';
}

function distinct(nodes: readonly SchemaNode[]): SchemaNode[] {
  const seen = new Set<string>();
  return nodes.filter((n) => {
    if (seen.has(n.key)) return false;
    seen.add(n.key);
    return true;
  });
}

/**
 * A maximum-cardinality matching of a bipartite graph (augmenting paths): for each left vertex,
 * the right vertex it is matched with, or undefined.
 */
function maximumMatching(adjacent: boolean[][], rightCount: number): Array<number | undefined> {
  const matchOfRight: Array<number | undefined> = new Array(rightCount).fill(undefined);
  const tryAugment = (left: number, visited: boolean[]): boolean => {
    for (let right = 0; right < rightCount; right++) {
      if (!adjacent[left]![right] || visited[right]) continue;
      visited[right] = true;
      const other = matchOfRight[right];
      if (other === undefined || tryAugment(other, visited)) {
        matchOfRight[right] = left;
        return true;
      }
    }
    return false;
  };
  for (let left = 0; left < adjacent.length; left++) tryAugment(left, new Array(rightCount).fill(false));
  const matchOfLeft: Array<number | undefined> = new Array(adjacent.length).fill(undefined);
  matchOfRight.forEach((left, right) => {
    if (left !== undefined) matchOfLeft[left] = right;
  });
  return matchOfLeft;
}

/** Additional properties allowed, with no schema for them and no pattern properties. */
function isOpenObject(node: ObjectNode): boolean {
  return node.patternProperties.length === 0 && node.additionalPropertiesSchema === undefined && node.additionalProperties;
}

/** The schema a partially open content model gives a property it does not declare. */
function partialObjectSchema(node: ObjectNode, key: string): SchemaNode | undefined {
  for (const [pattern, schema] of node.patternProperties) {
    if (regexFind(pattern, key)) return schema;
  }
  return node.additionalPropertiesSchema;
}

function regexFind(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(text);
  } catch {
    try {
      return new RegExp(pattern).test(text);
    } catch {
      return false;
    }
  }
}

function isOpenArray(node: ArrayNode): boolean {
  return node.additionalItems && node.additionalItemsSchema === undefined;
}
