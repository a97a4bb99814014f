/**
 * Tiered storage's work on this broker (Kafka's RemoteLogManager, KIP-405): for every hosted
 * partition of a topic with remote.storage.enable, every `remote.log.manager.task.interval.ms`:
 *
 * - **Leader**: on a new leader epoch, lists the partition's manifests in the object store (the
 *   remote log metadata, remote-segment.ts) and keeps those consistent with its own leader-epoch
 *   lineage; a leader whose local log is empty while the store holds more (a disk lost, a single
 *   broker whose data dir was wiped but not its metadata) rebuilds from the store first. Then it
 *   copies each closed segment wholly below the last stable offset that is not yet remote (data,
 *   indexes, producer snapshot, leader-epoch checkpoint, then the manifest with If-None-Match),
 *   tells the log how far the remote tier reaches (local retention may then delete those
 *   segments), and applies the total retention (retention.ms / retention.bytes over remote +
 *   local, and the log start offset after DeleteRecords) to remote segments, deleting the oldest
 *   and moving the log start offset. Objects of a segment without a manifest (an upload killed
 *   midway) older than `orphanAgeMs` are deleted at the epoch change.
 * - **Follower**: lists the manifests, so its own local retention also keeps only what the remote
 *   tier does not have.
 *
 * Failures: a store error ends the partition's pass; the next pass retries after a backoff that
 * doubles up to 30 s (one warning per streak, a counter for metrics). Local segments are never
 * deleted before they are copied, so produce is unaffected while the store is away.
 *
 * Concurrency: one pass per partition at a time (`RemotePartitionState.running`); a partition's
 * remote segment list is owned by that pass and replaced, never mutated, so the fetch path
 * (remote-log-reader.ts) reads a consistent snapshot without waiting.
 */
import { randomBytes } from 'node:crypto';
import { SampledRate } from '../sampled-rate.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { SegmentExport } from '../storage/segment-export.js';
import { isStoreError, type ObjectStore } from './object-store.js';
import {
  consistentWithLineage, epochCheckpointBytes, isManifestKey, parseManifest, partitionPrefix, segmentIdOfKey, segmentKey,
  type RemoteSegment, type SegmentExt,
} from './remote-segment.js';

/** A hosted partition of a tiered topic, as the broker sees it. */
export interface TieredPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partitionIndex: number;
  readonly log: PartitionLog;
  readonly isLeader: boolean;
  readonly leaderEpoch: number;
}

export interface RemoteLogEnv {
  store: ObjectStore;
  /** Key prefix (samsa.remote.s3.prefix). */
  prefix: string;
  brokerId: number;
  clock: Clock;
  logger: Logger;
  /** Hosted partitions whose topic has remote.storage.enable. */
  partitions(): Iterable<TieredPartition>;
  /** remote.log.manager.task.interval.ms */
  taskIntervalMs: number;
  /** Objects without a manifest older than this are orphans of a killed upload. */
  orphanAgeMs: number;
  /** remote.log.manager.copy.max.bytes.per.second now (a dynamic broker config); absent: no limit. */
  copyMaxBytesPerSecond?: () => number;
}

export interface RemoteLogMetrics {
  copyBytes: number;
  copySegments: number;
  copyErrors: number;
  deleteSegments: number;
  deleteErrors: number;
  fetchBytes: number;
  fetchErrors: number;
  /** Copy passes that stopped because the copy quota was used up. */
  copyThrottled: number;
  /** Remote reads a Fetch skipped because the fetch quota was used up. */
  fetchThrottled: number;
  /** Remote reads a Fetch stopped waiting for after remote.fetch.max.wait.ms (Kafka's DelayedRemoteFetch expiries). */
  fetchExpires: number;
}

export class RemotePartitionState {
  /** Valid remote segments by base offset, none inside another; replaced, never mutated. */
  segments: readonly RemoteSegment[] = [];
  /** The leader epoch the list was loaded for (-1: as a follower, or not yet). */
  loadedEpoch = -1;
  /** The list was read from the store at least once (before that, remote reads wait: not "out of range"). */
  loaded = false;
  running: Promise<void> | null = null;
  failures = 0;
  retryAtMs = 0;
  /** Manifests read so far, by key (a list then reads only new ones). */
  readonly manifests = new Map<string, RemoteSegment | null>();
  constructor(readonly prefix: string) {}

  get sizeBytes(): number {
    let n = 0;
    for (const s of this.segments) n += s.sizeBytes;
    return n;
  }

  /** The remote segment holding `offset`, or undefined. */
  find(offset: number): RemoteSegment | undefined {
    const segs = this.segments;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (segs[mid].endOffset < offset) lo = mid + 1;
      else if (segs[mid].baseOffset > offset) hi = mid - 1;
      else return segs[mid];
    }
    return undefined;
  }
}

/** Sorted by base offset, keeping for each range the segment reaching furthest; contained ones dropped. */
export function chainOf(segs: Iterable<RemoteSegment>): RemoteSegment[] {
  const sorted = [...segs].sort((a, b) => a.baseOffset - b.baseOffset || b.endOffset - a.endOffset || b.leaderEpoch - a.leaderEpoch);
  const out: RemoteSegment[] = [];
  for (const s of sorted) {
    const last = out[out.length - 1];
    if (last && s.endOffset <= last.endOffset) continue;
    out.push(s);
  }
  return out;
}

const MAX_BACKOFF_MS = 30_000;

export class RemoteLogManager {
  /**
   * Bytes copied, over Kafka's copy quota window (remote.log.manager.copy.quota.window.num 11 x
   * .window.size.seconds 1): while it is above remote.log.manager.copy.max.bytes.per.second no
   * new segment upload starts (Kafka's RLMCopyQuotaManager); the next pass tries again.
   */
  private readonly copyRate: SampledRate;
  readonly metrics: RemoteLogMetrics = { copyBytes: 0, copySegments: 0, copyErrors: 0, deleteSegments: 0, deleteErrors: 0, fetchBytes: 0, fetchErrors: 0, fetchExpires: 0, copyThrottled: 0, fetchThrottled: 0 };
  private readonly states = new Map<string, RemotePartitionState>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private stopped = false;

  constructor(private readonly env: RemoteLogEnv) {
    this.copyRate = new SampledRate(11, 1000, env.clock.now());
  }

  get store(): ObjectStore {
    return this.env.store;
  }

  start(): void {
    if (this.timer || this.env.taskIntervalMs <= 0) return;
    this.timer = setInterval(() => void this.runOnce(), this.env.taskIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.states.values()].map((s) => s.running));
  }

  /** The remote state of a partition (created empty on first use). */
  stateOf(topic: string, topicId: string, partition: number): RemotePartitionState {
    const prefix = partitionPrefix(this.env.prefix, topic, topicId, partition);
    let s = this.states.get(prefix);
    if (!s) this.states.set(prefix, (s = new RemotePartitionState(prefix)));
    return s;
  }

  /**
   * A deleted topic, or one whose tiered storage was turned off: every object of its partitions
   * this broker kept a remote state for is deleted, after any pass running on them (each replica's
   * broker does it; deleting twice is harmless). Returns the objects deleted.
   */
  async deleteTopic(topic: string, topicId: string, why = 'deleted topic'): Promise<number> {
    const topicPrefix = `${this.env.prefix}${topic}-${topicId}/`;
    const mine = [...this.states.entries()].filter(([prefix]) => prefix.startsWith(topicPrefix));
    if (mine.length === 0) return 0;
    await Promise.all(mine.map(([, s]) => s.running));
    for (const [prefix] of mine) this.states.delete(prefix);
    const objects = await this.env.store.list(topicPrefix);
    await this.env.store.delete(objects.map((o) => o.key));
    if (objects.length > 0) this.env.logger.info(`tiered storage: deleted ${objects.length} objects of ${why} ${topic}`);
    return objects.length;
  }

  /** Bytes of local segments not yet copied (Kafka's RemoteCopyLagBytes), over every tiered partition. */
  copyLagBytes(): number {
    let lag = 0;
    for (const p of this.env.partitions()) if (p.isLeader) lag += p.log.bytesNotRemote(true);
    return lag;
  }

  /** One pass over every tiered partition (the timer's work; tests call it to run a pass now). */
  async runOnce(): Promise<void> {
    const runs: Promise<void>[] = [];
    for (const p of this.env.partitions()) {
      const state = this.stateOf(p.topic, p.topicId, p.partitionIndex);
      if (state.running || this.env.clock.now() < state.retryAtMs) {
        if (state.running) runs.push(state.running);
        continue;
      }
      state.running = this.pass(p, state).finally(() => { state.running = null; });
      runs.push(state.running);
    }
    await Promise.all(runs);
  }

  private async pass(p: TieredPartition, state: RemotePartitionState): Promise<void> {
    try {
      if (p.isLeader) {
        if (state.loadedEpoch !== p.leaderEpoch) await this.takeOver(p, state);
        await this.copySegments(p, state);
        await this.expire(p, state);
      } else {
        state.loadedEpoch = -1;
        await this.refresh(p, state);
      }
      if (state.failures > 0) this.env.logger.info(`tiered storage: ${p.topic}-${p.partitionIndex} reaches the object store again`);
      state.failures = 0;
      state.retryAtMs = 0;
    } catch (err) {
      state.failures++;
      state.retryAtMs = this.env.clock.now() + Math.min(MAX_BACKOFF_MS, this.env.taskIntervalMs * 2 ** Math.min(state.failures, 10));
      if (state.failures === 1) this.env.logger.warn(`tiered storage: ${p.topic}-${p.partitionIndex}: ${(err as Error)?.message ?? err}; local segments are kept until copied, retrying`);
    }
  }

  /** Lists the manifests, reads the new ones, and keeps the valid chain. Returns every manifest read. */
  private async refresh(p: TieredPartition, state: RemotePartitionState, opts: { validate: boolean } = { validate: true }): Promise<RemoteSegment[]> {
    const listed = await this.env.store.list(state.prefix);
    const keys = new Set<string>();
    for (const o of listed) {
      if (!isManifestKey(o.key)) continue;
      keys.add(o.key);
      if (!state.manifests.has(o.key)) state.manifests.set(o.key, parseManifest(await this.env.store.get(o.key)));
    }
    for (const k of [...state.manifests.keys()]) if (!keys.has(k)) state.manifests.delete(k);
    const all = [...state.manifests.values()].filter((m): m is RemoteSegment => m !== null && m.topicId === p.topicId);
    const lineage = p.log.leaderEpochCache.all;
    const valid = opts.validate ? all.filter((m) => consistentWithLineage(m, lineage, p.log.logEndOffset)) : all;
    state.segments = chainOf(valid);
    state.loaded = true;
    const last = state.segments[state.segments.length - 1];
    if (last) p.log.setHighestOffsetInRemoteStorage(last.endOffset);
    return all;
  }

  /** A new leader epoch here: the remote list, a rebuild of a lost local log, orphan clean-up. */
  private async takeOver(p: TieredPartition, state: RemotePartitionState): Promise<void> {
    const log = p.log;
    let all = await this.refresh(p, state);
    const emptyLocal = log.logEndOffset === log.localLogStartOffset && log.logEndOffset === log.logStartOffset;
    const remoteEnd = Math.max(-1, ...all.map((m) => m.endOffset));
    if (emptyLocal && remoteEnd >= log.logEndOffset) {
      // The local log is gone but the store has it: start the local log after the remote tier.
      all = await this.refresh(p, state, { validate: false });
      const chain = state.segments;
      const last = chain[chain.length - 1];
      const snapshot = last.hasSnapshot ? await this.env.store.get(segmentKey(state.prefix, last, 'snapshot')) : null;
      await log.rebuildFromRemote(last.endOffset + 1, chain[0].baseOffset, last.leaderEpochs, snapshot);
      await log.assignEpochStartOffset(p.leaderEpoch, log.logEndOffset);
      log.setHighestOffsetInRemoteStorage(last.endOffset);
      this.env.logger.info(`tiered storage: ${p.topic}-${p.partitionIndex} had no local log; rebuilt from the object store: offsets ${chain[0].baseOffset}-${last.endOffset} remote, local log from ${last.endOffset + 1}`);
    }
    // The remote tier's first offset is the log start when the log thought it lower (a start lost
    // with a crash before its checkpoint; Kafka's updateLogStartOffsetFromRemoteTier).
    const first = state.segments[0];
    if (first && first.baseOffset > log.logStartOffset && first.baseOffset <= log.localLogStartOffset) await log.raiseLogStartOffset(first.baseOffset);
    await this.deleteOrphans(state);
    state.loadedEpoch = p.leaderEpoch;
  }

  /**
   * A follower whose fetch offset is only remote (replica-fetcher.ts): its log starts at the
   * leader's local start, with the epochs and producer snapshot of the remote segment ending there.
   */
  async rebuildFollower(p: TieredPartition, localStart: number, logStart: number): Promise<void> {
    const state = this.stateOf(p.topic, p.topicId, p.partitionIndex);
    const all = chainOf((await this.refresh(p, state, { validate: false })).filter((m) => m.endOffset < localStart));
    const before = all[all.length - 1];
    if (!before || before.endOffset !== localStart - 1) throw new Error(`no remote segment ends at ${localStart - 1}`);
    const snapshot = before.hasSnapshot ? await this.env.store.get(segmentKey(state.prefix, before, 'snapshot')) : null;
    await p.log.rebuildFromRemote(localStart, logStart, before.leaderEpochs, snapshot);
    state.segments = all;
    p.log.setHighestOffsetInRemoteStorage(before.endOffset);
  }

  /** Objects of segment ids no manifest names, older than the orphan age. */
  private async deleteOrphans(state: RemotePartitionState): Promise<void> {
    const listed = await this.env.store.list(state.prefix);
    const named = new Set<string>();
    for (const o of listed) if (isManifestKey(o.key)) named.add(segmentIdOfKey(o.key) ?? '');
    const cutoff = this.env.clock.now() - this.env.orphanAgeMs;
    const orphans = listed.filter((o) => {
      const id = segmentIdOfKey(o.key);
      return id !== null && !named.has(id) && (o.lastModifiedMs ?? 0) < cutoff;
    });
    if (orphans.length > 0) {
      await this.env.store.delete(orphans.map((o) => o.key));
      this.env.logger.info(`tiered storage: deleted ${orphans.length} orphan objects under ${state.prefix}`);
    }
  }

  /** Whether the copy quota is used up now. */
  copyQuotaExceeded(): boolean {
    const max = this.env.copyMaxBytesPerSecond?.() ?? Infinity;
    return Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER && this.copyRate.rate(this.env.clock.now()) > max;
  }

  private async copySegments(p: TieredPartition, state: RemotePartitionState): Promise<void> {
    const log = p.log;
    if (log.config.remoteLogCopyDisable) return;
    let copied = false;
    while (!this.stopped) {
      if (this.copyQuotaExceeded()) {
        this.metrics.copyThrottled++;
        break;
      }
      const exp = await log.nextSegmentToCopy(log.highestOffsetInRemoteStorage, log.lastStableOffset);
      if (!exp) break;
      let seg: RemoteSegment;
      try {
        seg = await this.upload(p, state, exp);
      } catch (err) {
        this.metrics.copyErrors++;
        throw err;
      } finally {
        exp.release();
      }
      state.segments = chainOf([...state.segments, seg]);
      log.setHighestOffsetInRemoteStorage(seg.endOffset);
      this.metrics.copyBytes += seg.sizeBytes;
      this.copyRate.record(seg.sizeBytes, this.env.clock.now());
      this.metrics.copySegments++;
      copied = true;
    }
    // Local retention may now delete what was copied.
    if (copied) await log.enforceRetention(this.env.clock.now());
  }

  private async upload(p: TieredPartition, state: RemotePartitionState, exp: SegmentExport): Promise<RemoteSegment> {
    const seg: RemoteSegment = {
      version: 1, topic: p.topic, topicId: p.topicId, partition: p.partitionIndex, segmentId: randomBytes(12).toString('base64url'),
      baseOffset: exp.baseOffset, endOffset: exp.endOffset, maxTimestampMs: exp.maxTimestampMs, leaderEpoch: p.leaderEpoch,
      brokerId: this.env.brokerId, leaderEpochs: exp.leaderEpochs, sizeBytes: exp.sizeBytes, hasSnapshot: exp.producerSnapshot !== null,
      createdMs: this.env.clock.now(),
    };
    const put = (ext: SegmentExt, body: Buffer) => this.env.store.put(segmentKey(state.prefix, seg, ext), body);
    await this.env.store.put(segmentKey(state.prefix, seg, 'log'), { size: exp.sizeBytes, read: exp.read });
    await put('index', exp.offsetIndex);
    await put('timeindex', exp.timeIndex);
    await put('txnindex', exp.txnIndex);
    if (exp.producerSnapshot) await put('snapshot', exp.producerSnapshot);
    await put('leader-epoch-checkpoint', epochCheckpointBytes(exp.leaderEpochs));
    // Fenced: a leader that lost its leadership meanwhile leaves its objects to the orphan sweep.
    if (!p.isLeader || p.log.leaderEpochCache.latestEpoch() > p.leaderEpoch) throw new Error(`no longer the leader of epoch ${p.leaderEpoch}`);
    await this.env.store.put(segmentKey(state.prefix, seg, 'manifest'), Buffer.from(JSON.stringify(seg)), { ifNoneMatch: true });
    state.manifests.set(segmentKey(state.prefix, seg, 'manifest'), seg);
    return seg;
  }

  /**
   * The total retention over both tiers (Kafka's RLMExpirationTask): remote segments below the
   * log start offset, then retention.bytes over remote + local-only bytes, then retention.ms.
   */
  private async expire(p: TieredPartition, state: RemotePartitionState): Promise<void> {
    const log = p.log;
    const cfg = log.config;
    const segs = state.segments;
    if (segs.length === 0) return;
    const deleteByTime = cfg.cleanupPolicy.split(',').includes('delete');
    const now = this.env.clock.now();
    let total = state.sizeBytes + log.bytesNotRemote(false);
    let cut = 0;
    for (const s of segs) {
      const belowStart = s.endOffset < log.logStartOffset;
      const bySize = deleteByTime && cfg.retentionBytes >= 0 && total - s.sizeBytes >= cfg.retentionBytes;
      const byTime = deleteByTime && cfg.retentionMs >= 0 && s.maxTimestampMs >= 0 && now - s.maxTimestampMs > cfg.retentionMs;
      if (!belowStart && !bySize && !byTime) break;
      total -= s.sizeBytes;
      cut++;
    }
    if (cut === 0) return;
    const gone = segs.slice(0, cut);
    for (const s of gone) {
      try {
        await this.deleteSegment(state, s);
      } catch (err) {
        this.metrics.deleteErrors++;
        throw err;
      }
      state.segments = state.segments.filter((x) => x !== s);
      this.metrics.deleteSegments++;
    }
    const newStart = gone[gone.length - 1].endOffset + 1;
    if (newStart > log.logStartOffset) await log.raiseLogStartOffset(newStart);
  }

  private async deleteSegment(state: RemotePartitionState, s: RemoteSegment): Promise<void> {
    const manifest = segmentKey(state.prefix, s, 'manifest');
    await this.env.store.delete([manifest]);
    state.manifests.delete(manifest);
    const exts: SegmentExt[] = ['log', 'index', 'timeindex', 'txnindex', 'leader-epoch-checkpoint'];
    if (s.hasSnapshot) exts.push('snapshot');
    await this.env.store.delete(exts.map((e) => segmentKey(state.prefix, s, e)));
  }

  /** Whether `err` is the store being unreachable (as opposed to a missing object). */
  static isUnavailable(err: unknown): boolean {
    return isStoreError(err, 'unavailable');
  }
}
