/**
 * Kafka's authorizer and client-quota broker settings, merged into BROKER_SETTINGS (see
 * security/authorizer.ts and security/quotas.ts for what they do).
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

export const AUTHORIZER_SETTINGS = {
  'authorizer.class.name': {
    type: 'string', default: '', oneOf: ['', 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'],
    doc: 'ACLs are enforced when this is Kafka\'s StandardAuthorizer; empty: every request is allowed (ACL APIs answer SECURITY_DISABLED).',
  },
  'super.users': {
    type: 'string', default: '',
    doc: 'Principals allowed everything by the authorizer, semicolon-separated (User:alice;User:bob).',
  },
  'allow.everyone.if.no.acl.found': {
    type: 'boolean', default: 'false',
    doc: 'With the authorizer: whether a resource no ACL matches is open to everyone.',
  },
  'quota.window.num': {
    type: 'int', default: '11', min: 1,
    doc: 'Samples kept in memory for client quotas (the rate is measured over them).',
  },
  'quota.window.size.seconds': {
    type: 'int', default: '1', min: 1,
    doc: 'Time span of each client-quota sample; also the longest a client is throttled at a time.',
  },
  'controller.quota.window.num': {
    type: 'int', default: '11', min: 1,
    doc: 'Samples of controller_mutation_rate quotas: the token bucket holds rate x samples x sample span.',
  },
  'controller.quota.window.size.seconds': {
    type: 'int', default: '1', min: 1,
    doc: 'Time span of each controller_mutation_rate sample.',
  },
} as const satisfies Record<string, SettingSpec>;

/** The authorizer settings, typed (what the room that reads them takes). */
export type AuthorizerSettings = SettingsOf<typeof AUTHORIZER_SETTINGS>;
