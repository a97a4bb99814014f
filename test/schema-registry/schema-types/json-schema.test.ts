/**
 * The JSON schema provider (src/schema-registry/schema-types/json-schema.ts and json-schema-diff.ts):
 * parse errors, `$ref`s to referenced schemas, the canonical text Confluent stores (Jackson's
 * compact writing: key order kept, Java number spelling, Jackson's escapes), Confluent's normalized
 * form (keys sorted), and a table of compatibility cases checked in both directions against the
 * Difference types and paths Confluent's json.diff package reports, plus the exact message texts.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonSchemaProvider } from '../../../src/schema-registry/schema-types/json-schema.js';
import { javaHashMapOrder } from '../../../src/schema-registry/schema-types/json-schema-diff.js';
import {
  type CompatibilityDirection,
  InvalidSchemaError,
  type ParsedSchema,
  type ResolvedReference,
} from '../../../src/schema-registry/schema-types/schema-type.js';

const text = (schema: string | object | boolean): string => (typeof schema === 'string' ? schema : JSON.stringify(schema));
const parse = (schema: string | object | boolean, refs: ResolvedReference[] = []): ParsedSchema => jsonSchemaProvider.parse(text(schema), refs);
const canonical = (schema: string | object | boolean, refs: ResolvedReference[] = []): string => parse(schema, refs).canonical;
const normalized = (schema: string | object | boolean): string => parse(schema).normalize().canonical;
const ref = (name: string, schema: object, references: ResolvedReference[] = []): ResolvedReference => ({ name, schema: JSON.stringify(schema), references });

function parseError(schema: string | object | boolean, refs: ResolvedReference[] = []): string {
  try {
    parse(schema, refs);
  } catch (err) {
    assert.instance(err, InvalidSchemaError);
    return (err as Error).message;
  }
  throw new Error(`expected a parse error, but it parsed: ${text(schema)}`);
}

function check(direction: CompatibilityDirection, proposed: string | object | boolean, existing: string | object | boolean,
  proposedRefs: ResolvedReference[] = [], existingRefs: ResolvedReference[] = []): string[] {
  return jsonSchemaProvider.checkCompatibility(direction, parse(proposed, proposedRefs), parse(existing, existingRefs));
}

/** A message reduced to "ERROR_TYPE #/path" (the path quoted in its description, if any). */
function brief(message: string): string {
  const m = /^\{errorType:"([A-Z_]+)", description:"(?:[^']*'([^']*)')?/.exec(message);
  if (!m) throw new Error(`not a Confluent difference message: ${message}`);
  return m[2] === undefined ? m[1]! : `${m[1]} ${m[2]}`;
}

// --- parsing ---

test('parse: not JSON, or JSON that is not a schema, is an InvalidSchemaError', () => {
  assert.is(parseError('{"type": "string"'), `Invalid JSON {"type": "string": Expected ',' or '}' after property value in JSON at position 17`);
  assert.is(parseError('{"type":"string"} trailing'), `Invalid JSON {"type":"string"} trailing: Unexpected non-whitespace character after JSON at position 18`);
  assert.is(parseError(''), 'Invalid JSON Schema: the schema is empty');
  assert.is(parseError('[{"type":"string"}]'), 'Invalid JSON Schema: a schema must be a JSON object or a boolean');
  assert.is(parseError('"string"'), 'Invalid JSON Schema: a schema must be a JSON object or a boolean');
  assert.is(parseError('null'), 'Invalid JSON Schema: a schema must be a JSON object or a boolean');
  assert.is(parseError({ type: 'strin' }),
    'Invalid JSON Schema: schema is invalid: data/type must be equal to one of the allowed values, data/type must be array, data/type must match a schema in anyOf');
  assert.is(parseError({ type: 'string', minLength: 'x' }), 'Invalid JSON Schema: schema is invalid: data/minLength must be integer');
  assert.is(parseError({ properties: { a: 5 } }), 'Invalid JSON Schema: schema is invalid: data/properties/a must be object,boolean');
  assert.is(parseError({ type: 'string', pattern: '(' }), 'Invalid JSON Schema: Invalid regular expression: /(/u: Unterminated group');
  assert.is(parseError({ patternProperties: { '[': {} } }), 'Invalid JSON Schema: Invalid regular expression: /[/u: Unterminated character class');
  assert.is(parseError({ properties: { a: { $ref: '#/definitions/missing' } } }), "Invalid JSON Schema: cannot resolve $ref '#/definitions/missing'");
});

test('parse: unknown keywords and formats are allowed (strict mode off), booleans are schemas', () => {
  assert.is(canonical({ type: 'string', format: 'no-such-format', 'x-extension': { a: 1 }, 'connect.index': 3 }),
    '{"type":"string","format":"no-such-format","x-extension":{"a":1},"connect.index":3}');
  assert.is(canonical(true), 'true');
  assert.is(canonical(' false '), 'false');
  assert.is(canonical({}), '{}');
});

test('parse: $schema picks the draft (draft-07 by default, as Confluent)', () => {
  // draft-04: boolean exclusive limits and `id`
  assert.is(canonical({ $schema: 'http://json-schema.org/draft-04/schema#', id: 'x', type: 'number', maximum: 3, exclusiveMaximum: true }),
    '{"$schema":"http://json-schema.org/draft-04/schema#","id":"x","type":"number","maximum":3,"exclusiveMaximum":true}');
  // draft-06 and draft-07: numeric exclusive limits only
  assert.is(parseError({ $schema: 'http://json-schema.org/draft-06/schema#', exclusiveMinimum: true }),
    'Invalid JSON Schema: schema is invalid: data/exclusiveMinimum must be number');
  assert.is(parseError({ exclusiveMaximum: false }), 'Invalid JSON Schema: schema is invalid: data/exclusiveMaximum must be number');
  // 2019-09 still has array `items`; 2020-12 has prefixItems instead
  parse({ $schema: 'https://json-schema.org/draft/2019-09/schema', items: [{ type: 'string' }] });
  assert.is(parseError({ $schema: 'https://json-schema.org/draft/2020-12/schema', items: [{ type: 'string' }] }),
    'Invalid JSON Schema: schema is invalid: data/items must be object,boolean');
  parse({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [{ type: 'string' }], items: false, $defs: { a: { type: 'integer' } } });
  // an unknown meta-schema URL is read as draft-07
  assert.is(parseError({ $schema: 'https://example.com/my-meta', minItems: -1 }), 'Invalid JSON Schema: schema is invalid: data/minItems must be >= 0');
});

test('references: a $ref names a referenced schema by its reference name; references of references resolve too', () => {
  const main = { type: 'object', properties: { home: { $ref: 'address.json' } } };
  assert.is(parseError(main), "Invalid JSON Schema: cannot resolve $ref 'address.json' (register it as a reference)");
  const country = ref('country.json', { type: 'string', maxLength: 2 });
  const address = ref('address.json', { type: 'object', properties: { country: { $ref: 'country.json' } } }, [country]);
  assert.is(canonical(main, [address]), '{"type":"object","properties":{"home":{"$ref":"address.json"}}}');
  // a relative `./` spelling reaches the same reference
  parse({ properties: { home: { $ref: './address.json' } } }, [address]);
  // a fragment into a reference
  parse({ properties: { c: { $ref: 'defs.json#/definitions/code' } } }, [ref('defs.json', { definitions: { code: { type: 'integer' } } })]);
  assert.is(parseError({ properties: { c: { $ref: 'defs.json#/definitions/nope' } } }, [ref('defs.json', { definitions: {} })]),
    "Invalid JSON Schema: cannot resolve $ref 'defs.json#/definitions/nope'");
  // a reference that is not JSON
  assert.is(parseError(main, [{ name: 'address.json', schema: '{', references: [] }]),
    "Invalid JSON Schema: reference 'address.json': Invalid JSON {: Expected property name or '}' in JSON at position 1");
});

test('references: names resolve against the root $id, absolute names as they are', () => {
  const address = ref('https://example.com/schemas/address.schema.json', { type: 'object' });
  const relative = { $id: 'https://example.com/schemas/person.schema.json', properties: { a: { $ref: 'address.schema.json' } } };
  const absolute = { properties: { a: { $ref: 'https://example.com/schemas/address.schema.json' } } };
  parse(relative, [address]);
  parse(absolute, [address]);
  // a relative reference name is resolved against the root's $id as well
  parse(relative, [ref('address.schema.json', { type: 'object' })]);
  // an embedded $id and a draft-07 `#anchor` id are targets too
  parse({ $id: 'https://example.com/root.json', definitions: { a: { $id: '#addr', type: 'string' }, b: { $id: 'b.json', type: 'integer' } },
    properties: { x: { $ref: '#addr' }, y: { $ref: 'b.json' } } });
});

// --- the canonical text and the normalized form ---

test('canonical: compact, keys in document order (integer-like keys too), a repeated key keeps its place and last value', () => {
  assert.is(canonical('{\n  "type" : "object",\n  "properties" : { "b" : {"type":"string"}, "10" : {"type":"integer"}, "2": {} }\n}'),
    '{"type":"object","properties":{"b":{"type":"string"},"10":{"type":"integer"},"2":{}}}');
  assert.is(canonical('{"title":"a","type":"string","title":"b"}'), '{"title":"b","type":"string"}');
  assert.is(canonical('{"enum":[3,1,2]}'), '{"enum":[3,1,2]}');
});

test('canonical: numbers as Jackson writes them (integers as written, decimals as BigDecimal.toString)', () => {
  const num = (n: string): string => canonical(`{"const":${n}}`).slice('{"const":'.length, -1);
  assert.equal(
    ['0', '-0', '7', '-12', '12345678901234567890', '1.0', '1.50', '-0.0', '0.000001', '0.0000001', '1e3', '1E+3', '1.5e2', '2.50e-3', '-1e-7', '10e0', '0e5', '123.456e-10'].map(num),
    ['0', '0', '7', '-12', '12345678901234567890', '1.0', '1.50', '0.0', '0.000001', '1E-7', '1E+3', '1E+3', '1.5E+2', '0.00250', '-1E-7', '10', '0E+5', '1.23456E-8'],
  );
});

test('canonical: strings escaped as Jackson does (short escapes, other controls \\u00XX upper-case, nothing else)', () => {
  assert.is(canonical(String.raw`{"description":"q\" b\\ s\/ \b\f\n\r\t \u0001\u001f é € 😀 \u00e9"}`),
    String.raw`{"description":"q\" b\\ s/ \b\f\n\r\t \u0001\u001F é € 😀 é"}`);
  assert.is(canonical('{"properties":{"a\\"b":{}}}'), '{"properties":{"a\\"b":{}}}');
});

test('normalize: every object\'s keys sorted (Java String order), arrays kept in order; idempotent', () => {
  const schema = '{"type":"object","required":["b","a"],"properties":{"b":{"type":"string","maxLength":5},"a":{"type":"integer"},"B":{},"_":{},"10":{},"9":{}},"additionalProperties":false}';
  const n = parse(schema).normalize();
  assert.is(n.canonical,
    '{"additionalProperties":false,"properties":{"10":{},"9":{},"B":{},"_":{},"a":{"type":"integer"},"b":{"maxLength":5,"type":"string"}},"required":["b","a"],"type":"object"}');
  assert.is(n.normalize().canonical, n.canonical);
  assert.is(n.schemaType, 'JSON');
  // two spellings of one schema: different canonical texts, one normalized form
  const other = '{"properties":{"a":{"type":"integer"},"b":{"maxLength":5,"type":"string"},"B":{},"_":{},"9":{},"10":{}},"additionalProperties":false,"type":"object","required":["b","a"]}';
  assert.is.not(canonical(other), canonical(schema));
  assert.is(normalized(other), n.canonical);
  assert.is(normalized('{"const": 1.50, "default": {"z": 1, "y": [ {"b":1,"a":2} ]}}'), '{"const":1.50,"default":{"y":[{"a":2,"b":1}],"z":1}}');
});

test('the parsed schema keeps its references and the normalized one too', () => {
  const refs = [ref('a.json', { type: 'string' })];
  const p = parse({ $ref: 'a.json' }, refs);
  assert.is(p.references, refs);
  assert.is(p.normalize().references, refs);
});

// --- compatibility ---

const obj = (properties: object, extra: object = {}) => ({ type: 'object', properties, ...extra });
const closed = (properties: object, extra: object = {}) => obj(properties, { additionalProperties: false, ...extra });
const str = { type: 'string' };
const int = { type: 'integer' };

/** [what, old schema, new schema, BACKWARD differences, FORWARD differences] */
const CASES: Array<[string, string | object | boolean, string | object | boolean, string[], string[]]> = [
  ['identical', obj({ a: str }), obj({ a: str }), [], []],
  ['optional property added to an open model', obj({ a: str }), obj({ a: str, b: int }),
    ['OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b'], []],
  ['required property added to an open model', obj({ a: str }), obj({ a: str, b: int }, { required: ['b'] }),
    ['REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b'], []],
  ['required property with a default added to an open model', obj({ a: str }), obj({ a: str, b: { type: 'integer', default: 0 } }, { required: ['b'] }),
    ['REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b'], []],
  ['property with an empty schema added to an open model', obj({ a: str }), obj({ a: str, b: {} }), [], []],
  ['optional property added to a closed model', closed({ a: str }), closed({ a: str, b: int }),
    [], ['PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b']],
  ['required property added to a closed model', closed({ a: str }), closed({ a: str, b: int }, { required: ['b'] }),
    ['REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b'], ['PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b']],
  ['required property with a default added to a closed model', closed({ a: str }), closed({ a: str, b: { type: 'integer', default: 1 } }, { required: ['b'] }),
    [], ['PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b']],
  ['property `false` removed from a closed model', closed({ a: str, b: false }), closed({ a: str }), [], []],
  ['property added, narrower than its patternProperties schema', closed({ a: str }, { patternProperties: { '^n_': { type: 'number' } } }),
    closed({ a: str, n_1: int }, { patternProperties: { '^n_': { type: 'number' } } }),
    ['TYPE_NARROWED #/properties/n_1', 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/n_1'], []],
  ['property added, not covered by additionalProperties', obj({ a: str }, { additionalProperties: str }), obj({ a: str, b: int }, { additionalProperties: str }),
    ['TYPE_CHANGED #/properties/b', 'PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b'],
    ['TYPE_CHANGED #/properties/b', 'PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL #/properties/b']],
  ['required added to an existing property', obj({ a: str }), obj({ a: str }, { required: ['a'] }), ['REQUIRED_ATTRIBUTE_ADDED #/required/a'], []],
  ['required with a default added to an existing property', obj({ a: str }), obj({ a: { type: 'string', default: 'x' } }, { required: ['a'] }), [], []],
  ['property type changed', obj({ a: str }), obj({ a: int }), ['TYPE_CHANGED #/properties/a'], ['TYPE_CHANGED #/properties/a']],
  ['integer widened to number', obj({ a: int }), obj({ a: { type: 'number' } }), [], ['TYPE_NARROWED #/properties/a']],
  ['boolean to null', { type: 'boolean' }, { type: 'null' }, ['TYPE_CHANGED #/'], ['TYPE_CHANGED #/']],
  ['additionalProperties closed', obj({ a: str }), closed({ a: str }), ['ADDITIONAL_PROPERTIES_REMOVED #/additionalProperties'], []],
  ['additionalProperties given a schema', obj({ a: str }), obj({ a: str }, { additionalProperties: str }), ['ADDITIONAL_PROPERTIES_NARROWED #/additionalProperties'], []],
  ['additionalProperties schema changed', obj({}, { additionalProperties: str }), obj({}, { additionalProperties: int }),
    ['TYPE_CHANGED #/additionalProperties'], ['TYPE_CHANGED #/additionalProperties']],
  ['dependency added', obj({ a: str, b: str }), obj({ a: str, b: str }, { dependencies: { a: ['b'] } }), ['DEPENDENCY_ARRAY_ADDED #/dependencies/a'], []],
  ['dependency extended', obj({ a: str, b: str, c: str }, { dependencies: { a: ['b'] } }), obj({ a: str, b: str, c: str }, { dependencies: { a: ['b', 'c'] } }),
    ['DEPENDENCY_ARRAY_EXTENDED #/dependencies/a'], []],
  ['minProperties increased, maxProperties added', { type: 'object', minProperties: 1 }, { type: 'object', minProperties: 2, maxProperties: 5 },
    ['MAX_PROPERTIES_ADDED #/maxProperties', 'MIN_PROPERTIES_INCREASED #/minProperties'], []],
  ['maxLength added', str, { type: 'string', maxLength: 10 }, ['MAX_LENGTH_ADDED #/maxLength'], []],
  ['maxLength decreased, minLength increased', { type: 'string', maxLength: 10, minLength: 1 }, { type: 'string', maxLength: 5, minLength: 2 },
    ['MAX_LENGTH_DECREASED #/maxLength', 'MIN_LENGTH_INCREASED #/minLength'], []],
  ['minLength added', str, { type: 'string', minLength: 1 }, ['MIN_LENGTH_ADDED #/minLength'], []],
  ['pattern added', str, { type: 'string', pattern: '^a' }, ['PATTERN_ADDED #/pattern'], []],
  ['pattern changed', { type: 'string', pattern: '^a' }, { type: 'string', pattern: '^b' }, ['PATTERN_CHANGED #/pattern'], ['PATTERN_CHANGED #/pattern']],
  ['maximum decreased, minimum added', { type: 'number', maximum: 10 }, { type: 'number', maximum: 5, minimum: 0 },
    ['MAXIMUM_DECREASED #/maximum', 'MINIMUM_ADDED #/minimum'], []],
  ['exclusive limits', { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 10 }, { type: 'number', exclusiveMinimum: 1, exclusiveMaximum: 9 },
    ['EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum', 'EXCLUSIVE_MINIMUM_INCREASED #/exclusiveMinimum'], []],
  ['exclusiveMaximum added', { type: 'number' }, { type: 'number', exclusiveMaximum: 9 }, ['EXCLUSIVE_MAXIMUM_ADDED #/exclusiveMaximum'], []],
  ['multipleOf expanded', { type: 'integer', multipleOf: 2 }, { type: 'integer', multipleOf: 4 }, ['MULTIPLE_OF_EXPANDED #/multipleOf'], []],
  ['multipleOf changed', { type: 'integer', multipleOf: 3 }, { type: 'integer', multipleOf: 4 },
    ['MULTIPLE_OF_CHANGED #/multipleOf'], ['MULTIPLE_OF_CHANGED #/multipleOf']],
  ['multipleOf added', { type: 'number' }, { type: 'number', multipleOf: 0.5 }, ['MULTIPLE_OF_ADDED #/multipleOf'], []],
  ['multipleOf fractional, halved', { type: 'number', multipleOf: 0.5 }, { type: 'number', multipleOf: 0.25 }, [], ['MULTIPLE_OF_EXPANDED #/multipleOf']],
  ['items schema changed', { type: 'array', items: str }, { type: 'array', items: int }, ['TYPE_CHANGED #/items'], ['TYPE_CHANGED #/items']],
  ['items schema added', { type: 'array' }, { type: 'array', items: str }, ['SCHEMA_ADDED'], []],
  ['minItems increased, maxItems added, uniqueItems added', { type: 'array', minItems: 1 }, { type: 'array', minItems: 2, maxItems: 3, uniqueItems: true },
    ['MAX_ITEMS_ADDED #/maxItems', 'MIN_ITEMS_INCREASED #/minItems', 'UNIQUE_ITEMS_ADDED #/uniqueItems'], []],
  ['tuple item added to an open array', { type: 'array', items: [str] }, { type: 'array', items: [str, int] }, ['ITEM_ADDED_TO_OPEN_CONTENT_MODEL #/items/1'], []],
  ['tuple item added to a closed array', { type: 'array', items: [str], additionalItems: false }, { type: 'array', items: [str, int], additionalItems: false },
    [], ['ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1']],
  ['additionalItems closed', { type: 'array', items: [str] }, { type: 'array', items: [str], additionalItems: false }, ['ADDITIONAL_ITEMS_REMOVED #/additionalItems'], []],
  ['additionalItems given a schema', { type: 'array', items: [str] }, { type: 'array', items: [str], additionalItems: int },
    ['ADDITIONAL_ITEMS_NARROWED #/additionalItems'], []],
  ['2020-12 prefixItems item added to a closed array',
    { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [str], items: false },
    { $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [str, int], items: false },
    [], ['ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL #/items/1']],
  ['enum extended', { enum: ['a', 'b'] }, { enum: ['a', 'b', 'c'] }, [], ['ENUM_ARRAY_NARROWED #/enum']],
  ['enum changed', { enum: ['a', 'b'] }, { enum: ['a', 'c'] }, ['ENUM_ARRAY_CHANGED #/enum'], ['ENUM_ARRAY_CHANGED #/enum']],
  ['enum with a type narrowed (a synthetic allOf)', { type: 'string', enum: ['a', 'b'] }, { type: 'string', enum: ['a'] },
    ['COMBINED_TYPE_SUBSCHEMAS_CHANGED #/'], []],
  ['enum removed from a typed enum', { type: 'string', enum: ['a'] }, str, [], ['TYPE_CHANGED #/']],
  ['const changed', { const: 'a' }, { const: 'b' }, ['ENUM_ARRAY_CHANGED #/const'], ['ENUM_ARRAY_CHANGED #/const']],
  ['const 1 vs 1.0 (Java equality)', { properties: { v: { const: 1 } } }, '{"properties":{"v":{"const":1.0}}}',
    ['ENUM_ARRAY_CHANGED #/properties/v/const'], ['ENUM_ARRAY_CHANGED #/properties/v/const']],
  ['made nullable with a type list', obj({ a: str }), obj({ a: { type: ['string', 'null'] } }), [], ['TYPE_CHANGED #/properties/a']],
  ['made nullable with oneOf', obj({ a: str }), obj({ a: { oneOf: [str, { type: 'null' }] } }), [], ['TYPE_CHANGED #/properties/a']],
  ['oneOf branch removed', { oneOf: [str, int, { type: 'null' }] }, { oneOf: [str, int] }, ['SUM_TYPE_NARROWED #/'], []],
  ['oneOf branch changed', { oneOf: [str, int] }, { oneOf: [str, { type: 'boolean' }] }, ['COMBINED_TYPE_SUBSCHEMAS_CHANGED #/'], ['COMBINED_TYPE_SUBSCHEMAS_CHANGED #/']],
  ['anyOf to oneOf', { anyOf: [str, int] }, { oneOf: [str, int] }, ['COMBINED_TYPE_CHANGED #/'], []],
  ['allOf extended', { allOf: [str, { maxLength: 5 }] }, { allOf: [str, { maxLength: 5 }, { minLength: 1 }] }, ['PRODUCT_TYPE_EXTENDED #/'], []],
  ['singleton oneOf unwrapped', { oneOf: [str] }, str, [], []],
  ['not widened', { not: int }, { not: { type: 'number' } }, ['NOT_TYPE_EXTENDED #/not'], []],
  ['anything to the empty schema', obj({ a: str }), {}, [], ['TYPE_CHANGED #/']],
  ['true to false', true, false, ['TYPE_CHANGED #/'], []],
  ['$ref target changed', { properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: str } },
    { properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: int } }, ['TYPE_CHANGED #/properties/a'], ['TYPE_CHANGED #/properties/a']],
  ['inlined a $ref', { properties: { a: { $ref: '#/definitions/x' } }, definitions: { x: str } }, { properties: { a: str } }, [], []],
  ['recursive schema: the comparison stops at the second visit of a pair',
    { type: 'object', properties: { v: int, kids: { type: 'array', items: { $ref: '#' } } } },
    { type: 'object', properties: { v: { type: 'number' }, kids: { type: 'array', items: { $ref: '#' } } } },
    [], ['TYPE_NARROWED #/properties/v', 'TYPE_NARROWED #/properties/kids/items/properties/v']],
];

for (const [what, older, newer, backward, forward] of CASES) {
  test(`compatibility: ${what}`, () => {
    assert.equal(check('BACKWARD', newer, older).map(brief), backward, 'BACKWARD');
    assert.equal(check('FORWARD', newer, older).map(brief), forward, 'FORWARD');
  });
}

test('compatibility: the messages, worded per direction', () => {
  const v1 = closed({ a: str });
  const v2 = closed({ a: str, b: int }, { required: ['b'] });
  assert.equal(check('BACKWARD', v2, v1), [
    `{errorType:"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", description:"The new schema has an unopen content model and has a required property at path '#/properties/b' which is missing in the old schema"}`,
  ]);
  assert.equal(check('FORWARD', v2, v1), [
    `{errorType:"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL", description:"The old schema has a closed content model and is missing a property or item present at path '#/properties/b' in the new schema"}`,
  ]);
  assert.equal(check('BACKWARD', obj({ a: str, b: int }), obj({ a: str })), [
    `{errorType:"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", description:"The new schema has an open content model and has a property or item at path '#/properties/b' which is missing in the old schema"}`,
  ]);
  assert.equal(check('BACKWARD', { type: 'string', maxLength: 5, minLength: 2, pattern: 'b' }, { type: 'string', maxLength: 10, minLength: 1, pattern: 'a' }), [
    `{errorType:"MAX_LENGTH_DECREASED", description:"The value at path '#/maxLength' in the new schema is less than its value in the old schema"}`,
    `{errorType:"MIN_LENGTH_INCREASED", description:"The value at path '#/minLength' in the new schema is more than its value in the old schema"}`,
    `{errorType:"PATTERN_CHANGED", description:"The value at path '#/pattern' is different between the new and old schema"}`,
  ]);
  assert.equal(check('FORWARD', { type: 'number' }, { type: 'number', maximum: 3 }), [
    `{errorType:"MAXIMUM_ADDED", description:"The keyword at path '#/maximum' in the old schema is not present in the new schema"}`,
  ]);
  assert.equal(check('BACKWARD', { oneOf: [str, int] }, { oneOf: [str, int, { type: 'null' }] }), [
    `{errorType:"SUM_TYPE_NARROWED", description:"An array or combined type at path '#/' has fewer elements in the new schema than the old schema"}`,
  ]);
  assert.equal(check('BACKWARD', { allOf: [str, { maxLength: 3 }] }, { allOf: [str] }), [
    `{errorType:"PRODUCT_TYPE_EXTENDED", description:"An array or combined type at path '#/' has more elements in the new schema than the old schema"}`,
  ]);
  assert.equal(check('FORWARD', obj({ a: { type: 'number' } }), obj({ a: int })), [
    `{errorType:"TYPE_NARROWED", description:"A type at path '#/properties/a' is different between the old schema and the new schema"}`,
  ]);
  const tuple = (...items: object[]) => ({ type: 'array', items, additionalItems: { type: 'boolean' } });
  assert.equal(check('BACKWARD', tuple(str, int), tuple(str)), [
    `{errorType:"TYPE_CHANGED", description:"A type at path '#/items/1' is different between the new schema and the old schema"}`,
    `{errorType:"ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", description:"The new schema has a property or item at path '#/items/1' which is missing in the old schema and is not covered by its partially open content model"}`,
  ]);
  assert.equal(check('FORWARD', tuple(str, int), tuple(str)), [
    `{errorType:"TYPE_CHANGED", description:"A type at path '#/items/1' is different between the old schema and the new schema"}`,
    `{errorType:"ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", description:"A property or item is missing in the old schema but present at path '#/items/1' in the new schema and is not covered by its partially open content model"}`,
  ]);
  // the new writer is open without an item 1: it may write one of any type, which the old reader types
  assert.equal(check('FORWARD', { type: 'array', items: [str] }, tuple(str, int)), [
    `{errorType:"ITEM_ADDED_TO_OPEN_CONTENT_MODEL", description:"The old schema has an open content model and has a property or item at path '#/items/1' which is missing in the new schema"}`,
    `{errorType:"ADDITIONAL_ITEMS_NARROWED", description:"An array or combined type at path '#/additionalItems' has fewer elements in the old schema than the new schema"}`,
  ]);
  assert.equal(check('BACKWARD', { type: 'array', items: [str] }, tuple(str, int)), []);
  assert.equal(check('BACKWARD', { type: 'array', items: str }, { type: 'array' }), [`{errorType:"SCHEMA_ADDED", description:""}`]);
});

test('compatibility: several messages come in the order of Java\'s HashMap over the property names', () => {
  const names = ['zeta', 'alpha', 'b', 'a', 'foo', 'bar', 'I_123'];
  const older = closed(Object.fromEntries(names.map((n) => [n, str])));
  const messages = check('BACKWARD', closed({}), older).map(brief);
  // buckets (spread String.hashCode & 15): zeta 0, a 1, b 2, bar 2, alpha 7, foo 7, I_123 12; a
  // shared bucket keeps insertion order ("foo".hashCode() is 101574, "bar".hashCode() 97299)
  assert.equal(messages, ['zeta', 'a', 'b', 'bar', 'alpha', 'foo', 'I_123'].map((n) => `PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/${n}`));
  assert.equal(javaHashMapOrder(['b', 'a']), ['a', 'b']);
  assert.equal(javaHashMapOrder(['q', 'a']), ['q', 'a']); // 'a' (97) and 'q' (113) share bucket 1: insertion order
  assert.equal(javaHashMapOrder(['a', 'q']), ['a', 'q']);
  assert.equal(javaHashMapOrder(['allOf', 'anyOf', 'oneOf']), ['allOf', 'oneOf', 'anyOf']);
});

test('compatibility: referenced schemas are followed, in both directions', () => {
  const main = { type: 'object', properties: { home: { $ref: 'address.json' } } };
  const v1 = [ref('address.json', { type: 'object', properties: { zip: { type: 'integer' } } })];
  const v2 = [ref('address.json', { type: 'object', properties: { zip: { type: 'number' } } })];
  assert.equal(check('BACKWARD', main, main, v2, v1), []);
  assert.equal(check('FORWARD', main, main, v2, v1).map(brief), ['TYPE_NARROWED #/properties/home/properties/zip']);
});

test('compatibility: a schema of another type is incompatible', () => {
  const avro: ParsedSchema = { schemaType: 'AVRO', canonical: '"string"', references: [], normalize() { return this; } };
  assert.equal(jsonSchemaProvider.checkCompatibility('BACKWARD', parse(str), avro), ['Incompatible because of different schema type']);
  assert.equal(jsonSchemaProvider.checkCompatibility('FORWARD', avro, parse(str)), ['Incompatible because of different schema type']);
});

test('compatibility: a normalized schema compares like the original', () => {
  const v1 = parse(closed({ b: str, a: int }));
  const v2 = parse(closed({ a: int }, { required: ['a'] })).normalize();
  assert.equal(jsonSchemaProvider.checkCompatibility('BACKWARD', v2, v1).map(brief), ['REQUIRED_ATTRIBUTE_ADDED #/required/a', 'PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b']);
  assert.equal(jsonSchemaProvider.checkCompatibility('FORWARD', v2, v1.normalize()), []);
});

test.run();
