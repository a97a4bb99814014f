/**
 * The compatibility rules of the JSON Schema provider (json-schema.ts): a TypeScript rendering of
 * Confluent Schema Registry's `io.confluent.kafka.schemaregistry.json.diff` package (SchemaDiff,
 * ObjectSchemaDiff, ArraySchemaDiff, StringSchemaDiff, NumberSchemaDiff, EnumSchemaDiff,
 * ConstSchemaDiff, NotSchemaDiff, CombinedSchemaDiff, Difference, Context).
 *
 * `compareSchemas(original, update)` walks two schema models (`SchemaNode`, built by json-schema-model.ts
 * the way the everit loader Confluent uses builds its `Schema` objects) and lists every
 * `Difference` (a type and a JSON path such as `#/properties/b`). A difference is compatible when
 * its type is in `COMPATIBLE_CHANGES`, the set Confluent's SchemaDiff declares: the change is safe
 * when `update` reads data written with `original`. `formatDifference` renders one incompatible
 * difference as Confluent's message, `{errorType:"…", description:"…"}`, with the two `%s` of the
 * description filled by the registry's caller ("new"/"old" for BACKWARD, "old"/"new" for FORWARD,
 * as Confluent's SchemaValidatorBuilder does).
 *
 * Mirrored from Confluent's source: the order of the checks and of the messages (including the
 * iteration order of Java's HashMap/HashSet over property and dependency names, simulated in
 * json-schema-java-order.ts), the singleton/sum/product special cases of combined schemas, the
 * maximum-cardinality matching of subschemas, `not` compared in reverse, `$ref` followed to its
 * target, cycles in recursive schemas treated as compatible, and two quirks kept on purpose: a
 * `multipleOf` is compared through its integer part, and a decreased `exclusiveMaximum` is
 * measured against the new `maximum` (where Confluent would fail with an exception, we compare
 * exactly instead).
 *
 * Not covered: the metadata rules (reserved properties in `confluent:reserved`), the draft
 * 2019-09/2020-12 keywords unevaluatedProperties/unevaluatedItems/minContains/maxContains, and the
 * changes of id, title, description and default (all compatible, so no message is lost by omitting
 * them). Adding a property to an open content model is reported with the 8.x split
 * (REQUIRED_/REQUIRED_WITH_DEFAULT_/OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL), not the 7.x
 * PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL.
 *
 * This module holds the entry point and the comparer (`$ref` followed, combined against
 * non-combined schemas, memo and cycles, the dispatch by node kind); the rest is split by concern:
 * json-schema-nodes.ts (the schema model), json-schema-differences.ts (difference types and
 * messages), json-schema-java-order.ts (Java's HashMap order), and the rules per keyword family in
 * json-schema-diff-objects.ts, json-schema-diff-values.ts (arrays, strings, numbers, enums) and
 * json-schema-diff-combined.ts (allOf/anyOf/oneOf, not). The names they export that callers use
 * are re-exported here.
 */
import { compareCombined, compareNot } from './json-schema-diff-combined.js';
import { compareObject } from './json-schema-diff-objects.js';
import { compareArray, compareEnum, compareNumber, compareString } from './json-schema-diff-values.js';
import { type Compare, type Difference, diff, isCompatible } from './json-schema-differences.js';
import {
  type ArrayNode, type CombinedNode, type ConstNode, type EnumNode, type NotNode, type NumberNode, type ObjectNode,
  type SchemaNode, type StringNode, isEmptyClass,
} from './json-schema-nodes.js';

export type {
  ArrayNode, CombinedNode, ConstNode, Criterion, EnumNode, JavaNumber, NotNode, NumberNode, ObjectNode, RefNode,
  SchemaNode, SimpleNode, StringNode,
} from './json-schema-nodes.js';
export type { Difference, DifferenceType } from './json-schema-differences.js';
export { COMPATIBLE_CHANGES, formatDifference, isCompatible, pathString } from './json-schema-differences.js';
export { javaHashMapOrder } from './json-schema-java-order.js';

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

/**
 * Compares `original` (the writer's schema) with `update` (the reader's) and lists the
 * differences, compatible or not, in Confluent's order.
 */
export function compareSchemas(original: SchemaNode, update: SchemaNode): Difference[] {
  return new Comparer().compare(original, update);
}

class Comparer {
  /** `compare`, for the per-keyword rules to recurse with. */
  private readonly recurse: Compare = (original, update) => this.compare(original, update);
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
        return compareCombined(this.recurse, original, update as CombinedNode);
      case 'not':
        return compareNot(this.recurse, original, update as NotNode);
      case 'object':
        return compareObject(this.recurse, original, update as ObjectNode);
      case 'array':
        return compareArray(this.recurse, original, update as ArrayNode);
      default:
        return [];
    }
  }
}
