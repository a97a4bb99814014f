/**
 * The on-disk layout after a clean stop, Samsa against a real Apache Kafka 4.4 (tools/kafka): the
 * same topic (two partitions, three records in partition 0) written to both, both stopped with
 * SIGTERM, then compared file by file:
 * - the per-log-dir files both write (recovery-point-offset-checkpoint, log-start-offset-checkpoint,
 *   replication-offset-checkpoint, .kafka_cleanshutdown, meta.properties) and, for the topic's
 *   partitions, the same checkpoint entries in the same format;
 * - the same file names in each partition directory;
 * - Kafka's own DumpLogSegments reads Samsa's segment and its offset index.
 * Where Kafka cannot run here the Kafka side is skipped with one line (test/support/kafka.ts).
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { startBroker } from '../../src/testing/start-broker.js';
import { kafkaOrSkip } from '../support/kafka.js';
import { JVM_OPTS, javaBin, kafkaJars } from '../../tools/kafka/kafka.js';

const TOPIC = 'layout';
const SHARED = ['.kafka_cleanshutdown', 'log-start-offset-checkpoint', 'meta.properties', 'recovery-point-offset-checkpoint', 'replication-offset-checkpoint'];

async function writeTopic(bootstrap: string): Promise<void> {
  const kafka = new Kafka({ brokers: [bootstrap], clientId: 'layout-test', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2, replicationFactor: 1 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, acks: -1, messages: [0, 1, 2].map((i) => ({ partition: 0, key: `k${i}`, value: `v${i}` })) });
  await producer.disconnect();
}

/** The entries of one checkpoint file for TOPIC, checking Kafka's header lines on the way. */
function entries(file: string): string[] {
  const l = nodefs.readFileSync(file, 'utf8').split('\n');
  assert.is(l[0], '0', `${file}: version`);
  assert.is(Number(l[1]), l.length - 3, `${file}: count`);
  return l.slice(2, -1).filter((e) => e.startsWith(`${TOPIC} `)).sort();
}

test('after a clean stop Samsa\'s log dir has Kafka\'s files, entries and partition directories; Kafka\'s DumpLogSegments reads its segment', async () => {
  const samsaDir = nodefs.mkdtempSync(path.join(os.tmpdir(), 'samsa-layout-'));
  const kafkaHome = nodefs.mkdtempSync(path.join(os.tmpdir(), 'samsa-layout-kafka-'));
  try {
    const samsa = await startBroker({ storage: { dir: samsaDir } });
    try {
      await writeTopic(samsa.bootstrap);
    } finally {
      await samsa.stop();
    }
    const rootS = nodefs.readdirSync(samsaDir);
    for (const f of SHARED) assert.ok(rootS.includes(f), `Samsa wrote ${f}`);
    assert.equal(entries(path.join(samsaDir, 'recovery-point-offset-checkpoint')), [`${TOPIC} 0 3`, `${TOPIC} 1 0`]);
    assert.equal(entries(path.join(samsaDir, 'replication-offset-checkpoint')), [`${TOPIC} 0 3`, `${TOPIC} 1 0`]);
    assert.equal(entries(path.join(samsaDir, 'log-start-offset-checkpoint')), []);
    const marker = JSON.parse(nodefs.readFileSync(path.join(samsaDir, '.kafka_cleanshutdown'), 'utf8'));
    assert.equal(Object.keys(marker).sort(), ['brokerEpoch', 'version']);

    const kafka = await kafkaOrSkip('log dir layout', { dir: kafkaHome });
    if (!kafka) return;
    try {
      await writeTopic(kafka.bootstrap);
    } finally {
      await kafka.stop(60_000);
    }
    const kafkaDir = path.join(kafkaHome, 'data');
    const rootK = nodefs.readdirSync(kafkaDir);
    for (const f of SHARED) assert.ok(rootK.includes(f), `Kafka wrote ${f} (it has ${rootK.join(', ')})`);
    for (const f of ['recovery-point-offset-checkpoint', 'replication-offset-checkpoint', 'log-start-offset-checkpoint']) {
      assert.equal(entries(path.join(samsaDir, f)), entries(path.join(kafkaDir, f)), `${f}: same entries as Kafka's`);
    }
    const markerK = JSON.parse(nodefs.readFileSync(path.join(kafkaDir, '.kafka_cleanshutdown'), 'utf8'));
    assert.equal(Object.keys(markerK).sort(), Object.keys(marker).sort(), 'the marker has Kafka\'s fields');
    assert.is(markerK.version, marker.version);
    for (const p of [`${TOPIC}-0`, `${TOPIC}-1`]) {
      assert.equal(nodefs.readdirSync(path.join(samsaDir, p)).sort(), nodefs.readdirSync(path.join(kafkaDir, p)).sort(), `${p}: the same files as Kafka's`);
    }

    // Kafka's tool on Samsa's files.
    const { classpath } = kafkaJars(() => undefined);
    const segment = path.join(samsaDir, `${TOPIC}-0`, '00000000000000000000.log');
    const dump = spawnSync(javaBin(), [...JVM_OPTS, '-cp', classpath, 'org.apache.kafka.tools.DumpLogSegments', '--files', segment, '--print-data-log'], { encoding: 'utf8', timeout: 120_000 });
    assert.is(dump.status, 0, dump.stderr);
    assert.match(dump.stdout, /baseOffset: 0 lastOffset: 2 count: 3/);
    assert.match(dump.stdout, /offset: 2 .*key: k2 .*payload: v2/);
  } finally {
    nodefs.rmSync(samsaDir, { recursive: true, force: true });
    nodefs.rmSync(kafkaHome, { recursive: true, force: true });
  }
});

test.run();
