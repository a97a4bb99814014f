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
 *
 * This module holds the provider (parse, normalize, checkCompatibility); the JSON reader and
 * canonical writer are in json-schema-text.ts, drafts/URIs/meta-schema validation in
 * json-schema-drafts.ts, the schema model loader in json-schema-model.ts, and the compatibility
 * rules in json-schema-diff.ts (and the json-schema-diff-*.ts files it uses).
 */
import {
  type CompatibilityDirection,
  InvalidSchemaError,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaProvider,
} from './schema-type.js';
import { COMPATIBLE_CHANGES, compareSchemas, formatDifference } from './json-schema-diff.js';
import { type Draft, draftOf, message, validateAgainstMetaSchema } from './json-schema-drafts.js';
import { ModelBuilder, type ReferenceDocument } from './json-schema-model.js';
import type { SchemaNode } from './json-schema-nodes.js';
import { type JsonValue, parseOrdered, sortTree, writeJava } from './json-schema-text.js';

export { JsonNumber, type JsonObject, type JsonValue, javaNumberText } from './json-schema-text.js';

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
