/**
 * ExpireDelegationToken (key 40), versions 1-2 (KIP-48; Kafka 4 dropped v0).
 *
 * Behavior (Kafka 4.4's KafkaApis.handleExpireTokenRequest, then the controller's
 * DelegationTokenControlManager.expireDelegationToken; security/delegation-token-manager.ts):
 * - DELEGATION_TOKEN_REQUEST_NOT_ALLOWED (expiry -1) where allowTokenRequests says no.
 * - Without delegation.token.secret.key: DELEGATION_TOKEN_AUTH_DISABLED.
 * - The token is found by its HMAC: DELEGATION_TOKEN_NOT_FOUND, then
 *   DELEGATION_TOKEN_OWNER_MISMATCH unless the caller is its owner or a renewer (errors carry
 *   expiry 0).
 * - A negative expiry_time_period_ms removes the token at once (answered expiry: now), even an
 *   expired one; otherwise an expired token is DELEGATION_TOKEN_EXPIRED, and a live one expires
 *   at now + period, never past its maximum timestamp (period 0: now, it is expired from then on).
 * Version notes: v2 flexible.
 */
import { defineHandler } from '../handler.js';
import { expiryAnswer, expiryError } from './delegation-tokens.js';

export const expireDelegationTokenHandler = defineHandler({
  apiKey: 40,
  handle: (ctx, req) => expiryAnswer(ctx, (principal) => ctx.broker.delegationTokens.expireToken(principal, req.hmac, Number(req.expiryTimePeriodMs))),
  errorResponse: (_req, errorCode) => expiryError(errorCode),
});
