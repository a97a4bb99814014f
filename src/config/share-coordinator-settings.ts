/**
 * The share coordinator settings (Kafka 4.4's ShareCoordinatorConfig, `share.coordinator.*`),
 * merged into BROKER_SETTINGS; broker/coordinators/share-state-environment.ts reads them. Defaults and
 * bounds are Kafka 4.4.0's.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

export const SHARE_COORDINATOR_SETTINGS = {
  'share.coordinator.state.topic.num.partitions': {
    type: 'int', default: '50', min: 1,
    doc: 'Partitions of __share_group_state (fixed once the topic exists).',
  },
  'share.coordinator.state.topic.replication.factor': {
    type: 'short', default: '3', min: 1,
    doc: 'Replication factor of __share_group_state; capped at the live broker count (see offsets.topic.replication.factor).',
  },
  'share.coordinator.state.topic.min.isr': {
    type: 'short', default: '2', min: 1,
    doc: 'min.insync.replicas of __share_group_state; capped at its replication factor.',
  },
  'share.coordinator.state.topic.segment.bytes': {
    type: 'int', default: '104857600', min: 1,
    doc: 'Segment size of __share_group_state.',
  },
  'share.coordinator.snapshot.update.records.per.snapshot': {
    type: 'int', default: '500', min: 0, max: 500,
    doc: 'ShareUpdate records the share coordinator writes for a share-partition between two ShareSnapshot records.',
  },
  'share.coordinator.write.timeout.ms': {
    type: 'int', default: '5000', min: 1,
    doc: 'How long a share coordinator write waits for the ISR of its __share_group_state partition.',
  },
  'share.coordinator.state.topic.prune.interval.ms': {
    type: 'int', default: '300000', min: 1,
    doc: 'How often the share coordinator deletes the __share_group_state records below the oldest latest snapshot of its share-partitions (they are redundant).',
  },
  'share.coordinator.cold.partition.snapshot.interval.ms': {
    type: 'int', default: '300000', min: 1,
    doc: 'Share-partitions without a snapshot for this long are snapshotted again, so that pruning can advance past them.',
  },
} satisfies Record<string, SettingSpec>;

/** The share coordinator settings, typed (what the room that reads them takes). */
export type ShareCoordinatorSettings = SettingsOf<typeof SHARE_COORDINATOR_SETTINGS>;
