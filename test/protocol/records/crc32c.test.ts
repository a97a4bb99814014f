import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { crc32c, crc32cJs, crc32cNative, crc32cImplementation } from '../../../src/protocol/records/crc32c.js';

test('crc32c of "123456789" is the Castagnoli check value 0xe3069283', () => {
  const b = Buffer.from('123456789', 'latin1');
  assert.is(crc32c(b), 0xe3069283);
  assert.is(crc32cJs(b), 0xe3069283);
});

test('known vectors: empty, 32 zero bytes, 32 0xff bytes, ascending 0..31 (RFC 3720 B.4)', () => {
  assert.is(crc32c(Buffer.alloc(0)), 0);
  assert.is(crc32c(Buffer.alloc(32)), 0x8a9136aa);
  assert.is(crc32cJs(Buffer.alloc(32)), 0x8a9136aa);
  assert.is(crc32cJs(Buffer.alloc(32, 0xff)), 0x62a8ab43);
  const asc = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
  assert.is(crc32cJs(asc), 0x46dd794e);
  assert.is(crc32c(asc), 0x46dd794e);
});

test('a range gives the same CRC as a copy of that range', () => {
  const b = randomBytes(1000);
  assert.is(crc32c(b, 17, 933), crc32cJs(Buffer.from(b.subarray(17, 933))));
  assert.is(crc32cJs(b, 17, 933), crc32cJs(Buffer.from(b.subarray(17, 933))));
  assert.is(crc32c(new Uint8Array(b), 5, 6), crc32cJs(b.subarray(5, 6)));
});

test('JS slice-by-8 agrees with the native addon on random buffers of every small length and large ones', () => {
  if (!crc32cNative) {
    assert.is(crc32cImplementation, 'js');
    return;
  }
  assert.is(crc32cImplementation, 'sse4_crc32');
  for (let len = 0; len < 70; len++) {
    const b = randomBytes(len);
    assert.is(crc32cJs(b), crc32cNative(b), `length ${len}`);
  }
  for (const len of [1023, 4096, 65537, 1 << 20]) {
    const b = randomBytes(len);
    assert.is(crc32cJs(b, 3, len), crc32cNative(b, 3, len), `length ${len}`);
  }
});

test('JS CRC can be continued across chunks', () => {
  const b = randomBytes(777);
  assert.is(crc32cJs(b, 300, 777, crc32cJs(b, 0, 300)), crc32cJs(b));
});

test.run();
