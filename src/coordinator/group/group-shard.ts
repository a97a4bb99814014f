/**
 * One `__consumer_offsets` partition's group coordinator state (Kafka's GroupCoordinatorShard):
 * the classic groups, the KIP-848 consumer groups, the KIP-932 share groups, the KIP-1071 streams
 * groups and the committed offsets of every group that
 * hashes to this partition. Replay dispatches records to the managers; DeleteGroups and offset
 * retention need them all.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { CoordinatorResult, CoordinatorShard, ShardContext } from '../runtime/runtime.js';
import type { GroupConfig } from './group-config.js';
import { GroupMetadataManager } from './group-metadata-manager.js';
import { OffsetMetadataManager } from './offset-metadata-manager.js';
import type { GroupCoordinatorRecord } from './records.js';
import type { TxnProducer } from '../runtime/coordinator-log.js';
import { ConsumerGroupManager } from './consumer-group-manager.js';
import { ConsumerGroupQueries } from './consumer-group-queries.js';
import { isConsumerGroupRecord } from './consumer-group-records.js';
import { NO_TOPICS, type TopicView } from './topic-view.js';
import type { GroupConfigLookup } from './group-configs.js';
import { ShareGroupManager } from './share-group-manager.js';
import { isShareGroupRecord } from './share-group-records.js';
import { defaultShareGroupConfig, shareConfigOfGroup } from '../share/share-config.js';
import { StreamsGroupManager } from './streams-group-manager.js';
import { StreamsGroupQueries } from './streams-group-queries.js';
import { isStreamsGroupRecord } from './streams-group-records.js';

type Rec = GroupCoordinatorRecord;

const EXPIRATION_KEY = 'expire-group-metadata';

export class GroupCoordinatorShard implements CoordinatorShard<Rec> {
  readonly groups: GroupMetadataManager;
  readonly offsets: OffsetMetadataManager;
  readonly consumer: ConsumerGroupManager;
  readonly consumerQueries: ConsumerGroupQueries;
  readonly share: ShareGroupManager;
  readonly streams: StreamsGroupManager;
  readonly streamsQueries: StreamsGroupQueries;

  constructor(private readonly ctx: ShardContext<Rec>, private readonly config: GroupConfig, topics: TopicView = NO_TOPICS, groupConfigs?: GroupConfigLookup) {
    this.groups = new GroupMetadataManager(ctx, config);
    this.offsets = new OffsetMetadataManager(ctx, config, this.groups);
    this.consumer = new ConsumerGroupManager(ctx, config, this.groups, topics, groupConfigs);
    this.consumerQueries = new ConsumerGroupQueries(this.consumer, topics, (id) => this.groups.groups.has(id) || this.streams.groups.has(id));
    this.offsets.consumerGroups = this.consumerQueries;
    const shareBase = config.share ?? defaultShareGroupConfig();
    this.share = new ShareGroupManager(ctx, (groupId) => shareConfigOfGroup(shareBase, groupConfigs, groupId), topics, (id) => this.groups.groups.has(id) || this.consumer.groups.has(id) || this.streams.groups.has(id));
    const isShareGroup = (id: string) => this.share.has(id);
    this.groups.isShareGroup = isShareGroup;
    this.offsets.isShareGroup = isShareGroup;
    this.consumer.isShareGroup = isShareGroup;
    this.streams = new StreamsGroupManager(ctx, this.groups, topics, { groupConfigs, maxSize: config.streams?.maxSize });
    this.streams.isOtherGroup = (id) => this.consumer.groups.has(id) || this.share.has(id);
    this.streamsQueries = new StreamsGroupQueries(this.streams, topics, (id) => this.groupTypeOf(id));
    this.offsets.streamsGroups = this.streamsQueries;
    // A streams group's id is taken: consumer-protocol and share joins to it are refused.
    this.groups.isShareGroup = (id) => isShareGroup(id) || this.streams.groups.has(id);
    this.consumer.isShareGroup = (id) => isShareGroup(id) || this.streams.groups.has(id);
  }

  /** The type of the group of this id ('classic', 'consumer', 'share', 'streams'), or null. */
  groupTypeOf(groupId: string): string | null {
    if (this.streams.groups.has(groupId)) return 'streams';
    if (this.share.has(groupId)) return 'share';
    if (this.consumer.groups.has(groupId)) return 'consumer';
    const classic = this.groups.groups.get(groupId);
    return classic && !classic.is('Dead') ? 'classic' : null;
  }

  replay(record: Rec, txn?: TxnProducer, offset?: number): void {
    if (isShareGroupRecord(record)) this.share.replay(record);
    else if (isStreamsGroupRecord(record)) this.streams.replay(record);
    else if (isConsumerGroupRecord(record)) this.consumer.replay(record);
    else if (record.type === 'group') this.groups.replay(record);
    else if (txn) this.offsets.replayTransactional(txn.producerId, record, offset);
    else this.offsets.replay(record, offset);
  }

  replayEndTransaction(producerId: number, commit: boolean): void {
    this.offsets.completeTransaction(producerId, commit);
  }

  onLoaded(): void {
    this.groups.onLoaded();
    this.consumer.onLoaded();
    this.share.onLoaded();
    this.streams.onLoaded();
    this.scheduleExpiration();
  }

  onUnloaded(): void {
    this.groups.onUnloaded();
  }

  /** DeleteGroups: Empty groups lose their offsets and their metadata (tombstones). */
  deleteGroups(groupIds: string[]): CoordinatorResult<{ groupId: string; errorCode: number }[], Rec> {
    const records: Rec[] = [];
    const results = groupIds.map((groupId) => {
      const streams = this.streamsQueries.deletable(groupId);
      if (streams !== undefined) {
        if (streams === ErrorCode.NONE) records.push(...this.offsets.tombstonesFor(groupId), ...this.streamsQueries.groupTombstones(groupId));
        return { groupId, errorCode: streams };
      }
      const share = this.share.deletable(groupId);
      if (share !== undefined) {
        if (share === ErrorCode.NONE) records.push(...this.share.groupTombstones(groupId));
        return { groupId, errorCode: share };
      }
      const consumer = this.consumerQueries.deletable(groupId);
      if (consumer !== undefined) {
        if (consumer === ErrorCode.NONE) records.push(...this.offsets.tombstonesFor(groupId), ...this.consumerQueries.groupTombstones(groupId));
        return { groupId, errorCode: consumer };
      }
      const errorCode = this.groups.deletable(groupId);
      if (errorCode === ErrorCode.NONE) {
        records.push(...this.offsets.tombstonesFor(groupId));
        records.push(this.groups.groupTombstone(groupId));
      }
      return { groupId, errorCode };
    });
    return { records, response: () => results };
  }

  /**
   * A topic was deleted: its committed offsets go in every group (Kafka's onPartitionsDeleted), and
   * an Empty group left without offsets is deleted too.
   */
  onTopicDeleted(topic: string): CoordinatorResult<void, Rec> {
    const records: Rec[] = [];
    for (const { groupId, records: tombstones } of this.offsets.tombstonesForTopic(topic)) {
      records.push(...tombstones);
      const group = this.groups.groups.get(groupId);
      const othersLeft = [...(this.offsets.offsets.get(groupId)?.keys() ?? [])].some((t) => t !== topic);
      if (group && !othersLeft && group.is('Empty') && group.pendingMembers.size === 0) records.push(this.groups.groupTombstone(groupId));
    }
    return { records, response: () => undefined };
  }

  private scheduleExpiration(): void {
    this.ctx.schedule(EXPIRATION_KEY, this.config.offsetsRetentionCheckIntervalMs, () => this.expireGroupMetadata());
  }

  /** Periodic: expired offsets are deleted; Empty groups left without offsets are deleted. */
  expireGroupMetadata(): CoordinatorResult<void, Rec> {
    const now = this.ctx.now();
    const records: Rec[] = [];
    for (const group of this.groups.groups.values()) {
      const { records: tombstones, remaining } = this.offsets.expired(group, now);
      records.push(...tombstones);
      if (remaining === 0 && group.is('Empty') && group.pendingMembers.size === 0) records.push(this.groups.groupTombstone(group.groupId));
    }
    for (const g of this.streamsQueries.forExpiration()) {
      const { records: tombstones, remaining } = this.offsets.expiredByCommitTime(g.groupId, now, g.empty ? new Set() : g.subscribed);
      records.push(...tombstones);
      if (remaining === 0 && g.empty) records.push(...this.streamsQueries.groupTombstones(g.groupId));
    }
    for (const g of this.consumerQueries.forExpiration()) {
      const { records: tombstones, remaining } = this.offsets.expiredByCommitTime(g.groupId, now, g.empty ? new Set() : g.subscribed);
      records.push(...tombstones);
      if (remaining === 0 && g.empty) records.push(...this.consumerQueries.groupTombstones(g.groupId));
    }
    if (records.length > 0) this.ctx.logger.info(`group coordinator partition ${this.ctx.partition}: expiring ${records.length} records`);
    this.scheduleExpiration();
    return { records, response: () => undefined };
  }
}
