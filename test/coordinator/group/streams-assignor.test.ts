/**
 * The streams task assignor (assignor/streams-sticky.ts, Kafka 4.4.0's StickyTaskAssignor):
 * balance, stickiness, standby candidates ranked by reported offsets, standbys of stateful tasks
 * only and on other processes. streams-assignor-kafka.test.ts compares whole placements with
 * Kafka's own assignor.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assignStreamsTasks, type StreamsAssignorMember, type StreamsSubtopologySpec } from '../../../src/coordinator/group/assignor/streams-sticky.js';

type Tasks = Map<string, Set<number>>;
const tasksOf = (ids: string[]): Tasks => {
  const m: Tasks = new Map();
  for (const id of ids) {
    const [s, p] = id.split('_');
    if (!m.has(s)) m.set(s, new Set());
    m.get(s)!.add(Number(p));
  }
  return m;
};
const names = (t: Tasks) => [...t].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`)).sort();
const offsetsOf = (o: Record<string, number>) => {
  const m = new Map<string, Map<number, bigint>>();
  for (const [id, off] of Object.entries(o)) {
    const [s, p] = id.split('_');
    if (!m.has(s)) m.set(s, new Map());
    m.get(s)!.set(Number(p), BigInt(off));
  }
  return m;
};
const member = (processId: string, active: string[] = [], standby: string[] = [], offsets: Record<string, number> = {}): StreamsAssignorMember => (
  { processId, active: tasksOf(active), standby: tasksOf(standby), taskOffsets: offsetsOf(offsets) });
const stateful = (tasks: number): StreamsSubtopologySpec => ({ tasks, stateful: true });
const stateless = (tasks: number): StreamsSubtopologySpec => ({ tasks, stateful: false });
const assign = (members: [string, StreamsAssignorMember][], subtopologies: [string, StreamsSubtopologySpec][], numStandbyReplicas = 0) =>
  assignStreamsTasks({ members: new Map(members), subtopologies: new Map(subtopologies), numStandbyReplicas });
const activeOwner = (out: Map<string, { active: Tasks }>, task: string) => [...out].filter(([, t]) => names(t.active).includes(task)).map(([id]) => id);

test('active tasks are balanced: ceil(tasks / members) each at most, every task once', () => {
  const out = assign([['a', member('p1')], ['b', member('p2')], ['c', member('p3')]], [['0', stateless(4)], ['1', stateless(3)]]);
  const loads = [...out.values()].map((t) => names(t.active).length).sort();
  assert.equal(loads, [2, 2, 3]);
  assert.is(new Set([...out.values()].flatMap((t) => names(t.active))).size, 7);
});

test('sticky: members keep their tasks up to their quota and a new member takes the rest', () => {
  const before = { a: ['0_0', '0_1', '0_2'], b: ['0_3', '0_4', '0_5'] };
  const out = assign([['a', member('p1', before.a)], ['b', member('p2', before.b)], ['c', member('p3')]], [['0', stateless(6)]]);
  const a = names(out.get('a')!.active);
  const b = names(out.get('b')!.active);
  assert.is(a.length, 2);
  assert.is(b.length, 2);
  assert.ok(a.every((t) => before.a.includes(t)), `a kept its own: ${a}`);
  assert.ok(b.every((t) => before.b.includes(t)), `b kept its own: ${b}`);
  assert.is(names(out.get('c')!.active).length, 2);
});

test('an orphaned task goes to its standby with the largest reported offset sum', () => {
  const out = assign([
    ['b', member('p2', [], ['0_0'], { '0_0': 10 })],
    ['c', member('p3', [], ['0_0'], { '0_0': 50 })],
    ['d', member('p4')],
  ], [['0', stateful(1)]]);
  assert.equal(activeOwner(out, '0_0'), ['c'], 'the most caught-up standby');
});

test('a current standby ranks before a member known only by its reported offsets, however caught up', () => {
  const out = assign([
    ['b', member('p2', [], ['0_0'], { '0_0': 5 })],
    ['c', member('p3', [], [], { '0_0': 1_000_000 })],
  ], [['0', stateful(1)]]);
  assert.equal(activeOwner(out, '0_0'), ['b']);
});

test('a member known only by its reported offsets (a restart with a new member id) gets its tasks back', () => {
  const out = assign([
    ['new-a', member('pa', [], [], { '0_0': 7, '0_1': 9 })],
    ['b', member('pb', ['0_2', '0_3'])],
  ], [['0', stateful(4)]]);
  assert.equal(names(out.get('new-a')!.active), ['0_0', '0_1']);
  assert.equal(names(out.get('b')!.active), ['0_2', '0_3']);
});

test('among offset-only candidates the larger offset sum wins', () => {
  const out = assign([
    ['x', member('px', [], [], { '0_0': 3 })],
    ['y', member('py', [], [], { '0_0': 30 })],
  ], [['0', stateful(1)]]);
  assert.equal(activeOwner(out, '0_0'), ['y']);
});

test('standbys: stateful tasks only, never in the active task\'s process, at most one copy per process', () => {
  const members: [string, StreamsAssignorMember][] = [['a1', member('p1')], ['a2', member('p1')], ['b1', member('p2')], ['c1', member('p3')]];
  const out = assign(members, [['0', stateful(3)], ['1', stateless(2)]], 2);
  const processOf = new Map(members.map(([id, m]) => [id, m.processId]));
  for (let p = 0; p < 3; p++) {
    const task = `0_${p}`;
    const active = activeOwner(out, task).map((id) => processOf.get(id));
    const standby = [...out].filter(([, t]) => names(t.standby).includes(task)).map(([id]) => processOf.get(id)!);
    assert.is(active.length, 1);
    assert.is(standby.length, 2, `${task}: two standbys`);
    assert.is(new Set([...active, ...standby]).size, 3, `${task}: three processes: ${active} ${standby}`);
  }
  assert.ok([...out.values()].every((t) => !t.standby.has('1')), 'no standby of a stateless task');
});

test('fewer standbys than asked when processes run out; none with one process', () => {
  const one = assign([['a', member('p')], ['b', member('p')]], [['0', stateful(2)]], 1);
  assert.ok([...one.values()].every((t) => t.standby.size === 0));
  const two = assign([['a', member('p1')], ['b', member('p2')]], [['0', stateful(2)]], 2);
  assert.equal([...two.values()].map((t) => names(t.standby).length), [1, 1]);
});

test('the previous active owner gets the standby of a task that moved away from it, before less loaded processes', () => {
  const out = assign([
    ['a', member('p1', ['0_0', '0_1', '0_2', '0_3'])],
    ['b', member('p2')],
    ['c', member('p3')],
  ], [['0', stateful(4)]], 1);
  assert.equal(names(out.get('a')!.active), ['0_0', '0_1'], 'a keeps its quota, ceil(4 / 3)');
  assert.equal(names(out.get('a')!.standby), ['0_3'], 'the first moved task (descending order) while a is under its total quota');
});

test('no members: nothing assigned; no tasks: empty assignments', () => {
  assert.is(assign([], [['0', stateful(2)]]).size, 0);
  const out = assign([['a', member('p')]], [], 1);
  assert.equal(names(out.get('a')!.active), []);
  assert.equal(names(out.get('a')!.warmup), [], 'Kafka 4.4 assigns no warm-up tasks');
});

test.run();
