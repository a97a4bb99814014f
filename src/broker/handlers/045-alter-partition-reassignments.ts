/**
 * AlterPartitionReassignments (key 45), versions 0-1 (KIP-455): starts or cancels (null replicas)
 * partition moves, run by the controller (cluster/reassignment.ts) and forwarded there from any
 * other broker. The answer comes once the first change is stored, per partition; the moves finish
 * in the background as new replicas catch up. Needs ALTER on the cluster, else
 * CLUSTER_AUTHORIZATION_FAILED for the request and every partition.
 * v1 (KIP-860): allow_replication_factor_change false refuses a move to a different number of
 * replicas, that partition INVALID_REPLICATION_FACTOR "The replication factor is changed from 3
 * to 2" (the others go ahead; a replica list the controller refuses anyway gets its answer, as
 * Kafka checks the list first); the response echoes the flag.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { AlterPartitionReassignmentsRequest } from '../../protocol/generated/messages/alter-partition-reassignments-request.js';
import type { AlterPartitionReassignmentsResponse } from '../../protocol/generated/messages/alter-partition-reassignments-response.js';
import { AclOperation } from '../../protocol/acl.js';
import { authorizeCluster } from './auth-helper.js';
import { isForwarded } from '../controller-channel.js';
import type { MetadataCache } from '../../cluster/metadata-cache.js';
import type { ElectionResult } from '../../cluster/controller.js';

/** The answer in the request's shape: `results` holds one entry per requested partition, in order. */
function answer(req: AlterPartitionReassignmentsRequest, errorCode: number, errorMessage: string | null, results: ElectionResult[]): AlterPartitionReassignmentsResponse {
  let i = 0;
  return {
    throttleTimeMs: 0,
    allowReplicationFactorChange: req.allowReplicationFactorChange,
    errorCode,
    errorMessage,
    responses: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map(() => {
        const r = results[i++];
        return { partitionIndex: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage };
      }),
    })),
  };
}

function uniform(req: AlterPartitionReassignmentsRequest, errorCode: number, message: string | null): AlterPartitionReassignmentsResponse {
  const results = req.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, errorCode, errorMessage: message })));
  return answer(req, errorCode, message, results);
}

/** The request's partition entries whose new replica list would change their replication factor. */
function replicationFactorChanges(cache: MetadataCache, req: AlterPartitionReassignmentsRequest): Map<object, ElectionResult> {
  const out = new Map<object, ElectionResult>();
  for (const t of req.topics) {
    const info = cache.topic(t.name);
    if (!info) continue;
    for (const p of t.partitions) {
      const state = p.replicas === null ? undefined : cache.partition(info.topicId, p.partitionIndex);
      if (!state || p.replicas === null) continue;
      // Kafka checks the replica list itself first (empty, a broker twice, an unregistered broker:
      // INVALID_REPLICA_ASSIGNMENT from the controller), the replication factor after.
      if (p.replicas.length === 0 || new Set(p.replicas).size !== p.replicas.length || p.replicas.some((id) => !cache.brokers.has(id))) continue;
      const current = state.replicas.length - (state.addingReplicas?.length ?? 0);
      if (p.replicas.length === current) continue;
      out.set(p, {
        topic: t.name, partition: p.partitionIndex, errorCode: ErrorCode.INVALID_REPLICATION_FACTOR,
        errorMessage: `The replication factor is changed from ${current} to ${p.replicas.length}`,
      });
    }
  }
  return out;
}

export const alterPartitionReassignmentsHandler = defineHandler({
  apiKey: 45,
  async handle(ctx, req) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return uniform(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const refused = ctx.apiVersion >= 1 && !req.allowReplicationFactorChange ? replicationFactorChanges(ctx.broker.metadataCache, req) : new Map<object, ElectionResult>();
    const topics = refused.size === 0 ? req.topics
      : req.topics.map((t) => ({ ...t, partitions: t.partitions.filter((p) => !refused.has(p)) })).filter((t) => t.partitions.length > 0);
    const moved = topics.length === 0 ? [] : await ctx.broker.alterPartitionReassignments(topics, isForwarded(ctx.clientId));
    if (refused.size === 0) return answer(req, ErrorCode.NONE, null, moved);
    // In the request's order again (answer() walks the request; a partition may be named twice).
    let i = 0;
    const results = req.topics.flatMap((t) => t.partitions.map((p) => refused.get(p) ?? moved[i++]));
    return answer(req, ErrorCode.NONE, null, results);
  },
  errorResponse(req, errorCode) {
    return uniform(req, errorCode, null);
  },
});
