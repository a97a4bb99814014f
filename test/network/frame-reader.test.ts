/**
 * FrameReader (socket reads straight into frame buffers) and FramePool, in isolation and over
 * real sockets: frames come out byte-identical whatever the read boundaries, large frames are
 * read into pooled buffers that are reused, bad sizes are ProtocolErrors; and with kcat and raw
 * pipelined Produce requests on several connections, every byte written through recycled frame
 * buffers reads back intact.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { FramePool, FrameReader, LARGE_FRAME_BYTES, adoptSocket } from '../../src/network/frame-reader.js';
import { ProtocolError } from '../../src/errors.js';
import { startBroker } from '../../src/testing/start-broker.js';
import { brokerWithTopic } from './_broker.js';
import { kcat } from '../support/external.js';
import { describeRun, hostPort } from '../support/clients.js';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/generated/messages/fetch-request.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

function buildBatch(records: { key: string; value: Buffer }[]): Buffer {
  return buildRecordBatch({ records: records.map((r) => ({ key: Buffer.from(r.key), value: r.value })) });
}

/** Reads a whole partition with Fetch v12 (one connection, 8 MiB per request). */
async function fetchAll(port: number, topic: string, partition: number): Promise<{ offset: number; key: string; value: Buffer }[]> {
  const c = await KafkaConn.connect('127.0.0.1', port);
  const out: { offset: number; key: string; value: Buffer }[] = [];
  try {
    for (;;) {
      const res = await c.request(1, 12, {
        ...defaultFetchRequest(), replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 8 << 20, isolationLevel: 0,
        topics: [{ topic, topicId: '00000000-0000-0000-0000-000000000000', partitions: [{ ...defaultFetchPartition(), partition, fetchOffset: BigInt(out.length), partitionMaxBytes: 8 << 20 }] }],
      });
      const p = res.responses[0].partitions[0];
      assert.is(p.errorCode, 0);
      const batches = p.records ? decodeRecordBatches(p.records as Buffer) : [];
      let added = 0;
      for (const batch of batches) {
        for (const r of batch.records) {
          if (Number(r.offset) < out.length) continue;
          out.push({ offset: Number(r.offset), key: r.key!.toString(), value: r.value! });
          added++;
        }
      }
      if (added === 0) return out;
    }
  } finally {
    c.close();
  }
}

interface Got {
  frames: { frame: Buffer; pooled: boolean }[];
  errors: unknown[];
}

function reader(maxFrameBytes = 10 * 1024 * 1024, pool = new FramePool()): { r: FrameReader; got: Got; pool: FramePool } {
  const r = new FrameReader(maxFrameBytes, pool);
  const got: Got = { frames: [], errors: [] };
  r.sink = { onFrame: (frame, pooled) => got.frames.push({ frame: Buffer.from(frame), pooled }), onError: (e) => got.errors.push(e) };
  return { r, got, pool };
}

/** Feeds `stream` as the kernel would: each read fills at most the buffer offered, `sizes` bytes at a time. */
function feed(r: FrameReader, stream: Buffer, nextSize: () => number): void {
  let pos = 0;
  while (pos < stream.length) {
    const into = r.nextBuffer();
    assert.ok(into.length > 0, 'reader always offers room');
    const n = Math.min(into.length, nextSize(), stream.length - pos);
    stream.copy(into, 0, pos, pos + n);
    pos += n;
    r.onRead(n);
  }
}

function framed(payloads: Buffer[]): Buffer {
  return Buffer.concat(payloads.flatMap((p) => {
    const h = Buffer.alloc(4);
    h.writeInt32BE(p.length);
    return [h, p];
  }));
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 0x1_0000_0000;
  };
}

test('frames of every size come out byte-identical whatever the read boundaries', () => {
  const sizes = [10, 11, 100, 4096, LARGE_FRAME_BYTES - 1, LARGE_FRAME_BYTES, LARGE_FRAME_BYTES + 1, 65531, 65536, 200_000, 1_048_576, 10, 3_000_000, 12];
  const payloads = sizes.map((n) => randomBytes(n));
  const stream = framed(payloads);
  for (const [name, next] of [
    ['1-byte reads', () => 1],
    ['7-byte reads', () => 7],
    ['64 KiB reads', () => 65536],
    ['random reads', (() => { const g = rng(42); return () => 1 + Math.floor(g() * 300_000); })()],
    ['everything at once', () => Number.MAX_SAFE_INTEGER],
  ] as const) {
    if (name === '1-byte reads') {
      // 1-byte reads over 4.5 MB would be slow: use the small frames only.
      const { r, got } = reader();
      const small = payloads.filter((p) => p.length < 70_000);
      feed(r, framed(small), next);
      assert.is(got.frames.length, small.length, name);
      small.forEach((p, i) => assert.ok(got.frames[i].frame.equals(p), `${name}: frame ${i}`));
      continue;
    }
    const { r, got } = reader();
    feed(r, stream, next);
    assert.is(got.errors.length, 0, name);
    assert.is(got.frames.length, payloads.length, name);
    payloads.forEach((p, i) => {
      assert.ok(got.frames[i].frame.equals(p), `${name}: frame ${i} (${p.length} bytes)`);
    });
    assert.is(r.bufferedBytes, 0, name);
  }
});

test('a large frame is read straight into a pool buffer; released buffers are reused', () => {
  const pool = new FramePool();
  const r = new FrameReader(10 * 1024 * 1024, pool);
  const frames: { frame: Buffer; pooled: boolean }[] = [];
  r.sink = { onFrame: (frame, pooled) => frames.push({ frame, pooled }), onError: (e) => { throw e; } };
  const big = randomBytes(500_000);
  const stream = framed([big]);
  // First read: the size and a little of the body land in the small buffer.
  let into = r.nextBuffer();
  stream.copy(into, 0, 0, 100);
  r.onRead(100);
  // From now on the reader offers the frame buffer itself, positioned after the bytes already there.
  into = r.nextBuffer();
  assert.is(into.length, 500_000 - 96, 'offers exactly the rest of the frame');
  stream.copy(into, 0, 100);
  r.onRead(stream.length - 100);
  assert.is(frames.length, 1);
  assert.ok(frames[0].pooled);
  assert.ok(frames[0].frame.equals(big));
  assert.is(frames[0].frame.byteOffset, 0, 'the frame starts its own buffer: no assembly copy');
  const first = frames[0].frame.buffer;
  pool.release(frames[0].frame);
  assert.throws(() => pool.release(frames[0].frame), /twice/);
  feed(r, framed([randomBytes(480_000)]), () => 65536);
  assert.is(frames[1].frame.buffer, first, 'the released buffer is reused for a frame of similar size');
  assert.is(pool.reused, 1);
  // A much smaller large frame does not take a buffer more than twice its size.
  pool.release(frames[1].frame);
  feed(r, framed([randomBytes(40_000)]), () => 65536);
  assert.is.not(frames[2].frame.buffer, first);
});

test('adoptSocket leaves a socket without a handle alone (the connection then reads with data events)', () => {
  assert.is(adoptSocket(new net.Socket(), new FrameReader(1024, new FramePool())), null);
});

test('FramePool stays bounded in count and bytes, and clear() drops what it holds', () => {
  const pool = new FramePool(2, 3 * 1024 * 1024);
  const bufs = [pool.take(1_000_000), pool.take(1_000_000), pool.take(1_000_000)];
  for (const b of bufs) pool.release(b);
  assert.ok(pool.pooledBytes <= 3 * 1024 * 1024);
  assert.ok(pool.pooledBytes <= 2 * 1024 * 1024, 'at most two buffers kept');
  pool.release(pool.take(5_000_000)); // larger than the byte bound: not kept
  assert.ok(pool.pooledBytes <= 3 * 1024 * 1024);
  pool.clear();
  assert.is(pool.pooledBytes, 0);
});

test('bad frame sizes are ProtocolErrors raised before buffering, and nothing is read after', () => {
  for (const [size, re] of [[-1, /invalid frame size -1/], [3, /invalid frame size 3/], [2_000_001, /exceeds socket.request.max.bytes \(2000000\)/]] as const) {
    const { r, got } = reader(2_000_000);
    const h = Buffer.alloc(8);
    h.writeInt32BE(size);
    feed(r, h, () => 8);
    assert.is(got.errors.length, 1, String(size));
    assert.instance(got.errors[0], ProtocolError);
    assert.match((got.errors[0] as Error).message, re);
    feed(r, framed([randomBytes(20)]), () => 64);
    assert.is(got.frames.length, 0, 'a failed reader delivers nothing more');
  }
});

// ---------------------------------------------------------------------------------------------
// Over real sockets

test('kcat: 6,000 distinct 1-2 KiB messages in ~1 MB requests through recycled buffers read back exactly', async () => {
  const b = await startBroker({ port: 0, config: { 'num.partitions': 2 } });
  try {
    const bs = hostPort(b.port);
    const g = rng(7);
    const lines: string[] = [];
    for (let i = 0; i < 6000; i++) lines.push(`${i}:${randomBytes(512 + Math.floor(g() * 512)).toString('hex')}`);
    const res = await kcat(['-P', '-b', bs, '-t', 'recycled', '-K:', '-X', 'linger.ms=200', '-X', 'batch.size=1000000'], { input: lines.join('\n') + '\n' });
    assert.is(res.code, 0, describeRun(res));
    const pool = b.broker.socketServer!.framePool;
    assert.ok(pool.taken >= 4, `large requests went through the pool (${pool.taken})`);
    assert.ok(pool.reused >= 2, `pool buffers were reused (${pool.reused})`);
    const out = await kcat(['-C', '-b', bs, '-t', 'recycled', '-o', 'beginning', '-e', '-q', '-f', '%k:%s\\n']);
    assert.is(out.code, 0, describeRun(out));
    const got = out.stdout.split('\n').filter(Boolean).sort();
    assert.is(got.length, lines.length);
    assert.equal(got, [...lines].sort(), 'every message back exactly once, unchanged');
  } finally {
    await b.stop();
  }
});

test('raw pipelined 300 KiB Produce requests on three connections: all bytes intact, offsets contiguous', async () => {
  const b = await brokerWithTopic('raw', 1);
  try {
    const conns = await Promise.all([0, 1, 2].map(() => KafkaConn.connect('127.0.0.1', b.port)));
    const sent = new Map<string, Buffer>();
    // Waves of 3 pipelined requests per connection: later waves land in recycled buffers.
    await Promise.all(conns.map(async (c, ci) => {
      for (let wave = 0; wave < 4; wave++) {
        await Promise.all([0, 1, 2].map(async (k) => {
          const values = Array.from({ length: 3 }, () => randomBytes(100_000));
          const key = `${ci}-${wave}-${k}`;
          values.forEach((v, j) => sent.set(`${key}-${j}`, v));
          const res = await c.request(0, 9, {
            transactionalId: null, acks: 1, timeoutMs: 5000,
            topicData: [{ name: 'raw', topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildBatch(values.map((v, j) => ({ key: `${key}-${j}`, value: v }))) }] }],
          });
          assert.is(res.responses[0].partitionResponses[0].errorCode, 0);
        }));
      }
    }));
    for (const c of conns) c.close();
    assert.ok(b.broker.socketServer!.framePool.reused > 0, 'frames were recycled');
    const records = await fetchAll(b.port, 'raw', 0);
    assert.is(records.length, sent.size);
    records.forEach((r, i) => assert.is(r.offset, i, 'contiguous offsets'));
    for (const r of records) assert.ok(sent.get(r.key)!.equals(r.value), `value of ${r.key} intact`);
  } finally {
    await b.stop();
  }
});

test.run();
