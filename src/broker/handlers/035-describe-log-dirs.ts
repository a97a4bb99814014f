/**
 * DescribeLogDirs (key 35), versions 1-4.
 *
 * Behavior (Kafka's KafkaApis.handleDescribeLogDirsRequest, ReplicaManager.describeLogDirs):
 * - One result per configured log directory (absolute path), each listing the partitions stored
 *   there: partition_size = the sum of its segment files' sizes, offset_lag 0 (no future replica,
 *   nothing to catch up), is_future_key false.
 * - topics null: every partition; otherwise only the listed partitions that exist (unknown ones
 *   are silently left out; an empty list gives the directories with no topics).
 * - v3+ top-level error_code NONE (Kafka answers CLUSTER_AUTHORIZATION_FAILED only with an
 *   authorizer); v4 total_bytes / usable_bytes of the directory's file system (statfs), -1 when
 *   it cannot be read.
 * Version notes: v1 throttle semantics only; v2 flexible; v3 top-level error_code; v4
 * total_bytes and usable_bytes.
 */
import { statfsSync } from 'node:fs';
import path from 'node:path';
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
    const broker = ctx.broker;
    // ACLs: DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED and no results.
    requireCluster(ctx, AclOperation.DESCRIBE);
    const dirs = (broker.rawConfig['log.dirs'] as readonly string[]).map((d) => path.resolve(d));
    // The partitions asked for, as (topic, partition) pairs that exist.
    const wanted: { topic: string; partition: number }[] = [];
    if (req.topics === null) {
      for (const t of [...broker.metadataCache.topics.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        for (let p = 0; p < t.partitions; p++) wanted.push({ topic: t.name, partition: p });
      }
    } else {
      const seen = new Set<string>();
      for (const t of req.topics) {
        const info = broker.metadataCache.topic(t.topic);
        if (!info) continue;
        for (const p of t.partitions) {
          const key = `${t.topic}\u0000${p}`;
          if (p < 0 || p >= info.partitions || seen.has(key)) continue;
          seen.add(key);
          wanted.push({ topic: t.topic, partition: p });
        }
      }
    }
    const byDir = new Map<string, Map<string, DescribeLogDirsTopic>>(dirs.map((d) => [d, new Map()]));
    for (const w of wanted) {
      const log = broker.getLog(w.topic, w.partition);
      if (!log) continue;
      const dir = path.resolve(path.dirname(log.dir));
      const topics = byDir.get(dir) ?? byDir.get(dirs[0]!)!;
      let entry = topics.get(w.topic);
      if (!entry) {
        entry = { name: w.topic, partitions: [] };
        topics.set(w.topic, entry);
      }
      entry.partitions.push({ partitionIndex: w.partition, partitionSize: BigInt(log.sizeBytes), offsetLag: 0n, isFutureKey: false });
    }
    const results: DescribeLogDirsResult[] = dirs.map((d) => ({
      errorCode: ErrorCode.NONE,
      logDir: d,
      isCordoned: false, // v5 (KIP-1066): Samsa has no cordoned log directories
      topics: [...byDir.get(d)!.values()],
      ...diskSpace(d),
    }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, results: [] };
  },
});
