/**
 * Schedule topics on a cluster of three brokers (child processes on one etcd): each source
 * partition's scheduler runs on its leader and delivers to target partitions led by other
 * brokers (Produce acks=-1 through the inter-broker client); every record arrives once, also
 * when the source leader is killed in the middle of a delivery (the new leader reconciles from
 * the target).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { readKcat } from '../support/clients.js';

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

test('SIGKILL of the source leader in the middle of a delivery: the new leader finds what was delivered in the target and sends the rest, each record once', async () => {
  if (!c) return;
  const kafka = new Kafka({ clientId: 'schedule-failover', brokers: c.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'due2', numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  await admin.createTopics({ topics: [{ topic: 'later2', numPartitions: 1, replicationFactor: 3, configEntries: [{ name: 'samsa.schedule.target', value: 'due2' }, { name: 'samsa.schedule.tick.ms', value: '20' }] }], waitForLeaders: true });
  const sourceLeader = (await admin.fetchTopicMetadata({ topics: ['later2'] })).topics[0].partitions[0].leader;
  const producer = kafka.producer();
  await producer.connect();
  const n = 20_000;
  const at = Date.now() + 4000;
  for (let i = 0; i < n; i += 1000) {
    await producer.send({ topic: 'later2', acks: -1, messages: Array.from({ length: 1000 }, (_, j) => ({ partition: 0, key: `k${i + j}`, value: `v${i + j}`, headers: { 'samsa-deliver-at': String(at + ((i + j) % 5)) } })) });
  }
  await producer.disconnect();
  const delivered = async () => (await admin.fetchTopicOffsets('due2')).reduce((x, o) => x + Number(o.high), 0);
  await new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())));
  let seen = 0;
  const deadline = Date.now() + 20_000;
  while ((seen = await delivered()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  await c.kill(sourceLeader);
  await admin.disconnect();
  const admin2 = new Kafka({ clientId: 'schedule-failover-2', brokers: c.bootstrapList.filter((_, i) => c!.brokers[i].nodeId !== sourceLeader), logLevel: logLevel.NOTHING, retry: { retries: 10 } }).admin();
  await admin2.connect();
  const total = async () => (await admin2.fetchTopicOffsets('due2')).reduce((x, o) => x + Number(o.high), 0);
  const end = Date.now() + 30_000;
  while ((await total().catch(() => 0)) < n && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 1000));
  const final = await total();
  await admin2.disconnect();
  const live = c.brokers.filter((b) => b.nodeId !== sourceLeader).map((b) => `127.0.0.1:${b.port}`).join(',');
  const { records } = await readKcat(live, 'due2', [0, 1, 2]);
  const from = new Set(records.map((r) => Buffer.from(r.headers.find(([k]) => k === 'samsa-scheduled-from')![1]!, 'base64').toString()));
  await c.start(sourceLeader);
  assert.is(from.size, n, 'every source offset delivered');
  assert.ok(seen > 0, 'the kill came after deliveries had begun');
  if (process.env.SAMSA_E2E_VERBOSE) console.log(`killed broker ${sourceLeader} with ${seen} of ${n} delivered`);
  assert.is(final, n, `each record exactly once (${final} in the target for ${n}; ${seen} were out at the kill)`);
});

test.run();
