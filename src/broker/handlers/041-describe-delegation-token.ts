/**
 * DescribeDelegationToken (key 41), versions 1-3 (KIP-48; Kafka 4 dropped v0).
 *
 * Behavior (Kafka 4.4's KafkaApis.handleDescribeTokensRequest, answered by the receiving broker):
 * - DELEGATION_TOKEN_REQUEST_NOT_ALLOWED where allowTokenRequests says no (so a connection
 *   authenticated with a token cannot list tokens either); then, without
 *   delegation.token.secret.key, DELEGATION_TOKEN_AUTH_DISABLED.
 * - An empty owners list: no tokens. Null: every owner.
 * - Listed: each stored token (expired ones too, until the expiry check removes them) that belongs
 *   to a requested owner (as its owner, requester or a renewer) and that the caller may see: the
 *   caller is its owner, requester or a renewer, or has DESCRIBE on the DELEGATION_TOKEN resource
 *   of its id, or DESCRIBE_TOKENS on the USER resource of its owner (`User:alice`). Each with its
 *   HMAC, timestamps and renewers.
 * Version notes: v2 flexible; v3 adds the token requester (KIP-373).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { parsePrincipal, principalString } from '../../cluster/delegation-tokens.js';
import { filterToken, wireTimestamp } from '../../security/delegation-token-manager.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { allowTokenRequests } from './delegation-tokens.js';

export const describeDelegationTokenHandler = defineHandler({
  apiKey: 41,
  async handle(ctx, req) {
    const tokens = ctx.broker.delegationTokens;
    if (!allowTokenRequests(ctx)) return { errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, tokens: [], throttleTimeMs: 0 };
    if (!tokens.isEnabled) return { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, tokens: [], throttleTimeMs: 0 };
    if (req.owners !== null && req.owners.length === 0) return { errorCode: ErrorCode.NONE, tokens: [], throttleTimeMs: 0 };
    const requester = parsePrincipal(ctx.principal);
    const owners = req.owners === null ? null : req.owners.map((o) => ({ principalType: o.principalType, name: o.principalName }));
    const eligible = await tokens.tokens((t) => filterToken(requester, owners, t,
      (tokenId) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.DELEGATION_TOKEN, tokenId),
      (owner) => authorize(ctx, AclOperation.DESCRIBE_TOKENS, ResourceType.USER, principalString(owner))));
    return {
      errorCode: ErrorCode.NONE,
      tokens: eligible.map(({ info, hmac }) => ({
        principalType: info.owner.principalType, principalName: info.owner.name,
        tokenRequesterPrincipalType: info.tokenRequester.principalType, tokenRequesterPrincipalName: info.tokenRequester.name,
        issueTimestamp: wireTimestamp(info.issueTimestamp), expiryTimestamp: wireTimestamp(info.expirationTimestamp),
        maxTimestamp: wireTimestamp(info.maxTimestamp), tokenId: info.tokenId, hmac,
        renewers: info.renewers.map((r) => ({ principalType: r.principalType, principalName: r.name })),
      })),
      throttleTimeMs: 0,
    };
  },
  errorResponse(_req, errorCode) {
    return { errorCode, tokens: [], throttleTimeMs: 0 };
  },
});
