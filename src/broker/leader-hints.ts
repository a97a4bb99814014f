/**
 * KIP-951 leader hints: a Produce or Fetch answered NOT_LEADER_OR_FOLLOWER names the partition's
 * current leader and epoch (`current_leader`), and the response lists that leader's endpoint
 * (`node_endpoints`), so the client can retry at once without a Metadata round trip. Built only
 * on the error path; the success path allocates nothing here.
 */
import type { BrokerServices } from './broker-services.js';
import type { Partition } from '../replication/partition.js';
import { NO_LEADER } from '../cluster/metadata-store.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

export interface LeaderIdAndEpoch {
  leaderId: number;
  leaderEpoch: number;
}

export interface NodeEndpoint {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

/** The leader this broker's metadata names for a partition (-1/-1 when unknown). */
export function currentLeaderOf(broker: BrokerServices, topicId: string, partition: number): LeaderIdAndEpoch {
  const state = broker.partitionState(topicId, partition);
  return state ? { leaderId: state.leader, leaderEpoch: state.leaderEpoch } : { leaderId: NO_LEADER, leaderEpoch: -1 };
}

/** Whether this broker serves the partition as leader (the replica exists here and leads). */
export function leads(p: Partition | undefined): p is Partition {
  return p !== undefined && p.isLeader;
}

/** Collects the endpoints of the leaders named in a response, once each. */
export class LeaderEndpoints {
  private readonly seen = new Map<number, NodeEndpoint>();

  constructor(private readonly broker: BrokerServices, private readonly listenerName: string) {}

  add(leaderId: number): void {
    if (leaderId < 0 || this.seen.has(leaderId)) return;
    const e = this.broker.brokerEndpoint(leaderId, this.listenerName);
    if (e) this.seen.set(leaderId, { nodeId: leaderId, host: e.host, port: e.port, rack: e.rack });
  }

  list(): NodeEndpoint[] {
    return [...this.seen.values()];
  }

  /** The partition's current leader for an answer (KIP-951); with `endpoint`, its endpoint is listed too. */
  hint(topicId: string, partition: number, endpoint: boolean): LeaderIdAndEpoch {
    const leader = currentLeaderOf(this.broker, topicId, partition);
    if (endpoint) this.add(leader.leaderId);
    return leader;
  }
}

/**
 * The partition when this broker leads it and the client's `currentLeaderEpoch` (-1: not given)
 * matches; else Kafka's error code, checked in Partition.getLocalLog's order: unknown partition
 * (UNKNOWN_TOPIC_OR_PARTITION), the epoch (FENCED_LEADER_EPOCH below ours, UNKNOWN_LEADER_EPOCH
 * above), then leadership (NOT_LEADER_OR_FOLLOWER, also when this broker holds no replica).
 */
export function leaderPartition(
  broker: BrokerServices,
  topic: { name: string; topicId: string; partitions: number } | undefined,
  index: number,
  currentLeaderEpoch: number,
): Partition | number {
  if (!topic || index < 0 || index >= topic.partitions) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  const partition = broker.replicaManager.getPartition(topic.name, index);
  const epoch = partition?.leaderEpoch ?? broker.partitionState(topic.topicId, index)?.leaderEpoch ?? -1;
  if (currentLeaderEpoch >= 0 && currentLeaderEpoch !== epoch) {
    return currentLeaderEpoch < epoch ? ErrorCode.FENCED_LEADER_EPOCH : ErrorCode.UNKNOWN_LEADER_EPOCH;
  }
  return leads(partition) ? partition : ErrorCode.NOT_LEADER_OR_FOLLOWER;
}
