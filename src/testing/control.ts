/**
 * The test-control API of a broker started with startBroker(): fault injection, latency, holding
 * and dropping requests, disconnects, request recording and waits that need no polling.
 *
 * Modelled on franz-go kfake's Control (a function per API key that may answer, delay or drop a
 * request, "keep" or run once) and librdkafka's mock cluster (push N errors for an API key, set a
 * broker's round-trip time, request tracking). It is built on the dispatcher's interceptor hook:
 * every request goes through `before` (which may answer, delay, hold or drop it) and every response
 * through `after` (recording, and re-checking the pending waits).
 *
 * Rules are consumed in the order they were added; the control's own in-process requests
 * (connection id -1) are never intercepted.
 */
import type { Broker } from '../broker/broker.js';
import type { DecodedRequest, DispatchInterceptor } from '../broker/dispatch.js';
import type { Handler } from '../broker/handler.js';
import type { RequestContext } from '../broker/request-context.js';
import { ProtocolError } from '../errors.js';
import { ApiKey, apiCodecs, type ApiTypes } from '../protocol/generated/api-table.js';
import { ErrorCode, errorName, type ErrorCodeName } from '../protocol/generated/error-codes.js';
import { defaultPartitionProduceResponse, type ProduceResponse } from '../protocol/generated/messages/produce-response.js';
import type { ProduceRequest } from '../protocol/generated/messages/produce-request.js';
import { defaultPartitionData, type FetchResponse } from '../protocol/generated/messages/fetch-response.js';
import type { FetchRequest } from '../protocol/generated/messages/fetch-request.js';
import { defaultListOffsetsPartitionResponse, type ListOffsetsResponse } from '../protocol/generated/messages/list-offsets-response.js';
import type { ListOffsetsRequest } from '../protocol/generated/messages/list-offsets-request.js';
import type { MetadataResponse } from '../protocol/generated/messages/metadata-response.js';
import { groupViewFor, INTERNAL_CONNECTION_ID, isGroupStable, type GroupSnapshot, type GroupView } from './group-view.js';
import { ZERO_UUID } from '../protocol/reader.js';

/** An API by name (`'Produce'`) or key (`0`). */
export type ApiName = keyof typeof ApiKey;
export type ApiKeyLike = ApiName | number;
/** An error by Kafka's name (`'NOT_LEADER_OR_FOLLOWER'`) or code (`6`). */
export type ErrorCodeLike = ErrorCodeName | number;

/** Which requests a rule applies to. Every field is optional; all given ones must match. */
export interface RequestMatch {
  /** Only requests on this connection (see `RecordedExchange.connectionId`). */
  connectionId?: number;
  /** Only requests whose client.id is this. */
  clientId?: string;
}

export interface InjectErrorOptions extends RequestMatch {
  /** How many matching requests fail (default 1; Infinity until removed). */
  count?: number;
  /**
   * Fail only this topic (and partition): the other partitions of the request are served
   * normally and this one answers the error in its own slot. Supported for Produce, Fetch,
   * ListOffsets and Metadata (Metadata: the partition's, or without `partition` the topic's
   * error code).
   */
  topic?: string;
  partition?: number;
}

export interface LatencyOptions extends RequestMatch {
  /** How many matching requests are delayed (default Infinity: until removed). */
  count?: number;
}

export interface DropOptions extends RequestMatch {
  /** Only requests of this API (default any). */
  apiKey?: ApiKeyLike;
  /** How many matching requests are dropped (default 1). */
  count?: number;
}

export interface HoldOptions extends RequestMatch {
  /** Only a request of this API (default any). */
  apiKey?: ApiKeyLike;
}

/** A rule that can be removed before it has been used up. */
export interface Rule {
  /** Matching requests that the rule has acted on so far. */
  readonly hits: number;
  remove(): void;
}

/** One request and (once answered) its response, decoded with the generated types. */
export interface RecordedExchange {
  connectionId: number;
  clientId: string | null;
  apiKey: number;
  apiName: string;
  apiVersion: number;
  correlationId: number;
  request: unknown;
  /** undefined until answered, and for acks=0 Produce and dropped requests. */
  response?: unknown;
  /** What the control did to it. */
  injectedError?: number;
  delayedMs?: number;
  held?: boolean;
  dropped?: boolean;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface Recording {
  /** Every exchange so far, in arrival order. */
  readonly exchanges: RecordedExchange[];
  /** The requests (decoded bodies) of one API, in arrival order. */
  requests<K extends keyof ApiTypes>(apiKey: K): ApiTypes[K]['request'][];
  requests(apiKey: ApiKeyLike): unknown[];
  /** The exchanges of one API. */
  of(apiKey: ApiKeyLike): RecordedExchange[];
  clear(): void;
  stop(): void;
}

export interface HeldRequest {
  /** Resolves when a matching request has arrived and is being held. */
  readonly arrived: Promise<RecordedExchange>;
  /** Lets the held request (or, if none arrived yet, the next one) proceed. */
  release(): void;
  /** Closes the held request's connection without an answer. */
  drop(): void;
}

export interface WaitOptions {
  /** Reject after this many ms (real time, default 10000). */
  timeoutMs?: number;
}

function apiKeyOf(k: ApiKeyLike): number {
  if (typeof k === 'number') return k;
  const n = ApiKey[k];
  if (n === undefined) throw new TypeError(`unknown API '${String(k)}' (use a name such as 'Produce' or a key number)`);
  return n;
}

function errorCodeOf(e: ErrorCodeLike): number {
  if (typeof e === 'number') return e;
  const n = ErrorCode[e];
  if (n === undefined) throw new TypeError(`unknown error '${String(e)}' (use a Kafka error name such as 'NOT_LEADER_OR_FOLLOWER' or a code)`);
  return n;
}

function apiNameOf(key: number): string {
  return (apiCodecs as Record<number, { name: string } | undefined>)[key]?.name ?? `Api${key}`;
}

function matches(m: RequestMatch, ctx: RequestContext): boolean {
  if (m.connectionId !== undefined && m.connectionId !== ctx.connectionId) return false;
  if (m.clientId !== undefined && m.clientId !== ctx.clientId) return false;
  return true;
}

interface RuleBase extends RequestMatch {
  apiKey: number | null;
  left: number;
  hits: number;
}
interface ErrorRule extends RuleBase { kind: 'error'; code: number; topic?: string; partition?: number }
interface LatencyRule extends RuleBase { kind: 'latency'; ms: number }
interface DropRule extends RuleBase { kind: 'drop' }
interface HoldRule extends RuleBase {
  kind: 'hold';
  arrived: (x: RecordedExchange) => void;
  decision: Promise<'release' | 'drop'>;
  decide: (d: 'release' | 'drop') => void;
}
type AnyRule = ErrorRule | LatencyRule | DropRule | HoldRule;

interface Waiter {
  check: () => Promise<boolean> | boolean;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
  checking: boolean;
  again: boolean;
  unsubscribe?: () => void;
}

/** A handler's result, waiting for a deferred reply (`{ promise }`) if it returned one. */
async function settle(result: unknown): Promise<unknown> {
  const r = await result;
  if (r && typeof r === 'object' && 'promise' in r && (r as { promise: unknown }).promise instanceof Promise) return (r as { promise: Promise<unknown> }).promise;
  return r;
}

const TOPIC_SCOPED = new Set<number>([0, 1, 2, 3]);

export class BrokerControl {
  private rules: AnyRule[] = [];
  private readonly recordings = new Set<RecordingImpl>();
  private readonly exchanges = new WeakMap<DecodedRequest, RecordedExchange>();
  private readonly waiters = new Set<Waiter>();
  private readonly sleeps = new Set<{ timer: NodeJS.Timeout; done: () => void }>();
  private closed = false;
  private accepted = 0;
  /** How consumer-group facts are read (replaceable, e.g. by a view on the group coordinator). */
  groups: GroupView;

  constructor(private readonly broker: Broker) {
    this.groups = groupViewFor(broker);
    const interceptor: DispatchInterceptor = {
      before: (ctx, req, handler) => this.before(ctx, req, handler),
      after: (ctx, req, res) => this.after(ctx, req, res),
      // Exchanges handed to tests carry their own copies of record bytes (keptRequest/keptResponse).
      keepsExchanges: () => false,
    };
    broker.dispatcher.interceptor = interceptor;
    const server = broker.socketServer;
    if (server) server.onConnection = () => { this.accepted++; };
  }

  // ---------------------------------------------------------------------------------------------
  // Rules

  /**
   * The next `count` (default 1) requests of `apiKey` are answered with `error` instead of being
   * handled (nothing is written or read). With `topic`/`partition` only that slot fails.
   */
  injectError(apiKey: ApiKeyLike, error: ErrorCodeLike, opts: InjectErrorOptions = {}): Rule {
    const key = apiKeyOf(apiKey);
    const code = errorCodeOf(error);
    if (opts.topic !== undefined && !TOPIC_SCOPED.has(key)) {
      throw new TypeError(`per-partition error injection supports Produce, Fetch, ListOffsets and Metadata, not ${apiNameOf(key)}`);
    }
    if (opts.partition !== undefined && opts.topic === undefined) throw new TypeError('injectError: `partition` needs `topic`');
    return this.add({ kind: 'error', apiKey: key, code, left: opts.count ?? 1, hits: 0, topic: opts.topic, partition: opts.partition, connectionId: opts.connectionId, clientId: opts.clientId });
  }

  /** Delays requests of `apiKey` by `ms` before they are handled (until removed, or `count` times). */
  addLatency(apiKey: ApiKeyLike, ms: number, opts: LatencyOptions = {}): Rule {
    return this.add({ kind: 'latency', apiKey: apiKeyOf(apiKey), ms, left: opts.count ?? Infinity, hits: 0, connectionId: opts.connectionId, clientId: opts.clientId });
  }

  /** The next matching request closes its connection without an answer (as a network failure would). */
  dropNextRequest(opts: DropOptions = {}): Rule {
    return this.add({ kind: 'drop', apiKey: opts.apiKey === undefined ? null : apiKeyOf(opts.apiKey), left: opts.count ?? 1, hits: 0, connectionId: opts.connectionId, clientId: opts.clientId });
  }

  /**
   * Holds the next matching request (and so everything behind it on its connection) until
   * `release()` or `drop()`. stop() releases whatever is still held.
   */
  holdNextRequest(opts: HoldOptions = {}): HeldRequest {
    let arrived!: (x: RecordedExchange) => void;
    const arrivedP = new Promise<RecordedExchange>((resolve) => { arrived = resolve; });
    let decide!: (d: 'release' | 'drop') => void;
    const decision = new Promise<'release' | 'drop'>((resolve) => { decide = resolve; });
    const rule: HoldRule = { kind: 'hold', apiKey: opts.apiKey === undefined ? null : apiKeyOf(opts.apiKey), left: 1, hits: 0, connectionId: opts.connectionId, clientId: opts.clientId, arrived, decision, decide };
    this.rules.push(rule);
    return {
      arrived: arrivedP,
      release: () => { this.removeRule(rule); decide('release'); },
      drop: () => { this.removeRule(rule); decide('drop'); },
    };
  }

  /** Closes every client connection now (clients see the connection drop and reconnect). */
  disconnectAll(): void {
    this.broker.socketServer?.dropAll();
  }

  /** Open client connections. */
  get connectionCount(): number {
    return this.broker.socketServer?.connectionCount ?? 0;
  }

  /** Connections accepted since the broker started. */
  get connectionsAccepted(): number {
    return this.accepted;
  }

  /** Removes every rule and releases held requests. */
  reset(): void {
    for (const r of this.rules.splice(0)) if (r.kind === 'hold') r.decide('release');
    for (const s of [...this.sleeps]) { clearTimeout(s.timer); s.done(); }
  }

  private add<R extends AnyRule>(rule: R): Rule {
    if (this.closed) throw new Error('the broker has stopped');
    this.rules.push(rule);
    return {
      get hits() { return rule.hits; },
      remove: () => this.removeRule(rule),
    };
  }

  private removeRule(rule: AnyRule): void {
    const i = this.rules.indexOf(rule);
    if (i >= 0) this.rules.splice(i, 1);
  }

  /** Takes one use of the first rule of `kind` that matches. */
  private take<K extends AnyRule['kind']>(kind: K, ctx: RequestContext, req: DecodedRequest): Extract<AnyRule, { kind: K }> | null {
    for (const r of this.rules) {
      if (r.kind !== kind || r.left <= 0) continue;
      if (r.apiKey !== null && r.apiKey !== req.apiKey) continue;
      if (!matches(r, ctx)) continue;
      if (r.kind === 'error' && r.topic !== undefined && !this.requestTouches(req, r.topic, r.partition)) continue;
      if (r.kind === 'error' && req.apiKey === 0 && (req.body as ProduceRequest).acks === 0) continue;
      r.left--;
      r.hits++;
      if (r.left <= 0 && r.kind !== 'hold') this.removeRule(r);
      else if (r.kind === 'hold') this.removeRule(r);
      return r as Extract<AnyRule, { kind: K }>;
    }
    return null;
  }

  /**
   * A Fetch in a fetch session (KIP-227): taking partitions out of the request would take them out
   * of the session too (and the client would never hear of them again), so the whole request is
   * served (at once) and the failed partitions' answers are replaced by the error.
   */
  private async sessionPartitionError(ctx: RequestContext, req: DecodedRequest, handler: Handler, rule: ErrorRule, id: string | undefined): Promise<unknown> {
    const topic = rule.topic!;
    const body = req.body as FetchRequest;
    const res = (await settle(handler.handle(ctx, { ...body, maxWaitMs: 0 } as never))) as FetchResponse;
    const isTopic = (t: { topic: string; topicId: string }) => t.topic === topic || (id !== undefined && t.topicId === id);
    const failed = new Set<number>();
    if (rule.partition !== undefined) failed.add(rule.partition);
    else {
      for (const t of body.topics) if (isTopic(t)) for (const p of t.partitions) failed.add(p.partition);
      for (const t of res.responses) if (isTopic(t)) for (const p of t.partitions) failed.add(p.partitionIndex);
    }
    let tr = res.responses.find(isTopic);
    if (!tr) res.responses.push((tr = { topic: req.apiVersion >= 13 ? '' : topic, topicId: id ?? '', partitions: [] }));
    for (const part of failed) {
      const data = { ...defaultPartitionData(), partitionIndex: part, errorCode: rule.code };
      const i = tr.partitions.findIndex((p) => p.partitionIndex === part);
      if (i >= 0) tr.partitions[i] = data;
      else tr.partitions.push(data);
    }
    return res;
  }

  // ---------------------------------------------------------------------------------------------
  // Interceptor

  private async before(ctx: RequestContext, req: DecodedRequest, handler: Handler): Promise<unknown> {
    if (ctx.connectionId === INTERNAL_CONNECTION_ID) return undefined;
    if (this.rules.length === 0 && this.recordings.size === 0) return undefined;
    const ex: RecordedExchange = {
      connectionId: ctx.connectionId, clientId: ctx.clientId, apiKey: req.apiKey, apiName: apiNameOf(req.apiKey),
      apiVersion: req.apiVersion, correlationId: req.correlationId, request: keptRequest(req), at: Date.now(),
    };
    this.exchanges.set(req, ex);
    for (const rec of this.recordings) rec.push(ex);

    const hold = this.take('hold', ctx, req);
    if (hold) {
      ex.held = true;
      hold.arrived(ex);
      if ((await hold.decision) === 'drop') return this.drop(ex);
    }
    if (this.take('drop', ctx, req)) return this.drop(ex);
    const latency = this.take('latency', ctx, req);
    if (latency) {
      ex.delayedMs = latency.ms;
      await this.sleep(latency.ms, ctx.closed);
    }
    const err = this.take('error', ctx, req);
    if (err) {
      ex.injectedError = err.code;
      if (err.topic === undefined) return handler.errorResponse(req.body as never, err.code, ctx);
      return this.partitionError(ctx, req, handler, err);
    }
    return undefined;
  }

  private after(ctx: RequestContext, req: DecodedRequest, res: unknown): void {
    if (ctx.connectionId !== INTERNAL_CONNECTION_ID) {
      const ex = this.exchanges.get(req);
      if (ex) ex.response = keptResponse(req.apiKey, res);
    }
    if (this.waiters.size > 0 && ctx.connectionId !== INTERNAL_CONNECTION_ID) this.recheckAll();
  }

  private drop(ex: RecordedExchange): never {
    ex.dropped = true;
    throw new ProtocolError(`request ${ex.apiName} (correlation id ${ex.correlationId}) dropped by the test control`);
  }

  private sleep(ms: number, closed: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const entry = {
        timer: setTimeout(() => entry.done(), ms),
        done: () => {
          this.sleeps.delete(entry);
          clearTimeout(entry.timer);
          closed.removeEventListener('abort', entry.done);
          resolve();
        },
      };
      this.sleeps.add(entry);
      if (closed.aborted) entry.done();
      else closed.addEventListener('abort', entry.done);
    });
  }


  /** Whether a Produce request's topic entry is `topic`: by name, or by its id from v13. */
  private produceTopic(req: DecodedRequest, topic: string): (t: { name: string; topicId: string }) => boolean {
    const id = req.apiVersion >= 13 ? this.broker.metadataCache.topic(topic)?.topicId : undefined;
    return (t) => (id !== undefined ? t.topicId === id : t.name === topic);
  }

  private requestTouches(req: DecodedRequest, topic: string, partition: number | undefined): boolean {
    const hit = (p: number) => partition === undefined || p === partition;
    switch (req.apiKey) {
      case 0: {
        // v13 names topics by id.
        const isTopic = this.produceTopic(req, topic);
        return (req.body as ProduceRequest).topicData.some((t) => isTopic(t) && t.partitionData.some((p) => hit(p.index)));
      }
      case 1: {
        const id = this.broker.metadataCache.topic(topic)?.topicId;
        const body = req.body as FetchRequest;
        if (body.topics.some((t) => (t.topic === topic || (id !== undefined && t.topicId === id)) && t.partitions.some((p) => hit(p.partition)))) return true;
        // An incremental fetch reads the partitions of its session it does not name, too.
        if (body.sessionId === 0 || body.sessionEpoch <= 0) return false;
        const key = req.apiVersion >= 13 ? id : topic;
        return key !== undefined && this.broker.replicaManager.fetchSessions.sessionHas(body.sessionId, key, partition);
      }
      case 2: return (req.body as ListOffsetsRequest).topics.some((t) => t.name === topic && t.partitions.some((p) => hit(p.partitionIndex)));
      case 3: {
        // null (v1+) or an empty list (v0) asks for every topic.
        const ts = (req.body as { topics: { name: string | null }[] | null }).topics;
        return ts === null || (req.apiVersion === 0 && ts.length === 0) || ts.some((t) => t.name === topic);
      }
      default: return false;
    }
  }

  /** Serves the request without the failed slots, then answers those slots with the error. */
  private async partitionError(ctx: RequestContext, req: DecodedRequest, handler: Handler, rule: ErrorRule): Promise<unknown> {
    const topic = rule.topic!;
    const hit = (p: number) => rule.partition === undefined || p === rule.partition;
    const code = rule.code;
    switch (req.apiKey) {
      case 0: {
        const body = req.body as ProduceRequest;
        const isTopic = this.produceTopic(req, topic);
        const failed: number[] = [];
        let named = { name: topic, topicId: ZERO_UUID };
        const reduced: ProduceRequest = {
          ...body,
          topicData: body.topicData
            .map((t) => !isTopic(t) ? t : ((named = { name: t.name, topicId: t.topicId }), { ...t, partitionData: t.partitionData.filter((p) => (hit(p.index) ? (failed.push(p.index), false) : true)) }))
            .filter((t) => t.partitionData.length > 0),
        };
        const res = (await settle(handler.handle(ctx, reduced as never))) as ProduceResponse;
        let tr = res.responses.find((t) => isTopic(t));
        if (!tr) res.responses.push((tr = { ...named, partitionResponses: [] }));
        for (const p of failed) tr.partitionResponses.push({ ...defaultPartitionProduceResponse(), index: p, errorCode: code, baseOffset: -1n, errorMessage: errorName(code) });
        return res;
      }
      case 1: {
        const body = req.body as FetchRequest;
        const id = this.broker.metadataCache.topic(topic)?.topicId;
        const isTopic = (t: { topic: string; topicId: string }) => t.topic === topic || (id !== undefined && t.topicId === id);
        if (body.sessionEpoch >= 0) return this.sessionPartitionError(ctx, req, handler, rule, id);
        const failed: { topic: string; topicId: string; partition: number }[] = [];
        const reduced: FetchRequest = {
          ...body,
          maxWaitMs: 0,
          topics: body.topics
            .map((t) => !isTopic(t) ? t : { ...t, partitions: t.partitions.filter((p) => (hit(p.partition) ? (failed.push({ topic: t.topic, topicId: t.topicId, partition: p.partition }), false) : true)) })
            .filter((t) => t.partitions.length > 0),
        };
        const res = (await settle(handler.handle(ctx, reduced as never))) as FetchResponse;
        for (const f of failed) {
          let tr = res.responses.find((t) => isTopic(t));
          if (!tr) res.responses.push((tr = { topic: f.topic, topicId: f.topicId, partitions: [] }));
          tr.partitions.push({ ...defaultPartitionData(), partitionIndex: f.partition, errorCode: code });
        }
        return res;
      }
      case 2: {
        const body = req.body as ListOffsetsRequest;
        const failed: number[] = [];
        const reduced: ListOffsetsRequest = {
          ...body,
          topics: body.topics
            .map((t) => t.name !== topic ? t : { ...t, partitions: t.partitions.filter((p) => (hit(p.partitionIndex) ? (failed.push(p.partitionIndex), false) : true)) })
            .filter((t) => t.partitions.length > 0),
        };
        const res = (await settle(handler.handle(ctx, reduced as never))) as ListOffsetsResponse;
        let tr = res.topics.find((t) => t.name === topic);
        if (!tr) res.topics.push((tr = { name: topic, partitions: [] }));
        for (const p of failed) tr.partitions.push({ ...defaultListOffsetsPartitionResponse(), partitionIndex: p, errorCode: code });
        return res;
      }
      case 3: {
        const res = (await settle(handler.handle(ctx, req.body as never))) as MetadataResponse;
        for (const t of res.topics) {
          if (t.name !== topic) continue;
          if (rule.partition === undefined) t.errorCode = code;
          else for (const p of t.partitions) if (p.partitionIndex === rule.partition) p.errorCode = code;
        }
        return res;
      }
      default:
        return handler.errorResponse(req.body as never, code, ctx);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Recording

  /** Starts recording requests and responses (decoded) until `stop()`. */
  record(opts: { apiKeys?: ApiKeyLike[] } = {}): Recording {
    const keys = opts.apiKeys ? new Set(opts.apiKeys.map(apiKeyOf)) : null;
    const rec = new RecordingImpl(keys, () => this.recordings.delete(rec));
    this.recordings.add(rec);
    return rec;
  }

  // ---------------------------------------------------------------------------------------------
  // Waits

  /**
   * Resolves once `topic`-`partition`'s high watermark reaches `offset` (woken by appends and by
   * high-watermark moves: a follower's moves after its last append, when its leader tells it).
   */
  waitForHighWatermark(topic: string, partition: number, offset: number | bigint, opts: WaitOptions = {}): Promise<void> {
    const target = Number(offset);
    let unsubscribe: (() => void) | undefined;
    let waiter: Waiter | undefined;
    const check = () => {
      const log = this.broker.getLog(topic, partition);
      if (!log) return false;
      if (!unsubscribe && waiter) {
        const offAppend = log.onAppend(() => { if (waiter) this.recheck(waiter); });
        const offHw = log.onHighWatermark(() => { if (waiter) this.recheck(waiter); });
        unsubscribe = () => { offAppend(); offHw(); };
        waiter.unsubscribe = unsubscribe;
      }
      return log.highWatermark >= target;
    };
    return this.wait(`high watermark of ${topic}-${partition} to reach ${target}`, check, opts, (w) => { waiter = w; });
  }

  /**
   * Resolves once the group is Stable: a classic group with all members joined and synced, a
   * KIP-848 consumer group with every member reconciled to the current target assignment, a share
   * group with members that all hold the current assignment (group-view.ts, `isGroupStable`).
   */
  waitForGroupStable(groupId: string, opts: WaitOptions = {}): Promise<GroupSnapshot> {
    let last: GroupSnapshot | null = null;
    return this.wait(`group '${groupId}' to become Stable`, async () => {
      last = await this.groups.describeGroup(groupId);
      return isGroupStable(last, (topic) => this.broker.metadataCache.topic(topic)?.partitions ?? null);
    }, opts).then(() => last!);
  }

  /** Resolves once the group has committed at least `offset` for the partition. */
  waitForCommittedOffset(groupId: string, topic: string, partition: number, offset: number | bigint, opts: WaitOptions = {}): Promise<void> {
    const target = BigInt(offset);
    return this.wait(`group '${groupId}' to commit offset ${target} for ${topic}-${partition}`, async () => {
      const c = await this.groups.committedOffset(groupId, topic, partition);
      return c !== null && c >= target;
    }, opts);
  }

  private wait(what: string, check: () => Promise<boolean> | boolean, opts: WaitOptions, onCreate?: (w: Waiter) => void): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the broker has stopped (waiting for ${what})`));
    const timeoutMs = opts.timeoutMs ?? 10000;
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = {
        check,
        resolve: () => { this.finish(w); resolve(); },
        reject: (err) => { this.finish(w); reject(err); },
        timer: setTimeout(() => w.reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs),
        checking: false,
        again: false,
      };
      this.waiters.add(w);
      onCreate?.(w);
      this.recheck(w);
    });
  }

  private finish(w: Waiter): void {
    clearTimeout(w.timer);
    w.unsubscribe?.();
    this.waiters.delete(w);
  }

  private recheckAll(): void {
    for (const w of [...this.waiters]) this.recheck(w);
  }

  private recheck(w: Waiter): void {
    if (!this.waiters.has(w)) return;
    if (w.checking) { w.again = true; return; }
    w.checking = true;
    void (async () => {
      try {
        do {
          w.again = false;
          if (await w.check()) { w.resolve(); return; }
        } while (w.again && this.waiters.has(w));
      } catch (err) {
        w.reject(err instanceof Error ? err : new Error(String(err)));
      } finally {
        w.checking = false;
      }
    })();
  }

  /** Called by stop(): releases holds and delays, rejects pending waits, detaches from the broker. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reset();
    for (const w of [...this.waiters]) w.reject(new Error('the broker stopped'));
    for (const r of [...this.recordings]) r.stop();
  }

  /** Detaches the interceptor (after the broker has stopped). */
  detach(): void {
    if (this.broker.dispatcher.interceptor) this.broker.dispatcher.interceptor = null;
    const server = this.broker.socketServer;
    if (server) server.onConnection = null;
  }
}

class RecordingImpl implements Recording {
  readonly exchanges: RecordedExchange[] = [];
  constructor(private readonly keys: Set<number> | null, private readonly onStop: () => void) {}
  push(ex: RecordedExchange): void {
    if (!this.keys || this.keys.has(ex.apiKey)) this.exchanges.push(ex);
  }
  of(apiKey: ApiKeyLike): RecordedExchange[] {
    const k = apiKeyOf(apiKey);
    return this.exchanges.filter((e) => e.apiKey === k);
  }
  requests(apiKey: ApiKeyLike): any[] {
    return this.of(apiKey).map((e) => e.request);
  }
  clear(): void {
    this.exchanges.length = 0;
  }
  stop(): void {
    this.onStop();
  }
}

/**
 * The request body as handed to tests. A Produce request's record batches are views of the
 * request frame, which the broker reuses for later requests once the batches are written
 * (network/frame-reader.ts): recorded and held exchanges get copies of them.
 */
function keptRequest(req: DecodedRequest): unknown {
  if (req.apiKey !== 0) return req.body;
  const body = req.body as ProduceRequest;
  return {
    ...body,
    topicData: body.topicData.map((t) => ({
      ...t,
      partitionData: t.partitionData.map((p) => ({ ...p, records: copyRecords(p.records) })),
    })),
  };
}

/** The response as handed to tests: a Fetch response's records are views of recycled read buffers, so they are copied. */
function keptResponse(apiKey: number, res: unknown): unknown {
  if (apiKey !== 1 || res === undefined || res === null) return res;
  const body = res as FetchResponse;
  return {
    ...body,
    responses: body.responses.map((t) => ({
      ...t,
      partitions: t.partitions.map((p) => ({ ...p, records: copyRecords(p.records) })),
    })),
  };
}

function copyRecords<T>(records: T): T {
  if (Buffer.isBuffer(records)) return Buffer.from(records) as T;
  if (Array.isArray(records)) return Buffer.concat(records as Buffer[]) as T;
  return records;
}
