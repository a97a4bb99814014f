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

test.run();
