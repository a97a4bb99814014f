/**
 * Java's HashMap/HashSet iteration order over String keys, simulated: Confluent's JSON Schema diff
 * (and everit's loader) iterate property, dependency and criterion names through them, so the
 * order of the compatibility messages depends on it.
 */

function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

function tableSizeFor(capacity: number): number {
  let n = 1;
  while (n < capacity) n *= 2;
  return n;
}

/** The bucket layout of a java.util.HashMap with String keys (load factor 0.75). */
class JavaHashOrder {
  private table: Array<Array<{ key: string; hash: number }>>;
  private size = 0;
  private threshold: number;
  private readonly present = new Set<string>();

  constructor(initialCapacity?: number) {
    const capacity = initialCapacity === undefined ? 16 : tableSizeFor(initialCapacity);
    this.table = Array.from({ length: capacity }, () => []);
    this.threshold = Math.floor(capacity * 0.75);
  }

  add(key: string): void {
    if (this.present.has(key)) return;
    this.present.add(key);
    const h = javaStringHash(key);
    const hash = h ^ (h >>> 16);
    this.table[hash & (this.table.length - 1)]!.push({ key, hash });
    if (++this.size > this.threshold) this.resize();
  }

  private resize(): void {
    const oldCapacity = this.table.length;
    const table: Array<Array<{ key: string; hash: number }>> = Array.from({ length: oldCapacity * 2 }, () => []);
    for (let j = 0; j < oldCapacity; j++) {
      for (const e of this.table[j]!) table[(e.hash & oldCapacity) === 0 ? j : j + oldCapacity]!.push(e);
    }
    this.table = table;
    this.threshold = Math.floor(table.length * 0.75);
  }

  keys(): string[] {
    return this.table.flatMap((bucket) => bucket.map((e) => e.key));
  }
}

/** The iteration order of a `new HashMap<>()` filled with `keys` in that order. */
export function javaHashMapOrder(keys: Iterable<string>): string[] {
  const order = new JavaHashOrder();
  for (const k of keys) order.add(k);
  return order.keys();
}

/** The iteration order of `new HashMap<>(source)` where `source` iterates as `keys`. */
export function javaCopiedMapOrder(keys: readonly string[]): string[] {
  const order = new JavaHashOrder(keys.length === 0 ? undefined : Math.floor(keys.length / 0.75 + 1));
  for (const k of keys) order.add(k);
  return order.keys();
}

/** The iteration order of `new HashSet<>(first)` followed by `addAll(second)`. */
export function javaHashSetUnion(first: readonly string[], second: readonly string[]): string[] {
  const order = new JavaHashOrder(Math.max(Math.floor(first.length / 0.75) + 1, 16));
  for (const k of first) order.add(k);
  for (const k of second) order.add(k);
  return order.keys();
}
