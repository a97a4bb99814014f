/**
 * The JSON reader and canonical writer of the JSON Schema provider (json-schema.ts), compatible with
 * the text Jackson gives Confluent: an order-preserving tree (a repeated key keeps its first place
 * and last value, numbers kept as written), written compact with Jackson's string escapes, integers
 * as written (`-0` is `0`) and decimals as Java's `BigDecimal.toString()`; optionally with every
 * object's keys sorted in Java String order (normalize). Also the plain-value copy ajv checks.
 */

// ---------------------------------------------------------------------------------------------
// An order-preserving JSON tree (JavaScript objects would move integer-like keys first)
// ---------------------------------------------------------------------------------------------

/** A JSON number, kept as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
export type JsonObject = Map<string, JsonValue>;

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Parses text that `JSON.parse` has already accepted, keeping key order and number spelling. */
export function parseOrdered(text: string): JsonValue {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const str = (): string => {
    i++; // opening quote
    let out = '';
    let start = i;
    while (text[i] !== '"') {
      if (text[i] === '\\') {
        out += text.slice(start, i);
        const c = text[i + 1]!;
        if (c === 'u') {
          out += String.fromCharCode(parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else {
          out += c === 'b' ? '\b' : c === 'f' ? '\f' : c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c;
          i += 2;
        }
        start = i;
      } else {
        i++;
      }
    }
    out += text.slice(start, i);
    i++; // closing quote
    return out;
  };
  const value = (): JsonValue => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: JsonObject = new Map();
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        const key = str();
        ws();
        i++; // colon
        obj.set(key, value());
        ws();
        if (text[i++] === '}') return obj;
      }
    }
    if (c === '[') {
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i++] === ']') return arr;
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text)!;
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  return value();
}

/** A number as Jackson (integers) or Java's BigDecimal.toString() (decimals) writes it. */
export function javaNumberText(text: string): string {
  if (!/[.eE]/.test(text)) return text === '-0' ? '0' : text;
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return text;
  const fraction = m[3] ?? '';
  const digits = (m[2]! + fraction).replace(/^0+(?=\d)/, '');
  const scale = fraction.length - (m[4] === undefined ? 0 : parseInt(m[4], 10));
  const negative = m[1] === '-' && digits !== '0';
  const adjusted = -scale + (digits.length - 1);
  let out: string;
  if (scale >= 0 && adjusted >= -6) {
    if (scale === 0) out = digits;
    else if (digits.length > scale) out = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
    else out = `0.${'0'.repeat(scale - digits.length)}${digits}`;
  } else {
    out = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    if (adjusted !== 0) out += `E${adjusted > 0 ? '+' : ''}${adjusted}`;
  }
  return negative ? `-${out}` : out;
}

/** A string as Jackson quotes it. */
function javaQuote(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    start = i + 1;
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += '\\\\'; break;
      case 0x08: out += '\\b'; break;
      case 0x09: out += '\\t'; break;
      case 0x0a: out += '\\n'; break;
      case 0x0c: out += '\\f'; break;
      case 0x0d: out += '\\r'; break;
      default: out += `\\u00${c.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out + s.slice(start) + '"';
}

function compareJavaStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compact JSON as Jackson writes it; with `sorted`, every object's keys in Java String order. */
export function writeJava(v: JsonValue, sorted = false): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return javaQuote(v);
  if (v instanceof JsonNumber) return javaNumberText(v.text);
  if (Array.isArray(v)) return `[${v.map((e) => writeJava(e, sorted)).join(',')}]`;
  const keys = [...v.keys()];
  if (sorted) keys.sort(compareJavaStrings);
  return `{${keys.map((k) => `${javaQuote(k)}:${writeJava(v.get(k)!, sorted)}`).join(',')}}`;
}

export function sortTree(v: JsonValue): JsonValue {
  if (Array.isArray(v)) return v.map(sortTree);
  if (!(v instanceof Map)) return v;
  const out: JsonObject = new Map();
  for (const k of [...v.keys()].sort(compareJavaStrings)) out.set(k, sortTree(v.get(k)!));
  return out;
}

/** The tree as plain JavaScript values (what ajv takes). */
export function toPlain(v: JsonValue): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (Array.isArray(v)) return v.map(toPlain);
  if (!(v instanceof Map)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, e] of v) Object.defineProperty(out, k, { value: toPlain(e), enumerable: true, writable: true, configurable: true });
  return out;
}
