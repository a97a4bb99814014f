// The example of docs/testing-with-samsa.md ("Testing your Kafka code with Samsa"), run as a test.
// In your project: `import { startBroker, type RunningBroker } from 'samsa';`
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/index.js';

let broker: RunningBroker;
let kafka: Kafka;

test.before(async () => {
  broker = await startBroker({ storage: 'memory', 'num.partitions': 1 }); // a real broker on a free port
  kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
});

test.after(async () => {
  await broker.stop(); // closes sockets and timers, removes the data
});

test('an order is consumed and its offset committed', async () => {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ key: 'o-1', value: '{"total":42}' }] });
  await producer.disconnect();

  const seen: string[] = [];
  const consumer = kafka.consumer({ groupId: 'billing', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'orders', fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });

  await broker.control.waitForGroupStable('billing');
  await broker.control.waitForCommittedOffset('billing', 'orders', 0, 1); // no sleeps, no polling
  await consumer.disconnect();
  assert.equal(seen, ['{"total":42}']);
});

test('the producer survives a leader change', async () => {
  // The next Produce answers NOT_LEADER_OR_FOLLOWER: the client refreshes metadata and retries.
  broker.control.injectError('Produce', 'NOT_LEADER_OR_FOLLOWER');
  const recording = broker.control.record({ apiKeys: ['Produce'] });

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'orders', messages: [{ value: 'retried' }] });
  await producer.disconnect();

  recording.stop();
  assert.equal(recording.exchanges.map((e) => e.injectedError ?? 0), [6, 0]);
  await broker.control.waitForHighWatermark('orders', 0, 2);
});

test.run();
