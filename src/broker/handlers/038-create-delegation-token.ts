/**
 * CreateDelegationToken (key 38), versions 1-3 (KIP-48; Kafka 4 dropped v0).
 *
 * Behavior (Kafka 4.4's KafkaApis.handleCreateTokenRequest, then the controller's
 * DelegationTokenControlManager.createDelegationToken; security/delegation-token-manager.ts):
 * - The owner is the requester, unless owner_principal_name is set and not empty (v3); a name
 *   without a type fails as Kafka's KafkaPrincipal constructor does (UNKNOWN_SERVER_ERROR).
 * - DELEGATION_TOKEN_REQUEST_NOT_ALLOWED on a PLAINTEXT listener, on SSL without a client
 *   certificate and on a connection authenticated with a delegation token (allowTokenRequests).
 * - Creating a token for another owner needs CREATE_TOKENS on that owner's USER resource (named
 *   `User:bob`): DELEGATION_TOKEN_AUTHORIZATION_FAILED otherwise.
 * - A renewer whose principal type is not `User`: INVALID_PRINCIPAL_TYPE.
 * - These three refusals carry timestamps -1, an empty token id and HMAC, the owner and the
 *   requester (CreateDelegationTokenResponse.prepareResponse).
 * - Without delegation.token.secret.key: DELEGATION_TOKEN_AUTH_DISABLED (timestamps 0, as the
 *   controller answers).
 * - Otherwise a new token: issue time now, maximum now + min(max_lifetime_ms if > 0,
 *   delegation.token.max.lifetime.ms), expiry now + delegation.token.expiry.time.ms (not past the
 *   maximum), a random token id and its HMAC, stored in the cluster metadata so that it logs in on
 *   every broker (SCRAM with tokenauth=true).
 * Version notes: v2 flexible; v3 owner principal in the request and the token requester in the
 * response (KIP-373).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { CreateDelegationTokenResponse } from '../../protocol/generated/messages/create-delegation-token-response.js';
import { parsePrincipal, principalString, samePrincipal, type TokenPrincipal } from '../../cluster/delegation-tokens.js';
import { wireTimestamp } from '../../security/delegation-token-manager.js';
import { AclOperation, authorize, ResourceType } from './auth-helper.js';
import { allowTokenRequests } from './delegation-tokens.js';

function answer(errorCode: number, owner: TokenPrincipal, requester: TokenPrincipal, timestamps: bigint): CreateDelegationTokenResponse {
  return {
    errorCode, principalType: owner.principalType, principalName: owner.name,
    tokenRequesterPrincipalType: requester.principalType, tokenRequesterPrincipalName: requester.name,
    issueTimestampMs: timestamps, expiryTimestampMs: timestamps, maxTimestampMs: timestamps,
    tokenId: '', hmac: Buffer.alloc(0), throttleTimeMs: 0,
  };
}

export const createDelegationTokenHandler = defineHandler({
  apiKey: 38,
  async handle(ctx, req) {
    const requester = parsePrincipal(ctx.principal);
    let owner = requester;
    if (req.ownerPrincipalName !== null && req.ownerPrincipalName !== '') {
      if (req.ownerPrincipalType === null) throw new Error('Principal type cannot be null');
      owner = { principalType: req.ownerPrincipalType, name: req.ownerPrincipalName };
    }
    const renewers = req.renewers.map((r) => ({ principalType: r.principalType, name: r.principalName }));
    if (!allowTokenRequests(ctx)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, owner, requester, -1n);
    if (!samePrincipal(owner, requester) && !authorize(ctx, AclOperation.CREATE_TOKENS, ResourceType.USER, principalString(owner))) {
      return answer(ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED, owner, requester, -1n);
    }
    if (renewers.some((r) => r.principalType !== 'User')) return answer(ErrorCode.INVALID_PRINCIPAL_TYPE, owner, requester, -1n);
    const created = await ctx.broker.delegationTokens.createToken(requester, owner, renewers, Number(req.maxLifetimeMs));
    if (created.token === null) return answer(created.errorCode, owner, requester, 0n);
    const { info, hmac } = created.token;
    return {
      ...answer(ErrorCode.NONE, owner, requester, 0n),
      issueTimestampMs: wireTimestamp(info.issueTimestamp),
      expiryTimestampMs: wireTimestamp(info.expirationTimestamp),
      maxTimestampMs: wireTimestamp(info.maxTimestamp),
      tokenId: info.tokenId,
      hmac,
    };
  },
  errorResponse(_req, errorCode, ctx) {
    const p = parsePrincipal(ctx.principal);
    return answer(errorCode, p, p, -1n);
  },
});
