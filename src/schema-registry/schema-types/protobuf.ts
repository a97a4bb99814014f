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
  COMPATIBLE_CHANGES, KNOWN_NAMES, TypeTable, formatDifference, isScalar, knownFile, mapKeyValue, mapTypeOf,
  schemaDifferences,
  type Dependency, type EnumEl, type ExtendEl, type FieldEl, type GroupEl, type Label, type MessageEl,
  type OneOfEl, type OptionEl, type OptValue, type ProtoFileEl, type RangeValue, type ServiceEl, type TypeEl,
} from './protobuf-diff.js';

const MAX_TAG = 536870911;

// ---------------------------------------------------------------------------------------------
// Parser (the element tree of a text protobufjs accepted)

const LABELS = new Set(['optional', 'required', 'repeated']);

class ProtoReader {
  private readonly tn: protobuf.ITokenizerHandle;

  constructor(text: string) {
    this.tn = protobuf.tokenize(text, false);
  }

  fail(message: string): InvalidSchemaError {
    return new InvalidSchemaError(`${message} (line ${this.tn.line})`);
  }

  peek(): string | null {
    return this.tn.peek();
  }

  next(): string {
    const t = this.tn.next();
    if (t === null) throw this.fail('unexpected end of file');
    return t;
  }

  eat(token: string): boolean {
    return this.tn.peek() === token && this.tn.next() !== null;
  }

  expect(token: string): void {
    const t = this.next();
    if (t !== token) throw this.fail(`expected '${token}' but found '${t}'`);
  }

  word(t = this.next()): string {
    if (/^[\s{}=;:[\],'"()<>]$/.test(t)) throw this.fail(`unexpected '${t}'`);
    return t;
  }

  int(): number {
    const t = this.next();
    const m = /^(-?)(?:0[xX]([0-9a-fA-F]+)|0([0-7]*)|([1-9][0-9]*))$/.exec(t);
    if (!m) throw this.fail(`expected a number but found '${t}'`);
    const n = m[2] !== undefined ? parseInt(m[2], 16) : m[3] !== undefined ? parseInt(m[3] || '0', 8) : parseInt(m[4], 10);
    return m[1] ? -n : n;
  }

  /** One quoted string, or several adjacent ones joined. */
  str(): string {
    let out = '';
    do {
      const quote = this.next();
      if (quote !== '"' && quote !== "'") throw this.fail(`expected a string but found '${quote}'`);
      out += this.next();
      this.expect(quote);
    } while (this.peek() === '"' || this.peek() === "'");
    return out;
  }

  /** A data type: a name as written, or `map<K, V>`. */
  dataType(first: string): string {
    if (first !== 'map' || !this.eat('<')) return this.word(first);
    const key = this.dataType(this.next());
    this.expect(',');
    const value = this.dataType(this.next());
    this.expect('>');
    return `map<${key}, ${value}>`;
  }

  /** `{ ... }`: `;` skipped, `option` statements into `options`, any other statement to `each`. */
  block(options: OptionEl[] | null, each: (t: string) => void): void {
    this.expect('{');
    while (!this.eat('}')) {
      const t = this.next();
      if (t === ';') continue;
      if (t === 'option' && options) {
        options.push(this.option('='));
        this.expect(';');
      } else {
        each(t);
      }
    }
  }

  file(): ProtoFileEl {
    const f: ProtoFileEl = {
      syntax: null, edition: null, packageName: null, imports: [], publicImports: [], options: [],
      types: [], extends: [], services: [],
    };
    for (let t = this.tn.next(); t !== null; t = this.tn.next()) {
      if (t === 'syntax' || t === 'edition') {
        this.expect('=');
        const value = this.str();
        if (t === 'edition') f.edition = value;
        else if (value === 'proto2' || value === 'proto3') f.syntax = value;
        else throw this.fail(`unknown syntax '${value}'`);
      } else if (t === 'package') {
        f.packageName = this.word();
      } else if (t === 'import') {
        const kind = this.peek() === 'public' || this.peek() === 'weak' ? this.next() : '';
        (kind === 'public' ? f.publicImports : f.imports).push(this.str());
      } else if (t === 'option') {
        f.options.push(this.option('='));
      } else if (t !== ';') {
        const declared = this.declaration(t);
        if (!declared) throw this.fail(`unexpected '${t}'`);
        if ('rpcs' in declared) f.services.push(declared);
        else if ('kind' in declared) f.types.push(declared);
        else f.extends.push(declared);
        continue;
      }
      if (t !== ';') this.expect(';');
    }
    return f;
  }

  declaration(t: string): TypeEl | ExtendEl | ServiceEl | null {
    if (t === 'message') return this.message();
    if (t === 'enum') return this.enumeration();
    if (t === 'extend') {
      const e: ExtendEl = { name: this.word(), fields: [] };
      this.block(null, (w) => e.fields.push(this.field(w) as FieldEl));
      return e;
    }
    return t === 'service' ? this.service() : null;
  }

  /** `name = value`, `(ext.name).sub = value`, or (in a text-format map) `key: value`. */
  option(separator: '=' | ':'): OptionEl {
    const t = this.next();
    let name = t === '(' || t === '[' ? this.word() : this.word(t);
    const paren = t === '(';
    if (t === '(' || t === '[') this.expect(t === '(' ? ')' : ']');
    if (t === '[') name = `[${name}]`;
    const p = this.peek();
    const sub = p !== null && p.length > 1 && p.startsWith('.') ? this.next().slice(1) : null;
    // Text format lets a message value follow its key without a colon.
    if (separator === '=' || (this.peek() !== '{' && this.peek() !== '<')) this.expect(separator);
    const value = this.value();
    return { name, paren, value: sub === null ? value : { t: 'opt', o: { name: sub, paren: false, value } } };
  }

  value(): OptValue {
    const p = this.peek();
    if (p === '{' || p === '<') return this.map();
    if (p === '"' || p === "'") return { t: 'str', v: this.str() };
    if (this.eat('[')) {
      const l: OptValue[] = [];
      while (!this.eat(']')) {
        l.push(this.value());
        if (!this.eat(',') && this.peek() !== ']') throw this.fail(`expected ',' or ']'`);
      }
      return { t: 'list', l };
    }
    const w = this.word();
    return { t: 'prim', k: /^[-0-9]/.test(w) ? 'NUMBER' : w === 'true' || w === 'false' ? 'BOOLEAN' : 'ENUM', v: w };
  }

  map(): OptValue {
    const close = this.next() === '{' ? '}' : '>';
    const m = new Map<string, OptValue>();
    while (!this.eat(close)) {
      const o = this.option(':');
      const previous = m.get(o.name);
      if (o.value.t === 'opt') {
        const nested = previous?.t === 'map' ? previous : { t: 'map' as const, m: new Map<string, OptValue>() };
        nested.m.set(o.value.o.name, o.value.o.value);
        m.set(o.name, nested);
      } else if (previous === undefined) {
        m.set(o.name, o.value);
      } else {
        // A repeated key collects its values in a list.
        const add = o.value.t === 'list' ? o.value.l : [o.value];
        if (previous.t === 'list') previous.l.push(...add);
        else m.set(o.name, { t: 'list', l: [previous, ...add] });
      }
      if (!this.eat(',')) this.eat(';');
    }
    return { t: 'map', m };
  }

  bracketedOptions(): OptionEl[] {
    const options: OptionEl[] = [];
    if (this.eat('[')) {
      do options.push(this.option('='));
      while (this.eat(','));
      this.expect(']');
    }
    return options;
  }

  /** A field (or group) statement starting with `t`; `label` false for a oneof member. */
  field(t: string, labelled = true): FieldEl | GroupEl {
    const label = labelled && LABELS.has(t) ? (t as Label) : null;
    const type = this.dataType(label ? this.next() : t);
    const name = this.word();
    this.expect('=');
    const tag = this.int();
    if (type === 'group') {
      const g: GroupEl = { label, name, tag, fields: [] };
      this.bracketedOptions();
      this.block(null, (w) => g.fields.push(this.field(w) as FieldEl));
      return g;
    }
    let defaultValue: string | null = null;
    let jsonName: string | null = null;
    const options = this.bracketedOptions().filter((o) => {
      if (o.paren || (o.name !== 'default' && o.name !== 'json_name')) return true;
      const v = o.value.t === 'str' || o.value.t === 'prim' ? o.value.v : '';
      if (o.name === 'default') defaultValue = v;
      else jsonName = v;
      return false;
    });
    this.expect(';');
    return { label, type, name, tag, defaultValue, jsonName, options };
  }

  ranges(names: boolean, max: number): RangeValue[] {
    const values: RangeValue[] = [];
    do {
      const p = this.peek();
      if (names && (p === '"' || p === "'")) values.push(this.str());
      else if (names && p !== null && /^[A-Za-z_]/.test(p)) values.push(this.next());
      else {
        const start = this.int();
        values.push(!this.eat('to') ? start : [start, this.eat('max') ? max : this.int()]);
      }
    } while (this.eat(','));
    this.bracketedOptions();
    this.expect(';');
    return values;
  }

  message(): MessageEl {
    const m: MessageEl = {
      kind: 'message', name: this.word(), options: [], reserveds: [], fields: [], oneofs: [],
      groups: [], extensions: [], extends: [], nested: [],
    };
    this.block(m.options, (t) => {
      if (t === 'reserved') m.reserveds.push(this.ranges(true, MAX_TAG));
      else if (t === 'extensions') m.extensions.push(this.ranges(false, MAX_TAG));
      else if (t === 'oneof') {
        const o: OneOfEl = { name: this.word(), options: [], fields: [], groups: [] };
        this.block(o.options, (w) => {
          const f = this.field(w, false);
          if ('type' in f) o.fields.push(f);
          else o.groups.push(f);
        });
        m.oneofs.push(o);
      } else {
        const declared = t === 'service' ? null : this.declaration(t);
        if (declared && 'kind' in declared) m.nested.push(declared);
        else if (declared) m.extends.push(declared as ExtendEl);
        else {
          const f = this.field(t);
          if ('type' in f) m.fields.push(f);
          else m.groups.push(f);
        }
      }
    });
    return m;
  }

  enumeration(): EnumEl {
    const e: EnumEl = { kind: 'enum', name: this.word(), options: [], reserveds: [], constants: [] };
    this.block(e.options, (t) => {
      if (t === 'reserved') return void e.reserveds.push(this.ranges(true, 2147483647));
      this.expect('=');
      const tag = this.int();
      const options = this.bracketedOptions();
      this.expect(';');
      e.constants.push({ name: this.word(t), tag, options });
    });
    return e;
  }

  service(): ServiceEl {
    const s: ServiceEl = { name: this.word(), options: [], rpcs: [] };
    this.block(s.options, (t) => {
      if (t !== 'rpc') throw this.fail(`unexpected '${t}' in service ${s.name}`);
      const name = this.word();
      const side = () => {
        this.expect('(');
        const streaming = this.peek() === 'stream' && this.eat('stream');
        const type = this.word();
        this.expect(')');
        return { streaming, type };
      };
      const request = side();
      this.expect('returns');
      const response = side();
      const options: OptionEl[] = [];
      if (this.peek() === '{') {
        this.block(options, (w) => {
          throw this.fail(`unexpected '${w}' in rpc ${name}`);
        });
        this.eat(';');
      } else {
        this.expect(';');
      }
      s.rpcs.push({
        name, requestType: request.type, responseType: response.type,
        requestStreaming: request.streaming, responseStreaming: response.streaming, options,
      });
    });
    return s;
  }
}

function parseElements(text: string): ProtoFileEl {
  return new ProtoReader(text).file();
}

// ---------------------------------------------------------------------------------------------
// Printer (ProtobufSchemaUtils.toString / toNormalizedString)

interface Format {
  normalize: boolean;
  table: TypeTable | null;
  /** The names of the enclosing types (Confluent's Context.fullName), for resolving names. */
  scope: readonly string[];
  /** Leaves the custom options out. */
  strip?: boolean;
}

/** Resolves `name` (a type, or an extension field when `extension`) where `fmt` is printing. */
function resolveIn(fmt: Format, name: string, extension = false): string | null {
  const table = fmt.table as TypeTable;
  return table.resolve(name, table.packageName, fmt.scope, extension);
}

/** Java's `String.split("\n")` (trailing empty strings dropped), each line indented by two. */
function indent(value: string): string {
  const lines = value === '' ? [''] : value.split('\n');
  while (value !== '' && lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => `  ${l}\n`).join('');
}

function escape(s: string): string {
  const map: Record<string, string> = {
    '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v',
    '\\': '\\\\', "'": "\\'", '"': '\\"',
  };
  return s.replace(/[\x07\b\f\n\r\t\v\\'"]/g, (c) => map[c]);
}

/** A number as Java's `new DecimalFormat()` (grouping off) prints it: at most 3 decimals, half-even. */
function formatNumber(fmt: Format, text: string): string {
  if (!fmt.normalize) return text;
  const int = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|(0[0-7]+)|([0-9]+))$/.exec(text);
  if (int) {
    const n = int[2] !== undefined ? BigInt(`0x${int[2]}`) : int[3] !== undefined ? BigInt(`0o${int[3]}`) : BigInt(int[4]);
    return (int[1] === '-' && n !== 0n ? '-' : '') + n.toString();
  }
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?[fFdD]?$/.test(text)) return text;
  const value = Number(text.replace(/[fFdD]$/, ''));
  const [mantissa, exp] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const point = Number(exp) + 1; // digits before the decimal point
  // The value scaled by 1000, rounded half-even.
  const scaledPoint = point + 3;
  const padded = scaledPoint > digits.length ? digits + '0'.repeat(scaledPoint - digits.length) : digits;
  let whole = scaledPoint <= 0 ? 0n : BigInt(padded.slice(0, scaledPoint));
  const rest = scaledPoint < 0 ? '0'.repeat(-scaledPoint) + digits : padded.slice(Math.max(scaledPoint, 0));
  if (rest.length > 0 && (rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || whole % 2n === 1n)))) whole += 1n;
  const s = whole.toString().padStart(4, '0');
  const fraction = s.slice(-3).replace(/0+$/, '');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${s.slice(0, -3)}${fraction ? `.${fraction}` : ''}`;
}

function resolveType(fmt: Format, name: string): string {
  const full = resolveIn(fmt, name);
  return full === null ? name : `.${full}`;
}

function transformOption(o: OptionEl): OptionEl {
  if (o.value.t !== 'opt') return o;
  const toMap = (opt: OptionEl): OptValue => {
    const inner = opt.value.t === 'opt' ? opt.value.o : opt;
    const v = inner.value.t === 'opt' ? toMap(inner) : inner.value;
    return { t: 'map', m: new Map([[inner.name, v]]) };
  };
  return { name: o.name, paren: o.paren, value: toMap(o) };
}

function sameValue(a: OptValue, b: OptValue): boolean {
  return JSON.stringify(a, (_, v: unknown) => (v instanceof Map ? [...v.entries()] : v)) ===
    JSON.stringify(b, (_, v: unknown) => (v instanceof Map ? [...v.entries()] : v));
}

function mergeOptions(existing: OptionEl, replacement: OptionEl): OptionEl {
  replacement = transformOption(replacement);
  if (existing.value.t !== 'map' || replacement.value.t !== 'map') return replacement;
  const merged = new Map(existing.value.m);
  for (const [k, v] of replacement.value.m) {
    const before = merged.get(k);
    if (before === undefined) {
      merged.set(k, v);
      continue;
    }
    const all: OptValue[] = [];
    for (const x of [before, v]) for (const y of x.t === 'list' ? x.l : [x]) if (!all.some((z) => sameValue(z, y))) all.push(y);
    merged.set(k, { t: 'list', l: all });
  }
  return { name: replacement.name, paren: replacement.paren, value: { t: 'map', m: merged } };
}

function filterOptions(fmt: Format, options: readonly OptionEl[]): OptionEl[] {
  if (fmt.strip) return options.filter((o) => !o.paren);
  if (!fmt.normalize || options.length === 0) return [...options];
  const table = fmt.table as TypeTable;
  const qualified = options.map((o) => {
    const resolved = o.paren ? resolveIn(fmt, o.name, true) : null;
    return resolved === null ? o : transformOption({ name: resolved, paren: o.paren, value: o.value });
  });
  qualified.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const groups = new Map<string, OptionEl[]>();
  for (const o of qualified) groups.set(o.name, [...(groups.get(o.name) ?? []), o]);
  const out: OptionEl[] = [];
  for (const [name, list] of groups) {
    const ext = table.extendFields.get(name);
    if (ext && !ext.repeated) out.push(list.reduce(mergeOptions));
    else out.push(...list);
  }
  return out;
}

function optionText(fmt: Format, o: OptionEl): string {
  const name = o.paren ? `(${o.name})` : o.name;
  const v = o.value;
  switch (v.t) {
    case 'str': return `${name} = "${escape(v.v)}"`;
    case 'prim': return `${name} = ${v.k === 'NUMBER' ? formatNumber(fmt, v.v) : v.v}`;
    case 'opt': return `${name}.${optionText(fmt, v.o)}`;
    case 'map': return `${name} = {\n${optionMap(fmt, v.m)}}`;
    case 'list': return `${name} = ${bracketed(fmt, v.l)}`;
  }
}

function optionMap(fmt: Format, map: Map<string, OptValue>): string {
  let entries = [...map.entries()];
  if (fmt.normalize) {
    const sorted = new Map<string, OptValue>();
    for (const [k, v] of entries) {
      if (v.t === 'list' && v.l.length === 0) continue;
      const ext = k.startsWith('[') && k.endsWith(']') ? resolveIn(fmt, k.slice(1, -1), true) : null;
      const key = ext === null ? k : `[${ext}]`;
      if (!sorted.has(key)) sorted.set(key, v);
    }
    entries = [...sorted.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
  return entries.map(([k, v], i) => indent(`${k}: ${valueText(fmt, v)}${i < entries.length - 1 ? ',' : ''}`)).join('');
}

function valueText(fmt: Format, v: OptValue | OptionEl): string {
  if (!('t' in v)) return optionText(fmt, v);
  switch (v.t) {
    case 'str': return `"${escape(v.v)}"`;
    case 'prim': return v.k === 'NUMBER' ? formatNumber(fmt, v.v) : v.v;
    case 'opt': return optionText(fmt, v.o);
    case 'map': return `{\n${optionMap(fmt, v.m)}}`;
    case 'list':
      if (fmt.normalize && v.l.length === 1) return valueText(fmt, v.l[0]);
      return `[\n${v.l.map((x, i) => indent(valueText(fmt, x) + (i < v.l.length - 1 ? ',' : ''))).join('')}]`;
  }
}

/** A bracketed option list: `[a = 1]` for one, one per line for more. */
function bracketed(fmt: Format, items: readonly (OptValue | OptionEl)[]): string {
  if (items.length === 1) return `[${valueText(fmt, items[0])}]`;
  return `[\n${items.map((x, i) => indent(valueText(fmt, x) + (i < items.length - 1 ? ',' : ''))).join('')}]`;
}

function optionLines(fmt: Format, options: readonly OptionEl[]): string {
  return options.map((o) => indent(`option ${optionText(fmt, o)};\n`)).join('');
}

function rangeSortKey(v: RangeValue): [number, string] {
  if (typeof v === 'number') return [v, String(v)];
  if (typeof v === 'string') return [2147483647, v];
  return [v[0], `${v[0]}..${v[1]}`];
}

function rangesText(fmt: Format, keyword: string, groups: readonly RangeValue[][], byNameToo: boolean): string {
  let list = groups;
  if (fmt.normalize) {
    list = groups.flat().map((v) => [v]).sort(([a], [b]) => {
      const [ka, sa] = rangeSortKey(a);
      const [kb, sb] = rangeSortKey(b);
      return ka - kb || (byNameToo ? (sa < sb ? -1 : sa > sb ? 1 : 0) : 0);
    });
  }
  return list.map((values) => indent(`${keyword} ${values.map((v) => {
    if (typeof v === 'number') return String(v);
    if (typeof v === 'string') return `"${v}"`;
    if (fmt.normalize && v[0] === v[1]) return String(v[0]);
    return `${v[0]} to ${v[1] < MAX_TAG ? v[1] : 'max'}`;
  }).join(', ')};\n`)).join('');
}

function defaultKind(type: string): OptValue['t'] | 'BOOLEAN' | 'NUMBER' | 'ENUM' {
  const simple = type.slice(type.lastIndexOf('.') + 1);
  if (simple === 'bool') return 'BOOLEAN';
  // Confluent prints a bytes default unquoted (as a number); it is quoted here, a readable text.
  if (simple === 'string' || simple === 'bytes') return 'str';
  return isScalar(simple) ? 'NUMBER' : 'ENUM';
}

function fieldText(fmt: Format, f: FieldEl): string {
  let label = f.label;
  let type = f.type;
  if (fmt.normalize) {
    if (!isScalar(type) && !mapKeyValue(type)) {
      type = resolveType(fmt, type);
      const info = (fmt.table as TypeTable).get(type);
      if (info?.isMap) type = mapTypeOf(info);
    }
    const kv = mapKeyValue(type);
    if (kv) {
      const value = resolveIn(fmt, kv[1]);
      if (value !== null) type = `map<${kv[0]}, .${value}>`;
      label = null;
    }
  }
  const options = [...f.options];
  if (f.defaultValue !== null) {
    const kind = defaultKind(type);
    const value: OptValue = kind === 'str' ? { t: 'str', v: f.defaultValue } : { t: 'prim', k: kind as 'BOOLEAN', v: f.defaultValue };
    options.push({ name: 'default', paren: false, value });
  }
  if (f.jsonName !== null) options.push({ name: 'json_name', paren: false, value: { t: 'str', v: f.jsonName } });
  const shown = filterOptions(fmt, options);
  return `${label ? `${label} ` : ''}${type} ${f.name} = ${f.tag}${shown.length ? ` ${bracketed(fmt, shown)}` : ''};\n`;
}

function sortedByTag<T extends { tag: number }>(fmt: Format, items: readonly T[]): T[] {
  return fmt.normalize ? [...items].sort((a, b) => a.tag - b.tag) : [...items];
}

function groupText(fmt: Format, g: GroupEl): string {
  const fields = sortedByTag(fmt, g.fields).map((f) => indent(fieldText(fmt, f))).join('');
  return `${g.label ? `${g.label} ` : ''}group ${g.name} = ${g.tag} {${fields ? `\n${fields}` : ''}}\n`;
}

function extendsText(fmt: Format, extendEls: readonly ExtendEl[], nested: boolean): string {
  let list = extendEls;
  if (fmt.normalize) {
    const byName = new Map<string, FieldEl[]>();
    for (const e of extendEls) {
      const name = resolveType(fmt, e.name);
      byName.set(name, [...(byName.get(name) ?? []), ...e.fields]);
    }
    list = [...byName].map(([name, fields]) => ({ name, fields }));
  }
  return list.map((e) => {
    const fields = sortedByTag(fmt, e.fields).map((f) => indent(fieldText(fmt, f))).join('');
    const text = `extend ${e.name} {${fields ? `\n${fields}` : ''}}\n`;
    return nested ? indent(text) : text;
  }).join('');
}

/** The types to print: map-entry messages are left out when normalizing. */
function typesText(fmt: Format, types: readonly TypeEl[], nested: boolean): string {
  const shown = fmt.normalize
    ? types.filter((t) => {
      const full = t.kind === 'message' ? resolveIn(fmt, t.name) : null;
      return full === null || !(fmt.table as TypeTable).get(full)?.isMap;
    })
    : types;
  if (shown.length === 0) return '';
  const text = (t: TypeEl) => {
    const inner = { ...fmt, scope: [...fmt.scope, t.name] };
    const s = t.kind === 'message' ? messageText(inner, t) : enumText(inner, t);
    return nested ? indent(s) : s;
  };
  // Messages keep their order (clients serialize message indexes); enums come after them.
  return '\n' + shown.filter((t) => t.kind === 'message').map(text).join('') + shown.filter((t) => t.kind === 'enum').map(text).join('');
}

function messageText(fmt: Format, m: MessageEl): string {
  let sb = `message ${m.name} {`;
  if (m.reserveds.length) sb += '\n' + rangesText(fmt, 'reserved', m.reserveds, true);
  const options = filterOptions(fmt, m.options);
  if (options.length) sb += '\n' + optionLines(fmt, options);
  if (m.fields.length) sb += '\n' + sortedByTag(fmt, m.fields).map((f) => indent(fieldText(fmt, f))).join('');
  if (m.oneofs.length) {
    let oneofs = m.oneofs;
    if (fmt.normalize) {
      oneofs = oneofs.filter((o) => o.fields.length > 0).map((o) => ({ ...o, fields: sortedByTag(fmt, o.fields) }));
      oneofs.sort((a, b) => a.fields[0].tag - b.fields[0].tag);
    }
    sb += '\n' + oneofs.map((o) => {
      const opts = filterOptions(fmt, o.options);
      let s = `oneof ${o.name} {`;
      if (opts.length) s += '\n' + optionLines(fmt, opts);
      if (o.fields.length) s += '\n' + o.fields.map((f) => indent(fieldText(fmt, f))).join('');
      if (o.groups.length) s += '\n' + sortedByTag(fmt, o.groups).map((g) => indent(groupText(fmt, g))).join('');
      return indent(`${s}}\n`);
    }).join('');
  }
  if (m.groups.length) sb += '\n' + sortedByTag(fmt, m.groups).map((g) => indent(groupText(fmt, g))).join('');
  if (m.extensions.length) sb += '\n' + rangesText(fmt, 'extensions', m.extensions, false);
  if (m.extends.length) sb += '\n' + extendsText(fmt, m.extends, true);
  sb += typesText(fmt, m.nested, true);
  return `${sb}}\n`;
}

function enumText(fmt: Format, e: EnumEl): string {
  let sb = `enum ${e.name} {`;
  if (e.reserveds.length) sb += '\n' + rangesText(fmt, 'reserved', e.reserveds, true);
  else if (e.options.length || e.constants.length) sb += '\n';
  sb += optionLines(fmt, filterOptions(fmt, e.options));
  const constants = fmt.normalize
    ? [...e.constants].sort((a, b) => a.tag - b.tag || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    : e.constants;
  for (const c of constants) {
    const opts = filterOptions(fmt, c.options);
    sb += indent(`${c.name} = ${c.tag}${opts.length ? ` ${bracketed(fmt, opts)}` : ''};\n`);
  }
  return `${sb}}\n`;
}

function serviceText(fmt: Format, s: ServiceEl): string {
  let sb = `service ${s.name} {`;
  const options = filterOptions(fmt, s.options);
  if (options.length) sb += '\n' + optionLines(fmt, options);
  if (s.rpcs.length) {
    sb += '\n' + s.rpcs.map((r) => {
      const type = (t: string) => (fmt.normalize ? resolveType(fmt, t) : t);
      const opts = filterOptions(fmt, r.options);
      return indent(`rpc ${r.name} (${r.requestStreaming ? 'stream ' : ''}${type(r.requestType)}) returns (` +
        `${r.responseStreaming ? 'stream ' : ''}${type(r.responseType)})${opts.length ? ` {\n${optionLines(fmt, opts)}}` : ''};\n`);
    }).join('');
  }
  return `${sb}}\n`;
}

function fileText(fmt: Format, f: ProtoFileEl): string {
  let sb = '';
  if (f.syntax !== null && (!fmt.normalize || f.syntax === 'proto3')) sb += `syntax = "${f.syntax}";\n`;
  if (f.edition !== null) sb += `edition = "${f.edition}";\n`;
  if (f.packageName !== null) sb += `package ${f.packageName};\n`;
  if (f.imports.length || f.publicImports.length) {
    const norm = (l: string[]) => (fmt.normalize ? [...new Set(l)].sort() : l);
    sb += '\n' + norm(f.imports).map((i) => `import "${i}";\n`).join('') +
      norm(f.publicImports).map((i) => `import public "${i}";\n`).join('');
  }
  const options = filterOptions(fmt, f.options);
  if (options.length) sb += '\n' + options.map((o) => `option ${optionText(fmt, o)};\n`).join('');
  sb += typesText(fmt, f.types, false);
  if (f.extends.length) sb += '\n' + extendsText(fmt, f.extends, false);
  if (f.services.length) sb += '\n' + f.services.map((s) => serviceText(fmt, s)).join('');
  return sb;
}

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
