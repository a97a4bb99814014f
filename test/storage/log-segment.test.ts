import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { LogSegment } from '../../src/storage/log-segment.js';
import { setBaseOffset, baseOffset } from '../../src/protocol/records/record-batch.js';
import { batch, offsetsOf } from './helpers.js';

const cfg = { indexIntervalBytes: 100, segmentIndexBytes: 1024 };

async function segmentWith(fs: MemFs, base: number, batches: number, perBatch = 3): Promise<LogSegment> {
  await fs.mkdir('/p');
  const seg = await LogSegment.create({ fs, dir: '/p', baseOffset: base, config: cfg, nowMs: 0 });
  let next = base;
  for (let i = 0; i < batches; i++) {
    const b = batch(perBatch, { timestamp: 1000 + i * 10 });
    setBaseOffset(b, 0, next);
    seg.append(b, 0, b.length);
    next += perBatch;
  }
  return seg;
}

test('append writes the bytes as given and read returns whole batches from the one containing the offset', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 100, 10);
  assert.is(await seg.readNextOffset(), 130);
  const r = await seg.read(107, 1, { minOneMessage: true });
  assert.equal(offsetsOf([r!]), [106, 107, 108]);
  const all = await seg.read(100, 1 << 20, { minOneMessage: false });
  assert.equal(offsetsOf([all!]), Array.from({ length: 30 }, (_, i) => 100 + i));
  assert.is(await seg.read(130, 100, { minOneMessage: true }), null, 'nothing at or after the end');
  assert.is(seg.maxTimestampSoFar, 1092);
  assert.is(seg.offsetOfMaxTimestampSoFar, 129);
});

test('translateOffset gives the position and size of the containing batch', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 0, 5);
  const size = batch(3).length;
  assert.equal(await seg.translateOffset(7), { position: 2 * size, sizeBytes: size, baseOffset: 6, lastOffset: 8 });
  assert.is(await seg.translateOffset(15), null);
});

test('recover truncates a torn tail, rebuilds the indexes, and reports why', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 0, 10);
  const bytes = fs.contents('/p/00000000000000000000.log');
  await seg.close();
  fs.setContents('/p/00000000000000000000.log', bytes.subarray(0, bytes.length - 5));
  fs.setContents('/p/00000000000000000000.index', Buffer.alloc(0));
  const reopened = await LogSegment.open({ fs, dir: '/p', baseOffset: 0, config: cfg, nowMs: 0 });
  const res = await reopened.recover();
  assert.is(res.truncatedBytes, batch(3).length - 5);
  assert.match(res.reason ?? '', /cut short/);
  assert.is(await reopened.readNextOffset(), 27);
  await reopened.flush();
  assert.ok(fs.contents('/p/00000000000000000000.index').length > 0, 'index rebuilt');
  const r = await reopened.read(20, 1, { minOneMessage: true });
  assert.is(baseOffset(r!, 0), 18);
});

test('recover stops at a batch whose offsets go backwards', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 0, 4);
  await seg.close();
  const b = batch(3);
  setBaseOffset(b, 0, 2);
  fs.setContents('/p/00000000000000000000.log', Buffer.concat([fs.contents('/p/00000000000000000000.log'), b]));
  const reopened = await LogSegment.open({ fs, dir: '/p', baseOffset: 0, config: cfg, nowMs: 0 });
  const res = await reopened.recover();
  assert.match(res.reason ?? '', /out of order/);
  assert.is(await reopened.readNextOffset(), 12);
});

test('truncateTo removes the batch containing the offset and everything after', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 0, 6);
  const removed = await seg.truncateTo(10);
  assert.is(removed, batch(3).length * 3);
  assert.is(await seg.readNextOffset(), 9);
  assert.is(seg.maxTimestampSoFar, 1022);
});

test('findOffsetByTimestamp returns the first record at or after the timestamp and after the start offset', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 0, 6);
  assert.equal(await seg.findOffsetByTimestamp(1021, 0), { offset: 7, timestamp: 1021, leaderEpoch: -1 });
  assert.equal(await seg.findOffsetByTimestamp(1000, 4), { offset: 4, timestamp: 1011, leaderEpoch: -1 });
  assert.is(await seg.findOffsetByTimestamp(2000, 0), null);
});

test('shouldRoll on size, relative-offset overflow, and segment.ms from the first batch timestamp', async () => {
  const fs = new MemFs();
  const seg = await segmentWith(fs, 0, 2);
  const base = { segmentBytes: 1 << 20, segmentMs: 100, nowMs: 0, maxTimestampInMessages: 1050, maxOffsetInMessages: 6, messagesSize: 10 };
  assert.not.ok(await seg.shouldRoll(base));
  assert.ok(await seg.shouldRoll({ ...base, segmentBytes: seg.sizeBytes + 5 }));
  assert.ok(await seg.shouldRoll({ ...base, maxOffsetInMessages: 2 ** 31 }));
  assert.ok(await seg.shouldRoll({ ...base, maxTimestampInMessages: 1103 }), 'first batch max timestamp 1002 + 100 < 1103');
  assert.not.ok(await seg.shouldRoll({ ...base, maxTimestampInMessages: 1102 }));
});

test.run();
