/**
 * The in-flight records of one share-partition (Kafka's SharePartition): for a share group and a
 * topic-partition, the window of offsets [startOffset, endOffset) that have been handed out at
 * least once and are not yet all done, with each offset's state, delivery count, owner and lock.
 *
 * - Acquisition (ShareFetch): records that are Available again (released, or their lock expired)
 *   go first, then new records from endOffset on, while the window holds fewer than
 *   share.partition.max.record.locks offsets. Each acquisition counts a delivery and locks the
 *   record to the member for share.record.lock.duration.ms.
 * - Acknowledgement: ACCEPT -> Acknowledged, RELEASE -> Available (or Archived at the delivery
 *   limit), REJECT and GAP -> Archived, RENEW -> the lock starts again. Only the member holding a
 *   record may acknowledge it (else INVALID_RECORD_STATE, and nothing of that partition changes).
 * - A lock that expires releases the record as RELEASE does.
 * - startOffset moves over the Acknowledged and Archived offsets at the front of the window.
 * - Samsa's redelivery backoff (samsa.share.redelivery.backoff.ms): a released or expired record
 *   after its n-th delivery becomes Available only after base x 2^(n-1) ms (capped at .max.ms,
 *   plus up to 10% jitter), without holding up the records behind it. 0 = at once, as Kafka.
 *
 * Per-offset state lives in typed arrays indexed by offset - base (no object per record); the
 * window is bounded by the lock limit, so scans are short.
 */
import { DeliveryState, type PersistedShareState, type PersistedStateBatch } from './persister.js';

export const AcknowledgeType = { GAP: 0, ACCEPT: 1, RELEASE: 2, REJECT: 3, RENEW: 4 } as const;

export interface AcquiredRange {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

export interface ShareLimits {
  deliveryCountLimit: number;
  recordLockDurationMs: number;
  partitionMaxRecordLocks: number;
  redeliveryBackoffMs: number;
  redeliveryBackoffMaxMs: number;
}

/** Why a record was archived (dead-letter context). */
export type ArchiveReason = 'rejected' | 'delivery-limit';

export interface ArchivedRecord {
  offset: number;
  deliveryCount: number;
  reason: ArchiveReason;
}

const INITIAL_CAPACITY = 64;

export class SharePartition {
  startOffset: number;
  endOffset: number;
  private base: number;
  private state = new Uint8Array(INITIAL_CAPACITY);
  private count = new Uint16Array(INITIAL_CAPACITY);
  private lockUntil = new Float64Array(INITIAL_CAPACITY);
  private availableAt = new Float64Array(INITIAL_CAPACITY);
  private owner: (string | null)[] = new Array(INITIAL_CAPACITY).fill(null);
  /** Records archived since the last `takeArchived` (for the dead-letter topic). */
  private archived: ArchivedRecord[] = [];
  /** Whether the state changed since the last `persistedState`. */
  dirty = false;

  constructor(startOffset: number, private readonly random: () => number = Math.random) {
    this.startOffset = startOffset;
    this.endOffset = startOffset;
    this.base = startOffset;
  }

  /** The partition as it was persisted: acknowledged/archived stay, everything else is Available. */
  static fromPersisted(s: PersistedShareState, logStartOffset: number): SharePartition {
    const sp = new SharePartition(Math.max(s.startOffset, logStartOffset));
    for (const b of s.stateBatches) {
      if (b.lastOffset < sp.startOffset) continue;
      sp.ensure(b.lastOffset + 1);
      for (let o = Math.max(b.firstOffset, sp.startOffset); o <= b.lastOffset; o++) {
        const i = o - sp.base;
        sp.state[i] = b.deliveryState === DeliveryState.ACQUIRED ? DeliveryState.AVAILABLE : b.deliveryState;
        sp.count[i] = b.deliveryCount;
      }
      sp.endOffset = Math.max(sp.endOffset, b.lastOffset + 1);
    }
    sp.advanceStart();
    return sp;
  }

  get inFlight(): number {
    return this.endOffset - this.startOffset;
  }

  stateOf(offset: number): { state: number; deliveryCount: number; owner: string | null } | null {
    if (offset < this.startOffset || offset >= this.endOffset) return null;
    const i = offset - this.base;
    return { state: this.state[i], deliveryCount: this.count[i], owner: this.owner[i] };
  }

  /** Counts of the window's offsets by state (describe, CLI). */
  counts(): { available: number; acquired: number; acknowledged: number; archived: number } {
    const c = { available: 0, acquired: 0, acknowledged: 0, archived: 0 };
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const s = this.state[o - this.base];
      if (s === DeliveryState.AVAILABLE) c.available++;
      else if (s === DeliveryState.ACQUIRED) c.acquired++;
      else if (s === DeliveryState.ACKNOWLEDGED) c.acknowledged++;
      else c.archived++;
    }
    return c;
  }

  /** Makes room for offsets below `end` (and drops what is below startOffset). */
  private ensure(end: number): void {
    const need = end - this.base;
    if (need <= this.state.length && this.startOffset - this.base < this.state.length / 2) return;
    const shift = this.startOffset - this.base;
    const size = Math.max(INITIAL_CAPACITY, 1 << Math.ceil(Math.log2(Math.max(1, end - this.startOffset) * 2)));
    const grow = <T extends Uint8Array | Uint16Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a.subarray(shift, Math.min(a.length, shift + size)));
      return b;
    };
    this.state = grow(this.state, (n) => new Uint8Array(n));
    this.count = grow(this.count, (n) => new Uint16Array(n));
    this.lockUntil = grow(this.lockUntil, (n) => new Float64Array(n));
    this.availableAt = grow(this.availableAt, (n) => new Float64Array(n));
    const owner: (string | null)[] = new Array(size).fill(null);
    for (let i = 0; i < size && shift + i < this.owner.length; i++) owner[i] = this.owner[shift + i];
    this.owner = owner;
    this.base = this.startOffset;
  }

  /** The log start moved past the window's start (retention, DeleteRecords): those offsets are gone. */
  skipTo(logStartOffset: number): void {
    if (logStartOffset <= this.startOffset) return;
    this.startOffset = logStartOffset;
    if (this.endOffset < logStartOffset) this.endOffset = logStartOffset;
    this.dirty = true;
    this.advanceStart();
  }

  /** Resets the start offset (AlterShareGroupOffsets): the window is emptied. */
  resetTo(offset: number): void {
    this.startOffset = offset;
    this.endOffset = offset;
    this.base = offset;
    this.state.fill(0);
    this.count.fill(0);
    this.owner.fill(null);
    this.dirty = true;
  }

  /** The first offset of the window that is Available again now, or -1. */
  firstAvailable(now: number): number {
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const i = o - this.base;
      if (this.state[i] === DeliveryState.AVAILABLE && this.availableAt[i] <= now) return o;
    }
    return -1;
  }

  /**
   * Acquires up to `maxRecords` of the records that are Available again (from the window's start,
   * at most up to `upTo`) for `memberId`, across every run of them in the window, as Kafka's
   * SharePartition.acquire collects them across in-flight batches: reported as ranges of one
   * delivery count each.
   */
  acquireAvailable(memberId: string, maxRecords: number, now: number, upTo = Infinity): AcquiredRange[] {
    const out: AcquiredRange[] = [];
    let taken = 0;
    const end = Math.min(this.endOffset, upTo + 1);
    for (let o = this.startOffset; o < end && taken < maxRecords; o++) {
      const i = o - this.base;
      if (this.state[i] !== DeliveryState.AVAILABLE || this.availableAt[i] > now) continue;
      this.take(i, memberId, now);
      taken++;
      const last = out[out.length - 1];
      if (last && last.lastOffset === o - 1 && last.deliveryCount === this.count[i]) last.lastOffset = o;
      else out.push({ firstOffset: o, lastOffset: o, deliveryCount: this.count[i] });
    }
    return out;
  }

  /** Room for new records in the window (the lock limit minus what is in flight). */
  room(limits: ShareLimits): number {
    return Math.max(0, limits.partitionMaxRecordLocks - this.inFlight);
  }

  /**
   * Acquires the new offsets [from, last] (a batch read from the log at endOffset) for `memberId`;
   * `from` is at most endOffset. Returns the range acquired (offsets below endOffset excluded).
   */
  acquireNew(memberId: string, from: number, last: number, now: number): AcquiredRange | null {
    const first = Math.max(from, this.endOffset);
    if (last < first) return null;
    this.ensure(last + 1);
    for (let o = this.endOffset; o < first; o++) this.state[o - this.base] = DeliveryState.ARCHIVED;
    for (let o = first; o <= last; o++) {
      const i = o - this.base;
      this.state[i] = DeliveryState.AVAILABLE;
      this.count[i] = 0;
      this.availableAt[i] = 0;
      this.take(i, memberId, now);
    }
    this.endOffset = last + 1;
    this.advanceStart();
    return { firstOffset: first, lastOffset: last, deliveryCount: 1 };
  }

  /** Offsets [from, last] that no consumer should see (control batches, aborted transactions): archived without a delivery. */
  archiveNew(from: number, last: number): void {
    const first = Math.max(from, this.endOffset);
    if (last < first) return;
    this.ensure(last + 1);
    for (let o = this.endOffset; o <= last; o++) {
      const i = o - this.base;
      this.state[i] = DeliveryState.ARCHIVED;
      this.count[i] = 0;
      this.owner[i] = null;
    }
    this.endOffset = last + 1;
    this.dirty = true;
    this.advanceStart();
  }

  private take(i: number, memberId: string, now: number): void {
    this.state[i] = DeliveryState.ACQUIRED;
    this.count[i]++;
    this.owner[i] = memberId;
    this.lockUntil[i] = now + this.lockMs;
    this.dirty = true;
  }

  /** share.record.lock.duration.ms of the group (set by the manager before each acquisition). */
  lockMs = 30000;

  /**
   * Applies a member's acknowledgements; all or nothing: INVALID_RECORD_STATE (false) when an
   * offset is outside the window, not acquired, or acquired by another member. A batch wholly
   * below the start offset (its records acknowledged or archived since, e.g. by the consumer that
   * had them after this one's lock expired) is ignored without an error, as Kafka 4.4 answers it;
   * one that reaches into the window still needs every offset acquired by the member.
   */
  acknowledge(memberId: string, batches: readonly { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }[], limits: ShareLimits, now: number): boolean {
    for (const b of batches) {
      const first = Number(b.firstOffset);
      const last = Number(b.lastOffset);
      if (last < first || b.acknowledgeTypes.length === 0) return false;
      if (b.acknowledgeTypes.length !== 1 && b.acknowledgeTypes.length !== last - first + 1) return false;
      if (b.acknowledgeTypes.some((t) => t < AcknowledgeType.GAP || t > AcknowledgeType.RENEW)) return false;
      if (last < this.startOffset) continue;
      if (first < this.startOffset || last >= this.endOffset) return false;
      for (let o = first; o <= last; o++) {
        const i = o - this.base;
        if (this.state[i] !== DeliveryState.ACQUIRED || this.owner[i] !== memberId) return false;
        const t = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0] : b.acknowledgeTypes[o - first];
        if (t < AcknowledgeType.GAP || t > AcknowledgeType.RENEW) return false;
      }
    }
    for (const b of batches) {
      const first = Number(b.firstOffset);
      const last = Number(b.lastOffset);
      if (last < this.startOffset) continue;
      for (let o = first; o <= last; o++) {
        const t = b.acknowledgeTypes.length === 1 ? b.acknowledgeTypes[0] : b.acknowledgeTypes[o - first];
        this.apply(o - this.base, t, limits, now);
      }
    }
    this.advanceStart();
    return true;
  }

  private apply(i: number, type: number, limits: ShareLimits, now: number): void {
    this.dirty = true;
    switch (type) {
      case AcknowledgeType.ACCEPT:
        this.state[i] = DeliveryState.ACKNOWLEDGED;
        this.owner[i] = null;
        return;
      case AcknowledgeType.RELEASE:
        this.release(i, limits, now);
        return;
      case AcknowledgeType.REJECT:
        this.archive(i, 'rejected');
        return;
      case AcknowledgeType.GAP:
        this.state[i] = DeliveryState.ARCHIVED;
        this.owner[i] = null;
        return;
      case AcknowledgeType.RENEW:
        this.lockUntil[i] = now + this.lockMs;
        return;
    }
  }

  /** Archived for good: always persisted (a record archived at the delivery limit must never come back after a reload). */
  private archive(i: number, reason: ArchiveReason): void {
    this.state[i] = DeliveryState.ARCHIVED;
    this.owner[i] = null;
    this.dirty = true;
    this.archived.push({ offset: this.base + i, deliveryCount: this.count[i], reason });
  }

  /** A record given back (RELEASE, expired lock, member gone): Available again, or Archived at the delivery limit. */
  private release(i: number, limits: ShareLimits, now: number): void {
    if (this.count[i] >= limits.deliveryCountLimit) {
      this.archive(i, 'delivery-limit');
      return;
    }
    this.state[i] = DeliveryState.AVAILABLE;
    this.owner[i] = null;
    this.availableAt[i] = now + redeliveryDelay(this.count[i], limits, this.random);
    this.dirty = true;
  }

  /** Releases the records whose lock expired by `now`; returns how many. */
  expireLocks(limits: ShareLimits, now: number): number {
    let n = 0;
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const i = o - this.base;
      if (this.state[i] === DeliveryState.ACQUIRED && this.lockUntil[i] <= now) {
        this.release(i, limits, now);
        n++;
      }
    }
    if (n > 0) this.advanceStart();
    return n;
  }

  /** Releases every record `memberId` holds (its share session closed). */
  releaseMember(memberId: string, limits: ShareLimits, now: number): number {
    let n = 0;
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const i = o - this.base;
      if (this.state[i] === DeliveryState.ACQUIRED && this.owner[i] === memberId) {
        this.release(i, limits, now);
        n++;
      }
    }
    if (n > 0) this.advanceStart();
    return n;
  }

  /** The earliest lock deadline of the window (Infinity: none), and the earliest backoff end. */
  nextDeadline(): number {
    let t = Infinity;
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const i = o - this.base;
      if (this.state[i] === DeliveryState.ACQUIRED && this.lockUntil[i] < t) t = this.lockUntil[i];
    }
    return t;
  }

  private advanceStart(): void {
    while (this.startOffset < this.endOffset) {
      const s = this.state[this.startOffset - this.base];
      if (s !== DeliveryState.ACKNOWLEDGED && s !== DeliveryState.ARCHIVED) break;
      this.startOffset++;
    }
  }

  /** Archived records whose dead-letter copy failed: handed out again by the next `takeArchived`. */
  requeueArchived(records: ArchivedRecord[]): void {
    this.archived.unshift(...records);
  }

  /** Archived records since the last call (the dead-letter topic copies them). */
  takeArchived(): ArchivedRecord[] {
    const a = this.archived;
    this.archived = [];
    return a;
  }

  /** The window as Kafka persists it (acquired written as Available), in runs of one state and count. */
  persistedBatches(): PersistedStateBatch[] {
    const out: PersistedStateBatch[] = [];
    for (let o = this.startOffset; o < this.endOffset; o++) {
      const i = o - this.base;
      const s = this.state[i] === DeliveryState.ACQUIRED ? DeliveryState.AVAILABLE : this.state[i];
      const c = this.count[i];
      const last = out[out.length - 1];
      if (last && last.deliveryState === s && last.deliveryCount === c) last.lastOffset = o;
      else out.push({ firstOffset: o, lastOffset: o, deliveryState: s, deliveryCount: c });
    }
    return out;
  }
}

/**
 * Samsa's redelivery backoff after the n-th delivery: base x 2^(n-1), capped at the maximum, plus
 * up to 10% jitter (so the configured figure is a lower bound and released records spread out).
 */
export function redeliveryDelay(deliveries: number, limits: Pick<ShareLimits, 'redeliveryBackoffMs' | 'redeliveryBackoffMaxMs'>, random: () => number = Math.random): number {
  if (limits.redeliveryBackoffMs <= 0 || deliveries <= 0) return 0;
  const full = Math.min(limits.redeliveryBackoffMaxMs, limits.redeliveryBackoffMs * 2 ** (deliveries - 1));
  return Math.round(full * (1 + 0.1 * random()));
}
