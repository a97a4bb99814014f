import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { LeaderEpochCache } from '../../src/storage/leader-epoch-cache.js';

test('assign keeps increasing epochs; lookups, truncation and the checkpoint file', async () => {
  const fs = new MemFs();
  await fs.mkdir('/p');
  const c = await LeaderEpochCache.load(fs, '/p');
  assert.ok(c.assign(1, 0));
  assert.not.ok(c.assign(1, 5), 'same epoch again');
  assert.not.ok(c.assign(0, 9), 'older epoch');
  assert.ok(c.assign(4, 10));
  assert.ok(c.assign(6, 20));
  assert.is(c.epochForOffset(15), 4);
  assert.is(c.epochForOffset(25), 6);
  assert.is(c.earliestEpochAt(0), 1);
  await c.flushIfDirty();
  assert.is(fs.contents('/p/leader-epoch-checkpoint').toString(), '0\n3\n1 0\n4 10\n6 20\n');
  c.truncateFromEnd(20);
  c.truncateFromStart(12);
  assert.equal(c.all, [{ epoch: 4, startOffset: 12 }]);
  await c.flushIfDirty();
  const reloaded = await LeaderEpochCache.load(fs, '/p');
  assert.equal(reloaded.all, [{ epoch: 4, startOffset: 12 }]);
});

test('a damaged checkpoint loads as empty', async () => {
  const fs = new MemFs();
  await fs.mkdir('/p');
  fs.setContents('/p/leader-epoch-checkpoint', Buffer.from('7\nxx\n'));
  const c = await LeaderEpochCache.load(fs, '/p');
  assert.equal(c.all, []);
});

test.run();
