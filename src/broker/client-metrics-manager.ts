/**
 * Client telemetry (KIP-714) as Kafka's ClientMetricsManager serves it on a broker with no
 * client-metrics subscriptions and no telemetry exporter plugin: every client instance gets no
 * metrics to push and the default push interval (5 minutes), and the pushes it may still send are
 * checked as Kafka checks them and then dropped (Kafka hands them to its exporter plugins, none).
 *
 * Kafka keeps one ClientMetricsInstance per client instance id (an LRU cache of 16,384, each
 * expiring max(60 s, 3 × push interval) after its last request, and forgotten when the connection
 * that created it closes); the throttle of GetTelemetrySubscriptions and PushTelemetry to one per
 * push interval, the subscription id and the terminating flag live there. So do they here.
 *
 * State is owned by the event loop: each request reads and updates its instance synchronously.
 */
import { crc32cJs } from '../protocol/records/crc32c.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { ZERO_UUID } from '../protocol/reader.js';
import { newUuid } from '../cluster/topic-names.js';

/** ClientMetricsConfigs.INTERVAL_MS_DEFAULT: the push interval with no subscription. */
export const DEFAULT_PUSH_INTERVAL_MS = 300_000;
/** Kafka's `telemetry.max.bytes` default (Samsa does not have the setting). */
export const TELEMETRY_MAX_BYTES = 1_048_576;
/** ClientMetricsManager.SUPPORTED_COMPRESSION_TYPES: zstd, lz4, gzip, snappy (the client takes the first it has). */
export const ACCEPTED_COMPRESSION_TYPES: readonly number[] = [4, 3, 1, 2];
const CACHE_MAX_SIZE = 16_384;
const DEFAULT_CACHE_EXPIRY_MS = 60_000;
/** Uuid.RESERVED: the zero id and Uuid.ONE_UUID (also the metadata topic's id). */
const ONE_UUID = 'AAAAAAAAAAAAAAAAAAAAAQ';
/** CompressionType.forId's ids: none, gzip, snappy, lz4, zstd. */
const KNOWN_COMPRESSION = new Set([0, 1, 2, 3, 4]);

interface ClientInstance {
  readonly subscriptionId: number;
  readonly pushIntervalMs: number;
  readonly metrics: readonly string[];
  lastGetMs: number;
  lastPushMs: number;
  terminating: boolean;
  lastKnownError: number;
  expiresAt: number;
}

export interface TelemetrySubscription {
  errorCode: number;
  clientInstanceId: string;
  subscriptionId: number;
  acceptedCompressionTypes: number[];
  pushIntervalMs: number;
  telemetryMaxBytes: number;
  deltaTemporality: boolean;
  requestedMetrics: string[];
}

export interface TelemetryPush {
  clientInstanceId: string;
  subscriptionId: number;
  terminating: boolean;
  compressionType: number;
  metricsBytes: number;
}

/** Java's Uuid.hashCode of a base64url id. */
function uuidHash(id: string): number {
  const b = Buffer.from(id, 'base64url');
  const h = b.readBigInt64BE(0) ^ b.readBigInt64BE(8);
  return Number(BigInt.asIntN(32, h >> 32n)) ^ Number(BigInt.asIntN(32, h));
}

/**
 * ClientMetricsManager.computeSubscriptionId: CRC-32C of the metrics set's Java toString and the
 * push interval, XOR the instance id's hash. With no subscription the set is empty: "[]300000".
 */
function subscriptionIdFor(metrics: readonly string[], pushIntervalMs: number, clientInstanceId: string): number {
  return crc32cJs(Buffer.from(`[${metrics.join(', ')}]${pushIntervalMs}`)) ^ uuidHash(clientInstanceId);
}

export class ClientMetricsManager {
  /** Instance id → state, least recently used first (a Map keeps insertion order). */
  private readonly instances = new Map<string, ClientInstance>();
  /** Connection id → the instance it last created (Kafka's clientConnectionIdMap). */
  private readonly byConnection = new Map<number, string>();

  constructor(private readonly now: () => number) {}

  /** GetTelemetrySubscriptions: the instance's subscription, or THROTTLING_QUOTA_EXCEEDED within its push interval. */
  getSubscription(requestedId: string, connectionId: number, closed: AbortSignal): TelemetrySubscription {
    const now = this.now();
    const id = requestedId === ZERO_UUID ? this.newInstanceId() : requestedId;
    const inst = this.instance(id, now, connectionId, closed);
    // ClientMetricsInstance.maybeUpdateGetRequestTimestamp; a client told its subscription or
    // compression was wrong may ask again at once.
    if (now - Math.max(inst.lastGetMs, inst.lastPushMs) >= inst.pushIntervalMs) {
      inst.lastGetMs = now;
    } else if (inst.lastKnownError !== ErrorCode.UNKNOWN_SUBSCRIPTION_ID && inst.lastKnownError !== ErrorCode.UNSUPPORTED_COMPRESSION_TYPE) {
      return { errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, clientInstanceId: ZERO_UUID, subscriptionId: 0, acceptedCompressionTypes: [], pushIntervalMs: 0, telemetryMaxBytes: 0, deltaTemporality: false, requestedMetrics: [] };
    }
    inst.lastKnownError = ErrorCode.NONE;
    return {
      errorCode: ErrorCode.NONE,
      clientInstanceId: id,
      subscriptionId: inst.subscriptionId,
      acceptedCompressionTypes: [...ACCEPTED_COMPRESSION_TYPES],
      pushIntervalMs: inst.pushIntervalMs,
      telemetryMaxBytes: TELEMETRY_MAX_BYTES,
      deltaTemporality: true,
      requestedMetrics: [...inst.metrics],
    };
  }

  /** PushTelemetry: the error code Kafka's validatePushRequest gives (NONE: accepted, and dropped). */
  push(req: TelemetryPush, connectionId: number, closed: AbortSignal): number {
    if (req.clientInstanceId === ZERO_UUID || req.clientInstanceId === ONE_UUID) return ErrorCode.INVALID_REQUEST;
    const now = this.now();
    const inst = this.instance(req.clientInstanceId, now, connectionId, closed);
    const error = this.validatePush(inst, req, now);
    // Kafka records the terminating flag whatever the outcome.
    inst.terminating = req.terminating;
    inst.lastKnownError = error;
    return error;
  }

  /** ClientMetricsManager.validatePushRequest, in its order. */
  private validatePush(inst: ClientInstance, req: TelemetryPush, now: number): number {
    if (inst.terminating) return ErrorCode.INVALID_REQUEST;
    // maybeUpdatePushRequestTimestamp: the first push after a Get is always taken (the client
    // applies a jitter to the interval); a terminating push is never throttled.
    const canAccept = inst.lastGetMs > inst.lastPushMs || now - inst.lastPushMs >= inst.pushIntervalMs;
    if (canAccept) inst.lastPushMs = now;
    else if (!req.terminating) return ErrorCode.THROTTLING_QUOTA_EXCEEDED;
    if (req.subscriptionId !== inst.subscriptionId) return ErrorCode.UNKNOWN_SUBSCRIPTION_ID;
    if (!KNOWN_COMPRESSION.has(req.compressionType)) return ErrorCode.UNSUPPORTED_COMPRESSION_TYPE;
    if (req.metricsBytes > TELEMETRY_MAX_BYTES) return ErrorCode.TELEMETRY_TOO_LARGE;
    return ErrorCode.NONE;
  }

  /** How many client instances are kept (Kafka's client-metrics instance-count). */
  get instanceCount(): number {
    return this.instances.size;
  }

  private instance(id: string, now: number, connectionId: number, closed: AbortSignal): ClientInstance {
    let inst = this.instances.get(id);
    if (inst !== undefined && inst.expiresAt <= now) {
      this.instances.delete(id);
      inst = undefined;
    }
    if (inst === undefined) {
      inst = this.createInstance(id);
      this.remember(connectionId, id, closed);
    } else {
      this.instances.delete(id);
    }
    this.instances.set(id, inst);
    inst.expiresAt = now + Math.max(DEFAULT_CACHE_EXPIRY_MS, inst.pushIntervalMs * 3);
    if (this.instances.size > CACHE_MAX_SIZE) this.instances.delete(this.instances.keys().next().value!);
    return inst;
  }

  /** No subscriptions: no metrics, the default interval. */
  private createInstance(id: string): ClientInstance {
    const metrics: string[] = [];
    const pushIntervalMs = DEFAULT_PUSH_INTERVAL_MS;
    return { subscriptionId: subscriptionIdFor(metrics, pushIntervalMs, id), pushIntervalMs, metrics, lastGetMs: 0, lastPushMs: 0, terminating: false, lastKnownError: ErrorCode.NONE, expiresAt: 0 };
  }

  /** Kafka forgets the instance a connection created when that connection closes. */
  private remember(connectionId: number, id: string, closed: AbortSignal): void {
    const known = this.byConnection.has(connectionId);
    this.byConnection.set(connectionId, id);
    if (known || closed.aborted) return;
    closed.addEventListener('abort', () => {
      const last = this.byConnection.get(connectionId);
      this.byConnection.delete(connectionId);
      if (last !== undefined) this.instances.delete(last);
    }, { once: true });
  }

  private newInstanceId(): string {
    for (;;) {
      const id = newUuid();
      if (!this.instances.has(id) && id !== ONE_UUID) return id;
    }
  }
}
