import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'ld-a', numPartitions: 2, replicationFactor: 1, configs: {} });
  await b.broker.createTopic({ name: 'ld-b', numPartitions: 1, replicationFactor: 1, configs: {} });
  await b.broker.getLog('ld-a', 1)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.alloc(100, 1) }] }), 0);
});

test('v4 with topics null: one log dir, every partition with its size, disk totals', async () => {
  const r = await c.send(35, 4, { topics: null });
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.results.length, 1);
  const [dir] = r.results;
  assert.is(dir.errorCode, ErrorCode.NONE);
  assert.is(dir.logDir, path.resolve(b.logDir));
  assert.ok(dir.totalBytes > 0n && dir.usableBytes > 0n && dir.usableBytes <= dir.totalBytes);
  const a = dir.topics.find((t) => t.name === 'ld-a')!;
  assert.equal(a.partitions.map((p) => p.partitionIndex).sort(), [0, 1]);
  const p1 = a.partitions.find((p) => p.partitionIndex === 1)!;
  assert.is(p1.partitionSize, BigInt(b.broker.getLog('ld-a', 1)!.sizeBytes));
  assert.ok(p1.partitionSize > 100n);
  assert.is(a.partitions.find((p) => p.partitionIndex === 0)!.partitionSize, 0n);
  assert.is(p1.offsetLag, 0n);
  assert.is(p1.isFutureKey, false);
  assert.ok(dir.topics.some((t) => t.name === 'ld-b'));
});

test('listed partitions only; unknown ones are left out; v1 has no disk totals', async () => {
  const r = await c.send(35, 1, { topics: [{ topic: 'ld-a', partitions: [1, 7] }, { topic: 'ld-nope', partitions: [0] }] });
  assert.is(r.results.length, 1);
  assert.equal(r.results[0].topics.map((t) => [t.name, t.partitions.map((p) => p.partitionIndex)]), [['ld-a', [1]]]);
  assert.is(r.results[0].totalBytes, -1n);
  const empty = await c.send(35, 3, { topics: [] });
  assert.is(empty.errorCode, ErrorCode.NONE);
  assert.equal(empty.results[0].topics, []);
});

test.run();
