/**
 * The header filter of a view (`samsa.view.filter`): parser and evaluator.
 *
 * Grammar (keywords case-insensitive; whitespace free):
 *
 *   expr    := or
 *   or      := and ('or' and)*
 *   and     := unary ('and' unary)*
 *   unary   := 'not' unary | primary
 *   primary := '(' expr ')'
 *            | 'exists' '(' name ')'
 *            | name '=' string | name '!=' string
 *            | name ['not'] 'in' '(' string (',' string)* ')'
 *   name    := [A-Za-z_][A-Za-z0-9_.-]*  |  "any text" ("" inside for a quote)
 *   string  := 'any text' ('' inside for a quote)
 *
 * Only record headers are looked at, never keys or values (they may be encrypted, and decoding
 * them would cost the broker too much). A header name present several times in a record counts
 * with its last value, as Kafka's `Headers.lastHeader`. A header with a null value exists but
 * equals no string. Header names and values compare as UTF-8 bytes.
 *
 * Evaluation allocates nothing per record: the filter's distinct header names are numbered
 * (slots), a record's headers are scanned once into two typed arrays (value start and length
 * per slot, -2 when absent, -1 when null), and the tree is walked over them.
 */

export class FilterSyntaxError extends Error {
  /** 1-based character position of the problem in the expression. */
  readonly position: number;
  constructor(message: string, position: number, expression: string) {
    super(`${message} at position ${position} of '${expression}'`);
    this.position = position;
  }
}

type Node =
  | { kind: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'not'; inner: Node }
  | { kind: 'exists'; slot: number }
  | { kind: 'in'; slot: number; values: Buffer[] };

/** Header value absent from the record. */
const ABSENT = -2;
/** Header present with a null value. */
const NULL_VALUE = -1;

type Token = { type: 'name' | 'string' | 'punct' | 'end'; text: string; pos: number };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') { i++; continue; }
    const pos = i + 1;
    if (c === '(' || c === ')' || c === ',' || c === '=') { out.push({ type: 'punct', text: c, pos }); i++; continue; }
    if (c === '!') {
      if (src[i + 1] !== '=') throw new FilterSyntaxError(`'!' must be followed by '='`, pos, src);
      out.push({ type: 'punct', text: '!=', pos });
      i += 2;
      continue;
    }
    if (c === "'" || c === '"') {
      let text = '';
      let j = i + 1;
      for (;;) {
        if (j >= src.length) throw new FilterSyntaxError(c === "'" ? 'unterminated string' : 'unterminated quoted header name', pos, src);
        if (src[j] === c) {
          if (src[j + 1] === c) { text += c; j += 2; continue; }
          break;
        }
        text += src[j++];
      }
      out.push({ type: c === "'" ? 'string' : 'name', text, pos });
      i = j + 1;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < src.length && /[A-Za-z0-9_.-]/.test(src[j])) j++;
      out.push({ type: 'name', text: src.slice(i, j), pos });
      i = j;
      continue;
    }
    throw new FilterSyntaxError(`unexpected character '${c}'`, pos, src);
  }
  out.push({ type: 'end', text: '', pos: src.length + 1 });
  return out;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'exists']);

class Parser {
  private at = 0;
  readonly names: string[] = [];
  constructor(private readonly tokens: Token[], private readonly src: string) {}

  private peek(): Token { return this.tokens[this.at]; }
  private isKeyword(t: Token, kw: string): boolean { return t.type === 'name' && t.text.toLowerCase() === kw && !this.quoted(t); }
  /** A double-quoted name is never a keyword: its source text starts with '"'. */
  private quoted(t: Token): boolean { return this.src[t.pos - 1] === '"'; }
  private fail(message: string, t: Token = this.peek()): never {
    const found = t.type === 'end' ? 'end of expression' : `'${t.text}'`;
    throw new FilterSyntaxError(`${message}, found ${found}`, t.pos, this.src);
  }
  private expectPunct(p: string, what: string): void {
    const t = this.peek();
    if (t.type !== 'punct' || t.text !== p) this.fail(`expected ${what}`);
    this.at++;
  }
  private slot(name: string): number {
    const i = this.names.indexOf(name);
    if (i >= 0) return i;
    this.names.push(name);
    return this.names.length - 1;
  }

  parse(): Node {
    if (this.peek().type === 'end') this.fail('expected a filter expression');
    const n = this.or();
    if (this.peek().type !== 'end') this.fail(`expected 'and', 'or' or the end`);
    return n;
  }
  private or(): Node {
    let left = this.and();
    while (this.isKeyword(this.peek(), 'or')) { this.at++; left = { kind: 'or', left, right: this.and() }; }
    return left;
  }
  private and(): Node {
    let left = this.unary();
    while (this.isKeyword(this.peek(), 'and')) { this.at++; left = { kind: 'and', left, right: this.unary() }; }
    return left;
  }
  private unary(): Node {
    if (this.isKeyword(this.peek(), 'not')) { this.at++; return { kind: 'not', inner: this.unary() }; }
    return this.primary();
  }
  private headerName(): string {
    const t = this.peek();
    if (t.type !== 'name' || (KEYWORDS.has(t.text.toLowerCase()) && !this.quoted(t))) this.fail('expected a header name');
    if (t.text.length === 0) this.fail('expected a non-empty header name');
    this.at++;
    return t.text;
  }
  private string(): Buffer {
    const t = this.peek();
    if (t.type !== 'string') this.fail(`expected a quoted string ('...')`);
    this.at++;
    return Buffer.from(t.text, 'utf8');
  }
  private primary(): Node {
    const t = this.peek();
    if (t.type === 'punct' && t.text === '(') {
      this.at++;
      const inner = this.or();
      this.expectPunct(')', `')'`);
      return inner;
    }
    if (this.isKeyword(t, 'exists')) {
      this.at++;
      this.expectPunct('(', `'(' after exists`);
      const slot = this.slot(this.headerName());
      this.expectPunct(')', `')'`);
      return { kind: 'exists', slot };
    }
    const slot = this.slot(this.headerName());
    const op = this.peek();
    if (op.type === 'punct' && (op.text === '=' || op.text === '!=')) {
      this.at++;
      const n: Node = { kind: 'in', slot, values: [this.string()] };
      return op.text === '=' ? n : { kind: 'not', inner: n };
    }
    let negate = false;
    if (this.isKeyword(op, 'not')) { this.at++; negate = true; }
    if (!this.isKeyword(this.peek(), 'in')) this.fail(negate ? `expected 'in'` : `expected '=', '!=', 'in' or 'not in'`);
    this.at++;
    this.expectPunct('(', `'(' after in`);
    const values = [this.string()];
    while (this.peek().type === 'punct' && this.peek().text === ',') { this.at++; values.push(this.string()); }
    this.expectPunct(')', `',' or ')'`);
    const n: Node = { kind: 'in', slot, values };
    return negate ? { kind: 'not', inner: n } : n;
  }
}

function readVarint(buf: Buffer, pos: number, out: Int32Array): number {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    const b = buf[pos++];
    if (b === undefined) throw new RangeError('truncated varint in a record');
    result |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) {
      const u = result >>> 0;
      out[0] = (u >>> 1) ^ -(u & 1);
      return pos;
    }
    shift += 7;
  }
  throw new RangeError('varint longer than 5 bytes in a record');
}

/** A parsed filter, ready to test records. Immutable apart from its scratch arrays; not reentrant across awaits (it never awaits). */
export class HeaderFilter {
  readonly expression: string;
  private readonly root: Node;
  private readonly names: Buffer[];
  private readonly valueStart: Int32Array;
  private readonly valueLength: Int32Array;
  private readonly v = new Int32Array(1);
  private section: Buffer = Buffer.alloc(0);

  constructor(expression: string) {
    this.expression = expression;
    const p = new Parser(tokenize(expression), expression);
    this.root = p.parse();
    this.names = p.names.map((n) => Buffer.from(n, 'utf8'));
    this.valueStart = new Int32Array(this.names.length);
    this.valueLength = new Int32Array(this.names.length);
  }

  /**
   * Whether the record whose headers begin at `section[pos]` (the header count varint) matches.
   * Throws RangeError on a malformed header section.
   */
  matchesHeadersAt(section: Buffer, pos: number): boolean {
    const names = this.names;
    const vs = this.valueStart;
    const vl = this.valueLength;
    vl.fill(ABSENT);
    const v = this.v;
    pos = readVarint(section, pos, v);
    const count = v[0];
    for (let h = 0; h < count; h++) {
      pos = readVarint(section, pos, v);
      const klen = v[0];
      if (klen < 0 || pos + klen > section.length) throw new RangeError('bad header key length');
      const kstart = pos;
      pos += klen;
      pos = readVarint(section, pos, v);
      const vlen = v[0];
      if (vlen > 0 && pos + vlen > section.length) throw new RangeError('bad header value length');
      for (let s = 0; s < names.length; s++) {
        const name = names[s];
        if (name.length !== klen) continue;
        let same = true;
        for (let k = 0; k < klen; k++) if (section[kstart + k] !== name[k]) { same = false; break; }
        if (same) { vs[s] = pos; vl[s] = vlen < 0 ? NULL_VALUE : vlen; }
      }
      if (vlen > 0) pos += vlen;
    }
    this.section = section;
    return this.evaluate(this.root);
  }

  private evaluate(n: Node): boolean {
    switch (n.kind) {
      case 'and': return this.evaluate(n.left) && this.evaluate(n.right);
      case 'or': return this.evaluate(n.left) || this.evaluate(n.right);
      case 'not': return !this.evaluate(n.inner);
      case 'exists': return this.valueLength[n.slot] !== ABSENT;
      case 'in': {
        const len = this.valueLength[n.slot];
        if (len < 0) return false;
        const start = this.valueStart[n.slot];
        const sec = this.section;
        for (const want of n.values) {
          if (want.length !== len) continue;
          let same = true;
          for (let k = 0; k < len; k++) if (sec[start + k] !== want[k]) { same = false; break; }
          if (same) return true;
        }
        return false;
      }
    }
  }
}

/** Parses `expression`; throws FilterSyntaxError pointing at the problem. */
export function parseFilter(expression: string): HeaderFilter {
  return new HeaderFilter(expression);
}

/** For the config table: null when `expression` parses, else the problem with its position. */
export function checkViewFilter(expression: string): string | null {
  // Empty (the default): no filter, the view keeps every record.
  if (expression.trim() === '') return null;
  try {
    parseFilter(expression);
    return null;
  } catch (err) {
    if (err instanceof FilterSyntaxError) return err.message;
    throw err;
  }
}
