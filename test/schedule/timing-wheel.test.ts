import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TimingWheel, WHEEL_SIZE } from '../../src/schedule/timing-wheel.js';

function rng(seed: number): () => number {
  return () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x7fffffff; };
}

test('entries fire once, never before their tick has ended, across every level', () => {
  const start = 1_000_000;
  const w = new TimingWheel({ tickMs: 10, startMs: start, capacity: 100_000 });
  const r = rng(7);
  const want = new Map<number, number>();
  for (let i = 0; i < 4000; i++) {
    // Up to two levels above the first (64^3 ticks), plus some due in the past.
    const due = start - 50 + Math.floor(r() ** 3 * 10 * WHEEL_SIZE ** 3);
    assert.ok(w.add(due, i));
    want.set(i, due);
  }
  const fired = new Map<number, number>();
  let now = start;
  while (fired.size < want.size) {
    now += 1 + Math.floor(r() * 5000);
    w.advance(now, (due, offset) => {
      assert.not.ok(fired.has(offset), `offset ${offset} fired twice`);
      assert.ok(Math.floor(due / 10) * 10 + 10 <= now, `fired early: due ${due} at ${now}`);
      fired.set(offset, now);
    });
    for (const [o, due] of want) if (!fired.has(o)) assert.ok(Math.floor(due / 10) * 10 + 10 > now, `offset ${o} (due ${due}) missed at ${now}`);
  }
  assert.is(w.size, 0);
});

test('an entry added for a tick that already fired fires on the next advance; beyond the span it is refused', () => {
  const w = new TimingWheel({ tickMs: 100, startMs: 0, capacity: 10 });
  w.advance(1000, () => assert.unreachable());
  assert.is(w.firedBeforeMs, 1000);
  assert.ok(w.add(50, 1));
  const got: number[] = [];
  w.advance(1000, (_d, o) => got.push(o));
  assert.equal(got, [1]);
  assert.not.ok(w.add(w.firedBeforeMs + w.spanMs, 2));
});

test('capacity, maxEntries per advance (whole ticks) and eviction of the latest entries', () => {
  const w = new TimingWheel({ tickMs: 1, startMs: 0, capacity: 6 });
  for (const [d, o] of [[5, 1], [5, 2], [6, 3], [7, 4], [900, 5], [70_000, 6]]) assert.ok(w.add(d, o));
  assert.not.ok(w.add(8, 7), 'full');
  const evicted: number[] = [];
  w.evictFrom(900, (_d, o) => evicted.push(o));
  assert.equal(evicted.sort(), [5, 6]);
  assert.is(w.size, 4);
  const fired: number[] = [];
  assert.is(w.advance(100, (_d, o) => fired.push(o), 1), 1, 'at most maxEntries');
  assert.is(w.firedBeforeMs, 5, 'a part-fired tick stays current');
  assert.is(w.advance(100, (_d, o) => fired.push(o), 1), 1);
  assert.equal(fired.sort(), [1, 2]);
  assert.is(w.firedBeforeMs, 6);
  w.advance(100, (_d, o) => fired.push(o));
  assert.equal(fired.slice(2), [3, 4], 'then the later ticks in order');
  assert.is(w.size, 0);
});

test.run();
