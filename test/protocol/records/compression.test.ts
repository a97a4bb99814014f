import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import {
  compress,
  compressSync,
  decompress,
  decompressSync,
  isXerialSnappy,
  snappyDecompressSync,
} from '../../../src/protocol/records/compression.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';

const require = createRequire(import.meta.url);
const snappy = require('snappy') as { compressSync(b: Buffer): Buffer };

const sample = Buffer.concat([Buffer.from('kafka '.repeat(20000)), randomBytes(5000)]);

for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
  test(`${codec} round trip, sync and async`, async () => {
    const c = compressSync(codec, sample);
    if (codec !== 'none') assert.ok(c.length < sample.length, 'compressible input shrinks');
    assert.ok(decompressSync(codec, c).equals(sample));
    const c2 = await compress(codec, sample);
    assert.ok((await decompress(codec, c2)).equals(sample));
  });
}

test('lz4 output is the LZ4 frame format (magic 0x184D2204), not a raw block', () => {
  const c = compressSync('lz4', sample);
  assert.is(c.readUInt32LE(0), 0x184d2204);
});

test('snappy compresses in xerial framing (what the Java producer writes) with 32 KiB blocks', () => {
  const c = compressSync('snappy', sample);
  assert.ok(isXerialSnappy(c));
  assert.is(c.readInt32BE(8), 1);
  assert.is(c.readInt32BE(12), 1);
});

test('snappy decompresses a hand-built xerial stream with two blocks', () => {
  const a = Buffer.from('first block '.repeat(100));
  const b = Buffer.from('second block');
  const ca = snappy.compressSync(a);
  const cb = snappy.compressSync(b);
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const la = Buffer.alloc(4); la.writeInt32BE(ca.length);
  const lb = Buffer.alloc(4); lb.writeInt32BE(cb.length);
  const xerial = Buffer.concat([header, la, ca, lb, cb]);
  assert.is(snappyDecompressSync(xerial).toString(), a.toString() + b.toString());
  assert.is(decompressSync(2, xerial).toString(), a.toString() + b.toString());
});

test('snappy decompresses a raw block too', () => {
  const raw = snappy.compressSync(Buffer.from('raw snappy'));
  assert.is(decompressSync('snappy', raw).toString(), 'raw snappy');
});

test('a truncated xerial stream is CORRUPT_MESSAGE', () => {
  const c = compressSync('snappy', sample);
  try {
    decompressSync('snappy', c.subarray(0, c.length - 10));
    assert.unreachable('should throw');
  } catch (err) {
    assert.instance(err, KafkaApiError);
    assert.is((err as KafkaApiError).errorCode, ErrorCode.CORRUPT_MESSAGE);
  }
});

test('garbage gzip input is CORRUPT_MESSAGE; unknown codec 5 is UNSUPPORTED_COMPRESSION_TYPE', () => {
  try {
    decompressSync('gzip', Buffer.from('not gzip at all'));
    assert.unreachable('should throw');
  } catch (err) {
    assert.is((err as KafkaApiError).errorCode, ErrorCode.CORRUPT_MESSAGE);
  }
  try {
    decompressSync(5, Buffer.from('x'));
    assert.unreachable('should throw');
  } catch (err) {
    assert.is((err as KafkaApiError).errorCode, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
  }
});

test.run();
