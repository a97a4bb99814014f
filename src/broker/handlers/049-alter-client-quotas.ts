/**
 * AlterClientQuotas (key 49), versions 0-1.
 *
 * Behavior (Kafka's handleAlterClientQuotasRequest and the controller's ClientQuotaControlManager):
 * - ALTER_CONFIGS on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every entity.
 * - Per entity, INVALID_REQUEST with Kafka's messages for an empty entity, a repeated or unknown
 *   entity type, an empty name, IP with another type, an entity listed twice, a key given twice,
 *   a key the entity does not take ("Invalid configuration key K") or a fractional byte rate
 *   ("K cannot be a fractional value.").
 * - Otherwise the operations are applied (remove deletes the key; an entity without keys is gone)
 *   and stored with the cluster metadata, every entity of the request in one change; validate_only
 *   stores nothing.
 * Version notes: v1 flexible.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { cloneQuota, quotaEntityKey, type ClientQuotaRecord } from '../../cluster/metadata-store.js';
import { AclOperation, authorizeCluster } from './auth-helper.js';
import { validateEntity, validateQuotaValue } from '../../security/quotas.js';
import { defineHandler } from '../handler.js';

function describeEntity(entity: readonly { entityType: string; entityName: string | null }[]): string {
  return `ClientQuotaEntity(entries={${entity.map((e) => `${e.entityType}=${e.entityName}`).join(', ')}})`;
}

export const alterClientQuotasHandler = defineHandler({
  apiKey: 49,
  async handle(ctx, req) {
    const broker = ctx.broker;
    const entity = (e: { entity: { entityType: string; entityName: string | null }[] }) => e.entity.map((x) => ({ entityType: x.entityType, entityName: x.entityName }));
    if (!authorizeCluster(ctx, AclOperation.ALTER_CONFIGS)) {
      return { throttleTimeMs: 0, entries: req.entries.map((e) => ({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.', entity: entity(e) })) };
    }
    const changes = new Map<string, ClientQuotaRecord | null>();
    const seen = new Set<string>();
    const results = req.entries.map((e) => {
      const fail = (errorMessage: string) => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage, entity: entity(e) });
      const key = quotaEntityKey(e.entity);
      if (seen.has(key)) return fail(`Ignoring duplicate entity ${describeEntity(e.entity)}`);
      seen.add(key);
      const keys = new Set<string>();
      for (const op of e.ops) {
        if (keys.has(op.key)) return fail(`Duplicate quota key ${op.key} not updating quota for this entity ${describeEntity(e.entity)}`);
        keys.add(op.key);
      }
      const v = validateEntity(e.entity);
      if ('error' in v) return fail(v.error);
      const current = broker.metadataCache.quotas.get(key);
      const next: ClientQuotaRecord = current ? cloneQuota(current) : { entity: entity(e), values: {} };
      for (const op of e.ops) {
        if (op.remove) {
          delete next.values[op.key];
          continue;
        }
        const problem = validateQuotaValue(v.keys, op.key, op.value);
        if (problem) return fail(problem);
        next.values[op.key] = op.value;
      }
      changes.set(key, Object.keys(next.values).length === 0 ? null : next);
      return { errorCode: ErrorCode.NONE, errorMessage: null, entity: entity(e) };
    });
    if (!req.validateOnly && changes.size > 0) {
      const want = [...changes].map(([k, q]) => [k, JSON.stringify(q?.values ?? null)] as const);
      await broker.metadataWriter.write('client quotas', (store, fence) => store.alterClientQuotas(changes, fence), (c) => want.every(([k, v]) => JSON.stringify(c.quotas.get(k)?.values ?? null) === v));
    }
    return { throttleTimeMs: 0, entries: results };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, entries: req.entries.map((e) => ({ errorCode, errorMessage: null, entity: e.entity.map((x) => ({ ...x })) })) };
  },
});
