/**
 * Views (samsa.view.source / samsa.view.filter) read by real clients: kafkajs (group, commits,
 * long poll), kcat, confluent-kafka (librdkafka), the Java client, kafka-python and
 * @platformatic/kafka. Source
 * batches are written with every codec, so kept, rebuilt and emptied batches all reach the clients.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { b64, produceConfluent, produceKafkajs, producePlatformatic, readConfluent, readKafkaPython, readKcat, type OutRec } from '../support/clients.js';
import { compress, decompress } from '../../src/protocol/records/compression.js';
import { Consumer as PlatformaticConsumer } from '@platformatic/kafka';
import { javaDriver } from '../../compat-tests/clients/java.js';
import { javaMissing } from '../../tools/kafka/kafka.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

const { Kafka, logLevel, CompressionTypes, CompressionCodecs } = kafkajs;

// kafkajs has only gzip built in: the other codecs through Samsa's own, so it can read every batch.
for (const [type, name] of [[CompressionTypes.Snappy, 'snappy'], [CompressionTypes.LZ4, 'lz4'], [CompressionTypes.ZSTD, 'zstd']] as const) {
  CompressionCodecs[type] = () => ({
    compress: async (encoder: { buffer: Buffer }) => compress(name, encoder.buffer),
    decompress: async (buf: Buffer) => decompress(name, buf),
  });
}

let b: RunningBroker;
let kafka: InstanceType<typeof Kafka>;
const SOURCE = 'orders';
const VIEW = 'orders-paid';
const FILTER = "tag in ('paid', 'refunded') and not exists(test)";

/** Which records of the source the view should show, by [partition, offset]. */
const expected: { partition: number; offset: number; value: string }[] = [];

function rec(partition: number, i: number, tag: string | null, test = false): OutRec {
  const headers: [string, Buffer | null][] = [];
  if (tag !== null) headers.push(['tag', Buffer.from(tag)]);
  if (test) headers.push(['test', null]);
  headers.push(['seq', Buffer.from(String(i))]);
  return { partition, key: Buffer.from(`k${i}`), value: Buffer.from(`order-${partition}-${i}`), headers };
}

const TAGS = ['new', 'paid', null, 'refunded', 'paid', 'shipped'];

test.before(async () => {
  try {
    await setUp();
  } catch (err) {
    console.error('set-up failed', err);
    throw err;
  }
});

async function setUp(): Promise<void> {
  b = await startBroker({ port: 0 });
  kafka = new Kafka({ clientId: 'views', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 3 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: SOURCE, numPartitions: 2 }], waitForLeaders: true });
  await admin.disconnect();
  // Per partition: batches that match entirely, partly and not at all, with each codec.
  const next = [0, 0];
  const write = async (partition: number, tags: (string | null)[], how: 'kafkajs' | 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd', testFlag = false) => {
    const records = tags.map((t) => rec(partition, next[partition]++, t, testFlag));
    const base = next[partition] - tags.length;
    if (how === 'kafkajs') await produceKafkajs(b.bootstrap, SOURCE, records, { compression: CompressionTypes.GZIP });
    // zstd through librdkafka (platformatic has no zstd on this Node).
    else if (how === 'zstd') await produceConfluent(b.bootstrap, SOURCE, records, { 'compression.type': 'zstd', 'linger.ms': 100 });
    else await producePlatformatic(b.bootstrap, SOURCE, records, { compression: how });
    tags.forEach((t, i) => {
      if ((t === 'paid' || t === 'refunded') && !testFlag) expected.push({ partition, offset: base + i, value: `order-${partition}-${base + i}` });
    });
  };
  for (const p of [0, 1]) {
    await write(p, TAGS, 'kafkajs');
    await write(p, ['paid', 'paid'], 'none');
    await write(p, ['new', 'shipped'], 'gzip');
    await write(p, TAGS, 'snappy');
    await write(p, ['paid'], 'lz4', true);
    await write(p, TAGS, 'lz4');
    await write(p, ['refunded', 'new', null], 'zstd');
    await write(p, ['nothing', 'here'], 'none');
  }
  expected.sort((x, y) => x.partition - y.partition || x.offset - y.offset);
}

test.after(async () => {
  await b?.stop();
});

test('CreateTopics refuses a bad filter with its position, a missing source, and another partition count', async () => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const create = (topic: string, configs: Record<string, string>, numPartitions?: number) =>
      admin.createTopics({ topics: [{ topic, numPartitions, configEntries: Object.entries(configs).map(([name, value]) => ({ name, value })) }] });
    const failure = async (p: Promise<unknown>): Promise<string> => {
      try { await p; } catch (err: any) { return JSON.stringify(err.errors ?? err.message); }
      assert.unreachable('created');
      return '';
    };
    const bad = await failure(create('v-bad', { 'samsa.view.source': SOURCE, 'samsa.view.filter': "tag = paid" }));
    // kafkajs keeps only the code; test/views/view-topics.test.ts checks the messages.
    assert.match(bad, /INVALID_CONFIG/);
    assert.match(await failure(create('v-nosrc', { 'samsa.view.source': 'no-such', 'samsa.view.filter': "tag = 'x'" })), /INVALID_CONFIG/);
    assert.match(await failure(create('v-parts', { 'samsa.view.source': SOURCE }, 5)), /INVALID_PARTITIONS/);
    assert.is(await create(VIEW, { 'samsa.view.source': SOURCE, 'samsa.view.filter': FILTER }), true);
    const md = await admin.fetchTopicMetadata({ topics: [VIEW] });
    assert.is(md.topics[0].partitions.length, 2, 'the view has its source\'s partitions');
    const offsets = await admin.fetchTopicOffsets(VIEW);
    const srcOffsets = await admin.fetchTopicOffsets(SOURCE);
    assert.equal(offsets.map((o) => [o.partition, o.low, o.high]).sort(), srcOffsets.map((o) => [o.partition, o.low, o.high]).sort(), 'ListOffsets on a view answers the source\'s offsets');
  } finally {
    await admin.disconnect();
  }
});

test('producing to a view is refused with a message naming the source', async () => {
  const producer = kafka.producer({ retry: { retries: 0 } });
  await producer.connect();
  try {
    await producer.send({ topic: VIEW, messages: [{ value: 'x' }] });
    assert.unreachable('produced to a view');
  } catch (err: any) {
    assert.match(String(err.message) + JSON.stringify(err), /read-only view of 'orders'|INVALID_TOPIC_EXCEPTION|invalid topic/i);
  } finally {
    await producer.disconnect();
  }
});

test('kafkajs consumer group reads exactly the matching records with the source offsets, commits and resumes', async () => {
  const seen: { partition: number; offset: number; value: string }[] = [];
  const consumer = kafka.consumer({ groupId: 'view-group', maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topic: VIEW, fromBeginning: true });
  await consumer.run({ eachMessage: async ({ partition, message }) => { seen.push({ partition, offset: Number(message.offset), value: message.value!.toString() }); } });
  const deadline = Date.now() + 20_000;
  while (seen.length < expected.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  seen.sort((x, y) => x.partition - y.partition || x.offset - y.offset);
  assert.equal(seen, expected);
  // The group's committed offsets lie past everything consumed; new matching records are read by a restarted member only.
  await produceKafkajs(b.bootstrap, SOURCE, [rec(0, 1000, 'shipped'), rec(0, 1001, 'paid')]);
  const again: string[] = [];
  const c2 = kafka.consumer({ groupId: 'view-group', maxWaitTimeInMs: 200 });
  await c2.connect();
  await c2.subscribe({ topic: VIEW, fromBeginning: true });
  await c2.run({ eachMessage: async ({ message }) => { again.push(message.value!.toString()); } });
  const d2 = Date.now() + 15_000;
  while (again.length < 1 && Date.now() < d2) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  await c2.disconnect();
  assert.equal(again, ['order-0-1000'.replace('1000', '1001')], 'resumed after the committed offset and saw only the new matching record');
  const hw = await (async () => { const a = kafka.admin(); await a.connect(); const o = await a.fetchTopicOffsets(SOURCE); await a.disconnect(); return o.find((x) => x.partition === 0)!.high; })();
  expected.push({ partition: 0, offset: Number(hw) - 1, value: 'order-0-1001' });
  expected.sort((x, y) => x.partition - y.partition || x.offset - y.offset);
});

test('kcat reads the view to its end with the source offsets', async () => {
  const { records } = await readKcat(b.bootstrap, VIEW, [0, 1]);
  assert.equal(records.map((r) => ({ partition: r.partition, offset: r.offset, value: Buffer.from(r.value!, 'base64').toString() })), expected);
  assert.ok(records.every((r) => r.headers.some(([k, v]) => k === 'tag' && (v === b64('paid') || v === b64('refunded')))));
});

test('confluent-kafka (librdkafka) reads the view', async () => {
  const res = await readConfluent(b.bootstrap, VIEW, [0, 1], expected.length, 20);
  assert.equal(res.errors, []);
  const got = res.records.map((r) => ({ partition: r.partition, offset: r.offset, value: Buffer.from(r.value!, 'base64').toString() }));
  got.sort((x, y) => x.partition - y.partition || x.offset - y.offset);
  assert.equal(got, expected);
});

test('the Java client (kafka-clients, KafkaConsumer with assign and seek) reads the view', async () => {
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`views: java is required under CI: ${missingJava}`);
    return void console.log(`skipped: ${missingJava}`);
  }
  const java = await javaDriver(b.bootstrap);
  try {
    const res = await java.read!(VIEW, { partitions: [0, 1], from: 'earliest', count: expected.length, timeoutMs: 30_000 });
    assert.equal(res.errors, []);
    const got = res.records.map((r) => ({ partition: r.partition, offset: r.offset, value: Buffer.from(r.value!, 'base64').toString() }));
    got.sort((x, y) => x.partition - y.partition || x.offset - y.offset);
    assert.equal(got, expected);
  } finally {
    await java.close?.();
  }
});

test('@platformatic/kafka (consumer stream) and kafka-python read a view of gzip, snappy and lz4 batches', async () => {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'events', numPartitions: 1 }], waitForLeaders: true });
  await admin.createTopics({ topics: [{ topic: 'events-paid', configEntries: [{ name: 'samsa.view.source', value: 'events' }, { name: 'samsa.view.filter', value: "tag = 'paid'" }] }] });
  await admin.disconnect();
  const want: { offset: number; value: string }[] = [];
  let next = 0;
  for (const compression of ['gzip', 'snappy', 'lz4', 'none'] as const) {
    const tags = ['paid', 'new', 'paid', 'x'];
    await producePlatformatic(b.bootstrap, 'events', tags.map((t, i) => ({ ...rec(0, next + i, t), value: Buffer.from(`e${next + i}`) })), { compression });
    tags.forEach((t, i) => { if (t === 'paid') want.push({ offset: next + i, value: `e${next + i}` }); });
    next += tags.length;
  }
  await producePlatformatic(b.bootstrap, 'events', [{ ...rec(0, next, 'nope'), value: Buffer.from('last') }]);
  // The platformatic consumer (a group member) moves past each batch by its last offset delta.
  const pc = new PlatformaticConsumer({ clientId: 'views-platformatic', groupId: 'views-platformatic', bootstrapBrokers: [b.bootstrap], retries: 2, timeout: 10_000 });
  const plat: { offset: number; value: string }[] = [];
  try {
    const stream = await pc.consume({ topics: ['events-paid'], mode: 'earliest', autocommit: false, maxWaitTime: 100 });
    stream.on('data', (m: any) => { plat.push({ offset: Number(m.offset), value: m.value.toString() }); });
    stream.on('error', () => {});
    const deadline = Date.now() + 15_000;
    while (plat.length < want.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    await stream.close();
  } finally {
    await pc.close(true);
  }
  assert.equal(plat, want, 'platformatic');
  const kp = await readKafkaPython(b.bootstrap, 'events-paid', [0], want.length, 20);
  assert.equal(kp.errors, []);
  assert.equal(kp.records.map((r) => ({ offset: r.offset, value: Buffer.from(r.value!, 'base64').toString() })), want, 'kafka-python');
});

test('a long poll on the view answers the matching record appended while it waits', async () => {
  const got: string[] = [];
  const consumer = kafka.consumer({ groupId: 'view-poll', maxWaitTimeInMs: 5000 });
  await consumer.connect();
  await consumer.subscribe({ topic: VIEW, fromBeginning: false });
  await consumer.run({ eachMessage: async ({ message }) => { got.push(message.value!.toString()); } });
  await new Promise((r) => setTimeout(r, 1500));
  await produceKafkajs(b.bootstrap, SOURCE, [rec(1, 2000, 'new')]);
  await produceKafkajs(b.bootstrap, SOURCE, [rec(1, 2001, 'paid')]);
  const deadline = Date.now() + 15_000;
  while (got.length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await consumer.disconnect();
  assert.equal(got, ['order-1-2001']);
});

test('deleting the source deletes its views', async () => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [SOURCE] });
    const deadline = Date.now() + 10_000;
    let topics = await admin.listTopics();
    while (topics.includes(VIEW) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      topics = await admin.listTopics();
    }
    assert.not.ok(topics.includes(SOURCE));
    assert.not.ok(topics.includes(VIEW), 'the view went with its source');
  } finally {
    await admin.disconnect();
  }
});

test.run();
