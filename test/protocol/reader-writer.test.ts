/**
 * Reader / Writer primitives: round trips, varint/varlong against hand-computed bytes,
 * truncation and bounds checks (always ProtocolError), tagged-field section rules.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtocolError } from '../../src/errors.js';
import { Reader, uuidToBytes, uuidToString, ZERO_UUID } from '../../src/protocol/reader.js';
import { Writer } from '../../src/protocol/writer.js';
import { readApiVersionsResponse } from '../../src/protocol/generated/messages/api-versions-response.js';
import { readMetadataRequest } from '../../src/protocol/generated/messages/metadata-request.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function bytesOf(fn: (w: Writer) => void): Buffer {
  const w = new Writer(16);
  fn(w);
  return w.toBuffer();
}

function throwsProtocol(fn: () => unknown, msg?: RegExp, label = ''): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof ProtocolError)) {
      throw new assert.Assertion({ message: `${label}: expected ProtocolError, got ${(e as Error)?.name}: ${(e as Error)?.message}`, operator: 'throws', expects: 'ProtocolError', actual: e, generated: false });
    }
    if (msg) assert.match(e.message, msg, label);
    return;
  }
  assert.unreachable(`${label}: expected a ProtocolError`);
}

// ---------------------------------------------------------------- fixed-width primitives

type Prim = { name: string; values: unknown[]; write: (w: Writer, v: any) => void; read: (r: Reader) => unknown; size?: number };

const PRIMS: Prim[] = [
  { name: 'int8', values: [0, 1, -1, 127, -128], write: (w, v) => w.int8(v), read: (r) => r.int8(), size: 1 },
  { name: 'int16', values: [0, 1, -1, 32767, -32768, 0x1234], write: (w, v) => w.int16(v), read: (r) => r.int16(), size: 2 },
  { name: 'uint16', values: [0, 1, 65535, 0x8000], write: (w, v) => w.uint16(v), read: (r) => r.uint16(), size: 2 },
  { name: 'int32', values: [0, 1, -1, 2147483647, -2147483648], write: (w, v) => w.int32(v), read: (r) => r.int32(), size: 4 },
  { name: 'uint32', values: [0, 1, 4294967295, 0x80000000], write: (w, v) => w.uint32(v), read: (r) => r.uint32(), size: 4 },
  { name: 'int64', values: [0n, 1n, -1n, 9223372036854775807n, -9223372036854775808n, 1509292875164n], write: (w, v) => w.int64(v), read: (r) => r.int64(), size: 8 },
  { name: 'float64', values: [0, 1.5, -2.25, Number.MAX_VALUE, Number.MIN_VALUE, Infinity, -Infinity], write: (w, v) => w.float64(v), read: (r) => r.float64(), size: 8 },
  { name: 'bool', values: [true, false], write: (w, v) => w.bool(v), read: (r) => r.bool(), size: 1 },
  { name: 'uuid', values: [ZERO_UUID, 'AAECAwQFBgcICQoLDA0ODw', '_____________________w'], write: (w, v) => w.uuid(v), read: (r) => r.uuid(), size: 16 },
  { name: 'string', values: ['', 'a', 'topic-1', 'ünïcødé ✓', 'x'.repeat(1000)], write: (w, v) => w.string(v), read: (r) => r.string() },
  { name: 'nullableString', values: [null, '', 'abc'], write: (w, v) => w.nullableString(v), read: (r) => r.nullableString() },
  { name: 'compactString', values: ['', 'a', 'ünïcødé ✓', 'y'.repeat(200)], write: (w, v) => w.compactString(v), read: (r) => r.compactString() },
  { name: 'compactNullableString', values: [null, '', 'abc'], write: (w, v) => w.compactNullableString(v), read: (r) => r.compactNullableString() },
  { name: 'bytes', values: [Buffer.alloc(0), hex('00ff10'), Buffer.alloc(600, 7)], write: (w, v) => w.bytes(v), read: (r) => r.bytes() },
  { name: 'nullableBytes', values: [null, Buffer.alloc(0), hex('01')], write: (w, v) => w.nullableBytes(v), read: (r) => r.nullableBytes() },
  { name: 'compactBytes', values: [Buffer.alloc(0), hex('deadbeef'), Buffer.alloc(300, 1)], write: (w, v) => w.compactBytes(v), read: (r) => r.compactBytes() },
  { name: 'compactNullableBytes', values: [null, Buffer.alloc(0), hex('cafe')], write: (w, v) => w.compactNullableBytes(v), read: (r) => r.compactNullableBytes() },
  { name: 'uvarint', values: [0, 1, 127, 128, 16383, 16384, 2097151, 2097152, 268435455, 268435456, 4294967295], write: (w, v) => w.uvarint(v), read: (r) => r.uvarint() },
  { name: 'varint', values: [0, 1, -1, 63, 64, -64, -65, 2147483647, -2147483648], write: (w, v) => w.varint(v), read: (r) => r.varint() },
  { name: 'varlong', values: [0n, 1n, -1n, 63n, 64n, -64n, -65n, 2147483648n, -2147483649n, 9223372036854775807n, -9223372036854775808n], write: (w, v) => w.varlong(v), read: (r) => r.varlong() },
];

test('every primitive round-trips (and fixed widths have their size)', () => {
  for (const p of PRIMS) {
    for (const v of p.values) {
      const b = bytesOf((w) => p.write(w, v));
      if (p.size !== undefined) assert.is(b.length, p.size, `${p.name} size`);
      const r = new Reader(b);
      assert.equal(p.read(r), v, `${p.name} ${String(v)}`);
      assert.is(r.remaining, 0, `${p.name} consumed`);
    }
  }
});

test('all primitives in sequence share one buffer (writer growth, reader cursor)', () => {
  const w = new Writer(16);
  for (let round = 0; round < 20; round++) for (const p of PRIMS) for (const v of p.values) p.write(w, v);
  const b = w.toBuffer();
  assert.is(w.length, b.length);
  const r = new Reader(b);
  for (let round = 0; round < 20; round++) for (const p of PRIMS) for (const v of p.values) assert.equal(p.read(r), v, p.name);
  assert.is(r.remaining, 0);
});

test('fixed-width encodings are big-endian', () => {
  assert.equal(bytesOf((w) => w.int16(0x1234)), hex('1234'));
  assert.equal(bytesOf((w) => w.int32(-2)), hex('fffffffe'));
  assert.equal(bytesOf((w) => w.int64(0x0102030405060708n)), hex('0102030405060708'));
  assert.equal(bytesOf((w) => w.float64(1)), hex('3ff0000000000000'));
  assert.equal(bytesOf((w) => w.string('ab')), hex('0002 6162'));
  assert.equal(bytesOf((w) => w.nullableString(null)), hex('ffff'));
  assert.equal(bytesOf((w) => w.compactString('ab')), hex('03 6162'));
  assert.equal(bytesOf((w) => w.compactNullableString(null)), hex('00'));
  assert.equal(bytesOf((w) => w.nullableBytes(null)), hex('ffffffff'));
  assert.equal(bytesOf((w) => w.compactBytes(hex('ff'))), hex('02ff'));
  assert.equal(bytesOf((w) => w.bool(true)), hex('01'));
});

test('uuid strings are base64url of the 16 bytes (like Kafka Uuid.toString)', () => {
  const b = hex('000102030405060708090a0b0c0d0e0f');
  assert.is(uuidToString(b), 'AAECAwQFBgcICQoLDA0ODw');
  assert.equal(uuidToBytes('AAECAwQFBgcICQoLDA0ODw'), b);
  assert.is(ZERO_UUID.length, 22);
  assert.equal(uuidToBytes(ZERO_UUID), Buffer.alloc(16));
  throwsProtocol(() => uuidToBytes('AAAA'), /uuid/, 'short uuid');
});

// ---------------------------------------------------------------- varint oracle

// Hand-computed: zig-zag (n << 1) ^ (n >> 31|63), then 7-bit groups, least significant first.
const UVARINTS: [number, string][] = [
  [0, '00'], [1, '01'], [127, '7f'], [128, '8001'], [300, 'ac02'], [16383, 'ff7f'], [16384, '808001'],
  [2097151, 'ffff7f'], [2097152, '80808001'], [268435455, 'ffffff7f'], [268435456, '8080808001'],
  [2147483647, 'ffffffff07'], [4294967295, 'ffffffff0f'],
];
const VARINTS: [number, string][] = [
  [0, '00'], [-1, '01'], [1, '02'], [63, '7e'], [-64, '7f'], [64, '8001'], [-65, '8101'], [150, 'ac02'],
  [8191, 'fe7f'], [-8192, 'ff7f'], [8192, '808001'],
  [2147483647, 'feffffff0f'], [-2147483648, 'ffffffff0f'],
];
const VARLONGS: [bigint, string][] = [
  [0n, '00'], [-1n, '01'], [1n, '02'], [63n, '7e'], [-64n, '7f'], [64n, '8001'], [-65n, '8101'],
  [2147483647n, 'feffffff0f'], [-2147483648n, 'ffffffff0f'],
  [2147483648n, '8080808010'], [-2147483649n, '8180808010'],
  [9223372036854775807n, 'feffffffffffffffff01'], [-9223372036854775808n, 'ffffffffffffffffff01'],
  [1795943958000n, 'e097d0e9c468'],
];

test('uvarint matches hand-computed bytes', () => {
  for (const [n, h] of UVARINTS) {
    assert.is(bytesOf((w) => w.uvarint(n)).toString('hex'), h, `write ${n}`);
    const r = new Reader(hex(h));
    assert.is(r.uvarint(), n, `read ${h}`);
    assert.is(r.remaining, 0);
  }
});

test('varint (zig-zag) matches hand-computed bytes incl. 0, 63, 64, -1, -64, -65, int32 extremes', () => {
  for (const [n, h] of VARINTS) {
    assert.is(bytesOf((w) => w.varint(n)).toString('hex'), h, `write ${n}`);
    const r = new Reader(hex(h));
    assert.is(r.varint(), n, `read ${h}`);
    assert.is(r.remaining, 0);
  }
});

test('varlong (zig-zag) matches hand-computed bytes incl. int64 extremes', () => {
  for (const [n, h] of VARLONGS) {
    assert.is(bytesOf((w) => w.varlong(n)).toString('hex'), h, `write ${n}`);
    const r = new Reader(hex(h));
    assert.is(r.varlong(), n, `read ${h}`);
    assert.is(r.remaining, 0);
  }
});

test('varint/varlong: non-terminating or over-long encodings are ProtocolErrors', () => {
  throwsProtocol(() => new Reader(hex('ffffffffff01')).uvarint(), /longer/, 'uvarint 6 bytes');
  throwsProtocol(() => new Reader(hex('8080808080')).varint(), /longer/, 'varint 5 continuation bytes');
  throwsProtocol(() => new Reader(hex('ffffffffffffffffffff01')).varlong(), /longer/, 'varlong 11 bytes');
});

test('varlong: a 10th byte with bits above 64 stays inside the int64 range (Kafka keeps the low 64 bits)', () => {
  // 0x7f in the 10th byte: only its lowest bit lands inside 64 bits.
  const r = new Reader(hex('ffffffffffffffffff7f'));
  const v = r.varlong();
  assert.ok(v >= -9223372036854775808n && v <= 9223372036854775807n, `out of int64 range: ${v}`);
  assert.is(v, -9223372036854775808n);
  // It can be written back as an int64 without a RangeError.
  bytesOf((w) => w.int64(v));
});

// ---------------------------------------------------------------- truncation

test('truncated input throws ProtocolError for every read kind, at every cut', () => {
  const kinds: { name: string; full: Buffer; read: (r: Reader) => unknown }[] = PRIMS.map((p) => ({
    name: p.name,
    // the longest sample value, so every cut point is exercised
    full: p.values.map((v) => bytesOf((w) => p.write(w, v))).sort((a, b) => b.length - a.length)[0],
    read: p.read,
  }));
  kinds.push(
    { name: 'raw(3)', full: hex('010203'), read: (r) => r.raw(3) },
    { name: 'skip(3)', full: hex('010203'), read: (r) => r.skip(3) },
    { name: 'arrayLength', full: hex('00000000'), read: (r) => r.arrayLength() },
    { name: 'compactArrayLength', full: hex('01'), read: (r) => r.compactArrayLength() },
    { name: 'taggedFields', full: hex('02 00 02 aabb 05 01 cc'), read: (r) => r.taggedFields() },
    { name: 'taggedFields(onTag)', full: hex('01 00 02 aabb'), read: (r) => r.taggedFields((_t, s) => { s.int16(); return true; }) },
  );
  for (const k of kinds) {
    // sanity: the full encoding reads
    const ok = new Reader(k.full);
    k.read(ok);
    assert.is(ok.remaining, 0, `${k.name} full read`);
    for (let cut = 0; cut < k.full.length; cut++) {
      throwsProtocol(() => k.read(new Reader(k.full.subarray(0, cut))), undefined, `${k.name} cut at ${cut}/${k.full.length}`);
      // a Reader over a window of a larger buffer must not read past its end either
      const big = Buffer.concat([k.full, Buffer.alloc(16, 0)]);
      throwsProtocol(() => k.read(new Reader(big, 0, cut)), undefined, `${k.name} window cut at ${cut}`);
    }
  }
});

test('null lengths: any negative string/bytes length is null (as in Kafka), arrays accept only -1', () => {
  // Kafka's generated readers treat every negative length of a nullable string/bytes as null.
  assert.is(new Reader(hex('fffe')).nullableString(), null);
  assert.is(new Reader(hex('8000')).nullableString(), null);
  assert.is(new Reader(hex('fffffffe')).nullableBytes(), null);
  throwsProtocol(() => new Reader(hex('fffe')).string(), /null/, 'non-nullable string -2');
  throwsProtocol(() => new Reader(hex('ffff')).string(), /null/, 'non-nullable string null');
  throwsProtocol(() => new Reader(hex('ffffffff')).bytes(), /null/, 'non-nullable bytes null');
  throwsProtocol(() => new Reader(hex('00')).compactString(), /null/, 'compact non-nullable string null');
  throwsProtocol(() => new Reader(hex('00')).compactBytes(), /null/, 'compact non-nullable bytes null');
  throwsProtocol(() => new Reader(hex('fffffffe')).arrayLength(), /negative/, 'array -2');
  throwsProtocol(() => new Reader(hex('80000000')).arrayLength(), /negative/, 'array int32 min');
  assert.is(new Reader(hex('ffffffff')).arrayLength(), -1);
  assert.is(new Reader(hex('00')).compactArrayLength(), -1);
});

test('array length larger than the bytes left throws before anything is allocated', () => {
  throwsProtocol(() => new Reader(hex('7fffffff 00')).arrayLength(), /exceeds/, 'int32 array');
  throwsProtocol(() => new Reader(hex('ffffffff0f')).compactArrayLength(), /exceeds/, 'compact array 2^32-2');
  // exactly as many elements as bytes left is allowed (each element takes at least one byte)
  assert.is(new Reader(hex('00000002 0000')).arrayLength(), 2);
  assert.is(new Reader(hex('03 0000')).compactArrayLength(), 2);
  throwsProtocol(() => new Reader(hex('00000003 0000')).arrayLength(), /exceeds/, 'one more than left');
  // Through a generated codec: Metadata v0 topics count of 2^31-1 with no bytes behind it.
  const t0 = process.hrtime.bigint();
  throwsProtocol(() => readMetadataRequest(new Reader(hex('7fffffff')), 0), /exceeds/, 'metadata topics');
  throwsProtocol(() => readMetadataRequest(new Reader(hex('ffffffff0f 00')), 9), /exceeds/, 'metadata v9 topics');
  assert.ok(process.hrtime.bigint() - t0 < 50_000_000n, 'rejected without allocating a huge array');
  // String and bytes lengths are checked against what is left as well.
  throwsProtocol(() => new Reader(hex('7fff 00')).string(), /truncated/, 'string length');
  throwsProtocol(() => new Reader(hex('7fffffff 00')).bytes(), /truncated/, 'bytes length');
  throwsProtocol(() => new Reader(hex('ffffffff0f 00')).compactBytes(), /truncated/, 'compact bytes length');
});

// ---------------------------------------------------------------- tagged fields

test('tagged fields: ascending tags are read, unknown tags are skipped', () => {
  const seen: [number, string][] = [];
  const r = new Reader(hex('03 00 01 aa 05 02 bbcc 2a 00 ff'));
  r.taggedFields((tag, sub) => {
    seen.push([tag, sub.raw(sub.remaining).toString('hex')]);
    return true;
  });
  assert.equal(seen, [[0, 'aa'], [5, 'bbcc'], [42, '']]);
  assert.is(r.remaining, 1);
  // without a callback everything is skipped
  const r2 = new Reader(hex('02 00 01 aa 7f 00'));
  r2.taggedFields();
  assert.is(r2.remaining, 0);
  // returning false (unknown) skips even if the callback consumed nothing
  const r3 = new Reader(hex('01 09 03 010203'));
  r3.taggedFields(() => false);
  assert.is(r3.remaining, 0);
});

test('tagged fields out of order or repeated are accepted, as Kafka accepts them', () => {
  const seen: number[] = [];
  const r = new Reader(hex('03 01 00 00 00 00 00'));
  r.taggedFields((t) => { seen.push(t); return false; });
  assert.equal(seen, [1, 0, 0]);
  assert.is(r.remaining, 0);
});

test('a known tagged field with trailing bytes is rejected; unknown tagged fields are not inspected', () => {
  throwsProtocol(() => new Reader(hex('01 00 03 000102')).taggedFields((_t, s) => { s.int16(); return true; }), /trailing/, 'trailing');
  const r = new Reader(hex('01 00 03 000102'));
  r.taggedFields((_t, s) => { s.int16(); return false; });
  assert.is(r.remaining, 0);
});

test('a tagged field cannot read past its own size', () => {
  throwsProtocol(() => new Reader(hex('01 00 01 00 ffff')).taggedFields((_t, s) => { s.int16(); return true; }), /truncated/, 'sub-reader bound');
});

test('tag sizes and counts larger than the bytes left are rejected', () => {
  throwsProtocol(() => new Reader(hex('01 00 05 0102')).taggedFields(), /truncated/, 'size');
  throwsProtocol(() => new Reader(hex('ffffffff0f')).taggedFields(), /exceeds/, 'count');
});

test('generated codec: unknown tags skipped, known tag trailing bytes rejected, any tag order (ApiVersionsResponse v3)', () => {
  // error 0, api_keys [ {18,0,3, no tags} ], throttle 0, then a tag section
  const body = (tags: string) => hex(`0000 02 0012 0000 0003 00 00000000 ${tags}`);
  const plain = readApiVersionsResponse(new Reader(body('00')), 3);
  assert.equal(plain.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: 3 }]);
  assert.is(plain.finalizedFeaturesEpoch, -1n);
  assert.is(plain.zkMigrationReady, false);

  // unknown tags 7 and 9 after the known tags 1 and 3: skipped
  const r = new Reader(body('04 01 08 0000000000000005 03 01 01 07 03 aabbcc 09 00'));
  const m = readApiVersionsResponse(r, 3);
  assert.is(r.remaining, 0);
  assert.is(m.finalizedFeaturesEpoch, 5n);
  assert.is(m.zkMigrationReady, true);

  // known tag 1 (int64) with 9 bytes
  throwsProtocol(() => readApiVersionsResponse(new Reader(body('01 01 09 000000000000000501')), 3), /trailing/, 'trailing');
  // known tag 1 with 7 bytes
  throwsProtocol(() => readApiVersionsResponse(new Reader(body('01 01 07 00000000000000')), 3), /truncated/, 'short');
  // tags 3 then 1: read in the order they come
  const swapped = readApiVersionsResponse(new Reader(body('02 03 01 01 01 08 0000000000000005')), 3);
  assert.is(swapped.zkMigrationReady, true);
  assert.is(swapped.finalizedFeaturesEpoch, 5n);
});

// ---------------------------------------------------------------- writer specifics

test('writer: rawChunk keeps large buffers by reference, toBuffer concatenates in order', () => {
  const big = Buffer.alloc(1000, 0xab);
  const w = new Writer(16);
  w.int32(7);
  w.rawChunk(big);
  w.int16(9);
  w.rawChunk(Buffer.from([1, 2, 3])); // small: copied
  const chunks = w.finish();
  assert.ok(chunks.includes(big), 'large chunk by reference');
  const all = Buffer.concat(chunks);
  assert.is(all.length, 4 + 1000 + 2 + 3);
  assert.is(w.length, all.length);
  assert.equal(all.subarray(0, 4), hex('00000007'));
  assert.equal(all.subarray(1004), hex('0009 010203'));
});

test('writer: records accepts Buffer, Buffer[] and null (classic and compact)', () => {
  const a = Buffer.alloc(700, 1);
  const b = Buffer.from([2, 3]);
  const classic = bytesOf((w) => w.records([a, b], false));
  assert.is(classic.readInt32BE(0), 702);
  assert.equal(classic.subarray(4), Buffer.concat([a, b]));
  const compact = bytesOf((w) => w.records(b, true));
  assert.equal(compact, hex('03 0203'));
  assert.equal(bytesOf((w) => w.records(null, false)), hex('ffffffff'));
  assert.equal(bytesOf((w) => w.records(null, true)), hex('00'));
  assert.equal(new Reader(compact).compactNullableBytes(), b);
});

test('writer: patchInt32 works in the working buffer, inside a chunk, and across chunk boundaries', () => {
  for (const before of [0, 1, 2, 3, 4, 10]) {
    const w = new Writer(16);
    for (let i = 0; i < before; i++) w.int8(0x11);
    w.int32(0); // placeholder at `before`
    w.rawChunk(Buffer.alloc(600, 0x22));
    w.int32(0); // placeholder at before + 604
    const p2 = before + 604;
    w.patchInt32(before, 0x01020304);
    w.patchInt32(p2, -2);
    const out = w.toBuffer();
    assert.is(out.readInt32BE(before), 0x01020304, `patch 1 (before=${before})`);
    assert.is(out.readInt32BE(p2), -2, `patch 2 (before=${before})`);
  }
  // A placeholder that straddles the end of a flushed chunk and the next one.
  const w = new Writer(16);
  w.int16(0x7777);
  w.rawChunk(Buffer.alloc(600, 0)); // flushes the int16 as its own chunk
  w.patchInt32(0, 0x0a0b0c0d); // bytes 0-1 in chunk 0, bytes 2-3 in the 600-byte chunk
  const out = w.toBuffer();
  assert.is(out.readInt32BE(0), 0x0a0b0c0d);
  assert.is(out.length, 602);
  // Outside what was written: an error, never a silent write.
  const w2 = new Writer(16);
  w2.int16(1);
  assert.throws(() => w2.patchInt32(0, 1));
});

test('reader: bytes are views of the frame, not copies', () => {
  const frame = hex('00000003 616263');
  const b = new Reader(frame).bytes();
  assert.is(b.buffer, frame.buffer);
  assert.is(b.byteOffset, frame.byteOffset + 4);
});

test.run();
