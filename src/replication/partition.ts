/**
 * One partition this broker holds a replica of (Kafka's `Partition`): its local log, the state
 * the controller last published (leader, leader epoch, partition epoch, replicas, ISR) and, while
 * this broker leads it, what it knows of each follower.
 *
 * Leader side (Kafka's names):
 * - Each follower's fetch reports its logEndOffset (the fetch offset: it has everything below)
 *   and moves its lastCaughtUpTimeMs: to the fetch time if it fetched from the leader's log end,
 *   else to the time of its previous fetch if it has reached what the leader had then.
 * - highWatermark = the smallest logEndOffset in the ISR (the leader's own included), moved only
 *   while the ISR has min.insync.replicas members (Kafka 4.4, KIP-966). With the leader alone in
 *   the ISR (and min ISR 1) the log moves it on every append itself (as on a single node).
 * - ISR shrink: a follower not caught up for replica.lag.time.max.ms; ISR expand: a live follower
 *   whose logEndOffset reached the high watermark and the start of the current leader epoch. Both
 *   are an AlterPartition, a compare-and-set on the partition epoch (partition-state.ts), one at a
 *   time; a leader the controller has replaced fails it and cannot shrink the ISR to acknowledge
 *   alone.
 * - acks=all: `waitForReplication(offset)` resolves when the high watermark reaches it
 *   (NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR is then below min.insync.replicas), on timeout
 *   REQUEST_TIMED_OUT, when leadership is lost NOT_LEADER_OR_FOLLOWER.
 *
 * Request handlers ask `isLeader` and `leaderEpoch` on the hot path; neither allocates.
 */
import type { Clock, Timer } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PartitionLog } from '../storage/partition-log.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { NO_LEADER, type AlterPartitionOutcome, type PartitionState } from '../cluster/metadata-store.js';

/** What the leader knows of one follower (Kafka's `Replica` state). */
export interface FollowerState {
  /** The follower's log end offset, -1 while unknown (no fetch since this broker became leader). */
  logEndOffset: number;
  lastCaughtUpTimeMs: number;
  lastFetchTimeMs: number;
  /** The leader's log end at the follower's previous fetch. */
  lastFetchLeaderLogEndOffset: number;
  /** The follower's log start offset from its last fetch, -1 while unknown (DeleteRecords waits on it). */
  logStartOffset: number;
  /** The broker epoch the follower's fetches carry (KIP-903), -1 while unknown. */
  brokerEpoch: number;
}

/** A DeleteRecords waiting for every live replica's log start (Kafka's DelayedDeleteRecords). */
interface LowWatermarkWaiter {
  offset: number;
  resolve: (r: { errorCode: number; lowWatermark: number }) => void;
  timer: Timer;
}

export interface PartitionEnv {
  clock: Clock;
  logger: Logger;
  /** replica.lag.time.max.ms */
  replicaLagTimeMaxMs: number;
  isAlive(nodeId: number): boolean;
  /** The broker epoch of `nodeId`'s current registration (KIP-903 ISR eligibility); undefined if unknown. */
  brokerEpochOf?(nodeId: number): number | undefined;
  /** AlterPartition for this leader's ISR change, fenced by its broker epoch and the partition epoch. */
  alterIsr(known: PartitionState, newIsr: number[]): Promise<AlterPartitionOutcome>;
}

const NO_FOLLOWERS: ReadonlyMap<number, FollowerState> = new Map();

interface Waiter {
  offset: number;
  resolve: (code: number) => void;
  timer: Timer;
}

export class Partition {
  leaderId = NO_LEADER;
  leaderEpoch = -1;
  partitionEpoch = -1;
  replicas: readonly number[] = [];
  isr: readonly number[] = [];
  /** A reassignment's notes as published (kept so that this leader's ISR changes carry them). */
  private addingReplicas: readonly number[] | undefined;
  private removingReplicas: readonly number[] | undefined;
  /** KIP-966 lists as published (kept so that this leader's ISR changes start from them). */
  private elr: readonly number[] | undefined;
  private lastKnownElr: readonly number[] | undefined;
  private minIsr = 1;
  /** Where the current leader epoch started on this broker (ISR expansion needs followers past it). */
  private leaderEpochStartOffset = -1;
  /** Made when there is a follower to know of (a partition with one replica never has one). */
  private followerMap: Map<number, FollowerState> | null = null;
  private waiters: Waiter[] = [];
  private lowWatermarkWaiters: LowWatermarkWaiter[] = [];
  private isrChangeInFlight = false;
  /** Set when this broker must stop acting as leader whatever the metadata says (lost its registration). */
  private fenced = false;

  constructor(
    readonly topic: string,
    readonly partitionIndex: number,
    readonly topicId: string,
    readonly log: PartitionLog,
    private readonly localNodeId: number,
    private readonly env: PartitionEnv,
  ) {}

  /** min.insync.replicas of the topic, at most the replica count (set by the replica manager). */
  get minInsyncReplicas(): number {
    return this.minIsr;
  }

  set minInsyncReplicas(value: number) {
    if (value === this.minIsr) return;
    this.minIsr = value;
    // The high watermark may be held or released by the new minimum.
    if (this.isLeader && this.leaderEpochStartOffset >= 0) this.onIsrChanged();
  }

  /** Kafka's isUnderMinIsr: the committed ISR is smaller than min.insync.replicas. */
  get underMinIsr(): boolean {
    return this.isr.length < this.minIsr;
  }

  private get followers(): ReadonlyMap<number, FollowerState> {
    return this.followerMap ?? NO_FOLLOWERS;
  }

  private addFollower(id: number, f: FollowerState): void {
    (this.followerMap ??= new Map()).set(id, f);
  }

  /** Whether this broker serves produce and consumer fetches for the partition. */
  get isLeader(): boolean {
    return this.leaderId === this.localNodeId && !this.fenced;
  }

  /** The state this broker believes is published (the base of its next AlterPartition). */
  get state(): PartitionState {
    const state: PartitionState = {
      topicId: this.topicId, partition: this.partitionIndex, replicas: [...this.replicas], isr: [...this.isr],
      leader: this.leaderId, leaderEpoch: this.leaderEpoch, partitionEpoch: this.partitionEpoch,
    };
    if (this.addingReplicas) state.addingReplicas = [...this.addingReplicas];
    if (this.removingReplicas) state.removingReplicas = [...this.removingReplicas];
    if (this.elr) state.elr = [...this.elr];
    if (this.lastKnownElr) state.lastKnownElr = [...this.lastKnownElr];
    return state;
  }

  /**
   * Applies a published state. Returns the role to take on ('leader': became leader or a new
   * leader epoch while leading; 'follower': a new leader elsewhere), or null (only the ISR or
   * nothing changed). Older states than the one this broker wrote itself are ignored.
   */
  apply(state: PartitionState): 'leader' | 'follower' | null {
    if (state.partitionEpoch < this.partitionEpoch && state.leaderEpoch <= this.leaderEpoch) return null;
    const epochChanged = state.leaderEpoch !== this.leaderEpoch || state.leader !== this.leaderId;
    this.partitionEpoch = state.partitionEpoch;
    this.replicas = state.replicas;
    this.isr = state.isr;
    this.addingReplicas = state.addingReplicas;
    this.removingReplicas = state.removingReplicas;
    this.elr = state.elr;
    this.lastKnownElr = state.lastKnownElr;
    if (!epochChanged) {
      if (this.isLeader) this.onIsrChanged();
      return null;
    }
    this.leaderId = state.leader;
    this.leaderEpoch = state.leaderEpoch;
    return state.leader === this.localNodeId ? 'leader' : 'follower';
  }

  /**
   * Becomes leader (Kafka's makeLeader): followers' positions are unknown until they fetch; those
   * in the ISR count as caught up now. The new epoch starts at this log end.
   */
  async makeLeader(): Promise<void> {
    const now = this.env.clock.now();
    this.followerMap = null;
    for (const id of this.replicas) {
      if (id === this.localNodeId) continue;
      this.addFollower(id, { logEndOffset: -1, lastCaughtUpTimeMs: this.isr.includes(id) ? now : 0, lastFetchTimeMs: 0, lastFetchLeaderLogEndOffset: -1, logStartOffset: -1, brokerEpoch: -1 });
    }
    const epoch = this.leaderEpoch;
    this.leaderEpochStartOffset = this.log.logEndOffset;
    await this.log.assignEpochStartOffset(epoch, this.log.logEndOffset);
    this.onIsrChanged();
  }

  /**
   * Becomes follower (or stops leading without a new leader): pending acks=all waits fail. The
   * high watermark drops to the one checkpointed before the log was loaded (Kafka's
   * replication-offset-checkpoint; the log start without one) until the leader's next fetch answer
   * sets it: what this log held as committed since (after a restart, its whole log) may not be,
   * and a follower elected leader must not show consumers more than the ISR has. A checkpointed
   * HW was committed when it was written, so an eligible leader replica (KIP-966) restarted and
   * elected serves what was committed up to it.
   */
  makeFollower(): void {
    this.followerMap = null;
    this.log.setHighWatermarkFollowsLogEnd(false);
    this.log.updateHighWatermark(Math.min(this.log.highWatermark, this.log.checkpointedHighWatermark ?? this.log.logStartOffset));
    this.failWaiters(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  }

  fence(): void {
    this.fenced = true;
    this.failWaiters(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  }

  unfence(): void {
    this.fenced = false;
  }

  /**
   * While an ISR change is in flight, the high watermark counts the current ISR and the proposed
   * one together (Kafka's maximal ISR, KIP-497): a follower being added holds the HW back from the
   * moment the leader asks for it, so nothing is acknowledged that the new member lacks. Without
   * it, a record acknowledged by the old ISR in the window before the change committed could be
   * missing on the new member, and lost if that member then led (a reassignment's new replica).
   */
  private maximalIsr: readonly number[] | null = null;

  private get hwIsr(): readonly number[] {
    return this.maximalIsr ?? this.isr;
  }

  private get aloneInIsr(): boolean {
    const isr = this.hwIsr;
    return isr.length === 1 && isr[0] === this.localNodeId;
  }

  /** The ISR (or this leader's view of it) changed: who moves the HW, and maybe it moves now. */
  private onIsrChanged(): void {
    // Followers not (or no longer) replicas are forgotten; new replicas start unknown.
    if (this.followerMap) for (const id of [...this.followerMap.keys()]) if (!this.replicas.includes(id)) this.followerMap.delete(id);
    for (const id of this.replicas) {
      if (id !== this.localNodeId && !this.followers.has(id)) this.addFollower(id, { logEndOffset: -1, lastCaughtUpTimeMs: 0, lastFetchTimeMs: 0, lastFetchLeaderLogEndOffset: -1, logStartOffset: -1, brokerEpoch: -1 });
    }
    this.log.setHighWatermarkFollowsLogEnd(this.aloneInIsr && !this.underMinIsr);
    this.maybeIncrementLeaderHW();
    this.completeLowWatermarkWaiters();
  }

  /**
   * A follower's fetch at `fetchOffset` when the leader's log ended at `leaderLogEndOffset`
   * (Kafka's updateFollowerFetchState). Returns false for a broker that is not a replica.
   */
  updateFollowerFetchState(replicaId: number, fetchOffset: number, leaderLogEndOffset: number, fetchTimeMs: number, followerLogStartOffset = -1, brokerEpoch = -1): number {
    const f = this.followers.get(replicaId);
    if (!f || !this.isLeader) return ErrorCode.NONE;
    // KIP-903: a fetch from an earlier incarnation of the follower (delayed on the network, or
    // a process that was replaced) must not move its state backwards.
    if (brokerEpoch !== -1 && brokerEpoch < f.brokerEpoch) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    if (brokerEpoch !== -1) f.brokerEpoch = brokerEpoch;
    if (followerLogStartOffset !== f.logStartOffset) {
      f.logStartOffset = followerLogStartOffset;
      this.completeLowWatermarkWaiters();
    }
    if (fetchOffset >= leaderLogEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, fetchTimeMs);
    else if (fetchOffset >= f.lastFetchLeaderLogEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, f.lastFetchTimeMs);
    f.logEndOffset = fetchOffset;
    f.lastFetchLeaderLogEndOffset = leaderLogEndOffset;
    f.lastFetchTimeMs = fetchTimeMs;
    this.maybeExpandIsr(replicaId, f);
    this.maybeIncrementLeaderHW();
    return ErrorCode.NONE;
  }

  /**
   * highWatermark = min logEndOffset over the ISR; an ISR follower not heard from yet holds it
   * where it is. Kafka 4.4 (KIP-966) moves it only while the ISR has min.insync.replicas members:
   * what the HW covers is then on min ISR replicas, which is what makes the ELR members (who left
   * an ISR at or below min ISR) safe leaders. acks=1 appends still succeed; consumers see them once
   * the ISR is large enough again.
   */
  private maybeIncrementLeaderHW(): void {
    if (!this.isLeader || this.underMinIsr) return;
    const log = this.log;
    let hw = log.logEndOffset;
    for (const id of this.hwIsr) {
      if (id === this.localNodeId) continue;
      const f = this.followers.get(id);
      const leo = f && f.logEndOffset >= 0 ? f.logEndOffset : log.highWatermark;
      if (leo < hw) hw = leo;
    }
    if (hw > log.highWatermark) log.updateHighWatermark(hw);
    this.completeWaiters();
  }

  // ---- acks=all ------------------------------------------------------------------------------

  /** NONE once every ISR member has everything below `offset`; see the class comment for errors. */
  waitForReplication(offset: number, timeoutMs: number): Promise<number> {
    if (!this.isLeader) return Promise.resolve(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    if (this.log.highWatermark >= offset) return Promise.resolve(this.enoughAfterAppend());
    return new Promise((resolve) => {
      const w: Waiter = {
        offset,
        resolve,
        timer: this.env.clock.setTimeout(() => {
          const i = this.waiters.indexOf(w);
          if (i >= 0) this.waiters.splice(i, 1);
          resolve(ErrorCode.REQUEST_TIMED_OUT);
        }, Math.max(0, timeoutMs)),
      };
      // Appends complete in offset order, so the queue stays sorted.
      this.waiters.push(w);
    });
  }

  private enoughAfterAppend(): number {
    return this.isr.length >= this.minInsyncReplicas ? ErrorCode.NONE : ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
  }

  private completeWaiters(): void {
    if (this.waiters.length === 0) return;
    const hw = this.log.highWatermark;
    let n = 0;
    while (n < this.waiters.length && this.waiters[n].offset <= hw) n++;
    if (n === 0) return;
    const done = this.waiters.splice(0, n);
    const code = this.enoughAfterAppend();
    for (const w of done) {
      w.timer.cancel();
      w.resolve(code);
    }
  }

  private failWaiters(code: number): void {
    const all = this.waiters;
    this.waiters = [];
    for (const w of all) {
      w.timer.cancel();
      w.resolve(code);
    }
    for (const w of this.lowWatermarkWaiters.splice(0)) {
      w.timer.cancel();
      w.resolve({ errorCode: code, lowWatermark: -1 });
    }
  }

  // ---- DeleteRecords -------------------------------------------------------------------------

  /**
   * Kafka's lowWatermarkIfLeader: the smallest log start offset over this log and the followers
   * on live brokers (one not heard from since this broker became leader counts as -1).
   */
  get lowWatermark(): number {
    let low = this.log.logStartOffset;
    for (const [id, f] of this.followers) if (f.logStartOffset < low && this.env.isAlive(id)) low = f.logStartOffset;
    return low;
  }

  /**
   * Resolves once every live replica's log start has reached `offset` (DelayedDeleteRecords):
   * NONE with the low watermark then; REQUEST_TIMED_OUT with the leader's log start after
   * `timeoutMs`; NOT_LEADER_OR_FOLLOWER (low watermark -1) if leadership moves meanwhile.
   */
  waitForLowWatermark(offset: number, timeoutMs: number): Promise<{ errorCode: number; lowWatermark: number }> {
    if (!this.isLeader) return Promise.resolve({ errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, lowWatermark: -1 });
    const now = this.lowWatermark;
    if (now >= offset) return Promise.resolve({ errorCode: ErrorCode.NONE, lowWatermark: now });
    return new Promise((resolve) => {
      const w: LowWatermarkWaiter = {
        offset,
        resolve,
        timer: this.env.clock.setTimeout(() => {
          const i = this.lowWatermarkWaiters.indexOf(w);
          if (i >= 0) this.lowWatermarkWaiters.splice(i, 1);
          resolve({ errorCode: ErrorCode.REQUEST_TIMED_OUT, lowWatermark: this.log.logStartOffset });
        }, Math.max(0, timeoutMs)),
      };
      this.lowWatermarkWaiters.push(w);
    });
  }

  private completeLowWatermarkWaiters(): void {
    if (this.lowWatermarkWaiters.length === 0) return;
    const low = this.lowWatermark;
    this.lowWatermarkWaiters = this.lowWatermarkWaiters.filter((w) => {
      if (w.offset > low) return true;
      w.timer.cancel();
      w.resolve({ errorCode: ErrorCode.NONE, lowWatermark: low });
      return false;
    });
  }

  // ---- ISR changes (AlterPartition) ----------------------------------------------------------

  private maybeExpandIsr(replicaId: number, f: FollowerState): void {
    if (this.isrChangeInFlight || this.isr.includes(replicaId) || !this.env.isAlive(replicaId)) return;
    if (f.logEndOffset < this.log.highWatermark || f.logEndOffset < this.leaderEpochStartOffset) return;
    // KIP-903: only the incarnation registered now may join (not a restarted broker's old fetches).
    const registered = this.env.brokerEpochOf?.(replicaId);
    if (registered !== undefined && f.brokerEpoch !== -1 && f.brokerEpoch !== registered) return;
    void this.changeIsr([...this.isr, replicaId], `follower ${replicaId} caught up to ${f.logEndOffset}`);
  }

  /** Drops followers not caught up for replica.lag.time.max.ms (called periodically on leaders). */
  maybeShrinkIsr(): void {
    if (!this.isLeader || this.isrChangeInFlight) return;
    const now = this.env.clock.now();
    const lagging = this.isr.filter((id) => {
      if (id === this.localNodeId) return false;
      const f = this.followers.get(id);
      return !f || now - f.lastCaughtUpTimeMs > this.env.replicaLagTimeMaxMs;
    });
    if (lagging.length === 0) return;
    void this.changeIsr(this.isr.filter((id) => !lagging.includes(id)), `followers [${lagging}] not caught up for ${this.env.replicaLagTimeMaxMs} ms`);
  }

  private async changeIsr(newIsr: number[], why: string): Promise<void> {
    this.isrChangeInFlight = true;
    const known = this.state;
    this.maximalIsr = [...new Set([...this.isr, ...newIsr])];
    this.log.setHighWatermarkFollowsLogEnd(this.aloneInIsr && !this.underMinIsr);
    try {
      const out = await this.env.alterIsr(known, newIsr);
      if (out.ok) {
        // Committed in the store: act on it now rather than when the watch delivers it.
        this.env.logger.info(`${this.topic}-${this.partitionIndex}: ISR [${known.isr}] → [${out.state.isr}] (${why}), partition epoch ${out.state.partitionEpoch}`);
        if (out.state.leaderEpoch === this.leaderEpoch && out.state.partitionEpoch > this.partitionEpoch) {
          this.partitionEpoch = out.state.partitionEpoch;
          this.isr = out.state.isr;
          this.elr = out.state.elr;
          this.lastKnownElr = out.state.lastKnownElr;
          this.onIsrChanged();
        }
      } else {
        this.env.logger.info(`${this.topic}-${this.partitionIndex}: ISR change to [${newIsr}] refused (error ${out.error}); the metadata will show the current state`);
      }
    } catch (err) {
      this.env.logger.warn(`${this.topic}-${this.partitionIndex}: ISR change failed (${(err as Error).message})`);
    } finally {
      this.isrChangeInFlight = false;
      this.maximalIsr = null;
      if (this.isLeader) this.onIsrChanged();
    }
  }

  /** For tests and DescribeLogDirs-like views. */
  followerState(replicaId: number): Readonly<FollowerState> | undefined {
    return this.followers.get(replicaId);
  }
}
