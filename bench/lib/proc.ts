/**
 * Process helpers for the benchmarks: start Samsa as a child process (`node dist/samsa.js`, the bundled CLI) on a
 * free 127.0.0.1 port with a fresh data directory, read a process's CPU time and RSS from /proc,
 * stop it by its PID (SIGTERM, then SIGKILL after a bounded wait), and small statistics helpers.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaConn, apiVersions } from './kafka-conn.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The broker bundle the benchmarks run; SAMSA_BENCH_MAIN names another one (e.g. a build of an older commit). */
export const BROKER_MAIN = process.env.SAMSA_BENCH_MAIN ?? join(REPO_ROOT, 'dist', 'samsa.js');

let clkTck = 0;
function ticksPerSecond(): number {
  if (clkTck === 0) {
    try {
      clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clkTck = 100;
    }
  }
  return clkTck;
}

/** user+system CPU seconds a process has used so far (all threads), from /proc/PID/stat; NaN if gone. */
export function procCpuSeconds(pid: number): number {
  const t = procCpuTimes(pid);
  return t.user + t.sys;
}

/** User and system (kernel) CPU seconds of a process, all threads. */
export function procCpuTimes(pid: number): { user: number; sys: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is state (field 3); utime is field 14, stime field 15.
    return { user: Number(fields[11]) / ticksPerSecond(), sys: Number(fields[12]) / ticksPerSecond() };
  } catch {
    return { user: NaN, sys: NaN };
  }
}

/**
 * Scheduler time of a process, all threads, from /proc/PID/task/TID/schedstat: seconds on a CPU and
 * seconds runnable but waiting for one (the run queue). On a shared machine the second says how
 * much of a measurement was the broker waiting for a core rather than working.
 */
export function procSchedSeconds(pid: number): { onCpu: number; waiting: number } {
  let onCpu = 0;
  let waiting = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(' ').map(Number);
        onCpu += run / 1e9;
        waiting += wait / 1e9;
      } catch {
        // the thread ended meanwhile
      }
    }
  } catch {
    return { onCpu: NaN, waiting: NaN };
  }
  return { onCpu, waiting };
}

/** Resident set size in MiB (VmRSS from /proc/PID/status); NaN if gone. */
export function procRssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function median(xs: number[]): number {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** Percentile (nearest rank on a sorted copy). */
export function percentile(xs: ArrayLike<number>, p: number): number {
  const v = Array.from(xs).sort((a, b) => a - b);
  if (v.length === 0) return NaN;
  return v[Math.min(v.length - 1, Math.round((p / 100) * (v.length - 1)))];
}

export interface SamsaProcess {
  pid: number;
  port: number;
  host: string;
  dataDir: string;
  child: ChildProcess;
  /** Milliseconds from spawn until it answered ApiVersions. */
  readyMs: number;
  cpuSeconds(): number;
  rssMiB(): number;
  /** Graceful stop (SIGTERM, bounded), then removes the data directory unless keepData. */
  stop(opts?: { keepData?: boolean }): Promise<void>;
  /** Last lines the broker wrote on stderr/stdout (for error messages). */
  output(): string;
}

export interface StartSamsaOptions {
  /** Kafka-named overrides, e.g. { 'samsa.flush.on.acks.all': 'true' }. */
  overrides?: Record<string, string>;
  /** Extra node flags for the broker (e.g. --cpu-prof). */
  nodeArgs?: string[];
  /** Parent directory for the fresh data dir (default os.tmpdir(), on disk here). */
  dataParent?: string;
  /** Use this existing data directory instead of a fresh one (e.g. to restart on the same data). */
  dataDir?: string;
  readyTimeoutMs?: number;
}

export function assertBuilt(): void {
  if (!existsSync(BROKER_MAIN)) throw new Error(`${BROKER_MAIN} not found: run \`npm run build\` first`);
}

/** Spawns Samsa on a free port with a fresh data dir; resolves once it answers ApiVersions. */
export async function startSamsa(opts: StartSamsaOptions = {}): Promise<SamsaProcess> {
  assertBuilt();
  const host = '127.0.0.1';
  const port = await freePort();
  const dataDir = opts.dataDir ?? mkdtempSync(join(opts.dataParent ?? tmpdir(), 'samsa-bench-'));
  const overrides: Record<string, string> = { 'log.dirs': dataDir, listeners: `PLAINTEXT://${host}:${port}`, ...(opts.overrides ?? {}) };
  const args = [...(opts.nodeArgs ?? []), BROKER_MAIN];
  for (const [k, v] of Object.entries(overrides)) args.push('--override', `${k}=${v}`);
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO_ROOT });
  let out = '';
  const keep = (b: Buffer) => {
    out = (out + b.toString('utf8')).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const exitedP = new Promise<void>((r) => child.once('exit', () => { exited = true; r(); }));
  const pid = child.pid!;
  const deadline = t0 + (opts.readyTimeoutMs ?? 20000);
  let readyMs = NaN;
  while (performance.now() < deadline && !exited) {
    try {
      const c = await KafkaConn.connect(host, port, 1000);
      try {
        await Promise.race([apiVersions(c), sleep(2000).then(() => { throw new Error('ApiVersions timed out'); })]);
        readyMs = performance.now() - t0;
      } finally {
        c.close();
      }
      break;
    } catch {
      await sleep(10);
    }
  }
  const proc: SamsaProcess = {
    pid, port, host, dataDir, child, readyMs,
    cpuSeconds: () => procCpuSeconds(pid),
    rssMiB: () => procRssMiB(pid),
    output: () => out,
    async stop(stopOpts) {
      if (!exited) {
        child.kill('SIGTERM');
        await Promise.race([exitedP, sleep(15000)]);
        if (!exited) {
          child.kill('SIGKILL');
          await Promise.race([exitedP, sleep(5000)]);
        }
      }
      if (!stopOpts?.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  if (!Number.isFinite(readyMs)) {
    await proc.stop();
    throw new Error(`Samsa did not answer ApiVersions on ${host}:${port} in time; output:\n${out}`);
  }
  return proc;
}
