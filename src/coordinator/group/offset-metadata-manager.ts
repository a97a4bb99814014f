/**
 * Committed offsets of one coordinator shard (Kafka's OffsetMetadataManager): OffsetCommit,
 * OffsetFetch, OffsetDelete and the retention of offsets of empty groups. Every change is an
 * OffsetCommit record (tombstone = deleted) applied by `replay`.
 *
 * Commit validation follows ClassicGroup.validateOffsetCommit: generation -1 with no member is
 * an "assign mode" commit (kcat, librdkafka assign()), accepted for Empty groups and groups that
 * do not exist (those become simple Empty groups on replay); a member commit must come from a
 * known member of the current generation, and not while the group is CompletingRebalance.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { CoordinatorResult, ShardContext } from '../runtime/runtime.js';
import type { ClassicGroup } from './classic-group.js';
import type { GroupConfig } from './group-config.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import type { GroupCoordinatorRecord, OffsetCommitRecord } from './records.js';
import type { ConsumerGroupQueries } from './consumer-group-queries.js';
import type { StreamsGroupQueries } from './streams-group-queries.js';

type Rec = GroupCoordinatorRecord;

export interface OffsetAndMetadata {
  offset: bigint;
  leaderEpoch: number;
  metadata: string;
  commitTimestampMs: number;
  /** Explicit expiry (OffsetCommit v2-4 retention_time_ms), else null. */
  expireTimestampMs: number | null;
  /** The commit record's offset in `__consumer_offsets`, when the log gave it. */
  recordOffset?: number;
}

export interface CommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** -1: the broker's offsets.retention.minutes applies. */
  retentionTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null }[] }[];
}

export interface PartitionCode {
  partitionIndex: number;
  errorCode: number;
}

export interface TopicCodes {
  name: string;
  partitions: PartitionCode[];
}

export interface FetchedPartition {
  partitionIndex: number;
  committedOffset: bigint;
  committedLeaderEpoch: number;
  metadata: string;
  errorCode: number;
}

export interface FetchedTopic {
  name: string;
  partitions: FetchedPartition[];
}

export class OffsetMetadataManager {
  /** Whether a share group has this id (set by the shard). */
  isShareGroup: (groupId: string) => boolean = () => false;
  /** group → topic → partition → offset */
  readonly offsets = new Map<string, Map<string, Map<number, OffsetAndMetadata>>>();

  constructor(private readonly ctx: ShardContext<Rec>, private readonly config: GroupConfig, private readonly groups: GroupMetadataManager) {}

  /**
   * TxnOffsetCommit offsets waiting for their transaction's marker, by producer id (Kafka's
   * pendingTransactionalOffsets): written to the log at once as the producer's transactional
   * batch, applied when its COMMIT marker lands in this partition, dropped on ABORT.
   */
  readonly pendingTxn = new Map<number, { record: OffsetCommitRecord; recordOffset?: number }[]>();

  replayTransactional(producerId: number, record: OffsetCommitRecord, recordOffset?: number): void {
    // A transactional tombstone is not something a TxnOffsetCommit writes; keep it pending like the rest.
    let list = this.pendingTxn.get(producerId);
    if (!list) this.pendingTxn.set(producerId, (list = []));
    list.push({ record, recordOffset });
  }

  /**
   * The producer's COMMIT or ABORT marker: its pending offsets become committed, or go. As in
   * Kafka, a committed transactional offset replaces the partition's offset only when its record
   * is later in the log than the one committed now (a plain commit made while the transaction
   * was open wins), so compaction of `__consumer_offsets` cannot change which one is current.
   */
  completeTransaction(producerId: number, commit: boolean): void {
    const list = this.pendingTxn.get(producerId);
    if (!list) return;
    this.pendingTxn.delete(producerId);
    if (!commit) return;
    for (const { record, recordOffset } of list) {
      const current = record.value === null ? undefined : this.offsets.get(record.groupId)?.get(record.topic)?.get(record.partition);
      if (current?.recordOffset !== undefined && recordOffset !== undefined && recordOffset < current.recordOffset) continue;
      this.replay(record, recordOffset);
    }
  }

  /** The records of a TxnOffsetCommit (written as the producer's transactional batch). */
  transactionalCommit(groupId: string, offsets: { topic: string; partition: number; offset: bigint; leaderEpoch: number; metadata: string }[]): OffsetCommitRecord[] {
    const now = BigInt(this.ctx.now());
    return offsets.map((o) => ({
      type: 'offset' as const, groupId, topic: o.topic, partition: o.partition,
      value: { offset: o.offset, leaderEpoch: o.leaderEpoch, metadata: o.metadata, commitTimestamp: now, expireTimestamp: -1n },
    }));
  }

  replay(r: GroupCoordinatorRecord, recordOffset?: number): void {
    if (r.type !== 'offset') return;
    const v = r.value;
    if (v === null) {
      // A tombstone also drops the partition's pending transactional offsets (Kafka's replay).
      for (const list of this.pendingTxn.values()) {
        for (let i = list.length - 1; i >= 0; i--) {
          const p = list[i].record;
          if (p.groupId === r.groupId && p.topic === r.topic && p.partition === r.partition) list.splice(i, 1);
        }
      }
      const topics = this.offsets.get(r.groupId);
      const parts = topics?.get(r.topic);
      if (!topics || !parts) return;
      parts.delete(r.partition);
      if (parts.size === 0) topics.delete(r.topic);
      if (topics.size === 0) this.offsets.delete(r.groupId);
      return;
    }
    // Offsets without a group (assign-mode commits) make a simple Empty group, as in Kafka.
    if (!this.consumerGroups?.has(r.groupId) && !this.streamsGroups?.has(r.groupId)) this.groups.getOrCreate(r.groupId);
    let topics = this.offsets.get(r.groupId);
    if (!topics) this.offsets.set(r.groupId, (topics = new Map()));
    let parts = topics.get(r.topic);
    if (!parts) topics.set(r.topic, (parts = new Map()));
    parts.set(r.partition, {
      offset: v.offset,
      leaderEpoch: v.leaderEpoch,
      metadata: v.metadata,
      commitTimestampMs: Number(v.commitTimestamp),
      expireTimestampMs: v.expireTimestamp === -1n ? null : Number(v.expireTimestamp),
      recordOffset,
    });
  }

  /** The shard's consumer groups (set by the shard): their commits and deletions are checked there. */
  consumerGroups?: ConsumerGroupQueries;
  /** The shard's streams groups (set by the shard), checked like consumer groups. */
  streamsGroups?: StreamsGroupQueries;

  /**
   * Expiration for a consumer group (Kafka's ConsumerGroup offset expiration condition): an
   * offset expires `offsets.retention` after its commit unless a member subscribes to its topic.
   */
  expiredByCommitTime(groupId: string, nowMs: number, subscribed: Set<string>): { records: OffsetCommitRecord[]; remaining: number } {
    const records: OffsetCommitRecord[] = [];
    let remaining = 0;
    for (const [topic, parts] of this.offsets.get(groupId) ?? []) {
      for (const [p, o] of parts) {
        const due = o.expireTimestampMs !== null ? nowMs >= o.expireTimestampMs : nowMs - o.commitTimestampMs >= this.config.offsetsRetentionMs;
        if (!subscribed.has(topic) && due) records.push(this.tombstone(groupId, topic, p));
        else remaining++;
      }
    }
    return { records, remaining };
  }

  hasOffsets(groupId: string): boolean {
    return this.offsets.has(groupId);
  }

  /**
   * Group-level validation of a commit (ClassicGroup.validateOffsetCommit); NONE when the commit
   * may proceed. A transactional commit (TxnOffsetCommit, TO3-TO5) to a missing group is
   * ILLEGAL_GENERATION on every version, and needs no member with generation -1 nor a group
   * outside CompletingRebalance.
   */
  validateCommit(req: Pick<CommitRequest, 'groupId' | 'generationId' | 'memberId' | 'groupInstanceId'>, apiVersion: number, transactional = false): number {
    const consumer = this.consumerGroups?.validateOffsetCommit(req, apiVersion, transactional);
    if (consumer !== undefined) return consumer;
    const streams = this.streamsGroups?.validateOffsetCommit(req, apiVersion, transactional);
    if (streams !== undefined) return streams;
    // Share groups keep no committed offsets (Kafka: GROUP_ID_NOT_FOUND).
    if (this.isShareGroup(req.groupId)) return ErrorCode.GROUP_ID_NOT_FOUND;
    const group = this.groups.groups.get(req.groupId);
    if (!group) {
      if (req.generationId < 0) return ErrorCode.NONE;
      return apiVersion >= 9 && !transactional ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
    }
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (req.generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
    if (req.generationId >= 0 || req.memberId !== '' || req.groupInstanceId !== null) {
      const invalid = group.validateMember(req.memberId, req.groupInstanceId);
      if (invalid !== ErrorCode.NONE) return invalid;
      if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    } else if (!transactional && !group.is('Empty')) {
      return ErrorCode.UNKNOWN_MEMBER_ID;
    }
    if (!transactional && group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    return ErrorCode.NONE;
  }

  commit(req: CommitRequest, apiVersion: number): CoordinatorResult<TopicCodes[], Rec> {
    const groupError = this.validateCommit(req, apiVersion);
    const now = this.ctx.now();
    const records: OffsetCommitRecord[] = [];
    const topics: TopicCodes[] = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        if (groupError !== ErrorCode.NONE) return { partitionIndex: p.partitionIndex, errorCode: groupError };
        const metadata = p.committedMetadata ?? '';
        if (Buffer.byteLength(metadata, 'utf8') > this.config.offsetMetadataMaxBytes) {
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE };
        }
        records.push({
          type: 'offset', groupId: req.groupId, topic: t.name, partition: p.partitionIndex,
          value: {
            offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata,
            commitTimestamp: BigInt(now),
            expireTimestamp: req.retentionTimeMs >= 0 ? BigInt(now + req.retentionTimeMs) : -1n,
          },
        });
        return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      }),
    }));
    return { records, response: () => topics };
  }

  /**
   * Committed offsets; `topics` null = every committed partition of the group. `requireStable`
   * (OffsetFetch v7+): a partition with a transactional commit still pending answers
   * UNSTABLE_OFFSET_COMMIT and offset -1 (OF4), for named partitions and, as Kafka's
   * fetchAllOffsets, for the committed ones listed when `topics` is null. The read and the
   * pending check run in this one shard operation: the COMMIT marker that turns a pending offset
   * into a committed one runs through the same queue, so the answer is never the stale "no offset"
   * of a check made after the marker landed.
   */
  fetch(groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null, requireStable = false): FetchedTopic[] {
    const committed = this.offsets.get(groupId);
    const pending = requireStable ? this.pendingPartitionsOf(groupId) : null;
    const entry = (topic: string, p: number, o: OffsetAndMetadata | undefined): FetchedPartition => {
      if (pending?.has(`${topic}\u0000${p}`)) return { partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT };
      return o
        ? { partitionIndex: p, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch, metadata: o.metadata, errorCode: ErrorCode.NONE }
        : { partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE };
    };
    if (topics === null) {
      if (!committed) return [];
      return [...committed].map(([name, parts]) => ({
        name,
        partitions: [...parts].sort((a, b) => a[0] - b[0]).map(([p, o]) => entry(name, p, o)),
      }));
    }
    return topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => entry(t.name, p, committed?.get(t.name)?.get(p))) }));
  }

  /** The `topic\0partition` keys of the group with a transactional commit awaiting its marker (null: none). */
  private pendingPartitionsOf(groupId: string): Set<string> | null {
    let out: Set<string> | null = null;
    for (const list of this.pendingTxn.values()) {
      for (const { record: r } of list) if (r.groupId === groupId) (out ??= new Set()).add(`${r.topic}\u0000${r.partition}`);
    }
    return out;
  }

  /** OffsetDelete: top-level error, or per-partition codes and the tombstones to write. */
  deleteOffsets(groupId: string, topics: { name: string; partitions: { partitionIndex: number }[] }[]): CoordinatorResult<{ errorCode: number; topics: TopicCodes[] }, Rec> {
    const group = this.groups.groups.get(groupId);
    const whole = (errorCode: number) => ({ records: [], response: () => ({ errorCode, topics: [] as TopicCodes[] }) });
    const consumerSubscribed = this.consumerGroups?.subscribedTopics(groupId) ?? this.streamsGroups?.subscribedTopics(groupId);
    if (consumerSubscribed === undefined && (!group || group.is('Dead'))) return whole(ErrorCode.GROUP_ID_NOT_FOUND);
    let subscribed: Set<string> | null = consumerSubscribed ?? new Set();
    if (consumerSubscribed === undefined && group && !group.is('Empty')) {
      if (group.protocolType !== 'consumer') return whole(ErrorCode.NON_EMPTY_GROUP);
      subscribed = group.subscribedTopics();
    }
    const committed = this.offsets.get(groupId);
    const records: OffsetCommitRecord[] = [];
    const out: TopicCodes[] = topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map(({ partitionIndex }) => {
        if (subscribed === null || subscribed.has(t.name)) return { partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
        if (committed?.get(t.name)?.has(partitionIndex)) records.push(this.tombstone(groupId, t.name, partitionIndex));
        return { partitionIndex, errorCode: ErrorCode.NONE };
      }),
    }));
    return { records, response: () => ({ errorCode: ErrorCode.NONE, topics: out }) };
  }

  tombstone(groupId: string, topic: string, partition: number): OffsetCommitRecord {
    return { type: 'offset', groupId, topic, partition, value: null };
  }

  /** Tombstones for every offset of the group (DeleteGroups). */
  /** Tombstones for every committed offset of `topic`, in every group of this shard (topic deleted). */
  tombstonesForTopic(topic: string): { groupId: string; records: OffsetCommitRecord[] }[] {
    const out: { groupId: string; records: OffsetCommitRecord[] }[] = [];
    for (const [groupId, topics] of this.offsets) {
      const parts = topics.get(topic);
      if (parts && parts.size > 0) out.push({ groupId, records: [...parts.keys()].map((p) => this.tombstone(groupId, topic, p)) });
    }
    return out;
  }

  tombstonesFor(groupId: string): OffsetCommitRecord[] {
    const out: OffsetCommitRecord[] = [];
    for (const [topic, parts] of this.offsets.get(groupId) ?? []) for (const p of parts.keys()) out.push(this.tombstone(groupId, topic, p));
    return out;
  }

  /**
   * Offsets past retention (Kafka's cleanupExpiredOffsets): in an Empty group with a protocol
   * type, counted from when the group became Empty; in a simple group (no protocol type), from
   * the commit; in a Stable consumer group, only offsets of topics no member subscribes to, from
   * the commit. An explicit expire timestamp wins. Returns the tombstones and how many offsets
   * the group keeps.
   */
  expired(group: ClassicGroup, nowMs: number): { records: OffsetCommitRecord[]; remaining: number } {
    const committed = this.offsets.get(group.groupId);
    if (!committed) return { records: [], remaining: 0 };
    let baseOf: ((o: OffsetAndMetadata, topic: string) => number | null);
    if (group.protocolType === null) {
      baseOf = (o) => o.commitTimestampMs;
    } else if (group.is('Empty')) {
      baseOf = () => group.stateTimestampMs;
    } else if (group.is('Stable') && group.protocolType === 'consumer') {
      const subscribed = group.subscribedTopics();
      baseOf = (o, topic) => (subscribed && !subscribed.has(topic) ? o.commitTimestampMs : null);
    } else {
      baseOf = () => null;
    }
    const records: OffsetCommitRecord[] = [];
    let remaining = 0;
    for (const [topic, parts] of committed) {
      for (const [p, o] of parts) {
        const base = baseOf(o, topic);
        const expired = base !== null && (o.expireTimestampMs !== null ? nowMs >= o.expireTimestampMs : nowMs - base >= this.config.offsetsRetentionMs);
        if (expired) records.push(this.tombstone(group.groupId, topic, p));
        else remaining++;
      }
    }
    return { records, remaining };
  }
}
