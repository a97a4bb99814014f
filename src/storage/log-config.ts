/**
 * The settings and result types of a PartitionLog (Kafka's topic-level log configs, camelCased),
 * kept apart from partition-log.ts so the loader and the log share them.
 */
import { KafkaApiError } from '../errors.js';
import type { Clock } from '../clock.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { Fs } from './fs.js';
import type { PartitionCheckpoints } from './partition-files.js';
import type { VerificationGuard } from './producer-state.js';

/** Topic-level log settings under Kafka's names (camelCased). */
export interface LogConfig {
  /** segment.bytes */
  segmentBytes: number;
  /** segment.ms */
  segmentMs: number;
  /** segment.jitter.ms */
  segmentJitterMs?: number;
  /** retention.ms; -1 keeps data forever */
  retentionMs: number;
  /** retention.bytes; -1 means no size limit */
  retentionBytes: number;
  /** max.message.bytes: largest batch, including its 12-byte prefix */
  maxMessageBytes: number;
  /** message.timestamp.type */
  messageTimestampType: 'CreateTime' | 'LogAppendTime';
  /** message.timestamp.before.max.ms / after.max.ms (CreateTime bounds); absent = not checked. */
  messageTimestampBeforeMaxMs?: number;
  messageTimestampAfterMaxMs?: number;
  /** index.interval.bytes */
  indexIntervalBytes: number;
  /** segment.index.bytes */
  segmentIndexBytes: number;
  /** flush.messages: fsync after this many appended records */
  flushMessages: number;
  /** flush.ms: fsync when the last flush is older than this (checked by LogManager) */
  flushMs: number;
  /** cleanup.policy: "delete", "compact" or "compact,delete" */
  cleanupPolicy: string;
  /** file.delete.delay.ms */
  fileDeleteDelayMs: number;
  /** Compaction (log-cleaner.ts); absent = Kafka's default. delete.retention.ms (86400000) */
  deleteRetentionMs?: number;
  /** min.compaction.lag.ms (0) */
  minCompactionLagMs?: number;
  /** max.compaction.lag.ms (Long.MAX_VALUE) */
  maxCompactionLagMs?: number;
  /** min.cleanable.dirty.ratio (0.5) */
  minCleanableDirtyRatio?: number;
  /**
   * Tiered storage (KIP-405): remote.storage.enable. Closed segments are copied to the object
   * store (remote/), and local ones then go by local.retention.* instead of retention.*.
   */
  remoteStorageEnable?: boolean;
  /** local.retention.ms (-2: retention.ms) */
  localRetentionMs?: number;
  /** local.retention.bytes (-2: retention.bytes) */
  localRetentionBytes?: number;
  /** remote.log.copy.disable: nothing more is copied (what is remote stays readable). */
  remoteLogCopyDisable?: boolean;
  /** remote.copy.lag.ms (KIP-1241): 0 copy at once; -1 local retention's time; else a segment's age first. */
  remoteCopyLagMs?: number;
  /** remote.copy.lag.bytes (KIP-1241): 0 copy at once; -1 local retention's size; else newer local bytes first. */
  remoteCopyLagBytes?: number;
}

/** Kafka 4.x defaults. flush.* default to Long.MAX_VALUE, i.e. never (the OS page cache decides). */
export const defaultLogConfig: Readonly<LogConfig> = Object.freeze({
  segmentBytes: 1073741824,
  segmentMs: 604800000,
  segmentJitterMs: 0,
  retentionMs: 604800000,
  retentionBytes: -1,
  maxMessageBytes: 1048588,
  messageTimestampType: 'CreateTime',
  indexIntervalBytes: 4096,
  segmentIndexBytes: 10485760,
  flushMessages: Number.MAX_SAFE_INTEGER,
  flushMs: Number.MAX_SAFE_INTEGER,
  cleanupPolicy: 'delete',
  fileDeleteDelayMs: 60000,
});

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
  /** The broker time stamped on LogAppendTime topics, else -1. */
  logAppendTimeMs: number;
  logStartOffset: number;
  recordCount: number;
  /** The batch repeated one of the producer's last five: nothing was written (behaviours.md I2). */
  duplicate?: boolean;
}

export interface ReadResult {
  records: Buffer[];
  sizeBytes: number;
}

export interface TimestampAndOffset {
  offset: number;
  timestamp: number;
  /** partitionLeaderEpoch of the batch holding the record (-1 if none). */
  leaderEpoch: number;
}

export interface PartitionLogOptions {
  fs: Fs;
  dir: string;
  topic: string;
  partition: number;
  config: LogConfig;
  clock: Clock;
  topicId?: string;
  /**
   * Where the log's offsets are checkpointed (partition-files.ts): the log dir's shared files when
   * a LogManager opens the log; absent, files in the partition directory itself.
   */
  checkpoints?: PartitionCheckpoints;
  /** The directory is known to exist (LogManager.loadAll found it): no mkdir. */
  dirExists?: boolean;
  /**
   * A new log this broker leads: its epoch, from the log end, is checkpointed with the log's
   * partition.metadata (one directory fsync; makeLeader then has nothing left to write).
   */
  initialLeaderEpoch?: number;
}

export function storageError(err: unknown, what: string): KafkaApiError {
  if (err instanceof KafkaApiError) return err;
  return new KafkaApiError(ErrorCode.KAFKA_STORAGE_ERROR, `${what}: ${(err as Error)?.message ?? String(err)}`, { cause: err });
}


/** Whether a cleanup.policy list (`delete`, `compact`, `compact,delete`) names `policy`. */
export function hasCleanupPolicy(cleanupPolicy: string | undefined, policy: 'delete' | 'compact'): boolean {
  return cleanupPolicy !== undefined && cleanupPolicy.split(',').some((p) => p.trim() === policy);
}

/** A new segment's share of segment.jitter.ms (random, fixed for the segment's life). */
export function rollJitterMs(config: LogConfig): number {
  const j = config.segmentJitterMs ?? 0;
  return j > 0 ? Math.floor(Math.random() * j) : 0;
}

/**
 * Who appends: a producer, a coordinator (markers, offsets, transaction state), or the replica
 * fetcher copying the leader's batches (offsets, epochs and timestamps as the leader wrote them;
 * only the batch framing and CRC are checked, as Kafka's appendAsFollower, with no size limits).
 */
export type AppendOrigin = 'client' | 'coordinator' | 'replication';

/** How a leader append is made (appendAsLeader). */
export interface LeaderAppendOptions {
  /** Who writes: a client's produce (default), a coordinator, ... (log-validator.ts). */
  origin?: AppendOrigin;
  /**
   * Produce-side transaction verification is on for this append: a transactional batch that
   * opens a transaction here is written only while this guard (ProducerStateManager
   * `startVerification`, taken before the coordinator was asked; null when none was needed) is
   * still the producer's. Absent: no verification (transaction.partition.verification.enable=false).
   */
  verification?: VerificationGuard | null;
  /** The transaction version of a marker (WriteTxnMarkers v2): 2 requires an epoch above the producer's. */
  markerTransactionVersion?: number;
}
