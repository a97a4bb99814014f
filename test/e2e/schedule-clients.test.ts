/**
 * Schedule topics with real clients: kafkajs, kcat and confluent-kafka (librdkafka) produce to a
 * schedule topic; the records appear on the target at or after their due time (a lower bound:
 * the consumer receives them after the broker delivered them), each once, with key, value,
 * headers and timestamp kept; a malformed samsa-deliver-at is refused; `samsa schedule list`.
 */
import { test } from 'uvu';
import { runSamsa } from '../support/samsa-cli.js';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { produceConfluent, produceKcat, readKcat } from '../support/clients.js';
import { tmpDir } from '../support/tmp.js';

const { Kafka, logLevel, Partitioners } = kafkajs;

let b: RunningBroker;
let kafka: InstanceType<typeof Kafka>;

const received = new Map<string, { at: number; partition: number; key: string | null; timestamp: number; headers: Record<string, string> }>();
const duplicates: string[] = [];
let consumer: ReturnType<InstanceType<typeof Kafka>['consumer']>;


test.before(async () => {
  b = await startBroker({ port: 0 });
  kafka = new Kafka({ clientId: 'schedule', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'deliveries', numPartitions: 3 }], waitForLeaders: true });
  const sched = (topic: string, numPartitions: number, target = 'deliveries') => ({
    topic, numPartitions,
    configEntries: [{ name: 'samsa.schedule.target', value: target }, { name: 'samsa.schedule.delay.ms', value: '1000' }, { name: 'samsa.schedule.tick.ms', value: '50' }],
  });
  await admin.createTopics({ topics: [sched('timers', 3), sched('timers2', 2)], waitForLeaders: true });
  await admin.disconnect();
  consumer = kafka.consumer({ groupId: 'deliveries-reader', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'deliveries', fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const v = message.value!.toString();
      if (received.has(v)) duplicates.push(v);
      const headers: Record<string, string> = {};
      for (const [k, h] of Object.entries(message.headers ?? {})) headers[k] = String(h);
      received.set(v, { at: Date.now(), partition, key: message.key?.toString() ?? null, timestamp: Number(message.timestamp), headers });
    },
  });

});

test.after(async () => {
  await consumer?.disconnect();
  await b?.stop();
});

const due = new Map<string, number>();

test('CreateTopics refuses a missing target and delay without a target', async () => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const configEntries of [[{ name: 'samsa.schedule.target', value: 'nowhere' }], [{ name: 'samsa.schedule.delay.ms', value: '5' }], [{ name: 'samsa.schedule.target', value: 'bad-self' }]]) {
      try {
        await admin.createTopics({ topics: [{ topic: 'bad-self', configEntries }] });
        assert.unreachable('created');
      } catch (err: any) {
        assert.match(JSON.stringify(err.errors ?? err.message), /INVALID_CONFIG/);
      }
    }
  } finally {
    await admin.disconnect();
  }
});

test('kafkajs, kcat and confluent-kafka produce to the schedule topic; a malformed samsa-deliver-at is refused', async () => {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const now = Date.now();
  const at = (ms: number) => String(now + ms);
  await producer.send({
    topic: 'timers',
    messages: [
      { partition: 0, key: 'k1', value: 'kafkajs-1s', headers: { 'samsa-deliver-at': at(1000), trace: 'abc' } },
      { partition: 1, key: 'k5', value: 'kafkajs-5s', headers: { 'samsa-deliver-at': at(5000) } },
      { partition: 2, key: null, value: 'kafkajs-delay', timestamp: String(now) },
      { partition: 2, key: 'old', value: 'kafkajs-past', headers: { 'samsa-deliver-at': at(-60_000) } },
    ],
  });
  due.set('kafkajs-1s', now + 1000).set('kafkajs-5s', now + 5000).set('kafkajs-delay', now + 1000).set('kafkajs-past', now - 60_000);
  try {
    await producer.send({ topic: 'timers', messages: [{ partition: 0, value: 'ok' }, { partition: 0, value: 'bad', headers: { 'samsa-deliver-at': 'tomorrow' } }] });
    assert.unreachable('a malformed samsa-deliver-at was accepted');
  } catch (err: any) {
    assert.match(String(err.message) + String(err.type), /INVALID_RECORD|failed the validation/);
  }
  const keys = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
  await producer.send({ topic: 'timers2', messages: keys.map((k, i) => ({ partition: i % 2, key: k, value: `hashed-${k}`, headers: { 'samsa-deliver-at': at(1500) } })) });
  for (const k of keys) due.set(`hashed-${k}`, now + 1500);
  await producer.disconnect();
  const dir = tmpDir('samsa-sched-kcat');
  try {
    await produceKcat(b.bootstrap, 'timers', [{ partition: 1, key: Buffer.from('kc'), value: Buffer.from('kcat-2s'), headers: [['samsa-deliver-at', Buffer.from(at(2000))]] }], dir.path);
  } finally {
    dir.cleanup();
  }
  due.set('kcat-2s', now + 2000);
  const reports = await produceConfluent(b.bootstrap, 'timers', [
    { partition: 0, key: Buffer.from('ck'), value: Buffer.from('confluent-3s'), headers: [['samsa-deliver-at', Buffer.from(at(3000))]] },
  ]);
  assert.equal(reports.map((r) => r.error), [null]);
  due.set('confluent-3s', now + 3000);
  const refused = await produceConfluent(b.bootstrap, 'timers', [{ partition: 2, key: null, value: Buffer.from('x'), headers: [['samsa-deliver-at', Buffer.from('12:00')]] }], { 'message.send.max.retries': 0 });
  assert.match(String(refused[0].error), /INVALID_RECORD|invalid/i);
});

test('samsa schedule list shows the pending records by due minute', async () => {
  const r = await runSamsa(b.bootstrap, ['schedule', 'list', 'timers']);
  assert.is(r.code, 0, r.stderr);
  const total = Number(/(\d+) pending in timers/.exec(r.stdout)?.[1]);
  assert.ok(total >= 1 && total <= 6, r.stdout);
  assert.match(r.stdout, /DUE \(UTC minute\)/);
});

test('every record appears on the target once, not before it is due, with key, value, headers and timestamp', async () => {
  const deadline = Date.now() + 15_000;
  while (received.size < due.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal([...received.keys()].sort(), [...due.keys()].sort());
  assert.equal(duplicates, []);
  for (const [v, d] of due) assert.ok(received.get(v)!.at >= d, `${v} received ${d - received.get(v)!.at} ms before it was due`);
  const one = received.get('kafkajs-1s')!;
  assert.is(one.key, 'k1');
  assert.is(one.headers.trace, 'abc');
  assert.is(one.headers['samsa-scheduled-from'], 'timers/0/0');
  assert.is(one.partition, 0, 'same partition index when the counts match');
  assert.is(received.get('kafkajs-delay')!.timestamp, due.get('kafkajs-delay')! - 1000, 'original timestamp kept');
  assert.is(received.get('kcat-2s')!.partition, 1);
  const partitioner = Partitioners.DefaultPartitioner();
  const partitionMetadata = [0, 1, 2].map((partitionId) => ({ partitionId, leader: 1, replicas: [1], isr: [1] }));
  for (const k of ['alpha', 'beta', 'gamma', 'delta', 'epsilon']) {
    const want = partitioner({ topic: 'deliveries', partitionMetadata: partitionMetadata as any, message: { key: k, value: 'x' } });
    assert.is(received.get(`hashed-${k}`)!.partition, want, `key ${k}: the Java client's murmur2 partition`);
  }
});

test('kcat reads the target: exactly the delivered records; schedule list is empty', async () => {
  const { records } = await readKcat(b.bootstrap, 'deliveries', [0, 1, 2]);
  assert.is(records.length, due.size);
  const r = await runSamsa(b.bootstrap, ['schedule', 'list', 'timers']);
  assert.match(r.stdout, /^0 pending in timers/m);
});

test.run();
