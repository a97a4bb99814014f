/**
 * A small Kafka client for the `samsa` CLI: one connection (protocol/kafka-connection.ts) to the
 * first answering address of the bootstrap list, the API version of each request chosen from the
 * broker's ApiVersions answer, SASL after ApiVersions when the security protocol asks for it.
 */
import type tls from 'node:tls';
import { saslAuthenticate, type SaslClientCredentials } from '../security/sasl/client.js';
import { apiCodecs, type ApiTypes } from '../protocol/generated/api-table.js';
import { errorName } from '../protocol/generated/error-codes.js';
import { KafkaConnection, KafkaConnectionError } from '../protocol/kafka-connection.js';
import type { ApiKeyNumber } from '../protocol/wire.js';

/** The version the CLI fills its request bodies for (fields differ between versions). */
const PREFERRED: Partial<Record<number, number>> = {
  0: 9, // Produce
  1: 12, // Fetch (topic names; v13+ uses ids)
  2: 7, // ListOffsets
  3: 12, // Metadata (topic ids from v10)
  9: 7, // OffsetFetch (single group)
  15: 5, // DescribeGroups
  16: 5, // ListGroups (group type from v5)
  18: 3, // ApiVersions
  19: 7, // CreateTopics (topic id from v7)
  20: 5, // DeleteTopics (names)
  32: 4, // DescribeConfigs
};

export class KafkaError extends Error {
  constructor(readonly errorCode: number, message?: string | null) {
    super(message ? `${errorName(errorCode)}: ${message}` : errorName(errorCode));
  }
}

export interface ClientOptions {
  /** host:port (default localhost:9092). */
  bootstrap?: string;
  clientId?: string;
  /** Per-request timeout in ms (default 30000). */
  requestTimeoutMs?: number;
  /** TLS and SASL (security.protocol and friends, see command-config.ts); default PLAINTEXT. */
  security?: ClientSecurity;
}

export interface ClientSecurity {
  protocol: 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
  /** For SSL / SASL_SSL: CA, client certificate, host name checking. */
  tls?: tls.ConnectionOptions;
  /** For SASL_PLAINTEXT / SASL_SSL. */
  sasl?: SaslClientCredentials;
}

export function parseHostPort(s: string): { host: string; port: number } {
  const m = /^\[?([^\]]*?)\]?(?::(\d+))?$/.exec(s.trim());
  if (!m || !m[1]) throw new Error(`invalid bootstrap address '${s}' (expected host:port)`);
  return { host: m[1], port: m[2] ? Number(m[2]) : 9092 };
}

export class KafkaClient {
  private readonly versions = new Map<number, { min: number; max: number }>();

  private constructor(private readonly conn: KafkaConnection) {}

  /** Connects to the first answering address of a comma-separated bootstrap list. */
  static async connect(options: ClientOptions = {}): Promise<KafkaClient> {
    const list = (options.bootstrap ?? 'localhost:9092').split(',').map((x) => x.trim()).filter((x) => x.length > 0);
    let last: unknown = null;
    for (const bootstrap of list) {
      try {
        return await KafkaClient.connectOne({ ...options, bootstrap });
      } catch (err) {
        last = err;
      }
    }
    throw last ?? new Error('no bootstrap address');
  }

  /** Connects, asks ApiVersions, then authenticates (SASL_*), as Kafka's clients do. */
  private static async connectOne(options: ClientOptions & { bootstrap: string }): Promise<KafkaClient> {
    const security = options.security ?? { protocol: 'PLAINTEXT' };
    const requestTimeoutMs = options.requestTimeoutMs ?? 30000;
    const { host, port } = parseHostPort(options.bootstrap);
    const useTls = security.protocol === 'SSL' || security.protocol === 'SASL_SSL';
    const useSasl = security.protocol === 'SASL_PLAINTEXT' || security.protocol === 'SASL_SSL';
    const conn = await KafkaConnection.connect({
      host, port, tls: useTls ? security.tls ?? {} : undefined, clientId: options.clientId ?? 'samsa-cli', label: options.bootstrap,
      connectTimeoutMs: requestTimeoutMs, requestTimeoutMs,
    }).catch((err: unknown) => {
      if (err instanceof KafkaConnectionError && err.code === 'ECONNREFUSED') {
        throw new Error(`cannot connect to ${options.bootstrap}: nothing is listening there (start a broker with 'samsa start', or pass --bootstrap host:port)`);
      }
      throw err;
    });
    const client = new KafkaClient(conn);
    try {
      await client.negotiateVersions();
      if (useSasl) {
        await client.authenticate(security.sasl);
      }
    } catch (err) {
      conn.close();
      throw err;
    }
    return client;
  }

  private async negotiateVersions(): Promise<void> {
    const av = await this.send(18, 3, { clientSoftwareName: 'samsa-cli', clientSoftwareVersion: '0.1.0', clusterId: null, nodeId: -1 });
    if (av.errorCode !== 0) throw new KafkaError(av.errorCode, 'ApiVersions');
    for (const k of av.apiKeys) this.versions.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
  }

  /** SaslHandshake, then SaslAuthenticate until the mechanism is done (also re-authenticates, KIP-368). */
  authenticate(credentials: SaslClientCredentials | undefined): Promise<{ sessionLifetimeMs: bigint }> {
    if (!credentials) return Promise.reject(new Error('SASL needs sasl.mechanism and sasl.jaas.config (username and password, or a token)'));
    return saslAuthenticate(this.conn, credentials);
  }

  /** The version to use for an API (the CLI's preferred one, within what the broker supports). */
  versionFor(apiKey: ApiKeyNumber): number {
    const r = this.versions.get(Number(apiKey));
    const codec = apiCodecs[apiKey];
    if (!r) throw new Error(`the broker does not support ${codec.name}`);
    const want = PREFERRED[Number(apiKey)] ?? Math.min(r.max, codec.maxVersion);
    return Math.max(r.min, Math.min(want, r.max));
  }

  supports(apiKey: ApiKeyNumber): boolean {
    return this.versions.has(Number(apiKey));
  }

  /** Sends a request at the negotiated version. */
  request<K extends ApiKeyNumber>(apiKey: K, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    return this.send(apiKey, this.versionFor(apiKey), body);
  }

  send<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    return this.conn.send(apiKey, version, body);
  }

  close(): void {
    this.conn.close();
  }
}
