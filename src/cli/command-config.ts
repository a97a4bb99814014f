/**
 * `--command-config FILE`: Kafka client properties (as kafka-topics.sh and friends take them)
 * turned into the CLI client's TLS and SASL options:
 *
 *   security.protocol            PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL
 *   sasl.mechanism               PLAIN | SCRAM-SHA-256 | SCRAM-SHA-512 | OAUTHBEARER
 *   sasl.jaas.config             ... username="..." password="...";  (PlainLoginModule, ScramLoginModule;
 *                                tokenauth="true": a delegation token's id and HMAC)
 *                                ... unsecuredLoginStringClaim_sub="...";  (OAuthBearerLoginModule: an unsecured token)
 *   ssl.truststore.location/type PEM or PKCS12 (ssl.truststore.password); ssl.truststore.certificates inline PEM
 *   ssl.keystore.location/type   PEM (key + certificate) or PKCS12, for ssl.client.auth
 *   ssl.endpoint.identification.algorithm   empty: do not check the broker's host name
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { parseProperties } from '../config/properties.js';
import { jaasOptions, parseJaasConfig } from '../security/jaas.js';
import { unsecuredJws } from '../security/sasl/client.js';
import { caFromPkcs12 } from '../security/tls.js';
import type { ClientSecurity } from './client.js';

const PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;

function pemCertificates(text: string): string[] {
  return [...text.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)].map((m) => m[0]);
}

/** Client security from properties text (the content of a --command-config file). */
export function clientSecurityFromProperties(text: string, source = 'command config'): ClientSecurity {
  const props = new Map(parseProperties(text).map((p) => [p.key, p.value]));
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').toUpperCase();
  if (!(PROTOCOLS as readonly string[]).includes(protocol)) throw new Error(`${source}: unknown security.protocol ${protocol}`);
  const security: ClientSecurity = { protocol: protocol as ClientSecurity['protocol'] };
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    const t: ConnectionOptions = {};
    const tsType = (props.get('ssl.truststore.type') ?? 'PEM').toUpperCase();
    const tsLocation = props.get('ssl.truststore.location');
    if (props.has('ssl.truststore.certificates')) t.ca = pemCertificates(props.get('ssl.truststore.certificates')!);
    else if (tsLocation) {
      if (tsType === 'PKCS12') {
        t.ca = caFromPkcs12(source, readFileSync(tsLocation), props.get('ssl.truststore.password') ?? null);
      } else if (tsType === 'PEM') {
        t.ca = pemCertificates(readFileSync(tsLocation, 'utf8'));
      } else {
        throw new Error(`${source}: ssl.truststore.type ${tsType} is not supported (use PEM or PKCS12)`);
      }
    }
    const ksLocation = props.get('ssl.keystore.location');
    if (ksLocation) {
      const ksType = (props.get('ssl.keystore.type') ?? 'PEM').toUpperCase();
      if (ksType === 'PKCS12') {
        t.pfx = [...(Array.isArray(t.pfx) ? t.pfx : []), { buf: readFileSync(ksLocation), passphrase: props.get('ssl.keystore.password') ?? props.get('ssl.key.password') }];
      } else {
        const pem = readFileSync(ksLocation, 'utf8');
        t.key = pem;
        t.cert = pem;
        if (props.has('ssl.key.password')) t.passphrase = props.get('ssl.key.password');
      }
    }
    if (props.get('ssl.endpoint.identification.algorithm') === '') t.checkServerIdentity = () => undefined;
    security.tls = t;
  }
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    const mechanism = (props.get('sasl.mechanism') ?? 'GSSAPI').toUpperCase();
    const jaasText = props.get('sasl.jaas.config');
    if (!jaasText) throw new Error(`${source}: SASL needs sasl.jaas.config`);
    const options = jaasOptions(parseJaasConfig(jaasText));
    if (mechanism === 'OAUTHBEARER') {
      const sub = options.get('unsecuredLoginStringClaim_sub');
      if (!sub) throw new Error(`${source}: OAUTHBEARER needs unsecuredLoginStringClaim_sub in sasl.jaas.config`);
      const lifetimeSeconds = Number(options.get('unsecuredLoginLifetimeSeconds') ?? '3600');
      security.sasl = { mechanism, token: unsecuredJws(sub, lifetimeSeconds * 1000) };
    } else {
      security.sasl = { mechanism, username: options.get('username'), password: options.get('password') };
      if (options.get('tokenauth')?.toLowerCase() === 'true') security.sasl.tokenauth = true;
    }
  }
  return security;
}

export function clientSecurityFromFile(file: string): ClientSecurity {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read --command-config ${file}: ${(e as Error).message}`);
  }
  return clientSecurityFromProperties(text, file);
}
