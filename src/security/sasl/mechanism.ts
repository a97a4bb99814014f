/** What every SASL mechanism's server side offers the authenticator (authenticator.ts). */

export interface SaslServerMechanism {
  readonly mechanism: string;
  /**
   * Evaluates one token from the client and returns the challenge (empty when none). Throws
   * SaslAuthenticationError (its message goes to the client) or SaslError (the client gets
   * Kafka's generic "invalid credentials" message).
   */
  evaluate(token: Buffer): Promise<Buffer> | Buffer;
  /** True once the exchange succeeded. */
  readonly complete: boolean;
  /** The authenticated user name (after completion). */
  readonly authorizationId: string;
  /** When the credential stops being valid (OAUTHBEARER's `exp`), epoch ms; undefined: never. */
  readonly credentialExpiresAtMs?: number;
  /** SCRAM with `tokenauth=true`: the principal is a delegation token's owner (KIP-48). */
  readonly tokenAuthenticated?: boolean;
}

/** An authentication failure whose message Kafka sends to the client. */
export class SaslAuthenticationError extends Error {}

/** A failure the client only learns generically about (the message may name users). */
export class SaslError extends Error {}

/** The mechanisms Samsa implements, in the order SaslHandshake lists them when all are enabled. */
export const SUPPORTED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;
