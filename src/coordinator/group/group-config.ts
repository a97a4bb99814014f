/** The group coordinator's settings, from the broker's Kafka-named configuration. */
import type { BrokerConfig } from '../../config.js';
import { shareGroupConfigFrom, type ShareGroupConfig } from '../share/share-config.js';

export interface GroupConfig {
  /** offsets.topic.num.partitions: shards, when the topic does not exist yet. */
  numPartitions: number;
  /** offsets.topic.segment.bytes */
  segmentBytes: number;
  /** group.initial.rebalance.delay.ms */
  initialRebalanceDelayMs: number;
  /** group.min.session.timeout.ms / group.max.session.timeout.ms */
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  /** group.max.size */
  maxSize: number;
  /** A parked new member's JoinGroup is given up after this (Kafka's constant, 5 minutes). */
  newMemberJoinTimeoutMs: number;
  /** offsets.retention.minutes, in ms */
  offsetsRetentionMs: number;
  /** offsets.retention.check.interval.ms */
  offsetsRetentionCheckIntervalMs: number;
  /** offset.metadata.max.bytes */
  offsetMetadataMaxBytes: number;
  /** offsets.commit.timeout.ms: how long a write waits for the ISR. */
  commitTimeoutMs: number;
  /** group.consumer.*: KIP-848 consumer groups. */
  consumer: ConsumerGroupConfig;
  /** group.share.*: KIP-932 share groups (absent: Kafka's defaults). */
  share?: ShareGroupConfig;
}

export interface ConsumerGroupConfig {
  sessionTimeoutMs: number;
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  heartbeatIntervalMs: number;
  minHeartbeatIntervalMs: number;
  maxHeartbeatIntervalMs: number;
  maxSize: number;
  /** group.consumer.assignment.interval.ms: the target is recomputed at most this often (Kafka 4.4's assignment batching). */
  assignmentIntervalMs: number;
  /** group.consumer.assignors, short or class names; the first is the default. */
  assignors: string[];
  /** group.consumer.migration.policy: whether a classic group with members is upgraded online. */
  migrationPolicy: 'disabled' | 'upgrade' | 'downgrade' | 'bidirectional';
}

export function defaultConsumerGroupConfig(over: Partial<ConsumerGroupConfig> = {}): ConsumerGroupConfig {
  return {
    sessionTimeoutMs: 45000, minSessionTimeoutMs: 45000, maxSessionTimeoutMs: 60000,
    heartbeatIntervalMs: 5000, minHeartbeatIntervalMs: 5000, maxHeartbeatIntervalMs: 15000,
    maxSize: 2147483647, assignmentIntervalMs: 1000, assignors: ['uniform', 'range'], migrationPolicy: 'bidirectional',
    ...over,
  };
}

export const NEW_MEMBER_JOIN_TIMEOUT_MS = 5 * 60 * 1000;

export function groupConfigFrom(c: BrokerConfig): GroupConfig {
  const raw = c as unknown as Record<string, unknown>;
  const num = (name: string) => Number(raw[name]);
  return {
    numPartitions: num('offsets.topic.num.partitions'),
    segmentBytes: num('offsets.topic.segment.bytes'),
    initialRebalanceDelayMs: num('group.initial.rebalance.delay.ms'),
    minSessionTimeoutMs: num('group.min.session.timeout.ms'),
    maxSessionTimeoutMs: num('group.max.session.timeout.ms'),
    maxSize: num('group.max.size'),
    newMemberJoinTimeoutMs: NEW_MEMBER_JOIN_TIMEOUT_MS,
    offsetsRetentionMs: num('offsets.retention.minutes') * 60_000,
    offsetsRetentionCheckIntervalMs: num('offsets.retention.check.interval.ms'),
    offsetMetadataMaxBytes: num('offset.metadata.max.bytes'),
    commitTimeoutMs: num('offsets.commit.timeout.ms'),
    consumer: {
      sessionTimeoutMs: num('group.consumer.session.timeout.ms'),
      minSessionTimeoutMs: num('group.consumer.min.session.timeout.ms'),
      maxSessionTimeoutMs: num('group.consumer.max.session.timeout.ms'),
      heartbeatIntervalMs: num('group.consumer.heartbeat.interval.ms'),
      minHeartbeatIntervalMs: num('group.consumer.min.heartbeat.interval.ms'),
      maxHeartbeatIntervalMs: num('group.consumer.max.heartbeat.interval.ms'),
      maxSize: num('group.consumer.max.size'),
      assignmentIntervalMs: num('group.consumer.assignment.interval.ms'),
      assignors: raw['group.consumer.assignors'] as string[],
      migrationPolicy: String(raw['group.consumer.migration.policy']).toLowerCase() as ConsumerGroupConfig['migrationPolicy'],
    },
    share: shareGroupConfigFrom(raw),
  };
}

/** Kafka's defaults with Samsa's initial rebalance delay of 0 (tests start from this). */
export function defaultGroupConfig(over: Partial<GroupConfig> = {}): GroupConfig {
  return {
    numPartitions: 50,
    segmentBytes: 104857600,
    initialRebalanceDelayMs: 0,
    minSessionTimeoutMs: 6000,
    maxSessionTimeoutMs: 1800000,
    maxSize: 2147483647,
    newMemberJoinTimeoutMs: NEW_MEMBER_JOIN_TIMEOUT_MS,
    offsetsRetentionMs: 10080 * 60_000,
    offsetsRetentionCheckIntervalMs: 600000,
    offsetMetadataMaxBytes: 4096,
    commitTimeoutMs: 5000,
    consumer: defaultConsumerGroupConfig(),
    ...over,
  };
}
