/**
 * Request header v1/v2 and response header v0/v1 (src/protocol/headers.ts), the ApiVersions
 * exception (response header always v0), and the header versions seen in the golden captures.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProtocolError } from '../../src/errors.js';
import { apiCodecs, codecFor } from '../../src/protocol/generated/api-table.js';
import {
  API_VERSIONS_KEY, readRequestHeaderStart, readRequestHeaderTags, readResponseHeader, responseHeaderFlexible,
  writeRequestHeader, writeResponseHeader, type RequestHeader,
} from '../../src/protocol/headers.js';
import { Reader } from '../../src/protocol/reader.js';
import { Writer } from '../../src/protocol/writer.js';
import { stripJsonComments } from '../../tools/codegen/upstream.js';
import { UPSTREAM_DIR } from '../../tools/codegen/paths.js';
import { captureRows, fixturesAvailable, readCaptureHex } from './fixture-data.js';

const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function writeReq(h: RequestHeader, flexible: boolean): Buffer {
  const w = new Writer();
  writeRequestHeader(w, h, flexible);
  return w.toBuffer();
}

function readReq(b: Buffer, flexible: boolean): { h: RequestHeader; r: Reader } {
  const r = new Reader(b);
  const h = readRequestHeaderStart(r);
  readRequestHeaderTags(r, flexible);
  return { h, r };
}

test('request header v1: api key, version, correlation id, int16 client id (nullable)', () => {
  const h = { apiKey: 3, apiVersion: 4, correlationId: 0x01020304, clientId: 'cli' };
  const b = writeReq(h, false);
  assert.equal(b, hex('0003 0004 01020304 0003 636c69'));
  const { h: back, r } = readReq(b, false);
  assert.equal(back, h);
  assert.is(r.remaining, 0);

  const nullId = writeReq({ ...h, clientId: null }, false);
  assert.equal(nullId, hex('0003 0004 01020304 ffff'));
  assert.is(readReq(nullId, false).h.clientId, null);
  // the empty string stays distinct from null
  assert.is(readReq(writeReq({ ...h, clientId: '' }, false), false).h.clientId, '');
});

test('request header v2: client id stays an int16 string (flexibleVersions none), then a tag section', () => {
  const h = { apiKey: 18, apiVersion: 3, correlationId: 1, clientId: 'ab' };
  const b = writeReq(h, true);
  assert.equal(b, hex('0012 0003 00000001 0002 6162 00'));
  const { h: back, r } = readReq(b, true);
  assert.equal(back, h);
  assert.is(r.remaining, 0);
  // unknown header tags are skipped; body follows
  const withTags = hex('0012 0003 00000001 0002 6162 02 00 01 ff 05 02 aabb 7e');
  const t = readReq(withTags, true);
  assert.equal(t.h, h);
  assert.is(t.r.remaining, 1);
  assert.is(t.r.int8(), 0x7e);
  // out-of-order header tags are read as Kafka reads them; truncated headers are ProtocolErrors
  assert.is(readReq(hex('0012 0003 00000001 0002 6162 02 05 00 01 00'), true).r.remaining, 0);
  for (let cut = 0; cut < b.length; cut++) {
    assert.throws(() => readReq(b.subarray(0, cut), true), (e: unknown) => e instanceof ProtocolError, `cut ${cut}`);
  }
});

test('response header v0 / v1', () => {
  const w0 = new Writer();
  writeResponseHeader(w0, 7, false);
  assert.equal(w0.toBuffer(), hex('00000007'));
  const w1 = new Writer();
  writeResponseHeader(w1, 7, true);
  assert.equal(w1.toBuffer(), hex('00000007 00'));
  assert.is(readResponseHeader(new Reader(hex('00000007')), false), 7);
  const r = new Reader(hex('00000007 01 03 01 aa'));
  assert.is(readResponseHeader(r, true), 7);
  assert.is(r.remaining, 0);
  assert.throws(() => readResponseHeader(new Reader(hex('000000')), false), (e: unknown) => e instanceof ProtocolError);
  assert.throws(() => readResponseHeader(new Reader(hex('00000007')), true), (e: unknown) => e instanceof ProtocolError);
});

test('responseHeaderFlexible: flexible versions use header v1, except ApiVersions (always v0, also at v3/v4)', () => {
  assert.is(API_VERSIONS_KEY, 18);
  const av = apiCodecs[18];
  assert.ok(av.maxVersion >= 4 && av.flexibleFrom === 3);
  for (let v = av.minVersion; v <= av.maxVersion; v++) {
    assert.is(responseHeaderFlexible(18, v >= av.flexibleFrom), false, `ApiVersions v${v}`);
  }
  for (const codec of Object.values(apiCodecs)) {
    for (let v = codec.minVersion; v <= codec.maxVersion; v++) {
      const flexible = codec.flexibleFrom >= 0 && v >= codec.flexibleFrom;
      const expected = codec.apiKey !== 18 && flexible;
      assert.is(responseHeaderFlexible(codec.apiKey, flexible), expected, `${codec.name} v${v}`);
    }
  }
  // APIs without flexible versions never use header v1/v2
  assert.is(apiCodecs[17].flexibleFrom, -1, 'SaslHandshake has no flexible versions');
  assert.is(apiCodecs[47].flexibleFrom, -1, 'OffsetDelete has no flexible versions');
  assert.is(responseHeaderFlexible(17, false), false);
});

test('ApiVersions v3 response with header v0 round-trips as a whole frame', () => {
  const w = new Writer();
  writeResponseHeader(w, 42, responseHeaderFlexible(18, true));
  apiCodecs[18].writeResponse(w, 3, {
    errorCode: 0, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 4 }], throttleTimeMs: 0,
    supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false,
  });
  const frame = w.toBuffer();
  // correlation id, then directly the body: error code 0, compact array of 1
  assert.equal(frame.subarray(0, 7), hex('0000002a 0000 02'));
  const r = new Reader(frame);
  assert.is(readResponseHeader(r, false), 42);
  const m = apiCodecs[18].readResponse(r, 3);
  assert.is(r.remaining, 0);
  assert.equal(m.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: 4 }]);
});

test('captures: header versions in INDEX.tsv follow our rules, and real headers parse and re-encode', () => {
  if (!fixturesAvailable()) {
    console.log('headers: /work/shared/fixtures missing, capture header check skipped');
    return;
  }
  let n = 0;
  for (const row of captureRows()) {
    const codec = codecFor(row.apiKey);
    const bytes = readCaptureHex(row.file, 'request');
    const r = new Reader(bytes);
    const h = readRequestHeaderStart(r);
    assert.is(h.apiKey, row.apiKey, row.file);
    assert.is(h.apiVersion, row.version, row.file);
    const headerFlexible = row.requestHeaderVersion === 2;
    readRequestHeaderTags(r, headerFlexible);
    const w = new Writer();
    writeRequestHeader(w, h, headerFlexible);
    // the real header bytes (all clients send an empty header tag section)
    assert.equal(w.toBuffer(), bytes.subarray(0, r.pos), `${row.file} header re-encode`);
    if (!codec) continue;
    n++;
    const flexible = codec.flexibleFrom >= 0 && row.version >= codec.flexibleFrom;
    assert.is(flexible, row.flexible, `${row.file} flexible`);
    assert.is(row.requestHeaderVersion, flexible ? 2 : 1, `${row.file} request header version`);
    assert.is(row.responseHeaderVersion, responseHeaderFlexible(row.apiKey, flexible) ? 1 : 0, `${row.file} response header version`);
  }
  assert.ok(n >= 140, `checked ${n} capture headers`);
});

test('upstream RequestHeader/ResponseHeader schemas agree with headers.ts (when ../shared/kafka-protocol exists)', () => {
  const reqPath = join(UPSTREAM_DIR, 'message', 'RequestHeader.json');
  const resPath = join(UPSTREAM_DIR, 'message', 'ResponseHeader.json');
  if (!existsSync(reqPath) || !existsSync(resPath)) {
    console.log('headers: upstream header schemas missing, check skipped');
    return;
  }
  const req = JSON.parse(stripJsonComments(readFileSync(reqPath, 'utf8')));
  const res = JSON.parse(stripJsonComments(readFileSync(resPath, 'utf8')));
  assert.is(req.flexibleVersions, '2+');
  const clientId = req.fields.find((f: { name: string }) => f.name === 'ClientId');
  assert.is(clientId.flexibleVersions, 'none', 'client id is never compact');
  assert.is(clientId.nullableVersions, '1+');
  assert.equal(req.fields.map((f: { name: string; type: string }) => `${f.name}:${f.type}`), ['RequestApiKey:int16', 'RequestApiVersion:int16', 'CorrelationId:int32', 'ClientId:string']);
  assert.is(res.flexibleVersions, '1+');
  assert.equal(res.fields.map((f: { name: string; type: string }) => `${f.name}:${f.type}`), ['CorrelationId:int32']);
});

test.run();
