/**
 * A long-lived client agent process that takes one JSON command per line on stdin,
 * `{"id":N,"op":..,"args":..}`, and answers `{"id":N,"ok":..}` or `{"id":N,"fail":".."}` on stdout
 * (the Python and Java agents), so a client's start-up is paid once per run, not per operation.
 * Lines that are not replies (a library printing) are ignored. Every call has a deadline: at the
 * deadline the agent is killed, since its state is unknown, and no later call may use it.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export class JsonLinesAgent {
  private next = 1;
  private waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
  private stderr = '';
  private dead: Error | null = null;

  /** `label` names the agent in errors; `closeGraceMs`: how long close() waits before SIGKILL. */
  constructor(readonly child: ChildProcess, private readonly label: string, private readonly closeGraceMs = 5000) {
    child.stderr!.on('data', (d) => {
      this.stderr = (this.stderr + d).slice(-8000);
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let msg: any;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      const w = this.waiting.get(msg?.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      clearTimeout(w.timer);
      if ('ok' in msg) w.resolve(msg.ok);
      else w.reject(new Error(`${label}: ${msg.fail}`));
    });
    child.on('exit', (code, signal) => {
      this.dead = new Error(`${label} exited (code ${code}, signal ${signal}); stderr: ${this.stderr.slice(-2000)}`);
      for (const w of this.waiting.values()) {
        clearTimeout(w.timer);
        w.reject(this.dead);
      }
      this.waiting.clear();
    });
    child.on('error', () => {}); // reported through 'exit' or the first call's deadline
    child.stdin!.on('error', () => {});
  }

  call<T = any>(op: string, args: unknown, timeoutMs = 60_000): Promise<T> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`${this.label}: ${op} did not answer within ${timeoutMs} ms; stderr: ${this.stderr.slice(-1500)}`));
        this.child.kill('SIGKILL');
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.child.stdin!.write(JSON.stringify({ id, op, args }) + '\n');
    });
  }

  /** Ends the agent's input (it closes its clients and exits), SIGKILL after the grace period. */
  close(): Promise<void> {
    if (this.dead || this.child.exitCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => this.child.kill('SIGKILL'), this.closeGraceMs);
      this.child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      this.child.stdin!.end();
    });
  }
}
