import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { WireClient } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

test.before(async () => {
  // Tiny segments so that deleting records also deletes whole segment files.
  b = await startBroker({ port: 0, config: { 'log.segment.bytes': 200 } });
  c = await WireClient.connect(b.port);
});

test.after(async () => {
  c?.close();
  await b?.stop();
});

/** A topic with `batches` batches of 3 records each in partition 0. */
async function topicWith(name: string, batches: number, configs: Record<string, string> = {}) {
  await b.broker.createTopic({ name, numPartitions: 2, replicationFactor: 1, configs });
  const log = b.broker.getLog(name, 0)!;
  for (let i = 0; i < batches; i++) {
    // Keyed: a compacted topic rejects records without a key (P18).
    const rec = (n: number) => ({ key: Buffer.from(`k${n}`), value: Buffer.from(`value-${i}-${n}`) });
    await log.appendAsLeader(buildRecordBatch({ records: [rec(0), rec(1), rec(2)] }), 0);
  }
  return log;
}

async function del(name: string, partitions: { partitionIndex: number; offset: bigint }[], version = 2) {
  const r = await c.send(21, version, { topics: [{ name, partitions }], timeoutMs: 1000 });
  assert.is(r.topics[0].name, name);
  return r.topics[0].partitions;
}

test('moves the log start to the exact offset (inside a batch) and returns it as low watermark', async () => {
  const log = await topicWith('dr-a', 6);
  assert.is(log.highWatermark, 18);
  const segmentsBefore = log.numberOfSegments;
  const [p] = await del('dr-a', [{ partitionIndex: 0, offset: 10n }]);
  assert.equal(p, { partitionIndex: 0, lowWatermark: 10n, errorCode: ErrorCode.NONE });
  assert.is(log.logStartOffset, 10);
  assert.ok(log.numberOfSegments < segmentsBefore, 'whole segments below the new start are deleted');
  // At or below the current start: nothing changes.
  const [again] = await del('dr-a', [{ partitionIndex: 0, offset: 4n }], 0);
  assert.equal(again, { partitionIndex: 0, lowWatermark: 10n, errorCode: ErrorCode.NONE });
});

test('offset -1 deletes up to the high watermark', async () => {
  const log = await topicWith('dr-hw', 2);
  const [p] = await del('dr-hw', [{ partitionIndex: 0, offset: -1n }], 1);
  assert.equal(p, { partitionIndex: 0, lowWatermark: 6n, errorCode: ErrorCode.NONE });
  assert.is(log.logStartOffset, 6);
});

test('offsets above the high watermark or below -1 are OFFSET_OUT_OF_RANGE with low watermark -1', async () => {
  const log = await topicWith('dr-oor', 1);
  const ps = await del('dr-oor', [{ partitionIndex: 0, offset: 4n }, { partitionIndex: 1, offset: -2n }]);
  assert.equal(ps, [
    { partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE },
    { partitionIndex: 1, lowWatermark: -1n, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE },
  ]);
  assert.is(log.logStartOffset, 0);
  const [empty] = await del('dr-oor', [{ partitionIndex: 1, offset: 0n }]);
  assert.equal(empty, { partitionIndex: 1, lowWatermark: 0n, errorCode: ErrorCode.NONE });
});

test('unknown topic or partition, internal topic, compact-only topic', async () => {
  await topicWith('dr-compact', 1, { 'cleanup.policy': 'compact' });
  await topicWith('__consumer_offsets', 1);
  const unknownTopic = await del('dr-nope', [{ partitionIndex: 0, offset: 0n }]);
  assert.equal(unknownTopic, [{ partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }]);
  const unknownPartition = await del('dr-compact', [{ partitionIndex: 9, offset: 0n }]);
  assert.equal(unknownPartition, [{ partitionIndex: 9, lowWatermark: -1n, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }]);
  const compact = await del('dr-compact', [{ partitionIndex: 0, offset: 1n }]);
  assert.equal(compact, [{ partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.POLICY_VIOLATION }]);
  const internal = await del('__consumer_offsets', [{ partitionIndex: 0, offset: 1n }]);
  assert.equal(internal, [{ partitionIndex: 0, lowWatermark: -1n, errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION }]);
});

test.run();
