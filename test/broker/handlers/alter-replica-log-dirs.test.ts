// AlterReplicaLogDirs (key 34) on a broker with two working log dirs and a failed one: Kafka's
// error codes, new replicas created in the dir asked for, no move while a dir is offline, and
// Kafka 4.4's kafka-reassign-partitions with log_dirs in its plan; on a broker with two healthy
// dirs, a replica moved between them (the future replica in DescribeLogDirs until the swap).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { javaMissing } from '../../../tools/kafka/kafka.js';
import { WireClient } from './_admin-wire.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { kafkaTool } from '../../support/kafka-tools.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const root = mkdtempSync(join(tmpdir(), 'samsa-arld-'));
const [a, broken, b] = [join(root, 'a'), join(root, 'broken'), join(root, 'b')];
writeFileSync(broken, 'not a directory');
let broker: RunningBroker;
let c: WireClient;

test.before(async () => {
  broker = await startBroker({ storage: { dir: a }, 'log.dirs': [a, broken, b].join(','), 'node.id': 1 });
  c = await WireClient.connect(broker.port);
  await broker.broker.createTopic({ name: 'arld', numPartitions: 2, replicationFactor: 1, configs: {} });
});

test.after(async () => {
  c?.close();
  await broker?.stop();
  rmSync(root, { recursive: true, force: true });
});

const dirOf = (topic: string, p: number) => broker.broker.logs.logDirOf(topic, p)?.path;
const codes = (r: { results: { topicName: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }) =>
  r.results.flatMap((t) => t.partitions.map((p) => [`${t.topicName}-${p.partitionIndex}`, p.errorCode]));

test('error codes: already there NONE, unknown dir LOG_DIR_NOT_FOUND, offline dir KAFKA_STORAGE_ERROR, no such partition yet UNKNOWN_TOPIC_OR_PARTITION', async () => {
  const here = dirOf('arld', 0)!;
  const other = here === a ? b : a;
  const r = await c.send(34, 2, {
    dirs: [
      { path: here, topics: [{ name: 'arld', partitions: [0] }] },
      { path: join(root, 'nope'), topics: [{ name: 'arld', partitions: [1] }] },
      { path: broken, topics: [{ name: 'arld-later', partitions: [0] }] },
      { path: other, topics: [{ name: 'arld-later', partitions: [1, 2] }] },
    ],
  });
  assert.equal(codes(r), [
    ['arld-0', ErrorCode.NONE], ['arld-1', ErrorCode.LOG_DIR_NOT_FOUND],
    ['arld-later-0', ErrorCode.KAFKA_STORAGE_ERROR], ['arld-later-1', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION], ['arld-later-2', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
  ]);
  // The replicas asked for are created in that dir, whatever nextLogDirs would say.
  await broker.broker.createTopic({ name: 'arld-later', numPartitions: 4, replicationFactor: 1, configs: {} });
  assert.equal([dirOf('arld-later', 1), dirOf('arld-later', 2)], [other, other]);
  // No move while a log dir is offline (Kafka makes no future log then): KAFKA_STORAGE_ERROR, the log stays.
  const v1 = await c.send(34, 1, { dirs: [{ path: other, topics: [{ name: 'arld', partitions: [0] }] }] });
  assert.equal(codes(v1), [['arld-0', ErrorCode.KAFKA_STORAGE_ERROR]]);
  assert.is(dirOf('arld', 0), here);
  assert.is(broker.broker.logs.logDirMove('arld', 0), undefined);
  // The last dir named for a partition wins.
  const twice = await c.send(34, 2, { dirs: [{ path: join(root, 'nope'), topics: [{ name: 'arld', partitions: [0] }] }, { path: here, topics: [{ name: 'arld', partitions: [0] }] }] });
  assert.equal(codes(twice), [['arld-0', ErrorCode.NONE]]);
});

test('kafka-reassign-partitions (Kafka 4.4) with log_dirs: AlterReplicaLogDirs answers, --verify reports the replica in its dir', async () => {
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`java is required under CI: ${missingJava}`);
    return void console.log(`skipped: ${missingJava}`);
  }
  const plan = join(root, 'plan.json');
  writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'arld', partition: 1, replicas: [1], log_dirs: [dirOf('arld', 1)] }] }));
  const tool = (...args: string[]) => kafkaTool('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', [
    '--bootstrap-server', `127.0.0.1:${broker.port}`, '--reassignment-json-file', plan, ...args], { timeoutMs: 90_000 });
  const exec = await tool('--execute');
  assert.is(exec.code, 0, exec.stdout + exec.stderr);
  assert.ok(exec.stdout.includes(`Successfully started moving log directory to ${dirOf('arld', 1)} for replica arld-1 with broker 1`), exec.stdout);
  const verify = await tool('--verify');
  assert.is(verify.code, 0, verify.stdout + verify.stderr);
  assert.match(verify.stdout, new RegExp(`Reassignment of replica arld-1-1 completed successfully`));
});

test('two healthy dirs: the replica moves; DescribeLogDirs shows the future replica (is_future_key, offset_lag) until the swap, then the replica in its new dir', async () => {
  const root2 = mkdtempSync(join(tmpdir(), 'samsa-arld-move-'));
  const [x, y] = [join(root2, 'x'), join(root2, 'y')];
  const b2 = await startBroker({ storage: { dir: x }, 'log.dirs': [x, y].join(','), 'node.id': 1 });
  const c2 = await WireClient.connect(b2.port);
  try {
    await b2.broker.createTopic({ name: 'mv', numPartitions: 1, replicationFactor: 1, configs: {} });
    const logs = b2.broker.logs;
    const log = logs.getLog('mv', 0)!;
    for (let i = 0; i < 50; i++) {
      await log.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.alloc(100, i), timestamp: BigInt(Date.now()) }] }), log.leaderEpochCache.latestEpoch());
    }
    const from = logs.logDirOf('mv', 0)!.path;
    const to = from === x ? y : x;
    // Held by the throttle (one batch per 10 s) until the future replica has been described.
    logs.alterLogDirsMaxBytesPerSecond = () => 10;
    const r = await c2.send(34, 2, { dirs: [{ path: to, topics: [{ name: 'mv', partitions: [0] }] }] });
    assert.equal(codes(r), [['mv-0', ErrorCode.NONE]]);
    const again = await c2.send(34, 1, { dirs: [{ path: to, topics: [{ name: 'mv', partitions: [0] }] }] });
    assert.equal(codes(again), [['mv-0', ErrorCode.NONE]], 'the same destination again');
    type Described = { results: { logDir: string; topics: { name: string; partitions: { partitionIndex: number; offsetLag: bigint; isFutureKey: boolean; partitionSize: bigint }[] }[] }[] };
    const where = async () => {
      const d = (await c2.send(35, 4, { topics: [{ topic: 'mv', partitions: [0] }] })) as Described;
      return d.results.flatMap((res) => res.topics.flatMap((t) => t.partitions.map((p) => ({ dir: res.logDir, future: p.isFutureKey, lag: Number(p.offsetLag) }))));
    };
    const during = await where();
    assert.equal(during.filter((p) => !p.future).map((p) => p.dir), [from]);
    const future = during.filter((p) => p.future);
    assert.equal(future.map((p) => p.dir), [to]);
    assert.ok(future[0].lag > 0 && future[0].lag <= 50, `offset_lag ${future[0].lag}`);
    logs.alterLogDirsMaxBytesPerSecond = () => Infinity;
    let after = await where();
    for (let i = 0; i < 500 && (after.length !== 1 || after[0].future || after[0].dir !== to); i++) {
      await new Promise((res) => setTimeout(res, 20));
      after = await where();
    }
    assert.equal(after, [{ dir: to, future: false, lag: 0 }]);
    assert.is(logs.getLog('mv', 0), log, 'the same log, in its new dir');
    assert.is(log.dir, join(to, 'mv-0'));
    assert.is(log.logEndOffset, 50);
  } finally {
    c2.close();
    await b2.stop();
    rmSync(root2, { recursive: true, force: true });
  }
});

test.run();
