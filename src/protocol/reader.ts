/**
 * Bounds-checked cursor over untrusted bytes.
 *
 * Every read checks the bytes left first; lengths read from the wire are checked against the
 * bytes left *before* anything is allocated, so a frame can never make the broker allocate more
 * than the frame itself. Any failure is a ProtocolError (the connection is closed, nothing else).
 * Byte fields are returned as views (subarray) of the frame, not copies.
 */
import { ProtocolError } from '../errors.js';

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export class Reader {
  readonly buf: Buffer;
  pos: number;
  readonly end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.pos = start;
    this.end = end;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  private need(n: number): number {
    const p = this.pos;
    if (n < 0 || p + n > this.end) throw new ProtocolError(`truncated: need ${n} bytes at ${p - 0}, ${this.end - p} left`);
    this.pos = p + n;
    return p;
  }

  int8(): number { return this.buf.readInt8(this.need(1)); }
  int16(): number { return this.buf.readInt16BE(this.need(2)); }
  uint16(): number { return this.buf.readUInt16BE(this.need(2)); }
  int32(): number { return this.buf.readInt32BE(this.need(4)); }
  uint32(): number { return this.buf.readUInt32BE(this.need(4)); }
  int64(): bigint { return this.buf.readBigInt64BE(this.need(8)); }
  float64(): number { return this.buf.readDoubleBE(this.need(8)); }

  bool(): boolean {
    return this.buf[this.need(1)] !== 0;
  }

  /** Unsigned LEB128 varint of at most 5 bytes (32 bits). */
  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      if (this.pos >= this.end) throw new ProtocolError('truncated varint');
      const b = this.buf[this.pos++];
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    throw new ProtocolError('varint longer than 5 bytes');
  }

  /** Zig-zag signed varint (32 bits). */
  varint(): number {
    const u = this.uvarint();
    return (u >>> 1) ^ -(u & 1);
  }

  /** Zig-zag signed varlong (64 bits) as bigint. */
  varlong(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtocolError('truncated varlong');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        // Like Kafka's ByteUtils.readVarlong, keep the low 64 bits: a 10th byte above 0x01 must
        // not produce a value outside the int64 range (it would fail later as a RangeError).
        result = BigInt.asUintN(64, result);
        return (result >> 1n) ^ -(result & 1n);
      }
      shift += 7n;
    }
    throw new ProtocolError('varlong longer than 10 bytes');
  }

  uuid(): string {
    const p = this.need(16);
    return uuidToString(this.buf.subarray(p, p + 16));
  }

  private text(len: number): string {
    const p = this.need(len);
    return this.buf.toString('utf8', p, p + len);
  }

  string(): string {
    const len = this.int16();
    if (len < 0) throw new ProtocolError('null in a non-nullable string');
    return this.text(len);
  }

  nullableString(): string | null {
    const len = this.int16();
    return len < 0 ? null : this.text(len);
  }

  compactString(): string {
    const len = this.uvarint() - 1;
    if (len < 0) throw new ProtocolError('null in a non-nullable compact string');
    return this.text(len);
  }

  compactNullableString(): string | null {
    const len = this.uvarint() - 1;
    return len < 0 ? null : this.text(len);
  }

  /** A view of the next len bytes. */
  raw(len: number): Buffer {
    const p = this.need(len);
    return this.buf.subarray(p, p + len);
  }

  bytes(): Buffer {
    const len = this.int32();
    if (len < 0) throw new ProtocolError('null in non-nullable bytes');
    return this.raw(len);
  }

  nullableBytes(): Buffer | null {
    const len = this.int32();
    return len < 0 ? null : this.raw(len);
  }

  compactBytes(): Buffer {
    const len = this.uvarint() - 1;
    if (len < 0) throw new ProtocolError('null in non-nullable compact bytes');
    return this.raw(len);
  }

  compactNullableBytes(): Buffer | null {
    const len = this.uvarint() - 1;
    return len < 0 ? null : this.raw(len);
  }

  /** int32 array length; -1 means null. Checked against the bytes left (every element takes at least one byte). */
  arrayLength(): number {
    const len = this.int32();
    if (len < -1) throw new ProtocolError(`negative array length ${len}`);
    if (len > this.remaining) throw new ProtocolError(`array length ${len} exceeds the ${this.remaining} bytes left`);
    return len;
  }

  /** Compact (uvarint N+1) array length; -1 means null. */
  compactArrayLength(): number {
    const len = this.uvarint() - 1;
    if (len > this.remaining) throw new ProtocolError(`array length ${len} exceeds the ${this.remaining} bytes left`);
    return len;
  }

  skip(n: number): void {
    this.need(n);
  }

  /** Reads a tagged-field section, calling onTag for each; unknown tags must be skipped by onTag returning false. */
  taggedFields(onTag?: (tag: number, r: Reader) => boolean): void {
    const count = this.uvarint();
    if (count > this.remaining) throw new ProtocolError(`tagged field count ${count} exceeds the bytes left`);
    // No order check: Kafka's generated readers take tags in any order (a repeated known tag
    // overwrites), and a broker must accept what Kafka accepts.
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint();
      const size = this.uvarint();
      const start = this.need(size);
      if (onTag) {
        const sub = new Reader(this.buf, start, start + size);
        if (onTag(tag, sub) && sub.remaining !== 0) throw new ProtocolError(`tagged field ${tag} has ${sub.remaining} trailing bytes`);
      }
    }
  }
}

export function uuidToString(b: Buffer): string {
  return b.toString('base64url');
}

export function uuidToBytes(s: string): Buffer {
  const b = Buffer.from(s, 'base64url');
  if (b.length !== 16) throw new ProtocolError(`invalid uuid ${s}`);
  return b;
}

export { ZERO_UUID };
