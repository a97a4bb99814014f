/**
 * Splits a TCP byte stream into Kafka frames (int32 size + payload).
 *
 * A size below the smallest possible header or above `maxFrameBytes` (socket.request.max.bytes)
 * is a ProtocolError: the connection is closed before anything of that size is buffered, as
 * Kafka's SocketServer does with InvalidReceiveException.
 */
import { ProtocolError } from '../errors.js';

/** api key + api version + correlation id + client id length. */
export const MIN_REQUEST_BYTES = 10;

export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private frameSize = -1;

  constructor(private readonly maxFrameBytes: number, private readonly minFrameBytes = MIN_REQUEST_BYTES) {}

  /**
   * Feeds bytes; returns the complete frames (payload without the size prefix), in order, appended
   * to `frames` when given: a caller that passes its own array keeps the frames decoded before a
   * ProtocolError this throws.
   */
  push(chunk: Buffer, frames: Buffer[] = []): Buffer[] {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    for (;;) {
      if (this.frameSize < 0) {
        if (this.pendingBytes < 4) break;
        this.frameSize = this.peekInt32();
        if (this.frameSize < this.minFrameBytes) throw new ProtocolError(`invalid frame size ${this.frameSize}`);
        if (this.frameSize > this.maxFrameBytes) {
          throw new ProtocolError(`frame of ${this.frameSize} bytes exceeds socket.request.max.bytes (${this.maxFrameBytes})`);
        }
        this.consume(4);
      }
      if (this.pendingBytes < this.frameSize) break;
      frames.push(this.consume(this.frameSize));
      this.frameSize = -1;
    }
    return frames;
  }

  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /** The int32 at the front, read across chunks when the first one is shorter (copies 4 bytes, not the rest). */
  private peekInt32(): number {
    const first = this.pending[0];
    if (first.length >= 4) return first.readInt32BE(0);
    let v = 0;
    let got = 0;
    for (const c of this.pending) {
      for (let i = 0; i < c.length && got < 4; i++, got++) v = v * 256 + c[i];
      if (got === 4) break;
    }
    return v | 0;
  }

  /** Removes n bytes from the front; a view when they lie in one chunk, else one copy. */
  private consume(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0); // an empty frame (a raw SASL v0 token can be one)
    const first = this.pending[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.pending.shift();
      else this.pending[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = this.pending[0];
        const take = Math.min(c.length, n - filled);
        c.copy(out, filled, 0, take);
        filled += take;
        if (take === c.length) this.pending.shift();
        else this.pending[0] = c.subarray(take);
      }
    }
    this.pendingBytes -= n;
    return out;
  }
}
