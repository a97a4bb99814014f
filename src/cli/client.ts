/**
 * A small Kafka client for the `samsa` CLI, built on the generated codecs: one connection to the
 * bootstrap broker (Samsa is a single node), pipelined requests matched by correlation id, the
 * API version of each request chosen from the broker's ApiVersions answer.
 */
import net from 'node:net';
import tls from 'node:tls';
import { saslClient, type SaslClientCredentials } from '../security/sasl/client.js';
import { apiCodecs, type ApiTypes } from '../protocol/generated/api-table.js';
import { errorName } from '../protocol/generated/error-codes.js';
import { decodeResponse, encodeRequest, type ApiKeyNumber } from '../protocol/wire.js';

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

interface Pending {
  apiKey: ApiKeyNumber;
  version: number;
  resolve: (body: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
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
  private buf: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, Pending>();
  private correlationId = 1;
  private versions = new Map<number, { min: number; max: number }>();
  private failure: Error | null = null;

  private constructor(private readonly socket: net.Socket, private readonly opts: Required<ClientOptions>) {
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Error(`connection to ${opts.bootstrap} closed`)));
  }

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

  private static async connectOne(options: ClientOptions): Promise<KafkaClient> {
    const security = options.security ?? { protocol: 'PLAINTEXT' };
    const opts: Required<ClientOptions> = {
      bootstrap: options.bootstrap ?? 'localhost:9092', clientId: options.clientId ?? 'samsa-cli', requestTimeoutMs: options.requestTimeoutMs ?? 30000, security,
    };
    const { host, port } = parseHostPort(opts.bootstrap);
    const useTls = security.protocol === 'SSL' || security.protocol === 'SASL_SSL';
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = useTls
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...security.tls })
        : net.connect({ host, port });
      s.setNoDelay(true);
      s.once(useTls ? 'secureConnect' : 'connect', () => { s.off('error', reject); resolve(s); });
      s.once('error', (e: NodeJS.ErrnoException) => {
        reject(e.code === 'ECONNREFUSED'
          ? new Error(`cannot connect to ${opts.bootstrap}: nothing is listening there (start a broker with 'samsa start', or pass --bootstrap host:port)`)
          : new Error(`cannot connect to ${opts.bootstrap}: ${e.message}`));
      });
    });
    const c = new KafkaClient(socket, opts);
    const av = await c.send(18, 3, { clientSoftwareName: 'samsa-cli', clientSoftwareVersion: '0.1.0' });
    if (av.errorCode !== 0) throw new KafkaError(av.errorCode, 'ApiVersions');
    for (const k of av.apiKeys) c.versions.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
    if (security.protocol === 'SASL_PLAINTEXT' || security.protocol === 'SASL_SSL') {
      try {
        await c.authenticate(security.sasl);
      } catch (err) {
        c.close();
        throw err;
      }
    }
    return c;
  }

  /** SaslHandshake v1, then SaslAuthenticate v2 until the mechanism is done (also re-authenticates). */
  async authenticate(credentials: SaslClientCredentials | undefined): Promise<{ sessionLifetimeMs: bigint }> {
    if (!credentials) throw new Error('SASL needs sasl.mechanism and sasl.jaas.config (username and password, or a token)');
    const hs = await this.send(17, 1, { mechanism: credentials.mechanism.toUpperCase() });
    if (hs.errorCode !== 0) throw new KafkaError(hs.errorCode, `SASL mechanism ${credentials.mechanism} is not enabled; the broker offers ${hs.mechanisms.join(', ')}`);
    const mech = saslClient(credentials);
    let token: Buffer | null = mech.initial();
    let lifetime = 0n;
    while (token !== null) {
      const r = await this.send(36, 2, { authBytes: token });
      if (r.errorCode !== 0) throw new KafkaError(r.errorCode, r.errorMessage);
      lifetime = r.sessionLifetimeMs;
      token = mech.respond(r.authBytes);
    }
    return { sessionLifetimeMs: lifetime };
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
    if (this.failure) return Promise.reject(this.failure);
    const cid = this.correlationId++;
    const payload = encodeRequest(apiKey, version, cid, this.opts.clientId, body);
    const size = Buffer.alloc(4);
    size.writeInt32BE(payload.length);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(cid);
        reject(new Error(`${apiCodecs[apiKey].name} request timed out after ${this.opts.requestTimeoutMs} ms`));
      }, this.opts.requestTimeoutMs);
      this.pending.set(cid, { apiKey, version, resolve: resolve as (b: unknown) => void, reject, timer });
      this.socket.write(Buffer.concat([size, payload]));
    });
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    while (this.buf.length >= 4) {
      const size = this.buf.readInt32BE(0);
      if (this.buf.length < 4 + size) return;
      const frame = this.buf.subarray(4, 4 + size);
      this.buf = this.buf.subarray(4 + size);
      const cid = frame.readInt32BE(0);
      const p = this.pending.get(cid);
      if (!p) continue;
      this.pending.delete(cid);
      clearTimeout(p.timer);
      try {
        p.resolve(decodeResponse(p.apiKey, p.version, frame).body);
      } catch (err) {
        p.reject(err as Error);
      }
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }

  close(): void {
    this.failure ??= new Error('client closed');
    this.socket.destroy();
  }
}
