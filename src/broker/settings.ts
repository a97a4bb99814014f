/**
 * The broker's runtime view of its Kafka-named configuration (src/config.ts): the handful of
 * values the request path reads often, in camelCase, and the translation of a topic's effective
 * configuration into the storage layer's LogConfig.
 */
import { advertisedListeners, brokerListeners, resolveTopicConfig, type BrokerConfig, type Listener } from '../config.js';
import type { LogConfig } from '../storage/partition-log.js';
import type { CleanerConfig } from '../storage/log-cleaner.js';

export interface RuntimeSettings {
  nodeId: number;
  clusterId: string | null;
  listeners: Listener[];
  advertisedListeners: Listener[];
  logDirs: string[];
  numPartitions: number;
  defaultReplicationFactor: number;
  autoCreateTopicsEnable: boolean;
  deleteTopicEnable: boolean;
  socketRequestMaxBytes: number;
  fetchMaxBytes: number;
  flushOnAcksAll: boolean;
  retentionCheckIntervalMs: number;
  flushSchedulerIntervalMs: number;
}

function asList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return String(v).split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export function settingsFromConfig(c: BrokerConfig): RuntimeSettings {
  return {
    nodeId: Number(c['node.id']),
    clusterId: (c['cluster.id'] as string | null) ?? null,
    listeners: brokerListeners(c),
    advertisedListeners: advertisedListeners(c),
    logDirs: asList(c['log.dirs']),
    numPartitions: Number(c['num.partitions']),
    defaultReplicationFactor: Number(c['default.replication.factor']),
    autoCreateTopicsEnable: Boolean(c['auto.create.topics.enable']),
    deleteTopicEnable: Boolean(c['delete.topic.enable']),
    socketRequestMaxBytes: Number(c['socket.request.max.bytes']),
    fetchMaxBytes: Number(c['fetch.max.bytes']),
    flushOnAcksAll: Boolean(c['samsa.flush.on.acks.all']),
    retentionCheckIntervalMs: Number(c['log.retention.check.interval.ms']),
    flushSchedulerIntervalMs: Number(c['log.flush.scheduler.interval.ms']),
  };
}

const NEVER = Number.MAX_SAFE_INTEGER;

/** log.cleaner.* for the LogManager's cleaner (storage/log-cleaner.ts). */
export function cleanerConfigFor(c: BrokerConfig): CleanerConfig {
  return {
    enable: Boolean(c['log.cleaner.enable']),
    threads: Number(c['log.cleaner.threads']),
    backoffMs: Number(c['log.cleaner.backoff.ms']),
    dedupeBufferSize: Number(c['log.cleaner.dedupe.buffer.size']),
    loadFactor: Number(c['log.cleaner.io.buffer.load.factor']),
    ioBufferSize: Number(c['log.cleaner.io.buffer.size']),
    ioMaxBytesPerSecond: Number(c['log.cleaner.io.max.bytes.per.second']),
  };
}

/** The storage LogConfig for a topic with these dynamic overrides. */
export function logConfigFor(c: BrokerConfig, overrides: Readonly<Record<string, string>>): LogConfig {
  const v = resolveTopicConfig(c, overrides).values as Record<string, unknown>;
  const num = (name: string) => Math.min(Number(v[name]), NEVER);
  return {
    segmentBytes: num('segment.bytes'),
    segmentMs: num('segment.ms'),
    segmentJitterMs: num('segment.jitter.ms'),
    retentionMs: num('retention.ms'),
    retentionBytes: num('retention.bytes'),
    maxMessageBytes: num('max.message.bytes'),
    messageTimestampType: v['message.timestamp.type'] === 'LogAppendTime' ? 'LogAppendTime' : 'CreateTime',
    messageTimestampBeforeMaxMs: num('message.timestamp.before.max.ms'),
    messageTimestampAfterMaxMs: num('message.timestamp.after.max.ms'),
    indexIntervalBytes: num('index.interval.bytes'),
    segmentIndexBytes: num('segment.index.bytes'),
    flushMessages: num('flush.messages'),
    flushMs: num('flush.ms'),
    cleanupPolicy: asList(v['cleanup.policy']).join(','),
    fileDeleteDelayMs: num('file.delete.delay.ms'),
    deleteRetentionMs: num('delete.retention.ms'),
    minCompactionLagMs: num('min.compaction.lag.ms'),
    maxCompactionLagMs: num('max.compaction.lag.ms'),
    minCleanableDirtyRatio: Number(v['min.cleanable.dirty.ratio']),
    remoteStorageEnable: v['remote.storage.enable'] === true,
    localRetentionMs: Math.min(Number(v['local.retention.ms']), NEVER),
    localRetentionBytes: Math.min(Number(v['local.retention.bytes']), NEVER),
    remoteLogCopyDisable: v['remote.log.copy.disable'] === true,
    remoteCopyLagMs: Math.min(Number(v['remote.copy.lag.ms']), NEVER),
    remoteCopyLagBytes: Math.min(Number(v['remote.copy.lag.bytes']), NEVER),
  };
}
