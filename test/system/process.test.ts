import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { tmpDir } from '../support/tmp.js';
import { run, waitFor } from '../support/external.js';
import { freePort } from '../support/net.js';

const { Kafka, logLevel } = kafkajs;
const MAIN = join(process.cwd(), 'src', 'main.ts');


function startProcess(args: string[], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  let out = '';
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { out += d; });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

test('SIGTERM stops gracefully (exit 0, clean shutdown); a restart serves the same records', async () => {
  const dir = tmpDir('samsa-proc');
  try {
    const port = await freePort();
    const args = ['--override', `listeners=PLAINTEXT://127.0.0.1:${port}`];
    const p1 = startProcess(args, { KAFKA_LOG_DIRS: dir.path, KAFKA_NUM_PARTITIONS: '2' });
    await waitFor(() => p1.output().includes('Samsa started'), { timeoutMs: 20000, description: 'broker start' });
    const kafka = new Kafka({ clientId: 'proc', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 3 } });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'proc', acks: -1, messages: [{ partition: 0, value: 'a' }, { partition: 0, value: 'b' }] });
    await producer.disconnect();
    p1.child.kill('SIGTERM');
    assert.is(await p1.exited, 0, `exit code after SIGTERM; output:\n${p1.output()}`);
    assert.ok(existsSync(join(dir.path, 'proc-1')), 'num.partitions from KAFKA_NUM_PARTITIONS created partition 1');

    const p2 = startProcess(args, { KAFKA_LOG_DIRS: dir.path });
    await waitFor(() => p2.output().includes('Samsa started'), { timeoutMs: 20000, description: 'broker restart' });
    const admin = new Kafka({ clientId: 'proc', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const offsets = await admin.fetchTopicOffsets('proc');
    await admin.disconnect();
    const p0 = offsets.find((o) => o.partition === 0)!;
    assert.is(p0.high, '2');
    p2.child.kill('SIGINT');
    assert.is(await p2.exited, 0);
  } finally {
    dir.cleanup();
  }
});

test('an unknown setting stops start-up with a message naming it', async () => {
  const r = await run(process.execPath, ['--import', 'tsx', MAIN, '--override', 'log.dirz=/tmp/x'], { timeoutMs: 20000 });
  assert.is(r.code, 2);
  assert.match(r.stderr, /log\.dirz/);
  assert.match(r.stderr, /did you mean 'log\.dirs'/);
});

test('an unknown KAFKA_ environment variable is refused like any unknown setting', async () => {
  const r = await run(process.execPath, ['--import', 'tsx', MAIN], { timeoutMs: 20000, env: { ...process.env, KAFKA_NUM_PARTITIONZ: '3' } });
  assert.is(r.code, 2);
  assert.match(r.stderr, /num\.partitionz/);
});

test('a port in use is reported with what to do', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', () => resolve()));
  const port = (blocker.address() as { port: number }).port;
  const dir = tmpDir('samsa-port');
  try {
    const r = await run(process.execPath, ['--import', 'tsx', MAIN, '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`, '--override', `log.dirs=${dir.path}`], { timeoutMs: 20000 });
    assert.is(r.code, 2);
    assert.match(r.stderr, /port already in use/);
  } finally {
    blocker.close();
    dir.cleanup();
  }
});

test('the environment of an apache/kafka docker-compose file starts Samsa unchanged', async () => {
  const dir = tmpDir('samsa-compose');
  try {
    const port = await freePort();
    const ctrl = await freePort();
    const env = {
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: `PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${ctrl}`,
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://localhost:${port}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: `1@localhost:${ctrl}`,
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_NUM_PARTITIONS: '3',
      KAFKA_LOG_DIRS: dir.path,
      CLUSTER_ID: '4L6g3nShT-eMCtK--X86sw',
    };
    const p = startProcess([], env);
    await waitFor(() => p.output().includes('Samsa started'), { timeoutMs: 20000, description: 'broker start' });
    assert.match(p.output(), /cluster 4L6g3nShT-eMCtK--X86sw/);
    const admin = new Kafka({ clientId: 'compose', brokers: [`localhost:${port}`], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const cluster = await admin.describeCluster();
    await admin.createTopics({ topics: [{ topic: 'compose' }] });
    const md = await admin.fetchTopicMetadata({ topics: ['compose'] });
    await admin.disconnect();
    assert.equal(cluster.brokers.map((x) => `${x.host}:${x.port}`), [`localhost:${port}`]);
    assert.is(md.topics[0].partitions.length, 3, 'KAFKA_NUM_PARTITIONS applies');
    p.child.kill('SIGTERM');
    assert.is(await p.exited, 0);
  } finally {
    dir.cleanup();
  }
});

test.run();
