/** The server-side assignors: balance, stickiness, heterogeneous subscriptions, ranges. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RangeAssignor, UniformAssignor, assignorsFrom, type Assignment, type GroupSpec } from '../../src/coordinator/group/assignor/index.js';

function spec(members: Record<string, { topics: string[]; current?: Record<string, number[]> }>, topics: Record<string, number>): GroupSpec {
  return {
    members: new Map(Object.entries(members).map(([id, m]) => [id, {
      rackId: null, subscribedTopicIds: new Set(m.topics),
      current: new Map(Object.entries(m.current ?? {}).map(([t, ps]) => [t, new Set(ps)])),
    }])),
    topics: new Map(Object.entries(topics).map(([id, n]) => [id, { name: `name-${id}`, partitions: n }])),
  };
}

const flat = (a: Assignment) => [...a].flatMap(([t, s]) => [...s].map((p) => `${t}-${p}`)).sort();
const counts = (r: Map<string, Assignment>) => [...r.values()].map((a) => flat(a).length);

function assertComplete(r: Map<string, Assignment>, topics: Record<string, number>): void {
  const all = [...r.values()].flatMap(flat);
  assert.is(new Set(all).size, all.length, 'no partition twice');
  assert.is(all.length, Object.values(topics).reduce((a, b) => a + b, 0), 'every partition assigned');
}

test('uniform: homogeneous subscriptions are balanced to within one partition', () => {
  const topics = { a: 7, b: 3 };
  const r = new UniformAssignor().assign(spec({ m1: { topics: ['a', 'b'] }, m2: { topics: ['a', 'b'] }, m3: { topics: ['a', 'b'] } }, topics));
  assertComplete(r, topics);
  const c = counts(r);
  assert.ok(Math.max(...c) - Math.min(...c) <= 1, `counts ${c}`);
});

test('uniform: a joining member takes partitions only from members above the new quota', () => {
  const topics = { a: 6 };
  const current = { m1: { topics: ['a'], current: { a: [0, 1, 2] } }, m2: { topics: ['a'], current: { a: [3, 4, 5] } } };
  const r = new UniformAssignor().assign(spec({ ...current, m3: { topics: ['a'] } }, topics));
  assertComplete(r, topics);
  assert.equal(counts(r), [2, 2, 2]);
  for (const p of flat(r.get('m1')!)) assert.ok(['a-0', 'a-1', 'a-2'].includes(p), `m1 kept only its own: ${p}`);
  for (const p of flat(r.get('m2')!)) assert.ok(['a-3', 'a-4', 'a-5'].includes(p), `m2 kept only its own: ${p}`);
});

test('uniform: heterogeneous subscriptions give each topic only to its subscribers, balanced where possible', () => {
  const topics = { a: 4, b: 4 };
  const r = new UniformAssignor().assign(spec({ m1: { topics: ['a'] }, m2: { topics: ['a', 'b'] }, m3: { topics: ['b'] } }, topics));
  assertComplete(r, topics);
  assert.ok(flat(r.get('m1')!).every((p) => p.startsWith('a-')));
  assert.ok(flat(r.get('m3')!).every((p) => p.startsWith('b-')));
  const c = counts(r);
  assert.ok(Math.max(...c) - Math.min(...c) <= 1, `counts ${c}`);
});

test('uniform: partitions of a topic that disappeared or shrank are dropped', () => {
  const r = new UniformAssignor().assign(spec({ m1: { topics: ['a'], current: { a: [0, 1, 5], gone: [0] } } }, { a: 3 }));
  assert.equal(flat(r.get('m1')!), ['a-0', 'a-1', 'a-2']);
});

test('uniform, rack-aware: each member gets the partitions with a replica in its rack when balance allows', () => {
  const s = spec({ ma: { topics: ['a'] }, mb: { topics: ['a'] } }, { a: 4 });
  (s.members.get('ma') as { rackId: string | null }).rackId = 'rack-b';
  (s.members.get('mb') as { rackId: string | null }).rackId = 'rack-a';
  (s.topics.get('a') as { partitionRacks?: string[][] }).partitionRacks = [['rack-a'], ['rack-b'], ['rack-a'], ['rack-b']];
  const r = new UniformAssignor().assign(s);
  assert.equal(flat(r.get('ma')!), ['a-1', 'a-3']);
  assert.equal(flat(r.get('mb')!), ['a-0', 'a-2']);
  const blind = new UniformAssignor().assign(spec({ ma: { topics: ['a'] }, mb: { topics: ['a'] } }, { a: 4 }));
  assert.not.equal(flat(blind.get('ma')!), ['a-1', 'a-3'], 'without racks the split differs (the test can fail)');
});

test('range: contiguous ranges per topic, the first members get the extra partitions', () => {
  const r = new RangeAssignor().assign(spec({ b: { topics: ['x', 'y'] }, a: { topics: ['x', 'y'] } }, { x: 5, y: 2 }));
  assert.equal(flat(r.get('a')!), ['x-0', 'x-1', 'x-2', 'y-0']);
  assert.equal(flat(r.get('b')!), ['x-3', 'x-4', 'y-1']);
});

test('range, rack-aware: each member first takes the partitions with a replica in its rack, up to its share', () => {
  const s = spec({ a: { topics: ['x'] }, b: { topics: ['x'] } }, { x: 5 });
  (s.members.get('a') as { rackId: string | null }).rackId = 'r2';
  (s.members.get('b') as { rackId: string | null }).rackId = 'r1';
  (s.topics.get('x') as { partitionRacks?: string[][] }).partitionRacks = [['r1'], ['r2'], ['r1'], ['r2'], ['r1']];
  const r = new RangeAssignor().assign(s);
  assert.equal(flat(r.get('a')!), ['x-1', 'x-3', 'x-4'], 'a (share 3) takes its two rack-local ones, then what is left');
  assert.equal(flat(r.get('b')!), ['x-0', 'x-2'], 'b (share 2) takes two of its three rack-local ones');
  const blind = new RangeAssignor().assign(spec({ a: { topics: ['x'] }, b: { topics: ['x'] } }, { x: 5 }));
  assert.equal(flat(blind.get('a')!), ['x-0', 'x-1', 'x-2'], 'without racks: plain ranges');
});

test('assignorsFrom accepts short and class names, refuses unknown ones', () => {
  assert.equal(assignorsFrom(['org.apache.kafka.coordinator.group.assignor.UniformAssignor', ' range']).map((a) => a.name), ['uniform', 'range']);
  assert.throws(() => assignorsFrom(['sticky']), /unknown assignor sticky/);
});

test.run();
