/** The group coordinator's settings, from the broker's Kafka-named configuration. */
import type { GroupCoordinatorSettings } from '../../config/group-coordinator-settings.js';
import type { ConsumerGroupSettings } from '../../config/consumer-group-settings.js';
import type { ShareGroupSettings } from '../../config/share-group-settings.js';
import type { StreamsGroupSettings } from '../../config/streams-group-settings.js';
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
  /** group.streams.max.size: KIP-1071 streams groups (absent: Kafka's default, no limit). */
  streams?: { maxSize: number };
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

/** The group coordinator's rooms of the settings table (the broker's whole config fits). */
export type AllGroupSettings = GroupCoordinatorSettings & ConsumerGroupSettings & ShareGroupSettings & StreamsGroupSettings;

export function groupConfigFrom(c: AllGroupSettings): GroupConfig {
  return {
    numPartitions: c['offsets.topic.num.partitions'],
    segmentBytes: c['offsets.topic.segment.bytes'],
    initialRebalanceDelayMs: c['group.initial.rebalance.delay.ms'],
    minSessionTimeoutMs: c['group.min.session.timeout.ms'],
    maxSessionTimeoutMs: c['group.max.session.timeout.ms'],
    maxSize: c['group.max.size'],
    newMemberJoinTimeoutMs: NEW_MEMBER_JOIN_TIMEOUT_MS,
    offsetsRetentionMs: c['offsets.retention.minutes'] * 60_000,
    offsetsRetentionCheckIntervalMs: c['offsets.retention.check.interval.ms'],
    offsetMetadataMaxBytes: c['offset.metadata.max.bytes'],
    commitTimeoutMs: c['offsets.commit.timeout.ms'],
    consumer: {
      sessionTimeoutMs: c['group.consumer.session.timeout.ms'],
      minSessionTimeoutMs: c['group.consumer.min.session.timeout.ms'],
      maxSessionTimeoutMs: c['group.consumer.max.session.timeout.ms'],
      heartbeatIntervalMs: c['group.consumer.heartbeat.interval.ms'],
      minHeartbeatIntervalMs: c['group.consumer.min.heartbeat.interval.ms'],
      maxHeartbeatIntervalMs: c['group.consumer.max.heartbeat.interval.ms'],
      maxSize: c['group.consumer.max.size'],
      assignmentIntervalMs: c['group.consumer.assignment.interval.ms'],
      assignors: [...c['group.consumer.assignors']],
      migrationPolicy: c['group.consumer.migration.policy'].toLowerCase() as ConsumerGroupConfig['migrationPolicy'],
    },
    share: shareGroupConfigFrom(c as unknown as Record<string, unknown>),
    streams: { maxSize: c['group.streams.max.size'] },
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
