/**
 * Running external programs (kcat, Debian's and PyPI's Python clients) from tests, and waiting
 * for observable conditions.
 *
 * - `run` always has a hard deadline: at the deadline the child's whole process group gets
 *   SIGKILL, and the result says `timedOut: true` (code null). Anything the program left running
 *   in its group is killed when it exits, too.
 * - `python` runs `/usr/bin/python3 -c SCRIPT`: Debian's python3-confluent-kafka and python3-kafka
 *   import only under /usr/bin/python3, not under another python3 that may come first on PATH.
 * - `venvPython` runs the same under VENV_PYTHON: today's confluent-kafka 2.x and kafka-python
 *   3.x from PyPI (compat-tests/clients/requirements.txt), which tools/ensure-test-deps.sh
 *   installs into VENV_DIR.
 * - `waitFor` polls a condition until it holds or a deadline passes; use it instead of sleeping.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

export interface RunOptions {
  /** Written to the program's stdin, which is then closed (stdin is empty otherwise). */
  input?: string | Buffer;
  /** Hard deadline for the whole run. */
  timeoutMs: number;
  /** Extra environment variables, layered over process.env. */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface RunResult {
  /** Exit code, or null when killed by a signal (including at the deadline). */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The raw stdout bytes (for binary payloads). */
  stdoutBytes: Buffer;
  /** True when the deadline passed and the process group was killed. */
  timedOut: boolean;
  durationMs: number;
}

const CLOSE_GRACE_MS = 2000;

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

/**
 * Runs `cmd args` with a hard timeout. Resolves with the exit status and the captured output
 * whatever the status; rejects only when the program cannot be started (e.g. not installed).
 */
export function run(cmd: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const child = spawn(cmd, args, {
      cwd: opts.cwd,
      env: { ...process.env, ...opts.env },
      detached: true, // own process group, so the deadline kills grandchildren as well
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs);

    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
        timedOut,
        durationMs: Date.now() - started,
      });
    };

    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`cannot run ${cmd}: ${e.message}`, { cause: e }));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      killGroup(child.pid); // leftovers of the program; also frees pipes they hold
      setTimeout(finish, CLOSE_GRACE_MS).unref();
    });
    child.on('close', finish);

    child.stdin.on('error', () => {
      /* the program may exit without reading its input (EPIPE) */
    });
    if (opts.input !== undefined) child.stdin.end(opts.input);
    else child.stdin.end();
  });
}

export type ClientOptions = Omit<RunOptions, 'timeoutMs'> & { timeoutMs?: number };

const DEFAULT_CLIENT_TIMEOUT_MS = 30_000;

/** Runs kcat (librdkafka's CLI) with `args`. */
export function kcat(args: readonly string[], opts: ClientOptions = {}): Promise<RunResult> {
  return run('kcat', args, { ...opts, timeoutMs: opts.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS });
}

/** Path of the Python that sees Debian's python3-confluent-kafka and python3-kafka. */
export const SYSTEM_PYTHON = '/usr/bin/python3';

/** Runs `/usr/bin/python3 -c script args...` (sys.argv[1:] == args), unbuffered. */
export function python(script: string, args: readonly string[] = [], opts: ClientOptions = {}): Promise<RunResult> {
  return run(SYSTEM_PYTHON, ['-c', script, ...args], {
    ...opts,
    env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', ...opts.env },
    timeoutMs: opts.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS,
  });
}

/**
 * The virtual environment with the PyPI clients. tools/ensure-test-deps.sh computes the same path
 * (SAMSA_PY_VENV, else $XDG_CACHE_HOME/samsa/venv, else ~/.cache/samsa/venv): outside the
 * repository, so fresh clones on one machine share one install.
 */
export const VENV_DIR = process.env.SAMSA_PY_VENV || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'samsa', 'venv');

/** The venv's interpreter: imports confluent-kafka 2.x and kafka-python 3.x (not Debian's). */
export const VENV_PYTHON = path.join(VENV_DIR, 'bin', 'python');

/** Runs `VENV_PYTHON -c script args...` (sys.argv[1:] == args), unbuffered. */
export function venvPython(script: string, args: readonly string[] = [], opts: ClientOptions = {}): Promise<RunResult> {
  return run(VENV_PYTHON, ['-c', script, ...args], {
    ...opts,
    env: { PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1', ...opts.env },
    timeoutMs: opts.timeoutMs ?? DEFAULT_CLIENT_TIMEOUT_MS,
  });
}

export interface WaitForOptions {
  timeoutMs: number;
  /** Pause between polls (default 50 ms). */
  intervalMs?: number;
  /** Named in the timeout error. */
  description?: string;
}

const EXPIRED: unique symbol = Symbol('expired');

/**
 * Polls `predicate` until it returns a truthy value (which is returned) or the deadline passes
 * (then throws, naming `description` and the predicate's last error, if it threw). A predicate
 * that throws counts as "not yet". One poll that outlives the deadline is abandoned.
 */
export async function waitFor<T>(predicate: () => T | Promise<T>, opts: WaitForOptions): Promise<NonNullable<T>> {
  const deadline = Date.now() + opts.timeoutMs;
  const interval = opts.intervalMs ?? 50;
  let lastError: unknown = undefined;
  for (;;) {
    const remaining = deadline - Date.now();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<typeof EXPIRED>((r) => {
      timer = setTimeout(() => r(EXPIRED), Math.max(0, remaining));
    });
    try {
      const v = await Promise.race([Promise.resolve().then(predicate), expired]);
      if (v !== EXPIRED && v) return v as NonNullable<T>;
      lastError = v === EXPIRED ? new Error('the last poll did not finish before the deadline') : lastError;
    } catch (e) {
      lastError = e;
    } finally {
      clearTimeout(timer);
    }
    if (Date.now() >= deadline) {
      const what = opts.description ? `: ${opts.description}` : '';
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`waitFor timed out after ${opts.timeoutMs} ms${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, Math.min(interval, Math.max(0, deadline - Date.now()))));
  }
}
