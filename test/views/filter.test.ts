import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FilterSyntaxError, checkViewFilter, parseFilter } from '../../src/views/filter.js';
import { buildRecordBatch, type RecordHeader } from '../../src/protocol/records/record.js';
import { RECORD_BATCH_OVERHEAD } from '../../src/protocol/records/record-batch.js';

/** The records section of a one-record batch and the position of its header count. */
function headersOf(headers: RecordHeader[], key: Buffer | null = Buffer.from('k'), value: Buffer | null = Buffer.from('value')): { section: Buffer; pos: number } {
  const batch = buildRecordBatch({ records: [{ key, value, headers }] });
  const section = batch.subarray(RECORD_BATCH_OVERHEAD);
  // length varint, attributes, timestamp delta (0), offset delta (0), key, value
  let pos = 0;
  const varint = (): number => {
    let r = 0; let shift = 0;
    for (;;) { const b = section[pos++]; r |= (b & 0x7f) << shift; if ((b & 0x80) === 0) break; shift += 7; }
    return (r >>> 1) ^ -(r & 1);
  };
  varint(); pos++; varint(); varint();
  const kl = varint(); if (kl > 0) pos += kl;
  const vl = varint(); if (vl > 0) pos += vl;
  return { section, pos };
}

function matches(expr: string, headers: Record<string, string | null>): boolean {
  const h = Object.entries(headers).map(([key, v]) => ({ key, value: v === null ? null : Buffer.from(v) }));
  const { section, pos } = headersOf(h);
  return parseFilter(expr).matchesHeadersAt(section, pos);
}

test('equality, inequality and in-lists compare header values', () => {
  assert.ok(matches("tag = 'paid'", { tag: 'paid' }));
  assert.not.ok(matches("tag = 'paid'", { tag: 'paidx' }));
  assert.not.ok(matches("tag = 'paid'", { other: 'paid' }));
  assert.ok(matches("tag != 'paid'", { tag: 'new' }));
  assert.ok(matches("tag != 'paid'", {}), 'an absent header differs from every value');
  assert.ok(matches("tag in ('paid', 'refunded')", { tag: 'refunded' }));
  assert.not.ok(matches("tag in ('paid', 'refunded')", { tag: 'new' }));
  assert.ok(matches("tag not in ('paid', 'refunded')", { tag: 'new' }));
});

test('exists, not, and, or and parentheses combine with the usual precedence', () => {
  assert.ok(matches('exists(trace)', { trace: 'x' }));
  assert.ok(matches('exists(trace)', { trace: null }), 'a null-valued header exists');
  assert.not.ok(matches("trace = ''", { trace: null }), 'a null value equals no string');
  assert.not.ok(matches('exists(trace)', { tag: 'x' }));
  assert.ok(matches("not exists(trace) and tag = 'a'", { tag: 'a' }));
  assert.ok(matches("tag = 'a' or tag = 'b' and exists(z)", { tag: 'a' }), 'and binds tighter than or');
  assert.not.ok(matches("(tag = 'a' or tag = 'b') and exists(z)", { tag: 'a' }));
  assert.ok(matches("NOT (tag = 'a') OR x = 'y'", { tag: 'b' }), 'keywords are case-insensitive');
});

test('quoted names, escaped quotes, utf-8 values and the last of repeated headers', () => {
  assert.ok(matches(`"and" = 'it''s'`, { and: "it's" }));
  assert.ok(matches("region = 'zürich'", { region: 'zürich' }));
  assert.ok(matches("x-trace.id = '1'", { 'x-trace.id': '1' }));
  const { section, pos } = headersOf([{ key: 'tag', value: Buffer.from('a') }, { key: 'tag', value: Buffer.from('b') }]);
  assert.ok(parseFilter("tag = 'b'").matchesHeadersAt(section, pos));
  assert.not.ok(parseFilter("tag = 'a'").matchesHeadersAt(section, pos));
});

test('a record without key or value is matched on its headers', () => {
  const { section, pos } = headersOf([{ key: 'tag', value: Buffer.from('paid') }], null, null);
  assert.ok(parseFilter("tag = 'paid'").matchesHeadersAt(section, pos));
});

test('syntax errors name the position of the problem', () => {
  const cases: [string, number, RegExp][] = [
    ['tag = paid', 7, /expected a quoted string/],
    ["tag = 'paid", 7, /unterminated string/],
    ["tag in ('a' 'b')", 13, /expected ',' or '\)'/],
    ["(tag = 'a'", 11, /expected '\)', found end of expression/],
    ["tag = 'a' tag = 'b'", 11, /expected 'and', 'or' or the end/],
    ['exists tag', 8, /expected '\(' after exists/],
    ["tag ~ 'a'", 5, /unexpected character '~'/],
    ["and = 'a'", 1, /expected a header name/],
    ['', 1, /expected a filter expression/],
  ];
  for (const [expr, pos, re] of cases) {
    try {
      parseFilter(expr);
      assert.unreachable(`${expr} parsed`);
    } catch (err) {
      assert.instance(err, FilterSyntaxError, expr);
      assert.is((err as FilterSyntaxError).position, pos, `${expr}: ${(err as Error).message}`);
      assert.match((err as Error).message, re, expr);
    }
  }
  assert.is(checkViewFilter(''), null, 'the empty default is no filter');
  assert.match(checkViewFilter('tag = paid') ?? '', /at position 7 of 'tag = paid'/);
});

test.run();
