/**
 * DescribeAcls (key 29), versions 1-3 (Kafka 4 dropped v0).
 *
 * Behavior (Kafka's AclApis.handleDescribeAcls):
 * - DESCRIBE on the cluster, else CLUSTER_AUTHORIZATION_FAILED for the whole request.
 * - No authorizer configured: SECURITY_DISABLED, "No Authorizer is configured on the broker".
 * - A filter with a code 0 (UNKNOWN resource type, pattern type, operation or permission) makes
 *   the request unparseable, as in Kafka: the connection closes. A code outside its enumeration
 *   reads as UNKNOWN, which matches nothing.
 * - Otherwise every ACL the filter matches (ANY, MATCH and null fields as in acl.ts), grouped by
 *   resource pattern.
 * Version notes: v1 pattern types; v2 flexible; v3 USER resources.
 */
import { ProtocolError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { DescribeAclsResource } from '../../protocol/generated/messages/describe-acls-response.js';
import { hasUnknown, normalizeBinding, type AclBinding, type AclBindingFilter } from '../../protocol/acl.js';
import { AclOperation, requireCluster } from './auth-helper.js';
import { defineHandler } from '../handler.js';

export function groupByResource(acls: readonly AclBinding[]): DescribeAclsResource[] {
  const out = new Map<string, DescribeAclsResource>();
  for (const a of acls) {
    const key = `${a.resourceType}\u0000${a.patternType}\u0000${a.resourceName}`;
    let r = out.get(key);
    if (!r) out.set(key, (r = { resourceType: a.resourceType, resourceName: a.resourceName, patternType: a.patternType, acls: [] }));
    r.acls.push({ principal: a.principal, host: a.host, operation: a.operation, permissionType: a.permissionType });
  }
  return [...out.values()];
}

export const describeAclsHandler = defineHandler({
  apiKey: 29,
  handle(ctx, req) {
    const raw: AclBindingFilter = {
      resourceType: req.resourceTypeFilter, resourceName: req.resourceNameFilter, patternType: req.patternTypeFilter,
      principal: req.principalFilter, host: req.hostFilter, operation: req.operation, permissionType: req.permissionType,
    };
    if (hasUnknown(raw)) throw new ProtocolError('DescribeAcls filter contains UNKNOWN elements');
    const filter = normalizeBinding(raw);
    requireCluster(ctx, AclOperation.DESCRIBE);
    const auth = ctx.broker.authorizer;
    if (auth === null) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.SECURITY_DISABLED, errorMessage: 'No Authorizer is configured on the broker', resources: [] };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', resources: groupByResource(auth.acls(filter)) };
  },
  errorResponse(_req, errorCode) {
    return { throttleTimeMs: 0, errorCode, errorMessage: null, resources: [] };
  },
});
