/**
 * DescribeLogDirs (key 35), versions 1-4.
 *
 * Behavior (Kafka's KafkaApis.handleDescribeLogDirsRequest, ReplicaManager.describeLogDirs):
 * - One result per configured log directory (absolute path, in log.dirs order), each listing the
 *   partitions stored there: partition_size = the sum of its segment files' sizes, offset_lag =
 *   max(high watermark - log end, 0) (a follower behind its leader's high watermark; 0 on a
 *   leader), is_future_key false; and the future logs of replicas being moved there from another
 *   dir of this broker (AlterReplicaLogDirs, storage/log-dir-move.ts): is_future_key true,
 *   offset_lag = the current log's end - the future log's end (Kafka's getLogEndOffsetLag).
 * - An offline dir (failed at start-up or since, storage/log-dir-fs.ts): error_code
 *   KAFKA_STORAGE_ERROR, no topics, total/usable bytes -1 (the schema default).
 * - topics null: every partition hosted here; otherwise only the listed ones that are (unknown
 *   ones are silently left out; an empty list gives the directories with no topics).
 * - v3+ top-level error_code NONE (Kafka answers CLUSTER_AUTHORIZATION_FAILED only with an
 *   authorizer); v4 total_bytes / usable_bytes of the directory's file system (statfs), -1 when
 *   it cannot be read.
 * Version notes: v1 throttle semantics only; v2 flexible; v3 top-level error_code; v4
 * total_bytes and usable_bytes.
 */
import { statfsSync } from 'node:fs';
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import type { DescribeLogDirsResult, DescribeLogDirsTopic } from '../../protocol/generated/messages/describe-log-dirs-response.js';

function diskSpace(dir: string): { totalBytes: bigint; usableBytes: bigint } {
  try {
    const s = statfsSync(dir, { bigint: true });
    return { totalBytes: s.blocks * s.bsize, usableBytes: s.bavail * s.bsize };
  } catch {
    return { totalBytes: -1n, usableBytes: -1n };
  }
}

export const describeLogDirsHandler = defineHandler({
  apiKey: 35,
  handle(ctx, req) {
    // ACLs: DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED and no results.
    requireCluster(ctx, AclOperation.DESCRIBE);
    // The partitions asked for (null: all), keyed topic NUL partition.
    let wanted: Set<string> | null = null;
    if (req.topics !== null) {
      wanted = new Set();
      for (const t of req.topics) for (const p of t.partitions) wanted.add(`${t.topic}\u0000${p}`);
    }
    const results: DescribeLogDirsResult[] = ctx.broker.logs.describeLogDirs().map((d) => {
      if (d.error) return { errorCode: ErrorCode.KAFKA_STORAGE_ERROR, logDir: d.dir, topics: [], totalBytes: -1n, usableBytes: -1n, isCordoned: false };
      const byTopic = new Map<string, DescribeLogDirsTopic>();
      const entries = [
        ...d.logs.map((log) => ({ log, lag: Math.max(log.highWatermark - log.logEndOffset, 0), future: false })),
        ...d.futures.map((f) => ({ log: f.log, lag: f.offsetLag, future: true })),
      ].sort((a, b) => (a.log.topic < b.log.topic ? -1 : a.log.topic > b.log.topic ? 1 : a.log.partition - b.log.partition));
      for (const { log, lag, future } of entries) {
        if (wanted && !wanted.has(`${log.topic}\u0000${log.partition}`)) continue;
        let entry = byTopic.get(log.topic);
        if (!entry) {
          entry = { name: log.topic, partitions: [] };
          byTopic.set(log.topic, entry);
        }
        entry.partitions.push({ partitionIndex: log.partition, partitionSize: BigInt(log.sizeBytes), offsetLag: BigInt(lag), isFutureKey: future });
      }
      // v5 (KIP-1066): Samsa has no cordoned log directories.
      return { errorCode: ErrorCode.NONE, logDir: d.dir, isCordoned: false, topics: [...byTopic.values()], ...diskSpace(d.dir) };
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, results: [] };
  },
});
