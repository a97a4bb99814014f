/**
 * CreatePartitions on three brokers with replicas (replication factor 3, min.insync.replicas 2)
 * while a kafkajs consumer group reads and idempotent kafkajs acks=all producers write
 * (test/support/checker.ts): the topic grows from 3 to 6 partitions through a broker that is not
 * the controller (forwarded), every broker lists the new partitions in sync, the group rebalances
 * onto them and reads everything produced there, and the checker finds nothing acknowledged lost,
 * duplicated or reordered on any of the six.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { Acks, assertNothingLost, createTopic, kafkajsLoad, topicOf } from '../support/checker.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`create-partitions: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3, config: { 'min.insync.replicas': 2 } });
});

test.after(async () => {
  await c?.cleanup();
});

test('CreatePartitions 3 → 6 under acks=all load: replicas in sync, the consumer group rebalances onto the new partitions, nothing lost', async () => {
  if (!c) return console.log('create-partitions: skipped:', missing);
  await createTopic(c, 'widen', 3);
  const acks = new Acks(6);
  const consumed = new Map<number, Set<number>>(Array.from({ length: 6 }, (_, p) => [p, new Set<number>()]));
  const kafka = new Kafka({ clientId: 'widen-readers', brokers: c.bootstrapList, logLevel: logLevel.NOTHING });
  const consumers = [0, 1].map(() => kafka.consumer({ groupId: 'wideners', maxWaitTimeInMs: 200, sessionTimeout: 10_000, heartbeatInterval: 1000, metadataMaxAge: 1000 }));
  for (const consumer of consumers) {
    await consumer.connect();
    await consumer.subscribe({ topic: 'widen', fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => void consumed.get(partition)!.add(Number(message.value!.toString().split(':')[1])) });
  }
  const old = await kafkajsLoad(c, 'widen', 3, acks);
  let added: Awaited<ReturnType<typeof kafkajsLoad>> | null = null;
  try {
    await acks.waitFor(10, 0, 'before CreatePartitions', 30_000, [0, 1, 2]);
    const controller = (await c.metadata(c.brokers[0].nodeId)).controllerId;
    const via = c.brokers.find((b) => b.nodeId !== controller)!.nodeId;
    const cl = await c.client(via);
    const res = await cl.send(37, 3, { topics: [{ name: 'widen', count: 6, assignments: null }], timeoutMs: 10_000, validateOnly: false });
    assert.is(res.results[0].errorCode, 0, res.results[0].errorMessage ?? '');
    for (const b of c.brokers) {
      await c.waitForMetadata(b.nodeId, (m) => {
        const t = topicOf(m, 'widen');
        return t?.partitions.length === 6 && t.partitions.every((p) => p.isrNodes.length === 3 && p.leaderId >= 0);
      }, `broker ${b.nodeId} lists 6 partitions in sync`);
    }
    const since = Date.now();
    added = await kafkajsLoad(c, 'widen', 6, acks, 3);
    await acks.waitFor(20, since, 'on every partition after CreatePartitions', 60_000);
  } finally {
    await old.stop();
    await added?.stop();
  }
  await assertNothingLost(c.bootstrap, 'widen', acks);
  const deadline = Date.now() + 60_000;
  const unread = () => [...acks.acked].flatMap(([p, seqs]) => seqs.filter((s) => !consumed.get(p)!.has(s)).map((s) => `${p}:${s}`));
  while (unread().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(unread().slice(0, 10), [], 'the group read every acknowledged record, the new partitions included');
  for (const consumer of consumers) await consumer.disconnect().catch(() => undefined);
});

test.run();
