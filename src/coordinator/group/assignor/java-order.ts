/**
 * Java's iteration and tie orders, for assignors ported from Kafka whose placements depend on
 * them: Kafka's StickyTaskAssignor walks java.util.HashMap keys and breaks load ties through
 * java.util.PriorityQueue's heap, so the same inputs give the same placement only when both are
 * reproduced exactly (the oracle test runs Kafka 4.4's own assignor beside this one).
 *
 * - `javaStringHash`: String.hashCode (UTF-16 code units, int32 arithmetic).
 * - `javaHashMapOrder`: the iteration order of a java.util.HashMap (JDK 8-21) after inserting
 *   `keys` in that order, by `put` (appended to its bucket; the table doubles after the insertion
 *   that passes 0.75 of its capacity) or `computeIfAbsent` (prepended; the table doubles before an
 *   insertion once the size passed that threshold). Buckets are (h ^ h >>> 16) & (capacity - 1);
 *   a resize splits each bucket keeping its order; a bucket reaching Java's treeify threshold in a
 *   table under 64 doubles the table as Java does. Not reproduced: the order inside a treeified
 *   bucket (9+ colliding keys in a table of 64+), which random member and process ids never reach.
 * - `JavaPriorityQueue`: java.util.PriorityQueue's binary heap (siftUp / siftDown as the JDK
 *   writes them), so that equal elements come out in Java's order.
 *
 * Pure functions and per-call objects: no state outlives an assignment.
 */

/** java.lang.String.hashCode. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** HashMap.hash: the high half folded into the low half. */
function spread(h: number): number {
  return h ^ (h >>> 16);
}

/** HashMap.tableSizeFor: the smallest power of two >= n (at least 1). */
function tableSizeFor(n: number): number {
  let c = 1;
  while (c < n) c *= 2;
  return c;
}

const TREEIFY_THRESHOLD = 8;
const MIN_TREEIFY_CAPACITY = 64;

export interface JavaHashMapOptions {
  /** new HashMap<>(initialCapacity); absent: new HashMap<>() (16). */
  initialCapacity?: number;
  /** How the keys went in: Map.put (default) or Map.computeIfAbsent. */
  insertion?: 'put' | 'computeIfAbsent';
}

/** The keys of a java.util.HashMap in its iteration order, after inserting `keys` (duplicates ignored) in order. */
export function javaHashMapOrder(keys: Iterable<string>, opts: JavaHashMapOptions = {}): string[] {
  const byCompute = opts.insertion === 'computeIfAbsent';
  let capacity = 0;
  // HashMap(int) keeps the table size in `threshold` until the first insertion allocates the table.
  let threshold = opts.initialCapacity === undefined ? 0 : tableSizeFor(opts.initialCapacity);
  let buckets: { key: string; hash: number }[][] = [];
  let size = 0;
  const present = new Set<string>();

  const resize = (): void => {
    let newCap: number;
    let newThr = 0;
    if (capacity > 0) {
      newCap = capacity * 2;
      if (capacity >= 16) newThr = threshold * 2;
    } else if (threshold > 0) {
      newCap = threshold;
    } else {
      newCap = 16;
      newThr = 12;
    }
    if (newThr === 0) newThr = Math.floor(newCap * 0.75);
    const next: { key: string; hash: number }[][] = Array.from({ length: newCap }, () => []);
    for (const bucket of buckets) for (const e of bucket) next[e.hash & (newCap - 1)].push(e);
    buckets = next;
    capacity = newCap;
    threshold = newThr;
  };

  for (const key of keys) {
    if (byCompute && (size > threshold || capacity === 0)) resize();
    if (present.has(key)) continue;
    if (!byCompute && capacity === 0) resize();
    present.add(key);
    const hash = spread(javaStringHash(key));
    const bucket = buckets[hash & (capacity - 1)];
    const before = bucket.length;
    if (byCompute) bucket.unshift({ key, hash });
    else bucket.push({ key, hash });
    // putVal treeifies when the new node is the 9th of its bucket, computeIfAbsent when it is the 8th;
    // under 64 buckets treeifyBin resizes instead.
    const treeify = byCompute ? before >= TREEIFY_THRESHOLD - 1 : before >= TREEIFY_THRESHOLD;
    if (treeify && capacity < MIN_TREEIFY_CAPACITY) resize();
    size++;
    if (!byCompute && size > threshold) resize();
  }
  return buckets.flatMap((b) => b.map((e) => e.key));
}

/** java.util.PriorityQueue with a comparator: the same heap moves, so ties resolve as in Java. */
export class JavaPriorityQueue<T> {
  private readonly heap: T[] = [];

  constructor(private readonly cmp: (a: T, b: T) => number) {}

  get size(): number {
    return this.heap.length;
  }

  isEmpty(): boolean {
    return this.heap.length === 0;
  }

  /** offer: siftUpUsingComparator. */
  add(x: T): void {
    const es = this.heap;
    let k = es.length;
    es.push(x);
    while (k > 0) {
      const parent = (k - 1) >>> 1;
      const e = es[parent];
      if (this.cmp(x, e) >= 0) break;
      es[k] = e;
      k = parent;
    }
    es[k] = x;
  }

  /** AbstractQueue.addAll: one add per element, in the collection's order. */
  addAll(xs: Iterable<T>): void {
    for (const x of xs) this.add(x);
  }

  /** poll: the head, the last element sifted down from the root (siftDownUsingComparator). */
  poll(): T | undefined {
    const es = this.heap;
    if (es.length === 0) return undefined;
    const result = es[0];
    const x = es.pop()!;
    const n = es.length;
    if (n > 0) {
      let k = 0;
      const half = n >>> 1;
      while (k < half) {
        let child = 2 * k + 1;
        let c = es[child];
        const right = child + 1;
        if (right < n && this.cmp(c, es[right]) > 0) c = es[(child = right)];
        if (this.cmp(x, c) <= 0) break;
        es[k] = c;
        k = child;
      }
      es[k] = x;
    }
    return result;
  }
}
