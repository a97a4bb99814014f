/**
 * SaslHandshake (key 17), versions 0-1, and SaslAuthenticate (key 36), versions 0-2.
 *
 * On SASL_PLAINTEXT and SASL_SSL listeners the connection's SaslSession (RequestContext.sasl,
 * security/sasl/authenticator.ts) answers: the enabled mechanisms, UNSUPPORTED_SASL_MECHANISM for
 * others; the tokens of PLAIN, SCRAM-SHA-256/512 and OAUTHBEARER; SASL_AUTHENTICATION_FAILED with
 * Kafka's message; v1+ the session lifetime (KIP-368). The session decides which requests reach
 * these handlers at all (nothing else is served before authentication).
 *
 * On PLAINTEXT and SSL listeners Kafka answers both with ILLEGAL_SASL_STATE (its KafkaApis
 * handlers: the connection has already "authenticated"); SaslHandshake lists no mechanisms and
 * SaslAuthenticate says why.
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

const AFTER_AUTHENTICATION = 'SaslAuthenticate request received after successful authentication';

export const saslHandshakeHandler = defineHandler({
  apiKey: 17,
  handle(ctx, req) {
    if (ctx.sasl) return ctx.sasl.handshake(req.mechanism, ctx.apiVersion);
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
  },
  errorResponse(_req, errorCode) {
    return { errorCode, mechanisms: [] };
  },
});

export const saslAuthenticateHandler = defineHandler({
  apiKey: 36,
  handle(ctx, req) {
    if (ctx.sasl) return ctx.sasl.authenticate(req.authBytes);
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: AFTER_AUTHENTICATION, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
  },
  errorResponse(_req, errorCode) {
    return { errorCode, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
  },
});
