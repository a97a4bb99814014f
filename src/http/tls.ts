/**
 * TLS for https:// HTTP listeners: the broker's ssl.keystore.* / ssl.enabled.protocols /
 * ssl.cipher.suites settings, with `listener.name.http.` overrides, read as for a Kafka SSL
 * listener named HTTP (security/tls.ts). Only the server authenticates (no client certificates);
 * clients authenticate with basic auth when the broker has SASL.
 */
import type { TlsOptions } from 'node:tls';
import type { BrokerConfig } from '../config.js';
import { buildListenerTls, type SslClientAuth } from '../security/tls.js';
import { listenerSetting, serverTlsSettings } from '../security/listener-security.js';

export function httpTlsOptions(config: BrokerConfig): TlsOptions {
  const get = (name: string) => listenerSetting(config, 'HTTP', name);
  const tls = buildListenerTls('HTTP', {
    ...serverTlsSettings(get),
    truststoreLocation: null,
    truststorePassword: null,
    truststoreCertificates: null,
    clientAuth: 'none' as SslClientAuth,
  });
  const { requestCert: _r, rejectUnauthorized: _u, ca: _ca, ...serverOnly } = tls.options;
  if (!serverOnly.key && !serverOnly.pfx) throw new Error('https HTTP listener: set ssl.keystore.location (or ssl.keystore.key and ssl.keystore.certificate.chain)');
  return serverOnly;
}
