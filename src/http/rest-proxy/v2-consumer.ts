/**
 * One REST Proxy v2 consumer instance (Confluent's KafkaConsumerState): a real consumer of this
 * broker driven in-process as its creator's HTTP user. Subscribed, it is a member of its consumer
 * group with the KIP-848 protocol (v2-membership.ts: the broker assigns the partitions); assigned
 * (POST .../assignments), it reads the partitions it was given without joining. It keeps a position
 * per partition (from the committed offset, else auto.offset.reset), reads with Fetch by topic id,
 * commits with OffsetCommit v9 (member id and epoch when a member, -1 otherwise), auto-commits its
 * positions every 5 s, before giving partitions up and when closed (auto.commit.enable, default
 * true), and seeks with ListOffsets.
 *
 * Everything an instance does runs through its own serial queue (`run`): the HTTP operations and
 * its heartbeat timer's ticks, so positions, assignment and membership never change under a
 * running operation. A read holds the queue for up to its timeout and heartbeats inline when one
 * falls due. Timers are unref'd; they stop at close(), at stop() (stopRestConsumers), and by
 * themselves once the broker is stopping.
 */
import type { HttpBroker } from '../http-broker.js';
import { sendInProcess } from '../in-process.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { defaultFetchRequest, defaultReplicaState } from '../../protocol/generated/messages/fetch-request.js';
import type { FetchResponse } from '../../protocol/generated/messages/fetch-response.js';
import { commitOffsets, fetchCommitted, nameKey, type OffsetToCommit, type Send, type TopicPartition } from './v2-offsets.js';
import { GroupMembership, type IdPartition } from './v2-membership.js';
import { jsonDeserialize, newBudget, takeRecords, type Deserialize, type RestRecord } from './v2-records.js';
import { schemaDeserializer } from './v2-schema-records.js';
import { listOffsets } from './v2-topics.js';
import { illegalState, instanceNotFound, isAuthorizationError, kafkaError, sleep, unprocessable } from './v2-common.js';

export interface ConsumerSettings {
  format: 'json' | 'binary' | 'avro' | 'jsonschema';
  autoOffsetReset: 'earliest' | 'latest' | 'none';
  autoCommit: boolean;
  /** fetch.min.bytes: a read answers once more than this was read (-1: at its timeout). */
  fetchMinBytes: number;
  /** consumer.request.timeout.ms: the longest a read waits. */
  requestTimeoutMs: number;
  /** consumer.request.max.bytes: the most a read answers. */
  requestMaxBytes: number;
}

export type { TopicPartition } from './v2-offsets.js';

interface Part {
  /** Its key in the instance's map (subscribed: by topic id; assigned: by name). */
  key: string;
  topic: string | null;
  topicId: string | null;
  partition: number;
  /** The next offset to read; null: to find (the committed offset, else `reset` or auto.offset.reset). */
  position: bigint | null;
  reset: 'earliest' | 'latest' | null;
}

const AUTO_COMMIT_INTERVAL_MS = 5000;
const FETCH_VERSION = 16;
const PARTITION_MAX_BYTES = 1024 * 1024;
const FETCH_MAX_BYTES = 50 * 1024 * 1024;
const FETCH_MAX_WAIT_MS = 500;
const IDLE_POLL_MS = 50;

export class RestConsumer {
  mode: 'none' | 'subscribed' | 'assigned' = 'none';
  lastUsedAt = Date.now();
  busy = 0;
  closed = false;
  private subscription: { topics: string[] | null; pattern: string | null } = { topics: null, pattern: null };
  private readonly parts = new Map<string, Part>();
  private readonly membership: GroupMembership;
  private queue: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private lastAutoCommit = Date.now();
  private readonly clientId: string;
  private readonly deserialize: Deserialize;

  constructor(private readonly broker: HttpBroker, readonly group: string, readonly name: string, readonly user: string, readonly settings: ConsumerSettings) {
    this.clientId = `samsa-rest-proxy-${name}`;
    const f = settings.format;
    this.deserialize = f === 'binary' ? null : f === 'json' ? jsonDeserialize : schemaDeserializer(broker.schemaRegistry, f);
    this.membership = new GroupMembership(group, {
      heartbeat: (req, version) => this.send(68, version, req),
      reconcile: async (revoked, added) => {
        if (this.settings.autoCommit) await this.commitParts(revoked.map((p) => this.parts.get(idKey(p))).filter((p) => p !== undefined)).catch(() => undefined);
        for (const p of revoked) this.parts.delete(idKey(p));
        for (const p of added) this.parts.set(idKey(p), { key: idKey(p), topic: this.broker.metadataCache.topicById(p.topicId)?.name ?? null, topicId: p.topicId, partition: p.partition, position: null, reset: null });
      },
      lost: (partitions) => {
        for (const p of partitions) this.parts.delete(idKey(p));
      },
    });
  }

  private send(apiKey: number, version: number, body: unknown): Promise<any> {
    if (this.broker.stopping) return Promise.reject(new Error('the broker is stopping'));
    return sendInProcess(this.broker, apiKey, version, body, { user: this.user, clientId: this.clientId });
  }

  private readonly sendFn: Send = (apiKey, version, body) => this.send(apiKey, version, body);

  /** Runs `fn` after everything queued before it (the instance's serial queue). */
  run<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++;
    const guarded = () => (this.closed ? Promise.reject(instanceNotFound()) : fn());
    const next = this.queue.then(guarded, guarded);
    this.queue = next.catch(() => undefined);
    return next.finally(() => {
      this.busy--;
      this.lastUsedAt = Date.now();
    });
  }

  // Timers

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.closed || this.mode !== 'subscribed') return;
    const autoCommitAt = this.settings.autoCommit ? this.lastAutoCommit + AUTO_COMMIT_INTERVAL_MS : Infinity;
    const wait = Math.max(0, Math.min(this.membership.nextDueAt, autoCommitAt) - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.broker.stopping) return this.stop();
      void this.run(() => this.tick()).catch(() => undefined);
    }, Math.min(wait, 2 ** 31 - 1));
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    try {
      await this.heartbeatIfDue();
      await this.maybeAutoCommit();
    } finally {
      this.schedule();
    }
  }

  private async heartbeatIfDue(): Promise<void> {
    if (this.mode === 'subscribed' && this.membership.isDue(Date.now())) await this.membership.heartbeat();
  }

  private async maybeAutoCommit(): Promise<void> {
    if (!this.settings.autoCommit || Date.now() - this.lastAutoCommit < AUTO_COMMIT_INTERVAL_MS) return;
    this.lastAutoCommit = Date.now();
    await this.commitParts([...this.parts.values()]).catch(() => undefined);
  }

  /** Stops the timers and forgets the group without telling it (the broker is stopping). */
  stop(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.membership.abandon();
  }

  // Subscription and assignment (called through run)

  async subscribe(topics: string[] | null, pattern: string | null): Promise<void> {
    if (this.mode === 'assigned') throw illegalState('Subscription to topics, partitions and pattern are mutually exclusive');
    if (topics !== null && topics.length === 0) return this.unsubscribe();
    this.mode = 'subscribed';
    this.subscription = { topics, pattern };
    this.membership.subscribe(topics, pattern);
    await this.membership.heartbeat();
    const failure = this.membership.error;
    if (failure?.code === ErrorCode.INVALID_REGULAR_EXPRESSION) {
      await this.unsubscribe();
      throw unprocessable(`Invalid topic_pattern: ${failure.message ?? pattern}`);
    }
    this.schedule();
  }

  async unsubscribe(): Promise<void> {
    if (this.mode === 'subscribed') {
      if (this.settings.autoCommit) await this.commitParts([...this.parts.values()]).catch(() => undefined);
      await this.membership.leave();
    }
    this.parts.clear();
    this.mode = 'none';
    this.subscription = { topics: null, pattern: null };
    this.schedule();
  }

  /** The subscribed topic names (a pattern's: the topics of the current assignment). */
  subscribedTopics(): string[] {
    if (this.mode !== 'subscribed') return [];
    if (this.subscription.topics) return [...this.subscription.topics];
    return [...new Set(this.assignment().map((p) => p.topic))].sort();
  }

  async assign(partitions: TopicPartition[]): Promise<void> {
    if (this.mode === 'subscribed') throw illegalState('Subscription to topics, partitions and pattern are mutually exclusive');
    if (partitions.length === 0) return this.unsubscribe();
    const keep = new Map<string, Part>();
    for (const tp of partitions) {
      const k = nameKey(tp.topic, tp.partition);
      keep.set(k, this.parts.get(k) ?? { key: k, topic: tp.topic, topicId: null, partition: tp.partition, position: null, reset: null });
    }
    this.parts.clear();
    for (const [k, p] of keep) this.parts.set(k, p);
    this.mode = 'assigned';
  }

  assignment(): TopicPartition[] {
    this.resolveNames();
    return [...this.parts.values()].filter((p) => p.topic !== null).map((p) => ({ topic: p.topic as string, partition: p.partition }))
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  /** Fills topic names (subscribed: from the assigned ids) and ids (assigned: from the names) from the metadata cache. */
  private resolveNames(): void {
    const cache = this.broker.metadataCache;
    for (const p of this.parts.values()) {
      if (p.topic === null && p.topicId !== null) p.topic = cache.topicById(p.topicId)?.name ?? null;
      if (p.topicId === null && p.topic !== null) p.topicId = cache.topic(p.topic)?.topicId ?? null;
    }
  }

  private partFor(tp: TopicPartition): Part {
    this.resolveNames();
    for (const p of this.parts.values()) if (p.topic === tp.topic && p.partition === tp.partition) return p;
    throw illegalState(`No current assignment for partition ${tp.topic}-${tp.partition}`);
  }

  // Seeking

  seek(offsets: (TopicPartition & { offset: number })[]): void {
    const parts = offsets.map((o) => [this.partFor(o), o.offset] as const);
    for (const [p, offset] of parts) {
      p.position = BigInt(offset);
      p.reset = null;
    }
  }

  seekTo(partitions: TopicPartition[], where: 'earliest' | 'latest'): void {
    const parts = partitions.map((tp) => this.partFor(tp));
    for (const p of parts) {
      p.position = null;
      p.reset = where;
    }
  }

  // Offsets

  private commitEpoch(): { memberId: string; epoch: number } {
    return this.mode === 'subscribed' && this.membership.epoch > 0 ? { memberId: this.membership.memberId, epoch: this.membership.epoch } : { memberId: '', epoch: -1 };
  }

  /** Commits offsets (the next offset to read, as Kafka stores it); a failed partition fails the commit. */
  async commit(offsets: OffsetToCommit[]): Promise<void> {
    await commitOffsets(this.sendFn, this.group, this.commitEpoch(), offsets);
  }

  private async commitParts(parts: Part[]): Promise<void> {
    this.resolveNames();
    await this.commit(parts.filter((p) => p.topic !== null && p.position !== null).map((p) => ({ topic: p.topic as string, partition: p.partition, offset: p.position as bigint })));
  }

  /** Commits every position read so far (a commit with no offsets given). */
  async commitConsumed(): Promise<void> {
    this.lastAutoCommit = Date.now();
    await this.commitParts([...this.parts.values()]);
  }

  /** The committed offsets (of those that have one) for the partitions. */
  async committed(partitions: TopicPartition[]): Promise<{ topic: string; partition: number; offset: number; metadata: string }[]> {
    const res = await this.fetchCommitted(partitions);
    const out: { topic: string; partition: number; offset: number; metadata: string }[] = [];
    for (const tp of partitions) {
      const c = res.get(nameKey(tp.topic, tp.partition));
      if (c) out.push({ topic: tp.topic, partition: tp.partition, offset: Number(c.offset), metadata: c.metadata });
    }
    return out;
  }

  private fetchCommitted(partitions: TopicPartition[]): Promise<Map<string, { offset: bigint; metadata: string }>> {
    return fetchCommitted(this.sendFn, this.group, partitions);
  }

  /** Finds the positions still unknown: a seek's reset, else the committed offset, else auto.offset.reset. */
  private async findPositions(): Promise<void> {
    this.resolveNames();
    const unknown = [...this.parts.values()].filter((p) => p.position === null && p.topic !== null);
    if (unknown.length === 0) return;
    const committed = await this.fetchCommitted(unknown.filter((p) => p.reset === null).map((p) => ({ topic: p.topic as string, partition: p.partition })));
    const toReset: Part[] = [];
    for (const p of unknown) {
      const c = p.reset === null ? committed.get(nameKey(p.topic as string, p.partition)) : undefined;
      if (c) p.position = c.offset;
      else toReset.push(p);
    }
    const target = new Map(toReset.map((p) => [p, p.reset ?? this.settings.autoOffsetReset]));
    for (const where of ['earliest', 'latest'] as const) {
      const parts = toReset.filter((p) => target.get(p) === where);
      if (parts.length === 0) continue;
      const found = await listOffsets({ broker: this.broker, user: this.user }, parts.map((p) => ({ topic: p.topic as string, partition: p.partition })), where === 'earliest' ? -2n : -1n);
      for (const p of parts) {
        const o = found.get(nameKey(p.topic as string, p.partition));
        if (typeof o === 'bigint') {
          p.position = o;
          p.reset = null;
        } else if (o && isAuthorizationError(o.error)) {
          throw kafkaError(o.error, `Not authorized to access topics: [${p.topic}]`);
        }
      }
    }
    const undefinedOffsets = toReset.filter((p) => p.position === null && target.get(p) === 'none');
    if (undefinedOffsets.length > 0) throw kafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `Undefined offset with no reset policy for partitions: [${undefinedOffsets.map((p) => `${p.topic}-${p.partition}`).join(', ')}]`);
  }

  // Reading

  /** Confluent's read task: records until the timeout, max_bytes, or more than fetch.min.bytes. */
  async read(timeoutMs: number, maxBytes: number): Promise<RestRecord[]> {
    if (this.mode === 'none') throw illegalState('Consumer is not subscribed to any topics or assigned any partitions');
    const limit = timeoutMs <= 0 ? this.settings.requestTimeoutMs : Math.min(timeoutMs, this.settings.requestTimeoutMs);
    const deadline = Date.now() + limit;
    const budget = newBudget(maxBytes <= 0 ? this.settings.requestMaxBytes : Math.min(maxBytes, this.settings.requestMaxBytes), this.settings.fetchMinBytes);
    const out: RestRecord[] = [];
    await this.maybeAutoCommit();
    for (;;) {
      if (this.closed || this.broker.stopping) break;
      await this.heartbeatIfDue();
      const failure = this.membership.error;
      if (failure && this.mode === 'subscribed') {
        this.membership.error = null;
        if (out.length === 0) throw kafkaError(failure.code, failure.message);
      }
      await this.findPositions();
      const remaining = deadline - Date.now();
      if (remaining <= 0) break;
      const started = Date.now();
      const had = out.length;
      const fetched = await this.fetchOnce(Math.min(remaining, FETCH_MAX_WAIT_MS, this.membership.nextDueAt - Date.now()), budget, out);
      if (fetched instanceof Error) {
        if (out.length === 0) throw fetched;
        break;
      }
      if (budget.exceededMax || budget.exceededMin || Date.now() >= deadline) break;
      // Nothing to fetch, or an answer at once without records (no leader here, ...): do not spin.
      if (!fetched || (out.length === had && Date.now() - started < 5)) await sleep(Math.min(IDLE_POLL_MS, deadline - Date.now()));
    }
    this.schedule();
    return out;
  }

  /** One Fetch of every partition with a position: false when there was nothing to fetch, an Error to end the read. */
  private async fetchOnce(waitMs: number, budget: ReturnType<typeof newBudget>, out: RestRecord[]): Promise<boolean | Error> {
    const ready = [...this.parts.values()].filter((p) => p.position !== null && p.topic !== null && p.topicId !== null);
    if (ready.length === 0) return false;
    const byTopic = new Map<string, Part[]>();
    for (const p of ready) {
      const list = byTopic.get(p.topicId as string);
      if (list) list.push(p);
      else byTopic.set(p.topicId as string, [p]);
    }
    const res: FetchResponse = await this.send(1, FETCH_VERSION, {
      ...defaultFetchRequest(), replicaState: defaultReplicaState(), maxWaitMs: Math.max(0, Math.floor(waitMs)), minBytes: 1, maxBytes: FETCH_MAX_BYTES,
      topics: [...byTopic].map(([topicId, parts]) => ({
        topic: '', topicId,
        partitions: parts.map((p) => ({ partition: p.partition, currentLeaderEpoch: -1, fetchOffset: p.position as bigint, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: PARTITION_MAX_BYTES, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA' })),
      })),
    });
    for (const t of res.responses) {
      for (const d of t.partitions) {
        const p = byTopic.get(t.topicId)?.find((x) => x.partition === d.partitionIndex);
        if (!p || p.position === null || this.parts.get(p.key) !== p) continue;
        if (d.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          p.position = null;
          p.reset = this.settings.autoOffsetReset === 'none' ? null : this.settings.autoOffsetReset;
          if (this.settings.autoOffsetReset === 'none') return kafkaError(ErrorCode.OFFSET_OUT_OF_RANGE, `Offsets out of range with no configured reset policy for partitions: {${p.topic}-${p.partition}}`);
          continue;
        }
        if (isAuthorizationError(d.errorCode)) return kafkaError(d.errorCode, `Not authorized to access topics: [${p.topic}]`);
        if (d.errorCode !== ErrorCode.NONE || budget.exceededMax || d.records === null) continue;
        const data = Array.isArray(d.records) ? Buffer.concat(d.records) : d.records;
        const taken = await takeRecords(data, p.topic as string, p.partition, p.position, this.deserialize, budget, out);
        p.position = taken.position;
        if (taken.error) return taken.error;
      }
    }
    return true;
  }

  /** Deletes the instance: commits (auto-commit), leaves the group, stops its timers. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.settings.autoCommit && !this.broker.stopping) await this.commitConsumed().catch(() => undefined);
    if (this.mode === 'subscribed' && !this.broker.stopping) await this.membership.leave();
    this.stop();
  }
}

const idKey = (p: IdPartition) => `id:${p.topicId}:${p.partition}`;
