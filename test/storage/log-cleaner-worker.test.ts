import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as nodefs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { nodeFs } from '../../src/storage/fs.js';
import { PartitionLog, type LogConfig } from '../../src/storage/partition-log.js';
import { LogCleaner, type SwapStep } from '../../src/storage/log-cleaner.js';
import { CleanerStopped } from '../../src/storage/cleaner-runner.js';
import { systemClock } from '../../src/clock.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { config, tempDir } from './helpers.js';

function open(dir: string, overrides: Partial<LogConfig> = {}): Promise<PartitionLog> {
  return PartitionLog.open({
    fs: nodeFs, dir, topic: 'table', partition: 0, clock: systemClock,
    config: config({ cleanupPolicy: 'compact', segmentBytes: 200_000, indexIntervalBytes: 1000, ...overrides }),
  });
}

interface Rec { offset: number; key: string; value: string | null }
async function recordsOf(log: PartitionLog): Promise<Rec[]> {
  const r = await log.read(log.logStartOffset, 1 << 30, { minOneMessage: true });
  return r.records.flatMap((b) => decodeRecordBatches(b)).flatMap((b) =>
    b.records.map((x) => ({ offset: Number(x.offset), key: x.key!.toString(), value: x.value === null ? null : x.value.subarray(0, 40).toString() })),
  );
}

/** `versions` rounds over `keys` keys, lz4 batches of 5 records; every 7th key's last version is a random 80 KiB value (a batch larger than one 64 KiB read). */
async function fill(log: PartitionLog, keys: number, versions: number): Promise<Map<string, string>> {
  const latest = new Map<string, string>();
  for (let v = 0; v < versions; v++) {
    for (let k = 0; k < keys; k += 5) {
      const records = [];
      for (let i = k; i < k + 5 && i < keys; i++) {
        const text = `k${i}-v${v}@${log.logEndOffset + (i - k)}`;
        const big = v === versions - 1 && i % 7 === 0;
        records.push({ key: Buffer.from(`k${i}`), value: big ? Buffer.concat([Buffer.from(text.padEnd(40)), randomBytes(80 << 10)]) : Buffer.from(text), timestamp: BigInt(Date.now()) });
        latest.set(`k${i}`, big ? text.padEnd(40) : text);
      }
      await log.appendAsLeader(buildRecordBatch({ records, compression: 'lz4' }), 0);
    }
  }
  return latest;
}

function leftovers(dir: string): string[] {
  return nodefs.readdirSync(dir).filter((n) => /\.(cleaned|swap)$/.test(n));
}

test('a pass copies in a worker thread on real files: one record per key, latest values, offsets kept', async () => {
  const { dir: root, cleanup } = tempDir('samsa-cleaner-worker-');
  const dir = path.join(root, 'table-0');
  try {
    const log = await open(dir);
    const latest = await fill(log, 200, 6);
    await log.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from('tail'), value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] }), 0);
    const before = log.sizeBytes;
    const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log] });
    assert.ok(cleaner.usesWorkerThreads, 'the real file system gets a worker thread');
    const stats = await cleaner.clean(log);
    await cleaner.stop();
    assert.ok(stats && stats.segmentsCleaned > 1, 'segments were cleaned');
    assert.ok(stats!.bytesRead > 0 && stats!.recordsRead > stats!.recordsRetained, `worker stats came back: ${JSON.stringify(stats)}`);
    assert.ok(log.sizeBytes < before, `smaller: ${log.sizeBytes} < ${before}`);
    const recs = await recordsOf(log);
    const offsets = recs.map((r) => r.offset);
    assert.equal(offsets, [...offsets].sort((a, b) => a - b), 'offsets ascending');
    for (const r of recs) if (r.key !== 'tail') assert.ok(r.value!.trimEnd().endsWith(`@${r.offset}`), `record keeps its offset: ${r.value} at ${r.offset}`);
    const cleaned = recs.filter((r) => r.offset < stats!.endOffset);
    assert.is(new Set(cleaned.map((r) => r.key)).size, cleaned.length, 'one record per key below the first dirty offset');
    const last = new Map(recs.map((r) => [r.key, r.value]));
    for (const [k, v] of latest) assert.is(last.get(k), v, `latest value of ${k}`);
    assert.equal(leftovers(dir), []);
    await log.close();
    const again = await open(dir);
    assert.equal(await recordsOf(again), recs, 'the cleaned log reads the same after reopening');
    await again.close();
  } finally {
    cleanup();
  }
});

test('stopping the cleaner stops the worker in its copy phase; the log is untouched and its .cleaned files go at the next load', async () => {
  const { dir: root, cleanup } = tempDir('samsa-cleaner-worker-');
  const dir = path.join(root, 'table-0');
  try {
    const log = await open(dir);
    await fill(log, 100, 4);
    await log.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from('tail'), value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] }), 0);
    const before = await recordsOf(log);
    const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log], config: { ioMaxBytesPerSecond: 1_000_000 } });
    const pass = cleaner.clean(log).then(() => null, (err: unknown) => err);
    while (leftovers(dir).length === 0) await new Promise((r) => setTimeout(r, 5));
    await cleaner.stop();
    const err = await pass;
    assert.ok(err instanceof CleanerStopped, `the pass ends stopped: ${String(err)}`);
    assert.equal(await recordsOf(log), before, 'nothing swapped');
    await log.close();
    const again = await open(dir);
    assert.equal(leftovers(dir), [], 'the loader removed the .cleaned files');
    assert.equal(await recordsOf(again), before);
    await again.close();
  } finally {
    cleanup();
  }
});

test('after a restart the worker finds the delete horizon in the clean section: a due tombstone goes without new writes', async () => {
  const { dir: root, cleanup } = tempDir('samsa-cleaner-worker-');
  const dir = path.join(root, 'table-0');
  try {
    const cfg = { deleteRetentionMs: 100, segmentBytes: 2000 };
    const log = await open(dir, cfg);
    const put = (key: string, value: string | null) => log.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from(key), value: value === null ? null : Buffer.from(value), timestamp: BigInt(Date.now()) }] }), 0);
    for (let v = 0; v < 20; v++) for (let k = 0; k < 5; k++) await put(`k${k}`, `k${k}-v${v}`);
    await put('k1', null);
    for (let v = 0; v < 30; v++) await put('k0', `k0-late${v}`);
    const first = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log] });
    assert.ok(await first.clean(log));
    await first.stop();
    assert.equal((await recordsOf(log)).filter((r) => r.key === 'k1').map((r) => r.value), [null], 'the first pass keeps the tombstone');
    await log.close();
    const again = await open(dir, cfg);
    await new Promise((r) => setTimeout(r, 150));
    const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [again] });
    assert.ok(cleaner.usesWorkerThreads);
    assert.ok((await cleaner.cleanable(again))!.dirtyRatio < 0.5, 'no dirt to trigger a pass');
    const passes = await cleaner.runPass();
    await cleaner.stop();
    assert.is(passes.length, 1, 'the recomputed horizon makes the log due');
    assert.equal((await recordsOf(again)).filter((r) => r.key === 'k1'), [], 'tombstone gone');
    await again.close();
  } finally {
    cleanup();
  }
});

test('log.cleaner.threads=2: a pass cleans two logs concurrently through the worker pool', async () => {
  const { dir: root, cleanup } = tempDir('samsa-cleaner-worker-');
  try {
    const logs = [await open(path.join(root, 'table-0')), await PartitionLog.open({
      fs: nodeFs, dir: path.join(root, 'other-0'), topic: 'other', partition: 0, clock: systemClock,
      config: config({ cleanupPolicy: 'compact', segmentBytes: 200_000, indexIntervalBytes: 1000 }),
    })];
    const latest = [await fill(logs[0]!, 100, 4), await fill(logs[1]!, 100, 4)];
    for (const l of logs) await l.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from('tail'), value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] }), 0);
    const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => logs, config: { threads: 2 } });
    const passes = await cleaner.runPass();
    await cleaner.stop();
    assert.is(passes.length, 2, 'both logs cleaned');
    for (const [i, l] of logs.entries()) {
      const last = new Map((await recordsOf(l)).map((r) => [r.key, r.value]));
      for (const [k, v] of latest[i]!) assert.is(last.get(k), v, `${l.topic}: latest value of ${k}`);
      await l.close();
    }
  } finally {
    cleanup();
  }
});

const STEPS: SwapStep[] = ['cleaned-written', 'swap-renamed', 'old-renamed-deleted', 'log-renamed', 'swap-done'];

for (const step of STEPS) {
  test(`real files, copy in a worker: the process dying at "${step}" leaves a log that loads correct`, async () => {
    const { dir: root, cleanup } = tempDir('samsa-cleaner-worker-');
    const dir = path.join(root, 'table-0');
    try {
      const log = await open(dir);
      const latest = await fill(log, 40, 5);
      await log.appendAsLeader(buildRecordBatch({ records: [{ key: Buffer.from('tail'), value: Buffer.from('x'), timestamp: BigInt(Date.now()) }] }), 0);
      await log.flush();
      const before = await recordsOf(log);
      const cleaner = new LogCleaner({
        fs: nodeFs, clock: systemClock, logs: () => [log],
        onStep: (s) => {
          if (s === step) throw new Error(`died at ${s}`);
        },
      });
      assert.ok(cleaner.usesWorkerThreads);
      const err = await cleaner.clean(log).then(() => null, (e: unknown) => e);
      await cleaner.stop();
      assert.match(String(err), `died at ${step}`);
      // The dead process's log object is abandoned, as a crash would; everything on disk was synced.
      const again = await open(dir);
      assert.equal(nodefs.readdirSync(dir).filter((n) => /\.(cleaned|swap|deleted)$/.test(n)), [], 'no leftovers after loading');
      const recs = await recordsOf(again);
      const last = new Map(recs.map((r) => [r.key, r.value]));
      for (const [k, v] of latest) assert.is(last.get(k), v, `latest value of ${k} (${step})`);
      const offsets = recs.map((r) => r.offset);
      assert.equal(offsets, [...offsets].sort((a, b) => a - b), 'ascending, no duplicates');
      assert.is(new Set(offsets).size, offsets.length);
      for (const o of offsets) assert.ok(before.some((r) => r.offset === o), `offset ${o} was written`);
      assert.is(again.logEndOffset, log.logEndOffset);
      await again.close();
    } finally {
      cleanup();
    }
  });
}

test.run();
