/**
 * The data path of Fetch (Kafka's ReplicaManager.fetchMessages / readFromLog, Partition.fetchRecords):
 * the handler authorizes and resolves topics, this reads the partitions and long-polls.
 *
 * - Batches go back exactly as stored (byte slices of segment files, never re-encoded); a fetch
 *   offset inside a batch returns the whole batch and the client skips the records before it.
 * - max_bytes bounds the response and partition_max_bytes each partition, but the first
 *   partition that yields data returns at least one whole batch even if larger (KIP-74); a later
 *   partition whose first batch does not fit returns no records.
 * - Long poll: with fewer than min_bytes the fetch waits in the purgatory (delayed-fetch.ts) for
 *   appends to any fetched partition or max_wait_ms, whichever first; an error or a diverging
 *   epoch ends it at once.
 * - The client's current_leader_epoch is checked first (FENCED_LEADER_EPOCH /
 *   UNKNOWN_LEADER_EPOCH), then leadership (NOT_LEADER_OR_FOLLOWER), as Partition.getLocalLog.
 *   Only followers and consumers before Fetch v11 need the leader (Kafka's
 *   FetchParams.fetchOnlyLeader): a v11+ consumer's fetch is served by any replica that holds the
 *   partition, up to that replica's own high watermark (or last stable offset), so the epoch
 *   check is against the epoch this replica knows; a follower's high watermark is what its
 *   leader's answers told it (replica-fetcher.ts). Past its log end: OFFSET_OUT_OF_RANGE, on which
 *   clients go back to the leader (KIP-392).
 * - Preferred read replica (KIP-392, replica-selector.ts): on the leader, for a v11+ consumer, with
 *   replica.selector.class set, a partition the selector sends elsewhere is answered with that
 *   replica's id, no records, and the leader's HW, LSO and log start; it ends the long poll.
 * - last_fetched_epoch (KIP-320): when that epoch ends before fetch_offset, or only an older epoch
 *   is known, no records and diverging_epoch = (epoch, end offset); when its end cannot be told,
 *   OFFSET_OUT_OF_RANGE (Partition.readRecords).
 * - A negative partition_max_bytes where there is data to read: UNKNOWN_SERVER_ERROR.
 * - A follower (replica id >= 0) reads up to the log end and reports its log end offset to the
 *   partition (high watermark, ISR expansion; KIP-903 broker epoch); consumers read up to the high
 *   watermark (read_uncommitted) or the last stable offset (read_committed, with the aborted
 *   transactions overlapping the returned batches, from the .txnindex).
 * - Replication throttles (replication-quota.ts, Kafka's shouldLeaderThrottle): a partition listed
 *   in leader.replication.throttled.replicas whose follower is not in the ISR gets no records
 *   while the leader rate is exceeded.
 * - A consumer's read of a topic that reads through another (FetchHooks.readThrough: a view) reads
 *   the source partition of the same index and transforms its batches; offsets, HW and LSO are
 *   the source's, and a long poll wakes on appends to the source.
 *
 * - A caught-up partition (fetch offset at the read limit: the idle partitions a fetch session
 *   reads on every fetch) is not read at all; the checks the read would make are made here.
 *
 * No per-record objects: the per-partition work is a few object literals per request.
 */
import { KafkaApiError, toErrorCode } from '../errors.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { lastOffsetOfBatches } from '../protocol/records/record-batch.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { ReadBuffers } from '../storage/log-read.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import type { TopicRecord } from '../cluster/metadata-store.js';
import type { Partition } from './partition.js';
import { LEADER_THROTTLED_REPLICAS, type ReplicationQuotas } from './replication-quota.js';
import type { FetchPurgatory } from './delayed-fetch.js';
import type { TieredStorage } from '../remote/tiered-storage.js';
import { findPreferredReadReplica, type ClientMetadata, type RackOnListener, type ReplicaSelector } from './replica-selector.js';

const READ_COMMITTED = 1;

/** One partition of a Fetch, its topic resolved by the handler (known, index in range, readable). */
export interface FetchPartition {
  topic: TopicRecord;
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
  /** -1: not checked. */
  currentLeaderEpoch: number;
  /** -1: not sent (before v12). */
  lastFetchedEpoch: number;
  /** The follower's log start offset (followers only). */
  logStartOffset: number;
}

export interface FetchParams {
  /** >= 0: a follower broker's fetch. */
  replicaId: number;
  /** KIP-903: the follower's broker epoch (-1 when not sent). */
  replicaEpoch: number;
  maxBytes: number;
  minBytes: number;
  maxWaitMs: number;
  isolationLevel: number;
  /** Where segment reads may go (recycled once the response is written). */
  readBuffers?: ReadBuffers;
  /** Aborted when the client went away: the long poll ends. */
  closed: AbortSignal;
  /**
   * A consumer's Fetch v11+ (Kafka's ClientMetadata: the client's rack and listener); null for
   * older versions and followers. With it any replica may serve the consumer, and the leader may
   * name a preferred read replica.
   */
  clientMetadata: ClientMetadata | null;
}

export interface FetchPartitionResult {
  errorCode: number;
  /** -1 for errors. */
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  divergingEpoch: { epoch: number; endOffset: number } | null;
  /** KIP-392: the replica the consumer should fetch from instead (no records then); -1: none. */
  preferredReadReplica: number;
  /** read_committed: the aborted transactions of the returned batches ([] when none); else null. */
  abortedTransactions: { producerId: number; firstOffset: number }[] | null;
  records: Buffer[];
}

export interface FetchResult {
  /** In the order of the request's partitions. */
  partitions: FetchPartitionResult[];
  bytes: number;
  /** Bytes of throttled partitions (the leader's replication quota records them). */
  throttledBytes: number;
}

/** Samsa's topic features the data path calls without knowing them (broker/topic-features.ts). */
export interface FetchHooks {
  /**
   * A topic whose records are read from another topic's partitions (a view): that topic's name
   * and the transform of the read batches (throws KafkaApiError for the partition); null for an
   * ordinary topic.
   */
  readThrough(topic: TopicRecord): { source: string; transform: (records: Buffer[]) => Buffer[] } | null;
}

export interface FetchEnv {
  clock: Clock;
  logger: Logger;
  metadataCache: MetadataCache;
  getPartition(topic: string, partition: number): Partition | undefined;
  /** The partition's log dir failed here (Kafka's HostedPartition.Offline): KAFKA_STORAGE_ERROR. */
  isOffline?(topic: string, partition: number): boolean;
  purgatory: FetchPurgatory;
  quotas?: ReplicationQuotas;
  /** Late-bound: the broker sets its topic features after the replica manager exists. */
  hooks(): FetchHooks | undefined;
  /** The broker is stopping: answer at once. */
  stopping(): boolean;
  /** Tiered storage (remote/): reads below a tiered log's local start. */
  tiered?: TieredStorage;
  /** replica.selector.class (KIP-392); null: consumers are never sent elsewhere. */
  replicaSelector: ReplicaSelector | null;
  /** A broker's rack as a client on a listener sees it (undefined: no endpoint there). */
  rackOf: RackOnListener;
}

/** A throttled partition's read: no records (Kafka answers it with an empty record set). */
const THROTTLED_READ: Promise<{ records: Buffer[] }> = Promise.resolve({ records: [] });
/** A caught-up partition's read (nothing between the fetch offset and the read limit): not read at all. */
const NOTHING: { records: Buffer[] } = { records: [] };
const NOTHING_READ: Promise<{ records: Buffer[] }> = Promise.resolve(NOTHING);

function failed(errorCode: number, abortedTransactions: [] | null = null): FetchPartitionResult {
  return { errorCode, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, divergingEpoch: null, preferredReadReplica: -1, abortedTransactions, records: [] };
}

/** Whole batches from the front of `buffers` (each holds whole batches) within `limit` bytes; with `minOne`, at least the first batch. */
function takeWholeBatches(buffers: Buffer[], limit: number, minOne: boolean): { records: Buffer[]; sizeBytes: number } {
  const records: Buffer[] = [];
  let taken = 0;
  for (const buf of buffers) {
    let end = 0;
    while (end + 12 <= buf.length) {
      const size = 12 + buf.readInt32BE(end + 8);
      if (taken + size > limit && !(minOne && taken === 0)) break;
      taken += size;
      end += size;
    }
    if (end > 0) records.push(end === buf.length ? buf : buf.subarray(0, end));
    if (end < buf.length) break;
  }
  return { records, sizeBytes: taken };
}

type Slot =
  | { kind: 'done'; result: FetchPartitionResult }
  | { kind: 'read'; partitionMaxBytes: number; fetchOffset: number; log: PartitionLog; lso: number; throttled: boolean; read: Promise<{ records: Buffer[] } | { errorCode: number }>; remote?: RemoteTarget; topic: string; topicId: string; partition: number };

type RemoteTarget = { topic: string; topicId: string; partition: number; log: PartitionLog };

/** The log a partition of the fetch reads (and a long poll watches): its own, or its source's. */
function readLog(env: FetchEnv, p: FetchPartition, follower: boolean): { log: PartitionLog; partition: Partition; transform: ((r: Buffer[]) => Buffer[]) | null } | number {
  const partition = env.getPartition(p.topic.name, p.partition)!;
  const through = follower ? null : env.hooks()?.readThrough(p.topic) ?? null;
  if (through === null) return { log: partition.log, partition, transform: null };
  const source = env.metadataCache.topic(through.source);
  if (!source || p.partition >= source.partitions) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  const sp = env.getPartition(source.name, p.partition);
  if (!sp?.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
  return { log: sp.log, partition, transform: through.transform };
}

/** One pass over the partitions: reads run concurrently; the byte limits then apply in request order. */
async function readOnce(env: FetchEnv, params: FetchParams, parts: readonly FetchPartition[]): Promise<FetchResult> {
  const follower = params.replicaId >= 0;
  // Kafka's FetchParams.fetchOnlyLeader: followers, and consumers older than Fetch v11.
  const client = follower ? null : params.clientMetadata;
  const selector = client === null ? null : env.replicaSelector;
  const maxBytes = Math.max(0, params.maxBytes);
  const leaderQuota = follower && env.quotas?.leader.active ? env.quotas : null;
  let leaderExceeded: boolean | null = null;
  // Reads of an earlier pass were discarded: their space is reused.
  params.readBuffers?.reset();
  const alloc = params.readBuffers ? (n: number) => params.readBuffers!.alloc(n) : undefined;
  const slots = parts.map((p): Slot => {
    const partition = env.getPartition(p.topic.name, p.partition);
    if (partition === undefined && env.isOffline?.(p.topic.name, p.partition)) return { kind: 'done', result: failed(ErrorCode.KAFKA_STORAGE_ERROR) };
    // Kafka's Partition.getLocalLog: the client's leader epoch first, then leadership.
    const epoch = partition?.leaderEpoch ?? env.metadataCache.partition(p.topic.topicId, p.partition)?.leaderEpoch ?? -1;
    if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch !== epoch) {
      return { kind: 'done', result: failed(p.currentLeaderEpoch < epoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH) };
    }
    if (partition === undefined || (client === null && !partition.isLeader)) return { kind: 'done', result: failed(ErrorCode.NOT_LEADER_OR_FOLLOWER) };
    const target = readLog(env, p, follower);
    if (typeof target === 'number') return { kind: 'done', result: failed(target) };
    const { log, transform } = target;
    const lso = log.lastStableOffset;
    // KIP-392: before the read (and before the diverging-epoch check), as Kafka's readFromLog.
    if (selector !== null && partition.isLeader && transform === null) {
      const preferred = findPreferredReadReplica(selector, partition, client!, p.fetchOffset, env.clock.now(), env.rackOf);
      if (preferred >= 0) {
        return {
          kind: 'done',
          result: { ...failed(ErrorCode.NONE), highWatermark: log.highWatermark, lastStableOffset: lso, logStartOffset: log.logStartOffset, preferredReadReplica: preferred },
        };
      }
    }
    // A follower reads up to the log end; consumers up to the high watermark (or the LSO).
    const maxOffset = follower ? log.logEndOffset : params.isolationLevel === READ_COMMITTED ? lso : log.highWatermark;
    const fetchOffset = p.fetchOffset;
    if (p.lastFetchedEpoch >= 0) {
      const e = log.leaderEpochCache.endOffsetFor(p.lastFetchedEpoch, log.logEndOffset);
      if (e.leaderEpoch < 0 || e.endOffset < 0) return { kind: 'done', result: failed(ErrorCode.OFFSET_OUT_OF_RANGE) };
      if (e.leaderEpoch < p.lastFetchedEpoch || e.endOffset < fetchOffset) {
        return {
          kind: 'done',
          result: {
            ...failed(ErrorCode.NONE, params.isolationLevel === READ_COMMITTED ? [] : null),
            highWatermark: log.highWatermark, lastStableOffset: lso, logStartOffset: log.logStartOffset,
            divergingEpoch: { epoch: e.leaderEpoch, endOffset: e.endOffset },
          },
        };
      }
    }
    if (p.partitionMaxBytes < 0 && fetchOffset >= log.logStartOffset && fetchOffset < maxOffset) return { kind: 'done', result: failed(ErrorCode.UNKNOWN_SERVER_ERROR) };
    // The follower has everything below its fetch offset: that may move the HW and the ISR
    // (Kafka's updateFollowerFetchState, after the divergence check). The answer's HW is read later.
    if (follower && fetchOffset <= log.logEndOffset) {
      const stale = partition.updateFollowerFetchState(params.replicaId, fetchOffset, log.logEndOffset, env.clock.now(), p.logStartOffset, params.replicaEpoch);
      if (stale !== ErrorCode.NONE) return { kind: 'done', result: failed(stale) };
    }
    let throttled = false;
    if (leaderQuota !== null && leaderQuota.throttled.isThrottled(p.topic.configs[LEADER_THROTTLED_REPLICAS], p.partition)) {
      throttled = true;
      if (!partition.isr.includes(params.replicaId) && (leaderExceeded ??= leaderQuota.leader.isQuotaExceeded())) {
        return { kind: 'read', partitionMaxBytes: p.partitionMaxBytes, fetchOffset, log, lso, throttled, read: THROTTLED_READ, topic: p.topic.name, topicId: p.topic.topicId, partition: p.partition };
      }
    }
    const limit = Math.max(0, Math.min(p.partitionMaxBytes, maxBytes));
    // Tiered storage: below the local log start a consumer reads the remote tier; a follower is
    // told OFFSET_MOVED_TO_TIERED_STORAGE and starts its log at the local start (replica-fetcher.ts).
    if (log.tiered && env.tiered && fetchOffset >= log.logStartOffset && fetchOffset < log.localLogStartOffset && transform === null) {
      if (follower) return { kind: 'done', result: failed(ErrorCode.OFFSET_MOVED_TO_TIERED_STORAGE) };
      const remote: RemoteTarget = { topic: p.topic.name, topicId: p.topic.topicId, partition: p.partition, log };
      const read = env.tiered.readForFetch(remote, fetchOffset, limit).catch((err) => ({ errorCode: toErrorCode(err) }));
      return { kind: 'read', partitionMaxBytes: p.partitionMaxBytes, fetchOffset, log, lso, throttled, read, remote, topic: p.topic.name, topicId: p.topic.topicId, partition: p.partition };
    }
    // Caught up (the idle partitions of a fetch session, read on every fetch): nothing to read, so
    // no log read; what the read would check (online, in range, local) is checked here.
    if (fetchOffset === maxOffset && transform === null && !log.isOffline && fetchOffset >= log.logStartOffset && fetchOffset >= log.localLogStartOffset) {
      return { kind: 'read', partitionMaxBytes: p.partitionMaxBytes, fetchOffset, log, lso, throttled, read: NOTHING_READ, topic: p.topic.name, topicId: p.topic.topicId, partition: p.partition };
    }
    const raw = log.read(fetchOffset, limit, { minOneMessage: true, maxOffset, alloc });
    const read = (transform === null ? raw : raw.then((r) => ({ records: transform(r.records) }))).then(
      (r) => ({ records: r.records }),
      (err) => {
        if (!(err instanceof KafkaApiError)) env.logger.error(`fetch from ${p.topic.name}-${p.partition} failed`, err);
        return { errorCode: toErrorCode(err) };
      },
    );
    return { kind: 'read', partitionMaxBytes: p.partitionMaxBytes, fetchOffset, log, lso, throttled, read, topic: p.topic.name, topicId: p.topic.topicId, partition: p.partition };
  });

  let total = 0;
  let throttledBytes = 0;
  const results: FetchPartitionResult[] = [];
  try {
    for (const slot of slots) {
      if (slot.kind === 'done') {
        results.push(slot.result);
        continue;
      }
      const got = slot.read === NOTHING_READ ? NOTHING : await slot.read;
      if ('errorCode' in got) {
        results.push(failed(got.errorCode));
        continue;
      }
      const { log, lso, fetchOffset } = slot;
      const kept = takeWholeBatches(got.records, Math.max(0, Math.min(slot.partitionMaxBytes, maxBytes - total)), total === 0);
      total += kept.sizeBytes;
      if (slot.throttled) throttledBytes += kept.sizeBytes;
      let abortedTransactions: FetchPartitionResult['abortedTransactions'] = null;
      if (params.isolationLevel === READ_COMMITTED) {
        abortedTransactions = [];
        if (kept.records.length > 0) {
          const upper = lastOffsetOfBatches(kept.records[kept.records.length - 1]) + 1;
          // A tiered log's local segments read here may have been deleted (copied) since: their
          // aborted transactions are then in the remote tier's indexes.
          const remote = slot.remote ?? (log.tiered && env.tiered && log.topic === slot.topic && fetchOffset < log.localLogStartOffset ? { topic: slot.topic, topicId: slot.topicId, partition: slot.partition, log } : null);
          const list = remote ? await env.tiered!.collectAborted(remote, fetchOffset, upper) : await log.collectAbortedTransactions(fetchOffset, upper);
          for (const a of list) abortedTransactions.push({ producerId: a.producerId, firstOffset: a.firstOffset });
        }
      }
      results.push({
        errorCode: ErrorCode.NONE, highWatermark: log.highWatermark, lastStableOffset: lso, logStartOffset: log.logStartOffset,
        divergingEpoch: null, preferredReadReplica: -1, abortedTransactions, records: kept.records,
      });
    }
  } catch (err) {
    // Every read must have finished before its buffer can be reused for another response.
    await Promise.all(slots.map((s) => (s.kind === 'read' ? s.read : undefined)));
    throw err;
  }
  return { partitions: results, bytes: total, throttledBytes };
}

/** An error, a diverging epoch or a preferred read replica ends the long poll at once (Kafka's fetchMessages). */
function hasError(r: FetchResult): boolean {
  for (const p of r.partitions) if (p.errorCode !== ErrorCode.NONE || p.divergingEpoch !== null || p.preferredReadReplica >= 0) return true;
  return false;
}

/**
 * Reads `parts` and long-polls until min_bytes, max_wait_ms, an error, the client leaving or the
 * broker stopping. `empty`: the request named no partition at all (answered at once).
 */
export async function fetchMessages(env: FetchEnv, params: FetchParams, parts: readonly FetchPartition[], empty: boolean): Promise<FetchResult> {
  const follower = params.replicaId >= 0;
  const minBytes = Math.min(params.minBytes, Math.max(0, params.maxBytes));
  const deadline = env.clock.now() + Math.max(0, params.maxWaitMs);
  // The logs a long poll watches: those of the first pass, noted before it read (an append
  // between the read and the wait is not missed).
  const watched = parts.map((p): PartitionLog | null => {
    const partition = env.getPartition(p.topic.name, p.partition);
    if (!partition) return null;
    const target = readLog(env, p, follower);
    return typeof target === 'number' ? null : target.log;
  });
  for (;;) {
    const wake = env.purgatory.watch(watched.filter((l): l is PartitionLog => l !== null), follower);
    const result = await readOnce(env, params, parts);
    const remaining = deadline - env.clock.now();
    if (result.bytes >= minBytes || remaining <= 0 || hasError(result) || empty || env.stopping()) return result;
    // After the client went away (or the broker began stopping) nobody waits for the answer.
    if ((await wake.wait(remaining, params.closed)) === 'closed') return result;
  }
}
