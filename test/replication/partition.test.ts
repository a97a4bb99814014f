/**
 * The leader side of a Partition with a manual clock and a fake AlterPartition: the high
 * watermark is the smallest log end offset in the ISR, acks=all waits resolve when it passes
 * (NOT_ENOUGH_REPLICAS_AFTER_APPEND below min.insync.replicas, REQUEST_TIMED_OUT, and
 * NOT_LEADER_OR_FOLLOWER when leadership goes), followers that stop catching up leave the ISR
 * after replica.lag.time.max.ms and come back once they reach the high watermark; KIP-903 broker
 * epochs on follower fetches; DeleteRecords waiting for the low watermark; after a restart a
 * follower starts from the checkpointed high watermark (replication-offset-checkpoint).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { Partition } from '../../src/replication/partition.js';
import type { AlterPartitionOutcome, PartitionState } from '../../src/cluster/metadata-store.js';
import { batch, config } from '../storage/helpers.js';

const LAG_MS = 10_000;

async function setup(isr = [1, 2, 3], brokerEpochs: Record<number, number> = {}, gate: Promise<void> | null = null) {
  const clock = new ManualClock();
  const fs = new MemFs({ now: () => clock.now() });
  const log = await PartitionLog.open({ fs, dir: '/d/t-0', topic: 't', partition: 0, config: config(), clock });
  const alters: number[][] = [];
  const alive = new Set([1, 2, 3]);
  let refuse = false;
  const p = new Partition('t', 0, 'tid', log, 1, {
    clock, logger: createLogger('silent'), replicaLagTimeMaxMs: LAG_MS, isAlive: (id) => alive.has(id),
    brokerEpochOf: (id) => brokerEpochs[id],
    alterIsr: async (known: PartitionState, newIsr: number[]): Promise<AlterPartitionOutcome> => {
      alters.push(newIsr);
      if (gate) await gate;
      if (refuse) return { ok: false, error: ErrorCode.INVALID_UPDATE_VERSION, current: known };
      return { ok: true, state: { ...known, isr: known.replicas.filter((id) => newIsr.includes(id)), partitionEpoch: known.partitionEpoch + 1 } };
    },
  });
  p.minInsyncReplicas = 2;
  assert.is(p.apply({ topicId: 'tid', partition: 0, replicas: [1, 2, 3], isr, leader: 1, leaderEpoch: 4, partitionEpoch: 7 }), 'leader');
  await p.makeLeader();
  return { clock, log, p, alters, alive, refuse: (v: boolean) => { refuse = v; } };
}

const settle = () => new Promise((r) => setImmediate(r));

test('HW = smallest log end in the ISR; acks=all waits resolve when it passes', async () => {
  const { clock, log, p } = await setup();
  await log.appendAsLeader(batch(5), p.leaderEpoch);
  assert.is(log.highWatermark, 0, 'followers have nothing yet');
  const ack = p.waitForReplication(5, 30_000);
  let code: number | null = null;
  void ack.then((c) => { code = c; });
  p.updateFollowerFetchState(2, 5, log.logEndOffset, clock.now());
  assert.is(log.highWatermark, 0, 'follower 3 not heard from: the HW stays');
  p.updateFollowerFetchState(3, 3, log.logEndOffset, clock.now());
  assert.is(log.highWatermark, 3);
  await settle();
  assert.is(code, null);
  p.updateFollowerFetchState(3, 5, log.logEndOffset, clock.now());
  assert.is(log.highWatermark, 5);
  assert.is(await ack, ErrorCode.NONE);
  assert.equal(log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]), [[4, 0]], 'the new epoch starts at the log end');
});

test('acks=all times out, and fails with NOT_LEADER_OR_FOLLOWER when leadership moves', async () => {
  const { clock, log, p } = await setup();
  await log.appendAsLeader(batch(1), p.leaderEpoch);
  const late = p.waitForReplication(1, 1000);
  clock.advance(1001);
  assert.is(await late, ErrorCode.REQUEST_TIMED_OUT);
  const moved = p.waitForReplication(1, 30_000);
  assert.is(p.apply({ topicId: 'tid', partition: 0, replicas: [1, 2, 3], isr: [2, 3], leader: 2, leaderEpoch: 5, partitionEpoch: 8 }), 'follower');
  p.makeFollower();
  assert.is(await moved, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.not.ok(p.isLeader);
});

test('a lagging follower leaves the ISR after replica.lag.time.max.ms; the HW then moves; it rejoins when caught up', async () => {
  const { clock, log, p, alters } = await setup();
  await log.appendAsLeader(batch(4), p.leaderEpoch);
  const ack = p.waitForReplication(4, 60_000);
  clock.advance(LAG_MS / 2);
  p.updateFollowerFetchState(2, 4, log.logEndOffset, clock.now());
  p.maybeShrinkIsr();
  assert.equal(alters, [], 'not yet lagging for long enough');
  clock.advance(LAG_MS / 2 + 1);
  p.maybeShrinkIsr();
  await settle();
  assert.equal(alters, [[1, 2]], 'follower 3 dropped; 2 caught up recently');
  assert.equal(p.isr, [1, 2]);
  assert.is(log.highWatermark, 4, 'the HW no longer waits for 3');
  assert.is(await ack, ErrorCode.NONE, 'two in sync: min.insync.replicas met');
  // Follower 3 catches up to the HW: back in.
  p.updateFollowerFetchState(3, 2, log.logEndOffset, clock.now());
  await settle();
  assert.equal(alters.length, 1, 'below the HW: not yet');
  p.updateFollowerFetchState(3, 4, log.logEndOffset, clock.now());
  await settle();
  assert.equal(alters[1], [1, 2, 3]);
  assert.equal(p.isr, [1, 2, 3]);
});

test('KIP-903: a fetch carrying an older broker epoch is refused; only the registered incarnation rejoins the ISR', async () => {
  const { clock, log, p, alters } = await setup([1, 2], { 3: 20 });
  await log.appendAsLeader(batch(2), p.leaderEpoch);
  p.updateFollowerFetchState(2, 2, log.logEndOffset, clock.now(), 0, 11);
  assert.is(p.updateFollowerFetchState(2, 1, log.logEndOffset, clock.now(), 0, 10), ErrorCode.NOT_LEADER_OR_FOLLOWER, 'an earlier incarnation');
  assert.is(p.followerState(2)!.logEndOffset, 2, 'its state did not move back');
  // Broker 3 is registered at epoch 20: fetches of its epoch-19 process do not bring it in.
  p.updateFollowerFetchState(3, 2, log.logEndOffset, clock.now(), 0, 19);
  await settle();
  assert.equal(alters, [], 'not the registered incarnation');
  p.updateFollowerFetchState(3, 2, log.logEndOffset, clock.now(), 0, 20);
  await settle();
  assert.equal(alters, [[1, 2, 3]]);
});

test('while a follower is being added to the ISR, the high watermark waits for it too (maximal ISR, KIP-497)', async () => {
  let open!: () => void;
  const gate = new Promise<void>((r) => { open = r; });
  const { clock, log, p, alters } = await setup([1, 2], {}, gate);
  await log.appendAsLeader(batch(2), p.leaderEpoch);
  p.updateFollowerFetchState(2, 2, log.logEndOffset, clock.now());
  assert.is(log.highWatermark, 2);
  // Follower 3 reaches the HW: the leader asks to add it (the change is in flight, held by the gate).
  p.updateFollowerFetchState(3, 2, log.logEndOffset, clock.now());
  await settle();
  assert.equal(alters, [[1, 2, 3]]);
  // A record the old ISR [1, 2] has: not acknowledged while 3 lacks it.
  await log.appendAsLeader(batch(1), p.leaderEpoch);
  const ack = p.waitForReplication(3, 30_000);
  let code: number | null = null;
  void ack.then((c) => { code = c; });
  p.updateFollowerFetchState(2, 3, log.logEndOffset, clock.now());
  await settle();
  assert.is(log.highWatermark, 2, 'follower 3 (being added) holds the HW');
  assert.is(code, null);
  open();
  await settle();
  assert.equal(p.isr, [1, 2, 3]);
  p.updateFollowerFetchState(3, 3, log.logEndOffset, clock.now());
  assert.is(log.highWatermark, 3);
  assert.is(await ack, ErrorCode.NONE);
});

test('DeleteRecords waits for the low watermark: every live follower\'s log start; a dead one does not hold it; timeout and leadership loss', async () => {
  const { clock, log, p, alive } = await setup();
  await log.appendAsLeader(batch(6), p.leaderEpoch);
  p.updateFollowerFetchState(2, 6, log.logEndOffset, clock.now(), 0);
  p.updateFollowerFetchState(3, 6, log.logEndOffset, clock.now(), 0);
  assert.is(await log.deleteRecordsBefore(4), 4);
  assert.is(p.lowWatermark, 0);
  let done: unknown = null;
  const wait = p.waitForLowWatermark(4, 30_000).then((r) => { done = r; return r; });
  p.updateFollowerFetchState(2, 6, log.logEndOffset, clock.now(), 4);
  await settle();
  assert.is(done, null, 'follower 3 still starts at 0');
  alive.delete(3);
  p.updateFollowerFetchState(2, 6, log.logEndOffset, clock.now(), 5);
  assert.equal(await wait, { errorCode: ErrorCode.NONE, lowWatermark: 4 }, 'a dead broker does not count');
  alive.add(3);
  const late = p.waitForLowWatermark(4, 1000);
  clock.advance(1001);
  assert.equal(await late, { errorCode: ErrorCode.REQUEST_TIMED_OUT, lowWatermark: 4 });
  const moved = p.waitForLowWatermark(4, 30_000);
  p.apply({ topicId: 'tid', partition: 0, replicas: [1, 2, 3], isr: [2, 3], leader: 2, leaderEpoch: 5, partitionEpoch: 8 });
  p.makeFollower();
  assert.equal(await moved, { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, lowWatermark: -1 });
});

test('below min.insync.replicas the HW stays (Kafka 4.4, KIP-966): acks=all waits time out or answer NOT_ENOUGH_REPLICAS_AFTER_APPEND; with the ISR back at min ISR it moves; alone with min ISR 1 it follows the log end', async () => {
  const { clock, log, p } = await setup([1, 2]);
  await log.appendAsLeader(batch(2), p.leaderEpoch);
  p.updateFollowerFetchState(2, 1, log.logEndOffset, clock.now());
  assert.is(log.highWatermark, 1);
  const ack = p.waitForReplication(2, 60_000);
  clock.advance(LAG_MS + 1);
  p.maybeShrinkIsr();
  await settle();
  assert.equal(p.isr, [1]);
  assert.ok(p.underMinIsr);
  assert.is(log.highWatermark, 1, 'under min ISR: the HW stays although the leader alone has everything');
  await log.appendAsLeader(batch(1), p.leaderEpoch);
  assert.is(log.highWatermark, 1, 'appends do not move it either');
  assert.is(await p.waitForReplication(1, 1000), ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, 'covered by the HW, but the ISR is too small now');
  clock.advance(60_000);
  assert.is(await ack, ErrorCode.REQUEST_TIMED_OUT, 'never covered while under min ISR');
  p.updateFollowerFetchState(2, 3, log.logEndOffset, clock.now());
  await settle();
  assert.equal(p.isr, [1, 2], 'the follower caught up and rejoined');
  assert.is(log.highWatermark, 3, 'min ISR met: the HW moves');
  p.minInsyncReplicas = 1;
  clock.advance(LAG_MS + 1);
  p.maybeShrinkIsr();
  await settle();
  assert.equal(p.isr, [1]);
  await log.appendAsLeader(batch(1), p.leaderEpoch);
  assert.is(log.highWatermark, 4, 'alone with min ISR 1: the HW follows every append');
});

test('a refused ISR change (the controller moved on) changes nothing here', async () => {
  const { clock, p, alters, refuse } = await setup();
  refuse(true);
  clock.advance(LAG_MS + 1);
  p.maybeShrinkIsr();
  await settle();
  assert.equal(alters, [[1]]);
  assert.equal(p.isr, [1, 2, 3], 'a deposed leader cannot shrink the ISR to acknowledge alone');
});

test('after a restart the high watermark starts from replication-offset-checkpoint: a follower (or an eligible leader replica elected later) keeps what was committed, not the loaded log end or its start', async () => {
  const clock = new ManualClock(1_000_000);
  const fs = new MemFs({ now: () => clock.now() });
  const open = () => LogManager.open({ fs, logDirs: '/kafka-logs', clock, defaults: config() });
  const mgr = await open();
  await mgr.loadAll();
  const log = await mgr.createLog('t', 0);
  log.setHighWatermarkFollowsLogEnd(false); // a leader with followers: replication moves the HW
  await log.appendAsLeader(batch(10), 0);
  log.updateHighWatermark(6); // the ISR has 6
  await mgr.checkpointHighWatermarks();
  await log.flush();
  fs.crash(); // no clean stop: the loaded log ends at 10, of which 6 were committed

  const again = await open();
  const [reloaded] = await again.loadAll();
  assert.is(reloaded.logEndOffset, 10);
  assert.is(reloaded.checkpointedHighWatermark, 6);
  assert.is(reloaded.highWatermarkToCheckpoint, 6, 'before a role sets it, the checkpoint keeps the committed HW, not the loaded end');
  const p = new Partition('t', 0, 'tid', reloaded, 2, {
    clock, logger: createLogger('silent'), replicaLagTimeMaxMs: LAG_MS, isAlive: () => true, brokerEpochOf: () => undefined,
    alterIsr: async (known: PartitionState): Promise<AlterPartitionOutcome> => ({ ok: true, state: known }),
  });
  assert.is(p.apply({ topicId: 'tid', partition: 0, replicas: [1, 2, 3], isr: [1, 2], leader: 1, leaderEpoch: 5, partitionEpoch: 8 }), 'follower');
  p.makeFollower();
  assert.is(reloaded.highWatermark, 6, 'a follower serves (KIP-392) and an elected ELR member leads from the committed HW');
  assert.is(reloaded.highWatermarkToCheckpoint, 6);
  await again.close();
});

test.run();
