/**
 * Partition retirement on three brokers (src/cluster/partition-retirement.ts), replication factor
 * 3, min.insync.replicas 2, under a keyless kafkajs acks=all load with a kafkajs consumer group
 * reading all along:
 * - `samsa topics retire-partitions retire --keep 4`: the producer moves to partitions 0-3 (no
 *   acknowledgement on 4-5 once the retirement is in every broker's metadata), the consumers
 *   still read 4-5 to their end, the checker finds nothing lost, duplicated or reordered;
 * - once retention has emptied them (retention.ms set short) and the group has committed past
 *   their end, the controller deletes partitions 4-5: every broker's Metadata lists 0-3, the
 *   replicas' log directories are gone, samsa.partitions.keep is removed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { Acks, assertNothingLost, createTopic, topicOf, type Load } from '../support/checker.js';
import { topicsCommand } from '../../src/cli/commands.js';
import { PARTITIONS_KEEP } from '../../src/cluster/partition-retirement.js';

const { Kafka, logLevel, Partitioners } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`partition-retirement: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3, config: { 'min.insync.replicas': 2, 'log.retention.check.interval.ms': 500 } });
});

test.after(async () => {
  await c?.cleanup();
});

/** One idempotent keyless kafkajs producer, acks=all, one send at a time ("k:<seq>"). */
async function keylessLoad(cl: TestCluster, topic: string, acks: Acks): Promise<Load> {
  let stopped = false;
  const kafka = new Kafka({ clientId: `${topic}-keyless`, brokers: cl.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 60, initialRetryTime: 100, maxRetryTime: 1000 }, requestTimeout: 10_000 });
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const loop = (async () => {
    for (let seq = 0; !stopped; seq++) {
      try {
        const [meta] = await producer.send({ topic, acks: -1, timeout: 10_000, messages: [{ value: `k:${seq}` }] });
        acks.ack(meta.partition, seq);
      } catch (e) {
        acks.failures++;
        acks.firstError ??= `${(e as Error).name}: ${(e as Error).message}`;
        acks.lastError = `${(e as Error).name}: ${(e as Error).message}`;
      }
    }
  })();
  return { acks, async stop() { stopped = true; await loop; await producer.disconnect().catch(() => undefined); } };
}

async function cli(args: string[]): Promise<string> {
  let said = '';
  const code = await topicsCommand(args, { out: (s) => { said += s; }, err: (s) => { said += s; }, stdin: process.stdin, progress: false });
  assert.is(code, 0, said);
  return said;
}

test('retire two partitions of a keyless topic under load: producers move, consumers drain them, they are deleted after retention', async () => {
  if (!c) return console.log('partition-retirement: skipped:', missing);
  await createTopic(c, 'retire', 6);
  const acks = new Acks(6);
  const load = await keylessLoad(c, 'retire', acks);
  const consumed = new Map<number, Set<number>>(Array.from({ length: 6 }, (_, p) => [p, new Set<number>()]));
  const kafka = new Kafka({ clientId: 'retire-drain', brokers: c.bootstrapList, logLevel: logLevel.NOTHING });
  const consumers = [0, 1].map(() => kafka.consumer({ groupId: 'drainers', maxWaitTimeInMs: 200, sessionTimeout: 10_000, heartbeatInterval: 1000 }));
  let since = 0;
  try {
    for (const consumer of consumers) {
      await consumer.connect();
      await consumer.subscribe({ topic: 'retire', fromBeginning: true });
      await consumer.run({ autoCommitInterval: 300, eachMessage: async ({ partition, message }) => void consumed.get(partition)!.add(Number(message.value!.toString().split(':')[1])) });
    }
    await acks.waitFor(10, 0, 'before the retirement');

    const said = await cli(['retire-partitions', 'retire', '--keep', '4', '-b', c.bootstrap]);
    assert.match(said, /partitions 4-5 retired/);
    for (const b of c.brokers) {
      await c.waitForMetadata(b.nodeId, (m) => topicOf(m, 'retire')?.partitions.length === 6, `broker ${b.nodeId} still lists the retired partitions`);
    }
    since = Date.now();
    await acks.waitFor(30, since, 'on partitions 0-3 after the retirement', 60_000, [0, 1, 2, 3]);
  } finally {
    await load.stop();
  }
  const late = acks.countSince(since + 1000, [4, 5]);
  assert.equal([...late.values()], [0, 0], `acknowledgements on retired partitions after the retirement: ${JSON.stringify([...late])}`);
  assert.ok(acks.acked.get(4)!.length > 0 && acks.acked.get(5)!.length > 0, 'the retired partitions had records to drain');
  await assertNothingLost(c.bootstrap, 'retire', acks);

  // The group reads every acknowledged record, the retired partitions' included.
  const deadline = Date.now() + 30_000;
  const missingOf = () => [...acks.acked].flatMap(([p, seqs]) => seqs.filter((s) => !consumed.get(p)!.has(s)).map((s) => `${p}:${s}`));
  while (missingOf().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.equal(missingOf().slice(0, 10), [], 'every acknowledged record was consumed');
  assert.is(c.brokers.length, 3);

  // Retention empties the logs; the group has committed past the end: partitions 4-5 go.
  const admin = kafka.admin();
  await admin.connect();
  try {
    const cl = await c.client(c.brokers[0].nodeId);
    const res = await cl.send(44, 1, { resources: [{ resourceType: 2, resourceName: 'retire', configs: [{ name: 'retention.ms', configOperation: 0, value: '1' }] }], validateOnly: false });
    assert.is(res.responses[0].errorCode, 0, res.responses[0].errorMessage ?? '');
    for (const b of c.brokers) {
      await c.waitForMetadata(b.nodeId, (m) => topicOf(m, 'retire')?.partitions.length === 4, `broker ${b.nodeId} lists 4 partitions`, 60_000);
    }
    const md = topicOf(await c.metadata(c.brokers[1].nodeId, ['retire']), 'retire')!;
    assert.equal(md.partitions.map((p) => p.partitionIndex).sort(), [0, 1, 2, 3]);
    const described = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: 2, name: 'retire' }] });
    assert.is(described.resources[0].configEntries.find((e) => e.configName === PARTITIONS_KEEP), undefined, 'samsa.partitions.keep is removed with the last retired partition');
    const gone = async () => c!.brokers.every((b) => !existsSync(join(b.logDir, 'retire-4')) && !existsSync(join(b.logDir, 'retire-5')));
    const until = Date.now() + 20_000;
    while (!(await gone()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    assert.ok(await gone(), 'every replica of partitions 4-5 deleted its log');
  } finally {
    await admin.disconnect();
    for (const consumer of consumers) await consumer.disconnect().catch(() => undefined);
  }
});

test.run();
