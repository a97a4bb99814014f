/**
 * One client connection to a Kafka-protocol broker: the socket work that every Kafka client in
 * Samsa needs, written once. Used by
 *   - the `samsa` CLI's client (cli/client.ts: bootstrap list, ApiVersions negotiation, SASL),
 *   - the inter-broker client (replication/broker-client.ts: reconnect, pool, SASL; replication's hot path),
 *   - the benchmarks' connection (bench/lib/kafka-conn.ts: pre-encoded frames, the load generator's hot path),
 *   - the tests' wire clients (test/broker/handlers/_admin-wire.ts, test/security/_wire.ts) and the
 *     compatibility probes (compat-tests/probes/wire.ts: raw bytes, frames in arrival order).
 *
 * What it does: connects (plain TCP or TLS, bounded by a connect timeout), runs an injected
 * `authenticate(conn)` step before handing the connection out (SASL lives above protocol/, so the
 * callers bring it), sends requests pipelined (any number in flight), matches responses to
 * requests by correlation id (whatever order they come in), bounds each request by a timeout,
 * and on close (either side, an error, a timeout) rejects everything still waiting.
 *
 * - `send(apiKey, version, body)` encodes with the generated codecs and resolves with the decoded body.
 * - `sendRaw(frame)` sends a pre-encoded frame (size prefix included; a fresh correlation id is
 *   written into it at byte 8, in place) and resolves with the response frame as received
 *   (without its size prefix, response header included).
 * - Both take `{ expectResponse: false }` for requests the broker does not answer (Produce with
 *   acks=0): they resolve once the bytes are written.
 * - `write(bytes)` puts bytes on the socket as they are (malformed frames, several at once), and
 *   with `keepUnmatched`, `receiveUnmatched()` hands out, in arrival order, the frames that answer no
 *   request sent by send/sendRaw (the raw-bytes tests and probes read their answers that way).
 *
 * Responses are gathered as the chunks the socket hands over and joined once per frame
 * (FrameDecoder): a frame within one chunk is a view of it, a frame across chunks costs one copy,
 * so a Fetch response of several MiB is copied at most once.
 */
import net from 'node:net';
import tls from 'node:tls';
import type { ApiTypes } from './generated/api-table.js';
import { apiCodecs } from './generated/api-table.js';
import { FrameDecoder } from './framing.js';
import { decodeResponse, encodeRequestFrame, type ApiKeyNumber } from './wire.js';

/** The connection failed, closed, or a request on it timed out: the request may be retried on a new one. */
export class KafkaConnectionError extends Error {
  /** The socket error's code (ECONNREFUSED, ...) when one caused this. */
  readonly code: string | undefined;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'KafkaConnectionError';
    this.code = (options?.cause as NodeJS.ErrnoException | undefined)?.code;
  }
}

export interface KafkaConnectionOptions {
  host: string;
  port: number;
  /** TLS (tls.connect's options; servername defaults to a host name that is not an IP); absent: plain TCP. */
  tls?: tls.ConnectionOptions;
  /** The local address to connect from (plain TCP; for TLS it goes in `tls`). */
  localAddress?: string;
  /** client.id of the requests `send` encodes (default 'samsa'). */
  clientId?: string | null;
  /** Names the peer in error messages (default host:port). */
  label?: string;
  /** How long connecting (TCP and TLS handshake) may take, in ms (default 10000). */
  connectTimeoutMs?: number;
  /** How long a request may wait for its response, in ms; 0: no limit (default 30000). */
  requestTimeoutMs?: number;
  /** Whether a timed-out request closes the connection, as Kafka's NetworkClient does (default true). */
  closeOnTimeout?: boolean;
  /** Runs on the new connection before connect() resolves (SASL, and what must precede it); a rejection closes it. */
  authenticate?: (conn: KafkaConnection) => Promise<void>;
  /** Keep the frames that answer no pending request for receiveUnmatched() (default: dropped). */
  keepUnmatched?: boolean;
  /** The largest response frame accepted; a larger size closes the connection (default 2 GiB - 1). */
  maxResponseBytes?: number;
}

export interface SendOptions {
  /** This request's timeout in ms (default: the connection's requestTimeoutMs; 0: no limit). */
  timeoutMs?: number;
  /** false: the broker sends no response (Produce acks=0); resolves once the bytes are written. */
  expectResponse?: boolean;
}

/** A request waiting for its response; apiKey -1: resolve with the raw frame. */
interface Pending {
  apiKey: number;
  version: number;
  resolve: (value: any) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

const NO_BYTES = Buffer.alloc(0);

export class KafkaConnection {
  private readonly pending = new Map<number, Pending>();
  private readonly decoder: FrameDecoder;
  private correlationId = 1;
  private failure: Error | null = null;
  private readonly unmatched: Buffer[] = [];
  private readonly unmatchedWaiters: ((f: Buffer | 'closed') => void)[] = [];
  private onClosed!: (reason: Error) => void;
  /** Resolves with the reason once the connection is closed (by either side, an error or close()). */
  readonly closed: Promise<Error> = new Promise((resolve) => { this.onClosed = resolve; });
  /** Bytes received (size prefixes included). */
  bytesIn = 0;

  private constructor(private readonly socket: net.Socket, private readonly opts: KafkaConnectionOptions, readonly label: string) {
    this.decoder = new FrameDecoder(opts.maxResponseBytes ?? 0x7fffffff, 0);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (e) => this.fail(new KafkaConnectionError(`connection to ${label} failed: ${e.message}`, { cause: e })));
    socket.on('close', () => this.fail(new KafkaConnectionError(`connection to ${label} closed`)));
  }

  /** Connects (and authenticates); rejects with KafkaConnectionError when the broker cannot be reached in time. */
  static async connect(opts: KafkaConnectionOptions): Promise<KafkaConnection> {
    const { host, port } = opts;
    const label = opts.label ?? `${host}:${port}`;
    const timeoutMs = opts.connectTimeoutMs ?? 10_000;
    const conn = await new Promise<KafkaConnection>((resolve, reject) => {
      const s = opts.tls
        ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...opts.tls })
        : net.connect({ host, port, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
      s.setNoDelay(true);
      const timer = setTimeout(() => {
        s.destroy();
        reject(new KafkaConnectionError(`connecting to ${label} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      const onError = (e: Error) => {
        clearTimeout(timer);
        reject(new KafkaConnectionError(`cannot connect to ${label}: ${e.message}`, { cause: e }));
      };
      s.once('error', onError);
      s.once(opts.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        s.off('error', onError);
        resolve(new KafkaConnection(s, opts, label));
      });
    });
    if (opts.authenticate) {
      try {
        await opts.authenticate(conn);
      } catch (err) {
        conn.close();
        throw err;
      }
    }
    return conn;
  }

  get isClosed(): boolean {
    return this.failure !== null;
  }

  /** Requests waiting for their response. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Encodes a request, sends it, resolves with the decoded response body. */
  send<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request'], opts?: SendOptions & { expectResponse?: true }): Promise<ApiTypes[K]['response']>;
  send<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request'], opts: SendOptions & { expectResponse: false }): Promise<void>;
  send<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request'], opts?: SendOptions): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const cid = this.nextCorrelationId();
    const frame = encodeRequestFrame(apiKey, version, cid, this.opts.clientId === undefined ? 'samsa' : this.opts.clientId, body);
    return this.exchange(frame, cid, Number(apiKey), version, opts);
  }

  /**
   * Sends a whole pre-encoded request frame (size prefix included), writing a fresh correlation id
   * into it at byte 8 (the caller must not change the frame until it is sent); resolves with the
   * response frame without its size prefix.
   */
  sendRaw(frame: Buffer, opts?: SendOptions): Promise<Buffer> {
    if (this.failure) return Promise.reject(this.failure);
    const cid = this.nextCorrelationId();
    frame.writeInt32BE(cid, 8);
    return this.exchange(frame, cid, -1, 0, opts);
  }

  /** Writes bytes as they are (no correlation bookkeeping); false when the connection is closed. */
  write(bytes: Buffer): boolean {
    if (this.failure) return false;
    this.socket.write(bytes);
    return true;
  }

  /**
   * With `keepUnmatched`: the next frame (without size prefix) that answered no request of
   * send/sendRaw, in arrival order; 'closed' once the connection closed and none is left, 'timeout'
   * after `timeoutMs`.
   */
  receiveUnmatched(timeoutMs: number): Promise<Buffer | 'closed' | 'timeout'> {
    const f = this.unmatched.shift();
    if (f) return Promise.resolve(f);
    if (this.failure) return Promise.resolve('closed');
    if (timeoutMs <= 0) return Promise.resolve('timeout');
    return new Promise((resolve) => {
      const waiter = (x: Buffer | 'closed') => {
        clearTimeout(timer);
        resolve(x);
      };
      const timer = setTimeout(() => {
        const i = this.unmatchedWaiters.indexOf(waiter);
        if (i >= 0) this.unmatchedWaiters.splice(i, 1);
        resolve('timeout');
      }, timeoutMs);
      this.unmatchedWaiters.push(waiter);
    });
  }

  /** Closes the connection; pending requests reject with KafkaConnectionError. */
  close(reason = `connection to ${this.label} closed by the client`): void {
    this.fail(new KafkaConnectionError(reason));
  }

  private nextCorrelationId(): number {
    const cid = this.correlationId++;
    if (this.correlationId > 0x7fffffff) this.correlationId = 1;
    return cid;
  }

  private exchange(frame: Buffer, cid: number, apiKey: number, version: number, opts: SendOptions | undefined): Promise<any> {
    if (opts?.expectResponse === false) {
      const written = apiKey < 0 ? NO_BYTES : undefined;
      return new Promise((resolve, reject) => {
        this.socket.write(frame, (err) => (err ? reject(this.failure ?? new KafkaConnectionError(`write to ${this.label} failed: ${err.message}`, { cause: err })) : resolve(written)));
      });
    }
    const timeoutMs = opts?.timeoutMs ?? this.opts.requestTimeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const timer = timeoutMs > 0 ? setTimeout(() => this.timedOut(cid, apiKey, timeoutMs), timeoutMs) : undefined;
      this.pending.set(cid, { apiKey, version, resolve, reject, timer });
      this.socket.write(frame);
    });
  }

  private timedOut(cid: number, apiKey: number, timeoutMs: number): void {
    const p = this.pending.get(cid);
    if (!p) return;
    this.pending.delete(cid);
    const what = apiKey >= 0 ? apiCodecs[apiKey as ApiKeyNumber].name : `request ${cid}`;
    p.reject(new KafkaConnectionError(`${what} to ${this.label} timed out after ${timeoutMs} ms`));
    // A late response would match nothing; the connection is dropped so that a stalled peer does
    // not keep answering into requests given up on.
    if (this.opts.closeOnTimeout ?? true) this.close(`connection to ${this.label} closed: a request timed out`);
  }

  private onData(chunk: Buffer): void {
    this.bytesIn += chunk.length;
    let frames: Buffer[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.fail(new KafkaConnectionError(`connection to ${this.label} closed: ${(err as Error).message}`, { cause: err }));
      return;
    }
    for (const f of frames) this.deliver(f);
  }

  private deliver(frame: Buffer): void {
    const cid = frame.length >= 4 ? frame.readInt32BE(0) : 0;
    const p = cid !== 0 ? this.pending.get(cid) : undefined;
    if (!p) {
      if (this.opts.keepUnmatched) {
        const w = this.unmatchedWaiters.shift();
        if (w) w(frame);
        else this.unmatched.push(frame);
      }
      return;
    }
    this.pending.delete(cid);
    if (p.timer) clearTimeout(p.timer);
    if (p.apiKey < 0) {
      p.resolve(frame);
      return;
    }
    try {
      p.resolve(decodeResponse(p.apiKey as ApiKeyNumber, p.version, frame).body);
    } catch (err) {
      p.reject(err as Error);
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    this.socket.destroy();
    for (const p of this.pending.values()) {
      if (p.timer) clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    for (const w of this.unmatchedWaiters.splice(0)) w('closed');
    this.onClosed(err);
  }
}
