import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { TimeIndex } from '../../src/storage/time-index.js';
import { CorruptIndexError } from '../../src/storage/abstract-index.js';

async function fresh(): Promise<{ fs: MemFs; idx: TimeIndex }> {
  const fs = new MemFs();
  await fs.mkdir('/d');
  return { fs, idx: await TimeIndex.open(fs, '/d/00000000000000000050.timeindex', 50, 1200) };
}

test('maybeAppend keeps only growing timestamps; lookup finds the largest timestamp <= target', async () => {
  const { idx } = await fresh();
  idx.maybeAppend(1000, 55);
  idx.maybeAppend(1000, 60);
  idx.maybeAppend(900, 61);
  idx.maybeAppend(2000, 70);
  assert.is(idx.entries, 2);
  assert.equal(idx.lookup(999), { timestamp: -1, offset: 50 });
  assert.equal(idx.lookup(1000), { timestamp: 1000, offset: 55 });
  assert.equal(idx.lookup(1999), { timestamp: 1000, offset: 55 });
  assert.equal(idx.lookup(5000), { timestamp: 2000, offset: 70 });
  assert.equal(idx.lastEntry(), { timestamp: 2000, offset: 70 });
});

test('entries are 12 bytes (timestamp int64, relative offset int32) and reload', async () => {
  const { fs, idx } = await fresh();
  idx.maybeAppend(1_700_000_000_000, 52);
  await idx.sync();
  assert.is(fs.contents('/d/00000000000000000050.timeindex').toString('hex'), '0000018bcfe56800' + '00000002');
  const again = await TimeIndex.open(fs, '/d/00000000000000000050.timeindex', 50, 1200);
  again.sanityCheck();
  assert.equal(again.lastEntry(), { timestamp: 1_700_000_000_000, offset: 52 });
});

test('truncateTo drops entries at or above the offset; sanityCheck rejects a torn file', async () => {
  const { fs, idx } = await fresh();
  idx.maybeAppend(10, 51);
  idx.maybeAppend(20, 53);
  idx.maybeAppend(30, 58);
  idx.truncateTo(53);
  assert.is(idx.entries, 1);
  assert.equal(idx.lastEntry(), { timestamp: 10, offset: 51 });
  fs.setContents('/d/t.timeindex', Buffer.alloc(13));
  const torn = await TimeIndex.open(fs, '/d/t.timeindex', 0, 1200);
  assert.throws(() => torn.sanityCheck(), (e: unknown) => e instanceof CorruptIndexError);
});

test.run();
