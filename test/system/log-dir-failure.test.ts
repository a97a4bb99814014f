// A log dir failing under a running broker of a three-broker cluster (Kafka's LogDirFailureChannel):
// broker 1 has two log dirs and leads every partition of a topic (RF 3, min.insync.replicas 2);
// its second dir is replaced by a file while a producer writes with acks=all. That dir goes
// offline: its partitions answer KAFKA_STORAGE_ERROR on broker 1, the controller elects other
// leaders for them (broker 1's registration lists the offline replicas), every acknowledged
// record is still there, and broker 1 keeps serving the partitions of its other dir.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`log-dir-failure: etcd is required under CI: ${missing}`);

const root = mkdtempSync(join(tmpdir(), 'samsa-dirfail-'));
const dirA = (id: number) => join(root, `n${id}-a`);
const dirB = (id: number) => join(root, `n${id}-b`);
let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: { 'min.insync.replicas': 2, 'replica.high.watermark.checkpoint.interval.ms': 200, 'auto.leader.rebalance.enable': false },
    brokerConfig: (id) => ({ 'log.dirs': `${dirA(id)},${dirB(id)}` }),
  });
});

test.after(async () => {
  await c?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

const TOPIC = 'dirfail';
const PARTITIONS = 4;

test('a failed log dir goes offline: its partitions move to other leaders, no acknowledged record is lost, the broker serves the rest', async () => {
  if (!c) return;
  try {
    await scenario(c);
  } catch (e) {
    console.log(`broker 1's output:\n${c.broker(1).output().slice(-8000)}`);
    throw e;
  }
});

async function scenario(c: TestCluster): Promise<void> {
  const kafka = new Kafka({ clientId: 'dirfail', brokers: c.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [{ topic: TOPIC, replicaAssignment: Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, replicas: [1, 2, 3] })) }],
    waitForLeaders: true,
  });
  await c.waitForMetadata(1, (m) => m.topics.find((t) => t.name === TOPIC)?.partitions.every((p) => p.leaderId === 1 && p.isrNodes.length === 3) ?? false, 'broker 1 leads, full ISRs');
  // Broker 1 placed two partitions in each dir.
  const inB = [...Array(PARTITIONS).keys()].filter((p) => existsSync(join(dirB(1), `${TOPIC}-${p}`)));
  const inA = [...Array(PARTITIONS).keys()].filter((p) => existsSync(join(dirA(1), `${TOPIC}-${p}`)));
  assert.is(inB.length, 2, `partitions in ${dirB(1)}: ${inB}`);
  assert.is(inA.length, 2);

  const producer = kafka.producer({ maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const acked = new Map<number, string[]>(Array.from({ length: PARTITIONS }, (_, p) => [p, []]));
  let stop = false;
  let n = 0;
  const writing = (async () => {
    while (!stop) {
      const messages = Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, value: `v${n}-${partition}` }));
      n++;
      await producer.send({ topic: TOPIC, acks: -1, messages });
      for (const m of messages) acked.get(m.partition)!.push(m.value);
    }
  })();
  await until('records acknowledged before the failure', 20_000, async () => (n > 20 ? true : null));

  // The disk under broker 1's second dir is gone: a file where the dir was.
  renameSync(dirB(1), `${dirB(1)}.gone`);
  writeFileSync(dirB(1), 'not a directory any more');

  const moved = await c.waitForMetadata(2, (m) => {
    const t = m.topics.find((x) => x.name === TOPIC);
    return !!t && inB.every((p) => { const s = t.partitions.find((x) => x.partitionIndex === p)!; return s.leaderId !== 1 && s.leaderId >= 0 && !s.isrNodes.includes(1); });
  }, 'the offline partitions led elsewhere, broker 1 out of their ISRs', 30_000);
  const t = moved.topics.find((x) => x.name === TOPIC)!;
  for (const p of inA) assert.is(t.partitions.find((x) => x.partitionIndex === p)!.leaderId, 1, `partition ${p} (first dir) still led by broker 1`);

  // Keep writing through the move, then check every acknowledged record.
  const before = n;
  await until('records acknowledged after the failure', 30_000, async () => (n > before + 20 ? true : null));
  stop = true;
  await writing;
  await producer.disconnect();

  // Broker 1 is alive and answers for the failed dir and its partitions.
  assert.ok(c.broker(1).child !== null, 'broker 1 still running');
  const cl = await c.client(1);
  const dirs = await cl.send(35, 4, { topics: null });
  const byDir = new Map(dirs.results.map((r: { logDir: string; errorCode: number }) => [r.logDir, r.errorCode]));
  assert.is(byDir.get(dirB(1)), ErrorCode.KAFKA_STORAGE_ERROR);
  assert.is(byDir.get(dirA(1)), ErrorCode.NONE);
  const produce = (partition: number) => cl.send(0, 9, {
    transactionalId: null, acks: 1, timeoutMs: 5000,
    topicData: [{ name: TOPIC, topicId: '', partitionData: [{ index: partition, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('direct') }] }) }] }],
  });
  assert.is((await produce(inB[0])).responses[0].partitionResponses[0].errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  assert.is((await produce(inA[0])).responses[0].partitionResponses[0].errorCode, ErrorCode.NONE);

  // Every acknowledged record is there, in order, on the current leaders.
  const consumer = kafka.consumer({ groupId: 'dirfail-check' });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  const seen = new Map<number, string[]>(Array.from({ length: PARTITIONS }, (_, p) => [p, []]));
  const total = [...acked.values()].reduce((a, v) => a + v.length, 0) + 1;
  let count = 0;
  await consumer.run({ eachMessage: async ({ partition, message }) => { seen.get(partition)!.push(message.value!.toString()); count++; } });
  try {
    await until('every record consumed', 60_000, async () => (count >= total ? true : null));
  } catch (e) {
    console.log(`consumed ${count} of ${total}: ${[...acked].map(([p, v]) => `p${p} acked ${v.length} seen ${seen.get(p)!.length} missing ${v.filter((x) => !seen.get(p)!.includes(x))}`).join(', ')}`);
    console.log(JSON.stringify(await admin.fetchTopicOffsets(TOPIC)));
    throw e;
  } finally {
    await consumer.disconnect();
  }
  await admin.disconnect();
  for (const [p, values] of acked) {
    const got = new Set(seen.get(p));
    const lost = values.filter((v) => !got.has(v));
    assert.equal(lost, [], `partition ${p}: acknowledged records lost`);
  }
  assert.match(c.broker(1).output(), /is offline/);
}

test.run();
