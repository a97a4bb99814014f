/**
 * Kafka's delegation token broker settings (DelegationTokenManagerConfigs, KIP-48), merged into
 * BROKER_SETTINGS; security/delegation-token-manager.ts reads them. None is dynamic in Kafka 4.4.
 * Kafka 4.4 no longer knows the old `delegation.token.master.key` (removed in 4.0): only the
 * secret key turns tokens on.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

export const DELEGATION_TOKEN_SETTINGS = {
  'delegation.token.secret.key': {
    type: 'password', default: null,
    doc: 'Secret key to generate and verify delegation tokens (HMAC-SHA512 of the token id). The same key must be set on every broker of the cluster. Not set or empty: delegation tokens are disabled (DELEGATION_TOKEN_AUTH_DISABLED).',
  },
  'delegation.token.max.lifetime.ms': {
    type: 'long', default: '604800000', min: 1,
    doc: 'The token has a maximum lifetime beyond which it cannot be renewed anymore. Default value 7 days.',
  },
  'delegation.token.expiry.time.ms': {
    type: 'long', default: '86400000', min: 1,
    doc: 'The token validity time in milliseconds before the token needs to be renewed. Default value 1 day.',
  },
  'delegation.token.expiry.check.interval.ms': {
    type: 'long', default: '3600000', min: 1,
    doc: 'Scan interval to remove expired delegation tokens (on the active controller).',
  },
} as const satisfies Record<string, SettingSpec>;

/** The delegation token settings, typed (what the room that reads them takes). */
export type DelegationTokenSettings = SettingsOf<typeof DELEGATION_TOKEN_SETTINGS>;
