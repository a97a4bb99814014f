/**
 * Recycled read buffers for Fetch responses (network/read-slabs.ts): the lease/pool rules, and
 * over real sockets that a response's buffers stay untouched until the socket is done with them,
 * even while other connections fetch at full speed through the same pool.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { getEventListeners } from 'node:events';
import { SLAB_BYTES, SlabLease, SlabPool } from '../../src/network/read-slabs.js';
import { IdleTrim } from '../../src/network/idle-trim.js';
import { brokerWithTopic } from './_broker.js';
import { KafkaConn, decodeResponse, encodeRequest } from '../../bench/lib/kafka-conn.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/generated/messages/fetch-request.js';
import type { FetchRequest } from '../../src/protocol/generated/messages/fetch-request.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

test('a lease carves reads out of slabs, reuses them after reset, and gives them back once', () => {
  const pool = new SlabPool(4);
  const lease = new SlabLease(pool);
  assert.is(lease.alloc(0).length, 0, 'empty reads take no slab');
  assert.is(lease.slabCount, 0);
  const a = lease.alloc(1_000_000);
  const b = lease.alloc(1_000_000);
  assert.is(a.buffer, b.buffer, 'two 1 MB reads share a 4 MiB slab');
  assert.ok(b.byteOffset >= a.byteOffset + a.length, 'slices do not overlap');
  const c = lease.alloc(3_000_000);
  assert.is.not(c.buffer, a.buffer, 'a read over half a slab gets its own buffer');
  lease.alloc(1_000_000);
  lease.alloc(1_500_000);
  assert.is(lease.slabCount, 2, 'a read that does not fit starts the next slab');
  lease.reset();
  const again = lease.alloc(10);
  assert.is(again.buffer, a.buffer, 'after reset the first slab is reused');
  lease.release();
  lease.release();
  assert.is(pool.idleSlabs, 2, 'released once, both slabs back in the pool');
  assert.throws(() => lease.alloc(1), /after release/);
  const next = new SlabLease(pool);
  const d = next.alloc(100);
  assert.is(d.length, 100);
  assert.is(pool.reused, 1, 'the next lease takes a pooled slab');
  pool.clear();
  assert.is(pool.idleSlabs, 0);
  assert.is(SLAB_BYTES % 4096, 0);
});

test('IdleTrim fires only after the pool has gone unused for its idle time, and not once disarmed', async () => {
  let fired = 0;
  const t = new IdleTrim(() => fired++, 40);
  t.arm();
  for (let i = 0; i < 4; i++) {
    await new Promise((r) => setTimeout(r, 15));
    t.touch();
  }
  assert.is(fired, 0, 'kept alive by use');
  await new Promise((r) => setTimeout(r, 120));
  assert.ok(fired >= 1, 'fired once idle');
  t.disarm();
  const after = fired;
  await new Promise((r) => setTimeout(r, 100));
  assert.is(fired, after, 'nothing after disarm');
});

test('the pool keeps at most maxIdleSlabs', () => {
  const pool = new SlabPool(2);
  const l = new SlabLease(pool);
  for (let i = 0; i < 5; i++) l.alloc(SLAB_BYTES / 2);
  l.release();
  assert.is(pool.idleSlabs, 2);
  pool.clear();
});

/** Fetch v12 of `partitions` from offset 0, 1.5 MiB per partition (each read fits in a slab). */
function fetchBody(topic: string, partitions: number[]): FetchRequest {
  return {
    ...defaultFetchRequest(), replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 32 << 20, isolationLevel: 0,
    topics: [{
      topic, topicId: '00000000-0000-0000-0000-000000000000',
      partitions: partitions.map((partition) => ({ ...defaultFetchPartition(), partition, fetchOffset: 0n, partitionMaxBytes: 3 << 19 })),
    }],
  };
}

test('a response still queued for a slow reader is not overwritten while other connections fetch', async () => {
  const b = await brokerWithTopic('slabs', 28);
  const slow = new net.Socket();
  try {
    const setup = await KafkaConn.connect('127.0.0.1', b.port);
    // 1 MB per partition; the slow reader fetches partitions 0-23 (more than the kernel's socket
    // buffers hold), the fast readers 24-27.
    const values: Buffer[][] = [];
    for (let p = 0; p < 28; p++) {
      const batch = Array.from({ length: 10 }, () => randomBytes(100_000));
      values.push(batch);
      const res = await setup.request(0, 9, {
        transactionalId: null, acks: 1, timeoutMs: 5000,
        topicData: [{ name: 'slabs', topicId: ZERO_UUID, partitionData: [{ index: p, records: buildRecordBatch({ records: batch.map((v) => ({ key: null, value: v })) }) }] }],
      });
      assert.is(res.responses[0].partitionResponses[0].errorCode, 0);
    }
    setup.close();
    const SLOW = Array.from({ length: 24 }, (_, i) => i);
    const FAST = [24, 25, 26, 27];
    const check = (res: ReturnType<typeof decodeResponse<1>>, parts: number[], who: string) => {
      const got = res.responses[0].partitions;
      assert.equal(got.map((p) => p.partitionIndex), parts);
      for (const p of got) {
        // decodeRecordBatches verifies every batch's CRC.
        const recs = decodeRecordBatches(Buffer.concat([p.records as Buffer])).flatMap((x) => x.records);
        assert.is(recs.length, 10, `${who}: partition ${p.partitionIndex}`);
        recs.forEach((r, i) => assert.ok(r.value!.equals(values[p.partitionIndex][i]), `${who}: partition ${p.partitionIndex} record ${i}`));
      }
    };

    // The slow reader asks for 24 MB and does not read for a while: much of the response waits in
    // the broker's socket write queue.
    await new Promise<void>((resolve) => slow.connect({ host: '127.0.0.1', port: b.port }, () => resolve()));
    slow.pause();
    slow.write(encodeRequest(1, 12, 1, fetchBody('slabs', SLOW)));
    await new Promise((r) => setTimeout(r, 150));

    // Meanwhile two other connections fetch partitions 24-27 again and again through the same pool.
    const before = b.broker.socketServer!.slabPool.reused;
    const fast = await Promise.all([0, 1].map(() => KafkaConn.connect('127.0.0.1', b.port)));
    for (let round = 0; round < 6; round++) {
      await Promise.all(fast.map(async (c) => check(await c.request(1, 12, fetchBody('slabs', FAST)), FAST, 'fast')));
    }
    for (const c of fast) c.close();
    assert.ok(b.broker.socketServer!.slabPool.reused > before, 'slabs were recycled between the fast fetches');

    // Now read the slow response: every byte as it was produced.
    const chunks: Buffer[] = [];
    slow.on('data', (d: Buffer) => chunks.push(d));
    slow.resume();
    let frame: Buffer | null = null;
    for (let i = 0; i < 250 && !frame; i++) {
      await new Promise((r) => setTimeout(r, 20));
      const all = Buffer.concat(chunks);
      if (all.length >= 4 && all.length >= 4 + all.readInt32BE(0)) frame = all.subarray(4, 4 + all.readInt32BE(0));
    }
    assert.ok(frame, 'the slow reader got its whole response');
    check(decodeResponse(1, 12, frame!), SLOW, 'slow');
  } finally {
    slow.destroy();
    await b.stop();
  }
});

test('a long-polling Fetch ends as soon as its client disconnects', async () => {
  const b = await brokerWithTopic('idle', 1);
  try {
    const rec = b.control.record({ apiKeys: ['Fetch'] });
    const c = new net.Socket();
    await new Promise<void>((resolve) => c.connect({ host: '127.0.0.1', port: b.port }, () => resolve()));
    c.write(encodeRequest(1, 12, 1, { ...fetchBody('idle', [0]), maxWaitMs: 20_000, minBytes: 1 }));
    await new Promise((r) => setTimeout(r, 200));
    assert.is(rec.of('Fetch').length, 1, 'the fetch is waiting');
    assert.is(rec.of('Fetch')[0].response, undefined);
    const closedAt = Date.now();
    c.destroy();
    while (rec.of('Fetch')[0].response === undefined && Date.now() - closedAt < 10_000) await new Promise((r) => setTimeout(r, 10));
    // Before the fix the handler kept re-reading (spinning) until max_wait_ms (20 s here).
    assert.ok(Date.now() - closedAt < 5_000, `the long poll ended ${Date.now() - closedAt} ms after the disconnect`);
    rec.stop();
  } finally {
    await b.stop();
  }
});

test('long polls leave no listeners behind on the broker or the connection', async () => {
  const b = await brokerWithTopic('polls', 2);
  try {
    const c = await KafkaConn.connect('127.0.0.1', b.port);
    // 30 long polls that time out (nothing to read), then one that an append wakes up.
    for (let i = 0; i < 30; i++) {
      const res = await c.request(1, 12, { ...fetchBody('polls', [0, 1]), maxWaitMs: 5, minBytes: 1 });
      assert.is(res.responses[0].partitions[0].errorCode, 0);
    }
    const woken = c.request(1, 12, { ...fetchBody('polls', [0, 1]), maxWaitMs: 10_000, minBytes: 1 });
    await new Promise((r) => setTimeout(r, 50));
    const p = await KafkaConn.connect('127.0.0.1', b.port);
    await p.request(0, 9, {
      transactionalId: null, acks: 1, timeoutMs: 5000,
      topicData: [{ name: 'polls', topicId: ZERO_UUID, partitionData: [{ index: 1, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }) }] }],
    });
    p.close();
    const res = await woken;
    assert.is(res.responses[0].partitions[1].records && Buffer.concat([res.responses[0].partitions[1].records as Buffer]).length > 0, true, 'the append woke the long poll');
    // Every wait removed what it registered (promise races on long-lived promises would not).
    assert.is(getEventListeners(b.broker.stopSignal, 'abort').length, 0, 'no listeners left on the stop signal');
    for (const p of [0, 1]) assert.is(b.broker.logs.getLog('polls', p)!.listenerCount, 0, `no append or high-watermark listeners left on partition ${p}`);
    c.close();
  } finally {
    await b.stop();
  }
});

test.run();
