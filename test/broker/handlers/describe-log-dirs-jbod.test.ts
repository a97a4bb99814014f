// DescribeLogDirs on a broker with several log dirs, one of them failed at start-up (a file where
// the dir should be): every dir listed in log.dirs order with its own partitions, the failed one
// KAFKA_STORAGE_ERROR; Kafka 4.4's kafka-log-dirs.sh (LogDirsCommand) shows the same.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { run } from '../../support/external.js';
import { JVM_OPTS, javaBin, javaMissing, kafkaJars } from '../../../tools/kafka/kafka.js';
import { WireClient } from './_admin-wire.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const root = mkdtempSync(join(tmpdir(), 'samsa-jbod-'));
const dirs = [join(root, 'a'), join(root, 'broken'), join(root, 'b')];
writeFileSync(dirs[1], 'not a directory');
let b: RunningBroker;
let c: WireClient;

test.before(async () => {
  b = await startBroker({ storage: { dir: dirs[0] }, 'log.dirs': dirs.join(','), 'node.id': 1 });
  c = await WireClient.connect(b.port);
  await b.broker.createTopic({ name: 'jb', numPartitions: 4, replicationFactor: 1, configs: {} });
  for (let p = 0; p < 4; p++) {
    const log = b.broker.getLog('jb', p)!;
    await log.appendAsLeader(buildRecordBatch({ records: Array.from({ length: p + 1 }, () => ({ key: null, value: Buffer.alloc(50, p) })) }), 0);
  }
});

test.after(async () => {
  c?.close();
  await b?.stop();
  rmSync(root, { recursive: true, force: true });
});

test('every dir of log.dirs: partitions spread over the two that work, the failed one KAFKA_STORAGE_ERROR', async () => {
  const r = await c.send(35, 4, { topics: null });
  assert.equal(r.results.map((d) => [d.logDir, d.errorCode]), [[dirs[0], ErrorCode.NONE], [dirs[1], ErrorCode.KAFKA_STORAGE_ERROR], [dirs[2], ErrorCode.NONE]]);
  const parts = (i: number) => r.results[i].topics.filter((t) => t.name === 'jb').flatMap((t) => t.partitions.map((p) => p.partitionIndex)).sort();
  assert.equal(parts(0).length + parts(2).length, 4);
  assert.equal(Math.abs(parts(0).length - parts(2).length), 0, 'two and two');
  assert.equal(r.results[1].topics, []);
  assert.is(r.results[1].totalBytes, -1n);
  assert.ok(r.results[0].totalBytes > 0n && r.results[2].usableBytes > 0n);
  for (const i of [0, 2]) {
    for (const t of r.results[i].topics) {
      for (const p of t.partitions) {
        const log = b.broker.getLog(t.name, p.partitionIndex)!;
        assert.ok(log.dir.startsWith(dirs[i] + '/'), `${t.name}-${p.partitionIndex} lives in ${dirs[i]}`);
        assert.is(p.partitionSize, BigInt(log.sizeBytes));
      }
    }
  }
  const listed = await c.send(35, 1, { topics: [{ topic: 'jb', partitions: [3] }] });
  assert.equal(listed.results.map((d) => d.topics.flatMap((t) => t.partitions.map((p) => p.partitionIndex))), dirs.map((d) => (b.broker.getLog('jb', 3)!.dir.startsWith(d + '/') ? [3] : [])));
});

test('kafka-log-dirs.sh --describe (Kafka 4.4) lists both dirs with their partitions and the failed one with its error', async () => {
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`java is required under CI: ${missingJava}`);
    return void console.log(`skipped: ${missingJava}`);
  }
  const out = await run(javaBin(), [...JVM_OPTS, '-cp', kafkaJars().classpath, 'org.apache.kafka.tools.LogDirsCommand', '--describe',
    '--bootstrap-server', `127.0.0.1:${b.port}`, '--broker-list', '1', '--topic-list', 'jb'], { timeoutMs: 90_000 });
  assert.is(out.code, 0, out.stdout + out.stderr);
  const json = JSON.parse(out.stdout.split('\n').find((l) => l.startsWith('{'))!);
  const logDirs = json.brokers[0].logDirs as { logDir: string; error: string | null; partitions: { partition: string; size: number; isFuture: boolean }[] }[];
  const byDir = new Map(logDirs.map((d) => [d.logDir, d]));
  assert.equal([...byDir.keys()].sort(), [...dirs].sort());
  assert.match(String(byDir.get(dirs[1])!.error), /KafkaStorageException/);
  assert.is(byDir.get(dirs[0])!.error, null);
  const all = [dirs[0], dirs[2]].flatMap((d) => byDir.get(d)!.partitions.map((p) => p.partition)).sort();
  assert.equal(all, ['jb-0', 'jb-1', 'jb-2', 'jb-3']);
  const p3 = [dirs[0], dirs[2]].flatMap((d) => byDir.get(d)!.partitions).find((p) => p.partition === 'jb-3')!;
  assert.is(p3.size, b.broker.getLog('jb', 3)!.sizeBytes);
  assert.is(p3.isFuture, false);
});

test.run();
