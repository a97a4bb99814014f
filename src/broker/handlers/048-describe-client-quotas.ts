/**
 * DescribeClientQuotas (key 48), versions 0-1.
 *
 * Behavior (Kafka's handleDescribeClientQuotasRequest and ClientQuotasImage.describe):
 * - DESCRIBE_CONFIGS on the cluster, else CLUSTER_AUTHORIZATION_FAILED (entries null).
 * - Components filter by entity type: EXACT (a name), DEFAULT (the default entity) or ANY; with
 *   `strict` an entity must have exactly the filtered types, else it may have more. An empty or
 *   repeated type, or IP combined with user or client id: INVALID_REQUEST with Kafka's message;
 *   another type: UNSUPPORTED_VERSION "Unsupported entity type X".
 * - Each matching entity with every quota it has.
 * Version notes: v1 flexible.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { AclOperation, authorizeCluster } from './auth-helper.js';
import { describeQuotas } from '../../security/quotas.js';
import { defineHandler } from '../handler.js';

export const describeClientQuotasHandler = defineHandler({
  apiKey: 48,
  handle(ctx, req) {
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE_CONFIGS)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', entries: null };
    }
    const r = describeQuotas(ctx.broker.metadataCache.quotas.values(), req.components, req.strict);
    if ('errorCode' in r) return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.message, entries: null };
    return {
      throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '',
      entries: r.entries.map((q) => ({
        entity: q.entity.map((e) => ({ entityType: e.entityType, entityName: e.entityName })),
        values: Object.entries(q.values).map(([key, value]) => ({ key, value })),
      })),
    };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null, entries: null };
  },
});
