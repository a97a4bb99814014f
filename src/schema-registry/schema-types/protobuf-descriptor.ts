/**
 * Protobuf schemas registered as a base64 serialized `FileDescriptorProto`, as Confluent's
 * registry accepts them (confluent-kafka-python's ProtobufSerializer registers its files so):
 * the descriptor is decoded with protobufjs's descriptor types and printed back as `.proto` text,
 * which the provider then parses like any other (and stores in its canonical form, as Confluent
 * stores the canonical text of a descriptor it was sent).
 */
import { createRequire } from 'node:module';

// protobufjs's descriptor extension is CommonJS: loaded with require, only when a descriptor arrives.
const require = createRequire(import.meta.url);

interface Desc {
  [key: string]: unknown;
}

const BASE64 = /^[A-Za-z0-9+/\r\n]+={0,2}\s*$/;

const SCALARS: Record<string, string> = {
  TYPE_DOUBLE: 'double', TYPE_FLOAT: 'float', TYPE_INT64: 'int64', TYPE_UINT64: 'uint64', TYPE_INT32: 'int32',
  TYPE_FIXED64: 'fixed64', TYPE_FIXED32: 'fixed32', TYPE_BOOL: 'bool', TYPE_STRING: 'string', TYPE_BYTES: 'bytes',
  TYPE_UINT32: 'uint32', TYPE_SFIXED32: 'sfixed32', TYPE_SFIXED64: 'sfixed64', TYPE_SINT32: 'sint32', TYPE_SINT64: 'sint64',
};

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const list = (v: unknown): Desc[] => (Array.isArray(v) ? (v as Desc[]) : []);
const quote = (s: string) => JSON.stringify(s);

function optionValue(v: unknown): string {
  return typeof v === 'string' && !/^[A-Z_][A-Z0-9_]*$/.test(v) ? quote(v) : String(v);
}

/** `option x = y;` lines for a descriptor's options (camelCase fields → the .proto names). */
function optionLines(options: unknown, indent: string): string[] {
  if (!options || typeof options !== 'object') return [];
  return Object.entries(options as Desc)
    .filter(([k, v]) => v !== undefined && v !== null && !k.startsWith('uninterpreted') && k !== 'mapEntry' && typeof v !== 'object')
    .map(([k, v]) => `${indent}option ${snake(k)} = ${optionValue(v)};`);
}

function fieldType(f: Desc): string {
  return SCALARS[String(f.type)] ?? String(f.typeName ?? '');
}

function printEnum(e: Desc, indent: string): string[] {
  const out = [`${indent}enum ${e.name} {`, ...optionLines(e.options, indent + '  ')];
  for (const v of list(e.value)) out.push(`${indent}  ${v.name} = ${v.number ?? 0};`);
  for (const r of list(e.reservedRange)) out.push(`${indent}  reserved ${r.start === r.end ? r.start : `${r.start} to ${r.end}`};`);
  const names = (e.reservedName as string[] | undefined) ?? [];
  if (names.length) out.push(`${indent}  reserved ${names.map(quote).join(', ')};`);
  out.push(`${indent}}`);
  return out;
}

function printMessage(m: Desc, proto3: boolean, indent: string): string[] {
  const inner = indent + '  ';
  const out = [`${indent}message ${m.name} {`, ...optionLines(m.options, inner)];
  const nested = list(m.nestedType);
  const mapEntries = new Map<string, Desc>();
  for (const n of nested) if ((n.options as Desc | undefined)?.mapEntry) mapEntries.set(String(n.name), n);
  const oneofs = list(m.oneofDecl);
  const fields = list(m.field);
  const fieldLine = (f: Desc, pad: string, inOneof: boolean): string => {
    const typeName = String(f.typeName ?? '');
    const entry = f.label === 'LABEL_REPEATED' && f.type === 'TYPE_MESSAGE' ? mapEntries.get(typeName.slice(typeName.lastIndexOf('.') + 1)) : undefined;
    const opts: string[] = [];
    if (f.defaultValue !== undefined && f.defaultValue !== '') opts.push(`default = ${f.type === 'TYPE_STRING' || f.type === 'TYPE_BYTES' ? quote(String(f.defaultValue)) : f.defaultValue}`);
    const fo = f.options as Desc | undefined;
    // packed means something only on repeated scalars (protobufjs's own descriptors put it everywhere).
    if (fo?.packed !== undefined && f.label === 'LABEL_REPEATED' && SCALARS[String(f.type)] !== undefined) opts.push(`packed = ${fo.packed}`);
    if (fo?.deprecated) opts.push('deprecated = true');
    const suffix = `${f.name} = ${f.number}${opts.length ? ` [${opts.join(', ')}]` : ''};`;
    if (entry) {
      const [k, v] = list(entry.field);
      return `${pad}map<${fieldType(k)}, ${fieldType(v)}> ${suffix}`;
    }
    let label = '';
    if (!inOneof) {
      if (f.label === 'LABEL_REPEATED') label = 'repeated ';
      else if (f.label === 'LABEL_REQUIRED') label = 'required ';
      else if (!proto3 || f.proto3Optional) label = 'optional ';
    }
    return `${pad}${label}${fieldType(f)} ${suffix}`;
  };
  // proto3 `optional` fields sit in a synthetic oneof of their own: printed as plain optional fields.
  const realOneof = (i: unknown) => typeof i === 'number' && !fields.some((f) => f.oneofIndex === i && f.proto3Optional);
  const printed = new Set<number>();
  for (const f of fields) {
    if (realOneof(f.oneofIndex)) {
      const idx = f.oneofIndex as number;
      if (printed.has(idx)) continue;
      printed.add(idx);
      out.push(`${inner}oneof ${oneofs[idx].name} {`);
      for (const g of fields) if (g.oneofIndex === idx) out.push(fieldLine(g, inner + '  ', true));
      out.push(`${inner}}`);
    } else {
      out.push(fieldLine(f, inner, false));
    }
  }
  for (const r of list(m.reservedRange)) {
    const end = Number(r.end) - 1;
    out.push(`${inner}reserved ${r.start === end ? r.start : `${r.start} to ${end === 536870911 ? 'max' : end}`};`);
  }
  const names = (m.reservedName as string[] | undefined) ?? [];
  if (names.length) out.push(`${inner}reserved ${names.map(quote).join(', ')};`);
  for (const n of nested) if (!(n.options as Desc | undefined)?.mapEntry) out.push(...printMessage(n, proto3, inner));
  for (const e of list(m.enumType)) out.push(...printEnum(e, inner));
  out.push(`${indent}}`);
  return out;
}

function printService(s: Desc): string[] {
  const out = [`service ${s.name} {`];
  for (const m of list(s.method)) {
    out.push(`  rpc ${m.name} (${m.clientStreaming ? 'stream ' : ''}${m.inputType}) returns (${m.serverStreaming ? 'stream ' : ''}${m.outputType});`);
  }
  out.push('}');
  return out;
}

/**
 * The `.proto` text of `schema` when it is a base64 serialized FileDescriptorProto, else null
 * (`.proto` text, or base64 that does not decode to a file descriptor).
 */
export function descriptorText(schema: string): string | null {
  const trimmed = schema.trim();
  if (trimmed.length < 4 || !BASE64.test(trimmed)) return null;
  let file: Desc;
  try {
    const descriptor = require('protobufjs/ext/descriptor') as { FileDescriptorProto: { decode(b: Uint8Array): unknown; toObject(m: unknown, o: object): Desc } };
    file = descriptor.FileDescriptorProto.toObject(descriptor.FileDescriptorProto.decode(Buffer.from(trimmed, 'base64')), { enums: String, longs: String });
  } catch {
    return null;
  }
  if (typeof file.name !== 'string' && !file.messageType && !file.enumType) return null;
  const proto3 = file.syntax === 'proto3';
  const out: string[] = [`syntax = "${proto3 ? 'proto3' : 'proto2'}";`];
  if (file.package) out.push(`package ${file.package};`);
  const deps = (file.dependency as string[] | undefined) ?? [];
  const pub = new Set((file.publicDependency as number[] | undefined) ?? []);
  const weak = new Set((file.weakDependency as number[] | undefined) ?? []);
  deps.forEach((d, i) => out.push(`import ${pub.has(i) ? 'public ' : weak.has(i) ? 'weak ' : ''}${quote(d)};`));
  out.push(...optionLines(file.options, ''));
  for (const m of list(file.messageType)) out.push('', ...printMessage(m, proto3, ''));
  for (const e of list(file.enumType)) out.push('', ...printEnum(e, ''));
  for (const s of list(file.service)) out.push('', ...printService(s));
  return out.join('\n') + '\n';
}
