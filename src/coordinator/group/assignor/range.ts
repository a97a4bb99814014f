/**
 * The `range` assignor (Kafka's server-side RangeAssignor): topic by topic, the members subscribed
 * to the topic, sorted by member id, get contiguous ranges of its partitions; the first
 * (partitions % members) members get one more. Members with the same subscriptions therefore get
 * the same partition numbers of co-partitioned topics (the point of range assignment).
 *
 * Difference from Kafka's: Kafka 3.7+ keeps a member's current partitions when its range quota
 * allows (sticky ranges); this one recomputes the ranges, so a joining member can move more
 * partitions than with Kafka's (documented in docs/gaps.md).
 */
import { type Assignment, type GroupSpec, type PartitionAssignor, addPartition, sortedMemberIds } from './types.js';

export class RangeAssignor implements PartitionAssignor {
  readonly name = 'range';

  assign(spec: GroupSpec): Map<string, Assignment> {
    const ids = sortedMemberIds(spec);
    const out = new Map<string, Assignment>(ids.map((id) => [id, new Map()]));
    for (const [topicId, topic] of spec.topics) {
      const members = ids.filter((id) => spec.members.get(id)!.subscribedTopicIds.has(topicId));
      if (members.length === 0) continue;
      const base = Math.floor(topic.partitions / members.length);
      const extra = topic.partitions % members.length;
      let next = 0;
      members.forEach((id, i) => {
        const n = base + (i < extra ? 1 : 0);
        for (let k = 0; k < n; k++) addPartition(out.get(id)!, topicId, next++);
      });
    }
    return out;
  }
}
