/**
 * Fetch from the closest replica (KIP-392): which replica a consumer is told to read from
 * (Kafka's ReplicaSelector, RackAwareReplicaSelector and ReplicaManager.findPreferredReadReplica).
 *
 * The leader answers a consumer's Fetch (v11+, which carries the client's rack as `rack_id`) with
 * `preferred_read_replica` and no records when the configured selector
 * (`replica.selector.class`) picks another replica; the client then fetches from that replica,
 * which serves it up to its own high watermark (fetch-messages.ts).
 *
 * The replicas offered to the selector (findPreferredReadReplica):
 * - only on the leader, only for consumers (a follower's fetch never gets one);
 * - the leader itself, with its log end offset and no lag;
 * - each follower in the ISR whose log, as the leader last heard (its last fetch), covers the fetch
 *   offset: log start <= fetch offset <= log end; a follower not heard from since this broker
 *   became leader has neither and is left out;
 * - each with its endpoint on the client's listener, from the registered brokers; a replica with
 *   none (not registered, no such listener) has no rack and is never chosen.
 * The leader as the choice means no preferred replica (-1).
 *
 * RackAwareReplicaSelector: a client without a rack reads from the leader; otherwise, among the
 * replicas in its rack, the leader if it is one of them, else the one with the highest log end
 * offset, then the shortest time since it was last caught up, then the highest node id (Kafka's
 * ReplicaView.comparator); no replica in its rack: the leader.
 *
 * Everything here runs in the Fetch handler's synchronous part, on the event loop, reading the
 * leader's `Partition` (its ISR and follower states, which its own fetch handling updates).
 */
import type { Partition } from './partition.js';
import { RACK_AWARE_REPLICA_SELECTOR } from '../config/replication-settings.js';

/** What a Fetch tells about its client (Kafka's ClientMetadata; only what a selector reads). */
export interface ClientMetadata {
  /** client.rack; '' when the client sent none. */
  readonly rackId: string;
  /** The listener the request came in on: replicas are named by their endpoints there. */
  readonly listenerName: string;
}

/** One replica the selector may choose (Kafka's ReplicaView). */
export interface ReplicaView {
  readonly nodeId: number;
  /** The broker's rack; null without one, or without an endpoint on the client's listener. */
  readonly rack: string | null;
  readonly logEndOffset: number;
  readonly timeSinceLastCaughtUpMs: number;
}

/** Kafka's ReplicaSelector: the replica a client should read a partition from. */
export interface ReplicaSelector {
  /**
   * Whether the leader is the choice whatever the followers are: asked first, so that a fetch
   * that stays on the leader builds no views (the common case on the fetch hot path).
   */
  choosesLeader(client: ClientMetadata, leaderRack: string | null): boolean;
  /** The replica to read from; `replicas` includes `leader`. */
  select(client: ClientMetadata, leader: ReplicaView, replicas: readonly ReplicaView[]): ReplicaView;
}

/** Kafka's ReplicaView.comparator: log end offset, then less time since caught up, then node id. */
function compareViews(a: ReplicaView, b: ReplicaView): number {
  if (a.logEndOffset !== b.logEndOffset) return a.logEndOffset < b.logEndOffset ? -1 : 1;
  if (a.timeSinceLastCaughtUpMs !== b.timeSinceLastCaughtUpMs) return a.timeSinceLastCaughtUpMs > b.timeSinceLastCaughtUpMs ? -1 : 1;
  return a.nodeId - b.nodeId;
}

/** Kafka's org.apache.kafka.common.replica.RackAwareReplicaSelector. */
export class RackAwareReplicaSelector implements ReplicaSelector {
  choosesLeader(client: ClientMetadata, leaderRack: string | null): boolean {
    return client.rackId === '' || leaderRack === client.rackId;
  }

  select(client: ClientMetadata, leader: ReplicaView, replicas: readonly ReplicaView[]): ReplicaView {
    if (this.choosesLeader(client, leader.rack)) return leader;
    let best: ReplicaView | null = null;
    for (const r of replicas) {
      if (r.rack !== client.rackId) continue;
      if (best === null || compareViews(r, best) > 0) best = r;
    }
    return best ?? leader;
  }
}

/**
 * The selector `replica.selector.class` names (null: none, every consumer reads from the leader).
 * The settings table refuses any other class at start-up (config/replication-settings.ts).
 */
export function createReplicaSelector(className: string | null): ReplicaSelector | null {
  if (className === null) return null;
  if (className === RACK_AWARE_REPLICA_SELECTOR) return new RackAwareReplicaSelector();
  throw new Error(`replica.selector.class: Class ${className} could not be found`);
}

/** A broker's rack as seen on a listener: undefined when it has no endpoint there (or is not registered). */
export type RackOnListener = (nodeId: number, listenerName: string) => string | null | undefined;

/**
 * Kafka's ReplicaManager.findPreferredReadReplica for a consumer's fetch of `partition` (led
 * here) at `fetchOffset`: the node id to redirect the client to, or -1 (read from the leader).
 */
export function findPreferredReadReplica(
  selector: ReplicaSelector, partition: Partition, client: ClientMetadata, fetchOffset: number, nowMs: number, rackOf: RackOnListener,
): number {
  const leaderId = partition.leaderId;
  const leaderRack = rackOf(leaderId, client.listenerName) ?? null;
  if (selector.choosesLeader(client, leaderRack)) return -1;
  const leader: ReplicaView = { nodeId: leaderId, rack: leaderRack, logEndOffset: partition.log.logEndOffset, timeSinceLastCaughtUpMs: 0 };
  const replicas: ReplicaView[] = [leader];
  for (const id of partition.isr) {
    if (id === leaderId) continue;
    const f = partition.followerState(id);
    // Unknown offsets are -1: such a follower is left out unless the fetch offset is below 0.
    if (!f || f.logEndOffset < fetchOffset || f.logStartOffset > fetchOffset) continue;
    replicas.push({ nodeId: id, rack: rackOf(id, client.listenerName) ?? null, logEndOffset: f.logEndOffset, timeSinceLastCaughtUpMs: nowMs - f.lastCaughtUpTimeMs });
  }
  const chosen = selector.select(client, leader, replicas);
  // The leader, or a replica without an endpoint on the client's listener: no redirection.
  if (chosen === leader || rackOf(chosen.nodeId, client.listenerName) === undefined) return -1;
  return chosen.nodeId;
}
