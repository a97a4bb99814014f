/**
 * RenewDelegationToken (key 39), versions 1-2 (KIP-48; Kafka 4 dropped v0).
 *
 * Behavior (Kafka 4.4's KafkaApis.handleRenewTokenRequest, then the controller's
 * DelegationTokenControlManager.renewDelegationToken; security/delegation-token-manager.ts):
 * - DELEGATION_TOKEN_REQUEST_NOT_ALLOWED (expiry -1) where allowTokenRequests says no.
 * - Without delegation.token.secret.key: DELEGATION_TOKEN_AUTH_DISABLED.
 * - The token is found by its HMAC: DELEGATION_TOKEN_NOT_FOUND, then DELEGATION_TOKEN_EXPIRED
 *   (past its expiry or maximum), then DELEGATION_TOKEN_OWNER_MISMATCH unless the caller is its
 *   owner or a renewer; these errors carry expiry 0.
 * - The new expiry: now + min(renew_period_ms if > 0, delegation.token.expiry.time.ms), never past
 *   the token's maximum timestamp.
 * Version notes: v2 flexible.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { parsePrincipal } from '../../cluster/delegation-tokens.js';
import { wireTimestamp } from '../../security/delegation-token-manager.js';
import { allowTokenRequests } from './delegation-tokens.js';

export const renewDelegationTokenHandler = defineHandler({
  apiKey: 39,
  async handle(ctx, req) {
    if (!allowTokenRequests(ctx)) return { errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, expiryTimestampMs: -1n, throttleTimeMs: 0 };
    const r = await ctx.broker.delegationTokens.renewToken(parsePrincipal(ctx.principal), req.hmac, Number(req.renewPeriodMs));
    return { errorCode: r.errorCode, expiryTimestampMs: wireTimestamp(r.expiryTimestampMs), throttleTimeMs: 0 };
  },
  errorResponse(_req, errorCode) {
    return { errorCode, expiryTimestampMs: -1n, throttleTimeMs: 0 };
  },
});
