/**
 * The broker's share-partitions and share sessions (Kafka's SharePartitionManager): ShareFetch and
 * ShareAcknowledge land here on the leader of each topic-partition.
 *
 * - A share-partition (group, topic id, partition) is loaded from the persister on first use; a
 *   new one starts at share.auto.offset.reset (latest: the high watermark; earliest: the log
 *   start) and is written at once.
 * - Every operation on a share-partition runs through its own queue (reads, state changes and the
 *   persister write of one fetch never interleave with another's); a change is written to the
 *   persister before the answer goes out, so an acknowledged record stays acknowledged.
 * - Share sessions (KIP-932): epoch 0 opens (the request names the partitions), each next request
 *   carries epoch + 1 and names only what changes (new partitions, ForgottenTopicsData), -1 closes
 *   and releases what the member holds. SHARE_SESSION_NOT_FOUND / INVALID_SHARE_SESSION_EPOCH
 *   otherwise, SHARE_SESSION_LIMIT_REACHED above group.share.max.share.sessions.
 * - Acquisition locks expire on a timer per share-partition (the earliest lock of its window).
 * - A long-polling ShareFetch is woken (onAvailable) when records of one of its share-partitions
 *   may be acquirable without an append: an acknowledgement (a release, or lock slots freed), an
 *   expired lock, a closed session, a reset. The wake-up is sent from the share-partition's
 *   queue, after the change is persisted.
 */
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { TopicRecord } from '../../cluster/metadata-store.js';
import type { ReplicaManager } from '../../replication/replica-manager.js';
import type { GroupConfig } from '../group/group-config.js';
import type { Timer } from '../../clock.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { KafkaApiError } from '../../errors.js';
import type { AcquiredRecords, PartitionData } from '../../protocol/generated/messages/share-fetch-response.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { SerialQueue } from '../runtime/serial-queue.js';
import { MemoryPersister, type SharePersister, type ShareStateKey } from './persister.js';
import { type ShareLimits, SharePartition } from './share-partition.js';
import { defaultShareGroupConfig, shareConfigOfGroup, type ShareGroupConfig } from './share-config.js';
import { type DeadLetterEnv, DeadLetterWriter } from './dead-letter.js';

/** What the share-partitions need of the broker (the broker's services provide it). */
export interface SharePartitionEnv extends DeadLetterEnv {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly groupCoordinator: { readonly config: GroupConfig };
  readonly groupConfigs: unknown;
  /** The share-state persister (absent: an in-memory one, unit tests). */
  readonly sharePersister?: SharePersister;
  readonly metadataCache: { topic(name: string): TopicRecord | undefined; topicById(id: string): TopicRecord | undefined };
  readonly replicaManager: Pick<ReplicaManager, 'getPartition' | 'leaderEpochOf'>;
}

const ATTR_CONTROL = 0x20;
const ATTR_TRANSACTIONAL = 0x10;
/** Kafka 4.1's SHARE_SESSION_LIMIT_REACHED (not in the pre-4.0 error table). */
const SHARE_SESSION_LIMIT_REACHED = 133;

interface Entry {
  key: ShareStateKey;
  queue: SerialQueue;
  sp: SharePartition | null;
  timer: Timer | null;
  timerAt: number;
  stateEpoch: number;
  /** The data partition's leader epoch the window was loaded at: another epoch means reload. */
  leaderEpoch: number;
}

export interface ShareSession {
  groupId: string;
  memberId: string;
  epoch: number;
  /** topic id → partitions */
  partitions: Map<string, Set<number>>;
}

export interface PartitionResult {
  errorCode: number;
  records: Buffer[];
  acquired: AcquiredRecords[];
  bytes: number;
}

/**
 * Most bytes one acquisition reads from the log. A ShareFetch's max_bytes is librdkafka's and the
 * Java client's fetch.max.bytes (50 MiB by default), and PartitionLog.read copies what it reads
 * into a buffer of that size, while max_records (500 by default) needs a few dozen KiB of small
 * records: reading max_bytes made every fetch on a long log copy up to 50 MiB (500,000 records of
 * 100 bytes: 14,600 records/s through one consumer, most of it copying and GC). Whole batches
 * still go out (minOneMessage), and a short answer only means the consumer fetches again.
 */
const MAX_READ_BYTES = 1 << 20;
const readBytes = (maxBytes: number) => Math.max(1, Math.min(maxBytes, MAX_READ_BYTES));

const sessionId = (g: string, m: string) => `${g}\u0000${m}`;
const entryId = (k: ShareStateKey) => `${k.groupId}\u0000${k.topicId}\u0000${k.partition}`;

export class SharePartitionManager {
  private readonly entries = new Map<string, Entry>();
  readonly sessions = new Map<string, ShareSession>();
  private readonly fallback = new MemoryPersister();
  private readonly deadLetters: DeadLetterWriter;
  /** Sessions ended by their connection closing (Kafka's ShareSessionCache ShareSessionEvictionsPerSec). */
  sessionEvictions = 0;
  /** Long polls to wake when records of a share-partition (by entry id) may be acquirable again. */
  private readonly availabilityWaiters = new Map<string, Set<() => void>>();

  constructor(private readonly broker: SharePartitionEnv) {
    this.deadLetters = new DeadLetterWriter(broker);
  }

  private get persister(): SharePersister {
    return this.broker.sharePersister ?? this.fallback;
  }

  configOf(groupId: string): ShareGroupConfig {
    const base = this.broker.groupCoordinator.config.share ?? defaultShareGroupConfig();
    return shareConfigOfGroup(base, this.broker.groupConfigs as never, groupId);
  }

  private limits(c: ShareGroupConfig): ShareLimits {
    return c;
  }

  // -------------------------------------------------------------------------------------------
  // Sessions

  /** Applies a request's session epoch; the session, or the error code. */
  session(groupId: string, memberId: string, epoch: number, added: { topicId: string; partitions: number[] }[], forgotten: { topicId: string; partitions: number[] }[]): ShareSession | number {
    const id = sessionId(groupId, memberId);
    let s = this.sessions.get(id);
    if (epoch === 0) {
      if (!s && this.sessions.size >= this.configOf(groupId).maxShareSessions) return SHARE_SESSION_LIMIT_REACHED;
      s = { groupId, memberId, epoch: 0, partitions: new Map() };
      this.sessions.set(id, s);
    } else {
      if (!s) return ErrorCode.SHARE_SESSION_NOT_FOUND;
      if (epoch !== -1) {
        if (epoch !== s.epoch + 1) return ErrorCode.INVALID_SHARE_SESSION_EPOCH;
        s.epoch = epoch;
      }
    }
    for (const t of added) {
      const set = s.partitions.get(t.topicId) ?? s.partitions.set(t.topicId, new Set()).get(t.topicId)!;
      for (const p of t.partitions) set.add(p);
    }
    for (const t of forgotten) {
      const set = s.partitions.get(t.topicId);
      for (const p of t.partitions) set?.delete(p);
      if (set?.size === 0) s.partitions.delete(t.topicId);
    }
    return s;
  }

  /** Partitions in the open sessions (Kafka's ShareSessionCache SharePartitionsCount). */
  get sessionPartitions(): number {
    let n = 0;
    for (const s of this.sessions.values()) for (const ps of s.partitions.values()) n += ps.size;
    return n;
  }

  /** Closes a session (epoch -1, or its connection closed: `evicted`): what the member holds is released. */
  async closeSession(s: ShareSession, evicted = false): Promise<void> {
    if (this.sessions.delete(sessionId(s.groupId, s.memberId)) && evicted) this.sessionEvictions++;
    const now = this.broker.clock.now();
    await Promise.all([...s.partitions].flatMap(([topicId, parts]) => [...parts].map((partition) => {
      const e = this.entries.get(entryId({ groupId: s.groupId, topicId, partition }));
      if (!e) return undefined;
      return e.queue.run(async () => {
        if (!e.sp) return;
        if (e.sp.releaseMember(s.memberId, this.limits(this.configOf(s.groupId)), now) === 0) return;
        await this.persist(e);
        this.wakeWaiters(e);
      });
    })));
  }

  // -------------------------------------------------------------------------------------------
  // Share-partitions

  private entry(key: ShareStateKey): Entry {
    const id = entryId(key);
    let e = this.entries.get(id);
    if (!e) {
      e = { key, queue: new SerialQueue(), sp: null, timer: null, timerAt: Infinity, stateEpoch: 0, leaderEpoch: -1 };
      this.entries.set(id, e);
    }
    return e;
  }

  /**
   * The share-partition's window, loaded from the persister on first use and again whenever this
   * broker leads the data partition at another leader epoch than it loaded at (leadership went
   * away and came back: what other leaders changed meanwhile is in the persisted state only).
   */
  private async load(e: Entry, log: PartitionLog, cfg: ShareGroupConfig, leaderEpoch: number): Promise<SharePartition> {
    if (e.sp && e.leaderEpoch === leaderEpoch) return e.sp;
    if (e.sp) this.drop(e);
    e.leaderEpoch = leaderEpoch;
    const persisted = await this.persister.read(e.key, Math.max(0, leaderEpoch));
    if (persisted && persisted.startOffset >= 0) {
      e.stateEpoch = persisted.stateEpoch;
      e.sp = SharePartition.fromPersisted(persisted, log.logStartOffset);
    } else {
      const start = cfg.autoOffsetReset === 'earliest' ? log.logStartOffset : log.highWatermark;
      e.sp = new SharePartition(start);
      e.sp.dirty = true;
    }
    return e.sp;
  }

  /**
   * Writes the share-partition's state (when it changed), after copying what was archived to the
   * group's dead-letter topic (dead-letter.ts). A copy that fails is tried again at the next change.
   */
  private async persist(e: Entry): Promise<void> {
    const sp = e.sp!;
    const name = this.broker.metadataCache.topicById(e.key.topicId)?.name ?? '';
    const archived = sp.takeArchived();
    if (archived.length > 0) {
      const log = this.broker.replicaManager.getPartition(name, e.key.partition)?.log;
      try {
        if (log) await this.deadLetters.write({ ...e.key, topic: name, log }, archived, this.configOf(e.key.groupId), sp.startOffset);
      } catch (err) {
        this.broker.logger.warn(`share group ${e.key.groupId}: dead-letter copy of ${archived.length} records of ${name}-${e.key.partition} failed, retried at the next change: ${(err as Error).message}`);
        sp.requeueArchived(archived);
      }
    }
    if (!sp.dirty) return;
    sp.dirty = false;
    const leaderEpoch = this.broker.replicaManager.leaderEpochOf(name, e.key.partition);
    await this.persister.write(e.key, { stateEpoch: e.stateEpoch, leaderEpoch: Math.max(0, leaderEpoch), startOffset: sp.startOffset, stateBatches: sp.persistedBatches() });
  }

  /** Arms the share-partition's lock timer at its earliest lock. */
  private armTimer(e: Entry): void {
    const at = e.sp?.nextDeadline() ?? Infinity;
    if (at === e.timerAt) return;
    e.timer?.cancel();
    e.timer = null;
    e.timerAt = at;
    if (at === Infinity) return;
    const delay = Math.max(0, at - this.broker.clock.now());
    e.timer = this.broker.clock.setTimeout(() => {
      e.timer = null;
      e.timerAt = Infinity;
      void e.queue.run(async () => {
        if (!e.sp) return;
        if (e.sp.expireLocks(this.limits(this.configOf(e.key.groupId)), this.broker.clock.now()) > 0) {
          await this.persist(e);
          this.wakeWaiters(e);
        }
        this.armTimer(e);
      }).catch((err) => {
        if (err instanceof KafkaApiError) this.refused(e, err);
        else this.broker.logger.error(`share-partition ${e.key.groupId} ${e.key.topicId}-${e.key.partition}: lock expiry failed`, err);
      });
    }, delay);
  }

  /** The partition's log if this broker leads it, else the error code. */
  /** Forgets a share-partition's window (a new leader epoch, or a write the persister refused): the next use reloads it. */
  private drop(e: Entry): void {
    e.timer?.cancel();
    e.timer = null;
    e.timerAt = Infinity;
    e.sp = null;
  }

  /** A persister refusal (fenced, coordinator gone) ends the operation with its code; the window is reloaded next time. */
  private refused(e: Entry, err: unknown): number {
    if (!(err instanceof KafkaApiError)) throw err;
    this.broker.logger.warn(`share-partition ${e.key.groupId} ${e.key.topicId}-${e.key.partition}: state write refused (${err.message}); reloading it`);
    this.drop(e);
    return err.errorCode;
  }

  private leaderLog(topicId: string, partition: number): { name: string; log: PartitionLog; leaderEpoch: number } | number {
    const info = this.broker.metadataCache.topicById(topicId);
    if (!info) return ErrorCode.UNKNOWN_TOPIC_ID;
    if (partition < 0 || partition >= info.partitions) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    const p = this.broker.replicaManager.getPartition(info.name, partition);
    if (!p?.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    return { name: info.name, log: p.log, leaderEpoch: p.leaderEpoch };
  }

  /** Applies a member's acknowledgements to one share-partition: NONE or the error code. */
  acknowledge(groupId: string, memberId: string, topicId: string, partition: number, batches: { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }[]): Promise<number> {
    const l = this.leaderLog(topicId, partition);
    if (typeof l === 'number') return Promise.resolve(l);
    const e = this.entry({ groupId, topicId, partition });
    return e.queue.run(async () => {
      const cfg = this.configOf(groupId);
      try {
        const sp = await this.load(e, l.log, cfg, l.leaderEpoch);
        sp.lockMs = cfg.recordLockDurationMs;
        if (!sp.acknowledge(memberId, batches, this.limits(cfg), this.broker.clock.now())) return ErrorCode.INVALID_RECORD_STATE;
        await this.persist(e);
      } catch (err) {
        return this.refused(e, err);
      }
      this.armTimer(e);
      // A RELEASE makes records available again; an ACCEPT or REJECT frees lock slots of a full
      // window (group.share.partition.max.record.locks).
      this.wakeWaiters(e);
      return ErrorCode.NONE;
    });
  }

  /**
   * Acquires records of one share-partition for a member: redeliveries first, then new records
   * from the log up to the high watermark (the last stable offset for read_committed groups).
   */
  acquire(groupId: string, memberId: string, topicId: string, partition: number, maxRecords: number, maxBytes: number, recordLimit = false): Promise<PartitionResult> {
    const l = this.leaderLog(topicId, partition);
    if (typeof l === 'number') return Promise.resolve({ errorCode: l, records: [], acquired: [], bytes: 0 });
    const e = this.entry({ groupId, topicId, partition });
    return e.queue.run(async () => {
      const cfg = this.configOf(groupId);
      const log = l.log;
      let sp: SharePartition;
      try {
        sp = await this.load(e, log, cfg, l.leaderEpoch);
      } catch (err) {
        return { errorCode: this.refused(e, err), records: [], acquired: [], bytes: 0 };
      }
      sp.lockMs = cfg.recordLockDurationMs;
      sp.skipTo(log.logStartOffset);
      const now = this.broker.clock.now();
      const readCommitted = cfg.isolationLevel === 'read_committed';
      const maxOffset = readCommitted ? log.lastStableOffset : log.highWatermark;
      const result: PartitionResult = { errorCode: ErrorCode.NONE, records: [], acquired: [], bytes: 0 };
      // Released and timed-out records first, from every run of them in the window; then new
      // records from the log with what is left of the record and byte budgets (Kafka's
      // SharePartition.acquire: one fetch takes both).
      const taken = await this.acquireAgain(sp, log, memberId, maxRecords, maxBytes, maxOffset, now, result);
      if (taken < maxRecords && result.bytes < maxBytes && sp.room(cfg) > 0 && sp.endOffset < maxOffset) {
        await this.acquireNew(sp, log, memberId, maxRecords - taken, maxBytes - result.bytes, maxOffset, readCommitted, cfg, result, now, recordLimit);
      }
      try {
        await this.persist(e);
      } catch (err) {
        // Not handed out: the persisted state does not know of this acquisition.
        return { errorCode: this.refused(e, err), records: [], acquired: [], bytes: 0 };
      }
      this.armTimer(e);
      return result;
    });
  }

  /**
   * Re-acquires Available records (released, rejected-for-retry, timed out): the log is read from
   * the first of them within the byte budget, and only records whose batches that read holds are
   * acquired, so every acquired record goes out with its batch. Returns how many were acquired.
   */
  private async acquireAgain(sp: SharePartition, log: PartitionLog, memberId: string, maxRecords: number, maxBytes: number, maxOffset: number, now: number, out: PartitionResult): Promise<number> {
    const first = sp.firstAvailable(now);
    if (first < 0) return 0;
    const read = await log.read(first, readBytes(maxBytes), { minOneMessage: true, maxOffset });
    // The last offset the read's batches cover.
    let covered = first - 1;
    for (const buf of read.records) {
      for (let pos = 0; pos + 61 <= buf.length; pos += 12 + buf.readInt32BE(pos + 8)) covered = Number(buf.readBigInt64BE(pos)) + buf.readInt32BE(pos + 23);
    }
    const ranges = sp.acquireAvailable(memberId, maxRecords, now, covered);
    if (ranges.length === 0) return 0;
    // Only the batches that hold an acquired record go out.
    let r = 0;
    for (const buf of read.records) {
      for (let pos = 0; pos + 61 <= buf.length;) {
        const size = 12 + buf.readInt32BE(pos + 8);
        const base = Number(buf.readBigInt64BE(pos));
        const last = base + buf.readInt32BE(pos + 23);
        while (r < ranges.length && ranges[r].lastOffset < base) r++;
        if (r === ranges.length) break;
        if (ranges[r].firstOffset <= last) {
          out.records.push(buf.subarray(pos, pos + size));
          out.bytes += size;
        }
        pos += size;
      }
    }
    let taken = 0;
    for (const x of ranges) {
      out.acquired.push({ firstOffset: BigInt(x.firstOffset), lastOffset: BigInt(x.lastOffset), deliveryCount: x.deliveryCount });
      taken += x.lastOffset - x.firstOffset + 1;
    }
    return taken;
  }

  /**
   * New records from endOffset on. Whole batches are acquired (Kafka's batch_optimized mode, so a
   * batch may take a fetch past maxRecords); with `recordLimit` (ShareFetch v2 record_limit,
   * KIP-1206) at most maxRecords, the rest of a batch left for the next fetch (the batch still
   * goes out whole; AcquiredRecords names what was acquired).
   */
  private async acquireNew(sp: SharePartition, log: PartitionLog, memberId: string, maxRecords: number, maxBytes: number, maxOffset: number, readCommitted: boolean, cfg: ShareGroupConfig, out: PartitionResult, now: number, recordLimit: boolean): Promise<void> {
    const from = sp.endOffset;
    const read = await log.read(from, readBytes(maxBytes), { minOneMessage: true, maxOffset });
    let aborted: { producerId: number; firstOffset: number; lastOffset: number }[] = [];
    if (readCommitted && read.records.length > 0) aborted = await log.collectAbortedTransactions(from, maxOffset);
    let taken = 0;
    for (const buf of read.records) {
      let pos = 0;
      while (pos + 61 <= buf.length && taken < maxRecords && sp.room(cfg) > 0) {
        const size = 12 + buf.readInt32BE(pos + 8);
        const base = Number(buf.readBigInt64BE(pos));
        const attributes = buf.readInt16BE(pos + 21);
        const last = base + buf.readInt32BE(pos + 23);
        if (last >= maxOffset) return;
        const producerId = Number(buf.readBigInt64BE(pos + 43));
        const abortedTxn = (attributes & ATTR_TRANSACTIONAL) !== 0 && aborted.some((a) => a.producerId === producerId && a.firstOffset <= base && base <= a.lastOffset);
        if ((attributes & ATTR_CONTROL) !== 0 || abortedTxn) {
          sp.archiveNew(base, last);
        } else {
          const upTo = recordLimit ? Math.min(last, Math.max(base, sp.endOffset) + (maxRecords - taken) - 1) : last;
          const r = sp.acquireNew(memberId, base, upTo, now);
          if (r) {
            out.records.push(buf.subarray(pos, pos + size));
            out.bytes += size;
            out.acquired.push({ firstOffset: BigInt(r.firstOffset), lastOffset: BigInt(r.lastOffset), deliveryCount: r.deliveryCount });
            taken += r.lastOffset - r.firstOffset + 1;
          }
        }
        pos += size;
      }
    }
  }

  /** The share-partition of a group here, if loaded (describe, CLI, tests). */
  sharePartition(groupId: string, topicId: string, partition: number): SharePartition | null {
    return this.entries.get(entryId({ groupId, topicId, partition }))?.sp ?? null;
  }

  /** Resets a share-partition's start offset (AlterShareGroupOffsets on an empty group). */
  reset(key: ShareStateKey, startOffset: number): Promise<void> {
    const e = this.entry(key);
    return e.queue.run(async () => {
      e.stateEpoch++;
      e.sp ??= new SharePartition(startOffset);
      e.sp.resetTo(startOffset);
      await this.persist(e);
      this.armTimer(e);
      this.wakeWaiters(e);
    });
  }

  /**
   * Calls `wake` (once) when records of one of the group's share-partitions `parts` may be
   * acquirable again without an append; returns what stops the watch. ShareFetch's long poll.
   */
  onAvailable(groupId: string, parts: readonly { topicId: string; partition: number }[], wake: () => void): () => void {
    const ids = parts.map(({ topicId, partition }) => entryId({ groupId, topicId, partition }));
    let fired = false;
    const once = (): void => {
      if (fired) return;
      fired = true;
      stop();
      wake();
    };
    const stop = (): void => {
      for (const id of ids) {
        const set = this.availabilityWaiters.get(id);
        if (!set) continue;
        set.delete(once);
        if (set.size === 0) this.availabilityWaiters.delete(id);
      }
    };
    for (const id of ids) {
      let set = this.availabilityWaiters.get(id);
      if (!set) this.availabilityWaiters.set(id, (set = new Set()));
      set.add(once);
    }
    return stop;
  }

  private wakeWaiters(e: Entry): void {
    const set = this.availabilityWaiters.get(entryId(e.key));
    if (!set) return;
    for (const w of [...set]) w();
  }

  /** Forgets share-partitions (DeleteShareGroupOffsets, DeleteGroups). */
  async forget(keys: ShareStateKey[]): Promise<void> {
    for (const k of keys) {
      const e = this.entries.get(entryId(k));
      if (e) {
        await e.queue.run(() => {
          e.timer?.cancel();
          this.entries.delete(entryId(k));
        });
      }
    }
    await this.persister.delete(keys);
  }

  /**
   * A share-partition's start offset, leader epoch and lag (DescribeShareGroupOffsets): -1s when
   * it has no state. Lag = the partition's high watermark - start offset - the records above the
   * start already acknowledged or archived (Kafka's delivery-complete count); -1 when this broker
   * cannot see the high watermark.
   */
  async offsetsOf(key: ShareStateKey): Promise<{ startOffset: number; leaderEpoch: number; lag: number }> {
    const name = this.broker.metadataCache.topicById(key.topicId)?.name ?? '';
    const part = this.broker.replicaManager.getPartition(name, key.partition);
    const hw = part?.isLeader ? part.log.highWatermark : -1;
    const e = this.entries.get(entryId(key));
    if (e?.sp) {
      const c = e.sp.counts();
      return { startOffset: e.sp.startOffset, leaderEpoch: Math.max(0, part?.leaderEpoch ?? 0), lag: hw < 0 ? -1 : Math.max(0, hw - e.sp.startOffset - c.acknowledged - c.archived) };
    }
    const s = await this.persister.read(key);
    if (!s || s.startOffset < 0) return { startOffset: -1, leaderEpoch: -1, lag: -1 };
    let done = 0;
    for (const b of s.stateBatches) if (b.deliveryState === 2 || b.deliveryState === 4) done += b.lastOffset - Math.max(b.firstOffset, s.startOffset) + 1;
    return { startOffset: s.startOffset, leaderEpoch: s.leaderEpoch, lag: hw < 0 ? -1 : Math.max(0, hw - s.startOffset - done) };
  }

  shutdown(): void {
    for (const e of this.entries.values()) e.timer?.cancel();
  }
}

export type { PartitionData };
