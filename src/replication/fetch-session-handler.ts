/**
 * The fetching side of a fetch session (KIP-227), as Kafka's clients FetchSessionHandler: what a
 * follower's replica fetcher sends to one leader, and what it makes of the answers.
 *
 * - With no session (or after an error) the next request is a full fetch with epoch 0, naming
 *   every partition; a full answer with a session id starts a session at epoch 1.
 * - In a session, a request names only the partitions that are new or whose parameters changed
 *   (fetch offset, log start offset, leader epochs, max bytes), and forgets those no longer wanted;
 *   the answer names only the partitions that changed on the leader. Each answer moves the epoch
 *   on (after 2^31-1 comes 1).
 * - Back to a full fetch: FETCH_SESSION_ID_NOT_FOUND (session id 0), any other top-level error, a
 *   failed request or an answer naming partitions outside the session (same session id, epoch 0:
 *   the leader closes it and opens another); a full answer missing session partitions or naming
 *   others is not used and the next fetch starts over. An answer with session id 0 means the
 *   leader keeps no session: the next fetch is full again.
 *
 * Keys are whatever the caller identifies partitions by (the replica fetcher: its Partition
 * objects), so building a request makes no key strings. One handler per leader connection, used
 * by that fetcher's loop only.
 */
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from './fetch-session.js';

/** What one partition asks for (compared field by field to decide whether to send it again). */
export interface SessionPartitionData {
  topicId: string;
  partition: number;
  fetchOffset: number;
  logStartOffset: number;
  maxBytes: number;
  currentLeaderEpoch: number;
  lastFetchedEpoch: number;
}

function sameRequest(a: SessionPartitionData, b: SessionPartitionData): boolean {
  return a.topicId === b.topicId && a.fetchOffset === b.fetchOffset && a.logStartOffset === b.logStartOffset && a.maxBytes === b.maxBytes
    && a.currentLeaderEpoch === b.currentLeaderEpoch && a.lastFetchedEpoch === b.lastFetchedEpoch;
}

export interface SessionFetchRequest<K> {
  sessionId: number;
  sessionEpoch: number;
  /** Full: every partition wanted; incremental: the added ones, then the changed ones. */
  toSend: { key: K; data: SessionPartitionData }[];
  /** Partitions to drop from the session (incremental only). */
  toForget: SessionPartitionData[];
  full: boolean;
}

/** What the handler reads of a Fetch answer (partitions named by topic id: v13+). */
export interface SessionFetchResponse {
  errorCode: number;
  sessionId: number;
  throttleTimeMs: number;
  responses: readonly { topicId: string; partitions: readonly { partitionIndex: number }[] }[];
}

export class FetchSessionHandler<K> {
  /** The next request's session id and epoch (Kafka's nextMetadata). */
  sessionId = INVALID_SESSION_ID;
  epoch = INITIAL_EPOCH;
  /** What the leader holds for this session (in order), as last sent. */
  private session = new Map<K, SessionPartitionData>();
  /** Partitions by topic id and index, for answers (rebuilt when the session changes). */
  private index: Map<string, Map<number, K>> | null = null;

  /** Whether the next request is a full one. */
  get full(): boolean {
    return this.epoch === INITIAL_EPOCH || this.epoch === FINAL_EPOCH;
  }

  /** The request for the partitions wanted now, in order (Kafka's Builder.build). */
  build(wanted: ReadonlyMap<K, SessionPartitionData>): SessionFetchRequest<K> {
    const { sessionId, epoch } = this;
    if (this.full) {
      this.session = new Map(wanted);
      this.index = null;
      const toSend: SessionFetchRequest<K>['toSend'] = [];
      for (const [key, data] of wanted) toSend.push({ key, data });
      return { sessionId, sessionEpoch: epoch, toSend, toForget: [], full: true };
    }
    const added: SessionFetchRequest<K>['toSend'] = [];
    const altered: SessionFetchRequest<K>['toSend'] = [];
    const toForget: SessionPartitionData[] = [];
    let changed = false;
    for (const [key, prev] of this.session) {
      const next = wanted.get(key);
      if (next === undefined) {
        this.session.delete(key);
        toForget.push(prev);
        changed = true;
      } else if (!sameRequest(prev, next)) {
        // A partition whose topic id changed is forgotten under the old id and sent under the new.
        if (prev.topicId !== next.topicId) toForget.push(prev);
        this.session.set(key, next);
        altered.push({ key, data: next });
        changed ||= prev.topicId !== next.topicId;
      }
    }
    for (const [key, data] of wanted) {
      if (this.session.has(key)) continue;
      this.session.set(key, data);
      added.push({ key, data });
      changed = true;
    }
    if (changed) this.index = null;
    // A partition forgotten under one key and added under another (its Partition object was made
    // again) is the same partition to the leader, which adds before it forgets: not forgotten.
    if (toForget.length > 0 && added.length > 0) {
      const sent = new Set<string>();
      for (const a of added) sent.add(`${a.data.topicId}:${a.data.partition}`);
      for (let i = toForget.length - 1; i >= 0; i--) if (sent.has(`${toForget[i].topicId}:${toForget[i].partition}`)) toForget.splice(i, 1);
    }
    for (const a of altered) added.push(a);
    return { sessionId, sessionEpoch: epoch, toSend: added, toForget, full: false };
  }

  /** The session partition an answer's (topic id, partition) names, if any. */
  keyOf(topicId: string, partition: number): K | undefined {
    if (this.index === null) {
      this.index = new Map();
      for (const [key, d] of this.session) {
        let m = this.index.get(d.topicId);
        if (m === undefined) this.index.set(d.topicId, (m = new Map()));
        m.set(d.partition, key);
      }
    }
    return this.index.get(topicId)?.get(partition);
  }

  /**
   * Takes an answer to the request last built (Kafka's handleResponse): whether its partitions
   * may be used.
   */
  handleResponse(res: SessionFetchResponse): boolean {
    if (res.errorCode !== ErrorCode.NONE) {
      if (res.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) this.reset();
      else this.closeAndStartOver();
      return false;
    }
    if (this.full) {
      if (res.responses.length === 0 && res.throttleTimeMs > 0) {
        this.reset();
        return false;
      }
      // Every session partition, and nothing else, in a full answer.
      const found = this.answeredCount(res);
      if (found < 0 || found < this.session.size) {
        this.reset();
        return false;
      }
      if (res.sessionId === INVALID_SESSION_ID) this.reset();
      else {
        this.sessionId = res.sessionId;
        this.epoch = nextEpoch(INITIAL_EPOCH);
      }
      return true;
    }
    if (this.answeredCount(res) < 0) {
      this.closeAndStartOver();
      return false;
    }
    if (res.sessionId === INVALID_SESSION_ID) this.reset();
    else this.epoch = nextEpoch(this.epoch);
    return true;
  }

  /** How many partitions the answer names, or -1 when one is not in the session. */
  private answeredCount(res: SessionFetchResponse): number {
    let n = 0;
    for (const t of res.responses) {
      for (const p of t.partitions) {
        if (this.keyOf(t.topicId, p.partitionIndex) === undefined) return -1;
        n++;
      }
    }
    return n;
  }

  /** The request failed (connection, timeout): close the session with the next request and ask for a new one. */
  handleError(): void {
    this.closeAndStartOver();
  }

  private reset(): void {
    this.sessionId = INVALID_SESSION_ID;
    this.epoch = INITIAL_EPOCH;
  }

  private closeAndStartOver(): void {
    this.epoch = INITIAL_EPOCH;
  }
}
