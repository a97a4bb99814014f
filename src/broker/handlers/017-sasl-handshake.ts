/**
 * SaslHandshake (key 17), versions 0-1, and SaslAuthenticate (key 36), versions 0-2, on a
 * listener without SASL: Samsa's listeners are PLAINTEXT, and Kafka answers both there with
 * ILLEGAL_SASL_STATE (its KafkaApis handlers: the connection has already "authenticated" as
 * ANONYMOUS). SaslHandshake lists no mechanisms; SaslAuthenticate says why. Advertising them
 * keeps the ApiVersions table Kafka's (advertise.md: 17 0-1, 36 0-2).
 */
import { defineHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';

const AFTER_AUTHENTICATION = 'SaslAuthenticate request received after successful authentication';

export const saslHandshakeHandler = defineHandler({
  apiKey: 17,
  handle() {
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
  },
  errorResponse(_req, errorCode) {
    return { errorCode, mechanisms: [] };
  },
});

export const saslAuthenticateHandler = defineHandler({
  apiKey: 36,
  handle() {
    return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: AFTER_AUTHENTICATION, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
  },
  errorResponse(_req, errorCode) {
    return { errorCode, errorMessage: null, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
  },
});
