/**
 * A minimal pipelined Kafka-protocol client connection for the benchmarks, built on Samsa's own
 * generated codecs (apiCodecs), request/response headers, Writer/Reader and FrameDecoder.
 *
 * - `request(apiKey, version, body)` encodes with the generated codec and resolves with the
 *   decoded response; any number of requests may be in flight (the broker answers in order per
 *   connection, so responses are matched FIFO and the correlation id is checked).
 * - `sendFrame(frame)` sends an already-encoded request frame (size prefix included, correlation
 *   id patched in place at byte 8) and resolves with the raw response payload; the load generator
 *   uses it to send pre-built Produce requests without re-encoding them.
 *
 * Only for benchmarks: talks to 127.0.0.1, every wait is bounded by the caller.
 */
import { connect, type Socket } from 'node:net';
import { apiCodecs, type ApiTypes } from '../../src/protocol/generated/api-table.js';
import { readResponseHeader, responseHeaderFlexible, writeRequestHeader } from '../../src/protocol/headers.js';
import { FrameDecoder } from '../../src/protocol/framing.js';
import { Reader } from '../../src/protocol/reader.js';
import { Writer } from '../../src/protocol/writer.js';

export const CLIENT_ID = 'samsa-bench';

interface Pending {
  correlationId: number;
  resolve(payload: Buffer): void;
  reject(err: Error): void;
}

type ApiKeyOf = keyof ApiTypes;

function isFlexible(apiKey: number, version: number): boolean {
  const codec = apiCodecs[apiKey as ApiKeyOf];
  return codec.flexibleFrom >= 0 && version >= codec.flexibleFrom;
}

/** Encodes a complete request frame (int32 size prefix included). */
export function encodeRequest<K extends ApiKeyOf>(apiKey: K, version: number, correlationId: number, body: ApiTypes[K]['request']): Buffer {
  const codec = apiCodecs[apiKey];
  const w = new Writer(1024);
  w.int32(0);
  writeRequestHeader(w, { apiKey, apiVersion: version, correlationId, clientId: CLIENT_ID }, isFlexible(apiKey, version));
  codec.writeRequest(w, version, body);
  const buf = w.toBuffer();
  buf.writeInt32BE(buf.length - 4, 0);
  return buf;
}

/** Decodes a response payload (frame without its size prefix). */
export function decodeResponse<K extends ApiKeyOf>(apiKey: K, version: number, payload: Buffer): ApiTypes[K]['response'] {
  const r = new Reader(payload);
  readResponseHeader(r, responseHeaderFlexible(apiKey, isFlexible(apiKey, version)));
  return apiCodecs[apiKey].readResponse(r, version);
}

export class KafkaConn {
  private readonly decoder = new FrameDecoder(1 << 30, 4);
  private readonly pending: Pending[] = [];
  private nextCorrelationId = 1;
  private closedErr: Error | null = null;
  /** Bytes received (frames, size prefixes included). */
  bytesIn = 0;

  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.failAll(err));
    socket.on('close', () => this.failAll(new Error('connection closed')));
  }

  /** `localAddress`: the address to connect from (e.g. 127.0.0.2, for host-based ACLs). */
  static connect(host: string, port: number, timeoutMs = 5000, localAddress?: string): Promise<KafkaConn> {
    return new Promise((resolve, reject) => {
      const s = connect({ host, port, ...(localAddress ? { localAddress } : {}) });
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Error(`connect ${host}:${port} timed out`));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(timer);
        s.removeAllListeners('error');
        resolve(new KafkaConn(s));
      });
      s.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  get inFlight(): number {
    return this.pending.length;
  }

  private onData(chunk: Buffer): void {
    this.bytesIn += chunk.length;
    let frames: Buffer[];
    try {
      frames = this.decoder.push(chunk);
    } catch (err) {
      this.failAll(err as Error);
      this.socket.destroy();
      return;
    }
    for (const f of frames) {
      const p = this.pending.shift();
      if (!p) {
        this.failAll(new Error('response without a request'));
        this.socket.destroy();
        return;
      }
      const cid = f.readInt32BE(0);
      if (cid !== p.correlationId) {
        p.reject(new Error(`correlation id ${cid}, expected ${p.correlationId}`));
        this.failAll(new Error('out-of-order response'));
        this.socket.destroy();
        return;
      }
      p.resolve(f);
    }
  }

  private failAll(err: Error): void {
    if (!this.closedErr) this.closedErr = err;
    const list = this.pending.splice(0);
    for (const p of list) p.reject(err);
  }

  /** Sends a pre-encoded frame (size prefix included); patches its correlation id. Resolves with the response payload. */
  sendFrame(frame: Buffer, expectResponse = true): Promise<Buffer> {
    if (this.closedErr) return Promise.reject(this.closedErr);
    const correlationId = this.nextCorrelationId++ & 0x7fffffff;
    frame.writeInt32BE(correlationId, 8);
    if (!expectResponse) {
      this.socket.write(frame);
      return Promise.resolve(Buffer.alloc(0));
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.push({ correlationId, resolve, reject });
      this.socket.write(frame);
    });
  }

  async request<K extends ApiKeyOf>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    const frame = encodeRequest(apiKey, version, 0, body);
    const payload = await this.sendFrame(frame);
    return decodeResponse(apiKey, version, payload);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Creates topics (CreateTopics v7); existing topics are fine. Throws on any other error. */
export async function createTopics(conn: KafkaConn, topics: { name: string; partitions: number; configs?: Record<string, string> }[]): Promise<void> {
  const res = await conn.request(19, 7, {
    topics: topics.map((t) => ({
      name: t.name,
      numPartitions: t.partitions,
      replicationFactor: 1,
      assignments: [],
      configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
    })),
    timeoutMs: 30000,
    validateOnly: false,
  });
  for (const t of res.topics) {
    // 36 = TOPIC_ALREADY_EXISTS
    if (t.errorCode !== 0 && t.errorCode !== 36) throw new Error(`CreateTopics ${t.name}: error ${t.errorCode} ${t.errorMessage ?? ''}`);
  }
}

/** ApiVersions v3 round trip (what a client sends first). */
export async function apiVersions(conn: KafkaConn): Promise<number> {
  const res = await conn.request(18, 3, { clientSoftwareName: CLIENT_ID, clientSoftwareVersion: '0.1.0' });
  return res.errorCode;
}
