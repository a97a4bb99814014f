/**
 * `__consumer_offsets` is compacted like any compacted topic: a group that commits many times
 * leaves a small log, and a broker restarted on it replays the compacted log to the latest
 * committed offsets (kafkajs admin).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';

const { Kafka, logLevel } = kafkajs;

const config = {
  'log.cleaner.backoff.ms': 100,
  'offsets.topic.num.partitions': 1,
  'offsets.topic.segment.bytes': 4096,
};

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a group committing many times restarts from a compacted __consumer_offsets', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-compaction-offsets-'));
  let b: RunningBroker | null = await startBroker({ port: 0, storage: { dir }, config });
  try {
    const kafka = new Kafka({ clientId: 'offsets', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: 'events', numPartitions: 2 }] });
    await admin.disconnect();
    const commits = Number(process.env.COMMITS ?? 1000);
    const consumer = kafka.consumer({ groupId: 'busy-group' });
    await consumer.connect();
    let joined = false;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joined = true;
    });
    await consumer.subscribe({ topic: 'events', fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async () => undefined });
    await until('the consumer to join', () => joined);
    for (let i = 1; i <= commits; i++) {
      await consumer.commitOffsets([{ topic: 'events', partition: 0, offset: String(i) }, { topic: 'events', partition: 1, offset: String(2 * i) }]);
    }
    await consumer.disconnect();
    const log = b.broker.logs.getLog('__consumer_offsets', 0)!;
    const written = log.logEndOffset;
    assert.ok(written >= 2 * commits, `${written} offset records written`);
    await until('the cleaner to compact __consumer_offsets', async () => {
      const info = await b!.broker.logs.cleaner?.cleanable(log);
      return info !== undefined && info !== null && info.lastCleanedMs > 0 && info.dirtyBytes === 0;
    });
    const records = (await log.read(log.logStartOffset, 1 << 30, { minOneMessage: true })).records;
    const bytes = records.reduce((n, r) => n + r.length, 0);
    const segmentsUncleaned = Math.ceil((written * 60) / 4096);
    assert.ok(log.numberOfSegments < segmentsUncleaned, `segments ${log.numberOfSegments}`);
    assert.ok(bytes < log.logEndOffset * 20, `compacted to ${bytes} bytes for ${written} records written`);
    if (process.env.DEBUG_COMPACTION) console.log(`__consumer_offsets: ${written} records written, ${bytes} bytes and ${log.numberOfSegments} segments after cleaning`);

    const adminBefore = kafka.admin();
    await adminBefore.connect();
    const before = await adminBefore.fetchOffsets({ groupId: 'busy-group', topics: ['events'] });
    await adminBefore.disconnect();
    await b.stop();
    b = await startBroker({ port: 0, storage: { dir }, config });
    const admin2 = new Kafka({ clientId: 'offsets', brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin2.connect();
    const offsets = await admin2.fetchOffsets({ groupId: 'busy-group', topics: ['events'] });
    await admin2.disconnect();
    assert.equal(offsets, before, 'the compacted log replays to the same committed offsets');
    // kafkajs's consumer commits the "earliest" sentinel (-2) for one of the partitions it was
    // assigned when it leaves (with or without the cleaner); the other keeps the last commit.
    const got = offsets[0].partitions.map((p) => p.offset).sort();
    assert.ok(got.includes(String(commits)) || got.includes(String(2 * commits)), `last commit present: ${got.join(',')}`);
  } finally {
    await b?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
