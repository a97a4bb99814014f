/**
 * The cluster as Metadata, DescribeCluster and ListConfigResources describe it: the live brokers
 * on a listener, and the cluster's authorized-operations bits.
 */
import type { BrokerServices } from '../broker-services.js';

/** AclOperation codes CREATE(5) ALTER(7) DESCRIBE(8) CLUSTER_ACTION(9) DESCRIBE_CONFIGS(10) ALTER_CONFIGS(11) IDEMPOTENT_WRITE(12). */
export const CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12].reduce((bits, op) => bits | (1 << op), 0);

/**
 * Every live broker with an endpoint on the request's listener, by node id (Kafka's
 * getAliveBrokerNodes); this broker's own from its listeners.
 */
export function aliveBrokers(broker: BrokerServices, listenerName: string): { nodeId: number; host: string; port: number; rack: string | null }[] {
  const out: { nodeId: number; host: string; port: number; rack: string | null }[] = [];
  // A broker that lost its registration is not live (Kafka leaves fenced brokers out): without
  // itself in the list, clients drop their connection to it and ask another broker.
  const ids = [...broker.metadataCache.brokers.keys()].filter((id) => id !== broker.nodeId);
  if (broker.registered) ids.push(broker.nodeId);
  for (const id of ids.sort((a, b) => a - b)) {
    const e = broker.brokerEndpoint(id, listenerName);
    if (e) out.push({ nodeId: id, host: e.host, port: e.port, rack: e.rack });
  }
  return out;
}
