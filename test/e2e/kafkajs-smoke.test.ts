import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';

const { Kafka, logLevel, CompressionTypes } = kafkajs;

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0 });
});

test.after(async () => {
  await b?.stop();
});

test('kafkajs admin creates a topic and sees it in metadata', async () => {
  const kafka = new Kafka({ clientId: 'smoke', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    const created = await admin.createTopics({ topics: [{ topic: 'smoke', numPartitions: 3 }], waitForLeaders: true });
    assert.is(created, true);
    const md = await admin.fetchTopicMetadata({ topics: ['smoke'] });
    assert.is(md.topics[0].name, 'smoke');
    assert.is(md.topics[0].partitions.length, 3);
    assert.ok((await admin.listTopics()).includes('smoke'));
  } finally {
    await admin.disconnect();
  }
});

test('kafkajs producer appends with acks 1, -1 and gzip; offsets are contiguous', async () => {
  const kafka = new Kafka({ clientId: 'smoke', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  try {
    const r1 = await producer.send({ topic: 'smoke-p', acks: 1, messages: [{ key: 'k', value: 'v1' }, { key: 'k', value: 'v2' }] });
    assert.is(r1[0].errorCode, 0);
    assert.is(r1[0].baseOffset, '0');
    const r2 = await producer.send({ topic: 'smoke-p', acks: -1, compression: CompressionTypes.GZIP, messages: [{ key: 'k', value: 'v3' }] });
    assert.is(r2[0].baseOffset, '2');
    const admin = kafka.admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets('smoke-p');
    await admin.disconnect();
    assert.is(offsets[0].high, '3');
    assert.is(offsets[0].low, '0');
  } finally {
    await producer.disconnect();
  }
});

test.run();
