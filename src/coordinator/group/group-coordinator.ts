/**
 * The group coordinator service (Kafka's GroupCoordinatorService): routes each group to its
 * `__consumer_offsets` partition (abs(javaStringHash(groupId)) % partitions), runs the request
 * as an operation on that shard, and owns the offsets topic's life cycle:
 *
 * - start-up: when `__consumer_offsets` exists, every partition is loaded (replayed) before the
 *   broker accepts connections;
 * - otherwise the topic is created on first use (FindCoordinator, or any group request), with
 *   cleanup.policy=compact and replication factor 1, then loaded;
 * - shutdown: parked JoinGroup/SyncGroup requests are answered NOT_COORDINATOR, queued
 *   operations finish, timers stop.
 */
import { KafkaApiError } from '../../errors.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { JoinGroupRequest } from '../../protocol/generated/messages/join-group-request.js';
import type { JoinGroupResponse } from '../../protocol/generated/messages/join-group-response.js';
import type { SyncGroupRequest } from '../../protocol/generated/messages/sync-group-request.js';
import type { SyncGroupResponse } from '../../protocol/generated/messages/sync-group-response.js';
import type { DescribedGroup } from '../../protocol/generated/messages/describe-groups-response.js';
import type { ListedGroup } from '../../protocol/generated/messages/list-groups-response.js';
import { type CoordinatorLog, MemoryCoordinatorLog, type TxnProducer } from '../runtime/coordinator-log.js';
import { CoordinatorRuntime, answer, type CoordinatorResult } from '../runtime/runtime.js';
import { CoordinatorLeadership } from '../runtime/coordinator-leadership.js';
import type { GroupConfig } from './group-config.js';
import type { GroupConfigLookup } from './group-configs.js';
import { GroupCoordinatorShard } from './group-shard.js';
import type { JoinContext, LeaveResult, LeavingMember } from './group-metadata-manager.js';
import { GROUP_AUTHORIZED_OPERATIONS } from './group-metadata-manager.js';
import type { CommitRequest, FetchedTopic, TopicCodes } from './offset-metadata-manager.js';
import { groupRecordSerde, type GroupCoordinatorRecord } from './records.js';
import type { ConsumerGroupHeartbeatRequest } from '../../protocol/generated/messages/consumer-group-heartbeat-request.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/generated/messages/consumer-group-heartbeat-response.js';
import type { DescribedGroup as ConsumerDescribedGroup } from '../../protocol/generated/messages/consumer-group-describe-response.js';
import type { HeartbeatContext } from './consumer-group-manager.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './consumer-group-queries.js';
import type { TopicView } from './topic-view.js';
import type { ShareHeartbeatContext } from './share-group-manager.js';
import type { ShareGroupHeartbeatRequest } from '../../protocol/generated/messages/share-group-heartbeat-request.js';
import type { ShareGroupHeartbeatResponse } from '../../protocol/generated/messages/share-group-heartbeat-response.js';
import type { DescribedGroup as ShareDescribedGroup } from '../../protocol/generated/messages/share-group-describe-response.js';
import type { StreamsGroupHeartbeatRequest } from '../../protocol/generated/messages/streams-group-heartbeat-request.js';
import type { DescribedGroup as StreamsDescribedGroup } from '../../protocol/generated/messages/streams-group-describe-response.js';
import type { StreamsHeartbeatContext, StreamsHeartbeatResult } from './streams-group-manager.js';

export const OFFSETS_TOPIC = '__consumer_offsets';

type Rec = GroupCoordinatorRecord;

/** Java's String.hashCode over UTF-16 code units. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's partitionFor: Utils.abs(hash) % partitions, where abs(MIN_INT) = 0. */
export function partitionForGroup(groupId: string, partitions: number): number {
  const h = javaStringHash(groupId);
  return (h === -2147483648 ? 0 : Math.abs(h)) % partitions;
}

/** Access to the `__consumer_offsets` topic. */
export interface OffsetsTopic {
  /** Its partition count, or null while it does not exist. */
  partitions(): number | null;
  create(numPartitions: number): Promise<void>;
  log(partition: number): CoordinatorLog;
  /**
   * The leader epoch this broker leads the partition at (it coordinates the partition's groups),
   * or null when another broker leads it. Absent: always led here, at epoch 0.
   */
  ledEpoch?(partition: number): number | null;
  /** While ledEpoch is null: this broker's metadata names it the leader, or has not heard of the partition (CoordinatorPartitions). */
  awaitingLeadership?(partition: number): boolean;
}

/** An offsets topic in memory (unit tests; `logs` survive a coordinator "restart"). */
export class MemoryOffsetsTopic implements OffsetsTopic {
  readonly logs = new Map<number, MemoryCoordinatorLog>();
  private count: number | null = null;

  partitions(): number | null {
    return this.count;
  }

  async create(numPartitions: number): Promise<void> {
    this.count = numPartitions;
    for (let p = 0; p < numPartitions; p++) if (!this.logs.has(p)) this.logs.set(p, new MemoryCoordinatorLog());
  }

  log(partition: number): MemoryCoordinatorLog {
    return this.logs.get(partition)!;
  }
}

export interface GroupCoordinatorOptions {
  clock: Clock;
  logger: Logger;
  config: GroupConfig;
  topic: OffsetsTopic;
  /** Topic ids, names and partition counts (consumer groups); absent: no topics. */
  topics?: TopicView;
  /** Per-group configs (GROUP resources); absent: the broker's group.consumer.* settings for every group. */
  groupConfigs?: GroupConfigLookup;
}

export class GroupCoordinator {
  readonly runtime: CoordinatorRuntime<GroupCoordinatorShard, Rec>;
  private readonly leadership: CoordinatorLeadership<GroupCoordinatorShard, Rec>;
  private numPartitions: number;
  private activating: Promise<void> | null = null;
  private active = false;
  private closed = false;

  constructor(private readonly opts: GroupCoordinatorOptions) {
    this.numPartitions = opts.topic.partitions() ?? opts.config.numPartitions;
    this.runtime = new CoordinatorRuntime<GroupCoordinatorShard, Rec>({
      name: 'group coordinator',
      clock: opts.clock,
      logger: opts.logger,
      serde: groupRecordSerde,
      newShard: (ctx) => new GroupCoordinatorShard(ctx, opts.config, opts.topics, opts.groupConfigs),
    });
    const topic = opts.topic;
    this.leadership = new CoordinatorLeadership(this.runtime, {
      ledEpoch: (p) => (topic.ledEpoch ? topic.ledEpoch(p) : 0),
      awaitingLeadership: (p) => topic.awaitingLeadership?.(p) ?? false,
      log: (p) => topic.log(p),
    }, opts.logger, 'group coordinator');
  }

  get config(): GroupConfig {
    return this.opts.config;
  }

  /** Start-up: load every partition of an existing offsets topic. */
  async startup(): Promise<void> {
    if (this.opts.topic.partitions() !== null) await this.ensureActive();
  }

  get isActive(): boolean {
    return this.active;
  }

  /** A partition of the offsets topic changed leader: load or unload its shard. */
  onLeadershipChange(): Promise<void> {
    return this.activating && !this.closed ? this.activating.then(() => this.leadership.reconcile(), () => undefined) : Promise.resolve();
  }

  /** Creates the offsets topic if needed and loads the partitions this broker leads (once). */
  ensureActive(): Promise<void> {
    if (this.closed) return Promise.reject(new KafkaApiError(ErrorCode.NOT_COORDINATOR));
    if (!this.activating) {
      this.activating = (async () => {
        const topic = this.opts.topic;
        if (topic.partitions() === null) await topic.create(this.opts.config.numPartitions);
        this.numPartitions = topic.partitions()!;
        await this.leadership.start(this.numPartitions);
        this.active = true;
      })().catch((err) => {
        this.activating = null;
        this.opts.logger.error('group coordinator: loading __consumer_offsets failed', err);
        throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      });
    }
    return this.activating;
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.numPartitions);
  }

  private async run<T>(groupId: string, op: (shard: GroupCoordinatorShard) => CoordinatorResult<T, Rec>): Promise<T> {
    await this.ensureActive();
    const p = this.partitionFor(groupId);
    // In a cluster the leader of the group's partition coordinates it (FindCoordinator names it).
    this.leadership.check(p);
    return this.runtime.schedule(p, op);
  }

  /*
   * Classic requests to a KIP-848 consumer group are served by its classic members (Kafka 4's
   * mixed groups, consumer-group-classic.ts).
   */

  async joinGroup(jc: JoinContext, req: JoinGroupRequest): Promise<JoinGroupResponse> {
    const pending = await this.run(req.groupId, (s) => {
      const cg = s.consumer.groups.get(req.groupId);
      return cg ? s.consumer.mixed.join(cg, jc, req) : s.groups.join(jc, req);
    });
    return pending.promise;
  }

  async syncGroup(req: SyncGroupRequest): Promise<SyncGroupResponse> {
    const pending = await this.run(req.groupId, (s) => {
      const cg = s.consumer.groups.get(req.groupId);
      return cg ? s.consumer.mixed.sync(cg, req) : s.groups.sync(req);
    });
    return pending.promise;
  }

  heartbeat(req: { groupId: string; memberId: string; groupInstanceId: string | null; generationId: number }): Promise<number> {
    return this.run(req.groupId, (s) => {
      const cg = s.consumer.groups.get(req.groupId);
      return cg ? s.consumer.mixed.heartbeat(cg, req) : s.groups.heartbeat(req);
    });
  }

  leaveGroup(groupId: string, members: LeavingMember[]): Promise<LeaveResult> {
    return this.run(groupId, (s) => {
      const cg = s.consumer.groups.get(groupId);
      return cg ? s.consumer.mixed.leave(cg, members) : s.groups.leave(groupId, members);
    });
  }

  commitOffsets(req: CommitRequest, apiVersion: number): Promise<TopicCodes[]> {
    return this.run(req.groupId, (s) => s.offsets.commit(req, apiVersion));
  }

  /**
   * TxnOffsetCommit, once the transaction allowed it: the group-level checks (TO3-TO5) and, when
   * they pass, the write of the offsets to the group's partition as the producer's transactional
   * batch (pending until its marker), in one operation of the group's shard, as Kafka validates
   * and appends in one write: a rebalance cannot slip between them and let a zombie's commit in.
   * Resolves NONE, or the group's error for every partition (nothing written).
   */
  txnOffsetCommit(member: { groupId: string; generationId: number; memberId: string; groupInstanceId: string | null }, producer: TxnProducer, offsets: { topic: string; partition: number; offset: bigint; leaderEpoch: number; metadata: string }[]): Promise<number> {
    return this.run(member.groupId, (s) => {
      const code = s.offsets.validateCommit(member, 0, true);
      if (code !== ErrorCode.NONE) return answer(code);
      return { records: s.offsets.transactionalCommit(member.groupId, offsets), response: () => ErrorCode.NONE, transactional: producer };
    });
  }

  /** A COMMIT/ABORT marker was written to `__consumer_offsets-partition` (here, its leader). */
  onTransactionMarker(partition: number, producerId: number, commit: boolean): Promise<void> {
    return this.runtime.completeTransaction(partition, producerId, commit);
  }

  /**
   * `member` (OffsetFetch v9+): checked against a consumer group's member and its epoch.
   * `requireStable` (v7+): partitions with a pending transactional commit answer
   * UNSTABLE_OFFSET_COMMIT, judged in the same shard operation as the read (see
   * OffsetMetadataManager.fetch).
   */
  fetchOffsets(groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null, member?: { memberId: string | null; memberEpoch: number }, requireStable = false): Promise<FetchedTopic[]> {
    return this.run(groupId, (s) => {
      let code = member ? s.consumerQueries.validateOffsetFetch(groupId, member.memberId, member.memberEpoch) : ErrorCode.NONE;
      if (member && code === ErrorCode.NONE) code = s.streamsQueries.validateOffsetFetch(groupId, member.memberId, member.memberEpoch);
      if (code !== ErrorCode.NONE) throw new KafkaApiError(code);
      return answer(s.offsets.fetch(groupId, topics, requireStable));
    });
  }

  /** ConsumerGroupHeartbeat (KIP-848): join, heartbeat or leave a consumer group. */
  consumerGroupHeartbeat(hc: HeartbeatContext, req: ConsumerGroupHeartbeatRequest): Promise<ConsumerGroupHeartbeatResponse> {
    return this.run(req.groupId, (s) => s.consumer.heartbeat(hc, req));
  }

  /** ConsumerGroupDescribe of one group; `authorizedOperations` is what the answer carries when asked for. */
  async consumerGroupDescribe(groupId: string, authorizedOperations: number | null): Promise<ConsumerDescribedGroup> {
    const ops = authorizedOperations ?? AUTHORIZED_OPERATIONS_OMITTED;
    if (!this.active && this.opts.topic.partitions() === null) {
      return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    }
    return this.run(groupId, (s) => answer(s.consumerQueries.describe(groupId, ops)));
  }

  /**
   * StreamsGroupHeartbeat (KIP-1071): join, heartbeat or leave a streams group. The result names
   * the internal topics the group's topology lacks; the caller creates them.
   */
  streamsGroupHeartbeat(hc: StreamsHeartbeatContext, req: StreamsGroupHeartbeatRequest): Promise<StreamsHeartbeatResult> {
    return this.run(req.groupId, (s) => s.streams.heartbeat(hc, req));
  }

  /** StreamsGroupDescribe of one group. */
  async streamsGroupDescribe(groupId: string, authorizedOperations: number | null, includeTopologyDescription: boolean): Promise<StreamsDescribedGroup> {
    const ops = authorizedOperations ?? AUTHORIZED_OPERATIONS_OMITTED;
    if (!this.active && this.opts.topic.partitions() === null) {
      return {
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0,
        topology: null, members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED, topologyDescription: null, topologyDescriptionStatus: 0, assignorName: null,
      };
    }
    return this.run(groupId, (s) => answer(s.streamsQueries.describe(groupId, ops, includeTopologyDescription)));
  }

  /** The member epoch of a streams group member, or null when the group or member is unknown (StreamsGroupTopologyDescriptionUpdate). */
  async streamsMemberEpoch(groupId: string, memberId: string): Promise<number | null> {
    if (!this.active && this.opts.topic.partitions() === null) return null;
    return this.run(groupId, (s) => answer(s.streams.groups.get(groupId)?.members.get(memberId)?.memberEpoch ?? null));
  }

  /** ShareGroupHeartbeat (KIP-932): join, heartbeat or leave a share group. */
  shareGroupHeartbeat(hc: ShareHeartbeatContext, req: ShareGroupHeartbeatRequest): Promise<ShareGroupHeartbeatResponse> {
    return this.run(req.groupId, (s) => s.share.heartbeat(hc, req));
  }

  /** ShareGroupDescribe of one group. */
  async shareGroupDescribe(groupId: string, authorizedOperations: number | null): Promise<ShareDescribedGroup> {
    const ops = authorizedOperations ?? AUTHORIZED_OPERATIONS_OMITTED;
    if (!this.active && this.opts.topic.partitions() === null) {
      return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    }
    return this.run(groupId, (s) => answer(s.share.describe(groupId, ops)));
  }

  /** The member epoch of a share group member, or null (ShareFetch / ShareAcknowledge check it). */
  async shareMemberEpoch(groupId: string, memberId: string): Promise<number | null> {
    if (!this.active && this.opts.topic.partitions() === null) return null;
    return this.run(groupId, (s) => answer(s.share.memberEpochOf(groupId, memberId)));
  }

  /** The share-partitions a share group was assigned (null: not a share group). */
  async sharePartitionsOf(groupId: string): Promise<{ topicId: string; topicName: string; partitions: number[] }[] | null> {
    if (!this.active && this.opts.topic.partitions() === null) return null;
    return this.run(groupId, (s) => answer(s.share.has(groupId)
      ? [...s.share.sharePartitions(groupId)].map(([topicId, v]) => ({ topicId, topicName: v.topicName, partitions: [...v.partitions].sort((a, b) => a - b) }))
      : null));
  }

  /** Adds initialised share-partitions to a share group, or forgets topics of it (the offsets APIs). */
  updateSharePartitions(groupId: string, add: { topicId: string; topicName: string; partitions: number[] }[], removeTopicIds: string[]): Promise<void> {
    return this.run(groupId, (s) => s.share.updateSharePartitions(groupId, add, removeTopicIds));
  }

  /** Creates an empty share group of this id when there is no group of it (AlterShareGroupOffsets); false: another kind of group. */
  createEmptyShareGroup(groupId: string): Promise<boolean> {
    return this.run(groupId, (s) => s.share.createEmpty(groupId));
  }

  /** Whether a share group has members (AlterShareGroupOffsets needs an empty one); null: not a share group. */
  async shareGroupEmpty(groupId: string): Promise<boolean | null> {
    if (!this.active && this.opts.topic.partitions() === null) return null;
    return this.run(groupId, (s) => answer(s.share.has(groupId) ? s.share.groups.get(groupId)!.members.size === 0 : null));
  }

  deleteOffsets(groupId: string, topics: { name: string; partitions: { partitionIndex: number }[] }[]): Promise<{ errorCode: number; topics: TopicCodes[] }> {
    return this.run(groupId, (s) => s.offsets.deleteOffsets(groupId, topics));
  }

  /** Whether `groupId` is a KIP-1071 streams group (DescribeGroups v6 names them in its error). */
  async isStreamsGroup(groupId: string): Promise<boolean> {
    if (!this.active && this.opts.topic.partitions() === null) return false;
    return this.run(groupId, (s) => answer(s.streamsQueries.has(groupId)));
  }

  /** Whether `groupId` is a KIP-848 consumer group (DescribeGroups v6 names them in its error). */
  async isConsumerGroup(groupId: string): Promise<boolean> {
    if (!this.active && this.opts.topic.partitions() === null) return false;
    return this.run(groupId, (s) => answer(s.consumerQueries.has(groupId)));
  }

  async describeGroup(groupId: string, includeAuthorizedOperations: boolean): Promise<DescribedGroup> {
    if (!this.active && this.opts.topic.partitions() === null) return this.dead(groupId, includeAuthorizedOperations);
    return this.run(groupId, (s) => answer(s.groups.describe(groupId, includeAuthorizedOperations)));
  }

  private dead(groupId: string, ops: boolean): DescribedGroup {
    return { errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [], authorizedOperations: ops ? GROUP_AUTHORIZED_OPERATIONS : -2147483648 };
  }

  async listGroups(statesFilter: string[], typesFilter: string[]): Promise<ListedGroup[]> {
    if (!this.active && this.opts.topic.partitions() === null) return [];
    await this.ensureActive();
    const perShard = await this.runtime.scheduleAll((s) => answer([...s.groups.list(statesFilter, typesFilter), ...s.consumerQueries.list(statesFilter, typesFilter), ...s.share.list(statesFilter, typesFilter), ...s.streamsQueries.list(statesFilter, typesFilter)]));
    return perShard.flat();
  }

  /** DeleteGroups: one operation per shard; results in request order, duplicates collapsed. */
  async deleteGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number }[]> {
    const unique = [...new Set(groupIds)];
    if (!this.active && this.opts.topic.partitions() === null) return unique.map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND }));
    await this.ensureActive();
    const byShard = new Map<number, string[]>();
    for (const id of unique) {
      const p = this.partitionFor(id);
      byShard.set(p, [...(byShard.get(p) ?? []), id]);
    }
    const results = new Map<string, number>();
    await Promise.all([...byShard].map(async ([p, ids]) => {
      try {
        this.leadership.check(p);
        for (const r of await this.runtime.schedule(p, (s) => s.deleteGroups(ids))) results.set(r.groupId, r.errorCode);
      } catch (err) {
        const code = err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
        for (const id of ids) results.set(id, code);
      }
    }));
    return unique.map((groupId) => ({ groupId, errorCode: results.get(groupId)! }));
  }

  /** Removes the committed offsets of a deleted topic from every group. */
  async onTopicDeleted(topic: string): Promise<void> {
    if (!this.active && this.opts.topic.partitions() === null) return;
    await this.ensureActive();
    await this.runtime.scheduleAll((s) => s.onTopicDeleted(topic));
  }

  /** Every shard's queue empty (tests with a manual clock). */
  idle(): Promise<void> {
    return this.runtime.idle();
  }

  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.activating?.catch(() => undefined);
    await this.runtime.close();
    this.active = false;
  }
}
