/**
 * Schedule topics on a cluster of three brokers (child processes on one etcd): each source
 * partition's scheduler runs on its leader and delivers to target partitions led by other
 * brokers (Produce acks=-1 through the inter-broker client); every record arrives once.
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
if (missing && IN_CI) throw new Error(`schedule-cluster: etcd is required under CI: ${missing}`);

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3 });
});

test.after(async () => {
  await c?.cleanup();
});

test('schedulers on three brokers deliver to target partitions led elsewhere, each record once', async () => {
  if (!c) return console.log('schedule-cluster: skipped:', missing);
  const ids = c.brokers.map((b) => b.nodeId);
  const kafka = new Kafka({ clientId: 'schedule-cluster', brokers: c.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'due', replicaAssignment: ids.map((_, p) => ({ partition: p, replicas: [ids[(p + 1) % 3]] })) }], waitForLeaders: true });
    await admin.createTopics({
      topics: [{ topic: 'later', replicaAssignment: ids.map((_, p) => ({ partition: p, replicas: [ids[p]] })), configEntries: [{ name: 'samsa.schedule.target', value: 'due' }, { name: 'samsa.schedule.tick.ms', value: '20' }] }],
      waitForLeaders: true,
    });
    const md = await admin.fetchTopicMetadata({ topics: ['due', 'later'] });
    const leaders = (t: string) => md.topics.find((x) => x.name === t)!.partitions.sort((a, b) => a.partitionId - b.partitionId).map((p) => p.leader);
    assert.ok(leaders('due').every((l, p) => l !== leaders('later')[p]), 'every target partition is led by another broker than its source partition');
  } finally {
    await admin.disconnect();
  }
  const producer = kafka.producer();
  await producer.connect();
  const at = Date.now() + 1500;
  const n = 300;
  await producer.send({ topic: 'later', acks: -1, messages: Array.from({ length: n }, (_, i) => ({ partition: i % 3, key: `k${i}`, value: `v${i}`, headers: { 'samsa-deliver-at': String(at + (i % 50)) } })) });
  await producer.disconnect();
  const got = new Map<string, { partition: number; from: string; receivedAt: number }>();
  let dups = 0;
  const consumer = kafka.consumer({ groupId: 'due-reader', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'due', fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const v = message.value!.toString();
      if (got.has(v)) dups++;
      got.set(v, { partition, from: String(message.headers!['samsa-scheduled-from']), receivedAt: Date.now() });
    },
  });
  const deadline = Date.now() + 20_000;
  while (got.size < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  await consumer.disconnect();
  assert.is(got.size, n, 'every record delivered');
  assert.is(dups, 0, 'none twice');
  for (const [v, g] of got) {
    const i = Number(v.slice(1));
    assert.is(g.partition, i % 3, 'same partition index');
    assert.match(g.from, new RegExp(`^later/${i % 3}/\\d+$`));
    assert.ok(g.receivedAt >= at + (i % 50), `${v} not before it was due`);
  }
});

test.run();
