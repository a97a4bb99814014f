/**
 * How this broker connects to the others (replica fetchers, forwarding to the controller): the
 * security of `inter.broker.listener.name` (else the first listener), as Kafka's brokers do.
 *
 * - SSL / SASL_SSL: the listener's truststore verifies the other broker's certificate (its host
 *   name too unless ssl.endpoint.identification.algorithm is empty) and its keystore is the
 *   client certificate, for listeners with ssl.client.auth.
 * - SASL_PLAINTEXT / SASL_SSL: `sasl.mechanism.inter.broker.protocol` with the credentials of
 *   that mechanism's JAAS config on the listener: `username` / `password` (PlainLoginModule,
 *   ScramLoginModule), or OAUTHBEARER's `unsecuredLoginStringClaim_sub`.
 */
import type { ConnectionOptions } from 'node:tls';
import { ConfigError } from '../errors.js';
import { brokerListeners, listenerSecurityProtocol, type BrokerConfig } from '../config.js';
import { jaasOptions, parseJaasConfig } from './jaas.js';
import { listenerSetting, resolveListenerSecurity } from './listener-security.js';
import { unsecuredJws, type SaslClientCredentials } from './sasl/client.js';

export interface InterBrokerSecurity {
  tls?: ConnectionOptions;
  sasl?: SaslClientCredentials;
}

/**
 * The client security for connections to other brokers; undefined for PLAINTEXT, and for a broker
 * without a cluster (no samsa.etcd.endpoints: there is nobody to connect to).
 */
export function interBrokerSecurity(config: BrokerConfig): InterBrokerSecurity | undefined {
  if (config['samsa.etcd.endpoints'].length === 0) return undefined;
  const name = (config['inter.broker.listener.name'] ?? brokerListeners(config)[0]?.name ?? 'PLAINTEXT').toUpperCase();
  const protocol = listenerSecurityProtocol(config, name) ?? 'PLAINTEXT';
  if (protocol === 'PLAINTEXT') return undefined;
  const out: InterBrokerSecurity = {};
  const sec = resolveListenerSecurity(config, name);
  if (protocol === 'SSL' || protocol === 'SASL_SSL') {
    const server = sec?.tls?.options;
    if (!server) throw new ConfigError(`inter.broker.listener.name ${name} is ${protocol} but has no TLS settings`);
    out.tls = {
      ...(server.ca ? { ca: server.ca } : {}),
      ...(server.key ? { key: server.key, cert: server.cert } : {}),
      ...(server.pfx ? { pfx: server.pfx } : {}),
      ...(server.passphrase ? { passphrase: server.passphrase } : {}),
      minVersion: server.minVersion,
      maxVersion: server.maxVersion,
    };
    if (listenerSetting(config, name, 'ssl.endpoint.identification.algorithm') === '') out.tls.checkServerIdentity = () => undefined;
  }
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
    const mechanism = String(listenerSetting(config, name, 'sasl.mechanism.inter.broker.protocol')).toUpperCase();
    const text = (listenerSetting(config, name, `${mechanism.toLowerCase()}.sasl.jaas.config`) ?? listenerSetting(config, name, 'sasl.jaas.config')) as string | null;
    const options = text ? jaasOptions(parseJaasConfig(text)) : new Map<string, string>();
    if (mechanism === 'OAUTHBEARER') {
      const sub = options.get('unsecuredLoginStringClaim_sub');
      if (!sub) throw new ConfigError(`inter-broker OAUTHBEARER on ${name} needs unsecuredLoginStringClaim_sub in its JAAS config`);
      const lifetimeMs = Number(options.get('unsecuredLoginLifetimeSeconds') ?? '3600') * 1000;
      out.sasl = { mechanism, token: () => unsecuredJws(sub, lifetimeMs) };
    } else {
      const username = options.get('username');
      const password = options.get('password');
      if (username === undefined || password === undefined) {
        throw new ConfigError(
          `inter-broker SASL ${mechanism} on listener ${name} (sasl.mechanism.inter.broker.protocol) needs username and password in the listener's ${mechanism.toLowerCase()}.sasl.jaas.config`,
        );
      }
      out.sasl = { mechanism, username, password };
    }
  }
  return out;
}
