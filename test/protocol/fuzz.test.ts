/**
 * Decoder robustness. Mutations of every golden capture (bit flips, truncation, random length
 * fields, random bytes, insertion, extension) are decoded with the API's codec at the declared
 * version and at random other versions. The invariant: decoding returns or throws ProtocolError,
 * nothing else (no RangeError / TypeError / hang), and what it returns is bounded by the frame
 * (array elements, string characters and byte views never add up to more than the frame).
 * Also: random frames through FrameDecoder + header parsing + codecs, and FrameDecoder's frame
 * size limits and reassembly across arbitrary chunk boundaries.
 *
 * Fixed PRNG seed, bounded iteration count and wall time: failures are reproducible.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtocolError } from '../../src/errors.js';
import { FrameDecoder, MIN_REQUEST_BYTES } from '../../src/protocol/framing.js';
import { apiCodecs, codecFor, type ApiCodec } from '../../src/protocol/generated/api-table.js';
import { readRequestHeaderStart, readRequestHeaderTags, readResponseHeader } from '../../src/protocol/headers.js';
import { Reader } from '../../src/protocol/reader.js';
import { fixturesAvailable, loadGoldens, type Golden } from './fixture-data.js';
import { seededRandom } from '../support/rng.js';

const SEED = 0x5a45a;
const MUTATION_ITERATIONS = 6000;
const RANDOM_FRAMES = 3000;
const TIME_BUDGET_MS = 7000;


class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = seededRandom(seed);
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
  bytes(n: number): Buffer {
    const b = Buffer.alloc(n);
    for (let i = 0; i < n; i++) b[i] = this.int(256);
    return b;
  }
}

// ------------------------------------------------------------------ inputs

interface Sample {
  id: string;
  codec: ApiCodec<any, any>;
  direction: 'request' | 'response';
  version: number;
  /** Header bytes (captures) kept in front of the body; empty for kafkajs bodies. */
  header: Buffer;
  headerVersion: number | null;
  body: Buffer;
}

function toSample(g: Golden): Sample | null {
  const codec = codecFor(g.apiKey);
  if (!codec) return null;
  const r = new Reader(g.bytes);
  if (g.framing === 'request-frame') {
    readRequestHeaderStart(r);
    readRequestHeaderTags(r, g.headerVersion === 2);
  } else if (g.framing === 'response-frame') {
    readResponseHeader(r, g.headerVersion === 1);
  } else {
    r.pos = g.bodyStart;
  }
  return {
    id: g.id, codec, direction: g.direction, version: g.version, headerVersion: g.headerVersion,
    header: g.bytes.subarray(0, r.pos), body: g.bytes.subarray(r.pos),
  };
}

const samples: Sample[] = fixturesAvailable() ? loadGoldens().map(toSample).filter((s): s is Sample => s !== null) : [];

/** Requests built from nothing, so the fuzz test still has inputs without the fixtures. */
function fallbackSamples(): Sample[] {
  const out: Sample[] = [];
  for (const codec of Object.values(apiCodecs) as ApiCodec<any, any>[]) {
    // an all-zero body decodes for most messages at v0 (empty arrays, empty strings)
    out.push({ id: `zeros/${codec.name}`, codec, direction: 'request', version: codec.minVersion, header: Buffer.alloc(0), headerVersion: null, body: Buffer.alloc(64) });
  }
  return out;
}

// ------------------------------------------------------------------ mutations

type Mutation = (b: Buffer, rng: Rng) => Buffer;

const MUTATIONS: Record<string, Mutation> = {
  bitflip: (b, rng) => {
    const c = Buffer.from(b);
    const n = 1 + rng.int(4);
    for (let i = 0; i < n && c.length; i++) c[rng.int(c.length)] ^= 1 << rng.int(8);
    return c;
  },
  truncate: (b, rng) => b.subarray(0, rng.int(b.length + 1)),
  int32Length: (b, rng) => {
    if (b.length < 4) return b;
    const c = Buffer.from(b);
    const v = rng.pick([0x7fffffff, -1, -2, 0x10000, c.length, c.length + 1, 0x80000000 | 0, rng.int(1 << 20)]);
    c.writeInt32BE(v, rng.int(c.length - 3));
    return c;
  },
  int16Length: (b, rng) => {
    if (b.length < 2) return b;
    const c = Buffer.from(b);
    c.writeInt16BE(rng.pick([0x7fff, -1, -2, -32768, c.length & 0x7fff, rng.int(1 << 15)]), rng.int(c.length - 1));
    return c;
  },
  varintLength: (b, rng) => {
    if (b.length < 1) return b;
    const c = Buffer.from(b);
    const at = rng.int(c.length);
    const run = rng.pick([[0xff, 0xff, 0xff, 0xff, 0x0f], [0xff, 0xff, 0xff, 0xff, 0xff, 0x01], [0x80, 0x80, 0x01], [0x00], [0xff, 0x7f]]);
    for (let i = 0; i < run.length && at + i < c.length; i++) c[at + i] = run[i];
    return c;
  },
  randomBytes: (b, rng) => {
    const c = Buffer.from(b);
    const n = 1 + rng.int(8);
    for (let i = 0; i < n && c.length; i++) c[rng.int(c.length)] = rng.int(256);
    return c;
  },
  insert: (b, rng) => {
    const at = rng.int(b.length + 1);
    return Buffer.concat([b.subarray(0, at), rng.bytes(1 + rng.int(16)), b.subarray(at)]);
  },
  remove: (b, rng) => {
    const at = rng.int(b.length + 1);
    return Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + rng.int(16)))]);
  },
  extend: (b, rng) => Buffer.concat([b, rng.bytes(1 + rng.int(64))]),
  duplicate: (b, rng) => {
    const at = rng.int(b.length + 1);
    const len = rng.int(Math.max(1, b.length - at));
    return Buffer.concat([b.subarray(0, at + len), b.subarray(at, at + len), b.subarray(at + len)]);
  },
  zeroes: (b, rng) => {
    const c = Buffer.from(b);
    const at = rng.int(c.length + 1);
    c.fill(0, at, Math.min(c.length, at + 1 + rng.int(32)));
    return c;
  },
  random: (b, rng) => rng.bytes(rng.int(Math.max(2, b.length * 2))),
};

// ------------------------------------------------------------------ invariant

interface Budget {
  elements: number;
  chars: number;
  longestString: number;
  viewBytes: number;
}

/** Walks a decoded value: totals of array elements, string characters and byte-view lengths. */
function measure(v: unknown, frame: Buffer, acc: Budget, depth = 0): void {
  if (depth > 64) throw new Error('decoded value nested deeper than 64');
  if (v === null || v === undefined) return;
  if (typeof v === 'string') {
    acc.chars += v.length;
    acc.longestString = Math.max(acc.longestString, v.length);
    return;
  }
  if (Buffer.isBuffer(v)) {
    acc.viewBytes += v.length;
    // byte fields are views of the frame, never copies (except the shared empty buffer)
    if (v.length > 0 && v.buffer !== frame.buffer) throw new Error('a bytes field is not a view of the frame');
    return;
  }
  if (Array.isArray(v)) {
    acc.elements += v.length;
    for (const e of v) measure(e, frame, acc, depth + 1);
    return;
  }
  if (typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) measure(x, frame, acc, depth + 1);
}

interface Outcome {
  ok: number;
  protocolErrors: number;
  failures: string[];
  maxDecodeMs: number;
}

function decodeChecked(label: string, frame: Buffer, start: number, decode: (r: Reader) => unknown, out: Outcome): void {
  const t0 = performance.now();
  let value: unknown;
  try {
    value = decode(new Reader(frame, start));
  } catch (e) {
    const ms = performance.now() - t0;
    out.maxDecodeMs = Math.max(out.maxDecodeMs, ms);
    if (e instanceof ProtocolError) {
      out.protocolErrors++;
      return;
    }
    out.failures.push(`${label}: ${(e as Error)?.name}: ${(e as Error)?.message} input=${frame.subarray(start).toString('hex').slice(0, 400)}`);
    return;
  }
  out.maxDecodeMs = Math.max(out.maxDecodeMs, performance.now() - t0);
  const acc: Budget = { elements: 0, chars: 0, longestString: 0, viewBytes: 0 };
  try {
    measure(value, frame, acc);
  } catch (e) {
    out.failures.push(`${label}: ${(e as Error).message}`);
    return;
  }
  const size = frame.length - start;
  // Array elements and byte views are bounded by the frame itself. Strings: each one by the frame;
  // in total, linear in the frame (uuids expand 16 bytes to 22 chars, and absent fields carry
  // constant defaults, e.g. a 22-char zero uuid, once per element).
  if (acc.elements > size || acc.viewBytes > size || acc.longestString > Math.max(size, 22) || acc.chars > 2 * size + 64 * (acc.elements + 1)) {
    out.failures.push(`${label}: decoded ${acc.elements} elements, ${acc.chars} chars (longest ${acc.longestString}), ${acc.viewBytes} view bytes from ${size} bytes`);
    return;
  }
  out.ok++;
}

const newOutcome = (): Outcome => ({ ok: 0, protocolErrors: 0, failures: [], maxDecodeMs: 0 });

// ------------------------------------------------------------------ tests

test('mutated golden messages: decode or ProtocolError, bounded by the frame (declared and random versions)', () => {
  const pool = samples.length ? samples : fallbackSamples();
  const rng = new Rng(SEED);
  const out = newOutcome();
  const names = Object.keys(MUTATIONS);
  const started = performance.now();
  let i = 0;
  for (; i < MUTATION_ITERATIONS; i++) {
    if (performance.now() - started > TIME_BUDGET_MS) break;
    const s = pool[i % pool.length];
    const mutation = names[rng.int(names.length)];
    const body = MUTATIONS[mutation](s.body, rng);
    const versions = [s.version, s.codec.minVersion + rng.int(s.codec.maxVersion - s.codec.minVersion + 1)];
    for (const v of versions) {
      const decode = (r: Reader) => (s.direction === 'request' ? s.codec.readRequest(r, v) : s.codec.readResponse(r, v));
      decodeChecked(`#${i} ${s.id} ${mutation} @v${v}`, body, 0, decode, out);
    }
    // the unmutated body at a random other version as well (wrong-version decoding)
    const other = s.codec.minVersion + rng.int(s.codec.maxVersion - s.codec.minVersion + 1);
    decodeChecked(`#${i} ${s.id} as v${other}`, s.body, 0, (r) => (s.direction === 'request' ? s.codec.readRequest(r, other) : s.codec.readResponse(r, other)), out);
  }
  console.log(`fuzz: ${i} mutations of ${pool.length} messages: ${out.ok} decoded, ${out.protocolErrors} ProtocolErrors, slowest decode ${out.maxDecodeMs.toFixed(1)} ms`);
  assert.equal(out.failures.slice(0, 10), [], out.failures.slice(0, 10).join('\n'));
  assert.ok(i >= Math.min(MUTATION_ITERATIONS, 1000), `only ${i} iterations within the time budget`);
  assert.ok(out.protocolErrors > 0 && out.ok > 0, 'both outcomes seen');
  assert.ok(out.maxDecodeMs < 1000, `a decode took ${out.maxDecodeMs} ms`);
});

test('mutated whole request frames: header parse picks the codec, then decode or ProtocolError', () => {
  const frames = samples.filter((s) => s.direction === 'request' && s.header.length > 0);
  if (!frames.length) return;
  const rng = new Rng(SEED + 1);
  const out = newOutcome();
  const names = Object.keys(MUTATIONS);
  for (let i = 0; i < 2000; i++) {
    const s = frames[i % frames.length];
    const frame = MUTATIONS[names[rng.int(names.length)]](Buffer.concat([s.header, s.body]), rng);
    decodeChecked(`frame #${i} ${s.id}`, frame, 0, decodeRequestFrame, out);
  }
  assert.equal(out.failures.slice(0, 10), [], out.failures.slice(0, 10).join('\n'));
});

/** What the broker does with one frame: header, codec lookup, tags, body. */
function decodeRequestFrame(r: Reader): unknown {
  const h = readRequestHeaderStart(r);
  const codec = codecFor(h.apiKey);
  if (!codec || h.apiVersion < codec.minVersion || h.apiVersion > codec.maxVersion) return null; // answered with an error, not decoded
  readRequestHeaderTags(r, codec.flexibleFrom >= 0 && h.apiVersion >= codec.flexibleFrom);
  return codec.readRequest(r, h.apiVersion);
}

test('random frames through FrameDecoder + header + codecs: frames or ProtocolError only', () => {
  const rng = new Rng(SEED + 2);
  const keys = Object.keys(apiCodecs).map(Number);
  const out = newOutcome();
  let frames = 0;
  let decoderErrors = 0;
  for (let i = 0; i < RANDOM_FRAMES; i++) {
    // a plausible header (known key, a version near the range) and a random body
    const key = rng.int(10) === 0 ? rng.int(100) : rng.pick(keys);
    const codec = codecFor(key);
    const version = codec ? codec.minVersion + rng.int(codec.maxVersion - codec.minVersion + 3) - 1 : rng.int(5);
    const clientId = rng.int(4) === 0 ? Buffer.from([0xff, 0xff]) : Buffer.concat([Buffer.from([0, 3]), Buffer.from('abc')]);
    const head = Buffer.alloc(8);
    head.writeInt16BE(key, 0);
    head.writeInt16BE(version, 2);
    head.writeInt32BE(i, 4);
    const tags = rng.int(2) ? Buffer.from([0]) : Buffer.alloc(0);
    const payload = Buffer.concat([head, clientId, tags, rng.bytes(rng.int(200))]);
    const sized = Buffer.alloc(4);
    sized.writeInt32BE(payload.length, 0);
    const dec = new FrameDecoder(1 << 20);
    const stream = Buffer.concat([sized, payload]);
    let got: Buffer[] = [];
    for (let p = 0; p < stream.length;) {
      const n = 1 + rng.int(32);
      got = got.concat(dec.push(stream.subarray(p, p + n)));
      p += n;
    }
    assert.is(got.length, 1);
    assert.equal(got[0], payload);
    frames++;
    decodeChecked(`random frame #${i} key ${key} v${version}`, got[0], 0, decodeRequestFrame, out);
  }
  // pure garbage streams: FrameDecoder either yields frames or throws ProtocolError
  for (let i = 0; i < 500; i++) {
    const dec = new FrameDecoder(4096);
    const stream = rng.bytes(rng.int(2000));
    try {
      for (let p = 0; p < stream.length;) {
        const n = 1 + rng.int(100);
        for (const f of dec.push(stream.subarray(p, p + n))) {
          assert.ok(f.length >= MIN_REQUEST_BYTES && f.length <= 4096);
          decodeChecked(`garbage frame #${i}`, f, 0, decodeRequestFrame, out);
        }
        p += n;
      }
    } catch (e) {
      if (!(e instanceof ProtocolError)) assert.unreachable(`FrameDecoder threw ${(e as Error).name}: ${(e as Error).message}`);
      decoderErrors++;
    }
  }
  console.log(`fuzz: ${frames} random frames (${out.ok} decoded, ${out.protocolErrors} ProtocolErrors), ${decoderErrors} garbage streams rejected by FrameDecoder`);
  assert.equal(out.failures.slice(0, 10), [], out.failures.slice(0, 10).join('\n'));
  assert.ok(decoderErrors > 0);
});

// ------------------------------------------------------------------ FrameDecoder

function sizePrefixed(payload: Buffer): Buffer {
  const s = Buffer.alloc(4);
  s.writeInt32BE(payload.length, 0);
  return Buffer.concat([s, payload]);
}

test('FrameDecoder: a frame larger than the maximum is a ProtocolError as soon as its size is read', () => {
  const dec = new FrameDecoder(1000);
  const head = Buffer.alloc(4);
  head.writeInt32BE(1001, 0);
  assert.throws(() => dec.push(head), (e: unknown) => e instanceof ProtocolError && /exceeds/.test((e as Error).message));
  // exactly the maximum is fine
  const ok = new FrameDecoder(1000);
  const frames = ok.push(sizePrefixed(Buffer.alloc(1000, 1)));
  assert.is(frames.length, 1);
  assert.is(frames[0].length, 1000);
  // the size split over two chunks is still checked before any payload arrives
  const split = new FrameDecoder(1000);
  const huge = Buffer.from([0x7f, 0xff, 0xff, 0xff]);
  assert.equal(split.push(huge.subarray(0, 2)), []);
  assert.throws(() => split.push(huge.subarray(2)), (e: unknown) => e instanceof ProtocolError);
});

test('FrameDecoder: negative and too-small sizes are ProtocolErrors', () => {
  for (const size of [-1, -2147483648, 0, MIN_REQUEST_BYTES - 1]) {
    const b = Buffer.alloc(4);
    b.writeInt32BE(size, 0);
    assert.throws(() => new FrameDecoder(1 << 20).push(b), (e: unknown) => e instanceof ProtocolError, `size ${size}`);
  }
});

test('FrameDecoder: frames split across arbitrary chunk boundaries reassemble identically', () => {
  const payloads = samples.filter((s) => s.direction === 'request' && s.header.length > 0).map((s) => Buffer.concat([s.header, s.body]));
  if (!payloads.length) for (let i = 0; i < 50; i++) payloads.push(Buffer.alloc(MIN_REQUEST_BYTES + i * 13, i));
  const stream = Buffer.concat(payloads.map(sizePrefixed));
  const rng = new Rng(SEED + 3);
  const chunkings: ((p: number) => number)[] = [
    () => 1, // byte by byte
    () => 1 + rng.int(7),
    () => 1 + rng.int(300),
    () => 3, // never aligned with the 4-byte size
    () => stream.length, // one chunk holding every frame
  ];
  for (let c = 0; c < chunkings.length + 20; c++) {
    const chunk = chunkings[c] ?? (() => 1 + rng.int(1 + rng.int(2000)));
    const dec = new FrameDecoder(1 << 20);
    const got: Buffer[] = [];
    for (let p = 0; p < stream.length;) {
      const n = Math.min(chunk(p), stream.length - p);
      // a fresh copy per chunk: the decoder must not depend on chunks sharing one buffer
      got.push(...dec.push(Buffer.from(stream.subarray(p, p + n))));
      p += n;
    }
    assert.is(got.length, payloads.length, `chunking ${c}`);
    for (let i = 0; i < got.length; i++) assert.ok(got[i].equals(payloads[i]), `chunking ${c} frame ${i}`);
    assert.is(dec.bufferedBytes, 0, `chunking ${c} leftovers`);
  }
});

test('FrameDecoder: a partial frame stays buffered until its last byte arrives', () => {
  const payload = Buffer.alloc(50, 9);
  const all = sizePrefixed(payload);
  const dec = new FrameDecoder(100);
  assert.equal(dec.push(all.subarray(0, 30)), []);
  assert.is(dec.bufferedBytes, 26);
  const [f] = dec.push(all.subarray(30));
  assert.ok(f.equals(payload));
  assert.is(dec.bufferedBytes, 0);
});

test.run();
