/**
 * The inter-broker client (the part of Kafka's NetworkClient that brokers use to talk to each
 * other): one TCP connection per destination broker, pipelined requests matched by correlation id,
 * reconnecting on the next request after a failure. Replica fetchers and the forwarding of
 * controller requests (CreateTopics, DeleteTopics, CreatePartitions) use it.
 *
 * Both ends are Samsa brokers of the same release, so requests go at fixed versions chosen by the
 * caller; no ApiVersions round trip. Response frames are gathered as the chunks the socket hands
 * over and concatenated once per frame: a Fetch response of several MiB costs one copy.
 */
import net from 'node:net';
import tls from 'node:tls';
import { saslClient, type SaslClientCredentials } from '../security/sasl/client.js';
import { apiCodecs, type ApiTypes } from '../protocol/generated/api-table.js';
import { decodeResponse, encodeRequest, type ApiKeyNumber } from '../protocol/wire.js';
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

interface Pending {
  apiKey: ApiKeyNumber;
  version: number;
  resolve: (body: unknown) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

export class BrokerConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BrokerConnectionError';
  }
}

export class BrokerClient {
  private socket: net.Socket | null = null;
  private connecting: Promise<net.Socket> | null = null;
  private readonly pending = new Map<number, Pending>();
  private correlationId = 1;
  private closed = false;
  // Response bytes not yet consumed: chunks as received, their total length.
  private chunks: Buffer[] = [];
  private buffered = 0;

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

  private connect(): Promise<net.Socket> {
    if (this.socket && !this.socket.destroyed) return Promise.resolve(this.socket);
    this.connecting ??= new Promise<net.Socket>((resolve, reject) => {
      const { host, port } = this.opts.address;
      const secure = this.opts.security?.tls;
      const s = secure ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...secure }) : net.connect({ host, port });
      s.setNoDelay(true);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new BrokerConnectionError(`connecting to ${this.describe()} timed out`));
      }, this.opts.connectTimeoutMs ?? 5000);
      s.once(secure ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        s.off('error', onError);
        this.chunks = [];
        this.buffered = 0;
        s.on('data', (d: Buffer) => this.onData(d));
        s.on('error', (e) => this.failAll(new BrokerConnectionError(`connection to ${this.describe()} failed: ${e.message}`), s));
        s.on('close', () => this.failAll(new BrokerConnectionError(`connection to ${this.describe()} closed`), s));
        const sasl = this.opts.security?.sasl;
        if (!sasl) {
          this.socket = s;
          resolve(s);
          return;
        }
        this.authenticate(s, sasl).then(() => {
          this.socket = s;
          resolve(s);
        }, (e: Error) => {
          s.destroy();
          reject(e instanceof BrokerConnectionError ? e : new BrokerConnectionError(`authenticating to ${this.describe()} failed: ${e.message}`));
        });
      });
      const onError = (e: Error) => {
        clearTimeout(timer);
        reject(new BrokerConnectionError(`cannot connect to ${this.describe()}: ${e.message}`));
      };
      s.once('error', onError);
    }).finally(() => {
      this.connecting = null;
    });
    return this.connecting;
  }

  /** SaslHandshake v1 and SaslAuthenticate v2 on a new connection, before anything else is sent. */
  private async authenticate(socket: net.Socket, credentials: SaslClientCredentials): Promise<void> {
    const hs = await this.sendOn(socket, 17, 1, { mechanism: credentials.mechanism }, this.opts.requestTimeoutMs);
    if (hs.errorCode !== 0) throw new BrokerConnectionError(`${this.describe()} does not offer SASL mechanism ${credentials.mechanism} (error ${hs.errorCode}; it offers ${hs.mechanisms.join(', ')})`);
    const mech = saslClient(credentials);
    let token: Buffer | null = mech.initial();
    while (token !== null) {
      const r = await this.sendOn(socket, 36, 2, { authBytes: token }, this.opts.requestTimeoutMs);
      if (r.errorCode !== 0) throw new BrokerConnectionError(`SASL authentication to ${this.describe()} failed: ${r.errorMessage ?? r.errorCode}`);
      token = mech.respond(r.authBytes);
    }
  }

  /** Sends one request at `version`; rejects with BrokerConnectionError on a connection failure or timeout. */
  async send<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request'], timeoutMs = this.opts.requestTimeoutMs): Promise<ApiTypes[K]['response']> {
    if (this.closed) throw new BrokerConnectionError(`client for ${this.describe()} is closed`);
    return this.sendOn(await this.connect(), apiKey, version, body, timeoutMs);
  }

  private sendOn<K extends ApiKeyNumber>(socket: net.Socket, apiKey: K, version: number, body: ApiTypes[K]['request'], timeoutMs: number): Promise<ApiTypes[K]['response']> {
    const cid = this.correlationId++;
    if (this.correlationId > 0x7fffffff) this.correlationId = 1;
    const payload = encodeRequest(apiKey, version, cid, this.opts.clientId, body);
    const size = Buffer.allocUnsafe(4);
    size.writeInt32BE(payload.length);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        // A late response would be matched to nothing; the connection is dropped so that a
        // stalled peer does not keep answering into a request we gave up on.
        this.pending.delete(cid);
        reject(new BrokerConnectionError(`${apiCodecs[apiKey].name} to ${this.describe()} timed out after ${timeoutMs} ms`));
        socket.destroy();
      }, timeoutMs);
      this.pending.set(cid, { apiKey, version, resolve: resolve as (b: unknown) => void, reject, timer });
      socket.write(size);
      socket.write(payload);
    });
  }

  private onData(d: Buffer): void {
    this.chunks.push(d);
    this.buffered += d.length;
    while (this.buffered >= 4) {
      const head = this.chunks[0].length >= 4 ? this.chunks[0] : this.flatten();
      const size = head.readInt32BE(0);
      if (this.buffered < 4 + size) return;
      const all = this.flatten();
      const frame = all.subarray(4, 4 + size);
      const rest = all.subarray(4 + size);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
      this.deliver(frame);
    }
  }

  private flatten(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
    return this.chunks[0];
  }

  private deliver(frame: Buffer): void {
    const cid = frame.readInt32BE(0);
    const p = this.pending.get(cid);
    if (!p) return;
    this.pending.delete(cid);
    clearTimeout(p.timer);
    try {
      p.resolve(decodeResponse(p.apiKey, p.version, frame).body);
    } catch (err) {
      p.reject(err as Error);
    }
  }

  private failAll(err: Error, socket: net.Socket): void {
    if (this.socket === socket) this.socket = null;
    socket.destroy();
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
  }

  close(): void {
    this.closed = true;
    if (this.socket) this.failAll(new BrokerConnectionError(`client for ${this.describe()} closed`), this.socket);
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
