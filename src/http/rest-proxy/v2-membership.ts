/**
 * A REST Proxy v2 consumer instance's membership of its consumer group, with the KIP-848 consumer
 * group protocol (ConsumerGroupHeartbeat v1, sent in-process): the coordinator computes the
 * assignment; the member heartbeats every interval the answer gives, takes the partitions it is
 * given, gives up the ones taken away (its owner commits them first when auto-commit is on), and
 * reports what it owns on the next heartbeat, sent at once after a change so that partitions move
 * quickly between members. Fenced (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID): it loses every
 * partition without committing and rejoins with epoch 0 under the same member id. Leaving is a
 * heartbeat with member epoch -1.
 *
 * Not concurrent by itself: the owning instance (v2-consumer.ts) calls it from its serial queue only.
 */
import { randomBytes } from 'node:crypto';
import { ErrorCode, isRetriable } from '../../protocol/generated/error-codes.js';
import type { ConsumerGroupHeartbeatRequest } from '../../protocol/generated/messages/consumer-group-heartbeat-request.js';
import type { ConsumerGroupHeartbeatResponse } from '../../protocol/generated/messages/consumer-group-heartbeat-response.js';

const HEARTBEAT_VERSION = 1;
const LEAVE_EPOCH = -1;
/** Java's max.poll.interval.ms default, the member's rebalance timeout. */
const REBALANCE_TIMEOUT_MS = 300_000;
const RETRY_BACKOFF_MS = 500;
const DEFAULT_INTERVAL_MS = 5000;

/** A partition by topic id, as the protocol names it. */
export interface IdPartition {
  topicId: string;
  partition: number;
}

export interface MembershipIo {
  /** Sends ConsumerGroupHeartbeat in-process (throws when the request could not be served). */
  heartbeat(req: ConsumerGroupHeartbeatRequest, version: number): Promise<ConsumerGroupHeartbeatResponse>;
  /** The partitions taken away (to commit first, with auto-commit) and the ones added (positions to find). */
  reconcile(revoked: IdPartition[], added: IdPartition[]): Promise<void>;
  /** Every partition lost without committing (fenced). */
  lost(partitions: IdPartition[]): void;
}

const key = (p: IdPartition) => `${p.topicId}:${p.partition}`;

export class GroupMembership {
  readonly memberId = randomBytes(16).toString('base64url');
  epoch = 0;
  intervalMs = DEFAULT_INTERVAL_MS;
  /** When the next heartbeat is due (ms since the epoch); Infinity when not a member. */
  nextDueAt = Infinity;
  /** The last heartbeat's error the client has not been told (an unrecoverable one: authorization, a bad regex, ...). */
  error: { code: number; message: string | null } | null = null;
  private topics: string[] | null = null;
  private regex: string | null = null;
  private readonly owned = new Map<string, IdPartition>();

  constructor(private readonly groupId: string, private readonly io: MembershipIo) {}

  get active(): boolean {
    return this.topics !== null || this.regex !== null;
  }

  /** The owned partitions. */
  get assignment(): IdPartition[] {
    return [...this.owned.values()];
  }

  /** Subscribes (names or a RE2/J regex), replacing a subscription; the next heartbeat is due now. */
  subscribe(topics: string[] | null, regex: string | null): void {
    this.topics = topics;
    this.regex = regex;
    this.error = null;
    this.nextDueAt = 0;
  }

  isDue(now: number): boolean {
    return this.active && now >= this.nextDueAt;
  }

  private ownedTopicPartitions(): { topicId: string; partitions: number[] }[] {
    const byTopic = new Map<string, number[]>();
    for (const p of this.owned.values()) {
      const list = byTopic.get(p.topicId);
      if (list) list.push(p.partition);
      else byTopic.set(p.topicId, [p.partition]);
    }
    return [...byTopic].map(([topicId, partitions]) => ({ topicId, partitions: partitions.sort((a, b) => a - b) }));
  }

  /** One heartbeat (joining with epoch 0 when not a member); sets when the next one is due. */
  async heartbeat(): Promise<void> {
    if (!this.active) return;
    const joining = this.epoch === 0;
    let res: ConsumerGroupHeartbeatResponse;
    try {
      res = await this.io.heartbeat({
        groupId: this.groupId, memberId: this.memberId, memberEpoch: this.epoch, instanceId: null, rackId: null,
        rebalanceTimeoutMs: REBALANCE_TIMEOUT_MS,
        subscribedTopicNames: this.regex !== null ? null : this.topics,
        subscribedTopicRegex: this.regex,
        serverAssignor: null,
        topicPartitions: joining ? [] : this.ownedTopicPartitions(),
      }, HEARTBEAT_VERSION);
    } catch {
      this.nextDueAt = Date.now() + RETRY_BACKOFF_MS;
      return;
    }
    const code = res.errorCode;
    if (code === ErrorCode.NONE) {
      this.error = null;
      this.epoch = res.memberEpoch;
      if (res.heartbeatIntervalMs > 0) this.intervalMs = res.heartbeatIntervalMs;
      const changed = res.assignment ? await this.take(res.assignment.topicPartitions) : false;
      this.nextDueAt = Date.now() + (changed ? 0 : this.intervalMs);
      return;
    }
    if (code === ErrorCode.FENCED_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID) {
      this.io.lost(this.assignment);
      this.owned.clear();
      this.epoch = 0;
      this.nextDueAt = Date.now();
      return;
    }
    if (isRetriable(code)) {
      // Served in-process: a group another broker coordinates stays so; the reads say why they get nothing.
      if (code === ErrorCode.NOT_COORDINATOR) this.error = { code, message: `this broker does not coordinate group ${this.groupId}: use the REST proxy of the broker that does` };
      this.nextDueAt = Date.now() + RETRY_BACKOFF_MS;
      return;
    }
    // Unrecoverable for now (authorization, regex, group full, ...): told on the next read, tried again later.
    this.error = { code, message: res.errorMessage };
    this.nextDueAt = Date.now() + Math.max(this.intervalMs, RETRY_BACKOFF_MS);
  }

  /** Applies an assignment: true when it changed what this member owns (then the next heartbeat says so at once). */
  private async take(assigned: { topicId: string; partitions: number[] }[]): Promise<boolean> {
    const next = new Map<string, IdPartition>();
    for (const t of assigned) for (const partition of t.partitions) next.set(key({ topicId: t.topicId, partition }), { topicId: t.topicId, partition });
    const revoked = [...this.owned].filter(([k]) => !next.has(k)).map(([, p]) => p);
    const added = [...next].filter(([k]) => !this.owned.has(k)).map(([, p]) => p);
    if (revoked.length === 0 && added.length === 0) return false;
    await this.io.reconcile(revoked, added);
    this.owned.clear();
    for (const [k, p] of next) this.owned.set(k, p);
    return true;
  }

  /** Leaves the group (epoch -1) if a member, and forgets the subscription and the assignment. */
  async leave(): Promise<void> {
    const wasMember = this.epoch > 0;
    this.topics = null;
    this.regex = null;
    this.owned.clear();
    this.nextDueAt = Infinity;
    this.error = null;
    if (wasMember) {
      await this.io.heartbeat({
        groupId: this.groupId, memberId: this.memberId, memberEpoch: LEAVE_EPOCH, instanceId: null, rackId: null,
        rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null,
      }, HEARTBEAT_VERSION).catch(() => undefined);
    }
    this.epoch = 0;
  }

  /** Forgets everything without telling the coordinator (the broker is stopping). */
  abandon(): void {
    this.topics = null;
    this.regex = null;
    this.owned.clear();
    this.nextDueAt = Infinity;
  }
}
