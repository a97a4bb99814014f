/**
 * What other APIs ask of a shard's consumer groups: ConsumerGroupDescribe, ListGroups entries,
 * the member-epoch checks of OffsetCommit/OffsetFetch (Kafka's ConsumerGroup.validateOffsetCommit
 * and validateOffsetFetch), OffsetDelete's subscription check, DeleteGroups and offset expiration.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribedGroup, Member } from '../../protocol/generated/messages/consumer-group-describe-response.js';
import type { ListedGroup } from '../../protocol/generated/messages/list-groups-response.js';
import { listGroupsOfType } from './list-groups.js';
import type { Assignment } from './assignor/types.js';
import { ConsumerGroup, type ConsumerGroupMember } from './consumer-group.js';
import type { ConsumerGroupManager } from './consumer-group-manager.js';
import type { ConsumerGroupRecord } from './consumer-group-records.js';
import { compileTopicRegex } from './topic-regex.js';
import type { TopicView } from './topic-view.js';

export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

/** ConsumerGroupDescribeResponse.Members[].MemberType (v1): 0 = classic protocol, 1 = consumer protocol. */
const MEMBER_TYPE_CLASSIC = 0;
const MEMBER_TYPE_CONSUMER = 1;

export class ConsumerGroupQueries {
  constructor(private readonly manager: ConsumerGroupManager, private readonly topics: TopicView, private readonly isClassicGroup: (groupId: string) => boolean) {}

  has(groupId: string): boolean {
    return this.manager.groups.has(groupId);
  }

  private group(groupId: string): ConsumerGroup | undefined {
    return this.manager.groups.get(groupId);
  }

  /** ConsumerGroupDescribe of one group (authorized operations filled by the caller). */
  describe(groupId: string, authorizedOperations: number): DescribedGroup {
    const g = this.group(groupId);
    const failed = (errorCode: number, errorMessage: string): DescribedGroup => ({
      errorCode, errorMessage, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    });
    if (!g) {
      if (this.isClassicGroup(groupId)) return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a consumer group.`);
      return failed(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    }
    return {
      errorCode: ErrorCode.NONE, errorMessage: null, groupId, groupState: g.state,
      groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch,
      assignorName: this.manager.preferredAssignor(g.members.values()).name,
      members: [...g.members.values()].map((m) => this.describeMember(g, m)),
      authorizedOperations,
    };
  }

  private describeMember(g: ConsumerGroup, m: ConsumerGroupMember): Member {
    return {
      memberId: m.memberId, instanceId: m.instanceId, rackId: m.rackId, memberEpoch: m.memberEpoch,
      clientId: m.clientId, clientHost: m.clientHost,
      // Kafka describes a member without a regex with "" (not null).
      subscribedTopicNames: [...m.subscribedTopicNames], subscribedTopicRegex: m.subscribedTopicRegex ?? '',
      assignment: { topicPartitions: this.named(m.assigned) },
      targetAssignment: { topicPartitions: this.named(g.target.get(m.memberId) ?? new Map()) },
      memberType: m.classic ? MEMBER_TYPE_CLASSIC : MEMBER_TYPE_CONSUMER,
    };
  }

  private named(a: Assignment): { topicId: string; topicName: string; partitions: number[] }[] {
    const out: { topicId: string; topicName: string; partitions: number[] }[] = [];
    for (const [topicId, parts] of a) {
      const t = this.topics.byId(topicId);
      if (!t || parts.size === 0) continue;
      out.push({ topicId, topicName: t.name, partitions: [...parts].sort((x, y) => x - y) });
    }
    return out.sort((x, y) => (x.topicName < y.topicName ? -1 : 1));
  }

  /** ListGroups entries of the consumer groups (states compared case-insensitively). */
  list(statesFilter: string[], typesFilter: string[]): ListedGroup[] {
    return listGroupsOfType(this.manager.groups.values(), 'consumer', statesFilter, typesFilter);
  }

  /**
   * OffsetCommit's group checks for a consumer group, or undefined when `groupId` is not one.
   * Epoch -1 commits only to an Empty group (admin, assign-mode); otherwise the member must exist
   * (UNKNOWN_MEMBER_ID), commit with OffsetCommit v9+ (UNSUPPORTED_VERSION; transactional commits
   * excepted) and with its current member epoch (STALE_MEMBER_EPOCH).
   */
  validateOffsetCommit(req: { groupId: string; generationId: number; memberId: string }, apiVersion: number, transactional: boolean): number | undefined {
    const g = this.group(req.groupId);
    if (!g) return undefined;
    if (req.generationId < 0 && g.members.size === 0) return ErrorCode.NONE;
    const m = g.members.get(req.memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    // Classic members of a consumer group commit with their generation (= member epoch), any version.
    if (m.classic) return req.generationId === m.memberEpoch ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
    if (!transactional && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
    if (req.generationId !== m.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** OffsetFetch v9+'s member check for a consumer group (NONE when not one, or no member given). */
  validateOffsetFetch(groupId: string, memberId: string | null, memberEpoch: number): number {
    const g = this.group(groupId);
    if (!g) return ErrorCode.NONE;
    if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
    const m = memberId === null ? undefined : g.members.get(memberId);
    if (!m) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (memberEpoch !== m.memberEpoch) return m.classic ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH;
    return ErrorCode.NONE;
  }

  /** Topics OffsetDelete may not touch: subscribed ones (none when Empty); undefined: not a consumer group. */
  subscribedTopics(groupId: string): Set<string> | undefined {
    const g = this.group(groupId);
    if (!g) return undefined;
    const out = new Set<string>();
    if (g.members.size === 0) return out;
    for (const m of g.members.values()) {
      for (const t of m.subscribedTopicNames) out.add(t);
      if (m.subscribedTopicRegex !== null) {
        const c = compileTopicRegex(m.subscribedTopicRegex);
        if (c.ok) for (const t of this.topics.names()) if (c.test(t)) out.add(t);
      }
    }
    return out;
  }

  /** DeleteGroups precondition for a consumer group, or undefined when `groupId` is not one. */
  deletable(groupId: string): number | undefined {
    const g = this.group(groupId);
    if (!g) return undefined;
    return g.members.size === 0 ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
  }

  /** The tombstones deleting an (Empty) consumer group's records. */
  groupTombstones(groupId: string): ConsumerGroupRecord[] {
    const g = this.group(groupId);
    const out: ConsumerGroupRecord[] = [];
    for (const id of g?.members.keys() ?? []) out.push(...this.manager.memberTombstones(groupId, id));
    for (const id of g?.target.keys() ?? []) if (!g!.members.has(id)) out.push({ type: 'cg-target-member', groupId, memberId: id, value: null });
    out.push({ type: 'cg-target-metadata', groupId, value: null });
    out.push({ type: 'cg-partition-metadata', groupId, value: null });
    out.push({ type: 'cg-metadata', groupId, value: null });
    return out;
  }

  /** Consumer groups as offset expiration sees them: Empty or not, and what they subscribe to. */
  forExpiration(): { groupId: string; empty: boolean; subscribed: Set<string> }[] {
    return [...this.manager.groups.values()].map((g) => ({ groupId: g.groupId, empty: g.members.size === 0, subscribed: this.subscribedTopics(g.groupId) ?? new Set() }));
  }
}
