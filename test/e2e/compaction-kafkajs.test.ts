/**
 * Log compaction end to end: kafkajs writes many versions per key on a compacted topic with small
 * segments and a short cleaner backoff; after the cleaner ran, a consumer from the beginning sees
 * exactly one record per key, with its latest value, at the offset it was written at, and deleted
 * keys keep only their tombstone; kcat, confluent-kafka and kafka-python read the same records.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { readConfluent, readKafkaPython, readKcat, type Rec } from '../support/clients.js';

const { Kafka, logLevel } = kafkajs;

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'log.cleaner.backoff.ms': 100 } });
});

test.after(async () => {
  await b?.stop();
});

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('kafkajs: a compacted topic keeps the latest value of every key after cleaning', async () => {
  const kafka = new Kafka({ clientId: 'compaction', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const topic = 'table-changelog';
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{
      topic, numPartitions: 1,
      configEntries: [
        { name: 'cleanup.policy', value: 'compact' },
        { name: 'segment.bytes', value: '4096' },
        { name: 'min.cleanable.dirty.ratio', value: '0.01' },
      ],
    }],
  });
  // An idempotent producer whose only batch is overwritten later: the cleaner keeps that batch,
  // emptied (its producer's last sequence), and the consumer reads past an empty batch.
  const early = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await early.connect();
  await early.send({ topic, acks: -1, messages: [{ key: 'key-0', value: 'early' }] });
  await early.disconnect();
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const keys = 40;
  const versions = 25;
  const latest = new Map<string, { value: string | null; offset: number }>();
  for (let v = 0; v < versions; v++) {
    const messages = Array.from({ length: keys }, (_, k) => ({ key: `key-${k}`, value: `key-${k}-version-${v}` }));
    const [r] = await producer.send({ topic, acks: -1, messages });
    messages.forEach((m, i) => latest.set(m.key, { value: m.value, offset: Number(r.baseOffset) + i }));
  }
  // Two keys deleted (tombstones), then one large record alone in the active segment, so that
  // everything before it is below the active segment and cleanable.
  for (const k of ['key-3', 'key-7']) {
    const [r] = await producer.send({ topic, acks: -1, messages: [{ key: k, value: null }] });
    latest.set(k, { value: null, offset: Number(r.baseOffset) });
  }
  const [last] = await producer.send({ topic, acks: -1, messages: [{ key: 'end', value: 'x'.repeat(4000) }] });
  latest.set('end', { value: 'x'.repeat(4000), offset: Number(last.baseOffset) });
  await producer.disconnect();

  const log = b.broker.logs.getLog(topic, 0)!;
  // The cleaner may already have run while the producer was writing: judge the size by what was
  // written (25 batches of 40 records, over 25 KiB), not by a snapshot taken now.
  await until('the cleaner to clean the log', async () => {
    const info = await b.broker.logs.cleaner?.cleanable(log);
    return info !== undefined && info !== null && info.lastCleanedMs > 0 && info.dirtyBytes === 0;
  });
  assert.ok(log.sizeBytes < 8192, `compacted to ${log.sizeBytes} bytes: one cleaned segment and the active one`);

  const consumer = kafka.consumer({ groupId: 'compaction-reader' });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: { key: string; value: string | null; offset: number }[] = [];
  await consumer.run({
    eachMessage: async ({ message }) => {
      seen.push({ key: message.key!.toString(), value: message.value === null ? null : message.value.toString(), offset: Number(message.offset) });
    },
  });
  await until('every key to be read', () => seen.some((s) => s.key === 'end'));
  await consumer.disconnect();
  await admin.disconnect();

  const byKey = new Map<string, number>();
  for (const s of seen) byKey.set(s.key, (byKey.get(s.key) ?? 0) + 1);
  for (const [k, n] of byKey) assert.is(n, 1, `exactly one record for ${k}`);
  assert.is(byKey.size, latest.size, 'every key present');
  for (const s of seen) {
    const want = latest.get(s.key)!;
    assert.is(s.value, want.value, `latest value of ${s.key}`);
    assert.is(s.offset, want.offset, `original offset of ${s.key}`);
  }
  const offsets = await kafka.admin();
  await offsets.connect();
  const [p] = await offsets.fetchTopicOffsets(topic);
  await offsets.disconnect();
  assert.is(Number(p.high), keys * versions + 4, 'log end offset unchanged');
  // librdkafka (kcat) reads the cleaned log too: gaps, an empty batch, batches with a delete horizon.
  const view = (rs: Rec[]) => rs.map((r) => [r.offset, Buffer.from(r.key!, 'base64').toString(), r.value === null ? null : Buffer.from(r.value, 'base64').toString()]);
  const expected = seen.sort((x, y) => x.offset - y.offset).map((r) => [r.offset, r.key, r.value]);
  assert.equal(view((await readKcat(b.bootstrap, topic, [0])).records), expected, 'kcat sees what kafkajs saw');
  // And the Python clients (confluent-kafka on librdkafka 2.x, kafka-python's own decoder).
  for (const [name, read] of [['confluent-kafka', readConfluent], ['kafka-python', readKafkaPython]] as const) {
    const r = await read(b.bootstrap, topic, [0], expected.length);
    assert.equal(r.errors, [], `${name} errors`);
    assert.equal(view(r.records.sort((x, y) => x.offset - y.offset)), expected, `${name} sees what kafkajs saw`);
  }
  const batches = (await log.read(0, 1 << 20, { minOneMessage: true })).records;
  assert.is(batches[0].readInt32BE(57), 0, 'the early producer\'s batch is kept, empty');
  assert.is(batches[0].readBigInt64BE(0), 0n);
});

test.run();
