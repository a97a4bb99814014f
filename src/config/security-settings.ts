/**
 * Kafka's TLS and SASL broker settings (SslConfigs, BrokerSecurityConfigs, SaslConfigs), merged
 * into BROKER_SETTINGS. Every one may also be given per listener as
 * `listener.name.<lower-case listener name>.<setting>`; the JAAS setting also per listener and
 * mechanism (`listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config`). See
 * security/listener-security.ts for how a listener's effective settings are resolved.
 */
import type { SettingSpec, SettingsOf } from './setting-spec.js';

const SSL_PROTOCOLS = ['TLSv1.2', 'TLSv1.3'];

function checkEnabledProtocols(value: never): string | null {
  const list = value as unknown as string[];
  for (const p of list) {
    if (!SSL_PROTOCOLS.includes(p)) return `Unsupported TLS protocol ${p}: Samsa supports ${SSL_PROTOCOLS.join(' and ')}`;
  }
  return null;
}

export const SECURITY_SETTINGS = {
  // --- TLS ------------------------------------------------------------------------------------
  'ssl.keystore.type': {
    type: 'string', default: 'JKS', oneOf: ['JKS', 'PKCS12', 'PEM'], caseInsensitive: true,
    doc: 'Format of ssl.keystore.location: PEM (private key and certificate chain in one file) or PKCS12. Kafka\'s default JKS is not readable without a JVM: convert the keystore to PKCS12.',
  },
  'ssl.keystore.location': {
    type: 'string', default: null,
    doc: 'The broker\'s key and certificate (PEM or PKCS12 file).',
  },
  'ssl.keystore.password': {
    type: 'password', default: null,
    doc: 'Password of a PKCS12 keystore.',
  },
  'ssl.key.password': {
    type: 'password', default: null,
    doc: 'Password of the private key (an encrypted PEM key, or a PKCS12 keystore without ssl.keystore.password).',
  },
  'ssl.keystore.key': {
    type: 'password', default: null,
    doc: 'The private key in PEM form, inline (with ssl.keystore.type=PEM), instead of a keystore file.',
  },
  'ssl.keystore.certificate.chain': {
    type: 'password', default: null,
    doc: 'The certificate chain in PEM form, inline (with ssl.keystore.type=PEM).',
  },
  'ssl.truststore.type': {
    type: 'string', default: 'JKS', oneOf: ['JKS', 'PKCS12', 'PEM'], caseInsensitive: true,
    doc: 'Format of ssl.truststore.location: PEM (CA certificates) or PKCS12.',
  },
  'ssl.truststore.location': {
    type: 'string', default: null,
    doc: 'CA certificates client certificates are verified against (ssl.client.auth).',
  },
  'ssl.truststore.password': {
    type: 'password', default: null,
    doc: 'Password of a PKCS12 truststore.',
  },
  'ssl.truststore.certificates': {
    type: 'password', default: null,
    doc: 'CA certificates in PEM form, inline (with ssl.truststore.type=PEM).',
  },
  'ssl.protocol': {
    type: 'string', default: 'TLSv1.3',
    doc: 'Accepted for compatibility; ssl.enabled.protocols decides the versions offered.',
  },
  'ssl.enabled.protocols': {
    type: 'list', default: 'TLSv1.2,TLSv1.3', check: checkEnabledProtocols,
    doc: 'TLS versions accepted on SSL and SASL_SSL listeners (TLSv1.2, TLSv1.3).',
  },
  'ssl.cipher.suites': {
    type: 'list', default: '',
    doc: 'OpenSSL cipher names for TLSv1.2 (empty: Node.js defaults).',
  },
  'ssl.client.auth': {
    type: 'string', default: 'none', oneOf: ['required', 'requested', 'none'],
    doc: 'Whether clients must (required) or may (requested) present a certificate; the principal is then its distinguished name.',
  },
  'ssl.principal.mapping.rules': {
    type: 'string', default: 'DEFAULT',
    doc: 'Rules mapping a certificate\'s distinguished name to a principal name: RULE:pattern/replacement/[LU], ..., DEFAULT.',
  },
  'ssl.endpoint.identification.algorithm': {
    type: 'string', default: 'https',
    doc: 'Accepted for compatibility (the broker does not verify client host names).',
  },
  'ssl.engine.factory.class': {
    type: 'string', default: null,
    doc: 'Accepted for compatibility; not used by Samsa.',
  },
  'ssl.secure.random.implementation': {
    type: 'string', default: null,
    doc: 'Accepted for compatibility; not used by Samsa.',
  },
  'ssl.keymanager.algorithm': {
    type: 'string', default: 'SunX509',
    doc: 'Accepted for compatibility; not used by Samsa.',
  },
  'ssl.trustmanager.algorithm': {
    type: 'string', default: 'PKIX',
    doc: 'Accepted for compatibility; not used by Samsa.',
  },

  // --- SASL -----------------------------------------------------------------------------------
  'sasl.enabled.mechanisms': {
    type: 'list', default: 'GSSAPI',
    doc: 'SASL mechanisms offered on SASL listeners: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER (GSSAPI is not supported).',
  },
  'sasl.jaas.config': {
    type: 'password', default: null,
    doc: 'JAAS login module configuration; for PLAIN the users (`user_<name>="<password>"`), for OAUTHBEARER the unsecured validator options.',
  },
  'sasl.mechanism.inter.broker.protocol': {
    type: 'string', default: 'GSSAPI',
    doc: 'Accepted for compatibility; brokers talk to each other on inter.broker.listener.name.',
  },
  'security.inter.broker.protocol': {
    type: 'string', default: 'PLAINTEXT', oneOf: ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'],
    doc: 'Accepted for compatibility; brokers talk to each other on inter.broker.listener.name.',
  },
  'sasl.server.callback.handler.class': {
    type: 'string', default: null,
    doc: 'Accepted for compatibility; Samsa uses Kafka\'s default handlers (JAAS users for PLAIN, stored SCRAM credentials, unsecured JWS for OAUTHBEARER).',
  },
  'sasl.server.max.receive.size': {
    type: 'int', default: '524288', min: 1,
    doc: 'Largest SASL token accepted before authentication.',
  },
  'sasl.oauthbearer.expected.audience': {
    type: 'list', default: '',
    doc: 'Accepted for compatibility; the unsecured validator checks no audience.',
  },
  'connections.max.reauth.ms': {
    type: 'long', default: '0', min: 0,
    doc: 'Longest SASL session before the client must re-authenticate (KIP-368); 0 disables. A request other than SaslHandshake after expiry closes the connection.',
  },
  'connection.failed.authentication.delay.ms': {
    type: 'int', default: '100', min: 0,
    doc: 'Delay before the answer to a failed authentication (and the close) is sent.',
  },
} as const satisfies Record<string, SettingSpec>;

/**
 * `listener.name.<listener>.<setting>` and `listener.name.<listener>.<mechanism>.sasl.jaas.config`:
 * the base setting name, or null when `key` is not listener-scoped.
 */
export function listenerScopedBase(key: string): { listener: string; mechanism: string | null; base: string } | null {
  const m = /^listener\.name\.([A-Za-z0-9_]+)\.(.+)$/.exec(key);
  if (!m) return null;
  const rest = m[2]!;
  const jaas = /^([a-z0-9-]+)\.sasl\.jaas\.config$/i.exec(rest);
  if (jaas) return { listener: m[1]!.toUpperCase(), mechanism: jaas[1]!.toUpperCase(), base: 'sasl.jaas.config' };
  return { listener: m[1]!.toUpperCase(), mechanism: null, base: rest };
}

/** The security settings, typed (what the room that reads them takes). */
export type SecuritySettings = SettingsOf<typeof SECURITY_SETTINGS>;
