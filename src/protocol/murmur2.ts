/** Kafka's murmur2 (Utils.murmur2): the hash of the default partitioner for keyed records. */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995;
  const length = data.length;
  let h = 0x9747b28c ^ length;
  const n4 = length >> 2;
  for (let i = 0; i < n4; i++) {
    const j = i * 4;
    let k = data[j]! | (data[j + 1]! << 8) | (data[j + 2]! << 16) | (data[j + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  const rest = length & 3;
  const j = n4 * 4;
  if (rest === 3) h ^= data[j + 2]! << 16;
  if (rest >= 2) h ^= data[j + 1]! << 8;
  if (rest >= 1) { h ^= data[j]!; h = Math.imul(h, m); }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** The default partitioner's partition of a keyed record: murmur2 of the key, positive, modulo the count. */
export function partitionForKey(key: Uint8Array, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}
