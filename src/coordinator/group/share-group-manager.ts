/**
 * Share groups (KIP-932) of one coordinator shard (Kafka's GroupMetadataManager, share-group
 * part): ShareGroupHeartbeat (join, heartbeat, leave), the simple assignor, session timeouts,
 * ShareGroupDescribe, and the share-group records of `__consumer_offsets`.
 *
 * A share group's members do not own their partitions: several members may be assigned the same
 * partition and the share-partition leader hands each record to one of them (share-partition.ts).
 * So there is no revocation: a member takes its target assignment at its next heartbeat.
 *
 * One heartbeat, in Kafka's order: validate (INVALID_REQUEST with Kafka's messages); find the group
 * (created on a first join; a classic or consumer group of that id: GROUP_ID_NOT_FOUND) and the
 * member (new on epoch 0, GROUP_MAX_SIZE_REACHED when full; UNKNOWN_MEMBER_ID; FENCED_MEMBER_EPOCH
 * unless the epoch is the member's); apply its subscription and bump the group epoch when the
 * subscriptions or the subscribed topics' partitions changed; recompute the target when the group
 * epoch is ahead of it; give the member its target; answer its epoch, the heartbeat interval and,
 * when it changed or on a join, its assignment. As elsewhere in the shard, this only computes
 * records; `replay` applies them.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ShareGroupHeartbeatRequest } from '../../protocol/generated/messages/share-group-heartbeat-request.js';
import type { ShareGroupHeartbeatResponse } from '../../protocol/generated/messages/share-group-heartbeat-response.js';
import type { DescribedGroup } from '../../protocol/generated/messages/share-group-describe-response.js';
import type { ListedGroup } from '../../protocol/generated/messages/list-groups-response.js';
import { listGroupsOfType } from './list-groups.js';
import type { CoordinatorResult, ShardContext } from '../runtime/runtime.js';
import type { Assignment } from './assignor/index.js';
import { addPartition } from './assignor/types.js';
import { assignmentsEqual, copyAssignment, fromTopicPartitions, toTopicPartitions } from './consumer-group.js';
import type { GroupCoordinatorRecord } from './records.js';
import type { ShareGroupRecord } from './share-group-records.js';
import type { TopicView } from './topic-view.js';
import type { ShareGroupConfig } from '../share/share-config.js';

type Rec = GroupCoordinatorRecord;
type Response = ShareGroupHeartbeatResponse;

export const LEAVE_SHARE_GROUP_EPOCH = -1;
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export interface ShareHeartbeatContext {
  clientId: string;
  clientHost: string;
}

export class ShareGroupMember {
  memberEpoch = 0;
  previousMemberEpoch = 0;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  subscribedTopicNames: string[] = [];
  assigned: Assignment = new Map();

  constructor(readonly memberId: string) {}
}

export class ShareGroup {
  groupEpoch = 0;
  metadataHash = 0n;
  assignmentEpoch = 0;
  /** When the target was last computed (assignment batching). */
  lastAssignmentMs = Number.NEGATIVE_INFINITY;
  readonly members = new Map<string, ShareGroupMember>();
  readonly target = new Map<string, Assignment>();
  /** Share-partitions the group has been assigned (ShareGroupStatePartitionMetadata): topic id → name, partitions. */
  initialized: TopicPartitionsMap = new Map();
  /** Share-partitions being initialised (assigned once initialised). */
  initializing: TopicPartitionsMap = new Map();

  constructor(readonly groupId: string) {}

  get state(): 'Empty' | 'Stable' {
    return this.members.size === 0 ? 'Empty' : 'Stable';
  }
}

class HeartbeatError extends Error {
  constructor(readonly errorCode: number, readonly errorMessage: string | null) {
    super(errorMessage ?? '');
  }
}

type TopicPartitionsMap = Map<string, { topicName: string; partitions: Set<number> }>;

function copyTopicPartitions(m: TopicPartitionsMap): TopicPartitionsMap {
  return new Map([...m].map(([id, v]) => [id, { topicName: v.topicName, partitions: new Set(v.partitions) }]));
}

const listed = (m: TopicPartitionsMap) => [...m].map(([topicId, v]) => ({ topicId, topicName: v.topicName, partitions: [...v.partitions].sort((x, y) => x - y) }));

/** A ShareGroupStatePartitionMetadata record. */
function statePartitions(groupId: string, initializing: TopicPartitionsMap, initialized: TopicPartitionsMap): ShareGroupRecord {
  return { type: 'sg-state-partitions', groupId, value: { initializingTopics: listed(initializing), initializedTopics: listed(initialized), deletingTopics: [] } };
}

export const shareSessionKey = (g: string, m: string) => `sg-session-${g}-${m}`;

function errorResponse(errorCode: number, errorMessage: string | null): Response {
  return { throttleTimeMs: 0, errorCode, errorMessage, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null };
}

/**
 * The simple assignor (Kafka's SimpleAssignor for homogeneous subscriptions): with at least as
 * many partitions as members, partition i goes to member i mod M (each partition to one member);
 * with more members than partitions, member j gets partition j mod P, so every partition is shared
 * by about M/P members. Members and partitions are taken in a stable order (ids, topic names).
 */
export function simpleAssign(members: ShareGroupMember[], topics: TopicView, eligible: (topicId: string, partition: number) => boolean = () => true): Map<string, Assignment> {
  const out = new Map<string, Assignment>();
  const ids = members.map((m) => m.memberId).sort();
  for (const id of ids) out.set(id, new Map());
  const byTopic = new Map<string, string[]>();
  for (const m of members) for (const t of m.subscribedTopicNames) (byTopic.get(t) ?? byTopic.set(t, []).get(t)!).push(m.memberId);
  const partitions: { topicId: string; partition: number; subscribers: string[] }[] = [];
  for (const name of [...byTopic.keys()].sort()) {
    const t = topics.byName(name);
    if (!t) continue;
    const subscribers = byTopic.get(name)!.sort();
    for (let p = 0; p < t.partitions; p++) if (eligible(t.topicId, p)) partitions.push({ topicId: t.topicId, partition: p, subscribers });
  }
  // Per topic subscriber set: spread that topic's partitions over its subscribers.
  const groups = new Map<string, typeof partitions>();
  for (const p of partitions) (groups.get(p.subscribers.join('\u0000')) ?? groups.set(p.subscribers.join('\u0000'), []).get(p.subscribers.join('\u0000'))!).push(p);
  for (const list of groups.values()) {
    const subs = list[0].subscribers;
    if (list.length >= subs.length) {
      list.forEach((p, i) => addPartition(out.get(subs[i % subs.length])!, p.topicId, p.partition));
    } else {
      subs.forEach((id, j) => { const p = list[j % list.length]; addPartition(out.get(id)!, p.topicId, p.partition); });
    }
  }
  return out;
}

export class ShareGroupManager {
  readonly groups = new Map<string, ShareGroup>();

  constructor(
    private readonly ctx: ShardContext<Rec>,
    private readonly config: (groupId: string) => ShareGroupConfig,
    private readonly topics: TopicView,
    private readonly otherGroupExists: (groupId: string) => boolean,
  ) {}

  // -------------------------------------------------------------------------------------------
  // ShareGroupHeartbeat

  heartbeat(hc: ShareHeartbeatContext, req: ShareGroupHeartbeatRequest): CoordinatorResult<Response, Rec> {
    try {
      this.validate(req);
      if (req.memberEpoch === LEAVE_SHARE_GROUP_EPOCH) return this.leave(req);
      return this.regularHeartbeat(hc, req);
    } catch (err) {
      if (!(err instanceof HeartbeatError)) throw err;
      return { records: [], response: () => errorResponse(err.errorCode, err.errorMessage) };
    }
  }

  /** Kafka's throwIfShareGroupHeartbeatRequestIsInvalid. */
  private validate(req: ShareGroupHeartbeatRequest): void {
    const invalid = (message: string) => new HeartbeatError(ErrorCode.INVALID_REQUEST, message);
    if (req.groupId === '') throw invalid("GroupId can't be empty.");
    // Kafka 4.4 refuses an empty member id before its coordinator runs: no message.
    if (req.memberId === '') throw new HeartbeatError(ErrorCode.INVALID_REQUEST, null);
    if (req.rackId === '') throw invalid("RackId can't be empty.");
    if (req.memberEpoch === 0) {
      if (req.subscribedTopicNames === null || req.subscribedTopicNames.length === 0) throw invalid('SubscribedTopicNames must be set in first request.');
    } else if (req.memberEpoch < LEAVE_SHARE_GROUP_EPOCH) {
      throw invalid(`MemberEpoch is invalid.`);
    }
  }

  private group(groupId: string, create: boolean): ShareGroup {
    const g = this.groups.get(groupId);
    if (g) return g;
    if (this.otherGroupExists(groupId)) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a share group.`);
    if (!create) throw new HeartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    return new ShareGroup(groupId);
  }

  private regularHeartbeat(hc: ShareHeartbeatContext, req: ShareGroupHeartbeatRequest): CoordinatorResult<Response, Rec> {
    const cfg = this.config(req.groupId);
    const group = this.group(req.groupId, req.memberEpoch === 0);
    const records: ShareGroupRecord[] = [];
    let member = group.members.get(req.memberId);
    const joining = req.memberEpoch === 0;
    if (!member) {
      if (!joining) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${req.groupId}.`);
      if (group.members.size >= cfg.maxSize) throw new HeartbeatError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The share group has reached its maximum capacity of ${cfg.maxSize} members.`);
      member = new ShareGroupMember(req.memberId);
    } else if (!joining && req.memberEpoch !== member.memberEpoch) {
      const relation = req.memberEpoch > member.memberEpoch ? 'greater' : 'smaller';
      throw new HeartbeatError(ErrorCode.FENCED_MEMBER_EPOCH, `The share group member has a ${relation} member epoch (${req.memberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`);
    }
    const isNew = !group.members.has(req.memberId);
    // The member's metadata: subscription, rack, client.
    const subscription = req.subscribedTopicNames === null ? member.subscribedTopicNames : [...new Set(req.subscribedTopicNames)].sort();
    const rackId = req.rackId ?? member.rackId;
    const changedSubscription = isNew || subscription.join('\u0000') !== member.subscribedTopicNames.join('\u0000');
    if (changedSubscription || rackId !== member.rackId || member.clientId !== hc.clientId || member.clientHost !== hc.clientHost) {
      records.push({ type: 'sg-member', groupId: group.groupId, memberId: member.memberId, value: { rackId, clientId: hc.clientId, clientHost: hc.clientHost, subscribedTopicNames: subscription } });
    }
    // The group epoch moves when the subscriptions or the subscribed topics' partitions change.
    const members = [...group.members.values()].filter((m) => m.memberId !== member!.memberId);
    const updated = Object.assign(new ShareGroupMember(member.memberId), member, { subscribedTopicNames: subscription, rackId });
    members.push(updated);
    const hash = this.metadataHash(members);
    // Kafka 4.4 bumps once for a subscription change and once more when the subscribed topics'
    // metadata moved with it (a first join reaches epoch 2).
    const groupEpoch = group.groupEpoch + (changedSubscription ? 1 : 0) + (hash !== group.metadataHash ? 1 : 0);
    if (groupEpoch !== group.groupEpoch) records.push({ type: 'sg-metadata', groupId: group.groupId, value: { epoch: groupEpoch, metadataHash: hash } });
    // The target assignment, when behind.
    let target = group.target;
    // Assignment batching (Kafka 4.4, share.assignment.interval.ms): the target is recomputed on
    // the first heartbeat after the interval since the last one; a member that changed its own
    // subscription gets it at once (Kafka stops delivering the old topic on that heartbeat).
    const due = this.ctx.now() - group.lastAssignmentMs >= cfg.assignmentIntervalMs || (changedSubscription && !isNew);
    const recompute = groupEpoch > group.assignmentEpoch && due;
    if (recompute) {
      // Only initialised share-partitions are assigned (Kafka 4.4): new ones are initialised
      // first, after this heartbeat, and the group epoch bumped then (initializeSharePartitions).
      target = simpleAssign(members, this.topics, (topicId, p) => group.initialized.get(topicId)?.partitions.has(p) === true);
      for (const [id, a] of target) {
        if (!assignmentsEqual(a, group.target.get(id) ?? new Map())) {
          records.push({ type: 'sg-target-member', groupId: group.groupId, memberId: id, value: { topicPartitions: toTopicPartitions(a) } });
        }
      }
      records.push({ type: 'sg-target-metadata', groupId: group.groupId, value: { assignmentEpoch: groupEpoch, assignmentTimestamp: BigInt(this.ctx.now()) } });
      const initializing = this.statePartitionsRecord(group, members);
      if (initializing.length > 0) {
        records.push(...initializing);
        this.initializeLater(group.groupId);
      }
    }
    const assignmentEpoch = recompute ? groupEpoch : group.assignmentEpoch;
    // Share members take their target at once (nothing to revoke).
    const mine = target.get(member.memberId) ?? new Map();
    const assignmentChanged = isNew || !assignmentsEqual(mine, member.assigned);
    if (member.memberEpoch !== assignmentEpoch || assignmentChanged) {
      records.push({ type: 'sg-current', groupId: group.groupId, memberId: member.memberId, value: { memberEpoch: assignmentEpoch, previousMemberEpoch: member.memberEpoch, state: 0, assignedPartitions: toTopicPartitions(mine) } });
    }
    const memberId = member.memberId;
    return {
      records,
      response: () => {
        this.ctx.schedule(shareSessionKey(req.groupId, memberId), cfg.sessionTimeoutMs, () => this.expire(req.groupId, memberId));
        const m = this.groups.get(req.groupId)!.members.get(memberId)!;
        return {
          throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId, memberEpoch: m.memberEpoch,
          heartbeatIntervalMs: cfg.heartbeatIntervalMs,
          assignment: joining || assignmentChanged || req.subscribedTopicNames !== null ? { topicPartitions: toTopicPartitions(m.assigned) } : null,
        };
      },
    };
  }

  /** Kafka's metadata hash of the subscribed topics, reduced to what changes an assignment here: names, ids and partition counts. */
  private metadataHash(members: ShareGroupMember[]): bigint {
    const names = [...new Set(members.flatMap((m) => m.subscribedTopicNames))].sort();
    let h = 1469598103934665603n;
    for (const n of names) {
      const t = this.topics.byName(n);
      const s = t ? `${n}/${t.topicId}/${t.partitions};` : `${n};`;
      for (let i = 0; i < s.length; i++) h = BigInt.asIntN(64, (h ^ BigInt(s.charCodeAt(i))) * 1099511628211n);
    }
    return h;
  }

  /**
   * The subscribed share-partitions that are neither initialised nor being initialised: they go
   * to ShareGroupStatePartitionMetadata's initializing topics (none: no record).
   */
  private statePartitionsRecord(group: ShareGroup, members: ShareGroupMember[]): ShareGroupRecord[] {
    const initializing = copyTopicPartitions(group.initializing);
    let grew = false;
    for (const name of new Set(members.flatMap((m) => m.subscribedTopicNames))) {
      const t = this.topics.byName(name);
      if (!t) continue;
      for (let p = 0; p < t.partitions; p++) {
        if (group.initialized.get(t.topicId)?.partitions.has(p) || initializing.get(t.topicId)?.partitions.has(p)) continue;
        (initializing.get(t.topicId) ?? initializing.set(t.topicId, { topicName: t.name, partitions: new Set() }).get(t.topicId)!).partitions.add(p);
        grew = true;
      }
    }
    return grew ? [statePartitions(group.groupId, initializing, group.initialized)] : [];
  }

  /**
   * Kafka's share-partition initialisation, after the heartbeat that found new partitions: they
   * move from initializing to initialized and the group epoch is bumped, so each member's next
   * heartbeat assigns them. (Their start offset is set by share.auto.offset.reset when the
   * share-partition leader first loads them.)
   */
  private initializeLater(groupId: string): void {
    this.ctx.schedule(`sg-initialize-${groupId}`, 0, () => {
      const g = this.groups.get(groupId);
      if (!g || g.initializing.size === 0) return { records: [], response: () => undefined };
      const initialized = copyTopicPartitions(g.initialized);
      for (const [id, v] of g.initializing) {
        const e = initialized.get(id) ?? initialized.set(id, { topicName: v.topicName, partitions: new Set() }).get(id)!;
        for (const p of v.partitions) e.partitions.add(p);
      }
      return {
        records: [statePartitions(groupId, new Map(), initialized), { type: 'sg-metadata', groupId, value: { epoch: g.groupEpoch + 1, metadataHash: g.metadataHash } }],
        response: () => undefined,
      };
    });
  }

  private leave(req: ShareGroupHeartbeatRequest): CoordinatorResult<Response, Rec> {
    const group = this.group(req.groupId, false);
    const member = group.members.get(req.memberId);
    if (!member) throw new HeartbeatError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${req.memberId} is not a member of group ${req.groupId}.`);
    this.ctx.cancel(shareSessionKey(req.groupId, req.memberId));
    return {
      records: this.removeMember(group, req.memberId),
      response: () => ({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, memberId: req.memberId, memberEpoch: LEAVE_SHARE_GROUP_EPOCH, heartbeatIntervalMs: 0, assignment: null }),
    };
  }

  private removeMember(group: ShareGroup, memberId: string): ShareGroupRecord[] {
    return [
      { type: 'sg-current', groupId: group.groupId, memberId, value: null },
      { type: 'sg-target-member', groupId: group.groupId, memberId, value: null },
      { type: 'sg-member', groupId: group.groupId, memberId, value: null },
      { type: 'sg-metadata', groupId: group.groupId, value: { epoch: group.groupEpoch + 1, metadataHash: group.metadataHash } },
    ];
  }

  /** The session timer: a member that stopped heartbeating is removed. */
  private expire(groupId: string, memberId: string): CoordinatorResult<void, Rec> {
    const group = this.groups.get(groupId);
    if (!group?.members.has(memberId)) return { records: [], response: () => undefined };
    this.ctx.logger.info(`share group ${groupId}: member ${memberId} removed after its session timeout`);
    return { records: this.removeMember(group, memberId), response: () => undefined };
  }

  // -------------------------------------------------------------------------------------------
  // Replay

  replay(r: ShareGroupRecord): void {
    let g = this.groups.get(r.groupId);
    if (!g) {
      if (r.value === null) return;
      g = new ShareGroup(r.groupId);
      this.groups.set(r.groupId, g);
    }
    switch (r.type) {
      case 'sg-metadata':
        if (r.value === null) { this.groups.delete(r.groupId); return; }
        g.groupEpoch = r.value.epoch;
        g.metadataHash = r.value.metadataHash;
        return;
      case 'sg-member': {
        if (r.value === null) { g.members.delete(r.memberId); return; }
        const m = g.members.get(r.memberId) ?? new ShareGroupMember(r.memberId);
        m.rackId = r.value.rackId;
        m.clientId = r.value.clientId;
        m.clientHost = r.value.clientHost;
        m.subscribedTopicNames = [...r.value.subscribedTopicNames];
        g.members.set(r.memberId, m);
        return;
      }
      case 'sg-target-metadata':
        g.assignmentEpoch = r.value?.assignmentEpoch ?? 0;
        g.lastAssignmentMs = this.ctx.now();
        return;
      case 'sg-target-member':
        if (r.value === null) g.target.delete(r.memberId);
        else g.target.set(r.memberId, fromTopicPartitions(r.value.topicPartitions));
        return;
      case 'sg-current': {
        const m = g.members.get(r.memberId);
        if (!m || r.value === null) return;
        m.memberEpoch = r.value.memberEpoch;
        m.previousMemberEpoch = r.value.previousMemberEpoch;
        m.assigned = fromTopicPartitions(r.value.assignedPartitions);
        return;
      }
      case 'sg-state-partitions':
        g.initialized = new Map((r.value?.initializedTopics ?? []).map((t) => [t.topicId, { topicName: t.topicName, partitions: new Set(t.partitions) }]));
        g.initializing = new Map((r.value?.initializingTopics ?? []).map((t) => [t.topicId, { topicName: t.topicName, partitions: new Set(t.partitions) }]));
        return;
    }
  }

  /** After loading: every member's session starts again (Kafka re-arms them on load); unfinished initialisations go on. */
  onLoaded(): void {
    for (const g of this.groups.values()) {
      if (g.initializing.size > 0) this.initializeLater(g.groupId);
      for (const id of g.members.keys()) this.ctx.schedule(shareSessionKey(g.groupId, id), this.config(g.groupId).sessionTimeoutMs, () => this.expire(g.groupId, id));
    }
  }

  // -------------------------------------------------------------------------------------------
  // Queries

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  /** Whether `memberId` is a member of the share group with this epoch (ShareFetch checks it). */
  memberEpochOf(groupId: string, memberId: string): number | null {
    return this.groups.get(groupId)?.members.get(memberId)?.memberEpoch ?? null;
  }

  describe(groupId: string, authorizedOperations: number): DescribedGroup {
    const g = this.groups.get(groupId);
    if (!g) {
      const message = this.otherGroupExists(groupId) ? `Group ${groupId} is not a share group.` : `Group ${groupId} not found.`;
      return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: message, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    }
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: g.state, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, assignorName: 'simple',
      members: [...g.members.values()].map((m) => ({
        memberId: m.memberId, rackId: m.rackId, memberEpoch: m.memberEpoch, clientId: m.clientId, clientHost: m.clientHost,
        subscribedTopicNames: [...m.subscribedTopicNames],
        assignment: { topicPartitions: this.named(m.assigned) },
      })),
      authorizedOperations,
    };
  }

  private named(a: Assignment): { topicId: string; topicName: string; partitions: number[] }[] {
    const out: { topicId: string; topicName: string; partitions: number[] }[] = [];
    for (const [topicId, parts] of a) {
      const t = this.topics.byId(topicId);
      if (t && parts.size > 0) out.push({ topicId, topicName: t.name, partitions: [...parts].sort((x, y) => x - y) });
    }
    return out.sort((x, y) => (x.topicName < y.topicName ? -1 : 1));
  }

  list(statesFilter: string[], typesFilter: string[]): ListedGroup[] {
    return listGroupsOfType(this.groups.values(), 'share', statesFilter, typesFilter);
  }

  /** An empty share group of this id, created for AlterShareGroupOffsets (as Kafka 4.4 creates it); false when another kind of group has the id. */
  createEmpty(groupId: string): CoordinatorResult<boolean, Rec> {
    if (this.groups.has(groupId)) return { records: [], response: () => true };
    if (this.otherGroupExists(groupId)) return { records: [], response: () => false };
    return { records: [{ type: 'sg-metadata', groupId, value: { epoch: 0, metadataHash: 0n } }], response: () => true };
  }

  /** DeleteGroups precondition, or undefined when `groupId` is not a share group. */
  deletable(groupId: string): number | undefined {
    const g = this.groups.get(groupId);
    if (!g) return undefined;
    return g.members.size === 0 ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
  }

  /** The share-partitions of a group (for DeleteGroups / offsets APIs): topic id → partitions. */
  sharePartitions(groupId: string): Map<string, { topicName: string; partitions: Set<number> }> {
    return this.groups.get(groupId)?.initialized ?? new Map();
  }

  /**
   * Records share-partitions as initialised (AlterShareGroupOffsets) or forgets topics
   * (DeleteShareGroupOffsets) in the group's ShareGroupStatePartitionMetadata.
   */
  updateSharePartitions(groupId: string, add: { topicId: string; topicName: string; partitions: number[] }[], removeTopicIds: string[]): CoordinatorResult<void, Rec> {
    const g = this.groups.get(groupId);
    if (!g) return { records: [], response: () => undefined };
    const next = new Map<string, { topicName: string; partitions: Set<number> }>();
    for (const [id, v] of g.initialized) if (!removeTopicIds.includes(id)) next.set(id, { topicName: v.topicName, partitions: new Set(v.partitions) });
    for (const t of add) {
      const e = next.get(t.topicId) ?? next.set(t.topicId, { topicName: t.topicName, partitions: new Set() }).get(t.topicId)!;
      for (const p of t.partitions) e.partitions.add(p);
    }
    return { records: [statePartitions(groupId, g.initializing, next)], response: () => undefined };
  }

  groupTombstones(groupId: string): ShareGroupRecord[] {
    const g = this.groups.get(groupId);
    const out: ShareGroupRecord[] = [];
    for (const id of g?.target.keys() ?? []) out.push({ type: 'sg-target-member', groupId, memberId: id, value: null });
    out.push({ type: 'sg-target-metadata', groupId, value: null });
    out.push({ type: 'sg-state-partitions', groupId, value: null });
    out.push({ type: 'sg-metadata', groupId, value: null });
    return out;
  }
}

export { copyAssignment };
