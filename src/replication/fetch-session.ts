/**
 * Fetch sessions (KIP-227), as Kafka 4.4 keeps them (server/FetchSession, FetchSessionCacheShard,
 * FetchManager.newContext and the four FetchContexts).
 *
 * A client that sends a full fetch with epoch 0 gets a session id back (when the cache has room);
 * from then on it sends epoch 1, 2, ... and names only the partitions whose fetch parameters
 * changed (plus the ones to forget), and the answer carries only the partitions with something to
 * say: records, a new high watermark or log start offset, an error, a diverging epoch. The cached
 * partitions are read on every fetch all the same (a fetch with no changes waits for data like
 * any other); only the request and the response shrink.
 *
 * - Contexts (FetchManager.newContext): epoch 0 or -1 is a full fetch; a session id given with it
 *   is closed. Epoch 0 makes a FullFetchContext, which creates a session from the answer (random
 *   non-zero id); -1 a sessionless one (session id 0 in the answer). Any other epoch is an
 *   incremental fetch of an existing session: unknown id FETCH_SESSION_ID_NOT_FOUND, another epoch
 *   INVALID_FETCH_SESSION_EPOCH, topic ids used by the session but not by the request version (13)
 *   or the reverse FETCH_SESSION_TOPIC_ID_ERROR, each answered with no partitions and session id
 *   0. A session left with no partition is closed (sessionless answer).
 * - Incremental answers (IncrementalFetchContext.updateAndGenerateResponseData): a partition is
 *   sent when it has records, its high watermark or log start offset differs from the last one
 *   sent, it has an error (its cached high watermark becomes -1, so it is sent again once the
 *   error clears), a diverging epoch or a preferred read replica. Kafka does not look at the last
 *   stable offset. A partition that returned records moves to the end of the session's order, so
 *   that under max_bytes the others get their turn. The session's epoch is checked again when the
 *   answer is built: a session used by another request meanwhile answers INVALID_FETCH_SESSION_EPOCH.
 * - The cache (FetchSessionCacheShard): max.incremental.fetch.session.cache.slots split over 8
 *   shards (Kafka shards it for lock contention; the shards also decide eviction, so Samsa keeps
 *   them): new sessions go to the shards in turn, a session id names its shard (id / (2^31-1 / 8);
 *   an id past the last shard is UNKNOWN_SERVER_ERROR, Kafka's IndexOutOfBoundsException). A shard
 *   that is full evicts, for a new session, the least recently used one if it has been idle more
 *   than 120 s (MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, fixed in Kafka), else the least
 *   valuable evictable one (EvictableKey: unprivileged before privileged, then fewer partitions,
 *   then lower id) if the new one is worth more: follower (privileged) sessions evict consumer
 *   sessions, and a session with more partitions one with fewer, but only sessions older than
 *   120 s at their last use (any consumer session, for a follower). Kafka keeps those orders in
 *   TreeMaps; a shard here has at most slots / 8 sessions and scans them when it is full.
 *
 * Ownership: the FetchSessionCache belongs to the ReplicaManager (one per broker, `fetchSessions`)
 * and is read and changed on the event loop only. Every look-up-and-update (newContext, the
 * answer's respond/finish) is one synchronous step with no await in it, which is what Kafka's
 * shard and session locks give it. A fetch's long poll lies between its context and its answer.
 *
 * Hot path: an incremental fetch walks the session's linked list once to list its partitions,
 * looks up only the partitions the request names (a Map per topic key, then a Map per partition),
 * and decides each answer from plain numbers. Objects per partition are made only when a request
 * names a partition (the CachedPartition the session adopts, or discards after copying its
 * parameters).
 */
import type { Clock } from '../clock.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { FetchTopic, ForgottenTopic } from '../protocol/generated/messages/fetch-request.js';
import { ZERO_UUID } from '../protocol/reader.js';

export const INVALID_SESSION_ID = 0;
/** A full fetch that asks for a session. */
export const INITIAL_EPOCH = 0;
/** A full fetch that wants no session (and the epoch of every request before v7). */
export const FINAL_EPOCH = -1;
/** Kafka's KafkaBroker.NumFetchSessionCacheShards. */
export const FETCH_SESSION_CACHE_SHARDS = 8;
/** Kafka's KafkaBroker.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS (not a setting). */
export const MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000;
const INT32_MAX = 2147483647;

/** FetchMetadata.nextEpoch: after -1 comes -1; after 2^31-1 comes 1. */
export function nextEpoch(prev: number): number {
  if (prev < 0) return FINAL_EPOCH;
  return prev === INT32_MAX ? 1 : prev + 1;
}

/**
 * One partition of a fetch: what the request asked (kept for the partitions a later incremental
 * request leaves out) and, in a session, what the last answer said (Kafka's CachedPartition).
 */
export class CachedPartition {
  /** The session's order (a partition that returned records moves to the end). */
  prev: CachedPartition | null = null;
  next: CachedPartition | null = null;
  /** The high watermark and log start offset last sent; -1 before an answer and after an error. */
  highWatermark = -1;
  localLogStartOffset = -1;

  constructor(
    /** The topic's name; null for a topic id this broker did not know when it was asked for. */
    public topic: string | null,
    /** The zero uuid before v13 (the session is keyed by name then). */
    readonly topicId: string,
    readonly partition: number,
    public fetchOffset: number,
    /** The fetcher's log start offset (followers). */
    public logStartOffset: number,
    public maxBytes: number,
    public currentLeaderEpoch: number,
    public lastFetchedEpoch: number,
  ) {}

  /** Takes another request's parameters for this partition (Kafka's updateRequestParams). */
  updateRequestParams(from: CachedPartition): void {
    this.maxBytes = from.maxBytes;
    this.fetchOffset = from.fetchOffset;
    this.logStartOffset = from.logStartOffset;
    this.currentLeaderEpoch = from.currentLeaderEpoch;
    this.lastFetchedEpoch = from.lastFetchedEpoch;
  }

  /**
   * Whether this partition's answer must be sent in an incremental response, remembering what is
   * sent (Kafka's maybeUpdateResponseData with updateResponseData = true).
   */
  mustRespond(errorCode: number, highWatermark: number, logStartOffset: number, recordsBytes: number, diverging: boolean, preferredReadReplica: number): boolean {
    let must = recordsBytes > 0;
    if (this.highWatermark !== highWatermark) {
      must = true;
      this.highWatermark = highWatermark;
    }
    if (this.localLogStartOffset !== logStartOffset) {
      must = true;
      this.localLogStartOffset = logStartOffset;
    }
    if (preferredReadReplica >= 0) must = true;
    if (errorCode !== ErrorCode.NONE) {
      // Sent again once the error is gone, whatever the high watermark is then.
      this.highWatermark = -1;
      must = true;
    }
    return must || diverging;
  }
}

/**
 * A session's partitions in order (a linked list through the CachedPartitions) with an index by
 * topic key (the id from v13, else the name) and partition. Kafka's ImplicitLinkedHashCollection.
 */
export class PartitionList {
  head: CachedPartition | null = null;
  tail: CachedPartition | null = null;
  size = 0;
  private readonly index = new Map<string, Map<number, CachedPartition>>();

  constructor(readonly byId: boolean) {}

  keyOf(p: CachedPartition): string {
    return this.byId ? p.topicId : p.topic ?? '';
  }

  hasTopic(key: string): boolean {
    return this.index.has(key);
  }

  find(key: string, partition: number): CachedPartition | undefined {
    return this.index.get(key)?.get(partition);
  }

  /** Appends `p` unless its partition is there already (then returns the one there). */
  add(p: CachedPartition): CachedPartition {
    const key = this.keyOf(p);
    let byPartition = this.index.get(key);
    if (byPartition === undefined) this.index.set(key, (byPartition = new Map()));
    const there = byPartition.get(p.partition);
    if (there !== undefined) return there;
    byPartition.set(p.partition, p);
    this.link(p);
    this.size++;
    return p;
  }

  remove(p: CachedPartition): void {
    const key = this.keyOf(p);
    const byPartition = this.index.get(key);
    if (byPartition?.get(p.partition) !== p) return;
    byPartition.delete(p.partition);
    if (byPartition.size === 0) this.index.delete(key);
    this.unlink(p);
    this.size--;
  }

  moveToEnd(p: CachedPartition): void {
    if (this.tail === p) return;
    this.unlink(p);
    this.link(p);
  }

  /** The partitions in order, as an array (what a fetch reads). */
  toArray(): CachedPartition[] {
    const out = new Array<CachedPartition>(this.size);
    let i = 0;
    for (let p = this.head; p !== null; p = p.next) out[i++] = p;
    return out;
  }

  private link(p: CachedPartition): void {
    p.prev = this.tail;
    p.next = null;
    if (this.tail === null) this.head = p;
    else this.tail.next = p;
    this.tail = p;
  }

  private unlink(p: CachedPartition): void {
    if (p.prev === null) this.head = p.next;
    else p.prev.next = p.next;
    if (p.next === null) this.tail = p.prev;
    else p.next.prev = p.prev;
    p.prev = p.next = null;
  }
}

/** One incremental fetch session (Kafka's FetchSession). */
export class FetchSession {
  /** The size the shard counted at the last touch; -1 while not in the cache. */
  cachedSize = -1;
  /** Membership of the shard's eviction orders, decided at each touch (Kafka's two TreeMaps). */
  evictableByAll = false;
  evictableByPrivileged = false;

  constructor(
    readonly id: number,
    /** A follower's session. */
    readonly privileged: boolean,
    readonly partitions: PartitionList,
    readonly usesTopicIds: boolean,
    readonly creationMs: number,
    public lastUsedMs: number,
    /** The epoch the next request must carry. */
    public epoch: number,
  ) {}

  get size(): number {
    return this.partitions.size;
  }

  /**
   * The request's partitions join the session or update their parameters there; the forgotten
   * ones leave (Kafka's FetchSession.update). Returns how many were added, updated, removed.
   */
  update(fetchData: readonly CachedPartition[], toForget: readonly ForgottenTopic[]): { added: number; updated: number; removed: number } {
    let added = 0, updated = 0, removed = 0;
    const list = this.partitions;
    for (let i = 0; i < fetchData.length; i++) {
      const p = fetchData[i];
      const there = list.add(p);
      if (there === p) added++;
      else {
        there.updateRequestParams(p);
        updated++;
      }
    }
    for (const t of toForget) {
      const key = list.byId ? t.topicId : t.topic;
      for (const partition of t.partitions) {
        const p = list.find(key, partition);
        if (p === undefined) continue;
        list.remove(p);
        removed++;
      }
    }
    return { added, updated, removed };
  }
}

/** Kafka's EvictableKey order: unprivileged first, then fewer partitions, then lower id. */
function evictableBefore(aPrivileged: boolean, aSize: number, aId: number, b: FetchSession): boolean {
  if (aPrivileged !== b.privileged) return !aPrivileged;
  if (aSize !== b.cachedSize) return aSize < b.cachedSize;
  return aId < b.id;
}

export interface FetchSessionCacheOptions {
  /** max.incremental.fetch.session.cache.slots (all shards together). */
  slots: number;
  clock: Clock;
  /** Idle time after which a session may be evicted by any other (Kafka's constant by default). */
  evictionMs?: number;
  /** [0, 1) (tests make session ids predictable). */
  random?: () => number;
}

/** One shard: at most `maxEntries` sessions, ids in [max(1, shard × range), (shard + 1) × range). */
export class FetchSessionCacheShard {
  readonly sessions = new Map<number, FetchSession>();
  /** Partitions of all sessions as counted at their last touch (NumIncrementalFetchPartitionsCached). */
  numPartitions = 0;

  constructor(
    readonly maxEntries: number,
    private readonly evictionMs: number,
    readonly sessionIdRange: number,
    readonly shardNum: number,
    private readonly random: () => number,
    private readonly onEvict: () => void,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  private newSessionId(): number {
    const lo = Math.max(1, this.shardNum * this.sessionIdRange);
    const span = (this.shardNum + 1) * this.sessionIdRange - lo;
    for (;;) {
      const id = lo + Math.floor(this.random() * span);
      if (id !== INVALID_SESSION_ID && !this.sessions.has(id)) return id;
    }
  }

  /** A new session of `partitions` if there is room or something may be evicted for it; its id, else 0. */
  maybeCreateSession(now: number, privileged: boolean, partitions: PartitionList, usesTopicIds: boolean): number {
    if (this.sessions.size >= this.maxEntries && !this.tryEvict(privileged, partitions.size, now)) return INVALID_SESSION_ID;
    const session = new FetchSession(this.newSessionId(), privileged, partitions, usesTopicIds, now, now, nextEpoch(INITIAL_EPOCH));
    this.sessions.set(session.id, session);
    this.touch(session, now);
    return session.id;
  }

  /**
   * Kafka's tryEvict: the least recently used session if idle for more than evictionMs; else the
   * first of the evictable order (evictableByPrivileged for a privileged newcomer, evictableByAll
   * otherwise) if the newcomer's key is not below it.
   */
  private tryEvict(privileged: boolean, size: number, now: number): boolean {
    let oldest: FetchSession | null = null;
    let first: FetchSession | null = null;
    for (const s of this.sessions.values()) {
      if (oldest === null || s.lastUsedMs < oldest.lastUsedMs || (s.lastUsedMs === oldest.lastUsedMs && s.id < oldest.id)) oldest = s;
      if (!(privileged ? s.evictableByPrivileged : s.evictableByAll)) continue;
      if (first === null || evictableBefore(s.privileged, s.cachedSize, s.id, first)) first = s;
    }
    if (oldest === null) return false;
    if (now - oldest.lastUsedMs > this.evictionMs) {
      this.remove(oldest);
      this.onEvict();
      return true;
    }
    // The newcomer's key has id 0: it must be strictly above `first` on privilege or size.
    if (first === null || evictableBefore(privileged, size, 0, first)) return false;
    this.remove(first);
    this.onEvict();
    return true;
  }

  remove(session: FetchSession): boolean {
    if (this.sessions.get(session.id) !== session) return false;
    this.sessions.delete(session.id);
    this.numPartitions -= session.cachedSize;
    session.cachedSize = -1;
    session.evictableByAll = session.evictableByPrivileged = false;
    return true;
  }

  /** Marks a use: last-used time, size and eviction orders (Kafka's touch). */
  touch(session: FetchSession, now: number): void {
    session.lastUsedMs = now;
    if (session.cachedSize !== -1) this.numPartitions -= session.cachedSize;
    session.cachedSize = session.size;
    const old = now - session.creationMs > this.evictionMs;
    session.evictableByPrivileged = !session.privileged || old;
    session.evictableByAll = old;
    this.numPartitions += session.cachedSize;
  }
}

/** What newContext needs of a Fetch request. */
export interface FetchSessionRequest {
  version: number;
  sessionId: number;
  sessionEpoch: number;
  /** A follower's fetch (its sessions are privileged). */
  follower: boolean;
  topics: readonly FetchTopic[];
  forgotten: readonly ForgottenTopic[];
  /** A topic id's name, undefined when unknown (v13+ only). */
  topicName: (topicId: string) => string | undefined;
}

/** The partitions a request names, in its order (FetchRequest.fetchData). */
function requested(req: FetchSessionRequest): CachedPartition[] {
  const byId = req.version >= 13;
  const out: CachedPartition[] = [];
  for (const t of req.topics) {
    const name = byId ? (req.topicName(t.topicId) ?? null) : t.topic;
    const topicId = byId ? t.topicId : ZERO_UUID;
    for (const p of t.partitions) {
      out.push(new CachedPartition(name, topicId, p.partition, Number(p.fetchOffset), Number(p.logStartOffset), p.partitionMaxBytes, p.currentLeaderEpoch, req.version >= 12 ? p.lastFetchedEpoch : -1));
    }
  }
  return out;
}

export type FetchContextKind = 'sessionError' | 'sessionless' | 'full' | 'incremental';

/**
 * How one Fetch is answered (Kafka's FetchContext): which partitions it reads, then, partition by
 * partition, which answers go out, and the session id of the answer.
 *
 *   const c = cache.newContext(req);            // errorCode ≠ NONE: answer that, no partitions
 *   read c.partitions ...
 *   const e = c.start();                        // an incremental fetch checks its epoch again
 *   for each i: if (c.include(i, ...)) encode   // the incremental filter
 *   sessionId = c.finish()                      // a full fetch creates its session here
 */
export class FetchContext {
  constructor(
    readonly kind: FetchContextKind,
    /** NONE, or the session error answered with no partitions (sessionError). */
    readonly errorCode: number,
    /** What this fetch reads, in order: the request's partitions, or every one of the session. */
    readonly partitions: readonly CachedPartition[],
    private readonly cache: FetchSessionCache,
    private readonly session: FetchSession | null = null,
    /** The request's epoch (incremental). */
    private readonly requestEpoch = 0,
    /** The full fetch's partitions, adopted by the session it creates. */
    private readonly list: PartitionList | null = null,
    private readonly follower = false,
  ) {}

  /** An incremental fetch's session was used by another request since this one began. */
  private stale(): boolean {
    return this.session !== null && this.session.epoch !== nextEpoch(this.requestEpoch);
  }

  /** The error code of the answer about to be built (INVALID_FETCH_SESSION_EPOCH: send no partitions). */
  start(): number {
    return this.stale() ? ErrorCode.INVALID_FETCH_SESSION_EPOCH : ErrorCode.NONE;
  }

  /**
   * Whether partition `i`'s answer goes out; in a session, remembers what was sent. Call in the
   * order of the answer, after start() returned NONE: the partitions read in the order of
   * `partitions`, then those answered without a read (`unread`), in that order too.
   */
  include(i: number, errorCode: number, highWatermark: number, logStartOffset: number, recordsBytes: number, diverging: boolean, preferredReadReplica = -1, unread = false): boolean {
    const p = this.partitions[i];
    switch (this.kind) {
      case 'incremental': {
        if (!p.mustRespond(errorCode, highWatermark, logStartOffset, recordsBytes, diverging, preferredReadReplica)) return false;
        if (recordsBytes > 0) this.session!.partitions.moveToEnd(p);
        return true;
      }
      case 'full':
        // What the new session starts from (Kafka builds its CachedPartitions from the answer, so
        // in its order: the partitions answered without a read go last).
        p.highWatermark = highWatermark;
        p.localLogStartOffset = logStartOffset;
        if (unread) this.list!.moveToEnd(p);
        return true;
      default:
        return true;
    }
  }

  /**
   * The answer's session id; a full fetch's session is created now (0 when the cache has no room).
   * For an incremental fetch, also the id of an INVALID_FETCH_SESSION_EPOCH answer.
   */
  finish(): number {
    if (this.kind === 'incremental') return this.session!.id;
    if (this.kind !== 'full') return INVALID_SESSION_ID;
    return this.cache.createSession(this.follower, this.list!);
  }

  /** A throttled answer (no partitions): its error code and session id (Kafka's getThrottledResponse). */
  throttled(): { errorCode: number; sessionId: number } {
    if (this.kind !== 'incremental') return { errorCode: ErrorCode.NONE, sessionId: INVALID_SESSION_ID };
    return { errorCode: this.stale() ? ErrorCode.INVALID_FETCH_SESSION_EPOCH : ErrorCode.NONE, sessionId: this.session!.id };
  }
}

/**
 * The broker's fetch sessions (Kafka's FetchSessionCache over its shards, and FetchManager).
 * Owned by the ReplicaManager; used on the event loop only (see the file comment).
 */
export class FetchSessionCache {
  readonly shards: FetchSessionCacheShard[];
  /** IncrementalFetchSessionEvictionsPerSec's count. */
  evictions = 0;
  private counter = 0;
  private readonly clock: Clock;

  constructor(opts: FetchSessionCacheOptions) {
    this.clock = opts.clock;
    const range = Math.floor(INT32_MAX / FETCH_SESSION_CACHE_SHARDS);
    const perShard = Math.floor(Math.max(0, opts.slots) / FETCH_SESSION_CACHE_SHARDS);
    const random = opts.random ?? Math.random;
    const evictionMs = opts.evictionMs ?? MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS;
    this.shards = Array.from({ length: FETCH_SESSION_CACHE_SHARDS }, (_, n) =>
      new FetchSessionCacheShard(perShard, evictionMs, range, n, random, () => { this.evictions++; }));
  }

  /** NumIncrementalFetchSessions. */
  get size(): number {
    let n = 0;
    for (const s of this.shards) n += s.size;
    return n;
  }

  /** NumIncrementalFetchPartitionsCached. */
  get totalPartitions(): number {
    let n = 0;
    for (const s of this.shards) n += s.numPartitions;
    return n;
  }

  /** The shard of a session id (an id past the last shard fails the request as in Kafka). */
  shardOf(sessionId: number): FetchSessionCacheShard {
    const shard = this.shards[Math.trunc(sessionId / this.shards[0].sessionIdRange)];
    if (shard === undefined) throw new KafkaApiError(ErrorCode.UNKNOWN_SERVER_ERROR, `fetch session id ${sessionId} is outside every cache shard`);
    return shard;
  }

  get(sessionId: number): FetchSession | undefined {
    return this.shardOf(sessionId).get(sessionId);
  }

  /**
   * Whether session `sessionId` holds a partition of a topic (topic key: the id for a v13+
   * session, else the name), or that one partition (test control).
   */
  sessionHas(sessionId: number, topicKey: string, partition?: number): boolean {
    const list = this.shards[Math.trunc(sessionId / this.shards[0].sessionIdRange)]?.get(sessionId)?.partitions;
    if (list === undefined) return false;
    return partition === undefined ? list.hasTopic(topicKey) : list.find(topicKey, partition) !== undefined;
  }

  /** Creates a session in the next shard in turn (FullFetchContext); its id, or 0. */
  createSession(privileged: boolean, partitions: PartitionList): number {
    const shard = this.shards[(this.counter++ & INT32_MAX) % this.shards.length];
    return shard.maybeCreateSession(this.clock.now(), privileged, partitions, partitions.byId);
  }

  /** Kafka's FetchManager.newContext (see the file comment). Synchronous: look-up and update in one step. */
  newContext(req: FetchSessionRequest): FetchContext {
    const { sessionId, sessionEpoch: epoch } = req;
    if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
      // A full fetch closes the session it names.
      if (sessionId !== INVALID_SESSION_ID) {
        const shard = this.shardOf(sessionId);
        const old = shard.get(sessionId);
        if (old) shard.remove(old);
      }
      const parts = requested(req);
      if (epoch === FINAL_EPOCH) return new FetchContext('sessionless', ErrorCode.NONE, parts, this);
      // A partition named twice is asked for once, with the last parameters (a map in Kafka).
      const list = new PartitionList(req.version >= 13);
      for (const p of parts) {
        const there = list.add(p);
        if (there !== p) there.updateRequestParams(p);
      }
      return new FetchContext('full', ErrorCode.NONE, list.size === parts.length ? parts : list.toArray(), this, null, 0, list, req.follower);
    }
    const shard = this.shardOf(sessionId);
    const session = shard.get(sessionId);
    if (session === undefined) return new FetchContext('sessionError', ErrorCode.FETCH_SESSION_ID_NOT_FOUND, [], this);
    if (session.epoch !== epoch) return new FetchContext('sessionError', ErrorCode.INVALID_FETCH_SESSION_EPOCH, [], this);
    if (session.usesTopicIds !== (req.version >= 13)) return new FetchContext('sessionError', ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR, [], this);
    const parts = requested(req);
    session.update(parts, req.forgotten);
    if (session.size === 0) {
      shard.remove(session);
      return new FetchContext('sessionless', ErrorCode.NONE, parts, this);
    }
    shard.touch(session, this.clock.now());
    session.epoch = nextEpoch(session.epoch);
    return new FetchContext('incremental', ErrorCode.NONE, session.partitions.toArray(), this, session, epoch);
  }
}
