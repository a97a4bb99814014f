/**
 * The PROTOBUF schema type of the Schema Registry, mirroring Confluent's ProtobufSchema,
 * ProtobufSchemaProvider and ProtobufSchemaUtils (schema-registry's protobuf-provider):
 *
 * - parse: the text is a .proto file (proto2 or proto3). A small parser over protobufjs's tokenizer
 *   builds the element tree Confluent gets from Wire's ProtoParser (types as written, option kinds,
 *   reserved ranges...), which the printer and the diff work on; then protobufjs checks the file for
 *   real (duplicate names and numbers, reserved numbers used, every type name resolved). The
 *   imports are the references (name = import path, schema = that file's text, recursively); the
 *   files Confluent bundles (google/protobuf/*.proto, google/type/*.proto, confluent/meta.proto,
 *   confluent/type/decimal.proto) resolve without a reference. Stricter than Confluent, which only
 *   parses: a schema protoc would reject (a number both reserved and used, a type that resolves
 *   nowhere) is invalid here. A base64 serialized FileDescriptorProto is not accepted (Confluent
 *   accepts one).
 * - canonical: ProtobufSchemaUtils.toString(ProtoFileElement): syntax, package, imports, options,
 *   then the messages and after them the enums, extends, services; 2-space indentation, `\n`,
 *   comments dropped.
 * - normalize(): ProtobufSchemaUtils.toNormalizedString: imports sorted, options sorted (custom
 *   ones by their resolved name, merged), fields and enum constants by number, oneofs by their
 *   first number, reserved ranges split and sorted, type names fully qualified (`.pkg.Msg`),
 *   numbers in options reformatted, `syntax = "proto2"` left out.
 * - checkCompatibility: Confluent's SchemaDiff, in protobuf-diff.ts.
 *
 * This module holds the provider (parse, normalize, checkCompatibility); the .proto parser is in
 * protobuf-parser.ts, the canonical/normalized printer in protobuf-printer.ts, the element types,
 * type table and compatibility rules in protobuf-diff.ts, and the FileDescriptorProto reader in
 * protobuf-descriptor.ts.
 */
import protobuf from 'protobufjs';
import {
  InvalidSchemaError,
  type CompatibilityDirection,
  type ParsedSchema,
  type ResolvedReference,
  type SchemaProvider,
} from './schema-type.js';
import { descriptorText } from './protobuf-descriptor.js';
import {
  COMPATIBLE_CHANGES, KNOWN_NAMES, TypeTable, formatDifference, knownFile, schemaDifferences,
  type Dependency, type ProtoFileEl,
} from './protobuf-diff.js';
import { parseElements } from './protobuf-parser.js';
import { fileText } from './protobuf-printer.js';

// ---------------------------------------------------------------------------------------------
// Files Confluent resolves without a reference, parsed once

const knownCache = new Map<string, { text: string; file: ProtoFileEl }>();

function known(name: string): { text: string; file: ProtoFileEl } | undefined {
  let k = knownCache.get(name);
  if (!k) {
    const text = knownFile(name);
    if (text === undefined) return undefined;
    k = { text, file: parseElements(text) };
    knownCache.set(name, k);
  }
  return k;
}

// ---------------------------------------------------------------------------------------------
// The provider

class ProtobufSchema implements ParsedSchema {
  readonly schemaType = 'PROTOBUF' as const;
  private table: TypeTable | null = null;

  constructor(
    readonly file: ProtoFileEl,
    readonly canonical: string,
    readonly references: readonly ResolvedReference[],
    readonly dependencies: ReadonlyMap<string, Dependency>,
  ) {}

  types(): TypeTable {
    return (this.table ??= new TypeTable(this.file, this.dependencies));
  }

  normalize(): ParsedSchema {
    const text = fileText({ normalize: true, table: this.types(), scope: [] }, this.file);
    const byName = new Map(this.references.map((r) => [r.name, r]));
    const references = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let file = this.file;
    try {
      file = parseElements(text);
    } catch {
      // Keep the elements as parsed; the normalized text still identifies the schema.
    }
    return new ProtobufSchema(file, text, references, this.dependencies);
  }
}

function fail(detail: string): never {
  throw new InvalidSchemaError(`Could not parse Protobuf - ${detail}`);
}

function flatten(references: readonly ResolvedReference[], into = new Map<string, string>()): Map<string, string> {
  for (const r of references) {
    if (!into.has(r.name)) into.set(r.name, r.schema);
    flatten(r.references, into);
  }
  return into;
}

const PARSE_OPTIONS = { keepCase: true };

/** The elements of `text`; when it is not valid, protobufjs's account of why if it has one. */
function elementsOf(text: string, where: string): ProtoFileEl {
  try {
    return parseElements(text);
  } catch (e) {
    try {
      protobuf.parse(text, PARSE_OPTIONS);
    } catch (pe) {
      fail(`${where}${(pe as Error).message}`);
    }
    return fail(`${where}${(e as Error).message}`);
  }
}

/**
 * Adds a file to protobufjs's root, which checks names, numbers and types. It gets the file
 * reprinted without custom options: protobufjs checks none of them, and Wire (so Confluent) takes
 * option values protobufjs does not, such as a list outside an aggregate.
 */
function addTo(root: protobuf.Root, file: ProtoFileEl, text: string, where: string): string {
  const checked = fileText({ normalize: false, table: null, scope: [], strip: true }, file);
  try {
    protobuf.parse(checked, root, PARSE_OPTIONS);
    return checked;
  } catch (e) {
    let message = (e as Error).message;
    try {
      protobuf.parse(text, PARSE_OPTIONS); // its line numbers are the user's
    } catch (pe) {
      message = (pe as Error).message;
    }
    fail(`${where}${message}`);
  }
}

function parseSchema(schema: string, references: readonly ResolvedReference[]): ProtobufSchema {
  const texts = flatten(references);
  const root = new protobuf.Root();
  const file = elementsOf(schema, '');
  if (file.syntax === null && file.edition === null && file.packageName === null && file.types.length === 0 &&
    file.services.length === 0 && file.extends.length === 0 && file.imports.length === 0 && file.options.length === 0) {
    fail('the schema declares nothing');
  }
  const checked = [addTo(root, file, schema, '')];
  const dependencies = new Map<string, Dependency>();
  const missing: string[] = [];
  const queue = [...file.imports, ...file.publicImports];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (dependencies.has(name) || missing.includes(name)) continue;
    const text = texts.get(name) ?? known(name)?.text;
    if (text === undefined) {
      missing.push(name);
      continue;
    }
    const where = `in the reference "${name}": `;
    const dep = texts.has(name) ? elementsOf(text, where) : (known(name) as { file: ProtoFileEl }).file;
    checked.push(addTo(root, dep, text, where));
    dependencies.set(name, { file: dep, origin: `${name}\n${text}` });
    queue.push(...dep.imports, ...dep.publicImports);
  }
  // References nobody imports, and the files Confluent bundles, count among the known types too.
  for (const [name, text] of texts) {
    if (!dependencies.has(name)) dependencies.set(name, { file: elementsOf(text, `in the reference "${name}": `), origin: `${name}\n${text}` });
  }
  const bundled = KNOWN_NAMES.filter((name) => !dependencies.has(name) && known(name));
  for (const name of bundled) {
    const k = known(name) as { text: string; file: ProtoFileEl };
    dependencies.set(name, { file: k.file, origin: `${name}\n${k.text}` });
  }
  try {
    root.resolveAll();
  } catch (e) {
    // Confluent resolves the bundled files' types even where they are not imported.
    try {
      const all = new protobuf.Root();
      for (const text of [...checked, ...bundled.map((name) => (known(name) as { text: string }).text)]) {
        protobuf.parse(text, all, PARSE_OPTIONS);
      }
      all.resolveAll();
    } catch {
      const hint = missing.length ? ` (no reference for ${missing.map((m) => `"${m}"`).join(', ')})` : '';
      fail(`${(e as Error).message}${hint}`);
    }
  }
  return new ProtobufSchema(file, fileText({ normalize: false, table: null, scope: [] }, file), references, dependencies);
}

function checkCompatibility(direction: CompatibilityDirection, proposed: ParsedSchema, existing: ParsedSchema): string[] {
  if (!(proposed instanceof ProtobufSchema) || !(existing instanceof ProtobufSchema)) {
    return ['Incompatible because of different schema type'];
  }
  const [original, update, reader, writer] = direction === 'BACKWARD'
    ? [existing, proposed, 'new', 'old'] : [proposed, existing, 'old', 'new'];
  return schemaDifferences(original.file, original.types(), update.file, update.types())
    .filter((d) => !COMPATIBLE_CHANGES.has(d.type))
    .map((d) => formatDifference(d, reader, writer));
}

/** Schemas and references sent as base64 FileDescriptorProtos are read as the .proto text they describe. */
function asText(references: readonly ResolvedReference[]): ResolvedReference[] {
  return references.map((r) => ({ name: r.name, schema: descriptorText(r.schema) ?? r.schema, references: asText(r.references) }));
}

export const protobufProvider: SchemaProvider = {
  schemaType: 'PROTOBUF',
  parse: (schema, references) => parseSchema(descriptorText(schema) ?? schema, asText(references)),
  checkCompatibility,
};
