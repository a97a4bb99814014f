import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseFilter } from '../../src/views/filter.js';
import { filterBatches, type ViewFilterStats } from '../../src/views/view-batches.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { verifyCrc, iterateBatches, baseOffset, lastOffsetDelta, recordsCount, compressionType, writeCrc } from '../../src/protocol/records/record-batch.js';
import { isXerialSnappy } from '../../src/protocol/records/compression.js';
import type { CompressionName } from '../../src/protocol/records/record-batch.js';

function batch(base: number, tags: (string | null)[], compression: CompressionName = 'none', extra: Partial<Parameters<typeof buildRecordBatch>[0]> = {}): Buffer {
  return buildRecordBatch({
    baseOffset: BigInt(base), compression, ...extra,
    records: tags.map((t, i) => ({
      key: Buffer.from(`k${base + i}`), value: Buffer.from(`v${base + i}`), timestamp: 1_700_000_000_000n + BigInt(i * 7),
      headers: t === null ? [] : [{ key: 'tag', value: Buffer.from(t) }],
    })),
  });
}

const paid = parseFilter("tag = 'paid'");

test('a batch whose records all match goes out as the stored bytes, runs staying one slice', () => {
  const data = Buffer.concat([batch(0, ['paid', 'paid']), batch(2, ['paid'])]);
  const out = filterBatches([data], paid);
  assert.is(out.length, 1);
  assert.is(out[0], data, 'the very buffer read from the segment');
});

for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as CompressionName[]) {
  test(`a partly matching ${codec} batch is rebuilt with the matching records at their offsets, same codec, valid CRC`, () => {
    const stats: ViewFilterStats = { batchesKept: 0, batchesRebuilt: 0, batchesEmptied: 0 };
    const src = batch(10, ['new', 'paid', null, 'paid', 'refunded'], codec, { producerId: 7n, producerEpoch: 1, baseSequence: 3 });
    const out = filterBatches([src], paid, stats);
    assert.equal(stats, { batchesKept: 0, batchesRebuilt: 1, batchesEmptied: 0 });
    const b = Buffer.concat(out);
    assert.ok(verifyCrc(b, 0), 'CRC recomputed');
    assert.is(compressionType(b, 0), compressionType(src, 0));
    assert.is(baseOffset(b, 0), 10);
    assert.is(lastOffsetDelta(b, 0), 4, 'last offset delta kept so the consumer moves past the batch');
    const [d] = decodeRecordBatches(b);
    assert.equal(d.records.map((r) => [Number(r.offset), r.value!.toString(), Number(r.timestamp)]), [[11, 'v11', 1_700_000_000_007], [13, 'v13', 1_700_000_000_021]]);
    assert.is(d.producerId, 7n);
    assert.is(d.baseSequence, 3);
  });
}

test('a rebuilt snappy batch keeps the bare snappy block of a librdkafka-style source (not the xerial framing)', async () => {
  const { createRequire } = await import('node:module');
  const snappy = createRequire(import.meta.url)('snappy') as { compressSync(b: Buffer): Buffer };
  const plain = batch(0, ['paid', 'no', 'paid']);
  const raw = snappy.compressSync(plain.subarray(61));
  const src = Buffer.concat([plain.subarray(0, 61), raw]);
  src.writeInt32BE(src.length - 12, 8);
  src.writeInt16BE(2, 21);
  writeCrc(src, 0);
  const out = Buffer.concat(filterBatches([src], paid));
  assert.ok(verifyCrc(out, 0));
  assert.is(compressionType(out, 0), 2);
  assert.not.ok(isXerialSnappy(out.subarray(61)), 'bare snappy, as the source');
  assert.equal(decodeRecordBatches(out)[0].records.map((r) => Number(r.offset)), [0, 2]);
  const xerial = batch(0, ['paid', 'no'], 'snappy');
  assert.ok(isXerialSnappy(Buffer.concat(filterBatches([xerial], paid)).subarray(61)), 'xerial stays xerial');
});

test('a batch with no match becomes an empty uncompressed batch keeping base offset and last offset delta', () => {
  const out = filterBatches([batch(5, ['new', null, 'x'], 'gzip')], paid);
  const b = Buffer.concat(out);
  assert.is(recordsCount(b, 0), 0);
  assert.is(baseOffset(b, 0), 5);
  assert.is(lastOffsetDelta(b, 0), 2);
  assert.is(compressionType(b, 0), 0);
  assert.ok(verifyCrc(b, 0));
});

test('mixed batches keep their order, and kept runs around rebuilt ones stay slices of the read', () => {
  const a = batch(0, ['paid']);
  const c = batch(1, ['paid', 'no']);
  const d = batch(3, ['paid']);
  const e = batch(4, ['no']);
  const out = filterBatches([Buffer.concat([a, c, d]), e], paid);
  assert.is(out.length, 4);
  assert.equal(out[0], a);
  assert.equal(out[2], d);
  const all = Buffer.concat(out);
  const bases = [...iterateBatches(all)].map((p) => [baseOffset(all, p), recordsCount(all, p)]);
  assert.equal(bases, [[0, 1], [1, 1], [3, 1], [4, 0]]);
  assert.equal(decodeRecordBatches(all).flatMap((x) => x.records.map((r) => Number(r.offset))), [0, 1, 3]);
});

test('control batches pass unchanged and no filter keeps the read as it is', () => {
  const ctrl = buildRecordBatch({ baseOffset: 9n, control: true, transactional: true, producerId: 1n, producerEpoch: 0, records: [{ key: Buffer.from([0, 0, 0, 0]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }] });
  assert.is(filterBatches([ctrl], paid)[0], ctrl);
  const bufs = [batch(0, ['no'])];
  assert.is(filterBatches(bufs, null), bufs);
});

test('a malformed records section throws instead of sending garbage', () => {
  const b = batch(0, ['paid', 'x']);
  b.fill(0xff, 61);
  assert.throws(() => filterBatches([b], paid));
});

test.run();
