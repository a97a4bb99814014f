/**
 * The `range` assignor (Kafka's server-side RangeAssignor): topic by topic, the members subscribed
 * to the topic, sorted by member id, get contiguous ranges of its partitions; the first
 * (partitions % members) members get one more. Members with the same subscriptions therefore get
 * the same partition numbers of co-partitioned topics (the point of range assignment).
 *
 * Rack awareness (members with a rack id, brokers with racks): each member first takes, up to its
 * share, the partitions with a replica in its rack; the rest are handed out in partition order.
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
      const quota = members.map((_, i) => base + (i < extra ? 1 : 0));
      const taken = new Set<number>();
      // Rack-aware first pass: each member, in order, takes the partitions with a replica in its
      // rack, up to its quota; then the ranges are filled in partition order.
      const racks = topic.partitionRacks;
      if (racks) {
        members.forEach((id, i) => {
          const rack = spec.members.get(id)!.rackId;
          if (rack === null) return;
          for (let p = 0; p < topic.partitions && quota[i] > 0; p++) {
            if (taken.has(p) || !racks[p]?.includes(rack)) continue;
            addPartition(out.get(id)!, topicId, p);
            taken.add(p);
            quota[i]--;
          }
        });
      }
      let next = 0;
      members.forEach((id, i) => {
        for (let k = 0; k < quota[i]; k++) {
          while (taken.has(next)) next++;
          addPartition(out.get(id)!, topicId, next);
          taken.add(next++);
        }
      });
    }
    return out;
  }
}
