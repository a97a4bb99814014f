/**
 * Log cleaner throughput on this machine: a compacted log on disk (temp dir) of 16 MiB segments,
 * batches of 10 records with 100-byte values over 20,000 keys, uncompressed and lz4; one full
 * cleaning pass, copying on the event loop and then (on a fresh copy of the same log) in a worker
 * thread; MiB/s of dirty log cleaned, and the event loop's delay during the pass (what produce
 * and fetch would wait for). Then the latency of appends of 1 KiB batches to the same log, one
 * every millisecond, while a pass runs and without one (p50/p99/max). The worker figure includes
 * starting the worker (loading the cleaner's modules in it). The main thread's event-loop
 * utilization (ELU) during the pass shows the work it did itself; the delay figures also include
 * waiting for a CPU, which on a shared machine the worker (and everything else) competes for.
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

const logConfig = { ...defaultLogConfig, cleanupPolicy: 'compact', segmentBytes: 16 << 20, fileDeleteDelayMs: 0 };

async function build(compression: 'none' | 'lz4'): Promise<string> {
  const dir = path.join(root, `t-${compression}-0`);
  const log = await PartitionLog.open({ fs: nodeFs, dir, topic: `t-${compression}`, partition: 0, clock: systemClock, config: logConfig });
  const value = Buffer.alloc(100, 7);
  let n = 0;
  while (log.sizeBytes < totalMiB << 20) {
    const records = Array.from({ length: 10 }, () => ({ key: Buffer.from(`key-${(n++ * 7919) % 20000}`), value, timestamp: BigInt(Date.now()) }));
    await log.appendAsLeader(buildRecordBatch({ records, compression }), 0);
  }
  await log.close();
  return dir;
}

async function run(compression: 'none' | 'lz4', source: string, workerThreads: boolean): Promise<void> {
  const mode = workerThreads ? 'worker' : 'event-loop';
  const dir = path.join(root, `t-${compression}-${mode}`, `t-${compression}-0`);
  fs.cpSync(source, dir, { recursive: true });
  const log = await PartitionLog.open({ fs: nodeFs, dir, topic: `t-${compression}`, partition: 0, clock: systemClock, config: logConfig });
  const cleaner = new LogCleaner({ fs: nodeFs, clock: systemClock, logs: () => [log], workerThreads });
  if (cleaner.usesWorkerThreads !== workerThreads) throw new Error(`cleaner did not take workerThreads=${workerThreads}`);
  const before = log.sizeBytes;
  const info = await cleaner.cleanable(log);
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const elu0 = performance.eventLoopUtilization();
  const t0 = performance.now();
  const cleaning = cleaner.clean(log);
  const during = await appendLatencies(log, cleaning);
  const stats = await cleaning;
  const ms = performance.now() - t0;
  const elu = performance.eventLoopUtilization(elu0).utilization;
  h.disable();
  const hIdle = monitorEventLoopDelay({ resolution: 1 });
  hIdle.enable();
  const idle = await appendLatencies(log, new Promise((r) => setTimeout(r, Math.min(ms, 3000))));
  hIdle.disable();
  const dirty = info!.dirtyBytes;
  console.log(
    `${compression.padEnd(5)} ${mode.padEnd(10)} dirty ${(dirty / 2 ** 20).toFixed(0)} MiB in ${stats!.segmentsCleaned} segments -> ${(log.sizeBytes / 2 ** 20).toFixed(1)} MiB total (was ${(before / 2 ** 20).toFixed(0)}): ` +
      `${((dirty / 2 ** 20) / (ms / 1000)).toFixed(1)} MiB/s, ${stats!.recordsRead} records read, ${stats!.recordsRetained} kept; ` +
      `main thread busy ${(elu * 100).toFixed(0)}% (ELU), event loop delay p50 ${(h.percentile(50) / 1e6).toFixed(2)} ms, p99 ${(h.percentile(99) / 1e6).toFixed(2)} ms, max ${(h.max / 1e6).toFixed(1)} ms`,
  );
  console.log(`                 append latency while cleaning ${summary(during)}; without cleaning ${summary(idle)}`);
  console.log(`                 event loop delay without cleaning p50 ${(hIdle.percentile(50) / 1e6).toFixed(2)} ms, p99 ${(hIdle.percentile(99) / 1e6).toFixed(2)} ms, max ${(hIdle.max / 1e6).toFixed(1)} ms`);
  await cleaner.stop();
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
  for (const compression of ['none', 'lz4'] as const) {
    const source = await build(compression);
    await run(compression, source, false);
    await run(compression, source, true);
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
