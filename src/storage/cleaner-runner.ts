/**
 * Where a cleaning pass's copy work runs (log-cleaner.ts decides, the swap stays with it):
 *
 * - `CleanerWorkerPool`: up to `log.cleaner.threads` worker threads (cleaner-worker.ts), one pass
 *   each at a time, for logs on the real file system. Workers are started on first use, kept
 *   while the cleaner runs (unref'd while idle so they never hold the process open) and ended by
 *   `stop()`, which first asks a running pass to stop through its shared control word.
 *   `log.cleaner.io.max.bytes.per.second` is split evenly over the threads (Kafka shares one
 *   throttler among its cleaner threads).
 * - `inProcessRunner`: the same CleanerCopy on the event loop, reading through LogSegments; for
 *   an Fs a worker cannot use (the tests' MemFs) or when no worker script can be found.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Fs } from './fs.js';
import { CleanerCopy, type BatchSource, type CopyStats, type GroupResult, type PassPlan } from './cleaner-copy.js';

export interface PassRunner {
  buildMap(): Promise<number>;
  earliestDeleteHorizon(): Promise<number>;
  writeGroup(group: number[]): Promise<GroupResult>;
  readonly stats: CopyStats;
  close(): void;
}

export class CleanerStopped extends Error {
  constructor() {
    super('log cleaner stopped');
  }
}

export function inProcessRunner(fs: Fs, source: BatchSource, plan: PassPlan): PassRunner {
  const copy = new CleanerCopy(fs, source, plan);
  return {
    buildMap: () => copy.buildMap(),
    earliestDeleteHorizon: () => copy.earliestDeleteHorizon(),
    writeGroup: (g) => copy.writeGroup(g),
    get stats() {
      return copy.stats;
    },
    close: () => undefined,
  };
}

/**
 * The worker script: cleaner-worker.js beside this module (tsc output), cleaner-worker.ts (run
 * from source through tsx, whose loader the worker is then given, see workerExecArgv), or, from
 * the bundled dist/samsa.js, the tsc output under dist/src/storage/. Null when none exists.
 */
export function cleanerWorkerUrl(): URL | null {
  for (const rel of ['./cleaner-worker.js', './cleaner-worker.ts', './src/storage/cleaner-worker.js']) {
    const url = new URL(rel, import.meta.url);
    if (!existsSync(fileURLToPath(url))) continue;
    if (url.pathname.endsWith('.ts')) {
      try {
        import.meta.resolve('tsx/esm/api');
      } catch {
        continue;
      }
    }
    return url;
  }
  return null;
}

/**
 * Starts the worker. A .ts script (running from source) needs tsx's loader in the worker's own
 * thread, which Node 20 does not give it from execArgv: a small bootstrap registers it first.
 */
function startWorker(url: URL): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url);
  const api = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(boot, { eval: true });
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
  stopped?: boolean;
  stats?: CopyStats;
}

class CleanerWorker {
  readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  readonly control = new Int32Array(new SharedArrayBuffer(8));
  dead = false;

  constructor(url: URL) {
    this.worker = startWorker(url);
    this.worker.unref();
    this.worker.on('message', (r: Reply) => {
      const p = this.pending.get(r.id);
      this.pending.delete(r.id);
      p?.resolve(r);
    });
    const fail = (err: Error): void => {
      this.dead = true;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`log cleaner worker exited (${code})`)));
  }

  request(msg: Record<string, unknown>): Promise<Reply> {
    if (this.dead) return Promise.reject(new Error('log cleaner worker is gone'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...msg, id });
    });
  }

  requestStop(): void {
    Atomics.store(this.control, 0, 1);
    Atomics.store(this.control, 1, 1);
    Atomics.notify(this.control, 1);
  }
}

export class CleanerWorkerPool {
  private readonly idle: CleanerWorker[] = [];
  private readonly busy = new Set<CleanerWorker>();
  private stopped = false;

  constructor(
    private readonly url: URL,
    private ioMaxBytesPerSecond: number,
    private threads: number,
  ) {}

  /** New rate limit and thread count (dynamic log.cleaner.* configs), for the passes that begin next. */
  reconfigure(ioMaxBytesPerSecond: number, threads: number): void {
    this.ioMaxBytesPerSecond = ioMaxBytesPerSecond;
    this.threads = threads;
  }

  /** A runner on a worker of its own for one pass; close() gives the worker back. */
  async begin(plan: PassPlan): Promise<PassRunner> {
    if (this.stopped) throw new CleanerStopped();
    let w = this.idle.pop();
    while (w?.dead) w = this.idle.pop();
    if (!w) w = new CleanerWorker(this.url);
    const worker = w;
    this.busy.add(worker);
    worker.worker.ref();
    Atomics.store(worker.control, 0, 0);
    Atomics.store(worker.control, 1, 0);
    let stats: CopyStats = { bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsRetained: 0 };
    const call = async <T>(msg: Record<string, unknown>): Promise<T> => {
      const r = await worker.request(msg);
      if (r.stats) stats = r.stats;
      if (r.ok) return r.value as T;
      if (r.stopped) throw new CleanerStopped();
      throw new Error(`log cleaner worker: ${r.error}`);
    };
    const limit = this.ioMaxBytesPerSecond > 0 && this.ioMaxBytesPerSecond < Number.MAX_VALUE ? this.ioMaxBytesPerSecond / Math.max(1, this.threads) : Number.MAX_VALUE;
    try {
      await call({ type: 'begin', plan, control: worker.control.buffer, ioMaxBytesPerSecond: limit });
    } catch (err) {
      this.release(worker);
      throw err;
    }
    return {
      buildMap: () => call<number>({ type: 'map' }),
      earliestDeleteHorizon: () => call<number>({ type: 'horizon' }),
      writeGroup: (group) => call<GroupResult>({ type: 'group', group }),
      get stats() {
        return stats;
      },
      close: () => this.release(worker),
    };
  }

  private release(w: CleanerWorker): void {
    if (!this.busy.delete(w)) return;
    w.worker.unref();
    if (this.stopped || w.dead) void w.worker.terminate();
    else this.idle.push(w);
  }

  /** Asks running passes to stop (they answer CleanerStopped at their next read) and ends idle workers. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.busy) w.requestStop();
    await Promise.all(this.idle.splice(0).map((w) => w.worker.terminate()));
  }
}
