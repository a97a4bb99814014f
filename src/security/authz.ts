/**
 * What handlers ask the authorizer (Kafka's AuthHelper). Without an authorizer every check is one
 * null test and answers yes.
 */
import type { Broker } from '../broker/broker.js';
import type { RequestContext } from '../broker/request-context.js';
import { KafkaApiError } from '../errors.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { AclOperation, CLUSTER_NAME, ResourceType, SUPPORTED_OPERATIONS, type AclBinding } from './acl.js';

/** Whether the request's principal may do `op` on the resource. */
export function authorize(ctx: RequestContext, op: number, resourceType: number, name: string): boolean {
  const a = ctx.broker.authorizer;
  return a === null || a.authorize(ctx.principal, ctx.remoteAddress, op, resourceType, name);
}

export function authorizeCluster(ctx: RequestContext, op: number): boolean {
  return authorize(ctx, op, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** Kafka's authorizeClusterOperation: CLUSTER_AUTHORIZATION_FAILED for the whole request. */
export function requireCluster(ctx: RequestContext, op: number): void {
  if (!authorizeCluster(ctx, op)) {
    throw new KafkaApiError(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, `Request ${apiLabel(ctx)} is not authorized.`);
  }
}

function apiLabel(ctx: RequestContext): string {
  return `(api key ${ctx.apiKey} v${ctx.apiVersion}, correlation id ${ctx.correlationId}, principal ${ctx.principal})`;
}

/** Whether the principal may do `op` on some resource of the type. */
export function authorizeByResourceType(ctx: RequestContext, op: number, resourceType: number): boolean {
  const a = ctx.broker.authorizer;
  return a === null || a.authorizeByResourceType(ctx.principal, ctx.remoteAddress, op, resourceType);
}

/**
 * The authorized-operations bit field for a resource: `all` (the constant the handler answers
 * without an authorizer) or the supported operations the principal may do.
 */
export function authorizedOperations(ctx: RequestContext, resourceType: number, name: string, all: number): number {
  const a = ctx.broker.authorizer;
  if (a === null) return all;
  let bits = 0;
  for (const op of SUPPORTED_OPERATIONS[resourceType] ?? []) {
    if (a.authorize(ctx.principal, ctx.remoteAddress, op, resourceType, name)) bits |= 1 << op;
  }
  return bits;
}

/** Writes an ACL change to the metadata store (fenced) and waits until this broker's cache has it. */
export function aclWriter(broker: Broker): (add: Map<string, AclBinding>, remove: string[]) => Promise<void> {
  return async (add, remove) => {
    const epoch = broker.cluster.controller.controllerEpoch;
    const fence = epoch !== null ? { controllerEpoch: epoch } : broker.cluster.lifecycle.fence;
    await broker.cluster.store.alterAcls(add, remove, fence);
    const shows = () => remove.every((id) => !broker.cache.acls.has(id)) && [...add.keys()].every((id) => broker.cache.acls.has(id));
    await broker.cache.waitFor(shows, 10_000, 'ACL change in the metadata cache');
  };
}

export { AclOperation, ResourceType };
