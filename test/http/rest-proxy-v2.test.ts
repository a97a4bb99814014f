/**
 * Confluent's REST Proxy v2 API on the broker's HTTP listener (src/http/rest-proxy/v2*.ts), driven
 * as curl would (Confluent's media types) and checked against kafkajs: v2 produce in the json
 * and binary embedded formats reads back byte for byte, avro and jsonschema in the Schema
 * Registry's wire format; topic metadata; consumer
 * instances (KIP-848 members of a real group on this broker) read what kafkajs produced, commit
 * offsets kafkajs' admin sees, split a topic's partitions between two instances, seek, are
 * assigned partitions by hand, expire when idle, and are gone (40403) once deleted; plus the
 * classic v2 consume loop of Confluent's docs in Python with `requests` (the test venv).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG } from '../support/consumer-protocol-scenarios.js';
import { VENV_PYTHON, venvPython, waitFor } from '../support/external.js';
import { expireIdleRestConsumers } from '../../src/http/rest-proxy/v2-consumers.js';
import type { HttpBroker } from '../../src/http/http-broker.js';
import { sendInProcess } from '../../src/http/in-process.js';
import type { ConsumerGroupDescribeResponse } from '../../src/protocol/generated/messages/consumer-group-describe-response.js';

const { Kafka, logLevel } = kafkajs;
const V2 = 'application/vnd.kafka.v2+json';
const JSON_V2 = 'application/vnd.kafka.json.v2+json';
const BINARY_V2 = 'application/vnd.kafka.binary.v2+json';

let b: RunningBroker;
let kafka: InstanceType<typeof Kafka>;

test.before(async () => {
  b = await startBroker({ http: true, config: { ...CONSUMER_PROTOCOL_BROKER_CONFIG, 'offsets.topic.num.partitions': 1, 'auto.create.topics.enable': false } });
  kafka = new Kafka({ clientId: 'rest-proxy-v2-test', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
});

test.after(async () => void (await b?.stop()));

async function createTopic(topic: string, numPartitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  await admin.disconnect();
}

interface Answer { status: number; type: string; body: any }

/** Confluent's error: the HTTP status and the error_code. */
function isError(a: Answer, status: number, errorCode: number): void {
  assert.is(a.status, status, JSON.stringify(a.body));
  assert.is(a.body.error_code, errorCode);
}

/** One request as curl sends it (node:http, so a GET may carry a body): `contentType` for the body, `accept` for the answer. */
function call(method: string, path: string, opts: { body?: unknown; contentType?: string; accept?: string } = {}): Promise<Answer> {
  const text = opts.body === undefined ? '' : JSON.stringify(opts.body);
  const headers: Record<string, string | number> = { Accept: opts.accept ?? V2, 'Content-Length': Buffer.byteLength(text) };
  if (opts.body !== undefined) headers['Content-Type'] = opts.contentType ?? V2;
  return new Promise((resolve, reject) => {
    const req = request(`${b.httpUrl}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const t = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: t === '' ? null : JSON.parse(t) });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

/** Reads `count` messages of `topic` from the start with kafkajs. */
async function readWithKafkajs(topic: string, count: number): Promise<{ partition: number; offset: string; key: Buffer | null; value: Buffer | null }[]> {
  const consumer = kafka.consumer({ groupId: `kafkajs-${topic}-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: { partition: number; offset: string; key: Buffer | null; value: Buffer | null }[] = [];
  await consumer.run({ eachMessage: async ({ partition, message }) => void got.push({ partition, offset: message.offset, key: message.key, value: message.value }) });
  await waitFor(() => got.length >= count, { timeoutMs: 20_000, description: `${count} messages of ${topic}` });
  await consumer.disconnect();
  return got;
}

test('produce json records: offsets answered, kafkajs reads the JSON text', async () => {
  await createTopic('v2-json', 3);
  const records = [{ key: 'k1', value: { n: 1, s: 'ä' } }, { value: [1, 2, 3] }, { key: 'k1', value: 'text' }, { value: null, partition: 2 }];
  const res = await call('POST', '/topics/v2-json', { body: { records }, contentType: JSON_V2 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(res.type, V2);
  assert.equal([res.body.key_schema_id, res.body.value_schema_id, res.body.offsets.length], [null, null, 4]);
  assert.ok(res.body.offsets.every((o: any) => Number.isInteger(o.partition) && Number.isInteger(o.offset) && o.error_code === null && o.error === null), JSON.stringify(res.body));
  assert.is(res.body.offsets[0].partition, res.body.offsets[2].partition, 'one key, one partition');
  assert.is(res.body.offsets[3].partition, 2);
  const got = await readWithKafkajs('v2-json', 4);
  const at = (i: number) => got.find((g) => g.partition === res.body.offsets[i].partition && g.offset === String(res.body.offsets[i].offset))!;
  assert.is(at(0).key!.toString(), '"k1"');
  assert.is(at(0).value!.toString(), JSON.stringify({ n: 1, s: 'ä' }));
  assert.is(at(1).key, null);
  assert.is(at(1).value!.toString(), '[1,2,3]');
  assert.is(at(2).value!.toString(), '"text"');
  assert.is(at(3).value, null);
});

test('produce binary records (topic and partition): kafkajs reads the same bytes', async () => {
  await createTopic('v2-binary', 2);
  const bytes = Buffer.from([0, 1, 2, 254, 255]);
  const res = await call('POST', '/topics/v2-binary', { body: { records: [{ key: Buffer.from('key').toString('base64'), value: bytes.toString('base64') }] }, contentType: BINARY_V2 });
  assert.is(res.status, 200, JSON.stringify(res.body));
  const toPartition = await call('POST', '/topics/v2-binary/partitions/1', { body: { records: [{ value: Buffer.from('p1').toString('base64') }] }, contentType: BINARY_V2 });
  assert.is(toPartition.status, 200, JSON.stringify(toPartition.body));
  assert.equal(toPartition.body.offsets, [{ partition: 1, offset: toPartition.body.offsets[0].offset, error_code: null, error: null }]);
  const got = await readWithKafkajs('v2-binary', 2);
  const first = got.find((g) => g.partition === res.body.offsets[0].partition && g.offset === String(res.body.offsets[0].offset))!;
  assert.ok(first.value!.equals(bytes));
  assert.is(first.key!.toString(), 'key');
  assert.ok(got.some((g) => g.partition === 1 && g.value!.toString() === 'p1'));
});

test('produce errors: unknown topic 40401, bad partition 40402, bad base64 422, a record to a missing partition', async () => {
  const missing = await call('POST', '/topics/v2-nope', { body: { records: [{ value: 'eA==' }] }, contentType: BINARY_V2 });
  assert.equal([missing.status, missing.type, missing.body], [404, V2, { error_code: 40401, message: 'Topic not found.' }]);
  isError(await call('POST', '/topics/v2-binary/partitions/9', { body: { records: [{ value: 'eA==' }] }, contentType: BINARY_V2 }), 404, 40402);
  isError(await call('POST', '/topics/v2-binary', { body: { records: [{ value: '!!not base64!!' }] }, contentType: BINARY_V2 }), 422, 42200);
  isError(await call('POST', '/topics/v2-binary', { body: { records: [] }, contentType: BINARY_V2 }), 422, 42200);
  const partly = await call('POST', '/topics/v2-binary', { body: { records: [{ value: 'eA==', partition: 7 }, { value: 'eQ==', partition: 0 }] }, contentType: BINARY_V2 });
  assert.equal([partly.status, partly.body.offsets[0].error_code, partly.body.offsets[0].partition, partly.body.offsets[1].partition], [200, 50002, null, 0]);
});

test('topics, a topic, its partitions and offsets, brokers', async () => {
  const list = await call('GET', '/topics');
  assert.ok(list.body.includes('v2-json') && list.body.includes('v2-binary'), JSON.stringify(list.body));
  const one = await call('GET', '/topics/v2-json');
  assert.is(one.body.name, 'v2-json');
  assert.is(typeof one.body.configs['cleanup.policy'], 'string');
  assert.equal(one.body.partitions.map((p: any) => p.partition), [0, 1, 2]);
  const nodeId = b.broker.nodeId;
  assert.equal(one.body.partitions[0], { partition: 0, leader: nodeId, replicas: [{ broker: nodeId, leader: true, in_sync: true }] });
  assert.equal((await call('GET', '/topics/v2-nope')).body, { error_code: 40401, message: 'Topic not found.' });
  assert.is((await call('GET', '/topics/v2-json/partitions')).body.length, 3);
  assert.is((await call('GET', '/topics/v2-json/partitions/5')).body.error_code, 40402);
  const offsets = await call('GET', '/topics/v2-json/partitions/2/offsets');
  assert.is(offsets.body.beginning_offset, 0);
  assert.ok(offsets.body.end_offset >= 1, JSON.stringify(offsets.body));
  assert.equal((await call('GET', '/brokers')).body, { brokers: [nodeId] });
});

const instance = (group: string, name: string) => `/consumers/${group}/instances/${name}`;

/** Reads records of an instance (timeout 500 ms a read) until `count` arrived. */
async function readRecords(path: string, accept: string, count: number, timeoutMs = 30_000): Promise<any[]> {
  const got: any[] = [];
  await waitFor(async () => {
    const res = await call('GET', `${path}/records?timeout=500`, { accept });
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.is(res.type, accept);
    got.push(...res.body);
    return got.length >= count;
  }, { timeoutMs, description: `${count} records from ${path}` });
  return got;
}

async function produceWithKafkajs(topic: string, messages: { key?: string; value: string | Buffer; partition: number }[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages });
  await producer.disconnect();
}

/** The group's members as the coordinator knows them (ConsumerGroupDescribe in-process): client id and epoch. */
async function members(group: string): Promise<{ clientId: string; memberEpoch: number; partitions: number }[]> {
  const res: ConsumerGroupDescribeResponse = await sendInProcess(b.broker as unknown as HttpBroker, 69, 0, { groupIds: [group], includeAuthorizedOperations: false }, { user: '' });
  return res.groups[0].members.map((m) => ({ clientId: m.clientId, memberEpoch: m.memberEpoch, partitions: m.assignment?.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) ?? 0 }));
}

const createInstance = (group: string, body: Record<string, unknown>) => call('POST', `/consumers/${group}`, { body });

test('a json consumer instance: subscribe, read what kafkajs produced, commit, committed offsets in kafkajs admin, delete', async () => {
  await createTopic('v2-consume', 2);
  await produceWithKafkajs('v2-consume', Array.from({ length: 6 }, (_, i) => ({ key: JSON.stringify(`k${i}`), value: JSON.stringify({ i }), partition: i % 2 })));
  const created = await createInstance('g-json', { name: 'c1', format: 'json', 'auto.offset.reset': 'earliest', 'auto.commit.enable': 'false' });
  assert.is(created.status, 200, JSON.stringify(created.body));
  assert.equal(created.body, { instance_id: 'c1', base_uri: `${b.httpUrl}/consumers/g-json/instances/c1` });
  const path = instance('g-json', 'c1');
  assert.is((await call('POST', `${path}/subscription`, { body: { topics: ['v2-consume'] } })).status, 204);
  assert.equal((await call('GET', `${path}/subscription`)).body, { topics: ['v2-consume'] });
  const records = await readRecords(path, JSON_V2, 6);
  assert.is(records.length, 6);
  for (const r of records) {
    assert.is(r.topic, 'v2-consume');
    assert.is(r.partition, r.value.i % 2);
    assert.is(r.key, `k${r.value.i}`);
    assert.is(r.offset, Math.floor(r.value.i / 2));
  }
  assert.equal((await call('GET', `${path}/assignments`)).body, { partitions: [{ topic: 'v2-consume', partition: 0 }, { topic: 'v2-consume', partition: 1 }] });
  const commit = await call('POST', `${path}/offsets`);
  assert.is(commit.status, 200);
  assert.equal(commit.body, []);
  const [member] = await members('g-json');
  assert.equal({ clientId: member.clientId, partitions: member.partitions }, { clientId: 'samsa-rest-proxy-c1', partitions: 2 }, 'a KIP-848 member owning both partitions');
  assert.ok(member.memberEpoch > 0);
  const admin = kafka.admin();
  await admin.connect();
  const seen = await admin.fetchOffsets({ groupId: 'g-json', topics: ['v2-consume'] });
  assert.equal(seen[0].partitions.map((p) => [p.partition, p.offset]).sort(), [[0, '3'], [1, '3']]);
  // Given offsets: the last consumed one, committed + 1 (Confluent's semantics).
  assert.is((await call('POST', `${path}/offsets`, { body: { offsets: [{ topic: 'v2-consume', partition: 0, offset: 0 }] } })).status, 200);
  const committed = await call('GET', `${path}/offsets`, { body: { partitions: [{ topic: 'v2-consume', partition: 0 }, { topic: 'v2-consume', partition: 1 }] } });
  assert.is(committed.status, 200, JSON.stringify(committed.body));
  assert.equal(committed.body, { offsets: [{ topic: 'v2-consume', partition: 0, offset: 1, metadata: '' }, { topic: 'v2-consume', partition: 1, offset: 3, metadata: '' }] });
  const again = await admin.fetchOffsets({ groupId: 'g-json', topics: ['v2-consume'] });
  assert.is(again[0].partitions.find((p) => p.partition === 0)!.offset, '1');
  await admin.disconnect();
  isError(await call('GET', `${path}/records`, { accept: BINARY_V2 }), 406, 40601);
  isError(await createInstance('g-json', { name: 'c1', format: 'json' }), 409, 40902);
  assert.is((await call('DELETE', path)).status, 204);
  assert.equal((await call('GET', `${path}/records`, { accept: JSON_V2 })).body, { error_code: 40403, message: 'Consumer instance not found.' });
  assert.is((await call('DELETE', path)).status, 404);
  assert.equal(await members('g-json'), [], 'the deleted instance left the group');
});

test('a binary consumer instance reads kafkajs bytes as base64; a generated name', async () => {
  await createTopic('v2-bytes', 1);
  const payloads = [Buffer.from([0, 255, 1, 254]), Buffer.from('plain')];
  await produceWithKafkajs('v2-bytes', payloads.map((value, i) => ({ key: i === 0 ? 'k' : undefined, value, partition: 0 })));
  const created = await createInstance('g-bin', { 'auto.offset.reset': 'earliest' });
  assert.is(created.status, 200);
  assert.match(created.body.instance_id, /^rest-consumer-/);
  const path = instance('g-bin', created.body.instance_id);
  assert.is(created.body.base_uri, `${b.httpUrl}${path}`);
  assert.is((await call('POST', `${path}/subscription`, { body: { topic_pattern: 'v2-byt.*' } })).status, 204);
  const records = await readRecords(path, BINARY_V2, 2);
  assert.equal(records, [
    { topic: 'v2-bytes', key: Buffer.from('k').toString('base64'), value: payloads[0].toString('base64'), partition: 0, offset: 0 },
    { topic: 'v2-bytes', key: null, value: payloads[1].toString('base64'), partition: 0, offset: 1 },
  ]);
  assert.equal((await call('GET', `${path}/subscription`)).body, { topics: ['v2-bytes'] });
  // Idle longer than the group's session timeout (6 s here): the instance's own timer heartbeats.
  await new Promise((r) => setTimeout(r, 7000));
  assert.is((await members('g-bin')).length, 1, 'still a member');
  assert.is((await call('DELETE', path)).status, 204);
  // auto.commit.enable (default true): deleting commits what was read.
  const admin = kafka.admin();
  await admin.connect();
  const committed = await admin.fetchOffsets({ groupId: 'g-bin', topics: ['v2-bytes'] });
  await admin.disconnect();
  assert.equal(committed[0].partitions.map((p) => [p.partition, p.offset]), [[0, '2']]);
});

test('two instances of one group split the partitions, and the survivor takes them all', async () => {
  await createTopic('v2-split', 4);
  await produceWithKafkajs('v2-split', Array.from({ length: 8 }, (_, i) => ({ value: `m${i}`, partition: i % 4 })));
  const settings = { format: 'binary', 'auto.offset.reset': 'earliest' };
  for (const name of ['a', 'b']) {
    assert.is((await createInstance('g-split', { name, ...settings })).status, 200);
    assert.is((await call('POST', `${instance('g-split', name)}/subscription`, { body: { topics: ['v2-split'] } })).status, 204);
  }
  const seen = new Set<string>();
  const owned = async (name: string) => ((await call('GET', `${instance('g-split', name)}/assignments`)).body.partitions as { partition: number }[]).map((p) => p.partition);
  await waitFor(async () => {
    for (const name of ['a', 'b']) {
      const res = await call('GET', `${instance('g-split', name)}/records?timeout=300`, { accept: BINARY_V2 });
      for (const r of res.body) seen.add(`${r.partition}:${r.offset}`);
    }
    const [a, bb] = [await owned('a'), await owned('b')];
    return a.length > 0 && bb.length > 0 && a.every((p) => !bb.includes(p)) && [...a, ...bb].sort().join() === '0,1,2,3';
  }, { timeoutMs: 30_000, description: 'disjoint assignments covering the 4 partitions' });
  assert.equal((await members('g-split')).map((m) => m.clientId).sort(), ['samsa-rest-proxy-a', 'samsa-rest-proxy-b']);
  await waitFor(async () => {
    for (const name of ['a', 'b']) {
      const res = await call('GET', `${instance('g-split', name)}/records?timeout=300`, { accept: BINARY_V2 });
      for (const r of res.body) seen.add(`${r.partition}:${r.offset}`);
    }
    return seen.size === 8;
  }, { timeoutMs: 20_000, description: 'every record read by one of the two' });
  assert.is((await call('DELETE', instance('g-split', 'b'))).status, 204);
  await waitFor(async () => {
    await call('GET', `${instance('g-split', 'a')}/records?timeout=200`, { accept: BINARY_V2 });
    return (await owned('a')).length === 4;
  }, { timeoutMs: 20_000, description: 'a owns every partition after b left' });
  assert.is((await call('DELETE', instance('g-split', 'a'))).status, 204);
});

test('manual assignment and seeks (position, beginning, end); mutually exclusive with subscribing', async () => {
  const path = instance('g-manual', 'm');
  assert.is((await createInstance('g-manual', { name: 'm', format: 'json' })).status, 200);
  assert.equal((await call('GET', `${path}/records`, { accept: JSON_V2 })).body.error_code, 40903);
  assert.is((await call('POST', `${path}/assignments`, { body: { partitions: [{ topic: 'v2-consume', partition: 0 }] } })).status, 204);
  assert.equal((await call('GET', `${path}/assignments`)).body, { partitions: [{ topic: 'v2-consume', partition: 0 }] });
  // auto.offset.reset latest (the default) and nothing committed: nothing to read.
  assert.equal((await call('GET', `${path}/records?timeout=300`, { accept: JSON_V2 })).body, []);
  assert.is((await call('POST', `${path}/positions/beginning`, { body: { partitions: [{ topic: 'v2-consume', partition: 0 }] } })).status, 204);
  assert.equal((await readRecords(path, JSON_V2, 3)).map((r) => r.offset), [0, 1, 2]);
  assert.is((await call('POST', `${path}/positions`, { body: { offsets: [{ topic: 'v2-consume', partition: 0, offset: 2 }] } })).status, 204);
  assert.equal((await readRecords(path, JSON_V2, 1)).map((r) => r.value), [{ i: 4 }]);
  assert.is((await call('POST', `${path}/positions/end`, { body: { partitions: [{ topic: 'v2-consume', partition: 0 }] } })).status, 204);
  assert.equal((await call('GET', `${path}/records?timeout=300`, { accept: JSON_V2 })).body, []);
  await produceWithKafkajs('v2-consume', [{ value: JSON.stringify({ i: 6 }), partition: 0 }]);
  assert.equal((await readRecords(path, JSON_V2, 1)).map((r) => [r.offset, r.value]), [[3, { i: 6 }]]);
  isError(await call('POST', `${path}/positions`, { body: { offsets: [{ topic: 'v2-consume', partition: 1, offset: 0 }] } }), 409, 40903);
  assert.is((await call('POST', `${path}/subscription`, { body: { topics: ['v2-consume'] } })).body.error_code, 40903);
  assert.is((await call('DELETE', path)).status, 204);
});

test('bad instance settings are refused; an idle instance expires', async () => {
  assert.is((await createInstance('g-bad', { format: 'xml' })).status, 422);
  assert.is((await createInstance('g-bad', { 'auto.offset.reset': 'sideways' })).body.error_code, 42204);
  assert.is((await createInstance('g-bad', { 'fetch.min.bytes': -5 })).body.error_code, 40001);
  assert.is((await createInstance('g-idle', { name: 'idle' })).status, 200);
  isError(await call('POST', `${instance('g-idle', 'idle')}/subscription`, { body: { topic_pattern: '[' } }), 422, 42200);
  assert.is(expireIdleRestConsumers(b.broker as unknown as HttpBroker, Date.now() + 60_000), 0);
  assert.is(expireIdleRestConsumers(b.broker as unknown as HttpBroker, Date.now() + 300_001), 1);
  assert.is((await call('GET', `${instance('g-idle', 'idle')}/subscription`)).body.error_code, 40403);
});

test('avro and jsonschema: produce with a value schema (registered, then by id), consume with a schema-format instance', async () => {
  const AVRO_V2 = 'application/vnd.kafka.avro.v2+json';
  await createTopic('v2-avro', 1);
  const schema = JSON.stringify({ type: 'record', name: 'User', fields: [{ name: 'name', type: 'string' }, { name: 'age', type: ['null', 'int'], default: null }] });
  const first = await call('POST', '/topics/v2-avro', { contentType: AVRO_V2, body: { value_schema: schema, records: [{ value: { name: 'ann', age: { int: 7 } } }, { value: { name: 'bob', age: null } }] } });
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.is(first.body.key_schema_id, null);
  const id = first.body.value_schema_id;
  assert.ok(Number.isInteger(id));
  const latest = await (await fetch(`${b.httpUrl}/subjects/v2-avro-value/versions/latest`)).json() as { id: number };
  assert.is(latest.id, id, 'registered under <topic>-value');
  const byId = await call('POST', '/topics/v2-avro', { contentType: AVRO_V2, body: { value_schema_id: id, records: [{ value: { name: 'cy', age: { int: 1 } } }] } });
  assert.is(byId.status, 200, JSON.stringify(byId.body));
  assert.is(byId.body.value_schema_id, id);
  const got = await readWithKafkajs('v2-avro', 3);
  for (const m of got) {
    assert.is(m.value![0], 0, 'magic byte');
    assert.is(m.value!.readUInt32BE(1), id);
  }
  const missing = await call('POST', '/topics/v2-avro', { contentType: AVRO_V2, body: { records: [{ value: { name: 'x' } }] } });
  assert.equal(missing.body, { error_code: 42202, message: 'Request includes values but does not include value schema' });
  isError(await call('POST', '/topics/v2-avro', { contentType: AVRO_V2, body: { value_schema_id: id, records: [{ value: { name: 5 } }] } }), 422, 42203);
  const path = instance('g-avro', 'a');
  assert.is((await createInstance('g-avro', { name: 'a', format: 'avro', 'auto.offset.reset': 'earliest' })).status, 200);
  assert.is((await call('POST', `${path}/subscription`, { body: { topics: ['v2-avro'] } })).status, 204);
  const records = await readRecords(path, AVRO_V2, 3);
  assert.equal(records.map((r) => r.value), [{ name: 'ann', age: { int: 7 } }, { name: 'bob', age: null }, { name: 'cy', age: { int: 1 } }]);
  assert.is((await call('DELETE', path)).status, 204);
  const JSONSCHEMA_V2 = 'application/vnd.kafka.jsonschema.v2+json';
  await createTopic('v2-jsonschema', 1);
  const js = JSON.stringify({ type: 'object', properties: { n: { type: 'integer' } } });
  const produced = await call('POST', '/topics/v2-jsonschema', { contentType: JSONSCHEMA_V2, body: { value_schema: js, records: [{ value: { n: 1 } }, { value: { n: 2 } }] } });
  assert.is(produced.status, 200, JSON.stringify(produced.body));
  const jpath = instance('g-jsonschema', 'j');
  assert.is((await createInstance('g-jsonschema', { name: 'j', format: 'jsonschema', 'auto.offset.reset': 'earliest' })).status, 200);
  assert.is((await call('POST', `${jpath}/assignments`, { body: { partitions: [{ topic: 'v2-jsonschema', partition: 0 }] } })).status, 204);
  assert.equal((await readRecords(jpath, JSONSCHEMA_V2, 2)).map((r) => r.value), [{ n: 1 }, { n: 2 }]);
  assert.is((await call('DELETE', jpath)).status, 204);
});

const PY_LOOP = `
import sys, json, time, requests
base, topic, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
v2 = {'Content-Type': 'application/vnd.kafka.v2+json'}
r = requests.post(base + '/consumers/py_group', headers=v2,
                  data=json.dumps({'name': 'py_consumer', 'format': 'json', 'auto.offset.reset': 'earliest'}))
r.raise_for_status()
uri = r.json()['base_uri']
r = requests.post(uri + '/subscription', headers=v2, data=json.dumps({'topics': [topic]}))
assert r.status_code == 204, r.text
seen = []
deadline = time.time() + 30
while len(seen) < want and time.time() < deadline:
    r = requests.get(uri + '/records', headers={'Accept': 'application/vnd.kafka.json.v2+json'}, params={'timeout': 1000})
    r.raise_for_status()
    seen += r.json()
r = requests.post(uri + '/offsets', headers=v2)
assert r.status_code == 200, r.text
parts = sorted({m['partition'] for m in seen})
r = requests.get(uri + '/offsets', headers=v2, data=json.dumps({'partitions': [{'topic': topic, 'partition': p} for p in parts]}))
r.raise_for_status()
committed = r.json()['offsets']
r = requests.delete(uri, headers=v2)
assert r.status_code == 204, r.text
r = requests.get(uri + '/records', headers={'Accept': 'application/vnd.kafka.json.v2+json'})
print(json.dumps({'values': [m['value'] for m in seen], 'committed': committed, 'after_delete': r.json()}))
`;

test('the classic v2 consume loop in Python with requests', async () => {
  if (!existsSync(VENV_PYTHON)) {
    if (process.env.CI === 'true' || process.env.CI === '1') throw new Error(`no ${VENV_PYTHON} (tools/ensure-test-deps.sh)`);
    return;
  }
  await createTopic('v2-python', 2);
  await produceWithKafkajs('v2-python', Array.from({ length: 5 }, (_, i) => ({ value: JSON.stringify({ n: i }), partition: i % 2 })));
  const out = await venvPython(PY_LOOP, [b.httpUrl!, 'v2-python', '5'], { timeoutMs: 60_000 });
  assert.is(out.code, 0, out.stderr);
  const result = JSON.parse(out.stdout.trim());
  assert.equal(result.values.map((v: { n: number }) => v.n).sort(), [0, 1, 2, 3, 4]);
  assert.equal(result.committed, [{ topic: 'v2-python', partition: 0, offset: 3, metadata: '' }, { topic: 'v2-python', partition: 1, offset: 2, metadata: '' }]);
  assert.equal(result.after_delete, { error_code: 40403, message: 'Consumer instance not found.' });
});
test.run();
