/**
 * TLS for https:// HTTP listeners: the broker's ssl.keystore.* / ssl.enabled.protocols /
 * ssl.cipher.suites settings, with `listener.name.http.` overrides, read as for a Kafka SSL
 * listener named HTTP (security/tls.ts). Only the server authenticates (no client certificates);
 * clients authenticate with basic auth when the broker has SASL.
 */
import type { TlsOptions } from 'node:tls';
import type { BrokerConfig } from '../config.js';
import { buildListenerTls, type SslClientAuth } from '../security/tls.js';
import { listenerSetting } from '../security/listener-security.js';

export function httpTlsOptions(config: BrokerConfig): TlsOptions {
  const get = (name: string) => listenerSetting(config, 'HTTP', name);
  const tls = buildListenerTls('HTTP', {
    keystoreType: get('ssl.keystore.type') as string,
    keystoreLocation: get('ssl.keystore.location') as string | null,
    keystorePassword: get('ssl.keystore.password') as string | null,
    keyPassword: get('ssl.key.password') as string | null,
    keystoreKey: get('ssl.keystore.key') as string | null,
    keystoreCertificateChain: get('ssl.keystore.certificate.chain') as string | null,
    truststoreType: get('ssl.truststore.type') as string,
    truststoreLocation: null,
    truststorePassword: null,
    truststoreCertificates: null,
    enabledProtocols: get('ssl.enabled.protocols') as string[],
    cipherSuites: get('ssl.cipher.suites') as string[],
    clientAuth: 'none' as SslClientAuth,
    principalMappingRules: get('ssl.principal.mapping.rules') as string,
  });
  const { requestCert: _r, rejectUnauthorized: _u, ca: _ca, ...serverOnly } = tls.options;
  if (!serverOnly.key && !serverOnly.pfx) throw new Error('https HTTP listener: set ssl.keystore.location (or ssl.keystore.key and ssl.keystore.certificate.chain)');
  return serverOnly;
}
