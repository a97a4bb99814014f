/**
 * The Schema Registry's settings (src/schema-registry/), merged into BROKER_SETTINGS. Where
 * Confluent's registry has a setting for the same thing its name is kept
 * (`schema.compatibility.level`); the rest are Samsa's.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

const LEVELS = ['none', 'backward', 'backward_transitive', 'forward', 'forward_transitive', 'full', 'full_transitive'];

function checkLevel(value: never): string | null {
  return LEVELS.includes(String(value).toLowerCase()) ? null : `must be one of ${LEVELS.join(', ')}`;
}

export const SCHEMA_REGISTRY_SETTINGS = {
  'samsa.schema.registry.enable': {
    type: 'boolean', default: 'true',
    doc: 'Samsa only: whether the HTTP listener serves the Schema Registry (Confluent\'s REST API at /subjects, /schemas, /config, /mode, /compatibility). Its state is the compacted _schemas topic, created by the first request.',
  },
  'schema.compatibility.level': {
    type: 'string', default: 'backward', check: checkLevel,
    doc: 'Confluent\'s setting: the global compatibility level until one is set with PUT /config (none, backward, backward_transitive, forward, forward_transitive, full, full_transitive; any case).',
  },
  'samsa.schema.registry.topic.replication.factor': {
    type: 'short', default: '3', min: 1,
    doc: 'Samsa only: replication factor of _schemas (Confluent\'s kafkastore.topic.replication.factor), capped at the number of live brokers as the other internal topics are.',
  },
} as const satisfies Record<string, SettingSpec>;

/** The registry's settings, typed. */
export type SchemaRegistrySettings = SettingsOf<typeof SCHEMA_REGISTRY_SETTINGS>;
