/**
 * The Schema Registry's REST API over a real socket, as curl or any HTTP client sends it
 * (Confluent's paths, JSON shapes, status codes and error codes): registration and ids, lookups,
 * compatibility (the default BACKWARD, per-subject levels, the compatibility endpoint), soft and
 * permanent deletes, modes, bad input, and the state surviving a broker restart in `_schemas`
 * (ids never reused, even after a permanent delete).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';

const { Kafka, logLevel } = kafkajs;
const CT = 'application/vnd.schemaregistry.v1+json';
const dir = mkdtempSync(path.join(tmpdir(), 'registry-rest-'));
let b: RunningBroker;

async function call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any; text: string; type: string | null }> {
  const res = await fetch(`${b.httpUrl}${p}`, {
    method,
    headers: { 'content-type': CT, accept: CT, ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, json, text, type: res.headers.get('content-type') };
}

const USER_V1 = JSON.stringify({ type: 'record', name: 'User', namespace: 'samsa.test', fields: [{ name: 'id', type: 'long' }] });
const USER_V2 = JSON.stringify({ type: 'record', name: 'User', namespace: 'samsa.test', fields: [{ name: 'id', type: 'long' }, { name: 'email', type: ['null', 'string'], default: null }] });
const USER_BAD = JSON.stringify({ type: 'record', name: 'User', namespace: 'samsa.test', fields: [{ name: 'id', type: 'long' }, { name: 'age', type: 'int' }] });

test.before(async () => {
  b = await startBroker({ http: true, storage: { dir } });
});

test.after(async () => {
  await b?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an empty registry: types, subjects, the global config and mode', async () => {
  assert.equal((await call('GET', '/schemas/types')).json, ['JSON', 'PROTOBUF', 'AVRO']);
  const subjects = await call('GET', '/subjects');
  assert.is(subjects.status, 200);
  assert.is(subjects.type, CT);
  assert.equal(subjects.json, []);
  assert.equal((await call('GET', '/config')).json, { compatibilityLevel: 'BACKWARD' });
  assert.equal((await call('GET', '/mode')).json, { mode: 'READWRITE' });
});

test('register, register again, the same schema under another subject: one id', async () => {
  assert.equal((await call('POST', '/subjects/users-value/versions', { schema: USER_V1 })).json, { id: 1 });
  assert.equal((await call('POST', '/subjects/users-value/versions', { schema: USER_V1 })).json, { id: 1 });
  assert.equal((await call('POST', '/subjects/other-value/versions', { schema: USER_V1, schemaType: 'AVRO' })).json, { id: 1 });
  assert.equal((await call('GET', '/subjects')).json, ['other-value', 'users-value']);
  assert.equal((await call('GET', '/subjects/users-value/versions')).json, [1]);
  const v = await call('GET', '/subjects/users-value/versions/latest');
  assert.equal(v.json, { subject: 'users-value', version: 1, id: 1, schema: USER_V1 });
  assert.equal((await call('GET', '/subjects/users-value/versions/1')).json, v.json);
  assert.equal((await call('GET', '/schemas/ids/1')).json, { schema: USER_V1 });
  assert.equal(JSON.parse((await call('GET', '/schemas/ids/1/schema')).text), JSON.parse(USER_V1));
  assert.equal((await call('GET', '/schemas/ids/1/versions')).json, [{ subject: 'other-value', version: 1 }, { subject: 'users-value', version: 1 }]);
  assert.equal((await call('GET', '/schemas/ids/1/subjects')).json, ['other-value', 'users-value']);
});

test('BACKWARD (the default) refuses a new field without a default, takes one with it', async () => {
  const bad = await call('POST', '/subjects/users-value/versions', { schema: USER_BAD });
  assert.is(bad.status, 409);
  assert.is(bad.json.error_code, 409);
  assert.match(bad.json.message, /^Schema being registered is incompatible with an earlier schema for subject "users-value", details: \[/);
  assert.match(bad.json.message, /READER_FIELD_MISSING_DEFAULT_VALUE/);
  assert.match(bad.json.message, /\{oldSchemaVersion: 1\}/);
  const check = await call('POST', '/compatibility/subjects/users-value/versions/latest?verbose=true', { schema: USER_BAD });
  assert.is(check.json.is_compatible, false);
  assert.ok(check.json.messages.length > 0);
  assert.equal((await call('POST', '/compatibility/subjects/users-value/versions/latest', { schema: USER_V2 })).json, { is_compatible: true });
  assert.equal((await call('POST', '/subjects/users-value/versions', { schema: USER_V2 })).json, { id: 2 });
  assert.equal((await call('GET', '/subjects/users-value/versions')).json, [1, 2]);
});

test('lookup: the version holding a schema, or 40403 / 40401', async () => {
  const found = await call('POST', '/subjects/users-value', { schema: USER_V1 });
  assert.equal(found.json, { subject: 'users-value', version: 1, id: 1, schema: USER_V1 });
  const missing = await call('POST', '/subjects/users-value', { schema: USER_BAD });
  assert.is(missing.status, 404);
  assert.equal(missing.json, { error_code: 40403, message: 'Schema not found' });
  const noSubject = await call('POST', '/subjects/nobody', { schema: USER_V1 });
  assert.equal(noSubject.json, { error_code: 40401, message: "Subject 'nobody' not found." });
});

test('per-subject compatibility and its 40408 / defaultToGlobal', async () => {
  const none = await call('GET', '/config/users-value');
  assert.is(none.status, 404);
  assert.is(none.json.error_code, 40408);
  assert.equal((await call('GET', '/config/users-value?defaultToGlobal=true')).json, { compatibilityLevel: 'BACKWARD' });
  assert.equal((await call('PUT', '/config/other-value', { compatibility: 'NONE' })).json, { compatibility: 'NONE' });
  assert.equal((await call('GET', '/config/other-value')).json, { compatibilityLevel: 'NONE' });
  assert.equal((await call('POST', '/subjects/other-value/versions', { schema: USER_BAD })).json, { id: 3 });
  const invalid = await call('PUT', '/config', { compatibility: 'SIDEWAYS' });
  assert.is(invalid.status, 422);
  assert.is(invalid.json.error_code, 42203);
  assert.equal((await call('DELETE', '/config/other-value')).json, { compatibilityLevel: 'NONE' });
  assert.is((await call('GET', '/config/other-value')).json.error_code, 40408);
});

test('bad input: versions, ids, bodies, methods, content types', async () => {
  const v = await call('GET', '/subjects/users-value/versions/abc');
  assert.is(v.status, 422);
  assert.is(v.json.error_code, 42202);
  assert.equal((await call('GET', '/subjects/users-value/versions/9')).json, { error_code: 40402, message: 'Version 9 not found.' });
  assert.equal((await call('GET', '/schemas/ids/999')).json, { error_code: 40403, message: 'Schema 999 not found' });
  const notAvro = await call('POST', '/subjects/x/versions', { schema: '{"type":"record","name":"X","fields":[{"name":"a","type":"nosuch"}]}' });
  assert.is(notAvro.status, 422);
  assert.is(notAvro.json.error_code, 42201);
  assert.is((await call('POST', '/subjects/x/versions', '{not json')).status, 400);
  assert.is((await call('POST', '/subjects/x/versions', { schema: USER_V1 }, { 'content-type': 'text/plain' })).status, 415);
  assert.is((await call('PATCH', '/subjects')).status, 405);
  // Nothing was registered by the failures.
  assert.equal((await call('GET', '/subjects')).json, ['other-value', 'users-value']);
});

test('soft and permanent deletes of versions and subjects', async () => {
  const early = await call('DELETE', '/subjects/users-value/versions/1?permanent=true');
  assert.equal(early.json, { error_code: 40407, message: "Subject 'users-value' Version 1 was not deleted first before being permanently deleted" });
  assert.equal((await call('DELETE', '/subjects/users-value/versions/1')).json, 1);
  assert.equal((await call('GET', '/subjects/users-value/versions')).json, [2]);
  assert.equal((await call('GET', '/subjects/users-value/versions?deleted=true')).json, [1, 2]);
  assert.is((await call('GET', '/subjects/users-value/versions/1')).json.error_code, 40402);
  assert.is((await call('GET', '/subjects/users-value/versions/1?deleted=true')).json.version, 1);
  assert.is((await call('DELETE', '/subjects/users-value/versions/1')).json.error_code, 40406);
  assert.equal((await call('DELETE', '/subjects/users-value/versions/1?permanent=true')).json, 1);
  assert.equal((await call('GET', '/subjects/users-value/versions?deleted=true')).json, [2]);

  assert.is((await call('DELETE', '/subjects/other-value?permanent=true')).json.error_code, 40405);
  assert.equal((await call('DELETE', '/subjects/other-value')).json, [1, 2]);
  assert.is((await call('DELETE', '/subjects/other-value')).json.error_code, 40404);
  assert.equal((await call('GET', '/subjects')).json, ['users-value']);
  assert.equal((await call('GET', '/subjects?deleted=true')).json, ['other-value', 'users-value']);
  assert.equal((await call('DELETE', '/subjects/other-value?permanent=true')).json, [1, 2]);
  assert.equal((await call('GET', '/subjects/other-value/versions')).json, { error_code: 40401, message: "Subject 'other-value' not found." });
  // Schema 1 is used by no version now; 3 (only other-value's) neither.
  assert.is((await call('GET', '/schemas/ids/1')).json.error_code, 40403);
  assert.is((await call('GET', '/schemas/ids/3')).json.error_code, 40403);
  assert.equal((await call('GET', '/schemas/ids/2')).json, { schema: USER_V2 });
});

test('references: a schema using another subject\'s version; referencedby; the referenced version cannot be deleted', async () => {
  const address = JSON.stringify({ type: 'record', name: 'Address', namespace: 'samsa.test', fields: [{ name: 'city', type: 'string' }] });
  const a = await call('POST', '/subjects/address-value/versions', { schema: address });
  assert.is(a.status, 200);
  const person = JSON.stringify({ type: 'record', name: 'Person', namespace: 'samsa.test', fields: [{ name: 'home', type: 'samsa.test.Address' }] });
  const refs = [{ name: 'samsa.test.Address', subject: 'address-value', version: 1 }];
  const unresolved = await call('POST', '/subjects/person-value/versions', { schema: person });
  assert.is(unresolved.json.error_code, 42201, 'without the reference the type is unknown');
  const p = await call('POST', '/subjects/person-value/versions', { schema: person, references: refs });
  assert.is(p.status, 200, JSON.stringify(p.json));
  const v = (await call('GET', '/subjects/person-value/versions/1')).json;
  assert.equal(v.references, refs);
  assert.equal((await call('GET', '/subjects/address-value/versions/1/referencedby')).json, [p.json.id]);
  assert.is((await call('DELETE', '/subjects/address-value/versions/1')).json.error_code, 42206);
  // Protobuf: an import resolved by a reference.
  const common = 'syntax = "proto3";\npackage samsa.test;\n\nmessage Money {\n  int64 cents = 1;\n}\n';
  assert.is((await call('POST', '/subjects/common.proto/versions', { schema: common, schemaType: 'PROTOBUF' })).status, 200);
  const order = 'syntax = "proto3";\npackage samsa.test;\n\nimport "common.proto";\n\nmessage Order {\n  Money total = 1;\n}\n';
  const o = await call('POST', '/subjects/orders-proto-value/versions', { schema: order, schemaType: 'PROTOBUF', references: [{ name: 'common.proto', subject: 'common.proto', version: 1 }] });
  assert.is(o.status, 200, JSON.stringify(o.json));
  assert.is((await call('GET', `/schemas/ids/${o.json.id}`)).json.schemaType, 'PROTOBUF');
  // Clean up so the later tests see the subjects they expect.
  for (const s of ['person-value', 'orders-proto-value', 'common.proto', 'address-value']) {
    assert.is((await call('DELETE', `/subjects/${s}`)).status, 200);
    assert.is((await call('DELETE', `/subjects/${s}?permanent=true`)).status, 200);
  }
});

test('READONLY mode refuses writes with 42205; READWRITE takes them again', async () => {
  assert.equal((await call('PUT', '/mode', { mode: 'READONLY' })).json, { mode: 'READONLY' });
  const refused = await call('POST', '/subjects/ro-value/versions', { schema: USER_V1 });
  assert.is(refused.status, 422);
  assert.is(refused.json.error_code, 42205);
  assert.is((await call('PUT', '/mode', { mode: 'SOMETIMES' })).json.error_code, 42204);
  assert.equal((await call('PUT', '/mode', { mode: 'READWRITE' })).json, { mode: 'READWRITE' });
});

test('_schemas holds Confluent-format records; after a restart every schema and id is there and ids go on from the highest ever given', async () => {
  const kafka = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const [meta] = (await admin.fetchTopicMetadata({ topics: ['_schemas'] })).topics;
  assert.is(meta.partitions.length, 1);
  const configs = await admin.describeConfigs({ resources: [{ type: 2, name: '_schemas', configNames: ['cleanup.policy'] }], includeSynonyms: false });
  assert.is(configs.resources[0].configEntries[0].configValue, 'compact');
  await admin.disconnect();
  const consumer = kafka.consumer({ groupId: 'schemas-reader' });
  await consumer.connect();
  await consumer.subscribe({ topic: '_schemas', fromBeginning: true });
  const keys: any[] = [];
  await new Promise<void>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }) => {
      keys.push(JSON.parse(message.key!.toString()));
      if (keys.length >= 3) resolve();
    } });
  });
  await consumer.disconnect();
  assert.equal(keys[0], { keytype: 'SCHEMA', subject: 'users-value', version: 1, magic: 1 });

  await b.stop();
  b = await startBroker({ http: true, storage: { dir } });
  assert.equal((await call('GET', '/subjects')).json, ['users-value']);
  assert.equal((await call('GET', '/subjects/users-value/versions/latest')).json, { subject: 'users-value', version: 2, id: 2, schema: USER_V2 });
  // Ids 1 and 3, and the four of the references test (4-7), were deleted permanently: the next
  // schema gets 8, never one given before.
  const next = JSON.stringify({ type: 'record', name: 'Order', fields: [{ name: 'n', type: 'int' }] });
  assert.equal((await call('POST', '/subjects/orders-value/versions', { schema: next })).json, { id: 8 });
});

test.run();
