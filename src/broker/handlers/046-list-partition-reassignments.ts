/**
 * ListPartitionReassignments (key 46), version 0 (KIP-455): the partitions of the named topics
 * (null: every topic) that are moving, with the merged replica list and the replicas being added
 * and removed. Answered from this broker's metadata cache, which holds the partition states the
 * controller writes. Unknown topics and partitions are left out, as Kafka does. Needs DESCRIBE on
 * the cluster, else CLUSTER_AUTHORIZATION_FAILED.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ListPartitionReassignmentsResponse } from '../../protocol/generated/messages/list-partition-reassignments-response.js';
import { AclOperation } from '../../protocol/acl.js';
import { authorizeCluster } from './auth-helper.js';

function failed(errorCode: number): ListPartitionReassignmentsResponse {
  return { throttleTimeMs: 0, errorCode, errorMessage: null, topics: [] };
}

export const listPartitionReassignmentsHandler = defineHandler({
  apiKey: 46,
  async handle(ctx, req) {
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) return failed(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    const topics = new Map<string, ListPartitionReassignmentsResponse['topics'][number]>();
    for (const r of ctx.broker.cluster.controller.listPartitionReassignments(req.topics)) {
      let t = topics.get(r.topic);
      if (!t) topics.set(r.topic, (t = { name: r.topic, partitions: [] }));
      t.partitions.push({ partitionIndex: r.partition, replicas: r.replicas, addingReplicas: r.addingReplicas, removingReplicas: r.removingReplicas });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [...topics.values()] };
  },
  errorResponse(_req, errorCode) {
    return failed(errorCode);
  },
});
