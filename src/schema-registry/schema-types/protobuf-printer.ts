/**
 * The printer of the PROTOBUF schema type (protobuf.ts): Confluent's ProtobufSchemaUtils.toString
 * (the canonical text: syntax, package, imports, options, then the messages and after them the
 * enums, extends, services; 2-space indentation, `\n`, comments dropped) and toNormalizedString
 * (imports sorted, options sorted and merged, fields and enum constants by number, oneofs by their
 * first number, reserved ranges split and sorted, type names fully qualified, numbers in options
 * reformatted, `syntax = "proto2"` left out), over the element tree of protobuf-parser.ts.
 */
import {
  isScalar, mapKeyValue, mapTypeOf,
  type EnumEl, type ExtendEl, type FieldEl, type GroupEl, type MessageEl, type OptionEl, type OptValue,
  type ProtoFileEl, type RangeValue, type ServiceEl, type TypeEl, type TypeTable,
} from './protobuf-diff.js';
import { MAX_TAG } from './protobuf-parser.js';

export interface Format {
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

/** The text of a file as `fmt` says: canonical, normalized, or without custom options. */
export function fileText(fmt: Format, f: ProtoFileEl): string {
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
