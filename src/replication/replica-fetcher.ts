/**
 * Followers copying their leaders' logs (Kafka's ReplicaFetcherManager and ReplicaFetcherThread,
 * minus the threads): one `ReplicaFetcher` per source broker, each a loop over one connection
 * that fetches all the partitions this broker follows from that leader in one Fetch request.
 *
 * A partition joins its leader's fetcher in the `truncating` state (Kafka's KIP-101/KIP-279): an
 * OffsetForLeaderEpoch request asks the leader where this replica's latest epoch ends on the
 * leader, the log is truncated there (whatever the old leader wrote that the new one does not
 * have goes), and the partition moves to `fetching`. Fetches carry the follower's replica id in
 * ReplicaState (v15), the current leader epoch, the log end as fetch offset and the last fetched
 * epoch (KIP-320); the batches are appended with `appendAsFollower` (the leader's offsets and
 * epochs) and the high watermark follows the leader's. A diverging epoch in a response sends the
 * partition back to truncation (after replica.fetch.backoff.ms when it diverged at the same log
 * end last time: truncation made no progress, and the loop must not spin); an out-of-range fetch
 * below the leader's log start restarts the log there. Errors that mean "the leader has not caught up with the metadata" (NOT_LEADER,
 * UNKNOWN_LEADER_EPOCH, unknown topic) and connection failures back off replica.fetch.backoff.ms;
 * FENCED_LEADER_EPOCH waits for this broker's metadata to move on.
 *
 * Fetch sessions (KIP-227, fetch-session-handler.ts; Kafka's FetchSessionHandler in its
 * RemoteLeaderEndPoint): the first fetch to a leader is a full one with epoch 0; once the leader
 * answers with a session id, each fetch names only the partitions whose fetch offset, log start,
 * leader epochs changed, or that joined (truncated, backed off or throttled ones leave the session
 * and come back), and the leader answers only partitions with news. FETCH_SESSION_ID_NOT_FOUND or
 * INVALID_FETCH_SESSION_EPOCH make the next fetch a full one at once; a failed request closes the
 * session with the next (full) fetch.
 *
 * Replication throttles (replication-quota.ts, Kafka's shouldFollowerThrottle): while this broker's
 * follower quota is exceeded, partitions listed for it in follower.replication.throttled.replicas
 * that are not caught up (lag > 0 at the last answer) are left out of the fetch; the bytes copied
 * for throttled partitions are recorded. Without a follower rate the only cost is one check.
 */
import type { Logger } from '../logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { defaultFetchPartition, type FetchRequest } from '../protocol/generated/messages/fetch-request.js';
import type { FetchResponse } from '../protocol/generated/messages/fetch-response.js';
import { BrokerConnectionError, type BrokerClientPool } from './broker-client.js';
import type { Partition } from './partition.js';
import type { ReplicationQuota } from './replication-quota.js';
import { FetchSessionHandler, type SessionPartitionData } from './fetch-session-handler.js';

const FETCH_VERSION = 15;
const OFFSET_FOR_LEADER_EPOCH_VERSION = 4;
const LIST_OFFSETS_VERSION = 7;
const EARLIEST = -2n;
const EARLIEST_LOCAL = -4n;
/** ListOffsets v8 is the first with EARLIEST_LOCAL. */
const LIST_OFFSETS_TIERED_VERSION = 8;
const NO_DIR = 'AAAAAAAAAAAAAAAAAAAAAA';

export interface ReplicaFetcherConfig {
  nodeId: number;
  /** This broker's epoch, sent in ReplicaState (KIP-903). */
  brokerEpoch: () => number;
  clusterId: string | null;
  /** replica.fetch.wait.max.ms, replica.fetch.min.bytes, replica.fetch.response.max.bytes, replica.fetch.max.bytes, replica.fetch.backoff.ms */
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  partitionMaxBytes: number;
  backoffMs: number;
  /** The follower replication throttle: the quota, and whether a partition is throttled here. */
  throttle?: { quota: ReplicationQuota; isThrottled(topic: string, partition: number): boolean };
  /**
   * Tiered storage (remote/tiered-storage.ts rebuildFollower): start this replica's log at the
   * leader's local log start, with the epochs and producer state of the remote segment before it.
   */
  rebuildFromRemote?: (partition: Partition, localStart: number, logStart: number) => Promise<void>;
}

type Phase = 'truncating' | 'fetching';

interface FetchState {
  partition: Partition;
  leaderEpoch: number;
  phase: Phase;
  /** Not fetched before this time (backoff after an error). */
  delayedUntil: number;
  /** The leader's high watermark minus this log's end at the last answer; -1 before one (Kafka's fetcher lag). */
  lag: number;
  /** This log's end when the last fetch answered with a diverging epoch; -1 after a fetch that did not. */
  divergedAt: number;
  /** Diverging answers in a row at that same log end. */
  divergedAgain: number;
  /** The last fetch round that asked for this partition. */
  round: number;
}

class ReplicaFetcher {
  readonly partitions = new Map<Partition, FetchState>();
  private stopped = false;
  private wakeUp: (() => void) | null = null;
  private running: Promise<void> | null = null;
  /** The fetch session with this leader (KIP-227, Kafka's FetchSessionHandler). */
  private readonly session = new FetchSessionHandler<Partition>();
  private round = 0;
  /** Fetch requests sent, and how many of them were full ones (tests, benches). */
  fetches = 0;
  fullFetches = 0;

  constructor(readonly sourceId: number, private readonly clients: BrokerClientPool, private readonly config: ReplicaFetcherConfig, private readonly logger: Logger) {}

  add(partition: Partition, leaderEpoch: number): void {
    this.partitions.set(partition, { partition, leaderEpoch, phase: 'truncating', delayedUntil: 0, lag: -1, divergedAt: -1, divergedAgain: 0, round: 0 });
    this.wake();
    this.ensureRunning();
  }

  private ensureRunning(): void {
    if (this.running || this.stopped) return;
    this.running = this.loop().finally(() => {
      this.running = null;
      // A partition added while the loop was ending must not wait for the next add().
      if (this.partitions.size > 0) this.ensureRunning();
    });
  }

  remove(partition: Partition): void {
    this.partitions.delete(partition);
  }

  private wake(): void {
    const w = this.wakeUp;
    this.wakeUp = null;
    w?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = null;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopped && this.partitions.size > 0) {
      const now = Date.now();
      const ready = [...this.partitions.values()].filter((s) => s.delayedUntil <= now);
      const truncating = ready.filter((s) => s.phase === 'truncating');
      const fetching = ready.filter((s) => s.phase === 'fetching');
      try {
        if (truncating.length > 0) await this.truncate(truncating);
        else if (fetching.length > 0) await this.fetch(fetching);
        else {
          const next = Math.min(...[...this.partitions.values()].map((s) => s.delayedUntil));
          await this.sleep(Math.max(1, next - now));
        }
      } catch (err) {
        // The leader is unreachable (or answered nonsense): every partition waits a moment.
        if (!(err instanceof BrokerConnectionError)) this.logger.warn(`replica fetcher for broker ${this.sourceId}: ${(err as Error).message}`);
        const until = Date.now() + this.config.backoffMs;
        for (const s of ready) s.delayedUntil = until;
        await this.sleep(this.config.backoffMs);
      }
    }
  }

  private current(s: FetchState): boolean {
    return this.partitions.get(s.partition) === s && !this.stopped;
  }

  private backoff(s: FetchState): void {
    s.delayedUntil = Date.now() + this.config.backoffMs;
  }

  private client() {
    const c = this.clients.get(this.sourceId, 'fetcher');
    if (!c) throw new BrokerConnectionError(`broker ${this.sourceId} is not registered`);
    return c;
  }

  /** OffsetForLeaderEpoch for the partitions that must truncate first, then the truncations. */
  private async truncate(states: FetchState[]): Promise<void> {
    const byTopic = new Map<string, FetchState[]>();
    for (const s of states) {
      const l = byTopic.get(s.partition.topic) ?? [];
      l.push(s);
      byTopic.set(s.partition.topic, l);
    }
    const res = await this.client().send(23, OFFSET_FOR_LEADER_EPOCH_VERSION, {
      replicaId: this.config.nodeId,
      topics: [...byTopic].map(([topic, l]) => ({
        topic,
        partitions: l.map((s) => ({ partition: s.partition.partitionIndex, currentLeaderEpoch: s.leaderEpoch, leaderEpoch: s.partition.log.leaderEpochCache.latestEpoch() })),
      })),
    });
    for (const t of res.topics) {
      for (const r of t.partitions) {
        const s = byTopic.get(t.topic)?.find((x) => x.partition.partitionIndex === r.partition);
        if (!s || !this.current(s)) continue;
        if (r.errorCode !== ErrorCode.NONE) {
          this.backoff(s);
          continue;
        }
        const done = await this.truncateTo(s, r.leaderEpoch, Number(r.endOffset));
        if (done && this.current(s)) s.phase = 'fetching';
      }
    }
  }

  /**
   * Kafka's getOffsetTruncationState: where to cut given the leader's (epoch, end offset) for our
   * latest epoch. Returns whether truncation is complete (else another round with the new latest epoch).
   */
  private async truncateTo(s: FetchState, leaderEpoch: number, leaderEndOffset: number): Promise<boolean> {
    const log = s.partition.log;
    const leo = log.logEndOffset;
    let target: number;
    let complete = true;
    if (leaderEndOffset < 0) {
      // The leader knows nothing of our epochs (or we have none): keep what is known committed.
      target = log.leaderEpochCache.latestEpoch() < 0 ? leo : log.highWatermark;
    } else {
      const ours = log.leaderEpochCache.endOffsetFor(leaderEpoch, log.logEndOffset);
      if (ours.leaderEpoch < 0 || ours.endOffset < 0) {
        target = Math.min(leaderEndOffset, leo);
      } else if (ours.leaderEpoch !== leaderEpoch) {
        target = Math.min(ours.endOffset, leo);
        complete = false;
      } else {
        target = Math.min(leaderEndOffset, ours.endOffset, leo);
      }
    }
    if (target < leo) {
      this.logger.info(`${s.partition.topic}-${s.partition.partitionIndex}: truncating from ${leo} to ${target} (leader ${this.sourceId}, epoch ${s.leaderEpoch})`);
    }
    // Even at the log end (Kafka's UnifiedLog.truncateTo): the epoch cache loses an epoch this
    // replica led without writing in it, which the leader never had.
    await log.truncateTo(target);
    return complete || target >= log.logEndOffset;
  }

  /** Leaves out throttled partitions that are behind while the follower quota is exceeded (none without a rate). */
  private throttle(states: FetchState[]): FetchState[] {
    const t = this.config.throttle;
    if (!t || !t.quota.active || !t.quota.isQuotaExceeded()) return states;
    return states.filter((s) => s.lag === 0 || !t.isThrottled(s.partition.topic, s.partition.partitionIndex));
  }

  private async fetch(all: FetchState[]): Promise<void> {
    const states = this.throttle(all);
    if (states.length === 0) {
      // Everything is throttled: wait until the rate has fallen (Kafka backs off replica.fetch.backoff.ms).
      await this.sleep(Math.max(10, Math.min(this.config.backoffMs, this.config.throttle?.quota.msUntilBelow() ?? 0)));
      return;
    }
    const round = ++this.round;
    const wanted = new Map<Partition, SessionPartitionData>();
    for (const s of states) {
      const log = s.partition.log;
      s.round = round;
      wanted.set(s.partition, {
        topicId: s.partition.topicId, partition: s.partition.partitionIndex, fetchOffset: log.logEndOffset, logStartOffset: log.logStartOffset,
        maxBytes: this.config.partitionMaxBytes, currentLeaderEpoch: s.leaderEpoch, lastFetchedEpoch: log.leaderEpochCache.latestEpoch(),
      });
    }
    const built = this.session.build(wanted);
    // Consecutive partitions of one topic under one topic entry (Kafka's FetchRequest.Builder).
    const topics: FetchRequest['topics'] = [];
    for (const { data: d } of built.toSend) {
      let t = topics.length > 0 ? topics[topics.length - 1] : undefined;
      if (t === undefined || t.topicId !== d.topicId) topics.push((t = { topic: '', topicId: d.topicId, partitions: [] }));
      t.partitions.push({
        ...defaultFetchPartition(), partition: d.partition, currentLeaderEpoch: d.currentLeaderEpoch, fetchOffset: BigInt(d.fetchOffset),
        lastFetchedEpoch: d.lastFetchedEpoch, logStartOffset: BigInt(d.logStartOffset), partitionMaxBytes: d.maxBytes, replicaDirectoryId: NO_DIR,
      });
    }
    const forgotten: FetchRequest['forgottenTopicsData'] = [];
    for (const d of built.toForget) {
      let t = forgotten.find((x) => x.topicId === d.topicId);
      if (t === undefined) forgotten.push((t = { topic: '', topicId: d.topicId, partitions: [] }));
      t.partitions.push(d.partition);
    }
    const req: FetchRequest = {
      clusterId: this.config.clusterId, replicaId: -1,
      replicaState: { replicaId: this.config.nodeId, replicaEpoch: BigInt(this.config.brokerEpoch()) },
      maxWaitMs: this.config.maxWaitMs, minBytes: this.config.minBytes, maxBytes: this.config.maxBytes,
      isolationLevel: 0, sessionId: built.sessionId, sessionEpoch: built.sessionEpoch, topics, forgottenTopicsData: forgotten, rackId: '',
    };
    this.fetches++;
    if (built.full) this.fullFetches++;
    let res: FetchResponse;
    try {
      res = await this.client().send(1, FETCH_VERSION, req, this.config.maxWaitMs + 30_000);
    } catch (err) {
      this.session.handleError();
      throw err;
    }
    if (!this.session.handleResponse(res)) {
      // A session the leader no longer has (evicted, restarted) or that moved on: the next fetch
      // is a full one, at once (Kafka's fetcher gets an empty answer). Other errors back off.
      if (res.errorCode === ErrorCode.NONE || res.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND || res.errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH) return;
      throw new Error(`fetch from broker ${this.sourceId} failed with error ${res.errorCode}`);
    }
    for (const t of res.responses) {
      for (const p of t.partitions) {
        const key = this.session.keyOf(t.topicId, p.partitionIndex);
        const s = key === undefined ? undefined : this.partitions.get(key);
        // Only the states this request was built from (a partition re-added meanwhile waits for its own).
        if (!s || s.round !== round || !this.current(s)) continue;
        try {
          await this.onPartitionData(s, p);
        } catch (err) {
          // This partition only: look again where it agrees with the leader, after a pause.
          this.logger.warn(`${s.partition.topic}-${s.partition.partitionIndex}: replicating from broker ${this.sourceId} failed (${(err as Error).message})`);
          s.phase = 'truncating';
          this.backoff(s);
        }
      }
    }
  }

  /** One partition of a fetch response. */
  private async onPartitionData(s: FetchState, p: FetchResponse['responses'][number]['partitions'][number]): Promise<void> {
    const log = s.partition.log;
    switch (p.errorCode) {
      case ErrorCode.NONE: {
        if (p.divergingEpoch) {
          s.phase = 'truncating';
          // Diverging again where the last truncation left the log: it did not help, so the
          // next round waits replica.fetch.backoff.ms instead of spinning.
          if (s.divergedAt === log.logEndOffset) {
            if (++s.divergedAgain === 1) {
              this.logger.warn(`${s.partition.topic}-${s.partition.partitionIndex}: broker ${this.sourceId} answered diverging epoch ${p.divergingEpoch.epoch} (end ${p.divergingEpoch.endOffset}) again at log end ${log.logEndOffset}; retrying every ${this.config.backoffMs} ms`);
            }
            this.backoff(s);
          } else {
            s.divergedAt = log.logEndOffset;
            s.divergedAgain = 0;
          }
          return;
        }
        s.divergedAt = -1;
        s.divergedAgain = 0;
        const records = p.records;
        const bufs = records === null ? [] : Array.isArray(records) ? records : [records];
        let bytes = 0;
        for (const b of bufs) {
          bytes += b.length;
          if (b.length > 0 && this.current(s)) await log.appendAsFollower(b);
        }
        const t = this.config.throttle;
        if (t && bytes > 0 && t.quota.active && t.isThrottled(s.partition.topic, s.partition.partitionIndex)) t.quota.record(bytes);
        s.lag = Math.max(0, Number(p.highWatermark) - log.logEndOffset);
        // A follower's HW only grows (Kafka's maybeUpdateHighWatermark), capped at what it has.
        const hw = Math.min(Number(p.highWatermark), log.logEndOffset);
        if (this.current(s) && hw > log.highWatermark) log.updateHighWatermark(hw);
        // The leader's log start moved (DeleteRecords, retention): so does this copy's.
        if (this.current(s) && Number(p.logStartOffset) > log.logStartOffset) await log.raiseLogStartOffset(Number(p.logStartOffset));
        return;
      }
      case ErrorCode.OFFSET_OUT_OF_RANGE:
        await this.outOfRange(s);
        return;
      case ErrorCode.OFFSET_MOVED_TO_TIERED_STORAGE:
        await this.movedToTieredStorage(s);
        return;
      case ErrorCode.FENCED_LEADER_EPOCH:
        // Our metadata is behind: the replica manager re-adds the partition with the new epoch.
        s.delayedUntil = Date.now() + 10 * this.config.backoffMs;
        return;
      default:
        // NOT_LEADER_OR_FOLLOWER, UNKNOWN_LEADER_EPOCH, UNKNOWN_TOPIC_ID...: the leader is behind.
        this.backoff(s);
    }
  }

  /** Below the leader's log start: start over there; above its end: truncate again. */
  private async outOfRange(s: FetchState): Promise<void> {
    const res = await this.client().send(2, LIST_OFFSETS_VERSION, {
      replicaId: this.config.nodeId, isolationLevel: 0, timeoutMs: 30_000,
      topics: [{ name: s.partition.topic, partitions: [{ partitionIndex: s.partition.partitionIndex, currentLeaderEpoch: s.leaderEpoch, timestamp: EARLIEST}] }],
    });
    const r = res.topics[0]?.partitions[0];
    if (!r || r.errorCode !== ErrorCode.NONE || !this.current(s)) {
      this.backoff(s);
      return;
    }
    const leaderStart = Number(r.offset);
    const log = s.partition.log;
    if (log.logEndOffset < leaderStart) {
      this.logger.info(`${s.partition.topic}-${s.partition.partitionIndex}: log end ${log.logEndOffset} is below the leader's log start ${leaderStart}; starting over there`);
      await log.truncateFullyAndStartAt(leaderStart);
    } else {
      // Look again where this copy agrees with the leader, after a pause (never a tight loop).
      s.phase = 'truncating';
      this.backoff(s);
    }
  }

  /**
   * The offset this replica needs is only in the remote tier (Kafka's follower
   * buildRemoteLogAuxState): start the log at the leader's local log start, with the leader's log
   * start below it and the epochs and producer state of the remote segment before it.
   */
  private async movedToTieredStorage(s: FetchState): Promise<void> {
    const rebuild = this.config.rebuildFromRemote;
    const p = s.partition;
    const ask = async (timestamp: bigint) => {
      const res = await this.client().send(2, LIST_OFFSETS_TIERED_VERSION, {
        replicaId: this.config.nodeId, isolationLevel: 0, timeoutMs: 30_000,
        topics: [{ name: p.topic, partitions: [{ partitionIndex: p.partitionIndex, currentLeaderEpoch: s.leaderEpoch, timestamp}] }],
      });
      const r = res.topics[0]?.partitions[0];
      return r && r.errorCode === ErrorCode.NONE ? Number(r.offset) : null;
    };
    const localStart = rebuild ? await ask(EARLIEST_LOCAL) : null;
    const logStart = localStart === null ? null : await ask(EARLIEST);
    if (!rebuild || localStart === null || logStart === null || !this.current(s)) {
      this.backoff(s);
      return;
    }
    try {
      await rebuild(p, localStart, logStart);
      this.logger.info(`${p.topic}-${p.partitionIndex}: offsets below ${localStart} are in the remote tier; this replica starts there`);
    } catch (err) {
      this.logger.warn(`${p.topic}-${p.partitionIndex}: rebuilding from the remote tier failed: ${(err as Error).message}`);
      this.backoff(s);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.running?.catch(() => undefined);
  }
}

/** The fetchers of this broker, one per source broker (Kafka's ReplicaFetcherManager). */
export class ReplicaFetcherManager {
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  /** Which fetcher each followed partition is in. */
  private readonly sourceOf = new Map<Partition, number>();

  constructor(private readonly clients: BrokerClientPool, private readonly config: ReplicaFetcherConfig, private readonly logger: Logger) {}

  /** Follows `partition` from `leaderId` at `leaderEpoch` (moving it from another fetcher if needed). */
  addPartition(partition: Partition, leaderId: number, leaderEpoch: number): void {
    this.removePartition(partition);
    let f = this.fetchers.get(leaderId);
    if (!f) this.fetchers.set(leaderId, (f = new ReplicaFetcher(leaderId, this.clients, this.config, this.logger)));
    f.add(partition, leaderEpoch);
    this.sourceOf.set(partition, leaderId);
  }

  removePartition(partition: Partition): void {
    const source = this.sourceOf.get(partition);
    if (source === undefined) return;
    this.sourceOf.delete(partition);
    this.fetchers.get(source)?.remove(partition);
  }

  /** Fetch requests sent to leaders so far, and how many were full ones (tests, benches). */
  fetchCounts(): { fetches: number; fullFetches: number } {
    let fetches = 0, fullFetches = 0;
    for (const f of this.fetchers.values()) {
      fetches += f.fetches;
      fullFetches += f.fullFetches;
    }
    return { fetches, fullFetches };
  }

  /** Whether `partition` is followed, and from whom (tests). */
  sourceFor(partition: Partition): number | undefined {
    return this.sourceOf.get(partition);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.fetchers.values()].map((f) => f.stop()));
    this.fetchers.clear();
    this.sourceOf.clear();
  }
}
