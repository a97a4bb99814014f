/**
 * Storage write/read costs on this machine (temp dir under os.tmpdir()):
 * 1. raw 16 KiB appends: fs.writeSync vs fs.write (callback) vs fs.promises FileHandle.write,
 *    without and with an fdatasync per append;
 * 2. 1 MiB reads from the page cache: fs.readSync vs fs.read (callback, thread pool);
 * 3. PartitionLog.appendAsLeader with 16 KiB batches: no fsync; fsync per append (acks=all
 *    "fsync before ack", one producer); 64 concurrent producers sharing fsyncs via flushUpTo.
 *
 *   npx tsx bench/storage.ts
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeFs } from '../src/storage/fs.js';
import { PartitionLog, defaultLogConfig } from '../src/storage/partition-log.js';
import { systemClock } from '../src/clock.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';

const BATCH = 16 * 1024;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'samsa-bench-'));

function mbps(bytes: number, ms: number): string {
  return `${((bytes / 1e6) / (ms / 1000)).toFixed(0).padStart(6)} MB/s`;
}
function usPer(ms: number, n: number): string {
  return `${((ms * 1000) / n).toFixed(1).padStart(7)} µs/op`;
}
function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

const writeCb = (fd: number, b: Buffer, pos: number): Promise<void> =>
  new Promise((res, rej) => fs.write(fd, b, 0, b.length, pos, (e) => (e ? rej(e) : res())));
const fdatasync = (fd: number): Promise<void> => new Promise((res, rej) => fs.fdatasync(fd, (e) => (e ? rej(e) : res())));
const readCb = (fd: number, b: Buffer, pos: number): Promise<number> =>
  new Promise((res, rej) => fs.read(fd, b, 0, b.length, pos, (e, n) => (e ? rej(e) : res(n))));

async function rawWrites(label: string, n: number, sync: boolean, write: (fd: number, b: Buffer, pos: number, fh: fs.promises.FileHandle) => Promise<void> | void): Promise<void> {
  const file = path.join(root, `raw-${label}-${sync}`);
  const fh = await fs.promises.open(file, 'w+');
  const buf = Buffer.alloc(BATCH, 7);
  const t0 = now();
  for (let i = 0; i < n; i++) {
    await write(fh.fd, buf, i * BATCH, fh);
    if (sync) await fdatasync(fh.fd);
  }
  const ms = now() - t0;
  await fh.close();
  fs.unlinkSync(file);
  console.log(`  ${label.padEnd(22)} ${sync ? 'fdatasync each' : 'no fsync      '}  ${mbps(n * BATCH, ms)}  ${usPer(ms, n)}`);
}

async function reads(): Promise<void> {
  const file = path.join(root, 'read-src');
  const size = 64 << 20;
  fs.writeFileSync(file, Buffer.alloc(size, 3));
  const fd = fs.openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  const n = 256;
  for (const mode of ['readSync', 'fs.read (async)'] as const) {
    const t0 = now();
    for (let i = 0; i < n; i++) {
      const pos = (i % 64) << 20;
      if (mode === 'readSync') fs.readSync(fd, buf, 0, buf.length, pos);
      else await readCb(fd, buf, pos);
    }
    const ms = now() - t0;
    console.log(`  1 MiB ${mode.padEnd(16)}  ${mbps(n << 20, ms)}  ${usPer(ms, n)}`);
  }
  fs.closeSync(fd);
  fs.unlinkSync(file);
}

function makeBatch(): Buffer {
  const records = Array.from({ length: 16 }, () => ({ key: null, value: Buffer.alloc(BATCH / 16 - 12, 1), timestamp: BigInt(Date.now()) }));
  return buildRecordBatch({ records });
}

async function logAppends(label: string, n: number, mode: 'none' | 'fsync-each' | 'group'): Promise<void> {
  const dir = path.join(root, `log-${mode}`, 'bench-0');
  const log = await PartitionLog.open({ fs: nodeFs, dir, topic: 'bench', partition: 0, config: { ...defaultLogConfig }, clock: systemClock });
  const template = makeBatch();
  // Copies made up front: appendAsLeader rewrites its input in place, as it would a request buffer.
  const inputs = Array.from({ length: n }, () => Buffer.from(template));
  const t0 = now();
  if (mode === 'group') {
    const producers = 64;
    let next = 0;
    await Promise.all(
      Array.from({ length: producers }, async () => {
        while (next < n) {
          const r = await log.appendAsLeader(inputs[next++], 0);
          await log.flushUpTo(r.lastOffset + 1);
        }
      }),
    );
  } else {
    for (let i = 0; i < n; i++) {
      const r = await log.appendAsLeader(inputs[i], 0);
      if (mode === 'fsync-each') await log.flushUpTo(r.lastOffset + 1);
    }
  }
  const ms = now() - t0;
  console.log(`  ${label.padEnd(40)} ${mbps(n * template.length, ms)}  ${usPer(ms, n)}  (${n} batches of ${template.length} B)`);
  await log.close();
}

try {
  console.log(`tmpdir ${root}`);
  console.log('raw 16 KiB appends:');
  const N = 4096;
  await rawWrites('fs.writeSync', N, false, (fd, b, pos) => void fs.writeSync(fd, b, 0, b.length, pos));
  await rawWrites('fs.write (callback)', N, false, (fd, b, pos) => writeCb(fd, b, pos));
  await rawWrites('fs.promises write', N, false, async (_fd, b, pos, fh) => void (await fh.write(b, 0, b.length, pos)));
  const NS = 300;
  await rawWrites('fs.writeSync', NS, true, (fd, b, pos) => void fs.writeSync(fd, b, 0, b.length, pos));
  await rawWrites('fs.promises write', NS, true, async (_fd, b, pos, fh) => void (await fh.write(b, 0, b.length, pos)));
  console.log('reads from page cache:');
  await reads();
  console.log('PartitionLog.appendAsLeader, 16 KiB batches:');
  await logAppends('no fsync (page cache, Kafka default)', 8192, 'none');
  await logAppends('fsync before each ack, 1 producer', 300, 'fsync-each');
  await logAppends('fsync before ack, 64 producers (group)', 4096, 'group');
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
