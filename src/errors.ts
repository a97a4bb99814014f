/**
 * Error types shared by every layer.
 *
 * - `ProtocolError`: the bytes on a connection cannot be understood (bad frame size, truncated
 *   body, unknown API key or version). The connection that sent them is closed; nothing else is.
 * - `KafkaApiError`: a whole request (or one partition's part of it) fails with a Kafka error
 *   code. Handlers translate it into the response's error field at one boundary.
 * Anything else reaching a handler boundary is a bug: it is logged and answered with
 * UNKNOWN_SERVER_ERROR while the connection stays open.
 */
import { ErrorCode, errorName } from './protocol/generated/error-codes.js';

export class ProtocolError extends Error {
  readonly code = 'SAMSA_PROTOCOL_ERROR';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProtocolError';
  }
}

export class KafkaApiError extends Error {
  readonly errorCode: number;
  constructor(errorCode: number, message?: string, options?: { cause?: unknown }) {
    super(message ?? errorName(errorCode), options);
    this.name = 'KafkaApiError';
    this.errorCode = errorCode;
  }
}

/** The Kafka error code for any thrown value: KafkaApiError keeps its code, anything else is UNKNOWN_SERVER_ERROR. */
export function toErrorCode(err: unknown): number {
  return err instanceof KafkaApiError ? err.errorCode : ErrorCode.UNKNOWN_SERVER_ERROR;
}

/** A setting that cannot start the broker; the message names the setting. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
