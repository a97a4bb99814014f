/**
 * CRC-32C (Castagnoli), the checksum of a v2 RecordBatch (it covers the bytes from the attributes
 * field to the end of the batch).
 *
 * The native `sse4_crc32` addon uses the SSE4.2 `crc32` instruction and runs at memory speed
 * (see bench/crc32c.ts for figures on this machine). When the addon cannot be loaded (no prebuilt
 * binary, unusual platform) a pure-JS slice-by-8 implementation takes over; it is roughly an order
 * of magnitude slower, so `crc32cImplementation` is exported for start-up logging.
 *
 * Both functions take a range of the input and never copy it: the native call receives a
 * subarray view of the same memory.
 */
import { createRequire } from 'node:module';

type NativeCalculate = (buf: Buffer, initial?: number) => number;

const POLY_REFLECTED = 0x82f63b78;

/** Slice-by-8 lookup tables: TABLES[k][b] is the CRC of byte b followed by k zero bytes. */
const TABLES: Uint32Array[] = (() => {
  const t: Uint32Array[] = [];
  const t0 = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
    t0[n] = c >>> 0;
  }
  t.push(t0);
  for (let k = 1; k < 8; k++) {
    const prev = t[k - 1];
    const cur = new Uint32Array(256);
    for (let n = 0; n < 256; n++) cur[n] = (prev[n] >>> 8) ^ t0[prev[n] & 0xff];
    t.push(cur);
  }
  return t;
})();

/**
 * Pure-JS CRC-32C of buf[start, end), continuing from `initial` (the CRC of the preceding bytes;
 * 0 for a fresh computation), slice-by-8.
 */
export function crc32cJs(buf: Uint8Array, start = 0, end = buf.length, initial = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
  let crc = ~initial >>> 0;
  let i = start;
  const end8 = end - ((end - start) & 7);
  while (i < end8) {
    const a = (crc ^ (buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24))) >>> 0;
    crc =
      t7[a & 0xff] ^
      t6[(a >>> 8) & 0xff] ^
      t5[(a >>> 16) & 0xff] ^
      t4[a >>> 24] ^
      t3[buf[i + 4]] ^
      t2[buf[i + 5]] ^
      t1[buf[i + 6]] ^
      t0[buf[i + 7]];
    i += 8;
  }
  while (i < end) crc = t0[(crc ^ buf[i++]) & 0xff] ^ (crc >>> 8);
  return ~crc >>> 0;
}

function loadNative(): NativeCalculate | null {
  try {
    const require = createRequire(import.meta.url);
    const mod = require('sse4_crc32') as { calculate?: NativeCalculate };
    if (typeof mod.calculate !== 'function') return null;
    const probe = Buffer.from('123456789', 'latin1');
    // Known answer: guards against a wrongly built addon silently computing another CRC.
    if (mod.calculate(probe) >>> 0 !== 0xe3069283) return null;
    return mod.calculate;
  } catch {
    return null;
  }
}

const native = loadNative();

/** Which implementation `crc32c` uses in this process. */
export const crc32cImplementation: 'sse4_crc32' | 'js' = native ? 'sse4_crc32' : 'js';

function asBuffer(buf: Uint8Array, start: number, end: number): Buffer {
  if (Buffer.isBuffer(buf)) return start === 0 && end === buf.length ? buf : buf.subarray(start, end);
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start);
}

/** Native CRC-32C of buf[start, end), or null when the addon is not available (benchmarks, tests). */
export const crc32cNative: ((buf: Uint8Array, start?: number, end?: number, initial?: number) => number) | null = native
  ? (buf, start = 0, end = buf.length, initial = 0) => (end <= start ? initial >>> 0 : native(asBuffer(buf, start, end), initial) >>> 0)
  : null;

/** CRC-32C (unsigned) of buf[start, end). */
export const crc32c: (buf: Uint8Array, start?: number, end?: number) => number = native
  ? (buf, start = 0, end = buf.length) => (end <= start ? 0 : native(asBuffer(buf, start, end)) >>> 0)
  : (buf, start = 0, end = buf.length) => crc32cJs(buf, start, end);
