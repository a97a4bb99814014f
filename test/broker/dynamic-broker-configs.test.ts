/**
 * Dynamic broker configs acting on a running broker (broker/dynamic-config.ts):
 * - a cluster-wide log.retention.ms deletes old segments of a topic without its own retention.ms
 *   (and not of a topic that has one), and deleting it stops that;
 * - message.max.bytes as the cluster default limits Produce; this broker's own value wins;
 * - log.cleaner.* reach the running cleaner;
 * - they are read back from the metadata at a restart, before the logs are configured.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { WireClient } from './handlers/_admin-wire.js';
import { tmpDir } from '../support/tmp.js';

const { Kafka, logLevel } = kafkajs;
const BROKER = 4;
const TOPIC = 2;

async function alter(c: WireClient, resourceName: string, configs: { name: string; configOperation: number; value: string | null }[]): Promise<void> {
  const r = await c.send(44, 1, { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly: false });
  assert.equal([r.responses[0].errorCode, r.responses[0].errorMessage], [ErrorCode.NONE, null]);
}

async function earliest(c: WireClient, topic: string): Promise<bigint> {
  const r = await c.send(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -2n}] }] });
  return BigInt(r.topics[0].partitions[0].offset);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function client(b: RunningBroker) {
  return new Kafka({ clientId: 'dyn-broker-configs', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
}

test('a cluster-wide log.retention.ms deletes old segments of topics without their own retention.ms', async () => {
  const b = await startBroker({ port: 0, config: { 'log.retention.check.interval.ms': 200 } });
  const c = await WireClient.connect(b.port);
  const kafka = client(b);
  const admin = kafka.admin();
  const producer = kafka.producer();
  try {
    await admin.connect();
    await admin.createTopics({ topics: [
      { topic: 'dyn-inherits', numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '1024' }] },
      { topic: 'dyn-own', numPartitions: 1, configEntries: [{ name: 'segment.bytes', value: '1024' }, { name: 'retention.ms', value: '604800000' }] },
    ] });
    await producer.connect();
    const hourAgo = String(Date.now() - 3_600_000);
    for (const topic of ['dyn-inherits', 'dyn-own']) {
      for (let i = 0; i < 20; i++) await producer.send({ topic, acks: -1, messages: [{ value: 'x'.repeat(200), timestamp: hourAgo }] });
    }
    await new Promise((r) => setTimeout(r, 600));
    assert.is(await earliest(c, 'dyn-inherits'), 0n, 'the default 7 days keep an hour-old record');
    await alter(c, '', [{ name: 'log.retention.ms', configOperation: 0, value: '60000' }]);
    await until('old segments of dyn-inherits to go', async () => (await earliest(c, 'dyn-inherits')) > 0n);
    assert.is(await earliest(c, 'dyn-own'), 0n, 'a topic with its own retention.ms keeps its segments');
    const described = await c.send(32, 4, { resources: [{ resourceType: TOPIC, resourceName: 'dyn-inherits', configurationKeys: ['retention.ms'] }], includeSynonyms: true, includeDocumentation: false });
    const e = described.results[0].configs[0];
    assert.equal([e.value, e.configSource, e.synonyms[0]], ['60000', 3, { name: 'log.retention.ms', value: '60000', source: 3 }]);
    assert.is(b.broker.getLog('dyn-inherits', 0)!.config.retentionMs, 60000);
    await alter(c, '', [{ name: 'log.retention.ms', configOperation: 1, value: null }]);
    assert.is(b.broker.getLog('dyn-inherits', 0)!.config.retentionMs, 604800000, 'deleting the default brings back the static one');
  } finally {
    await producer.disconnect().catch(() => undefined);
    await admin.disconnect().catch(() => undefined);
    c.close();
    await b.stop();
  }
});

test('message.max.bytes: the cluster default limits Produce, this broker\'s own value wins over it', async () => {
  const b = await startBroker({ port: 0 });
  const c = await WireClient.connect(b.port);
  const kafka = client(b);
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  try {
    await producer.connect();
    await producer.send({ topic: 'dyn-size', acks: -1, messages: [{ value: 'warm-up' }] });
    await alter(c, '', [{ name: 'message.max.bytes', configOperation: 0, value: '2000' }]);
    const big = 'y'.repeat(5000);
    const err = await producer.send({ topic: 'dyn-size', acks: -1, messages: [{ value: big }] }).then(() => null, (e: Error & { type?: string }) => e);
    assert.ok(err, 'a 5000-byte batch is over the 2000-byte default');
    assert.match(String((err as { type?: string }).type ?? err!.message), /MESSAGE_TOO_LARGE|too large/i);
    await alter(c, String(b.broker.nodeId), [{ name: 'message.max.bytes', configOperation: 0, value: '100000' }]);
    await producer.send({ topic: 'dyn-size', acks: -1, messages: [{ value: big }] });
    assert.is(b.broker.rawConfig['message.max.bytes'], 100000);
  } finally {
    await producer.disconnect().catch(() => undefined);
    c.close();
    await b.stop();
  }
});

test('log.cleaner.* reach the running cleaner', async () => {
  const b = await startBroker({ port: 0 });
  const c = await WireClient.connect(b.port);
  try {
    const cleaner = b.broker.logs.cleaner!;
    assert.equal([cleaner.config.threads, cleaner.config.backoffMs], [1, 15000]);
    await alter(c, '', [{ name: 'log.cleaner.threads', configOperation: 0, value: '2' }, { name: 'log.cleaner.backoff.ms', configOperation: 0, value: '500' }]);
    assert.equal([cleaner.config.threads, cleaner.config.backoffMs], [2, 500]);
    await alter(c, String(b.broker.nodeId), [{ name: 'log.cleaner.io.max.bytes.per.second', configOperation: 0, value: '1048576' }]);
    assert.is(cleaner.config.ioMaxBytesPerSecond, 1048576);
  } finally {
    c.close();
    await b.stop();
  }
});

test('dynamic configs are read back at a restart, before the logs are configured', async () => {
  const dir = tmpDir('samsa-dyn-restart-');
  try {
    let b = await startBroker({ port: 0, storage: { dir: dir.path } });
    let c = await WireClient.connect(b.port);
    await c.send(19, 7, { topics: [{ name: 'dyn-restart', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    await alter(c, '', [{ name: 'log.retention.ms', configOperation: 0, value: '120000' }]);
    await alter(c, String(b.broker.nodeId), [{ name: 'log.segment.bytes', configOperation: 0, value: '2097152' }]);
    c.close();
    await b.stop();
    b = await startBroker({ port: 0, storage: { dir: dir.path } });
    c = await WireClient.connect(b.port);
    try {
      const log = b.broker.getLog('dyn-restart', 0)!;
      assert.equal([log.config.retentionMs, log.config.segmentBytes], [120000, 2097152]);
      const r = await c.send(32, 4, { resources: [{ resourceType: BROKER, resourceName: '', configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
      assert.equal(r.results[0].configs.map((e) => [e.name, e.value]), [['log.retention.ms', '120000'], ['min.insync.replicas', '1']]);
    } finally {
      c.close();
      await b.stop();
    }
  } finally {
    await dir.cleanup();
  }
});

test.run();
