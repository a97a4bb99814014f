/**
 * KafkaConnection (src/protocol/kafka-connection.ts) against a tiny in-test broker (a net.Server
 * that speaks ApiVersions v3 and answers when, how and in what order each test says): pipelining
 * with responses matched by correlation id whatever their order, a response split across many
 * chunks and several in one chunk, timeouts, close rejecting what is pending, requests that get no
 * response, pre-encoded frames, raw bytes and unmatched frames, connect failures and the
 * authenticate step.
 */
import net from 'node:net';
import { test as uvuTest } from 'uvu';
import * as assert from 'uvu/assert';
import { apiCodecs } from '../../src/protocol/generated/api-table.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { readRequestHeaderStart, readRequestHeaderTags, writeResponseHeader } from '../../src/protocol/headers.js';
import { KafkaConnection, KafkaConnectionError, type KafkaConnectionOptions } from '../../src/protocol/kafka-connection.js';
import { Reader } from '../../src/protocol/reader.js';
import { encodeRequestFrame } from '../../src/protocol/wire.js';
import { Writer } from '../../src/protocol/writer.js';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** uvu's test with a deadline: a request that never settles fails the test instead of hanging the file. */
function test(name: string, fn: () => Promise<void>): void {
  uvuTest(name, () => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('test did not finish within 5 s')), 5000);
    });
    return Promise.race([fn(), deadline]).finally(() => clearTimeout(timer));
  });
}

/** One ApiVersions v3 request as the fake broker saw it. */
interface Req {
  correlationId: number;
  clientId: string | null;
  /** clientSoftwareName of the request (the tests put a marker there). */
  name: string;
  sock: net.Socket;
}

/**
 * A whole ApiVersions v3 response frame (size prefix included) carrying `marker` as throttleTimeMs;
 * `entries` api keys (7 bytes each) make it as large as a test needs.
 */
function response(correlationId: number, marker: number, entries = 1): Buffer {
  const w = new Writer();
  w.int32(0);
  writeResponseHeader(w, correlationId, false); // ApiVersions: response header v0
  apiCodecs[18].writeResponse(w, 3, {
    errorCode: 0, apiKeys: Array.from({ length: entries }, () => ({ apiKey: 18, minVersion: 0, maxVersion: 3 })), throttleTimeMs: marker,
    supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false,
  });
  w.patchInt32(0, w.length - 4);
  return w.toBuffer();
}

const AV = (name: string) => ({ clientSoftwareName: name, clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });

/** A fake broker on 127.0.0.1 (port 0); `onRequest` decides what to answer. `raw` collects every byte received. */
async function fakeBroker(onRequest: (req: Req) => void): Promise<{ port: number; raw: Buffer[]; requests: Req[]; accepted: net.Socket[]; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const accepted: net.Socket[] = [];
  const raw: Buffer[] = [];
  const requests: Req[] = [];
  const server = net.createServer((sock) => {
    sockets.add(sock);
    accepted.push(sock);
    sock.setNoDelay(true);
    const decoder = new FrameDecoder(1 << 20, 0);
    sock.on('data', (chunk: Buffer) => {
      raw.push(chunk);
      for (const f of decoder.push(chunk)) {
        if (f.length < 10 || f.readInt16BE(0) !== 18) continue; // not an ApiVersions request: no answer
        const r = new Reader(f);
        const h = readRequestHeaderStart(r);
        readRequestHeaderTags(r, h.apiVersion >= 3);
        const body = apiCodecs[18].readRequest(r, h.apiVersion);
        const req = { correlationId: h.correlationId, clientId: h.clientId, name: body.clientSoftwareName, sock };
        requests.push(req);
        onRequest(req);
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port, raw, requests, accepted,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function connect(port: number, more: Partial<KafkaConnectionOptions> = {}): Promise<KafkaConnection> {
  return KafkaConnection.connect({ host: '127.0.0.1', port, clientId: 'conn-test', ...more });
}

test('pipelined requests are all in flight at once; answers in reverse order reach their own requests', async () => {
  const held: Req[] = [];
  const b = await fakeBroker((req) => {
    held.push(req);
    if (held.length < 5) return;
    // Every request has arrived before any answer leaves: the client did not wait between them.
    for (const r of [...held].reverse()) r.sock.write(response(r.correlationId, Number(r.name.slice(4))));
  });
  const c = await connect(b.port);
  try {
    const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => c.send(18, 3, AV(`req-${i}`))));
    assert.equal(answers.map((a) => a.throttleTimeMs), [0, 1, 2, 3, 4]);
    assert.equal(held.map((r) => r.name), ['req-0', 'req-1', 'req-2', 'req-3', 'req-4']);
    assert.equal(new Set(held.map((r) => r.correlationId)).size, 5, 'distinct correlation ids');
    assert.is(held[0].clientId, 'conn-test');
    assert.is(c.inFlight, 0);
  } finally {
    c.close();
    await b.close();
  }
});

test('a response split into one-byte chunks (size prefix too) decodes whole', async () => {
  const b = await fakeBroker((req) => {
    void (async () => {
      const frame = response(req.correlationId, 4242);
      for (let i = 0; i < frame.length; i++) {
        req.sock.write(frame.subarray(i, i + 1));
        await sleep(1);
      }
    })();
  });
  const c = await connect(b.port);
  try {
    const a = await c.send(18, 3, AV('split'));
    assert.is(a.throttleTimeMs, 4242);
    assert.equal(a.apiKeys, [{ apiKey: 18, minVersion: 0, maxVersion: 3 }]);
    assert.is(c.bytesIn, response(1, 4242).length);
  } finally {
    c.close();
    await b.close();
  }
});

test('several responses in one chunk, the last one cut short and completed by a later chunk', async () => {
  const held: Req[] = [];
  const b = await fakeBroker((req) => {
    held.push(req);
    if (held.length < 3) return;
    const all = Buffer.concat(held.map((r, i) => response(r.correlationId, 100 + i)));
    const cut = all.length - 7;
    held[0].sock.write(all.subarray(0, cut));
    setTimeout(() => held[0].sock.write(all.subarray(cut)), 100);
  });
  const c = await connect(b.port);
  try {
    let thirdDone = false;
    const ps = [0, 1, 2].map((i) => c.send(18, 3, AV(`r${i}`)));
    void ps[2].then(() => { thirdDone = true; });
    assert.equal((await Promise.all(ps.slice(0, 2))).map((a) => a.throttleTimeMs), [100, 101]);
    assert.not.ok(thirdDone, 'the third waits for the rest of its frame');
    assert.is((await ps[2]).throttleTimeMs, 102);
  } finally {
    c.close();
    await b.close();
  }
});

test('a frame within one chunk is a view of that chunk; a frame across chunks is copied once', async () => {
  // Larger than half of Buffer's pool, so that a copy could not land next to the other frame.
  const frames = [1, 2, 3].map((cid) => response(cid, cid, 1000));
  const held: Req[] = [];
  const b = await fakeBroker((req) => {
    held.push(req);
    if (held.length === 2) held[0].sock.write(Buffer.concat([frames[0], frames[1]]));
    if (held.length === 3) {
      void (async () => {
        const f = frames[2];
        for (let at = 0; at < f.length; at += 1500) {
          req.sock.write(f.subarray(at, at + 1500));
          await sleep(5);
        }
      })();
    }
  });
  const c = await connect(b.port);
  const origCopy = Buffer.prototype.copy;
  const origConcat = Buffer.concat;
  try {
    const request = () => encodeRequestFrame(18, 3, 0, 'x', AV('big'));
    const [f1, f2] = await Promise.all([c.sendRaw(request()), c.sendRaw(request())]);
    assert.is(f1.readInt32BE(0), 1);
    assert.is(f2.readInt32BE(0), 2);
    assert.ok(f1.buffer === f2.buffer && f2.byteOffset === f1.byteOffset + f1.length + 4, 'both are views of the one chunk');

    let copied = 0;
    Buffer.prototype.copy = function (this: Buffer, ...args: Parameters<Buffer['copy']>): number {
      const n = origCopy.apply(this, args);
      copied += n;
      return n;
    };
    Buffer.concat = (...args: Parameters<typeof Buffer.concat>): ReturnType<typeof Buffer.concat> => {
      const r = origConcat.apply(Buffer, args);
      copied += r.length;
      return r;
    };
    const f3 = await c.sendRaw(request());
    Buffer.prototype.copy = origCopy;
    Buffer.concat = origConcat;
    assert.ok(f3.equals(frames[2].subarray(4)), 'the frame arrived whole');
    assert.ok(copied > 0 && copied <= f3.length, `copied ${copied} bytes for a frame of ${f3.length}`);
  } finally {
    Buffer.prototype.copy = origCopy;
    Buffer.concat = origConcat;
    c.close();
    await b.close();
  }
});

test('a request times out; by default the connection closes and rejects the others', async () => {
  const b = await fakeBroker(() => undefined); // never answers
  const c = await connect(b.port);
  const t0 = Date.now();
  const slow = c.send(18, 3, AV('slow'), { timeoutMs: 50 });
  const other = c.send(18, 3, AV('other'), { timeoutMs: 5000 });
  await slow.then(() => assert.unreachable('answered'), (e: Error) => {
    assert.instance(e, KafkaConnectionError);
    assert.match(e.message, 'ApiVersions to 127.0.0.1:' + b.port + ' timed out after 50 ms');
  });
  assert.ok(Date.now() - t0 >= 45, 'not before the timeout');
  await other.then(() => assert.unreachable('answered'), (e: Error) => assert.match(e.message, 'a request timed out'));
  assert.ok(c.isClosed);
  await c.closed;
  await b.close();
});

test('closeOnTimeout false: the connection stays usable and the late answer is dropped', async () => {
  let n = 0;
  const b = await fakeBroker((req) => {
    n++;
    if (n === 1) setTimeout(() => req.sock.write(response(req.correlationId, 1)), 80); // late
    else setTimeout(() => req.sock.write(response(req.correlationId, 2)), 120); // after the late one
  });
  const c = await connect(b.port, { closeOnTimeout: false });
  try {
    await c.send(18, 3, AV('late'), { timeoutMs: 30 }).then(() => assert.unreachable('answered'), (e: Error) => assert.match(e.message, 'timed out after 30 ms'));
    assert.not.ok(c.isClosed);
    const a = await c.send(18, 3, AV('next'));
    assert.is(a.throttleTimeMs, 2, 'the late answer to the first request is not taken for the second');
  } finally {
    c.close();
    await b.close();
  }
});

test('close() rejects every pending request at once, resolves `closed`, and later sends reject', async () => {
  const b = await fakeBroker(() => undefined);
  const c = await connect(b.port, { requestTimeoutMs: 0 });
  const pending = [c.send(18, 3, AV('a')), c.sendRaw(encodeRequestFrame(18, 3, 0, 'x', AV('b')))];
  await sleep(20);
  assert.is(c.inFlight, 2);
  c.close('bye');
  const outcomes = await Promise.allSettled(pending);
  assert.equal(outcomes.map((o) => o.status), ['rejected', 'rejected']);
  for (const o of outcomes) assert.is((o as PromiseRejectedResult).reason.message, 'bye');
  assert.is((await c.closed).message, 'bye');
  await c.send(18, 3, AV('c')).then(() => assert.unreachable('sent'), (e: Error) => assert.is(e.message, 'bye'));
  await b.close();
});

test('the broker closing the connection rejects what is pending', async () => {
  const b = await fakeBroker((req) => req.sock.destroy());
  const c = await connect(b.port);
  await c.send(18, 3, AV('x')).then(() => assert.unreachable('answered'), (e: Error) => {
    assert.instance(e, KafkaConnectionError);
    assert.match(e.message, /connection to 127\.0\.0\.1:\d+ (closed|failed)/);
  });
  assert.ok(c.isClosed);
  await b.close();
});

test('a request with no response expected resolves once written; the next request gets its own answer', async () => {
  const b = await fakeBroker((req) => {
    if (req.name !== 'acks0') req.sock.write(response(req.correlationId, 7));
  });
  const c = await connect(b.port, { requestTimeoutMs: 2000 });
  try {
    assert.is(await c.send(18, 3, AV('acks0'), { expectResponse: false }), undefined);
    assert.is(c.inFlight, 0, 'nothing waits for an answer');
    const a = await c.send(18, 3, AV('normal'));
    assert.is(a.throttleTimeMs, 7);
    assert.equal(b.requests.map((r) => r.name), ['acks0', 'normal']);
  } finally {
    c.close();
    await b.close();
  }
});

test('sendRaw: a pre-encoded frame gets a fresh correlation id written in; the raw response comes back', async () => {
  const b = await fakeBroker((req) => req.sock.write(response(req.correlationId, req.correlationId)));
  const c = await connect(b.port);
  try {
    const frame = encodeRequestFrame(18, 3, 999, 'pre', AV('raw'));
    const first = await c.sendRaw(frame);
    const cid1 = frame.readInt32BE(8);
    const second = await c.sendRaw(frame);
    const cid2 = frame.readInt32BE(8);
    assert.is.not(cid1, 999);
    assert.is.not(cid1, cid2);
    assert.is(first.readInt32BE(0), cid1);
    assert.is(second.readInt32BE(0), cid2);
    const body = apiCodecs[18].readResponse(new Reader(first.subarray(4)), 3);
    assert.is(body.throttleTimeMs, cid1);
  } finally {
    c.close();
    await b.close();
  }
});

test('write + receiveUnmatched: raw bytes out, frames nobody asked for in arrival order (an empty one too)', async () => {
  const b = await fakeBroker(() => undefined);
  const c = await connect(b.port, { keepUnmatched: true });
  try {
    assert.ok(c.write(Buffer.from([0, 0, 0, 3, 1, 2, 3])));
    await sleep(30);
    assert.equal([...Buffer.concat(b.raw)], [0, 0, 0, 3, 1, 2, 3], 'the bytes went out as they were');
    assert.is(await c.receiveUnmatched(30), 'timeout');
    const serverSock = b.accepted[0];
    // Three frames that answer no request, the empty one last in the chunk.
    serverSock.write(Buffer.concat([response(0x7ffffff0, 1), response(0x7ffffff1, 2), Buffer.alloc(4)]));
    const f1 = await c.receiveUnmatched(1000);
    const f2 = await c.receiveUnmatched(1000);
    const f3 = await c.receiveUnmatched(1000);
    assert.ok(Buffer.isBuffer(f1) && Buffer.isBuffer(f2) && Buffer.isBuffer(f3));
    assert.is((f1 as Buffer).readInt32BE(0), 0x7ffffff0);
    assert.is((f2 as Buffer).readInt32BE(0), 0x7ffffff1);
    assert.is((f3 as Buffer).length, 0);
    serverSock.destroy();
    assert.is(await c.receiveUnmatched(1000), 'closed');
    assert.not.ok(c.write(Buffer.alloc(1)));
  } finally {
    c.close();
    await b.close();
  }
});

test('connect: refused carries the socket code; a failing authenticate step closes the connection', async () => {
  const gone = await fakeBroker(() => undefined);
  await gone.close();
  await connect(gone.port).then(() => assert.unreachable('connected'), (e: KafkaConnectionError) => {
    assert.instance(e, KafkaConnectionError);
    assert.is(e.code, 'ECONNREFUSED');
    assert.match(e.message, `cannot connect to 127.0.0.1:${gone.port}`);
  });

  const b = await fakeBroker((req) => req.sock.write(response(req.correlationId, 3)));
  let seen: KafkaConnection | null = null;
  await connect(b.port, {
    label: 'the fake',
    authenticate: async (conn) => {
      seen = conn;
      assert.is((await conn.send(18, 3, AV('auth'))).throttleTimeMs, 3, 'requests work inside the step');
      throw new Error('refused');
    },
  }).then(() => assert.unreachable('connected'), (e: Error) => assert.is(e.message, 'refused'));
  assert.ok(seen !== null && (seen as KafkaConnection).isClosed);
  assert.is(((await (seen as unknown as KafkaConnection).closed) as Error).message, 'connection to the fake closed by the client');
  await b.close();
});

test('a response that does not decode rejects only its request', async () => {
  let n = 0;
  const b = await fakeBroker((req) => {
    n++;
    // The first answer is a bare correlation id: too short for an ApiVersions body.
    if (n === 1) {
      const f = Buffer.alloc(8);
      f.writeInt32BE(4, 0);
      f.writeInt32BE(req.correlationId, 4);
      req.sock.write(f);
    } else {
      req.sock.write(response(req.correlationId, 9));
    }
  });
  const c = await connect(b.port);
  try {
    await c.send(18, 3, AV('bad')).then(() => assert.unreachable('decoded'), (e: Error) => assert.not.instance(e, KafkaConnectionError));
    assert.is((await c.send(18, 3, AV('good'))).throttleTimeMs, 9);
  } finally {
    c.close();
    await b.close();
  }
});

uvuTest.run();
