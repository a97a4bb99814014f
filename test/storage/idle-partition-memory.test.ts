/**
 * What an idle partition keeps in memory (issue 19, 10,000 partitions): an empty index holds no
 * buffer until its first entry, a new log's active segment lets go of its (empty) indexes after
 * creating their files, and both still answer lookups after appends and after a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { MemFs, nodeFs } from '../../src/storage/fs.js';
import { OffsetIndex } from '../../src/storage/offset-index.js';
import { TimeIndex } from '../../src/storage/time-index.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ManualClock } from '../../src/clock.js';
import { batch, config, offsetsOf, tempDir } from './helpers.js';

test('an empty index allocates nothing; its first append does, and a reloaded index holds just its entries', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d');
  const oi = await OffsetIndex.open(fs, '/d/00000000000000000100.index', 100, 4096);
  const ti = await TimeIndex.open(fs, '/d/00000000000000000100.timeindex', 100, 4096);
  assert.is(oi.allocatedBytes, 0, 'no buffer for an empty offset index');
  assert.is(ti.allocatedBytes, 0, 'no buffer for an empty time index');
  assert.equal(oi.lookup(150), { offset: 100, position: 0 });
  assert.equal(ti.lookup(5000), { timestamp: -1, offset: 100 });
  for (let i = 1; i <= 3; i++) {
    oi.append(100 + i * 10, i * 1000);
    ti.maybeAppend(1000 + i, 100 + i * 10);
  }
  assert.ok(oi.allocatedBytes >= 3 * 8 && ti.allocatedBytes >= 3 * 12, 'the first append made room');
  assert.equal(oi.lookup(125), { offset: 120, position: 2000 });
  await Promise.all([oi.close(), ti.close()]);

  const oi2 = await OffsetIndex.open(fs, '/d/00000000000000000100.index', 100, 4096);
  const ti2 = await TimeIndex.open(fs, '/d/00000000000000000100.timeindex', 100, 4096);
  assert.is(oi2.allocatedBytes, 3 * 8, 'a reloaded index holds its entries, no spare room');
  assert.is(ti2.allocatedBytes, 3 * 12);
  assert.equal(oi2.lookup(125), { offset: 120, position: 2000 });
  assert.equal(ti2.lookup(1002), { timestamp: 1002, offset: 120 });
  // Appends after a reload grow the exact-size buffer.
  oi2.append(140, 4000);
  ti2.maybeAppend(1004, 140);
  assert.equal(oi2.lookup(1000), { offset: 140, position: 4000 });
  assert.equal(ti2.lookup(9999), { timestamp: 1004, offset: 140 });
  assert.is(oi2.entries, 4);
});

test('a new log keeps no index in memory, yet creates the index files; appends and a restart find every offset', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const opts = { fs, dir: '/p/t-0', topic: 't', partition: 0, config: config({ indexIntervalBytes: 100 }), clock };
  const log = await PartitionLog.open(opts);
  const active = () => log.segmentList[log.segmentList.length - 1];
  assert.not.ok(active().indexesLoaded, 'an idle partition holds no index');
  assert.ok(await fs.exists('/p/t-0/00000000000000000000.index'), 'the .index file exists (Kafka layout)');
  assert.ok(await fs.exists('/p/t-0/00000000000000000000.timeindex'), 'the .timeindex file exists');
  // A fetch of an empty log reads nothing and loads nothing.
  assert.equal((await log.read(0, 1 << 20, { minOneMessage: true })).records, []);
  assert.not.ok(active().indexesLoaded, 'an empty read loads no index');

  for (let i = 0; i < 20; i++) await log.appendAsLeader(batch(3, { timestamp: 1_700_000_000_000 + i * 10 }), 0);
  assert.ok(active().indexesLoaded, 'the first append loaded the indexes');
  for (const at of [0, 7, 31, 59]) {
    const r = await log.read(at, 1, { minOneMessage: true });
    assert.ok(offsetsOf(r.records).includes(at), `offset ${at} found`);
  }
  await log.close();
  assert.ok(fs.contents('/p/t-0/00000000000000000000.index').length > 0, 'index entries were written back');

  const again = await PartitionLog.open(opts);
  assert.is(again.logEndOffset, 60);
  for (const at of [0, 13, 44, 59]) {
    const r = await again.read(at, 1, { minOneMessage: true });
    assert.ok(offsetsOf(r.records).includes(at), `offset ${at} found after the restart`);
  }
  const ts = await again.offsetForTimestamp(1_700_000_000_000 + 105);
  assert.is(ts?.offset, 33, 'the time index answers after the restart');
  await again.close();
});

test('on disk: logs created together have empty .index and .timeindex files (Kafka layout) and the epoch of a leader beside partition.metadata', async () => {
  const t = tempDir();
  try {
    const mgr = await LogManager.open({ fs: nodeFs, logDirs: t.dir, clock: new ManualClock(), defaults: config() });
    await mgr.loadAll();
    // Even partitions are led here at epoch 3: their epoch is written with partition.metadata.
    await mgr.createLogs('many', [0, 1, 2, 3], config(), 'bWFueXBhcnRpdGlvbnMwMA', (p) => (p % 2 === 0 ? 3 : undefined));
    for (let p = 0; p < 4; p++) {
      const dir = path.join(t.dir, `many-${p}`);
      assert.equal(nodefs.readdirSync(dir).filter((f) => /^0+\./.test(f)).sort(), ['00000000000000000000.index', '00000000000000000000.log', '00000000000000000000.timeindex']);
      assert.is(nodefs.statSync(path.join(dir, '00000000000000000000.index')).size, 0);
      assert.not.ok(mgr.getLog('many', p)!.segmentList[0].indexesLoaded);
      assert.is(nodefs.readFileSync(path.join(dir, 'partition.metadata'), 'utf8'), 'version: 0\ntopic_id: bWFueXBhcnRpdGlvbnMwMA\n');
      const epochs = path.join(dir, 'leader-epoch-checkpoint');
      if (p % 2 === 0) assert.is(nodefs.readFileSync(epochs, 'utf8'), '0\n1\n3 0\n', `partition ${p}: its leader's epoch`);
      else assert.not.ok(nodefs.existsSync(epochs), `partition ${p}: no epoch yet`);
      assert.equal(nodefs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
    }
    await mgr.getLog('many', 2)!.appendAsLeader(batch(2), 0);
    await mgr.close();
  } finally {
    t.cleanup();
  }
});

test.run();
