/**
 * The AVRO schema provider of the Schema Registry: parses Avro schemas (JSON text), gives the text
 * the registry stores, Confluent's normalized form, and Avro's reader/writer compatibility.
 *
 * It mirrors what Confluent's registry does with Apache Avro for Java (1.11):
 * - parse: Avro Java's `Schema.Parser` (names and namespaces, what is an attribute and what is a
 *   custom property, its error messages), with default values validated (Confluent validates them
 *   for schemas registered as new). The referenced schemas are parsed first, dependencies before
 *   dependants, into the same table of named types, so the main schema may use their names.
 *   The JSON is read as Jackson reads it: comments allowed, a duplicate key keeps its first
 *   position and its last value, numbers keep their kind (int, long, big integer, double), and
 *   text after the first JSON value is ignored.
 * - canonical: `AvroSchema.canonicalString()`, which is Avro Java's `Schema.toString()` (compact
 *   JSON, attributes in Java's order, custom properties kept in their order, namespaces written
 *   only where they change, a named type written in full once and by name after) with the
 *   referenced types written by name, never inlined. Numbers are written as Java writes them
 *   (`1.0`, `1.0E10`). One deliberate difference: every named type a reference defines is written
 *   by name, where Java knows only each reference's top-level type and would inline a nested one
 *   (text that then fails to parse again with its references).
 * - normalize: `AvroSchemaUtils.toNormalizedString()` (full names instead of namespaces, custom
 *   properties and aliases sorted, defaults converted through their type, the doc of a named
 *   type dropped when empty, an `error` becomes a `record`), parsed again, and that schema's
 *   canonical text.
 * - checkCompatibility: Avro Java's `SchemaCompatibility` (type promotions, record fields matched
 *   by name or the reader's field aliases, named types matched by unqualified name or the reader's
 *   aliases, enum defaults, unions, JSON-pointer locations, memoized per reader/writer pair as
 *   Java does), each incompatibility formatted as Confluent's `Difference`, with "new"/"old" put
 *   where Confluent's validators put them: BACKWARD reads with the new schema, FORWARD with the
 *   old one.
 */
import { InvalidSchemaError, type CompatibilityDirection, type ParsedSchema, type ResolvedReference, type SchemaProvider } from './schema-type.js';

// --- JSON as Jackson reads and writes it ---

/** A JSON number with the kind of node Jackson makes of it, and the text Jackson writes for it. */
interface JNum {
  readonly num: 'int' | 'long' | 'big' | 'double';
  readonly text: string;
  readonly value: number;
}
type J = null | boolean | string | JNum | J[] | JObj;
type JObj = Map<string, J>;

const isNum = (j: J | undefined): j is JNum => typeof j === 'object' && j !== null && !Array.isArray(j) && !(j instanceof Map);
const isObj = (j: J | undefined): j is JObj => j instanceof Map;

class JsonReader {
  private pos = 0;
  constructor(private readonly s: string) {}

  /** The first JSON value of the text (Jackson's readTree), or undefined for an empty text. */
  readFirst(): J | undefined {
    this.skip();
    return this.pos >= this.s.length ? undefined : this.value();
  }

  private fail(what: string): never {
    throw new InvalidSchemaError(`Invalid JSON at position ${this.pos}: ${what}`);
  }

  private skip(): void {
    const s = this.s;
    for (;;) {
      const c = s[this.pos];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') this.pos++;
      else if (c === '/' && s[this.pos + 1] === '/') {
        const end = s.indexOf('\n', this.pos);
        this.pos = end < 0 ? s.length : end + 1;
      } else if (c === '/' && s[this.pos + 1] === '*') {
        const end = s.indexOf('*/', this.pos + 2);
        if (end < 0) this.fail('unterminated comment');
        this.pos = end + 2;
      } else return;
    }
  }

  private value(): J {
    this.skip();
    const c = this.s[this.pos];
    if (c === '{') {
      this.pos++;
      const obj: JObj = new Map();
      this.skip();
      if (this.s[this.pos] === '}') return this.pos++, obj;
      for (;;) {
        this.skip();
        if (this.s[this.pos] !== '"') this.fail('expected a field name');
        const key = this.string();
        this.skip();
        if (this.s[this.pos++] !== ':') this.fail("expected ':'");
        obj.set(key, this.value());
        this.skip();
        const next = this.s[this.pos++];
        if (next === '}') return obj;
        if (next !== ',') this.fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      this.pos++;
      const arr: J[] = [];
      this.skip();
      if (this.s[this.pos] === ']') return this.pos++, arr;
      for (;;) {
        arr.push(this.value());
        this.skip();
        const next = this.s[this.pos++];
        if (next === ']') return arr;
        if (next !== ',') this.fail("expected ',' or ']'");
      }
    }
    if (c === '"') return this.string();
    const token = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null/y;
    token.lastIndex = this.pos;
    const m = token.exec(this.s);
    if (!m || m[0] === '-' || /[\w.+-]/.test(this.s[this.pos + m[0].length] ?? ' ')) {
      this.fail(c === undefined ? 'unexpected end of input' : `unexpected token at '${this.s.slice(this.pos, this.pos + 20)}'`);
    }
    this.pos += m[0].length;
    if (m[0] === 'true' || m[0] === 'false') return m[0] === 'true';
    if (m[0] === 'null') return null;
    return m[1] === undefined && m[2] === undefined ? integer(BigInt(m[0])) : double(Number(m[0]));
  }

  private string(): string {
    let out = '';
    for (this.pos++; ; ) {
      const c = this.s[this.pos++];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') return out;
      if (c < ' ') this.fail('unescaped control character in a string');
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.pos++];
      const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
      if (e !== undefined && e in simple) out += simple[e];
      else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.s.slice(this.pos, this.pos + 4))) {
        out += String.fromCharCode(parseInt(this.s.slice(this.pos, this.pos + 4), 16));
        this.pos += 4;
      } else this.fail('invalid escape in a string');
    }
  }
}

const INT_MIN = -(2n ** 31n), INT_MAX = 2n ** 31n - 1n, LONG_MIN = -(2n ** 63n), LONG_MAX = 2n ** 63n - 1n;
function integer(v: bigint): JNum {
  const num = v >= INT_MIN && v <= INT_MAX ? 'int' : v >= LONG_MIN && v <= LONG_MAX ? 'long' : 'big';
  return { num, text: v.toString(), value: Number(v) };
}
const double = (v: number): JNum => ({ num: 'double', text: javaDecimal(v, v), value: v });
/** A float as Java's Float.toString writes it (shortest digits that read back as the same float). */
function float(v: number): JNum {
  const f = Math.fround(v);
  let shortest = f;
  for (let p = 1; p <= 9 && Number.isFinite(f); p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) {
      shortest = candidate;
      break;
    }
  }
  return { num: 'double', text: javaDecimal(f, shortest), value: f };
}

/** Java's Double.toString layout: plain in [1e-3, 1e7), else `d.dddE±n`; always a fraction digit. */
function javaDecimal(v: number, digitsOf: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const [mantissa, e] = Math.abs(digitsOf).toExponential().split('e');
  const digits = mantissa!.replace('.', '');
  const exp = Number(e);
  const sign = v < 0 ? '-' : '';
  const abs = Math.abs(v);
  if (abs >= 1e-3 && abs < 1e7) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    return `${sign}${digits.slice(0, exp + 1).padEnd(exp + 1, '0')}.${digits.slice(exp + 1) || '0'}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exp}`;
}

/** A string as Jackson quotes it (control characters escaped, upper-case hex; nothing else). */
function quote(s: string): string {
  const named: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\t': '\\t', '\n': '\\n', '\f': '\\f', '\r': '\\r' };
  return `"${s.replace(/["\\\u0000-\u001f]/g, (c) => named[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`)}"`;
}

/** Compact JSON as Jackson writes a tree (non-finite doubles quoted, as Jackson does by default). */
function writeJson(j: J): string {
  if (j === null || typeof j === 'boolean') return String(j);
  if (typeof j === 'string') return quote(j);
  if (Array.isArray(j)) return `[${j.map(writeJson).join(',')}]`;
  if (isObj(j)) return `{${[...j].map(([k, v]) => `${quote(k)}:${writeJson(v)}`).join(',')}}`;
  return j.num === 'double' && !Number.isFinite(j.value) ? quote(j.text) : j.text;
}

// --- the schema model (Avro Java's Schema classes, as far as they matter here) ---

type Primitive = 'null' | 'boolean' | 'int' | 'long' | 'float' | 'double' | 'bytes' | 'string';
const PRIMITIVES: ReadonlySet<string> = new Set<Primitive>(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);

interface Name {
  readonly name: string;
  readonly space: string | null;
  readonly full: string;
}
interface PrimNode { readonly kind: Primitive; readonly props: JObj }
interface NamedBase { readonly nm: Name; readonly doc: string | null; readonly aliases: Name[]; readonly props: JObj }
interface RecordNode extends NamedBase { readonly kind: 'record'; readonly isError: boolean; fields: Field[] }
interface EnumNode extends NamedBase { readonly kind: 'enum'; readonly symbols: string[]; readonly enumDefault: string | null }
interface FixedNode extends NamedBase { readonly kind: 'fixed'; readonly size: number }
interface ArrayNode { readonly kind: 'array'; readonly items: Node; readonly props: JObj }
interface MapNode { readonly kind: 'map'; readonly values: Node; readonly props: JObj }
interface UnionNode { readonly kind: 'union'; readonly types: Node[]; readonly props: JObj }
type NamedNode = RecordNode | EnumNode | FixedNode;
type Node = PrimNode | NamedNode | ArrayNode | MapNode | UnionNode;

interface Field {
  readonly name: string;
  readonly type: Node;
  readonly doc: string | null;
  /** The default as given (undefined: none; null: JSON null). */
  readonly dflt: J | undefined;
  readonly order: 'ascending' | 'descending' | 'ignore';
  readonly aliases: string[];
  readonly props: JObj;
  readonly pos: number;
}

const isNamed = (n: Node): n is NamedNode => n.kind === 'record' || n.kind === 'enum' || n.kind === 'fixed';
/** Java's Schema.getFullName(): a named type's full name, else the type's name. */
const fullName = (n: Node): string => (isNamed(n) ? n.nm.full : n.kind);
/** Java's Schema.Type name, as messages print it. */
const typeName = (n: Node): string => n.kind.toUpperCase();
const fieldString = (f: Field): string => `${f.name} type:${typeName(f.type)} pos:${f.pos}`;

// --- parsing (Avro Java's Schema.parse) ---

const fail = (message: string): never => {
  throw new InvalidSchemaError(message);
};

function validateName(name: string | null): string {
  if (name === null) return fail('Null name');
  if (name.length === 0) return fail('Empty name');
  if (!/^[\p{L}_]$/u.test(name[0]!)) return fail(`Illegal initial character: ${name}`);
  for (let i = 1; i < name.length; i++) if (!/^[\p{L}\p{Nd}_]$/u.test(name[i]!)) return fail(`Illegal character in: ${name}`);
  return name;
}

/** Java's Schema.Name: a dotted name carries its own namespace; "" is no namespace. */
function makeName(name: string, space: string | null): Name {
  const dot = name.lastIndexOf('.');
  let short = name;
  if (dot >= 0) {
    space = name.slice(0, dot);
    short = name.slice(dot + 1);
  }
  short = validateName(short);
  if (space === '') space = null;
  return { name: short, space, full: space === null ? short : `${space}.${short}` };
}

/** The named types known while parsing, and the current default namespace. */
class Names {
  readonly types = new Map<string, NamedNode>();
  space: string | null = null;

  get(o: string): Node | undefined {
    if (PRIMITIVES.has(o)) return { kind: o as Primitive, props: new Map() };
    return this.types.get(makeName(o, this.space).full) ?? this.types.get(makeName(o, null).full);
  }

  add(n: NamedNode): void {
    if (this.types.has(n.nm.full)) fail(`Can't redefine: ${n.nm.full}`);
    this.types.set(n.nm.full, n);
  }
}

const text = (j: J | undefined, key: string): string | null => {
  const v = isObj(j) ? j.get(key) : undefined;
  return typeof v === 'string' ? v : null;
};
const requiredText = (j: J, key: string, error: string): string => text(j, key) ?? fail(`${error}: ${writeJson(j)}`);

const SCHEMA_RESERVED = new Set(['doc', 'fields', 'items', 'name', 'namespace', 'size', 'symbols', 'values', 'type', 'aliases']);
const ENUM_RESERVED = new Set([...SCHEMA_RESERVED, 'default']);
const FIELD_RESERVED = new Set(['default', 'doc', 'name', 'order', 'type', 'aliases']);

function parseAliases(j: JObj): string[] | null {
  const node = j.get('aliases');
  if (node === undefined) return null;
  if (!Array.isArray(node)) return fail(`aliases not an array: ${writeJson(j)}`);
  return [...new Set(node.map((a) => (typeof a === 'string' ? a : fail(`alias not a string: ${writeJson(a)}`))))];
}

/** Java's Double.valueOf, for a float or double field whose default is given as a string. */
function javaParseDouble(s: string): JNum {
  const t = s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  const m = /^([+-]?)(NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFdD]?)$/.exec(t);
  if (!m) return fail(`For input string: ${quote(s)}`);
  const body = m[2]!.replace(/[fFdD]$/, '');
  return double((m[1] === '-' ? -1 : 1) * (body === 'NaN' ? NaN : body === 'Infinity' ? Infinity : Number(body)));
}

/** Avro Java's Schema.isValidDefault (undefined is Java's null: no value at all). */
function isValidDefault(s: Node, v: J | undefined): boolean {
  if (v === undefined) return false;
  switch (s.kind) {
    case 'string': case 'bytes': case 'enum': case 'fixed': return typeof v === 'string';
    case 'int': return isNum(v) && v.num === 'int';
    case 'long': return isNum(v) && (v.num === 'int' || v.num === 'long');
    case 'float': case 'double': return isNum(v);
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'array': return Array.isArray(v) && v.every((e) => isValidDefault(s.items, e));
    case 'map': return isObj(v) && [...v.values()].every((e) => isValidDefault(s.values, e));
    case 'union': return isValidDefault(s.types[0]!, v);
    case 'record': return isObj(v) && s.fields.every((f) => isValidDefault(f.type, v.has(f.name) ? v.get(f.name) : f.dflt));
  }
}

function parseNode(j: J | undefined, names: Names): Node {
  if (j === undefined) return fail('Cannot parse <null> schema');
  if (typeof j === 'string') return names.get(j) ?? fail(`Undefined name: ${writeJson(j)}`);
  if (Array.isArray(j)) {
    const union: UnionNode = { kind: 'union', types: j.map((t) => parseNode(t, names)), props: new Map() };
    const seen = new Set<string>();
    for (const t of union.types) {
      if (t.kind === 'union') fail(`Nested union: ${toJson(union, { space: null, written: new Set() })}`);
      if (seen.has(fullName(t))) fail(`Duplicate in union:${fullName(t)}`);
      seen.add(fullName(t));
    }
    return union;
  }
  if (!isObj(j)) return fail(`Schema not yet supported: ${writeJson(j)}`);

  const type = requiredText(j, 'type', 'No type');
  const savedSpace = names.space;
  let nm: Name | null = null;
  let doc: string | null = null;
  if (type === 'record' || type === 'error' || type === 'enum' || type === 'fixed') {
    doc = text(j, 'doc');
    nm = makeName(requiredText(j, 'name', 'No name in schema'), text(j, 'namespace') ?? names.space);
    names.space = nm.space;
  }
  /** Avro Java's NamedSchema constructor check, made where Java constructs the type. */
  const notPrimitive = (n: Name): Name => (PRIMITIVES.has(n.full) ? fail(`Schemas may not be named after primitives: ${n.full}`) : n);
  const props: JObj = new Map();
  const named = { doc, aliases: [] as Name[], props };
  let result: Node;
  if (PRIMITIVES.has(type)) {
    result = { kind: type as Primitive, props };
  } else if (nm && (type === 'record' || type === 'error')) {
    const record: RecordNode = { kind: 'record', nm: notPrimitive(nm), ...named, isError: type === 'error', fields: [] };
    names.add(record);
    const fieldsNode = j.get('fields');
    if (!Array.isArray(fieldsNode)) return fail(`Record has no fields: ${writeJson(j)}`);
    const byName = new Map<string, Field>();
    fieldsNode.forEach((fj, pos) => {
      const f = parseField(fj, pos, names);
      const existing = byName.get(f.name);
      if (existing) fail(`Duplicate field ${f.name} in record ${nm!.full}: ${fieldString(f)} and ${fieldString(existing)}.`);
      byName.set(f.name, f);
      record.fields.push(f);
    });
    result = record;
  } else if (nm && type === 'enum') {
    const symbolsNode = j.get('symbols');
    if (!Array.isArray(symbolsNode)) return fail(`Enum has no symbols: ${writeJson(j)}`);
    notPrimitive(nm);
    const symbols = symbolsNode.map((s) => (typeof s === 'string' ? s : null));
    const seen = new Set<string>();
    for (const s of symbols) {
      if (seen.has(validateName(s))) fail(`Duplicate enum symbol: ${s}`);
      seen.add(s!);
    }
    const enumDefault = text(j, 'default');
    if (enumDefault !== null && !seen.has(enumDefault)) fail(`The Enum Default: ${enumDefault} is not in the enum symbol set: [${symbols.join(', ')}]`);
    result = { kind: 'enum', nm, ...named, symbols: symbols as string[], enumDefault };
    names.add(result);
  } else if (type === 'array' || type === 'map') {
    const key = type === 'array' ? 'items' : 'values';
    const inner = j.get(key);
    if (inner === undefined) return fail(`${type === 'array' ? 'Array has no items' : 'Map has no values'} type: ${writeJson(j)}`);
    result = type === 'array' ? { kind: 'array', items: parseNode(inner, names), props } : { kind: 'map', values: parseNode(inner, names), props };
  } else if (nm && type === 'fixed') {
    const size = j.get('size');
    if (!isNum(size) || size.num !== 'int') return fail(`Invalid or no size: ${writeJson(j)}`);
    notPrimitive(nm);
    if (size.value < 0) fail(`Invalid fixed size: ${size.value}`);
    result = { kind: 'fixed', nm, ...named, size: size.value };
    names.add(result);
  } else {
    // A type given by name inside an object ({"type": "com.acme.Thing"}): that type, as is.
    return names.types.get(makeName(type, names.space).full) ?? fail(`Type not supported: ${type}`);
  }
  const reserved = type === 'enum' ? ENUM_RESERVED : SCHEMA_RESERVED;
  for (const [k, v] of j) if (!reserved.has(k)) props.set(k, v);
  names.space = savedSpace;
  if (isNamed(result)) {
    for (const alias of parseAliases(j) ?? []) {
      const a = makeName(alias, result.nm.space);
      if (!result.aliases.some((x) => x.full === a.full)) result.aliases.push(a);
    }
  }
  return result;
}

function parseField(fj: J, pos: number, names: Names): Field {
  const name = requiredText(fj, 'name', 'No field name');
  const field = fj as JObj;
  const typeNode = field.get('type');
  if (typeNode === undefined) return fail(`No field type: ${writeJson(fj)}`);
  if (typeof typeNode === 'string' && names.get(typeNode) === undefined) {
    fail(`${writeJson(typeNode)} is not a defined name. The type of the "${name}" field must be a defined name or a {"type": ...} expression.`);
  }
  const type = parseNode(typeNode, names);
  let order: Field['order'] = 'ascending';
  const orderNode = field.get('order');
  if (orderNode !== undefined) {
    const o = typeof orderNode === 'string' ? orderNode.toLowerCase() : null;
    if (o !== 'ascending' && o !== 'descending' && o !== 'ignore') return fail(`No enum constant org.apache.avro.Schema.Field.Order.${String(typeof orderNode === 'string' ? orderNode.toUpperCase() : orderNode)}`);
    order = o;
  }
  let dflt = field.get('default');
  if (typeof dflt === 'string' && (type.kind === 'float' || type.kind === 'double')) dflt = javaParseDouble(dflt);
  validateName(name);
  if (dflt !== undefined && !isValidDefault(type, dflt)) {
    fail(`Invalid default for field ${name}: ${writeJson(dflt)} not a ${toJson(type, { space: null, written: new Set() })}`);
  }
  const props: JObj = new Map();
  for (const [k, v] of field) if (!FIELD_RESERVED.has(k)) props.set(k, v);
  return { name, type, doc: text(field, 'doc'), dflt, order, aliases: parseAliases(field) ?? [], props, pos };
}

// --- the canonical text (Avro Java's Schema.toString) ---

interface WriteContext {
  /** The namespace names are written relative to (the enclosing record's). */
  space: string | null;
  /** Full names already written in full (or defined by a reference): written by name from now on. */
  written: Set<string>;
}

const writeProps = (props: JObj): string => [...props].map(([k, v]) => `,${quote(k)}:${writeJson(v)}`).join('');
/** Java's Name.getQualified: the short name when in the given namespace (or in none). */
const qualified = (n: Name, space: string | null): string => (n.space === null || n.space === space ? n.name : n.full);

function toJson(n: Node, ctx: WriteContext): string {
  switch (n.kind) {
    case 'union':
      return `[${n.types.map((t) => toJson(t, ctx)).join(',')}]`;
    case 'array':
      return `{"type":"array","items":${toJson(n.items, ctx)}${writeProps(n.props)}}`;
    case 'map':
      return `{"type":"map","values":${toJson(n.values, ctx)}${writeProps(n.props)}}`;
    case 'record': case 'enum': case 'fixed': {
      if (ctx.written.has(n.nm.full)) return quote(qualified(n.nm, ctx.space));
      ctx.written.add(n.nm.full);
      let out = `{"type":${quote(n.kind === 'record' && n.isError ? 'error' : n.kind)},"name":${quote(n.nm.name)}`;
      if (n.nm.space !== null ? n.nm.space !== ctx.space : ctx.space !== null) out += `,"namespace":${quote(n.nm.space ?? '')}`;
      if (n.doc !== null) out += `,"doc":${quote(n.doc)}`;
      if (n.kind === 'record') {
        const saved = ctx.space;
        ctx.space = n.nm.space;
        out += `,"fields":[${n.fields.map((f) => fieldJson(f, ctx)).join(',')}]`;
        ctx.space = saved;
      } else if (n.kind === 'enum') {
        out += `,"symbols":[${n.symbols.map(quote).join(',')}]`;
        if (n.enumDefault !== null) out += `,"default":${quote(n.enumDefault)}`;
      } else {
        out += `,"size":${n.size}`;
      }
      out += writeProps(n.props);
      if (n.aliases.length > 0) out += `,"aliases":[${n.aliases.map((a) => quote(qualified(a, n.nm.space))).join(',')}]`;
      return `${out}}`;
    }
    default:
      return n.props.size === 0 ? quote(n.kind) : `{"type":${quote(n.kind)}${writeProps(n.props)}}`;
  }
}

function fieldJson(f: Field, ctx: WriteContext): string {
  let out = `{"name":${quote(f.name)},"type":${toJson(f.type, ctx)}`;
  if (f.doc !== null) out += `,"doc":${quote(f.doc)}`;
  if (f.dflt !== undefined) out += `,"default":${writeJson(f.dflt)}`;
  if (f.order !== 'ascending') out += `,"order":${quote(f.order)}`;
  if (f.aliases.length > 0) out += `,"aliases":[${f.aliases.map(quote).join(',')}]`;
  return `${out}${writeProps(f.props)}}`;
}

// --- the normalized text (Confluent's AvroSchemaUtils.toNormalizedString) ---

/** Avro Java's logical type of a primitive or fixed schema, when valid (invalid ones are ignored). */
function logicalType(n: PrimNode | FixedNode): { name: string; precision: number; scale: number } | null {
  const name = n.props.get('logicalType');
  const intProp = (k: string, absent: number): number | null => {
    const v = n.props.get(k);
    return v === undefined ? absent : isNum(v) && v.num === 'int' ? v.value : null;
  };
  switch (name) {
    case 'decimal': {
      const precision = intProp('precision', -1), scale = intProp('scale', 0);
      if (n.kind !== 'bytes' && n.kind !== 'fixed') return null;
      if (precision === null || precision <= 0 || scale === null || scale < 0 || scale > precision) return null;
      if (n.kind === 'fixed' && precision > Math.round(Math.floor(Math.log10(2) * (8 * n.size - 1)))) return null;
      return { name, precision, scale };
    }
    case 'uuid': return n.kind === 'string' ? { name, precision: 0, scale: 0 } : null;
    case 'date': case 'time-millis': return n.kind === 'int' ? { name, precision: 0, scale: 0 } : null;
    case 'time-micros': case 'timestamp-millis': case 'timestamp-micros': case 'timestamp-nanos':
    case 'local-timestamp-millis': case 'local-timestamp-micros': case 'local-timestamp-nanos':
      return n.kind === 'long' ? { name, precision: 0, scale: 0 } : null;
    default: return null;
  }
}

const logicalProps = (lt: { name: string; precision: number; scale: number }): string =>
  `,"logicalType":${quote(lt.name)}` + (lt.name === 'decimal' ? `,"precision":${lt.precision}${lt.scale !== 0 ? `,"scale":${lt.scale}` : ''}` : '');
const sortedProps = (props: JObj): string => writeProps(new Map([...props].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))));
const sortedNames = (names: string[]): string => `[${[...new Set(names)].sort().map(quote).join(',')}]`;

/**
 * A default value as Avro Java's JacksonUtils.toObject reads it through its schema and Confluent
 * writes it back: ints widened to the field's type, floats rounded to float, bytes through
 * ISO-8859-1; undefined where Java gets null (a value that does not fit its type), and so no default.
 */
function convertDefault(v: J, s: Node | null): J | undefined {
  if (s?.kind === 'union') return convertDefault(v, s.types[0]!);
  if (v === null || typeof v === 'boolean') return v;
  const k = s?.kind ?? null;
  if (isNum(v)) {
    if (v.num === 'big') return undefined;
    if (v.num !== 'double' && (k === null || k === 'int' || k === 'long')) return v;
    if (k === 'float') return float(v.value);
    if (k === 'double' || (k === null && v.num === 'double')) return double(v.value);
    return undefined;
  }
  if (typeof v === 'string') {
    if (k === null || k === 'string' || k === 'enum') return v;
    if (k === 'bytes' || k === 'fixed') return v.replace(/[^\u0000-\u00ff]/g, '?');
    return undefined;
  }
  if (Array.isArray(v)) return v.map((e) => convertDefault(e, s?.kind === 'array' ? s.items : null) ?? null);
  const out: JObj = new Map();
  for (const [key, e] of v) {
    const inner = s?.kind === 'map' ? s.values : s?.kind === 'record' ? s.fields.find((f) => f.name === key)?.type ?? null : null;
    out.set(key, convertDefault(e, inner) ?? null);
  }
  return out;
}

function normalizedJson(n: Node, env: Set<string>): string {
  switch (n.kind) {
    case 'union':
      return `[${n.types.map((t) => normalizedJson(t, env)).join(',')}]`;
    case 'array':
      return `{"type":"array","items":${normalizedJson(n.items, env)}${sortedProps(n.props)}}`;
    case 'map':
      return `{"type":"map","values":${normalizedJson(n.values, env)}${sortedProps(n.props)}}`;
    case 'record': case 'enum': case 'fixed': {
      if (env.has(n.nm.full)) return quote(n.nm.full);
      env.add(n.nm.full);
      let out = `{"name":${quote(n.nm.full)},"type":"${n.kind}"`;
      if (n.kind === 'enum') out += `,"symbols":[${n.symbols.map(quote).join(',')}]`;
      else if (n.kind === 'fixed') {
        const lt = logicalType(n);
        out += `,"size":${n.size}${lt ? logicalProps(lt) : ''}`;
      } else {
        out += `,"fields":[${n.fields.map((f) => {
          let fo = `{"name":${quote(f.name)},"type":${normalizedJson(f.type, env)},"order":${quote(f.order.toUpperCase())}`;
          if (f.doc !== null) fo += `,"doc":${quote(f.doc)}`;
          if (f.aliases.length > 0) fo += `,"aliases":${sortedNames(f.aliases)}`;
          const d = f.dflt === undefined ? undefined : convertDefault(f.dflt, f.type);
          if (d !== undefined) fo += `,"default":${writeJson(d)}`;
          return `${fo}${sortedProps(f.props)}}`;
        }).join(',')}]`;
      }
      if (n.doc) out += `,"doc":${quote(n.doc)}`;
      if (n.aliases.length > 0) out += `,"aliases":${sortedNames(n.aliases.map((a) => a.full))}`;
      if (n.kind === 'enum' && n.enumDefault !== null) out += `,"default":${quote(n.enumDefault)}`;
      return `${out}${sortedProps(n.props)}}`;
    }
    default: {
      const lt = logicalType(n);
      if (lt) return `{"type":"${n.kind}"${logicalProps(lt)}${sortedProps(n.props)}}`;
      return n.props.size === 0 ? quote(n.kind) : `{"type":"${n.kind}"${sortedProps(n.props)}}`;
    }
  }
}

// --- compatibility (Avro Java's SchemaCompatibility, as Confluent reports it) ---

type IncompatibilityType = 'NAME_MISMATCH' | 'FIXED_SIZE_MISMATCH' | 'MISSING_ENUM_SYMBOLS' | 'READER_FIELD_MISSING_DEFAULT_VALUE' | 'TYPE_MISMATCH' | 'MISSING_UNION_BRANCH';
interface Incompatibility { readonly type: IncompatibilityType; readonly message: string; readonly location: readonly string[] }
interface Result { readonly compatible: boolean; readonly list: readonly Incompatibility[] }

const COMPATIBLE: Result = { compatible: true, list: [] };
const RECURSION: Result = { compatible: true, list: [] };
const merge = (a: Result, b: Result): Result => (b.list.length === 0 && b.compatible ? a : { compatible: a.compatible && b.compatible, list: [...a.list, ...b.list] });
const incompatible = (type: IncompatibilityType, message: string, location: string[]): Result => ({ compatible: false, list: [{ type, message, location: [...location] }] });

/** Can `reader` read what `writer` wrote? One checker per check: it memoizes reader/writer pairs. */
class Checker {
  private readonly memo = new Map<Node, Map<Node, Result>>();

  /** A check from a fresh location (Java's two-argument getCompatibility). */
  check(reader: Node, writer: Node): Result {
    return this.at('', reader, writer, []);
  }

  private at(token: string, reader: Node, writer: Node, location: string[]): Result {
    location.push(token);
    let byWriter = this.memo.get(reader);
    if (!byWriter) this.memo.set(reader, (byWriter = new Map()));
    let result = byWriter.get(writer);
    if (result === RECURSION) result = COMPATIBLE; // a recursive type: compatible unless shown otherwise
    else if (result === undefined) {
      byWriter.set(writer, RECURSION);
      result = this.calculate(reader, writer, location);
      byWriter.set(writer, result);
    }
    location.pop();
    return result;
  }

  private calculate(reader: Node, writer: Node, location: string[]): Result {
    if (reader.kind === writer.kind) {
      switch (reader.kind) {
        case 'array': return this.at('items', reader.items, (writer as ArrayNode).items, location);
        case 'map': return this.at('values', reader.values, (writer as MapNode).values, location);
        case 'fixed': return merge(this.names(reader, writer as FixedNode, location), this.fixedSize(reader, writer as FixedNode, location));
        case 'enum': return merge(this.names(reader, writer as EnumNode, location), this.symbols(reader, writer as EnumNode, location));
        case 'record': return merge(this.names(reader, writer as RecordNode, location), this.fields(reader, writer as RecordNode, location));
        case 'union': {
          let result = COMPATIBLE;
          (writer as UnionNode).types.forEach((branch, i) => {
            location.push(String(i));
            if (!this.check(reader, branch).compatible) {
              result = merge(result, incompatible('MISSING_UNION_BRANCH', `reader union lacking writer type: ${typeName(branch)}`, location));
            }
            location.pop();
          });
          return result;
        }
        default: return COMPATIBLE;
      }
    }
    if (writer.kind === 'union') {
      return writer.types.reduce((result, branch, i) => merge(result, this.at(String(i), reader, branch, location)), COMPATIBLE);
    }
    const w = writer.kind;
    switch (reader.kind) {
      case 'long': if (w === 'int') return COMPATIBLE; break;
      case 'float': if (w === 'int' || w === 'long') return COMPATIBLE; break;
      case 'double': if (w === 'int' || w === 'long' || w === 'float') return COMPATIBLE; break;
      case 'bytes': if (w === 'string') return COMPATIBLE; break;
      case 'string': if (w === 'bytes') return COMPATIBLE; break;
      case 'union':
        if (reader.types.some((branch) => this.check(branch, writer).compatible)) return COMPATIBLE;
        return incompatible('MISSING_UNION_BRANCH', `reader union lacking writer type: ${typeName(writer)}`, location);
    }
    return incompatible('TYPE_MISMATCH', `reader type: ${typeName(reader)} not compatible with writer type: ${typeName(writer)}`, location);
  }

  private names(reader: NamedNode, writer: NamedNode, location: string[]): Result {
    if (reader.nm.name === writer.nm.name || reader.aliases.some((a) => a.full === writer.nm.full)) return COMPATIBLE;
    return incompatible('NAME_MISMATCH', `expected: ${writer.nm.full}`, [...location, 'name']);
  }

  private fixedSize(reader: FixedNode, writer: FixedNode, location: string[]): Result {
    if (reader.size === writer.size) return COMPATIBLE;
    return incompatible('FIXED_SIZE_MISMATCH', `expected: ${writer.size}, found: ${reader.size}`, [...location, 'size']);
  }

  private symbols(reader: EnumNode, writer: EnumNode, location: string[]): Result {
    const missing = [...new Set(writer.symbols)].filter((s) => !reader.symbols.includes(s)).sort();
    if (missing.length === 0 || (reader.enumDefault !== null && reader.symbols.includes(reader.enumDefault))) return COMPATIBLE;
    return incompatible('MISSING_ENUM_SYMBOLS', `[${missing.join(', ')}]`, [...location, 'symbols']);
  }

  private fields(reader: RecordNode, writer: RecordNode, location: string[]): Result {
    let result = COMPATIBLE;
    location.push('fields');
    for (const rf of reader.fields) {
      location.push(String(rf.pos));
      const matches = [rf.name, ...rf.aliases].map((n) => writer.fields.find((f) => f.name === n)).filter((f) => f !== undefined);
      if (matches.length > 1) {
        const writerText = toJson(writer, { space: null, written: new Set() });
        throw new Error(`Reader record field ${fieldString(rf)} matches multiple fields in writer record schema ${writerText}`);
      }
      if (matches.length === 1) result = merge(result, this.at('type', rf.type, matches[0]!.type, location));
      else if (rf.dflt === undefined) {
        // Java's quirk kept: an enum with a default is checked against the writer *record*.
        result = merge(result, rf.type.kind === 'enum' && rf.type.enumDefault !== null
          ? this.at('type', rf.type, writer, location)
          : incompatible('READER_FIELD_MISSING_DEFAULT_VALUE', rf.name, location));
      }
      location.pop();
    }
    location.pop();
    return result;
  }
}

/** JSON pointer of a location (the root token left out), as Java's Incompatibility.getLocation. */
const pointer = (location: readonly string[]): string => `/${location.slice(1).map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

/** Confluent's Difference.error(), with the reader's and the writer's role ("new"/"old") filled in. */
function describe(i: Incompatibility, reader: string, writer: string): string {
  const path = pointer(i.location);
  const description = {
    FIXED_SIZE_MISMATCH: `The size of FIXED type field at path '${path}' in the ${reader} schema does not match with the ${writer} schema`,
    TYPE_MISMATCH: `The type (path '${path}') of a field in the ${reader} schema does not match with the ${writer} schema`,
    NAME_MISMATCH: `The name of the schema has changed (path '${path}')`,
    MISSING_ENUM_SYMBOLS: `The ${reader} schema is missing enum symbols '${i.message}' at path '${path}' in the ${writer} schema`,
    MISSING_UNION_BRANCH: `The ${reader} schema is missing a type inside a union field at path '${path}' in the ${writer} schema`,
    READER_FIELD_MISSING_DEFAULT_VALUE: `The field '${i.message}' at path '${path}' in the ${reader} schema has no default value and is missing in the ${writer} schema`,
  }[i.type];
  return `{errorType:'${i.type}', description:'${description}', additionalInfo:'${i.message}'}`;
}

// --- the provider ---

class AvroParsedSchema implements ParsedSchema {
  readonly schemaType = 'AVRO' as const;
  constructor(
    readonly canonical: string,
    readonly references: readonly ResolvedReference[],
    readonly root: Node,
    /** Every named type the references define: written by name, never inlined. */
    readonly referenced: ReadonlySet<string>,
  ) {}

  normalize(): ParsedSchema {
    return parseAvro(normalizedJson(this.root, new Set(this.referenced)), this.references);
  }
}

/** The references in the order Confluent parses them: depth first, dependencies first, each name once. */
function flatten(refs: readonly ResolvedReference[], out = new Map<string, string>()): Map<string, string> {
  for (const ref of refs) {
    if (out.has(ref.name)) continue;
    flatten(ref.references, out);
    if (!out.has(ref.name)) out.set(ref.name, ref.schema);
  }
  return out;
}

function parseAvro(schema: string, references: readonly ResolvedReference[]): AvroParsedSchema {
  const names = new Names();
  for (const ref of flatten(references).values()) parseNode(new JsonReader(ref).readFirst(), names);
  const referenced = new Set(names.types.keys());
  const root = parseNode(new JsonReader(schema).readFirst(), names);
  return new AvroParsedSchema(toJson(root, { space: null, written: new Set(referenced) }), references, root, referenced);
}

export const avroProvider: SchemaProvider = {
  schemaType: 'AVRO',

  parse(schema: string, references: readonly ResolvedReference[]): ParsedSchema {
    return parseAvro(schema, references);
  },

  checkCompatibility(direction: CompatibilityDirection, proposed: ParsedSchema, existing: ParsedSchema): string[] {
    if (!(proposed instanceof AvroParsedSchema) || !(existing instanceof AvroParsedSchema)) return ['Incompatible because of different schema type'];
    const [reader, writer] = direction === 'BACKWARD' ? [proposed, existing] : [existing, proposed];
    const [readerRole, writerRole] = direction === 'BACKWARD' ? ['new', 'old'] : ['old', 'new'];
    try {
      return new Checker().check(reader.root, writer.root).list.map((i) => describe(i, readerRole, writerRole));
    } catch (err) {
      return [`Unexpected exception during compatibility check: ${(err as Error).message}`];
    }
  },
};
