/**
 * Log cleaner throughput on this machine: a compacted log on disk (temp dir) of 16 MiB segments,
 * batches of 10 records with 100-byte values over 20,000 keys, uncompressed and lz4; one full
 * cleaning pass; MiB/s of dirty log cleaned, and the event loop's longest stall during the pass
 * (what produce and fetch would wait for at worst). Then the latency of appends of 1 KiB batches
 * to the same log, one every millisecond, while a pass runs and without one (p50/p99/max).
 *
 *   npx tsx bench/log-cleaner.ts [MiB]
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { nodeFs } from '../src/storage/fs.js';
import { PartitionLog, defaultLogConfig } from '../src/storage/partition-log.js';
import { LogCleaner } from '../src/storage/log-cleaner.js';
import { systemClock } from '../src/clock.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';

const totalMiB = Number(process.argv[2] ?? 128);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-bench-cleaner-'));

async function run(compression: 'none' | 'lz4'): Promise<void> {
  const dir = path.join(root, `t-${compression}-0`);
  const log = await PartitionLog.open({
    fs: nodeFs, dir, topic: `t-${compression}`, partition: 0, clock: systemClock,
    config: { ...defaultLogConfig, cleanupPolicy: 'compact', segmentBytes: 16 << 20, fileDeleteDelayMs: 0 },
  });
  const value = Buffer.alloc(100, 7);
  let n = 0;
  while (log.sizeBytes < totalMiB << 20) {
    const records = Array.from({ length: 10 }, () => ({ key: Buffer.from(`key-${(n++ * 7919) % 20000}`), value, timestamp: BigInt(Date.now()) }));
    await log.appendAsLeader(buildRecordBatch({ records, compression }), 0);
  }
  await log.flush();
  const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log] });
  const before = log.sizeBytes;
  const info = await cleaner.cleanable(log);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const cleaning = cleaner.clean(log);
  const during = await appendLatencies(log, cleaning);
  const stats = await cleaning;
  const ms = performance.now() - t0;
  h.disable();
  const idle = await appendLatencies(log, new Promise((r) => setTimeout(r, Math.min(ms, 3000))));
  const dirty = info!.dirtyBytes;
  console.log(
    `${compression.padEnd(5)} dirty ${(dirty / 2 ** 20).toFixed(0)} MiB in ${stats!.segmentsCleaned} segments -> ${(log.sizeBytes / 2 ** 20).toFixed(1)} MiB total (was ${(before / 2 ** 20).toFixed(0)}): ` +
      `${((dirty / 2 ** 20) / (ms / 1000)).toFixed(1)} MiB/s, ${stats!.recordsRead} records read, ${stats!.recordsRetained} kept; ` +
      `event loop max stall ${(h.max / 1e6).toFixed(1)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms`,
  );
  console.log(`      append latency while cleaning ${summary(during)}; without cleaning ${summary(idle)}`);
  await log.close();
}

/** Appends a 1 KiB batch every millisecond until `until` settles; returns each append's latency in ms. */
async function appendLatencies(log: PartitionLog, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => {
    done = true;
  });
  const out: number[] = [];
  const value = Buffer.alloc(1000, 1);
  let i = 0;
  while (!done) {
    const batch = buildRecordBatch({ records: [{ key: Buffer.from(`live-${i++ % 1000}`), value, timestamp: BigInt(Date.now()) }] });
    const t = performance.now();
    await log.appendAsLeader(batch, 0);
    out.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 1));
  }
  return out;
}

function summary(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number): string => (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0).toFixed(2);
  return `n=${s.length} p50 ${q(0.5)} ms, p99 ${q(0.99)} ms, max ${q(1)} ms`;
}

try {
  await run('none');
  await run('lz4');
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
