// A replica moved between two log dirs of one broker (AlterReplicaLogDirs; Kafka's `-future` log
// and ReplicaAlterLogDirsThread, storage/log-dir-move.ts), with Kafka 4.4's own tools: a broker
// with two log dirs holds a partition with a few MB in it while an idempotent kafkajs producer
// (acks=all) keeps writing; kafka-reassign-partitions (ReassignPartitionsCommand) --execute with
// `log_dirs` naming the other dir and --replica-alter-log-dirs-throttle (which sets
// replica.alter.log.dirs.io.max.bytes.per.second on the broker, so the copy takes a while);
// kafka-log-dirs (LogDirsCommand) shows the future replica (isFuture) in the new dir while it
// copies; --verify until complete. Then the partition lives in the new dir only, a consumer reads
// every acknowledged record exactly once and in order, and after a restart the broker reads it
// from the new dir.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { kafkaTool } from '../support/kafka-tools.js';

const { Kafka, logLevel, ConfigResourceTypes } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing() ?? javaMissing();
if (missing && IN_CI) throw new Error(`log-dir-move: etcd and java are required under CI: ${missing}`);

const root = mkdtempSync(join(tmpdir(), 'samsa-dirmove-'));
const dirA = join(root, 'a');
const dirB = join(root, 'b');
let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 1, brokerConfig: () => ({ 'log.dirs': `${dirA},${dirB}`, 'log.segment.bytes': 1048576 }) });
});

test.after(async () => {
  await c?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

const TOPIC = 'dirmove';

interface LogDirsJson {
  brokers: { broker: number; logDirs: { logDir: string; error: string | null; partitions: { partition: string; size: number; offsetLag: number; isFuture: boolean }[] }[] }[];
}

test('kafka-reassign-partitions moves a replica to the other log dir while a producer writes: isFuture while it copies, then the new dir only, every record once, and after a restart', async () => {
  if (!c) return void console.log(`skipped: ${missing}`);
  try {
    await scenario(c);
  } catch (e) {
    console.log(`broker output:\n${c.broker(1).output().slice(-8000)}`);
    throw e;
  }
});

async function scenario(c: TestCluster): Promise<void> {
  const bootstrap = `127.0.0.1:${c.broker(1).port}`;
  const java = (main: string, ...args: string[]) => kafkaTool(main, ['--bootstrap-server', bootstrap, ...args], { timeoutMs: 90_000 });
  const kafka = new Kafka({ clientId: 'dirmove', brokers: c.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 1 }], waitForLeaders: true });
  const from = existsSync(join(dirA, `${TOPIC}-0`)) ? dirA : dirB;
  const to = from === dirA ? dirB : dirA;
  assert.ok(existsSync(join(from, `${TOPIC}-0`)));

  // A few MB first, so that the throttled copy lasts long enough to be seen.
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  const acked: string[] = [];
  const filler = 'x'.repeat(10_000);
  for (let i = 0; i < 60; i++) {
    const messages = Array.from({ length: 10 }, (_, j) => ({ partition: 0, value: `pre${i * 10 + j}-${filler}` }));
    await producer.send({ topic: TOPIC, acks: -1, messages });
    acked.push(...messages.map((m) => m.value));
  }
  let stop = false;
  let n = 0;
  const writing = (async () => {
    while (!stop) {
      const value = `live${n++}`;
      await producer.send({ topic: TOPIC, acks: -1, messages: [{ partition: 0, value }] });
      acked.push(value);
      // Slower than the throttle: a producer writing faster than a move may copy keeps it from
      // ever catching up, in Kafka as here.
      await new Promise((r) => setTimeout(r, 10));
    }
  })();

  // The throttle in effect on the broker before the copy starts (--execute sets it too, but its
  // copy must not race the broker's view of the config): about 30 s for the 6 MB.
  const RATE = 'replica.alter.log.dirs.io.max.bytes.per.second';
  await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configEntries: [{ name: RATE, value: '200000' }] }] });
  await until('the throttle applied', 20_000, async () => {
    const d = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER, name: '1', configNames: [RATE] }] });
    return d.resources[0].configEntries.find((e) => e.configName === RATE)?.configValue === '200000' ? true : null;
  });

  const plan = join(root, 'plan.json');
  writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: TOPIC, partition: 0, replicas: [1], log_dirs: [to] }] }));
  const reassign = (...args: string[]) => java('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', '--reassignment-json-file', plan, ...args);
  const exec = await reassign('--execute', '--replica-alter-log-dirs-throttle', '200000');
  assert.is(exec.code, 0, exec.stdout + exec.stderr);
  assert.ok(exec.stdout.includes(`Successfully started moving log directory to ${to} for replica ${TOPIC}-0 with broker 1`), exec.stdout);

  // kafka-log-dirs while it copies: the current replica in its dir, the future one in the other.
  const describe = async (): Promise<{ dir: string; future: boolean; lag: number }[]> => {
    const r = await java('org.apache.kafka.tools.LogDirsCommand', '--describe', '--topic-list', TOPIC);
    assert.is(r.code, 0, r.stdout + r.stderr);
    const json = JSON.parse(r.stdout.split('\n').find((l) => l.startsWith('{'))!) as LogDirsJson;
    return json.brokers.flatMap((b) => b.logDirs.flatMap((d) => d.partitions.map((p) => ({ dir: d.logDir, future: p.isFuture, lag: p.offsetLag }))));
  };
  const during = await describe();
  assert.equal(during.map((p) => [p.dir, p.future]).sort(), [[from, false], [to, true]].sort(), JSON.stringify(during));
  assert.ok(during.find((p) => p.future)!.lag > 0, 'the future replica lags the current one');

  let verify = await reassign('--verify');
  while (!verify.stdout.includes(`Reassignment of replica ${TOPIC}-0-1 completed successfully`)) {
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
    assert.match(verify.stdout, `Reassignment of replica ${TOPIC}-0-1 is still in progress`);
    await new Promise((r) => setTimeout(r, 1000));
    verify = await reassign('--verify');
  }
  // --verify clears the throttle once the move is complete.
  assert.match(verify.stdout, /Clearing broker-level throttles on brokers? 1/);

  const before = n;
  await until('records acknowledged after the move', 30_000, async () => (n > before + 20 ? true : null));
  stop = true;
  await writing;
  await producer.disconnect();

  assert.equal(await describe(), [{ dir: to, future: false, lag: 0 }]);
  assert.ok(existsSync(join(to, `${TOPIC}-0`)), 'the partition is in the new dir');
  await until('the old copy removed', 30_000, async () => (readdirSync(from).some((name) => name.startsWith(`${TOPIC}-0`)) ? null : true));
  assert.equal(readdirSync(to).filter((name) => name.startsWith(`${TOPIC}-0`)), [`${TOPIC}-0`]);
  assert.ok(n > 20, `${n} records written while moving`);

  const readAll = async (group: string): Promise<string[]> => {
    const consumer = kafka.consumer({ groupId: group });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => { seen.push(message.value!.toString()); } });
    try {
      await until(`${acked.length} records consumed (${group})`, 60_000, async () => (seen.length >= acked.length ? true : null));
      await new Promise((r) => setTimeout(r, 500));
    } finally {
      await consumer.disconnect();
    }
    return seen;
  };
  const short = (v: string) => v.slice(0, 12);
  const first = await readAll('dirmove-check');
  assert.equal(first.map(short), acked.map(short), 'every acknowledged record once, in order');

  // A restart reads the partition from its new dir.
  await admin.disconnect();
  await c.stop(1);
  await c.start(1);
  const admin2 = kafka.admin();
  await admin2.connect();
  assert.equal(await describe(), [{ dir: to, future: false, lag: 0 }]);
  const offsets = await admin2.fetchTopicOffsets(TOPIC);
  assert.is(Number(offsets[0].high), acked.length);
  await admin2.disconnect();
  const again = await readAll('dirmove-after-restart');
  assert.equal(again.map(short), acked.map(short));
  assert.not.ok(readdirSync(from).some((name) => name.startsWith(`${TOPIC}-0`)));
}

test.run();
