/**
 * The log cleaner's offset map (Kafka's SkimpyOffsetMap): key → offset of the key's last record in
 * the dirty section, in a fixed block of memory, with no object per key.
 *
 * Layout: one ArrayBuffer of `slots × 24` bytes, as Kafka counts a map entry: a 16-byte hash of
 * the key (four int32 words, `hashes[4 × slot …]`) and an 8-byte offset (`offsets[slot]`, stored
 * as offset + 1 so that 0 marks an empty slot; offsets stay below 2^53). Open addressing with
 * double hashing: the first probe comes from the hash's first word, the step from its second,
 * and `slots` is prime so every slot is reachable. The memory budget (the thread's share of
 * `log.cleaner.dedupe.buffer.size`) bounds the table: at most `budget / 24` slots, and new keys
 * up to `slots × log.cleaner.io.buffer.load.factor` (Kafka's maxDesiredMapSize); past that `put`
 * refuses and the pass ends its dirty range at that record, as Kafka's buildOffsetMap stops when
 * the map is full.
 *
 * Unlike Kafka's, the table starts small and doubles (rehashing the stored hashes, keys are not
 * needed) until it reaches the budget: a log with few distinct keys then probes a table that
 * stays in the CPU caches instead of one random miss per record across 128 MiB (measured in
 * bench/log-cleaner.ts: a 20,000-key log cleaned ~25% faster than with the whole table). While a
 * table doubles, the old one (at most half the new one) is alive until the copy ends: for that
 * moment the map holds up to 1.5 times its budget.
 *
 * Keys are compared by hash only, as in Kafka (which uses MD5): two keys with the same 128-bit
 * hash would be taken for one. The hash is MurmurHash3 x86_128 (computed here without allocating,
 * from the key's bytes in the batch), seeded per map with a random seed so that crafted collisions
 * cannot target a known seed.
 */

export const BYTES_PER_MAP_ENTRY = 24;
/** Slots of a new table (before growing), unless the budget is smaller. */
const INITIAL_SLOTS = 1 << 14;

/** The largest prime ≤ n (n ≥ 2). */
function primeAtMost(n: number): number {
  for (let c = n; c > 2; c--) {
    if (c % 2 === 0) continue;
    let prime = true;
    for (let d = 3; d * d <= c; d += 2) {
      if (c % d === 0) {
        prime = false;
        break;
      }
    }
    if (prime) return c;
  }
  return 2;
}

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

export class OffsetMap {
  /** Number of slots now (prime). */
  slots: number;
  /** Most distinct keys the table takes now (slots × load factor). */
  private limit: number;
  /** Most slots the budget allows, and the distinct keys that gives (the map is full there). */
  readonly maxSlots: number;
  readonly maxEntries: number;
  private readonly loadFactor: number;
  private hashes: Int32Array;
  private offsets: Float64Array;
  private readonly seed: number;
  /** Distinct keys held. */
  size = 0;
  /** The largest offset put (-1 when none). */
  latestOffset = -1;
  /** Probes made by put/get (for tuning; Kafka reports the same collision rate). */
  probes = 0;
  // The last hash computed, as four words (no allocation per key).
  private h1 = 0;
  private h2 = 0;
  private h3 = 0;
  private h4 = 0;

  /**
   * A map in at most `memoryBytes` (at least one slot): `slotsWanted`, when given, makes it
   * smaller (a pass over few records needs few slots).
   */
  constructor(memoryBytes: number, loadFactor: number, opts: { slotsWanted?: number; seed?: number } = {}) {
    let slots = Math.max(2, Math.floor(memoryBytes / BYTES_PER_MAP_ENTRY));
    if (opts.slotsWanted !== undefined) slots = Math.max(2, Math.min(slots, Math.ceil(opts.slotsWanted)));
    this.loadFactor = Math.min(1, Math.max(0.01, loadFactor));
    this.maxSlots = primeAtMost(slots);
    this.maxEntries = this.entriesFor(this.maxSlots);
    this.slots = this.maxSlots <= INITIAL_SLOTS * 2 ? this.maxSlots : primeAtMost(INITIAL_SLOTS);
    this.limit = this.entriesFor(this.slots);
    this.hashes = new Int32Array(0);
    this.offsets = new Float64Array(0);
    this.allocate();
    this.seed = (opts.seed ?? Math.floor(Math.random() * 0x100000000)) >>> 0;
  }

  private entriesFor(slots: number): number {
    return Math.max(1, Math.min(slots - 1, Math.floor(slots * this.loadFactor)));
  }

  private allocate(): void {
    const mem = new ArrayBuffer(this.slots * BYTES_PER_MAP_ENTRY);
    this.hashes = new Int32Array(mem, 0, this.slots * 4);
    this.offsets = new Float64Array(mem, this.slots * 16, this.slots);
  }

  /** Bytes the table holds now (never more than the budget). */
  get memoryBytes(): number {
    return this.slots * BYTES_PER_MAP_ENTRY;
  }

  get isFull(): boolean {
    return this.size >= this.maxEntries;
  }

  /** Doubles the table (up to maxSlots), re-placing every entry by its stored hash. */
  private grow(): void {
    const oldHashes = this.hashes;
    const oldOffsets = this.offsets;
    const oldSlots = this.slots;
    this.slots = Math.min(this.maxSlots, primeAtMost(oldSlots * 2));
    this.limit = this.slots === this.maxSlots ? this.maxEntries : this.entriesFor(this.slots);
    this.allocate();
    for (let s = 0; s < oldSlots; s++) {
      if (oldOffsets[s] === 0) continue;
      const h = s * 4;
      this.h1 = oldHashes[h];
      this.h2 = oldHashes[h + 1];
      this.h3 = oldHashes[h + 2];
      this.h4 = oldHashes[h + 3];
      const slot = this.find();
      const n = slot * 4;
      this.hashes[n] = this.h1;
      this.hashes[n + 1] = this.h2;
      this.hashes[n + 2] = this.h3;
      this.hashes[n + 3] = this.h4;
      this.offsets[slot] = oldOffsets[s];
    }
  }

  /**
   * Records `offset` for the key `buf[start, start + length)`. False, and nothing stored, when the
   * key is new and the map is full.
   */
  put(buf: Uint8Array, start: number, length: number, offset: number): boolean {
    this.hash(buf, start, length);
    let slot = this.find();
    if (this.offsets[slot] === 0) {
      if (this.size >= this.limit) {
        if (this.slots >= this.maxSlots) return false;
        const [a, b, c, d] = [this.h1, this.h2, this.h3, this.h4];
        this.grow();
        this.h1 = a;
        this.h2 = b;
        this.h3 = c;
        this.h4 = d;
        slot = this.find();
      }
      const h = slot * 4;
      this.hashes[h] = this.h1;
      this.hashes[h + 1] = this.h2;
      this.hashes[h + 2] = this.h3;
      this.hashes[h + 3] = this.h4;
      this.size++;
    }
    this.offsets[slot] = offset + 1;
    if (offset > this.latestOffset) this.latestOffset = offset;
    return true;
  }

  /** The offset recorded for the key, or -1. */
  get(buf: Uint8Array, start: number, length: number): number {
    this.hash(buf, start, length);
    return this.offsets[this.find()] - 1;
  }

  /** The slot holding the last hashed key, or the empty slot where it would go. */
  private find(): number {
    const n = this.slots;
    let slot = (this.h1 >>> 0) % n;
    const step = 1 + ((this.h2 >>> 0) % (n - 1));
    const { hashes, offsets } = this;
    for (let i = 0; i < n; i++) {
      this.probes++;
      if (offsets[slot] === 0) return slot;
      const h = slot * 4;
      if (hashes[h] === this.h1 && hashes[h + 1] === this.h2 && hashes[h + 2] === this.h3 && hashes[h + 3] === this.h4) return slot;
      slot += step;
      if (slot >= n) slot -= n;
    }
    // Unreachable while maxEntries < slots: a probe sequence over a prime table visits every slot.
    throw new Error('offset map has no free slot');
  }

  /** MurmurHash3 x86_128 of `buf[start, start + length)` with this map's seed, into h1…h4. */
  private hash(buf: Uint8Array, start: number, length: number): void {
    let h1 = this.seed | 0;
    let h2 = h1;
    let h3 = h1;
    let h4 = h1;
    const blocksEnd = start + (length & ~15);
    let p = start;
    for (; p < blocksEnd; p += 16) {
      let k1 = buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24);
      let k2 = buf[p + 4] | (buf[p + 5] << 8) | (buf[p + 6] << 16) | (buf[p + 7] << 24);
      let k3 = buf[p + 8] | (buf[p + 9] << 8) | (buf[p + 10] << 16) | (buf[p + 11] << 24);
      let k4 = buf[p + 12] | (buf[p + 13] << 8) | (buf[p + 14] << 16) | (buf[p + 15] << 24);
      k1 = Math.imul(rotl(Math.imul(k1, C1), 15), C2);
      h1 ^= k1;
      h1 = (Math.imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
      k2 = Math.imul(rotl(Math.imul(k2, C2), 16), C3);
      h2 ^= k2;
      h2 = (Math.imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
      k3 = Math.imul(rotl(Math.imul(k3, C3), 17), C4);
      h3 ^= k3;
      h3 = (Math.imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
      k4 = Math.imul(rotl(Math.imul(k4, C4), 18), C1);
      h4 ^= k4;
      h4 = (Math.imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
    }
    const tail = length & 15;
    if (tail > 0) {
      let k1 = 0;
      let k2 = 0;
      let k3 = 0;
      let k4 = 0;
      for (let i = tail - 1; i >= 0; i--) {
        const b = buf[p + i];
        if (i >= 12) k4 |= b << ((i - 12) * 8);
        else if (i >= 8) k3 |= b << ((i - 8) * 8);
        else if (i >= 4) k2 |= b << ((i - 4) * 8);
        else k1 |= b << (i * 8);
      }
      if (tail > 12) h4 ^= Math.imul(rotl(Math.imul(k4, C4), 18), C1);
      if (tail > 8) h3 ^= Math.imul(rotl(Math.imul(k3, C3), 17), C4);
      if (tail > 4) h2 ^= Math.imul(rotl(Math.imul(k2, C2), 16), C3);
      h1 ^= Math.imul(rotl(Math.imul(k1, C1), 15), C2);
    }
    h1 ^= length;
    h2 ^= length;
    h3 ^= length;
    h4 ^= length;
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h3 = fmix(h3);
    h4 = fmix(h4);
    h1 = (h1 + h2 + h3 + h4) | 0;
    h2 = (h2 + h1) | 0;
    h3 = (h3 + h1) | 0;
    h4 = (h4 + h1) | 0;
    this.h1 = h1;
    this.h2 = h2;
    this.h3 = h3;
    this.h4 = h4;
  }

  /** The hash of a key as 16 bytes, little-endian words (for tests against a reference). */
  hashOf(key: Uint8Array): Buffer {
    this.hash(key, 0, key.length);
    const out = Buffer.alloc(16);
    out.writeInt32LE(this.h1, 0);
    out.writeInt32LE(this.h2, 4);
    out.writeInt32LE(this.h3, 8);
    out.writeInt32LE(this.h4, 12);
    return out;
  }
}
