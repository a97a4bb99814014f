import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs, type Fs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ProducerStateManager, incrementSequence, type BatchInfo } from '../../src/storage/producer-state.js';
import { ManualClock } from '../../src/clock.js';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';
import { config } from './helpers.js';

const DIR = '/data/orders-0';

function open(fs: Fs, clock: ManualClock, overrides = {}): Promise<PartitionLog> {
  return PartitionLog.open({ fs, dir: DIR, topic: 'orders', partition: 0, config: config(overrides), clock });
}

function pbatch(pid: number, epoch: number, seq: number, count = 1, opts: { transactional?: boolean; prefix?: string } = {}): Buffer {
  return buildRecordBatch({
    producerId: BigInt(pid), producerEpoch: epoch, baseSequence: seq, transactional: opts.transactional,
    records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`${opts.prefix ?? 'v'}-${seq + i}`), timestamp: 1_700_000_000_000n })),
  });
}

function marker(pid: number, epoch: number, commit: boolean, coordinatorEpoch = 0): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(commit ? 1 : 0, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return buildRecordBatch({ producerId: BigInt(pid), producerEpoch: epoch, baseSequence: -1, transactional: true, control: true, records: [{ key, value, timestamp: 1_700_000_000_000n }] });
}

async function rejectsWith(p: Promise<unknown>, code: number): Promise<void> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, KafkaApiError);
    assert.is((err as KafkaApiError).errorCode, code, (err as Error).message);
    return;
  }
  assert.unreachable(`expected error ${code}`);
}

async function values(log: PartitionLog, from = 0, maxOffset?: number): Promise<string[]> {
  const r = await log.read(from, 1 << 30, { minOneMessage: true, maxOffset });
  return r.records.flatMap((b) => decodeRecordBatches(b).filter((d) => !d.isControl).flatMap((d) => d.records.map((x) => x.value!.toString())));
}

test('sequence arithmetic wraps at 2^31-1', () => {
  assert.is(incrementSequence(5, 3), 8);
  assert.is(incrementSequence(0x7fffffff, 1), 0);
  assert.is(incrementSequence(0x7ffffffe, 3), 1);
});

test('in-order batches are accepted; an exact retry is answered with the original offsets and not written', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  const log = await open(fs, clock);
  const a = await log.appendAsLeader(pbatch(1000, 0, 0, 3), 0);
  const b = await log.appendAsLeader(pbatch(1000, 0, 3, 2), 0);
  assert.equal([a.baseOffset, b.baseOffset], [0, 3]);
  const dup = await log.appendAsLeader(pbatch(1000, 0, 0, 3), 0);
  assert.ok(dup.duplicate);
  assert.is(dup.baseOffset, 0);
  assert.is(dup.lastOffset, 2);
  assert.is(log.logEndOffset, 5);
  assert.equal(await values(log), ['v-0', 'v-1', 'v-2', 'v-3', 'v-4']);
});

test('only the last 5 batches are remembered; an older retry is OUT_OF_ORDER_SEQUENCE_NUMBER', async () => {
  const log = await open(new MemFs(), new ManualClock());
  for (let i = 0; i < 7; i++) await log.appendAsLeader(pbatch(7, 0, i), 0);
  assert.ok((await log.appendAsLeader(pbatch(7, 0, 2), 0)).duplicate);
  await rejectsWith(log.appendAsLeader(pbatch(7, 0, 1), 0), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
  assert.is(log.logEndOffset, 7);
});

test('gaps, stale epochs and epoch bumps (I1, I4-I7)', async () => {
  const log = await open(new MemFs(), new ManualClock());
  await log.appendAsLeader(pbatch(1, 3, 42), 0); // I1: first batch, any sequence
  await rejectsWith(log.appendAsLeader(pbatch(1, 3, 44), 0), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER); // I4 gap
  await rejectsWith(log.appendAsLeader(pbatch(1, 2, 43), 0), ErrorCode.INVALID_PRODUCER_EPOCH); // I5
  await rejectsWith(log.appendAsLeader(pbatch(1, 4, 5), 0), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER); // I6 seq != 0
  await log.appendAsLeader(pbatch(1, 4, 0), 0); // I6 seq 0 adopts the new epoch
  await rejectsWith(log.appendAsLeader(pbatch(1, 3, 43), 0), ErrorCode.INVALID_PRODUCER_EPOCH);
  // I7 wrap
  await log.appendAsLeader(pbatch(2, 0, 0x7fffffff), 0);
  await log.appendAsLeader(pbatch(2, 0, 0), 0);
  assert.is(log.logEndOffset, 4);
  assert.is(log.producerState.get(1)!.producerEpoch, 4);
});

test('non-idempotent batches are not checked', async () => {
  const log = await open(new MemFs(), new ManualClock());
  const plain = () => buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] });
  await log.appendAsLeader(plain(), 0);
  await log.appendAsLeader(plain(), 0);
  assert.is(log.logEndOffset, 2);
  assert.is(log.producerState.size, 0);
});

test('producer state survives a clean restart (snapshot) and a crash (replay of the log)', async () => {
  for (const crash of [false, true]) {
    const fs = new MemFs();
    const clock = new ManualClock();
    let log = await open(fs, clock);
    await log.appendAsLeader(pbatch(9, 1, 0, 2), 0);
    await log.appendAsLeader(pbatch(9, 1, 2, 2), 0);
    await log.flush();
    if (crash) fs.crash();
    else {
      await log.close();
      assert.ok((await fs.readdir(DIR)).includes('00000000000000000004.snapshot'), 'snapshot at close');
    }
    log = await open(fs, clock);
    const dup = await log.appendAsLeader(pbatch(9, 1, 2, 2), 0);
    assert.ok(dup.duplicate, `crash=${crash}`);
    assert.is(dup.baseOffset, 2);
    await rejectsWith(log.appendAsLeader(pbatch(9, 1, 7), 0), ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER);
    const next = await log.appendAsLeader(pbatch(9, 1, 4), 0);
    assert.is(next.baseOffset, 4);
    await log.close();
  }
});

test('a snapshot is written at roll; only batches after it are replayed', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  let log = await open(fs, clock, { segmentBytes: 300 });
  for (let i = 0; i < 6; i++) await log.appendAsLeader(pbatch(5, 0, i, 1, { prefix: 'x'.repeat(60) }), 0);
  assert.ok(log.numberOfSegments > 1);
  const snaps = (await fs.readdir(DIR)).filter((n) => n.endsWith('.snapshot'));
  assert.ok(snaps.length >= 1, 'snapshot at roll');
  await log.flush();
  fs.crash();
  log = await open(fs, clock, { segmentBytes: 300 });
  assert.ok((await log.appendAsLeader(pbatch(5, 0, 5, 1, { prefix: 'x'.repeat(60) }), 0)).duplicate);
  assert.is((await log.appendAsLeader(pbatch(5, 0, 6), 0)).baseOffset, 6);
});

test('producer.id.expiration.ms forgets idle producers (manual clock)', async () => {
  const clock = new ManualClock();
  const log = await open(new MemFs(), clock);
  await log.appendAsLeader(pbatch(3, 0, 10), 0);
  clock.advance(1000);
  assert.is(await log.removeExpiredProducers(clock.now(), 5000), 0);
  clock.advance(5000);
  assert.is(await log.removeExpiredProducers(clock.now(), 5000), 1);
  // Forgotten: any sequence is accepted again (I10).
  await log.appendAsLeader(pbatch(3, 0, 99), 0);
});

test('transactions: LSO, INVALID_TXN_STATE, markers, aborted index and restart', async () => {
  const fs = new MemFs();
  const clock = new ManualClock();
  let log = await open(fs, clock);
  await log.appendAsLeader(pbatch(1, 0, 0, 1, { prefix: 'plain' }), 0); // offset 0, idempotent
  await log.appendAsLeader(pbatch(2, 0, 0, 2, { transactional: true, prefix: 'aborted' }), 0); // 1-2
  assert.is(log.lastStableOffset, 1);
  assert.is(log.highWatermark, 3);
  await log.appendAsLeader(pbatch(3, 0, 0, 1, { transactional: true, prefix: 'committed' }), 0); // 3
  await rejectsWith(log.appendAsLeader(pbatch(2, 0, 2, 1), 0), ErrorCode.INVALID_TXN_STATE);
  await rejectsWith(log.appendAsLeader(marker(3, 0, true), 0), ErrorCode.INVALID_RECORD); // clients may not
  await log.appendAsLeader(marker(2, 0, false), 0, { origin: 'coordinator' }); // 4: abort pid 2
  assert.is(log.lastStableOffset, 3);
  await log.appendAsLeader(marker(3, 0, true), 0, { origin: 'coordinator' }); // 5: commit pid 3
  assert.is(log.lastStableOffset, 6);
  assert.equal(await log.collectAbortedTransactions(0, 6), [{ producerId: 2, firstOffset: 1, lastOffset: 4, lastStableOffset: 3 }]);
  assert.equal(await log.collectAbortedTransactions(5, 6), []);
  // A stale marker epoch is refused.
  await rejectsWith(log.appendAsLeader(marker(2, 0, false), 0, { origin: 'coordinator' }).then(async () => {
    await log.appendAsLeader(pbatch(2, 1, 0), 0);
    await log.appendAsLeader(marker(2, 0, false), 0, { origin: 'coordinator' });
  }), ErrorCode.INVALID_PRODUCER_EPOCH);
  // open txn across a crash
  await log.appendAsLeader(pbatch(4, 0, 0, 1, { transactional: true }), 0);
  const lso = log.lastStableOffset;
  await log.flush();
  fs.crash();
  log = await open(fs, clock);
  assert.is(log.lastStableOffset, lso);
  assert.equal((await log.collectAbortedTransactions(0, 6)).map((t) => t.producerId), [2]);
  // The index was rebuilt/kept; a clean close and reopen keeps both.
  await log.close();
  log = await open(fs, clock);
  assert.is(log.lastStableOffset, lso);
  assert.equal((await log.collectAbortedTransactions(0, 6)).map((t) => t.producerId), [2]);
});

test('ProducerStateManager snapshot round trip keeps epochs, last batch and open transactions', () => {
  const m = new ProducerStateManager('t-0');
  const info = (over: Partial<BatchInfo>): BatchInfo => ({ producerId: 1, producerEpoch: 0, baseSequence: 0, lastOffsetDelta: 0, firstOffset: 0, lastOffset: 0, maxTimestamp: 5, isTransactional: false, isControl: false, ...over });
  m.commit(m.prepare([info({ baseSequence: 0, lastOffsetDelta: 4, firstOffset: 0, lastOffset: 4 })], 100, true));
  m.commit(m.prepare([info({ producerId: 2, producerEpoch: 7, isTransactional: true, firstOffset: 5, lastOffset: 5 })], 100, true));
  const copy = new ProducerStateManager('t-0');
  copy.loadSnapshot(m.serialize());
  assert.is(copy.size, 2);
  assert.is(copy.firstUnstableOffset(), 5);
  assert.ok(copy.findDuplicate({ producerId: 1, producerEpoch: 0, baseSequence: 0, lastOffsetDelta: 4 }));
  const bad = m.serialize();
  bad[bad.length - 1] ^= 1;
  assert.throws(() => copy.loadSnapshot(bad));
});

test.run();
