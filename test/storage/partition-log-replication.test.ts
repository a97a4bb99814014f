/**
 * The storage side of replication (PartitionLog): appendAsFollower keeps the leader's offsets,
 * epochs and bytes and updates producer state; the high watermark under replication control;
 * truncation by offset (segments, epochs, producer state, HW) and a fresh start at the leader's
 * log start; all of it surviving a reopen.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog, type LogConfig } from '../../src/storage/partition-log.js';
import { ManualClock } from '../../src/clock.js';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { partitionLeaderEpoch } from '../../src/protocol/records/record-batch.js';
import { batch, config, offsetsOf, valuesOf } from './helpers.js';

function open(fs: MemFs, clock: ManualClock, dir: string, overrides: Partial<LogConfig> = {}): Promise<PartitionLog> {
  return PartitionLog.open({ fs, dir, topic: 'r', partition: 0, config: config(overrides), clock });
}

/** The bytes of everything in `log` (what a follower would fetch). */
async function everything(log: PartitionLog, from = 0): Promise<Buffer> {
  const r = await log.read(from, 1 << 30, { minOneMessage: true });
  return Buffer.concat(r.records);
}

test('appendAsFollower keeps the leader offsets, epochs and bytes; producer state follows', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const leader = await open(fs, clock, '/l/r-0');
  const follower = await open(fs, clock, '/f/r-0');
  follower.setHighWatermarkFollowsLogEnd(false);
  await leader.appendAsLeader(batch(3), 0);
  await leader.appendAsLeader(batch(2), 1);
  const idem = buildRecordBatch({ producerId: 7n, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: Buffer.from('p') }] });
  await leader.appendAsLeader(idem, 1);
  const bytes = await everything(leader);
  const r = await follower.appendAsFollower(Buffer.from(bytes));
  assert.is(r.lastOffset, 5);
  assert.is(follower.logEndOffset, 6);
  assert.is(follower.highWatermark, 0, 'a follower HW waits for the leader');
  assert.ok((await everything(follower)).equals(bytes), 'byte for byte the leader batches');
  assert.equal(follower.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0], [1, 3]]);
  assert.is(follower.producerState.activeProducers().find((p) => p.producerId === 7)?.batches.length, 1, 'producer state from the replicated batch');
  follower.updateHighWatermark(4);
  assert.is(follower.highWatermark, 4);
  follower.updateHighWatermark(99);
  assert.is(follower.highWatermark, 6, 'capped at the log end');
  // A batch below the log end is refused (the fetcher truncates first).
  try {
    await follower.appendAsFollower(Buffer.from(bytes));
    assert.unreachable('appended twice');
  } catch (err) {
    assert.instance(err, KafkaApiError);
    assert.is((err as KafkaApiError).errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);
  }
  await leader.close();
  await follower.close();
});

test('a leader with other ISR members keeps its HW until replication moves it', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const log = await open(fs, clock, '/l/r-0');
  log.setHighWatermarkFollowsLogEnd(false);
  await log.appendAsLeader(batch(4), 2);
  assert.is(log.highWatermark, 0);
  let woke = 0;
  log.onHighWatermark(() => woke++);
  assert.ok(log.updateHighWatermark(3));
  assert.is(woke, 1, 'a HW move wakes long polls');
  assert.is(offsetsOf((await log.read(0, 1 << 20, { minOneMessage: true, maxOffset: log.highWatermark })).records).length, 4, 'whole batch below the HW start');
  log.setHighWatermarkFollowsLogEnd(true);
  assert.is(log.highWatermark, 4, 'alone in the ISR: HW = LEO');
  await log.close();
});

test('truncateTo removes whole batches above the offset, across segments, with epochs, producers and HW', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const log = await open(fs, clock, '/l/r-0', { segmentBytes: 300 });
  for (let i = 0; i < 6; i++) await log.appendAsLeader(batch(2, { prefix: `b${i}` }), i < 3 ? 0 : 1);
  const pid = buildRecordBatch({ producerId: 9n, producerEpoch: 0, baseSequence: 0, records: [{ key: null, value: Buffer.from('late') }] });
  await log.appendAsLeader(pid, 2);
  assert.is(log.logEndOffset, 13);
  assert.ok(log.numberOfSegments > 2, `segments: ${log.segmentBaseOffsets}`);
  assert.ok(await log.truncateTo(7), 'truncated');
  // Offset 7 sits in the batch [6, 7]: the whole batch goes.
  assert.is(log.logEndOffset, 6);
  assert.is(log.highWatermark, 6);
  assert.equal(offsetsOf((await log.read(0, 1 << 20, { minOneMessage: true })).records), [0, 1, 2, 3, 4, 5]);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0]]);
  assert.is(log.producerState.activeProducers().find((p) => p.producerId === 9), undefined, 'producer of a truncated batch forgotten');
  // Appending goes on from the new end, with the next epoch.
  const res = await log.appendAsLeader(batch(1, { prefix: 'new' }), 3);
  assert.is(res.baseOffset, 6);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0], [3, 6]]);
  assert.not.ok(await log.truncateTo(50), 'nothing above the end');
  await log.close();
  // Reopened: the same log.
  const again = await open(fs, clock, '/l/r-0', { segmentBytes: 300 });
  assert.is(again.logEndOffset, 7);
  assert.equal(valuesOf((await again.read(0, 1 << 20, { minOneMessage: true })).records).slice(-1), ['new-0']);
  assert.equal(again.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0], [3, 6]]);
  await again.close();
});

test('truncateTo at the log end cuts nothing but drops an epoch led without writes (issue 23 item 3)', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const log = await open(fs, clock, '/l/r-0');
  log.setHighWatermarkFollowsLogEnd(false);
  await log.appendAsLeader(batch(3), 0);
  // This replica led epoch 1 and wrote nothing in it: the entry starts at the log end.
  await log.assignEpochStartOffset(1, 3);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0], [1, 3]]);
  // As a follower again, the new leader (which never had epoch 1) says epoch 0 ends at 3.
  assert.not.ok(await log.truncateTo(3), 'no batch cut');
  assert.is(log.logEndOffset, 3);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0]], 'the empty epoch is gone');
  assert.is(log.leaderEpochCache.latestEpoch(), 0, 'the next fetch names epoch 0');
  await log.close();
  const again = await open(fs, clock, '/l/r-0');
  assert.equal(again.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[0, 0]], 'and so does the checkpoint');
  await again.close();
});

test('truncateFullyAndStartAt empties the log at the leader log start', async () => {
  const clock = new ManualClock(1_700_000_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const log = await open(fs, clock, '/l/r-0');
  await log.appendAsLeader(batch(5), 0);
  await log.truncateFullyAndStartAt(100);
  assert.equal([log.logStartOffset, log.logEndOffset, log.highWatermark], [100, 100, 100]);
  assert.equal(log.leaderEpochCache.all, []);
  // The leader's batches from 100 on are appended as they are.
  const leader = await open(fs, clock, '/x/r-0');
  await leader.appendAsLeader(batch(100), 4);
  await leader.appendAsLeader(batch(3), 5);
  const tail = (await leader.read(100, 1 << 20, { minOneMessage: true })).records;
  await log.appendAsFollower(Buffer.concat(tail));
  assert.is(log.logEndOffset, 103);
  assert.is(partitionLeaderEpoch(Buffer.concat(tail), 0), 5);
  await log.close();
  const again = await open(fs, clock, '/l/r-0');
  assert.equal([again.logStartOffset, again.logEndOffset], [100, 103]);
  await again.close();
  await leader.close();
});

test.run();
