/**
 * OffsetFetch (key 9), versions 1-9.
 *
 * Behavior (behaviours.md OF1-OF5): unknown group or never-committed partition: offset -1,
 * leader epoch -1, metadata "", NONE; topics null (v2+) = every committed partition of the
 * group; a null group_id (v8+) INVALID_GROUP_ID, "" is a group like any other. require_stable
 * (v7+): a partition with a transactional commit still pending (TxnOffsetCommit before its
 * EndTxn) answers UNSTABLE_OFFSET_COMMIT with offset -1 (OF4; with topics null, for the committed
 * partitions listed, as Kafka's fetchAllOffsets); without it the pending offset is simply not
 * visible. The read and that check are one operation of the group's coordinator shard.
 * Version notes: v1 errors per partition only; v2 top-level error_code and topics null; v3
 * throttle time; v5 committed_leader_epoch; v6 flexible; v7 require_stable; v8 batches groups
 * (`groups` in, `groups` out, per-group error_code); v9 member id/epoch: checked for KIP-848
 * consumer groups (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH; a null member with epoch -1 is an
 * admin fetch), ignored by classic groups, as Kafka does.
 */
import { KafkaApiError } from '../../errors.js';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { OffsetFetchRequest } from '../../protocol/generated/messages/offset-fetch-request.js';
import type { OffsetFetchResponse, OffsetFetchResponseTopic } from '../../protocol/generated/messages/offset-fetch-response.js';
import type { GroupCoordinator } from '../../coordinator/group/group-coordinator.js';
import type { RequestContext } from '../request-context.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { ZERO_UUID } from '../../protocol/reader.js';

type Topics = { name: string; partitionIndexes: number[] }[] | null;

function failedTopics(topics: Topics, errorCode: number): OffsetFetchResponseTopic[] {
  return (topics ?? []).map((t) => ({
    name: t.name,
    partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode })),
  }));
}

/** One group's answer: its topics and error code. */
async function fetchGroup(ctx: RequestContext, coordinator: GroupCoordinator, groupId: string | null, topics: Topics, requireStable: boolean, member?: { memberId: string | null; memberEpoch: number }): Promise<{ topics: OffsetFetchResponseTopic[]; errorCode: number }> {
  // Only a null id (v8+) is refused: Kafka 4.4 fetches the offsets of group "" like any other.
  if (groupId === null) return { topics: [], errorCode: ErrorCode.INVALID_GROUP_ID };
  // ACLs: DESCRIBE on the group; DESCRIBE on each topic (named ones answer TOPIC_AUTHORIZATION_FAILED, "all" leaves them out).
  if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.GROUP, groupId)) return { topics: [], errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  try {
    // The read and require_stable's pending check are one operation of the group's shard.
    let fetched = await coordinator.fetchOffsets(groupId, topics, member, requireStable);
    if (ctx.broker.authorizer != null) {
      const describable = (name: string) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name);
      if (topics === null) fetched = fetched.filter((t) => describable(t.name));
      else {
        for (const t of fetched) {
          if (describable(t.name)) continue;
          for (const p of t.partitions) Object.assign(p, { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '' });
        }
      }
    }
    return { topics: fetched, errorCode: ErrorCode.NONE };
  } catch (err) {
    if (!(err instanceof KafkaApiError)) throw err;
    return { topics: [], errorCode: err.errorCode };
  }
}

function errorForVersion(req: OffsetFetchRequest, v: number, errorCode: number): OffsetFetchResponse {
  if (v >= 8) {
    return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups: req.groups.map((g) => ({ groupId: g.groupId, topics: [], errorCode })) };
  }
  // v1 has no top-level error: every requested partition carries it.
  return { throttleTimeMs: 0, topics: v < 2 ? failedTopics(req.topics, errorCode) : [], errorCode, groups: [] };
}

export const offsetFetchHandler = defineHandler({
  apiKey: 9,
  async handle(ctx, req) {
    const v = ctx.apiVersion;
    const coordinator = ctx.broker.groupCoordinator;
    const requireStable = v >= 7 && req.requireStable;
    if (v >= 8) {
      // v10 names topics by id (KIP-848): an id the cluster does not know is UNKNOWN_TOPIC_ID.
      const cache = v >= 10 ? ctx.broker.metadataCache : null;
      const groups = await Promise.all(req.groups.map(async (g) => {
        const member = v >= 9 ? { memberId: g.memberId, memberEpoch: g.memberEpoch } : undefined;
        // One lookup per named topic: its name (v10 names it by id), or UNKNOWN_TOPIC_ID.
        const unknown: { topicId: string; partitionIndexes: number[] }[] = [];
        const named = g.topics === null ? null : g.topics.flatMap((t) => {
          if (cache === null) return [{ name: t.name, partitionIndexes: t.partitionIndexes }];
          const name = cache.topicById(t.topicId)?.name;
          if (name === undefined) unknown.push(t);
          return name === undefined ? [] : [{ name, partitionIndexes: t.partitionIndexes }];
        });
        const r = await fetchGroup(ctx, coordinator, g.groupId, named, requireStable, member);
        const topics = r.topics.map((t) => ({ ...t, topicId: cache?.topic(t.name)?.topicId ?? ZERO_UUID }));
        for (const t of unknown) topics.push({ ...failedTopics([{ name: '', partitionIndexes: t.partitionIndexes }], ErrorCode.UNKNOWN_TOPIC_ID)[0], topicId: t.topicId });
        return { groupId: g.groupId, topics, errorCode: r.errorCode };
      }));
      return { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups };
    }
    const r = await fetchGroup(ctx, coordinator, req.groupId, req.topics, requireStable);
    if (r.errorCode !== ErrorCode.NONE) return errorForVersion(req, v, r.errorCode);
    return { throttleTimeMs: 0, topics: r.topics, errorCode: ErrorCode.NONE, groups: [] };
  },
  errorResponse(req, errorCode, ctx) {
    return errorForVersion(req, ctx.apiVersion, errorCode);
  },
});
