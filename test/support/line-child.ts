/**
 * A client program run as a child process that reports progress in lines on stdout (the Java and
 * Python consumers of the fetch tests): `waitFor(line)` resolves once that line was printed and
 * rejects, with the program's output, when it exits first or the time runs out; the program is
 * SIGKILLed after `killAfterMs`.
 */
import { spawn } from 'node:child_process';

export interface Child {
  waitFor(line: string, timeoutMs: number): Promise<void>;
  done: Promise<{ code: number | null; out: string; err: string }>;
}

export function lineChild(cmd: string, args: string[], killAfterMs = 200_000): Child {
  const p = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONDONTWRITEBYTECODE: '1' } });
  let out = '';
  let err = '';
  const waiters: { line: string; resolve: () => void }[] = [];
  p.stdout!.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    for (const w of [...waiters]) if (out.includes(`${w.line}\n`)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(); }
  });
  p.stderr!.setEncoding('utf8').on('data', (s: string) => { err = (err + s).slice(-20_000); });
  const timer = setTimeout(() => p.kill('SIGKILL'), killAfterMs);
  const done = new Promise<{ code: number | null; out: string; err: string }>((resolve) => p.on('exit', (code) => { clearTimeout(timer); resolve({ code, out, err }); }));
  return {
    done,
    waitFor: (line, timeoutMs) => new Promise<void>((resolve, reject) => {
      if (out.includes(`${line}\n`)) return resolve();
      const t = setTimeout(() => reject(new Error(`no ${line} within ${timeoutMs} ms: ${out.slice(-2000)} ${err.slice(-3000)}`)), timeoutMs);
      waiters.push({ line, resolve: () => { clearTimeout(t); resolve(); } });
      void done.then((d) => { clearTimeout(t); reject(new Error(`exited ${d.code} before ${line}: ${d.out.slice(-2000)} ${d.err.slice(-3000)}`)); });
    }),
  };
}
