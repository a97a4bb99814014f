/**
 * The PROTOBUF schema provider (src/schema-registry/schema-types/protobuf.ts and protobuf-diff.ts):
 * parsing and its errors, references and the bundled well-known files, Confluent's canonical and
 * normalized texts, and Confluent's compatibility rules in both directions with its exact messages.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { protobufProvider as provider } from '../../../src/schema-registry/schema-types/protobuf.js';
import { JavaHashMap } from '../../../src/schema-registry/schema-types/protobuf-diff.js';
import {
  InvalidSchemaError,
  type ParsedSchema,
  type ResolvedReference,
} from '../../../src/schema-registry/schema-types/schema-type.js';

const ref = (name: string, schema: string, references: ResolvedReference[] = []): ResolvedReference => ({ name, schema, references });

function parseError(schema: string, references: ResolvedReference[] = []): string {
  try {
    provider.parse(schema, references);
  } catch (e) {
    assert.instance(e, InvalidSchemaError);
    return (e as Error).message;
  }
  throw new Error('expected an InvalidSchemaError');
}

// ---------------------------------------------------------------------------------------------
// Parsing

test('parses a proto3 schema into a PROTOBUF schema that keeps its references', () => {
  const refs = [ref('dep.proto', 'syntax = "proto3";\npackage dep;\nmessage D {\n  int32 x = 1;\n}\n')];
  const s = provider.parse('syntax = "proto3";\nimport "dep.proto";\nmessage A {\n  dep.D d = 1;\n}\n', refs);
  assert.is(s.schemaType, 'PROTOBUF');
  assert.is(provider.schemaType, 'PROTOBUF');
  assert.equal(s.references, refs);
  assert.is(s.canonical, 'syntax = "proto3";\n\nimport "dep.proto";\n\nmessage A {\n  dep.D d = 1;\n}\n');
});

test('invalid texts are InvalidSchemaError with what is wrong, and where', () => {
  const cases: [string, string][] = [
    ['syntax = "proto3";\nmessage A {\n  int32 x = 1\n}\n', "illegal token '}', ';' expected (line 4)"],
    ['syntax = "proto3";\nmessage A {\n  int32 x = 1;\n  string x = 2;\n}\n', "duplicate name 'x' in Type A"],
    ['syntax = "proto3";\nmessage A {\n  int32 x = 1;\n  string y = 1;\n}\n', 'duplicate id 1 in Type A'],
    ['syntax = "proto3";\nmessage A {\n  reserved 2;\n  int32 x = 2;\n}\n', 'id 2 is reserved in Type A'],
    ['syntax = "proto3";\npackage a;\nmessage A {\n  Missing m = 1;\n}\n', "no such Type or Enum 'Missing' in Type .a.A"],
    ['syntax = "proto2";\nmessage A {\n  int32 x = 1;\n}\n', "illegal token 'int32' (line 3)"],
    ['syntax = "proto5";\nmessage A {}\n', "unknown syntax 'proto5' (line 1)"],
    ['{"type": "string"}', "illegal token '{' (line 1)"],
    ['  // nothing here\n', 'the schema declares nothing'],
  ];
  for (const [schema, detail] of cases) assert.is(parseError(schema), `Could not parse Protobuf - ${detail}`, schema);
});

test('an import without a reference is named when its types do not resolve', () => {
  assert.is(
    parseError('syntax = "proto3";\nimport "dep.proto";\nmessage A {\n  dep.D d = 1;\n}\n'),
    `Could not parse Protobuf - no such Type or Enum 'dep.D' in Type .A (no reference for "dep.proto")`,
  );
});

test('an error inside a reference names the reference', () => {
  const refs = [ref('dep.proto', 'syntax = "proto3";\npackage dep;\nmessage D {\n  int32 x = 1\n}\n')];
  assert.is(
    parseError('syntax = "proto3";\nimport "dep.proto";\nmessage A {\n  dep.D d = 1;\n}\n', refs),
    `Could not parse Protobuf - in the reference "dep.proto": illegal token '}', ';' expected (line 5)`,
  );
});

test('references resolve imports recursively, public imports included', () => {
  const money = ref('money.proto', 'syntax = "proto3";\npackage fin;\nmessage Money {\n  int64 cents = 1;\n}\n');
  const line = ref(
    'line.proto',
    'syntax = "proto3";\npackage shop;\nimport public "money.proto";\nmessage Line {\n  fin.Money price = 1;\n}\n',
    [money],
  );
  const s = provider.parse(
    'syntax = "proto3";\npackage shop;\nimport "line.proto";\nmessage Order {\n  repeated Line lines = 1;\n  fin.Money total = 2;\n}\n',
    [line],
  );
  assert.is(s.canonical, 'syntax = "proto3";\npackage shop;\n\nimport "line.proto";\n\nmessage Order {\n  repeated Line lines = 1;\n  fin.Money total = 2;\n}\n');
  assert.match(parseError('syntax = "proto3";\npackage shop;\nimport "line.proto";\nmessage Order {\n  Line l = 1;\n}\n', [ref(line.name, line.schema)]),
    'no reference for "money.proto"');
});

test('the well-known files Confluent bundles need no reference', () => {
  const s = provider.parse(`syntax = "proto3";
package w;
import "google/protobuf/any.proto";
import "google/protobuf/descriptor.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
import "google/type/date.proto";
import "google/type/money.proto";
import "google/type/dayofweek.proto";
import "confluent/meta.proto";
import "confluent/type/decimal.proto";
extend google.protobuf.FieldOptions {
  string unit = 50001;
}
message All {
  google.protobuf.Any any = 1;
  google.protobuf.Duration duration = 2;
  google.protobuf.Empty empty = 3;
  google.protobuf.FieldMask mask = 4;
  google.protobuf.Struct struct = 5;
  google.protobuf.Timestamp at = 6 [(unit) = "ms"];
  google.protobuf.StringValue name = 7;
  google.type.Date day = 8;
  google.type.Money price = 9;
  google.type.DayOfWeek weekday = 10;
  confluent.type.Decimal amount = 11 [(confluent.field_meta).params = { key: "scale", value: "2" }];
  google.protobuf.Value value = 12;
}
`, []);
  assert.match(s.canonical, '  confluent.type.Decimal amount = 11 [(confluent.field_meta).params = {\n    key: "scale",\n    value: "2"\n  }];\n');
});

test('a reference named like a bundled file replaces it', () => {
  const own = ref('google/type/money.proto', 'syntax = "proto3";\npackage google.type;\nmessage Cash {\n  int64 units = 1;\n}\n');
  const schema = 'syntax = "proto3";\nimport "google/type/money.proto";\nmessage A {\n  google.type.Cash c = 1;\n}\n';
  assert.is(provider.parse(schema, [own]).canonical, 'syntax = "proto3";\n\nimport "google/type/money.proto";\n\nmessage A {\n  google.type.Cash c = 1;\n}\n');
  assert.match(parseError(schema), "no such Type or Enum 'google.type.Cash'");
});

test('what Wire takes and protobufjs does not is still accepted: list option values, bundled types not imported', () => {
  const s = provider.parse(
    'syntax = "proto3";\nimport "confluent/meta.proto";\nmessage A {\n  string ssn = 1 [(confluent.field_meta).tags = ["PII", "PRIVATE"]];\n}\n',
    [],
  );
  assert.is(s.canonical, 'syntax = "proto3";\n\nimport "confluent/meta.proto";\n\nmessage A {\n  string ssn = 1 [(confluent.field_meta).tags = [\n    "PII",\n    "PRIVATE"\n  ]];\n}\n');
  const noImport = provider.parse('syntax = "proto3";\npackage x;\nextend google.protobuf.MessageOptions {\n  string owner = 50010;\n}\nmessage A {\n  option (owner) = "team";\n}\n', []);
  assert.is(noImport.canonical, 'syntax = "proto3";\npackage x;\n\nmessage A {\n  option (owner) = "team";\n}\n\nextend google.protobuf.MessageOptions {\n  string owner = 50010;\n}\n');
});

// ---------------------------------------------------------------------------------------------
// Canonical text (ProtobufSchemaUtils.toString)

const COMMON = ref('common.proto', 'syntax = "proto3";\npackage common;\nmessage Money {\n  int64 units = 1;\n  string currency = 2;\n}\n');

const ORDER = `/* Orders of the shop. */
syntax = 'proto3';
package shop.v1;

import "google/protobuf/timestamp.proto";
import "common.proto";

option java_package = "com.example.shop";
option java_multiple_files = true;

enum Status { STATUS_UNSPECIFIED = 0; PAID = 1; }

message Order {
  reserved 9, 12 to 15, "legacy";
  int64 id = 1; // the key
  repeated string tags = 2 [packed = false, deprecated = true];
  map<string, Line> lines = 3;
  google.protobuf.Timestamp created_at = 4 [json_name = "createdAt"];
  optional common.Money total = 5;
  Status status = 6;
  oneof payment {
    string card_token = 7;
    Transfer transfer = 8;
  }
  message Line { string sku = 1; uint32 quantity = 2; }
  message Transfer {
    string iban = 1;
    enum Kind { SEPA = 0; SWIFT = 1; }
    Kind kind = 2;
  }
}
`;

test('canonical text: Confluent layout, messages before enums, comments dropped', () => {
  assert.is(provider.parse(ORDER, [COMMON]).canonical, `syntax = "proto3";
package shop.v1;

import "google/protobuf/timestamp.proto";
import "common.proto";

option java_package = "com.example.shop";
option java_multiple_files = true;

message Order {
  reserved 9, 12 to 15, "legacy";

  int64 id = 1;
  repeated string tags = 2 [
    packed = false,
    deprecated = true
  ];
  map<string, Line> lines = 3;
  google.protobuf.Timestamp created_at = 4 [json_name = "createdAt"];
  optional common.Money total = 5;
  Status status = 6;

  oneof payment {
    string card_token = 7;
    Transfer transfer = 8;
  }

  message Line {
    string sku = 1;
    uint32 quantity = 2;
  }
  message Transfer {
    string iban = 1;
    Kind kind = 2;
  ${''}
    enum Kind {
      SEPA = 0;
      SWIFT = 1;
    }
  }
}
enum Status {
  STATUS_UNSPECIFIED = 0;
  PAID = 1;
}
`);
});

const LEGACY = `syntax = "proto2";
package legacy;
import "z.proto";
import "a.proto";
option optimize_for = SPEED;
option java_package = "x.legacy";
message Event {
  extensions 100 to 199;
  oneof body { string text = 5; bytes blob = 4; }
  required string id = 2;
  optional int32 version = 1 [default = 0x10];
  optional double ratio = 3 [default = 2.50000];
  reserved "old", 20, 6 to 8;
}
`;
const LEGACY_REFS = [
  ref('z.proto', 'syntax = "proto3";\npackage z;\nmessage Z {}\n'),
  ref('a.proto', 'syntax = "proto3";\npackage a;\nmessage A {}\n'),
];

test('canonical text of proto2: labels, defaults as written, extensions, sections in Confluent order', () => {
  assert.is(provider.parse(LEGACY, LEGACY_REFS).canonical, `syntax = "proto2";
package legacy;

import "z.proto";
import "a.proto";

option optimize_for = SPEED;
option java_package = "x.legacy";

message Event {
  reserved "old", 20, 6 to 8;

  required string id = 2;
  optional int32 version = 1 [default = 0x10];
  optional double ratio = 3 [default = 2.50000];

  oneof body {
    string text = 5;
    bytes blob = 4;
  }

  extensions 100 to 199;
}
`);
});

test('canonical text without a syntax line, with a service, escapes and adjacent strings', () => {
  const s = provider.parse(`import "google/protobuf/empty.proto";
option (note) = "say \\"hi\\"" ' and bye';
service Pinger {
  rpc Ping (google.protobuf.Empty) returns (stream google.protobuf.Empty) { option deprecated = true; }
}
`, []);
  assert.is(s.canonical, `
import "google/protobuf/empty.proto";

option (note) = "say \\"hi\\" and bye";

service Pinger {
  rpc Ping (google.protobuf.Empty) returns (stream google.protobuf.Empty) {
    option deprecated = true;
  };
}
`);
});

test('equal canonical texts for texts that differ only in layout; different ones otherwise', () => {
  const a = provider.parse('syntax = "proto3";\nmessage A {\n  int32 x = 1;\n  string y = 2;\n}\n', []);
  const b = provider.parse("// v1\nsyntax='proto3';message A{int32 x=1;/* y */ string y=2;}", []);
  const c = provider.parse('syntax = "proto3";\nmessage A {\n  string y = 2;\n  int32 x = 1;\n}\n', []);
  assert.is(b.canonical, a.canonical);
  assert.is.not(c.canonical, a.canonical);
  assert.is(provider.parse(a.canonical, []).canonical, a.canonical);
});

// ---------------------------------------------------------------------------------------------
// Normalized form (ProtobufSchemaUtils.toNormalizedString)

test('normalize: sorted imports, options, fields and oneofs; fully qualified types; split reserved ranges', () => {
  assert.is(provider.parse(ORDER, [COMMON]).normalize().canonical, `syntax = "proto3";
package shop.v1;

import "common.proto";
import "google/protobuf/timestamp.proto";

option java_multiple_files = true;
option java_package = "com.example.shop";

message Order {
  reserved 9;
  reserved 12 to 15;
  reserved "legacy";

  int64 id = 1;
  repeated string tags = 2 [
    deprecated = true,
    packed = false
  ];
  map<string, .shop.v1.Order.Line> lines = 3;
  .google.protobuf.Timestamp created_at = 4 [json_name = "createdAt"];
  optional .common.Money total = 5;
  .shop.v1.Status status = 6;

  oneof payment {
    string card_token = 7;
    .shop.v1.Order.Transfer transfer = 8;
  }

  message Line {
    string sku = 1;
    uint32 quantity = 2;
  }
  message Transfer {
    string iban = 1;
    .shop.v1.Order.Transfer.Kind kind = 2;
  ${''}
    enum Kind {
      SEPA = 0;
      SWIFT = 1;
    }
  }
}
enum Status {
  STATUS_UNSPECIFIED = 0;
  PAID = 1;
}
`);
});

test('normalize: proto2 syntax left out, numbers reformatted, fields by number', () => {
  assert.is(provider.parse(LEGACY, LEGACY_REFS).normalize().canonical, `package legacy;

import "a.proto";
import "z.proto";

option java_package = "x.legacy";
option optimize_for = SPEED;

message Event {
  reserved 6 to 8;
  reserved 20;
  reserved "old";

  optional int32 version = 1 [default = 16];
  required string id = 2;
  optional double ratio = 3 [default = 2.5];

  oneof body {
    bytes blob = 4;
    string text = 5;
  }

  extensions 100 to 199;
}
`);
});

test('normalize: equal for schemas that differ only in form, idempotent, references sorted', () => {
  const refs = [ref('b.proto', 'syntax = "proto3";\npackage b;\nmessage B {}\n'), ref('a.proto', 'syntax = "proto3";\npackage a;\nmessage A {}\n')];
  const x = provider.parse('syntax = "proto3";\npackage p;\nimport "b.proto";\nimport "a.proto";\nmessage M {\n  b.B second = 2;\n  a.A first = 1;\n  Inner inner = 3;\n  message Inner {}\n}\n', refs);
  const y = provider.parse('syntax = "proto3";\npackage p;\nimport "a.proto";\nimport "b.proto";\nmessage M {\n  .a.A first = 1;\n  .b.B second = 2;\n  M.Inner inner = 3;\n  message Inner {}\n}\n', refs);
  assert.is.not(x.canonical, y.canonical);
  const nx = x.normalize();
  assert.is(nx.canonical, y.normalize().canonical);
  assert.is(nx.canonical, 'syntax = "proto3";\npackage p;\n\nimport "a.proto";\nimport "b.proto";\n\nmessage M {\n  .a.A first = 1;\n  .b.B second = 2;\n  .p.M.Inner inner = 3;\n\n  message Inner {}\n}\n');
  assert.is(nx.normalize().canonical, nx.canonical);
  assert.equal(nx.references.map((r) => r.name), ['a.proto', 'b.proto']);
  assert.is(nx.schemaType, 'PROTOBUF');
});

test('normalize: custom options under their resolved names, merged into one value', () => {
  const s = provider.parse(`syntax = "proto3";
package acme;
import "confluent/meta.proto";
message Person {
  string ssn = 1 [(confluent.field_meta).tags = "PII", (confluent.field_meta).doc = "tax id", (confluent.field_meta).tags = "PRIVATE"];
  string name = 2 [(.confluent.field_meta) = { tags: ["PUBLIC"] }];
}
`, []);
  assert.is(s.normalize().canonical, `syntax = "proto3";
package acme;

import "confluent/meta.proto";

message Person {
  string ssn = 1 [(confluent.field_meta) = {
    doc: "tax id",
    tags: [
      "PII",
      "PRIVATE"
    ]
  }];
  string name = 2 [(confluent.field_meta) = {
    tags: "PUBLIC"
  }];
}
`);
});

// ---------------------------------------------------------------------------------------------
// Compatibility (Confluent's SchemaDiff)

const p3 = (body: string, references: ResolvedReference[] = []) => provider.parse(`syntax = "proto3";\npackage shop;\n${body}`, references);
const p2 = (body: string) => provider.parse(`syntax = "proto2";\n${body}`, []);

/** Confluent's message for an incompatibility, seen from the reader. */
function msg(type: string, text: (reader: string, writer: string) => string, direction: 'BACKWARD' | 'FORWARD'): string {
  const [reader, writer] = direction === 'BACKWARD' ? ['new', 'old'] : ['old', 'new'];
  return `{errorType:"${type}", description:"${text(reader, writer)}"}`;
}

const ORDER_V1 = p3('message Order {\n  int64 id = 1;\n  string note = 2;\n  Item item = 3;\n}\nmessage Item {\n  string sku = 1;\n}\n');

interface Case {
  name: string;
  existing: ParsedSchema;
  proposed: ParsedSchema;
  backward: [string, (r: string, w: string) => string][];
  forward: [string, (r: string, w: string) => string][];
}

const kindChanged = (path: string) => (r: string, w: string) => `The kind of a SCALAR field at path '${path}' in the ${r} schema does not match its kind in the ${w} schema`;
const namedTypeChanged = (path: string) => (r: string, w: string) => `The type of a MESSAGE field at path '${path}' in the ${r} schema does not match its type in the ${w} schema`;
const messageRemoved = (path: string) => (r: string, w: string) => `The ${r} schema is missing a MESSAGE type at path '${path}' in the ${w} schema`;

const MONEY_V1 = ref('money.proto', 'syntax = "proto3";\npackage fin;\nmessage Amount {\n  int64 cents = 1;\n  string currency = 2;\n}\n');
const WITH_MONEY = 'import "money.proto";\nmessage Order {\n  fin.Amount total = 1;\n}\n';

const CASES: Case[] = [
  {
    name: 'adding a field',
    existing: ORDER_V1,
    proposed: p3('message Order {\n  int64 id = 1;\n  string note = 2;\n  Item item = 3;\n  int32 quantity = 4;\n}\nmessage Item {\n  string sku = 1;\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'removing a field',
    existing: ORDER_V1,
    proposed: p3('message Order {\n  int64 id = 1;\n  Item item = 3;\n}\nmessage Item {\n  string sku = 1;\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'renaming a field and renumbering another',
    existing: ORDER_V1,
    proposed: p3('message Order {\n  int64 key = 1;\n  string note = 4;\n  Item item = 3;\n}\nmessage Item {\n  string sku = 1;\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'types that share an encoding: int64 to int32, string to bytes, enum to int32',
    existing: p3('message Order {\n  int64 id = 1;\n  string note = 2;\n  Status status = 3;\n}\nenum Status {\n  NEW = 0;\n}\n'),
    proposed: p3('message Order {\n  int32 id = 1;\n  bytes note = 2;\n  int32 status = 3;\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'types that do not: int64 to sint64, string to int32',
    existing: ORDER_V1,
    proposed: p3('message Order {\n  sint64 id = 1;\n  int32 note = 2;\n  Item item = 3;\n}\nmessage Item {\n  string sku = 1;\n}\n'),
    backward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Order/1')], ['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Order/2')]],
    forward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Order/1')], ['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Order/2')]],
  },
  {
    name: 'a message field becoming a string',
    existing: ORDER_V1,
    proposed: p3('message Order {\n  int64 id = 1;\n  string note = 2;\n  string item = 3;\n}\nmessage Item {\n  string sku = 1;\n}\n'),
    backward: [['FIELD_KIND_CHANGED', (r, w) => `The type of a field at path '#/Order/3' in the ${r} schema does not match the ${w} schema`]],
    forward: [['FIELD_KIND_CHANGED', (r, w) => `The type of a field at path '#/Order/3' in the ${r} schema does not match the ${w} schema`]],
  },
  {
    name: 'renaming a message',
    existing: ORDER_V1,
    proposed: p3('message Order {\n  int64 id = 1;\n  string note = 2;\n  Product item = 3;\n}\nmessage Product {\n  string sku = 1;\n}\n'),
    backward: [['FIELD_NAMED_TYPE_CHANGED', namedTypeChanged('#/Order/3')], ['MESSAGE_REMOVED', messageRemoved('#/Item')]],
    forward: [['FIELD_NAMED_TYPE_CHANGED', namedTypeChanged('#/Order/3')], ['MESSAGE_REMOVED', messageRemoved('#/Product')]],
  },
  {
    name: 'removing a message (adding one is compatible)',
    existing: p3('message Order {\n  int64 id = 1;\n}\nmessage Unused {\n  string x = 1;\n}\n'),
    proposed: p3('message Order {\n  int64 id = 1;\n}\n'),
    backward: [['MESSAGE_REMOVED', messageRemoved('#/Unused')]],
    forward: [],
  },
  {
    name: 'reordering messages',
    existing: ORDER_V1,
    proposed: p3('message Item {\n  string sku = 1;\n}\nmessage Order {\n  int64 id = 1;\n  string note = 2;\n  Item item = 3;\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'enum constants added, removed and renamed; an enum removed',
    existing: p3('message Order {\n  Status status = 1;\n}\nenum Status {\n  NEW = 0;\n  PAID = 1;\n  SHIPPED = 2;\n}\nenum Gone {\n  G = 0;\n}\n'),
    proposed: p3('message Order {\n  Status status = 1;\n}\nenum Status {\n  NEW = 0;\n  SETTLED = 1;\n  CANCELLED = 3;\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'an enum field becoming a string',
    existing: p3('message Order {\n  Status status = 1;\n}\nenum Status {\n  NEW = 0;\n}\n'),
    proposed: p3('message Order {\n  string status = 1;\n}\n'),
    backward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Order/1')]],
    forward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Order/1')]],
  },
  {
    name: 'removing a member of a oneof (adding one is compatible)',
    existing: p3('message Pay {\n  string id = 1;\n  oneof method {\n    string card = 2;\n    string iban = 3;\n  }\n}\n'),
    proposed: p3('message Pay {\n  string id = 1;\n  oneof method {\n    string card = 2;\n  }\n}\n'),
    backward: [['ONEOF_FIELD_REMOVED', (r, w) => `The ${r} schema is missing a oneof field at path '#/Pay/method/3' in the ${w} schema`]],
    forward: [],
  },
  {
    name: 'moving two fields into a new oneof',
    existing: p3('message Pay {\n  string card = 2;\n  string iban = 3;\n}\n'),
    proposed: p3('message Pay {\n  oneof method {\n    string card = 2;\n    string iban = 3;\n  }\n}\n'),
    backward: [['MULTIPLE_FIELDS_MOVED_TO_ONEOF', (r, w) => `Multiple fields in the oneof at path '#/Pay/method' in the ${r} schema are outside a oneof in the ${w} schema`]],
    forward: [],
  },
  {
    name: 'moving one field into a new oneof',
    existing: p3('message Pay {\n  string card = 2;\n  string iban = 3;\n}\n'),
    proposed: p3('message Pay {\n  string card = 2;\n  oneof method {\n    string iban = 3;\n  }\n}\n'),
    backward: [], forward: [],
  },
  {
    name: 'moving a field into an existing oneof',
    existing: p3('message Pay {\n  string id = 1;\n  oneof method {\n    string card = 2;\n  }\n}\n'),
    proposed: p3('message Pay {\n  oneof method {\n    string id = 1;\n    string card = 2;\n  }\n}\n'),
    backward: [['FIELD_MOVED_TO_EXISTING_ONEOF', (r, w) => `A field in the oneof at path '#/Pay/method' in the ${r} schema is outside an existing oneof in the ${w} schema`]],
    forward: [['ONEOF_FIELD_REMOVED', (r, w) => `The ${r} schema is missing a oneof field at path '#/Pay/method/1' in the ${w} schema`]],
  },
  {
    name: 'changing the package',
    existing: ORDER_V1,
    proposed: provider.parse('syntax = "proto3";\npackage store;\nmessage Order {\n  int64 id = 1;\n  string note = 2;\n  Item item = 3;\n}\nmessage Item {\n  string sku = 1;\n}\n', []),
    backward: [['PACKAGE_CHANGED', (r, w) => `The package at '#/' in the ${r} schema does not match the package in the ${w} schema`]],
    forward: [['PACKAGE_CHANGED', (r, w) => `The package at '#/' in the ${r} schema does not match the package in the ${w} schema`]],
  },
  {
    name: 'adding a required field (proto2)',
    existing: p2('message Order {\n  optional int64 id = 1;\n}\n'),
    proposed: p2('message Order {\n  optional int64 id = 1;\n  required string code = 2;\n}\n'),
    backward: [['REQUIRED_FIELD_ADDED', (r, w) => `A required field  at path '#/Order/2' in the ${r} schema is missing in the ${w} schema`]],
    forward: [['REQUIRED_FIELD_REMOVED', (r, w) => `The ${r} schema is missing a required field at path: '#/Order/2' in the ${w} schema`]],
  },
  {
    name: 'optional to repeated: incompatible for a number, compatible for a string',
    existing: p2('message Order {\n  optional int64 id = 1;\n  optional string tag = 2;\n}\n'),
    proposed: p2('message Order {\n  repeated int64 id = 1;\n  repeated string tag = 2;\n}\n'),
    backward: [['FIELD_NUMERIC_LABEL_CHANGED', (r, w) => `The label for a NUMERIC field at path '#/Order/1' in the ${r} schema does not match its label in the ${w} schema`]],
    forward: [['FIELD_NUMERIC_LABEL_CHANGED', (r, w) => `The label for a NUMERIC field at path '#/Order/1' in the ${r} schema does not match its label in the ${w} schema`]],
  },
  {
    name: 'a map value type change',
    existing: p3('message M {\n  map<string, int32> counts = 1;\n}\n'),
    proposed: p3('message M {\n  map<string, string> counts = 1;\n}\n'),
    backward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/M/1')]],
    forward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/M/1')]],
  },
  {
    name: 'a type from a reference changed incompatibly',
    existing: p3(WITH_MONEY, [MONEY_V1]),
    proposed: p3(WITH_MONEY, [ref('money.proto', 'syntax = "proto3";\npackage fin;\nmessage Amount {\n  double cents = 1;\n  string currency = 2;\n}\n')]),
    backward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Amount/1')], ['FIELD_NAMED_TYPE_CHANGED', namedTypeChanged('#/Order/1')]],
    forward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Amount/1')], ['FIELD_NAMED_TYPE_CHANGED', namedTypeChanged('#/Order/1')]],
  },
  {
    name: 'a type from a reference changed compatibly',
    existing: p3(WITH_MONEY, [MONEY_V1]),
    proposed: p3(WITH_MONEY, [ref('money.proto', 'syntax = "proto3";\npackage fin;\nmessage Amount {\n  int64 cents = 1;\n  string currency = 2;\n  string note = 3;\n}\n')]),
    backward: [], forward: [],
  },
  {
    name: 'a local message moved to a reference',
    existing: p3('message Order {\n  Amount total = 1;\n}\nmessage Amount {\n  int64 cents = 1;\n  string currency = 2;\n}\n'),
    proposed: p3('import "money.proto";\nmessage Order {\n  fin.Amount total = 1;\n}\n', [MONEY_V1]),
    backward: [['MESSAGE_REMOVED', messageRemoved('#/Amount')]],
    forward: [],
  },
  {
    name: 'a recursive message',
    existing: p3('message Node {\n  string value = 1;\n  Node next = 2;\n}\n'),
    proposed: p3('message Node {\n  int32 value = 1;\n  Node next = 2;\n}\n'),
    backward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Node/1')]],
    forward: [['FIELD_SCALAR_KIND_CHANGED', kindChanged('#/Node/1')]],
  },
  {
    // The order is Confluent's (Java HashSet iteration: TestMessage2 and TestMessage3 before TestMessage).
    name: 'a field type renamed along with its message, in Confluent order',
    existing: p3('message TestMessage {\n  TestMessage2 other = 1;\n}\nmessage TestMessage2 {\n  string s = 1;\n}\n'),
    proposed: p3('message TestMessage {\n  TestMessage3 other = 1;\n}\nmessage TestMessage3 {\n  string s = 1;\n}\n'),
    backward: [['MESSAGE_REMOVED', messageRemoved('#/TestMessage2')], ['FIELD_NAMED_TYPE_CHANGED', namedTypeChanged('#/TestMessage/1')]],
    forward: [['MESSAGE_REMOVED', messageRemoved('#/TestMessage3')], ['FIELD_NAMED_TYPE_CHANGED', namedTypeChanged('#/TestMessage/1')]],
  },
];

for (const c of CASES) {
  test(`compatibility: ${c.name}`, () => {
    for (const direction of ['BACKWARD', 'FORWARD'] as const) {
      const expected = (direction === 'BACKWARD' ? c.backward : c.forward).map(([type, text]) => msg(type, text, direction));
      assert.equal(provider.checkCompatibility(direction, c.proposed, c.existing), expected, direction);
    }
  });
}

test('compatibility with a schema of another type', () => {
  const other: ParsedSchema = { schemaType: 'AVRO', canonical: '"string"', references: [], normalize: () => other };
  assert.equal(provider.checkCompatibility('BACKWARD', ORDER_V1, other), ['Incompatible because of different schema type']);
});

test('a schema is compatible with itself and with its normalized form', () => {
  const s = provider.parse(ORDER, [COMMON]);
  for (const direction of ['BACKWARD', 'FORWARD'] as const) {
    assert.equal(provider.checkCompatibility(direction, s, s), []);
    assert.equal(provider.checkCompatibility(direction, s.normalize(), s), []);
  }
});

// ---------------------------------------------------------------------------------------------
// Java HashMap iteration order (the order of Confluent's messages)

test('JavaHashMap iterates as java.util.HashMap does', () => {
  const ints = new JavaHashMap<number, true>();
  for (const k of [2, 17, 1]) ints.put(k, true);
  assert.equal(ints.keys(), [17, 1, 2]); // 17 and 1 share bucket 1, in insertion order
  const grown = new JavaHashMap<number, true>();
  for (const k of [16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) grown.put(k, true);
  assert.equal(grown.keys(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16]); // 14 entries: 32 buckets
  const strings = new JavaHashMap<string, true>();
  for (const k of ['BB', 'Aa']) strings.put(k, true); // the same hashCode, 2112
  assert.equal(strings.keys(), ['BB', 'Aa']);
  strings.remove('BB');
  strings.put('BB', true);
  assert.equal(strings.keys(), ['Aa', 'BB']);
  assert.equal(JavaHashMap.setOf(['b', 'a', 'c']).keys(), ['a', 'b', 'c']);
});

test.run();
