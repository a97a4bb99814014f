/**
 * Where the replicas of new partitions go (the job of Kafka's ReplicaPlacer), and the checks of a
 * manual assignment.
 *
 * Placement is rack-aware: brokers are listed alternating between racks (racks in name order, the
 * brokers of a rack in id order), partition p is led by the ((start + p) mod n)-th broker of that
 * list, so leaders cycle over every broker and consecutive partitions are led from different
 * racks. Its followers are taken from the list after the leader, skipping a number of places that
 * grows with every full cycle (so the same pairs do not always go together), accepting a broker
 * only while its rack holds no more replicas of this partition than any other rack: with r racks
 * and replication factor f every rack gets f/r replicas, rounded down or up. Brokers without a
 * rack count as one rack of their own.
 */
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

export interface PlacementBroker {
  nodeId: number;
  rack: string | null;
}

/** Brokers in rack-alternating order. */
export function rackAlternatedList(brokers: readonly PlacementBroker[]): PlacementBroker[] {
  const byRack = new Map<string, PlacementBroker[]>();
  for (const b of [...brokers].sort((x, y) => x.nodeId - y.nodeId)) {
    const key = b.rack ?? '';
    let l = byRack.get(key);
    if (!l) byRack.set(key, (l = []));
    l.push(b);
  }
  const racks = [...byRack.keys()].sort().map((k) => byRack.get(k) as PlacementBroker[]);
  const out: PlacementBroker[] = [];
  for (let i = 0; out.length < brokers.length; i++) for (const r of racks) if (i < r.length) out.push(r[i]);
  return out;
}

export function checkReplicationFactor(replicationFactor: number, liveBrokers: number): void {
  if (replicationFactor < 1 || replicationFactor > 32767) {
    throw new KafkaApiError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
  }
  if (replicationFactor > liveBrokers) {
    throw new KafkaApiError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only ${liveBrokers} broker(s) are registered or some brokers have all their log directories cordoned.`,
    );
  }
}

/**
 * Replica lists for partitions firstPartition .. firstPartition + count - 1. `start` picks the
 * first leader (random by default, so that topics do not all start on the same broker).
 */
export function placeReplicas(
  brokers: readonly PlacementBroker[],
  count: number,
  replicationFactor: number,
  opts: { firstPartition?: number; start?: number } = {},
): number[][] {
  checkReplicationFactor(replicationFactor, brokers.length);
  const list = rackAlternatedList(brokers);
  const n = list.length;
  const rackOf = new Map(list.map((b) => [b.nodeId, b.rack ?? '']));
  const start = opts.start ?? Math.floor(Math.random() * n);
  const first = opts.firstPartition ?? 0;
  const out: number[][] = [];
  for (let i = 0; i < count; i++) {
    const p = first + i;
    const leaderIdx = (start + p) % n;
    const shift = n > 1 ? 1 + (Math.floor((start + p) / n) % (n - 1)) : 0;
    const replicas = [list[leaderIdx].nodeId];
    const perRack = new Map<string, number>([[rackOf.get(replicas[0]) as string, 1]]);
    const order: number[] = [];
    for (let j = 0; j < n; j++) {
      const idx = (leaderIdx + shift + j) % n;
      if (idx !== leaderIdx) order.push(list[idx].nodeId);
    }
    // Each pass admits brokers of racks that hold fewer than `level` replicas of this partition.
    for (let level = 1; replicas.length < replicationFactor; level++) {
      for (const id of order) {
        if (replicas.length >= replicationFactor) break;
        if (replicas.includes(id)) continue;
        const rack = rackOf.get(id) as string;
        const held = perRack.get(rack) ?? 0;
        // Pass `level` lets every rack reach `level` replicas before any rack gets more.
        if (held >= level) continue;
        replicas.push(id);
        perRack.set(rack, held + 1);
      }
    }
    out.push(replicas);
  }
  return out;
}

/**
 * One partition's manual replica list, as Kafka's validateManualPartitionAssignment checks it:
 * INVALID_REPLICA_ASSIGNMENT for an empty list, an unregistered broker, a repeated broker (the
 * ids are checked in ascending order, so the message names what Kafka's names), or a length other
 * than `expectedLength`.
 */
export function checkReplicaList(brokerIds: readonly number[], isRegistered: (id: number) => boolean, expectedLength?: number | null): void {
  if (brokerIds.length === 0) {
    throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'The manual partition assignment includes an empty replica list.');
  }
  const sorted = [...brokerIds].sort((a, b) => a - b);
  let prev: number | null = null;
  for (const id of sorted) {
    if (!isRegistered(id)) {
      throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes broker ${id}, but no such broker is registered.`);
    }
    if (id === prev) {
      throw new KafkaApiError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, `The manual partition assignment includes the broker ${prev} more than once.`);
    }
    prev = id;
  }
  if (expectedLength !== undefined && expectedLength !== null && sorted.length !== expectedLength) {
    throw new KafkaApiError(
      ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      `The manual partition assignment includes a partition with ${sorted.length} replica(s), but this is not consistent with previous partitions, which have ${expectedLength} replica(s).`,
    );
  }
}

/** Checks every list of a manual assignment (CreateTopics', CreatePartitions') with checkReplicaList. */
export function checkManualAssignment(assignments: readonly (readonly number[])[], isRegistered: (id: number) => boolean, expectedLength?: number): void {
  let length: number | undefined = expectedLength;
  for (const replicas of assignments) {
    checkReplicaList(replicas, isRegistered, length);
    length = replicas.length;
  }
}
