/**
 * Partition retirement with the Java client and librdkafka (confluent-kafka 2.x), the behaviour
 * docs/running.md states (src/cluster/partition-retirement.ts): a topic of 6 partitions with
 * partitions 4-5 retired before the producers start.
 * - Java (kafka-clients, BuiltInPartitioner): keyless records all go to partitions 0-3, none
 *   fails; keyed records whose key maps to 4-5 are never sent and fail with the client's
 *   TimeoutException (the partition has no leader for it), the others are written.
 * - librdkafka: its random and sticky partitioners try twice for an available partition and
 *   partition the records queued before the first Metadata answer without knowing which are
 *   available, so some keyless records are put on a retired partition and time out there; none
 *   is ever written to it.
 * - Consumers of a new group, started after the retirement (their first Metadata shows the
 *   retired partitions without a leader), read every partition: Java (classic and KIP-848
 *   protocols) and librdkafka.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { topicsCommand } from '../../src/cli/commands.js';
import { javaBin, javaMissing, kafkaJars } from '../../tools/kafka/kafka.js';
import { CLIENT_JVM_OPTS, javaProgram } from '../../tools/kafka/java-classes.js';
import { VENV_PYTHON } from '../support/external.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => execFile(cmd, args, { timeout: 90_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))));
}

async function retiredTopic(b: RunningBroker, name: string): Promise<void> {
  const io = { out: () => {}, err: () => {}, stdin: process.stdin, progress: false };
  assert.is(await topicsCommand(['create', name, '--partitions', '6', '-b', b.bootstrap], io), 0);
  assert.is(await topicsCommand(['retire-partitions', name, '--keep', '4', '-b', b.bootstrap], io), 0);
}

const ends = (b: RunningBroker, topic: string) => Array.from({ length: 6 }, (_, p) => b.broker.replicaManager.getPartition(topic, p)!.log.logEndOffset);

test('Java client: keyless records avoid retired partitions with no error; keyed ones for them fail unsent', async () => {
  const missing = javaMissing();
  if (missing) {
    if (IN_CI) throw new Error(`partition-retirement-clients: Java is required under CI: ${missing}`);
    return console.log('partition-retirement-clients (Java): skipped:', missing);
  }
  const jars = kafkaJars();
  const b = await startBroker({ port: 0, config: { 'log.retention.check.interval.ms': 3_600_000 } });
  try {
    await retiredTopic(b, 'rj');
    const [retirement, drain] = await Promise.all(['RetirementProbe.java', 'DrainProbe.java'].map((f) => javaProgram(join(process.cwd(), 'test', 'e2e', 'retirement', f), jars.classpath)));
    const probe = (keyed: boolean) => run(javaBin(), [...CLIENT_JVM_OPTS, '-cp', retirement.classpath, retirement.main, b.bootstrap, 'rj', '200', ...(keyed ? ['keyed'] : [])]);
    const keyless = await probe(false);
    assert.match(keyless, /ERRORS 0 /, keyless);
    assert.equal(ends(b, 'rj').slice(4), [0, 0], keyless);
    assert.is(ends(b, 'rj').reduce((a, x) => a + x, 0), 200);
    const keyed = await probe(true);
    const failed = Number(/ERRORS (\d+)/.exec(keyed)![1]);
    assert.ok(failed > 0 && failed < 200, keyed);
    assert.match(keyed, /TimeoutException/, keyed);
    assert.equal(ends(b, 'rj').slice(4), [0, 0], 'no keyed record on a retired partition');
    assert.is(ends(b, 'rj').reduce((a, x) => a + x, 0), 400 - failed, 'every other keyed record is written');
    await fillRetired(b, 'rj');
    const want = ends(b, 'rj').map((n, p) => `${p}=${n},`).join('');
    for (const protocol of [[], ['consumer']]) {
      const drained = await run(javaBin(), [...CLIENT_JVM_OPTS, '-cp', drain.classpath, drain.main, b.bootstrap, 'rj', `drain-${protocol.length}`, String(400 - failed + 12), ...protocol]);
      assert.match(drained, `CONSUMED ${want}`, `a new ${protocol[0] ?? 'classic'} group reads every partition: ${drained}`);
    }
  } finally {
    await b.stop();
  }
});

const PY = `
import sys
from confluent_kafka import Producer
fails = [0]
def cb(err, msg):
    if err: fails[0] += 1
p = Producer({'bootstrap.servers': sys.argv[1], 'message.timeout.ms': 5000, 'linger.ms': 5})
for i in range(300):
    p.produce(sys.argv[2], value=b'v%d' % i, on_delivery=cb)
    p.poll(0)
p.flush(30)
print('FAILED', fails[0])
`;

const DRAIN_PY = `
import sys, time
from confluent_kafka import Consumer
c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': 'drain', 'auto.offset.reset': 'earliest'})
c.subscribe([sys.argv[2]])
parts = {}
deadline = time.time() + 30
while sum(parts.values()) < int(sys.argv[3]) and time.time() < deadline:
    m = c.poll(0.5)
    if m is None or m.error(): continue
    parts[m.partition()] = parts.get(m.partition(), 0) + 1
c.close()
print('CONSUMED', ','.join('%d=%d' % kv for kv in sorted(parts.items())))
`;

/** Six records each on partitions 4 and 5, appended below the retirement (as if from before it). */
async function fillRetired(b: RunningBroker, topic: string): Promise<void> {
  const { buildRecordBatch } = await import('../../src/protocol/records/record.js');
  for (const p of [4, 5]) {
    const log = b.broker.replicaManager.getPartition(topic, p)!.log;
    await log.appendAsLeader(buildRecordBatch({ records: Array.from({ length: 6 }, (_, i) => ({ key: null, value: Buffer.from(`old${i}`) })) }), 0);
  }
}

test('librdkafka: no keyless record is ever written to a retired partition; the ones it put there time out', async () => {
  if (!existsSync(VENV_PYTHON)) {
    if (IN_CI) throw new Error(`partition-retirement-clients: ${VENV_PYTHON} is required under CI`);
    return console.log('partition-retirement-clients (librdkafka): skipped: no', VENV_PYTHON);
  }
  const b = await startBroker({ port: 0, config: { 'log.retention.check.interval.ms': 3_600_000 } });
  try {
    await retiredTopic(b, 'rl');
    const out = await run(VENV_PYTHON, ['-c', PY, b.bootstrap, 'rl']);
    const failed = Number(/FAILED (\d+)/.exec(out)![1]);
    assert.equal(ends(b, 'rl').slice(4), [0, 0], out);
    assert.is(ends(b, 'rl').reduce((a, x) => a + x, 0), 300 - failed, out);
    assert.ok(failed < 300, `most records went to partitions 0-3 (${out.trim()})`);
    // Records on the retired partitions from before the retirement: a new group reads them all.
    await fillRetired(b, 'rl');
    const drained = await run(VENV_PYTHON, ['-c', DRAIN_PY, b.bootstrap, 'rl', String(300 - failed + 12)]);
    assert.match(drained, /4=6,5=6/, drained);
  } finally {
    await b.stop();
  }
});

test.run();
