/**
 * One partition this broker holds a replica of (Kafka's `Partition`): its local log and the
 * partition state the controller last published (leader, leader epoch, partition epoch, replicas,
 * ISR). The replica manager creates it when the metadata names this broker among the replicas and
 * calls `makeLeader` / `makeFollower` when the published state changes.
 *
 * Request handlers ask it two things on the hot path, without allocating: is this broker the
 * leader (`isLeader`), and with which leader epoch (`leaderEpoch`).
 */
import type { PartitionLog } from '../storage/partition-log.js';
import { NO_LEADER, type PartitionState } from '../cluster/metadata-store.js';

export class Partition {
  leaderId = NO_LEADER;
  leaderEpoch = -1;
  partitionEpoch = -1;
  replicas: readonly number[] = [];
  isr: readonly number[] = [];
  /** Set when this broker must stop acting as leader whatever the metadata says (lost its registration). */
  private fenced = false;

  constructor(
    readonly topic: string,
    readonly partitionIndex: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    private readonly localNodeId: number,
  ) {}

  /** Whether this broker serves produce and consumer fetches for the partition. */
  get isLeader(): boolean {
    return this.leaderId === this.localNodeId && !this.fenced;
  }

  /** Applies a published state; returns what this broker's role became, or null if nothing changed. */
  apply(state: PartitionState): 'leader' | 'follower' | null {
    const wasLeader = this.leaderId === this.localNodeId;
    const epochChanged = state.leaderEpoch !== this.leaderEpoch;
    this.partitionEpoch = state.partitionEpoch;
    this.replicas = state.replicas;
    this.isr = state.isr;
    if (!epochChanged && state.leader === this.leaderId) return null;
    this.leaderId = state.leader;
    this.leaderEpoch = state.leaderEpoch;
    const isLeaderNow = state.leader === this.localNodeId;
    if (isLeaderNow) return 'leader';
    return wasLeader || epochChanged ? 'follower' : null;
  }

  fence(): void {
    this.fenced = true;
  }
}
