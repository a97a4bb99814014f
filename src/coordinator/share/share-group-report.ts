/**
 * A share group (KIP-932) as a person looks at it: its members with their assignments and, per
 * share-partition, the start offset and lag (DescribeShareGroupOffsets' figures) with the counts
 * of in-flight and archived records read from its persisted state (ReadShareGroupState). One
 * assembly for every place that shows share groups: `samsa groups describe` reads over the wire
 * (src/cli/share-groups.ts), the console's share-group pages read in-process
 * (src/http/share-groups.ts); each supplies a `ShareGroupReader`.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribedGroup } from '../../protocol/generated/messages/share-group-describe-response.js';
import { DeliveryState } from './persister.js';

/** The share-partitions a group has, each with its start offset and lag (-1: not known). */
export interface ShareOffsetsTopic {
  topicName: string;
  topicId: string;
  partitions: { partitionIndex: number; startOffset: bigint; lag: bigint; errorCode: number }[];
}

/** A persisted state batch (offsets as numbers or bigints, as each source has them). */
export interface StateBatchLike {
  firstOffset: number | bigint;
  lastOffset: number | bigint;
  deliveryState: number;
  deliveryCount: number;
}

export interface ShareGroupReader {
  /** ShareGroupDescribe of the groups (one answer per id, errors included). */
  describe(groupIds: string[]): Promise<DescribedGroup[]>;
  /** Every share-partition of the group with its start offset and lag; null when they cannot be read. */
  offsets(groupId: string): Promise<ShareOffsetsTopic[] | null>;
  /** The persisted state batches of one share-partition; null when they cannot be read here. */
  stateBatches(groupId: string, topic: { topicId: string; topicName: string }, partition: number): Promise<StateBatchLike[] | null>;
}

export interface ShareMemberReport {
  memberId: string;
  clientId: string;
  clientHost: string;
  rackId: string | null;
  memberEpoch: number;
  subscribedTopicNames: string[];
  assignment: { topic: string; partitions: number[] }[];
}

export interface SharePartitionReport {
  topic: string;
  partition: number;
  /** null where not known (no state yet, or an error). */
  startOffset: bigint | null;
  lag: bigint | null;
  /** Delivered and not yet acknowledged, released or archived; null where the state could not be read. */
  inFlight: number | null;
  archived: number | null;
}

export interface ShareGroupReport {
  groupId: string;
  state: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: ShareMemberReport[];
  /** null when the share-partitions could not be read. */
  partitions: SharePartitionReport[] | null;
}

/**
 * In-flight and archived records above the start offset, from persisted state batches: an
 * acquired record is persisted as Available with a delivery count above zero (in flight), an
 * archived one as Archived; acknowledged ones and those never delivered count in neither.
 */
export function countStateBatches(batches: readonly StateBatchLike[]): { inFlight: number; archived: number } {
  let inFlight = 0;
  let archived = 0;
  for (const b of batches) {
    const n = Number(b.lastOffset) - Number(b.firstOffset) + 1;
    if (b.deliveryState === DeliveryState.ARCHIVED) archived += n;
    else if (b.deliveryState === DeliveryState.AVAILABLE && b.deliveryCount > 0) inFlight += n;
  }
  return { inFlight, archived };
}

/** "topic:0,1 other:2" for an assignment, "-" when empty. */
export function formatAssignment(assignment: readonly { topic: string; partitions: readonly number[] }[]): string {
  return assignment.map((t) => `${t.topic}:${t.partitions.join(',')}`).join(' ') || '-';
}

async function partitionsOf(reader: ShareGroupReader, groupId: string, counts: boolean): Promise<SharePartitionReport[] | null> {
  const topics = await reader.offsets(groupId);
  if (topics === null) return null;
  const out: SharePartitionReport[] = [];
  for (const t of [...topics].sort((a, b) => a.topicName.localeCompare(b.topicName))) {
    for (const p of [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex)) {
      const ok = p.errorCode === ErrorCode.NONE;
      const batches = counts ? await reader.stateBatches(groupId, t, p.partitionIndex).catch(() => null) : null;
      const c = batches === null ? null : countStateBatches(batches);
      out.push({
        topic: t.topicName, partition: p.partitionIndex,
        startOffset: ok && p.startOffset >= 0n ? p.startOffset : null, lag: ok && p.lag >= 0n ? p.lag : null,
        inFlight: c?.inFlight ?? null, archived: c?.archived ?? null,
      });
    }
  }
  return out;
}

/**
 * Reports on those of `groupIds` that are share groups (in the order asked; the others are left
 * out). `counts: false` skips the state reads (no in-flight / archived figures).
 */
export async function shareGroupReports(reader: ShareGroupReader, groupIds: string[], opts: { counts?: boolean } = {}): Promise<ShareGroupReport[]> {
  if (groupIds.length === 0) return [];
  const described = await reader.describe(groupIds);
  const out: ShareGroupReport[] = [];
  for (const g of described) {
    if (g.errorCode !== ErrorCode.NONE) continue;
    out.push({
      groupId: g.groupId, state: g.groupState, groupEpoch: g.groupEpoch, assignmentEpoch: g.assignmentEpoch, assignorName: g.assignorName,
      members: g.members.map((m) => ({
        memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, rackId: m.rackId, memberEpoch: m.memberEpoch,
        subscribedTopicNames: m.subscribedTopicNames,
        assignment: (m.assignment?.topicPartitions ?? []).map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
      })),
      partitions: await partitionsOf(reader, g.groupId, opts.counts ?? true),
    });
  }
  return out;
}
