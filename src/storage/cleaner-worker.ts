/**
 * Entry point of a log cleaner worker thread (started by cleaner-runner.ts). It runs the copying
 * half of a pass (cleaner-copy.ts) on real files: synchronous reads of the segment files, the
 * offset map in this thread's memory, the `.cleaned` files written through `nodeFs`. The event
 * loop of the broker only sees the messages.
 *
 * Messages, one at a time, each answered `{ id, ok, value | error, stats }`:
 *   { id, type: 'begin', plan, control, ioMaxBytesPerSecond }  a new pass (drops the previous one)
 *   { id, type: 'map' }                                          CleanerCopy.buildMap → end offset
 *   { id, type: 'horizon' }                                      CleanerCopy.earliestDeleteHorizon
 *   { id, type: 'group', group }                                 CleanerCopy.writeGroup → GroupResult
 * `control` is a SharedArrayBuffer (Int32Array): [0] = 1 asks the pass to stop (checked before
 * every read), [1] is waited on while throttling so a stop also cuts a wait short.
 */
import * as nodefs from 'node:fs';
import * as os from 'node:os';
import { parentPort } from 'node:worker_threads';
import { nodeFs } from './fs.js';
import { CleanerCopy, type BatchSource, type CopyStats, type PassPlan, type SegmentRef } from './cleaner-copy.js';

const LOG_OVERHEAD = 12;

export class CleanerStoppedError extends Error {
  constructor() {
    super('log cleaner stopped');
  }
}

/** Reads a segment file with blocking reads into one reused buffer, paced by the I/O limit. */
class FileBatchSource implements BatchSource {
  private buf: Buffer;
  private windowStart = 0;
  private windowBytes = 0;

  constructor(
    readBytes: number,
    private readonly control: Int32Array,
    private readonly ioMaxBytesPerSecond: number,
  ) {
    this.buf = Buffer.allocUnsafe(readBytes);
  }

  async forEachBatch(seg: SegmentRef, stats: CopyStats, visit: (buf: Buffer, pos: number) => void | false): Promise<void> {
    const fd = nodefs.openSync(seg.logPath, 'r');
    try {
      let filePos = 0;
      while (filePos < seg.sizeBytes) {
        if (Atomics.load(this.control, 0) === 1) throw new CleanerStoppedError();
        const want = Math.min(this.buf.length, seg.sizeBytes - filePos);
        const n = readFully(fd, this.buf, want, filePos);
        let at = 0;
        while (at + LOG_OVERHEAD <= n) {
          const size = LOG_OVERHEAD + this.buf.readInt32BE(at + 8);
          if (at + size > n) break;
          if (visit(this.buf, at) === false) {
            stats.bytesRead += at + size;
            return;
          }
          at += size;
        }
        if (at === 0) {
          // One batch larger than the buffer: grow it and read again. A torn tail, or a file
          // shorter than the pass saw it (a short read), ends the segment.
          const size = n >= LOG_OVERHEAD ? LOG_OVERHEAD + this.buf.readInt32BE(8) : 0;
          if (n < want || size <= n || filePos + size > seg.sizeBytes) return;
          this.buf = Buffer.allocUnsafe(size);
          continue;
        }
        stats.bytesRead += at;
        filePos += at;
        this.throttle(at);
      }
    } finally {
      nodefs.closeSync(fd);
    }
  }

  /** Blocks this thread as long as log.cleaner.io.max.bytes.per.second asks. */
  private throttle(bytes: number): void {
    const limit = this.ioMaxBytesPerSecond;
    if (!(limit > 0 && limit < Number.MAX_VALUE)) return;
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.windowBytes = 0;
    }
    this.windowBytes += bytes;
    const waitMs = (this.windowBytes / limit) * 1000 - (now - this.windowStart);
    if (waitMs > 0) Atomics.wait(this.control, 1, 0, Math.ceil(waitMs));
  }
}

function readFully(fd: number, buf: Buffer, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = nodefs.readSync(fd, buf, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

interface Request {
  id: number;
  type: 'begin' | 'map' | 'horizon' | 'group';
  plan?: PassPlan;
  control?: SharedArrayBuffer;
  ioMaxBytesPerSecond?: number;
  group?: number[];
}

/**
 * Cleaning is background work: on Linux the worker thread lowers its own scheduling priority
 * (setpriority on its thread id, which Linux applies to that thread only) so that when CPUs are
 * short the broker's event loop runs first. Elsewhere it keeps the process's priority.
 */
const NICE_INCREMENT = 10;
function lowerThreadPriority(): void {
  try {
    const tid = Number(nodefs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + NICE_INCREMENT));
  } catch {
    // No /proc/thread-self (not Linux) or not permitted: normal priority.
  }
}

if (parentPort) {
  const port = parentPort;
  if (!process.env.SAMSA_CLEANER_NORMAL_PRIORITY) lowerThreadPriority();
  let copy: CleanerCopy | null = null;
  port.on('message', (req: Request) => {
    const answer = async (): Promise<unknown> => {
      if (req.type === 'begin') {
        const control = new Int32Array(req.control!);
        copy = new CleanerCopy(nodeFs, new FileBatchSource(req.plan!.readBytes, control, req.ioMaxBytesPerSecond!), req.plan!);
        return null;
      }
      if (!copy) throw new Error('no pass begun');
      if (req.type === 'map') return copy.buildMap();
      if (req.type === 'horizon') return copy.earliestDeleteHorizon();
      return copy.writeGroup(req.group!);
    };
    answer().then(
      (value) => port.postMessage({ id: req.id, ok: true, value, stats: copy?.stats }),
      (err: unknown) => port.postMessage({
        id: req.id, ok: false, stopped: err instanceof CleanerStoppedError, error: err instanceof Error ? `${err.message}\n${err.stack ?? ''}` : String(err), stats: copy?.stats,
      }),
    );
  });
}
