/**
 * The streams group settings (KIP-1071) the broker reads itself, merged into BROKER_SETTINGS;
 * coordinator/group/group-config.ts reads them. The other `group.streams.*` settings are the
 * defaults and bounds of the streams group configs (coordinator/group/group-configs.ts keeps
 * Kafka 4.4's values for them). Defaults and bounds are Kafka 4.4.0's GroupCoordinatorConfig's.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

export const STREAMS_GROUP_SETTINGS = {
  'group.streams.max.size': {
    type: 'int', default: '2147483647', min: 1,
    doc: 'Largest number of members in a streams group: a member joining a full group gets GROUP_MAX_SIZE_REACHED (a static member replacing its instance id is let in). No group config overrides it.',
  },
} as const satisfies Record<string, SettingSpec>;

export type StreamsGroupSettings = SettingsOf<typeof STREAMS_GROUP_SETTINGS>;
