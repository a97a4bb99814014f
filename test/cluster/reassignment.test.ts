/**
 * The partition-state changes of a reassignment (src/cluster/reassignment.ts), as Kafka's
 * controller makes them: the merged replica list with adding/removing replicas, completion only
 * once every target replica is in the ISR, leader hand-over and epoch bumps, and cancellation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import type { PartitionState } from '../../src/cluster/metadata-store.js';
import { cancelReassignment, completedReassignment, isReassigning, startReassignment, targetReplicas } from '../../src/cluster/reassignment.js';
import type { ElrSettings } from '../../src/cluster/partition-change.js';

const alive = () => true;
const base: PartitionState = { topicId: 't', partition: 0, replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1, leaderEpoch: 4, partitionEpoch: 9 };

function code(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    if (e instanceof KafkaApiError) return e.errorCode;
    throw e;
  }
  return ErrorCode.NONE;
}

test('a move to new brokers: the target first, then the replicas removed; nothing leaves before the new ones are in sync', () => {
  const s = startReassignment(base, [4, 5, 1], alive)!;
  assert.equal(s.replicas, [4, 5, 1, 2, 3]);
  assert.equal(s.addingReplicas, [4, 5]);
  assert.equal(s.removingReplicas, [2, 3]);
  assert.equal(s.isr, [1, 2, 3], 'the ISR keeps every old replica');
  assert.is(s.leader, 1);
  assert.is(s.leaderEpoch, 4, 'no replica left: same leader epoch');
  assert.is(s.partitionEpoch, 10);
  assert.ok(isReassigning(s));
  assert.equal(targetReplicas(s), [4, 5, 1]);
  // One new replica in sync is not enough.
  assert.is(completedReassignment({ ...s, isr: [1, 2, 3, 4] }, alive), null);
  // Both in sync: the old ones leave, the preferred replica of the target (4) takes over.
  const done = completedReassignment({ ...s, isr: [4, 5, 1, 2, 3], partitionEpoch: 12 }, alive)!;
  assert.equal(done.replicas, [4, 5, 1]);
  assert.equal(done.isr, [4, 5, 1]);
  assert.is(done.leader, 4);
  assert.is(done.leaderEpoch, 5);
  assert.is(done.partitionEpoch, 13);
  assert.is(done.addingReplicas, undefined);
  assert.is(done.removingReplicas, undefined);
  assert.not.ok(isReassigning(done));
});

test('the preferred target replica leads at completion only when alive and in sync; a removed leader hands over', () => {
  const s = startReassignment(base, [4, 2], alive)!;
  assert.equal(s.replicas, [4, 2, 1, 3]);
  const dead4 = (id: number) => id !== 4;
  const done = completedReassignment({ ...s, isr: [4, 2, 1, 3] }, dead4)!;
  assert.is(done.leader, 2, 'leader 1 is removed and 4 is dead: the first usable target replica');
  assert.is(completedReassignment(base, alive), null, 'no move, nothing to complete');
});

test('a reordering or a shrink within the ISR completes in one change', () => {
  const reorder = startReassignment(base, [3, 1, 2], alive)!;
  assert.equal(reorder.replicas, [3, 1, 2]);
  assert.not.ok(isReassigning(reorder));
  assert.is(reorder.leader, 3, 'the new preferred replica is in sync');
  assert.is(reorder.leaderEpoch, 5);
  const shrink = startReassignment(base, [1, 2], alive)!;
  assert.equal([shrink.replicas, shrink.isr, shrink.leader, shrink.leaderEpoch], [[1, 2], [1, 2], 1, 5], 'a replica left: leader epoch bumped');
  assert.is(startReassignment(base, [1, 2, 3], alive), null, 'the same list: no change');
});

test('a target replica outside the ISR waits; the ISR never loses its last member to a move', () => {
  const lagging: PartitionState = { ...base, isr: [1] };
  const s = startReassignment(lagging, [2, 3], alive)!;
  assert.ok(isReassigning(s));
  assert.equal([s.replicas, s.isr, s.leader], [[2, 3, 1], [1], 1]);
  assert.equal(s.removingReplicas, [1]);
  assert.equal(s.addingReplicas, undefined, 'nothing new to add: 2 and 3 were replicas');
  assert.is(completedReassignment({ ...s, isr: [1, 2] }, alive), null);
  const done = completedReassignment({ ...s, isr: [1, 2, 3] }, alive)!;
  assert.equal([done.replicas, done.isr, done.leader], [[2, 3], [2, 3], 2]);
});

test('cancel: the original replicas come back; without a move NO_REASSIGNMENT_IN_PROGRESS; an unclean revert needs the topic setting', () => {
  assert.is(code(() => cancelReassignment(base, 't:0', alive, false)), ErrorCode.NO_REASSIGNMENT_IN_PROGRESS);
  const s = startReassignment(base, [4, 5, 1], alive)!;
  const back = cancelReassignment({ ...s, isr: [1, 2, 3, 4] }, 't:0', alive, false)!;
  assert.equal([back.replicas, back.isr, back.leader], [[1, 2, 3], [1, 2, 3], 1]);
  assert.not.ok(isReassigning(back));
  assert.is(back.leaderEpoch, 5, 'replicas 4 and 5 left');
  // The ISR is only new replicas (the old ones fell out): reverting would be unclean.
  const onlyNew: PartitionState = { ...s, isr: [4], leader: 4, leaderEpoch: 6 };
  assert.is(code(() => cancelReassignment(onlyNew, 't:0', alive, false)), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  const unclean = cancelReassignment(onlyNew, 't:0', alive, true)!;
  assert.equal([unclean.replicas, unclean.isr, unclean.leader], [[1, 2, 3], [1], 1]);
  assert.is(code(() => cancelReassignment(onlyNew, 't:0', () => false, true)), ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'no live original replica');
});

// Eligible leader replicas (KIP-966) through the steps of a move, as Kafka's PartitionChangeBuilder
// computes them for a reassignment: min.insync.replicas 2, the ISR down to the leader.
const ELR: ElrSettings = { enabled: true, minIsr: 2 };
const shrunk: PartitionState = { ...base, isr: [1], elr: [2, 3] };

test('ELR: a move started while the ISR is below min.insync.replicas keeps the ELR members that stay replicas', () => {
  const s = startReassignment(shrunk, [1, 2, 4], alive, ELR)!;
  assert.equal(s.replicas, [1, 2, 4, 3]);
  assert.equal(s.isr, [1]);
  assert.equal(s.elr, [2, 3], 'the ELR survives the start (3 is still a replica while it is being removed)');
  // Without the feature the state carries no ELR.
  assert.is(startReassignment(shrunk, [1, 2, 4], alive)!.elr, undefined);
});

test('ELR: completion drops removed replicas from the ELR, and an ISR back at min.insync.replicas clears it', () => {
  const moving = startReassignment({ ...base, isr: [1, 4], elr: [2] }, [1, 4], alive, ELR);
  // ISR [1, 4] holds the whole target at once: completed in one change, the ISR at min ISR.
  assert.equal(moving!.replicas, [1, 4]);
  assert.is(moving!.elr, undefined, 'ISR at min.insync.replicas: no ELR');
  const started = startReassignment(shrunk, [1, 4], alive, ELR)!;
  assert.equal(started.elr, [2, 3]);
  // A single-replica target completes with ISR [1] (below min ISR 2): the removed 2 and 3 leave the ELR.
  const single = startReassignment(shrunk, [1], alive, ELR)!;
  assert.equal(single.replicas, [1]);
  assert.is(single.elr, undefined, 'the ELR names only replicas of the partition');
  const done = completedReassignment({ ...started, isr: [1, 4] }, alive, ELR)!;
  assert.equal(done.replicas, [1, 4]);
  assert.is(done.elr, undefined);
  assert.is(done.lastKnownElr, undefined);
});

test('ELR: the last known ELR stays only while the partition has no leader; an unclean revert keeps no ELR', () => {
  const leaderless: PartitionState = { ...base, isr: [], leader: -1, elr: [], lastKnownElr: [2] };
  delete leaderless.elr;
  const s = startReassignment(leaderless, [2, 3, 4], () => false, ELR)!;
  assert.is(s.leader, -1);
  assert.equal(s.lastKnownElr, [2], 'no leader after the step: the last known leader is remembered');
  const withLeader = startReassignment({ ...base, isr: [2], leader: 2, elr: [1], lastKnownElr: [3] }, [2, 3, 4], alive, ELR)!;
  assert.is(withLeader.lastKnownElr, undefined, 'a leader: the last known ELR is cleared');
  assert.equal(withLeader.elr, [1], '1 is being removed, but it is a replica until the move completes');
  const moving: PartitionState = { ...base, replicas: [4, 5, 1, 2, 3], isr: [4], leader: 4, addingReplicas: [4, 5], removingReplicas: [2, 3], elr: [1] };
  const reverted = cancelReassignment({ ...moving, isr: [4] }, 't:0', alive, true, ELR)!;
  assert.equal(reverted.replicas, [1, 2, 3]);
  assert.is(reverted.elr, undefined, 'an unclean revert: no ELR');
});

test.run();
