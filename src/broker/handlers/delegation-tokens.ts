/**
 * What the delegation token API handlers (KIP-48: keys 38-41) share: Kafka's
 * KafkaApis.allowTokenRequests. The tokens themselves are security/delegation-token-manager.ts.
 */
import type { RequestContext } from '../request-context.js';
import { listenerSecurityProtocol } from '../../config/listeners.js';
import { ANONYMOUS } from '../../security/principal.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { parsePrincipal, type TokenPrincipal } from '../../cluster/delegation-tokens.js';
import { wireTimestamp, type ExpiryResult } from '../../security/delegation-token-manager.js';

/**
 * Kafka's KafkaApis.allowTokenRequests: token requests are refused on PLAINTEXT listeners, on SSL
 * listeners without a client certificate (1-way SSL: the ANONYMOUS principal), and on a
 * connection that logged in with a delegation token; they need the channel's own identity.
 */
export function allowTokenRequests(ctx: RequestContext): boolean {
  if (ctx.sasl?.tokenAuthenticated) return false;
  const protocol = listenerSecurityProtocol(ctx.broker.rawConfig, ctx.listenerName);
  if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') return true;
  return protocol === 'SSL' && ctx.principal !== ANONYMOUS;
}

/** The answer of RenewDelegationToken and ExpireDelegationToken (both carry an expiry timestamp). */
export interface ExpiryAnswer {
  errorCode: number;
  expiryTimestampMs: bigint;
  throttleTimeMs: number;
}

/** An error answer of renew or expire: expiry -1. */
export const expiryError = (errorCode: number): ExpiryAnswer => ({ errorCode, expiryTimestampMs: -1n, throttleTimeMs: 0 });

/** Renew or expire for the connection's principal, where allowTokenRequests lets it. */
export async function expiryAnswer(ctx: RequestContext, change: (principal: TokenPrincipal) => Promise<ExpiryResult>): Promise<ExpiryAnswer> {
  if (!allowTokenRequests(ctx)) return expiryError(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
  const r = await change(parsePrincipal(ctx.principal));
  return { errorCode: r.errorCode, expiryTimestampMs: wireTimestamp(r.expiryTimestampMs), throttleTimeMs: 0 };
}
