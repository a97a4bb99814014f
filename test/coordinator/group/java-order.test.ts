/**
 * java-order.ts against values java.util computes (recorded from a JDK 17 run; the oracle test
 * streams-assignor-kafka.test.ts compares many more with a live JVM): String.hashCode, HashMap
 * iteration orders by put and computeIfAbsent (bucket order, collisions, growth), and
 * PriorityQueue's order among equal elements.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { JavaPriorityQueue, javaHashMapOrder, javaStringHash } from '../../../src/coordinator/group/assignor/java-order.js';

test('javaStringHash is String.hashCode', () => {
  assert.equal(['hello', '', 'Aa', 'BB', 'é€', 'KUGV74lu3AMNadJdXAAobT'].map(javaStringHash), [99162322, 0, 2112, 2112, 15587, -943434124]);
});

test('HashMap by put: buckets in order, a bucket in insertion order, the table grown past 12 keys', () => {
  assert.equal(javaHashMapOrder(['a', 'b', 'q', 'r', 'A', 'Q', '1']), ['a', 'q', 'A', 'Q', '1', 'b', 'r']);
  const keys = Array.from({ length: 14 }, (_, i) => `k${i}`);
  assert.equal(javaHashMapOrder(keys), ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k11', 'k6', 'k10', 'k7', 'k13', 'k8', 'k12', 'k9']);
  const forty = Array.from({ length: 40 }, (_, i) => `k${i}`);
  assert.is(javaHashMapOrder(forty).join(','),
    'k31,k30,k11,k33,k10,k32,k13,k35,k12,k34,k15,k37,k14,k36,k17,k39,k16,k38,k19,k18,k0,k1,k2,k3,k20,k4,k5,k22,k6,k21,k7,k24,k8,k23,k9,k26,k25,k28,k27,k29');
});

test('HashMap by computeIfAbsent: a new key goes first in its bucket; a key seen again changes nothing', () => {
  assert.equal(javaHashMapOrder(['a', 'q', 'b', 'a'], { initialCapacity: 2, insertion: 'computeIfAbsent' }), ['q', 'a', 'b']);
});

test('PriorityQueue: equal elements leave in the heap\'s order, not insertion order', () => {
  const pq = new JavaPriorityQueue<[number, string]>((a, b) => a[0] - b[0]);
  for (const e of [[1, 'a'], [1, 'b'], [1, 'c'], [0, 'd'], [1, 'e']] as [number, string][]) pq.add(e);
  const out: string[] = [];
  while (!pq.isEmpty()) out.push(pq.poll()![1]);
  assert.equal(out, ['d', 'e', 'b', 'c', 'a']);
  const xs = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4];
  const q = new JavaPriorityQueue<[number, number]>((a, b) => a[0] - b[0]);
  xs.forEach((x, i) => q.add([x, i]));
  const order: number[] = [];
  while (!q.isEmpty()) order.push(q.poll()![1]);
  assert.equal(order, [1, 3, 16, 6, 0, 15, 17, 9, 19, 2, 4, 10, 8, 7, 13, 18, 11, 5, 12, 14]);
});

test.run();
