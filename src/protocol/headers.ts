/**
 * Request and response headers (RequestHeader.json / ResponseHeader.json).
 *
 * Request header v1 (api key, api version, correlation id, nullable int16 client id) for
 * non-flexible versions, v2 (v1 + tagged fields; client id stays a classic string) from the
 * API's first flexible version. Response header v0 (correlation id) or v1 (+ tagged fields),
 * except ApiVersions whose response header is always v0 (ApiVersionsResponse.json), so a client
 * can read it before it knows which versions the broker speaks.
 */
import { Reader } from './reader.js';
import type { Writer } from './writer.js';

export const API_VERSIONS_KEY = 18;

export interface RequestHeader {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
}

/** Reads the fixed part of a request header (api key, version, correlation id, client id). */
export function readRequestHeaderStart(r: Reader): RequestHeader {
  const apiKey = r.int16();
  const apiVersion = r.int16();
  const correlationId = r.int32();
  const clientId = r.nullableString();
  return { apiKey, apiVersion, correlationId, clientId };
}

/** After readRequestHeaderStart: header v2 (flexible request) carries a tagged-field section. */
export function readRequestHeaderTags(r: Reader, flexible: boolean): void {
  if (flexible) r.taggedFields();
}

export function writeRequestHeader(w: Writer, h: RequestHeader, flexible: boolean): void {
  w.int16(h.apiKey);
  w.int16(h.apiVersion);
  w.int32(h.correlationId);
  w.nullableString(h.clientId);
  if (flexible) w.uvarint(0);
}

/** Response header version: 1 for flexible versions, 0 otherwise, and always 0 for ApiVersions. */
export function responseHeaderFlexible(apiKey: number, flexible: boolean): boolean {
  return flexible && apiKey !== API_VERSIONS_KEY;
}

export function writeResponseHeader(w: Writer, correlationId: number, flexibleHeader: boolean): void {
  w.int32(correlationId);
  if (flexibleHeader) w.uvarint(0);
}

export function readResponseHeader(r: Reader, flexibleHeader: boolean): number {
  const correlationId = r.int32();
  if (flexibleHeader) r.taggedFields();
  return correlationId;
}
