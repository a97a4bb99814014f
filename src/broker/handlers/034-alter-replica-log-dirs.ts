/**
 * AlterReplicaLogDirs (key 34), versions 1-2 (Kafka 4.4 removed v0).
 *
 * Behavior (Kafka's KafkaApis.handleAlterReplicaLogDirsRequest, ReplicaManager.alterReplicaLogDirs):
 * - ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every partition.
 * - Each partition gets the dir its last entry names (a partition named under two dirs: the
 *   later one), and one error code from LogManager.alterReplicaLogDir: NONE (already there, or a
 *   move there started or running), REPLICA_NOT_AVAILABLE (no replica here yet: it will be
 *   created in that dir, which is how kafka-reassign-partitions places new replicas by
 *   `log_dirs`; UNKNOWN_TOPIC_OR_PARTITION when the metadata has no such partition, the dir still
 *   remembered), LOG_DIR_NOT_FOUND (not in log.dirs, compared as given: Kafka matches absolute
 *   paths exactly), KAFKA_STORAGE_ERROR (the dir or the partition offline, or any log dir offline
 *   when a move would start), INVALID_TOPIC_EXCEPTION (name too long for a future log's directory).
 * - A replica in another dir of this broker is moved (storage/log-dir-move.ts, Kafka's `-future`
 *   log and ReplicaAlterLogDirsThread): the future log is created before the answer, then copied
 *   in the background and swapped in; DescribeLogDirs shows it (is_future_key) until then, and
 *   `replica.alter.log.dirs.io.max.bytes.per.second` throttles the copy. Naming another dir while
 *   a move runs drops it and starts one there; naming the replica's own dir drops it.
 * - Partitions are handled one after the other, in request order; results grouped by topic in
 *   the order the topics first appear.
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

/** The codes of every partition, found one partition at a time (a move's future log is made before the next). */
async function codesOf(req: AlterReplicaLogDirsRequest, code: (topic: string, partition: number, dir: string) => Promise<number>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const [topic, parts] of partitionDirs(req)) {
    for (const [partition, dir] of parts) out.set(`${topic}\u0000${partition}`, await code(topic, partition, dir));
  }
  return out;
}

export const alterReplicaLogDirsHandler = defineHandler({
  apiKey: 34,
  async handle(ctx, req) {
    requireCluster(ctx, AclOperation.ALTER);
    const logs = ctx.broker.logs;
    const codes = await codesOf(req, async (topic, partition, dir) => {
      let code = await logs.alterReplicaLogDir(topic, partition, dir);
      // Kafka's getPartitionOrException: a partition the metadata does not have is unknown.
      if (code === ErrorCode.REPLICA_NOT_AVAILABLE) {
        const info = ctx.broker.metadataCache.topic(topic);
        if (!info || partition < 0 || partition >= info.partitions) code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      }
      if (code !== ErrorCode.NONE && code !== ErrorCode.REPLICA_NOT_AVAILABLE) ctx.broker.logger.warn(`AlterReplicaLogDirs: ${topic}-${partition} to ${dir}: error ${code}`);
      return code;
    });
    return { throttleTimeMs: 0, results: resultsWith(req, (topic, partition) => codes.get(`${topic}\u0000${partition}`)!) };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, results: resultsWith(req, () => errorCode) };
  },
});
