/**
 * Shared pieces of Confluent's REST Proxy v2 API (v2.ts and the v2-*.ts files beside it): the v2
 * media types and embedded formats, JSON bodies (including a GET's body, which the HTTP listener
 * does not read: `GET .../offsets` carries one), 204 answers, and Confluent's error codes with
 * the mapping of Kafka error codes onto them.
 */
import { RestProxyError, sendRestJson, type RestProxyRequest } from './rest-common.js';

/** One record of a v2 produce request, serialized, with its requested partition. */
export interface OutRecord {
  key: Buffer | null;
  value: Buffer | null;
  partition: number | null;
}
import { errorName, ErrorCode, isRetriable } from '../../protocol/generated/error-codes.js';

export const V2_JSON = 'application/vnd.kafka.v2+json';

/** The embedded formats of v2 (records' keys and values). */
export type EmbeddedFormat = 'binary' | 'json' | 'avro' | 'jsonschema' | 'protobuf';
export const EMBEDDED_FORMATS: readonly EmbeddedFormat[] = ['binary', 'json', 'avro', 'jsonschema', 'protobuf'];

/** Confluent's error codes (kafka-rest's Errors and rest-utils' KafkaExceptionMapper). */
export const V2Error = {
  BAD_REQUEST: 400,
  INVALID_CONSUMER_CONFIG_CONSTRAINT: 40001,
  KAFKA_AUTHENTICATION: 40101,
  KAFKA_AUTHORIZATION: 40301,
  NOT_FOUND: 404,
  TOPIC_NOT_FOUND: 40401,
  PARTITION_NOT_FOUND: 40402,
  CONSUMER_INSTANCE_NOT_FOUND: 40403,
  CONSUMER_FORMAT_MISMATCH: 40601,
  CONSUMER_ALREADY_EXISTS: 40902,
  ILLEGAL_STATE: 40903,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CONSTRAINT_VIOLATION: 42200,
  INVALID_CONSUMER_CONFIG: 42204,
  KAFKA_ERROR: 50002,
  KAFKA_RETRIABLE_ERROR: 50003,
} as const;

export const topicNotFound = () => new RestProxyError(404, V2Error.TOPIC_NOT_FOUND, 'Topic not found.');
export const partitionNotFound = () => new RestProxyError(404, V2Error.PARTITION_NOT_FOUND, 'Partition not found.');
export const instanceNotFound = () => new RestProxyError(404, V2Error.CONSUMER_INSTANCE_NOT_FOUND, 'Consumer instance not found.');
export const illegalState = (message: string) => new RestProxyError(409, V2Error.ILLEGAL_STATE, `Illegal state: ${message}`);
export const unprocessable = (message: string) => new RestProxyError(422, V2Error.CONSTRAINT_VIOLATION, message);

/** The embedded format a media type names (`application/vnd.kafka.json.v2+json` → json), or null. */
export function embeddedFormatOf(mediaTypes: string): EmbeddedFormat | null {
  const m = /application\/vnd\.kafka\.(binary|json|avro|jsonschema|protobuf)\.v2\+json/i.exec(mediaTypes);
  return m ? (m[1].toLowerCase() as EmbeddedFormat) : null;
}

/**
 * The Content-Type of a v2 answer: Confluent's `application/vnd.kafka.v2+json`, or plain JSON
 * when that is all the client accepts.
 */
export function answerType(r: RestProxyRequest): string {
  const accept = r.req.headers.accept ?? '';
  if (/application\/vnd\.kafka/i.test(accept) || accept === '' || accept.includes('*/*')) return V2_JSON;
  return /application\/json/i.test(accept) ? 'application/json' : V2_JSON;
}

export function sendV2(r: RestProxyRequest, status: number, value: unknown, contentType = answerType(r)): void {
  sendRestJson(r.res, status, value, contentType);
}

/** 204 No Content (what Confluent's void resources answer). */
export function sendNoContent(r: RestProxyRequest): void {
  r.res.setHeader('X-Content-Type-Options', 'nosniff');
  r.res.setHeader('Cache-Control', 'no-store');
  r.res.statusCode = 204;
  r.res.end();
}

const MAX_GET_BODY_BYTES = 1024 * 1024;

/** The request body: the listener's for POST, read here for a GET that carries one. */
async function rawBody(r: RestProxyRequest): Promise<string> {
  if (r.body !== '' || r.method !== 'GET') return r.body;
  const h = r.req.headers;
  if (!h['transfer-encoding'] && Number(h['content-length'] ?? 0) <= 0) return '';
  if (r.req.readableEnded) return '';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of r.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_GET_BODY_BYTES) throw new RestProxyError(413, 413, 'request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON body as an object, or null when there is none. A body that is not JSON is 400 (as Jackson's parse errors). */
export async function jsonBody(r: RestProxyRequest): Promise<Record<string, unknown> | null> {
  const text = (await rawBody(r)).trim();
  if (text === '') return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new RestProxyError(400, V2Error.BAD_REQUEST, `Unexpected JSON: ${(err as Error).message}`);
  }
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw unprocessable('The request body must be a JSON object.');
  return v as Record<string, unknown>;
}

/** A `[{topic, partition}]` list from a body field (assignments, seeks, committed offsets). */
export function topicPartitionsOf(v: unknown, field: string): { topic: string; partition: number }[] {
  if (!Array.isArray(v)) throw unprocessable(`${field} may not be null (a list of {topic, partition})`);
  return v.map((e: unknown) => {
    const o = e as Record<string, unknown> | null;
    if (!o || typeof o.topic !== 'string' || o.topic === '' || !Number.isInteger(o.partition) || (o.partition as number) < 0) {
      throw unprocessable(`${field}: every entry needs a topic name and a partition (an integer ≥ 0)`);
    }
    return { topic: o.topic, partition: o.partition as number };
  });
}

/** A produce record's `partition` (null: the partitioner picks; ignored when the path names the partition). */
export function recordPartitionOf(o: Record<string, unknown>, i: number, perRecord: boolean): number | null {
  if (!perRecord || o.partition === undefined || o.partition === null) return null;
  if (!Number.isInteger(o.partition) || (o.partition as number) < 0) throw unprocessable(`records[${i}].partition must be an integer ≥ 0`);
  return o.partition as number;
}

/** A produce request's records: a non-empty list of objects. */
export function produceRecordsOf(body: Record<string, unknown> | null): Record<string, unknown>[] {
  const records = body?.records;
  if (!Array.isArray(records) || records.length === 0) throw unprocessable('records may not be empty');
  records.forEach((rec: unknown, i) => {
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) throw unprocessable(`records[${i}] must be an object`);
  });
  return records as Record<string, unknown>[];
}

/** A Kafka error code as a REST error (Confluent's KafkaExceptionMapper: 401, 403, 500 with 50002/50003). */
export function kafkaError(code: number, message: string | null = null): RestProxyError {
  const text = message ?? kafkaMessage(code);
  if (code === ErrorCode.SASL_AUTHENTICATION_FAILED) return new RestProxyError(401, V2Error.KAFKA_AUTHENTICATION, text);
  if (isAuthorizationError(code)) return new RestProxyError(403, V2Error.KAFKA_AUTHORIZATION, text);
  if (isRetriable(code)) return new RestProxyError(500, V2Error.KAFKA_RETRIABLE_ERROR, `Retriable Kafka error: ${text}`);
  return new RestProxyError(500, V2Error.KAFKA_ERROR, `Kafka error: ${text}`);
}

export function isAuthorizationError(code: number): boolean {
  return code === ErrorCode.TOPIC_AUTHORIZATION_FAILED || code === ErrorCode.GROUP_AUTHORIZATION_FAILED
    || code === ErrorCode.CLUSTER_AUTHORIZATION_FAILED || code === ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
}

/** A short text for a Kafka error code (its name, as the Java client's exception class names it). */
export function kafkaMessage(code: number): string {
  return `${errorName(code)} (Kafka error code ${code})`;
}

/** Sleeps `ms` (unref'd: never keeps the process alive). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}
