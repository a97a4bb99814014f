/**
 * Kafka's command-line tools for the kafka-cli driver, run in long-lived JVMs
 * (clients/java/ToolServer.java) instead of one JVM per operation: each server runs one tool at a
 * time; up to `max` servers run side by side (started when needed, kept while the driver lives).
 * A run that passes its deadline kills its server (the next run starts another), as the deadline
 * kills a tool's own JVM; a tool that ends the JVM itself (System.exit) ends its server, and the
 * run answers that exit status.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { RunResult } from '../../test/support/external.js';
import type { JavaRuntime } from './jvm.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

class Server {
  private readonly child: ChildProcess;
  private buf = '';
  private stderr = '';
  private answer: ((line: string | null) => void) | null = null;
  readonly ready: Promise<void>;
  dead = false;

  constructor(rt: JavaRuntime) {
    this.child = spawn(rt.java, [...rt.jvmArgs, '-cp', rt.classpath, 'ToolServer'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let started: () => void;
    let failed: (e: Error) => void;
    this.ready = new Promise((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (s: string) => {
      this.buf += s;
      for (let nl = this.buf.indexOf('\n'); nl >= 0; nl = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        if (line === 'READY') started();
        else this.answer?.(line);
      }
    });
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', (s: string) => {
      this.stderr = (this.stderr + s).slice(-20_000);
    });
    this.child.on('exit', () => {
      this.dead = true;
      failed(new Error(`the tool server exited before it was ready: ${this.stderr.slice(-2000)}`));
      this.answer?.(null);
    });
    this.child.stdin!.on('error', () => undefined); // a dead server's pipe; its exit answers
  }

  /** Runs one tool; resolves with what the tool's own JVM would have given. */
  async run(main: string, args: string[], timeoutMs: number, input: string | undefined): Promise<RunResult> {
    await this.ready;
    const started = Date.now();
    const line = await new Promise<string | null>((resolve) => {
      const timer = setTimeout(() => {
        this.kill();
        resolve(null);
      }, timeoutMs);
      this.answer = (l) => {
        clearTimeout(timer);
        this.answer = null;
        resolve(l);
      };
      this.child.stdin!.write(`${[main, input ?? '', ...args].map(b64).join('\t')}\n`);
    });
    const durationMs = Date.now() - started;
    if (line === null) {
      const timedOut = !this.child.exitCode && this.child.signalCode === 'SIGKILL';
      return { code: timedOut ? null : this.child.exitCode, signal: this.child.signalCode, stdout: '', stdoutBytes: Buffer.alloc(0), stderr: this.stderr, timedOut, durationMs };
    }
    const [status, out, err] = line.split('\t');
    const stdoutBytes = Buffer.from(out, 'base64');
    return { code: Number(status), signal: null, stdout: stdoutBytes.toString('utf8'), stdoutBytes, stderr: Buffer.from(err, 'base64').toString('utf8'), timedOut: false, durationMs };
  }

  kill(): void {
    this.dead = true;
    this.child.kill('SIGKILL');
  }

  /** Closes its stdin: the server ends once its run (if any) has answered; the Node process waits for that. */
  end(): void {
    this.hold(true);
    this.child.stdin!.end();
  }

  /** Whether this server (its process and pipes) keeps the Node process alive. */
  hold(on: boolean): void {
    const m = on ? 'ref' : 'unref';
    this.child[m]();
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) (s as unknown as Partial<Record<'ref' | 'unref', () => void>> | null)?.[m]?.();
  }
}

export class ToolServers {
  private readonly idle: Server[] = [];
  private readonly waiting: ((s: Server | null) => void)[] = [];
  private running = 0;

  /**
   * `idleExits`: an idle server does not keep the Node process alive (it ends with the process,
   * its stdin closing), so a caller need not close the pool.
   */
  constructor(private readonly rt: JavaRuntime, private readonly max = 2, private readonly idleExits = false) {}

  async run(main: string, args: string[], timeoutMs: number, input?: string): Promise<RunResult> {
    const server = await this.take();
    server.hold(true);
    try {
      return await server.run(main, args, timeoutMs, input);
    } finally {
      if (this.idleExits) server.hold(false);
      this.give(server);
    }
  }

  private take(): Promise<Server> {
    const s = this.idle.pop();
    if (s) return Promise.resolve(s);
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve(new Server(this.rt));
    }
    return new Promise((resolve) => this.waiting.push((next) => resolve(next ?? new Server(this.rt))));
  }

  private give(s: Server): void {
    const next = s.dead ? null : s;
    const w = this.waiting.shift();
    if (w) w(next); // a dead server's place goes to a new one
    else if (next) this.idle.push(next);
    else this.running--;
  }

  close(): void {
    for (const s of this.idle.splice(0)) s.kill();
  }

  /** Ends the idle servers by closing their stdin (they exit on their own, and are reaped). */
  end(): void {
    for (const s of this.idle.splice(0)) s.end();
  }
}
