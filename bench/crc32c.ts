/**
 * CRC-32C throughput: native sse4_crc32 vs the pure-JS slice-by-8 fallback, on 1 MiB and 16 KiB
 * buffers. Prints MB/s and the native/JS ratio.
 *
 *   npx tsx bench/crc32c.ts
 */
import { randomBytes } from 'node:crypto';
import { crc32cImplementation, crc32cJs, crc32cNative } from '../src/protocol/records/crc32c.js';

function measure(fn: (b: Buffer) => number, buf: Buffer, minMs = 400): number {
  let sink = 0;
  for (let i = 0; i < 20; i++) sink ^= fn(buf);
  let iterations = 0;
  const start = process.hrtime.bigint();
  let elapsedMs = 0;
  do {
    for (let i = 0; i < 50; i++) sink ^= fn(buf);
    iterations += 50;
    elapsedMs = Number(process.hrtime.bigint() - start) / 1e6;
  } while (elapsedMs < minMs);
  if (sink === 0.5) console.log(sink);
  return (buf.length * iterations) / 1e6 / (elapsedMs / 1000);
}

console.log(`crc32c implementation in use: ${crc32cImplementation}`);
for (const size of [1 << 20, 16 << 10]) {
  const buf = randomBytes(size);
  const js = measure((b) => crc32cJs(b), buf);
  const label = size >= 1 << 20 ? `${size >> 20} MiB` : `${size >> 10} KiB`;
  if (crc32cNative) {
    const native = measure((b) => crc32cNative!(b), buf);
    console.log(`${label.padEnd(7)} native ${native.toFixed(0).padStart(7)} MB/s   js ${js.toFixed(0).padStart(6)} MB/s   native/js ${(native / js).toFixed(1)}x`);
  } else {
    console.log(`${label.padEnd(7)} native n/a   js ${js.toFixed(0)} MB/s`);
  }
}
