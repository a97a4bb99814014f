/**
 * Zero-copy fetch, tried honestly (issue 19 item 3): does sending record bytes with sendfile(2)
 * beat today's path (read into a slab, then socket write) on this machine?
 *
 *   npx tsx bench/zero-copy.ts [--size-mib 1024] [--rounds 3] [--chunk-kib 1024] [--json FILE]
 *
 * Node has no sendfile for sockets, so bench/zero-copy/sendfile.c is a 40-line N-API addon
 * (compiled here with the system C compiler against the local Node headers). The server sends a
 * page-cached file as length-prefixed chunks, the size of a Fetch response, to a client process
 * that counts and drops them, in two modes, alternated round by round:
 * - copy: `fs.read` into one of a ring of slabs, then `socket.write` (today's Fetch path: segment
 *   reads into read slabs, written with writev);
 * - sendfile: when the socket's write queue is empty, the 4-byte header with a direct write and the
 *   chunk with sendfile on the socket's descriptor; when the kernel's send buffer is full (EAGAIN
 *   or a short send), the next 64 KiB go the copy way (libuv then waits for the socket to drain)
 *   and sendfile resumes after. TLS sockets cannot take this path at all (the bytes must be
 *   encrypted in user space; Linux kTLS is not what Node's TLS uses).
 * Reported per mode: throughput, the server process's CPU seconds per GiB sent, and the share of
 * bytes that went zero-copy. Figures, never assertions.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { read as fsRead } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpus } from 'node:os';
import { median, REPO_ROOT } from './lib/proc.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const SIZE = opt('size-mib', 1024) * 1024 * 1024;
const ROUNDS = opt('rounds', 3);
const CHUNK = opt('chunk-kib', 1024) * 1024;
const jsonAt = args.indexOf('--json');
const JSON_FILE = jsonAt >= 0 ? args[jsonAt + 1] : null;
const FALLBACK_PIECE = 64 * 1024;
const EAGAIN = 11;

type Mode = 'copy' | 'sendfile';

interface Round {
  mode: Mode;
  ms: number;
  gibPerS: number;
  cpuSPerGiB: number;
  zeroCopyShare: number;
}

function buildAddon(dir: string): { sendfile(out: number, inFd: number, offset: number, count: number): number } | string {
  const out = join(dir, 'sendfile.node');
  const cc = spawnSync('cc', ['-shared', '-fPIC', '-O2', '-I/usr/include/node', '-o', out, join(REPO_ROOT, 'bench', 'zero-copy', 'sendfile.c')], { encoding: 'utf8' });
  if (cc.status !== 0) return `cannot build the sendfile addon (cc against /usr/include/node): ${cc.stderr || cc.error?.message}`;
  return createRequire(import.meta.url)(out);
}

/** A client process that reads `total` bytes and exits. */
function startClient(port: number, total: number): Promise<number> {
  const code = `
    const s = require('node:net').connect(${port}, '127.0.0.1');
    let n = 0;
    s.on('data', (b) => { n += b.length; if (n >= ${total}) { s.destroy(); process.exit(0); } });
    s.on('error', (e) => { console.error(e.message); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'ignore', 'inherit'] });
  return new Promise((resolve, reject) => child.on('exit', (c) => (c === 0 ? resolve(0) : reject(new Error(`client exited ${c}`)))));
}

class SlabRing {
  private readonly free: Buffer[];
  private waiters: (() => void)[] = [];
  constructor(n: number, size: number) {
    this.free = Array.from({ length: n }, () => Buffer.allocUnsafe(size));
  }
  async take(): Promise<Buffer> {
    while (this.free.length === 0) await new Promise<void>((r) => this.waiters.push(r));
    return this.free.pop()!;
  }
  give(b: Buffer): void {
    this.free.push(b);
    this.waiters.shift()?.();
  }
}

/** Resolves on `event` (or, with null, once an empty write completes: what is queued went out) or on close; no listener left behind. */
function untilEither(socket: net.Socket, event: 'drain' | null): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      socket.off('close', done);
      if (event) socket.off(event, done);
      resolve();
    };
    socket.once('close', done);
    if (event) socket.once(event, done);
    else socket.write(Buffer.alloc(0), done);
  });
}

const readAt = (fd: number, buf: Buffer, len: number, pos: number) =>
  new Promise<number>((resolve, reject) => fsRead(fd, buf, 0, len, pos, (err, n) => (err ? reject(err) : resolve(n))));

/** Writes `len` bytes of the file at `pos` the copy way; resolves once the socket took them (backpressure). */
async function copyOut(socket: net.Socket, ring: SlabRing, fd: number, pos: number, len: number, header: Buffer | null): Promise<void> {
  const slab = await ring.take();
  await readAt(fd, slab, len, pos);
  if (header) socket.write(header);
  const ok = socket.write(slab.subarray(0, len), () => ring.give(slab));
  if (!ok) await untilEither(socket, 'drain');
  if (socket.destroyed) throw new Error('the client went away');
}

async function serve(socket: net.Socket, fd: number, mode: Mode, addon: { sendfile(o: number, i: number, off: number, n: number): number } | null): Promise<number> {
  const handle = (socket as unknown as { _handle: { fd: number; writeQueueSize: number } })._handle;
  const ring = new SlabRing(8, CHUNK);
  let zeroCopy = 0;
  for (let off = 0; off < SIZE; off += CHUNK) {
    const n = Math.min(CHUNK, SIZE - off);
    const header = Buffer.alloc(4);
    header.writeInt32BE(n);
    if (mode === 'copy' || !addon || socket.writableLength > 0 || handle.writeQueueSize > 0) {
      await copyOut(socket, ring, fd, off, n, header);
      continue;
    }
    // The queue is empty: bytes written on the descriptor now cannot overtake queued ones.
    let written = 0;
    try {
      written = writeSync(handle.fd, header);
    } catch {
      written = 0;
    }
    if (written < 4) {
      // Not (all) taken: the rest of the header and the chunk the copy way, behind what went out.
      await copyOut(socket, ring, fd, off, n, header.subarray(written));
      continue;
    }
    let sent = 0;
    while (sent < n) {
      const r = addon.sendfile(handle.fd, fd, off + sent, n - sent);
      if (r > 0) {
        sent += r;
        zeroCopy += r;
        continue;
      }
      if (r !== -EAGAIN && r !== 0) throw new Error(`sendfile: errno ${-r}`);
      // The send buffer is full: a small piece the copy way, so libuv waits for writability.
      const piece = Math.min(FALLBACK_PIECE, n - sent);
      await copyOut(socket, ring, fd, off + sent, piece, null);
      await untilEither(socket, null);
      if (socket.destroyed) throw new Error('the client went away');
      sent += piece;
    }
  }
  await new Promise<void>((r) => socket.end(r));
  return zeroCopy;
}

/** A client that goes away half-way: the sendfile path must end with the socket's error, not crash. */
async function disconnectCheck(fd: number, addon: { sendfile(o: number, i: number, off: number, n: number): number }): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const outcome = new Promise<string>((resolve) => {
    server.once('connection', (s) => {
      s.on('error', () => undefined);
      serve(s, fd, 'sendfile', addon).then(() => resolve('completed (the kernel had taken every byte)'), (err: Error) => resolve(`ended with "${err.message}"`));
    });
  });
  await startClient(port, Math.floor(SIZE / 4)).catch(() => undefined);
  const r = await outcome;
  server.close();
  return r;
}

async function round(mode: Mode, fd: number, addon: ReturnType<typeof buildAddon> | null): Promise<Round> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const total = SIZE + 4 * Math.ceil(SIZE / CHUNK);
  let zeroCopy = 0;
  const served = new Promise<void>((resolve, reject) => {
    server.once('connection', (s) => {
      s.setNoDelay(true);
      serve(s, fd, mode, typeof addon === 'object' ? addon : null).then((z) => { zeroCopy = z; resolve(); }, reject);
    });
  });
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const client = startClient(port, total);
  await served;
  await client;
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const cpu = process.cpuUsage(cpu0);
  server.close();
  const gib = SIZE / 2 ** 30;
  return { mode, ms, gibPerS: gib / (ms / 1000), cpuSPerGiB: (cpu.user + cpu.system) / 1e6 / gib, zeroCopyShare: zeroCopy / SIZE };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-zero-copy-'));
  try {
    const addon = buildAddon(dir);
    if (typeof addon === 'string') {
      console.log(`zero-copy: ${addon}; only the copy path is measured`);
    }
    const file = join(dir, 'data');
    const block = Buffer.alloc(1 << 20, 7);
    const wfd = openSync(file, 'w');
    for (let i = 0; i < SIZE / block.length; i++) writeSync(wfd, block);
    closeSync(wfd);
    const fd = openSync(file, 'r');
    // Warm the page cache: both modes then read memory, as a consumer at the log's tail does.
    for (let pos = 0; pos < SIZE; pos += block.length) readSync(fd, block, 0, block.length, pos);
    const rounds: Round[] = [];
    const modes: Mode[] = typeof addon === 'string' ? ['copy'] : ['copy', 'sendfile'];
    for (let r = 0; r < ROUNDS; r++) {
      for (const m of modes) {
        const x = await round(m, fd, addon);
        rounds.push(x);
        console.log(`round ${r + 1} ${m.padEnd(8)} ${x.gibPerS.toFixed(2)} GiB/s  ${x.cpuSPerGiB.toFixed(3)} CPU-s/GiB  zero-copy ${(x.zeroCopyShare * 100).toFixed(0)}%`);
      }
    }
    const disconnect = typeof addon === 'string' ? null : await disconnectCheck(fd, addon);
    closeSync(fd);
    const by = (m: Mode) => rounds.filter((x) => x.mode === m);
    const summary = modes.map((m) => ({
      mode: m,
      gibPerS: median(by(m).map((x) => x.gibPerS)),
      cpuSPerGiB: median(by(m).map((x) => x.cpuSPerGiB)),
      zeroCopyShare: median(by(m).map((x) => x.zeroCopyShare)),
    }));
    const cpu = { model: cpus()[0]?.model ?? 'unknown CPU', cores: cpus().length };
    console.log(`\nzero-copy fetch experiment: ${SIZE / 2 ** 20} MiB in ${CHUNK / 1024} KiB chunks over loopback, ${ROUNDS} rounds, medians (${cpu.model}, ${cpu.cores} cores)`);
    console.log('| mode | throughput (GiB/s) | server CPU-s per GiB | bytes sent zero-copy |');
    console.log('|---|---|---|---|');
    for (const s of summary) console.log(`| ${s.mode} | ${s.gibPerS.toFixed(2)} | ${s.cpuSPerGiB.toFixed(3)} | ${(s.zeroCopyShare * 100).toFixed(0)}% |`);
    if (summary.length === 2) {
      console.log(`sendfile/copy: throughput ${(summary[1].gibPerS / summary[0].gibPerS).toFixed(2)}x, CPU per GiB ${(summary[1].cpuSPerGiB / summary[0].cpuSPerGiB).toFixed(2)}x`);
    }
    if (disconnect) console.log(`a client that disconnects a quarter of the way: the sendfile path ${disconnect}; the server went on`);
    if (JSON_FILE) writeFileSync(JSON_FILE, JSON.stringify({ sizeBytes: SIZE, chunkBytes: CHUNK, rounds, summary, machine: cpu }, null, 1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
