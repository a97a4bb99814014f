import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  RECORD_BATCH_OVERHEAD,
  baseOffset,
  batchSize,
  isLogAppendTime,
  iterateBatches,
  lastOffset,
  lastOffsetDelta,
  magic,
  maxTimestamp,
  partitionLeaderEpoch,
  producerId,
  readInt64AsNumber,
  recordsCount,
  setBaseOffset,
  setLogAppendTime,
  setPartitionLeaderEpoch,
  verifyCrc,
  writeInt64FromNumber,
  compressionType,
  isTransactional,
  isControl,
} from '../../../src/protocol/records/record-batch.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';

function batch(n: number, ts = 1000n): Buffer {
  return buildRecordBatch({
    records: Array.from({ length: n }, (_, i) => ({ key: null, value: Buffer.from(`v${i}`), timestamp: ts + BigInt(i) })),
  });
}

test('header accessors read the fields buildRecordBatch wrote', () => {
  const b = buildRecordBatch({
    baseOffset: 42n,
    partitionLeaderEpoch: 7,
    producerId: 99n,
    compression: 'gzip',
    transactional: true,
    records: [{ key: null, value: Buffer.from('a'), timestamp: 5n }, { key: null, value: null, timestamp: 9n }],
  });
  assert.is(baseOffset(b, 0), 42);
  assert.is(lastOffsetDelta(b, 0), 1);
  assert.is(lastOffset(b, 0), 43);
  assert.is(partitionLeaderEpoch(b, 0), 7);
  assert.is(magic(b, 0), 2);
  assert.is(recordsCount(b, 0), 2);
  assert.is(maxTimestamp(b, 0), 9);
  assert.is(producerId(b, 0), 99);
  assert.is(compressionType(b, 0), 1);
  assert.ok(isTransactional(b, 0));
  assert.not.ok(isControl(b, 0));
  assert.is(batchSize(b, 0), b.length);
  assert.ok(verifyCrc(b, 0));
});

test('int64 number helpers round-trip negative and large safe values', () => {
  const b = Buffer.alloc(8);
  for (const v of [0, 1, -1, 2 ** 32, 2 ** 32 + 5, -(2 ** 40) - 3, Number.MAX_SAFE_INTEGER, 1_700_000_000_123]) {
    writeInt64FromNumber(b, 0, v);
    assert.is(b.readBigInt64BE(0), BigInt(v), `write ${v}`);
    assert.is(readInt64AsNumber(b, 0), v, `read ${v}`);
  }
});

test('setBaseOffset and setPartitionLeaderEpoch leave the CRC valid', () => {
  const b = batch(3);
  setBaseOffset(b, 0, 2 ** 40 + 3);
  setPartitionLeaderEpoch(b, 0, 12);
  assert.is(baseOffset(b, 0), 2 ** 40 + 3);
  assert.is(partitionLeaderEpoch(b, 0), 12);
  assert.ok(verifyCrc(b, 0));
});

test('setLogAppendTime sets the type bit and maxTimestamp and recomputes the CRC', () => {
  const b = batch(2);
  const before = b.readUInt32BE(17);
  setLogAppendTime(b, 0, 1_700_000_000_000);
  assert.ok(isLogAppendTime(b, 0));
  assert.is(maxTimestamp(b, 0), 1_700_000_000_000);
  assert.ok(verifyCrc(b, 0));
  assert.is.not(b.readUInt32BE(17), before);
});

test('verifyCrc detects a flipped byte in the records', () => {
  const b = batch(2);
  b[b.length - 2] ^= 0x40;
  assert.not.ok(verifyCrc(b, 0));
});

test('iterateBatches splits a concatenation', () => {
  const a = batch(1);
  const c = batch(4);
  const all = Buffer.concat([a, c, a]);
  assert.equal([...iterateBatches(all)], [0, a.length, a.length + c.length]);
  assert.equal([...iterateBatches(Buffer.alloc(0))], []);
});

test('iterateBatches rejects a truncated batch and a too-small length with CORRUPT_MESSAGE', () => {
  const all = Buffer.concat([batch(1), batch(2)]);
  for (const bad of [all.subarray(0, all.length - 1), all.subarray(0, 5)]) {
    try {
      [...iterateBatches(bad)];
      assert.unreachable('should throw');
    } catch (err) {
      assert.instance(err, KafkaApiError);
      assert.is((err as KafkaApiError).errorCode, ErrorCode.CORRUPT_MESSAGE);
    }
  }
  const small = batch(1);
  small.writeInt32BE(RECORD_BATCH_OVERHEAD - 13, 8);
  assert.throws(() => [...iterateBatches(small)], (e: unknown) => (e as KafkaApiError).errorCode === ErrorCode.CORRUPT_MESSAGE);
});

test.run();
