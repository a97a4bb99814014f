/**
 * The read buffer every connection shares (issue 19, network/frame-reader.ts): an idle reader
 * holds no buffer; a frame or a size prefix split between reads survives other connections' reads
 * through the same buffer in between; over real sockets, a request dribbled in one byte at a time
 * after idling still decodes while other connections are busy, and a malformed frame closes only
 * its own connection. The adopted socket carries the server's connection count.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { FramePool, FrameReader, LARGE_FRAME_BYTES } from '../../src/network/frame-reader.js';
import { startBroker } from '../../src/testing/start-broker.js';
import { KafkaConn, apiVersions, decodeResponse, encodeRequest } from '../../bench/lib/kafka-conn.js';

function collecting(pool: FramePool): { r: FrameReader; frames: Buffer[]; errors: unknown[] } {
  const r = new FrameReader(10 * 1024 * 1024, pool);
  const frames: Buffer[] = [];
  const errors: unknown[] = [];
  r.sink = { onFrame: (frame) => frames.push(frame), onError: (e) => errors.push(e) };
  return { r, frames, errors };
}

/** One read of `bytes` into `r`, as libuv does it: ask for the buffer, fill it, report. */
function read(r: FrameReader, bytes: Buffer): void {
  const into = r.nextBuffer();
  assert.ok(into.length >= bytes.length, 'the offered buffer has room for this read');
  bytes.copy(into);
  r.onRead(bytes.length);
}

function framed(payload: Buffer): Buffer {
  const h = Buffer.alloc(4);
  h.writeInt32BE(payload.length);
  return Buffer.concat([h, payload]);
}

test('an idle reader holds no buffer: readers of one pool read into the same memory', () => {
  const pool = new FramePool();
  const a = collecting(pool);
  const b = collecting(pool);
  read(a.r, framed(randomBytes(100)));
  assert.is(a.frames.length, 1);
  for (const value of Object.values(a.r)) assert.not.ok(Buffer.isBuffer(value), 'no buffer kept between frames');
  assert.is(a.r.nextBuffer().buffer, b.r.nextBuffer().buffer, 'one shared buffer');
  assert.is(a.r.nextBuffer().buffer, pool.readBuffer().buffer);
  assert.is.not(pool.readBuffer().buffer, new FramePool().readBuffer().buffer, 'one per pool (per server)');
});

test('frames and size prefixes split between reads survive other readers using the shared buffer in between', () => {
  const pool = new FramePool();
  const a = collecting(pool);
  const b = collecting(pool);
  const sizes = [10, 3000, LARGE_FRAME_BYTES - 4, LARGE_FRAME_BYTES + 100, 60_000, 17];
  const aPayloads = sizes.map((n) => randomBytes(n));
  const bPayloads = sizes.map((n) => randomBytes(n));
  const aStream = Buffer.concat(aPayloads.map(framed));
  const bStream = Buffer.concat(bPayloads.map(framed));
  // A's cuts land inside size prefixes (1, 2, 3 bytes of one) and inside bodies; B fills the
  // whole shared buffer with its own bytes between every two reads of A (and vice versa).
  const cuts = [1, 2, 3, 5, 7, 500, 2, 1, 1, 4000, 3, 30_000, 1, 2];
  let ap = 0;
  let bp = 0;
  let i = 0;
  while (ap < aStream.length || bp < bStream.length) {
    if (ap < aStream.length) {
      const n = Math.min(cuts[i++ % cuts.length], aStream.length - ap, a.r.nextBuffer().length);
      read(a.r, aStream.subarray(ap, ap + n));
      ap += n;
    }
    if (bp < bStream.length) {
      const n = Math.min(b.r.nextBuffer().length, bStream.length - bp);
      read(b.r, bStream.subarray(bp, bp + n));
      bp += n;
    }
    // Whatever a third party leaves in the shared buffer must not matter either.
    pool.readBuffer().fill(0xa5);
  }
  assert.equal(a.errors, []);
  assert.equal(b.errors, []);
  assert.is(a.frames.length, aPayloads.length);
  assert.is(b.frames.length, bPayloads.length);
  aPayloads.forEach((p, k) => assert.ok(a.frames[k].equals(p), `A frame ${k} (${p.length} bytes) intact`));
  bPayloads.forEach((p, k) => assert.ok(b.frames[k].equals(p), `B frame ${k} (${p.length} bytes) intact`));
  assert.is(a.r.bufferedBytes, 0);
  assert.is(b.r.bufferedBytes, 0);
});

test('a size prefix split 1+3 bytes with a bad value is still a ProtocolError for that reader only', () => {
  const pool = new FramePool();
  const a = collecting(pool);
  const b = collecting(pool);
  read(a.r, Buffer.from([0xff]));
  read(b.r, framed(randomBytes(50)));
  read(a.r, Buffer.from([0xff, 0xff, 0xff]));
  assert.is(a.errors.length, 1);
  assert.match((a.errors[0] as Error).message, /invalid frame size -1/);
  read(b.r, framed(randomBytes(50)));
  assert.is(b.frames.length, 2);
  assert.equal(b.errors, []);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rawConnect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
}

test('over sockets: a request dribbled byte by byte after idling decodes while others are busy; a bad frame closes only its connection', async () => {
  const b = await startBroker({ port: 0 });
  try {
    const server = b.broker.socketServer!;
    const busy = await Promise.all([0, 1, 2].map(() => KafkaConn.connect('127.0.0.1', b.port)));
    const slow = await rawConnect(b.port);
    slow.setNoDelay(true);
    const got: Buffer[] = [];
    slow.on('data', (d) => got.push(d));
    await sleep(200); // idle first
    let stop = false;
    // The busy connections keep the shared read buffer in use between the slow one's bytes.
    const traffic = Promise.all(busy.map(async (c) => {
      let n = 0;
      while (!stop) {
        assert.is(await apiVersions(c), 0);
        n++;
      }
      return n;
    }));
    const request = encodeRequest(18, 3, 4242, { clientSoftwareName: 'dribble', clientSoftwareVersion: '1.0', clusterId: null, nodeId: -1 });
    for (let i = 0; i < request.length; i++) {
      slow.write(request.subarray(i, i + 1));
      await sleep(3);
    }
    for (let t = 0; t < 200 && Buffer.concat(got).length < 4; t++) await sleep(10);
    let all = Buffer.concat(got);
    for (let t = 0; t < 200 && all.length < 4 + all.readInt32BE(0); t++) {
      await sleep(10);
      all = Buffer.concat(got);
    }
    stop = true;
    const rounds = await traffic;
    assert.ok(rounds.every((n) => n > 0), `other connections were served meanwhile (${rounds})`);
    assert.is(all.length, 4 + all.readInt32BE(0), 'one whole response');
    const payload = all.subarray(4);
    assert.is(payload.readInt32BE(0), 4242, 'correlation id');
    const res = decodeResponse(18, 3, payload);
    assert.is(res.errorCode, 0);
    assert.ok(res.apiKeys.length > 10, 'the ApiVersions table');

    // A malformed frame (size -1) closes that connection; the others keep working.
    const countBefore = server.connectionCount;
    const bad = await rawConnect(b.port);
    for (let t = 0; t < 100 && server.connectionCount === countBefore; t++) await sleep(10);
    assert.is(server.connectionCount, countBefore + 1);
    const badClosed = new Promise<void>((r) => bad.once('close', () => r()));
    bad.on('error', () => undefined);
    bad.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
    await badClosed;
    for (let t = 0; t < 100 && server.connectionCount !== countBefore; t++) await sleep(10);
    assert.is(server.connectionCount, countBefore, 'the bad connection is gone from the count');
    for (const c of busy) assert.is(await apiVersions(c), 0);

    // The adopted socket holds the server's connection count: closing clients brings it to 0.
    for (const c of busy) c.close();
    slow.destroy();
    const counted = (server as unknown as { servers: net.Server[] }).servers;
    for (let t = 0; t < 200 && server.connectionCount > 0; t++) await sleep(10);
    assert.is(server.connectionCount, 0);
    const open = await Promise.all(counted.map((s) => new Promise<number>((r) => s.getConnections((_e, n) => r(n)))));
    assert.equal(open, counted.map(() => 0), 'net.Server counts no connection either');
  } finally {
    await b.stop();
  }
});

test.run();
