/**
 * Pure parts of the cluster metadata layer: rack-aware placement, manual assignment checks, and
 * the controller's partition change on broker loss (no etcd).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { checkManualAssignment, placeReplicas, rackAlternatedList } from '../../src/cluster/replica-placement.js';
import { brokerLossChange, validateAlterPartition } from '../../src/cluster/partition-state.js';
import { NO_LEADER, type PartitionState } from '../../src/cluster/metadata-store.js';

const racks3x2 = [
  { nodeId: 1, rack: 'a' }, { nodeId: 2, rack: 'a' },
  { nodeId: 3, rack: 'b' }, { nodeId: 4, rack: 'b' },
  { nodeId: 5, rack: 'c' }, { nodeId: 6, rack: 'c' },
];
const rackOf = (id: number) => racks3x2.find((b) => b.nodeId === id)?.rack;

function codeOf(fn: () => unknown): number | null {
  try {
    fn();
    return null;
  } catch (e) {
    return e instanceof KafkaApiError ? e.errorCode : -999;
  }
}

test('rack-alternated list takes one broker of each rack in turn', () => {
  assert.equal(rackAlternatedList([...racks3x2].reverse()).map((b) => b.nodeId), [1, 3, 5, 2, 4, 6]);
  assert.equal(rackAlternatedList([{ nodeId: 9, rack: null }, { nodeId: 1, rack: 'x' }, { nodeId: 2, rack: null }]).map((b) => b.nodeId), [2, 1, 9]);
});

test('rack-aware placement: every partition spans all racks, leaders cycle over every broker', () => {
  for (const start of [0, 1, 4]) {
    const lists = placeReplicas(racks3x2, 12, 3, { start });
    for (const r of lists) {
      assert.is(new Set(r).size, 3, `distinct replicas ${r}`);
      assert.is(new Set(r.map(rackOf)).size, 3, `three racks in ${r}`);
    }
    const leaders = lists.map((r) => r[0]);
    for (const b of racks3x2) assert.is(leaders.filter((l) => l === b.nodeId).length, 2, `broker ${b.nodeId} leads 2 of 12 (start ${start})`);
    // Consecutive partitions are led from different racks.
    for (let i = 1; i < leaders.length; i++) assert.is.not(rackOf(leaders[i]), rackOf(leaders[i - 1]));
  }
});

test('rack-aware placement: more replicas than racks spreads evenly', () => {
  const lists = placeReplicas(racks3x2, 6, 5, { start: 2 });
  for (const r of lists) {
    const perRack = ['a', 'b', 'c'].map((k) => r.filter((id) => rackOf(id) === k).length).sort();
    assert.equal(perRack, [1, 2, 2], `replicas ${r}`);
  }
  // Followers are not always the same pairs: the follower after each leader varies across cycles.
  const second = placeReplicas(racks3x2, 12, 2, { start: 0 }).map((r) => `${r[0]}>${r[1]}`);
  assert.ok(new Set(second).size > 6, `varied pairs ${second}`);
});

test('placement refuses a replication factor above the broker count', () => {
  assert.is(codeOf(() => placeReplicas(racks3x2, 1, 7)), ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.is(codeOf(() => placeReplicas(racks3x2, 1, 0)), ErrorCode.INVALID_REPLICATION_FACTOR);
  assert.is(codeOf(() => placeReplicas(racks3x2, 1, 6)), null);
});

test('manual assignment: unknown broker, repeats, empty lists and uneven lengths are INVALID_REPLICA_ASSIGNMENT', () => {
  const known = (id: number) => id >= 1 && id <= 3;
  assert.is(codeOf(() => checkManualAssignment([[1, 2], [2, 3]], known)), null);
  assert.is(codeOf(() => checkManualAssignment([[1, 99]], known)), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(codeOf(() => checkManualAssignment([[1, 1]], known)), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(codeOf(() => checkManualAssignment([[]], known)), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(codeOf(() => checkManualAssignment([[1, 2], [3]], known)), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  assert.is(codeOf(() => checkManualAssignment([[1]], known, 2)), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
  try {
    checkManualAssignment([[1, 99]], known);
  } catch (e) {
    assert.match((e as Error).message, 'broker 99, but no such broker is registered');
  }
});

const base: PartitionState = { topicId: 't', partition: 0, replicas: [1, 2, 3], isr: [1, 2, 3], leader: 1, leaderEpoch: 4, partitionEpoch: 9 };
const alive = (...ids: number[]) => (id: number) => ids.includes(id);

test('broker loss: a dead leader is replaced by the first live ISR member, epochs bumped once', () => {
  const next = brokerLossChange(base, { isAlive: alive(2, 3), unclean: false });
  assert.equal(next, { ...base, isr: [2, 3], leader: 2, leaderEpoch: 5, partitionEpoch: 10 });
});

test('broker loss: a dead follower leaves the ISR, the leader epoch stays', () => {
  assert.equal(brokerLossChange(base, { isAlive: alive(1, 3), unclean: false }), { ...base, isr: [1, 3], partitionEpoch: 10 });
  assert.is(brokerLossChange(base, { isAlive: alive(1, 2, 3), unclean: false }), null);
});

test('broker loss: never a leader from outside the ISR unless unclean election is enabled', () => {
  const lone = { ...base, isr: [1] };
  assert.equal(brokerLossChange(lone, { isAlive: alive(2, 3), unclean: false }), { ...lone, leader: NO_LEADER, leaderEpoch: 5, partitionEpoch: 10 });
  assert.equal(brokerLossChange(lone, { isAlive: alive(2, 3), unclean: true }), { ...lone, isr: [2], leader: 2, leaderEpoch: 5, partitionEpoch: 10 });
  // The last ISR member coming back leads again (clean).
  const offline = { ...lone, leader: NO_LEADER, leaderEpoch: 5, partitionEpoch: 10 };
  assert.equal(brokerLossChange(offline, { isAlive: alive(1, 2), unclean: false }), { ...offline, leader: 1, leaderEpoch: 6, partitionEpoch: 11 });
});

test('AlterPartition validation follows Kafka: leader epoch, leadership, partition epoch, ISR shape, eligibility', () => {
  const req = { brokerId: 1, brokerEpoch: 7, leaderEpoch: 4, partitionEpoch: 9, newIsr: [1, 2] };
  const all = alive(1, 2, 3);
  assert.is(validateAlterPartition(base, req, all), ErrorCode.NONE);
  assert.is(validateAlterPartition(base, { ...req, leaderEpoch: 3 }, all), ErrorCode.FENCED_LEADER_EPOCH);
  assert.is(validateAlterPartition(base, { ...req, brokerId: 2 }, all), ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.is(validateAlterPartition(base, { ...req, partitionEpoch: 8 }, all), ErrorCode.INVALID_UPDATE_VERSION);
  assert.is(validateAlterPartition(base, { ...req, newIsr: [2, 3] }, all), ErrorCode.INVALID_REQUEST);
  assert.is(validateAlterPartition(base, { ...req, newIsr: [1, 4] }, all), ErrorCode.INVALID_REQUEST);
  const shrunk = { ...base, isr: [1] };
  assert.is(validateAlterPartition(shrunk, { ...req, newIsr: [1, 3] }, alive(1, 2)), ErrorCode.INELIGIBLE_REPLICA);
});

test.run();
