// Several log dirs (Kafka's JBOD): placement, per-dir checkpoints, dirs failing at start-up and
// at run time (LogDirFailureChannel), on the in-memory Fs with a fault hook per path prefix and
// on real files.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { MemFs, nodeFs, type Fs } from '../../src/storage/fs.js';
import { LogManager, type LogDirFailure } from '../../src/storage/log-manager.js';
import { ManualClock } from '../../src/clock.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { KafkaApiError } from '../../src/errors.js';
import { batch, config, FaultyFs, offsetsOf, tempDir } from './helpers.js';

const DIRS = ['/d1', '/d2', '/d3'];

async function open(fs: Fs, logDirs: string[] = DIRS, onError?: (err: unknown, task: string) => void): Promise<LogManager> {
  return LogManager.open({ fs, logDirs, clock: new ManualClock(), defaults: config({ segmentBytes: 400 }), onError });
}

test('new partitions go to the dir with the fewest partitions; each dir checkpoints its own and restarts find them', async () => {
  const fs = new MemFs();
  const mgr = await open(fs);
  await mgr.loadAll();
  await mgr.createLogs('t', [0, 1, 2, 3, 4], config({ segmentBytes: 400 }), 'dG9waWN0b3BpY3RvcGljdA');
  const where = (topic: string, p: number) => mgr.logDirOf(topic, p)!.path;
  assert.equal([0, 1, 2, 3, 4].map((p) => where('t', p)), ['/d1', '/d2', '/d3', '/d1', '/d2']);
  // d3 holds one partition, the others two: the next goes to d3, then d1 (ties: log.dirs order).
  await mgr.createLog('u', 0);
  await mgr.createLog('u', 1);
  assert.equal([where('u', 0), where('u', 1)], ['/d3', '/d1']);
  for (const p of [0, 1, 2, 3, 4]) await mgr.getLog('t', p)!.appendAsLeader(batch(p + 1), 0);
  await mgr.close();
  for (const d of DIRS) {
    assert.ok(await fs.exists(`${d}/.kafka_cleanshutdown`), `${d} marker`);
    assert.ok(await fs.exists(`${d}/meta.properties`) === false);
  }
  const rp = fs.contents('/d2/recovery-point-offset-checkpoint').toString();
  assert.equal(rp.trim().split('\n').slice(2).sort(), ['t 1 2', 't 4 5'], 'd2 checkpoints exactly its partitions');
  assert.ok(fs.contents('/d1/replication-offset-checkpoint').toString().includes('t 3 4'));

  const again = await open(fs);
  const loaded = await again.loadAll();
  assert.equal(loaded.map((l) => `${l.topic}-${l.partition}@${again.logDirOf(l.topic, l.partition)!.path}:${l.logEndOffset}`),
    ['t-0@/d1:1', 't-1@/d2:2', 't-2@/d3:3', 't-3@/d1:4', 't-4@/d2:5', 'u-0@/d3:0', 'u-1@/d1:0']);
  assert.equal(offsetsOf((await again.getLog('t', 4)!.read(0, 1 << 20, { minOneMessage: true })).records), [0, 1, 2, 3, 4]);
  // The counts include what was loaded: d2 and d3 hold two, d1 three.
  assert.is((await again.createLog('v', 0)).dir, '/d2/v-0');
  await again.close();
});

test('a partition directory in two log dirs refuses the start-up (as Kafka)', async () => {
  const fs = new MemFs();
  await fs.mkdir('/d1/dup-0');
  await fs.mkdir('/d2/dup-0');
  const mgr = await open(fs, ['/d1', '/d2']);
  try {
    await mgr.loadAll();
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, /Duplicate log directories for dup-0/);
  }
});

test('log.dirs naming one dir twice is refused', async () => {
  try {
    await open(new MemFs(), ['/d1', '/d1/']);
    assert.unreachable();
  } catch (e) {
    assert.match((e as Error).message, /Duplicate log directory found/);
  }
});

test('real files: a log dir that is not a directory starts offline; the others serve; all failed refuses', async () => {
  const t = tempDir();
  try {
    const good = path.join(t.dir, 'good');
    const bad = path.join(t.dir, 'bad');
    nodefs.writeFileSync(bad, 'not a directory');
    const errors: string[] = [];
    const mgr = await open(nodeFs, [bad, good], (_e, task) => errors.push(task));
    assert.is(mgr.logDir, good, 'the first online dir');
    await mgr.loadAll();
    const log = await mgr.createLog('t', 0);
    assert.is(log.dir, path.join(good, 't-0'));
    await log.appendAsLeader(batch(2), 0);
    const described = mgr.describeLogDirs();
    assert.equal(described.map((d) => [d.dir, d.error ? (d.error as KafkaApiError).errorCode : 0, d.logs.length]), [[bad, ErrorCode.KAFKA_STORAGE_ERROR, 0], [good, 0, 1]]);
    assert.ok(errors.some((e) => e.includes(bad)), 'the failed dir is logged');
    await mgr.close();
    try {
      await open(nodeFs, [bad]);
      assert.unreachable();
    } catch (e) {
      assert.match((e as Error).message, /None of the specified log dirs/);
    }
  } finally {
    t.cleanup();
  }
});

test('an I/O error under one dir takes that dir offline: its partitions KAFKA_STORAGE_ERROR, listeners told, the other dirs carry on', async () => {
  const fs = new FaultyFs();
  const mgr = await open(fs, ['/d1', '/d2']);
  await mgr.loadAll();
  const failures: LogDirFailure[] = [];
  mgr.onLogDirFailure((f) => failures.push(f));
  await mgr.createLogs('t', [0, 1, 2, 3], config({ segmentBytes: 400 }), 'dG9waWN0b3BpY3RvcGljdA');
  const inD2 = [0, 1, 2, 3].filter((p) => mgr.logDirOf('t', p)!.path === '/d2');
  assert.equal(inD2, [1, 3]);
  for (const p of [0, 1, 2, 3]) await mgr.getLog('t', p)!.appendAsLeader(batch(1), 0);
  const victim = mgr.getLog('t', 1)!;
  fs.broken.add('/d2');
  try {
    await victim.appendAsLeader(batch(1), 0);
    assert.unreachable();
  } catch (e) {
    assert.is((e as KafkaApiError).errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  }
  assert.is(failures.length, 1);
  assert.equal(failures[0].dir, '/d2');
  assert.equal(failures[0].partitions.map((p) => p.partition).sort(), [1, 3]);
  assert.is(failures[0].allFailed, false);
  assert.ok(mgr.isOffline('t', 1) && mgr.isOffline('t', 3));
  assert.is(mgr.getLog('t', 3), undefined);
  assert.equal(mgr.allLogs().map((l) => l.partition).sort(), [0, 2]);
  // The dir refuses every later call, even ones that would have worked.
  fs.broken.delete('/d2');
  try {
    await victim.read(0, 1000, { minOneMessage: true });
    assert.unreachable();
  } catch (e) {
    assert.is((e as KafkaApiError).errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  }
  // Re-creating an offline partition elsewhere is refused (Kafka keeps it Offline until restart).
  try {
    await mgr.createLog('t', 1);
    assert.unreachable();
  } catch (e) {
    assert.is((e as KafkaApiError).errorCode, ErrorCode.KAFKA_STORAGE_ERROR);
  }
  // New partitions go to the dir that is left; the tasks skip the offline one.
  assert.is((await mgr.createLog('u', 0)).dir, '/d1/u-0');
  await mgr.getLog('t', 0)!.appendAsLeader(batch(1), 0);
  await mgr.checkpointHighWatermarks();
  await mgr.checkpointRecoveryPoints();
  assert.equal(mgr.describeLogDirs().map((d) => [d.dir, d.error?.message.includes('offline') ?? false, d.logs.length]), [['/d1', false, 3], ['/d2', true, 0]]);
  await mgr.close();
  assert.ok(await fs.exists('/d1/.kafka_cleanshutdown'));
  assert.not.ok(await fs.exists('/d2/.kafka_cleanshutdown'), 'no marker in the failed dir');
});

test('a failed checkpoint write takes its dir offline; the last dir failing says allFailed', async () => {
  const fs = new FaultyFs();
  const mgr = await open(fs, ['/d1', '/d2']);
  await mgr.loadAll();
  const failures: LogDirFailure[] = [];
  mgr.onLogDirFailure((f) => failures.push(f));
  await mgr.createLog('t', 0);
  await mgr.createLog('t', 1);
  fs.broken.add('/d1/replication-offset-checkpoint');
  await mgr.checkpointHighWatermarks().catch(() => undefined);
  assert.equal(failures.map((f) => [f.dir, f.partitions.length, f.allFailed]), [['/d1', 1, false]]);
  fs.broken.add('/d2');
  await mgr.checkpointRecoveryPoints().catch(() => undefined);
  assert.equal(failures.map((f) => [f.dir, f.allFailed]), [['/d1', false], ['/d2', true]]);
  await mgr.close();
});

test.run();
