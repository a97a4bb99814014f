/**
 * Protobuf schemas sent as base64 serialized FileDescriptorProtos (confluent-kafka-python's way):
 * printed back as .proto text that the provider stores in the same canonical form as the text it
 * describes, so a descriptor and its .proto register as one schema.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import protobuf from 'protobufjs';
import { descriptorText } from '../../../src/schema-registry/schema-types/protobuf-descriptor.js';
import { protobufProvider } from '../../../src/schema-registry/schema-types/protobuf.js';

const require = createRequire(import.meta.url);
const descriptorExt = require('protobufjs/ext/descriptor');

/** What google.protobuf.Timestamp's file descriptor is, as Python's protobuf serializes it. */
const TIMESTAMP_B64 = 'Ch9nb29nbGUvcHJvdG9idWYvdGltZXN0YW1wLnByb3RvEg9nb29nbGUucHJvdG9idWYiOwoJVGltZXN0YW1wEhgKB3NlY29uZHMYASABKANSB3NlY29uZHMSFAoFbmFub3MYAiABKAVSBW5hbm9zQoUBChNjb20uZ29vZ2xlLnByb3RvYnVmQg5UaW1lc3RhbXBQcm90b1ABWjJnb29nbGUuZ29sYW5nLm9yZy9wcm90b2J1Zi90eXBlcy9rbm93bi90aW1lc3RhbXBwYvgBAaICA0dQQqoCHkdvb2dsZS5Qcm90b2J1Zi5XZWxsS25vd25UeXBlc2IGcHJvdG8z';

test('Timestamp\'s descriptor prints as its .proto text', () => {
  const text = descriptorText(TIMESTAMP_B64)!;
  assert.ok(text);
  assert.match(text, /^syntax = "proto3";\npackage google\.protobuf;\n/);
  assert.match(text, /option java_package = "com\.google\.protobuf";/);
  assert.match(text, /option java_multiple_files = true;/);
  assert.match(text, /message Timestamp \{\n {2}int64 seconds = 1;\n {2}int32 nanos = 2;\n\}/);
  const viaDescriptor = protobufProvider.parse(TIMESTAMP_B64, []);
  const viaText = protobufProvider.parse(text, []);
  assert.is(viaDescriptor.canonical, viaText.canonical);
});

test('a file with nested messages, maps, oneofs, enums and proto3 optional: the same canonical schema as its .proto', () => {
  const source = `syntax = "proto3";
package shop;

message Order {
  string id = 1;
  repeated Line lines = 2;
  map<string, int64> counters = 3;
  oneof payment {
    string card = 4;
    int32 voucher = 5;
  }
  Status status = 6;
  optional string note = 7;
  message Line {
    string sku = 1;
    int32 qty = 2;
  }
  enum Status {
    NEW = 0;
    PAID = 1;
  }
}
`;
  const root = protobuf.parse(source, { keepCase: true }).root;
  const set = (root as unknown as { toDescriptor(syntax: string): unknown }).toDescriptor('proto3');
  const files = descriptorExt.FileDescriptorSet.toObject(set).file as unknown[];
  const bytes = descriptorExt.FileDescriptorProto.encode(descriptorExt.FileDescriptorProto.fromObject(files[0])).finish();
  const b64 = Buffer.from(bytes).toString('base64');
  const text = descriptorText(b64)!;
  assert.match(text, /map<string, int64> counters = 3;/);
  assert.match(text, /oneof payment \{\n {4}string card = 4;\n {4}int32 voucher = 5;\n {2}\}/);
  assert.is(protobufProvider.parse(b64, []).canonical, protobufProvider.parse(source, []).canonical);
});

test('.proto text and other strings are not descriptors', () => {
  assert.is(descriptorText('syntax = "proto3"; message A { string a = 1; }'), null);
  assert.is(descriptorText('abc'), null);
  assert.is(descriptorText('!!!!'), null);
});

test.run();
