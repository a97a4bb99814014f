/**
 * The streams task assignor (assignor/streams-sticky.ts): balance, stickiness, co-located
 * partitions of subtopologies, standby replicas on other processes only.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assignStreamsTasks, type StreamsAssignorMember } from '../../../src/coordinator/group/assignor/streams-sticky.js';

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
const member = (processId: string, active: string[] = [], standby: string[] = []): StreamsAssignorMember => ({ processId, active: tasksOf(active), standby: tasksOf(standby) });

test('active tasks are balanced, and a member holds the same partitions of every subtopology', () => {
  const out = assignStreamsTasks({ members: new Map([['a', member('p1')], ['b', member('p2')]]), tasks: new Map([['0', 4], ['1', 4]]), numStandbyReplicas: 0 });
  assert.equal(names(out.get('a')!.active), ['0_0', '0_2', '1_0', '1_2']);
  assert.equal(names(out.get('b')!.active), ['0_1', '0_3', '1_1', '1_3']);
  assert.equal(out.get('a')!.standby.size, 0);
});

test('uneven counts differ by at most one task', () => {
  const out = assignStreamsTasks({ members: new Map([['a', member('p')], ['b', member('p')], ['c', member('p')]]), tasks: new Map([['0', 4]]), numStandbyReplicas: 0 });
  const loads = [...out.values()].map((t) => names(t.active).length).sort();
  assert.equal(loads, [1, 1, 2]);
  assert.equal(new Set([...out.values()].flatMap((t) => names(t.active))).size, 4);
});

test('sticky: a new member takes only its share, the others keep what they had', () => {
  const all = ['0_0', '0_1', '0_2', '0_3', '0_4', '0_5'];
  const before = { a: ['0_0', '0_1', '0_2'], b: ['0_3', '0_4', '0_5'] };
  const out = assignStreamsTasks({
    members: new Map([['a', member('p1', before.a)], ['b', member('p2', before.b)], ['c', member('p3')]]), tasks: new Map([['0', 6]]), numStandbyReplicas: 0,
  });
  const a = names(out.get('a')!.active);
  const b = names(out.get('b')!.active);
  assert.is(a.length, 2);
  assert.is(b.length, 2);
  assert.ok(a.every((t) => before.a.includes(t)), `a kept its own: ${a}`);
  assert.ok(b.every((t) => before.b.includes(t)), `b kept its own: ${b}`);
  assert.equal([...a, ...b, ...names(out.get('c')!.active)].sort(), all);
});

test('a task goes to a member that held it as a standby', () => {
  const out = assignStreamsTasks({
    members: new Map([['a', member('p1', ['0_0'])], ['b', member('p2', [], ['0_1'])], ['c', member('p3')]]), tasks: new Map([['0', 3]]), numStandbyReplicas: 0,
  });
  assert.equal(names(out.get('a')!.active), ['0_0']);
  assert.equal(names(out.get('b')!.active), ['0_1']);
  assert.equal(names(out.get('c')!.active), ['0_2']);
});

test('standby replicas go to other processes, never beside the active task', () => {
  const members = new Map([['a1', member('p1')], ['a2', member('p1')], ['b1', member('p2')]]);
  const out = assignStreamsTasks({ members, tasks: new Map([['0', 3]]), numStandbyReplicas: 1 });
  for (let p = 0; p < 3; p++) {
    const activeOn = [...out].filter(([, t]) => t.active.get('0')?.has(p)).map(([id]) => members.get(id)!.processId);
    const standbyOn = [...out].filter(([, t]) => t.standby.get('0')?.has(p)).map(([id]) => members.get(id)!.processId);
    assert.is(activeOn.length, 1);
    assert.is(standbyOn.length, 1, `task 0_${p} has one standby`);
    assert.is.not(standbyOn[0], activeOn[0], `task 0_${p}: standby on another process`);
  }
});

test('no standby when there is only one process, and no more replicas than processes allow', () => {
  const one = assignStreamsTasks({ members: new Map([['a', member('p')], ['b', member('p')]]), tasks: new Map([['0', 2]]), numStandbyReplicas: 1 });
  assert.ok([...one.values()].every((t) => t.standby.size === 0));
  const two = assignStreamsTasks({ members: new Map([['a', member('p1')], ['b', member('p2')]]), tasks: new Map([['0', 2]]), numStandbyReplicas: 3 });
  assert.equal([...two.values()].map((t) => names(t.standby).length), [1, 1]);
});

test('no members: nothing assigned; no tasks: empty assignments', () => {
  assert.is(assignStreamsTasks({ members: new Map(), tasks: new Map([['0', 2]]), numStandbyReplicas: 0 }).size, 0);
  const out = assignStreamsTasks({ members: new Map([['a', member('p')]]), tasks: new Map(), numStandbyReplicas: 1 });
  assert.equal(names(out.get('a')!.active), []);
});

test.run();
