/**
 * Reads Kafka frames (int32 size + payload) straight from the socket into their final buffers.
 *
 * Node's default socket reading hands out a fresh 64 KiB chunk per read, and a 1 MiB Produce
 * request then has to be assembled by copying ~16 chunks into a new buffer (whose pages are
 * fresh too). With `onread` the kernel copies into a buffer we choose instead:
 * - reads land in one 64 KiB buffer shared by every connection of the server (FramePool.readBuffer)
 *   and each read's bytes are copied out of it before its callback returns: complete small frames
 *   into buffers of their own (Node's slab allocator makes that copy cheap), the start of a frame
 *   that spans reads into a buffer of the frame's size, a split size prefix into two numbers. An
 *   idle connection therefore holds no read buffer at all (issue 19: it held 64 KiB before);
 * - a frame larger than LARGE_FRAME_BYTES gets a buffer of its own (from a FramePool) as soon as
 *   its size is known, and the rest of it is read directly into that buffer: no assembly copy.
 * Sharing one buffer is safe because Node asks for the next read's buffer right after the previous
 * read's callback and libuv reads one socket at a time on this thread: nothing is left in the
 * shared buffer between two callbacks, so whichever connection reads next may overwrite it.
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

/** The read buffer every connection of a pool shares (see FramePool.readBuffer). */
const READ_BUFFER_BYTES = 64 * 1024;
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

  private shared: Buffer | null = null;

  constructor(private readonly maxBuffers = 8, private readonly maxBytes = 32 * 1024 * 1024) {}

  /**
   * The buffer every FrameReader of this pool reads into when it is not filling a large frame.
   * Its content is only valid inside one read's callback (FrameReader.onRead copies it out).
   */
  readBuffer(): Buffer {
    return (this.shared ??= Buffer.allocUnsafeSlow(READ_BUFFER_BYTES));
  }

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
  /** The frame being assembled (body only), once its size is known and its bytes span reads. */
  private frame: Buffer | null = null;
  private filled = 0;
  /** `frame` came from the pool: the socket reads straight into it. */
  private direct = false;
  /** A size prefix split between reads: how many of its 4 bytes arrived, and their value so far. */
  private headBytes = 0;
  private head = 0;
  private failed = false;
  sink: FrameSink | null = null;

  constructor(private readonly maxFrameBytes: number, private readonly pool: FramePool) {}

  /** Where the next socket read lands (Node's `onread.buffer` function). */
  nextBuffer(): Buffer {
    if (this.direct) return this.frame!.subarray(this.filled);
    return this.pool.readBuffer();
  }

  /** `nread` bytes were read into the buffer nextBuffer() returned (Node's `onread.callback`). */
  onRead(nread: number): void {
    if (this.failed) return;
    try {
      if (this.direct) {
        this.filled += nread;
        if (this.filled === this.frame!.length) this.complete(true);
        return;
      }
      // The shared buffer is only ours until this returns: everything is copied out of it here.
      this.parse(this.pool.readBuffer(), nread);
    } catch (err) {
      this.failed = true;
      this.frame = null;
      this.direct = false;
      this.sink?.onError(err);
    }
  }

  /** Bytes received but not yet part of a complete frame. */
  get bufferedBytes(): number {
    return this.frame ? this.filled : this.headBytes;
  }

  private complete(pooled: boolean): void {
    const frame = this.frame!;
    this.frame = null;
    this.filled = 0;
    this.direct = false;
    this.sink?.onFrame(frame, pooled);
  }

  private parse(buf: Buffer, end: number): void {
    let pos = 0;
    if (this.frame) {
      // The rest of a small frame begun in an earlier read.
      const n = Math.min(end, this.frame.length - this.filled);
      buf.copy(this.frame, this.filled, 0, n);
      this.filled += n;
      pos = n;
      if (this.filled < this.frame.length) return;
      this.complete(false);
    }
    while (pos < end) {
      let size: number;
      if (this.headBytes > 0 || end - pos < 4) {
        while (this.headBytes < 4 && pos < end) {
          this.head = (this.head << 8) | buf[pos++];
          this.headBytes++;
        }
        if (this.headBytes < 4) return;
        size = this.head;
        this.head = 0;
        this.headBytes = 0;
      } else {
        size = buf.readInt32BE(pos);
        pos += 4;
      }
      if (size < MIN_REQUEST_BYTES) throw new ProtocolError(`invalid frame size ${size}`);
      if (size > this.maxFrameBytes) {
        throw new ProtocolError(`frame of ${size} bytes exceeds socket.request.max.bytes (${this.maxFrameBytes})`);
      }
      const have = Math.min(end - pos, size);
      // A large frame that is not all here is read straight into a pooled buffer from now on; any
      // other frame is copied out of the shared buffer (a partial one into a buffer of its size).
      const pooled = have < size && size > LARGE_FRAME_BYTES;
      const frame = pooled ? this.pool.take(size) : Buffer.allocUnsafe(size);
      buf.copy(frame, 0, pos, pos + have);
      pos += have;
      if (have === size) {
        this.sink?.onFrame(frame, false);
        continue;
      }
      this.frame = frame;
      this.filled = have;
      this.direct = pooled;
      return;
    }
  }
}

/**
 * Re-wraps a socket accepted by a `pauseOnConnect` server so that its reads go through `reader`
 * (net.Server has no `onread` option; net.Socket accepts an existing handle with one). The new
 * socket takes over the accepted one's place in the server's connection count (`_server`, which
 * Socket#_destroy decrements), and the emptied accepted socket is destroyed at once rather than
 * kept alive beside it (issue 19: a second Socket with its stream states was ~1 KiB a connection).
 * Returns null when the socket has no handle to take over.
 */
export function adoptSocket(accepted: Socket, reader: FrameReader): Socket | null {
  const holder = accepted as unknown as { _handle: unknown; _server: unknown; server: unknown };
  const handle = holder._handle;
  if (!handle) return null;
  const socket = new Socket({
    handle,
    readable: true,
    writable: true,
    onread: { buffer: () => reader.nextBuffer(), callback: (nread: number) => { reader.onRead(nread); return true; } },
  } as ConstructorParameters<typeof Socket>[0] & { handle: unknown });
  const adopted = socket as unknown as typeof holder;
  adopted._server = holder._server;
  adopted.server = holder.server;
  holder._handle = null;
  holder._server = null;
  accepted.destroy();
  return socket;
}
