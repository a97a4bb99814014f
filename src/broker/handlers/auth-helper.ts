/**
 * What handlers ask the authorizer (Kafka's AuthHelper). Without an authorizer every check is one
 * null test and answers yes.
 */
import type { BrokerServices } from '../broker-services.js';
import type { RequestContext } from '../request-context.js';
import { KafkaApiError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { isForwarded } from '../controller-channel.js';
import { AclOperation, CLUSTER_NAME, ResourceType, SUPPORTED_OPERATIONS, type AclBinding } from '../../protocol/acl.js';

/** Kafka's default messages of the authorization errors (Errors.message()). */
export const AUTHORIZATION_MESSAGES: Readonly<Record<number, string>> = {
  [ErrorCode.TOPIC_AUTHORIZATION_FAILED]: 'Topic authorization failed.',
  [ErrorCode.GROUP_AUTHORIZATION_FAILED]: 'Group authorization failed.',
  [ErrorCode.CLUSTER_AUTHORIZATION_FAILED]: 'Cluster authorization failed.',
  [ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED]: 'Transactional Id authorization failed.',
};

/** Whether the request's principal may do `op` on the resource. */
export function authorize(ctx: RequestContext, op: number, resourceType: number, name: string): boolean {
  const a = ctx.broker.authorizer;
  return a == null || a.authorize(ctx.principal, ctx.remoteAddress, op, resourceType, name);
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
  return a == null || a.authorizeByResourceType(ctx.principal, ctx.remoteAddress, op, resourceType);
}

/**
 * The authorized-operations bit field for a resource: `all` (the constant the handler answers
 * without an authorizer) or the supported operations the principal may do.
 */
export function authorizedOperations(ctx: RequestContext, resourceType: number, name: string, all: number): number {
  const a = ctx.broker.authorizer;
  if (a == null) return all;
  let bits = 0;
  for (const op of SUPPORTED_OPERATIONS[resourceType] ?? []) {
    if (a.authorize(ctx.principal, ctx.remoteAddress, op, resourceType, name)) bits |= 1 << op;
  }
  return bits;
}

/** Writes an ACL change to the metadata store (fenced) and waits until this broker's cache has it. */
export function aclWriter(broker: BrokerServices): (add: Map<string, AclBinding>, remove: string[]) => Promise<void> {
  return (add, remove) => broker.metadataWriter.write('ACL change', (store, fence) => store.alterAcls(add, remove, fence),
    (c) => remove.every((id) => !c.acls.has(id)) && [...add.keys()].every((id) => c.acls.has(id)));
}

export { AclOperation, ResourceType };

/** Names the principal may not do `op` on (TOPIC resources); null without an authorizer (nothing denied). */
export function deniedTopics(ctx: RequestContext, op: number, topics: readonly { name: string }[]): Set<string> | null {
  if (ctx.broker.authorizer == null) return null;
  const denied = new Set<string>();
  for (const t of topics) if (!authorize(ctx, op, ResourceType.TOPIC, t.name)) denied.add(t.name);
  return denied.size === 0 ? null : denied;
}

/**
 * A topic check on a request another broker forwarded to the controller (controller-channel.ts)
 * trusts the forwarding broker's own check of its client when the forwarding principal has
 * CLUSTER_ACTION on the cluster (as Kafka trusts an envelope's principal only from such a
 * principal); otherwise the forwarding principal itself needs the permission.
 */
export function authorizeTopic(ctx: RequestContext, op: number, name: string): boolean {
  const a = ctx.broker.authorizer;
  if (a == null) return true;
  if (isForwarded(ctx.clientId) && authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return true;
  return a.authorize(ctx.principal, ctx.remoteAddress, op, ResourceType.TOPIC, name);
}

/** The same for a cluster-level check. */
export function authorizeClusterOrForwarded(ctx: RequestContext, op: number): boolean {
  if (ctx.broker.authorizer == null) return true;
  return authorizeCluster(ctx, op) || (isForwarded(ctx.clientId) && authorizeCluster(ctx, AclOperation.CLUSTER_ACTION));
}

/**
 * Kafka's check of a config resource (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs):
 * brokers, broker loggers and client metrics need `op` on the cluster, topics and groups on
 * themselves. Returns the error code to answer, or 0 when allowed.
 */
export function configResourceDenied(ctx: RequestContext, resourceType: number, name: string, op: number): number {
  if (ctx.broker.authorizer == null) return 0;
  switch (resourceType) {
    case 2: return authorize(ctx, op, ResourceType.TOPIC, name) ? 0 : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    case 32: return authorize(ctx, op, ResourceType.GROUP, name) ? 0 : ErrorCode.GROUP_AUTHORIZATION_FAILED;
    default: return authorizeClusterOrForwarded(ctx, op) ? 0 : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  }
}
