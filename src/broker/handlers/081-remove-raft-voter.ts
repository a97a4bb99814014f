/**
 * RemoveRaftVoter (key 81), version 0 (KIP-853): `kafka-metadata-quorum.sh remove-controller`.
 * Answered as AddRaftVoter is (080-add-raft-voter.ts): a static quorum's UNSUPPORTED_VERSION
 * "Cluster doesn't support removing voter because the kraft.version feature is 0", after the
 * cluster ALTER and cluster id checks.
 */
import { defineHandler } from '../handler.js';
import { staticQuorumAnswer } from './080-add-raft-voter.js';

export const removeRaftVoterHandler = defineHandler({
  apiKey: 81,
  handle(ctx, req) {
    return staticQuorumAnswer(ctx, req.clusterId, 'removing');
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null };
  },
});
