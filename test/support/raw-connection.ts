/**
 * Raw Kafka frames over a socket (plain or TLS) for the security and robustness tests: a KafkaConnection
 * (src/protocol/kafka-connection.ts) that also writes frames of any bytes (malformed ones, raw
 * SASL v0 tokens) and reads, in arrival order, the frames no request claims (raw token answers).
 */
import type tls from 'node:tls';
import { KafkaConnection, KafkaConnectionError } from '../../src/protocol/kafka-connection.js';
import type { ApiKeyNumber } from '../../src/protocol/wire.js';
import type { ApiTypes } from '../../src/protocol/generated/api-table.js';

export class RawConnection {
  readonly closedPromise: Promise<void>;

  private constructor(private readonly conn: KafkaConnection) {
    this.closedPromise = conn.closed.then(() => undefined);
  }

  static async open(port: number, tlsOptions?: tls.ConnectionOptions): Promise<RawConnection> {
    return new RawConnection(await KafkaConnection.connect({
      host: '127.0.0.1', port, tls: tlsOptions && { servername: 'localhost', ...tlsOptions }, clientId: 'raw-test',
      requestTimeoutMs: 5000, closeOnTimeout: false, keepUnmatched: true,
    }));
  }

  get closed(): boolean {
    return this.conn.isClosed;
  }

  get isClosed(): boolean {
    return this.conn.isClosed;
  }

  /** True when the broker closes the connection within `timeoutMs` without answering anything. */
  async closesWithin(timeoutMs: number): Promise<boolean> {
    const closed = await Promise.race([this.closedPromise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), timeoutMs))]);
    return closed && typeof (await this.conn.receiveUnmatched(0)) === 'string';
  }

  /** Writes bytes as they are (frames already framed, or pieces of one). */
  write(bytes: Buffer): void {
    this.conn.write(bytes);
  }

  /** The next frame no request claimed, or null when the connection closed first (or after `timeoutMs`). */
  async next(timeoutMs = 5000): Promise<Buffer | null> {
    const f = await this.conn.receiveUnmatched(timeoutMs);
    return typeof f === 'string' ? null : f;
  }

  /** Writes `payload` behind a size prefix, whatever it holds. */
  writeFrame(payload: Buffer): void {
    const size = Buffer.alloc(4);
    size.writeInt32BE(payload.length);
    this.conn.write(Buffer.concat([size, payload]));
  }

  /** The decoded response, or null when the connection closed (or nothing came in 5 s). */
  async request<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response'] | null> {
    try {
      return await this.conn.send(apiKey, version, body);
    } catch (err) {
      if (err instanceof KafkaConnectionError) return null;
      throw err;
    }
  }

  close(): void {
    this.conn.close();
  }

  destroy(): void {
    this.conn.close();
  }
}

export const METADATA_ALL = { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
