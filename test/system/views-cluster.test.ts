/**
 * Views on a cluster of three brokers (child processes on one etcd): a view is placed on its
 * source's replicas, so each view partition's leader is its source partition's leader, and a
 * kafkajs consumer group reads exactly the matching records from every partition's leader.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
let c: TestCluster | null = null;
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`views-cluster: etcd is required under CI: ${missing}`);

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3 });
});

test.after(async () => {
  await c?.cleanup();
});

test('a view on three brokers is placed and led like its source and read by a consumer group', async () => {
  if (!c) return console.log('views-cluster: skipped:', missing);
  const kafka = new Kafka({ clientId: 'views-cluster', brokers: c.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'clicks', numPartitions: 6, replicationFactor: 2 }], waitForLeaders: true });
    await admin.createTopics({ topics: [{ topic: 'clicks-ads', configEntries: [{ name: 'samsa.view.source', value: 'clicks' }, { name: 'samsa.view.filter', value: "kind = 'ad'" }] }], waitForLeaders: true });
    const md = await admin.fetchTopicMetadata({ topics: ['clicks', 'clicks-ads'] });
    const [src, view] = ['clicks', 'clicks-ads'].map((n) => md.topics.find((t) => t.name === n)!.partitions.sort((a, b) => a.partitionId - b.partitionId));
    assert.is(view.length, 6);
    assert.equal(view.map((p) => [p.partitionId, p.replicas]), src.map((p) => [p.partitionId, p.replicas]), "the view sits on its source's replicas");
    assert.equal(view.map((p) => p.leader), src.map((p) => p.leader), 'and has the same leaders');
    assert.ok(new Set(src.map((p) => p.leader)).size > 1, 'leaders spread over the brokers');
  } finally {
    await admin.disconnect();
  }
  const producer = kafka.producer();
  await producer.connect();
  const want: string[] = [];
  const messages = Array.from({ length: 120 }, (_, i) => {
    const kind = i % 3 === 0 ? 'ad' : 'organic';
    if (kind === 'ad') want.push(`c${i}`);
    return { partition: i % 6, key: `k${i}`, value: `c${i}`, headers: { kind } };
  });
  await producer.send({ topic: 'clicks', acks: -1, messages });
  await producer.disconnect();
  const got: string[] = [];
  const consumer = kafka.consumer({ groupId: 'ads', maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'clicks-ads', fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => { got.push(message.value!.toString()); } });
  const deadline = Date.now() + 20_000;
  while (got.length < want.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 300));
  await consumer.disconnect();
  assert.equal(got.sort(), want.sort());
});

test.run();
