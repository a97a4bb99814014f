/**
 * The deletion half of partition retirement (cluster/partition-retirement.ts), run by the
 * active controller every `log.retention.check.interval.ms` (retention is what drains a retired
 * partition, so checking more often would find nothing new).
 *
 * For each topic with retired partitions, from the highest partition down: ask the partition's
 * leader for its earliest and latest offsets (ListOffsets), and every live broker for the groups
 * it coordinates (ListGroups) and their committed offsets for the partition (OffsetFetch v8,
 * classic and consumer groups alike, as they share `__consumer_offsets`). The partition may go
 * when `drainProblem` finds nothing in two passes in a row and every `__consumer_offsets`
 * partition has a live leader; the controller then removes it from the metadata, every
 * replica deletes its log (replica-manager.ts) and Metadata stops listing it. Any broker that
 * cannot answer ends the pass for that topic: deleting on a partial view could drop records a
 * group has yet to read. Partitions go only from the top, so the topic keeps partitions 0..N-1.
 */
import type { BrokerServices } from './broker-services.js';
import { ErrorCode, errorName } from '../protocol/generated/error-codes.js';
import { drainProblem, retiredFrom, PARTITIONS_KEEP, type CommittedOffset } from '../cluster/partition-retirement.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import { OFFSETS_TOPIC } from '../coordinator/group/group-coordinator.js';
import { ZERO_UUID } from '../protocol/reader.js';

const LIST_OFFSETS_VERSION = 7;
const LIST_GROUPS_VERSION = 4;
const OFFSET_FETCH_VERSION = 8;
const EARLIEST = -2n;
const LATEST = -1n;

export class PartitionRetirementTask {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;
  /** Retired partitions (topic id:partition) found drained by the previous pass. */
  private readonly drainedBefore = new Set<string>();

  constructor(private readonly broker: BrokerServices, private readonly intervalMs: number) {}

  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.runOnce().catch((err) => this.broker.logger.warn(`partition retirement: ${(err as Error).message}`)).finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref();
  }

  /** One pass (on the active controller only): the number of partitions deleted. */
  runOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<number> {
    const controller = this.broker.cluster?.controller;
    if (!controller?.isActive) return 0;
    let deleted = 0;
    for (const topic of [...this.broker.metadataCache.topics.values()]) {
      if (topic.configs[PARTITIONS_KEEP] === undefined) continue;
      const keep = retiredFrom(topic);
      if (keep >= topic.partitions) continue;
      let remaining = topic.partitions;
      for (let p = topic.partitions - 1; p >= keep; p--) {
        const id = `${topic.topicId}:${p}`;
        const problem = await this.problem(topic, p).catch((err: Error) => `cannot tell (${err.message})`);
        if (problem) {
          this.drainedBefore.delete(id);
          this.broker.logger.debug(`partition retirement: ${topic.name}-${p} stays: ${problem}`);
          break;
        }
        // Drained in two passes in a row: a group coordinator moving between brokers during one
        // pass (its groups briefly listed nowhere) cannot make a lagging group look done.
        if (!this.drainedBefore.has(id)) {
          this.drainedBefore.add(id);
          break;
        }
        remaining = p;
      }
      if (remaining === topic.partitions) continue;
      await controller.removeRetiredPartitions(topic.name, topic.partitions, remaining);
      this.broker.logger.info(`partition retirement: ${topic.name} partitions ${remaining}-${topic.partitions - 1} drained and deleted; ${remaining} remain`);
      deleted += topic.partitions - remaining;
    }
    return deleted;
  }

  /** Why `topic`-`p` cannot be deleted yet, or null. */
  private async problem(topic: TopicRecord, p: number): Promise<string | null> {
    const state = this.broker.metadataCache.partition(topic.topicId, p);
    if (!state || state.leader < 0) return 'no leader';
    const leader = this.client(state.leader);
    if (!leader) return `leader ${state.leader} unreachable`;
    const ask = async (timestamp: bigint) => {
      const res = await leader.send(2, LIST_OFFSETS_VERSION, {
        replicaId: -1, isolationLevel: 0, timeoutMs: 0,
        topics: [{ name: topic.name, partitions: [{ partitionIndex: p, currentLeaderEpoch: -1, timestamp}] }],
      });
      const r = res.topics[0]?.partitions[0];
      if (!r || r.errorCode !== ErrorCode.NONE) throw new Error(`ListOffsets at ${state.leader}: ${errorName(r?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR)}`);
      return Number(r.offset);
    };
    const logStartOffset = await ask(EARLIEST);
    const logEndOffset = await ask(LATEST);
    if (logStartOffset < logEndOffset) return drainProblem({ logStartOffset, logEndOffset }, []);
    return drainProblem({ logStartOffset, logEndOffset }, await this.committedOffsets(topic.name, p));
  }

  /** Every group's committed offset for the partition, from every live broker's coordinator. */
  private async committedOffsets(topic: string, p: number): Promise<CommittedOffset[]> {
    const out: CommittedOffset[] = [];
    // Every group coordinator must be up: a `__consumer_offsets` partition without a live leader
    // has groups nobody would list.
    const offsetsTopic = this.broker.metadataCache.topic(OFFSETS_TOPIC);
    for (const state of offsetsTopic ? this.broker.metadataCache.partitionsOf(offsetsTopic.topicId) : []) {
      if (state.leader < 0 || !this.broker.metadataCache.brokers.has(state.leader)) throw new Error(`${OFFSETS_TOPIC}-${state.partition} has no live leader`);
    }
    for (const nodeId of this.broker.metadataCache.brokers.keys()) {
      const client = this.client(nodeId);
      if (!client) throw new Error(`broker ${nodeId} unreachable`);
      const listed = await client.send(16, LIST_GROUPS_VERSION, { statesFilter: [], typesFilter: [] });
      if (listed.errorCode !== ErrorCode.NONE) throw new Error(`ListGroups at ${nodeId}: ${errorName(listed.errorCode)}`);
      if (listed.groups.length === 0) continue;
      const fetched = await client.send(9, OFFSET_FETCH_VERSION, {
        groupId: '', topics: null, requireStable: false,
        groups: listed.groups.map((g) => ({ groupId: g.groupId, memberId: null, memberEpoch: -1, topics: [{ name: topic, topicId: ZERO_UUID, partitionIndexes: [p] }] })),
      });
      for (const g of fetched.groups) {
        // A group that moved or is loading meanwhile: its offsets are unknown, so is the answer.
        if (g.errorCode !== ErrorCode.NONE && g.errorCode !== ErrorCode.GROUP_ID_NOT_FOUND) throw new Error(`OffsetFetch ${g.groupId} at ${nodeId}: ${errorName(g.errorCode)}`);
        for (const t of g.topics) for (const part of t.partitions) out.push({ groupId: g.groupId, offset: Number(part.committedOffset) });
      }
    }
    return out;
  }

  private client(nodeId: number) {
    return this.broker.brokerClients.get(nodeId, 'retirement');
  }
}
