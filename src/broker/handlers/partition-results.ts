/** Shared shapes of per-partition group requests (OffsetCommit, TxnOffsetCommit, OffsetDelete). */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { ZERO_UUID } from '../../protocol/reader.js';
import type { MetadataCache } from '../../cluster/metadata-cache.js';

interface TopicPartitions<P extends { partitionIndex: number }> {
  name: string;
  partitions: P[];
}

/** The requested partitions that exist (unknown ones are answered UNKNOWN_TOPIC_OR_PARTITION). */
export function existingPartitions<P extends { partitionIndex: number }>(metadataCache: MetadataCache, topics: TopicPartitions<P>[]): TopicPartitions<P>[] {
  return topics.map((t) => {
    const info = metadataCache.topic(t.name);
    return { name: t.name, partitions: t.partitions.filter((p) => info !== undefined && p.partitionIndex >= 0 && p.partitionIndex < info.partitions) };
  });
}

/** Per-partition error codes in the order of the request; partitions without a result are UNKNOWN_TOPIC_OR_PARTITION. */
export function codesInRequestOrder(
  requested: (TopicPartitions<{ partitionIndex: number }> & { topicId?: string })[],
  results: TopicPartitions<{ partitionIndex: number; errorCode: number }>[],
): { name: string; topicId: string; partitions: { partitionIndex: number; errorCode: number }[] }[] {
  const codes = new Map<string, number>();
  for (const t of results) for (const p of t.partitions) codes.set(`${p.partitionIndex}:${t.name}`, p.errorCode);
  return requested.map((t) => ({
    name: t.name,
    topicId: t.topicId ?? ZERO_UUID,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partitionIndex,
      errorCode: codes.get(`${p.partitionIndex}:${t.name}`) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    })),
  }));
}

/**
 * Topics named by id (OffsetCommit v10, TxnOffsetCommit v6, KIP-1319): each topic with its name
 * from the cluster's metadata; ids it does not know go to `unknown` (answered UNKNOWN_TOPIC_ID)
 * and get the name "".
 */
export function withTopicNames<T extends { topicId: string; name: string }>(cache: MetadataCache, topics: T[], unknown: Set<string>): T[] {
  return topics.map((t) => {
    const info = cache.topicById(t.topicId);
    if (!info) unknown.add(t.topicId);
    return { ...t, name: info?.name ?? '' };
  });
}
