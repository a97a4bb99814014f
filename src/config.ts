/**
 * Kafka-named configuration: every broker setting Samsa understands (by Kafka's property name, with
 * Kafka's type, default and validation), the topic-level configs with the broker settings they
 * inherit from, loading from a .properties file / `--override` flags / `KAFKA_*` environment
 * variables, and the DescribeConfigs view (value, source, synonyms, type code) of both.
 *
 * Conventions
 * - A setting's default is kept in Kafka's text form (what DescribeConfigs shows); typed values
 *   come from parsing that text the same way as a value from a file.
 * - Types map to TypeScript as: boolean → boolean; int/short/long/double → number; list →
 *   string[]; string/password → string. `null` only where Kafka's default is null and nothing
 *   derives a value (e.g. `advertised.listeners`, `cluster.id`).
 * - long values: Kafka's Long.MAX_VALUE (9223372036854775807, "never" for flush/compaction
 *   settings) does not fit a double. Any long at or beyond ±Number.MAX_SAFE_INTEGER is clamped to
 *   ±Number.MAX_SAFE_INTEGER (`LONG_MAX` below), which still reads as "practically infinite" (285
 *   000 years in ms) and is rendered back as Long.MAX_VALUE / Long.MIN_VALUE in DescribeConfigs.
 * - Settings that Kafka derives from a group of synonyms hold the *effective* value in
 *   `BrokerConfig`: `log.retention.ms` (← `log.retention.minutes` ← `log.retention.hours`,
 *   negative → -1 = unlimited), `log.roll.ms` (← `log.roll.hours`), `log.roll.jitter.ms`
 *   (← `log.roll.jitter.hours`), `log.flush.interval.ms` (← `log.flush.scheduler.interval.ms`;
 *   LONG_MAX = "no time-based flush"), `node.id` (← `broker.id`), `log.dirs` (← `log.dir`). The
 *   lower-priority synonyms keep their own raw values. `BrokerConfig.explicit` says what was set
 *   and where; DescribeConfigs shows null for the unset ones, as Kafka does.
 * - Precedence of sources for one key: --override flags > KAFKA_* environment > properties file >
 *   default. Synonym groups are resolved after that merge, with Kafka's precedence inside the group
 *   (so a file's `log.retention.ms` beats an environment `KAFKA_LOG_RETENTION_HOURS`, as it would
 *   in Kafka's docker image, which writes the environment into the file).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './errors.js';

// ---------------------------------------------------------------------------------------------
// Kafka enumerations used on the wire

/** DescribeConfigs v3+ `config_type`. */
export const ConfigType = {
  UNKNOWN: 0,
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
} as const;
export type ConfigTypeCode = (typeof ConfigType)[keyof typeof ConfigType];

/** DescribeConfigs v1+ `config_source` (the wire calls 1 TOPIC_CONFIG; the admin client DYNAMIC_TOPIC_CONFIG). */
export const ConfigSource = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  CLIENT_METRICS_CONFIG: 7,
  GROUP_CONFIG: 8,
} as const;
export type ConfigSourceCode = (typeof ConfigSource)[keyof typeof ConfigSource];

/** Long.MAX_VALUE as Samsa holds it (see the header comment). */
export const LONG_MAX = Number.MAX_SAFE_INTEGER;
const LONG_MAX_TEXT = '9223372036854775807';
const LONG_MIN_TEXT = '-9223372036854775808';
const INT_MAX_TEXT = '2147483647';

// ---------------------------------------------------------------------------------------------
// Setting specifications

export type SettingType = 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'password';

export interface SettingSpec {
  readonly type: SettingType;
  /** Default in Kafka's text form; null = no default. */
  readonly default: string | null;
  readonly doc: string;
  /** Inclusive numeric bounds (numbers, or each list element's length never; numbers only). */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values: the whole value for strings, each element for lists. */
  readonly oneOf?: readonly string[];
  /** Whether `oneOf` compares case-insensitively (Kafka's ValidString is case-sensitive). */
  readonly caseInsensitive?: boolean;
  /** Extra validation of the typed value; returns an error message or null. */
  readonly check?: (value: never) => string | null;
  /**
   * Broker settings only: lower-priority settings this one falls back to, in Kafka's order. When
   * present the setting's typed value is the effective value of the whole group.
   */
  readonly fallbacks?: readonly string[];
  /** Broker settings only: multiply this setting's value by this to get its group head's unit (hours → ms). */
  readonly scale?: number;
  /** Topic configs only: the broker settings it inherits from, highest priority first. */
  readonly synonyms?: readonly string[];
}

function checkListeners(value: never): string | null {
  try {
    parseListeners(value as unknown as string);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function checkListenerList(value: never): string | null {
  const v = value as unknown as string | null;
  if (v === null) return null;
  return checkListeners(v as never);
}

function checkProtocolMap(value: never): string | null {
  try {
    parseSecurityProtocolMap(value as unknown as string);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function checkClusterId(value: never): string | null {
  const v = value as unknown as string | null;
  if (v === null) return null;
  if (!/^[A-Za-z0-9_-]{22}$/.test(v) || Buffer.from(v, 'base64url').length !== 16) {
    return 'a cluster id is a UUID in URL-safe base64 without padding (22 characters), e.g. MkU3OEVBNTcwNTJENDM2Qk';
  }
  return null;
}

function checkDirs(value: never): string | null {
  const v = value as unknown as string[];
  if (v.length === 0) return 'at least one directory is required';
  if (v.some((d) => d === '')) return 'empty directory name in list';
  return null;
}

function checkGzipLevel(value: never): string | null {
  const v = value as unknown as number;
  return v === -1 || (v >= 1 && v <= 9) ? null : 'Value must be between 1 and 9, or -1';
}

const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'] as const;
const CLEANUP_POLICIES = ['compact', 'delete'] as const;
const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'] as const;

/**
 * Every broker setting Samsa understands. Settings marked "accepted" are read and validated so
 * that Kafka's shipped config/server.properties (KRaft) and apache/kafka docker-image environments
 * load unchanged, but Samsa (one node, no TLS) does not act on them.
 */
export const BROKER_SETTINGS = {
  // --- identity and roles -------------------------------------------------------------------
  'node.id': {
    type: 'int', default: '1', min: 0, fallbacks: ['broker.id'],
    doc: 'The id of this node. Kafka requires it in KRaft mode (code default -1); Samsa defaults to 1. `broker.id` is accepted as a synonym; if both are set they must be equal.',
  },
  'broker.id': {
    type: 'int', default: null, min: 0,
    doc: 'Synonym of node.id (ZooKeeper-era name).',
  },
  'cluster.id': {
    type: 'string', default: null, check: checkClusterId,
    doc: 'Cluster id reported in Metadata/DescribeCluster. When absent the broker generates one on first start and persists it in its data directory. (The apache/kafka image reads CLUSTER_ID; so does Samsa.)',
  },
  'process.roles': {
    type: 'list', default: '', oneOf: ['broker', 'controller'],
    doc: 'Accepted for compatibility with KRaft configs; Samsa is always a combined single node.',
  },
  'controller.quorum.voters': {
    type: 'list', default: '',
    doc: 'Accepted for compatibility with KRaft configs; not used by Samsa.',
  },
  'controller.quorum.bootstrap.servers': {
    type: 'list', default: '',
    doc: 'Accepted for compatibility with KRaft configs; not used by Samsa.',
  },
  'controller.listener.names': {
    type: 'string', default: null,
    doc: 'Comma-separated listener names used by the KRaft controller. Samsa does not open these listeners and never advertises them.',
  },
  'inter.broker.listener.name': {
    type: 'string', default: null,
    doc: 'Accepted for compatibility; Samsa has no inter-broker traffic.',
  },

  // --- network --------------------------------------------------------------------------------
  'listeners': {
    type: 'string', default: 'PLAINTEXT://:9092', check: checkListeners,
    doc: 'Comma-separated listeners NAME://host:port. Empty host binds all interfaces; port 0 picks a free port.',
  },
  'advertised.listeners': {
    type: 'string', default: null, check: checkListenerList,
    doc: 'Listeners given to clients in Metadata. Default: `listeners` (minus controller listeners) with an empty or wildcard host replaced by localhost.',
  },
  'listener.security.protocol.map': {
    type: 'string', default: 'SASL_SSL:SASL_SSL,PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT',
    check: checkProtocolMap,
    doc: 'Map of listener name to security protocol, NAME:PROTOCOL,... A listener named after a security protocol needs no entry.',
  },
  'num.network.threads': {
    type: 'int', default: '3', min: 1,
    doc: 'Accepted for compatibility; Node.js handles the network on its event loop.',
  },
  'num.io.threads': {
    type: 'int', default: '8', min: 1,
    doc: 'Accepted for compatibility; not used by Samsa.',
  },
  'socket.send.buffer.bytes': {
    type: 'int', default: '102400',
    doc: 'SO_SNDBUF of client sockets; -1 uses the OS default.',
  },
  'socket.receive.buffer.bytes': {
    type: 'int', default: '102400',
    doc: 'SO_RCVBUF of client sockets; -1 uses the OS default.',
  },
  'socket.request.max.bytes': {
    type: 'int', default: '104857600', min: 1,
    doc: 'Largest request frame accepted; a larger size prefix closes the connection.',
  },
  'queued.max.requests': {
    type: 'int', default: '500', min: 1,
    doc: 'Requests read from all connections but not yet answered before the broker stops reading from sockets.',
  },
  'connections.max.idle.ms': {
    type: 'long', default: '600000',
    doc: 'Idle connections are closed after this many milliseconds.',
  },
  'fetch.max.bytes': {
    type: 'int', default: '57671680', min: 1024,
    doc: 'Upper bound on the bytes returned for one Fetch request (caps the request max_bytes).',
  },

  // --- storage --------------------------------------------------------------------------------
  'log.dirs': {
    type: 'list', default: './data', fallbacks: ['log.dir'], check: checkDirs,
    doc: 'Directories that hold the partition logs (relative paths are resolved against the working directory). Kafka has no default here and falls back to log.dir (/tmp/kafka-logs); Samsa defaults to ./data.',
  },
  'log.dir': {
    type: 'string', default: null,
    doc: 'Single-directory form of log.dirs, used only when log.dirs is not set.',
  },
  'num.recovery.threads.per.data.dir': {
    type: 'int', default: '2', min: 1,
    doc: 'Accepted for compatibility; not used by Samsa.',
  },
  'num.partitions': {
    type: 'int', default: '1', min: 1,
    doc: 'Partitions of an auto-created topic, and of CreateTopics with num_partitions -1.',
  },
  'default.replication.factor': {
    type: 'int', default: '1', min: 1,
    doc: 'Replication factor of an auto-created topic, and of CreateTopics with replication_factor -1.',
  },
  'auto.create.topics.enable': {
    type: 'boolean', default: 'true',
    doc: 'Metadata (and FindCoordinator for internal topics) create missing topics.',
  },
  'delete.topic.enable': {
    type: 'boolean', default: 'true',
    doc: 'Whether DeleteTopics may delete topics.',
  },
  'message.max.bytes': {
    type: 'int', default: '1048588', min: 0,
    doc: 'Largest record batch accepted (including the 12-byte offset+length prefix). Topic config max.message.bytes.',
  },
  'log.segment.bytes': {
    type: 'int', default: '1073741824', min: 14,
    doc: 'Size at which a segment is rolled. Topic config segment.bytes. Minimum 14 as in Kafka 3.x (Kafka 4 raised it to 1 MiB); Samsa keeps the small minimum so tests can roll segments quickly.',
  },
  'log.roll.ms': {
    type: 'long', default: null, min: 1, fallbacks: ['log.roll.hours'],
    doc: 'Age at which a segment is rolled; when not set, log.roll.hours applies. Topic config segment.ms.',
  },
  'log.roll.hours': {
    type: 'int', default: '168', min: 1, scale: 3_600_000,
    doc: 'Age in hours at which a segment is rolled; secondary to log.roll.ms.',
  },
  'log.roll.jitter.ms': {
    type: 'long', default: null, fallbacks: ['log.roll.jitter.hours'],
    doc: 'Largest random jitter subtracted from the roll time; when not set, log.roll.jitter.hours applies. Topic config segment.jitter.ms.',
  },
  'log.roll.jitter.hours': {
    type: 'int', default: '0', min: 0, scale: 3_600_000,
    doc: 'Roll jitter in hours; secondary to log.roll.jitter.ms.',
  },
  'log.retention.ms': {
    type: 'long', default: null, fallbacks: ['log.retention.minutes', 'log.retention.hours'],
    doc: 'Time a segment is kept before deletion, -1 = unlimited; when not set, log.retention.minutes and then log.retention.hours apply (negative values mean unlimited). Topic config retention.ms.',
  },
  'log.retention.minutes': {
    type: 'int', default: null, scale: 60_000,
    doc: 'Retention in minutes; secondary to log.retention.ms.',
  },
  'log.retention.hours': {
    type: 'int', default: '168', scale: 3_600_000,
    doc: 'Retention in hours; secondary to log.retention.ms and log.retention.minutes.',
  },
  'log.retention.bytes': {
    type: 'long', default: '-1',
    doc: 'Largest size of a partition log before old segments are deleted, -1 = unlimited. Topic config retention.bytes.',
  },
  'log.retention.check.interval.ms': {
    type: 'long', default: '300000', min: 1,
    doc: 'How often the broker looks for segments to delete.',
  },
  'log.cleanup.policy': {
    type: 'list', default: 'delete', oneOf: CLEANUP_POLICIES,
    doc: 'Default cleanup policy: delete and/or compact. Topic config cleanup.policy.',
  },
  'log.cleaner.enable': {
    type: 'boolean', default: 'true',
    doc: 'Whether the log cleaner (compaction) runs.',
  },
  'log.cleaner.delete.retention.ms': {
    type: 'long', default: '86400000', min: 0,
    doc: 'How long delete tombstones are kept in compacted topics. Topic config delete.retention.ms.',
  },
  'log.cleaner.min.compaction.lag.ms': {
    type: 'long', default: '0', min: 0,
    doc: 'Minimum age of a record before it may be compacted. Topic config min.compaction.lag.ms.',
  },
  'log.cleaner.max.compaction.lag.ms': {
    type: 'long', default: LONG_MAX_TEXT, min: 1,
    doc: 'Maximum time a record stays uncompacted. Topic config max.compaction.lag.ms.',
  },
  'log.cleaner.min.cleanable.ratio': {
    type: 'double', default: '0.5', min: 0, max: 1,
    doc: 'Dirty ratio above which a log is compacted. Topic config min.cleanable.dirty.ratio.',
  },
  'log.index.interval.bytes': {
    type: 'int', default: '4096', min: 0,
    doc: 'Bytes appended between offset-index entries. Topic config index.interval.bytes.',
  },
  'log.index.size.max.bytes': {
    type: 'int', default: '10485760', min: 4,
    doc: 'Largest offset/time index file; a full index rolls the segment. Topic config segment.index.bytes.',
  },
  'log.flush.interval.messages': {
    type: 'long', default: LONG_MAX_TEXT, min: 1,
    doc: 'Records appended to a partition before it is fsynced. Topic config flush.messages.',
  },
  'log.flush.interval.ms': {
    type: 'long', default: null, fallbacks: ['log.flush.scheduler.interval.ms'],
    doc: 'Age of unflushed data at which a partition is fsynced; when not set, log.flush.scheduler.interval.ms applies (default Long.MAX = never). Topic config flush.ms.',
  },
  'log.flush.scheduler.interval.ms': {
    type: 'long', default: LONG_MAX_TEXT,
    doc: 'How often the flusher checks whether a log needs flushing.',
  },
  'log.segment.delete.delay.ms': {
    type: 'long', default: '60000', min: 0,
    doc: 'Delay before a deleted segment file is removed from disk. Topic config file.delete.delay.ms.',
  },
  'log.preallocate': {
    type: 'boolean', default: 'false',
    doc: 'Preallocate segment files. Topic config preallocate.',
  },
  'log.message.timestamp.type': {
    type: 'string', default: 'CreateTime', oneOf: TIMESTAMP_TYPES,
    doc: 'CreateTime keeps the producer timestamp; LogAppendTime overwrites it with the broker time. Topic config message.timestamp.type.',
  },
  'log.message.timestamp.before.max.ms': {
    type: 'long', default: LONG_MAX_TEXT, min: 0,
    doc: 'How far in the past a CreateTime timestamp may be. Topic config message.timestamp.before.max.ms.',
  },
  'log.message.timestamp.after.max.ms': {
    type: 'long', default: '3600000', min: 0,
    doc: 'How far in the future a CreateTime timestamp may be (Kafka 4.0 default; Long.MAX up to 3.9). Topic config message.timestamp.after.max.ms.',
  },
  'log.local.retention.ms': {
    type: 'long', default: '-2', min: -2,
    doc: 'Tiered storage local retention; -2 = use log.retention.ms. Samsa has no tiered storage.',
  },
  'log.local.retention.bytes': {
    type: 'long', default: '-2', min: -2,
    doc: 'Tiered storage local retention bytes; -2 = use log.retention.bytes. Samsa has no tiered storage.',
  },
  'compression.type': {
    type: 'string', default: 'producer', oneOf: COMPRESSION_TYPES,
    doc: 'Final compression of stored batches: producer keeps what the producer sent. Topic config compression.type.',
  },
  'compression.gzip.level': {
    type: 'int', default: '-1', check: checkGzipLevel,
    doc: 'gzip level when compression.type=gzip. Topic config compression.gzip.level.',
  },
  'compression.lz4.level': {
    type: 'int', default: '9', min: 1, max: 17,
    doc: 'lz4 level when compression.type=lz4. Topic config compression.lz4.level.',
  },
  'compression.zstd.level': {
    type: 'int', default: '3', min: -131072, max: 22,
    doc: 'zstd level when compression.type=zstd. Topic config compression.zstd.level.',
  },
  'min.insync.replicas': {
    type: 'int', default: '1', min: 1,
    doc: 'Replicas that must acknowledge an acks=all produce (capped at the replica count). Topic config min.insync.replicas.',
  },
  'unclean.leader.election.enable': {
    type: 'boolean', default: 'false',
    doc: 'Whether an out-of-sync replica may become leader. Topic config unclean.leader.election.enable.',
  },

  // --- group coordinator ----------------------------------------------------------------------
  'offsets.topic.num.partitions': {
    type: 'int', default: '50', min: 1,
    doc: 'Partitions of __consumer_offsets (fixed once the topic exists).',
  },
  'offsets.topic.replication.factor': {
    type: 'short', default: '3', min: 1,
    doc: 'Replication factor of __consumer_offsets. Kafka refuses to create it with fewer live brokers (FindCoordinator then answers COORDINATOR_NOT_AVAILABLE forever); a single-node Samsa caps it at the number of live brokers (1), so the Kafka default works out of the box.',
  },
  'offsets.topic.segment.bytes': {
    type: 'int', default: '104857600', min: 1,
    doc: 'Segment size of __consumer_offsets.',
  },
  'offsets.retention.minutes': {
    type: 'int', default: '10080', min: 1,
    doc: 'Committed offsets of an empty group are deleted after this many minutes.',
  },
  'offsets.retention.check.interval.ms': {
    type: 'long', default: '600000', min: 1,
    doc: 'How often expired offsets are looked for.',
  },
  'offsets.commit.timeout.ms': {
    type: 'int', default: '5000', min: 1,
    doc: 'Write timeout of coordinator operations.',
  },
  'offset.metadata.max.bytes': {
    type: 'int', default: '4096',
    doc: 'Longest metadata string of an offset commit (longer gives OFFSET_METADATA_TOO_LARGE).',
  },
  'group.initial.rebalance.delay.ms': {
    type: 'int', default: '0', min: 0,
    doc: 'Delay before the first generation of an empty group. Samsa uses 0, as Kafka\'s shipped server.properties sets; Kafka\'s code default is 3000.',
  },
  'group.min.session.timeout.ms': {
    type: 'int', default: '6000',
    doc: 'Smallest session timeout a member may ask for (smaller gives INVALID_SESSION_TIMEOUT).',
  },
  'group.max.session.timeout.ms': {
    type: 'int', default: '1800000',
    doc: 'Largest session timeout a member may ask for (larger gives INVALID_SESSION_TIMEOUT).',
  },
  'group.max.size': {
    type: 'int', default: INT_MAX_TEXT, min: 1,
    doc: 'Largest number of members in a classic group (more gives GROUP_MAX_SIZE_REACHED).',
  },

  // --- transactions and idempotence -----------------------------------------------------------
  'transaction.state.log.num.partitions': {
    type: 'int', default: '50', min: 1,
    doc: 'Partitions of __transaction_state (fixed once the topic exists).',
  },
  'transaction.state.log.replication.factor': {
    type: 'short', default: '3', min: 1,
    doc: 'Replication factor of __transaction_state; capped at the live broker count on a single-node Samsa (see offsets.topic.replication.factor).',
  },
  'transaction.state.log.min.isr': {
    type: 'int', default: '2', min: 1,
    doc: 'min.insync.replicas of __transaction_state; capped at the replica count.',
  },
  'transaction.state.log.segment.bytes': {
    type: 'int', default: '104857600', min: 1,
    doc: 'Segment size of __transaction_state.',
  },
  'transaction.max.timeout.ms': {
    type: 'int', default: '900000', min: 1,
    doc: 'Largest transaction timeout a producer may ask for (larger gives INVALID_TRANSACTION_TIMEOUT).',
  },
  'transactional.id.expiration.ms': {
    type: 'int', default: '604800000', min: 1,
    doc: 'A transactional id with no activity for this long is expired.',
  },
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': {
    type: 'int', default: '10000', min: 1,
    doc: 'How often timed-out transactions are aborted.',
  },
  'transaction.remove.expired.transaction.cleanup.interval.ms': {
    type: 'int', default: '3600000', min: 1,
    doc: 'How often expired transactional ids are removed.',
  },
  'transaction.partition.verification.enable': {
    type: 'boolean', default: 'true',
    doc: 'KIP-890 verification that a partition was added to the transaction before a transactional append.',
  },
  'producer.id.expiration.ms': {
    type: 'int', default: '86400000', min: 1,
    doc: 'Idle producer state of a partition is dropped after this many milliseconds.',
  },
  'producer.id.expiration.check.interval.ms': {
    type: 'int', default: '600000', min: 1,
    doc: 'How often expired producer ids are looked for.',
  },

  // --- Samsa-specific -------------------------------------------------------------------------
  'samsa.flush.on.acks.all': {
    type: 'boolean', default: 'false',
    doc: 'Samsa only: fsync the partition (group commit: one fsync covers every append waiting at that moment) before acknowledging an acks=all produce. Kafka relies on replication instead and never fsyncs per request.',
  },
} as const satisfies Record<string, SettingSpec>;

/** Topic-level configs (Kafka's LogConfig), each with the broker settings it inherits from. */
export const TOPIC_CONFIGS = {
  'cleanup.policy': {
    type: 'list', default: 'delete', oneOf: CLEANUP_POLICIES, synonyms: ['log.cleanup.policy'],
    doc: 'delete (time/size retention) and/or compact (keep the latest record per key).',
  },
  'compression.type': {
    type: 'string', default: 'producer', oneOf: COMPRESSION_TYPES, synonyms: ['compression.type'],
    doc: 'Final compression of stored batches; producer keeps what the producer sent.',
  },
  'compression.gzip.level': {
    type: 'int', default: '-1', check: checkGzipLevel, synonyms: ['compression.gzip.level'],
    doc: 'gzip level when compression.type=gzip.',
  },
  'compression.lz4.level': {
    type: 'int', default: '9', min: 1, max: 17, synonyms: ['compression.lz4.level'],
    doc: 'lz4 level when compression.type=lz4.',
  },
  'compression.zstd.level': {
    type: 'int', default: '3', min: -131072, max: 22, synonyms: ['compression.zstd.level'],
    doc: 'zstd level when compression.type=zstd.',
  },
  'delete.retention.ms': {
    type: 'long', default: '86400000', min: 0, synonyms: ['log.cleaner.delete.retention.ms'],
    doc: 'How long delete tombstones are kept in compacted topics.',
  },
  'file.delete.delay.ms': {
    type: 'long', default: '60000', min: 0, synonyms: ['log.segment.delete.delay.ms'],
    doc: 'Delay before a deleted segment file is removed from disk.',
  },
  'flush.messages': {
    type: 'long', default: LONG_MAX_TEXT, min: 1, synonyms: ['log.flush.interval.messages'],
    doc: 'Records appended before the log is fsynced.',
  },
  'flush.ms': {
    type: 'long', default: LONG_MAX_TEXT, min: 0, synonyms: ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'],
    doc: 'Age of unflushed data at which the log is fsynced.',
  },
  'index.interval.bytes': {
    type: 'int', default: '4096', min: 0, synonyms: ['log.index.interval.bytes'],
    doc: 'Bytes appended between offset-index entries.',
  },
  'local.retention.bytes': {
    type: 'long', default: '-2', min: -2, synonyms: ['log.local.retention.bytes'],
    doc: 'Tiered storage local retention bytes (-2 = retention.bytes). Samsa has no tiered storage.',
  },
  'local.retention.ms': {
    type: 'long', default: '-2', min: -2, synonyms: ['log.local.retention.ms'],
    doc: 'Tiered storage local retention time (-2 = retention.ms). Samsa has no tiered storage.',
  },
  'max.compaction.lag.ms': {
    type: 'long', default: LONG_MAX_TEXT, min: 1, synonyms: ['log.cleaner.max.compaction.lag.ms'],
    doc: 'Maximum time a record stays uncompacted.',
  },
  'max.message.bytes': {
    type: 'int', default: '1048588', min: 0, synonyms: ['message.max.bytes'],
    doc: 'Largest record batch accepted, including the 12-byte offset+length prefix.',
  },
  'message.timestamp.after.max.ms': {
    type: 'long', default: '3600000', min: 0, synonyms: ['log.message.timestamp.after.max.ms'],
    doc: 'How far in the future a CreateTime timestamp may be.',
  },
  'message.timestamp.before.max.ms': {
    type: 'long', default: LONG_MAX_TEXT, min: 0, synonyms: ['log.message.timestamp.before.max.ms'],
    doc: 'How far in the past a CreateTime timestamp may be.',
  },
  'message.timestamp.type': {
    type: 'string', default: 'CreateTime', oneOf: TIMESTAMP_TYPES, synonyms: ['log.message.timestamp.type'],
    doc: 'CreateTime keeps the producer timestamp; LogAppendTime overwrites it with the broker time.',
  },
  'min.cleanable.dirty.ratio': {
    type: 'double', default: '0.5', min: 0, max: 1, synonyms: ['log.cleaner.min.cleanable.ratio'],
    doc: 'Dirty ratio above which the log is compacted.',
  },
  'min.compaction.lag.ms': {
    type: 'long', default: '0', min: 0, synonyms: ['log.cleaner.min.compaction.lag.ms'],
    doc: 'Minimum age of a record before it may be compacted.',
  },
  'min.insync.replicas': {
    type: 'int', default: '1', min: 1, synonyms: ['min.insync.replicas'],
    doc: 'Replicas that must acknowledge an acks=all produce (capped at the replica count).',
  },
  'preallocate': {
    type: 'boolean', default: 'false', synonyms: ['log.preallocate'],
    doc: 'Preallocate segment files.',
  },
  'retention.bytes': {
    type: 'long', default: '-1', synonyms: ['log.retention.bytes'],
    doc: 'Largest size of a partition log before old segments are deleted, -1 = unlimited.',
  },
  'retention.ms': {
    type: 'long', default: '604800000', min: -1, synonyms: ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
    doc: 'Time a segment is kept before deletion, -1 = unlimited.',
  },
  'segment.bytes': {
    type: 'int', default: '1073741824', min: 14, synonyms: ['log.segment.bytes'],
    doc: 'Size at which a segment is rolled.',
  },
  'segment.index.bytes': {
    type: 'int', default: '10485760', min: 4, synonyms: ['log.index.size.max.bytes'],
    doc: 'Largest offset/time index file; a full index rolls the segment.',
  },
  'segment.jitter.ms': {
    type: 'long', default: '0', min: 0, synonyms: ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
    doc: 'Largest random jitter subtracted from segment.ms.',
  },
  'segment.ms': {
    type: 'long', default: '604800000', min: 1, synonyms: ['log.roll.ms', 'log.roll.hours'],
    doc: 'Age at which a segment is rolled.',
  },
  'unclean.leader.election.enable': {
    type: 'boolean', default: 'false', synonyms: ['unclean.leader.election.enable'],
    doc: 'Whether an out-of-sync replica may become leader.',
  },
} as const satisfies Record<string, SettingSpec>;

// ---------------------------------------------------------------------------------------------
// Typed views derived from the tables

type TypeOf<T> = T extends 'boolean' ? boolean
  : T extends 'int' | 'short' | 'long' | 'double' ? number
  : T extends 'list' ? string[]
  : string;

/** null is possible only where the default is null and the setting derives nothing. */
type ValueOfSpec<S> = S extends { readonly type: infer T }
  ? TypeOf<T> | (S extends { readonly default: null } ? (S extends { readonly fallbacks: readonly string[] } ? never : null) : never)
  : never;

export type BrokerSettingName = keyof typeof BROKER_SETTINGS;
export type TopicConfigName = keyof typeof TOPIC_CONFIGS;

/** Every broker setting by Kafka name, typed. */
export type BrokerSettings = { readonly [K in BrokerSettingName]: ValueOfSpec<(typeof BROKER_SETTINGS)[K]> };
/** Every topic config by Kafka name, typed (topic configs always have a value). */
export type TopicConfig = { readonly [K in TopicConfigName]: TypeOf<(typeof TOPIC_CONFIGS)[K]['type']> };

export type SettingOrigin = 'file' | 'env' | 'flag';

export interface ExplicitSetting {
  /** The text as given. */
  readonly raw: string;
  /** The parsed, validated value (before synonym-group derivation). */
  readonly value: unknown;
  readonly origin: SettingOrigin;
  /** Human-readable place: `server.properties:12`, `KAFKA_LOG_DIRS`, `--override`. */
  readonly where: string;
}

export type BrokerConfig = BrokerSettings & {
  /** The settings that were set explicitly (including lower-priority synonyms such as log.retention.hours), by name. */
  readonly explicit: Readonly<Partial<Record<BrokerSettingName, ExplicitSetting>>>;
  /** The properties file that was read, if any (absolute path). */
  readonly configFile: string | null;
};

// ---------------------------------------------------------------------------------------------
// Parsing values

function specOf(table: Record<string, SettingSpec>, name: string): SettingSpec | undefined {
  return Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
}

const BROKER: Record<string, SettingSpec> = BROKER_SETTINGS;
const TOPIC: Record<string, SettingSpec> = TOPIC_CONFIGS;

const TYPE_LABEL: Record<SettingType, string> = {
  boolean: 'BOOLEAN', string: 'STRING', int: 'INT', short: 'SHORT', long: 'LONG', double: 'DOUBLE', list: 'LIST', password: 'PASSWORD',
};

const TYPE_CODE: Record<SettingType, ConfigTypeCode> = {
  boolean: ConfigType.BOOLEAN, string: ConfigType.STRING, int: ConfigType.INT, short: ConfigType.SHORT,
  long: ConfigType.LONG, double: ConfigType.DOUBLE, list: ConfigType.LIST, password: ConfigType.PASSWORD,
};

/** Parses and validates one value; returns the typed value or an error message in Kafka's wording. */
function parseValue(spec: SettingSpec, text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  const t = text.trim();
  let value: unknown;
  switch (spec.type) {
    case 'boolean': {
      const l = t.toLowerCase();
      if (l !== 'true' && l !== 'false') return { ok: false, error: 'Expected value to be either true or false' };
      value = l === 'true';
      break;
    }
    case 'int':
    case 'short': {
      const bits = spec.type === 'int' ? 31 : 15;
      if (!/^[+-]?\d+$/.test(t)) return { ok: false, error: `Not a number of type ${TYPE_LABEL[spec.type]}` };
      const n = Number(t);
      if (n < -(2 ** bits) || n > 2 ** bits - 1) return { ok: false, error: `Not a number of type ${TYPE_LABEL[spec.type]}` };
      value = n;
      break;
    }
    case 'long': {
      if (!/^[+-]?\d+$/.test(t)) return { ok: false, error: 'Not a number of type LONG' };
      const b = BigInt(t);
      if (b < -(2n ** 63n) || b > 2n ** 63n - 1n) return { ok: false, error: 'Not a number of type LONG' };
      value = b >= BigInt(LONG_MAX) ? LONG_MAX : b <= -BigInt(LONG_MAX) ? -LONG_MAX : Number(b);
      break;
    }
    case 'double': {
      const n = t === '' ? NaN : Number(t);
      if (!Number.isFinite(n)) return { ok: false, error: 'Not a number of type DOUBLE' };
      value = n;
      break;
    }
    case 'list':
      value = t === '' ? [] : t.split(',').map((s) => s.trim());
      break;
    case 'string':
      // An empty value for a setting without default means "not set" (e.g. `advertised.listeners=`).
      value = t === '' && spec.default === null ? null : t;
      break;
    case 'password':
      value = t;
      break;
  }
  const err = validateTyped(spec, value);
  return err === null ? { ok: true, value } : { ok: false, error: err };
}

function validateTyped(spec: SettingSpec, value: unknown): string | null {
  if (typeof value === 'number') {
    if (spec.min !== undefined && spec.max !== undefined && (value < spec.min || value > spec.max)) {
      return `Value must be between ${spec.min} and ${spec.max}`;
    }
    if (spec.min !== undefined && value < spec.min) return `Value must be at least ${spec.min}`;
    if (spec.max !== undefined && value > spec.max) return `Value must be no more than ${spec.max}`;
  }
  if (spec.oneOf) {
    const allowed = spec.oneOf;
    const ok = (s: string) => allowed.includes(s) || (spec.caseInsensitive === true && allowed.some((a) => a.toLowerCase() === s.toLowerCase()));
    const items = Array.isArray(value) ? (value as string[]) : typeof value === 'string' ? [value] : [];
    if (items.some((s) => !ok(s))) return `String must be one of: ${allowed.join(', ')}`;
  }
  if (spec.check) return spec.check(value as never);
  return null;
}

/** Kafka's ConfigDef.convertToString of a typed value. */
function render(spec: SettingSpec, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (spec.type === 'password') return null;
  if (Array.isArray(value)) return value.join(',');
  if (spec.type === 'long' && value === LONG_MAX) return LONG_MAX_TEXT;
  if (spec.type === 'long' && value === -LONG_MAX) return LONG_MIN_TEXT;
  if (spec.type === 'double' && Number.isInteger(value)) return `${value as number}.0`;
  return String(value);
}

function parseDefault(name: string, spec: SettingSpec): unknown {
  if (spec.default === null) return null;
  const r = parseValue(spec, spec.default);
  if (!r.ok) throw new Error(`bad default for ${name}: ${r.error}`);
  return r.value;
}

const BROKER_DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.entries(BROKER).map(([n, s]) => [n, parseDefault(n, s)]),
);
const TOPIC_DEFAULTS: Record<string, unknown> = Object.fromEntries(
  Object.entries(TOPIC).map(([n, s]) => [n, parseDefault(n, s)]),
);

// ---------------------------------------------------------------------------------------------
// Listeners

export interface Listener {
  /** Listener name, upper-cased as Kafka normalises it (PLAINTEXT, INTERNAL, ...). */
  name: string;
  /** Host as written; '' means all interfaces. IPv6 addresses are given without brackets. */
  host: string;
  /** 0 means "pick a free port". */
  port: number;
}

export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

/**
 * Parses `NAME://host:port[,NAME://host:port...]`. Host may be empty, a name, an IPv4 address or a
 * bracketed IPv6 address. Listener names must be unique, and so must non-zero ports.
 */
export function parseListeners(text: string): Listener[] {
  const out: Listener[] = [];
  const trimmed = text.trim();
  if (trimmed === '') return out;
  for (const part of trimmed.split(',').map((s) => s.trim())) {
    const m = /^([A-Za-z0-9_]+):\/\/(?:\[([0-9A-Fa-f:.%a-zA-Z]*)\]|([A-Za-z0-9\-._]*)):(\d+)$/.exec(part);
    if (!m) throw new Error(`Unable to parse ${part} to a listener: expected NAME://host:port`);
    const port = Number(m[4]);
    if (port > 65535) throw new Error(`Invalid port ${port} in listener ${part}`);
    const l: Listener = { name: m[1]!.toUpperCase(), host: m[2] ?? m[3] ?? '', port };
    if (out.some((o) => o.name === l.name)) throw new Error(`Each listener must have a different name, found ${l.name} twice`);
    if (port !== 0 && out.some((o) => o.port === port)) throw new Error(`Each listener must have a different port, found ${port} twice`);
    out.push(l);
  }
  return out;
}

/** Parses `listener.security.protocol.map` (NAME:PROTOCOL,...) into a Map keyed by upper-cased listener name. */
export function parseSecurityProtocolMap(text: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  const trimmed = text.trim();
  if (trimmed === '') return map;
  for (const part of trimmed.split(',').map((s) => s.trim())) {
    const m = /^([A-Za-z0-9_]+)\s*:\s*([A-Za-z_]+)$/.exec(part);
    if (!m) throw new Error(`Unable to parse '${part}' as NAME:SECURITY_PROTOCOL`);
    const proto = m[2]!.toUpperCase();
    if (!(SECURITY_PROTOCOLS as readonly string[]).includes(proto)) {
      throw new Error(`Unknown security protocol ${m[2]} (expected one of ${SECURITY_PROTOCOLS.join(', ')})`);
    }
    map.set(m[1]!.toUpperCase(), proto as SecurityProtocol);
  }
  return map;
}

/** The security protocol of a listener name under this config (null when not mapped). */
export function listenerSecurityProtocol(config: BrokerConfig, listenerName: string): SecurityProtocol | null {
  const name = listenerName.toUpperCase();
  const map = parseSecurityProtocolMap(config['listener.security.protocol.map']);
  const p = map.get(name);
  if (p) return p;
  return (SECURITY_PROTOCOLS as readonly string[]).includes(name) ? (name as SecurityProtocol) : null;
}

function controllerListenerNames(config: BrokerConfig): Set<string> {
  const v = config['controller.listener.names'];
  return new Set(v === null ? [] : v.split(',').map((s) => s.trim().toUpperCase()).filter((s) => s !== ''));
}

/** The listeners the broker opens for clients: `listeners` minus the controller listeners. */
export function brokerListeners(config: BrokerConfig): Listener[] {
  const controllers = controllerListenerNames(config);
  return parseListeners(config.listeners).filter((l) => !controllers.has(l.name));
}

const WILDCARD_HOSTS = new Set(['', '0.0.0.0', '::', '[::]']);

/**
 * The listeners given to clients in Metadata/FindCoordinator: `advertised.listeners` when set,
 * otherwise the broker listeners. An empty or wildcard host becomes `localhost`. A port of 0 is
 * replaced by the port actually bound for that listener when `boundPorts` (listener name → port)
 * has it, so tests on port 0 advertise the real port.
 */
export function advertisedListeners(config: BrokerConfig, boundPorts?: ReadonlyMap<string, number>): Listener[] {
  const controllers = controllerListenerNames(config);
  const adv = config['advertised.listeners'];
  const base = adv === null ? brokerListeners(config) : parseListeners(adv).filter((l) => !controllers.has(l.name));
  return base.map((l) => ({
    name: l.name,
    host: WILDCARD_HOSTS.has(l.host) ? 'localhost' : l.host,
    port: l.port === 0 ? boundPorts?.get(l.name) ?? 0 : l.port,
  }));
}

// ---------------------------------------------------------------------------------------------
// Properties files and arguments

export interface PropertyLine {
  key: string;
  value: string;
  /** 1-based line number where the entry starts. */
  line: number;
}

/**
 * Parses Java .properties text: `#` / `!` comment lines, `key=value`, `key: value` or
 * `key value`, surrounding whitespace trimmed, a trailing odd backslash continues the logical line
 * (the next line's leading whitespace is dropped), and the escapes \t \n \r \f \uXXXX and `\x` → x.
 */
export function parseProperties(text: string): PropertyLine[] {
  const lines = text.split(/\r\n|\r|\n/);
  const out: PropertyLine[] = [];
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    const first = lines[i]!.replace(/^[ \t\f]+/, '');
    if (first === '' || first.startsWith('#') || first.startsWith('!')) continue;
    // Join continuation lines.
    let logical = '';
    let cur = first;
    for (;;) {
      const m = /(\\+)$/.exec(cur);
      if (m && m[1]!.length % 2 === 1) {
        logical += cur.slice(0, -1);
        i++;
        if (i >= lines.length) break;
        cur = lines[i]!.replace(/^[ \t\f]+/, '');
      } else {
        logical += cur;
        break;
      }
    }
    // Split key and value at the first unescaped '=', ':' or whitespace.
    let k = 0;
    let keyRaw = '';
    while (k < logical.length) {
      const c = logical[k]!;
      if (c === '\\' && k + 1 < logical.length) {
        keyRaw += logical.slice(k, k + 2);
        k += 2;
        continue;
      }
      if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
      keyRaw += c;
      k++;
    }
    let rest = logical.slice(k).replace(/^[ \t\f]+/, '');
    if (rest.startsWith('=') || rest.startsWith(':')) rest = rest.slice(1).replace(/^[ \t\f]+/, '');
    out.push({ key: unescapeProperty(keyRaw), value: unescapeProperty(rest).trim(), line: startLine });
  }
  return out;
}

function unescapeProperty(s: string): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|.)/g, (_, e: string) => {
    if (e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    switch (e) {
      case 't': return '\t';
      case 'n': return '\n';
      case 'r': return '\r';
      case 'f': return '\f';
      default: return e;
    }
  });
}

export interface ConfigArgs {
  configFile: string | null;
  overrides: Array<{ key: string; value: string }>;
}

/**
 * Parses the broker's own command-line arguments: `--config FILE` (or `--config=FILE`, or one
 * positional FILE as in kafka-server-start.sh) and repeatable `--override key=value` (or
 * `--override=key=value`). Anything else is a ConfigError.
 */
export function parseConfigArgs(argv: readonly string[]): ConfigArgs {
  let configFile: string | null = null;
  const overrides: Array<{ key: string; value: string }> = [];
  const setFile = (f: string) => {
    if (configFile !== null) throw new ConfigError(`more than one config file given ('${configFile}' and '${f}')`);
    if (f === '') throw new ConfigError('--config needs a file name');
    configFile = f;
  };
  const addOverride = (kv: string) => {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new ConfigError(`--override expects key=value, got '${kv}'`);
    overrides.push({ key: kv.slice(0, eq).trim(), value: kv.slice(eq + 1) });
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--config' || a === '--override') {
      const next = argv[i + 1];
      if (next === undefined) throw new ConfigError(`${a} needs a value`);
      i++;
      if (a === '--config') setFile(next); else addOverride(next);
    } else if (a.startsWith('--config=')) {
      setFile(a.slice('--config='.length));
    } else if (a.startsWith('--override=')) {
      addOverride(a.slice('--override='.length));
    } else if (!a.startsWith('-')) {
      setFile(a);
    } else {
      throw new ConfigError(`unknown argument '${a}' (expected --config FILE or --override key=value)`);
    }
  }
  return { configFile, overrides };
}

/** Environment variables of Kafka's launcher scripts and docker image that are not settings. */
export const LAUNCHER_ENV_VARS: ReadonlySet<string> = new Set([
  'KAFKA_HEAP_OPTS', 'KAFKA_OPTS', 'KAFKA_JVM_PERFORMANCE_OPTS', 'KAFKA_LOG4J_OPTS', 'KAFKA_LOG4J_CMD_OPTS',
  'KAFKA_GC_LOG_OPTS', 'KAFKA_JMX_OPTS', 'KAFKA_JMX_HOSTNAME', 'KAFKA_JMX_PORT', 'KAFKA_DEBUG', 'KAFKA_HOME',
  'KAFKA_VERSION', 'KAFKA_LOG4J_LOGGERS', 'KAFKA_LOG4J_ROOT_LOGLEVEL', 'KAFKA_TOOLS_LOG4J_LOGLEVEL',
  'KAFKA_CLASSPATH', 'KAFKA_JAVA_OPTS',
]);

/**
 * Maps an apache/kafka-image environment variable name to a setting name: strip `KAFKA_`,
 * lower-case, `___` → `-`, `__` → `_`, `_` → `.`. Returns null for non-KAFKA_ names and launcher
 * variables.
 */
export function envVarToSetting(varName: string): string | null {
  if (!varName.startsWith('KAFKA_') || LAUNCHER_ENV_VARS.has(varName)) return null;
  const rest = varName.slice('KAFKA_'.length);
  if (rest === '') return null;
  return rest.toLowerCase().replace(/___|__|_/g, (m) => (m === '___' ? '-' : m === '__' ? '_' : '.'));
}

// ---------------------------------------------------------------------------------------------
// Loading

export interface LoadConfigOptions {
  /** The broker's own arguments (see parseConfigArgs), without node and script names. Default none. */
  argv?: readonly string[];
  /** Environment to read KAFKA_* (and CLUSTER_ID) from. Default: none, so that tests are hermetic; the CLI passes process.env. */
  env?: NodeJS.ProcessEnv;
  /** Base of relative paths (config file, log.dirs). Default process.cwd(). */
  cwd?: string;
}

function levenshtein(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** The closest known name (or null), for "did you mean" hints. */
function closest(name: string, candidates: Iterable<string>): string | null {
  let best: string | null = null;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = levenshtein(name, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== null && bestD <= Math.max(2, Math.floor(name.length / 4)) ? best : null;
}

function unknownSettingMessage(name: string, from: string): string {
  let msg = `unknown setting '${name}' (from ${from})`;
  const topic = specOf(TOPIC, name);
  if (topic?.synonyms && !specOf(BROKER, name)) {
    return `${msg}; '${name}' is a topic-level config, its broker-wide default is '${topic.synonyms[0]}'`;
  }
  const hint = closest(name, Object.keys(BROKER));
  if (hint) msg += `; did you mean '${hint}'?`;
  return msg;
}

function describeOrigin(origin: SettingOrigin, where: string): string {
  switch (origin) {
    case 'flag': return '--override';
    case 'env': return `environment variable ${where}`;
    case 'file': return where;
  }
}

/**
 * Loads the broker configuration from (highest precedence first) `--override` flags, `KAFKA_*`
 * environment variables, the properties file named by `--config`, and the defaults. Throws
 * ConfigError naming the setting and its source for unknown settings or invalid values.
 */
export function loadConfig(options: LoadConfigOptions = {}): BrokerConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? {};
  const args = parseConfigArgs(options.argv ?? []);

  const explicit: Record<string, ExplicitSetting> = {};
  const put = (key: string, raw: string, origin: SettingOrigin, where: string) => {
    const from = describeOrigin(origin, where);
    const spec = specOf(BROKER, key);
    if (!spec) throw new ConfigError(unknownSettingMessage(key, from));
    const r = parseValue(spec, raw);
    if (!r.ok) throw new ConfigError(`invalid value '${raw.trim()}' for setting '${key}' (from ${from}): ${r.error}`);
    explicit[key] = { raw, value: r.value, origin, where };
  };

  // Lowest precedence first; later puts replace earlier ones.
  let configFile: string | null = null;
  if (args.configFile !== null) {
    configFile = path.resolve(cwd, args.configFile);
    let text: string;
    try {
      text = readFileSync(configFile, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read config file '${configFile}': ${(e as Error).message}`);
    }
    for (const p of parseProperties(text)) put(p.key, p.value, 'file', `${configFile}:${p.line}`);
  }
  if (env.CLUSTER_ID !== undefined && env.KAFKA_CLUSTER_ID === undefined) put('cluster.id', env.CLUSTER_ID, 'env', 'CLUSTER_ID');
  for (const varName of Object.keys(env).sort()) {
    const key = envVarToSetting(varName);
    if (key === null) continue;
    put(key, env[varName] ?? '', 'env', varName);
  }
  for (const o of args.overrides) put(o.key, o.value, 'flag', '--override');

  // Typed values: explicit or default, then synonym groups.
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(BROKER)) values[name] = name in explicit ? explicit[name]!.value : BROKER_DEFAULTS[name];
  for (const [name, spec] of Object.entries(BROKER)) {
    if (!spec.fallbacks) continue;
    const group = [name, ...spec.fallbacks];
    const setOne = group.find((n) => n in explicit);
    const chosen = setOne ?? group.find((n) => BROKER_DEFAULTS[n] !== null)!;
    let v = setOne !== undefined ? explicit[chosen]!.value : BROKER_DEFAULTS[chosen];
    const scale = BROKER[chosen]!.scale;
    if (scale !== undefined && typeof v === 'number') v = Math.min(LONG_MAX, v * scale);
    if (name === 'log.dirs' && typeof v === 'string') v = [v];
    values[name] = v;
  }
  if (typeof values['log.retention.ms'] === 'number' && (values['log.retention.ms'] as number) < 0) values['log.retention.ms'] = -1;
  values['log.dirs'] = (values['log.dirs'] as string[]).map((d) => path.resolve(cwd, d));

  const config = { ...values, explicit, configFile } as unknown as BrokerConfig;
  crossValidate(config);
  return Object.freeze(config);
}

function crossValidate(config: BrokerConfig): void {
  const e = config.explicit;
  const from = (name: BrokerSettingName) => {
    const x = e[name];
    return x ? describeOrigin(x.origin, x.where) : 'default';
  };
  if (e['node.id'] && e['broker.id'] && e['node.id'].value !== e['broker.id'].value) {
    throw new ConfigError(
      `setting 'broker.id' (${String(e['broker.id'].value)}, from ${from('broker.id')}) must equal 'node.id' (${String(e['node.id'].value)}, from ${from('node.id')})`,
    );
  }
  if (config['group.min.session.timeout.ms'] > config['group.max.session.timeout.ms']) {
    throw new ConfigError(
      `setting 'group.min.session.timeout.ms' (${config['group.min.session.timeout.ms']}, from ${from('group.min.session.timeout.ms')}) must not exceed 'group.max.session.timeout.ms' (${config['group.max.session.timeout.ms']})`,
    );
  }
  const map = parseSecurityProtocolMap(config['listener.security.protocol.map']);
  const check = (name: 'listeners' | 'advertised.listeners') => {
    const text = config[name];
    if (text === null) return;
    for (const l of parseListeners(text)) {
      if (!map.has(l.name) && !(SECURITY_PROTOCOLS as readonly string[]).includes(l.name)) {
        throw new ConfigError(
          `setting '${name}' (from ${from(name)}): no security protocol defined for listener ${l.name}; add it to 'listener.security.protocol.map'`,
        );
      }
    }
  };
  check('listeners');
  check('advertised.listeners');
  if (config['advertised.listeners'] !== null) {
    for (const l of parseListeners(config['advertised.listeners'])) {
      if (l.host === '0.0.0.0' || l.host === '::') {
        throw new ConfigError(
          `setting 'advertised.listeners' (from ${from('advertised.listeners')}) cannot use the nonroutable meta-address ${l.host} for listener ${l.name}`,
        );
      }
    }
  }
  if (brokerListeners(config).length === 0) {
    throw new ConfigError(`setting 'listeners' (from ${from('listeners')}) has no listener for clients`);
  }
}

// ---------------------------------------------------------------------------------------------
// DescribeConfigs views

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

/** One DescribeConfigs entry; structurally compatible with the generated DescribeConfigsResourceResult. */
export interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  /** v0's is_default: the value comes from a default. */
  isDefault: boolean;
  configSource: number;
  isSensitive: boolean;
  /** Highest priority first. Callers drop these unless the request asked for include_synonyms. */
  synonyms: ConfigSynonym[];
  configType: number;
  documentation: string | null;
}

/** Kafka's broker synonym list for a topic config: set ones (STATIC_BROKER_CONFIG) first, then non-null defaults. */
function brokerSynonymList(broker: BrokerConfig, names: readonly string[], sensitive: boolean): ConfigSynonym[] {
  const out: ConfigSynonym[] = [];
  for (const n of names) {
    const x = broker.explicit[n as BrokerSettingName];
    if (x) out.push({ name: n, value: sensitive ? null : render(BROKER[n]!, x.value), source: ConfigSource.STATIC_BROKER_CONFIG });
  }
  for (const n of names) {
    const d = BROKER[n]!.default;
    if (d !== null) out.push({ name: n, value: sensitive ? null : render(BROKER[n]!, BROKER_DEFAULTS[n]), source: ConfigSource.DEFAULT_CONFIG });
  }
  return out;
}

/** Broker configs as DescribeConfigs (resource type BROKER) reports them, sorted by name. All read-only: Samsa has no dynamic broker configs. */
export function describeBrokerConfig(broker: BrokerConfig): ConfigEntry[] {
  const out: ConfigEntry[] = [];
  for (const name of Object.keys(BROKER).sort()) {
    const spec = BROKER[name]!;
    const sensitive = spec.type === 'password';
    const x = broker.explicit[name as BrokerSettingName];
    let value: string | null;
    if (x) value = render(spec, name === 'log.dirs' ? broker['log.dirs'] : x.value);
    else value = spec.default === null ? null : render(spec, name === 'log.dirs' ? broker['log.dirs'] : BROKER_DEFAULTS[name]);
    if (sensitive) value = null;
    const synonyms = brokerSynonymList(broker, [name, ...(spec.fallbacks ?? [])], sensitive);
    const configSource = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
    out.push({
      name,
      value,
      readOnly: true,
      isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
      configSource,
      isSensitive: sensitive,
      synonyms,
      configType: TYPE_CODE[spec.type],
      documentation: spec.doc,
    });
  }
  return out;
}

/** The broker-derived value of a topic config (its first synonym's effective value). */
function topicValueFromBroker(broker: BrokerConfig, name: TopicConfigName): unknown {
  const head = TOPIC_CONFIGS[name].synonyms[0];
  const v = (broker as unknown as Record<string, unknown>)[head];
  return v === null || v === undefined ? TOPIC_DEFAULTS[name] : v;
}

export interface ResolvedTopicConfig {
  /** Effective typed values, by Kafka name. */
  values: TopicConfig;
  /** DescribeConfigs (resource type TOPIC) entries, sorted by name; what CreateTopics v5+ returns too. */
  entries: ConfigEntry[];
}

/**
 * The effective configuration of a topic: its overrides (validated; an invalid or unknown one is a
 * ConfigError naming it) over the broker settings they inherit from, over Kafka's defaults, with
 * each entry's source and synonyms as Kafka's DescribeConfigs reports them.
 */
export function resolveTopicConfig(broker: BrokerConfig, overrides: Readonly<Record<string, string>> = {}): ResolvedTopicConfig {
  const parsed: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(overrides)) {
    const err = validateTopicConfig(name, raw);
    if (err !== null) throw new ConfigError(`topic config '${name}': ${err}`);
    const r = parseValue(TOPIC[name]!, raw);
    if (r.ok) parsed[name] = r.value;
  }
  const values: Record<string, unknown> = {};
  const entries: ConfigEntry[] = [];
  for (const name of Object.keys(TOPIC).sort() as TopicConfigName[]) {
    const spec: SettingSpec = TOPIC_CONFIGS[name];
    const overridden = Object.prototype.hasOwnProperty.call(parsed, name);
    const value = overridden ? parsed[name] : topicValueFromBroker(broker, name);
    values[name] = value;
    const sensitive = spec.type === 'password';
    const rendered = sensitive ? null : render(spec, value);
    const synonyms = brokerSynonymList(broker, spec.synonyms ?? [], sensitive);
    if (overridden) synonyms.unshift({ name, value: rendered, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
    const configSource = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
    entries.push({
      name,
      value: rendered,
      readOnly: false,
      isDefault: configSource === ConfigSource.DEFAULT_CONFIG,
      configSource,
      isSensitive: sensitive,
      synonyms,
      configType: TYPE_CODE[spec.type],
      documentation: spec.doc,
    });
  }
  return { values: values as TopicConfig, entries };
}

/**
 * Validates one topic config from CreateTopics / AlterConfigs / IncrementalAlterConfigs. Returns
 * null when valid, else the message to send with INVALID_CONFIG (40), in Kafka's wording.
 */
export function validateTopicConfig(name: string, value: string | null): string | null {
  const spec = specOf(TOPIC, name);
  if (!spec) return `Unknown topic config name: ${name}`;
  if (value === null) return `Null value not supported for topic configs: ${name}`;
  const r = parseValue(spec, value);
  return r.ok ? null : `Invalid value ${value} for configuration ${name}: ${r.error}`;
}

/** Whether `name` is a topic config Samsa knows. */
export function isTopicConfigName(name: string): name is TopicConfigName {
  return specOf(TOPIC, name) !== undefined;
}

/** Whether `name` is a broker setting Samsa knows. */
export function isBrokerSettingName(name: string): name is BrokerSettingName {
  return specOf(BROKER, name) !== undefined;
}

/** Kafka's config type code of a topic config or broker setting (UNKNOWN when neither). */
export function configTypeOf(name: string, resource: 'topic' | 'broker'): ConfigTypeCode {
  const spec = specOf(resource === 'topic' ? TOPIC : BROKER, name);
  return spec ? TYPE_CODE[spec.type] : ConfigType.UNKNOWN;
}
