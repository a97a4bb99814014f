/**
 * Tiered storage as the rest of the broker sees it: the remote log manager (copy, retention,
 * rebuild) and the reads of remote offsets, over one object store. Made by the composition root
 * when remote.log.storage.system.enable is set (`connectTieredStorage`), handed to the replica
 * manager's data path (Fetch, ListOffsets) and to metrics.
 */
import type { RemoteStorageSettings } from '../config/remote-storage-settings.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { PartitionLog } from '../storage/partition-log.js';
import type { AbortedTxn } from '../storage/producer-state.js';
import type { TimestampAndOffset } from '../storage/log-config.js';
import { ObjectStoreError, type ObjectStore } from './object-store.js';
import { RemoteLogManager, type RemotePartitionState, type TieredPartition } from './remote-log-manager.js';
import { SampledRate } from '../sampled-rate.js';
import { RemoteLogReader } from './remote-log-reader.js';

export interface TieredStorageOptions {
  config: RemoteStorageSettings;
  brokerId: number;
  clock: Clock;
  logger: Logger;
  partitions(): Iterable<TieredPartition>;
  /** remote.fetch.max.wait.ms now (a dynamic broker config); 500 when not given. */
  fetchMaxWaitMs?: () => number;
  /** remote.log.manager.copy.max.bytes.per.second now (a dynamic broker config); absent: no limit. */
  copyMaxBytesPerSecond?: () => number;
  /** remote.log.manager.fetch.max.bytes.per.second now (a dynamic broker config); absent: no limit. */
  fetchMaxBytesPerSecond?: () => number;
}

/** Which partition a remote read is for. */
export interface RemoteTarget {
  topic: string;
  topicId: string;
  partition: number;
  log: PartitionLog;
}

/** Store failures become KAFKA_STORAGE_ERROR, which clients retry (never a broker crash). */
function storageError(err: unknown): unknown {
  if (err instanceof ObjectStoreError && err.kind !== 'not-found') return new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `remote tier: ${err.message}`, { cause: err });
  if (err instanceof ObjectStoreError) return new KafkaApiError(ErrorCode.OFFSET_OUT_OF_RANGE, `remote tier: ${err.message}`, { cause: err });
  return err;
}

export class TieredStorage {
  readonly manager: RemoteLogManager;
  readonly reader: RemoteLogReader;

  private readonly logger: Logger;
  /** Bytes read from the store for Fetch requests, over Kafka's 11 one-second windows (the fetch quota). */
  private readonly fetchRate: SampledRate;

  constructor(readonly store: ObjectStore, private readonly opts: TieredStorageOptions) {
    this.fetchRate = new SampledRate(11, 1000, opts.clock.now());
    const c = opts.config;
    this.logger = opts.logger;
    this.manager = new RemoteLogManager({
      store, prefix: String(c['samsa.remote.s3.prefix'] ?? ''), brokerId: opts.brokerId, clock: opts.clock, logger: opts.logger,
      partitions: opts.partitions, taskIntervalMs: c['remote.log.manager.task.interval.ms'], orphanAgeMs: c['samsa.remote.orphan.age.ms'],
      copyMaxBytesPerSecond: opts.copyMaxBytesPerSecond,
    });
    this.reader = new RemoteLogReader(store, {
      cacheBytes: c['samsa.remote.fetch.cache.bytes'], chunkBytes: c['samsa.remote.fetch.chunk.bytes'],
      onFetched: (n) => {
        this.manager.metrics.fetchBytes += n;
        this.fetchRate.record(n, this.opts.clock.now());
      },
    });
  }

  start(): void {
    this.manager.start();
  }

  async stop(): Promise<void> {
    await this.manager.stop();
    await this.store.close();
  }

  private state(t: RemoteTarget): RemotePartitionState {
    return this.manager.stateOf(t.topic, t.topicId, t.partition);
  }

  /** Whole batches of the remote segment holding `fetchOffset` (a Fetch below the local log start). */
  async read(t: RemoteTarget, fetchOffset: number, maxBytes: number, minOneMessage: boolean): Promise<{ records: Buffer[] }> {
    try {
      return await this.reader.read(this.state(t), fetchOffset, maxBytes, minOneMessage);
    } catch (err) {
      this.manager.metrics.fetchErrors++;
      throw storageError(err);
    }
  }

  /**
   * A Fetch's remote read, waited for at most remote.fetch.max.wait.ms (Kafka's DelayedRemoteFetch):
   * past that the partition is answered with no records and no error, so the consumer fetches
   * again, and the read goes on in the background filling the chunk cache for that next fetch.
   */
  readForFetch(t: RemoteTarget, fetchOffset: number, maxBytes: number): Promise<{ records: Buffer[] }> {
    // The fetch quota used up: no remote read now (Kafka answers the partition empty, without error).
    if (this.fetchQuotaExceeded()) {
      this.manager.metrics.fetchThrottled++;
      return Promise.resolve({ records: [] });
    }
    const read = this.read(t, fetchOffset, maxBytes, true);
    const waitMs = this.fetchMaxWaitMs();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<{ records: Buffer[] }>((resolve) => {
      timer = setTimeout(() => {
        this.manager.metrics.fetchExpires++;
        resolve({ records: [] });
      }, waitMs);
    });
    read.catch(() => undefined);
    return Promise.race([read, expired]).finally(() => clearTimeout(timer));
  }

  /** Whether remote.log.manager.fetch.max.bytes.per.second is used up now. */
  fetchQuotaExceeded(): boolean {
    const max = this.opts.fetchMaxBytesPerSecond?.() ?? Infinity;
    return Number.isFinite(max) && max < Number.MAX_SAFE_INTEGER && this.fetchRate.rate(this.opts.clock.now()) > max;
  }

  private fetchMaxWaitMs(): number {
    const v = this.opts.fetchMaxWaitMs?.() ?? 500;
    return Number.isFinite(v) && v > 0 ? v : 500;
  }

  /** Aborted transactions of [fetchOffset, upperBound): the remote segments' indexes, then the local ones. */
  async collectAborted(t: RemoteTarget, fetchOffset: number, upperBound: number): Promise<AbortedTxn[]> {
    try {
      const remote = await this.reader.collectAborted(this.state(t), fetchOffset, upperBound);
      if (remote.complete) return remote.aborted;
      const local = await t.log.collectAbortedTransactions(Math.max(fetchOffset, t.log.localLogStartOffset), upperBound);
      return [...remote.aborted, ...local];
    } catch (err) {
      throw storageError(err);
    }
  }

  /** ListOffsets by timestamp: the remote tier first, then the local log (Kafka's fetchOffsetByTimestamp). */
  async offsetForTimestamp(t: RemoteTarget, timestampMs: number): Promise<TimestampAndOffset | null> {
    try {
      const remote = await this.reader.offsetForTimestamp(this.state(t), timestampMs, t.log.logStartOffset);
      return remote ?? (await t.log.offsetForTimestamp(timestampMs));
    } catch (err) {
      throw storageError(err);
    }
  }

  /**
   * Per topic, the bytes and segments in the remote tier of the partitions this broker leads
   * (Kafka's RemoteLogSizeBytes and RemoteLogMetadataCount, counted by the leaders).
   */
  remoteSizes(): Map<string, { bytes: number; segments: number }> {
    const out = new Map<string, { bytes: number; segments: number }>();
    for (const p of this.opts.partitions()) {
      if (!p.isLeader) continue;
      const state = this.state({ topic: p.topic, topicId: p.topicId, partition: p.partitionIndex, log: p.log });
      const t = out.get(p.topic) ?? { bytes: 0, segments: 0 };
      t.bytes += state.sizeBytes;
      t.segments += state.segments.length;
      out.set(p.topic, t);
    }
    return out;
  }

  /** A deleted topic's objects go too (in the background; a failure is logged, the objects stay). */
  deleteTopic(topic: string, topicId: string): void {
    this.manager.deleteTopic(topic, topicId).catch((err) => this.logger.warn(`tiered storage: deleting the objects of deleted topic ${topic}: ${(err as Error).message}`));
  }

  /**
   * Tiered storage turned off for a topic (remote.storage.enable=false with
   * remote.log.delete.on.disable=true, KIP-950): its remote segments are deleted (in the
   * background; a failure is logged, the objects stay). The logs already start at their local start.
   */
  disableTopic(topic: string, topicId: string): void {
    this.manager.deleteTopic(topic, topicId, 'tiered storage turned off for').catch((err) => this.logger.warn(`tiered storage: deleting the remote segments of ${topic} (tiered storage turned off): ${(err as Error).message}`));
  }

  /** A follower starting at the leader's local log start (replica-fetcher.ts OFFSET_MOVED_TO_TIERED_STORAGE). */
  rebuildFollower(p: TieredPartition, localStart: number, logStart: number): Promise<void> {
    return this.manager.rebuildFollower(p, localStart, logStart).catch((err) => { throw storageError(err); });
  }

  /** Bytes and first offset of the partition's remote tier (DescribeLogDirs, console, metrics). */
  remoteExtent(t: Omit<RemoteTarget, 'log'>): { sizeBytes: number; startOffset: number; endOffset: number } {
    const s = this.manager.stateOf(t.topic, t.topicId, t.partition);
    const segs = s.segments;
    return { sizeBytes: s.sizeBytes, startOffset: segs[0]?.baseOffset ?? -1, endOffset: segs[segs.length - 1]?.endOffset ?? -1 };
  }
}

/**
 * The object store samsa.remote.s3.* describe (its bucket created when missing), or `store` when
 * given (tests: memory-object-store.ts). @aws-sdk/client-s3 loads only here.
 */
export async function connectObjectStore(config: RemoteStorageSettings, logger: Logger, store?: ObjectStore): Promise<ObjectStore> {
  if (store) return store;
  const { S3ObjectStore } = await import('./s3-object-store.js');
  const s3 = await S3ObjectStore.connect({
    endpoint: String(config['samsa.remote.s3.endpoint'] ?? ''),
    region: config['samsa.remote.s3.region'],
    bucket: config['samsa.remote.s3.bucket'],
    pathStyle: config['samsa.remote.s3.path.style.access'],
    accessKeyId: String(config['samsa.remote.s3.access.key.id'] ?? '') || undefined,
    secretAccessKey: String(config['samsa.remote.s3.secret.access.key'] ?? '') || undefined,
    partBytes: config['samsa.remote.s3.part.bytes'],
    requestTimeoutMs: config['samsa.remote.s3.request.timeout.ms'],
  });
  // An unreachable store does not stop the broker: copies wait and retry (remote-log-manager.ts).
  await s3.ensureBucket().catch((err) => logger.warn(`tiered storage: bucket ${config['samsa.remote.s3.bucket']}: ${(err as Error).message}`));
  return s3;
}
