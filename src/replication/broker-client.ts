/**
 * The inter-broker client (the part of Kafka's NetworkClient that brokers use to talk to each
 * other): one connection (protocol/kafka-connection.ts) per destination broker, reconnected on the
 * next request after a failure, SASL on each new connection when the inter-broker listener asks
 * for it. Replica fetchers and the forwarding of controller requests (CreateTopics, DeleteTopics,
 * CreatePartitions) use it.
 *
 * Both ends are Samsa brokers of the same release, so requests go at fixed versions chosen by the
 * caller; no ApiVersions round trip. A response frame costs at most one copy (KafkaConnection
 * joins the socket's chunks once per frame): a Fetch response of several MiB is copied once.
 */
import type tls from 'node:tls';
import { saslAuthenticate, type SaslClientCredentials } from '../security/sasl/client.js';
import type { ApiTypes } from '../protocol/generated/api-table.js';
import { KafkaConnection, KafkaConnectionError } from '../protocol/kafka-connection.js';
import type { ApiKeyNumber } from '../protocol/wire.js';
import type { Logger } from '../logger.js';

export interface BrokerAddress {
  host: string;
  port: number;
}

export interface BrokerClientOptions {
  /** Destination node id (for messages). */
  nodeId: number;
  address: BrokerAddress;
  /** client.id of the requests (Kafka's brokers use e.g. "broker-1-fetcher-0"). */
  clientId: string;
  /** How long a request may wait for its response (replica.socket.timeout.ms / request.timeout.ms). */
  requestTimeoutMs: number;
  /** How long a connection attempt may take. */
  connectTimeoutMs?: number;
  logger?: Logger;
  /** The inter-broker listener's TLS and SASL (security/inter-broker.ts); absent: PLAINTEXT. */
  security?: { tls?: tls.ConnectionOptions; sasl?: SaslClientCredentials };
}

/**
 * A request to another broker failed for want of a connection (refused, reset, closed, timed out,
 * not authenticated): the caller may retry. The connection's own error class.
 */
export const BrokerConnectionError = KafkaConnectionError;
export type BrokerConnectionError = KafkaConnectionError;

export class BrokerClient {
  private conn: KafkaConnection | null = null;
  private connecting: Promise<KafkaConnection> | null = null;
  private closed = false;

  constructor(private readonly opts: BrokerClientOptions) {}

  get address(): BrokerAddress {
    return this.opts.address;
  }

  get nodeId(): number {
    return this.opts.nodeId;
  }

  private describe(): string {
    return `broker ${this.opts.nodeId} at ${this.opts.address.host}:${this.opts.address.port}`;
  }

  private connect(): Promise<KafkaConnection> {
    if (this.conn && !this.conn.isClosed) return Promise.resolve(this.conn);
    const sasl = this.opts.security?.sasl;
    this.connecting ??= KafkaConnection.connect({
      ...this.opts.address, tls: this.opts.security?.tls, clientId: this.opts.clientId, label: this.describe(),
      connectTimeoutMs: this.opts.connectTimeoutMs ?? 5000, requestTimeoutMs: this.opts.requestTimeoutMs,
      authenticate: sasl ? (conn) => this.authenticate(conn, sasl) : undefined,
    }).then((conn) => {
      if (this.closed) {
        conn.close();
        throw new KafkaConnectionError(`client for ${this.describe()} is closed`);
      }
      this.conn = conn;
      return conn;
    }).finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** SaslHandshake and SaslAuthenticate on a new connection, before anything else is sent. */
  private async authenticate(conn: KafkaConnection, credentials: SaslClientCredentials): Promise<void> {
    try {
      await saslAuthenticate(conn, credentials);
    } catch (e) {
      throw e instanceof KafkaConnectionError ? e : new KafkaConnectionError(`authenticating to ${this.describe()} failed: ${(e as Error).message}`, { cause: e });
    }
  }

  /** Sends one request at `version`; rejects with BrokerConnectionError on a connection failure or timeout. */
  async send<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request'], timeoutMs = this.opts.requestTimeoutMs): Promise<ApiTypes[K]['response']> {
    if (this.closed) throw new KafkaConnectionError(`client for ${this.describe()} is closed`);
    return (await this.connect()).send(apiKey, version, body, { timeoutMs });
  }

  close(): void {
    this.closed = true;
    this.conn?.close(`client for ${this.describe()} closed`);
    this.conn = null;
  }
}

/**
 * One client per destination broker, addressed from its registration in the metadata cache on
 * the inter-broker listener (inter.broker.listener.name, else the broker's first endpoint). A
 * broker that re-registered with another address gets a new client.
 */
export class BrokerClientPool {
  private readonly clients = new Map<string, BrokerClient>();

  constructor(
    private readonly lookup: (nodeId: number) => BrokerAddress | null,
    private readonly base: Omit<BrokerClientOptions, 'nodeId' | 'address'>,
  ) {}

  /** The client for `nodeId` under `purpose` (separate connections, e.g. per fetcher), or null when it is not registered. */
  get(nodeId: number, purpose = 'default'): BrokerClient | null {
    const address = this.lookup(nodeId);
    const key = `${nodeId}/${purpose}`;
    const existing = this.clients.get(key);
    if (existing && address && existing.address.host === address.host && existing.address.port === address.port) return existing;
    existing?.close();
    this.clients.delete(key);
    if (!address) return null;
    const c = new BrokerClient({ ...this.base, nodeId, address, clientId: `${this.base.clientId}-${purpose}` });
    this.clients.set(key, c);
    return c;
  }

  closeAll(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
