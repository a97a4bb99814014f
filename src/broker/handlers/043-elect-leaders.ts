/**
 * ElectLeaders (key 43), versions 0-2 (KIP-460): preferred (election type 0, the only kind at v0)
 * or unclean (1) leader elections, run by the controller (cluster/leader-election.ts). A null
 * partition list means every partition, and the answer then lists every topic with only the
 * partitions where a leader was elected. Needs ALTER on the cluster: otherwise CLUSTER_AUTHORIZATION_FAILED for the
 * request (v1+) and every named partition. An unknown election type is INVALID_REQUEST.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { ElectLeadersRequest } from '../../protocol/generated/messages/elect-leaders-request.js';
import type { ElectLeadersResponse } from '../../protocol/generated/messages/elect-leaders-response.js';
import { AclOperation } from '../../protocol/acl.js';
import { authorizeCluster } from './auth-helper.js';
import { isForwarded } from '../controller-channel.js';
import type { ElectionResult } from '../../cluster/controller.js';

function answer(errorCode: number, results: ElectionResult[], allTopics: Iterable<string> = []): ElectLeadersResponse {
  const byTopic = new Map<string, ElectionResult[]>();
  // Every partition asked for: each topic is listed, with the partitions elected (often none).
  for (const t of allTopics) byTopic.set(t, []);
  for (const r of results) {
    const list = byTopic.get(r.topic);
    if (list) list.push(r);
    else byTopic.set(r.topic, [r]);
  }
  return {
    throttleTimeMs: 0,
    errorCode,
    replicaElectionResults: [...byTopic].map(([topic, rs]) => ({
      topic,
      partitionResult: rs.map((r) => ({ partitionId: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage })),
    })),
  };
}

function uniform(req: ElectLeadersRequest, errorCode: number, message: string | null): ElectLeadersResponse {
  const results = (req.topicPartitions ?? []).flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition, errorCode, errorMessage: message })));
  return answer(errorCode, results);
}

export const electLeadersHandler = defineHandler({
  apiKey: 43,
  async handle(ctx, req) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return uniform(req, ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const type = ctx.apiVersion === 0 ? 0 : req.electionType;
    if (type !== 0 && type !== 1) return uniform(req, ErrorCode.INVALID_REQUEST, `Unknown election type ${type}`);
    const results = await ctx.broker.electLeaders(req.topicPartitions, type === 1, isForwarded(ctx.clientId));
    return answer(ErrorCode.NONE, results, req.topicPartitions === null ? ctx.broker.cluster.metadataCache.topics.keys() : []);
  },
  errorResponse(req, errorCode) {
    return uniform(req, errorCode, null);
  },
});
