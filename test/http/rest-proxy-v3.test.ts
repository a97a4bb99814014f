/**
 * Confluent's REST Proxy v3 API on the broker's HTTP listener, driven as scripts drive it (fetch,
 * as curl would): clusters and brokers; topics created, listed, described and deleted; a topic's
 * configs read, set, reset and altered in a batch; partitions and replicas; Confluent's error
 * shapes and codes (an unknown cluster 404 / 404, an unknown topic 404 / 40403, a duplicate topic
 * 400 / 40002, an unknown config 404). Records produced as JSON, BINARY and STRING with headers,
 * keys and partitions, one a request and in streaming mode (concatenated records, one answer
 * each), read back with kafkajs byte for byte; Avro, JSON Schema and Protobuf records written in
 * the Schema Registry's wire format and decoded with @kafkajs/confluent-schema-registry; a
 * consumer group's members, assignments and lag while kafkajs has consumed part of a topic;
 * ACLs applied as for a Kafka client of the HTTP user (40301 until granted); and a few calls from
 * Python's `requests` in the confluent-kafka venv, with a KIP-848 group of confluent-kafka-python.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import kafkajs from 'kafkajs';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { VENV_PYTHON, venvPython, waitFor } from '../support/external.js';

const { Kafka, logLevel } = kafkajs;
const REGISTRY_CT = 'application/vnd.schemaregistry.v1+json';

let b: RunningBroker;
let base: string;
let cluster: string;
let kafka: InstanceType<typeof Kafka>;

interface Answer { status: number; headers: Headers; text: string; json: any }

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const res = await fetch(base + path, {
    method, headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The answers of a produce request: one JSON object a line. */
function answers(text: string): any[] {
  return text.split('\r\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

const v3 = (...parts: (string | number)[]) => ['/v3/clusters', cluster, ...parts.map((p) => encodeURIComponent(String(p)))].join('/');

async function createTopic(name: string, partitions = 1, configs: { name: string; value: string }[] = []): Promise<void> {
  const r = await call('POST', v3('topics'), { topic_name: name, partitions_count: partitions, replication_factor: 1, configs });
  assert.is(r.status, 201, r.text);
}

/** Every record of `topic` (all partitions) read with kafkajs from the start. */
async function readAll(topic: string, count: number): Promise<(kafkajs.KafkaMessage & { partition: number })[]> {
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${Date.now()}` });
  const got: (kafkajs.KafkaMessage & { partition: number })[] = [];
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message, partition }) => { got.push({ ...message, partition }); } });
  await waitFor(() => got.length >= count, { timeoutMs: 20_000, description: `${count} records of ${topic}` });
  await consumer.disconnect();
  return got.sort((x, y) => (x.partition - y.partition) || Number(x.offset) - Number(y.offset));
}

test.before(async () => {
  b = await startBroker({ http: true, 'auto.create.topics.enable': false, 'offsets.topic.num.partitions': 1 });
  base = b.httpUrl!;
  kafka = new Kafka({ clientId: 'rest-v3-test', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const r = await call('GET', '/v3/clusters');
  cluster = r.json.data[0].cluster_id;
});

test.after(async () => {
  await b?.stop();
});

test('clusters and brokers', async () => {
  const list = await call('GET', '/v3/clusters');
  assert.is(list.status, 200);
  assert.match(list.headers.get('content-type') ?? '', /^application\/json/);
  assert.is(list.json.kind, 'KafkaClusterList');
  assert.is(list.json.metadata.self, `${base}/v3/clusters`);
  assert.is(cluster, b.broker.metadataCache.clusterId);
  const one = await call('GET', v3());
  assert.is(one.json.kind, 'KafkaCluster');
  assert.equal(one.json.metadata, { self: `${base}/v3/clusters/${cluster}`, resource_name: `crn:///kafka=${cluster}` });
  assert.is(one.json.topics.related, `${base}/v3/clusters/${cluster}/topics`);
  assert.is(one.json.consumer_groups.related, `${base}/v3/clusters/${cluster}/consumer-groups`);
  assert.is(one.json.brokers.related, `${base}/v3/clusters/${cluster}/brokers`);

  const missing = await call('GET', '/v3/clusters/no-such-cluster/topics');
  assert.is(missing.status, 404);
  assert.equal(missing.json, { error_code: 404, message: 'Cluster no-such-cluster cannot be found.' });

  const brokers = await call('GET', v3('brokers'));
  assert.is(brokers.json.kind, 'KafkaBrokerList');
  assert.is(brokers.json.data.length, 1);
  const br = brokers.json.data[0];
  assert.is(br.kind, 'KafkaBroker');
  assert.is(br.broker_id, b.broker.nodeId);
  assert.is(br.port, b.port);
  assert.is(br.metadata.resource_name, `crn:///kafka=${cluster}/broker=${b.broker.nodeId}`);
  const got = await call('GET', v3('brokers', b.broker.nodeId));
  assert.is(got.json.broker_id, b.broker.nodeId);
  assert.is((await call('GET', v3('brokers', 999))).status, 404);

  const nowhere = await call('GET', v3('nowhere'));
  assert.equal([nowhere.status, nowhere.json], [404, { error_code: 404, message: 'HTTP 404 Not Found' }]);
  assert.is((await call('PUT', v3('topics'), {})).status, 405);
});

test('topics: create, list, get, partitions, replicas, delete; error codes', async () => {
  const created = await call('POST', v3('topics'), { topic_name: 'rp-admin', partitions_count: 3, replication_factor: 1, configs: [{ name: 'cleanup.policy', value: 'compact' }] });
  assert.is(created.status, 201, created.text);
  assert.is(created.headers.get('location'), `${base}${v3('topics', 'rp-admin')}`);
  assert.is(created.json.kind, 'KafkaTopic');
  assert.is(created.json.topic_name, 'rp-admin');
  assert.is(created.json.partitions_count, 3);
  assert.is(created.json.replication_factor, 1);
  assert.is(created.json.partitions.related, `${base}${v3('topics', 'rp-admin', 'partitions')}`);

  const dup = await call('POST', v3('topics'), { topic_name: 'rp-admin', partitions_count: 1 });
  assert.equal([dup.status, dup.json], [400, { error_code: 40002, message: "Topic 'rp-admin' already exists." }]);
  const badRf = await call('POST', v3('topics'), { topic_name: 'rp-rf', partitions_count: 1, replication_factor: 3 });
  assert.is(badRf.status, 400);
  assert.is(badRf.json.error_code, 40002);
  const badName = await call('POST', v3('topics'), { topic_name: 'bad name!', partitions_count: 1 });
  assert.is(badName.status, 400);
  assert.is(badName.json.error_code, 40002);
  const notJson = await call('POST', v3('topics'), '{"topic_name": ');
  assert.is(notJson.status, 400);
  assert.is(notJson.json.error_code, 400);
  const dry = await call('POST', v3('topics'), { topic_name: 'rp-dry', partitions_count: 2, validate_only: true });
  assert.is(dry.status, 200);

  const list = await call('GET', v3('topics'));
  assert.is(list.json.kind, 'KafkaTopicList');
  const names = list.json.data.map((t: any) => t.topic_name);
  assert.ok(names.includes('rp-admin'));
  assert.not.ok(names.includes('rp-dry'));
  assert.not.ok(names.includes('__consumer_offsets'));

  const t = await call('GET', v3('topics', 'rp-admin'));
  assert.equal(t.json.metadata, { self: `${base}${v3('topics', 'rp-admin')}`, resource_name: `crn:///kafka=${cluster}/topic=rp-admin` });
  assert.is(t.json.is_internal, false);
  const unknown = await call('GET', v3('topics', 'rp-none'));
  assert.equal([unknown.status, unknown.json], [404, { error_code: 40403, message: 'This server does not host this topic-partition.' }]);

  const parts = await call('GET', v3('topics', 'rp-admin', 'partitions'));
  assert.is(parts.json.kind, 'KafkaPartitionList');
  assert.equal(parts.json.data.map((p: any) => p.partition_id), [0, 1, 2]);
  const p1 = await call('GET', v3('topics', 'rp-admin', 'partitions', 1));
  assert.is(p1.json.kind, 'KafkaPartition');
  assert.is(p1.json.leader.related, `${base}${v3('topics', 'rp-admin', 'partitions', 1, 'replicas', b.broker.nodeId)}`);
  assert.is((await call('GET', v3('topics', 'rp-admin', 'partitions', 7))).status, 404);
  const replicas = await call('GET', v3('topics', 'rp-admin', 'partitions', 1, 'replicas'));
  assert.equal(replicas.json.data.map((x: any) => [x.broker_id, x.is_leader, x.is_in_sync]), [[b.broker.nodeId, true, true]]);

  const del = await call('DELETE', v3('topics', 'rp-admin'));
  assert.is(del.status, 204);
  await waitFor(async () => (await call('GET', v3('topics', 'rp-admin'))).status === 404, { timeoutMs: 10_000, description: 'the topic gone' });
  const again = await call('DELETE', v3('topics', 'rp-admin'));
  assert.equal([again.status, again.json.error_code], [404, 40403]);
});

test('topic configs: list, get, put, delete, alter in a batch', async () => {
  await createTopic('rp-configs', 1, [{ name: 'retention.ms', value: '3600000' }]);
  const list = await call('GET', v3('topics', 'rp-configs', 'configs'));
  assert.is(list.status, 200, list.text);
  assert.is(list.json.kind, 'KafkaTopicConfigList');
  const retention = list.json.data.find((c: any) => c.name === 'retention.ms');
  assert.is(retention.value, '3600000');
  assert.is(retention.source, 'DYNAMIC_TOPIC_CONFIG');
  assert.is(retention.is_default, false);
  assert.is(retention.kind, 'KafkaTopicConfig');
  assert.is(retention.metadata.resource_name, `crn:///kafka=${cluster}/topic=rp-configs/config=retention.ms`);
  assert.ok(retention.synonyms.some((s: any) => s.source === 'DYNAMIC_TOPIC_CONFIG' && s.value === '3600000'));

  const one = await call('GET', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'));
  assert.equal([one.json.value, one.json.is_default, one.json.source], ['delete', true, 'DEFAULT_CONFIG']);

  assert.is((await call('PUT', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'), { value: 'compact' })).status, 204);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'))).json.value, 'compact');
  assert.is((await call('DELETE', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'))).status, 204);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'))).json.value, 'delete');

  const batch = await call('POST', v3('topics', 'rp-configs', 'configs:alter'), { data: [{ name: 'retention.ms', operation: 'DELETE' }, { name: 'max.message.bytes', value: '65536' }] });
  assert.is(batch.status, 204, batch.text);
  const after = await call('GET', v3('topics', 'rp-configs', 'configs'));
  assert.is(after.json.data.find((c: any) => c.name === 'retention.ms').is_default, true);
  assert.is(after.json.data.find((c: any) => c.name === 'max.message.bytes').value, '65536');

  const dry = await call('POST', v3('topics', 'rp-configs', 'configs:alter'), { data: [{ name: 'max.message.bytes', value: '1000' }], validate_only: true });
  assert.is(dry.status, 204);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'max.message.bytes'))).json.value, '65536');

  const nope = await call('PUT', v3('topics', 'rp-configs', 'configs', 'no.such.config'), { value: 'x' });
  assert.equal([nope.status, nope.json], [404, { error_code: 404, message: `Config no.such.config cannot be found for TOPIC rp-configs in cluster ${cluster}.` }]);
  const badValue = await call('PUT', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'), { value: 'sometimes' });
  assert.equal([badValue.status, badValue.json.error_code], [400, 40002]);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'nothing.here'))).status, 404);
  const noTopic = await call('GET', v3('topics', 'rp-nothing', 'configs'));
  assert.equal([noTopic.status, noTopic.json.error_code], [404, 40403]);
});

test('produce JSON, BINARY and STRING records; read back with kafkajs byte for byte', async () => {
  await createTopic('rp-records', 3);
  const bin = Buffer.from([0, 1, 2, 250, 255, 10, 13]);
  const first = await call('POST', v3('topics', 'rp-records', 'records'), {
    partition_id: 2, headers: [{ name: 'h1', value: Buffer.from('hv').toString('base64') }, { name: 'h2', value: null }],
    key: { type: 'STRING', data: 'k-1' }, value: { type: 'JSON', data: { n: 1, s: 'é', a: [true, null] } }, timestamp: '2021-02-05T19:14:42Z',
  });
  assert.is(first.status, 200, first.text);
  assert.match(first.headers.get('content-type') ?? '', /^application\/json/);
  const a = first.json;
  assert.equal(a, {
    error_code: 200, cluster_id: cluster, topic_name: 'rp-records', partition_id: 2, offset: 0, timestamp: '2021-02-05T19:14:42Z',
    key: { type: 'STRING', size: 3 }, value: { type: 'JSON', size: Buffer.byteLength(JSON.stringify({ n: 1, s: 'é', a: [true, null] })) },
  });
  const second = await call('POST', v3('topics', 'rp-records', 'records'), { partition_id: 2, key: { type: 'BINARY', data: bin.toString('base64') }, value: { type: 'BINARY', data: bin.toString('base64') } });
  assert.equal([second.json.error_code, second.json.offset, second.json.key, second.json.value], [200, 1, { type: 'BINARY', size: 7 }, { type: 'BINARY', size: 7 }]);
  const third = await call('POST', v3('topics', 'rp-records', 'records'), { partition_id: 2, value: { type: 'STRING', data: 'no key' } });
  assert.is(third.json.offset, 2);
  assert.is(third.json.key, undefined);
  const nulls = await call('POST', v3('topics', 'rp-records', 'records'), { partition_id: 2, key: { type: 'JSON', data: null }, value: { type: 'BINARY' } });
  assert.equal([nulls.json.offset, nulls.json.key.size, nulls.json.value.size], [3, -1, -1]);

  const got = (await readAll('rp-records', 4)).filter((m) => m.partition === 2);
  assert.is(got[0]!.key!.toString(), 'k-1');
  assert.equal(JSON.parse(got[0]!.value!.toString()), { n: 1, s: 'é', a: [true, null] });
  assert.is(got[0]!.timestamp, String(Date.parse('2021-02-05T19:14:42Z')));
  assert.equal(Object.keys(got[0]!.headers!), ['h1', 'h2']);
  assert.is(String(got[0]!.headers!.h1), 'hv');
  assert.ok(Buffer.compare(got[1]!.key!, bin) === 0 && Buffer.compare(got[1]!.value!, bin) === 0, 'binary bytes identical');
  assert.is(got[2]!.key, null);
  assert.is(got[2]!.value!.toString(), 'no key');
  assert.equal([got[3]!.key, got[3]!.value], [null, null]);
});

test('keyed records follow Kafka\'s default partitioner; streaming mode answers each record', async () => {
  await createTopic('rp-stream', 4);
  const producer = kafka.producer();
  await producer.connect();
  // kafkajs's DefaultPartitioner is Java's murmur2 partitioner: the same key lands on the same partition.
  const viaKafka = await producer.send({ topic: 'rp-stream', messages: ['a', 'b', 'c', 'd', 'e'].map((k) => ({ key: `key-${k}`, value: 'x' })) });
  await producer.disconnect();
  const kafkaPartitions = new Map<number, number>(viaKafka.map((m) => [m.partition, Number(m.baseOffset)]));
  assert.ok(kafkaPartitions.size > 0);
  const records = ['a', 'b', 'c', 'd', 'e'].map((k) => JSON.stringify({ key: { type: 'STRING', data: `key-${k}` }, value: { type: 'STRING', data: `v-${k}` } }));
  const body = records.slice(0, 2).join('') + '\n' + '{"value": {"type": "BINARY", "data": "fooba"}}' + records.slice(2).join('\n');
  const res = await call('POST', v3('topics', 'rp-stream', 'records'), body);
  assert.is(res.status, 200, res.text);
  const out = answers(res.text);
  assert.is(out.length, 6);
  assert.ok(res.text.endsWith('\r\n'));
  assert.is(out[2].error_code, 400);
  assert.match(out[2].message, /Base64/);
  const ok = out.filter((o) => o.error_code === 200);
  assert.is(ok.length, 5);
  const consumed = await readAll('rp-stream', 10);
  for (const [i, k] of ['a', 'b', 'c', 'd', 'e'].entries()) {
    const viaRest = ok[i];
    const kafkaCopy = consumed.find((m) => m.key?.toString() === `key-${k}` && m.value?.toString() === 'x');
    assert.is(viaRest.partition_id, kafkaCopy!.partition, `key-${k} on the partition kafkajs chose`);
    const restCopy = consumed.find((m) => m.partition === viaRest.partition_id && m.offset === String(viaRest.offset));
    assert.is(restCopy?.value?.toString(), `v-${k}`);
  }

  const broken = await call('POST', v3('topics', 'rp-stream', 'records'), `${records[0]}{"value": `);
  assert.equal(answers(broken.text).map((o) => o.error_code), [200, 400]);
  const unknownField = await call('POST', v3('topics', 'rp-stream', 'records'), { records: [] });
  assert.equal([unknownField.status, unknownField.json.error_code], [200, 400]);
  const badPartition = await call('POST', v3('topics', 'rp-stream', 'records'), { partition_id: 9, value: { type: 'STRING', data: 'x' } });
  assert.equal([badPartition.json.error_code, badPartition.json.message], [400, 'Invalid partition given with record: 9 is not in the range [0...4).']);
  const noTopic = await call('POST', v3('topics', 'rp-missing', 'records'), { value: { type: 'STRING', data: 'x' } });
  assert.equal([noTopic.status, noTopic.json], [404, { error_code: 40403, message: 'This server does not host this topic-partition.' }]);
  const badType = await call('POST', v3('topics', 'rp-stream', 'records'), { value: { type: 'XML', data: '<a/>' } });
  assert.is(badType.json.error_code, 400);
});

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

async function register(subject: string, schema: string, schemaType?: string): Promise<number> {
  const res = await fetch(`${base}/subjects/${subject}/versions`, { method: 'POST', headers: { 'content-type': REGISTRY_CT }, body: JSON.stringify({ schema, ...(schemaType ? { schemaType } : {}) }) });
  const body = await res.json() as { id: number };
  assert.is(res.status, 200, JSON.stringify(body));
  return body.id;
}

test('Schema Registry records: Avro by subject, by id and latest; JSON Schema; Protobuf; decoded by a Confluent-format client', async () => {
  await createTopic('rp-avro', 1);
  const order = JSON.stringify({ type: 'record', name: 'Order', namespace: 'samsa.rest', fields: [
    { name: 'id', type: 'long' }, { name: 'item', type: 'string' }, { name: 'note', type: ['null', 'string'], default: null },
    { name: 'tags', type: { type: 'array', items: 'string' } }, { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['A', 'B'] } },
  ] });
  const valueId = await register('rp-avro-value', order);
  const keyId = await register('rp-avro-key', JSON.stringify({ type: 'string' }));
  const data = { id: 7, item: 'pen', note: { string: 'blue' }, tags: ['x', 'y'], kind: 'B' };
  const bySubject = await call('POST', v3('topics', 'rp-avro', 'records'), { key: { schema_id: keyId, data: 'order-7' }, value: { type: 'AVRO', subject: 'rp-avro-value', data } });
  assert.is(bySubject.json.error_code, 200, bySubject.text);
  assert.equal(bySubject.json.value, { type: 'AVRO', subject: 'rp-avro-value', schema_id: valueId, schema_version: 1, size: bySubject.json.value.size });
  assert.equal(bySubject.json.key, { type: 'AVRO', subject: 'rp-avro-key', schema_id: keyId, schema_version: 1, size: 5 + 1 + 7 });
  // No type and no schema fields: the subject's (TopicNameStrategy) latest schema; an unwrapped union value is taken too.
  const latest = await call('POST', v3('topics', 'rp-avro', 'records'), `{"value": {"data": {"id": 8, "item": "ink", "note": null, "tags": [], "kind": "A"}}}{"value": {"schema_version": 1, "data": {"id": 9, "item": "cap", "note": "red", "tags": ["z"], "kind": "A"}}}`);
  assert.equal(answers(latest.text).map((a) => [a.error_code, a.value?.schema_id]), [[200, valueId], [200, valueId]]);

  const registry = new SchemaRegistry({ host: base });
  const got = await readAll('rp-avro', 3);
  assert.is(got[0]!.value![0], 0);
  assert.is(got[0]!.value!.readInt32BE(1), valueId);
  assert.is(await registry.decode(got[0]!.key!), 'order-7');
  assert.equal(plain(await registry.decode(got[0]!.value!)), { id: 7, item: 'pen', note: 'blue', tags: ['x', 'y'], kind: 'B' });
  assert.equal(plain(await registry.decode(got[1]!.value!)), { id: 8, item: 'ink', note: null, tags: [], kind: 'A' });
  assert.equal(plain(await registry.decode(got[2]!.value!)), { id: 9, item: 'cap', note: 'red', tags: ['z'], kind: 'A' });

  const wrong = await call('POST', v3('topics', 'rp-avro', 'records'), { value: { data: { id: 'seven', item: 'pen', tags: [], kind: 'A' } } });
  assert.is(wrong.json.error_code, 400);
  assert.match(wrong.json.message, /Conversion of JSON to Avro failed/);
  const noSchema = await call('POST', v3('topics', 'rp-stream', 'records'), { value: { data: { a: 1 } } });
  assert.not.equal(noSchema.json.error_code, 200);
  assert.match(noSchema.json.message, /Error when fetching latest schema version\. subject = rp-stream-value/);
  const mismatch = await call('POST', v3('topics', 'rp-avro', 'records'), { value: { type: 'PROTOBUF', data: {} } });
  assert.is(mismatch.json.error_code, 400);

  await createTopic('rp-typed', 1);
  const jsonId = await register('rp-typed-value', JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }), 'JSON');
  const proto = 'syntax = "proto3";\npackage samsa.rest;\n\nmessage Reading {\n  string sensor = 1;\n  int64 count = 2;\n  Level level = 3;\n}\n\nenum Level {\n  LOW = 0;\n  HIGH = 1;\n}\n';
  const protoId = await register('rp-proto', proto, 'PROTOBUF');
  const typed = await call('POST', v3('topics', 'rp-typed', 'records'), `{"value": {"type": "JSONSCHEMA", "data": {"name": "Ada"}}}{"value": {"type": "PROTOBUF", "subject": "rp-proto", "data": {"sensor": "s-1", "count": "12", "level": "HIGH"}}}`);
  const [j, p] = answers(typed.text);
  assert.equal([j.error_code, j.value.type, j.value.schema_id], [200, 'JSONSCHEMA', jsonId], typed.text);
  assert.equal([p.error_code, p.value.type, p.value.schema_id, p.value.subject], [200, 'PROTOBUF', protoId, 'rp-proto'], typed.text);
  const back = await readAll('rp-typed', 2);
  assert.equal(plain(await registry.decode(back[0]!.value!)), { name: 'Ada' });
  assert.is(back[1]!.value![5], 0, 'the message index of the first message');
  const reading = plain(await registry.decode(back[1]!.value!));
  assert.is(reading.sensor, 's-1');
  assert.is(String(reading.count), '12');
  assert.ok(reading.level === 1 || reading.level === 'HIGH');
});

test('consumer groups: members, assignments, lags and the lag summary while kafkajs has consumed part of a topic', async () => {
  await createTopic('rp-lag', 1);
  const records = (n: number, from: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ value: { type: 'STRING', data: `m${from + i}` } })).join('');
  assert.equal(answers((await call('POST', v3('topics', 'rp-lag', 'records'), records(6, 0))).text).map((a) => a.error_code), [200, 200, 200, 200, 200, 200]);
  const consumer = kafka.consumer({ groupId: 'rp-lag-g' });
  let seen = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  await consumer.connect();
  await consumer.subscribe({ topic: 'rp-lag', fromBeginning: true });
  await consumer.run({ eachMessage: async () => { if (seen++ >= 6) await gate; } });
  try {
    const lagsUrl = v3('consumer-groups', 'rp-lag-g', 'lags');
    await waitFor(async () => (await call('GET', lagsUrl)).json?.data?.[0]?.current_offset === 6, { timeoutMs: 20_000, description: 'offset 6 committed' });
    assert.equal(answers((await call('POST', v3('topics', 'rp-lag', 'records'), records(4, 6))).text).length, 4);
    await waitFor(() => seen >= 7, { timeoutMs: 10_000, description: 'the consumer holding record 7' });

    const list = await call('GET', v3('consumer-groups'));
    assert.is(list.json.kind, 'KafkaConsumerGroupList');
    const g = list.json.data.find((x: any) => x.consumer_group_id === 'rp-lag-g');
    assert.ok(g, list.text);
    assert.equal([g.state, g.type, g.is_simple], ['STABLE', 'CLASSIC', false]);
    assert.ok(typeof g.partition_assignor === 'string' && g.partition_assignor !== '');
    assert.is(g.coordinator.related, `${base}${v3('brokers', b.broker.nodeId)}`);
    assert.equal(g.metadata, { self: `${base}${v3('consumer-groups', 'rp-lag-g')}`, resource_name: `crn:///kafka=${cluster}/consumer-group=rp-lag-g` });
    const one = await call('GET', v3('consumer-groups', 'rp-lag-g'));
    assert.is(one.json.consumer_group_id, 'rp-lag-g');
    assert.is(one.json.lag_summary.related, `${base}${v3('consumer-groups', 'rp-lag-g', 'lag-summary')}`);

    const consumers = await call('GET', v3('consumer-groups', 'rp-lag-g', 'consumers'));
    assert.is(consumers.json.data.length, 1);
    const member = consumers.json.data[0];
    assert.is(member.client_id, 'rest-v3-test');
    assert.is((await call('GET', v3('consumer-groups', 'rp-lag-g', 'consumers', member.consumer_id))).json.consumer_id, member.consumer_id);
    const assignments = await call('GET', v3('consumer-groups', 'rp-lag-g', 'consumers', member.consumer_id, 'assignments'));
    assert.equal(assignments.json.data.map((x: any) => [x.kind, x.topic_name, x.partition_id]), [['KafkaConsumerAssignment', 'rp-lag', 0]]);

    const lags = await call('GET', lagsUrl);
    assert.is(lags.json.kind, 'KafkaConsumerLagList');
    const lag = lags.json.data[0];
    assert.equal([lag.topic_name, lag.partition_id, lag.current_offset, lag.log_end_offset, lag.lag, lag.consumer_id, lag.client_id], ['rp-lag', 0, 6, 10, 4, member.consumer_id, 'rest-v3-test']);
    assert.equal((await call('GET', v3('consumer-groups', 'rp-lag-g', 'lags', 'rp-lag', 'partitions', 0))).json, lag);
    assert.is((await call('GET', v3('consumer-groups', 'rp-lag-g', 'lags', 'rp-lag', 'partitions', 3))).status, 404);
    const summary = await call('GET', v3('consumer-groups', 'rp-lag-g', 'lag-summary'));
    assert.is(summary.json.kind, 'KafkaConsumerGroupLagSummary');
    assert.equal([summary.json.max_lag, summary.json.total_lag, summary.json.max_lag_topic_name, summary.json.max_lag_partition_id, summary.json.max_lag_consumer_id],
      [4, 4, 'rp-lag', 0, member.consumer_id]);
    assert.is(summary.json.max_lag_partition.related, `${base}${v3('topics', 'rp-lag', 'partitions', 0)}`);
    const none = await call('GET', v3('consumer-groups', 'rp-no-group'));
    assert.equal([none.status, none.json.error_code], [404, 404]);
  } finally {
    release();
    await consumer.disconnect();
  }
});

const PYTHON = String.raw`
import sys, json, base64, requests
base, cluster = sys.argv[1], sys.argv[2]
s = requests.Session()
v3 = f"{base}/v3/clusters/{cluster}"
out = {}
out["cluster"] = s.get(f"{base}/v3/clusters").json()["data"][0]["cluster_id"]
r = s.post(f"{v3}/topics", json={"topic_name": "rp-python", "partitions_count": 2, "replication_factor": 1, "configs": [{"name": "cleanup.policy", "value": "compact"}]})
out["create"] = [r.status_code, r.json()["partitions_count"]]
r = s.post(f"{v3}/topics/rp-python/records", json={"partition_id": 1, "key": {"type": "STRING", "data": "py"}, "value": {"type": "BINARY", "data": base64.b64encode(b"\x00snake\xff").decode()}})
p = r.json()
out["produce"] = [r.status_code, p["error_code"], p["partition_id"], p["offset"], p["value"]["size"]]
out["config"] = s.get(f"{v3}/topics/rp-python/configs/cleanup.policy").json()["value"]
r = s.get(f"{v3}/topics/rp-python-nope")
out["missing"] = [r.status_code, r.json()["error_code"]]
out["topics"] = [t["topic_name"] for t in s.get(f"{v3}/topics").json()["data"] if t["topic_name"] == "rp-python"]
from confluent_kafka import Consumer
c = Consumer({"bootstrap.servers": sys.argv[3], "group.id": "rp-python-g", "group.protocol": "consumer", "client.id": "py-rest",
              "auto.offset.reset": "earliest", "enable.auto.commit": False})
c.subscribe(["rp-python"])
while True:
    m = c.poll(1.0)
    if m is not None and not m.error():
        break
c.commit(asynchronous=False)
c.close()
g = s.get(f"{v3}/consumer-groups/rp-python-g").json()
out["group"] = [g["type"], g["state"]]
out["lag"] = [[l["partition_id"], l["current_offset"], l["log_end_offset"], l["lag"]] for l in s.get(f"{v3}/consumer-groups/rp-python-g/lags").json()["data"] if l["partition_id"] == 1]
print(json.dumps(out))
`;

test('Python requests against the v3 API; a KIP-848 group of confluent-kafka-python (the venv)', async () => {
  if (!existsSync(VENV_PYTHON)) {
    if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`no ${VENV_PYTHON} (tools/ensure-test-deps.sh)`);
    return;
  }
  const run = await venvPython(PYTHON, [base, cluster, b.bootstrap], { timeoutMs: 60_000 });
  assert.is(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout.trim()), {
    cluster, create: [201, 2], produce: [200, 200, 1, 0, 7], config: 'compact', missing: [404, 40403], topics: ['rp-python'],
    group: ['CONSUMER', 'EMPTY'], lag: [[1, 1, 1, 0]],
  });
  const [record] = (await readAll('rp-python', 1));
  assert.ok(Buffer.compare(record!.value!, Buffer.from([0, ...Buffer.from('snake'), 255])) === 0);
});

test('ACLs apply as for a Kafka client of the HTTP user: 40301 without them, allowed once granted', async () => {
  const s = await startBroker({
    http: true, 'auto.create.topics.enable': false,
    sasl: { plain: { admin: 'admin-pw', alice: 'alice-pw' } },
    config: { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin' },
  });
  try {
    const basic = (u: string) => `Basic ${Buffer.from(`${u}:${u}-pw`).toString('base64')}`;
    const as = async (user: string | null, method: string, path: string, body?: unknown) => {
      const res = await fetch(s.httpUrl + path, { method, headers: { 'content-type': 'application/json', ...(user ? { authorization: basic(user) } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, text, json: text.startsWith('{') ? JSON.parse(text) : null };
    };
    assert.is((await as(null, 'GET', '/v3/clusters')).status, 401);
    const id = (await as('admin', 'GET', '/v3/clusters')).json.data[0].cluster_id;
    const t = (...parts: string[]) => `/v3/clusters/${id}/topics${parts.map((p) => `/${p}`).join('')}`;
    assert.is((await as('admin', 'POST', t(), { topic_name: 'secret', partitions_count: 1 })).status, 201);
    const denied = await as('alice', 'POST', t(), { topic_name: 'alices', partitions_count: 1 });
    assert.equal([denied.status, denied.json.error_code], [403, 40301]);
    assert.equal((await as('alice', 'GET', t())).json.data, []);
    const hidden = await as('alice', 'GET', t('secret'));
    assert.equal([hidden.status, hidden.json.error_code], [403, 40301]);
    const refused = await as('alice', 'POST', t('secret', 'records'), { value: { type: 'STRING', data: 'x' } });
    assert.equal([refused.status, refused.json.error_code], [200, 40301]);

    const kafka = new Kafka({ brokers: [s.bootstrap], sasl: { mechanism: 'plain', username: 'admin', password: 'admin-pw' }, logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createAcls({ acl: [kafkajs.AclOperationTypes.WRITE, kafkajs.AclOperationTypes.DESCRIBE].map((operation) => ({
      resourceType: kafkajs.AclResourceTypes.TOPIC, resourceName: 'secret', resourcePatternType: kafkajs.ResourcePatternTypes.LITERAL,
      principal: 'User:alice', host: '*', operation, permissionType: kafkajs.AclPermissionTypes.ALLOW,
    })) });
    await admin.disconnect();
    await waitFor(async () => (await as('alice', 'GET', t('secret'))).status === 200, { timeoutMs: 10_000, description: 'the ACLs applied' });
    assert.equal((await as('alice', 'GET', t())).json.data.map((x: any) => x.topic_name), ['secret']);
    const produced = await as('alice', 'POST', t('secret', 'records'), { value: { type: 'STRING', data: 'x' } });
    assert.equal([produced.json.error_code, produced.json.offset], [200, 0]);
    const configs = await as('alice', 'GET', t('secret', 'configs'));
    assert.equal([configs.status, configs.json.error_code], [403, 40301]);
  } finally {
    await s.stop();
  }
});

test.run();
