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

let b: RunningBroker, base: string, cluster: string;
let kafka: InstanceType<typeof Kafka>;

interface Answer { status: number; headers: Headers; text: string; json: any }

async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const res = await fetch(base + path, {
    method, headers: { accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: /^\s*[{[]/.test(text) ? JSON.parse(text.split('\r\n')[0]!) : null };
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
  cluster = (await call('GET', '/v3/clusters')).json.data[0].cluster_id;
});

test.after(() => b?.stop());

test('clusters and brokers', async () => {
  const list = await call('GET', '/v3/clusters');
  assert.equal([list.status, list.json.kind, list.json.metadata.self, cluster], [200, 'KafkaClusterList', `${base}/v3/clusters`, b.broker.metadataCache.clusterId]);
  assert.match(list.headers.get('content-type') ?? '', /^application\/json/);
  const one = (await call('GET', v3())).json;
  assert.is(one.kind, 'KafkaCluster');
  assert.equal(one.metadata, { self: `${base}/v3/clusters/${cluster}`, resource_name: `crn:///kafka=${cluster}` });
  assert.equal([one.topics.related, one.consumer_groups.related, one.brokers.related], ['topics', 'consumer-groups', 'brokers'].map((x) => `${base}/v3/clusters/${cluster}/${x}`));
  const missing = await call('GET', '/v3/clusters/no-such-cluster/topics');
  assert.equal([missing.status, missing.json], [404, { error_code: 404, message: 'Cluster no-such-cluster cannot be found.' }]);

  const brokers = (await call('GET', v3('brokers'))).json;
  assert.equal([brokers.kind, brokers.data.length], ['KafkaBrokerList', 1]);
  const br = brokers.data[0];
  assert.equal([br.kind, br.broker_id, br.port, br.metadata.resource_name], ['KafkaBroker', b.broker.nodeId, b.port, `crn:///kafka=${cluster}/broker=${b.broker.nodeId}`]);
  assert.is((await call('GET', v3('brokers', b.broker.nodeId))).json.broker_id, b.broker.nodeId);
  assert.is((await call('GET', v3('brokers', 999))).status, 404);

  const nowhere = await call('GET', v3('nowhere'));
  assert.equal([nowhere.status, nowhere.json], [404, { error_code: 404, message: 'HTTP 404 Not Found' }]);
  assert.is((await call('PUT', v3('topics'), {})).status, 405);
});

test('topics: create, list, get, partitions, replicas, delete; error codes', async () => {
  const created = await call('POST', v3('topics'), { topic_name: 'rp-admin', partitions_count: 3, replication_factor: 1, configs: [{ name: 'cleanup.policy', value: 'compact' }] });
  assert.is(created.status, 201, created.text);
  assert.is(created.headers.get('location'), `${base}${v3('topics', 'rp-admin')}`);
  const c = created.json;
  assert.equal([c.kind, c.topic_name, c.partitions_count, c.replication_factor, c.partitions.related], ['KafkaTopic', 'rp-admin', 3, 1, `${base}${v3('topics', 'rp-admin', 'partitions')}`]);

  const dup = await call('POST', v3('topics'), { topic_name: 'rp-admin', partitions_count: 1 });
  assert.equal([dup.status, dup.json], [400, { error_code: 40002, message: "Topic 'rp-admin' already exists." }]);
  const badRf = await call('POST', v3('topics'), { topic_name: 'rp-rf', partitions_count: 1, replication_factor: 3 });
  const badName = await call('POST', v3('topics'), { topic_name: 'bad name!', partitions_count: 1 });
  const notJson = await call('POST', v3('topics'), '{"topic_name": ');
  assert.equal([badRf, badName, notJson].map((x) => [x.status, x.json.error_code]), [[400, 40002], [400, 40002], [400, 400]]);
  assert.is((await call('POST', v3('topics'), { topic_name: 'rp-dry', partitions_count: 2, validate_only: true })).status, 200);

  const list = (await call('GET', v3('topics'))).json;
  const names = list.data.map((t: any) => t.topic_name);
  assert.equal([list.kind, names.includes('rp-admin'), names.includes('rp-dry'), names.includes('__consumer_offsets')], ['KafkaTopicList', true, false, false]);
  const t = (await call('GET', v3('topics', 'rp-admin'))).json;
  assert.equal([t.metadata, t.is_internal], [{ self: `${base}${v3('topics', 'rp-admin')}`, resource_name: `crn:///kafka=${cluster}/topic=rp-admin` }, false]);
  const unknown = await call('GET', v3('topics', 'rp-none'));
  assert.equal([unknown.status, unknown.json], [404, { error_code: 40403, message: 'This server does not host this topic-partition.' }]);

  const parts = (await call('GET', v3('topics', 'rp-admin', 'partitions'))).json;
  assert.equal([parts.kind, parts.data.map((p: any) => p.partition_id)], ['KafkaPartitionList', [0, 1, 2]]);
  const p1 = (await call('GET', v3('topics', 'rp-admin', 'partitions', 1))).json;
  assert.equal([p1.kind, p1.leader.related], ['KafkaPartition', `${base}${v3('topics', 'rp-admin', 'partitions', 1, 'replicas', b.broker.nodeId)}`]);
  assert.is((await call('GET', v3('topics', 'rp-admin', 'partitions', 7))).status, 404);
  const replicas = await call('GET', v3('topics', 'rp-admin', 'partitions', 1, 'replicas'));
  assert.equal(replicas.json.data.map((x: any) => [x.broker_id, x.is_leader, x.is_in_sync]), [[b.broker.nodeId, true, true]]);

  assert.is((await call('DELETE', v3('topics', 'rp-admin'))).status, 204);
  await waitFor(async () => (await call('GET', v3('topics', 'rp-admin'))).status === 404, { timeoutMs: 10_000, description: 'the topic gone' });
  const again = await call('DELETE', v3('topics', 'rp-admin'));
  assert.equal([again.status, again.json.error_code], [404, 40403]);
});

test('topic configs: list, get, put, delete, alter in a batch', async () => {
  await createTopic('rp-configs', 1, [{ name: 'retention.ms', value: '3600000' }]);
  const list = await call('GET', v3('topics', 'rp-configs', 'configs'));
  assert.equal([list.status, list.json.kind], [200, 'KafkaTopicConfigList'], list.text);
  const r = list.json.data.find((c: any) => c.name === 'retention.ms');
  assert.equal([r.kind, r.value, r.source, r.is_default, r.metadata.resource_name], ['KafkaTopicConfig', '3600000', 'DYNAMIC_TOPIC_CONFIG', false, `crn:///kafka=${cluster}/topic=rp-configs/config=retention.ms`]);
  assert.ok(r.synonyms.some((s: any) => s.source === 'DYNAMIC_TOPIC_CONFIG' && s.value === '3600000'));

  const one = await call('GET', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'));
  assert.equal([one.json.value, one.json.is_default, one.json.source], ['delete', true, 'DEFAULT_CONFIG']);

  assert.is((await call('PUT', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'), { value: 'compact' })).status, 204);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'))).json.value, 'compact');
  assert.is((await call('DELETE', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'))).status, 204);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'))).json.value, 'delete');

  const batch = await call('POST', v3('topics', 'rp-configs', 'configs:alter'), { data: [{ name: 'retention.ms', operation: 'DELETE' }, { name: 'max.message.bytes', value: '65536' }] });
  assert.is(batch.status, 204, batch.text);
  const after = (await call('GET', v3('topics', 'rp-configs', 'configs'))).json.data;
  assert.equal([after.find((c: any) => c.name === 'retention.ms').is_default, after.find((c: any) => c.name === 'max.message.bytes').value], [true, '65536']);
  assert.is((await call('POST', v3('topics', 'rp-configs', 'configs:alter'), { data: [{ name: 'max.message.bytes', value: '1000' }], validate_only: true })).status, 204);
  assert.is((await call('GET', v3('topics', 'rp-configs', 'configs', 'max.message.bytes'))).json.value, '65536');

  const nope = await call('PUT', v3('topics', 'rp-configs', 'configs', 'no.such.config'), { value: 'x' });
  assert.equal([nope.status, nope.json], [404, { error_code: 404, message: `Config no.such.config cannot be found for TOPIC rp-configs in cluster ${cluster}.` }]);
  const badValue = await call('PUT', v3('topics', 'rp-configs', 'configs', 'cleanup.policy'), { value: 'sometimes' });
  const noName = await call('GET', v3('topics', 'rp-configs', 'configs', 'nothing.here'));
  const noTopic = await call('GET', v3('topics', 'rp-nothing', 'configs'));
  assert.equal([badValue, noName, noTopic].map((x) => [x.status, x.json.error_code]), [[400, 40002], [404, 404], [404, 40403]]);
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
  assert.equal(first.json, {
    error_code: 200, cluster_id: cluster, topic_name: 'rp-records', partition_id: 2, offset: 0, timestamp: '2021-02-05T19:14:42Z',
    key: { type: 'STRING', size: 3 }, value: { type: 'JSON', size: Buffer.byteLength(JSON.stringify({ n: 1, s: 'é', a: [true, null] })) },
  });
  const second = (await call('POST', v3('topics', 'rp-records', 'records'), { partition_id: 2, key: { type: 'BINARY', data: bin.toString('base64') }, value: { type: 'BINARY', data: bin.toString('base64') } })).json;
  assert.equal([second.error_code, second.offset, second.key, second.value], [200, 1, { type: 'BINARY', size: 7 }, { type: 'BINARY', size: 7 }]);
  const third = (await call('POST', v3('topics', 'rp-records', 'records'), { partition_id: 2, value: { type: 'STRING', data: 'no key' } })).json;
  assert.equal([third.offset, third.key], [2, undefined]);
  const nulls = (await call('POST', v3('topics', 'rp-records', 'records'), { partition_id: 2, key: { type: 'JSON', data: null }, value: { type: 'BINARY' } })).json;
  assert.equal([nulls.offset, nulls.key.size, nulls.value.size], [3, -1, -1]);

  const [g0, g1, g2, g3] = (await readAll('rp-records', 4)).filter((m) => m.partition === 2);
  assert.equal([g0!.key!.toString(), JSON.parse(g0!.value!.toString()), g0!.timestamp], ['k-1', { n: 1, s: 'é', a: [true, null] }, String(Date.parse('2021-02-05T19:14:42Z'))]);
  assert.equal([Object.keys(g0!.headers!), String(g0!.headers!.h1)], [['h1', 'h2'], 'hv']);
  assert.ok(Buffer.compare(g1!.key!, bin) === 0 && Buffer.compare(g1!.value!, bin) === 0, 'binary bytes identical');
  assert.equal([g2!.key, g2!.value!.toString(), g3!.key, g3!.value], [null, 'no key', null, null]);
});

test('keyed records follow Kafka\'s default partitioner; streaming mode answers each record', async () => {
  await createTopic('rp-stream', 4);
  const producer = kafka.producer();
  await producer.connect(); // kafkajs's DefaultPartitioner is Java's murmur2 partitioner.
  await producer.send({ topic: 'rp-stream', messages: ['a', 'b', 'c', 'd', 'e'].map((k) => ({ key: `key-${k}`, value: 'x' })) });
  await producer.disconnect();
  const records = ['a', 'b', 'c', 'd', 'e'].map((k) => JSON.stringify({ key: { type: 'STRING', data: `key-${k}` }, value: { type: 'STRING', data: `v-${k}` } }));
  const body = records.slice(0, 2).join('') + '\n' + '{"value": {"type": "BINARY", "data": "fooba"}}' + records.slice(2).join('\n');
  const res = await call('POST', v3('topics', 'rp-stream', 'records'), body);
  const out = answers(res.text);
  assert.equal([res.status, out.length, res.text.endsWith('\r\n'), out.map((o) => o.error_code)], [200, 6, true, [200, 200, 400, 200, 200, 200]], res.text);
  assert.match(out[2].message, /Base64/);
  const ok = out.filter((o) => o.error_code === 200);
  const consumed = await readAll('rp-stream', 10);
  for (const [i, k] of ['a', 'b', 'c', 'd', 'e'].entries()) {
    const kafkaCopy = consumed.find((m) => m.key?.toString() === `key-${k}` && m.value?.toString() === 'x');
    const restCopy = consumed.find((m) => m.partition === ok[i].partition_id && m.offset === String(ok[i].offset));
    assert.equal([ok[i].partition_id, restCopy?.value?.toString()], [kafkaCopy!.partition, `v-${k}`], `key-${k} on the partition kafkajs chose`);
  }

  assert.equal(answers((await call('POST', v3('topics', 'rp-stream', 'records'), `${records[0]}{"value": `)).text).map((o) => o.error_code), [200, 400]);
  const unknownField = await call('POST', v3('topics', 'rp-stream', 'records'), { records: [] });
  const badPartition = (await call('POST', v3('topics', 'rp-stream', 'records'), { partition_id: 9, value: { type: 'STRING', data: 'x' } })).json;
  assert.equal([unknownField.status, unknownField.json.error_code, badPartition.error_code, badPartition.message],
    [200, 400, 400, 'Invalid partition given with record: 9 is not in the range [0...4).']);
  const noTopic = await call('POST', v3('topics', 'rp-missing', 'records'), { value: { type: 'STRING', data: 'x' } });
  assert.equal([noTopic.status, noTopic.json], [404, { error_code: 40403, message: 'This server does not host this topic-partition.' }]);
  assert.is((await call('POST', v3('topics', 'rp-stream', 'records'), { value: { type: 'XML', data: '<a/>' } })).json.error_code, 400);
});

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

async function register(subject: string, schema: string, schemaType?: string): Promise<number> {
  const r = await call('POST', `/subjects/${subject}/versions`, { schema, ...(schemaType ? { schemaType } : {}) }, REGISTRY_CT);
  assert.is(r.status, 200, r.text);
  return r.json.id;
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
  const { error_code: code, key, value } = bySubject.json;
  assert.equal([code, key, value], [200, { type: 'AVRO', subject: 'rp-avro-key', schema_id: keyId, schema_version: 1, size: 5 + 1 + 7 },
    { type: 'AVRO', subject: 'rp-avro-value', schema_id: valueId, schema_version: 1, size: value?.size }], bySubject.text);
  // No type and no schema fields: the subject's (TopicNameStrategy) latest schema; an unwrapped union value is taken too.
  const latest = await call('POST', v3('topics', 'rp-avro', 'records'), `{"value": {"data": {"id": 8, "item": "ink", "note": null, "tags": [], "kind": "A"}}}{"value": {"schema_version": 1, "data": {"id": 9, "item": "cap", "note": "red", "tags": ["z"], "kind": "A"}}}`);
  assert.equal(answers(latest.text).map((a) => [a.error_code, a.value?.schema_id]), [[200, valueId], [200, valueId]]);

  const registry = new SchemaRegistry({ host: base });
  const got = await readAll('rp-avro', 3);
  assert.equal([got[0]!.value![0], got[0]!.value!.readInt32BE(1), await registry.decode(got[0]!.key!)], [0, valueId, 'order-7']);
  assert.equal(await Promise.all(got.map(async (m) => plain(await registry.decode(m.value!)))), [
    { id: 7, item: 'pen', note: 'blue', tags: ['x', 'y'], kind: 'B' }, { id: 8, item: 'ink', note: null, tags: [], kind: 'A' }, { id: 9, item: 'cap', note: 'red', tags: ['z'], kind: 'A' },
  ]);

  const wrong = (await call('POST', v3('topics', 'rp-avro', 'records'), { value: { data: { id: 'seven', item: 'pen', tags: [], kind: 'A' } } })).json;
  assert.is(wrong.error_code, 400);
  assert.match(wrong.message, /Conversion of JSON to Avro failed/);
  const noSchema = (await call('POST', v3('topics', 'rp-stream', 'records'), { value: { data: { a: 1 } } })).json;
  assert.equal([noSchema.error_code, noSchema.message.startsWith('Error when fetching latest schema version. subject = rp-stream-value')], [50002, true]);
  assert.is((await call('POST', v3('topics', 'rp-avro', 'records'), { value: { type: 'PROTOBUF', data: {} } })).json.error_code, 400);

  await createTopic('rp-typed', 1);
  const jsonId = await register('rp-typed-value', JSON.stringify({ type: 'object', properties: { name: { type: 'string' } } }), 'JSON');
  const proto = 'syntax = "proto3";\npackage samsa.rest;\n\nmessage Reading {\n  string sensor = 1;\n  int64 count = 2;\n  Level level = 3;\n}\n\nenum Level {\n  LOW = 0;\n  HIGH = 1;\n}\n';
  const protoId = await register('rp-proto', proto, 'PROTOBUF');
  const typed = await call('POST', v3('topics', 'rp-typed', 'records'), `{"value": {"type": "JSONSCHEMA", "data": {"name": "Ada"}}}{"value": {"type": "PROTOBUF", "subject": "rp-proto", "data": {"sensor": "s-1", "count": "12", "level": "HIGH"}}}`);
  const [j, p] = answers(typed.text);
  assert.equal([j.error_code, j.value.type, j.value.schema_id], [200, 'JSONSCHEMA', jsonId], typed.text);
  assert.equal([p.error_code, p.value.type, p.value.schema_id, p.value.subject], [200, 'PROTOBUF', protoId, 'rp-proto'], typed.text);
  const back = await readAll('rp-typed', 2);
  assert.equal([plain(await registry.decode(back[0]!.value!)), back[1]!.value![5]], [{ name: 'Ada' }, 0], 'JSON, and the message index of the first message');
  const reading = plain(await registry.decode(back[1]!.value!));
  assert.equal([reading.sensor, String(reading.count), reading.level === 1 || reading.level === 'HIGH'], ['s-1', '12', true]);
});

test('consumer groups: members, assignments, lags and the lag summary while kafkajs has consumed part of a topic', async () => {
  await createTopic('rp-lag', 1);
  const records = (n: number, from: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ value: { type: 'STRING', data: `m${from + i}` } })).join('');
  assert.equal(answers((await call('POST', v3('topics', 'rp-lag', 'records'), records(6, 0))).text).map((a) => a.error_code), [200, 200, 200, 200, 200, 200]);
  const consumer = kafka.consumer({ groupId: 'rp-lag-g' });
  let seen = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await consumer.connect();
  await consumer.subscribe({ topic: 'rp-lag', fromBeginning: true });
  await consumer.run({ eachMessage: async () => { if (seen++ >= 6) await gate; } });
  try {
    const lagsUrl = v3('consumer-groups', 'rp-lag-g', 'lags');
    await waitFor(async () => (await call('GET', lagsUrl)).json?.data?.[0]?.current_offset === 6, { timeoutMs: 20_000, description: 'offset 6 committed' });
    assert.equal(answers((await call('POST', v3('topics', 'rp-lag', 'records'), records(4, 6))).text).length, 4);
    await waitFor(() => seen >= 7, { timeoutMs: 10_000, description: 'the consumer holding record 7' });

    const list = (await call('GET', v3('consumer-groups'))).json;
    const g = list.data.find((x: any) => x.consumer_group_id === 'rp-lag-g');
    assert.equal([list.kind, g.state, g.type, g.is_simple, typeof g.partition_assignor, g.coordinator.related], ['KafkaConsumerGroupList', 'STABLE', 'CLASSIC', false, 'string', `${base}${v3('brokers', b.broker.nodeId)}`]);
    assert.equal(g.metadata, { self: `${base}${v3('consumer-groups', 'rp-lag-g')}`, resource_name: `crn:///kafka=${cluster}/consumer-group=rp-lag-g` });
    const one = (await call('GET', v3('consumer-groups', 'rp-lag-g'))).json;
    assert.equal([one.consumer_group_id, one.lag_summary.related], ['rp-lag-g', `${base}${v3('consumer-groups', 'rp-lag-g', 'lag-summary')}`]);

    const consumers = (await call('GET', v3('consumer-groups', 'rp-lag-g', 'consumers'))).json.data;
    const member = consumers[0];
    assert.equal([consumers.length, member.client_id], [1, 'rest-v3-test']);
    assert.is((await call('GET', v3('consumer-groups', 'rp-lag-g', 'consumers', member.consumer_id))).json.consumer_id, member.consumer_id);
    const assignments = await call('GET', v3('consumer-groups', 'rp-lag-g', 'consumers', member.consumer_id, 'assignments'));
    assert.equal(assignments.json.data.map((x: any) => [x.kind, x.topic_name, x.partition_id]), [['KafkaConsumerAssignment', 'rp-lag', 0]]);

    const lags = (await call('GET', lagsUrl)).json;
    assert.is(lags.kind, 'KafkaConsumerLagList');
    const lag = lags.data[0];
    assert.equal([lag.topic_name, lag.partition_id, lag.current_offset, lag.log_end_offset, lag.lag, lag.consumer_id, lag.client_id], ['rp-lag', 0, 6, 10, 4, member.consumer_id, 'rest-v3-test']);
    assert.equal((await call('GET', v3('consumer-groups', 'rp-lag-g', 'lags', 'rp-lag', 'partitions', 0))).json, lag);
    assert.is((await call('GET', v3('consumer-groups', 'rp-lag-g', 'lags', 'rp-lag', 'partitions', 3))).status, 404);
    const sum = (await call('GET', v3('consumer-groups', 'rp-lag-g', 'lag-summary'))).json;
    assert.equal([sum.kind, sum.max_lag, sum.total_lag, sum.max_lag_topic_name, sum.max_lag_partition_id, sum.max_lag_consumer_id, sum.max_lag_partition.related],
      ['KafkaConsumerGroupLagSummary', 4, 4, 'rp-lag', 0, member.consumer_id, `${base}${v3('topics', 'rp-lag', 'partitions', 0)}`]);
    const none = await call('GET', v3('consumer-groups', 'rp-no-group'));
    assert.equal([none.status, none.json.error_code], [404, 404]);
  } finally {
    release();
    await consumer.disconnect();
  }
});

const PYTHON = String.raw`
import sys, json, base64, requests
from confluent_kafka import Consumer
base, cluster, s, out = sys.argv[1], sys.argv[2], requests.Session(), {}
v3 = f"{base}/v3/clusters/{cluster}"
out["cluster"] = s.get(f"{base}/v3/clusters").json()["data"][0]["cluster_id"]
r = s.post(f"{v3}/topics", json={"topic_name": "rp-python", "partitions_count": 2, "replication_factor": 1, "configs": [{"name": "cleanup.policy", "value": "compact"}]})
out["create"] = [r.status_code, r.json()["partitions_count"]]
r = s.post(f"{v3}/topics/rp-python/records", json={"partition_id": 1, "key": {"type": "STRING", "data": "py"}, "value": {"type": "BINARY", "data": base64.b64encode(b"\x00snake\xff").decode()}})
p = r.json(); out["produce"] = [r.status_code, p["error_code"], p["partition_id"], p["offset"], p["value"]["size"]]
out["config"] = s.get(f"{v3}/topics/rp-python/configs/cleanup.policy").json()["value"]
r = s.get(f"{v3}/topics/rp-python-nope"); out["missing"] = [r.status_code, r.json()["error_code"]]
out["topics"] = [t["topic_name"] for t in s.get(f"{v3}/topics").json()["data"] if t["topic_name"] == "rp-python"]
c = Consumer({"bootstrap.servers": sys.argv[3], "group.id": "rp-python-g", "group.protocol": "consumer", "client.id": "py-rest",
              "auto.offset.reset": "earliest", "enable.auto.commit": False})
c.subscribe(["rp-python"])
while (m := c.poll(1.0)) is None or m.error(): pass
c.commit(asynchronous=False); c.close()
g = s.get(f"{v3}/consumer-groups/rp-python-g").json(); out["group"] = [g["type"], g["state"]]
out["lag"] = [[l["partition_id"], l["current_offset"], l["log_end_offset"], l["lag"]] for l in s.get(f"{v3}/consumer-groups/rp-python-g/lags").json()["data"] if l["partition_id"] == 1]
print(json.dumps(out))
`;

test('Python requests against the v3 API; a KIP-848 group of confluent-kafka-python (the venv)', async () => {
  if (!existsSync(VENV_PYTHON)) {
    if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`no ${VENV_PYTHON} (tools/ensure-test-deps.sh)`);
    return; // No venv outside CI: skipped.
  }
  const run = await venvPython(PYTHON, [base, cluster, b.bootstrap], { timeoutMs: 60_000 });
  assert.is(run.code, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout.trim()), {
    cluster, create: [201, 2], produce: [200, 200, 1, 0, 7], config: 'compact', missing: [404, 40403], topics: ['rp-python'],
    group: ['CONSUMER', 'EMPTY'], lag: [[1, 1, 1, 0]],
  });
  assert.ok(Buffer.compare((await readAll('rp-python', 1))[0]!.value!, Buffer.from([0, ...Buffer.from('snake'), 255])) === 0);
});

test('ACLs apply as for a Kafka client of the HTTP user: 40301 without them, allowed once granted', async () => {
  const s = await startBroker({
    http: true, 'auto.create.topics.enable': false,
    sasl: { plain: { admin: 'admin-pw', alice: 'alice-pw' } },
    config: { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer', 'super.users': 'User:admin' },
  });
  try {
    const as = async (user: string | null, method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(user ? { authorization: `Basic ${Buffer.from(`${user}:${user}-pw`).toString('base64')}` } : {}) };
      const res = await fetch(s.httpUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, json: text.startsWith('{') ? JSON.parse(text) : null };
    };
    assert.is((await as(null, 'GET', '/v3/clusters')).status, 401);
    const id = (await as('admin', 'GET', '/v3/clusters')).json.data[0].cluster_id;
    const t = (...parts: string[]) => `/v3/clusters/${id}/topics${parts.map((p) => `/${p}`).join('')}`;
    assert.is((await as('admin', 'POST', t(), { topic_name: 'secret', partitions_count: 1 })).status, 201);
    const denied = await as('alice', 'POST', t(), { topic_name: 'alices', partitions_count: 1 });
    const hidden = await as('alice', 'GET', t('secret'));
    const refused = await as('alice', 'POST', t('secret', 'records'), { value: { type: 'STRING', data: 'x' } });
    assert.equal([denied, hidden, refused].map((x) => [x.status, x.json.error_code]), [[403, 40301], [403, 40301], [200, 40301]]);
    assert.equal((await as('alice', 'GET', t())).json.data, []);

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
    const produced = (await as('alice', 'POST', t('secret', 'records'), { value: { type: 'STRING', data: 'x' } })).json;
    const configs = await as('alice', 'GET', t('secret', 'configs'));
    assert.equal([produced.error_code, produced.offset, configs.status, configs.json.error_code], [200, 0, 403, 40301]);
  } finally {
    await s.stop();
  }
});

test.run();
