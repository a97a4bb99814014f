import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { MemFs, nodeFs } from '../../src/storage/fs.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ManualClock } from '../../src/clock.js';
import { batch, config, offsetsOf, tempDir } from './helpers.js';

test('restart reloads every partition with its offsets; -delete directories are removed', async () => {
  const t = tempDir();
  try {
    const clock = new ManualClock();
    const logDirs = `${t.dir}/logs, ${t.dir}/unused`;
    const mgr = await LogManager.open({ fs: nodeFs, logDirs, clock, defaults: config({ segmentBytes: 600 }) });
    assert.is(mgr.logDir, path.join(t.dir, 'logs'), 'the first of log.dirs');
    const a0 = await mgr.createLog('my-topic.v2', 0);
    const a1 = await mgr.createLog('my-topic.v2', 1);
    const b0 = await mgr.createLog('other', 0, undefined, 'b3RoZXJ0b3BpY2lkMDAwMA');
    assert.is(await mgr.createLog('other', 0), b0, 'createLog returns the existing log');
    for (let i = 0; i < 10; i++) await a0.appendAsLeader(batch(2), 0);
    for (let i = 0; i < 3; i++) await a1.appendAsLeader(batch(1), 0);
    await b0.appendAsLeader(batch(4), 0);
    await mgr.close();
    nodefs.mkdirSync(path.join(t.dir, 'logs', 'gone-0.0123456789abcdef0123456789abcdef-delete'));
    nodefs.writeFileSync(path.join(t.dir, 'logs', 'recovery-point-offset-checkpoint'), '0\n0\n');

    const again = await LogManager.open({ fs: nodeFs, logDirs, clock, defaults: config({ segmentBytes: 600 }) });
    const loaded = await again.loadAll();
    assert.equal(loaded.map((l) => [l.topic, l.partition, l.logEndOffset]), [['my-topic.v2', 0, 20], ['my-topic.v2', 1, 3], ['other', 0, 4]]);
    assert.ok(again.getLog('my-topic.v2', 0)!.numberOfSegments > 1);
    assert.is(again.getLog('other', 0)!.topicId, 'b3RoZXJ0b3BpY2lkMDAwMA');
    assert.is(again.getLog('nope', 0), undefined);
    assert.not.ok(nodefs.existsSync(path.join(t.dir, 'logs', 'gone-0.0123456789abcdef0123456789abcdef-delete')));
    const r = await again.getLog('my-topic.v2', 0)!.read(0, 1 << 20, { minOneMessage: true });
    assert.is(offsetsOf(r.records).length, 20);
    assert.is((await again.getLog('my-topic.v2', 1)!.appendAsLeader(batch(1), 0)).baseOffset, 3);
    await again.close();
  } finally {
    t.cleanup();
  }
});

test('deleteTopic removes every partition of the topic and nothing else', async () => {
  const fs = new MemFs();
  const mgr = await LogManager.open({ fs, logDirs: '/kafka-logs', clock: new ManualClock(), defaults: config() });
  for (const p of [0, 1, 2]) await (await mgr.createLog('doomed', p)).appendAsLeader(batch(1), 0);
  await mgr.createLog('doomed-keep', 0);
  assert.is(await mgr.deleteTopic('doomed'), 3);
  assert.equal(await fs.readdir('/kafka-logs'), ['doomed-keep-0']);
  assert.is(mgr.getLog('doomed', 1), undefined);
  await mgr.close();
});

test('background retention runs on the clock every log.retention.check.interval.ms', async () => {
  const fs = new MemFs();
  const clock = new ManualClock(10_000_000);
  const mgr = await LogManager.open({ fs, logDirs: ['/kafka-logs'], clock, defaults: config({ segmentBytes: 200, retentionMs: 60_000 }) });
  const log = await mgr.createLog('t', 0);
  for (let i = 0; i < 8; i++) await log.appendAsLeader(batch(2, { timestamp: 10_000_000 }), 0);
  const segments = log.numberOfSegments;
  assert.ok(segments > 2);
  mgr.startBackgroundTasks({ retentionCheckIntervalMs: 300_000 });
  clock.advance(299_999);
  await mgr.idle();
  assert.is(log.numberOfSegments, segments, 'not yet checked');
  clock.advance(1);
  await mgr.idle();
  assert.is(log.numberOfSegments, 1, 'expired segments deleted, a fresh active segment remains');
  assert.is(log.logStartOffset, 16);
  await mgr.close();
  assert.is(clock.pendingTimers(), 0, 'close leaves no timers');
});

test('the flush task fsyncs logs older than flush.ms; close writes the log dir\'s clean-shutdown marker', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config({ flushMs: 1000 }) });
  const log = await mgr.createLog('t', 0);
  await log.appendAsLeader(batch(2), 0);
  mgr.startBackgroundTasks({ flushIntervalMs: 500 });
  const before = fs.syncCount;
  clock.advance(500);
  await mgr.idle();
  assert.is(fs.syncCount, before, 'last flush is younger than flush.ms');
  clock.advance(500);
  await mgr.idle();
  assert.ok(fs.syncCount > before);
  assert.is(log.unflushedMessages, 0);
  fs.crash();
  const again = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config() });
  const [reloaded] = await again.loadAll();
  assert.is(reloaded.logEndOffset, 2, 'data flushed by flush.ms survived the crash');
  await again.close();
  assert.equal(JSON.parse((await fs.readFile('/kafka-logs/.kafka_cleanshutdown')).toString()), { version: 0, brokerEpoch: -1 });
  assert.not.ok(await fs.exists('/kafka-logs/t-0/.kafka_cleanshutdown'), 'one marker per log dir, none per partition');
});

test('flushAll makes every log durable', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config() });
  await (await mgr.createLog('a', 0)).appendAsLeader(batch(3), 0);
  await (await mgr.createLog('b', 0)).appendAsLeader(batch(5), 0);
  await mgr.flushAll();
  fs.crash();
  const again = await LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config() });
  const logs = await again.loadAll();
  assert.equal(logs.map((l) => l.logEndOffset), [3, 5]);
  await again.close();
});

test.run();
