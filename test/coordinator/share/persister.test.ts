import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeStateBatches, type PersistedStateBatch } from '../../../src/coordinator/share/persister.js';

/** The same merge, one offset at a time. */
function naive(batches: PersistedStateBatch[], change: PersistedStateBatch[], start: number): Map<number, string> {
  const m = new Map<number, string>();
  for (const b of batches) for (let o = b.firstOffset; o <= b.lastOffset; o++) m.set(o, `${b.deliveryState}/${b.deliveryCount}`);
  for (const b of change) for (let o = b.firstOffset; o <= b.lastOffset; o++) m.set(o, `${b.deliveryState}/${b.deliveryCount}`);
  for (const o of [...m.keys()]) if (o < start) m.delete(o);
  return m;
}

function expand(batches: PersistedStateBatch[]): Map<number, string> {
  const m = new Map<number, string>();
  let prev = -Infinity;
  for (const b of batches) {
    assert.ok(b.firstOffset > prev && b.firstOffset <= b.lastOffset, `sorted, disjoint: ${JSON.stringify(batches)}`);
    prev = b.lastOffset;
    for (let o = b.firstOffset; o <= b.lastOffset; o++) m.set(o, `${b.deliveryState}/${b.deliveryCount}`);
  }
  return m;
}

function randomBatches(rand: () => number, n: number): PersistedStateBatch[] {
  const out: PersistedStateBatch[] = [];
  let o = Math.floor(rand() * 5);
  for (let i = 0; i < n; i++) {
    const len = 1 + Math.floor(rand() * 6);
    out.push({ firstOffset: o, lastOffset: o + len - 1, deliveryState: [0, 2, 4][Math.floor(rand() * 3)], deliveryCount: Math.floor(rand() * 3) });
    o += len + Math.floor(rand() * 4);
  }
  return out;
}

test('mergeStateBatches: the change wins offset by offset, offsets below the start offset go, batches stay sorted and disjoint', () => {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000);
  for (let i = 0; i < 2000; i++) {
    const base = randomBatches(rand, Math.floor(rand() * 5));
    const change = randomBatches(rand, Math.floor(rand() * 5));
    const start = Math.floor(rand() * 10);
    const got = mergeStateBatches(base, change, start);
    assert.equal(expand(got), naive(base, change, start), JSON.stringify({ base, change, start }));
  }
});

test('mergeStateBatches: adjacent batches of one state and count are joined', () => {
  const got = mergeStateBatches([{ firstOffset: 0, lastOffset: 4, deliveryState: 2, deliveryCount: 1 }], [{ firstOffset: 5, lastOffset: 9, deliveryState: 2, deliveryCount: 1 }], 0);
  assert.equal(got, [{ firstOffset: 0, lastOffset: 9, deliveryState: 2, deliveryCount: 1 }]);
});

test.run();
