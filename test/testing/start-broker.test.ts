import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, ManualClock } from '../../src/index.js';

const { Kafka, logLevel } = kafkajs;

function resources(): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) m.set(r, (m.get(r) ?? 0) + 1);
  return m;
}

/** Waits until the resource counts are back to `before` (socket handles close on the next ticks). */
async function settledTo(before: Map<string, number>): Promise<Map<string, number>> {
  let now = resources();
  for (let i = 0; i < 100; i++) {
    const extra = [...now].filter(([k, n]) => n > (before.get(k) ?? 0));
    if (extra.length === 0) return now;
    await new Promise((r) => setTimeout(r, 5));
    now = resources();
  }
  return now;
}

async function produceAndCount(bootstrap: string, topic: string, n: number): Promise<string> {
  const kafka = new Kafka({ clientId: 'sb-test', brokers: [bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  const admin = kafka.admin();
  await producer.connect();
  await admin.connect();
  try {
    await producer.send({ topic, messages: Array.from({ length: n }, (_, i) => ({ value: `m${i}` })) });
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets[0]!.high;
  } finally {
    await producer.disconnect();
    await admin.disconnect();
  }
}

test('tmpdir storage: data directory exists while running and is removed on stop()', async () => {
  const b = await startBroker({ port: 0 });
  assert.ok(existsSync(b.logDir));
  assert.match(b.bootstrap, /^localhost:\d+$/);
  assert.ok(b.port > 0);
  assert.is(await produceAndCount(b.bootstrap, 't', 3), '3');
  await b.stop();
  assert.not.ok(existsSync(b.logDir));
  await b.stop(); // idempotent
});

test('memory storage: produce and read back without touching the disk', async () => {
  const b = await startBroker({ storage: 'memory' });
  try {
    assert.match(b.logDir, /^memory:/);
    assert.is(await produceAndCount(b.bootstrap, 'mem', 5), '5');
    assert.is(b.broker.getLog('mem', 0)!.highWatermark, 5);
  } finally {
    await b.stop();
  }
});

test('storage { dir } is kept after stop() and reopened with its data', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-keep-'));
  try {
    const b1 = await startBroker({ storage: { dir } });
    assert.is(await produceAndCount(b1.bootstrap, 'kept', 2), '2');
    await b1.stop();
    assert.ok(existsSync(join(dir, 'kept-0')));
    const b2 = await startBroker({ storage: { dir } });
    try {
      assert.is(b2.broker.getLog('kept', 0)!.highWatermark, 2);
    } finally {
      await b2.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Kafka-named settings: top-level dotted names and config', async () => {
  const b = await startBroker({ 'num.partitions': 3, config: { 'auto.create.topics.enable': true, 'log.retention.ms': 60000 } });
  try {
    assert.is(b.broker.rawConfig['num.partitions'], 3);
    assert.is(b.broker.rawConfig['log.retention.ms'], 60000);
    await produceAndCount(b.bootstrap, 'three', 1);
    assert.is(b.broker.metadataCache.topic('three')!.partitions, 3);
  } finally {
    await b.stop();
  }
});

test('an unknown setting name fails with a helpful message and leaves no temp dir', async () => {
  try {
    await startBroker({ 'num.partitons': 3 });
    assert.unreachable('should have thrown');
  } catch (err) {
    assert.match((err as Error).message, /unknown setting 'num.partitons'.*did you mean 'num.partitions'/);
  }
});

test('many brokers in one process are independent', async () => {
  const brokers = await Promise.all([startBroker(), startBroker({ storage: 'memory' }), startBroker()]);
  try {
    assert.is(new Set(brokers.map((b) => b.port)).size, 3);
    assert.is(await produceAndCount(brokers[0]!.bootstrap, 'a', 1), '1');
    assert.is(await produceAndCount(brokers[1]!.bootstrap, 'a', 2), '2');
    assert.is(await produceAndCount(brokers[2]!.bootstrap, 'a', 3), '3');
  } finally {
    await Promise.all(brokers.map((b) => b.stop()));
  }
});

test('stop() leaves no timers, sockets or servers behind', async () => {
  // Warm up module loading and kafkajs internals first.
  const warm = await startBroker({ storage: 'memory' });
  await produceAndCount(warm.bootstrap, 'w', 1);
  await warm.stop();
  const before = await settledTo(new Map());

  const b = await startBroker();
  // At real time: kafkajs stamps records with Date.now(), and a broker rejects CreateTime
  // timestamps more than message.timestamp.after.max.ms (1 h) ahead of its own clock.
  const clock = new ManualClock(Date.now());
  const b2 = await startBroker({ storage: 'memory', clock });
  assert.ok(clock.pendingTimers() > 0, 'background tasks are scheduled on the clock');
  await produceAndCount(b.bootstrap, 'r', 2);
  await produceAndCount(b2.bootstrap, 'r', 2);
  const during = resources();
  assert.ok((during.get('TCPServerWrap') ?? 0) >= (before.get('TCPServerWrap') ?? 0) + 2, 'listeners are open while running');
  // A client still connected while the broker stops.
  const kafka = new Kafka({ clientId: 'lingering', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  const admin = kafka.admin();
  await admin.connect();
  await b.stop();
  await b2.stop();
  await admin.disconnect();
  assert.is(clock.pendingTimers(), 0, 'no timer left on the broker clock');
  const after = await settledTo(before);
  const extra = [...after].filter(([k, n]) => n > (before.get(k) ?? 0));
  assert.equal(extra, [], `resources left behind: ${JSON.stringify(extra)}`);
});

test.run();
