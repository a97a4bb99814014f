/**
 * A REST Proxy v2 consumer instance's committed offsets, in-process: OffsetCommit v9 (as the
 * group member, with its member id and epoch, or -1 and no member for an instance that is not one:
 * then the group must be empty, as for the Java client's assign()) and OffsetFetch v9 (no member:
 * what any admin sees). A partition that fails fails the whole call, as commitSync() throws.
 */
import { ErrorCode, errorName } from '../../protocol/generated/error-codes.js';
import type { OffsetCommitResponse } from '../../protocol/generated/messages/offset-commit-response.js';
import type { OffsetFetchResponse } from '../../protocol/generated/messages/offset-fetch-response.js';
import { kafkaError } from './v2-common.js';

/** Sends one request in-process as the instance (its user and client id). */
export type Send = (apiKey: number, version: number, body: unknown) => Promise<any>;

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface OffsetToCommit extends TopicPartition {
  /** The next offset to read (what Kafka stores). */
  offset: bigint;
  metadata?: string | null;
}

export const nameKey = (topic: string, partition: number) => `${topic}\0${partition}`;

function groupByTopic<T extends TopicPartition, U>(items: readonly T[], map: (t: T) => U): Map<string, U[]> {
  const out = new Map<string, U[]>();
  for (const i of items) {
    const list = out.get(i.topic);
    if (list) list.push(map(i));
    else out.set(i.topic, [map(i)]);
  }
  return out;
}

export async function commitOffsets(send: Send, group: string, member: { memberId: string; epoch: number }, offsets: readonly OffsetToCommit[]): Promise<void> {
  if (offsets.length === 0) return;
  const byTopic = groupByTopic(offsets, (o) => ({
    partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: o.metadata ?? '',
  }));
  const res: OffsetCommitResponse = await send(8, 9, {
    groupId: group, generationIdOrMemberEpoch: member.epoch, memberId: member.memberId, groupInstanceId: null, retentionTimeMs: -1n,
    topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
  });
  for (const t of res.topics) {
    for (const p of t.partitions) {
      if (p.errorCode === ErrorCode.NONE) continue;
      const code = p.errorCode;
      const rebalanced = code === ErrorCode.STALE_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION;
      throw kafkaError(code, rebalanced
        ? `Commit cannot be completed since the group has already rebalanced and assigned the partitions to another member (${errorName(code)})`
        : `${errorName(code)} committing the offset of ${t.name}-${p.partitionIndex}`);
    }
  }
}

/** The committed offsets (≥ 0) of the partitions that have one, by nameKey. */
export async function fetchCommitted(send: Send, group: string, partitions: readonly TopicPartition[]): Promise<Map<string, { offset: bigint; metadata: string }>> {
  const out = new Map<string, { offset: bigint; metadata: string }>();
  if (partitions.length === 0) return out;
  const byTopic = groupByTopic(partitions, (tp) => tp.partition);
  const res: OffsetFetchResponse = await send(9, 9, {
    groupId: '', topics: null, requireStable: false,
    groups: [{ groupId: group, memberId: null, memberEpoch: -1, topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })) }],
  });
  const g = res.groups[0];
  if (!g) throw kafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, 'OffsetFetch answered no group');
  if (g.errorCode !== ErrorCode.NONE) throw kafkaError(g.errorCode);
  for (const t of g.topics) {
    for (const p of t.partitions) {
      if (p.errorCode !== ErrorCode.NONE) throw kafkaError(p.errorCode);
      if (p.committedOffset >= 0n) out.set(nameKey(t.name, p.partitionIndex), { offset: p.committedOffset, metadata: p.metadata ?? '' });
    }
  }
  return out;
}
