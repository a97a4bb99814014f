/**
 * Kafka's per-log-dir checkpoint layout (src/storage/log-dir-checkpoints.ts, log-manager.ts):
 * - after a clean stop the log dir holds recovery-point-offset-checkpoint, log-start-offset-
 *   checkpoint, replication-offset-checkpoint and cleaner-offset-checkpoint in Kafka's format
 *   ("0", count, "<topic> <partition> <offset>" lines) and one .kafka_cleanshutdown
 *   ({"version":0,"brokerEpoch":N}); the partition directories hold none of them;
 * - a log dir of the per-partition layout (every PartitionLog's own files, as before issue 19)
 *   loads with its offsets and clean/unclean state, and is converted;
 * - after a crash (no marker) each log is recovered from its checkpointed recovery point: the
 *   segments below it are not even opened;
 * - older segments are opened lazily after a clean stop; a failed log keeps the marker away.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { MemFs, nodeFs } from '../../src/storage/fs.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CoalescedWrite } from '../../src/storage/log-dir-checkpoints.js';
import { ManualClock } from '../../src/clock.js';
import { batch, config, offsetsOf, tempDir } from './helpers.js';

const PER_LOG_DIR = ['.kafka_cleanshutdown', 'cleaner-offset-checkpoint', 'log-start-offset-checkpoint', 'recovery-point-offset-checkpoint', 'replication-offset-checkpoint'];

function lines(file: string): string[] {
  return nodefs.readFileSync(file, 'utf8').split('\n');
}

/** Kafka's checkpoint file: version 0, the count, then the entries (sorted here for comparison). */
function checkpointEntries(file: string): string[] {
  const l = lines(file);
  assert.is(l[0], '0', `${file}: version line`);
  const count = Number(l[1]);
  assert.is(l.length, count + 3, `${file}: count line matches, newline at the end`);
  assert.is(l[count + 2], '');
  for (const e of l.slice(2, 2 + count)) assert.match(e, /^[a-zA-Z0-9._-]+ \d+ \d+$/, `${file}: "<topic> <partition> <offset>"`);
  return l.slice(2, 2 + count).sort();
}

test('a clean stop leaves Kafka\'s per-log-dir files, in Kafka\'s format, and none in the partition directories', async () => {
  const t = tempDir();
  try {
    const clock = new ManualClock(1_000_000);
    const logDirs = path.join(t.dir, 'logs');
    const mgr = await LogManager.open({ fs: nodeFs, logDirs, clock, defaults: config({ segmentBytes: 400 }), brokerEpoch: () => 42 });
    await mgr.loadAll();
    const a = await mgr.createLog('orders', 0);
    const b = await mgr.createLog('orders', 1);
    await mgr.createLog('idle.topic-x', 3);
    for (let i = 0; i < 6; i++) await a.appendAsLeader(batch(2), 0);
    await b.appendAsLeader(batch(3), 0);
    assert.is(await a.deleteRecordsBefore(5), 5);
    await mgr.close();

    const root = nodefs.readdirSync(logDirs).sort();
    assert.equal(root, [...PER_LOG_DIR, 'idle.topic-x-3', 'orders-0', 'orders-1'].sort());
    assert.equal(checkpointEntries(path.join(logDirs, 'recovery-point-offset-checkpoint')), ['idle.topic-x 3 0', 'orders 0 12', 'orders 1 3']);
    assert.equal(checkpointEntries(path.join(logDirs, 'replication-offset-checkpoint')), ['idle.topic-x 3 0', 'orders 0 12', 'orders 1 3']);
    // Only log starts above the first segment's base offset, as Kafka writes them.
    assert.equal(checkpointEntries(path.join(logDirs, 'log-start-offset-checkpoint')), ['orders 0 5']);
    assert.equal(checkpointEntries(path.join(logDirs, 'cleaner-offset-checkpoint')), []);
    assert.equal(JSON.parse(nodefs.readFileSync(path.join(logDirs, '.kafka_cleanshutdown'), 'utf8')), { version: 0, brokerEpoch: 42 });
    for (const p of ['orders-0', 'orders-1', 'idle.topic-x-3']) {
      const names = nodefs.readdirSync(path.join(logDirs, p));
      for (const f of PER_LOG_DIR) assert.not.ok(names.includes(f), `${p} has no ${f}`);
    }
    assert.not.ok(nodefs.readdirSync(path.join(logDirs, 'idle.topic-x-3')).some((n) => n.endsWith('.snapshot')), 'an empty log writes no producer snapshot');

    // The next start reads them: offsets kept, the marker consumed before any log is opened.
    const again = await LogManager.open({ fs: nodeFs, logDirs, clock, defaults: config({ segmentBytes: 400 }) });
    const loaded = await again.loadAll();
    assert.equal(loaded.map((l) => [l.topic, l.partition, l.logStartOffset, l.logEndOffset]), [['idle.topic-x', 3, 0, 0], ['orders', 0, 5, 12], ['orders', 1, 0, 3]]);
    assert.not.ok(nodefs.existsSync(path.join(logDirs, '.kafka_cleanshutdown')), 'marker removed while running');
    await again.close();
  } finally {
    t.cleanup();
  }
});

test('a log dir of the per-partition layout loads (clean and unclean partitions) and is converted', async () => {
  const t = tempDir();
  try {
    const clock = new ManualClock(1_000_000);
    const logDirs = path.join(t.dir, 'logs');
    const open = (partition: number) => PartitionLog.open({ fs: nodeFs, dir: path.join(logDirs, `old-${partition}`), topic: 'old', partition, config: config({ segmentBytes: 300 }), clock });
    // Written the way every partition was before: its own checkpoints and clean-shutdown marker.
    const clean = await open(0);
    for (let i = 0; i < 5; i++) await clean.appendAsLeader(batch(2), 0);
    await clean.deleteRecordsBefore(4);
    await clean.close();
    const crashed = await open(1);
    for (let i = 0; i < 3; i++) await crashed.appendAsLeader(batch(1), 0);
    await crashed.close();
    const p1 = path.join(logDirs, 'old-1');
    nodefs.unlinkSync(path.join(p1, '.kafka_cleanshutdown')); // as if it had crashed
    const log1 = path.join(p1, '00000000000000000000.log');
    nodefs.appendFileSync(log1, Buffer.alloc(30, 7)); // a torn tail only recovery removes
    for (const f of ['.kafka_cleanshutdown', 'recovery-point-offset-checkpoint', 'log-start-offset-checkpoint']) {
      assert.ok(nodefs.existsSync(path.join(logDirs, 'old-0', f)), `old layout: old-0/${f}`);
    }

    const mgr = await LogManager.open({ fs: nodeFs, logDirs, clock, defaults: config({ segmentBytes: 300 }) });
    const loaded = await mgr.loadAll();
    assert.equal(loaded.map((l) => [l.partition, l.logStartOffset, l.logEndOffset]), [[0, 4, 10], [1, 0, 3]]);
    assert.is(offsetsOf((await mgr.getLog('old', 1)!.read(0, 1 << 20, { minOneMessage: true })).records).length, 3, 'the unclean partition was recovered');
    assert.ok(nodefs.statSync(log1).size < 3 * 200, 'its torn tail is gone');
    // Converted: the log dir's files exist, the partition directories' copies are gone.
    assert.equal(checkpointEntries(path.join(logDirs, 'recovery-point-offset-checkpoint')), ['old 0 10', 'old 1 3']);
    assert.equal(checkpointEntries(path.join(logDirs, 'log-start-offset-checkpoint')), ['old 0 4']);
    for (const p of ['old-0', 'old-1']) {
      const names = nodefs.readdirSync(path.join(logDirs, p));
      for (const f of PER_LOG_DIR) assert.not.ok(names.includes(f), `${p}/${f} removed`);
    }
    assert.is((await mgr.getLog('old', 0)!.appendAsLeader(batch(1), 0)).baseOffset, 10);
    await mgr.close();

    const again = await LogManager.open({ fs: nodeFs, logDirs, clock, defaults: config({ segmentBytes: 300 }) });
    assert.equal((await again.loadAll()).map((l) => [l.partition, l.logStartOffset, l.logEndOffset]), [[0, 4, 11], [1, 0, 3]]);
    await again.close();
  } finally {
    t.cleanup();
  }
});

test('after a crash each log recovers from its checkpointed recovery point; segments below it stay closed', async () => {
  const fs = new MemFs();
  const clock = new ManualClock(1_000_000);
  const mgr = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config({ segmentBytes: 250 }) });
  await mgr.loadAll();
  const log = await mgr.createLog('t', 0);
  for (let i = 0; i < 12; i++) await log.appendAsLeader(batch(1), 0);
  await log.flush();
  const rp = log.recoveryPoint;
  assert.is(rp, 12);
  await mgr.checkpointRecoveryPoints();
  const durableSegments = log.numberOfSegments;
  assert.ok(durableSegments >= 3, `several segments (${durableSegments})`);
  for (let i = 0; i < 3; i++) await log.appendAsLeader(batch(1), 0);
  fs.crash(); // no marker: the unflushed appends may be lost, the flushed ones must not

  const again = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config({ segmentBytes: 250 }) });
  const [reloaded] = await again.loadAll();
  assert.ok(reloaded.logEndOffset >= 12, `flushed records survive (log end ${reloaded.logEndOffset})`);
  const segs = reloaded.segmentList;
  const recoverFrom = segs.findIndex((s, i) => i === segs.length - 1 || segs[i + 1].baseOffset > rp);
  for (let i = 0; i < recoverFrom; i++) assert.not.ok(segs[i].isFileOpen, `segment ${segs[i].baseOffset} below the recovery point was not opened`);
  assert.ok(segs[segs.length - 1].isFileOpen);
  assert.is(offsetsOf((await reloaded.read(0, 1 << 20, { minOneMessage: true })).records)[0], 0, 'reading opens an older segment');
  assert.ok(segs[0].isFileOpen);
  await again.close();
});

test('after a clean stop only the active segment is opened; a failed log keeps the marker away', async () => {
  const fs = new MemFs();
  const clock = new ManualClock(1_000_000);
  const mgr = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config({ segmentBytes: 250 }) });
  await mgr.loadAll();
  const a = await mgr.createLog('a', 0);
  const b = await mgr.createLog('b', 0);
  for (let i = 0; i < 10; i++) await a.appendAsLeader(batch(1), 0);
  await b.appendAsLeader(batch(1), 0);
  await mgr.close();
  assert.ok(await fs.exists('/kafka-logs/.kafka_cleanshutdown'));

  const again = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config({ segmentBytes: 250 }) });
  await again.loadAll();
  const segs = again.getLog('a', 0)!.segmentList;
  assert.ok(segs.length > 2);
  assert.equal(segs.map((s) => s.isFileOpen), [...segs.slice(1).map(() => false), true]);
  await again.getLog('b', 0)!.appendAsLeader(batch(1), 0);
  fs.failNextSync(); // b's flush at close fails: b goes offline
  await again.close();
  assert.not.ok(await fs.exists('/kafka-logs/.kafka_cleanshutdown'), 'no marker after a failed log');
  const third = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config({ segmentBytes: 250 }) });
  const logs = await third.loadAll();
  assert.equal(logs.map((l) => l.logEndOffset), [10, 2]);
  await third.close();
});

test('CoalescedWrite: a request while a write runs shares the next one, which starts after it', async () => {
  const started: number[] = [];
  let release: (() => void) | null = null;
  let value = 0;
  const w = new CoalescedWrite(async () => {
    started.push(value);
    await new Promise<void>((r) => { release = r; });
  });
  value = 1;
  const first = w.request();
  value = 2;
  const second = w.request();
  value = 3;
  const third = w.request();
  assert.is(second, third, 'callers during a write share the next');
  release!();
  await first;
  await Promise.resolve();
  await new Promise((r) => setImmediate(r));
  assert.equal(started, [1, 3], 'the second write saw the last change');
  release!();
  await second;
  await w.idle();
});

test.run();
