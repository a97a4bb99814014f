/**
 * apiKey → handler, version gate, header rules, error translation at one boundary.
 *
 * - ApiVersions of a version above the advertised range is answered in v0 form with
 *   UNSUPPORTED_VERSION and ApiVersions' own range (clients retry at that version).
 * - Any other unknown API key, or a version outside the advertised range, is a ProtocolError:
 *   the connection is closed, as Kafka's SocketServer does.
 * - Versions inside the advertised range but in its `refuse` part (Produce v0-2)
 *   are answered with UNSUPPORTED_VERSION (advertised only for clients' range checks).
 * - Only APIs with a registered handler are advertised, and not those apis.json marks
 *   `advertise: false` (client telemetry, which Kafka answers without advertising it).
 * - Bytes after a complete request body are ignored (logged at debug level), as Kafka ignores them.
 */
import { KafkaApiError, ProtocolError } from '../errors.js';
import { advertisedApis, type AdvertisedApi } from '../protocol/generated/advertised.js';
import { codecFor, type ApiCodec } from '../protocol/generated/api-table.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { API_VERSIONS_KEY, readRequestHeaderStart, responseHeaderFlexible, writeResponseHeader } from '../protocol/headers.js';
import { Reader } from '../protocol/reader.js';
import { Writer } from '../protocol/writer.js';
import { DeferredResponse, type Handler } from './handler.js';
import type { RequestContext } from './request-context.js';
import type { ApiVersionEntry, BrokerServices } from './broker-services.js';
import type { ConnectionContext, Reply, RequestProcessor, ResponseChunks } from '../network/request-processor.js';
import { noteClientRole } from '../cluster/partition-retirement.js';
import type { Logger } from '../logger.js';
import { countResponseErrors, type BrokerMetrics, type RequestStats } from '../http/metrics/broker-metrics.js';
import type { ProduceRequest } from '../protocol/generated/messages/produce-request.js';
import type { FetchRequest } from '../protocol/generated/messages/fetch-request.js';
import type { FetchResponse } from '../protocol/generated/messages/fetch-response.js';

function requestQuota(ctx: RequestContext, response: unknown, ms: number): void {
  const quotas = ctx.broker.quotas;
  const throttle = quotas.recordRequestTime(ctx.apiKey, ctx.principal, ctx.clientId, ms);
  if (throttle <= 0) return;
  quotas.throttle(ctx.connectionId, throttle);
  const body = response instanceof DeferredResponse || response === undefined ? null : (response as { throttleTimeMs?: number });
  if (body && typeof body.throttleTimeMs === 'number' && body.throttleTimeMs < throttle) body.throttleTimeMs = throttle;
}

export interface DecodedRequest {
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  body: unknown;
}

/** Hooks the test-control API uses to observe or alter traffic (off unless set). */
export interface DispatchInterceptor {
  /** May return a replacement response (e.g. an injected error), or undefined to continue. */
  before?(ctx: RequestContext, req: DecodedRequest, handler: Handler): Promise<unknown | undefined> | unknown | undefined;
  after?(ctx: RequestContext, req: DecodedRequest, response: unknown): void;
  /**
   * Whether decoded requests or responses may be kept after the response was written (e.g.
   * recorded) with their byte views into request frames and read buffers: those are then not
   * reused. Missing means yes.
   */
  keepsExchanges?(): boolean;
}

interface Entry {
  handler: Handler;
  codec: ApiCodec<any, any>;
  adv: AdvertisedApi;
}

export type { ApiVersionEntry };

export type { ResponseChunks };

/**
 * The network layer's RequestProcessor: decodes a frame, runs its handler with a RequestContext
 * (the connection's context plus the broker's services), encodes the answer.
 */
export class Dispatcher implements RequestProcessor {
  private readonly entries = new Map<number, Entry>();
  interceptor: DispatchInterceptor | null = null;
  /** Request counters and timings (/metrics); null: nothing is measured. */
  metrics: BrokerMetrics | null = null;
  /** Kafka's kafka.request.logger: one debug line per request (client id, API, version, duration). */
  requestLog: Logger | null = null;

  constructor(private readonly logger: Logger, private readonly broker: BrokerServices) {}

  register(handler: Handler<any>): void {
    const codec = codecFor(handler.apiKey);
    const adv = advertisedApis.find((a) => a.apiKey === handler.apiKey);
    if (!codec || !adv) throw new Error(`no codec or advertised range for api key ${handler.apiKey}`);
    this.entries.set(handler.apiKey, { handler, codec, adv });
    this.table = null;
  }

  private table: readonly ApiVersionEntry[] | null = null;

  /**
   * The ApiVersions table: every registered API with its advertised range (but those answered
   * without being advertised). Built once (every
   * connection asks for it first) and frozen: callers read it, never change it.
   */
  advertised(): ApiVersionEntry[] {
    this.table ??= Object.freeze([...this.entries.values()]
      .filter((e) => e.adv.advertise)
      .sort((a, b) => a.adv.apiKey - b.adv.apiKey)
      .map((e) => Object.freeze({ apiKey: e.adv.apiKey, minVersion: e.adv.min, maxVersion: e.adv.max })));
    return this.table as ApiVersionEntry[];
  }

  /**
   * Whether `frame` may be reused once dispatch() has settled: a Produce request (its handler
   * writes the batches synchronously into the segment and keeps no view of them) while no
   * interceptor keeps requests (test control's recordings). Asked before and after dispatch.
   */
  recyclable(frame: Buffer): boolean {
    return frame.length >= 2 && frame.readInt16BE(0) === 0 && this.reusesBuffers();
  }

  /** Whether a Fetch may read into recycled buffers (RequestContext.readBuffers). */
  lendsReadBuffers(frame: Buffer): boolean {
    return frame.length >= 2 && frame.readInt16BE(0) === 1 && this.reusesBuffers();
  }

  private reusesBuffers(): boolean {
    const i = this.interceptor;
    return i === null || (i.keepsExchanges !== undefined && !i.keepsExchanges());
  }

  /**
   * Handles one frame (without its size prefix). Returns the response frame's chunks (size
   * prefix included), null when no response is sent (acks=0 Produce), or a promise of either when
   * the handler deferred its reply (the connection may then read its next request).
   * Throws (or the promise rejects with) ProtocolError when the connection must be closed.
   * `receivedAt`: performance.now() when the frame arrived (request queue time), else now.
   */
  async process(frame: Buffer, conn: ConnectionContext, receivedAt = -1): Promise<Reply> {
    const metrics = this.metrics;
    const dispatchedAt = metrics !== null || this.requestLog !== null ? performance.now() : 0;
    const r = new Reader(frame);
    const h = readRequestHeaderStart(r);
    const entry = this.entries.get(h.apiKey);
    if (h.apiKey === API_VERSIONS_KEY && entry && h.apiVersion > entry.adv.max) {
      return this.encode(entry.codec, h.correlationId, 0, {
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        apiKeys: [{ apiKey: API_VERSIONS_KEY, minVersion: entry.adv.min, maxVersion: entry.adv.max }],
        throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false,
      });
    }
    if (!entry) throw new ProtocolError(`unsupported api key ${h.apiKey}`);
    if (h.apiVersion < entry.adv.min || h.apiVersion > entry.adv.max) {
      throw new ProtocolError(`unsupported version ${h.apiVersion} of api key ${h.apiKey} (${entry.codec.name})`);
    }
    const v = h.apiVersion;
    const flexible = entry.codec.flexibleFrom >= 0 && v >= entry.codec.flexibleFrom;
    if (flexible) r.taggedFields();
    const body = entry.codec.readRequest(r, v);
    // Kafka parses the body and ignores what follows it; librdkafka 2.15 relies on that (its
    // "all topics" Metadata v12 leaves a 4-byte placeholder where the null array is one byte).
    if (r.remaining !== 0 && this.logger.level === 'debug') {
      this.logger.debug(`${r.remaining} bytes after ${entry.codec.name} v${v} request from ${h.clientId ?? '-'} ignored`);
    }
    const ctx: RequestContext = { ...conn, broker: this.broker, apiKey: h.apiKey, apiVersion: v, correlationId: h.correlationId, clientId: h.clientId };
    if (ctx.clientRole) noteClientRole(ctx.clientRole, h.apiKey, h.apiKey === 10 && (body as { keyType?: number }).keyType === 0, ctx.broker.clientRoles, ctx.remoteAddress, ctx.clientId);
    const decoded: DecodedRequest = { apiKey: h.apiKey, apiVersion: v, correlationId: h.correlationId, clientId: h.clientId, body };

    let response: unknown;
    const stats = metrics !== null ? metrics.request(h.apiKey) : null;
    const refuse = entry.adv.refuse;
    try {
      if (refuse && v >= refuse[0] && v <= refuse[1]) {
        response = entry.handler.errorResponse(body as never, ErrorCode.UNSUPPORTED_VERSION, ctx);
        if (h.apiKey === 0 && (body as { acks: number }).acks === 0) throw new ProtocolError(`Produce v${v} with acks=0 is not supported`);
      } else {
        const injected = this.interceptor?.before ? await this.interceptor.before(ctx, decoded, entry.handler) : undefined;
        const quotas = ctx.broker.quotas;
        const started = quotas?.requestActive ? performance.now() : -1;
        response = injected !== undefined ? injected : await entry.handler.handle(ctx, body as never);
        // request_percentage (security/quotas.ts): the handler's time, then throttle_time_ms and a mute above the quota.
        if (started >= 0) requestQuota(ctx, response, performance.now() - started);
      }
    } catch (err) {
      if (err instanceof ProtocolError) throw err;
      if (!(err instanceof KafkaApiError)) {
        this.logger.error(`${entry.codec.name} v${v} from ${ctx.clientId ?? '-'} failed`, err);
      }
      // An acks=0 Produce must never get a reply: close instead, so the client refreshes metadata.
      if (h.apiKey === 0 && (body as { acks: number }).acks === 0) throw new ProtocolError('acks=0 produce failed');
      const code = err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
      response = entry.handler.errorResponse(body as never, code, ctx);
    }
    const received = receivedAt >= 0 ? receivedAt : dispatchedAt;
    const timing = stats !== null ? this.measureLocal(stats, h.apiKey, v, body, response, received, dispatchedAt) : null;
    if (response instanceof DeferredResponse) {
      const later = response.promise.then(
        (res) => this.finish(entry, ctx, decoded, res, stats, timing, received),
        (err) => {
          if (err instanceof ProtocolError) throw err;
          if (!(err instanceof KafkaApiError)) this.logger.error(`${entry.codec.name} v${v} from ${ctx.clientId ?? '-'} failed`, err);
          if (h.apiKey === 0 && (body as { acks: number }).acks === 0) throw new ProtocolError('acks=0 produce failed');
          return this.finish(entry, ctx, decoded, entry.handler.errorResponse(body as never, err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR, ctx), stats, timing, received);
        },
      );
      return { later };
    }
    return this.finish(entry, ctx, decoded, response, stats, timing, received);
  }

  /**
   * Counts the request and its queue and local time once the handler returned (before a Produce
   * frame may be reused: its batches are counted now). Returns when the handler finished.
   */
  private measureLocal(stats: RequestStats, apiKey: number, version: number, body: unknown, response: unknown, received: number, dispatchedAt: number): number {
    const now = performance.now();
    stats.requestQueueTime.observe(dispatchedAt - received);
    stats.localTime.observe(now - dispatchedAt);
    if (apiKey === 0) {
      // Produce v13 names topics by id: the per-topic counters take the name from the metadata.
      const cache = this.broker.metadataCache;
      const nameOf = version >= 13 ? (t: { topicId: string }) => cache.topicById(t.topicId)?.name ?? '' : null;
      this.metrics!.onProduce(body as ProduceRequest, response, stats, response instanceof DeferredResponse ? response.promise : undefined, nameOf);
    }
    return now;
  }

  /**
   * The whole-request error answer to `frame` with `errorCode`, without running its handler (a
   * SASL connection answers a request that arrives mid-authentication this way, then closes).
   * Throws ProtocolError when the frame is not a request of an advertised API and version.
   */
  errorAnswer(frame: Buffer, errorCode: number, conn: ConnectionContext): Buffer[] {
    const r = new Reader(frame);
    const h = readRequestHeaderStart(r);
    const entry = this.entries.get(h.apiKey);
    if (!entry || h.apiVersion < entry.adv.min || h.apiVersion > entry.adv.max) throw new ProtocolError(`unsupported api key ${h.apiKey} v${h.apiVersion}`);
    if (entry.codec.flexibleFrom >= 0 && h.apiVersion >= entry.codec.flexibleFrom) r.taggedFields();
    const body = entry.codec.readRequest(r, h.apiVersion);
    const ctx: RequestContext = { ...conn, broker: this.broker, apiKey: h.apiKey, apiVersion: h.apiVersion, correlationId: h.correlationId, clientId: h.clientId };
    return this.encode(entry.codec, h.correlationId, h.apiVersion, entry.handler.errorResponse(body as never, errorCode, ctx));
  }

  private finish(
    entry: Entry, ctx: RequestContext, decoded: DecodedRequest, response: unknown,
    stats: RequestStats | null = null, localDoneAt: number | null = null, received = 0,
  ): Buffer[] | null {
    if (stats !== null) this.measureDone(stats, ctx, decoded, response, localDoneAt!, received);
    const rl = this.requestLog;
    if (rl !== null && rl.level === 'debug') {
      rl.debug(`${entry.codec.name} v${decoded.apiVersion} from ${decoded.clientId ?? '-'}`, {
        clientId: decoded.clientId, api: entry.codec.name, apiKey: decoded.apiKey, version: decoded.apiVersion,
        correlationId: decoded.correlationId, listener: ctx.listenerName, remote: ctx.remoteAddress, principal: ctx.principal,
        durationMs: received > 0 ? Math.round((performance.now() - received) * 1000) / 1000 : undefined,
      });
    }
    if (response === undefined) return null;
    this.interceptor?.after?.(ctx, decoded, response);
    const out: ResponseChunks = this.encode(entry.codec, decoded.correlationId, decoded.apiVersion, response);
    if (stats !== null) out.sendStats = stats;
    return out;
  }

  private measureDone(stats: RequestStats, ctx: RequestContext, decoded: DecodedRequest, response: unknown, localDoneAt: number, received: number): void {
    const now = performance.now();
    stats.remoteTime.observe(now - localDoneAt);
    stats.totalTime.observe(now - received);
    const v = decoded.apiVersion;
    while (stats.byVersion.length <= v) stats.byVersion.push(0);
    stats.byVersion[v]++;
    if (decoded.apiKey === 1 && response !== undefined) {
      this.metrics!.onFetch(decoded.body as FetchRequest, response as FetchResponse, stats, ctx.broker.metadataCache);
    } else if (decoded.apiKey !== 0 && response !== undefined) {
      countResponseErrors(stats, response);
    }
  }

  private encode(codec: ApiCodec<any, any>, correlationId: number, v: number, response: unknown): Buffer[] {
    const w = new Writer(512);
    w.int32(0);
    const flexible = codec.flexibleFrom >= 0 && v >= codec.flexibleFrom;
    writeResponseHeader(w, correlationId, responseHeaderFlexible(codec.apiKey, flexible));
    codec.writeResponse(w, v, response);
    w.patchInt32(0, w.length - 4);
    return w.finish();
  }
}
