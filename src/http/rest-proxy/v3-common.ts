/**
 * What the REST Proxy v3 routes share: links and resource names as Confluent builds them
 * (`metadata.self`, `metadata.resource_name` = `crn:///kafka=<cluster>/topic=<t>`, `related`
 * links), Kafka error codes mapped to Confluent's REST error codes (its KafkaExceptionMapper:
 * 40403 for an unknown topic or partition, 40301 for a denied authorization, 40002 for bad input
 * Kafka refused, 50003 for a retriable error, 50002 for the rest), JSON bodies, and the
 * in-process Metadata request the read endpoints start from (so a principal sees the topics its
 * ACLs let it describe, as a Kafka client would).
 */
import { RestProxyError, sendRestJson, type RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import { ErrorCode, errorName, isRetriable } from '../../protocol/generated/error-codes.js';
import type { MetadataResponse, MetadataResponseTopic } from '../../protocol/generated/messages/metadata-response.js';

export { ZERO_UUID } from '../../protocol/reader.js';
import { ZERO_UUID } from '../../protocol/reader.js';

/** Confluent's "HTTP 404 Not Found" (an unknown path, or an entity looked up and absent). */
export function notFound(message = 'HTTP 404 Not Found'): RestProxyError {
  return new RestProxyError(404, 404, message);
}

/** Jersey's answer to a method the resource has no handler for. */
export function methodNotAllowed(): RestProxyError {
  return new RestProxyError(405, 405, 'HTTP 405 Method Not Allowed');
}

/** A body or parameter that cannot be read (Jackson's mapping errors answer 400 / 400). */
export function badRequest(message: string): RestProxyError {
  return new RestProxyError(400, 400, message);
}

/** Kafka's default exception messages for the error codes the proxy meets most. */
const KAFKA_MESSAGES: Record<number, string> = {
  [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]: 'This server does not host this topic-partition.',
  [ErrorCode.LEADER_NOT_AVAILABLE]: 'There is no leader for this topic-partition as we are in the middle of a leadership election.',
  [ErrorCode.NOT_LEADER_OR_FOLLOWER]: 'For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.',
  [ErrorCode.REQUEST_TIMED_OUT]: 'The request timed out.',
  [ErrorCode.BROKER_NOT_AVAILABLE]: 'The broker is not available.',
  [ErrorCode.MESSAGE_TOO_LARGE]: 'The request included a message larger than the max message size the server will accept.',
  [ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]: 'The coordinator is loading and hence can\'t process requests.',
  [ErrorCode.COORDINATOR_NOT_AVAILABLE]: 'The coordinator is not available.',
  [ErrorCode.NOT_COORDINATOR]: 'This is not the correct coordinator.',
  [ErrorCode.INVALID_TOPIC_EXCEPTION]: 'The request attempted to perform an operation on an invalid topic.',
  [ErrorCode.RECORD_LIST_TOO_LARGE]: 'The request included message batch larger than the configured segment size on the server.',
  [ErrorCode.NOT_ENOUGH_REPLICAS]: 'Messages are rejected since there are fewer in-sync replicas than required.',
  [ErrorCode.TOPIC_AUTHORIZATION_FAILED]: 'Topic authorization failed.',
  [ErrorCode.GROUP_AUTHORIZATION_FAILED]: 'Group authorization failed.',
  [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]: 'Cluster authorization failed.',
  [ErrorCode.INVALID_TIMESTAMP]: 'The timestamp of the message is out of acceptable range.',
  [ErrorCode.TOPIC_ALREADY_EXISTS]: 'Topic with this name already exists.',
  [ErrorCode.INVALID_PARTITIONS]: 'Number of partitions is below 1.',
  [ErrorCode.INVALID_REPLICATION_FACTOR]: 'Replication factor is below 1 or larger than the number of available brokers.',
  [ErrorCode.INVALID_REPLICA_ASSIGNMENT]: 'Replica assignment is invalid.',
  [ErrorCode.INVALID_CONFIG]: 'Configuration is invalid.',
  [ErrorCode.INVALID_REQUEST]: 'This most likely occurs because of a request being malformed by the client library or the message was sent to an incompatible broker. See the broker logs for more details.',
  [ErrorCode.POLICY_VIOLATION]: 'Request parameters do not satisfy the configured policy.',
  [ErrorCode.GROUP_ID_NOT_FOUND]: 'The group id does not exist.',
  [ErrorCode.INVALID_RECORD]: 'This record has failed the validation on broker and hence will be rejected.',
  [ErrorCode.UNKNOWN_SERVER_ERROR]: 'The server experienced an unexpected error when processing the request.',
};

/** The HTTP status and Confluent error code a Kafka error answers with. */
export function restCodeOf(code: number): { status: number; errorCode: number } {
  switch (code) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return { status: 404, errorCode: 40403 };
    case ErrorCode.TOPIC_AUTHORIZATION_FAILED:
    case ErrorCode.GROUP_AUTHORIZATION_FAILED:
    case ErrorCode.CLUSTER_AUTHORIZATION_FAILED:
    case ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED:
    case ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED:
      return { status: 403, errorCode: 40301 };
    case ErrorCode.SASL_AUTHENTICATION_FAILED:
      return { status: 401, errorCode: 40101 };
    case ErrorCode.BROKER_NOT_AVAILABLE:
      return { status: 503, errorCode: 50302 };
    case ErrorCode.INVALID_REPLICATION_FACTOR:
    case ErrorCode.SECURITY_DISABLED:
    case ErrorCode.UNSUPPORTED_VERSION:
    case ErrorCode.INVALID_PARTITIONS:
    case ErrorCode.INVALID_REQUEST:
    case ErrorCode.UNKNOWN_SERVER_ERROR:
    case ErrorCode.POLICY_VIOLATION:
    case ErrorCode.TOPIC_ALREADY_EXISTS:
    case ErrorCode.INVALID_CONFIG:
    case ErrorCode.INVALID_TOPIC_EXCEPTION:
    case ErrorCode.INVALID_REPLICA_ASSIGNMENT:
      return { status: 400, errorCode: 40002 };
    default:
      return isRetriable(code) ? { status: 500, errorCode: 50003 } : { status: 500, errorCode: 50002 };
  }
}

export function kafkaMessage(code: number, message?: string | null): string {
  return message || KAFKA_MESSAGES[code] || `Kafka error ${errorName(code)} (${code}).`;
}

/** A Kafka error code (not NONE) as the error a route throws. */
export function kafkaError(code: number, message?: string | null): RestProxyError {
  const { status, errorCode } = restCodeOf(code);
  return new RestProxyError(status, errorCode, kafkaMessage(code, message));
}

/** The request body as JSON (400 / 400 when it is not; `{}` for an empty body when `emptyOk`). */
export function jsonBody(r: RestProxyRequest, emptyOk = false): unknown {
  if (r.body.trim() === '') {
    if (emptyOk) return {};
    throw badRequest('Request body is empty. Data is required.');
  }
  try {
    return JSON.parse(r.body);
  } catch (err) {
    throw badRequest(`Unexpected JSON input: ${(err as Error).message}`);
  }
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `body[name]` as an integer (absent or null: undefined); anything else is a 400. */
export function optionalInt(body: Record<string, unknown>, name: string): number | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v);
  throw badRequest(`Cannot deserialize value of type \`java.lang.Integer\` from ${JSON.stringify(v)} (field "${name}")`);
}

export function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  throw badRequest(`Cannot deserialize value of type \`java.lang.String\` from ${Array.isArray(v) ? 'Array' : 'Object'} value (field "${name}")`);
}

/** A path segment that must be an integer (else Jersey's 404, as Confluent answers). */
export function intSegment(s: string): number {
  if (!/^-?\d{1,10}$/.test(s)) throw notFound();
  return Number(s);
}

/** Links and resource names under `/v3/clusters/<cluster>`. */
export class V3Links {
  constructor(readonly base: string, readonly clusterId: string) {}

  /** `<base>/v3/clusters/<cluster>/<segments...>` with each segment URL-encoded. */
  url(...segments: (string | number)[]): string {
    return [`${this.base}/v3/clusters`, this.clusterId, ...segments].map((s, i) => (i === 0 ? s : encodeURIComponent(String(s)))).join('/');
  }

  /** `crn:///kafka=<cluster>/<type>=<id>/...` (an id of null writes the type alone). */
  crn(...parts: (string | number | null)[]): string {
    const out = [`kafka=${this.clusterId}`];
    for (let i = 0; i + 1 < parts.length; i += 2) out.push(parts[i + 1] === null ? String(parts[i]) : `${parts[i]}=${parts[i + 1]}`);
    return `crn:///${out.join('/')}`;
  }

  related(...segments: (string | number)[]): { related: string } {
    return { related: this.url(...segments) };
  }

  /** A resource: `{kind, metadata: {self, resource_name}, ...fields}`. */
  resource(kind: string, self: string, crn: string, fields: Record<string, unknown>): Record<string, unknown> {
    return { kind, metadata: { self, resource_name: crn }, ...fields };
  }

  /** A collection: `{kind, metadata: {self, next: null}, data}`. */
  collection(kind: string, self: string, data: unknown[]): Record<string, unknown> {
    return { kind, metadata: { self, next: null }, data };
  }
}

/** This broker's cluster id ('' before the metadata has one). */
export function clusterIdOf(r: RestProxyRequest): string {
  return r.broker.metadataCache.clusterId ?? '';
}

/** The links of cluster `id`, or Confluent's 404 when this is not that cluster. */
export function clusterLinks(r: RestProxyRequest, id: string): V3Links {
  const own = clusterIdOf(r);
  if (id !== own) throw notFound(`Cluster ${id} cannot be found.`);
  return new V3Links(r.baseUrl, own);
}

export function ok(r: RestProxyRequest, value: unknown, status = 200): void {
  sendRestJson(r.res, status, value);
}

export function noContent(r: RestProxyRequest): void {
  r.res.statusCode = 204;
  r.res.setHeader('Cache-Control', 'no-store');
  r.res.end();
}

/** Metadata v12 in-process as the HTTP user: every topic it may describe (null), or the ones named. */
export async function metadata(r: RestProxyRequest, topics: string[] | null, autoCreate = false): Promise<MetadataResponse> {
  return await sendInProcess(r.broker, 3, 12, {
    topics: topics === null ? null : topics.map((name) => ({ topicId: ZERO_UUID, name })),
    allowAutoTopicCreation: autoCreate, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false,
  }, { user: r.user }) as MetadataResponse;
}

/** One topic's metadata; its error (40403 when unknown, 40301 when denied) is thrown. */
export async function topicMetadata(r: RestProxyRequest, topic: string): Promise<MetadataResponseTopic> {
  const md = await metadata(r, [topic]);
  const t = md.topics.find((x) => x.name === topic);
  if (!t) throw kafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (t.errorCode !== ErrorCode.NONE) throw kafkaError(t.errorCode);
  return t;
}
