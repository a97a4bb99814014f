import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs, type Fs } from '../../src/storage/fs.js';
import { PartitionLog, type LogConfig } from '../../src/storage/partition-log.js';
import { LogCleaner, type SwapStep } from '../../src/storage/log-cleaner.js';
import { ManualClock } from '../../src/clock.js';
import { buildRecordBatch, decodeRecordBatches, type DecodedRecordBatch } from '../../src/protocol/records/record.js';
import { verifyCrc } from '../../src/protocol/records/record-batch.js';
import { config } from './helpers.js';

const DIR = '/data/table-0';

function open(fs: Fs, clock: ManualClock, overrides: Partial<LogConfig> = {}): Promise<PartitionLog> {
  return PartitionLog.open({
    fs, dir: DIR, topic: 'table', partition: 0, clock,
    config: config({ cleanupPolicy: 'compact', segmentBytes: 600, indexIntervalBytes: 100, ...overrides }),
  });
}

function keyed(key: string, value: string | null, ts: number, o: { producerId?: number; seq?: number; compression?: 'none' | 'gzip' } = {}): Buffer {
  return buildRecordBatch({
    records: [{ key: Buffer.from(key), value: value === null ? null : Buffer.from(value), timestamp: BigInt(ts) }],
    producerId: o.producerId === undefined ? undefined : BigInt(o.producerId), producerEpoch: o.producerId === undefined ? undefined : 0,
    baseSequence: o.seq, compression: o.compression,
  });
}

async function batchesOf(log: PartitionLog): Promise<DecodedRecordBatch[]> {
  const r = await log.read(log.logStartOffset, 1 << 30, { minOneMessage: true });
  return r.records.flatMap((b) => decodeRecordBatches(b));
}

interface Rec { offset: number; key: string; value: string | null }
async function recordsOf(log: PartitionLog): Promise<Rec[]> {
  return (await batchesOf(log)).flatMap((b) => b.records.map((r) => ({ offset: Number(r.offset), key: r.key!.toString(), value: r.value?.toString() ?? null })));
}

/** Writes `versions` rounds over `keys` keys; the value names the key, round and offset. */
async function fill(log: PartitionLog, clock: ManualClock, keys: number, versions: number, compression: 'none' | 'gzip' = 'none'): Promise<Map<string, string>> {
  const latest = new Map<string, string>();
  for (let v = 0; v < versions; v++) {
    for (let k = 0; k < keys; k++) {
      const value = `k${k}-v${v}@${log.logEndOffset}`;
      await log.appendAsLeader(keyed(`k${k}`, value, clock.now(), { compression }), 0);
      latest.set(`k${k}`, value);
      clock.advance(1);
    }
  }
  return latest;
}

function checkLog(recs: Rec[], latest: Map<string, string>, note = ''): void {
  const offsets = recs.map((r) => r.offset);
  assert.equal(offsets, [...offsets].sort((a, b) => a - b), `offsets ascending ${note}`);
  assert.is(new Set(offsets).size, offsets.length, `no duplicate offsets ${note}`);
  for (const r of recs) if (r.value !== null) assert.ok(r.value.endsWith(`@${r.offset}`), `record keeps its offset: ${r.value} at ${r.offset} ${note}`);
  const last = new Map<string, string | null>();
  for (const r of recs) last.set(r.key, r.value);
  for (const [k, v] of latest) assert.is(last.get(k), v, `latest value of ${k} ${note}`);
}

test('cleaning keeps the latest record of every key at its original offset', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  const latest = await fill(log, clock, 5, 20);
  const before = log.sizeBytes;
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  const stats = await cleaner.clean(log);
  assert.ok(stats && stats.segmentsCleaned > 0, 'something was cleaned');
  assert.ok(log.sizeBytes < before, `smaller: ${log.sizeBytes} < ${before}`);
  const recs = await recordsOf(log);
  checkLog(recs, latest);
  const cleanedPart = recs.filter((r) => r.offset < stats!.endOffset);
  assert.is(new Set(cleanedPart.map((r) => r.key)).size, cleanedPart.length, 'one record per key below the first dirty offset');
  for (const b of await batchesOf(log)) assert.ok(b.recordsCount <= 1);
  assert.is(log.logEndOffset, 100);
  // Reading from an offset in a removed gap continues at the next record.
  const gap = cleanedPart.length > 1 ? cleanedPart[0].offset + 1 : 1;
  const r = await log.read(gap, 1 << 20, { minOneMessage: true });
  assert.ok(decodeRecordBatches(r.records[0]).some((b) => b.records.some((x) => Number(x.offset) >= gap)));
  // The rebuilt time index answers ListOffsets by timestamp on the cleaned segments.
  const t0 = 1_700_000_000_000;
  const firstKept = cleanedPart[0];
  const found = await log.offsetForTimestamp(t0);
  assert.is(found?.offset, firstKept.offset, 'earliest timestamp lands on the first kept record');
  const mid = cleanedPart[Math.floor(cleanedPart.length / 2)];
  assert.is((await log.offsetForTimestamp(t0 + mid.offset))?.offset, mid.offset, 'a kept record is found by its own timestamp');
  assert.is((await log.maxTimestampAndOffset()).offset, 99);
  // Reopened after a clean shutdown, the log reads the same.
  await log.close();
  const again = await open(fs, clock);
  assert.equal(await recordsOf(again), recs);
  await again.close();
});

test('compressed batches are rewritten compressed with valid CRCs', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { segmentBytes: 400 });
  for (let v = 0; v < 10; v++) {
    const b = buildRecordBatch({
      compression: 'gzip',
      records: Array.from({ length: 4 }, (_, k) => ({ key: Buffer.from(`k${k}`), value: Buffer.from(`k${k}-v${v}@${log.logEndOffset + k}`), timestamp: BigInt(clock.now() + k) })),
    });
    await log.appendAsLeader(b, 0);
  }
  const latest = new Map(Array.from({ length: 4 }, (_, k) => [`k${k}`, `k${k}-v9@${36 + k}`]));
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  const r = await log.read(0, 1 << 30, { minOneMessage: true });
  for (const chunk of r.records) {
    for (let pos = 0; pos < chunk.length; pos += 12 + chunk.readInt32BE(pos + 8)) assert.ok(verifyCrc(chunk, pos), 'crc');
  }
  for (const b of await batchesOf(log)) assert.is(b.compression, 'gzip');
  checkLog(await recordsOf(log), latest);
  await log.close();
});

test('a tombstone is kept, then removed delete.retention.ms after the pass that saw it', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { deleteRetentionMs: 60_000 });
  await fill(log, clock, 3, 3);
  await log.appendAsLeader(keyed('k1', null, clock.now()), 0);
  const latest = await fill(log, clock, 1, 30); // k0 only: rolls segments past the tombstone
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  let recs = await recordsOf(log);
  const tomb = recs.filter((r) => r.key === 'k1');
  assert.equal(tomb.map((r) => r.value), [null], 'the tombstone is the only k1 record');
  const tombBatch = (await batchesOf(log)).find((b) => b.records.some((r) => r.key!.toString() === 'k1'))!;
  assert.ok(tombBatch.hasDeleteHorizon, 'delete horizon set');
  assert.is(Number(tombBatch.baseTimestamp), clock.now() + 60_000);
  assert.ok(Number(tombBatch.records[0].timestamp) < clock.now(), 'record timestamp unchanged by the horizon');
  // Before the horizon: a pass keeps it.
  clock.advance(30_000);
  await cleaner.runPass();
  assert.equal((await recordsOf(log)).filter((r) => r.key === 'k1').map((r) => r.value), [null]);
  clock.advance(30_001);
  await cleaner.runPass();
  recs = await recordsOf(log);
  assert.equal(recs.filter((r) => r.key === 'k1'), [], 'tombstone gone after delete.retention.ms');
  checkLog(recs, latest);
  assert.ok(recs.some((r) => r.key === 'k2'), 'other keys stay');
  await log.close();
});

test('after a restart, a tombstone past its delete horizon (the bit markers use too) is removed without new writes', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const cfg = { deleteRetentionMs: 60_000, minCleanableDirtyRatio: 0.5 };
  let log = await open(fs, clock, cfg);
  await fill(log, clock, 3, 3);
  await log.appendAsLeader(keyed('k1', null, clock.now()), 0);
  const latest = await fill(log, clock, 1, 30);
  assert.ok(await new LogCleaner({ fs, clock, logs: () => [log] }).clean(log));
  assert.equal((await recordsOf(log)).filter((r) => r.key === 'k1').map((r) => r.value), [null], 'the first pass keeps the tombstone');
  await log.close();
  log = await open(fs, clock, cfg);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.equal(await cleaner.runPass(), [], 'before the horizon nothing is due');
  assert.ok((await cleaner.cleanable(log))!.dirtyRatio < 0.5, 'no dirt to trigger a pass');
  clock.advance(60_001);
  const passes = await cleaner.runPass();
  assert.is(passes.length, 1, 'the horizon recomputed from the clean section makes the log due');
  const recs = await recordsOf(log);
  assert.equal(recs.filter((r) => r.key === 'k1'), [], 'tombstone gone after the restart');
  checkLog(recs, latest);
  assert.equal(await cleaner.runPass(), [], 'and nothing is due afterwards');
  await log.close();
});

test('idempotent producer state survives cleaning: a retried batch is still a duplicate, also after rebuilding from the log', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  let log = await open(fs, clock);
  const pid = 4242;
  let lastBatch: Buffer | null = null;
  for (let seq = 0; seq < 6; seq++) {
    lastBatch = keyed(`k${seq % 2}`, `p-${seq}@${log.logEndOffset}`, clock.now(), { producerId: pid, seq });
    await log.appendAsLeader(Buffer.from(lastBatch), 0);
  }
  const lastOffset = log.logEndOffset - 1;
  // Non-idempotent writes overwrite both keys and roll past the producer's batches.
  const latest = await fill(log, clock, 2, 20);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  const kept = (await batchesOf(log)).filter((b) => Number(b.producerId) === pid);
  assert.equal(kept.map((b) => [Number(b.baseOffset) + b.lastOffsetDelta, b.baseSequence, b.recordsCount]), [[lastOffset, 5, 0]], 'only the last batch of the producer stays, empty');
  const dup = await log.appendAsLeader(Buffer.from(lastBatch!), 0);
  assert.ok(dup.duplicate, 'retry deduplicated');
  assert.is(dup.lastOffset, lastOffset);
  checkLog(await recordsOf(log), latest);
  // Rebuild producer state from the cleaned log alone (no snapshots, unclean shutdown).
  await log.flush();
  fs.crash();
  for (const name of await fs.readdir(DIR)) if (name.endsWith('.snapshot')) await fs.unlink(`${DIR}/${name}`);
  log = await open(fs, clock);
  const again = await log.appendAsLeader(Buffer.from(lastBatch!), 0);
  assert.ok(again.duplicate, 'retry deduplicated after rebuilding from the log');
  const next = await log.appendAsLeader(keyed('k0', 'p-6', clock.now(), { producerId: pid, seq: 6 }), 0);
  assert.not.ok(next.duplicate);
  await log.close();
});

function marker(type: 0 | 1, pid: bigint, ts: number): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(type, 2); // version 0; 0 = ABORT, 1 = COMMIT
  return buildRecordBatch({ records: [{ key, value: Buffer.from([0, 0, 0, 0, 0, 0]), timestamp: BigInt(ts) }], producerId: pid, producerEpoch: 0, transactional: true, control: true });
}

function txnBatch(pid: bigint, seq: number, ts: number, records: [string, string][]): Buffer {
  return buildRecordBatch({
    records: records.map(([k, v]) => ({ key: Buffer.from(k), value: Buffer.from(v), timestamp: BigInt(ts) })),
    producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true,
  });
}

test('committed transactional records are cleaned like others; the COMMIT marker stays while its batches do', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  await log.appendAsLeader(txnBatch(9n, 0, clock.now(), [['k0', 'txn-old'], ['k5', 'txn-keep']]), 0);
  await log.appendAsLeader(marker(1, 9n, clock.now()), 0, { origin: 'coordinator' });
  const latest = await fill(log, clock, 2, 20);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  const recs = await recordsOf(log);
  assert.ok(recs.some((r) => r.value === 'txn-keep' && r.offset === 1), 'the committed record nobody overwrote stays');
  assert.not.ok(recs.some((r) => r.value === 'txn-old'), 'the overwritten committed record goes');
  const m = (await batchesOf(log)).find((b) => b.isControl);
  assert.ok(m && Number(m.baseOffset) === 2 && !m.hasDeleteHorizon, 'marker kept without a horizon');
  checkLog(recs.filter((r) => r.offset > 2), latest);
  await log.close();
});

test('aborted records are removed and never shadow older values; the ABORT marker goes after its delete horizon', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { deleteRetentionMs: 10_000 });
  await log.appendAsLeader(keyed('k0', 'good@0', clock.now()), 0);
  await log.appendAsLeader(txnBatch(9n, 0, clock.now(), [['k0', 'bad'], ['k1', 'bad']]), 0);
  await log.appendAsLeader(marker(0, 9n, clock.now()), 0, { origin: 'coordinator' });
  assert.equal((await log.collectAbortedTransactions(0, 100)).map((t) => [t.firstOffset, t.lastOffset]), [[1, 3]]);
  // The producer writes again, so its last batch (kept even when emptied) is not the aborted one;
  // otherwise that empty batch keeps the marker, as in Kafka.
  await log.appendAsLeader(keyed('k2', 'p9-later', clock.now(), { producerId: 9, seq: 2 }), 0);
  const latestA = await fill(log, clock, 3, 10);
  latestA.set('k0', latestA.get('k0')!);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  let recs = await recordsOf(log);
  assert.not.ok(recs.some((r) => r.value === 'bad'), 'aborted records removed');
  let markers = (await batchesOf(log)).filter((b) => b.isControl);
  assert.is(markers.length, 1, 'the marker stays while the pass saw its batches');
  assert.equal((await log.collectAbortedTransactions(0, 1000)).map((t) => [t.firstOffset, t.lastOffset]), [[1, 3]], 'txnindex entry kept with the marker');
  // A second pass (after more dirty data) sees no batch of the transaction: the marker gets a horizon.
  await fill(log, clock, 3, 10);
  assert.ok(await cleaner.clean(log));
  markers = (await batchesOf(log)).filter((b) => b.isControl);
  assert.is(markers.length, 1);
  assert.ok(markers[0].hasDeleteHorizon, 'marker has a delete horizon');
  clock.advance(10_001);
  const passes = await cleaner.runPass();
  assert.is(passes.length, 1, 'the horizon makes the log due');
  markers = (await batchesOf(log)).filter((b) => b.isControl);
  assert.is(markers.length, 0, 'marker removed after delete.retention.ms');
  assert.equal(await log.collectAbortedTransactions(0, 1000), [], 'and its txnindex entry');
  recs = await recordsOf(log);
  assert.not.ok(recs.some((r) => r.value === 'bad'));
  await log.close();
  const again = await open(fs, clock);
  assert.equal(await recordsOf(again), recs);
  await again.close();
});

test('an aborted record does not make the cleaner drop the value it would have replaced', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  await log.appendAsLeader(keyed('k9', 'good@0', clock.now()), 0);
  await log.appendAsLeader(txnBatch(9n, 0, clock.now(), [['k9', 'bad']]), 0);
  await log.appendAsLeader(marker(0, 9n, clock.now()), 0, { origin: 'coordinator' });
  await fill(log, clock, 3, 10);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  const k9 = (await recordsOf(log)).filter((r) => r.key === 'k9');
  assert.equal(k9.map((r) => r.value), ['good@0']);
  await log.close();
});

test('a log without enough dirty bytes is not cleaned by a pass; min.compaction.lag.ms holds young segments back', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { minCompactionLagMs: 1_000_000 });
  await fill(log, clock, 5, 20);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.equal(await cleaner.runPass(), [], 'segments too young');
  clock.advance(1_000_001);
  const stats = await cleaner.runPass();
  assert.is(stats.length, 1);
  assert.equal(await cleaner.runPass(), [], 'nothing dirty after the pass');
  const info = await cleaner.cleanable(log);
  assert.is(info!.dirtyBytes, 0);
  await log.close();
});

test('max.compaction.lag.ms makes a log due whatever its dirty ratio', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { maxCompactionLagMs: 60_000, minCleanableDirtyRatio: 0.9 });
  await fill(log, clock, 5, 20);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  assert.ok(await cleaner.clean(log));
  const latest = await fill(log, clock, 5, 2);
  const info = await cleaner.cleanable(log);
  assert.ok(info!.dirtyBytes > 0 && info!.dirtyRatio < 0.9, `a little dirt: ratio ${info!.dirtyRatio}`);
  assert.equal(await cleaner.runPass(), []);
  clock.advance(60_001);
  assert.is((await cleaner.runPass()).length, 1, 'due after max.compaction.lag.ms');
  checkLog(await recordsOf(log), latest);
  await log.close();
});

test('a small dedupe buffer cleans the dirty section over several passes', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  const latest = await fill(log, clock, 30, 6);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log], config: { dedupeBufferSize: 24 * 12 } });
  const ends: number[] = [];
  for (let i = 0; i < 20; i++) {
    const s = await cleaner.clean(log);
    if (!s) break;
    ends.push(s.endOffset);
  }
  assert.ok(ends.length > 1, `several passes: ${ends.join(',')}`);
  assert.equal(ends, [...ends].sort((a, b) => a - b), 'the first dirty offset moves forward');
  checkLog(await recordsOf(log), latest);
  await log.close();
});

test('a full offset map ends the pass at the refused record, inside a segment; later passes carry on from there', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { segmentBytes: 4000 });
  const latest = await fill(log, clock, 40, 3);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log], config: { dedupeBufferSize: 24 * 12 } });
  const bases = new Set(log.segmentList.map((s) => s.baseOffset));
  const first = await cleaner.clean(log);
  assert.ok(first, 'a pass ran');
  assert.is(first!.endOffset, 9, 'eleven slots, 0.9 load factor: nine keys, then the tenth key is refused at offset 9');
  assert.not.ok(bases.has(first!.endOffset), 'the end is inside a segment');
  checkLog(await recordsOf(log), latest, 'after the first pass');
  const ends = [first!.endOffset];
  for (let i = 0; i < 30; i++) {
    const s = await cleaner.clean(log);
    if (!s) break;
    ends.push(s.endOffset);
  }
  assert.equal(ends, [...ends].sort((a, b) => a - b), `the first dirty offset moves forward: ${ends.join(',')}`);
  const recs = await recordsOf(log);
  checkLog(recs, latest, 'after all passes');
  const below = recs.filter((r) => r.offset < ends[ends.length - 1]);
  assert.is(new Set(below.map((r) => r.key)).size, below.length, 'one record per key in the cleaned section');
  await log.close();
});

test('appends and reads go on while a pass copies; the swap waits for the queue', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  const latest = await fill(log, clock, 5, 20);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  const pass = cleaner.clean(log);
  const more = (async () => {
    for (let i = 0; i < 30; i++) {
      const value = `k${i % 5}-late${i}@${log.logEndOffset}`;
      await log.appendAsLeader(keyed(`k${i % 5}`, value, clock.now()), 0);
      latest.set(`k${i % 5}`, value);
      await log.read(0, 1 << 20, { minOneMessage: true });
    }
  })();
  const [stats] = await Promise.all([pass, more]);
  assert.ok(stats);
  checkLog(await recordsOf(log), latest);
  assert.is(log.logEndOffset, 130);
  await log.close();
});

test('a pass whose segments changed meanwhile swaps nothing and leaves no files behind', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock, { cleanupPolicy: 'compact,delete' });
  const latest = await fill(log, clock, 5, 20);
  let interfere = true;
  const cleaner = new LogCleaner({
    fs, clock, logs: () => [log],
    onStep: async (step) => {
      if (step === 'cleaned-written' && interfere) {
        interfere = false;
        await log.deleteRecordsBefore(log.segmentList[1].baseOffset);
      }
    },
  });
  assert.is(await cleaner.clean(log), null);
  assert.equal((await fs.readdir(DIR)).filter((n) => /\.(cleaned|swap)$/.test(n)), []);
  checkLog(await recordsOf(log), latest);
  assert.ok(await cleaner.clean(log), 'the next pass cleans');
  checkLog(await recordsOf(log), latest);
  await log.close();
});

test('log.cleaner.io.max.bytes.per.second paces a pass on the clock', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  const latest = await fill(log, clock, 5, 20);
  const dirty = (await new LogCleaner({ fs, clock, logs: () => [log] }).cleanable(log))!.dirtyBytes;
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log], config: { ioMaxBytesPerSecond: 1000 } });
  let done = false;
  const pass = cleaner.clean(log).then((s) => {
    done = true;
    return s;
  });
  let waitedMs = 0;
  while (!done && waitedMs < 1_000_000) {
    await new Promise((r) => setImmediate(r));
    clock.advance(100);
    waitedMs += 100;
  }
  assert.ok(await pass);
  // Reading the dirty bytes twice (offset map, then copy) at 1000 B/s takes about 2 * dirty ms.
  assert.ok(waitedMs >= dirty, `paced: ${waitedMs} ms of clock for ${dirty} dirty bytes`);
  checkLog(await recordsOf(log), latest);
  await log.close();
});

test('stopping the cleaner ends a pass in its copy phase; the log is untouched', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  const latest = await fill(log, clock, 5, 20);
  const before = await recordsOf(log);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log], config: { ioMaxBytesPerSecond: 1000 } });
  const pass = cleaner.runPass();
  await new Promise((r) => setImmediate(r));
  const stopped = cleaner.stop();
  clock.advance(10_000);
  await stopped;
  assert.equal(await pass, []);
  assert.equal(await recordsOf(log), before);
  checkLog(before, latest);
  await log.close();
});

test('replaced segments keep their .deleted files for file.delete.delay.ms; stop() removes them at once', async () => {
  for (const how of ['delay', 'stop'] as const) {
    const fs = new MemFs();
    const clock = new ManualClock();
    const log = await open(fs, clock, { fileDeleteDelayMs: 60_000 });
    const latest = await fill(log, clock, 5, 20);
    const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
    assert.ok(await cleaner.clean(log));
    const deleted = async (): Promise<string[]> => (await fs.readdir(DIR)).filter((n) => n.endsWith('.deleted'));
    assert.ok((await deleted()).length > 0, 'replaced segments renamed .deleted');
    checkLog(await recordsOf(log), latest);
    if (how === 'delay') {
      clock.advance(60_000);
      for (let i = 0; i < 50 && (await deleted()).length > 0; i++) await new Promise((r) => setImmediate(r));
    } else {
      await cleaner.stop();
    }
    assert.equal(await deleted(), [], `removed (${how})`);
    checkLog(await recordsOf(log), latest);
    await log.close();
  }
});

test('a truncation below the first dirty offset sends it back to the log start', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  await fill(log, clock, 5, 20);
  const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
  const first = await cleaner.clean(log);
  assert.ok(first && first.endOffset > 60);
  assert.ok(await log.truncateTo(60));
  const cut = log.logEndOffset; // whole batches: the start of the kept batch holding 60 or after
  assert.ok(cut <= 60 && cut < first!.endOffset, `truncated to ${cut}`);
  // New keys written twice right above the truncation point, then enough to roll past them.
  const latest = new Map<string, string>();
  for (let v = 0; v < 2; v++) {
    for (let k = 0; k < 10; k++) {
      const value = `n${k}-v${v}@${log.logEndOffset}`;
      await log.appendAsLeader(keyed(`n${k}`, value, clock.now()), 0);
      latest.set(`n${k}`, value);
    }
  }
  for (const [k, v] of await fill(log, clock, 3, 20)) latest.set(k, v);
  const stats = await cleaner.clean(log);
  assert.ok(stats);
  const recs = await recordsOf(log);
  const cleanedPart = recs.filter((r) => r.offset < stats!.endOffset);
  assert.is(new Set(cleanedPart.map((r) => r.key)).size, cleanedPart.length, 'the re-written offsets were cleaned too');
  checkLog(recs.filter((r) => r.key.startsWith('n') || r.offset >= cut), latest);
  await log.close();
});

const STEPS: SwapStep[] = ['cleaned-written', 'swap-renamed', 'old-renamed-deleted', 'log-renamed', 'swap-done'];
for (const step of STEPS) {
  test(`a crash at "${step}" recovers to a correct log`, async () => {
    const fs = new MemFs();
    const clock = new ManualClock();
    const log = await open(fs, clock);
    const latest = await fill(log, clock, 5, 20);
    await log.flush();
    const originalOffsets = (await recordsOf(log)).map((r) => r.offset);
    const cleaner = new LogCleaner({
      fs, clock, logs: () => [log],
      onStep: (s) => {
        if (s === step) {
          fs.crash();
          throw new Error(`crash at ${s}`);
        }
      },
    });
    let failed = false;
    await cleaner.clean(log).catch(() => {
      failed = true;
    });
    assert.ok(failed, 'the injected crash stopped the pass');
    const reopened = await open(fs, clock);
    const names = await fs.readdir(DIR);
    assert.equal(names.filter((n) => /\.(cleaned|swap|deleted)$/.test(n)), [], `no leftovers: ${names.join(' ')}`);
    const recs = await recordsOf(reopened);
    checkLog(recs, latest, step);
    for (const r of recs) assert.ok(originalOffsets.includes(r.offset));
    assert.is(reopened.logEndOffset, 100);
    // The next pass cleans what the crash interrupted.
    const cleaner2 = new LogCleaner({ fs, clock, logs: () => [reopened] });
    await cleaner2.clean(reopened);
    checkLog(await recordsOf(reopened), latest, `${step}, cleaned again`);
    await reopened.close();
  });
}

/** A MemFs that crashes (drops unsynced bytes, then throws) before or after its n-th rename. */
class RenameCrashFs extends MemFs {
  armed = 0;
  mode: 'before' | 'after' = 'before';
  renames = 0;
  fired = false;
  override async rename(from: string, to: string): Promise<void> {
    if (this.armed > 0 && ++this.renames === this.armed) {
      this.fired = true;
      if (this.mode === 'after') await super.rename(from, to);
      this.armed = 0;
      this.crash();
      throw new Error(`crash ${this.mode} rename ${this.renames}: ${from} -> ${to}`);
    }
    return super.rename(from, to);
  }
}

test('a crash before or after any rename of a pass merging several segments recovers to a correct log', async () => {
  let runs = 0;
  for (const mode of ['before', 'after'] as const) {
    for (let n = 1; n < 200; n++) {
      const fs = new RenameCrashFs();
      const clock = new ManualClock();
      const log = await open(fs, clock, { segmentBytes: 1200 });
      await fill(log, clock, 5, 20);
      const cleaner = new LogCleaner({ fs, clock, logs: () => [log] });
      assert.ok(await cleaner.clean(log));
      const latest = await fill(log, clock, 5, 12);
      await log.flush();
      const offsets = new Set((await recordsOf(log)).map((r) => r.offset));
      fs.mode = mode;
      fs.armed = n;
      const stats = await cleaner.clean(log).catch(() => null);
      if (!fs.fired) {
        assert.ok(stats && stats.segmentsCleaned > 1, 'the pass merged segments');
        await log.close();
        break;
      }
      runs++;
      const reopened = await open(fs, clock, { segmentBytes: 1200 });
      const names = await fs.readdir(DIR);
      assert.equal(names.filter((x) => /\.(cleaned|swap|deleted)$/.test(x)), [], `no leftovers (${mode} rename ${n}): ${names.join(' ')}`);
      const recs = await recordsOf(reopened);
      checkLog(recs, latest, `${mode} rename ${n}`);
      for (const r of recs) assert.ok(offsets.has(r.offset), `offset ${r.offset} existed (${mode} rename ${n})`);
      assert.is(reopened.logEndOffset, 160);
      await reopened.close();
    }
  }
  assert.ok(runs >= 6, `crashes injected: ${runs}`);
});

test.run();
