/**
 * A minimal Kafka wire client for the admin handler tests: one connection, one request at a
 * time, encoded and decoded with the generated codecs (so the tests cover codec + dispatch +
 * handler for the exact version asked for).
 */
import net from 'node:net';
import { apiCodecs, type ApiTypes } from '../../../src/protocol/generated/api-table.js';
import { readResponseHeader, responseHeaderFlexible, writeRequestHeader } from '../../../src/protocol/headers.js';
import { Reader } from '../../../src/protocol/reader.js';
import { Writer } from '../../../src/protocol/writer.js';
import { startBroker, type RunningBroker, type StartBrokerOptions } from '../../../src/testing/start-broker.js';

export class WireClient {
  private buf = Buffer.alloc(0);
  private waiting: ((frame: Buffer) => void) | null = null;
  private failure: Error | null = null;
  private correlationId = 1;

  private constructor(private readonly socket: net.Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.drain();
    });
    socket.on('error', (e) => { this.failure = e; });
    socket.on('close', () => { this.failure ??= new Error('connection closed'); this.waiting = null; });
  }

  static connect(port: number, host = '127.0.0.1'): Promise<WireClient> {
    return new Promise((resolve, reject) => {
      const s = net.connect({ port, host }, () => resolve(new WireClient(s)));
      s.once('error', reject);
    });
  }

  private drain(): void {
    if (!this.waiting || this.buf.length < 4) return;
    const size = this.buf.readInt32BE(0);
    if (this.buf.length < 4 + size) return;
    const frame = this.buf.subarray(4, 4 + size);
    this.buf = this.buf.subarray(4 + size);
    const w = this.waiting;
    this.waiting = null;
    w(frame);
  }

  /** Sends one request of `version` and returns the decoded response. */
  async send<K extends keyof ApiTypes>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    if (this.failure) throw this.failure;
    const codec = apiCodecs[apiKey];
    const flexible = codec.flexibleFrom >= 0 && version >= codec.flexibleFrom;
    const w = new Writer(256);
    const correlationId = this.correlationId++;
    writeRequestHeader(w, { apiKey: Number(apiKey), apiVersion: version, correlationId, clientId: 'admin-test' }, flexible);
    codec.writeRequest(w, version, body as never);
    const payload = w.toBuffer();
    const size = Buffer.alloc(4);
    size.writeInt32BE(payload.length);
    const frame = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no response to api ${String(apiKey)} v${version}`)), 4000);
      this.waiting = (f) => { clearTimeout(timer); resolve(f); };
      this.socket.write(Buffer.concat([size, payload]));
      this.drain();
    });
    const r = new Reader(frame);
    const got = readResponseHeader(r, responseHeaderFlexible(Number(apiKey), flexible));
    if (got !== correlationId) throw new Error(`correlation id ${got}, expected ${correlationId}`);
    return codec.readResponse(r, version) as ApiTypes[K]['response'];
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * Registers a suite's hooks: before, a broker on port 0 and a WireClient to it, handed to `ready`
 * (which may add topics); after, both closed.
 */
export function withBroker(
  suite: { before(fn: () => Promise<void>): void; after(fn: () => Promise<void>): void },
  options: StartBrokerOptions,
  ready: (b: RunningBroker, c: WireClient) => Promise<void> | void,
): void {
  let b: RunningBroker | undefined;
  let c: WireClient | undefined;
  suite.before(async () => {
    b = await startBroker(options);
    c = await WireClient.connect(b.port);
    await ready(b, c);
  });
  suite.after(async () => {
    c?.close();
    await b?.stop();
  });
}
