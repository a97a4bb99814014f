/**
 * The `uniform` assignor (Kafka's UniformAssignor, the default of group.consumer.assignors):
 * every partition of the subscribed topics goes to one member subscribed to its topic, the
 * partition counts of members are as even as their subscriptions allow, and partitions stay with
 * the member that has them in its current target whenever balance permits (stickiness is what
 * lets a joining member take partitions without the others losing theirs).
 *
 * Steps: (1) keep each member's current partitions that still exist and that it still subscribes
 * to, at most once per partition; (2) with homogeneous subscriptions, trim members above the
 * ceiling quota (total / members, rounded up; only as many members as the remainder may sit at
 * the ceiling); (3) hand each free partition to the least-loaded eligible member; (4) while some
 * member has two or more partitions more than an eligible other, move one across.
 *
 * Rack awareness (members with a rack id, brokers with racks): among equally loaded candidates a
 * partition goes to a member in a rack holding one of its replicas, and a partition moved for
 * balance is one with a replica in the receiver's rack when there is one; balance and
 * stickiness come first.
 *
 * Differences from Kafka's (documented in docs/gaps.md): Kafka's rack-aware builder may trade
 * stickiness for rack locality where this one does not, and the exact partition-to-member choice
 * among equally good candidates differs (both are deterministic).
 */
import {
  type Assignment, type GroupSpec, type PartitionAssignor, addPartition, sortedMemberIds, sortedTopicIds,
} from './types.js';

interface Load {
  memberId: string;
  rackId: string | null;
  count: number;
  assignment: Assignment;
  subscribed: ReadonlySet<string>;
}

/**
 * The least-loaded member subscribed to the topic; among equally loaded ones, one in a rack that
 * holds a replica of the partition (when racks are known), so that rack awareness never costs
 * balance.
 */
function leastLoaded(loads: Load[], topicId: string, racks?: readonly string[]): Load | undefined {
  let best: Load | undefined;
  for (const l of loads) {
    if (!l.subscribed.has(topicId)) continue;
    if (!best || l.count < best.count || (l.count === best.count && racks && !rackMatch(best, racks) && rackMatch(l, racks))) best = l;
  }
  return best;
}

function rackMatch(l: Load, racks: readonly string[] | undefined): boolean {
  return l.rackId !== null && racks !== undefined && racks.includes(l.rackId);
}

export class UniformAssignor implements PartitionAssignor {
  readonly name = 'uniform';

  assign(spec: GroupSpec): Map<string, Assignment> {
    const ids = sortedMemberIds(spec);
    const loads: Load[] = ids.map((memberId) => ({ memberId, rackId: spec.members.get(memberId)!.rackId, count: 0, assignment: new Map(), subscribed: spec.members.get(memberId)!.subscribedTopicIds }));
    const byId = new Map(loads.map((l) => [l.memberId, l]));
    const taken = new Set<string>();
    const key = (t: string, p: number) => `${t}:${p}`;

    let total = 0;
    for (const [topicId, t] of spec.topics) {
      if (ids.some((id) => spec.members.get(id)!.subscribedTopicIds.has(topicId))) total += t.partitions;
    }
    const homogeneous = ids.length > 0 && ids.every((id) => sameSet(spec.members.get(id)!.subscribedTopicIds, spec.members.get(ids[0])!.subscribedTopicIds));
    const floor = ids.length > 0 ? Math.floor(total / ids.length) : 0;
    let ceilingSeats = ids.length > 0 ? total % ids.length : 0;

    // (1) + (2) stickiness, capped at the quota when subscriptions are homogeneous.
    for (const l of loads) {
      const current = spec.members.get(l.memberId)!.current;
      const kept: [string, number][] = [];
      for (const topicId of [...current.keys()].sort()) {
        const topic = spec.topics.get(topicId);
        if (!topic || !l.subscribed.has(topicId)) continue;
        for (const p of [...current.get(topicId)!].sort((a, b) => a - b)) {
          if (p < topic.partitions && !taken.has(key(topicId, p))) kept.push([topicId, p]);
        }
      }
      // Trimmed to the quota, a member keeps the partitions with a replica in its rack first.
      kept.sort((x, y) => Number(rackMatch(l, spec.topics.get(y[0])!.partitionRacks?.[y[1]])) - Number(rackMatch(l, spec.topics.get(x[0])!.partitionRacks?.[x[1]])));
      let quota = kept.length;
      if (homogeneous) {
        quota = Math.min(kept.length, floor);
        if (kept.length > floor && ceilingSeats > 0) {
          quota = floor + 1;
          ceilingSeats--;
        }
      }
      for (const [topicId, p] of kept.slice(0, quota)) {
        addPartition(l.assignment, topicId, p);
        taken.add(key(topicId, p));
        l.count++;
      }
    }

    // (3) free partitions to the least-loaded eligible member.
    for (const topicId of sortedTopicIds(spec)) {
      const n = spec.topics.get(topicId)!.partitions;
      for (let p = 0; p < n; p++) {
        if (taken.has(key(topicId, p))) continue;
        const l = leastLoaded(loads, topicId, spec.topics.get(topicId)!.partitionRacks?.[p]);
        if (!l) continue;
        addPartition(l.assignment, topicId, p);
        taken.add(key(topicId, p));
        l.count++;
      }
    }

    // (4) balance: move from the most loaded to an eligible member two or more below it.
    for (let moved = true; moved;) {
      moved = false;
      const byCount = [...loads].sort((a, b) => b.count - a.count || (a.memberId < b.memberId ? -1 : 1));
      outer: for (const from of byCount) {
        for (const topicId of [...from.assignment.keys()].sort()) {
          const to = leastLoaded(loads, topicId);
          if (!to || to.count + 2 > from.count) continue;
          const parts = from.assignment.get(topicId)!;
          // Move a partition with a replica in the receiver's rack when there is one.
          const racks = spec.topics.get(topicId)!.partitionRacks;
          const candidates = [...parts].sort((a, b) => b - a);
          const p = candidates.find((q) => rackMatch(to, racks?.[q])) ?? candidates[0];
          parts.delete(p);
          if (parts.size === 0) from.assignment.delete(topicId);
          from.count--;
          addPartition(to.assignment, topicId, p);
          to.count++;
          moved = true;
          break outer;
        }
      }
    }
    return new Map(ids.map((id) => [id, byId.get(id)!.assignment]));
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
