import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { OffsetIndex } from '../../src/storage/offset-index.js';
import { CorruptIndexError, WRITE_BEHIND_ENTRIES } from '../../src/storage/abstract-index.js';

async function fresh(maxBytes = 1024): Promise<{ fs: MemFs; idx: OffsetIndex }> {
  const fs = new MemFs();
  await fs.mkdir('/d');
  return { fs, idx: await OffsetIndex.open(fs, '/d/00000000000000000100.index', 100, maxBytes) };
}

test('lookup returns the largest entry at or below the target, or the segment start', async () => {
  const { idx } = await fresh();
  idx.append(110, 500);
  idx.append(120, 900);
  idx.append(150, 2000);
  assert.equal(idx.lookup(99), { offset: 100, position: 0 });
  assert.equal(idx.lookup(109), { offset: 100, position: 0 });
  assert.equal(idx.lookup(110), { offset: 110, position: 500 });
  assert.equal(idx.lookup(149), { offset: 120, position: 900 });
  assert.equal(idx.lookup(10_000), { offset: 150, position: 2000 });
});

test('entries are 8 bytes (relative offset, position) in the file and reload identically', async () => {
  const { fs, idx } = await fresh();
  idx.append(101, 64);
  idx.append(300, 4096);
  assert.is(fs.contents('/d/00000000000000000100.index').length, 0, 'entries are written behind');
  await idx.sync();
  const bytes = fs.contents('/d/00000000000000000100.index');
  assert.is(bytes.toString('hex'), '00000001' + '00000040' + '000000c8' + '00001000');
  const again = await OffsetIndex.open(fs, '/d/00000000000000000100.index', 100, 1024);
  again.sanityCheck(10_000);
  assert.equal(again.lookup(250), { offset: 101, position: 64 });
  assert.is(again.entries, 2);
});

test('non-increasing offsets are refused; the index reports full at segment.index.bytes', async () => {
  const { idx } = await fresh(16);
  idx.append(101, 10);
  assert.throws(() => idx.append(101, 20), /not above/);
  idx.append(102, 20);
  assert.ok(idx.isFull);
  assert.throws(() => idx.append(103, 30), /full/);
});

test('truncateTo removes entries at or above the offset', async () => {
  const { fs, idx } = await fresh();
  for (let i = 1; i <= 5; i++) idx.append(100 + i * 10, i * 100);
  idx.writePending();
  assert.is(fs.contents('/d/00000000000000000100.index').length, 40);
  idx.truncateTo(130);
  assert.is(idx.entries, 2);
  assert.equal(idx.lookup(1000), { offset: 120, position: 200 });
  assert.is(fs.contents('/d/00000000000000000100.index').length, 16);
});

test('the file catches up every WRITE_BEHIND_ENTRIES entries without a sync', async () => {
  const { fs, idx } = await fresh(1 << 20);
  for (let i = 1; i <= WRITE_BEHIND_ENTRIES; i++) idx.append(100 + i, i);
  assert.is(fs.contents('/d/00000000000000000100.index').length, WRITE_BEHIND_ENTRIES * 8);
  idx.append(100 + WRITE_BEHIND_ENTRIES + 1, WRITE_BEHIND_ENTRIES + 1);
  assert.is(fs.contents('/d/00000000000000000100.index').length, WRITE_BEHIND_ENTRIES * 8);
  await idx.close();
  assert.is(fs.contents('/d/00000000000000000100.index').length, (WRITE_BEHIND_ENTRIES + 1) * 8, 'close writes the rest');
});

test('sanityCheck rejects a torn length, disorder and positions beyond the log', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  const cases: [string, Buffer, number][] = [
    ['torn', Buffer.alloc(12), 1000],
    ['disorder', Buffer.from('00000005000000100000000300000020', 'hex'), 1000],
    ['beyond log', Buffer.from('0000000100000800', 'hex'), 100],
  ];
  for (const [name, bytes, logSize] of cases) {
    fs.setContents('/d/x.index', bytes);
    const idx = await OffsetIndex.open(fs, '/d/x.index', 0, 1024);
    assert.throws(() => idx.sanityCheck(logSize), (e: unknown) => e instanceof CorruptIndexError, name);
  }
});

test.run();
