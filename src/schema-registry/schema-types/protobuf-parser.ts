/**
 * The .proto tokenizer/parser of the PROTOBUF schema type (protobuf.ts): a small recursive-descent
 * reader over protobufjs's tokenizer that builds the element tree Confluent gets from Wire's
 * ProtoParser (types as written, option kinds, reserved ranges...), which the printer
 * (protobuf-printer.ts) and the diff (protobuf-diff.ts) work on. It only reads the text; protobufjs
 * checks it for real in the provider.
 */
import protobuf from 'protobufjs';
import { InvalidSchemaError } from './schema-type.js';
import type {
  EnumEl, ExtendEl, FieldEl, GroupEl, Label, MessageEl, OneOfEl, OptionEl, OptValue, ProtoFileEl, RangeValue,
  ServiceEl, TypeEl,
} from './protobuf-diff.js';

/** The highest field number (`max` in a range). */
export const MAX_TAG = 536870911;

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

/** The element tree of a .proto text (throws InvalidSchemaError where the text is not one). */
export function parseElements(text: string): ProtoFileEl {
  return new ProtoReader(text).file();
}
