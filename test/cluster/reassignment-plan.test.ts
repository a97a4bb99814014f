/**
 * Plans for adding and decommissioning a broker (src/cluster/reassignment-plan.ts): few moves,
 * balanced counts, racks kept apart, in-place replacement, impossible plans refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PlanError, planAddBroker, planDecommission, type PlanPartition } from '../../src/cluster/reassignment-plan.js';

const three = [{ nodeId: 1, rack: null }, { nodeId: 2, rack: null }, { nodeId: 3, rack: null }];
function topic(name: string, lists: number[][]): PlanPartition[] {
  return lists.map((replicas, partition) => ({ topic: name, partition, replicas }));
}
function countOn(parts: PlanPartition[], moves: { topic: string; partition: number; to: number[] }[]): Map<number, number> {
  const after = new Map(parts.map((p) => [`${p.topic}-${p.partition}`, p.replicas]));
  for (const m of moves) after.set(`${m.topic}-${m.partition}`, m.to);
  const n = new Map<number, number>();
  for (const r of after.values()) for (const id of r) n.set(id, (n.get(id) ?? 0) + 1);
  return n;
}

test('decommission: every replica leaves, replaced in place by the least loaded broker without the partition', () => {
  const parts = topic('t', [[1, 2], [2, 3], [3, 1], [1, 3]]);
  const moves = planDecommission(parts, three, 1);
  assert.equal(moves.map((m) => [m.partition, m.to]), [[0, [3, 2]], [2, [3, 2]], [3, [2, 3]]]);
  assert.not.ok(countOn(parts, moves).has(1));
  assert.throws(() => planDecommission(topic('rf3', [[1, 2, 3]]), three, 1), (e: Error) => e instanceof PlanError && /cannot hold them all/.test(e.message));
  assert.throws(() => planDecommission(parts, three, 9), (e: Error) => e instanceof PlanError);
});

test('decommission keeps racks apart when it can', () => {
  const racks = [{ nodeId: 1, rack: 'a' }, { nodeId: 2, rack: 'b' }, { nodeId: 3, rack: 'a' }, { nodeId: 4, rack: 'b' }];
  // Partition on [1(a), 2(b)]: broker 4 (rack b) would put both copies in rack b; 3 (rack a) does not.
  const moves = planDecommission(topic('r', [[1, 2], [4, 3]]), racks, 1);
  assert.equal(moves.map((m) => m.to), [[3, 2]]);
});

test('add a broker: it takes its share from the most loaded brokers, one replica per partition moved', () => {
  const four = [...three, { nodeId: 4, rack: null }];
  const parts = topic('t', [[1, 2], [2, 3], [3, 1], [1, 2], [2, 3], [3, 1]]);
  const moves = planAddBroker(parts, four, 4);
  assert.is(moves.length, 3, '12 replicas over 4 brokers: 3 for the new one');
  const n = countOn(parts, moves);
  assert.equal([1, 2, 3, 4].map((id) => n.get(id)), [3, 3, 3, 3]);
  for (const m of moves) assert.is(m.from.filter((id, i) => m.to[i] !== id).length, 1, 'one replica per move');
  assert.equal(planAddBroker(parts, three, 3), [], 'already balanced');
  assert.throws(() => planAddBroker(parts, three, 9), (e: Error) => e instanceof PlanError);
});

test('add a broker in a new rack spreads partitions over racks', () => {
  const racks = [{ nodeId: 1, rack: 'a' }, { nodeId: 2, rack: 'a' }, { nodeId: 3, rack: 'b' }];
  const parts = topic('t', [[1, 2], [1, 2]]);
  const moves = planAddBroker(parts, racks, 3);
  assert.is(moves.length, 1);
  assert.ok(moves[0].to.includes(3));
});

test.run();
