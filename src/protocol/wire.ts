/**
 * Request/response framing with the generated codecs, for every Kafka client inside Samsa: the
 * socket clients built on kafka-connection.ts (the CLI's, the inter-broker one, the benchmarks'
 * and tests'), the console and the test control's in-process calls (testing/group-view.ts).
 */
import { apiCodecs, type ApiTypes } from './generated/api-table.js';
import { readResponseHeader, responseHeaderFlexible, writeRequestHeader } from './headers.js';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

export type ApiKeyNumber = keyof ApiTypes;

function isFlexible(apiKey: ApiKeyNumber, version: number): boolean {
  const codec = apiCodecs[apiKey];
  return codec.flexibleFrom >= 0 && version >= codec.flexibleFrom;
}

function writeRequest<K extends ApiKeyNumber>(w: Writer, apiKey: K, version: number, correlationId: number, clientId: string | null, body: ApiTypes[K]['request']): void {
  writeRequestHeader(w, { apiKey: Number(apiKey), apiVersion: version, correlationId, clientId }, isFlexible(apiKey, version));
  apiCodecs[apiKey].writeRequest(w, version, body as never);
}

/** One request frame without its 4-byte size prefix. */
export function encodeRequest<K extends ApiKeyNumber>(apiKey: K, version: number, correlationId: number, clientId: string | null, body: ApiTypes[K]['request']): Buffer {
  const w = new Writer(256);
  writeRequest(w, apiKey, version, correlationId, clientId, body);
  return w.toBuffer();
}

/** One whole request frame, its 4-byte size prefix included (what goes on the socket). */
export function encodeRequestFrame<K extends ApiKeyNumber>(apiKey: K, version: number, correlationId: number, clientId: string | null, body: ApiTypes[K]['request']): Buffer {
  const w = new Writer(256);
  w.int32(0);
  writeRequest(w, apiKey, version, correlationId, clientId, body);
  w.patchInt32(0, w.length - 4);
  return w.toBuffer();
}

/** Decodes one response frame (without its size prefix); returns the correlation id and body. */
export function decodeResponse<K extends ApiKeyNumber>(apiKey: K, version: number, frame: Buffer): { correlationId: number; body: ApiTypes[K]['response'] } {
  const r = new Reader(frame);
  const correlationId = readResponseHeader(r, responseHeaderFlexible(Number(apiKey), isFlexible(apiKey, version)));
  const body = apiCodecs[apiKey].readResponse(r, version) as ApiTypes[K]['response'];
  return { correlationId, body };
}
