/**
 * The AVRO schema provider: parse errors (Avro Java's messages), the canonical text Confluent
 * stores (Avro Java's Schema.toString with references written by name), Confluent's normalized
 * form, references, and Avro's reader/writer compatibility in Confluent's message format, both
 * directions. Expected texts are derived from the Java sources (Avro 1.11 Schema /
 * SchemaCompatibility, Confluent's AvroSchema / AvroSchemaUtils / Difference).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { avroProvider } from '../../../src/schema-registry/schema-types/avro.js';
import { InvalidSchemaError, type ParsedSchema, type ResolvedReference } from '../../../src/schema-registry/schema-types/schema-type.js';

const parse = (schema: string | object, refs: ResolvedReference[] = []): ParsedSchema =>
  avroProvider.parse(typeof schema === 'string' ? schema : JSON.stringify(schema), refs);
const canonical = (schema: string | object, refs: ResolvedReference[] = []): string => parse(schema, refs).canonical;
const normalized = (schema: string | object, refs: ResolvedReference[] = []): string => parse(schema, refs).normalize().canonical;

function parseError(schema: string | object, refs: ResolvedReference[] = []): string {
  try {
    parse(schema, refs);
  } catch (err) {
    assert.instance(err, InvalidSchemaError);
    return (err as Error).message;
  }
  throw new Error(`expected a parse error, but it parsed: ${typeof schema === 'string' ? schema : JSON.stringify(schema)}`);
}

const record = (name: string, fields: object[], extra: object = {}) => ({ type: 'record', name, fields, ...extra });

// --- parsing and the canonical text ---

test('primitives: a bare name, an object without properties collapses to the name, properties keep the object', () => {
  assert.is(canonical('"string"'), '"string"');
  assert.is(canonical('{"type":"int"}'), '"int"');
  assert.is(canonical(' { "type" : "long" , "logicalType" : "timestamp-millis" } '), '{"type":"long","logicalType":"timestamp-millis"}');
  // name, doc and aliases are reserved words: dropped from a primitive, not kept as properties
  assert.is(canonical('{"type":"string","name":"x","doc":"d","aliases":["y"]}'), '"string"');
  assert.is(canonical('["null","string"]'), '["null","string"]');
});

test('a record is written in Java attribute order: type, name, namespace, doc, fields, properties, aliases', () => {
  const text = '{"fields":[{"type":"int","name":"a"}],"aliases":["Old"],"custom":{"k":[1,true,null]},"doc":"A user","namespace":"com.acme","name":"User","type":"record"}';
  assert.is(canonical(text), '{"type":"record","name":"User","namespace":"com.acme","doc":"A user","fields":[{"name":"a","type":"int"}],"custom":{"k":[1,true,null]},"aliases":["Old"]}');
});

test('a field is written as name, type, doc, default, order (unless ascending), aliases, properties', () => {
  const text = '{"type":"record","name":"R","fields":[{"x-prop":"p","aliases":["b","c"],"order":"DESCENDING","default":5,"doc":"d","type":"int","name":"a"},{"name":"z","type":"string","order":"ascending"}]}';
  assert.is(canonical(text), '{"type":"record","name":"R","fields":[{"name":"a","type":"int","doc":"d","default":5,"order":"descending","aliases":["b","c"],"x-prop":"p"},{"name":"z","type":"string"}]}');
});

test('namespaces: a dotted name carries its namespace; nested types inherit it and are written without it; another one is written; the null one as ""', () => {
  const text = JSON.stringify(record('com.acme.Outer', [
    { name: 'a', type: record('Inner', [{ name: 'x', type: 'int' }]) },
    { name: 'b', type: { type: 'enum', name: 'Color', namespace: 'org.other', symbols: ['RED'] } },
    { name: 'c', type: { type: 'fixed', name: 'Hash', namespace: '', size: 4 } },
    { name: 'd', type: 'Inner' },
    { name: 'e', type: 'org.other.Color' },
    { name: 'f', type: 'com.acme.Inner' },
  ]));
  assert.is(canonical(text),
    '{"type":"record","name":"Outer","namespace":"com.acme","fields":['
    + '{"name":"a","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}},'
    + '{"name":"b","type":{"type":"enum","name":"Color","namespace":"org.other","symbols":["RED"]}},'
    + '{"name":"c","type":{"type":"fixed","name":"Hash","namespace":"","size":4}},'
    + '{"name":"d","type":"Inner"},{"name":"e","type":"org.other.Color"},{"name":"f","type":"Inner"}]}');
});

test('enum (doc, symbols, default, properties, aliases), fixed, error, array and map', () => {
  assert.is(canonical('{"type":"enum","name":"E","aliases":["a.Old"],"x":1,"default":"B","symbols":["A","B"],"doc":"e"}'),
    '{"type":"enum","name":"E","doc":"e","symbols":["A","B"],"default":"B","x":1,"aliases":["a.Old"]}');
  assert.is(canonical('{"size":16,"name":"md5","type":"fixed","namespace":"h"}'), '{"type":"fixed","name":"md5","namespace":"h","size":16}');
  assert.is(canonical('{"type":"error","name":"Oops","fields":[]}'), '{"type":"error","name":"Oops","fields":[]}');
  assert.is(canonical('{"values":{"items":"long","type":"array"},"type":"map","p":"q"}'), '{"type":"map","values":{"type":"array","items":"long"},"p":"q"}');
});

test('numbers are written as Java writes them: doubles with a fraction or an exponent, longs exactly', () => {
  const text = '{"type":"record","name":"R","fields":['
    + '{"name":"a","type":"double","default":1.0},{"name":"b","type":"double","default":1e10},'
    + '{"name":"c","type":"double","default":0.00001},{"name":"d","type":"double","default":1234.5e0},'
    + '{"name":"e","type":"long","default":9007199254740993},{"name":"f","type":"float","default":-0.0},'
    + '{"name":"g","type":"double","default":"2.5"},{"name":"h","type":"double","default":"NaN"}],'
    + '"big":123456789012345678901234567890,"small":1E-3}';
  assert.is(canonical(text), '{"type":"record","name":"R","fields":['
    + '{"name":"a","type":"double","default":1.0},{"name":"b","type":"double","default":1.0E10},'
    + '{"name":"c","type":"double","default":1.0E-5},{"name":"d","type":"double","default":1234.5},'
    + '{"name":"e","type":"long","default":9007199254740993},{"name":"f","type":"float","default":-0.0},'
    + '{"name":"g","type":"double","default":2.5},{"name":"h","type":"double","default":"NaN"}],'
    + '"big":123456789012345678901234567890,"small":0.001}');
});

test('strings are escaped as Jackson escapes them; non-ASCII is written as is', () => {
  const text = '{"type":"record","name":"R","doc":"line\\nbreak \\u0001\\u001f \\"q\\" caf\\u00e9 \\/","fields":[]}';
  assert.is(canonical(text), '{"type":"record","name":"R","doc":"line\\nbreak \\u0001\\u001F \\"q\\" café /","fields":[]}');
});

test('JSON as Avro reads it: comments allowed, a duplicate key keeps its place and takes the last value, text after the schema ignored', () => {
  assert.is(canonical('/* c */ {"type":"record", // x\n "name":"A","fields":[],"name":"B"} trailing'), '{"type":"record","name":"B","fields":[]}');
});

test('a named type is written in full once, by name afterwards (recursion included)', () => {
  const text = JSON.stringify(record('Node', [{ name: 'v', type: 'int' }, { name: 'next', type: ['null', 'Node'], default: null }]));
  assert.is(canonical(text), '{"type":"record","name":"Node","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","Node"],"default":null}]}');
  const twice = JSON.stringify(record('R', [{ name: 'a', type: { type: 'enum', name: 'E', symbols: ['X'] } }, { name: 'b', type: { type: 'array', items: 'E' } }]));
  assert.is(canonical(twice), '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"enum","name":"E","symbols":["X"]}},{"name":"b","type":{"type":"array","items":"E"}}]}');
});

test('a canonical text parses to itself', () => {
  const text = JSON.stringify(record('com.acme.R', [{ name: 'a', type: { type: 'map', values: ['null', { type: 'fixed', name: 'F', namespace: '', size: 2 }] }, default: {} }, { name: 'b', type: 'F' }], { doc: 'x' }));
  const once = canonical(text);
  assert.is(canonical(once), once);
});

test('parse errors carry Avro Java\'s messages', () => {
  const cases: [string | object, string][] = [
    ['', 'Cannot parse <null> schema'],
    ['"Foo"', 'Undefined name: "Foo"'],
    ['{"name":"x"}', 'No type: {"name":"x"}'],
    ['{"type":"recrd","name":"x"}', 'Type not supported: recrd'],
    ['{"type":"record","fields":[]}', 'No name in schema: {"type":"record","fields":[]}'],
    ['{"type":"record","name":"R"}', 'Record has no fields: {"type":"record","name":"R"}'],
    ['{"type":"record","name":"1R","fields":[]}', 'Illegal initial character: 1R'],
    ['{"type":"record","name":"a.b-c","fields":[]}', 'Illegal character in: b-c'],
    ['{"type":"fixed","name":"int","size":1}', 'Schemas may not be named after primitives: int'],
    ['{"type":"fixed","name":"F","size":"16"}', 'Invalid or no size: {"type":"fixed","name":"F","size":"16"}'],
    ['{"type":"fixed","name":"F","size":-1}', 'Invalid fixed size: -1'],
    ['{"type":"array"}', 'Array has no items type: {"type":"array"}'],
    ['{"type":"map","value":"int"}', 'Map has no values type: {"type":"map","value":"int"}'],
    ['{"type":"enum","name":"E"}', 'Enum has no symbols: {"type":"enum","name":"E"}'],
    ['{"type":"enum","name":"E","symbols":["A","B","A"]}', 'Duplicate enum symbol: A'],
    ['{"type":"enum","name":"E","symbols":["A","B"],"default":"C"}', 'The Enum Default: C is not in the enum symbol set: [A, B]'],
    ['{"type":"enum","name":"E","symbols":["A","b c"]}', 'Illegal character in: b c'],
    ['["null","string","null"]', 'Duplicate in union:null'],
    ['["int",["null"]]', 'Nested union: ["int",["null"]]'],
    ['42', 'Schema not yet supported: 42'],
    [record('R', [{ type: 'int' }]), 'No field name: {"type":"int"}'],
    [record('R', [{ name: 'a' }]), 'No field type: {"name":"a"}'],
    [record('R', [{ name: 'a', type: 'Foo' }]), '"Foo" is not a defined name. The type of the "a" field must be a defined name or a {"type": ...} expression.'],
    [record('R', [{ name: 'a', type: 'int' }, { name: 'a', type: 'string' }]), 'Duplicate field a in record R: a type:STRING pos:1 and a type:INT pos:0.'],
    [record('R', [{ name: 'a', type: record('R', []) }]), "Can't redefine: R"],
    [record('R', [{ name: 'a', type: 'int', order: 'up' }]), 'No enum constant org.apache.avro.Schema.Field.Order.UP'],
    [record('R', [{ name: 'a', type: 'int' }], { aliases: 'x' }), 'aliases not an array: {"type":"record","name":"R","fields":[{"name":"a","type":"int"}],"aliases":"x"}'],
  ];
  for (const [schema, message] of cases) assert.is(parseError(schema), message, `for ${typeof schema === 'string' ? schema : JSON.stringify(schema)}`);
  assert.match(parseError('{"type": "record", bad'), /^Invalid JSON at position 19/);
  assert.match(parseError('{"type":"int"}}'.slice(0, 10)), /^Invalid JSON/);
});

test('defaults are validated against the field type (a union against its first branch)', () => {
  const field = (type: unknown, dflt: unknown) => record('R', [{ name: 'a', type, default: dflt }]);
  assert.is(parseError(field('int', 'x')), 'Invalid default for field a: "x" not a "int"');
  assert.is(parseError(field('int', 3000000000)), 'Invalid default for field a: 3000000000 not a "int"');
  assert.is(parseError(field('int', 1.5)), 'Invalid default for field a: 1.5 not a "int"');
  assert.is(parseError(field(['null', 'string'], 'x')), 'Invalid default for field a: "x" not a ["null","string"]');
  assert.is(parseError(field(record('In', [{ name: 'x', type: 'int' }]), {})), 'Invalid default for field a: {} not a {"type":"record","name":"In","fields":[{"name":"x","type":"int"}]}');
  assert.is(parseError(field({ type: 'array', items: 'int' }, [1, 'b'])), 'Invalid default for field a: [1,"b"] not a {"type":"array","items":"int"}');
  assert.is(parseError(field('double', 'abc')), 'For input string: "abc"');
  // valid ones
  assert.is(canonical(field('long', 3000000000)), '{"type":"record","name":"R","fields":[{"name":"a","type":"long","default":3000000000}]}');
  assert.is(canonical(field(['string', 'null'], 'x')), '{"type":"record","name":"R","fields":[{"name":"a","type":["string","null"],"default":"x"}]}');
  assert.is(canonical(field('float', 7)), '{"type":"record","name":"R","fields":[{"name":"a","type":"float","default":7}]}');
  assert.is(canonical(field(record('In', [{ name: 'x', type: 'int' }, { name: 'y', type: 'int', default: 0 }]), { x: 1 })),
    '{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"In","fields":[{"name":"x","type":"int"},{"name":"y","type":"int","default":0}]},"default":{"x":1}}]}');
});

// --- references ---

const address: ResolvedReference = {
  name: 'com.acme.Address',
  schema: JSON.stringify(record('Address', [{ name: 'street', type: 'string' }, { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['HOME', 'WORK'] } }], { namespace: 'com.acme' })),
  references: [],
};

test('references: their named types are used by name and written by name, never inlined', () => {
  const main = record('com.acme.Person', [{ name: 'home', type: 'Address' }, { name: 'work', type: ['null', 'com.acme.Address'], default: null }]);
  const p = parse(main, [address]);
  assert.is(p.canonical, '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":"Address"},{"name":"work","type":["null","Address"],"default":null}]}');
  assert.equal(p.references, [address]);
  // from another namespace the full name is written
  assert.is(canonical(record('org.x.P', [{ name: 'a', type: 'com.acme.Address' }]), [address]),
    '{"type":"record","name":"P","namespace":"org.x","fields":[{"name":"a","type":"com.acme.Address"}]}');
  // a type nested in a reference is a name too
  assert.is(canonical(record('org.x.P', [{ name: 'k', type: 'com.acme.Kind' }]), [address]),
    '{"type":"record","name":"P","namespace":"org.x","fields":[{"name":"k","type":"com.acme.Kind"}]}');
  // the stored canonical text parses again with the same references
  assert.is(canonical(p.canonical, [address]), p.canonical);
});

test('references of references are parsed first; a missing or redefined one is an error', () => {
  const street: ResolvedReference = { name: 'street', schema: '{"type":"fixed","name":"geo.Point","size":8}', references: [] };
  const place: ResolvedReference = { name: 'place', schema: JSON.stringify(record('geo.Place', [{ name: 'at', type: 'Point' }])), references: [street] };
  assert.is(canonical(record('Trip', [{ name: 'from', type: 'geo.Place' }, { name: 'via', type: 'geo.Point' }]), [place]),
    '{"type":"record","name":"Trip","fields":[{"name":"from","type":"geo.Place"},{"name":"via","type":"geo.Point"}]}');
  // the same reference reached twice is parsed once
  assert.is(canonical('"geo.Point"', [place, street]), '"geo.Point"');
  assert.is(parseError(record('Trip', [{ name: 'from', type: 'geo.Place' }])), '"geo.Place" is not a defined name. The type of the "from" field must be a defined name or a {"type": ...} expression.');
  assert.is(parseError(record('com.acme.Address', []), [address]), "Can't redefine: com.acme.Address");
  assert.is(parseError('"x"', [{ name: 'bad', schema: '{"type":"nope"}', references: [] }]), 'Type not supported: nope');
});

// --- normalize ---

test('normalize: schemas that differ only in form normalize to the same text', () => {
  const a = '{"type":"record","name":"User","namespace":"com.acme","doc":"","aliases":["Z","A"],"fields":[{"name":"id","type":"long","order":"ascending"},{"name":"tags","type":{"type":"array","items":"string","z":1,"a":2}}],"zz":1,"aa":2}';
  const b = '{"fields":[{"type":"long","name":"id"},{"name":"tags","type":{"a":2,"type":"array","z":1,"items":{"type":"string"}}}],"name":"com.acme.User","type":"record","aa":2,"zz":1,"aliases":["com.acme.A","com.acme.Z"]}';
  assert.is.not(canonical(a), canonical(b));
  const expected = '{"type":"record","name":"User","namespace":"com.acme","fields":[{"name":"id","type":"long"},{"name":"tags","type":{"type":"array","items":"string","a":2,"z":1}}],"aa":2,"zz":1,"aliases":["A","Z"]}';
  assert.is(normalized(a), expected);
  assert.is(normalized(b), expected);
  assert.is(normalized(expected), expected);
});

test('normalize: defaults go through their type, an error becomes a record, full names replace namespaces', () => {
  const text = JSON.stringify({
    type: 'error', name: 'E', namespace: 'n', fields: [
      { name: 'd', type: 'double', default: 1 },
      { name: 'f', type: 'float', default: 0.1 },
      { name: 'g', type: ['float', 'null'], default: 2 },
      { name: 'b', type: 'bytes', default: 'Ā\u00ff' },
      { name: 'm', type: { type: 'map', values: 'double' }, default: { k: 3 } },
      { name: 'x', type: { type: 'record', name: 'In', namespace: 'o', fields: [{ name: 'y', type: 'int' }] } },
    ],
  });
  assert.is(normalized(text), '{"type":"record","name":"E","namespace":"n","fields":['
    + '{"name":"d","type":"double","default":1.0},{"name":"f","type":"float","default":0.1},'
    + '{"name":"g","type":["float","null"],"default":2.0},{"name":"b","type":"bytes","default":"?ÿ"},'
    + '{"name":"m","type":{"type":"map","values":"double"},"default":{"k":3.0}},'
    + '{"name":"x","type":{"type":"record","name":"In","namespace":"o","fields":[{"name":"y","type":"int"}]}}]}');
});

test('normalize: a valid logical type puts its attributes first, other properties are sorted', () => {
  assert.is(normalized('{"type":"bytes","b.x":1,"scale":2,"logicalType":"decimal","precision":4,"a":0}'),
    '{"type":"bytes","logicalType":"decimal","precision":4,"scale":2,"a":0,"b.x":1}');
  // precision missing: not a valid decimal, everything sorted
  assert.is(normalized('{"type":"bytes","logicalType":"decimal","a":0}'), '{"type":"bytes","a":0,"logicalType":"decimal"}');
  assert.is(normalized('{"type":"fixed","name":"D","size":4,"c":1,"logicalType":"decimal","precision":9}'),
    '{"type":"fixed","name":"D","size":4,"logicalType":"decimal","precision":9,"c":1}');
  // 4 bytes hold at most 9 digits: precision 10 is not a valid decimal
  assert.is(normalized('{"type":"fixed","name":"D","size":4,"c":1,"logicalType":"decimal","precision":10}'),
    '{"type":"fixed","name":"D","size":4,"c":1,"logicalType":"decimal","precision":10}');
  assert.is(normalized('{"type":"int","A":1,"logicalType":"date"}'), '{"type":"int","logicalType":"date","A":1}');
});

test('normalize keeps referenced types by name, and its references', () => {
  const p = parse('{"name":"Person","namespace":"com.acme","type":"record","fields":[{"type":"com.acme.Address","name":"home"}]}', [address]).normalize();
  assert.is(p.canonical, '{"type":"record","name":"Person","namespace":"com.acme","fields":[{"name":"home","type":"Address"}]}');
  assert.equal(p.references, [address]);
  assert.is(p.schemaType, 'AVRO');
});

// --- compatibility ---

const R = (...fields: object[]) => JSON.stringify(record('R', fields));
const f = (name: string, type: unknown, extra: object = {}) => ({ name, type, ...extra });
const msg = (errorType: string, description: string, additionalInfo: string) => `{errorType:'${errorType}', description:'${description}', additionalInfo:'${additionalInfo}'}`;

function check(direction: 'BACKWARD' | 'FORWARD', proposed: string, existing: string): string[] {
  return avroProvider.checkCompatibility(direction, parse(proposed), parse(existing));
}

/** [what, new (proposed) schema, old (existing) schema, BACKWARD messages, FORWARD messages] */
const table: [string, string, string, string[], string[]][] = [
  ['identical', R(f('a', 'int')), R(f('a', 'int')), [], []],
  ['add a field without a default', R(f('a', 'int'), f('b', 'string')), R(f('a', 'int')),
    [msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'b' at path '/fields/1' in the new schema has no default value and is missing in the old schema", 'b')], []],
  ['add a field with a default', R(f('a', 'int'), f('b', 'string', { default: '' })), R(f('a', 'int')), [], []],
  ['remove a field without a default', R(f('a', 'int')), R(f('a', 'int'), f('b', 'string')),
    [], [msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'b' at path '/fields/1' in the old schema has no default value and is missing in the new schema", 'b')]],
  ['remove a field with a default', R(f('a', 'int')), R(f('a', 'int'), f('b', 'string', { default: 'x' })), [], []],
  ['int to long', R(f('a', 'long')), R(f('a', 'int')),
    [], [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: LONG')]],
  ['long to double', R(f('a', 'double')), R(f('a', 'long')),
    [], [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the old schema does not match with the new schema", 'reader type: LONG not compatible with writer type: DOUBLE')]],
  ['int to float', R(f('a', 'float')), R(f('a', 'int')),
    [], [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: FLOAT')]],
  ['string to bytes', R(f('a', 'bytes')), R(f('a', 'string')), [], []],
  ['string to int', R(f('a', 'int')), R(f('a', 'string')),
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the new schema does not match with the old schema", 'reader type: INT not compatible with writer type: STRING')],
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the old schema does not match with the new schema", 'reader type: STRING not compatible with writer type: INT')]],
  ['top-level type change', '"int"', '"boolean"',
    [msg('TYPE_MISMATCH', "The type (path '/') of a field in the new schema does not match with the old schema", 'reader type: INT not compatible with writer type: BOOLEAN')],
    [msg('TYPE_MISMATCH', "The type (path '/') of a field in the old schema does not match with the new schema", 'reader type: BOOLEAN not compatible with writer type: INT')]],
  ['enum gains a symbol', R(f('e', { type: 'enum', name: 'E', symbols: ['A', 'B', 'C'] })), R(f('e', { type: 'enum', name: 'E', symbols: ['A', 'B'] })),
    [], [msg('MISSING_ENUM_SYMBOLS', "The old schema is missing enum symbols '[C]' at path '/fields/0/type/symbols' in the new schema", '[C]')]],
  ['enum loses symbols (sorted in the message)', '{"type":"enum","name":"E","symbols":["A","C"]}', '{"type":"enum","name":"E","symbols":["D","C","B","A"]}',
    [msg('MISSING_ENUM_SYMBOLS', "The new schema is missing enum symbols '[B, D]' at path '/symbols' in the old schema", '[B, D]')], []],
  ['enum gains a symbol, the old enum has a default', '{"type":"enum","name":"E","symbols":["A","B","C"],"default":"A"}', '{"type":"enum","name":"E","symbols":["A","B"],"default":"A"}', [], []],
  ['field becomes nullable', R(f('a', ['null', 'string'], { default: null })), R(f('a', 'string')),
    [], [msg('TYPE_MISMATCH', "The type (path '/fields/0/type/0') of a field in the old schema does not match with the new schema", 'reader type: STRING not compatible with writer type: NULL')]],
  ['union gains a branch', R(f('a', ['null', 'string', 'int'])), R(f('a', ['null', 'string'])),
    [], [msg('MISSING_UNION_BRANCH', "The old schema is missing a type inside a union field at path '/fields/0/type/2' in the new schema", 'reader union lacking writer type: INT')]],
  ['union branch promoted', R(f('a', ['null', 'long'])), R(f('a', ['null', 'int'])),
    [], [msg('MISSING_UNION_BRANCH', "The old schema is missing a type inside a union field at path '/fields/0/type/1' in the new schema", 'reader union lacking writer type: LONG')]],
  ['int becomes a union without int', R(f('a', ['null', 'string'], { default: null })), R(f('a', 'int')),
    [msg('MISSING_UNION_BRANCH', "The new schema is missing a type inside a union field at path '/fields/0/type' in the old schema", 'reader union lacking writer type: INT')],
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type/0') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: NULL'),
      msg('TYPE_MISMATCH', "The type (path '/fields/0/type/1') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: STRING')]],
  ['nested record gains a field', R(f('in', record('In', [f('x', 'int'), f('y', 'string')]))), R(f('in', record('In', [f('x', 'int')]))),
    [msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'y' at path '/fields/0/type/fields/1' in the new schema has no default value and is missing in the old schema", 'y')], []],
  ['array items change', R(f('a', { type: 'array', items: 'string' })), R(f('a', { type: 'array', items: 'int' })),
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type/items') of a field in the new schema does not match with the old schema", 'reader type: STRING not compatible with writer type: INT')],
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type/items') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: STRING')]],
  ['map values promoted', R(f('m', { type: 'map', values: 'double' })), R(f('m', { type: 'map', values: 'float' })),
    [], [msg('TYPE_MISMATCH', "The type (path '/fields/0/type/values') of a field in the old schema does not match with the new schema", 'reader type: FLOAT not compatible with writer type: DOUBLE')]],
  ['record renamed', JSON.stringify(record('S', [f('a', 'int')])), R(f('a', 'int')),
    [msg('NAME_MISMATCH', "The name of the schema has changed (path '/name')", 'expected: R')],
    [msg('NAME_MISMATCH', "The name of the schema has changed (path '/name')", 'expected: S')]],
  ['record renamed with the old name as an alias', JSON.stringify(record('S', [f('a', 'int')], { aliases: ['R'] })), R(f('a', 'int')),
    [], [msg('NAME_MISMATCH', "The name of the schema has changed (path '/name')", 'expected: S')]],
  ['only the namespace changes (names match unqualified)', JSON.stringify(record('b.R', [f('a', 'int')])), JSON.stringify(record('a.R', [f('a', 'int')])), [], []],
  ['renamed across namespaces with a full alias', JSON.stringify(record('com.b.S', [f('a', 'int')], { aliases: ['com.a.R'] })), JSON.stringify(record('com.a.R', [f('a', 'int')])),
    [], [msg('NAME_MISMATCH', "The name of the schema has changed (path '/name')", 'expected: com.b.S')]],
  ['field renamed with an alias', R(f('b', 'int', { aliases: ['a'] })), R(f('a', 'int')),
    [], [msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'a' at path '/fields/0' in the old schema has no default value and is missing in the new schema", 'a')]],
  ['fixed size change', R(f('h', { type: 'fixed', name: 'H', size: 8 })), R(f('h', { type: 'fixed', name: 'H', size: 16 })),
    [msg('FIXED_SIZE_MISMATCH', "The size of FIXED type field at path '/fields/0/type/size' in the new schema does not match with the old schema", 'expected: 16, found: 8')],
    [msg('FIXED_SIZE_MISMATCH', "The size of FIXED type field at path '/fields/0/type/size' in the old schema does not match with the new schema", 'expected: 8, found: 16')]],
  ['several problems, in field order', R(f('a', 'string'), f('c', 'int')), R(f('a', 'int'), f('b', 'int')),
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the new schema does not match with the old schema", 'reader type: STRING not compatible with writer type: INT'),
      msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'c' at path '/fields/1' in the new schema has no default value and is missing in the old schema", 'c')],
    [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: STRING'),
      msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'b' at path '/fields/1' in the old schema has no default value and is missing in the new schema", 'b')]],
  ['recursive record, value promoted', JSON.stringify(record('Node', [f('v', 'long'), f('next', ['null', 'Node'])])), JSON.stringify(record('Node', [f('v', 'int'), f('next', ['null', 'Node'])])),
    [], [msg('TYPE_MISMATCH', "The type (path '/fields/0/type') of a field in the old schema does not match with the new schema", 'reader type: INT not compatible with writer type: LONG')]],
  // Java's quirk: a new enum field with an enum default (no field default) is checked against the old *record*
  ['new enum field with only an enum default', R(f('a', 'int'), f('e', { type: 'enum', name: 'E', symbols: ['A'], default: 'A' })), R(f('a', 'int')),
    [msg('TYPE_MISMATCH', "The type (path '/fields/1/type') of a field in the new schema does not match with the old schema", 'reader type: ENUM not compatible with writer type: RECORD')], []],
  // Java memoizes reader/writer pairs: the second use of the same pair repeats the first one's finding
  ['the same record pair met twice', R(f('x', record('In', [f('p', 'int'), f('q', 'int')])), f('y', 'In')), R(f('x', record('In', [f('p', 'int')])), f('y', 'In')),
    [msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'q' at path '/fields/0/type/fields/1' in the new schema has no default value and is missing in the old schema", 'q'),
      msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'q' at path '/fields/0/type/fields/1' in the new schema has no default value and is missing in the old schema", 'q')], []],
];

for (const [what, proposed, existing, backward, forward] of table) {
  test(`compatibility: ${what}`, () => {
    assert.equal(check('BACKWARD', proposed, existing), backward, 'BACKWARD');
    assert.equal(check('FORWARD', proposed, existing), forward, 'FORWARD');
  });
}

test('compatibility: a schema of another type, and a reader field matching two writer fields', () => {
  const other: ParsedSchema = { schemaType: 'JSON', canonical: '{}', references: [], normalize: () => other };
  assert.equal(avroProvider.checkCompatibility('BACKWARD', other, parse('"int"')), ['Incompatible because of different schema type']);
  assert.equal(check('BACKWARD', R(f('b', 'int', { aliases: ['a'] })), R(f('a', 'int'), f('b', 'int'))),
    ['Unexpected exception during compatibility check: Reader record field b type:INT pos:0 matches multiple fields in writer record schema {"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]}']);
});

test('compatibility works on schemas with references (named types compared by name)', () => {
  const v2: ResolvedReference = { ...address, schema: JSON.stringify(record('Address', [{ name: 'street', type: 'string' }], { namespace: 'com.acme' })) };
  const person = record('com.acme.Person', [{ name: 'home', type: 'Address' }]);
  assert.equal(avroProvider.checkCompatibility('BACKWARD', parse(person, [v2]), parse(person, [address])), []);
  assert.equal(avroProvider.checkCompatibility('FORWARD', parse(person, [v2]), parse(person, [address])),
    [msg('READER_FIELD_MISSING_DEFAULT_VALUE', "The field 'kind' at path '/fields/0/type/fields/1' in the old schema has no default value and is missing in the new schema", 'kind')]);
});

test.run();
