/**
 * The counters the broker increments while it serves (Kafka's BrokerTopicMetrics,
 * RequestMetrics, SocketServer and ReplicaManager meters); everything that can be read from the
 * broker's state at scrape time (log sizes, offsets, ISR, groups) is not counted here but read by
 * collect.ts.
 *
 * Cost on the data paths: one Map lookup per topic (the name is already a string), then number
 * additions on objects made the first time a topic or API was seen. Produce reads two int32
 * fields of each partition's batch header (record count, size); Fetch reads the same two per
 * returned batch. Nothing is decoded and nothing is allocated per request, except on a Produce
 * whose reply waits (acks=all with replication or samsa.flush.on.acks.all): its per-partition
 * counts are kept until the reply, as the request's frame may be reused meanwhile.
 */
import { Histogram } from './registry.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ProduceRequest } from '../../protocol/generated/messages/produce-request.js';
import type { ProduceResponse } from '../../protocol/generated/messages/produce-response.js';
import type { FetchRequest } from '../../protocol/generated/messages/fetch-request.js';
import type { FetchResponse } from '../../protocol/generated/messages/fetch-response.js';

const LENGTH_OFFSET = 8;
const RECORDS_COUNT_OFFSET = 57;
const BATCH_HEADER_BYTES = 61;
const LOG_OVERHEAD = 12;

/** Kafka's per-topic BrokerTopicMetrics meters (their Count attributes). */
export class TopicStats {
  messagesIn = 0;
  bytesIn = 0;
  bytesOut = 0;
  /** Samsa only (Kafka has no messages-out meter): records in the batches returned to consumers. */
  messagesOut = 0;
  bytesRejected = 0;
  replicationBytesOut = 0;
  totalProduceRequests = 0;
  failedProduceRequests = 0;
  totalFetchRequests = 0;
  failedFetchRequests = 0;
  constructor(readonly topic: string) {}
}

/** Kafka's RequestMetrics for one API: requests per version, errors per code, the time histograms. */
export class RequestStats {
  /** Requests by version (index = version). */
  readonly byVersion: number[] = [];
  /** Response error codes (whole-request, and per partition for Produce and Fetch) → count. */
  readonly errors = new Map<number, number>();
  /** Frame received → response ready (Kafka's TotalTimeMs without the socket send). */
  readonly totalTime = new Histogram();
  /** Frame received → dispatch (waiting behind the connection's earlier requests). */
  readonly requestQueueTime = new Histogram();
  /** The handler's own work. */
  readonly localTime = new Histogram();
  /** A deferred reply's wait (replication, fsync): Kafka's RemoteTimeMs (time in purgatory). */
  readonly remoteTime = new Histogram();
  /** Response written → handed to the kernel (socket write callback): Kafka's ResponseSendTimeMs. */
  readonly responseSendTime = new Histogram();
  constructor(readonly apiKey: number, readonly name: string) {}

  countError(code: number, n = 1): void {
    this.errors.set(code, (this.errors.get(code) ?? 0) + n);
  }
}

/** SocketServer's per-listener connection figures. */
export class ListenerStats {
  active = 0;
  created = 0;
  closed = 0;
  failedAuthentication = 0;
  successfulAuthentication = 0;
  constructor(readonly listener: string) {}
}

function isFollowerFetch(req: FetchRequest): boolean {
  return req.replicaId >= 0 || (req.replicaState !== null && req.replicaState.replicaId >= 0);
}

/** Reads a big-endian int32 at `pos` of the concatenation of `chunks` (a fetch's records). */
function int32Across(chunks: readonly Buffer[], pos: number): number {
  let base = 0;
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i];
    if (pos + 4 <= base + c.length && pos >= base) return c.readInt32BE(pos - base);
    if (pos < base + c.length) {
      let v = 0;
      for (let k = 0; k < 4; k++) v = (v << 8) | byteAcross(chunks, pos + k);
      return v;
    }
    base += c.length;
  }
  return -1;
}

function byteAcross(chunks: readonly Buffer[], pos: number): number {
  let base = 0;
  for (const c of chunks) {
    if (pos < base + c.length) return c[pos - base];
    base += c.length;
  }
  return 0;
}

/**
 * Records in the complete batches of a fetch's records (a last, partial batch is not counted: the
 * consumer cannot read it either). Counts batch headers only.
 */
export function recordsInBatches(records: Buffer | Buffer[] | null): number {
  if (records === null) return 0;
  let n = 0;
  if (Buffer.isBuffer(records)) {
    let pos = 0;
    while (pos + BATCH_HEADER_BYTES <= records.length) {
      const size = LOG_OVERHEAD + records.readInt32BE(pos + LENGTH_OFFSET);
      if (size < BATCH_HEADER_BYTES || pos + size > records.length) break;
      n += records.readInt32BE(pos + RECORDS_COUNT_OFFSET);
      pos += size;
    }
    return n;
  }
  let total = 0;
  for (let i = 0; i < records.length; i++) total += records[i].length;
  let pos = 0;
  while (pos + BATCH_HEADER_BYTES <= total) {
    const size = LOG_OVERHEAD + int32Across(records, pos + LENGTH_OFFSET);
    if (size < BATCH_HEADER_BYTES || pos + size > total) break;
    n += int32Across(records, pos + RECORDS_COUNT_OFFSET);
    pos += size;
  }
  return n;
}

function recordsBytes(records: Buffer | Buffer[] | null): number {
  if (records === null) return 0;
  if (Buffer.isBuffer(records)) return records.length;
  let n = 0;
  for (let i = 0; i < records.length; i++) n += records[i].length;
  return n;
}

/** The read errors Kafka's FailedFetchRequestsPerSec leaves out ("known exceptions" of readFromLog). */
const EXPECTED_READ_ERRORS: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.UNKNOWN_LEADER_EPOCH, ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.REPLICA_NOT_AVAILABLE, ErrorCode.KAFKA_STORAGE_ERROR, ErrorCode.OFFSET_OUT_OF_RANGE, ErrorCode.OFFSET_MOVED_TO_TIERED_STORAGE,
]);

export class BrokerMetrics {
  readonly topics = new Map<string, TopicStats>();
  private readonly requests: (RequestStats | undefined)[] = [];
  readonly listeners = new Map<string, ListenerStats>();
  isrShrinks = 0;
  isrExpands = 0;
  /** Produce replies waiting (acks=all replication, fsync): Kafka's Produce purgatory size. */
  delayedProduce = 0;
  /** Fetches long-polling for data: Kafka's Fetch purgatory size. */
  delayedFetch = 0;
  readonly startedAtMs = Date.now();

  constructor(private readonly apiName: (apiKey: number) => string) {}

  topic(name: string): TopicStats {
    let t = this.topics.get(name);
    if (t === undefined) {
      t = new TopicStats(name);
      this.topics.set(name, t);
    }
    return t;
  }

  /**
   * The partitions a Fetch read (`parts[i]` answered by `results[i]`): Kafka's
   * ReplicaManager.readFromLog marks TotalFetchRequestsPerSec for every partition it reads, an
   * incremental session's implied ones included, and FailedFetchRequestsPerSec only for a read
   * that failed unexpectedly (not a partition led elsewhere, an epoch or offset out of range, a
   * storage error). Partitions answered without a read (unknown, unauthorized) count in neither,
   * as in Kafka. One counter lookup per run of partitions of one topic.
   */
  onFetchReads(parts: readonly { topic: { name: string } }[], results: readonly { errorCode: number }[]): void {
    let name: string | null = null;
    let ts: TopicStats | null = null;
    for (let i = 0; i < parts.length; i++) {
      if (parts[i].topic.name !== name) {
        name = parts[i].topic.name;
        ts = this.topic(name);
      }
      ts!.totalFetchRequests++;
      const code = results[i].errorCode;
      if (code !== ErrorCode.NONE && !EXPECTED_READ_ERRORS.has(code)) ts!.failedFetchRequests++;
    }
  }

  /** Forgets a deleted topic's counters (Kafka removes its BrokerTopicMetrics too). */
  removeTopic(name: string): void {
    this.topics.delete(name);
  }

  request(apiKey: number): RequestStats {
    let r = this.requests[apiKey];
    if (r === undefined) {
      r = new RequestStats(apiKey, this.apiName(apiKey));
      this.requests[apiKey] = r;
    }
    return r;
  }

  allRequests(): RequestStats[] {
    return this.requests.filter((r): r is RequestStats => r !== undefined);
  }

  listener(name: string): ListenerStats {
    let l = this.listeners.get(name);
    if (l === undefined) {
      l = new ListenerStats(name);
      this.listeners.set(name, l);
    }
    return l;
  }

  connectionOpened(listener: string): void {
    const l = this.listener(listener);
    l.active++;
    l.created++;
  }

  connectionClosed(listener: string): void {
    const l = this.listener(listener);
    l.active--;
    l.closed++;
  }

  /**
   * A Produce handler returned (called before the request's frame may be reused). `response`:
   * the reply, undefined for acks=0 (every partition appended, else the handler threw); or
   * `later`, a reply that comes later (a deferred response), whose partitions are counted then.
   */
  onProduce(req: ProduceRequest, response: unknown, stats: RequestStats, later?: Promise<unknown>, nameOf: ((t: { topicId: string }) => string) | null = null): void {
    if (later !== undefined) {
      const counts: number[] = [];
      for (const t of req.topicData) for (const p of t.partitionData) counts.push(batchRecords(p.records), recordsBytes(p.records));
      this.delayedProduce++;
      later.then((res) => this.countProduce(req, res as ProduceResponse | undefined, stats, counts, nameOf), () => undefined)
        .finally(() => { this.delayedProduce--; });
      return;
    }
    this.countProduce(req, response as ProduceResponse | undefined, stats, null, nameOf);
  }

  private countProduce(req: ProduceRequest, res: ProduceResponse | undefined, stats: RequestStats, counts: number[] | null, nameOf: ((t: { topicId: string }) => string) | null): void {
    let k = 0;
    for (let ti = 0; ti < req.topicData.length; ti++) {
      const t = req.topicData[ti];
      const ts = this.topic(nameOf ? nameOf(t) : t.name);
      const partitions = res?.responses[ti]?.partitionResponses;
      for (let pi = 0; pi < t.partitionData.length; pi++) {
        const p = t.partitionData[pi];
        const code = partitions ? (partitions[pi]?.errorCode ?? ErrorCode.NONE) : ErrorCode.NONE;
        const messages = counts ? counts[k] : batchRecords(p.records);
        const bytes = counts ? counts[k + 1] : recordsBytes(p.records);
        k += 2;
        ts.totalProduceRequests++;
        stats.countError(code);
        if (code === ErrorCode.NONE) {
          ts.messagesIn += messages;
          ts.bytesIn += bytes;
        } else {
          ts.failedProduceRequests++;
          ts.bytesRejected += bytes;
        }
      }
    }
  }

  /** A Fetch response is about to be encoded (its records are still valid). */
  onFetch(req: FetchRequest, res: FetchResponse, stats: RequestStats, topics: { topicById(topicId: string): { name: string } | undefined }): void {
    const follower = isFollowerFetch(req);
    if (res.errorCode !== ErrorCode.NONE) stats.countError(res.errorCode);
    for (const t of res.responses) {
      const name = t.topic !== '' ? t.topic : topics.topicById(t.topicId)?.name;
      const ts = name === undefined ? undefined : this.topic(name);
      for (const p of t.partitions) {
        stats.countError(p.errorCode);
        if (ts === undefined || p.errorCode !== ErrorCode.NONE) continue;
        const bytes = recordsBytes(p.records);
        if (bytes === 0) continue;
        if (follower) {
          ts.replicationBytesOut += bytes;
        } else {
          ts.bytesOut += bytes;
          ts.messagesOut += recordsInBatches(p.records);
        }
      }
    }
  }
}

/**
 * Counts every `errorCode` in a response (the whole-request one and those of its topics,
 * partitions, groups, members …), as Kafka's AbstractResponse.errorCounts does; a response with
 * none counts NONE once. For APIs other than Produce and Fetch (low-rate, small answers); walks
 * plain objects and arrays only (records and other Buffers are skipped), without allocating.
 */
export function countResponseErrors(stats: RequestStats, response: unknown): void {
  if (countIn(stats, response, 0) === 0) stats.countError(ErrorCode.NONE);
}

function countIn(stats: RequestStats, v: unknown, depth: number): number {
  if (v === null || typeof v !== 'object' || depth > 8 || Buffer.isBuffer(v)) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    // Message arrays are of one type: an array of numbers or strings (replica lists, ids) holds no error code.
    if (v.length === 0 || v[0] === null || typeof v[0] !== 'object') return 0;
    for (let i = 0; i < v.length; i++) n += countIn(stats, v[i], depth + 1);
    return n;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (k === 'errorCode' && typeof x === 'number') {
      stats.countError(x);
      n++;
    } else if (x !== null && typeof x === 'object') {
      n += countIn(stats, x, depth + 1);
    }
  }
  return n;
}

/** The record count of a Produce partition's (single) batch. */
function batchRecords(records: Buffer | Buffer[] | null): number {
  if (records === null || !Buffer.isBuffer(records) || records.length < BATCH_HEADER_BYTES) return 0;
  return records.readInt32BE(RECORDS_COUNT_OFFSET);
}
