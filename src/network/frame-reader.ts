/**
 * Reads Kafka frames (int32 size + payload) straight from the socket into their final buffers.
 *
 * Node's default socket reading hands out a fresh 64 KiB chunk per read, and a 1 MiB Produce
 * request then has to be assembled by copying ~16 chunks into a new buffer (whose pages are
 * fresh too). With `onread` the kernel copies into a buffer we choose instead:
 * - small frames are read into one reusable per-connection buffer and copied out (they are
 *   small, and Node's slab allocator makes that copy cheap);
 * - a frame larger than LARGE_FRAME_BYTES gets a buffer of its own (from a FramePool) as soon as
 *   its size is known, and the rest of it is read directly into that buffer: no assembly copy.
 * The connection gives a pooled frame back (FramePool.release) once nothing can reference it any
 * more (a Produce request whose batches have been written to the segment), so steady produce
 * traffic reuses a few warm buffers instead of faulting in fresh pages for every request.
 *
 * Frame-size checks are those of FrameDecoder (framing.ts): a size below MIN_REQUEST_BYTES or
 * above socket.request.max.bytes is a ProtocolError, raised before anything of that size is
 * allocated.
 */
import { Socket } from 'node:net';
import { ProtocolError } from '../errors.js';
import { MIN_REQUEST_BYTES } from '../protocol/framing.js';
import { IdleTrim } from './idle-trim.js';

/** Per-connection read buffer for small frames. */
const SMALL_BUFFER_BYTES = 64 * 1024;
/** Compact the small buffer when less than this much room is left at its end. */
const MIN_READ_ROOM = 8 * 1024;
/** Frames above this size are read straight into a buffer of their own. */
export const LARGE_FRAME_BYTES = 32 * 1024;
/** Pooled buffers' capacities are multiples of this. */
const POOL_GRANULE = 64 * 1024;

/**
 * Reusable buffers for large frames. take() returns a view of exactly the asked size on a buffer
 * whose capacity is a multiple of 64 KiB; release() hands the view back. Bounded by count and bytes.
 */
export class FramePool {
  private free: ArrayBuffer[] = [];
  private freeBytes = 0;
  /** Pooled buffers unused for 10 s are dropped (an idle broker gives the memory back). */
  private readonly idle = new IdleTrim(() => this.clear());
  /** Counters for tests and benchmarks. */
  taken = 0;
  reused = 0;

  constructor(private readonly maxBuffers = 8, private readonly maxBytes = 32 * 1024 * 1024) {}

  take(size: number): Buffer {
    this.taken++;
    this.idle.touch();
    // Smallest free buffer that fits and wastes at most half of itself.
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const cap = this.free[i].byteLength;
      if (cap >= size && cap <= size * 2 + POOL_GRANULE && (best < 0 || cap < this.free[best].byteLength)) best = i;
    }
    if (best >= 0) {
      const ab = this.free[best];
      this.free.splice(best, 1);
      this.freeBytes -= ab.byteLength;
      this.reused++;
      return Buffer.from(ab, 0, size);
    }
    const cap = Math.ceil(size / POOL_GRANULE) * POOL_GRANULE;
    return Buffer.from(new ArrayBuffer(cap), 0, size);
  }

  /** Gives back a buffer returned by take(); the caller must not touch it afterwards. */
  release(frame: Buffer): void {
    const ab = frame.buffer;
    if (!(ab instanceof ArrayBuffer) || ab.byteLength % POOL_GRANULE !== 0) return;
    if (this.free.includes(ab)) throw new Error('FramePool: buffer released twice');
    if (this.free.length >= this.maxBuffers || this.freeBytes + ab.byteLength > this.maxBytes) {
      // Keep the most recently used ones (their pages are the warmest): drop the oldest.
      const dropped = this.free.shift();
      if (dropped) this.freeBytes -= dropped.byteLength;
      if (this.freeBytes + ab.byteLength > this.maxBytes) return;
    }
    this.free.push(ab);
    this.freeBytes += ab.byteLength;
    this.idle.arm();
  }

  /** Drops every pooled buffer (the server calls this on stop; the idle timer after 10 s unused). */
  clear(): void {
    this.free = [];
    this.freeBytes = 0;
    this.idle.disarm();
  }

  get pooledBytes(): number {
    return this.freeBytes;
  }
}

export interface FrameSink {
  /** A complete frame (without its size prefix). `pooled`: it came from the FramePool. */
  onFrame(frame: Buffer, pooled: boolean): void;
  /** A ProtocolError (bad frame size): the connection must be closed. */
  onError(err: unknown): void;
}

export class FrameReader {
  private readonly small = Buffer.allocUnsafeSlow(SMALL_BUFFER_BYTES);
  private start = 0;
  private end = 0;
  private large: Buffer | null = null;
  private largeFilled = 0;
  private failed = false;
  sink: FrameSink | null = null;

  constructor(private readonly maxFrameBytes: number, private readonly pool: FramePool) {}

  /** Where the next socket read lands (Node's `onread.buffer` function). */
  nextBuffer(): Buffer {
    if (this.large) return this.large.subarray(this.largeFilled);
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
    } else if (SMALL_BUFFER_BYTES - this.end < MIN_READ_ROOM) {
      this.small.copyWithin(0, this.start, this.end);
      this.end -= this.start;
      this.start = 0;
    }
    return this.small.subarray(this.end);
  }

  /** `nread` bytes were read into the buffer nextBuffer() returned (Node's `onread.callback`). */
  onRead(nread: number): void {
    if (this.failed) return;
    try {
      if (this.large) {
        this.largeFilled += nread;
        if (this.largeFilled === this.large.length) {
          const frame = this.large;
          this.large = null;
          this.largeFilled = 0;
          this.sink?.onFrame(frame, true);
        }
        return;
      }
      this.end += nread;
      this.parse();
    } catch (err) {
      this.failed = true;
      this.large = null;
      this.sink?.onError(err);
    }
  }

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.large ? this.largeFilled : this.end - this.start;
  }

  private parse(): void {
    while (this.end - this.start >= 4) {
      const size = this.small.readInt32BE(this.start);
      if (size < MIN_REQUEST_BYTES) throw new ProtocolError(`invalid frame size ${size}`);
      if (size > this.maxFrameBytes) {
        throw new ProtocolError(`frame of ${size} bytes exceeds socket.request.max.bytes (${this.maxFrameBytes})`);
      }
      const body = this.start + 4;
      const have = this.end - body;
      if (have >= size) {
        const frame = Buffer.allocUnsafe(size);
        this.small.copy(frame, 0, body, body + size);
        this.start = body + size;
        this.sink?.onFrame(frame, false);
        continue;
      }
      if (size > LARGE_FRAME_BYTES) {
        // Everything buffered from here on belongs to this frame; the rest is read into it directly.
        const frame = this.pool.take(size);
        this.small.copy(frame, 0, body, this.end);
        this.large = frame;
        this.largeFilled = have;
        this.start = 0;
        this.end = 0;
      }
      return;
    }
  }
}

/**
 * Re-wraps a socket accepted by a `pauseOnConnect` server so that its reads go through `reader`
 * (net.Server has no `onread` option; net.Socket accepts an existing handle with one). The
 * accepted socket is emptied and destroyed when the new one closes, so the server's connection
 * count stays right. Returns null when the socket has no handle to take over.
 */
export function adoptSocket(accepted: Socket, reader: FrameReader): Socket | null {
  const holder = accepted as unknown as { _handle: unknown };
  const handle = holder._handle;
  if (!handle) return null;
  const socket = new Socket({
    handle,
    readable: true,
    writable: true,
    onread: { buffer: () => reader.nextBuffer(), callback: (nread: number) => { reader.onRead(nread); return true; } },
  } as ConstructorParameters<typeof Socket>[0] & { handle: unknown });
  holder._handle = null;
  socket.once('close', () => accepted.destroy());
  return socket;
}
