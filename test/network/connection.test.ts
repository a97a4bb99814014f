/**
 * A connection the client closes: the requests it sent before closing are still processed (their
 * answers dropped), as Kafka's Selector closes a connection gracefully on EOF. An acks=0 producer
 * that writes and disconnects at once (a script, `kcat -X acks=0`) must lose nothing. A connection
 * with a malformed frame processes the frames received before it, then closes (Kafka reads one
 * request at a time, so it meets the bad size only after answering those).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import kafkajs from 'kafkajs';
import { encodeRequest } from '../../src/protocol/wire.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { until } from '../support/until.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

let b: RunningBroker;
let admin: kafkajs.Admin;

test.before(async () => {
  b = await startBroker({ port: 0 });
  admin = new kafkajs.Kafka({ brokers: [`127.0.0.1:${b.port}`], logLevel: kafkajs.logLevel.NOTHING }).admin();
  await admin.connect();
});

test.after(async () => {
  await admin?.disconnect();
  await b?.stop();
});

/** `count` acks=0 Produce v9 frames (size prefix included), one record each. */
function produceFrames(topic: string, count: number): Buffer {
  const frames: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const records = buildRecordBatch({ records: [{ key: null, value: Buffer.from(`r${i}`) }] });
    const body = encodeRequest(0, 9, i + 1, 'close-test', { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: 0, records }] }] });
    const size = Buffer.alloc(4);
    size.writeInt32BE(body.length);
    frames.push(size, body);
  }
  return Buffer.concat(frames);
}

async function endOffset(topic: string): Promise<number> {
  const [p] = await admin.fetchTopicOffsets(topic);
  return Number(p.high);
}

/** Writes the bytes and ends the socket at once; resolves when the broker has closed its side. */
function writeAndEnd(bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: b.port }, () => s.end(bytes));
    s.on('error', reject);
    s.on('close', () => resolve());
    s.resume();
  });
}

test('acks=0 requests sent just before the client closes are all appended', async () => {
  const topic = 'close-acks0';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  // Each Produce of this client waits 100 ms first (a loaded broker), so the close arrives while
  // the others are still queued behind the first.
  const rule = b.control.addLatency('Produce', 100, { clientId: 'close-test' });
  const n = 40;
  await writeAndEnd(produceFrames(topic, n));
  rule.remove();
  // Before the fix the queue was dropped at the close: 1 of 40 arrived.
  await until(`all ${n} records appended`, 20_000, async () => ((await endOffset(topic)) === n ? true : null)).catch(() => undefined);
  assert.is(await endOffset(topic), n);
});

test('a malformed frame after good ones: the frames before it are processed, nothing after it, and the broker carries on', async () => {
  const topic = 'close-malformed';
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
  // A frame whose size prefix is negative is a protocol error at the reader: nothing after it is read.
  const bad = Buffer.alloc(4);
  bad.writeInt32BE(-5);
  await writeAndEnd(Buffer.concat([produceFrames(topic, 3), bad, produceFrames(topic, 3)]));
  await until('the 3 good records', 10_000, async () => ((await endOffset(topic)) >= 3 ? true : null));
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await endOffset(topic), 3);
  // The broker and other clients carry on.
  const p = new kafkajs.Kafka({ brokers: [`127.0.0.1:${b.port}`], logLevel: kafkajs.logLevel.NOTHING }).producer();
  await p.connect();
  await p.send({ topic, messages: [{ value: 'after' }] });
  await p.disconnect();
  assert.is(await endOffset(topic), 4);
});

test.run();
