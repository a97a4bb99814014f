/**
 * TLS for SSL and SASL_SSL listeners: Kafka's ssl.* settings → Node's tls server options.
 *
 * Keystores: PEM (one file with the private key and the certificate chain, or the inline
 * ssl.keystore.key / ssl.keystore.certificate.chain) and PKCS12 (Node's `pfx`). Truststores: PEM
 * CA certificates or PKCS12. JKS needs a JVM to read: refused with a message saying how to convert.
 * ssl.enabled.protocols bounds the versions (TLSv1.2, TLSv1.3); ssl.client.auth decides whether a
 * client certificate is asked for (requested) or needed (required).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureVersion, type TlsOptions } from 'node:tls';
import { ConfigError } from '../errors.js';
import { SslPrincipalMapper } from './principal.js';

export type SslClientAuth = 'none' | 'requested' | 'required';

/** A listener's ssl.* settings (already resolved with listener.name.<name>. overrides). */
export interface SslSettings {
  keystoreType: string;
  keystoreLocation: string | null;
  keystorePassword: string | null;
  keyPassword: string | null;
  keystoreKey: string | null;
  keystoreCertificateChain: string | null;
  truststoreType: string;
  truststoreLocation: string | null;
  truststorePassword: string | null;
  truststoreCertificates: string | null;
  enabledProtocols: string[];
  cipherSuites: string[];
  clientAuth: SslClientAuth;
  principalMappingRules: string;
}

export interface ListenerTls {
  /** Options for tls.createServer. */
  options: TlsOptions;
  clientAuth: SslClientAuth;
  mapper: SslPrincipalMapper;
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string): { label: string; pem: string }[] {
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ label: m[1]!, pem: m[0] }));
}

function readStore(listener: string, what: string, location: string): Buffer {
  try {
    return readFileSync(location);
  } catch (e) {
    throw new ConfigError(`listener ${listener}: cannot read ${what} '${location}': ${(e as Error).message}`);
  }
}

const JKS_HINT = 'JKS keystores cannot be read by Samsa: use ssl.keystore.type=PEM or PKCS12 ' +
  '(keytool -importkeystore -srckeystore X.jks -destkeystore X.p12 -deststoretype PKCS12)';

export function buildListenerTls(listener: string, s: SslSettings): ListenerTls {
  const options: TlsOptions = {};
  const ksType = s.keystoreType.toUpperCase();
  if (s.keystoreKey !== null || s.keystoreCertificateChain !== null) {
    if (s.keystoreKey === null || s.keystoreCertificateChain === null) {
      throw new ConfigError(`listener ${listener}: ssl.keystore.key and ssl.keystore.certificate.chain must be set together`);
    }
    options.key = s.keystoreKey;
    options.cert = s.keystoreCertificateChain;
    if (s.keyPassword !== null) options.passphrase = s.keyPassword;
  } else if (s.keystoreLocation !== null) {
    if (ksType === 'JKS') throw new ConfigError(`listener ${listener}: ssl.keystore.type is JKS. ${JKS_HINT}`);
    const data = readStore(listener, 'ssl.keystore.location', s.keystoreLocation);
    if (ksType === 'PKCS12') {
      options.pfx = data;
      const pass = s.keystorePassword ?? s.keyPassword;
      if (pass !== null) options.passphrase = pass;
    } else {
      const blocks = pemBlocks(data.toString('utf8'));
      const keys = blocks.filter((b) => b.label.endsWith('PRIVATE KEY'));
      const certs = blocks.filter((b) => b.label === 'CERTIFICATE');
      if (keys.length === 0 || certs.length === 0) {
        throw new ConfigError(`listener ${listener}: the PEM keystore '${s.keystoreLocation}' must hold a private key and a certificate chain`);
      }
      options.key = keys[0]!.pem;
      options.cert = certs.map((c) => c.pem).join('\n');
      if (s.keyPassword !== null) options.passphrase = s.keyPassword;
    }
  } else {
    throw new ConfigError(`listener ${listener}: an SSL listener needs ssl.keystore.location (or ssl.keystore.key and ssl.keystore.certificate.chain)`);
  }

  const tsType = s.truststoreType.toUpperCase();
  if (s.truststoreCertificates !== null) {
    options.ca = pemBlocks(s.truststoreCertificates).map((b) => b.pem);
  } else if (s.truststoreLocation !== null) {
    if (tsType === 'JKS') throw new ConfigError(`listener ${listener}: ssl.truststore.type is JKS. ${JKS_HINT.replace(/keystore/g, 'truststore')}`);
    const data = readStore(listener, 'ssl.truststore.location', s.truststoreLocation);
    if (tsType === 'PKCS12') {
      // Node reads CA certificates of a PKCS12 file through a secure context of its own.
      options.ca = caFromPkcs12(`listener ${listener}`, data, s.truststorePassword);
    } else {
      options.ca = pemBlocks(data.toString('utf8')).filter((b) => b.label === 'CERTIFICATE').map((b) => b.pem);
    }
  }

  const versions = s.enabledProtocols.filter((p) => p === 'TLSv1.2' || p === 'TLSv1.3').sort() as SecureVersion[];
  if (versions.length === 0) throw new ConfigError(`listener ${listener}: ssl.enabled.protocols names no supported protocol (TLSv1.2, TLSv1.3)`);
  options.minVersion = versions[0];
  options.maxVersion = versions[versions.length - 1];
  if (s.cipherSuites.length > 0) options.ciphers = s.cipherSuites.join(':');
  options.requestCert = s.clientAuth !== 'none';
  options.rejectUnauthorized = s.clientAuth === 'required';
  // Fail at start-up on a bad key, certificate or password, not at the first connection.
  try {
    createSecureContext(options);
  } catch (e) {
    throw new ConfigError(`listener ${listener}: invalid TLS key material: ${(e as Error).message}`);
  }
  return { options, clientAuth: s.clientAuth, mapper: new SslPrincipalMapper(s.principalMappingRules) };
}

export function caFromPkcs12(listener: string, data: Buffer, password: string | null): string[] {
  // A PKCS12 truststore holds certificates only; Node cannot export them from `pfx` without a
  // key, so openssl converts it (it is read once, at start-up).
  try {
    const out = execFileSync('openssl', ['pkcs12', '-nokeys', '-passin', `pass:${password ?? ''}`], { input: data });
    return pemBlocks(out.toString('utf8')).filter((b) => b.label === 'CERTIFICATE').map((b) => b.pem);
  } catch (e) {
    throw new ConfigError(`${listener}: cannot read the PKCS12 truststore: ${(e as Error).message}`);
  }
}
