/**
 * `samsa cluster start --brokers 3`: etcd and three brokers on loopback (node ids 0-2 on ports
 * P, P+3, P+6), one cluster (every broker lists all three and one controller); kafkajs's admin on
 * that layout (the one kafkajs's integration specs assume); Ctrl-C stops them all and exits 0.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { KafkaClient } from '../../src/cli/client.js';
import { etcdMissing } from '../support/etcd.js';
import { freePort } from '../support/net.js';
import kafkajs from 'kafkajs';
import { tmpDir, type TmpDir } from '../support/tmp.js';
import { nodeArgs, samsaMain } from '../support/node-ts.js';

const { Kafka, logLevel, ConfigResourceTypes } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base port P with P, P+3, P+6 free, and two more free ports for etcd (client, peer). */
async function ports(): Promise<{ base: number; etcd: number }> {
  for (;;) {
    const base = await freePort();
    if (base + 6 > 65535) continue;
    if (!(await isFree(base + 3)) || !(await isFree(base + 6))) continue;
    const etcd = await freePort();
    if ([base, base + 3, base + 6].some((p) => Math.abs(p - etcd) <= 1) || !(await isFree(etcd + 1))) continue;
    return { base, etcd };
  }
}

const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`etcd is required under CI: ${missing}`);

interface Started {
  child: ChildProcess;
  base: number;
  dir: TmpDir;
  out: () => string;
  exited: Promise<number | null>;
}
let cluster: Started | null = null;

test.before(async () => {
  if (missing) return;
  const dir = tmpDir('cli-cluster');
  const { base, etcd } = await ports();
  let out = '';
  const child = spawn(process.execPath, [...nodeArgs(samsaMain()), 'cluster', 'start', '--brokers', '3', '--port', String(base), '--etcd-port', String(etcd), '--dir', dir.path,
    '--override', 'broker.session.timeout.ms=2000', '--override', 'broker.heartbeat.interval.ms=400'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  cluster = { child, base, dir, out: () => out, exited };
  const deadline = Date.now() + 90_000;
  while (!out.includes('ready: bootstrap servers')) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) throw new Error(`not ready:\n${out.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

test.after(async () => {
  cluster?.child.kill('SIGKILL');
  await cluster?.dir.cleanup();
});

test('samsa cluster start --brokers 3: etcd and three brokers (node ids 0-2, ports P, P+3, P+6) form one cluster', async () => {
  if (!cluster) return console.log('cluster start: skipped:', missing);
  const { base } = cluster;
  assert.match(cluster.out(), `bootstrap servers 127.0.0.1:${base},127.0.0.1:${base + 3},127.0.0.1:${base + 6}`);
  for (const port of [base, base + 3, base + 6]) {
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port}` });
    try {
      let m = await c.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      for (let i = 0; i < 50 && m.brokers.length < 3; i++) {
        await new Promise((r) => setTimeout(r, 100));
        m = await c.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      }
      assert.equal(m.brokers.map((b) => [b.nodeId, b.port]), [[0, base], [1, base + 3], [2, base + 6]]);
      assert.is(m.controllerId, 0, 'the first broker started is the controller');
    } finally {
      c.close();
    }
  }
});

// The cluster kafkajs's own integration specs are written for (node ids 0, 1, 2; `--port 9092`
// gives their exact ports 9092, 9095, 9098): the admin calls whose specs need more than one
// broker, as those specs use them (manual assignments over brokers 0-2, a move, Kafka's errors).
test('kafkajs on the three-broker layout: manual assignments over brokers 0-2, describeCluster, a reassignment, broker configs, offsets across leaders', async () => {
  if (!cluster) return;
  const { base } = cluster;
  const kafka = new Kafka({ clientId: 'layout', brokers: [`127.0.0.1:${base}`, `127.0.0.1:${base + 3}`, `127.0.0.1:${base + 6}`], logLevel: logLevel.NOTHING, retry: { retries: 6, initialRetryTime: 100 } });
  const admin = kafka.admin();
  await admin.connect();
  const producer = kafka.producer();
  await producer.connect();
  try {
    const described = await admin.describeCluster();
    assert.equal(described.brokers.map((b) => [b.nodeId, b.port]).sort(), [[0, base], [1, base + 3], [2, base + 6]]);
    assert.is(described.controller, 0);

    const topic = 'layout-topic';
    assert.is(await admin.createTopics({ topics: [{ topic, replicaAssignment: [{ partition: 0, replicas: [1, 0] }, { partition: 1, replicas: [2, 1] }] }] }), true);
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    assert.equal(md.topics[0].partitions.map((p) => [p.partitionId, p.leader, p.replicas]).sort(), [[0, 1, [1, 0]], [1, 2, [2, 1]]]);
    await admin.createPartitions({ topicPartitions: [{ topic, count: 3, assignments: [[0, 2]] }] });

    // Reassignment, and the errors kafkajs's specs expect: an unknown broker, an unknown topic
    // (per partition, which kafkajs 2.2.4 gathers in an aggregate error).
    const why = (e: Error & { errors?: Error[] }) => e.errors?.map((x) => x.message).join('; ') ?? e.message;
    await admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [2, 1] }] }] });
    const invalid = await admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition: 0, replicas: [5, 1] }] }] }).then(() => 'resolved', why);
    assert.is(invalid, 'Replica assignment is invalid');
    const unknown = await admin.alterPartitionReassignments({ topics: [{ topic: `${topic}x`, partitionAssignment: [{ partition: 0, replicas: [2, 1] }] }] }).then(() => 'resolved', why);
    assert.is(unknown, 'This server does not host this topic-partition');
    const deadline = Date.now() + 30_000;
    while ((await admin.listPartitionReassignments({})).topics.length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const moved = await admin.fetchTopicMetadata({ topics: [topic] });
    const p0 = moved.topics[0].partitions.find((p) => p.partitionId === 0)!;
    assert.equal([p0.replicas, p0.leader], [[2, 1], 2], 'the move completed and its preferred replica leads');

    // Every broker answers for its own config; produce to three leaders, offsets from each.
    const configs = await admin.describeConfigs({ resources: [0, 1, 2].map((id) => ({ type: ConfigResourceTypes.BROKER, name: String(id), configNames: ['node.id'] })), includeSynonyms: false });
    assert.equal(configs.resources.map((r) => [r.resourceName, r.errorCode, r.configEntries.find((e) => e.configName === 'node.id')?.configValue]).sort(), [['0', 0, '0'], ['1', 0, '1'], ['2', 0, '2']]);
    for (let p = 0; p < 3; p++) await producer.send({ topic, acks: -1, messages: Array.from({ length: p + 1 }, (_, i) => ({ partition: p, value: `v${i}` })) });
    const offsets = await admin.fetchTopicOffsets(topic);
    assert.equal(offsets.map((o) => [o.partition, o.high]).sort(), [[0, '1'], [1, '2'], [2, '3']]);
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 1, offset: '1' }, { partition: 2, offset: '-1' }] });
    const after = await admin.fetchTopicOffsets(topic);
    assert.equal(after.map((o) => [o.partition, o.low]).sort(), [[0, '0'], [1, '1'], [2, '3']]);
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
});

test('Ctrl-C stops the brokers and etcd, and exits 0', async () => {
  if (!cluster) return;
  cluster.child.kill('SIGINT');
  assert.is(await cluster.exited, 0, cluster.out().slice(-3000));
});

test.run();
