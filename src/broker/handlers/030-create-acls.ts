/**
 * CreateAcls (key 30), versions 1-3 (Kafka 4 dropped v0).
 *
 * Behavior (Kafka's AclApis.handleCreateAcls and the controller's AclControlManager):
 * - ALTER on the cluster, else CLUSTER_AUTHORIZATION_FAILED in every result.
 * - No authorizer configured: SECURITY_DISABLED "No Authorizer is configured." in every result.
 * - A creation with a code 0 (UNKNOWN) makes the request unparseable: the connection closes.
 * - Per creation, INVALID_REQUEST with Kafka's message for a CLUSTER resource not named
 *   kafka-cluster, an empty name, a code outside its enumeration ("Invalid operation UNKNOWN")
 *   or a principal without a colon; UNKNOWN_SERVER_ERROR (no message) for a filter value (ANY,
 *   MATCH), as Kafka 4.4 fails building such a binding; the valid ones are stored in the cluster
 *   metadata (every broker sees them); an ACL that exists already is a success.
 * Version notes: v1 pattern types; v2 flexible; v3 USER resources.
 */
import { ProtocolError } from '../../errors.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { hasUnknown, normalizeBinding, principalParses, validateNewAcl, type AclBinding } from '../../protocol/acl.js';
import { aclWriter, AclOperation, authorizeCluster } from './auth-helper.js';
import { defineHandler } from '../handler.js';

export const createAclsHandler = defineHandler({
  apiKey: 30,
  async handle(ctx, req) {
    const raw: AclBinding[] = req.creations.map((c) => ({
      resourceType: c.resourceType, resourceName: c.resourceName, patternType: c.resourcePatternType,
      principal: c.principal, host: c.host, operation: c.operation, permissionType: c.permissionType,
    }));
    if (raw.some(hasUnknown)) throw new ProtocolError('CreateAcls creations contain UNKNOWN elements');
    const bindings = raw.map(normalizeBinding);
    const all = (errorCode: number, errorMessage: string | null) => ({ throttleTimeMs: 0, results: bindings.map(() => ({ errorCode, errorMessage })) });
    if (!authorizeCluster(ctx, AclOperation.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Request is not authorized.');
    const auth = ctx.broker.authorizer;
    if (auth === null) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    const problems = bindings.map((b) => validateNewAcl(b) ?? (principalParses(b.principal) ? null : {
      errorCode: ErrorCode.INVALID_REQUEST,
      message: `Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`,
    }));
    const valid = bindings.filter((_b, i) => problems[i] === null);
    await auth.createAcls(valid, aclWriter(ctx.broker));
    return {
      throttleTimeMs: 0,
      results: problems.map((p) => (p === null ? { errorCode: ErrorCode.NONE, errorMessage: '' } : { errorCode: p.errorCode, errorMessage: p.message })),
    };
  },
  errorResponse(req, errorCode) {
    return { throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode, errorMessage: null })) };
  },
});
