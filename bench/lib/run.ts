/**
 * Running external commands from the benchmarks, bounded in time: every child is stopped by its own
 * PID (SIGTERM, then SIGKILL) when its time is up. Also machine-wide CPU accounting from /proc/stat,
 * to tell how busy the machine was during a measurement (other processes share the 2 cores).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface CmdResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

export function runCmd(cmd: string, args: string[], opts: { cwd?: string; timeoutMs: number; env?: NodeJS.ProcessEnv }): Promise<CmdResult> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    let child: ChildProcess;
    try {
      child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: 127, signal: null, stdout: '', stderr: String(err), timedOut: false, ms: 0 });
      return;
    }
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (b: Buffer) => { stdout += b.toString('utf8'); });
    child.stderr!.on('data', (b: Buffer) => { stderr = (stderr + b.toString('utf8')).slice(-20000); });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); }, 3000).unref();
    }, opts.timeoutMs);
    child.on('error', (err) => { stderr += String(err); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, ms: performance.now() - t0 });
    });
  });
}

/** Machine-wide CPU counters (seconds, all cores) from /proc/stat. */
export interface MachineCpu {
  busy: number;
  total: number;
}

export function machineCpu(): MachineCpu {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...
    const idle = (v[3] ?? 0) + (v[4] ?? 0);
    const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: (total - idle) / 100, total: total / 100 };
  } catch {
    return { busy: NaN, total: NaN };
  }
}
