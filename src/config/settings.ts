/**
 * The tables of every broker setting and topic config Samsa understands (Kafka's names, types,
 * defaults, validation, synonyms) and the typed views derived from them. See ../config.ts for the
 * conventions (defaults in Kafka's text form, long values, synonym groups).
 */
import { parseListeners, parseSecurityProtocolMap } from './listeners.js';
import { AUTHORIZER_SETTINGS } from './authorizer-settings.js';
import { REPLICATION_SETTINGS } from './replication-settings.js';
import { CONSUMER_GROUP_SETTINGS } from './consumer-group-settings.js';
import { GROUP_COORDINATOR_SETTINGS } from './group-coordinator-settings.js';
import { SHARE_GROUP_SETTINGS } from './share-group-settings.js';
import { SHARE_COORDINATOR_SETTINGS } from './share-coordinator-settings.js';
import { STREAMS_GROUP_SETTINGS } from './streams-group-settings.js';
import { SECURITY_SETTINGS } from './security-settings.js';
import { DELEGATION_TOKEN_SETTINGS } from './delegation-token-settings.js';
import { HTTP_SETTINGS } from './http-settings.js';
import { SCHEMA_REGISTRY_SETTINGS } from './schema-registry-settings.js';
import { REMOTE_STORAGE_SETTINGS } from './remote-storage-settings.js';
import { DYNAMIC_ONLY_KAFKA_SETTINGS } from './dynamic-settings.js';

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
export const LONG_MAX_TEXT = '9223372036854775807';
export const LONG_MIN_TEXT = '-9223372036854775808';

// ---------------------------------------------------------------------------------------------
// Setting specifications

export type { SettingSpec, SettingType } from './setting-spec.js';
import type { SettingSpec, SettingsOf, ValueOfType } from './setting-spec.js';

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
  return v === -1 || (v >= 1 && v <= 9) ? null : 'Value must be between 1 and 9 or equal to -1';
}

/** Kafka's ThrottledReplicaListValidator: "*" or partition:broker pairs. */
function checkThrottledReplicas(value: never): string | null {
  const list = value as unknown as string[];
  if (list.length === 1 && list[0] === '*') return null;
  return list.every((e) => /^\d+:\d+$/.test(e.trim())) ? null : "must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...";
}

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
  'broker.rack': {
    type: 'string', default: null,
    doc: 'Rack (or availability zone) of this broker. In a cluster the controller spreads the replicas of each partition over as many racks as it can.',
  },
  'broker.session.timeout.ms': {
    type: 'int', default: '9000', min: 1000,
    doc: 'In a cluster: how long a broker stays registered without a successful heartbeat (the TTL of its etcd lease, rounded up to whole seconds). When it expires the controller moves the broker\'s leaderships to other in-sync replicas.',
  },
  'broker.heartbeat.interval.ms': {
    type: 'int', default: '2000', min: 100,
    doc: 'In a cluster: how often a broker renews its etcd lease (capped at a third of broker.session.timeout.ms).',
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
  'max.request.partition.size.limit': {
    type: 'int', default: '2000', min: 1,
    doc: 'Most partitions one DescribeTopicPartitions response holds (caps the request response_partition_limit).',
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
  ...AUTHORIZER_SETTINGS,
  ...CONSUMER_GROUP_SETTINGS,
  ...SHARE_GROUP_SETTINGS,
  ...SHARE_COORDINATOR_SETTINGS,
  ...STREAMS_GROUP_SETTINGS,
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
  'log.cleaner.threads': {
    type: 'int', default: '1', min: 0,
    doc: 'Logs cleaned at the same time (passes interleave on the event loop; 0 = no cleaning).',
  },
  'log.cleaner.backoff.ms': {
    type: 'long', default: '15000', min: 0,
    doc: 'Pause between cleaning passes when no log needs cleaning.',
  },
  'log.cleaner.dedupe.buffer.size': {
    type: 'long', default: '134217728', min: 0,
    doc: 'Memory for the key-to-offset maps of all cleaner threads (24 bytes per key as Kafka counts).',
  },
  'log.cleaner.io.buffer.size': {
    type: 'int', default: '524288', min: 0,
    doc: 'Read and write buffers of all cleaner threads; half of a thread\'s share is its read size.',
  },
  'log.cleaner.io.buffer.load.factor': {
    type: 'double', default: '0.9', min: 0, max: 1,
    doc: 'How full a dedupe buffer may get.',
  },
  'log.cleaner.io.max.bytes.per.second': {
    type: 'double', default: '1.7976931348623157E308', min: 0,
    doc: 'Read plus write rate limit of the cleaner.',
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
  'log.flush.offset.checkpoint.interval.ms': {
    type: 'int', default: '60000', min: 1,
    doc: 'How often the log dir\'s recovery-point-offset-checkpoint (every log\'s recovery point: where recovery after a crash starts) is written.',
  },
  'log.flush.start.offset.checkpoint.interval.ms': {
    type: 'int', default: '60000', min: 1,
    doc: 'How often the log dir\'s log-start-offset-checkpoint is written (DeleteRecords also writes it before answering).',
  },
  'replica.high.watermark.checkpoint.interval.ms': {
    type: 'long', default: '5000', min: 1,
    doc: 'How often the log dir\'s replication-offset-checkpoint (every partition\'s high watermark) is written; also at shutdown.',
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
    doc: 'Tiered storage: how long closed segments stay on local disk once copied; -2 = log.retention.ms. Topic config local.retention.ms.',
  },
  'log.local.retention.bytes': {
    type: 'long', default: '-2', min: -2,
    doc: 'Tiered storage: local bytes kept per partition once copied; -2 = log.retention.bytes. Topic config local.retention.bytes.',
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
  'auto.leader.rebalance.enable': {
    type: 'boolean', default: 'true',
    doc: 'The controller gives each partition\'s leadership back to its preferred (first) replica once that replica is alive and in sync again.',
  },
  'leader.imbalance.check.interval.seconds': {
    type: 'long', default: '300', min: 1,
    doc: 'How often the controller looks for partitions not led by their preferred replica.',
  },
  'controlled.shutdown.enable': {
    type: 'boolean', default: 'true',
    doc: 'On a graceful stop (SIGTERM) a broker of a cluster first has the controller move its leaderships to other in-sync replicas and take it out of the ISRs, while it still serves (clients follow NOT_LEADER_OR_FOLLOWER to the new leaders), then leaves.',
  },
  'samsa.controlled.shutdown.timeout.ms': {
    type: 'long', default: '300000', min: 0,
    doc: 'How long a controlled shutdown waits for its leaderships to move before stopping anyway (Kafka\'s broker waits 5 minutes). Leaving the cluster afterwards fits in it too (the last 3 s, at most half, are kept for that): a broker stops within it whatever etcd does, and at once when it has lost its registration (etcd gone: nothing can move).',
  },

  ...REPLICATION_SETTINGS,

  // --- group coordinator (config/group-coordinator-settings.ts) ------------------------------
  ...GROUP_COORDINATOR_SETTINGS,

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
  'samsa.etcd.endpoints': {
    type: 'list', default: '',
    doc: 'Samsa only: comma-separated etcd client URLs (http://host:port). When set, the broker is a member of a cluster whose metadata, liveness and controller election live in etcd; when empty it runs alone with a file metadata store.',
  },
  'samsa.etcd.connect.timeout.ms': {
    type: 'int', default: '30000', min: 1,
    doc: 'Samsa only: how long start-up retries an unreachable etcd (naming the endpoints) before it fails.',
  },
  'samsa.etcd.key.prefix': {
    type: 'string', default: '/samsa/',
    doc: 'Samsa only: the etcd key prefix under which this cluster keeps all its keys (several clusters can share one etcd under different prefixes).',
  },
  ...SECURITY_SETTINGS,
  ...DELEGATION_TOKEN_SETTINGS,
  ...HTTP_SETTINGS,
  ...SCHEMA_REGISTRY_SETTINGS,
  ...REMOTE_STORAGE_SETTINGS,
  ...DYNAMIC_ONLY_KAFKA_SETTINGS,
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
  'errors.deadletterqueue.group.enable': {
    type: 'boolean', default: 'false', synonyms: [],
    doc: 'Kafka 4.x: lets share groups write dead-letter records to this topic. Samsa has no share groups; stored only.',
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
  'follower.replication.throttled.replicas': {
    type: 'list', default: '', check: checkThrottledReplicas, synonyms: [],
    doc: 'Replicas throttled on the follower side ("*" or partition:broker pairs): a broker copies those listed with its id at most follower.replication.throttled.rate (a dynamic broker config) while they lag.',
  },
  'index.interval.bytes': {
    type: 'int', default: '4096', min: 0, synonyms: ['log.index.interval.bytes'],
    doc: 'Bytes appended between offset-index entries.',
  },
  'leader.replication.throttled.replicas': {
    type: 'list', default: '', check: checkThrottledReplicas, synonyms: [],
    doc: 'Replicas throttled on the leader side ("*" or partition:broker pairs): a leader listed with its id sends lagging followers at most leader.replication.throttled.rate (a dynamic broker config).',
  },
  'local.retention.bytes': {
    type: 'long', default: '-2', min: -2, synonyms: ['log.local.retention.bytes'],
    doc: 'Tiered storage: bytes of copied segments kept on local disk (-2 = retention.bytes, which then bounds local + remote).',
  },
  'local.retention.ms': {
    type: 'long', default: '-2', min: -2, synonyms: ['log.local.retention.ms'],
    doc: 'Tiered storage: how long copied segments stay on local disk (-2 = retention.ms, which then bounds local + remote).',
  },
  'max.compaction.lag.ms': {
    type: 'long', default: LONG_MAX_TEXT, min: 1, synonyms: ['log.cleaner.max.compaction.lag.ms'],
    doc: 'Maximum time a record stays uncompacted.',
  },
  'max.decompressed.message.bytes': {
    type: 'int', default: '2147483639', min: 1, synonyms: [],
    doc: 'Kafka 4.4: largest decompressed record accepted. Samsa does not decompress on append; stored only.',
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
  'remote.copy.lag.bytes': {
    type: 'long', default: '-1', min: -1, synonyms: [],
    doc: 'KIP-1241: a closed segment is copied once this many bytes of newer local data follow it (0: at once; -1: local.retention.bytes; either lag passing is enough).',
  },
  'remote.copy.lag.ms': {
    type: 'long', default: '0', min: -1, synonyms: [],
    doc: 'KIP-1241: a closed segment is copied once its newest record is this old (0: at once; -1: local.retention.ms; either lag passing is enough).',
  },
  'remote.log.copy.disable': {
    type: 'boolean', default: 'false', synonyms: [],
    doc: 'Tiered storage: copy no more segments (what is remote stays readable and under retention).',
  },
  'remote.log.delete.on.disable': {
    type: 'boolean', default: 'false', synonyms: [],
    doc: 'Tiered storage: turning remote.storage.enable off needs this true; the remote segments are then deleted and the log starts at its first local segment (KIP-950).',
  },
  'remote.storage.enable': {
    type: 'boolean', default: 'false', synonyms: [],
    doc: 'Tiered storage for this topic (KIP-405): closed segments are copied to the object store and read back from it below the local log start. Needs remote.log.storage.system.enable on the broker and cleanup.policy=delete.',
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
  // Samsa only (issue 16): views (src/views/) and schedule topics (src/schedule/).
  'samsa.view.source': {
    type: 'string', default: '', synonyms: [], describedWhenSet: true,
    doc: 'Samsa only: makes this topic a read-only view of the named topic (same partitions and offsets), set at creation.',
  },
  'samsa.view.filter': {
    // Its language is checked by broker/topic-configs.ts (views/filter.ts lives above config/).
    type: 'string', default: '', synonyms: [], describedWhenSet: true,
    doc: "Samsa only: the header filter of a view, e.g. tag = 'paid' or exists(trace); empty keeps every record.",
  },
  'samsa.schedule.target': {
    type: 'string', default: '', synonyms: [], describedWhenSet: true,
    doc: 'Samsa only: makes this topic a schedule topic whose records are delivered to the named topic when due.',
  },
  'samsa.schedule.delay.ms': {
    type: 'long', default: '0', min: 0, synonyms: [], describedWhenSet: true,
    doc: 'Samsa only: delay after the record timestamp at which a record without a samsa-deliver-at header is due.',
  },
  // Samsa only (issue 18): partition retirement (src/cluster/partition-retirement.ts).
  'samsa.partitions.keep': {
    type: 'int', default: '0', min: 0, synonyms: [], describedWhenSet: true,
    doc: 'Samsa only: partitions from this number on are retired (read-only, deleted once drained); set by samsa topics retire-partitions.',
  },
  'samsa.schedule.tick.ms': {
    type: 'int', default: '100', min: 1, synonyms: [], describedWhenSet: true,
    doc: "Samsa only: the scheduler's timing-wheel tick.",
  },
} as const satisfies Record<string, SettingSpec>;

// ---------------------------------------------------------------------------------------------
// Typed views derived from the tables


export type BrokerSettingName = keyof typeof BROKER_SETTINGS;
export type TopicConfigName = keyof typeof TOPIC_CONFIGS;

/** Every broker setting by Kafka name, typed. */
export type BrokerSettings = SettingsOf<typeof BROKER_SETTINGS>;
/** Every topic config by Kafka name, typed (topic configs always have a value). */
export type TopicConfig = { readonly [K in TopicConfigName]: ValueOfType<(typeof TOPIC_CONFIGS)[K]['type']> };

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
  /**
   * Present on the broker's effective configuration once dynamic broker configs are in effect
   * (config/dynamic-broker-view.ts): the typed values above then include them, `explicit` stays
   * what the broker was started with.
   */
  readonly dynamic?: DynamicLayers;
};

/** The dynamic broker configs (AlterConfigs on BROKER resources) layered over a static configuration. */
export interface DynamicLayers {
  /** The configuration the broker was started with. */
  readonly static: BrokerConfig;
  /** This broker's own dynamic configs (resource name = its node id), as stored. */
  readonly perBroker: Readonly<Record<string, string>>;
  /** The cluster-wide dynamic defaults (resource name ""), as stored. */
  readonly clusterDefault: Readonly<Record<string, string>>;
}

