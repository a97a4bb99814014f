/**
 * The server-side assignor contract (Kafka's ConsumerGroupPartitionAssignor with GroupSpec and
 * SubscribedTopicDescriber): the coordinator hands an assignor every member's subscription (topic
 * ids, already resolved from names and regular expressions), its rack and its current target
 * assignment (for stickiness), plus the partition count of every subscribed topic; the assignor
 * answers each member's new target. Topics are keyed by id, partitions are numbers.
 */

/** topic id → partitions. */
export type Assignment = Map<string, Set<number>>;

export interface AssignmentMemberSpec {
  rackId: string | null;
  subscribedTopicIds: ReadonlySet<string>;
  /** The member's current target assignment (what a sticky assignor tries to keep). */
  current: Assignment;
}

export interface AssignmentTopic {
  name: string;
  partitions: number;
  /** The racks of each partition's replicas (index = partition); absent: racks unknown. */
  partitionRacks?: string[][];
}

export interface GroupSpec {
  /** Every member, by id. */
  members: ReadonlyMap<string, AssignmentMemberSpec>;
  /** The subscribed topics that exist, by id. */
  topics: ReadonlyMap<string, AssignmentTopic>;
}

export interface PartitionAssignor {
  /** The name clients ask for in ServerAssignor (`uniform`, `range`). */
  readonly name: string;
  /** Every member of the spec gets an entry (possibly empty). */
  assign(spec: GroupSpec): Map<string, Assignment>;
}

export function emptyAssignment(): Assignment {
  return new Map();
}

export function addPartition(a: Assignment, topicId: string, partition: number): void {
  let s = a.get(topicId);
  if (!s) a.set(topicId, (s = new Set()));
  s.add(partition);
}

export function assignmentSize(a: Assignment): number {
  let n = 0;
  for (const s of a.values()) n += s.size;
  return n;
}

/** Members sorted by id: every assignor is deterministic for a given spec. */
export function sortedMemberIds(spec: GroupSpec): string[] {
  return [...spec.members.keys()].sort();
}

/** Topic ids sorted by topic name (then id), the order partitions are handed out in. */
export function sortedTopicIds(spec: GroupSpec): string[] {
  return [...spec.topics.keys()].sort((a, b) => {
    const na = spec.topics.get(a)!.name;
    const nb = spec.topics.get(b)!.name;
    return na < nb ? -1 : na > nb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  });
}
