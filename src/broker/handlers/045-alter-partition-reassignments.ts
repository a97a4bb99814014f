/**
 * AlterPartitionReassignments (key 45), version 0 (KIP-455): starts or cancels (null replicas)
 * partition moves, run by the controller (cluster/reassignment.ts) and forwarded there from any
 * other broker. The answer comes once the first change is stored, per partition; the moves finish
 * in the background as new replicas catch up. Needs ALTER on the cluster, else
 * CLUSTER_AUTHORIZATION_FAILED for the request and every partition.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { AlterPartitionReassignmentsRequest } from '../../protocol/generated/messages/alter-partition-reassignments-request.js';
import type { AlterPartitionReassignmentsResponse } from '../../protocol/generated/messages/alter-partition-reassignments-response.js';
import { AclOperation } from '../../protocol/acl.js';
import { authorizeCluster } from './auth-helper.js';
import { isForwarded } from '../controller-channel.js';
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

export const alterPartitionReassignmentsHandler = defineHandler({
  apiKey: 45,
  async handle(ctx, req) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return uniform(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const results = await ctx.broker.alterPartitionReassignments(req.topics, isForwarded(ctx.clientId));
    return answer(req, ErrorCode.NONE, null, results);
  },
  errorResponse(req, errorCode) {
    return uniform(req, errorCode, null);
  },
});
