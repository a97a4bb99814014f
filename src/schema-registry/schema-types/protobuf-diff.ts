/**
 * The Protobuf side of the Schema Registry below the provider (protobuf.ts): the element tree of a
 * .proto file (Wire's ProtoFileElement and friends, which Confluent works on), the files Confluent
 * resolves without a reference (its KNOWN_DEPENDENCIES), the names a schema and its dependencies
 * declare (TypeTable: Confluent's Context.collectTypeInfo and Context.resolve, the enclosing scopes
 * tried innermost first), and compatibility as Confluent judges it (the package
 * io.confluent.kafka.schemaregistry.protobuf.diff: SchemaDiff, MessageSchemaDiff, FieldSchemaDiff,
 * OneOfDiff, EnumSchemaDiff, Difference).
 *
 * The walk compares an "original" and an "update" file element by element and lists the
 * differences, each a type and a path such as `#/TestMessage/2`; those outside Confluent's
 * COMPATIBLE_CHANGES are the incompatibilities, reported in Confluent's text:
 * `{errorType:"MESSAGE_REMOVED", description:"The new schema is missing a MESSAGE type at path '#/Foo' in the old schema"}`.
 * BACKWARD compares original = existing, update = proposed, reader "new", writer "old"; FORWARD
 * compares original = proposed, update = existing, reader "old", writer "new" (Confluent's
 * canReadStrategy / canBeReadStrategy around ProtobufSchema.isBackwardCompatible).
 *
 * Confluent walks Java HashMaps and HashSets, so its messages come in those collections' iteration
 * order; JavaHashMap reproduces that order (bucket of the spread hash in the table size the map has
 * grown to, then insertion order), so the messages here come in Confluent's order.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

// ---------------------------------------------------------------------------------------------
// The element tree (Wire's ProtoFileElement and friends)

/** An option value: a string, a primitive (as written), a map, a list, or a nested option. */
export type OptValue =
  | { t: 'str'; v: string }
  | { t: 'prim'; k: 'BOOLEAN' | 'ENUM' | 'NUMBER'; v: string }
  | { t: 'map'; m: Map<string, OptValue> }
  | { t: 'list'; l: OptValue[] }
  | { t: 'opt'; o: OptionEl };
export interface OptionEl { name: string; paren: boolean; value: OptValue }
export type Label = 'optional' | 'required' | 'repeated' | null;
export interface FieldEl {
  label: Label; type: string; name: string; tag: number;
  defaultValue: string | null; jsonName: string | null; options: OptionEl[];
}
/** A reserved or extensions entry: a number, a name, or an inclusive range. */
export type RangeValue = number | string | [number, number];
export interface GroupEl { label: Label; name: string; tag: number; fields: FieldEl[] }
export interface OneOfEl { name: string; options: OptionEl[]; fields: FieldEl[]; groups: GroupEl[] }
export interface ExtendEl { name: string; fields: FieldEl[] }
export interface MessageEl {
  kind: 'message'; name: string; options: OptionEl[]; reserveds: RangeValue[][]; fields: FieldEl[];
  oneofs: OneOfEl[]; groups: GroupEl[]; extensions: RangeValue[][]; extends: ExtendEl[]; nested: TypeEl[];
}
export interface EnumEl {
  kind: 'enum'; name: string; options: OptionEl[]; reserveds: RangeValue[][];
  constants: { name: string; tag: number; options: OptionEl[] }[];
}
export type TypeEl = MessageEl | EnumEl;
export interface RpcEl {
  name: string; requestType: string; responseType: string;
  requestStreaming: boolean; responseStreaming: boolean; options: OptionEl[];
}
export interface ServiceEl { name: string; options: OptionEl[]; rpcs: RpcEl[] }
export interface ProtoFileEl {
  syntax: string | null; edition: string | null; packageName: string | null;
  imports: string[]; publicImports: string[]; options: OptionEl[];
  types: TypeEl[]; extends: ExtendEl[]; services: ServiceEl[];
}

// ---------------------------------------------------------------------------------------------
// Java HashMap iteration order

function javaHash(key: string | number): number {
  if (typeof key === 'number') return key | 0;
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(31, h) + key.charCodeAt(i)) | 0;
  return h;
}

function tableSizeFor(n: number): number {
  let cap = 1;
  while (cap < n && cap < 1 << 30) cap *= 2;
  return cap;
}

/** A java.util.HashMap as far as its iteration order goes (treeified bins aside). */
export class JavaHashMap<K extends string | number, V> {
  private cap: number;
  private seq = 0;
  private readonly entries = new Map<K, { value: V; seq: number }>();

  constructor(initialCapacity?: number) {
    this.cap = initialCapacity === undefined ? 16 : tableSizeFor(initialCapacity);
  }

  /** `new HashSet<>(keys)`: sized from the collection, then filled in its order. */
  static setOf<K extends string | number>(keys: readonly K[]): JavaHashMap<K, true> {
    const set = new JavaHashMap<K, true>(Math.max(Math.floor(keys.length / 0.75) + 1, 16));
    for (const k of keys) set.put(k, true);
    return set;
  }

  private bucket(key: K): number {
    const h = javaHash(key);
    return (h ^ (h >>> 16)) & (this.cap - 1);
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    return this.entries.get(key)?.value;
  }

  put(key: K, value: V): void {
    const existing = this.entries.get(key);
    if (existing) {
      existing.value = value;
      return;
    }
    this.entries.set(key, { value, seq: this.seq++ });
    if (this.cap < 64) {
      // A ninth entry in one bin makes a small table grow instead of treeifying the bin.
      const b = this.bucket(key);
      let inBin = 0;
      for (const k of this.entries.keys()) if (this.bucket(k) === b) inBin++;
      if (inBin > 8) this.cap *= 2;
    }
    if (this.entries.size > Math.floor(this.cap * 0.75)) this.cap *= 2;
  }

  remove(key: K): V | undefined {
    const e = this.entries.get(key);
    this.entries.delete(key);
    return e?.value;
  }

  keys(): K[] {
    return [...this.entries.entries()]
      .map(([k, e]) => ({ k, b: this.bucket(k), seq: e.seq }))
      .sort((x, y) => x.b - y.b || x.seq - y.seq)
      .map((x) => x.k);
  }

  addAll(keys: readonly K[], value: V): void {
    for (const k of keys) this.put(k, value);
  }
}

// ---------------------------------------------------------------------------------------------
// Files Confluent resolves without a reference (its KNOWN_DEPENDENCIES)

/**
 * The bodies of the small bundled files, written out here (their messages, enums and field numbers
 * as Google and Confluent publish them, comments and options left out); api, descriptor,
 * source_context and type are read from protobufjs's own copies.
 */
const KNOWN: Record<string, string> = {
  'google/protobuf/any.proto': 'message Any { string type_url = 1; bytes value = 2; }',
  'google/protobuf/duration.proto': 'message Duration { int64 seconds = 1; int32 nanos = 2; }',
  'google/protobuf/empty.proto': 'message Empty {}',
  'google/protobuf/field_mask.proto': 'message FieldMask { repeated string paths = 1; }',
  'google/protobuf/struct.proto': 'message Struct { map<string, Value> fields = 1; } message Value { oneof kind { ' +
    'NullValue null_value = 1; double number_value = 2; string string_value = 3; bool bool_value = 4; ' +
    'Struct struct_value = 5; ListValue list_value = 6; } } enum NullValue { NULL_VALUE = 0; } ' +
    'message ListValue { repeated Value values = 1; }',
  'google/protobuf/timestamp.proto': 'message Timestamp { int64 seconds = 1; int32 nanos = 2; }',
  'google/protobuf/wrappers.proto': ['Double', 'Float', 'Int64', 'UInt64', 'Int32', 'UInt32', 'Bool', 'String', 'Bytes']
    .map((t) => `message ${t}Value { ${t.toLowerCase()} value = 1; }`).join(' '),
  'google/type/calendar_period.proto': 'enum CalendarPeriod { CALENDAR_PERIOD_UNSPECIFIED = 0; DAY = 1; WEEK = 2; ' +
    'FORTNIGHT = 3; MONTH = 4; QUARTER = 5; HALF = 6; YEAR = 7; }',
  'google/type/color.proto': 'import "google/protobuf/wrappers.proto"; message Color { float red = 1; float green = 2; ' +
    'float blue = 3; google.protobuf.FloatValue alpha = 4; }',
  'google/type/date.proto': 'message Date { int32 year = 1; int32 month = 2; int32 day = 3; }',
  'google/type/datetime.proto': 'import "google/protobuf/duration.proto"; message DateTime { int32 year = 1; ' +
    'int32 month = 2; int32 day = 3; int32 hours = 4; int32 minutes = 5; int32 seconds = 6; int32 nanos = 7; ' +
    'oneof time_offset { google.protobuf.Duration utc_offset = 8; TimeZone time_zone = 9; } } ' +
    'message TimeZone { string id = 1; string version = 2; }',
  'google/type/dayofweek.proto': 'enum DayOfWeek { DAY_OF_WEEK_UNSPECIFIED = 0; MONDAY = 1; TUESDAY = 2; ' +
    'WEDNESDAY = 3; THURSDAY = 4; FRIDAY = 5; SATURDAY = 6; SUNDAY = 7; }',
  'google/type/decimal.proto': 'message Decimal { string value = 1; }',
  'google/type/expr.proto': 'message Expr { string expression = 1; string title = 2; string description = 3; ' +
    'string location = 4; }',
  'google/type/fraction.proto': 'message Fraction { int64 numerator = 1; int64 denominator = 2; }',
  'google/type/interval.proto': 'import "google/protobuf/timestamp.proto"; message Interval { ' +
    'google.protobuf.Timestamp start_time = 1; google.protobuf.Timestamp end_time = 2; }',
  'google/type/latlng.proto': 'message LatLng { double latitude = 1; double longitude = 2; }',
  'google/type/money.proto': 'message Money { string currency_code = 1; int64 units = 2; int32 nanos = 3; }',
  'google/type/month.proto': `enum Month { MONTH_UNSPECIFIED = 0; ${['JANUARY', 'FEBRUARY', 'MARCH', 'APRIL', 'MAY',
    'JUNE', 'JULY', 'AUGUST', 'SEPTEMBER', 'OCTOBER', 'NOVEMBER', 'DECEMBER'].map((m, i) => `${m} = ${i + 1};`).join(' ')} }`,
  'google/type/phone_number.proto': 'message PhoneNumber { oneof kind { string e164_number = 1; ' +
    'ShortCode short_code = 2; } string extension = 3; message ShortCode { string region_code = 1; string number = 2; } }',
  'google/type/postal_address.proto': 'message PostalAddress { int32 revision = 1; string region_code = 2; ' +
    'string language_code = 3; string postal_code = 4; string sorting_code = 5; string administrative_area = 6; ' +
    'string locality = 7; string sublocality = 8; repeated string address_lines = 9; repeated string recipients = 10; ' +
    'string organization = 11; }',
  'google/type/quaternion.proto': 'message Quaternion { double x = 1; double y = 2; double z = 3; double w = 4; }',
  'google/type/timeofday.proto': 'message TimeOfDay { int32 hours = 1; int32 minutes = 2; int32 seconds = 3; int32 nanos = 4; }',
  'confluent/meta.proto': 'import "google/protobuf/descriptor.proto"; message Meta { string doc = 1; ' +
    'map<string, string> params = 2; repeated string tags = 3; } ' +
    ['File', 'Message', 'Field', 'Enum', 'EnumValue'].map((k) => `extend google.protobuf.${k}Options { ` +
      `Meta ${k.replace(/(?<=.)([A-Z])/g, '_$1').toLowerCase()}_meta = 1088; }`).join(' '),
  'confluent/type/decimal.proto': 'message Decimal { bytes value = 1; uint32 precision = 2; int32 scale = 3; }',
};

const BUNDLED = ['api', 'descriptor', 'source_context', 'type']; // shipped as .proto files by protobufjs

export function knownFile(name: string): string | undefined {
  const body = KNOWN[name];
  if (body !== undefined) {
    const pkg = name.startsWith('google/protobuf/') ? 'google.protobuf' : name.startsWith('google/type/') ? 'google.type'
      : name === 'confluent/meta.proto' ? 'confluent' : 'confluent.type';
    return `syntax = "proto3";\npackage ${pkg};\n${body}\n`;
  }
  const m = /^google\/protobuf\/(\w+)\.proto$/.exec(name);
  if (!m || !BUNDLED.includes(m[1])) return undefined;
  try {
    const dir = path.dirname(createRequire(import.meta.url).resolve('protobufjs/package.json'));
    return readFileSync(path.join(dir, 'google', 'protobuf', `${m[1]}.proto`), 'utf8');
  } catch {
    return undefined; // protobufjs's files are not where node_modules would have them
  }
}

/** The names of all the files knownFile() has. */
export const KNOWN_NAMES = [...Object.keys(KNOWN), ...BUNDLED.map((n) => `google/protobuf/${n}.proto`)];

// ---------------------------------------------------------------------------------------------
// Type table (Confluent's Context.collectTypeInfo and Context.resolve)

export interface TypeInfo {
  packageName: string;
  /** '' for the schema's own types, else an identity of the dependency file that declares it. */
  origin: string;
  type: TypeEl;
  isMap: boolean;
  key?: FieldEl;
  value?: FieldEl;
}

export interface Dependency {
  file: ProtoFileEl;
  /** Identifies the dependency's content (its name and text). */
  origin: string;
}

function optionValue(options: readonly OptionEl[], name: string): string | undefined {
  for (const o of options) {
    const n = o.name.startsWith('.') ? o.name.slice(1) : o.name;
    if (n === name && (o.value.t === 'prim' || o.value.t === 'str')) return o.value.v;
  }
  return undefined;
}

export class TypeTable {
  readonly types = new Map<string, TypeInfo>();
  readonly extendFields = new Map<string, { repeated: boolean }>();
  readonly packageName: string;

  constructor(file: ProtoFileEl, dependencies: ReadonlyMap<string, Dependency>) {
    for (const dep of dependencies.values()) this.collectFile(dep.file, dep.origin);
    this.collectFile(file, '');
    this.packageName = file.packageName ?? '';
  }

  private collectFile(file: ProtoFileEl, origin: string): void {
    const pkg = file.packageName ?? '';
    const qualify = (path: string[]) => (pkg ? `${pkg}.${path.join('.')}` : path.join('.'));
    const addExtends = (path: string[], exts: MessageEl['extends']) => {
      for (const e of exts) for (const f of e.fields) this.extendFields.set(qualify([...path, f.name]), { repeated: f.label === 'repeated' });
    };
    const walk = (types: readonly TypeEl[], path: string[]) => {
      for (const t of types) {
        const p = [...path, t.name];
        const info: TypeInfo = { packageName: pkg, origin, type: t, isMap: false };
        if (t.kind === 'message') {
          addExtends(p, t.extends);
          if (optionValue(t.options, 'map_entry') === 'true') {
            info.isMap = true;
            info.key = t.fields.find((f) => f.name === 'key');
            info.value = t.fields.find((f) => f.name === 'value');
          }
          this.types.set(qualify(p), info);
          walk(t.nested, p);
        } else {
          this.types.set(qualify(p), info);
        }
      }
    };
    addExtends([], file.extends);
    walk(file.types, []);
  }

  /** The full name (no leading dot) `name` stands for, seen from `scope` in package `pkg`. */
  resolve(name: string, pkg: string, scope: readonly string[], extension = false): string | null {
    const known = extension ? this.extendFields : this.types;
    if (name.startsWith('.')) return known.has(name.slice(1)) ? name.slice(1) : null;
    const prefix = [...(pkg ? pkg.split('.') : []), ...scope];
    for (; prefix.length > 0; prefix.pop()) {
      const full = `${prefix.join('.')}.${name}`;
      if (known.has(full)) return full;
    }
    return known.has(name) ? name : null;
  }

  get(fullName: string): TypeInfo | undefined {
    return this.types.get(fullName.startsWith('.') ? fullName.slice(1) : fullName);
  }
}

export function mapTypeOf(info: TypeInfo): string {
  return `map<${info.key?.type}, ${info.value?.type}>`;
}

// ---------------------------------------------------------------------------------------------
// Proto types (Wire's ProtoType)

const SCALARS = new Set([
  'bool', 'bytes', 'double', 'float', 'fixed32', 'fixed64', 'int32', 'int64',
  'sfixed32', 'sfixed64', 'sint32', 'sint64', 'string', 'uint32', 'uint64',
]);

export function isScalar(type: string): boolean {
  return SCALARS.has(type);
}

export function mapKeyValue(type: string): [string, string] | null {
  if (!type.startsWith('map<') || !type.endsWith('>')) return null;
  const comma = type.indexOf(',');
  return [type.slice(4, comma).trim(), type.slice(comma + 1, -1).trim()];
}

// ---------------------------------------------------------------------------------------------
// Differences

export type DifferenceType =
  | 'PACKAGE_CHANGED' | 'MESSAGE_ADDED' | 'MESSAGE_REMOVED' | 'MESSAGE_MOVED'
  | 'ENUM_ADDED' | 'ENUM_REMOVED' | 'ENUM_CONST_ADDED' | 'ENUM_CONST_CHANGED' | 'ENUM_CONST_REMOVED'
  | 'FIELD_ADDED' | 'FIELD_REMOVED' | 'FIELD_NAME_CHANGED' | 'FIELD_KIND_CHANGED'
  | 'FIELD_SCALAR_KIND_CHANGED' | 'FIELD_NAMED_TYPE_CHANGED'
  | 'FIELD_NUMERIC_LABEL_CHANGED' | 'FIELD_STRING_OR_BYTES_LABEL_CHANGED'
  | 'REQUIRED_FIELD_ADDED' | 'REQUIRED_FIELD_REMOVED' | 'ONEOF_ADDED' | 'ONEOF_REMOVED'
  | 'ONEOF_FIELD_ADDED' | 'ONEOF_FIELD_REMOVED'
  | 'MULTIPLE_FIELDS_MOVED_TO_ONEOF' | 'FIELD_MOVED_TO_EXISTING_ONEOF';

export interface Difference {
  type: DifferenceType;
  path: string;
}

/** Confluent's SchemaDiff.COMPATIBLE_CHANGES (a package change has been incompatible since 2024). */
export const COMPATIBLE_CHANGES: ReadonlySet<DifferenceType> = new Set<DifferenceType>([
  'MESSAGE_ADDED', 'MESSAGE_MOVED', 'ENUM_ADDED', 'ENUM_REMOVED', 'ENUM_CONST_ADDED',
  'ENUM_CONST_CHANGED', 'ENUM_CONST_REMOVED', 'FIELD_ADDED', 'FIELD_REMOVED', 'FIELD_NAME_CHANGED',
  'FIELD_STRING_OR_BYTES_LABEL_CHANGED', 'ONEOF_ADDED', 'ONEOF_REMOVED', 'ONEOF_FIELD_ADDED',
]);

/** The description of an incompatible difference, `r` naming the reader and `w` the writer. */
function describe(type: DifferenceType, p: string, r: string, w: string): string {
  switch (type) {
    case 'PACKAGE_CHANGED': return `The package at '${p}' in the ${r} schema does not match the package in the ${w} schema`;
    case 'MESSAGE_REMOVED': return `The ${r} schema is missing a MESSAGE type at path '${p}' in the ${w} schema`;
    case 'FIELD_KIND_CHANGED': return `The type of a field at path '${p}' in the ${r} schema does not match the ${w} schema`;
    case 'FIELD_SCALAR_KIND_CHANGED': return `The kind of a SCALAR field at path '${p}' in the ${r} schema does not match its kind in the ${w} schema`;
    case 'FIELD_NAMED_TYPE_CHANGED': return `The type of a MESSAGE field at path '${p}' in the ${r} schema does not match its type in the ${w} schema`;
    case 'FIELD_NUMERIC_LABEL_CHANGED': return `The label for a NUMERIC field at path '${p}' in the ${r} schema does not match its label in the ${w} schema`;
    case 'REQUIRED_FIELD_ADDED': return `A required field  at path '${p}' in the ${r} schema is missing in the ${w} schema`;
    case 'REQUIRED_FIELD_REMOVED': return `The ${r} schema is missing a required field at path: '${p}' in the ${w} schema`;
    case 'ONEOF_FIELD_REMOVED': return `The ${r} schema is missing a oneof field at path '${p}' in the ${w} schema`;
    case 'MULTIPLE_FIELDS_MOVED_TO_ONEOF': return `Multiple fields in the oneof at path '${p}' in the ${r} schema are outside a oneof in the ${w} schema`;
    case 'FIELD_MOVED_TO_EXISTING_ONEOF': return `A field in the oneof at path '${p}' in the ${r} schema is outside an existing oneof in the ${w} schema`;
    default: return '';
  }
}

/** Confluent's message for a difference, with the reader and writer named ("new"/"old"). */
export function formatDifference(d: Difference, reader: string, writer: string): string {
  return `{errorType:"${d.type}", description:"${describe(d.type, d.path, reader, writer)}"}`;
}

// ---------------------------------------------------------------------------------------------
// The walk

class DiffContext {
  diffs: Difference[] = [];
  path: string[] = [];
  names: string[] = [];
  packages: [string, string];
  inProgress: Set<MessageEl>;

  constructor(readonly tables: [TypeTable, TypeTable], inProgress?: Set<MessageEl>) {
    this.packages = [tables[0].packageName, tables[1].packageName];
    this.inProgress = new Set(inProgress);
  }

  sub(): DiffContext {
    const ctx = new DiffContext(this.tables, this.inProgress);
    ctx.packages = [...this.packages];
    return ctx;
  }

  add(type: DifferenceType): void {
    this.diffs.push({ type, path: `#/${this.path.join('/')}` });
  }

  inPath<T>(segment: string, fn: () => T): T {
    this.path.push(segment);
    try {
      return fn();
    } finally {
      this.path.pop();
    }
  }

  inName<T>(name: string, fn: () => T): T {
    this.names.push(name);
    try {
      return this.inPath(name, fn);
    } finally {
      this.names.pop();
    }
  }

  side(original: boolean): number {
    return original ? 0 : 1;
  }

  resolve(name: string, original: boolean): string | null {
    const i = this.side(original);
    return this.tables[i].resolve(name, this.packages[i], this.names);
  }

  getType(name: string, original: boolean): TypeInfo | undefined {
    const full = this.resolve(name, original);
    return full === null ? undefined : this.tables[this.side(original)].get(full);
  }

  isCompatible(): boolean {
    return this.diffs.every((d) => COMPATIBLE_CHANGES.has(d.type));
  }
}

function compareTypeElements(ctx: DiffContext, original: readonly TypeEl[], update: readonly TypeEl[]): void {
  const collect = (types: readonly TypeEl[]) => {
    const messages = new JavaHashMap<string, MessageEl>();
    const indexes = new Map<string, number>();
    const enums = new JavaHashMap<string, EnumEl>();
    let index = 0;
    for (const t of types) {
      if (t.kind === 'message') {
        messages.put(t.name, t);
        indexes.set(t.name, index++);
      } else {
        enums.put(t.name, t);
      }
    }
    return { messages, indexes, enums };
  };
  const o = collect(original);
  const u = collect(update);
  const messageNames = JavaHashMap.setOf(o.messages.keys());
  messageNames.addAll(u.messages.keys(), true);
  for (const name of messageNames.keys()) {
    ctx.inName(name, () => {
      const om = o.messages.get(name);
      const um = u.messages.get(name);
      if (!um) {
        const info = ctx.getType(name, true);
        if (info && !info.isMap) ctx.add('MESSAGE_REMOVED');
      } else if (!om) {
        const info = ctx.getType(name, false);
        if (info && !info.isMap) ctx.add('MESSAGE_ADDED');
      } else {
        compareMessages(ctx, om, um);
        // Moving a message is compatible: message indexes are read against the writer's schema.
        if (o.indexes.get(name) !== u.indexes.get(name)) ctx.add('MESSAGE_MOVED');
      }
    });
  }
  const enumNames = JavaHashMap.setOf(o.enums.keys());
  enumNames.addAll(u.enums.keys(), true);
  for (const name of enumNames.keys()) {
    ctx.inName(name, () => {
      const oe = o.enums.get(name);
      const ue = u.enums.get(name);
      if (!ue) ctx.add('ENUM_REMOVED');
      else if (!oe) ctx.add('ENUM_ADDED');
      else compareEnums(ctx, oe, ue);
    });
  }
}

function byTag<T extends { tag: number }>(items: readonly T[]): JavaHashMap<number, T> {
  const map = new JavaHashMap<number, T>();
  for (const item of items) map.put(item.tag, item);
  return map;
}

function compareEnums(ctx: DiffContext, original: EnumEl, update: EnumEl): void {
  const o = byTag(original.constants);
  const u = byTag(update.constants);
  const tags = JavaHashMap.setOf(o.keys());
  tags.addAll(u.keys(), true);
  for (const tag of tags.keys()) {
    ctx.inPath(String(tag), () => {
      const oc = o.get(tag);
      const uc = u.get(tag);
      if (!uc) ctx.add('ENUM_CONST_REMOVED');
      else if (!oc) ctx.add('ENUM_CONST_ADDED');
      else if (oc.name !== uc.name) ctx.add('ENUM_CONST_CHANGED');
    });
  }
}

function compareMessages(ctx: DiffContext, original: MessageEl, update: MessageEl): void {
  if (!ctx.inProgress.has(original)) {
    ctx.inProgress.add(original);
    try {
      compareMessageFields(ctx, original, update);
    } finally {
      ctx.inProgress.delete(original);
    }
  }
  compareTypeElements(ctx, original.nested, update.nested);
}

function compareMessageFields(ctx: DiffContext, original: MessageEl, update: MessageEl): void {
  const originalByTag = byTag(original.fields);
  const updateByTag = byTag(update.fields);
  // Every field by tag, oneof members included, with the oneof each belongs to.
  const originalAll = new Map<number, FieldEl>(original.fields.map((f) => [f.tag, f]));
  const updateAll = new Map<number, FieldEl>(update.fields.map((f) => [f.tag, f]));
  const originalOneOfOf = new Map<number, string>();
  const updateOneOfOf = new Map<number, string>();
  const originalOneOfs = new JavaHashMap<string, OneOfEl>();
  const updateOneOfs = new JavaHashMap<string, OneOfEl>();
  const originalOneOfFields = new Map<number, FieldEl>();
  for (const oneOf of original.oneofs) {
    originalOneOfs.put(oneOf.name, oneOf);
    for (const f of oneOf.fields) {
      originalOneOfFields.set(f.tag, f);
      originalAll.set(f.tag, f);
      originalOneOfOf.set(f.tag, oneOf.name);
    }
  }
  for (const oneOf of update.oneofs) {
    updateOneOfs.put(oneOf.name, oneOf);
    ctx.inPath(oneOf.name, () => {
      let moved = 0;
      let existing = 0;
      for (const f of oneOf.fields) {
        updateAll.set(f.tag, f);
        updateOneOfOf.set(f.tag, oneOf.name);
        // A field moved into a oneof is not reported as removed.
        if (originalByTag.remove(f.tag) !== undefined) moved++;
        else if (originalOneOfFields.has(f.tag)) existing++;
      }
      if (moved > 1) ctx.add('MULTIPLE_FIELDS_MOVED_TO_ONEOF');
      else if (moved === 1 && existing > 0) ctx.add('FIELD_MOVED_TO_EXISTING_ONEOF');
    });
  }
  const oneOfNames = JavaHashMap.setOf(originalOneOfs.keys());
  oneOfNames.addAll(updateOneOfs.keys(), true);
  for (const name of oneOfNames.keys()) {
    ctx.inPath(name, () => {
      const oo = originalOneOfs.get(name);
      const uo = updateOneOfs.get(name);
      if (!uo) ctx.add('ONEOF_REMOVED');
      else if (!oo) ctx.add('ONEOF_ADDED');
      else compareOneOfs(ctx, oo, uo);
    });
  }
  const tags = JavaHashMap.setOf(originalByTag.keys());
  tags.addAll(updateByTag.keys(), true);
  for (const tag of tags.keys()) {
    ctx.inPath(String(tag), () => {
      const of = originalByTag.get(tag);
      const uf = updateByTag.get(tag);
      if (!uf) ctx.add(of?.label === 'required' ? 'REQUIRED_FIELD_REMOVED' : 'FIELD_REMOVED');
      else if (!of) ctx.add(uf.label === 'required' ? 'REQUIRED_FIELD_ADDED' : 'FIELD_ADDED');
      else compareFields(ctx, of, uf);
    });
  }
  // Fields whose oneof membership changed (moved into or out of a oneof, or their oneof renamed)
  // are compared too, in tag order; the others were compared above.
  const common = [...originalAll.keys()].filter((t) => updateAll.has(t)).sort((a, b) => a - b);
  for (const tag of common) {
    const oo = originalOneOfOf.get(tag);
    const uo = updateOneOfOf.get(tag);
    if ((oo === undefined && uo === undefined) || (oo !== undefined && oo === uo)) continue;
    ctx.inPath(String(tag), () => compareFields(ctx, originalAll.get(tag) as FieldEl, updateAll.get(tag) as FieldEl));
  }
}

function compareOneOfs(ctx: DiffContext, original: OneOfEl, update: OneOfEl): void {
  const o = byTag(original.fields);
  const u = byTag(update.fields);
  const tags = JavaHashMap.setOf(o.keys());
  tags.addAll(u.keys(), true);
  for (const tag of tags.keys()) {
    ctx.inPath(String(tag), () => {
      const of = o.get(tag);
      const uf = u.get(tag);
      if (!uf) ctx.add('ONEOF_FIELD_REMOVED');
      else if (!of) ctx.add('ONEOF_FIELD_ADDED');
      else compareFields(ctx, of, uf);
    });
  }
}

function compareFields(ctx: DiffContext, original: FieldEl, update: FieldEl): void {
  if (original.name !== update.name) ctx.add('FIELD_NAME_CHANGED');
  compareLabelsAndTypes(ctx, original.label, update.label, original.type, update.type);
}

type Kind = 'SCALAR' | 'MAP' | 'MESSAGE';

function kindOf(ctx: DiffContext, type: string, original: boolean): Kind {
  if (isScalar(type)) return 'SCALAR';
  if (mapKeyValue(type)) return 'MAP';
  return ctx.getType(type, original)?.type.kind === 'enum' ? 'SCALAR' : 'MESSAGE';
}

function compareLabelsAndTypes(ctx: DiffContext, originalLabel: Label, updateLabel: Label, originalType: string, updateType: string): void {
  const oi = ctx.getType(originalType, true);
  if (oi?.isMap) originalType = mapTypeOf(oi);
  const ui = ctx.getType(updateType, false);
  if (ui?.isMap) updateType = mapTypeOf(ui);
  const ok = kindOf(ctx, originalType, true);
  if (ok !== kindOf(ctx, updateType, false)) {
    ctx.add('FIELD_KIND_CHANGED');
  } else if (ok === 'SCALAR') {
    compareScalars(ctx, originalLabel, updateLabel, originalType, updateType);
  } else if (ok === 'MESSAGE') {
    compareMessageTypes(ctx, originalType, updateType);
  } else {
    const [ok2, ov] = mapKeyValue(originalType) as [string, string];
    const [uk, uv] = mapKeyValue(updateType) as [string, string];
    compareLabelsAndTypes(ctx, null, null, ok2, uk);
    compareLabelsAndTypes(ctx, null, null, ov, uv);
  }
}

/** The groups of scalars that share a wire encoding (see the proto3 guide's "Updating"). */
function scalarKind(ctx: DiffContext, type: string, original: boolean): string {
  if (ctx.getType(type, original)?.type.kind === 'enum') return 'GENERAL_NUMBER';
  switch (type) {
    case 'int32': case 'int64': case 'uint32': case 'uint64': case 'bool': return 'GENERAL_NUMBER';
    case 'sint32': case 'sint64': return 'SIGNED_NUMBER';
    case 'string': case 'bytes': return 'STRING_OR_BYTES';
    case 'fixed32': case 'sfixed32': return 'FIXED32';
    case 'fixed64': case 'sfixed64': return 'FIXED64';
    default: return type.toUpperCase();
  }
}

function compareScalars(ctx: DiffContext, originalLabel: Label, updateLabel: Label, originalType: string, updateType: string): void {
  const kind = scalarKind(ctx, originalType, true);
  if (kind !== scalarKind(ctx, updateType, false)) {
    ctx.add('FIELD_SCALAR_KIND_CHANGED');
  } else if (originalLabel !== null && updateLabel !== null && originalLabel !== updateLabel) {
    if (kind === 'STRING_OR_BYTES') ctx.add('FIELD_STRING_OR_BYTES_LABEL_CHANGED');
    else ctx.add('FIELD_NUMERIC_LABEL_CHANGED');
  }
}

function compareMessageTypes(ctx: DiffContext, originalType: string, updateType: string): void {
  const of = ctx.resolve(originalType, true);
  const uf = ctx.resolve(updateType, false);
  if (of === null || uf === null) {
    if (originalType !== updateType) ctx.add('FIELD_NAMED_TYPE_CHANGED');
    return;
  }
  const oi = ctx.tables[0].get(of) as TypeInfo;
  const ui = ctx.tables[1].get(uf) as TypeInfo;
  const local = (full: string, pkg: string) => (full.startsWith(`${pkg}.`) ? full.slice(pkg.length + 1) : full);
  const originalLocal = local(of, oi.packageName);
  if (originalLocal !== local(uf, ui.packageName)) {
    ctx.add('FIELD_NAMED_TYPE_CHANGED');
    return;
  }
  // Two local types are compared where they are declared; a type from the same dependency
  // content on both sides needs no comparison (Confluent: same subject and version).
  if (oi.origin === ui.origin) return;
  const sub = ctx.sub();
  sub.packages = [oi.packageName, ui.packageName];
  sub.path = originalLocal.split('.');
  sub.names = originalLocal.split('.');
  compareMessages(sub, oi.type as MessageEl, ui.type as MessageEl);
  ctx.diffs.push(...sub.diffs);
  if (!sub.isCompatible()) ctx.add('FIELD_NAMED_TYPE_CHANGED');
}

/** Every difference from `original` to `update`, compatible or not, in Confluent's order. */
export function schemaDifferences(
  original: ProtoFileEl, originalTable: TypeTable, update: ProtoFileEl, updateTable: TypeTable,
): Difference[] {
  const ctx = new DiffContext([originalTable, updateTable]);
  if (original.packageName !== update.packageName) ctx.add('PACKAGE_CHANGED');
  compareTypeElements(ctx, original.types, update.types);
  return ctx.diffs;
}
