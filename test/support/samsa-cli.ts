/** Runs the `samsa` CLI from the TypeScript sources against a broker, with a hard deadline. */
import { spawn } from 'node:child_process';
import { nodeArgs, samsaMain } from './node-ts.js';


export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `samsa ARGS --bootstrap BOOTSTRAP`; rejects (after killing it) when it runs past `timeoutMs`. */
export function runSamsa(bootstrap: string, args: string[], timeoutMs = 20000): Promise<CliResult> {
  return samsaCli([...args, '--bootstrap', bootstrap], timeoutMs);
}

export interface CliOptions {
  /** Written to its standard input, which is then closed (default: nothing). */
  stdin?: string;
  /** Added to the environment. */
  env?: NodeJS.ProcessEnv;
  /** Killed and rejected after this long (default 120 s). */
  timeoutMs?: number;
}

/** `samsa ARGS` as given; rejects (after killing it) when it runs past its deadline. */
export function samsaCli(args: string[], opts: CliOptions | number = {}): Promise<CliResult> {
  const o: CliOptions = typeof opts === 'number' ? { timeoutMs: opts } : opts;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs(samsaMain()), ...args], { env: { ...process.env, ...o.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`samsa ${args.join(' ')} timed out; stderr: ${stderr}`)); }, o.timeoutMs ?? 120_000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    child.stdin.end(o.stdin ?? '');
  });
}
