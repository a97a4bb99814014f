/**
 * The KIP-848 consumer group settings (Kafka's GroupCoordinatorConfig `group.consumer.*`),
 * merged into BROKER_SETTINGS; coordinator/group/group-config.ts reads them.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

export const CONSUMER_GROUP_SETTINGS = {
  'group.consumer.session.timeout.ms': {
    type: 'int', default: '45000', min: 1,
    doc: 'Session timeout of consumer-protocol members: a member that sends no heartbeat for this long is removed.',
  },
  'group.consumer.min.session.timeout.ms': {
    type: 'int', default: '45000', min: 1,
    doc: 'Smallest session timeout a consumer group may be configured with (consumer.session.timeout.ms).',
  },
  'group.consumer.max.session.timeout.ms': {
    type: 'int', default: '60000', min: 1,
    doc: 'Largest session timeout a consumer group may be configured with.',
  },
  'group.consumer.heartbeat.interval.ms': {
    type: 'int', default: '5000', min: 1,
    doc: 'Interval consumer-protocol members are told to heartbeat at.',
  },
  'group.consumer.min.heartbeat.interval.ms': {
    type: 'int', default: '5000', min: 1,
    doc: 'Smallest heartbeat interval a consumer group may be configured with.',
  },
  'group.consumer.max.heartbeat.interval.ms': {
    type: 'int', default: '15000', min: 1,
    doc: 'Largest heartbeat interval a consumer group may be configured with.',
  },
  'group.consumer.assignment.interval.ms': {
    type: 'int', default: '1000', min: 0,
    doc: 'Assignment batching: a consumer group\'s target assignment is recomputed at most this often (0: at every group epoch bump).',
  },
  'group.consumer.max.size': {
    type: 'int', default: '2147483647', min: 1,
    doc: 'Largest number of members in a consumer group (more gives GROUP_MAX_SIZE_REACHED).',
  },
  'group.consumer.assignors': {
    type: 'list', default: 'org.apache.kafka.coordinator.group.assignor.UniformAssignor,org.apache.kafka.coordinator.group.assignor.RangeAssignor',
    oneOf: ['uniform', 'range', 'org.apache.kafka.coordinator.group.assignor.UniformAssignor', 'org.apache.kafka.coordinator.group.assignor.RangeAssignor'],
    doc: 'Server-side assignors of consumer groups; the first is the default.',
  },
  'group.consumer.migration.policy': {
    type: 'string', default: 'bidirectional', oneOf: ['disabled', 'upgrade', 'downgrade', 'bidirectional'], caseInsensitive: true,
    doc: 'upgrade / bidirectional: a classic group with members becomes a consumer group when a consumer-protocol member joins; downgrade / bidirectional: a consumer group left with classic members only becomes classic again.',
  },
} as const satisfies Record<string, SettingSpec>;

/** The consumer group settings, typed (what the room that reads them takes). */
export type ConsumerGroupSettings = SettingsOf<typeof CONSUMER_GROUP_SETTINGS>;
