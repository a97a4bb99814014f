import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { buildRecordBatch, decodeRecordBatch, decodeRecordBatches } from '../../../src/protocol/records/record.js';
import { verifyCrc } from '../../../src/protocol/records/record-batch.js';

const require = createRequire(import.meta.url);

test('build then decode keeps keys, values, nulls, headers, offsets and timestamps', () => {
  const b = buildRecordBatch({
    baseOffset: 100n,
    producerId: 5n,
    producerEpoch: 2,
    baseSequence: 10,
    records: [
      { key: Buffer.from('k1'), value: Buffer.from('v1'), timestamp: 2000n, headers: [{ key: 'h', value: Buffer.from('x') }, { key: 'n', value: null }] },
      { key: null, value: null, timestamp: 1500n },
      { key: Buffer.alloc(0), value: Buffer.alloc(300, 7), timestamp: 2500n },
    ],
  });
  assert.ok(verifyCrc(b, 0));
  const d = decodeRecordBatch(b);
  assert.is(d.baseOffset, 100n);
  assert.is(d.recordsCount, 3);
  assert.is(d.lastOffsetDelta, 2);
  assert.is(d.baseTimestamp, 2000n);
  assert.is(d.maxTimestamp, 2500n);
  assert.is(d.producerId, 5n);
  assert.is(d.producerEpoch, 2);
  assert.is(d.baseSequence, 10);
  assert.is(d.sizeBytes, b.length);
  assert.equal(d.records.map((r) => r.offset), [100n, 101n, 102n]);
  assert.equal(d.records.map((r) => r.timestamp), [2000n, 1500n, 2500n]);
  assert.is(d.records[0].key!.toString(), 'k1');
  assert.is(d.records[0].headers[0].key, 'h');
  assert.is(d.records[0].headers[0].value!.toString(), 'x');
  assert.is(d.records[0].headers[1].value, null);
  assert.is(d.records[1].key, null);
  assert.is(d.records[1].value, null);
  assert.is(d.records[2].key!.length, 0);
  assert.is(d.records[2].value!.length, 300);
});

for (const compression of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
  test(`${compression} batch decodes to the same records`, () => {
    const records = Array.from({ length: 50 }, (_, i) => ({ key: Buffer.from(`key-${i}`), value: Buffer.from(`value-${i}`.repeat(10)), timestamp: 10n + BigInt(i) }));
    const b = buildRecordBatch({ records, compression });
    const d = decodeRecordBatch(b);
    assert.is(d.compression, compression);
    assert.is(d.records.length, 50);
    assert.is(d.records[49].value!.toString(), 'value-49'.repeat(10));
    assert.is(d.records[49].offset, 49n);
  });
}

test('LogAppendTime batches report maxTimestamp as every record timestamp', () => {
  const b = buildRecordBatch({ timestampType: 'logAppend', records: [{ key: null, value: null, timestamp: 1n }, { key: null, value: null, timestamp: 3n }] });
  const d = decodeRecordBatch(b);
  assert.is(d.timestampType, 'logAppend');
  assert.equal(d.records.map((r) => r.timestamp), [3n, 3n]);
});

test('our bytes equal kafkajs-encoded bytes for the same batch (independent encoder)', async () => {
  const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as { RecordBatch: (o: object) => Promise<{ buffer: Buffer }> };
  const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (o: object) => unknown;
  const Long = require('kafkajs/src/utils/long') as { fromValue(v: number): unknown; fromInt(v: number): unknown };
  const theirs = (
    await RecordBatch({
      firstOffset: Long.fromInt(0),
      firstTimestamp: 1000,
      maxTimestamp: 1007,
      partitionLeaderEpoch: 0,
      lastOffsetDelta: 1,
      producerId: Long.fromValue(-1),
      producerEpoch: 0,
      firstSequence: 0,
      records: [
        Record({ offsetDelta: 0, timestampDelta: 0, key: Buffer.from('a'), value: Buffer.from('one'), headers: { h: Buffer.from('v') } }),
        Record({ offsetDelta: 1, timestampDelta: 7, key: null, value: Buffer.from('two') }),
      ],
    })
  ).buffer;
  const ours = buildRecordBatch({
    partitionLeaderEpoch: 0,
    producerEpoch: 0,
    baseSequence: 0,
    records: [
      { key: Buffer.from('a'), value: Buffer.from('one'), timestamp: 1000n, headers: [{ key: 'h', value: Buffer.from('v') }] },
      { key: null, value: Buffer.from('two'), timestamp: 1007n },
    ],
  });
  assert.is(ours.toString('hex'), theirs.toString('hex'));
  const d = decodeRecordBatch(theirs);
  assert.is(d.records[1].value!.toString(), 'two');
});

test('decodeRecordBatches walks a concatenation', () => {
  const a = buildRecordBatch({ baseOffset: 0n, records: [{ key: null, value: Buffer.from('x') }] });
  const b = buildRecordBatch({ baseOffset: 1n, records: [{ key: null, value: Buffer.from('y') }, { key: null, value: Buffer.from('z') }] });
  const all = decodeRecordBatches(Buffer.concat([a, b]));
  assert.equal(all.map((x) => x.records.length), [1, 2]);
  assert.equal(all[1].records.map((r) => r.offset), [1n, 2n]);
});

test('a record count larger than the payload is rejected before allocating', () => {
  const b = buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] });
  b.writeInt32BE(1_000_000_000, 57);
  assert.throws(() => decodeRecordBatch(b), /record count/);
});

test.run();
