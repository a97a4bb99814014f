/**
 * DeleteAcls (key 31), versions 1-3 (Kafka 4 dropped v0).
 *
 * Behavior (Kafka's AclApis.handleDeleteAcls and the controller's AclControlManager):
 * - ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED in every filter result.
 * - No authorizer configured: SECURITY_DISABLED "No Authorizer is configured." in every result.
 * - A filter with a code 0 (UNKNOWN) makes the request unparseable: the connection closes; a code
 *   outside its enumeration: INVALID_REQUEST "Unknown patternFilter." / "Unknown entryFilter.".
 * - Otherwise each filter removes every ACL it matches (filters as in DescribeAcls), all in one
 *   change of the cluster metadata, and lists what it matched.
 * Version notes: v1 pattern types; v2 flexible; v3 USER resources.
 */
import { ProtocolError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { hasUnknown, normalizeBinding, validateFilter, type AclBindingFilter } from '../../protocol/acl.js';
import { aclWriter, AclOperation, authorizeCluster } from './auth-helper.js';
import { defineHandler } from '../handler.js';

export const deleteAclsHandler = defineHandler({
  apiKey: 31,
  async handle(ctx, req) {
    const raw: AclBindingFilter[] = req.filters.map((f) => ({
      resourceType: f.resourceTypeFilter, resourceName: f.resourceNameFilter, patternType: f.patternTypeFilter,
      principal: f.principalFilter, host: f.hostFilter, operation: f.operation, permissionType: f.permissionType,
    }));
    if (raw.some(hasUnknown)) throw new ProtocolError('DeleteAcls filters contain UNKNOWN elements');
    const filters = raw.map(normalizeBinding);
    const all = (errorCode: number, errorMessage: string | null) => ({
      throttleTimeMs: 0, filterResults: filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
    });
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Request is not authorized.');
    const auth = ctx.broker.authorizer;
    if (auth === null) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    const problems = filters.map(validateFilter);
    const matched = await auth.deleteAcls(filters.filter((_f, i) => problems[i] === null), aclWriter(ctx.broker));
    let next = 0;
    return {
      throttleTimeMs: 0,
      filterResults: problems.map((p) => (p !== null ? { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: p, matchingAcls: [] } : {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        matchingAcls: matched[next++].map((a) => ({ errorCode: ErrorCode.NONE, errorMessage: null, ...a })),
      })),
    };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, filterResults: req.filters.map(() => ({ errorCode, errorMessage: null, matchingAcls: [] })) };
  },
});
