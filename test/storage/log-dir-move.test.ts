// Moving a replica between two log dirs of one broker (AlterReplicaLogDirs; Kafka's `-future` log
// and ReplicaAlterLogDirsThread): src/storage/log-dir-move.ts through the LogManager, on the
// in-memory Fs. The throttle (replica.alter.log.dirs.io.max.bytes.per.second) sleeps on the
// ManualClock, which is how these tests hold a move half way.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { LogManager } from '../../src/storage/log-manager.js';
import type { PartitionLog } from '../../src/storage/partition-log.js';
import type { LogDirMove } from '../../src/storage/log-dir-move.js';
import { ManualClock } from '../../src/clock.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { batch, config, FaultyFs, offsetsOf, valuesOf } from './helpers.js';

const DIRS = ['/d1', '/d2', '/d3'];
const TOPIC_ID = 'dG9waWN0b3BpY3RvcGljdA';

async function open(fs: MemFs, clock = new ManualClock(), onError?: (err: unknown, task: string) => void): Promise<LogManager> {
  const mgr = await LogManager.open({ fs, logDirs: DIRS, clock, defaults: config({ segmentBytes: 400 }), onError });
  await mgr.loadAll();
  return mgr;
}

/** A log of `n` one-record batches in /d1 (t-0 goes there: the first partition placed). */
async function logWith(mgr: LogManager, n: number, overrides = {}): Promise<PartitionLog> {
  await mgr.createLogs('t', [0], config({ segmentBytes: 400, ...overrides }), TOPIC_ID);
  const log = mgr.getLog('t', 0)!;
  for (let i = 0; i < n; i++) await log.appendAsLeader(batch(1, { prefix: `r${i}` }), 0);
  return log;
}

async function everything(log: PartitionLog): Promise<string[]> {
  return valuesOf((await log.read(log.logStartOffset, 1 << 30, { minOneMessage: true })).records);
}

/** Waits until `cond` holds, letting the move's steps (setImmediate turns) run. */
async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 10000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(cond(), what);
}

/** Holds a move half way: throttled to `rate` bytes/s on a ManualClock that does not advance. */
function throttle(mgr: LogManager, rate: number): { release: (clock: ManualClock) => void } {
  let bound = rate;
  mgr.alterLogDirsMaxBytesPerSecond = () => bound;
  return { release: (clock) => { bound = Infinity; clock.advance(60_000); } };
}

async function finished(move: LogDirMove): Promise<void> {
  await move.done;
  await move.cleanup;
}

test('a replica moves to another dir while appends and reads go on: same PartitionLog, its data, offsets, producer state and HW, in the new dir only', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  const log = await logWith(mgr, 20);
  assert.is(mgr.logDirOf('t', 0)!.path, '/d1');
  // An idempotent producer's batch: its sequence must survive the move (duplicates still caught).
  const idem = () => buildRecordBatch({ records: [{ key: null, value: Buffer.from('idem'), timestamp: 1_700_000_000_000n }], producerId: 7n, producerEpoch: 0, baseSequence: 0 });
  const first = await log.appendAsLeader(idem(), 3);
  // A file another component keeps in the partition directory (the scheduler's checkpoint) goes along.
  fs.setContents('/d1/t-0/samsa-schedule.checkpoint', Buffer.from('{"version":1}'));
  const gate = throttle(mgr, 1000);

  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d2'), ErrorCode.NONE);
  const move = mgr.logDirMove('t', 0)!;
  assert.ok(move, 'a move runs');
  const futureName = (await fs.readdir('/d2')).find((n) => n.endsWith('-future'));
  assert.match(futureName ?? '', /^t-0\.[0-9a-f]{32}-future$/);
  // DescribeLogDirs: the future replica under /d2, its lag the current log end minus its own.
  await until(() => move.future.logEndOffset > 0, 'the copy started');
  const d2 = mgr.describeLogDirs().find((d) => d.dir === '/d2')!;
  assert.is(d2.futures.length, 1);
  assert.is(d2.futures[0].log.topic, 't');
  assert.is(d2.futures[0].offsetLag, log.logEndOffset - move.future.logEndOffset);
  assert.ok(d2.futures[0].offsetLag > 0, 'held half way by the throttle');
  assert.equal(mgr.describeLogDirs().find((d) => d.dir === '/d1')!.logs, [log]);

  // Appends and reads while it copies, then the throttle lifts and the move ends.
  const appends = Array.from({ length: 30 }, (_, i) => log.appendAsLeader(batch(1, { prefix: `late${i}` }), 3));
  const reads = Array.from({ length: 10 }, () => everything(log));
  gate.release(clock);
  await Promise.all(appends);
  for (const r of await Promise.all(reads)) assert.ok(r.length >= 21);
  await finished(move);

  assert.is(mgr.getLog('t', 0), log, 'the same object');
  assert.is(mgr.logDirOf('t', 0)!.path, '/d2');
  assert.is(log.dir, '/d2/t-0');
  assert.equal(await fs.readdir('/d1').then((n) => n.filter((x) => x.startsWith('t-0'))), [], 'the old copy is gone');
  assert.equal((await fs.readdir('/d2')).filter((x) => x.startsWith('t-0')), ['t-0']);
  assert.is(fs.contents('/d2/t-0/samsa-schedule.checkpoint').toString(), '{"version":1}');
  const values = await everything(log);
  assert.equal(values, [...Array.from({ length: 20 }, (_, i) => `r${i}-0`), 'idem', ...Array.from({ length: 30 }, (_, i) => `late${i}-0`)]);
  assert.equal(offsetsOf((await log.read(0, 1 << 30, { minOneMessage: true })).records), Array.from({ length: 51 }, (_, i) => i));
  assert.is(log.highWatermark, 51);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0], [3, 20]]);
  const dup = await log.appendAsLeader(idem(), 3);
  assert.ok(dup.duplicate, 'the producer state moved with the log');
  assert.is(dup.baseOffset, first.baseOffset);
  // Appends land in the new dir.
  await log.appendAsLeader(batch(1, { prefix: 'after' }), 3);
  assert.is(log.logEndOffset, 52);
  await mgr.checkpointHighWatermarks();
  assert.match(fs.contents('/d2/replication-offset-checkpoint').toString(), /t 0 52/);
  assert.not.match(fs.contents('/d1/replication-offset-checkpoint').toString(), /t 0/);
  await mgr.close();

  // A restart reads it from /d2.
  const again = await open(fs);
  assert.is(again.logDirOf('t', 0)!.path, '/d2');
  assert.is((await everything(again.getLog('t', 0)!)).length, 52);
  await again.close();
});

test('a producer writing all the time does not keep the move from ending (the swap copies the last writes)', async () => {
  const fs = new MemFs();
  const mgr = await open(fs);
  const log = await logWith(mgr, 20);
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  let n = 0;
  let doneAt = -1;
  void move.done.then(() => { doneAt = n; });
  // One append per turn of the event loop, as many turns as the move takes, 3000 at most.
  while (doneAt < 0 && n < 3000) {
    await log.appendAsLeader(batch(1, { prefix: `w${n++}` }), 0);
    await new Promise((r) => setImmediate(r));
  }
  assert.ok(doneAt >= 0 && doneAt < 3000, `the move ended while the producer wrote (after ${n} appends)`);
  await move.cleanup;
  assert.is(log.dir, '/d2/t-0');
  const values = await everything(log);
  assert.is(values.length, 20 + n);
  assert.equal(values.slice(20), Array.from({ length: n }, (_, i) => `w${i}-0`));
  await mgr.close();
});

test('the old copy stays until the reads that pinned its segments end; such a read still works after the rename', async () => {
  const fs = new MemFs();
  const mgr = await open(fs);
  const log = await logWith(mgr, 30);
  const oldSegments = [...log.segmentList];
  assert.ok(oldSegments.length > 2);
  const pinned = oldSegments[0];
  pinned.pin();
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  await move.done;
  assert.is(mgr.logDirOf('t', 0)!.path, '/d2');
  // Not removed yet: a -delete directory waits for the pinned segment.
  await until(() => pinned.dir.endsWith('-delete'), 'the old segments follow the rename');
  const left = (await fs.readdir('/d1')).filter((n) => n.startsWith('t-0'));
  assert.is(left.length, 1);
  assert.match(left[0], /^t-0\.[0-9a-f]{32}-delete$/);
  const bytes = await pinned.read(0, 1 << 20, { minOneMessage: true });
  assert.equal(decodeRecordBatches(bytes!).flatMap((b) => b.records.map((r) => r.value!.toString())).slice(0, 1), ['r0-0']);
  pinned.unpin();
  await move.cleanup;
  assert.equal((await fs.readdir('/d1')).filter((n) => n.startsWith('t-0')), []);
  await mgr.close();
});

test('the cleaner leaves a log being moved alone and cleans it in its new dir afterwards', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  await mgr.createLogs('t', [0], config({ segmentBytes: 300, cleanupPolicy: 'compact' }), TOPIC_ID);
  const log = mgr.getLog('t', 0)!;
  const keyed = (k: number, v: number) => buildRecordBatch({ records: [{ key: Buffer.from(`k${k}`), value: Buffer.from(`v${v}`), timestamp: 1_700_000_000_000n }] });
  for (let v = 0; v < 40; v++) await log.appendAsLeader(keyed(v % 3, v), 0);
  mgr.startBackgroundTasks({ cleaner: { threads: 1, minCleanableRatio: 0.01 } as never, retentionCheckIntervalMs: 1e9 });
  const gate = throttle(mgr, 100);
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  const stats = await mgr.cleaner!.runPass();
  assert.equal(stats, [], 'paused for the move');
  gate.release(clock);
  await finished(move);
  const before = log.sizeBytes;
  const after = await mgr.cleaner!.runPass();
  assert.is(after.length, 1, 'cleaned once moved');
  assert.ok(log.sizeBytes < before);
  const latest = valuesOf((await log.read(log.logStartOffset, 1 << 30, { minOneMessage: true })).records).slice(-3);
  assert.equal(latest, ['v37', 'v38', 'v39']);
  assert.match(fs.contents('/d2/cleaner-offset-checkpoint').toString(), /t 0 \d+/);
  await mgr.close();
});

test('AlterReplicaLogDirs during a move: the same destination NONE (one future log), another one starts over there, the current dir drops the move', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  const log = await logWith(mgr, 20);
  const gate = throttle(mgr, 100);
  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d2'), ErrorCode.NONE);
  const first = mgr.logDirMove('t', 0)!;
  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d2'), ErrorCode.NONE);
  assert.is(mgr.logDirMove('t', 0), first);
  const futures = async (d: string) => (await fs.readdir(d)).filter((n) => n.endsWith('-future'));
  assert.is((await futures('/d2')).length, 1);

  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d3'), ErrorCode.NONE);
  assert.ok(first.stopped);
  assert.equal(await futures('/d2'), [], 'the first future log is deleted');
  assert.is((await futures('/d3')).length, 1);
  const second = mgr.logDirMove('t', 0)!;
  assert.is(second.dest.path, '/d3');

  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d1'), ErrorCode.NONE);
  assert.is(mgr.logDirMove('t', 0), undefined);
  assert.equal(await futures('/d3'), []);
  assert.is(mgr.logDirOf('t', 0)!.path, '/d1');
  gate.release(clock);
  assert.is((await everything(log)).length, 20);
  await mgr.close();
});

test('no move starts while a log dir is offline (KAFKA_STORAGE_ERROR); a deleted partition takes its future log with it', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  await logWith(mgr, 5);
  mgr.logDirs[2].fs.fail(new Error('gone'));
  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d2'), ErrorCode.KAFKA_STORAGE_ERROR);
  assert.is(mgr.logDirMove('t', 0), undefined);
  assert.equal((await fs.readdir('/d2')).filter((n) => n.startsWith('t-0')), []);
  await mgr.close();

  const mgr2 = await open(fs, clock);
  await mgr2.createLogs('u', [0], config({ segmentBytes: 400 }), TOPIC_ID);
  const log = mgr2.getLog('u', 0)!;
  for (let i = 0; i < 10; i++) await log.appendAsLeader(batch(1), 0);
  const from = mgr2.logDirOf('u', 0)!.path;
  const to = DIRS.find((d) => d !== from)!;
  throttle(mgr2, 100);
  assert.is(await mgr2.alterReplicaLogDir('u', 0, to), ErrorCode.NONE);
  assert.ok((await fs.readdir(to)).some((n) => n.startsWith('u-0.')));
  assert.ok(await mgr2.deleteLog('u', 0));
  assert.is(mgr2.logDirMove('u', 0), undefined);
  assert.equal((await fs.readdir(to)).filter((n) => n.startsWith('u-0')), [], 'the future log is deleted');
  assert.equal((await fs.readdir(from)).filter((n) => n.startsWith('u-0')), []);
  await mgr2.close();
});


test('the future log\'s dir failing stops the move (the log stays and serves); the current dir failing takes the partition offline and stops it', async () => {
  const fs = new FaultyFs();
  const clock = new ManualClock();
  const errors: string[] = [];
  const mgr = await open(fs, clock, (_e, task) => errors.push(task));
  const log = await logWith(mgr, 20);
  const gate = throttle(mgr, 100);
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  fs.broken.add('/d2');
  gate.release(clock);
  await log.appendAsLeader(batch(1), 0);
  await until(() => mgr.logDirs[1].isOffline, '/d2 offline');
  await move.done;
  assert.is(mgr.logDirMove('t', 0), undefined);
  assert.is(mgr.logDirOf('t', 0)!.path, '/d1');
  assert.is((await everything(log)).length, 21);
  assert.is(await mgr.alterReplicaLogDir('t', 0, '/d3'), ErrorCode.KAFKA_STORAGE_ERROR, 'no move with a dir offline');
  await mgr.close();

  const fs2 = new FaultyFs();
  const mgr2 = await open(fs2, clock);
  const log2 = await logWith(mgr2, 20);
  const gate2 = throttle(mgr2, 100);
  await mgr2.alterReplicaLogDir('t', 0, '/d3');
  const move2 = mgr2.logDirMove('t', 0)!;
  fs2.broken.add('/d1');
  await log2.appendAsLeader(batch(1), 0).catch(() => undefined);
  gate2.release(clock);
  await until(() => mgr2.isOffline('t', 0), 'the partition is offline');
  await move2.done;
  assert.is(mgr2.logDirMove('t', 0), undefined);
  assert.ok((await fs2.readdir('/d3')).some((n) => n.endsWith('-future')), 'the future log stays (Kafka)');
  await mgr2.close();
});

test('a follower truncation of the current log during the move is followed by the future log', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  const log = await logWith(mgr, 10);
  for (let i = 0; i < 10; i++) await log.appendAsFollower(buildRecordBatch({ baseOffset: BigInt(10 + i), partitionLeaderEpoch: 1, records: [{ key: null, value: Buffer.from(`e1-${i}`), timestamp: 1n }] }));
  const gate = throttle(mgr, 100);
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  gate.release(clock);
  await until(() => move.future.logEndOffset >= 15, 'copied past 15');
  throttle(mgr, 100);
  // The leader of epoch 2 diverged at 12: the current log is cut there and takes the new batches.
  await log.truncateTo(12);
  for (let i = 0; i < 5; i++) await log.appendAsFollower(buildRecordBatch({ baseOffset: BigInt(12 + i), partitionLeaderEpoch: 2, records: [{ key: null, value: Buffer.from(`e2-${i}`), timestamp: 1n }] }));
  mgr.alterLogDirsMaxBytesPerSecond = () => Infinity;
  clock.advance(60_000);
  await finished(move);
  assert.is(log.dir, '/d2/t-0');
  const values = await everything(log);
  assert.equal(values.slice(10), ['e1-0', 'e1-1', 'e2-0', 'e2-1', 'e2-2', 'e2-3', 'e2-4']);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0], [1, 10], [2, 12]]);
  await mgr.close();
});

test('transactions move with the log: an open transaction stays open (LSO), an aborted one stays in the .txnindex', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  const log = await logWith(mgr, 3);
  const txn = (pid: bigint, seq: number) => buildRecordBatch({ records: [{ key: null, value: Buffer.from(`txn${pid}`), timestamp: 1_700_000_000_000n }], producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true });
  const marker = (type: 0 | 1, pid: bigint) => {
    const key = Buffer.alloc(4);
    key.writeInt16BE(type, 2);
    return buildRecordBatch({ records: [{ key, value: Buffer.from([0, 0, 0, 0, 0, 0]), timestamp: 1_700_000_000_000n }], producerId: pid, producerEpoch: 0, transactional: true, control: true });
  };
  await log.appendAsLeader(txn(5n, 0), 0); // offset 3, aborted below
  await log.appendAsLeader(marker(0, 5n), 0, { origin: 'coordinator' }); // 4
  await log.appendAsLeader(txn(6n, 0), 0); // 5, still open
  await log.appendAsLeader(batch(1), 0); // 6
  assert.is(log.lastStableOffset, 5);
  await mgr.alterReplicaLogDir('t', 0, '/d3');
  await finished(mgr.logDirMove('t', 0)!);
  assert.is(log.dir, '/d3/t-0');
  assert.is(log.lastStableOffset, 5, 'the open transaction is still open');
  assert.equal((await log.collectAbortedTransactions(0, 7)).map((t) => [t.producerId, t.firstOffset, t.lastOffset]), [[5, 3, 4]]);
  await log.appendAsLeader(marker(1, 6n), 0, { origin: 'coordinator' });
  assert.is(log.lastStableOffset, 8);
  await mgr.close();
});

test('a restart in the middle of a move loses nothing, starts, and resumes the move from the future log\'s end', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  await logWith(mgr, 25);
  throttle(mgr, 100);
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  // The throttle lets a batch through per 700 ms of the ManualClock.
  await until(() => { clock.advance(1000); return move.future.logEndOffset > 2; }, 'the copy started');
  const futureDir = move.future.dir;
  await mgr.close();
  const copied = move.future.logEndOffset;
  assert.ok(copied > 2 && copied < 25);
  assert.ok(await fs.exists(futureDir), 'the future log stays for the restart');
  assert.match(fs.contents('/d2/recovery-point-offset-checkpoint').toString(), new RegExp(`t 0 ${copied}`), 'checkpointed with its dir');

  const again = await LogManager.open({ fs, logDirs: DIRS, clock, defaults: config({ segmentBytes: 400 }) });
  again.alterLogDirsMaxBytesPerSecond = () => 100;
  await again.loadAll();
  assert.is(again.logDirOf('t', 0)!.path, '/d1', 'still served from its dir');
  const resumed = again.logDirMove('t', 0)!;
  assert.ok(resumed, 'the move resumes');
  assert.is(resumed.dest.path, '/d2');
  assert.is(resumed.future.dir, futureDir, 'the same future log');
  assert.ok(resumed.future.logEndOffset >= copied, 'from where it was');
  again.alterLogDirsMaxBytesPerSecond = () => Infinity;
  clock.advance(60_000);
  await finished(resumed);
  assert.is(again.logDirOf('t', 0)!.path, '/d2');
  assert.is((await everything(again.getLog('t', 0)!)).length, 25);
  assert.equal((await fs.readdir('/d2')).filter((n) => n.startsWith('t-0')), ['t-0']);
  assert.equal((await fs.readdir('/d1')).filter((n) => n.startsWith('t-0')), []);
  await again.close();
});

test('a crash in the middle of a move: the current log serves from its dir, the future log is recovered and the move ends', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const mgr = await open(fs, clock);
  const log = await logWith(mgr, 25);
  await log.flush();
  throttle(mgr, 100);
  await mgr.alterReplicaLogDir('t', 0, '/d2');
  const move = mgr.logDirMove('t', 0)!;
  // The throttle lets a batch through per 700 ms of the ManualClock.
  await until(() => { clock.advance(1000); return move.future.logEndOffset > 2; }, 'the copy started');
  fs.crash();

  const again = await open(fs, clock);
  assert.is(again.logDirOf('t', 0)!.path, '/d1');
  const resumed = again.logDirMove('t', 0)!;
  assert.ok(resumed, 'the move resumes');
  await finished(resumed);
  assert.is(again.logDirOf('t', 0)!.path, '/d2');
  assert.equal(await everything(again.getLog('t', 0)!), Array.from({ length: 25 }, (_, i) => `r${i}-0`));
  await again.close();
});

test.run();
