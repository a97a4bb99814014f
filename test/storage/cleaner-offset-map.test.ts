import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BYTES_PER_MAP_ENTRY, OffsetMap } from '../../src/storage/cleaner-offset-map.js';

// MurmurHash3 x86_128 reference values from the Python mmh3 package (mmh3.hash_bytes(key, seed, x64arch=False)).
const REFERENCE: [string, number, string][] = [
  ['61', 0, '3c9394a71bb056551bb056551bb05655'],
  ['68656c6c6f', 42, '019a4f9cf6043405959b6f88959b6f88'],
  ['6b65792d3132333435', 7, '6a6f11bd3fac8ef22ceb354e97f47960'],
  ['30313233343536373839616263646566', 1, '4e1b467eb975cc18383949c7821c8ff8'],
  ['3031323334353637383961626364656658595a', 3, 'fe1f05154c03a9f522ba210e193206cf'],
  ['000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324252627', 2538058380, '1d754d3d5368f67b1760a5275f329eeb'],
];

test('the key hash is MurmurHash3 x86_128 (blocks and every tail length)', () => {
  for (const [key, seed, want] of REFERENCE) {
    assert.is(new OffsetMap(1024, 0.9, { seed }).hashOf(Buffer.from(key, 'hex')).toString('hex'), want, `key ${key} seed ${seed}`);
  }
});

test('put keeps the latest offset per key; get answers -1 for an absent key; keys are read in place', () => {
  const m = new OffsetMap(1 << 20, 0.9);
  const buf = Buffer.from('xxalphayybetazz');
  assert.ok(m.put(buf, 2, 5, 10));
  assert.ok(m.put(buf, 9, 4, 11));
  assert.ok(m.put(Buffer.from('alpha'), 0, 5, 12));
  assert.is(m.size, 2);
  assert.is(m.get(Buffer.from('alpha'), 0, 5), 12);
  assert.is(m.get(buf, 9, 4), 11);
  assert.is(m.get(Buffer.from('gamma'), 0, 5), -1);
  assert.is(m.get(buf, 0, 0), -1, 'the empty key is a key like any other, absent here');
  assert.ok(m.put(buf, 0, 0, 0));
  assert.is(m.get(buf, 0, 0), 0, 'offset 0 is stored (the slot is not taken for empty)');
  assert.is(m.latestOffset, 12);
});

test('the map stays within its memory and refuses new keys past the load factor, not updates', () => {
  const budget = BYTES_PER_MAP_ENTRY * 1000;
  const m = new OffsetMap(budget, 0.9);
  assert.ok(m.memoryBytes <= budget, `${m.memoryBytes} <= ${budget}`);
  assert.is(m.maxEntries, Math.floor(m.slots * 0.9));
  let accepted = 0;
  for (let i = 0; i < 2000; i++) if (m.put(Buffer.from(`key-${i}`), 0, `key-${i}`.length, i)) accepted++;
  assert.is(accepted, m.maxEntries);
  assert.ok(m.isFull);
  assert.ok(m.put(Buffer.from('key-0'), 0, 5, 5000), 'a known key is updated when full');
  assert.is(m.get(Buffer.from('key-0'), 0, 5), 5000);
  for (let i = 1; i < accepted; i++) assert.is(m.get(Buffer.from(`key-${i}`), 0, `key-${i}`.length), i);
  for (let i = accepted; i < 2000; i++) assert.is(m.get(Buffer.from(`key-${i}`), 0, `key-${i}`.length), -1);
});

test('a table grows by rehashing up to its budget, losing no key, then refuses', () => {
  const budget = BYTES_PER_MAP_ENTRY * 200_000;
  const m = new OffsetMap(budget, 0.9, { seed: 1 });
  const startBytes = m.memoryBytes;
  assert.ok(startBytes < budget / 4, `starts small: ${startBytes}`);
  const key = (i: number): Buffer => Buffer.from(`k${i}`);
  let accepted = 0;
  for (let i = 0; i < 250_000; i++) if (m.put(key(i), 0, key(i).length, i)) accepted++;
  assert.is(accepted, m.maxEntries, 'refuses once the budget is full');
  assert.ok(m.memoryBytes <= budget && m.memoryBytes > budget * 0.9, `grew to the budget: ${m.memoryBytes}`);
  for (let i = 0; i < accepted; i++) assert.is(m.get(key(i), 0, key(i).length), i, `key ${i} after growing`);
  assert.is(m.get(key(accepted), 0, key(accepted).length), -1);
});

test('slotsWanted sizes a small map below the budget', () => {
  const m = new OffsetMap(128 << 20, 0.9, { slotsWanted: 100 });
  assert.ok(m.slots <= 100 && m.slots >= 90, `${m.slots} slots`);
});

test.run();
