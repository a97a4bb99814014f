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
import { expiryAnswer, expiryError } from './delegation-tokens.js';

export const renewDelegationTokenHandler = defineHandler({
  apiKey: 39,
  handle: (ctx, req) => expiryAnswer(ctx, (principal) => ctx.broker.delegationTokens.renewToken(principal, req.hmac, Number(req.renewPeriodMs))),
  errorResponse: (_req, errorCode) => expiryError(errorCode),
});
