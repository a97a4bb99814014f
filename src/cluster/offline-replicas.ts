/**
 * Replicas on a broker's offline log dirs (Kafka's BrokerRegistration offline_log_dirs with the
 * controller's ReplicationControlManager.handleDirectoriesOffline). A broker whose log dir failed
 * keeps running, and its registration lists the replicas that dir held (`topicId:partition`;
 * Samsa's partition states have no directory assignment, so the broker names the replicas
 * rather than only the dirs). For those partitions the controller treats the broker as gone:
 * out of the ISR, not a leader candidate. The list lives as long as the registration (a restart
 * registers without it; the broker then fetches the partition again as a new follower).
 */
import type { MetadataCache } from './metadata-cache.js';

/** How a replica is named in `offlineReplicas`. */
export function offlineReplicaKey(topicId: string, partition: number): string {
  return `${topicId}:${partition}`;
}

/** Sets of the registrations' lists (a registration's list is replaced, never changed). */
const sets = new WeakMap<readonly string[], Set<string>>();

/** Whether `nodeId`'s replica of the partition is usable: its registration does not list it offline. */
export function replicaOnline(cache: MetadataCache, nodeId: number, topicId: string, partition: number): boolean {
  const list = cache.brokers.get(nodeId)?.offlineReplicas;
  if (list === undefined || list.length === 0) return true;
  let set = sets.get(list);
  if (!set) {
    set = new Set(list);
    sets.set(list, set);
  }
  return !set.has(offlineReplicaKey(topicId, partition));
}
