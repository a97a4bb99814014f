/**
 * Transactions and compaction with kafkajs: a transactional producer commits and aborts many
 * transactions on a compacted topic; the cleaner compacts the topic (aborted records removed,
 * markers kept while needed) and `__transaction_state`; read_committed sees the latest committed
 * value of every key, and a broker restarted on the compacted logs lets the same transactional id
 * carry on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { WireClient, committedValues, fetchValues } from '../support/txn-wire.js';

const { Kafka, logLevel } = kafkajs;

const config = {
  'log.cleaner.backoff.ms': 100,
  'transaction.state.log.num.partitions': 1,
  'transaction.state.log.segment.bytes': 2048,
};

async function until(what: string, cond: () => Promise<boolean> | boolean, timeoutMs = 20000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function cleaned(b: RunningBroker, topic: string): Promise<boolean> {
  const log = b.broker.logs.getLog(topic, 0);
  const info = log ? await b.broker.logs.cleaner?.cleanable(log) : null;
  return !!info && info.lastCleanedMs > 0 && info.dirtyBytes === 0;
}

/** The last value per key of what a read_committed consumer gets. */
async function committedLatest(b: RunningBroker, topic: string): Promise<{ latest: Map<string, string>; values: string[] }> {
  const c = await WireClient.connect(b.port);
  try {
    const r = await fetchValues(c, topic, 1);
    const values = committedValues(r);
    const latest = new Map<string, string>();
    for (const v of values) latest.set(v.split('=')[0], v);
    return { latest, values };
  } finally {
    c.close();
  }
}

test('committed and aborted transactions on a compacted topic, then a restart on compacted __transaction_state', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-compaction-txn-'));
  let b: RunningBroker | null = await startBroker({ port: 0, storage: { dir }, config });
  try {
    const topic = 'txn-table';
    let kafka = new Kafka({ clientId: 'txn-compaction', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: 1, configEntries: [
        { name: 'cleanup.policy', value: 'compact' }, { name: 'segment.bytes', value: '2048' }, { name: 'min.cleanable.dirty.ratio', value: '0.01' },
      ] }],
    });
    await admin.disconnect();
    let producer = kafka.producer({ transactionalId: 'table-writer', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const want = new Map<string, string>();
    const aborted: string[] = [];
    for (let i = 0; i < 60; i++) {
      const key = `k${i % 5}`;
      const value = `${key}=v${i}`;
      const txn = await producer.transaction();
      await txn.send({ topic, messages: [{ key, value }] });
      if (i % 4 === 3) {
        await txn.abort();
        aborted.push(value);
      } else {
        await txn.commit();
        want.set(key, value);
      }
    }
    await producer.disconnect();
    await until('the cleaner to clean the topic and __transaction_state', async () => (await cleaned(b!, topic)) && (await cleaned(b!, '__transaction_state')));

    const before = await committedLatest(b, topic);
    assert.equal([...before.latest].sort(), [...want].sort(), 'latest committed value per key');
    for (const v of aborted) assert.not.ok(before.values.includes(v), `aborted ${v} not delivered`);
    const log = b.broker.logs.getLog(topic, 0)!;
    const active = log.segmentBaseOffsets[log.segmentBaseOffsets.length - 1];
    const uncommitted = await (async () => {
      const c = await WireClient.connect(b!.port);
      try {
        return await fetchValues(c, topic, 0);
      } finally {
        c.close();
      }
    })();
    const abortedLeft = uncommitted.batches.filter((bt) => !bt.isControl && Number(bt.baseOffset) < active && bt.records.some((r) => aborted.includes(r.value!.toString())));
    assert.equal(abortedLeft, [], 'aborted records are gone from the cleaned segments');
    const txnState = b.broker.logs.getLog('__transaction_state', 0)!;
    assert.ok(txnState.sizeBytes < 4096 + 2048, `__transaction_state compacted to ${txnState.sizeBytes} bytes (${txnState.logEndOffset} records written)`);

    await b.stop();
    b = await startBroker({ port: 0, storage: { dir }, config });
    kafka = new Kafka({ clientId: 'txn-compaction', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
    producer = kafka.producer({ transactionalId: 'table-writer', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ key: 'k0', value: 'k0=after-restart' }] });
    await txn.commit();
    await producer.disconnect();
    want.set('k0', 'k0=after-restart');
    const after = await committedLatest(b, topic);
    assert.equal([...after.latest].sort(), [...want].sort(), 'the same transactional id commits after the restart');
  } finally {
    await b?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
