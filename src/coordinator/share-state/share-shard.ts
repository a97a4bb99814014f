/**
 * One `__share_group_state` partition's share coordinator state (Kafka 4.4's
 * ShareCoordinatorShard): for every share-partition (group, topic id, partition) hashed to it, the
 * state its leader persisted, rebuilt by replaying ShareSnapshot and ShareUpdate records.
 *
 * Rules, as Kafka 4.4 applies them (read from its ShareCoordinatorShard):
 * - InitializeShareGroupState writes a ShareSnapshot (snapshot epoch + 1, the request's state
 *   epoch and start offset, leader epoch 0, no batches): a fresh start, nothing merged. Refused
 *   with FENCED_STATE_EPOCH when the known state epoch is newer.
 * - WriteShareGroupState on an initialised share-partition writes a ShareUpdate (its batches, the
 *   start offset = max(request, known)) or, once `snapshot.update.records.per.snapshot` updates
 *   followed the last snapshot, a ShareSnapshot of the merged state (snapshot epoch + 1). A write
 *   keeps the known leader and state epochs. Refused: INVALID_REQUEST for a negative partition,
 *   leader or state epoch or an uninitialised share-partition, FENCED_LEADER_EPOCH /
 *   FENCED_STATE_EPOCH when the known epoch is newer, UNKNOWN_TOPIC_OR_PARTITION for a topic
 *   partition that does not exist.
 * - ReadShareGroupState answers the merged state; a read at another leader epoch than known records
 *   it (a ShareUpdate or ShareSnapshot with that leader epoch), which fences writes of older
 *   leaders. Refused like a write (no state-epoch check).
 * - ReadShareGroupStateSummary answers start offset, epochs and delivery-complete count (-1s for
 *   an unknown share-partition).
 * - DeleteShareGroupState writes the tombstone (nothing for an unknown share-partition).
 * - Replay: a snapshot replaces the state, an update is merged into it (mergeStateBatches, batches
 *   below the start offset dropped), a tombstone forgets the share-partition. Leader and state
 *   epochs only grow.
 *
 * - A deleted topic's share-partitions get tombstones (onTopicsDeleted).
 * - Pruning (Kafka's ShareCoordinatorOffsetsManager): the offset of each share-partition's latest
 *   snapshot (or tombstone) is kept; every record below the smallest of them is redundant
 *   (`lastRedundantOffset`), and the coordinator deletes them (DeleteRecords on its leader log).
 *   Share-partitions nobody wrote for `share.coordinator.cold.partition.snapshot.interval.ms` are
 *   snapshotted again (snapshotColdPartitions), so an idle one does not hold the pruning back.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { mergeStateBatches, type PersistedStateBatch } from '../share/persister.js';
import type { CoordinatorResult, CoordinatorShard, ShardContext } from '../runtime/runtime.js';
import type { ShareCoordinatorRecord, SharePartitionRecordKey, ShareSnapshotValue, ShareUpdateValue } from './records.js';

type Rec = ShareCoordinatorRecord;

/** Kafka's ShareGroupOffset: the state of one share-partition. */
export interface ShareGroupOffset {
  snapshotEpoch: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  deliveryCompleteCount: number;
  stateBatches: PersistedStateBatch[];
  createTimestamp: number;
  writeTimestamp: number;
}

export interface ShareStateSettings {
  /** share.coordinator.snapshot.update.records.per.snapshot */
  snapshotUpdateRecordsPerSnapshot: number;
  /** share.coordinator.cold.partition.snapshot.interval.ms; absent: no cold snapshots. */
  coldPartitionSnapshotIntervalMs?: number;
}

const COLD_SNAPSHOT_TIMER = 'snapshot-cold-partitions';

/** Partition counts of topics by id (Kafka's metadata image); null for an unknown topic. */
export type TopicPartitions = (topicId: string) => number | null;

export interface PartitionError {
  errorCode: number;
  errorMessage: string | null;
}

export interface WritePartition {
  partition: number;
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  /** -1: not known (WriteShareGroupState v0). */
  deliveryCompleteCount: number;
  stateBatches: PersistedStateBatch[];
}

export interface ReadResult extends PartitionError {
  stateEpoch: number;
  startOffset: number;
  stateBatches: PersistedStateBatch[];
}

export interface SummaryResult extends PartitionError {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: number;
  deliveryCompleteCount: number;
}

export const MESSAGES = {
  NULL_TOPIC_ID: 'The topic id cannot be null.',
  NEGATIVE_PARTITION_ID: 'The partition id cannot be a negative number.',
  NEGATIVE_LEADER_EPOCH: 'The leader epoch cannot be a negative number.',
  NEGATIVE_STATE_EPOCH: 'The state epoch cannot be a negative number.',
  WRITE_UNINITIALIZED_SHARE_PARTITION: 'Write operation on uninitialized share partition not allowed.',
  READ_UNINITIALIZED_SHARE_PARTITION: 'Read operation on uninitialized share partition not allowed.',
  FENCED_LEADER_EPOCH: 'The leader epoch in the request is older than the epoch on the broker.',
  FENCED_STATE_EPOCH: 'The coordinator rejected the request because the state epoch did not match.',
  UNKNOWN_TOPIC_OR_PARTITION: 'This server does not host this topic-partition.',
} as const;

const NONE: PartitionError = { errorCode: ErrorCode.NONE, errorMessage: null };
const err = (errorCode: number, errorMessage: string): PartitionError => ({ errorCode, errorMessage });

/** "groupId:topicId:partition", Kafka's SharePartitionKey.asCoordinatorKey. */
export function coordinatorKey(groupId: string, topicId: string, partition: number): string {
  return `${groupId}:${topicId}:${partition}`;
}

function toWireBatches(batches: readonly PersistedStateBatch[]) {
  return batches.map((b) => ({ firstOffset: BigInt(b.firstOffset), lastOffset: BigInt(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount }));
}

function fromWireBatches(batches: readonly { firstOffset: bigint; lastOffset: bigint; deliveryState: number; deliveryCount: number }[]): PersistedStateBatch[] {
  return batches.map((b) => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount }));
}

function snapshotValue(s: ShareGroupOffset): ShareSnapshotValue {
  return {
    snapshotEpoch: s.snapshotEpoch, stateEpoch: s.stateEpoch, leaderEpoch: s.leaderEpoch, startOffset: BigInt(s.startOffset),
    createTimestamp: BigInt(s.createTimestamp), writeTimestamp: BigInt(s.writeTimestamp),
    stateBatches: toWireBatches(s.stateBatches), deliveryCompleteCount: s.deliveryCompleteCount,
  };
}

export class ShareCoordinatorShard implements CoordinatorShard<Rec> {
  /** Share-partition coordinator key → its state (Kafka's shareStateMap). */
  readonly shareStateMap = new Map<string, ShareGroupOffset>();
  private readonly leaderEpochMap = new Map<string, number>();
  private readonly stateEpochMap = new Map<string, number>();
  /** Updates replayed since the share-partition's last snapshot. */
  private readonly snapshotUpdateCount = new Map<string, number>();
  /** Offset of each share-partition's latest snapshot (ShareCoordinatorOffsetsManager.offsets). */
  private readonly snapshotOffsets = new Map<string, number>();
  private redundantOffset = Number.MAX_SAFE_INTEGER;

  constructor(private readonly ctx: ShardContext<Rec>, private readonly settings: ShareStateSettings, private readonly topics: TopicPartitions) {}

  replay(record: Rec, _txn?: unknown, offset?: number): void {
    const id = coordinatorKey(record.key.groupId, record.key.topicId, record.key.partition);
    if (record.type !== 'update' && offset !== undefined) this.updateOffsets(id, offset, record.type === 'tombstone');
    if (record.type === 'tombstone') {
      this.shareStateMap.delete(id);
      this.leaderEpochMap.delete(id);
      this.stateEpochMap.delete(id);
      this.snapshotUpdateCount.delete(id);
      return;
    }
    if (record.type === 'snapshot') {
      const v = record.value;
      this.raise(this.leaderEpochMap, id, v.leaderEpoch);
      this.raise(this.stateEpochMap, id, v.stateEpoch);
      this.shareStateMap.set(id, {
        snapshotEpoch: v.snapshotEpoch, stateEpoch: v.stateEpoch, leaderEpoch: v.leaderEpoch, startOffset: Number(v.startOffset),
        deliveryCompleteCount: v.deliveryCompleteCount, stateBatches: fromWireBatches(v.stateBatches),
        createTimestamp: Number(v.createTimestamp), writeTimestamp: Number(v.writeTimestamp),
      });
      // Kafka resets the count only once it reached the limit (the snapshot the limit caused).
      const n = this.snapshotUpdateCount.get(id);
      if (n !== undefined && n >= this.settings.snapshotUpdateRecordsPerSnapshot) this.snapshotUpdateCount.set(id, 0);
      return;
    }
    const v = record.value;
    this.raise(this.leaderEpochMap, id, v.leaderEpoch);
    const prev = this.shareStateMap.get(id);
    const startOffset = Number(v.startOffset);
    const batches = fromWireBatches(v.stateBatches);
    if (!prev) {
      this.shareStateMap.set(id, {
        snapshotEpoch: v.snapshotEpoch, stateEpoch: 0, leaderEpoch: v.leaderEpoch, startOffset, deliveryCompleteCount: v.deliveryCompleteCount,
        stateBatches: mergeStateBatches([], batches, startOffset), createTimestamp: 0, writeTimestamp: 0,
      });
    } else {
      const newStart = startOffset === -1 ? prev.startOffset : startOffset;
      this.shareStateMap.set(id, {
        ...prev,
        startOffset: newStart,
        leaderEpoch: v.leaderEpoch === -1 ? prev.leaderEpoch : v.leaderEpoch,
        deliveryCompleteCount: v.deliveryCompleteCount,
        stateBatches: mergeStateBatches(prev.stateBatches, batches, newStart),
      });
    }
    this.snapshotUpdateCount.set(id, (this.snapshotUpdateCount.get(id) ?? 0) + 1);
  }

  private raise(map: Map<string, number>, id: string, epoch: number): void {
    const known = map.get(id);
    if (known === undefined || known < epoch) map.set(id, epoch);
  }

  /** ShareCoordinatorOffsetsManager.updateState: the smallest latest-snapshot offset of all share-partitions. */
  private updateOffsets(id: string, offset: number, deleted: boolean): void {
    this.redundantOffset = Math.min(offset, this.redundantOffset);
    this.snapshotOffsets.set(id, offset);
    let min = Number.MAX_SAFE_INTEGER;
    for (const o of this.snapshotOffsets.values()) min = Math.min(min, o);
    this.redundantOffset = min;
    if (deleted) this.snapshotOffsets.delete(id);
  }

  /** Records below this offset are redundant (null: none known yet). */
  lastRedundantOffset(): number | null {
    return this.redundantOffset <= 0 || this.redundantOffset === Number.MAX_SAFE_INTEGER ? null : this.redundantOffset;
  }

  onLoaded(): void {
    this.scheduleColdSnapshots();
  }

  onUnloaded(): void {}

  private scheduleColdSnapshots(): void {
    const interval = this.settings.coldPartitionSnapshotIntervalMs;
    if (interval === undefined) return;
    this.ctx.schedule(COLD_SNAPSHOT_TIMER, interval, () => {
      const result = this.snapshotColdPartitions();
      this.scheduleColdSnapshots();
      return result;
    });
  }

  /**
   * Kafka's snapshotColdPartitions: a new snapshot (same state, snapshot epoch + 1, write time now)
   * of every share-partition whose last snapshot is older than the interval, unless every
   * share-partition already had such a snapshot (a quiet coordinator).
   */
  snapshotColdPartitions(): CoordinatorResult<void, Rec> {
    const interval = this.settings.coldPartitionSnapshotIntervalMs ?? Infinity;
    const states = [...this.shareStateMap];
    const cold = states.filter(([, s]) => s.createTimestamp - s.writeTimestamp !== 0).length;
    if (cold === states.length) return { records: [], response: () => undefined };
    const now = this.ctx.now();
    const records: Rec[] = [];
    for (const [id, s] of states) {
      if (now - s.writeTimestamp < interval) continue;
      const last = id.lastIndexOf(':');
      const prev = id.lastIndexOf(':', last - 1);
      const key = { groupId: id.slice(0, prev), topicId: id.slice(prev + 1, last), partition: Number(id.slice(last + 1)) };
      records.push({ type: 'snapshot', key, value: snapshotValue({ ...s, snapshotEpoch: s.snapshotEpoch + 1, writeTimestamp: now }) });
    }
    return { records, response: () => undefined };
  }

  /** The state of one share-partition (tests, read-only). */
  stateOf(groupId: string, topicId: string, partition: number): ShareGroupOffset | undefined {
    return this.shareStateMap.get(coordinatorKey(groupId, topicId, partition));
  }

  private unknownPartition(topicId: string, partition: number): boolean {
    const count = this.topics(topicId);
    return count === null || count <= partition;
  }

  // -------------------------------------------------------------------------------------------
  // Operations (one share-partition each, as ShareCoordinatorService splits requests)

  writeState(groupId: string, topicId: string, pd: WritePartition): CoordinatorResult<PartitionError, Rec> {
    const id = coordinatorKey(groupId, topicId, pd.partition);
    const refuse = (e: PartitionError): CoordinatorResult<PartitionError, Rec> => ({ records: [], response: () => e });
    if (pd.partition < 0) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_PARTITION_ID));
    if (pd.leaderEpoch < 0) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_LEADER_EPOCH));
    if (pd.stateEpoch < 0) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_STATE_EPOCH));
    if (!this.shareStateMap.has(id)) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.WRITE_UNINITIALIZED_SHARE_PARTITION));
    if ((this.leaderEpochMap.get(id) ?? -Infinity) > pd.leaderEpoch) return refuse(err(ErrorCode.FENCED_LEADER_EPOCH, MESSAGES.FENCED_LEADER_EPOCH));
    if ((this.stateEpochMap.get(id) ?? -Infinity) > pd.stateEpoch) return refuse(err(ErrorCode.FENCED_STATE_EPOCH, MESSAGES.FENCED_STATE_EPOCH));
    if (this.unknownPartition(topicId, pd.partition)) return refuse(err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, MESSAGES.UNKNOWN_TOPIC_OR_PARTITION));
    return { records: [this.stateRecord({ groupId, topicId, partition: pd.partition }, pd, false)], response: () => NONE };
  }

  /**
   * Kafka's generateShareStateRecord: a ShareUpdate, or a ShareSnapshot of the merged state once
   * the updates since the last snapshot reached the limit. `updateLeaderEpoch`: a read at a new
   * leader epoch records it; a write keeps the known one.
   */
  private stateRecord(key: SharePartitionRecordKey, pd: WritePartition, updateLeaderEpoch: boolean): Rec {
    const id = coordinatorKey(key.groupId, key.topicId, key.partition);
    const current = this.shareStateMap.get(id)!;
    const now = this.ctx.now();
    const leaderEpoch = updateLeaderEpoch ? pd.leaderEpoch : current.leaderEpoch;
    const startOffset = Math.max(pd.startOffset, current.startOffset);
    let deliveryCompleteCount = pd.deliveryCompleteCount;
    if (pd.startOffset === current.startOffset) deliveryCompleteCount = Math.max(pd.deliveryCompleteCount, current.deliveryCompleteCount);
    else if (pd.startOffset < current.startOffset) deliveryCompleteCount = current.deliveryCompleteCount;
    if ((this.snapshotUpdateCount.get(id) ?? 0) >= this.settings.snapshotUpdateRecordsPerSnapshot) {
      return {
        type: 'snapshot', key,
        value: snapshotValue({
          snapshotEpoch: current.snapshotEpoch + 1, stateEpoch: current.stateEpoch, leaderEpoch, startOffset, deliveryCompleteCount,
          stateBatches: mergeStateBatches(current.stateBatches, pd.stateBatches, startOffset), createTimestamp: now, writeTimestamp: now,
        }),
      };
    }
    const update: ShareUpdateValue = {
      snapshotEpoch: current.snapshotEpoch, leaderEpoch, startOffset: BigInt(startOffset), deliveryCompleteCount,
      stateBatches: toWireBatches(mergeStateBatches([], pd.stateBatches, startOffset)),
    };
    return { type: 'update', key, value: update };
  }

  readStateAndMaybeUpdateLeaderEpoch(groupId: string, topicId: string, partition: number, leaderEpoch: number): CoordinatorResult<ReadResult, Rec> {
    const id = coordinatorKey(groupId, topicId, partition);
    const refuse = (e: PartitionError): CoordinatorResult<ReadResult, Rec> => ({ records: [], response: () => ({ ...e, stateEpoch: 0, startOffset: 0, stateBatches: [] }) });
    if (partition < 0) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_PARTITION_ID));
    if (leaderEpoch < 0) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_LEADER_EPOCH));
    const current = this.shareStateMap.get(id);
    if (!current) return refuse(err(ErrorCode.INVALID_REQUEST, MESSAGES.READ_UNINITIALIZED_SHARE_PARTITION));
    const known = this.leaderEpochMap.get(id);
    if (known !== undefined && known > leaderEpoch) return refuse(err(ErrorCode.FENCED_LEADER_EPOCH, MESSAGES.FENCED_LEADER_EPOCH));
    if (this.unknownPartition(topicId, partition)) return refuse(err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, MESSAGES.UNKNOWN_TOPIC_OR_PARTITION));
    const result: ReadResult = { ...NONE, stateEpoch: current.stateEpoch, startOffset: current.startOffset, stateBatches: current.stateBatches.map((b) => ({ ...b })) };
    if (known === leaderEpoch) return { records: [], response: () => result };
    const record = this.stateRecord({ groupId, topicId, partition }, {
      partition, leaderEpoch, stateBatches: [], startOffset: current.startOffset,
      deliveryCompleteCount: current.deliveryCompleteCount, stateEpoch: current.stateEpoch,
    }, true);
    return { records: [record], response: () => result };
  }

  readStateSummary(groupId: string, topicId: string, partition: number): CoordinatorResult<SummaryResult, Rec> {
    const blank = { stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: 0 };
    if (partition < 0) return { records: [], response: () => ({ ...err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_PARTITION_ID), ...blank }) };
    if (this.unknownPartition(topicId, partition)) return { records: [], response: () => ({ ...err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, MESSAGES.UNKNOWN_TOPIC_OR_PARTITION), ...blank }) };
    const s = this.shareStateMap.get(coordinatorKey(groupId, topicId, partition));
    // PartitionFactory's UNINITIALIZED_START_OFFSET, UNINITIALIZED_DELIVERY_COMPLETE_COUNT, DEFAULT_LEADER_EPOCH, DEFAULT_STATE_EPOCH.
    const result: SummaryResult = s
      ? { ...NONE, stateEpoch: s.stateEpoch, leaderEpoch: s.leaderEpoch, startOffset: s.startOffset, deliveryCompleteCount: s.deliveryCompleteCount }
      : { ...NONE, stateEpoch: 0, leaderEpoch: 0, startOffset: -1, deliveryCompleteCount: -1 };
    return { records: [], response: () => result };
  }

  deleteState(groupId: string, topicId: string, partition: number): CoordinatorResult<PartitionError, Rec> {
    if (partition < 0) return { records: [], response: () => err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_PARTITION_ID) };
    if (this.unknownPartition(topicId, partition)) return { records: [], response: () => err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, MESSAGES.UNKNOWN_TOPIC_OR_PARTITION) };
    if (!this.shareStateMap.has(coordinatorKey(groupId, topicId, partition))) return { records: [], response: () => NONE };
    return { records: [{ type: 'tombstone', key: { groupId, topicId, partition } }], response: () => NONE };
  }

  initializeState(groupId: string, topicId: string, partition: number, stateEpoch: number, startOffset: number): CoordinatorResult<PartitionError, Rec> {
    const id = coordinatorKey(groupId, topicId, partition);
    if (partition < 0) return { records: [], response: () => err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_PARTITION_ID) };
    if (stateEpoch < 0) return { records: [], response: () => err(ErrorCode.INVALID_REQUEST, MESSAGES.NEGATIVE_STATE_EPOCH) };
    if ((this.stateEpochMap.get(id) ?? -Infinity) > stateEpoch) return { records: [], response: () => err(ErrorCode.FENCED_STATE_EPOCH, MESSAGES.FENCED_STATE_EPOCH) };
    if (this.unknownPartition(topicId, partition)) return { records: [], response: () => err(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, MESSAGES.UNKNOWN_TOPIC_OR_PARTITION) };
    const prev = this.shareStateMap.get(id);
    const now = this.ctx.now();
    const value = snapshotValue({
      snapshotEpoch: prev ? prev.snapshotEpoch + 1 : 0, stateEpoch, leaderEpoch: 0, startOffset,
      deliveryCompleteCount: startOffset === -1 ? -1 : 0, stateBatches: [], createTimestamp: now, writeTimestamp: now,
    });
    return { records: [{ type: 'snapshot', key: { groupId, topicId, partition }, value }], response: () => NONE };
  }

  /**
   * Topics were deleted: tombstones for the share-partitions of topics that no longer exist
   * (Kafka's maybeCleanupShareState, which gets the deleted ids from the metadata delta).
   */
  onTopicsDeleted(): CoordinatorResult<void, Rec> {
    const records: Rec[] = [];
    for (const id of this.shareStateMap.keys()) {
      const last = id.lastIndexOf(':');
      const prev = id.lastIndexOf(':', last - 1);
      const topicId = id.slice(prev + 1, last);
      if (this.topics(topicId) === null) records.push({ type: 'tombstone', key: { groupId: id.slice(0, prev), topicId, partition: Number(id.slice(last + 1)) } });
    }
    return { records, response: () => undefined };
  }
}
