/**
 * What each listener needs to secure its connections, resolved once at start-up from Kafka's
 * settings: the security protocol (listener.security.protocol.map), TLS for SSL / SASL_SSL, SASL
 * for SASL_PLAINTEXT / SASL_SSL. Every setting may be overridden per listener as
 * `listener.name.<lower-case name>.<setting>`; the JAAS config also per listener and mechanism
 * (`listener.name.<name>.<mechanism>.sasl.jaas.config`), which Kafka prefers over the others.
 */
import { ConfigError } from '../errors.js';
import { listenerSecurityProtocol, type BrokerConfig, type SecurityProtocol } from '../config.js';
import type { Logger } from '../logger.js';
import { jaasOptions, parseJaasConfig, plainUsers, JaasParseError, type JaasEntry } from './jaas.js';
import { SUPPORTED_MECHANISMS } from './sasl/mechanism.js';
import { unsecuredValidatorOptions, type UnsecuredValidatorOptions } from './sasl/oauthbearer.js';
import { buildListenerTls, type ListenerTls, type SslClientAuth } from './tls.js';

export interface SaslListenerConfig {
  /** Enabled and supported mechanisms, in sasl.enabled.mechanisms order. */
  mechanisms: string[];
  /** PLAIN users from the JAAS config (user_<name>). */
  plainUsers: ReadonlyMap<string, string>;
  oauth: UnsecuredValidatorOptions;
  /** connections.max.reauth.ms (0: sessions never expire). */
  reauthMs: number;
  /** sasl.server.max.receive.size: larger frames before authentication close the connection. */
  maxReceiveSize: number;
  /** connection.failed.authentication.delay.ms */
  failedDelayMs: number;
}

export interface ListenerSecurity {
  name: string;
  protocol: SecurityProtocol;
  tls: ListenerTls | null;
  sasl: SaslListenerConfig | null;
}

/** A setting's value for one listener: the listener.name.<name>. override, else the broker-wide value. */
export function listenerSetting(config: BrokerConfig, listener: string, name: string): unknown {
  const prefix = `listener.name.${listener.toLowerCase()}.${name}`;
  for (const [k, x] of Object.entries(config.explicit as Record<string, { value: unknown } | undefined>)) {
    if (x && k.toLowerCase() === prefix.toLowerCase()) return x.value;
  }
  return (config as unknown as Record<string, unknown>)[name];
}

function jaasFor(config: BrokerConfig, listener: string, mechanism: string): JaasEntry[] {
  const specific = listenerSetting(config, listener, `${mechanism.toLowerCase()}.sasl.jaas.config`);
  const text = (specific ?? listenerSetting(config, listener, 'sasl.jaas.config')) as string | null | undefined;
  if (text === null || text === undefined || text.trim() === '') return [];
  try {
    return parseJaasConfig(text);
  } catch (e) {
    if (e instanceof JaasParseError) throw new ConfigError(`listener ${listener}: invalid sasl.jaas.config for ${mechanism}: ${e.message}`);
    throw e;
  }
}

/** A listener's own-certificate settings (keystore, protocols, ciphers, DN mapping), read with `get`. */
export function serverTlsSettings(get: (name: string) => unknown) {
  return {
    keystoreType: get('ssl.keystore.type') as string,
    keystoreLocation: get('ssl.keystore.location') as string | null,
    keystorePassword: get('ssl.keystore.password') as string | null,
    keyPassword: get('ssl.key.password') as string | null,
    keystoreKey: get('ssl.keystore.key') as string | null,
    keystoreCertificateChain: get('ssl.keystore.certificate.chain') as string | null,
    truststoreType: get('ssl.truststore.type') as string,
    enabledProtocols: get('ssl.enabled.protocols') as string[],
    cipherSuites: get('ssl.cipher.suites') as string[],
    principalMappingRules: get('ssl.principal.mapping.rules') as string,
  };
}

export function resolveListenerSecurity(config: BrokerConfig, listener: string, logger?: Logger): ListenerSecurity {
  const protocol = listenerSecurityProtocol(config, listener) ?? 'PLAINTEXT';
  const get = (name: string) => listenerSetting(config, listener, name);
  let tls: ListenerTls | null = null;
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    tls = buildListenerTls(listener, {
      ...serverTlsSettings(get),
      truststoreLocation: get('ssl.truststore.location') as string | null,
      truststorePassword: get('ssl.truststore.password') as string | null,
      truststoreCertificates: get('ssl.truststore.certificates') as string | null,
      // On SASL_SSL a client certificate may be required too, but the principal is SASL's.
      clientAuth: get('ssl.client.auth') as SslClientAuth,
    });
  }
  let sasl: SaslListenerConfig | null = null;
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    const enabled = (get('sasl.enabled.mechanisms') as string[]).map((m) => m.trim().toUpperCase()).filter((m) => m !== '');
    const mechanisms = enabled.filter((m) => (SUPPORTED_MECHANISMS as readonly string[]).includes(m));
    const dropped = enabled.filter((m) => !mechanisms.includes(m));
    if (mechanisms.length === 0) {
      throw new ConfigError(
        `listener ${listener} (${protocol}): sasl.enabled.mechanisms (${enabled.join(',') || 'empty'}) names no mechanism Samsa supports (${SUPPORTED_MECHANISMS.join(', ')})`,
      );
    }
    if (dropped.length > 0) logger?.warn(`listener ${listener}: SASL mechanisms ${dropped.join(', ')} are not supported and not offered`);
    const users = new Map<string, string>();
    if (mechanisms.includes('PLAIN')) {
      for (const [u, p] of plainUsers(jaasFor(config, listener, 'PLAIN'))) users.set(u, p);
      if (users.size === 0) logger?.warn(`listener ${listener}: PLAIN is enabled but its JAAS config names no user_<name> entries`);
    }
    const oauth = unsecuredValidatorOptions(mechanisms.includes('OAUTHBEARER') ? jaasOptions(jaasFor(config, listener, 'OAUTHBEARER')) : new Map());
    sasl = {
      mechanisms,
      plainUsers: users,
      oauth,
      reauthMs: Number(get('connections.max.reauth.ms')),
      maxReceiveSize: Number(get('sasl.server.max.receive.size')),
      failedDelayMs: Number(get('connection.failed.authentication.delay.ms')),
    };
  }
  return { name: listener, protocol, tls, sasl };
}

/** Security of every listener, by upper-cased name. */
export function resolveAllListenerSecurity(config: BrokerConfig, listeners: readonly { name: string }[], logger?: Logger): Map<string, ListenerSecurity> {
  const out = new Map<string, ListenerSecurity>();
  for (const l of listeners) out.set(l.name, resolveListenerSecurity(config, l.name, logger));
  return out;
}
