/**
 * The benchmarks' Kafka connection: src/protocol/kafka-connection.ts with the benchmarks' client
 * id, no request timeout (every wait is bounded by the caller) and the names the benchmarks use.
 *
 * - `request(apiKey, version, body)` encodes with the generated codec and resolves with the
 *   decoded response; any number of requests may be in flight.
 * - `sendFrame(frame)` sends an already-encoded request frame (size prefix included, correlation
 *   id written in place at byte 8) and resolves with the raw response payload; the load generator
 *   uses it to send pre-built Produce requests without re-encoding them.
 *
 * Only for benchmarks: talks to 127.0.0.1.
 */
import type { ApiTypes } from '../../src/protocol/generated/api-table.js';
import { KafkaConnection } from '../../src/protocol/kafka-connection.js';
import { decodeResponse as decode, encodeRequestFrame } from '../../src/protocol/wire.js';

export const CLIENT_ID = 'samsa-bench';

type ApiKeyOf = keyof ApiTypes;
const NO_RESPONSE = { expectResponse: false } as const;

/** Encodes a complete request frame (int32 size prefix included). */
export function encodeRequest<K extends ApiKeyOf>(apiKey: K, version: number, correlationId: number, body: ApiTypes[K]['request']): Buffer {
  return encodeRequestFrame(apiKey, version, correlationId, CLIENT_ID, body);
}

/** Decodes a response payload (frame without its size prefix). */
export function decodeResponse<K extends ApiKeyOf>(apiKey: K, version: number, payload: Buffer): ApiTypes[K]['response'] {
  return decode(apiKey, version, payload).body;
}

export class KafkaConn {
  private constructor(private readonly conn: KafkaConnection) {}

  /** `localAddress`: the address to connect from (e.g. 127.0.0.2, for host-based ACLs). */
  static async connect(host: string, port: number, timeoutMs = 5000, localAddress?: string): Promise<KafkaConn> {
    return new KafkaConn(await KafkaConnection.connect({ host, port, localAddress, clientId: CLIENT_ID, connectTimeoutMs: timeoutMs, requestTimeoutMs: 0 }));
  }

  /** Bytes received (frames, size prefixes included). */
  get bytesIn(): number {
    return this.conn.bytesIn;
  }

  get inFlight(): number {
    return this.conn.inFlight;
  }

  /** Sends a pre-encoded frame (size prefix included); patches its correlation id. Resolves with the response payload. */
  sendFrame(frame: Buffer, expectResponse = true): Promise<Buffer> {
    return expectResponse ? this.conn.sendRaw(frame) : this.conn.sendRaw(frame, NO_RESPONSE);
  }

  request<K extends ApiKeyOf>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    return this.conn.send(apiKey, version, body);
  }

  close(): void {
    this.conn.close();
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
  const res = await conn.request(18, 3, { clientSoftwareName: CLIENT_ID, clientSoftwareVersion: '0.1.0', clusterId: null, nodeId: -1 });
  return res.errorCode;
}
