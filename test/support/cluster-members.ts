/**
 * Shared set-up of the cluster tests: settings with short sessions (1 s leases, 200 ms
 * heartbeats) and members started against one etcd under a key prefix of the test's own.
 */
import { createLogger, type LogLevel, type Logger } from '../../src/logger.js';
import { ClusterMember, type ClusterSettings } from '../../src/cluster/cluster-member.js';
import type { EtcdServer } from './etcd.js';

let prefixes = 0;
/** A fresh key prefix, so tests in one file share one etcd without seeing each other. */
export function freshPrefix(name: string): string {
  return `/samsa-test/${process.pid}-${++prefixes}-${name}/`;
}

export const logger: Logger = createLogger((process.env.SAMSA_LOG_LEVEL as LogLevel | undefined) ?? 'silent');

export function settings(etcd: EtcdServer | null, prefix: string, nodeId: number, over: Partial<ClusterSettings> = {}): ClusterSettings {
  return {
    etcdEndpoints: etcd ? [etcd.clientUrl] : [],
    etcdKeyPrefix: prefix,
    etcdConnectTimeoutMs: 5000,
    nodeId,
    rack: null,
    sessionTimeoutMs: 1000,
    heartbeatIntervalMs: 200,
    clusterId: null,
    controller: { defaultReplicationFactor: 1, defaultNumPartitions: 1, uncleanLeaderElectionEnable: false, minInsyncReplicas: 1 },
    ...over,
  };
}

export function endpointOf(nodeId: number) {
  return [{ name: 'PLAINTEXT', host: '127.0.0.1', port: 19000 + nodeId, securityProtocol: 'PLAINTEXT' }];
}

export interface MemberSpec {
  nodeId: number;
  rack?: string | null;
}

/** Starts members one after another (the first one started normally wins the controller claim). */
export async function startMembers(etcd: EtcdServer, prefix: string, specs: MemberSpec[], over: Partial<ClusterSettings> = {}): Promise<ClusterMember[]> {
  const out: ClusterMember[] = [];
  for (const s of specs) {
    out.push(await ClusterMember.start({
      settings: settings(etcd, prefix, s.nodeId, { rack: s.rack ?? null, ...over }),
      endpoints: endpointOf(s.nodeId),
      logger,
      placementStart: () => 0,
    }));
  }
  return out;
}

/** Resolves with the active controller once exactly one member acts as it. */
export async function activeController(members: ClusterMember[], timeoutMs = 5000): Promise<ClusterMember> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const active = members.filter((m) => m.controller.isActive);
    if (active.length === 1 && active[0].metadataCache.controller?.nodeId === active[0].nodeId) return active[0];
    if (Date.now() > deadline) throw new Error(`no single active controller after ${timeoutMs} ms (active: ${active.map((m) => m.nodeId)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Member whose cache has seen `count` brokers. */
export async function waitBrokers(m: ClusterMember, ids: number[], timeoutMs = 5000): Promise<void> {
  const want = [...ids].sort().join(',');
  await m.metadataCache.waitFor((c) => [...c.brokers.keys()].sort().join(',') === want, timeoutMs, `brokers [${want}] registered`);
}

export async function stopAll(members: ClusterMember[]): Promise<void> {
  await Promise.all(members.map((m) => m.stop().catch(() => {})));
}
