/**
 * The share group settings (KIP-932, Kafka 4.4's ShareGroupConfig and GroupCoordinatorConfig
 * `group.share.*`, KIP-1191's dead-letter prefix, and Samsa's redelivery backoff), merged into
 * BROKER_SETTINGS; coordinator/share/share-config.ts reads them. Defaults and bounds are Kafka
 * 4.4.0's.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

const int = (def: string, min: number, max: number | undefined, doc: string): SettingSpec => ({ type: 'int', default: def, min, ...(max === undefined ? {} : { max }), doc });

export const SHARE_GROUP_SETTINGS = {
  'group.share.session.timeout.ms': int('45000', 1, undefined, 'Session timeout of share group members.'),
  'group.share.min.session.timeout.ms': int('45000', 1, undefined, 'Smallest session timeout a share group may be configured with.'),
  'group.share.max.session.timeout.ms': int('60000', 1, undefined, 'Largest session timeout a share group may be configured with.'),
  'group.share.heartbeat.interval.ms': int('5000', 1, undefined, 'Interval share group members are told to heartbeat at.'),
  'group.share.min.heartbeat.interval.ms': int('5000', 1, undefined, 'Smallest heartbeat interval a share group may be configured with.'),
  'group.share.max.heartbeat.interval.ms': int('15000', 1, undefined, 'Largest heartbeat interval a share group may be configured with.'),
  'group.share.max.size': int('200', 1, 1000, 'Largest number of members in a share group (more gives GROUP_MAX_SIZE_REACHED).'),
  'group.share.assignors': { type: 'list', default: 'simple', doc: 'Server-side assignors of share groups (simple only).' },
  'group.share.assignment.interval.ms': int('1000', 0, undefined, 'Assignment batching of share groups (Samsa recomputes at each group epoch bump).'),
  'group.share.delivery.count.limit': int('5', 2, 10, 'Deliveries of a record before it is archived (and dead-lettered).'),
  'group.share.min.delivery.count.limit': int('2', 2, 5, 'Smallest delivery count limit a share group may be configured with.'),
  'group.share.max.delivery.count.limit': int('10', 5, 25, 'Largest delivery count limit a share group may be configured with.'),
  'group.share.record.lock.duration.ms': int('30000', 1000, 3600000, 'How long an acquired record stays locked to its consumer before it is released.'),
  'group.share.min.record.lock.duration.ms': int('15000', 1000, 30000, 'Smallest record lock duration a share group may be configured with.'),
  'group.share.max.record.lock.duration.ms': int('60000', 30000, 3600000, 'Largest record lock duration a share group may be configured with.'),
  'group.share.partition.max.record.locks': int('2000', 100, 10000, 'Most in-flight (acquired or waiting) records of one share-partition.'),
  'group.share.min.partition.max.record.locks': int('100', 100, 2000, 'Smallest per-partition record lock limit a share group may be configured with.'),
  'group.share.max.partition.max.record.locks': int('4000', 2000, 10000, 'Largest per-partition record lock limit a share group may be configured with.'),
  'group.share.max.share.sessions': int('2000', 1, undefined, 'Most share sessions the broker keeps (more gives SHARE_SESSION_LIMIT_REACHED).'),
  'errors.deadletterqueue.topic.name.prefix': { type: 'string', default: 'dlq.', doc: 'KIP-1191: the prefix every share group dead-letter topic name must have.' },
  'errors.deadletterqueue.auto.create.topics.enable': { type: 'boolean', default: 'false', doc: 'KIP-1191: whether a missing dead-letter topic is created.' },
} satisfies Record<string, SettingSpec>;

/** The share group settings, typed (what the room that reads them takes). */
export type ShareGroupSettings = SettingsOf<typeof SHARE_GROUP_SETTINGS>;
