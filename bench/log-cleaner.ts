/**
 * Log cleaner throughput on this machine: a compacted log on disk (temp dir) of 16 MiB segments,
 * batches of 10 records with 100-byte values over 20,000 keys, uncompressed and lz4; one full
 * cleaning pass; MiB/s of dirty log cleaned, and the event loop's longest stall during the pass
 * (what produce and fetch would wait for at worst).
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
  const stats = await cleaner.clean(log);
  const ms = performance.now() - t0;
  h.disable();
  const dirty = info!.dirtyBytes;
  console.log(
    `${compression.padEnd(5)} dirty ${(dirty / 2 ** 20).toFixed(0)} MiB in ${stats!.segmentsCleaned} segments -> ${(log.sizeBytes / 2 ** 20).toFixed(1)} MiB total (was ${(before / 2 ** 20).toFixed(0)}): ` +
      `${((dirty / 2 ** 20) / (ms / 1000)).toFixed(1)} MiB/s, ${stats!.recordsRead} records read, ${stats!.recordsRetained} kept; ` +
      `event loop max stall ${(h.max / 1e6).toFixed(1)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(1)} ms`,
  );
  await log.close();
}

try {
  await run('none');
  await run('lz4');
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
