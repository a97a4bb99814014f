/** Raw Kafka frames over a socket (plain or TLS) for the security tests. */
import net from 'node:net';
import tls from 'node:tls';
import { decodeResponse, encodeRequest, type ApiKeyNumber } from '../../src/protocol/wire.js';
import type { ApiTypes } from '../../src/protocol/generated/api-table.js';

export class RawConnection {
  private buf = Buffer.alloc(0);
  private waiters: ((f: Buffer | null) => void)[] = [];
  private frames: Buffer[] = [];
  closed = false;
  readonly closedPromise: Promise<void>;
  private cid = 1;

  private constructor(readonly socket: net.Socket) {
    let onClosed!: () => void;
    this.closedPromise = new Promise((r) => { onClosed = r; });
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 4 && this.buf.length >= 4 + this.buf.readInt32BE(0)) {
        const size = this.buf.readInt32BE(0);
        const f = this.buf.subarray(4, 4 + size);
        this.buf = this.buf.subarray(4 + size);
        const w = this.waiters.shift();
        if (w) w(f);
        else this.frames.push(f);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w(null);
      onClosed();
    });
  }

  static async open(port: number, tlsOptions?: tls.ConnectionOptions): Promise<RawConnection> {
    const s = await new Promise<net.Socket>((resolve, reject) => {
      const sock = tlsOptions ? tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ...tlsOptions }) : net.connect({ host: '127.0.0.1', port });
      sock.once(tlsOptions ? 'secureConnect' : 'connect', () => resolve(sock));
      sock.once('error', reject);
    });
    return new RawConnection(s);
  }

  /** The next frame, or null when the connection closed first (or after `timeoutMs`). */
  next(timeoutMs = 5000): Promise<Buffer | null> {
    const f = this.frames.shift();
    if (f) return Promise.resolve(f);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(null), timeoutMs);
      this.waiters.push((x) => { clearTimeout(t); resolve(x); });
    });
  }

  writeFrame(payload: Buffer): void {
    const size = Buffer.alloc(4);
    size.writeInt32BE(payload.length);
    this.socket.write(Buffer.concat([size, payload]));
  }

  async request<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response'] | null> {
    this.writeFrame(encodeRequest(apiKey, version, this.cid++, 'raw-test', body));
    const f = await this.next();
    return f === null ? null : decodeResponse(apiKey, version, f).body;
  }

  close(): void {
    this.socket.destroy();
  }
}

export const METADATA_ALL = { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false };
