/**
 * Three Samsa brokers as child processes on one etcd (test/support/cluster.ts), driven by real
 * clients: Metadata and DescribeCluster from every broker list the three brokers, the controller
 * and leaders spread over them (kafkajs admin and kcat -L); CreateTopics / CreatePartitions /
 * DeleteTopics sent to a broker that is not the controller are forwarded to it, with Kafka's
 * errors for a replication factor above the broker count and an assignment naming an unknown
 * broker; each broker holds logs only for the partitions it is a replica of; a producer reaches
 * every partition's leader and a consumer group reads everything back; a produce to a broker that
 * does not lead the partition answers NOT_LEADER_OR_FOLLOWER with the leader (KIP-951), as does a
 * consumer's Fetch to a broker without a replica (a follower serves it, KIP-392), and a
 * kafkajs producer whose metadata went stale by a leader change recovers.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { kcat, run } from '../support/external.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { EtcdMetadataStore } from '../../src/cluster/etcd-metadata-store.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

let c: TestCluster | null = null;
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`three-brokers: etcd is required under CI: ${missing}`);

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3 });
});

test.after(async () => {
  await c?.cleanup();
});

const kafka = (clientId: string) => new Kafka({ clientId, brokers: c!.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 100 } });

function notController(m: { controllerId: number }): number {
  return c!.brokers.map((b) => b.nodeId).find((id) => id !== m.controllerId)!;
}

test('every broker lists the three brokers and the same controller (Metadata, DescribeCluster, kcat -L)', async () => {
  if (!c) return console.log('three-brokers: skipped:', missing);
  const controllers = new Set<number>();
  for (const b of c.brokers) {
    const m = await c.waitForMetadata(b.nodeId, (x) => x.brokers.length === 3 && x.controllerId > 0, 'three brokers and a controller');
    assert.equal(m.brokers.map((x) => [x.nodeId, x.port]), c.brokers.map((x) => [x.nodeId, x.port]));
    controllers.add(m.controllerId);
  }
  assert.is(controllers.size, 1, 'one controller');
  const admin = kafka('three-admin').admin();
  await admin.connect();
  try {
    const d = await admin.describeCluster();
    assert.is(d.brokers.length, 3);
    assert.is(d.controller, [...controllers][0]);
  } finally {
    await admin.disconnect();
  }
  const r = await kcat(['-b', c.bootstrap, '-L', '-J']);
  assert.is(r.code, 0, r.stderr);
  const md = JSON.parse(r.stdout) as { brokers: { id: number }[]; controllerid: number };
  assert.equal(md.brokers.map((x) => x.id).sort(), [1, 2, 3]);
  assert.is(md.controllerid, [...controllers][0]);
});

test('admin requests to a broker that is not the controller are forwarded; Kafka errors for impossible factors and unknown brokers', async () => {
  if (!c) return;
  const m = await c.metadata(1);
  const other = notController(m);
  // kafkajs sends admin requests to the controller Metadata names; the raw client picks a non-controller.
  const cl = await c.client(other);
  const res = await cl.send(19, 7, {
    topics: [
      { name: 'spread', numPartitions: 6, replicationFactor: 3, assignments: [], configs: [] },
      { name: 'too-many', numPartitions: 1, replicationFactor: 4, assignments: [], configs: [] },
      { name: 'manual', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [3, 1] }, { partitionIndex: 1, brokerIds: [2, 3] }], configs: [] },
      { name: 'unknown-broker', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 9] }], configs: [] },
    ],
    timeoutMs: 10000, validateOnly: false,
  });
  const byName = new Map(res.topics.map((t) => [t.name, t]));
  assert.is(byName.get('spread')!.errorCode, ErrorCode.NONE);
  assert.is(byName.get('spread')!.replicationFactor, 3);
  assert.is(byName.get('too-many')!.errorCode, ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.match(byName.get('too-many')!.errorMessage!, 'only 3 broker(s) are registered');
  assert.is(byName.get('manual')!.errorCode, ErrorCode.NONE);
  assert.is(byName.get('unknown-broker')!.errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(byName.get('unknown-broker')!.errorMessage, 'The manual partition assignment includes broker 9, but no such broker is registered.');

  // Every broker sees the topics; leaders of 'spread' cycle over all three brokers.
  for (const b of c.brokers) {
    const md = await c.waitForMetadata(b.nodeId, (x) => ['spread', 'manual'].every((n) => x.topics.some((t) => t.name === n)), 'the new topics');
    const spread = md.topics.find((t) => t.name === 'spread')!;
    assert.equal(new Set(spread.partitions.map((p) => p.leaderId)).size, 3, 'leaders on every broker');
    for (const p of spread.partitions) {
      assert.is(p.replicaNodes.length, 3);
      assert.equal([...p.isrNodes].sort(), [1, 2, 3]);
      assert.is(p.leaderId, p.replicaNodes[0], 'the preferred replica leads');
      assert.equal(p.offlineReplicas, []);
    }
    const manual = md.topics.find((t) => t.name === 'manual')!;
    assert.equal(manual.partitions.map((p) => [p.partitionIndex, p.leaderId, p.replicaNodes]), [[0, 3, [3, 1]], [1, 2, [2, 3]]]);
  }
  // Logs exist only on the replicas.
  const hasLog = (id: number, dir: string) => existsSync(join(c!.broker(id).logDir, dir));
  // Each broker's replica manager creates its logs as its cache learns of the topic.
  await c.waitForMetadata(2, () => hasLog(2, 'manual-1') && hasLog(1, 'manual-0') && hasLog(3, 'manual-0') && hasLog(3, 'manual-1'), 'manual logs on their replicas');
  assert.not.ok(hasLog(2, 'manual-0'), 'broker 2 holds no replica of manual-0');
  assert.not.ok(hasLog(1, 'manual-1'), 'broker 1 holds no replica of manual-1');

  // CreatePartitions and DeleteTopics through the same non-controller broker.
  const cp = await cl.send(37, 3, { topics: [{ name: 'manual', count: 3, assignments: [{ brokerIds: [1, 2] }] }], timeoutMs: 10000, validateOnly: false });
  assert.is(cp.results[0].errorCode, ErrorCode.NONE, cp.results[0].errorMessage ?? '');
  const bad = await cl.send(37, 3, { topics: [{ name: 'manual', count: 4, assignments: [{ brokerIds: [1, 7] }] }], timeoutMs: 10000, validateOnly: false });
  assert.is(bad.results[0].errorCode, ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  const md = await c.waitForMetadata(3, (x) => x.topics.find((t) => t.name === 'manual')?.partitions.length === 3, 'manual with 3 partitions');
  assert.equal(md.topics.find((t) => t.name === 'manual')!.partitions[2].replicaNodes, [1, 2]);
  const dt = await cl.send(20, 6, { topics: [{ name: 'manual', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], topicNames: [], timeoutMs: 10000 });
  assert.is(dt.responses[0].errorCode, ErrorCode.NONE);
  for (const b of c.brokers) await c.waitForMetadata(b.nodeId, (x) => !x.topics.some((t) => t.name === 'manual'), 'manual deleted');
  await c.waitForMetadata(1, () => !existsSync(join(c!.broker(1).logDir, 'manual-0')), 'manual-0 log removed on broker 1');
});

test('kafkajs: default.replication.factor topics; a producer reaches every leader; a consumer group reads everything', async () => {
  if (!c) return;
  const admin = kafka('three-kafkajs-admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'kjs', numPartitions: 6, replicationFactor: 3 }], waitForLeaders: true });
    const meta = await admin.fetchTopicMetadata({ topics: ['kjs'] });
    assert.equal(new Set(meta.topics[0].partitions.map((p) => p.leader)).size, 3);
  } finally {
    await admin.disconnect();
  }
  const producer = kafka('three-producer').producer();
  await producer.connect();
  const sent: string[] = [];
  for (let p = 0; p < 6; p++) {
    const messages = Array.from({ length: 5 }, (_, i) => ({ partition: p, value: `p${p}-m${i}` }));
    sent.push(...messages.map((m) => m.value));
    const res = await producer.send({ topic: 'kjs', acks: -1, messages });
    assert.is(res[0].errorCode, 0);
  }
  await producer.disconnect();

  const consumer = kafka('three-consumer').consumer({ groupId: 'three-group', sessionTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  await consumer.subscribe({ topic: 'kjs', fromBeginning: true });
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`consumed ${got.length} of ${sent.length}`)), 40000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value!.toString());
        if (got.length >= sent.length) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  assert.equal([...got].sort(), [...sent].sort());
});

test('a produce to a broker that does not lead answers NOT_LEADER_OR_FOLLOWER with the leader; kafkajs recovers from a leader change', async () => {
  if (!c) return;
  const md = await c.waitForMetadata(1, (x) => x.topics.some((t) => t.name === 'spread'), 'spread');
  const spread = md.topics.find((t) => t.name === 'spread')!;
  const p0 = spread.partitions.find((p) => p.partitionIndex === 0)!;
  const follower = p0.replicaNodes.find((id) => id !== p0.leaderId)!;
  const cl = await c.client(follower);
  const batch = buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] });
  const res = await cl.send(0, 11, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'spread', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }] });
  const pr = res.responses[0].partitionResponses[0];
  assert.is(pr.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.equal(pr.currentLeader, { leaderId: p0.leaderId, leaderEpoch: p0.leaderEpoch });
  assert.equal(res.nodeEndpoints.map((e) => [e.nodeId, e.port]), [[p0.leaderId, c.broker(p0.leaderId).port]]);
  // A consumer's Fetch: a follower serves v11+ (KIP-392, up to its own high watermark); a broker
  // holding no replica answers NOT_LEADER_OR_FOLLOWER with the leader (v12+).
  const fetch = (k: typeof cl, name: string) => k.send(1, 12, {
    clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic: name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
    forgottenTopicsData: [], rackId: '',
  });
  assert.is((await fetch(cl, 'spread')).responses[0].partitions[0].errorCode, ErrorCode.NONE);
  const created = await cl.send(19, 7, { topics: [{ name: 'on-3-and-1', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [3, 1] }], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  assert.is(created.topics[0].errorCode, ErrorCode.NONE);
  const onTwo = await c.waitForMetadata(2, (x) => x.topics.some((t) => t.name === 'on-3-and-1' && t.partitions[0]?.leaderId === 3), 'on-3-and-1 led by 3');
  const m0 = onTwo.topics.find((t) => t.name === 'on-3-and-1')!.partitions[0];
  const f = await fetch(await c.client(2), 'on-3-and-1');
  assert.is(f.responses[0].partitions[0].errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'broker 2 holds no replica of on-3-and-1');
  assert.equal(f.responses[0].partitions[0].currentLeader, { leaderId: m0.leaderId, leaderEpoch: m0.leaderEpoch });

  // A producer learns the leaders, then leadership of partition 0 moves (written into etcd as a
  // controller would): its next send goes to the old leader, is refused, and is retried on the new one.
  const producer = kafka('three-stale-producer').producer();
  await producer.connect();
  await producer.send({ topic: 'spread', acks: -1, messages: [{ partition: 0, value: 'before' }] });
  const store = await EtcdMetadataStore.connect({ endpoints: [c.etcd.clientUrl], prefix: c.prefix, connectTimeoutMs: 5000 });
  try {
    const image = await store.readImage();
    const topicId = [...image.topics.values()].find((t) => t.name === 'spread')!.topicId;
    const state = image.partitions.get(topicId)!.get(0)!;
    const out = await store.alterPartition({ ...state, leader: follower, leaderEpoch: state.leaderEpoch + 1, partitionEpoch: state.partitionEpoch + 1 }, state.partitionEpoch);
    assert.ok(out.ok);
  } finally {
    await store.close();
  }
  for (const b of c.brokers) {
    await c.waitForMetadata(b.nodeId, (x) => x.topics.find((t) => t.name === 'spread')?.partitions.find((p) => p.partitionIndex === 0)?.leaderId === follower, 'the new leader');
  }
  const sent = await producer.send({ topic: 'spread', acks: -1, messages: [{ partition: 0, value: 'after' }] });
  assert.is(sent[0].errorCode, 0);
  await producer.disconnect();
  // The record is on the new leader: its log end moved.
  const lo = await (await c.client(follower)).send(2, 7, {
    replicaId: -1, isolationLevel: 0, topics: [{ name: 'spread', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n}] }], timeoutMs: 5000,
  });
  assert.is(lo.topics[0].partitions[0].errorCode, ErrorCode.NONE);
  assert.ok(lo.topics[0].partitions[0].offset >= 1n, `log end on the new leader ${lo.topics[0].partitions[0].offset}`);
});

test('kafka-leader-election (Kafka 4.4 tools, Java admin client) through a broker that is not the controller: the preferred replica leads again', async () => {
  if (!c) return;
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`three-brokers: java is required under CI: ${missingJava}`);
    return void console.log(`skipped: ${missingJava}`);
  }
  // The previous test moved spread-0's leadership off its preferred replica.
  const md = await c.waitForMetadata(1, (x) => x.topics.some((t) => t.name === 'spread'), 'spread');
  const p0 = md.topics.find((t) => t.name === 'spread')!.partitions.find((p) => p.partitionIndex === 0)!;
  const preferred = p0.replicaNodes[0];
  assert.is.not(p0.leaderId, preferred, 'spread-0 is led by another replica than its preferred one');
  const via = notController(md);
  const elect = () => run(javaBin(), [...JVM_OPTS, '-cp', kafkaJars().classpath, 'org.apache.kafka.tools.LeaderElectionCommand',
    '--bootstrap-server', `127.0.0.1:${c!.broker(via).port}`, '--election-type', 'PREFERRED', '--topic', 'spread', '--partition', '0'], { timeoutMs: 90_000 });
  const first = await elect();
  assert.is(first.code, 0, first.stdout + first.stderr);
  assert.match(first.stdout, 'Successfully completed leader election (PREFERRED) for partitions spread-0');
  for (const b of c.brokers) {
    await c.waitForMetadata(b.nodeId, (x) => x.topics.find((t) => t.name === 'spread')?.partitions.find((p) => p.partitionIndex === 0)?.leaderId === preferred, 'the preferred leader');
  }
  const again = await elect();
  assert.is(again.code, 0, again.stdout + again.stderr);
  assert.match(again.stdout, 'Valid replica already elected for partitions spread-0');
});

test.run();
