/**
 * Confluent's REST Proxy v2 API on the broker's HTTP listener (src/http/rest-proxy/v2*.ts), driven
 * as curl would (fetch with Confluent's media types) and checked against kafkajs: v2 produce in
 * the json and binary embedded formats reads back byte for byte; topic metadata; consumer
 * instances (KIP-848 members of a real group on this broker) read what kafkajs produced, commit
 * offsets kafkajs' admin sees, split a topic's partitions between two instances, seek, are
 * assigned partitions by hand, expire when idle, and are gone (40403) once deleted; plus the
 * classic v2 consume loop of Confluent's docs in Python with `requests` (the test venv).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG } from '../support/consumer-protocol-scenarios.js';
import { VENV_PYTHON, venvPython, waitFor } from '../support/external.js';
import { expireIdleRestConsumers } from '../../src/http/rest-proxy/v2-consumers.js';
import type { HttpBroker } from '../../src/http/http-broker.js';

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

test.after(async () => {
  await b?.stop();
});

async function createTopic(topic: string, numPartitions: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  await admin.disconnect();
}

interface Answer {
  status: number;
  type: string;
  body: any;
}

/** One request as curl sends it: `contentType` for the body, `accept` for the answer. */
async function call(method: string, path: string, opts: { body?: unknown; contentType?: string; accept?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { Accept: opts.accept ?? V2 };
  if (opts.body !== undefined) headers['Content-Type'] = opts.contentType ?? V2;
  const res = await fetch(`${b.httpUrl}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: text === '' ? null : JSON.parse(text) };
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
  assert.is(res.body.key_schema_id, null);
  assert.is(res.body.value_schema_id, null);
  assert.is(res.body.offsets.length, 4);
  for (const o of res.body.offsets) {
    assert.ok(Number.isInteger(o.partition) && Number.isInteger(o.offset), JSON.stringify(o));
    assert.is(o.error_code, null);
    assert.is(o.error, null);
  }
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
  assert.is(missing.status, 404);
  assert.equal(missing.body, { error_code: 40401, message: 'Topic not found.' });
  const badPartition = await call('POST', '/topics/v2-binary/partitions/9', { body: { records: [{ value: 'eA==' }] }, contentType: BINARY_V2 });
  assert.is(badPartition.status, 404);
  assert.is(badPartition.body.error_code, 40402);
  const badBase64 = await call('POST', '/topics/v2-binary', { body: { records: [{ value: '!!not base64!!' }] }, contentType: BINARY_V2 });
  assert.is(badBase64.status, 422);
  const noRecords = await call('POST', '/topics/v2-binary', { body: { records: [] }, contentType: BINARY_V2 });
  assert.is(noRecords.status, 422);
  const partly = await call('POST', '/topics/v2-binary', { body: { records: [{ value: 'eA==', partition: 7 }, { value: 'eQ==', partition: 0 }] }, contentType: BINARY_V2 });
  assert.is(partly.status, 200);
  assert.is(partly.body.offsets[0].error_code, 50002);
  assert.is(partly.body.offsets[0].partition, null);
  assert.is(partly.body.offsets[1].partition, 0);
});

test('topics, a topic, its partitions and offsets, brokers', async () => {
  const list = await call('GET', '/topics');
  assert.is(list.status, 200);
  assert.ok(list.body.includes('v2-json') && list.body.includes('v2-binary'), JSON.stringify(list.body));
  const one = await call('GET', '/topics/v2-json');
  assert.is(one.status, 200);
  assert.is(one.body.name, 'v2-json');
  assert.is(typeof one.body.configs['cleanup.policy'], 'string');
  assert.equal(one.body.partitions.map((p: any) => p.partition), [0, 1, 2]);
  const nodeId = b.broker.nodeId;
  assert.equal(one.body.partitions[0], { partition: 0, leader: nodeId, replicas: [{ broker: nodeId, leader: true, in_sync: true }] });
  assert.equal((await call('GET', '/topics/v2-nope')).body, { error_code: 40401, message: 'Topic not found.' });
  const partitions = await call('GET', '/topics/v2-json/partitions');
  assert.is(partitions.body.length, 3);
  assert.is((await call('GET', '/topics/v2-json/partitions/5')).body.error_code, 40402);
  const offsets = await call('GET', '/topics/v2-json/partitions/2/offsets');
  assert.is(offsets.body.beginning_offset, 0);
  assert.ok(offsets.body.end_offset >= 1, JSON.stringify(offsets.body));
  assert.equal((await call('GET', '/brokers')).body, { brokers: [nodeId] });
});

test.run();
