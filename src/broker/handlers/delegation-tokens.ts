/**
 * What the delegation token API handlers (KIP-48: keys 38-41) share: Kafka's
 * KafkaApis.allowTokenRequests. The tokens themselves are security/delegation-token-manager.ts.
 */
import type { RequestContext } from '../request-context.js';
import { listenerSecurityProtocol } from '../../config/listeners.js';
import { ANONYMOUS } from '../../security/principal.js';

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
