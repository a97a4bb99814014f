/**
 * Schema Registry clients nobody here wrote, against Samsa's registry and through Samsa's Kafka
 * listener: `@kafkajs/confluent-schema-registry` (Avro, JSON Schema, Protobuf: register, encode,
 * produce with kafkajs, consume, decode; an incompatible evolution refused), Confluent's
 * `@confluentinc/schemaregistry` (its Avro and JSON serializers and deserializers), and
 * confluent-kafka-python's SchemaRegistryClient with its Avro, JSON and Protobuf serializers
 * (from the test venv), producing and consuming through Samsa.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import kafkajs from 'kafkajs';
import { SchemaRegistry as KafkajsRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import * as confluentSr from '@confluentinc/schemaregistry';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { VENV_PYTHON, venvPython } from '../support/external.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = existsSync(VENV_PYTHON) ? null : `no ${VENV_PYTHON} (tools/ensure-test-deps.sh)`;
if (missing && IN_CI) throw new Error(`registry-clients: required under CI: ${missing}`);

let b: RunningBroker;
let kafka: InstanceType<typeof Kafka>;

test.before(async () => {
  b = await startBroker({ http: true, config: { 'offsets.topic.num.partitions': 1 } });
  kafka = new Kafka({ brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
});

test.after(async () => {
  await b?.stop();
});

/** A decoded value as plain JSON (decoders give class instances, e.g. avsc's records). */
function plain(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v));
}

/** Produces `values` to `topic` with kafkajs and reads them back from the start. */
async function roundTrip(topic: string, values: Buffer[]): Promise<Buffer[]> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `${topic}-g` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const out: Buffer[] = [];
  await new Promise<void>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }) => {
      out.push(message.value!);
      if (out.length === values.length) resolve();
    } });
  });
  await consumer.disconnect();
  return out;
}

const AVRO_V1 = JSON.stringify({ type: 'record', name: 'Payment', namespace: 'samsa.test', fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }] });
const AVRO_V2 = JSON.stringify({ type: 'record', name: 'Payment', namespace: 'samsa.test', fields: [{ name: 'id', type: 'string' }, { name: 'amount', type: 'double' }, { name: 'currency', type: 'string', default: 'EUR' }] });
const AVRO_BAD = JSON.stringify({ type: 'record', name: 'Payment', namespace: 'samsa.test', fields: [{ name: 'id', type: 'long' }, { name: 'amount', type: 'double' }] });

test('@kafkajs/confluent-schema-registry: Avro register, encode, produce, consume, decode; evolution', async () => {
  const registry = new KafkajsRegistry({ host: b.httpUrl! });
  const { id } = await registry.register({ type: SchemaType.AVRO, schema: AVRO_V1 }, { subject: 'payments-value' });
  assert.is(await registry.getLatestSchemaId('payments-value'), id);
  const payload = { id: 'p-1', amount: 12.5 };
  const encoded = await registry.encode(id, payload);
  assert.is(encoded[0], 0);
  assert.is(encoded.readInt32BE(1), id);
  const [back] = await roundTrip('payments', [encoded]);
  assert.equal(plain(await registry.decode(back)), payload);
  const v2 = await registry.register({ type: SchemaType.AVRO, schema: AVRO_V2 }, { subject: 'payments-value' });
  assert.ok(v2.id > id);
  let refused: unknown;
  try {
    await registry.register({ type: SchemaType.AVRO, schema: AVRO_BAD }, { subject: 'payments-value' });
  } catch (err) {
    refused = err;
  }
  assert.ok(refused instanceof Error, 'the incompatible schema was registered');
  assert.match((refused as Error).message, /incompatible/i);
  // A reader on v2 reads v1 data (the default fills the new field) once it asks by id.
  assert.equal(plain(await registry.decode(encoded)), payload);
});

test('@kafkajs/confluent-schema-registry: JSON Schema and Protobuf', async () => {
  const registry = new KafkajsRegistry({ host: b.httpUrl! });
  const jsonSchema = JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] });
  const j = await registry.register({ type: SchemaType.JSON, schema: jsonSchema }, { subject: 'people-value' });
  const person = { name: 'Ada', age: 36 };
  const [jsonBack] = await roundTrip('people', [await registry.encode(j.id, person)]);
  assert.equal(plain(await registry.decode(jsonBack)), person);

  const proto = 'syntax = "proto3";\npackage samsa.test;\n\nmessage Reading {\n  string sensor = 1;\n  double value = 2;\n}\n';
  const p = await registry.register({ type: SchemaType.PROTOBUF, schema: proto }, { subject: 'readings-value' });
  const reading = { sensor: 's-7', value: 21.5 };
  const [protoBack] = await roundTrip('readings', [await registry.encode(p.id, reading)]);
  assert.equal(plain(await registry.decode(protoBack)), reading);
  const stored = await registry.getSchema(p.id);
  assert.ok(stored, 'the protobuf schema reads back by id');
});

test("Confluent's @confluentinc/schemaregistry: Avro and JSON serializers and deserializers", async () => {
  const client = new confluentSr.SchemaRegistryClient({ baseURLs: [b.httpUrl!] });
  const id = await client.register('orders-value', { schemaType: 'AVRO', schema: AVRO_V1 }, false);
  assert.ok(id > 0);
  const ser = new confluentSr.AvroSerializer(client, confluentSr.SerdeType.VALUE, { useLatestVersion: true });
  const de = new confluentSr.AvroDeserializer(client, confluentSr.SerdeType.VALUE, {});
  const order = { id: 'o-1', amount: 3.25 };
  const [back] = await roundTrip('orders', [await ser.serialize('orders', order)]);
  assert.equal(plain(await de.deserialize('orders', back)), order);
  const latest = await client.getLatestSchemaMetadata('orders-value');
  assert.is(latest.id, id);
  assert.is(latest.version, 1);

  const jsonSchema = JSON.stringify({ type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } } });
  await client.register('items-value', { schemaType: 'JSON', schema: jsonSchema }, false);
  const jser = new confluentSr.JsonSerializer(client, confluentSr.SerdeType.VALUE, { useLatestVersion: true });
  const jde = new confluentSr.JsonDeserializer(client, confluentSr.SerdeType.VALUE, {});
  const item = { sku: 'A-1', qty: 2 };
  const [jback] = await roundTrip('items', [await jser.serialize('items', item)]);
  assert.equal(plain(await jde.deserialize('items', jback)), item);
});

/** confluent-kafka-python: serializers register (auto.register.schemas), produce, consume, deserialize. */
const PYTHON = String.raw`
import sys, json
from confluent_kafka import Producer, Consumer
from confluent_kafka.serialization import SerializationContext, MessageField
from confluent_kafka.schema_registry import SchemaRegistryClient, Schema
from confluent_kafka.schema_registry.avro import AvroSerializer, AvroDeserializer
from confluent_kafka.schema_registry.json_schema import JSONSerializer, JSONDeserializer
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer, ProtobufDeserializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from google.protobuf import timestamp_pb2

bootstrap, url = sys.argv[1], sys.argv[2]
sr = SchemaRegistryClient({'url': url})
avro_schema = json.dumps({'type': 'record', 'name': 'Click', 'namespace': 'samsa.py', 'fields': [{'name': 'page', 'type': 'string'}, {'name': 'ms', 'type': 'long'}]})
json_schema = json.dumps({'type': 'object', 'title': 'Visit', 'properties': {'who': {'type': 'string'}, 'n': {'type': 'integer'}}})
cases = [
  ('py-avro', AvroSerializer(sr, avro_schema), AvroDeserializer(sr), {'page': '/home', 'ms': 17}),
  ('py-json', JSONSerializer(json_schema, sr), JSONDeserializer(json_schema), {'who': 'ada', 'n': 3}),
  ('py-proto', ProtobufSerializer(timestamp_pb2.Timestamp, sr, {'use.deprecated.format': False}), ProtobufDeserializer(timestamp_pb2.Timestamp, {'use.deprecated.format': False}), None),
]
p = Producer({'bootstrap.servers': bootstrap})
out = {}
for topic, ser, de, value in cases:
    v = value if value is not None else timestamp_pb2.Timestamp(seconds=1700000000, nanos=5)
    p.produce(topic, value=ser(v, SerializationContext(topic, MessageField.VALUE)))
p.flush(30)
for topic, ser, de, value in cases:
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': topic + '-g', 'auto.offset.reset': 'earliest'})
    c.subscribe([topic])
    got = None
    for _ in range(60):
        m = c.poll(1.0)
        if m is None or m.error():
            continue
        got = de(m.value(), SerializationContext(topic, MessageField.VALUE))
        break
    c.close()
    out[topic] = got if value is not None else [got.seconds, got.nanos]
# Evolution refused: a new required field without a default under BACKWARD.
bad = json.dumps({'type': 'record', 'name': 'Click', 'namespace': 'samsa.py', 'fields': [{'name': 'page', 'type': 'string'}, {'name': 'ms', 'type': 'long'}, {'name': 'user', 'type': 'string'}]})
try:
    sr.register_schema('py-avro-value', Schema(bad, 'AVRO'))
    out['refused'] = None
except SchemaRegistryError as e:
    out['refused'] = [e.http_status_code, e.error_code]
out['subjects'] = sorted(s for s in sr.get_subjects() if s.startswith('py-'))
out['latest'] = sr.get_latest_version('py-avro-value').version
print(json.dumps(out), flush=True)
`;

test('confluent-kafka-python: Avro, JSON and Protobuf serializers register, produce and consume through Samsa', async () => {
  if (missing) {
    console.log(`skipped: ${missing}`);
    return;
  }
  const r = await venvPython(PYTHON, [b.bootstrap, b.httpUrl!], { timeoutMs: 120_000 });
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
  assert.equal(out['py-avro'], { page: '/home', ms: 17 });
  assert.equal(out['py-json'], { who: 'ada', n: 3 });
  assert.equal(out['py-proto'], [1700000000, 5]);
  assert.equal(out.refused, [409, 409]);
  assert.equal(out.subjects, ['py-avro-value', 'py-json-value', 'py-proto-value']);
  assert.is(out.latest, 1);
});

test.run();
