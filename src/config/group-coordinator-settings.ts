/**
 * The group coordinator's settings (Kafka's GroupCoordinatorConfig and OffsetConfig names:
 * `__consumer_offsets`, classic groups), merged into BROKER_SETTINGS; coordinator/group/group-config.ts
 * reads them. KIP-848 and share groups have theirs in consumer-group-settings.ts and
 * share-group-settings.ts.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

const INT_MAX_TEXT = '2147483647';

export const GROUP_COORDINATOR_SETTINGS = {
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
} satisfies Record<string, SettingSpec>;

/** The group coordinator settings, typed (what the room that reads them takes). */
export type GroupCoordinatorSettings = SettingsOf<typeof GROUP_COORDINATOR_SETTINGS>;
