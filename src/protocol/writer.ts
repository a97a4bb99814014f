/**
 * Growable big-endian writer that produces a list of chunks.
 *
 * Small fields go into a working buffer; `rawChunk()` appends a Buffer by reference (no copy), so a
 * Fetch response carries record batches read from segment files straight to the socket.
 * `finish()` returns the chunks; `toBuffer()` concatenates (tests, small replies).
 */
import { uuidToBytes } from './reader.js';

const MIN_CAPACITY = 256;

export class Writer {
  private buf: Buffer;
  private pos = 0;
  private start = 0;
  private readonly chunks: Buffer[] = [];
  private flushedBytes = 0;

  constructor(capacity = MIN_CAPACITY) {
    this.buf = Buffer.allocUnsafe(Math.max(capacity, 16));
  }

  /** Total bytes written so far. */
  get length(): number {
    return this.flushedBytes + (this.pos - this.start);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const pending = this.pos - this.start;
    const cap = Math.max(this.buf.length * 2, pending + n, MIN_CAPACITY);
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.start = 0;
    this.pos = pending;
  }

  int8(v: number): void { this.ensure(1); this.buf.writeInt8(v, this.pos); this.pos += 1; }
  int16(v: number): void { this.ensure(2); this.buf.writeInt16BE(v, this.pos); this.pos += 2; }
  uint16(v: number): void { this.ensure(2); this.buf.writeUInt16BE(v, this.pos); this.pos += 2; }
  int32(v: number): void { this.ensure(4); this.buf.writeInt32BE(v, this.pos); this.pos += 4; }
  uint32(v: number): void { this.ensure(4); this.buf.writeUInt32BE(v, this.pos); this.pos += 4; }
  int64(v: bigint): void { this.ensure(8); this.buf.writeBigInt64BE(v, this.pos); this.pos += 8; }
  float64(v: number): void { this.ensure(8); this.buf.writeDoubleBE(v, this.pos); this.pos += 8; }
  bool(v: boolean): void { this.ensure(1); this.buf[this.pos++] = v ? 1 : 0; }

  uvarint(v: number): void {
    this.ensure(5);
    let x = v >>> 0;
    while (x >= 0x80) {
      this.buf[this.pos++] = (x & 0x7f) | 0x80;
      x >>>= 7;
    }
    this.buf[this.pos++] = x;
  }

  varint(v: number): void {
    this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  varlong(v: bigint): void {
    this.ensure(10);
    let x = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    while (x >= 0x80n) {
      this.buf[this.pos++] = Number(x & 0x7fn) | 0x80;
      x >>= 7n;
    }
    this.buf[this.pos++] = Number(x);
  }

  uuid(v: string): void {
    this.bytesRaw(uuidToBytes(v));
  }

  /** Copies b into the working buffer. */
  bytesRaw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Appends b by reference (no copy): b must not change until the chunks are written out. */
  rawChunk(b: Buffer): void {
    if (b.length < 512) {
      this.bytesRaw(b);
      return;
    }
    this.flushPending();
    this.chunks.push(b);
    this.flushedBytes += b.length;
  }

  private flushPending(): void {
    if (this.pos > this.start) {
      const part = this.buf.subarray(this.start, this.pos);
      this.chunks.push(part);
      this.flushedBytes += part.length;
      this.start = this.pos;
    }
  }

  private utf8(s: string, lengthPrefix: (n: number) => void): void {
    const n = Buffer.byteLength(s, 'utf8');
    lengthPrefix(n);
    this.ensure(n);
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
  }

  string(s: string): void { this.utf8(s, (n) => this.int16(n)); }
  nullableString(s: string | null): void { if (s === null) this.int16(-1); else this.string(s); }
  compactString(s: string): void { this.utf8(s, (n) => this.uvarint(n + 1)); }
  compactNullableString(s: string | null): void { if (s === null) this.uvarint(0); else this.compactString(s); }

  bytes(b: Uint8Array): void { this.int32(b.length); this.bytesRaw(b); }
  nullableBytes(b: Uint8Array | null): void { if (b === null) this.int32(-1); else this.bytes(b); }
  compactBytes(b: Uint8Array): void { this.uvarint(b.length + 1); this.bytesRaw(b); }
  compactNullableBytes(b: Uint8Array | null): void { if (b === null) this.uvarint(0); else this.compactBytes(b); }

  /** A records field: a buffer or a list of buffers (sent by reference), or null. */
  records(r: Buffer | Buffer[] | null, compact: boolean): void {
    if (r === null) {
      if (compact) this.uvarint(0); else this.int32(-1);
      return;
    }
    const list = Array.isArray(r) ? r : [r];
    let total = 0;
    for (const b of list) total += b.length;
    if (compact) this.uvarint(total + 1); else this.int32(total);
    for (const b of list) this.rawChunk(b);
  }

  arrayLength(n: number): void { this.int32(n); }
  compactArrayLength(n: number): void { this.uvarint(n + 1); }

  /** Overwrites an int32 at an absolute position already written (e.g. a frame size). */
  patchInt32(absolutePos: number, v: number): void {
    const bytes = Buffer.allocUnsafe(4);
    bytes.writeInt32BE(v, 0);
    // Byte by byte: the four bytes may straddle a flushed chunk and the next one.
    let offset = absolutePos;
    let i = 0;
    for (const c of this.chunks) {
      while (i < 4 && offset < c.length) c[offset++] = bytes[i++];
      if (i === 4) return;
      offset -= c.length;
    }
    const pending = this.pos - this.start;
    if (offset < 0 || offset + (4 - i) > pending) throw new RangeError(`patchInt32 at ${absolutePos} is outside the ${this.length} bytes written`);
    while (i < 4) this.buf[this.start + offset++] = bytes[i++];
  }

  finish(): Buffer[] {
    this.flushPending();
    return this.chunks;
  }

  toBuffer(): Buffer {
    const chunks = this.finish();
    return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
  }
}
