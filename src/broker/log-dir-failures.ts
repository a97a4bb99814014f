/**
 * What the broker does when a log dir goes offline (Kafka's ReplicaManager.handleLogDirFailure
 * with the BrokerLifecycleManager's offline dirs): the replica manager has already stopped the
 * dir's partitions (it listens to the LogManager itself); here the cluster hears of them, so the
 * controller takes this broker's replicas there out of their ISRs and elects other leaders
 * (cluster/offline-replicas.ts). Every report lists all dirs and replicas offline so far.
 * With no log dir left, Kafka halts the broker; Samsa stops it (`onAllFailed`).
 */
import type { Logger } from '../logger.js';
import type { LogDirFailure, LogManager } from '../storage/log-manager.js';
import type { MetadataCache } from '../cluster/metadata-cache.js';
import { readMetaProperties } from '../cluster/meta-properties.js';
import { offlineReplicaKey } from '../cluster/offline-replicas.js';

export interface LogDirFailureReporting {
  logs: LogManager;
  metadataCache: () => MetadataCache | undefined;
  /** The cluster membership's report (ClusterMember.reportOfflineLogDirs), once joined. */
  report: () => ((offline: { offlineLogDirs: string[]; offlineReplicas: string[] }) => Promise<void>) | undefined;
  logger: Logger;
  onAllFailed: () => void;
}

/** The dir's directory.id from its meta.properties, else its path. */
function directoryId(dir: string): string {
  try {
    return readMetaProperties(dir)?.directoryId ?? dir;
  } catch {
    return dir;
  }
}

export function reportLogDirFailures(r: LogDirFailureReporting): void {
  const ids = new Map<string, string>();
  for (const d of r.logs.logDirs) ids.set(d.path, d.isOffline ? d.path : directoryId(d.path));
  r.logs.onLogDirFailure((f: LogDirFailure) => {
    if (f.allFailed) {
      r.logger.error(`every log dir (${r.logs.logDirs.map((d) => d.path).join(', ')}) is offline: stopping the broker`);
      r.onAllFailed();
      return;
    }
    const cache = r.metadataCache();
    const report = r.report();
    if (!cache || !report) return;
    const offlineLogDirs = r.logs.logDirs.filter((d) => d.isOffline).map((d) => ids.get(d.path) ?? d.path);
    const offlineReplicas: string[] = [];
    for (const p of r.logs.offlinePartitions()) {
      const topic = cache.topic(p.topic);
      if (topic) offlineReplicas.push(offlineReplicaKey(topic.topicId, p.partition));
    }
    report({ offlineLogDirs, offlineReplicas }).catch((err) => r.logger.error(`reporting offline log dir ${f.dir} to the cluster failed`, err));
  });
}
