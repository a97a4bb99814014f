import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { MemFs, nodeFs, type Fs } from '../../src/storage/fs.js';
import { PartitionLog, type LogConfig } from '../../src/storage/partition-log.js';
import { ManualClock } from '../../src/clock.js';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { decodeRecordBatches } from '../../src/protocol/records/record.js';
import { verifyCrc, iterateBatches, baseOffset, lastOffset } from '../../src/protocol/records/record-batch.js';
import { batch, config, offsetsOf, tempDir, valuesOf } from './helpers.js';

const DIR = '/data/orders-0';

function open(fs: Fs, clock: ManualClock, overrides: Partial<LogConfig> = {}, dir = DIR): Promise<PartitionLog> {
  return PartitionLog.open({ fs, dir, topic: 'orders', partition: 0, config: config(overrides), clock });
}

async function rejectsWith(p: Promise<unknown>, code: number, note?: string): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, KafkaApiError, note);
    assert.is((err as KafkaApiError).errorCode, code, note ?? (err as Error).message);
    return;
  }
  assert.unreachable(`expected error code ${code}${note ? ` (${note})` : ''}`);
}

async function readAll(log: PartitionLog, from = log.logStartOffset): Promise<number[]> {
  const r = await log.read(from, 1 << 30, { minOneMessage: true });
  return offsetsOf(r.records);
}

function range(a: number, b: number): number[] {
  return Array.from({ length: b - a }, (_, i) => a + i);
}

test('appends assign consecutive offsets, concatenated batches included; HW follows LEO', async () => {
  const fs = new MemFs();
  const log = await open(fs, new ManualClock());
  const r1 = await log.appendAsLeader(batch(3), 5);
  assert.equal([r1.baseOffset, r1.lastOffset, r1.recordCount, r1.logAppendTimeMs, r1.logStartOffset], [0, 2, 3, -1, 0]);
  const r2 = await log.appendAsLeader(Buffer.concat([batch(2), batch(4)]), 5);
  assert.equal([r2.baseOffset, r2.lastOffset, r2.recordCount], [3, 8, 6]);
  assert.is(log.logEndOffset, 9);
  assert.is(log.highWatermark, 9);
  assert.equal(await readAll(log), range(0, 9));
  const read = await log.read(0, 1 << 20, { minOneMessage: true });
  const batches = read.records.flatMap((b) => [...iterateBatches(b)].map((p) => ({ b, p })));
  assert.equal(batches.map(({ b, p }) => baseOffset(b, p)), [0, 3, 5]);
  for (const { b, p } of batches) {
    assert.ok(verifyCrc(b, p), 'stored batches keep a valid CRC');
    assert.is(b.readInt32BE(p + 12), 5, 'partitionLeaderEpoch stamped');
  }
  await log.close();
});

test('sequential reads (one batch at a time) return the same batches as fresh reads, also after truncation and small maxBytes', async () => {
  const fs = new MemFs();
  const log = await open(fs, new ManualClock());
  for (let i = 0; i < 6; i++) await log.appendAsLeader(batch(2, { valueBytes: 100 }), 0);
  const seen: number[] = [];
  let next = 0;
  while (next < log.logEndOffset) {
    const r = await log.read(next, 1, { minOneMessage: true });
    const offs = offsetsOf(r.records);
    assert.ok(offs.length > 0, `progress at ${next}`);
    seen.push(...offs);
    next = offs[offs.length - 1] + 1;
  }
  assert.equal(seen, range(0, 12));
  const limited = await log.read(4, 1, { minOneMessage: false });
  assert.equal(offsetsOf(limited.records), [], 'without minOneMessage a too-small maxBytes returns nothing');
  assert.equal(offsetsOf((await log.read(4, 1 << 20, { minOneMessage: true, maxOffset: 8 })).records), [4, 5, 6, 7], 'maxOffset bounds a hinted read');
  await log.close();
});

test('appends and reads across segment rolls; a read at any offset starts with the batch containing it', async () => {
  const fs = new MemFs();
  const log = await open(fs, new ManualClock(), { segmentBytes: 2000, indexIntervalBytes: 150 });
  for (let i = 0; i < 60; i++) await log.appendAsLeader(batch(1 + (i % 4), { prefix: `b${i}` }), 0);
  assert.ok(log.numberOfSegments >= 3, `rolled into ${log.numberOfSegments} segments`);
  const leo = log.logEndOffset;
  for (let o = 0; o < leo; o++) {
    const r = await log.read(o, 1, { minOneMessage: true });
    assert.is(r.records.length, 1);
    const b = r.records[0];
    assert.ok(baseOffset(b, 0) <= o && o <= lastOffset(b, 0), `offset ${o} in [${baseOffset(b, 0)}, ${lastOffset(b, 0)}]`);
    assert.is(r.sizeBytes, b.length);
  }
  assert.equal(await readAll(log, 0), range(0, leo), 'a large read continues across segments');
  await log.close();
});

test('fetch at the log end is empty; beyond it or below the log start is OFFSET_OUT_OF_RANGE', async () => {
  const log = await open(new MemFs(), new ManualClock());
  await log.appendAsLeader(batch(2), 0);
  const r = await log.read(2, 1000, { minOneMessage: true });
  assert.equal([r.records.length, r.sizeBytes], [0, 0]);
  await rejectsWith(log.read(3, 1000, { minOneMessage: true }), ErrorCode.OFFSET_OUT_OF_RANGE);
  await rejectsWith(log.read(-1, 1000, { minOneMessage: true }), ErrorCode.OFFSET_OUT_OF_RANGE);
  await log.close();
});

test('minOneMessage returns a first batch larger than maxBytes; without it nothing is returned', async () => {
  const log = await open(new MemFs(), new ManualClock());
  await log.appendAsLeader(batch(5, { valueBytes: 500 }), 0);
  await log.appendAsLeader(batch(1), 0);
  const big = await log.read(0, 100, { minOneMessage: true });
  assert.equal(offsetsOf(big.records), [0, 1, 2, 3, 4], 'only the first batch, whole');
  assert.ok(big.sizeBytes > 100);
  const none = await log.read(0, 100, { minOneMessage: false });
  assert.is(none.sizeBytes, 0);
  await log.close();
});

test('maxBytes cuts at a batch boundary; maxOffset bounds the read', async () => {
  const log = await open(new MemFs(), new ManualClock());
  const size = batch(1).length;
  for (let i = 0; i < 10; i++) await log.appendAsLeader(batch(1), 0);
  const r = await log.read(0, size * 3 + size / 2, { minOneMessage: false });
  assert.equal(offsetsOf(r.records), [0, 1, 2]);
  assert.is(r.sizeBytes, size * 3);
  const bounded = await log.read(4, 1 << 20, { minOneMessage: true, maxOffset: 7 });
  assert.equal(offsetsOf(bounded.records), [4, 5, 6]);
  const atBound = await log.read(7, 1 << 20, { minOneMessage: true, maxOffset: 7 });
  assert.is(atBound.sizeBytes, 0);
  await log.close();
});

test('concurrent appends get offsets in call order', async () => {
  const log = await open(new MemFs(), new ManualClock(), { segmentBytes: 3000 });
  const results = await Promise.all(range(0, 40).map((i) => log.appendAsLeader(batch(2, { prefix: `c${i}` }), 0)));
  assert.equal(results.map((r) => r.baseOffset), range(0, 40).map((i) => i * 2));
  const values = valuesOf((await log.read(0, 1 << 20, { minOneMessage: true })).records);
  assert.is(values[0], 'c0-0');
  assert.is(values[79], 'c39-1');
  await log.close();
});

test('LogAppendTime topics stamp the broker time into maxTimestamp and keep the CRC valid', async () => {
  const clock = new ManualClock(1_800_000_000_000);
  const log = await open(new MemFs(), clock, { messageTimestampType: 'LogAppendTime' });
  const res = await log.appendAsLeader(batch(3, { timestamp: 5 }), 0);
  assert.is(res.logAppendTimeMs, 1_800_000_000_000);
  const stored = (await log.read(0, 1 << 20, { minOneMessage: true })).records[0];
  assert.ok(verifyCrc(stored, 0));
  const d = decodeRecordBatches(stored)[0];
  assert.is(d.timestampType, 'logAppend');
  assert.equal(d.records.map((r) => r.timestamp), [1_800_000_000_000n, 1_800_000_000_000n, 1_800_000_000_000n]);
  await log.close();
});

test('invalid batches are rejected with Kafka codes and nothing is appended', async () => {
  const log = await open(new MemFs(), new ManualClock(), { maxMessageBytes: 400 });
  const bad = batch(2);
  bad[bad.length - 1] ^= 1;
  await rejectsWith(log.appendAsLeader(bad, 0), ErrorCode.CORRUPT_MESSAGE, 'CRC');
  await rejectsWith(log.appendAsLeader(batch(5, { valueBytes: 100 }), 0), ErrorCode.MESSAGE_TOO_LARGE, 'size');
  const v1 = batch(1);
  v1[16] = 1;
  await rejectsWith(log.appendAsLeader(v1, 0), ErrorCode.INVALID_RECORD, 'magic 1 (Produce v3+ answer)');
  assert.is(log.logEndOffset, 0);
  await log.appendAsLeader(batch(1), 0);
  assert.is(log.logEndOffset, 1);
  await log.close();
});

test('segments roll on segment.ms measured from the first batch timestamp', async () => {
  const clock = new ManualClock();
  const log = await open(new MemFs(), clock, { segmentMs: 1000 });
  await log.appendAsLeader(batch(1, { timestamp: 10_000 }), 0);
  await log.appendAsLeader(batch(1, { timestamp: 10_900 }), 0);
  assert.is(log.numberOfSegments, 1);
  await log.appendAsLeader(batch(1, { timestamp: 11_001 }), 0);
  assert.equal(log.segmentBaseOffsets, [0, 2]);
  await log.close();
});

test('segments roll when the offset index is full', async () => {
  const log = await open(new MemFs(), new ManualClock(), { indexIntervalBytes: 1, segmentIndexBytes: 8 * 3 });
  for (let i = 0; i < 10; i++) await log.appendAsLeader(batch(1), 0);
  assert.ok(log.numberOfSegments >= 2, `${log.numberOfSegments} segments`);
  assert.equal(await readAll(log, 0), range(0, 10));
  await log.close();
});

test('offsetForTimestamp finds the first record at or after the target, across segments and compressed batches', async () => {
  const log = await open(new MemFs(), new ManualClock(), { segmentBytes: 600, indexIntervalBytes: 100 });
  // Batch i holds records with timestamps 1000*i + 0..4 (offsets 5i..5i+4).
  for (let i = 0; i < 20; i++) await log.appendAsLeader(batch(5, { timestamp: 1000 * i, compression: i % 3 === 0 ? 'lz4' : 'none' }), 7);
  assert.ok(log.numberOfSegments > 2);
  assert.equal(await log.offsetForTimestamp(0), { offset: 0, timestamp: 0, leaderEpoch: 7 });
  assert.equal(await log.offsetForTimestamp(3002), { offset: 17, timestamp: 3002, leaderEpoch: 7 });
  assert.equal(await log.offsetForTimestamp(3500), { offset: 20, timestamp: 4000, leaderEpoch: 7 });
  assert.equal(await log.offsetForTimestamp(12_003), { offset: 63, timestamp: 12_003, leaderEpoch: 7 });
  assert.is(await log.offsetForTimestamp(19_005), null, 'newer than every record');
  const max = await log.maxTimestampAndOffset();
  assert.equal(max, { offset: 99, timestamp: 19_004, leaderEpoch: 7 });
  await log.close();
});

test('maxTimestampAndOffset picks the first record with the largest timestamp; empty log gives -1/-1', async () => {
  const log = await open(new MemFs(), new ManualClock());
  assert.equal(await log.maxTimestampAndOffset(), { offset: -1, timestamp: -1, leaderEpoch: -1 });
  await log.appendAsLeader(batch(3, { timestamp: 100 }), 0);
  await log.appendAsLeader(batch(3, { timestamp: 500 }), 0); // 500..502
  await log.appendAsLeader(batch(2, { timestamp: 200 }), 0);
  assert.equal(await log.maxTimestampAndOffset(), { offset: 5, timestamp: 502, leaderEpoch: 0 });
  await log.close();
});

test('deleteRecordsBefore moves the log start (even inside a batch), deletes old segments, survives restart', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { segmentBytes: 700 });
  for (let i = 0; i < 20; i++) await log.appendAsLeader(batch(3), 0);
  const segsBefore = log.numberOfSegments;
  await rejectsWith(log.deleteRecordsBefore(61), ErrorCode.OFFSET_OUT_OF_RANGE, 'beyond HW');
  await rejectsWith(log.deleteRecordsBefore(-2), ErrorCode.OFFSET_OUT_OF_RANGE, 'below -1');
  assert.is(await log.deleteRecordsBefore(31), 31);
  assert.is(log.logStartOffset, 31);
  assert.ok(log.numberOfSegments < segsBefore, 'segments wholly below the log start are gone');
  assert.ok(log.segmentBaseOffsets[0] <= 31);
  await rejectsWith(log.read(30, 1000, { minOneMessage: true }), ErrorCode.OFFSET_OUT_OF_RANGE);
  const r = await log.read(31, 1, { minOneMessage: true });
  assert.equal(offsetsOf(r.records), [30, 31, 32], 'the batch containing the log start');
  assert.is(await log.deleteRecordsBefore(10), 31, 'an offset below the log start changes nothing');
  await log.close();
  const again = await open(fs, clock, { segmentBytes: 700 });
  assert.is(again.logStartOffset, 31);
  assert.is(again.logEndOffset, 60);
  assert.is(await again.deleteRecordsBefore(-1), 60, '-1 means the high watermark');
  await again.close();
});

test('deleteRecordsBefore on a compact-only topic is POLICY_VIOLATION', async () => {
  const log = await open(new MemFs(), new ManualClock(), { cleanupPolicy: 'compact' });
  await log.appendAsLeader(batch(1, { keys: true }), 0);
  await rejectsWith(log.deleteRecordsBefore(1), ErrorCode.POLICY_VIOLATION);
  await log.close();
});

test('retention.ms deletes expired segments, including an expired active one (a new segment is rolled)', async () => {
  const fs = new MemFs();
  const clock = new ManualClock(1_000_000);
  const log = await open(fs, clock, { segmentBytes: 200, retentionMs: 10_000, fileDeleteDelayMs: 5000 });
  for (let i = 0; i < 6; i++) await log.appendAsLeader(batch(2, { timestamp: 1_000_000 + i * 1000 }), 0);
  const segs = log.numberOfSegments;
  assert.ok(segs >= 3);
  assert.is(await log.enforceRetention(clock.now() + 5_000), 0, 'nothing expired yet');
  const deleted = await log.enforceRetention(1_000_000 + 2_500 + 10_000);
  assert.ok(deleted >= 1 && deleted < segs, `deleted ${deleted} of ${segs}`);
  assert.ok(log.logStartOffset > 0);
  const files = await fs.readdir(DIR);
  assert.ok(files.some((f) => f.endsWith('.log.deleted')), 'deleted segments are renamed first');
  clock.advance(5000);
  await log.deletionsSettled();
  assert.not.ok((await fs.readdir(DIR)).some((f) => f.endsWith('.deleted')), 'and removed after file.delete.delay.ms');
  const all = await log.enforceRetention(1_000_000 + 100_000);
  assert.ok(all >= 1);
  assert.is(log.numberOfSegments, 1);
  assert.is(log.logStartOffset, 12);
  assert.is(log.logEndOffset, 12);
  assert.equal(log.segmentBaseOffsets, [12]);
  const next = await log.appendAsLeader(batch(1), 0);
  assert.is(next.baseOffset, 12);
  await log.close();
});

test('retention.bytes deletes the oldest segments until the log fits', async () => {
  const log = await open(new MemFs(), new ManualClock(), { segmentBytes: 400, retentionBytes: 1000, retentionMs: -1 });
  for (let i = 0; i < 20; i++) await log.appendAsLeader(batch(2), 0);
  const before = log.sizeBytes;
  assert.ok(before > 1000);
  const deleted = await log.enforceRetention(Date.now());
  assert.ok(deleted > 0);
  assert.ok(log.sizeBytes <= 1000 + 400, `size ${log.sizeBytes}`);
  assert.ok(log.sizeBytes > 1000 - 400);
  assert.is(log.logStartOffset, log.segmentBaseOffsets[0]);
  assert.equal(await readAll(log), range(log.logStartOffset, 40));
  await log.close();
});

test('reopening after a clean close restores offsets and appends continue', async () => {
  const t = tempDir();
  try {
    const dir = path.join(t.dir, 'orders-0');
    const clock = new ManualClock();
    const log = await open(nodeFs, clock, { segmentBytes: 1000, indexIntervalBytes: 100 }, dir);
    for (let i = 0; i < 30; i++) await log.appendAsLeader(batch(2), 0);
    await log.close();
    assert.ok(nodefs.existsSync(path.join(dir, '.kafka_cleanshutdown')));
    const again = await open(nodeFs, clock, { segmentBytes: 1000, indexIntervalBytes: 100 }, dir);
    assert.not.ok(nodefs.existsSync(path.join(dir, '.kafka_cleanshutdown')), 'marker removed while open');
    assert.is(again.logEndOffset, 60);
    assert.is((await again.appendAsLeader(batch(1), 0)).baseOffset, 60);
    assert.equal(await readAll(again), range(0, 61));
    await again.close();
  } finally {
    t.cleanup();
  }
});

async function crashRecoveryCase(damage: (logFile: string, size: number) => void, expectEnd: number): Promise<void> {
  const t = tempDir();
  try {
    const dir = path.join(t.dir, 'orders-0');
    const clock = new ManualClock();
    const log = await open(nodeFs, clock, { indexIntervalBytes: 100 }, dir);
    for (let i = 0; i < 10; i++) await log.appendAsLeader(batch(3), 0);
    // No close(): the process "died"; the last segment is damaged.
    const logFile = path.join(dir, '00000000000000000000.log');
    damage(logFile, nodefs.statSync(logFile).size);
    const again = await open(nodeFs, clock, { indexIntervalBytes: 100 }, dir);
    assert.is(again.logEndOffset, expectEnd);
    assert.equal(await readAll(again), range(0, expectEnd));
    assert.is((await again.appendAsLeader(batch(2), 0)).baseOffset, expectEnd);
    assert.equal(await readAll(again), range(0, expectEnd + 2));
    await again.close();
  } finally {
    t.cleanup();
  }
}

const BATCH3 = batch(3).length;

test('recovery truncates a segment cut in the middle of its last batch', async () => {
  await crashRecoveryCase((f, size) => nodefs.truncateSync(f, size - 7), 27);
});

test('recovery truncates at a batch whose bytes were flipped (CRC mismatch) and drops what follows', async () => {
  await crashRecoveryCase((f) => {
    const b = nodefs.readFileSync(f);
    b[BATCH3 * 7 + 40] ^= 0xff;
    nodefs.writeFileSync(f, b);
  }, 21);
});

test('recovery removes a garbage tail and a zero-filled tail', async () => {
  await crashRecoveryCase((f) => nodefs.appendFileSync(f, Buffer.from('garbage garbage garbage garbage garbage garbage garbage garbage')), 30);
  await crashRecoveryCase((f) => nodefs.appendFileSync(f, Buffer.alloc(4096)), 30);
});

test('corrupt index files are rebuilt on open, even after a clean shutdown', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { indexIntervalBytes: 50 });
  for (let i = 0; i < 20; i++) await log.appendAsLeader(batch(2), 0);
  await log.close();
  fs.setContents(`${DIR}/00000000000000000000.index`, Buffer.from('nonsense index bytes!!'));
  fs.setContents(`${DIR}/00000000000000000000.timeindex`, Buffer.alloc(24, 0xff));
  const again = await open(fs, clock, { indexIntervalBytes: 50 });
  for (let o = 0; o < 40; o++) {
    const r = await again.read(o, 1, { minOneMessage: true });
    assert.ok(baseOffset(r.records[0], 0) <= o && o <= lastOffset(r.records[0], 0), `offset ${o}`);
  }
  assert.equal(await again.offsetForTimestamp(1_700_000_000_001), { offset: 1, timestamp: 1_700_000_000_001, leaderEpoch: 0 });
  await again.close();
  assert.ok(fs.contents(`${DIR}/00000000000000000000.index`).length % 8 === 0);
  assert.ok(fs.contents(`${DIR}/00000000000000000000.index`).length > 0, 'index rebuilt');
});

test('a crash drops unsynced bytes; flushed data survives and appends continue after it', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  for (let i = 0; i < 5; i++) await log.appendAsLeader(batch(2), 0);
  await log.flush();
  for (let i = 0; i < 5; i++) await log.appendAsLeader(batch(2), 0);
  fs.crash();
  const again = await open(fs, clock);
  assert.is(again.logEndOffset, 10);
  assert.equal(await readAll(again), range(0, 10));
  assert.is((await again.appendAsLeader(batch(1), 0)).baseOffset, 10);
  await again.close();
});

test('a failed write answers KAFKA_STORAGE_ERROR and leaves the log consistent', async () => {
  const fs = new MemFs();
  const log = await open(fs, new ManualClock());
  await log.appendAsLeader(batch(2), 0);
  fs.failNextWrite();
  await rejectsWith(log.appendAsLeader(batch(3), 0), ErrorCode.KAFKA_STORAGE_ERROR);
  assert.is(log.logEndOffset, 2);
  assert.is((await log.appendAsLeader(batch(1), 0)).baseOffset, 2);
  assert.equal(await readAll(log), [0, 1, 2]);
  await log.close();
});

test('a failed fsync takes the log offline (KAFKA_STORAGE_ERROR) until reopened', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  await log.appendAsLeader(batch(2), 0);
  fs.failNextSync();
  await rejectsWith(log.flushUpTo(2), ErrorCode.KAFKA_STORAGE_ERROR);
  assert.ok(log.isOffline);
  await rejectsWith(log.appendAsLeader(batch(1), 0), ErrorCode.KAFKA_STORAGE_ERROR);
  await rejectsWith(log.read(0, 100, { minOneMessage: true }), ErrorCode.KAFKA_STORAGE_ERROR);
  await log.close();
  const again = await open(fs, clock);
  assert.equal(await readAll(again), [0, 1]);
  await again.close();
});

test('concurrent flushUpTo calls share fsyncs (group commit)', async () => {
  const fs = new MemFs({ syncLatency: () => new Promise((resolve) => setImmediate(resolve)) });
  const log = await open(fs, new ManualClock());
  const before = fs.syncCount;
  const acks = await Promise.all(
    range(0, 50).map(async () => {
      const r = await log.appendAsLeader(batch(1), 0);
      await log.flushUpTo(r.lastOffset + 1);
      return r.lastOffset;
    }),
  );
  assert.equal(acks, range(0, 50));
  const syncs = fs.syncCount - before;
  assert.ok(syncs >= 1 && syncs <= 3, `50 acknowledgements cost ${syncs} fsyncs`);
  const after = fs.syncCount;
  await log.flushUpTo(50);
  assert.is(fs.syncCount, after, 'already durable: no fsync');
  fs.crash();
  const again = await open(fs, new ManualClock());
  assert.is(again.logEndOffset, 50, 'every acknowledged record survived the crash');
  await again.close();
});

test('flush.messages fsyncs after that many records', async () => {
  const fs = new MemFs();
  const log = await open(fs, new ManualClock(), { flushMessages: 4 });
  const before = fs.syncCount;
  await log.appendAsLeader(batch(3), 0);
  assert.is(fs.syncCount, before);
  await log.appendAsLeader(batch(1), 0);
  assert.is(fs.syncCount, before + 1);
  assert.is(log.unflushedMessages, 0);
  await log.close();
});

test('onAppend listeners fire after appends until unsubscribed', async () => {
  const log = await open(new MemFs(), new ManualClock());
  let calls = 0;
  const off = log.onAppend(() => calls++);
  await log.appendAsLeader(batch(1), 0);
  await log.appendAsLeader(batch(1), 0);
  off();
  await log.appendAsLeader(batch(1), 0);
  assert.is(calls, 2);
  await log.close();
});

test('topic id goes to partition.metadata in Kafka format and a mismatch is refused', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await PartitionLog.open({ fs, dir: DIR, topic: 'orders', partition: 0, config: config(), clock, topicId: 'dGVzdHRvcGljaWQxMjM0NQ' });
  assert.is(fs.contents(`${DIR}/partition.metadata`).toString(), 'version: 0\ntopic_id: dGVzdHRvcGljaWQxMjM0NQ\n');
  await log.close();
  const again = await open(fs, clock);
  assert.is(again.topicId, 'dGVzdHRvcGljaWQxMjM0NQ');
  await again.close();
  await rejectsWith(
    PartitionLog.open({ fs, dir: DIR, topic: 'orders', partition: 0, config: config(), clock, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }),
    ErrorCode.INCONSISTENT_TOPIC_ID,
  );
});

test('delete() removes the partition directory', async () => {
  const fs = new MemFs();
  const log = await open(fs, new ManualClock());
  await log.appendAsLeader(batch(1), 0);
  await log.delete();
  assert.not.ok(await fs.exists(DIR));
  assert.equal(await fs.readdir('/data'), []);
});

test('leader epochs are recorded at their first offset and checkpointed by the next flush, not in the append path', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  await log.appendAsLeader(batch(2), 1);
  await log.appendAsLeader(batch(2), 1);
  await log.appendAsLeader(batch(2), 3);
  assert.equal(log.leaderEpochCache.all, [{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 4 }]);
  assert.not.ok(await fs.exists(`${DIR}/leader-epoch-checkpoint`), 'no fsync of the checkpoint while appending (KAFKA-15046)');
  await log.flushUpTo(log.logEndOffset);
  assert.is(fs.contents(`${DIR}/leader-epoch-checkpoint`).toString(), '0\n2\n1 0\n3 4\n');
  // Durable with the data it describes: after a crash both are back.
  fs.crash();
  const again = await open(fs, clock);
  assert.is(again.logEndOffset, 6);
  assert.equal(again.leaderEpochCache.all, [{ epoch: 1, startOffset: 0 }, { epoch: 3, startOffset: 4 }]);
  await again.close();
});

test('a crash after a flush of the log but before the checkpoint: recovery re-assigns the epochs from the batches', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  await log.appendAsLeader(batch(2), 1);
  await log.appendAsLeader(batch(2), 5);
  // Only the segment is fsynced (as by a roll's flush that dies before the checkpoint write).
  const seg = await fs.open(`${DIR}/00000000000000000000.log`);
  await seg.sync();
  fs.crash();
  const again = await open(fs, clock);
  assert.is(again.logEndOffset, 4);
  assert.equal(again.leaderEpochCache.all, [{ epoch: 1, startOffset: 0 }, { epoch: 5, startOffset: 2 }]);
  await again.close();
});

test.run();
