/**
 * AddRaftVoter (key 80), versions 0-1 (KIP-853): `kafka-metadata-quorum.sh add-controller`.
 *
 * Samsa's voter set is its live brokers (055-describe-quorum.ts): a broker joins it by starting
 * and leaves it by stopping, and there is no kraft.version feature to raise. It answers as a Kafka
 * 4.4 broker whose quorum is static (kraft.version 0): ALTER on the cluster (else
 * CLUSTER_AUTHORIZATION_FAILED), a cluster id other than this cluster's INCONSISTENT_CLUSTER_ID,
 * anything else UNSUPPORTED_VERSION "Cluster doesn't support adding voter because the kraft.version
 * feature is 0".
 * Version notes: v1 adds ack_when_committed.
 */
import { defineHandler } from '../handler.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { RequestContext } from '../request-context.js';

/** Kafka's RaftUtil cluster id check, then the static quorum's refusal of `what` ("adding", "removing"). */
export function staticQuorumAnswer(ctx: RequestContext, clusterId: string | null, what: string): { throttleTimeMs: number; errorCode: number; errorMessage: string | null } {
  requireCluster(ctx, AclOperation.ALTER);
  const own = ctx.broker.metadataCache.clusterId;
  if (clusterId !== null && clusterId !== own) {
    return { throttleTimeMs: 0, errorCode: ErrorCode.INCONSISTENT_CLUSTER_ID, errorMessage: `The given id "${clusterId}" doesn't match the cluster id "${own}"` };
  }
  return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: `Cluster doesn't support ${what} voter because the kraft.version feature is 0` };
}

export const addRaftVoterHandler = defineHandler({
  apiKey: 80,
  handle(ctx, req) {
    return staticQuorumAnswer(ctx, req.clusterId, 'adding');
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null };
  },
});
