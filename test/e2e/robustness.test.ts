/**
 * Connection-level robustness over raw sockets (node:net, 127.0.0.1): malformed frames, oversized
 * frames, unknown API keys close only the offending connection (bytes after a complete body are
 * ignored, as Kafka ignores them) while other clients (a raw
 * connection and a kafkajs producer) keep working; ApiVersions above the supported range gets a
 * v0-form UNSUPPORTED_VERSION reply; pipelined requests are answered in order even behind a
 * long-polling Fetch.
 */
import { test } from 'uvu';
import { RawConnection } from '../support/raw-connection.js';
import * as assert from 'uvu/assert';
import kafkajs, { type Producer } from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { ApiKey, codecFor, type ApiCodec } from '../../src/protocol/generated/api-table.js';
import { readResponseHeader, responseHeaderFlexible, writeRequestHeader } from '../../src/protocol/headers.js';
import { Reader } from '../../src/protocol/reader.js';
import { Writer } from '../../src/protocol/writer.js';
import { defaultFetchRequest, defaultFetchPartition } from '../../src/protocol/generated/messages/fetch-request.js';
import { defaultMetadataRequest } from '../../src/protocol/generated/messages/metadata-request.js';
import { e2eLogLevel } from '../support/clients.js';

const { Kafka, logLevel } = kafkajs;

const MAX_REQUEST_BYTES = 1024;
const UNSUPPORTED_VERSION = 35;

let b: RunningBroker;
let producer: Producer;
let produced = 0;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1, 'socket.request.max.bytes': MAX_REQUEST_BYTES }, logLevel: e2eLogLevel });
  const kafka = new Kafka({ clientId: 'e2e-robust', brokers: [`127.0.0.1:${b.port}`], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
  producer = kafka.producer();
  await producer.connect();
});

test.after(async () => {
  await producer?.disconnect();
  await b?.stop();
});

// ---- a minimal raw client -------------------------------------------------------------------

function codec(apiKey: number): ApiCodec<any, any> {
  const c = codecFor(apiKey);
  if (!c) throw new Error(`no codec for api key ${apiKey}`);
  return c;
}

/** A whole request frame (size prefix included), header v1/v2 as the API version requires. */
function requestFrame(apiKey: number, version: number, correlationId: number, body: unknown, clientId: string | null = 'raw'): Buffer {
  const c = codec(apiKey);
  const w = new Writer(256);
  w.int32(0);
  const flexible = c.flexibleFrom >= 0 && version >= c.flexibleFrom;
  writeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId }, flexible);
  c.writeRequest(w, version, body as never);
  w.patchInt32(0, w.length - 4);
  return w.toBuffer();
}

function decodeResponse(apiKey: number, version: number, frame: Buffer): { correlationId: number; body: any } {
  const c = codec(apiKey);
  const r = new Reader(frame);
  const flexible = c.flexibleFrom >= 0 && version >= c.flexibleFrom;
  const correlationId = readResponseHeader(r, responseHeaderFlexible(apiKey, flexible));
  const body = c.readResponse(r, version);
  assert.is(r.remaining, 0, `no bytes left after the ${c.name} v${version} response`);
  return { correlationId, body };
}


async function metadataRoundTrip(c: RawConnection, correlationId: number, version = 1): Promise<any> {
  c.write(requestFrame(ApiKey.Metadata, version, correlationId, { ...defaultMetadataRequest(), topics: null }));
  const f = await c.next();
  assert.ok(f, 'metadata answered');
  const res = decodeResponse(ApiKey.Metadata, version, f!);
  assert.is(res.correlationId, correlationId);
  return res.body;
}

/** The kafkajs producer still appends, at the next offset. */
async function producerStillWorks(): Promise<void> {
  const r = await producer.send({ topic: 'robust-canary', acks: 1, messages: [{ value: `canary-${produced}` }] });
  assert.is(r[0].errorCode, 0);
  assert.is(r[0].baseOffset, String(produced));
  produced++;
}

/** Sends `bytes` on a fresh connection and checks the broker closes it, and only it. */
async function expectClosedOnlyThis(bytes: Buffer | Buffer[], what: string): Promise<void> {
  const healthy = await RawConnection.open(b.port);
  await metadataRoundTrip(healthy, 1);
  const bad = await RawConnection.open(b.port);
  for (const chunk of Array.isArray(bytes) ? bytes : [bytes]) bad.write(chunk);
  assert.ok(await bad.closesWithin(3000), `${what}: the broker must close the connection without replying`);
  // The other connection and other clients are unaffected.
  const md = await metadataRoundTrip(healthy, 2);
  assert.is(md.brokers[0].nodeId, 1);
  healthy.destroy();
  await producerStillWorks();
}

// ---- tests ----------------------------------------------------------------------------------

test('baseline: the canary producer and a raw Metadata request work', async () => {
  await producerStillWorks();
  const c = await RawConnection.open(b.port);
  const md = await metadataRoundTrip(c, 7, 12);
  assert.equal(md.brokers.map((x: any) => [x.nodeId, x.host, x.port]), [[1, '127.0.0.1', b.port]]);
  c.destroy();
});

test('garbage bytes (an HTTP request) close that connection only', async () => {
  await expectClosedOnlyThis(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'), 'HTTP request');
});

test('a frame of random bytes with a plausible size closes that connection only', async () => {
  // api key 0x7a7a, nonsense after it
  const body = Buffer.from('7a7a7a7a0000000100ff' + 'de'.repeat(30), 'hex');
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  await expectClosedOnlyThis(Buffer.concat([size, body]), 'random frame');
});

test('a negative frame size closes that connection only', async () => {
  await expectClosedOnlyThis(Buffer.from([0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0]), 'size -2');
});

test('a zero and a too-small frame size close the connection', async () => {
  await expectClosedOnlyThis(Buffer.from([0, 0, 0, 0]), 'size 0');
  await expectClosedOnlyThis(Buffer.from([0, 0, 0, 3, 0, 3, 0]), 'size 3');
});

test('a truncated body (fields run past the frame) closes that connection only', async () => {
  // Metadata v1 whose topics array claims 5 entries, and the frame ends there.
  const w = new Writer(64);
  w.int32(0);
  writeRequestHeader(w, { apiKey: ApiKey.Metadata, apiVersion: 1, correlationId: 3, clientId: 'raw' }, false);
  w.int32(5);
  w.patchInt32(0, w.length - 4);
  await expectClosedOnlyThis(w.toBuffer(), 'truncated Metadata body');
});

test('a client id longer than the frame closes the connection', async () => {
  const w = new Writer(64);
  w.int32(0);
  w.int16(ApiKey.Metadata);
  w.int16(1);
  w.int32(4);
  w.int16(500); // client id length, but only 3 bytes follow
  w.bytesRaw(Buffer.from('abc'));
  w.patchInt32(0, w.length - 4);
  await expectClosedOnlyThis(w.toBuffer(), 'client id past the end');
});

test('bytes after a complete request body are ignored, as Kafka ignores them; the connection stays open', async () => {
  const c = await RawConnection.open(b.port);
  for (const [i, v] of [1, 4, 9, 12].entries()) {
    const f = requestFrame(ApiKey.Metadata, v, 50 + i, { ...defaultMetadataRequest(), topics: null });
    const padded = Buffer.concat([f, Buffer.from([1, 2, 3, 4, 5])]);
    padded.writeInt32BE(f.length - 4 + 5, 0);
    c.write(padded);
    const res = decodeResponse(ApiKey.Metadata, v, (await c.next())!);
    assert.is(res.correlationId, 50 + i, `Metadata v${v} with 5 trailing bytes answered`);
    assert.is(res.body.brokers[0].port, b.port);
  }
  assert.not.ok(c.isClosed);
  c.destroy();
  await producerStillWorks();
});

test("librdkafka 2.15's all-topics Metadata v12 (3 bytes after the body) is answered with every topic", async () => {
  // The whole frame as librdkafka 2.15 sends it: client id "0048_partitioner", topics = null
  // written as a one-byte varint 0 inside a 4-byte placeholder, then the request's tag section.
  const frame = Buffer.from('0003000c000000030010303034385f706172746974696f6e65720000000000010000', 'hex');
  const size = Buffer.alloc(4);
  size.writeInt32BE(frame.length);
  const c = await RawConnection.open(b.port);
  c.write(Buffer.concat([size, frame]));
  const f = await c.next();
  assert.ok(f, 'answered, not closed');
  const res = decodeResponse(ApiKey.Metadata, 12, f!);
  assert.is(res.correlationId, 3);
  assert.equal(res.body.brokers.map((x: any) => x.port), [b.port]);
  assert.ok(res.body.topics.some((t: any) => t.name === 'robust-canary'), 'the all-topics answer lists the existing topic');
  c.destroy();
});

test('a frame that has not fully arrived is not answered, and other connections carry on', async () => {
  const c = await RawConnection.open(b.port);
  const f = requestFrame(ApiKey.Metadata, 1, 9, { ...defaultMetadataRequest(), topics: null });
  c.write(f.subarray(0, f.length - 2));
  await producerStillWorks();
  assert.not.ok(await c.closesWithin(300), 'the broker waits for the rest of the frame');
  c.write(f.subarray(f.length - 2));
  const reply = await c.next();
  assert.ok(reply);
  assert.is(decodeResponse(ApiKey.Metadata, 1, reply!).correlationId, 9);
  c.destroy();
});

test(`a frame larger than socket.request.max.bytes (${MAX_REQUEST_BYTES}) is refused before its body arrives`, async () => {
  const size = Buffer.alloc(4);
  size.writeInt32BE(MAX_REQUEST_BYTES + 1);
  // Only the size prefix and a few bytes: the broker must not wait for the body.
  await expectClosedOnlyThis(Buffer.concat([size, Buffer.from([0, 3, 0, 1])]), 'oversized frame');
  const huge = Buffer.alloc(4);
  huge.writeInt32BE(0x7fffffff);
  await expectClosedOnlyThis(huge, '2 GiB frame');
});

test(`a frame of exactly socket.request.max.bytes is accepted`, async () => {
  // Pad the client id so that the frame (without its size prefix) is exactly the limit.
  const base = requestFrame(ApiKey.Metadata, 1, 11, { ...defaultMetadataRequest(), topics: null }, '');
  const pad = MAX_REQUEST_BYTES - (base.length - 4);
  const f = requestFrame(ApiKey.Metadata, 1, 11, { ...defaultMetadataRequest(), topics: null }, 'x'.repeat(pad));
  assert.is(f.length - 4, MAX_REQUEST_BYTES);
  const c = await RawConnection.open(b.port);
  c.write(f);
  const reply = await c.next();
  assert.ok(reply, 'answered');
  assert.is(decodeResponse(ApiKey.Metadata, 1, reply!).correlationId, 11);
  c.destroy();
});

test('an unknown API key closes the connection', async () => {
  for (const apiKey of [999, 0x7fff, -1]) {
    const w = new Writer(64);
    w.int32(0);
    writeRequestHeader(w, { apiKey, apiVersion: 0, correlationId: 1, clientId: 'raw' }, false);
    w.patchInt32(0, w.length - 4);
    await expectClosedOnlyThis(w.toBuffer(), `api key ${apiKey}`);
  }
});

test('a version outside an API\'s range closes the connection (Metadata v99)', async () => {
  const w = new Writer(64);
  w.int32(0);
  writeRequestHeader(w, { apiKey: ApiKey.Metadata, apiVersion: 99, correlationId: 1, clientId: 'raw' }, true);
  w.patchInt32(0, w.length - 4);
  await expectClosedOnlyThis(w.toBuffer(), 'Metadata v99');
});

test('ApiVersions v9 gets a v0-form UNSUPPORTED_VERSION reply with ApiVersions\' range; the connection stays usable', async () => {
  const c = await RawConnection.open(b.port);
  // A newer client sends header v2 and a body we do not know.
  const w = new Writer(64);
  w.int32(0);
  writeRequestHeader(w, { apiKey: ApiKey.ApiVersions, apiVersion: 9, correlationId: 42, clientId: 'future-client' }, true);
  w.compactString('future-client');
  w.compactString('9.9.9');
  w.uvarint(0);
  w.patchInt32(0, w.length - 4);
  c.write(w.toBuffer());
  const reply = await c.next();
  assert.ok(reply, 'ApiVersions v9 must be answered, not closed');
  // v0 form: correlation id, error code, [api key, min, max]; nothing else.
  const r = new Reader(reply!);
  assert.is(r.int32(), 42, 'correlation id');
  assert.is(r.int16(), UNSUPPORTED_VERSION, 'error code');
  assert.is(r.int32(), 1, 'one api key entry');
  const entry = [r.int16(), r.int16(), r.int16()];
  assert.is(entry[0], ApiKey.ApiVersions);
  assert.is(entry[1], 0);
  assert.ok(entry[2] >= 3 && entry[2] < 9, `max version ${entry[2]}`);
  assert.is(r.remaining, 0, 'v0 form has no throttle time or tagged fields');

  // The client retries at the advertised max version on the same connection.
  const maxV = entry[2];
  c.write(requestFrame(ApiKey.ApiVersions, maxV, 43, { clientSoftwareName: 'future-client', clientSoftwareVersion: '9.9.9', clusterId: null, nodeId: -1 }));
  const ok = await c.next();
  assert.ok(ok);
  const res = decodeResponse(ApiKey.ApiVersions, maxV, ok!);
  assert.is(res.correlationId, 43);
  assert.is(res.body.errorCode, 0);
  const keys = new Map<number, [number, number]>(res.body.apiKeys.map((k: any) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.equal(keys.get(ApiKey.ApiVersions), [0, maxV]);
  for (const k of [ApiKey.Produce, ApiKey.Fetch, ApiKey.Metadata, ApiKey.ListOffsets]) assert.ok(keys.has(k), `advertises api ${k}`);
  c.destroy();
});

test('pipelined requests are answered in order: a Metadata behind a long-polling Fetch waits for it', async () => {
  await producerStillWorks(); // robust-canary exists and has `produced` records
  const c = await RawConnection.open(b.port);
  const fetchV = 12;
  const fetchReq = {
    ...defaultFetchRequest(),
    maxWaitMs: 500,
    minBytes: 1,
    maxBytes: 1 << 20,
    topics: [{ topic: 'robust-canary', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: BigInt(produced), partitionMaxBytes: 1 << 20 }] }],
  };
  const started = Date.now();
  // Both frames in one write: the broker sees them together.
  c.write(Buffer.concat([
    requestFrame(ApiKey.Fetch, fetchV, 100, fetchReq),
    requestFrame(ApiKey.Metadata, 12, 101, { ...defaultMetadataRequest(), topics: null }),
  ]));
  const first = await c.next(5000);
  const firstAt = Date.now() - started;
  const second = await c.next(5000);
  assert.ok(first && second, 'both answered');
  const fetchRes = decodeResponse(ApiKey.Fetch, fetchV, first!);
  assert.is(fetchRes.correlationId, 100, 'the Fetch reply comes first');
  assert.is(fetchRes.body.errorCode, 0);
  const p = fetchRes.body.responses[0].partitions[0];
  assert.is(p.errorCode, 0);
  assert.is(p.highWatermark, BigInt(produced));
  assert.ok(p.records === null || p.records.length === 0, 'no records past the high watermark');
  // The long poll really waited (no data arrived), so the Metadata reply was held behind it.
  assert.ok(firstAt >= 400, `the Fetch long-polled (${firstAt} ms)`);
  const md = decodeResponse(ApiKey.Metadata, 12, second!);
  assert.is(md.correlationId, 101);
  c.destroy();
});

test('a long-polling Fetch returns early when a record arrives, replies still in order', async () => {
  const c = await RawConnection.open(b.port);
  const fetchReq = {
    ...defaultFetchRequest(),
    maxWaitMs: 10_000,
    minBytes: 1,
    maxBytes: 1 << 20,
    topics: [{ topic: 'robust-canary', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: BigInt(produced), partitionMaxBytes: 1 << 20 }] }],
  };
  c.write(Buffer.concat([
    requestFrame(ApiKey.Fetch, 11, 200, fetchReq),
    requestFrame(ApiKey.Metadata, 1, 201, { ...defaultMetadataRequest(), topics: null }),
  ]));
  const before = produced;
  await producerStillWorks();
  const first = await c.next(5000); // well before the 10 s max wait
  const res = decodeResponse(ApiKey.Fetch, 11, first!);
  assert.is(res.correlationId, 200);
  const p = res.body.responses[0].partitions[0];
  assert.is(p.highWatermark, BigInt(before + 1));
  assert.ok(p.records && p.records.length > 0, 'the new record is returned');
  const second = await c.next(5000);
  assert.is(decodeResponse(ApiKey.Metadata, 1, second!).correlationId, 201);
  c.destroy();
});

test('Produce acks=0 gets no reply; the next request on the connection is answered with its own id', async () => {
  const c = await RawConnection.open(b.port);
  // A valid record batch: the first one the broker stored for the canary (read back with Fetch).
  const fetchReq = {
    ...defaultFetchRequest(), maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    topics: [{ topic: 'robust-canary', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
  };
  c.write(requestFrame(ApiKey.Fetch, 11, 300, fetchReq));
  const fr = decodeResponse(ApiKey.Fetch, 11, (await c.next())!);
  const raw: Buffer | Buffer[] = fr.body.responses[0].partitions[0].records;
  const recs = Array.isArray(raw) ? Buffer.concat(raw) : raw;
  const batchLen = recs.readInt32BE(8) + 12; // baseOffset(8) + batchLength(4) + batchLength bytes
  const batch = Buffer.from(recs.subarray(0, batchLen));
  const produceReq = (topic: string) => ({
    transactionalId: null, acks: 0, timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
  });
  const mdReq = (topic: string) => ({ ...defaultMetadataRequest(), allowAutoTopicCreation: false, topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }] });
  c.write(Buffer.concat([requestFrame(ApiKey.Produce, 8, 301, produceReq('robust-canary')), requestFrame(ApiKey.Metadata, 1, 302, mdReq('robust-canary'))]));
  const next = await c.next();
  assert.ok(next, 'the connection stays open after a successful acks=0 Produce');
  const md = decodeResponse(ApiKey.Metadata, 1, next!);
  assert.is(md.correlationId, 302, 'no reply for the acks=0 Produce');
  assert.is(md.body.topics[0].errorCode, 0);
  produced += batch.readInt32BE(57); // records count of the re-sent batch (offset 57 of a v2 batch)
  await producerStillWorks();

  // A failed acks=0 Produce (unknown topic; Produce does not auto-create) closes the connection,
  // as Kafka does, so that the client notices and refreshes its metadata.
  c.write(Buffer.concat([requestFrame(ApiKey.Produce, 8, 303, produceReq('robust-no-such-topic')), requestFrame(ApiKey.Metadata, 1, 304, mdReq('robust-canary'))]));
  assert.ok(await c.closesWithin(3000), 'a failed acks=0 Produce closes the connection');
  c.destroy();
});

/** The first stored batch of robust-canary, read back with Fetch v11 (a valid v2 record batch). */
async function canaryBatch(c: RawConnection, correlationId: number): Promise<Buffer> {
  const fetchReq = {
    ...defaultFetchRequest(), maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20,
    topics: [{ topic: 'robust-canary', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }],
  };
  c.write(requestFrame(ApiKey.Fetch, 11, correlationId, fetchReq));
  const fr = decodeResponse(ApiKey.Fetch, 11, (await c.next())!);
  const raw: Buffer | Buffer[] = fr.body.responses[0].partitions[0].records;
  const recs = Array.isArray(raw) ? Buffer.concat(raw) : raw;
  return Buffer.from(recs.subarray(0, recs.readInt32BE(8) + 12));
}

test('a record batch with a bad CRC is refused with CORRUPT_MESSAGE; nothing is appended; the connection stays open', async () => {
  const c = await RawConnection.open(b.port);
  const batch = await canaryBatch(c, 400);
  const bad = Buffer.from(batch);
  bad[bad.length - 1] ^= 0xff; // inside the CRC-covered records
  const req = { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'robust-canary', partitionData: [{ index: 0, records: bad }] }] };
  c.write(requestFrame(ApiKey.Produce, 8, 401, req));
  const reply = await c.next();
  assert.ok(reply, 'answered, not closed');
  const res = decodeResponse(ApiKey.Produce, 8, reply!);
  assert.is(res.correlationId, 401);
  assert.is(res.body.responses[0].partitionResponses[0].errorCode, 2, 'CORRUPT_MESSAGE');
  await producerStillWorks(); // its offset is `produced`: nothing was appended
  c.destroy();
});

test('Fetch returns a whole first batch even when it exceeds partition_max_bytes and max_bytes (KIP-74)', async () => {
  const c = await RawConnection.open(b.port);
  const fetchReq = {
    ...defaultFetchRequest(), maxWaitMs: 0, minBytes: 1, maxBytes: 1,
    topics: [{ topic: 'robust-canary', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 }] }],
  };
  c.write(requestFrame(ApiKey.Fetch, 11, 500, fetchReq));
  const fr = decodeResponse(ApiKey.Fetch, 11, (await c.next())!);
  const p = fr.body.responses[0].partitions[0];
  assert.is(p.errorCode, 0);
  const raw: Buffer | Buffer[] | null = p.records;
  const recs = raw === null ? Buffer.alloc(0) : Array.isArray(raw) ? Buffer.concat(raw) : raw;
  assert.ok(recs.length >= 61, `one complete batch (${recs.length} bytes)`);
  assert.is(recs.length, recs.readInt32BE(8) + 12, 'exactly the first batch, complete');
  assert.is(recs.readBigInt64BE(0), 0n, 'base offset 0');
  c.destroy();
});

test('many connections opened and dropped mid-frame leave the broker serving', async () => {
  const conns: RawConnection[] = [];
  for (let i = 0; i < 50; i++) {
    const c = await RawConnection.open(b.port);
    c.write(Buffer.from([0, 0, 0, 40, 0, 3]));
    conns.push(c);
  }
  for (const c of conns) c.destroy();
  await producerStillWorks();
  const c = await RawConnection.open(b.port);
  await metadataRoundTrip(c, 1);
  c.destroy();
});

test.run();
