/**
 * AlterReplicaLogDirs (key 34), versions 1-2 (Kafka 4.4 removed v0).
 *
 * Behavior (Kafka's KafkaApis.handleAlterReplicaLogDirsRequest, ReplicaManager.alterReplicaLogDirs):
 * - ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every partition.
 * - Each partition gets the dir its last entry names (a partition named under two dirs: the
 *   later one), and one error code from LogManager.alterReplicaLogDir: NONE (already there),
 *   REPLICA_NOT_AVAILABLE (no replica here yet: it will be created in that dir, which is how
 *   kafka-reassign-partitions places new replicas by `log_dirs`; UNKNOWN_TOPIC_OR_PARTITION when
 *   the metadata has no such partition, the dir still remembered), LOG_DIR_NOT_FOUND (not in
 *   log.dirs, compared as given: Kafka matches absolute paths exactly), KAFKA_STORAGE_ERROR (the dir or the partition offline), INVALID_TOPIC_EXCEPTION
 *   (name too long for a future log's directory).
 * - Difference: a replica already in another dir of this broker is not moved (Kafka copies it to a
 *   `-future` log and swaps); it is answered KAFKA_STORAGE_ERROR (docs/gaps.md).
 * - Results grouped by topic in the order the topics first appear.
 * Version notes: v1 same as v0 (throttle semantics); v2 flexible.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import type { AlterReplicaLogDirsRequest } from '../../protocol/generated/messages/alter-replica-log-dirs-request.js';
import type { AlterReplicaLogDirTopicResult } from '../../protocol/generated/messages/alter-replica-log-dirs-response.js';

/** Each (topic, partition) of the request with its destination dir, the last one named winning. */
function partitionDirs(req: AlterReplicaLogDirsRequest): Map<string, Map<number, string>> {
  const out = new Map<string, Map<number, string>>();
  for (const d of req.dirs) {
    for (const t of d.topics) {
      let parts = out.get(t.name);
      if (!parts) out.set(t.name, (parts = new Map()));
      for (const p of t.partitions) parts.set(p, d.path);
    }
  }
  return out;
}

function resultsWith(req: AlterReplicaLogDirsRequest, code: (topic: string, partition: number, dir: string) => number): AlterReplicaLogDirTopicResult[] {
  return [...partitionDirs(req)].map(([topic, parts]) => ({
    topicName: topic,
    partitions: [...parts].map(([partition, dir]) => ({ partitionIndex: partition, errorCode: code(topic, partition, dir) })),
  }));
}

export const alterReplicaLogDirsHandler = defineHandler({
  apiKey: 34,
  handle(ctx, req) {
    requireCluster(ctx, AclOperation.ALTER);
    const logs = ctx.broker.logs;
    const results = resultsWith(req, (topic, partition, dir) => {
      let code = logs.alterReplicaLogDir(topic, partition, dir);
      // Kafka's getPartitionOrException: a partition the metadata does not have is unknown.
      if (code === ErrorCode.REPLICA_NOT_AVAILABLE) {
        const info = ctx.broker.metadataCache.topic(topic);
        if (!info || partition < 0 || partition >= info.partitions) code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      }
      if (code !== ErrorCode.NONE && code !== ErrorCode.REPLICA_NOT_AVAILABLE) ctx.broker.logger.warn(`AlterReplicaLogDirs: ${topic}-${partition} to ${dir}: error ${code}`);
      return code;
    });
    return { throttleTimeMs: 0, results };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, results: resultsWith(req, () => errorCode) };
  },
});
