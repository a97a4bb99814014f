/**
 * The share coordinator service (Kafka 4.4's ShareCoordinatorService): keeps share-partition state
 * in `__share_group_state`, one coordinator-runtime shard per partition of it. A share-partition
 * (group, topic id, partition) lives in partition abs(javaStringHash("group:topicId:partition")) %
 * partitions; FindCoordinator key type 2 names its leader.
 *
 * - The state topic is created on first use (cleanup.policy=delete with retention.ms=-1, as
 *   Kafka's shareGroupStateTopicConfigs; segment.bytes and min.insync.replicas from the
 *   share.coordinator.state.topic.* settings), and when it exists at start-up every partition led
 *   here is loaded before the broker serves.
 * - Requests are split per share-partition and run as operations on its shard (share-shard.ts);
 *   answers are per partition, as Kafka's. NOT_COORDINATOR when another broker leads the state
 *   partition, COORDINATOR_LOAD_IN_PROGRESS while it loads, COORDINATOR_NOT_AVAILABLE when the
 *   write did not reach the ISR.
 * - An empty group id, topic list or partition list is answered with no results (Kafka logs and
 *   answers an empty response).
 * - Every `share.coordinator.state.topic.prune.interval.ms` the records below each led shard's
 *   last redundant offset are deleted (Kafka's setupRecordPruning / performRecordPruning).
 */
import { KafkaApiError } from '../../errors.js';
import type { Clock, Timer } from '../../clock.js';
import type { Logger } from '../../logger.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { InitializeShareGroupStateRequest } from '../../protocol/generated/messages/initialize-share-group-state-request.js';
import type { InitializeShareGroupStateResponse } from '../../protocol/generated/messages/initialize-share-group-state-response.js';
import type { ReadShareGroupStateRequest } from '../../protocol/generated/messages/read-share-group-state-request.js';
import type { ReadShareGroupStateResponse } from '../../protocol/generated/messages/read-share-group-state-response.js';
import type { WriteShareGroupStateRequest } from '../../protocol/generated/messages/write-share-group-state-request.js';
import type { WriteShareGroupStateResponse } from '../../protocol/generated/messages/write-share-group-state-response.js';
import type { DeleteShareGroupStateRequest } from '../../protocol/generated/messages/delete-share-group-state-request.js';
import type { DeleteShareGroupStateResponse } from '../../protocol/generated/messages/delete-share-group-state-response.js';
import type { ReadShareGroupStateSummaryRequest } from '../../protocol/generated/messages/read-share-group-state-summary-request.js';
import type { ReadShareGroupStateSummaryResponse } from '../../protocol/generated/messages/read-share-group-state-summary-response.js';
import { CoordinatorRuntime, answer, type CoordinatorResult } from '../runtime/runtime.js';
import { CoordinatorLeadership } from '../runtime/coordinator-leadership.js';
import { partitionForGroup, type OffsetsTopic } from '../group/group-coordinator.js';
import { shareRecordSerde, type ShareCoordinatorRecord } from './records.js';
import { coordinatorKey, ShareCoordinatorShard, type PartitionError, type ShareStateSettings, type TopicPartitions } from './share-shard.js';

export const SHARE_GROUP_STATE_TOPIC = '__share_group_state';

type Rec = ShareCoordinatorRecord;

/** Kafka's Errors.message() of the codes the runtime raises. */
const ERROR_MESSAGES: Record<number, string> = {
  [ErrorCode.NOT_COORDINATOR]: 'This is not the correct coordinator.',
  [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]: "The coordinator is loading and hence can't process requests.",
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: 'The coordinator is not available.',
  [ErrorCode.UNKNOWN_SERVER_ERROR]: 'The server experienced an unexpected error when processing the request.',
  [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]: 'Cluster authorization failed.',
};

export function errorMessageOf(code: number): string | null {
  return ERROR_MESSAGES[code] ?? null;
}

/** The state partition of a share-partition (ShareCoordinatorService.partitionFor). */
export function partitionForShareKey(key: string, partitions: number): number {
  return partitionForGroup(key, partitions);
}

/** The state topic: an offsets-topic-like access, plus DeleteRecords on a partition led here. */
export interface ShareStateTopic extends OffsetsTopic {
  deleteRecordsBefore?(partition: number, offset: number): Promise<void>;
}

export interface ShareCoordinatorOptions extends ShareStateSettings {
  clock: Clock;
  logger: Logger;
  /** The state topic (the broker's, or MemoryOffsetsTopic in tests). */
  topic: ShareStateTopic;
  /** share.coordinator.state.topic.prune.interval.ms; absent: no pruning. */
  pruneIntervalMs?: number;
  /** share.coordinator.state.topic.num.partitions, used when the topic is created. */
  numPartitions: number;
  /** Partition counts of data topics by id. */
  topics: TopicPartitions;
}

export class ShareCoordinator {
  readonly runtime: CoordinatorRuntime<ShareCoordinatorShard, Rec>;
  private readonly leadership: CoordinatorLeadership<ShareCoordinatorShard, Rec>;
  private numPartitions: number;
  private activating: Promise<void> | null = null;
  private closed = false;
  private pruneTimer: Timer | null = null;
  /** Kafka's lastPrunedOffsets, per state partition. */
  private readonly lastPrunedOffsets = new Map<number, number>();

  constructor(private readonly opts: ShareCoordinatorOptions) {
    this.numPartitions = opts.topic.partitions() ?? opts.numPartitions;
    this.runtime = new CoordinatorRuntime<ShareCoordinatorShard, Rec>({
      name: 'share coordinator',
      clock: opts.clock,
      logger: opts.logger,
      serde: shareRecordSerde,
      newShard: (ctx) => new ShareCoordinatorShard(ctx, opts, opts.topics),
    });
    const topic = opts.topic;
    this.leadership = new CoordinatorLeadership(this.runtime, {
      ledEpoch: (p) => (topic.ledEpoch ? topic.ledEpoch(p) : 0),
      log: (p) => topic.log(p),
    }, opts.logger, 'share coordinator');
  }

  /** Start-up: loads the partitions of an existing state topic that this broker leads. */
  async startup(): Promise<void> {
    if (this.opts.topic.partitions() !== null) await this.ensureActive();
  }

  /**
   * A partition of `__share_group_state` changed leader: load or unload its shard. A broker that
   * did not create the topic starts following it here (Kafka loads a shard on election).
   */
  onLeadershipChange(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (!this.activating) return this.opts.topic.partitions() === null ? Promise.resolve() : this.ensureActive().catch(() => undefined);
    return this.activating.then(() => this.leadership.reconcile(), () => undefined);
  }

  /** Creates the state topic if needed and loads the partitions this broker leads (once). */
  ensureActive(): Promise<void> {
    if (this.closed) return Promise.reject(new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!this.activating) {
      this.activating = (async () => {
        const topic = this.opts.topic;
        if (topic.partitions() === null) await topic.create(this.opts.numPartitions);
        this.numPartitions = topic.partitions()!;
        await this.leadership.start(this.numPartitions);
        this.schedulePruning();
      })().catch((e) => {
        this.activating = null;
        this.opts.logger.error(`share coordinator: loading ${SHARE_GROUP_STATE_TOPIC} failed`, e);
        throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
      });
    }
    return this.activating;
  }

  /** The state partition of a share-partition, once the topic exists (its count is then known). */
  partitionFor(groupId: string, topicId: string, partition: number): number {
    return partitionForShareKey(coordinatorKey(groupId, topicId, partition), this.numPartitions);
  }

  /** Runs `op` on the share-partition's shard; a refusal becomes that partition's error. */
  private async run<T extends PartitionError>(groupId: string, topicId: string, partition: number, op: (s: ShareCoordinatorShard) => CoordinatorResult<T, Rec>, onError: (e: PartitionError) => T): Promise<T> {
    try {
      await this.ensureActive();
      const p = this.partitionFor(groupId, topicId, partition);
      this.leadership.check(p);
      return await this.runtime.schedule(p, op);
    } catch (e) {
      if (!(e instanceof KafkaApiError)) this.opts.logger.error('share coordinator: operation failed', e);
      const errorCode = e instanceof KafkaApiError ? e.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
      return onError({ errorCode, errorMessage: errorMessageOf(errorCode) });
    }
  }

  /** Every (topic, partition) of a request, answered per partition in request order. */
  private async perPartition<P extends { partition: number }, T>(
    groupId: string,
    topics: readonly { topicId: string; partitions: readonly P[] }[],
    answer: (topicId: string, p: P) => Promise<T>,
  ): Promise<{ topicId: string; partitions: T[] }[]> {
    if (groupId.trim() === '' || topics.length === 0 || topics.some((t) => t.partitions.length === 0)) return [];
    return Promise.all(topics.map(async (t) => ({ topicId: t.topicId, partitions: await Promise.all(t.partitions.map((p) => answer(t.topicId, p))) })));
  }

  async writeState(req: WriteShareGroupStateRequest): Promise<WriteShareGroupStateResponse> {
    const results = await this.perPartition(req.groupId, req.topics, async (topicId, pd) => {
      const e = await this.run(req.groupId, topicId, pd.partition, (s) => s.writeState(req.groupId, topicId, {
        partition: pd.partition, stateEpoch: pd.stateEpoch, leaderEpoch: pd.leaderEpoch, startOffset: Number(pd.startOffset),
        deliveryCompleteCount: pd.deliveryCompleteCount,
        stateBatches: pd.stateBatches.map((b) => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount })),
      }), (x) => x);
      return { partition: pd.partition, errorCode: e.errorCode, errorMessage: e.errorMessage };
    });
    return { results };
  }

  async readState(req: ReadShareGroupStateRequest): Promise<ReadShareGroupStateResponse> {
    const results = await this.perPartition(req.groupId, req.topics, async (topicId, pd) => {
      const r = await this.run(req.groupId, topicId, pd.partition, (s) => s.readStateAndMaybeUpdateLeaderEpoch(req.groupId, topicId, pd.partition, pd.leaderEpoch),
        (e) => ({ ...e, stateEpoch: 0, startOffset: 0, stateBatches: [] }));
      return {
        partition: pd.partition, errorCode: r.errorCode, errorMessage: r.errorMessage, stateEpoch: r.stateEpoch, startOffset: BigInt(r.startOffset),
        stateBatches: r.stateBatches.map((b) => ({ firstOffset: BigInt(b.firstOffset), lastOffset: BigInt(b.lastOffset), deliveryState: b.deliveryState, deliveryCount: b.deliveryCount })),
      };
    });
    return { results };
  }

  async readStateSummary(req: ReadShareGroupStateSummaryRequest): Promise<ReadShareGroupStateSummaryResponse> {
    const results = await this.perPartition(req.groupId, req.topics, async (topicId, pd) => {
      const r = await this.run(req.groupId, topicId, pd.partition, (s) => s.readStateSummary(req.groupId, topicId, pd.partition),
        (e) => ({ ...e, stateEpoch: 0, leaderEpoch: 0, startOffset: 0, deliveryCompleteCount: 0 }));
      return { partition: pd.partition, errorCode: r.errorCode, errorMessage: r.errorMessage, stateEpoch: r.stateEpoch, leaderEpoch: r.leaderEpoch, startOffset: BigInt(r.startOffset), deliveryCompleteCount: r.deliveryCompleteCount };
    });
    return { results };
  }

  async deleteState(req: DeleteShareGroupStateRequest): Promise<DeleteShareGroupStateResponse> {
    const results = await this.perPartition(req.groupId, req.topics, async (topicId, pd) => {
      const e = await this.run(req.groupId, topicId, pd.partition, (s) => s.deleteState(req.groupId, topicId, pd.partition), (x) => x);
      return { partition: pd.partition, errorCode: e.errorCode, errorMessage: e.errorMessage };
    });
    return { results };
  }

  async initializeState(req: InitializeShareGroupStateRequest): Promise<InitializeShareGroupStateResponse> {
    const results = await this.perPartition(req.groupId, req.topics, async (topicId, pd) => {
      const e = await this.run(req.groupId, topicId, pd.partition, (s) => s.initializeState(req.groupId, topicId, pd.partition, pd.stateEpoch, Number(pd.startOffset)), (x) => x);
      return { partition: pd.partition, errorCode: e.errorCode, errorMessage: e.errorMessage };
    });
    return { results };
  }

  /** A data topic was deleted: the state of share-partitions of topics gone is deleted (tombstones) on every shard led here. */
  async onTopicDeleted(): Promise<void> {
    if (!this.activating && this.opts.topic.partitions() === null) return;
    await this.ensureActive();
    await this.runtime.scheduleAll((s) => s.onTopicsDeleted());
  }

  private schedulePruning(): void {
    const interval = this.opts.pruneIntervalMs;
    if (interval === undefined || !this.opts.topic.deleteRecordsBefore || this.closed) return;
    this.pruneTimer = this.opts.clock.setTimeout(() => {
      void this.pruneRecords().finally(() => this.schedulePruning());
    }, interval);
  }

  /** Deletes, in every state partition led here, the records below its last redundant offset. */
  async pruneRecords(): Promise<void> {
    for (const p of this.runtime.partitions) {
      if (!this.runtime.isActive(p) || this.closed) continue;
      try {
        const offset = await this.runtime.schedule(p, (s) => answer(s.lastRedundantOffset()));
        if (offset === null || offset <= (this.lastPrunedOffsets.get(p) ?? 0)) continue;
        await this.opts.topic.deleteRecordsBefore!(p, offset);
        this.lastPrunedOffsets.set(p, offset);
      } catch (e) {
        if (!(e instanceof KafkaApiError)) this.opts.logger.warn(`share coordinator: pruning ${SHARE_GROUP_STATE_TOPIC}-${p} failed: ${(e as Error).message}`);
      }
    }
  }

  /** Every shard's queue empty (tests). */
  idle(): Promise<void> {
    return this.runtime.idle();
  }

  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.pruneTimer?.cancel();
    await this.activating?.catch(() => undefined);
    await this.runtime.close();
  }
}
