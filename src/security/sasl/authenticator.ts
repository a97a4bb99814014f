/**
 * One connection's SASL state on a SASL_PLAINTEXT or SASL_SSL listener (Kafka's
 * SaslServerAuthenticator, server side):
 *
 *   initial ──ApiVersions──▶ handshake ──SaslHandshake v1──▶ authenticate ──SaslAuthenticate…──▶ complete
 *      └──────────SaslHandshake──────────┘        └─SaslHandshake v0──▶ raw (size-prefixed tokens, no Kafka headers)
 *
 * Before completion only ApiVersions (once, first), SaslHandshake and SaslAuthenticate are
 * served; any other request closes the connection, without an answer before the handshake
 * (Kafka: "Unexpected Kafka request of type ... during SASL handshake") and with its error
 * response (ILLEGAL_SASL_STATE) after it. A failed authentication is answered with
 * SASL_AUTHENTICATION_FAILED and Kafka's message after connection.failed.authentication.delay.ms,
 * then the connection closes; an unsupported mechanism is answered UNSUPPORTED_SASL_MECHANISM
 * with the enabled list, then closed.
 *
 * KIP-368: with connections.max.reauth.ms (or a credential that expires, OAUTHBEARER's `exp`)
 * SaslAuthenticate v1+ tells the client its session lifetime; a SaslHandshake after completion
 * starts a re-authentication (same mechanism, same principal), and any other request after the
 * session expired closes the connection.
 *
 * The connection asks admit() for every frame; on a completed, unexpired session that is one
 * field comparison. The handlers of SaslHandshake and SaslAuthenticate call handshake() and
 * authenticate() through RequestContext.sasl.
 */
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import type { SaslListenerConfig } from '../listener-security.js';
import { SaslAuthenticationError, SaslError, type SaslServerMechanism } from './mechanism.js';
import { OAuthBearerServer } from './oauthbearer.js';
import { PlainServer } from './plain.js';
import { ScramServer, type ScramLookup, type TokenLookup } from './scram.js';

const API_VERSIONS = 18;
const SASL_HANDSHAKE = 17;
const SASL_AUTHENTICATE = 36;
/** Highest ApiVersions version served; a higher one is answered with an error and may be retried. */
const API_VERSIONS_MAX = 4;

export type SaslState = 'initial' | 'handshake' | 'authenticate' | 'raw' | 'complete' | 'failed';
/**
 * 'refuse': answer the request with its error response (ILLEGAL_SASL_STATE), then close, as Kafka
 * does for a request other than SaslAuthenticate after the handshake.
 */
export type Admission = 'dispatch' | 'raw' | 'close' | 'refuse';

export interface SaslDeps {
  now(): number;
  scram: ScramLookup;
  /** Delegation tokens for SCRAM `tokenauth=true` logins; absent: every such login fails. */
  tokens?: TokenLookup;
}

export interface SaslHandshakeAnswer {
  errorCode: number;
  mechanisms: string[];
}

export interface SaslAuthenticateAnswer {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  sessionLifetimeMs: bigint;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class SaslSession {
  state: SaslState = 'initial';
  /** `User:<name>` once authenticated. */
  principal: string | null = null;
  /**
   * The principal came from a delegation token (Kafka's KafkaPrincipal.tokenAuthenticated): such a
   * connection may not create, renew, expire or describe tokens.
   */
  tokenAuthenticated = false;
  mechanism: string | null = null;
  /** Set when the connection must close once the current answer is written. */
  closeAfterReply = false;
  /** Why authentication failed (for the broker's log), once it has. */
  failure: string | null = null;
  /** Epoch ms after which only a re-authentication is served; Infinity: never. */
  expiresAtMs = Infinity;
  private server: SaslServerMechanism | null = null;
  private reauthenticating = false;
  private previousPrincipal: string | null = null;

  constructor(private readonly cfg: SaslListenerConfig, private readonly deps: SaslDeps) {}

  get authenticated(): boolean {
    return this.state === 'complete';
  }

  /** What to do with the next frame. */
  admit(frame: Buffer): Admission {
    const state = this.state;
    if (state === 'complete') {
      if (frame.length >= 2 && frame.readInt16BE(0) === SASL_HANDSHAKE) {
        this.reauthenticating = true;
        this.previousPrincipal = this.principal;
        this.state = 'handshake';
        return 'dispatch';
      }
      return this.expiresAtMs !== Infinity && this.deps.now() > this.expiresAtMs ? 'close' : 'dispatch';
    }
    if (frame.length > this.cfg.maxReceiveSize) return this.fail();
    if (state === 'raw') return 'raw';
    if (frame.length < 4) return this.fail();
    const apiKey = frame.readInt16BE(0);
    switch (state) {
      case 'initial':
        if (apiKey === API_VERSIONS) {
          if (frame.readInt16BE(2) <= API_VERSIONS_MAX) this.state = 'handshake';
          return 'dispatch';
        }
        return apiKey === SASL_HANDSHAKE ? 'dispatch' : this.fail();
      case 'handshake':
        return apiKey === SASL_HANDSHAKE ? 'dispatch' : this.fail();
      case 'authenticate':
        if (apiKey === SASL_AUTHENTICATE) return 'dispatch';
        this.state = 'failed';
        this.closeAfterReply = true;
        return 'refuse';
      default:
        return 'close';
    }
  }

  private fail(): 'close' {
    this.state = 'failed';
    return 'close';
  }

  get failed(): boolean {
    return this.state === 'failed';
  }

  /** SaslHandshake (v0: raw tokens follow; v1: SaslAuthenticate requests follow). */
  handshake(mechanism: string, version: number): SaslHandshakeAnswer {
    const mechanisms = this.cfg.mechanisms;
    if (this.state !== 'handshake' && this.state !== 'initial') {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    }
    if (!mechanisms.includes(mechanism)) {
      this.failure = `Unsupported SASL mechanism ${mechanism}`;
      this.state = 'failed';
      this.closeAfterReply = true;
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    if (this.reauthenticating && mechanism !== this.mechanism) {
      // Kafka answers the handshake, then fails: a re-authentication keeps its mechanism.
      this.state = 'failed';
      this.closeAfterReply = true;
      return { errorCode: ErrorCode.NONE, mechanisms };
    }
    this.mechanism = mechanism;
    this.server = this.createServer(mechanism);
    this.state = version >= 1 ? 'authenticate' : 'raw';
    return { errorCode: ErrorCode.NONE, mechanisms };
  }

  private createServer(mechanism: string): SaslServerMechanism {
    switch (mechanism) {
      case 'PLAIN': return new PlainServer(this.cfg.plainUsers);
      case 'SCRAM-SHA-256': case 'SCRAM-SHA-512': return new ScramServer(mechanism, this.deps.scram, undefined, this.deps.tokens);
      case 'OAUTHBEARER': return new OAuthBearerServer(this.cfg.oauth, () => this.deps.now());
      default: throw new Error(`no server for SASL mechanism ${mechanism}`);
    }
  }

  /** SaslAuthenticate: one token of the exchange. */
  async authenticate(authBytes: Buffer): Promise<SaslAuthenticateAnswer> {
    if (this.state !== 'authenticate' || this.server === null) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: 'SaslAuthenticate request received before SaslHandshake', authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
    }
    try {
      const challenge = await this.server.evaluate(authBytes);
      let lifetime = 0;
      if (this.server.complete) lifetime = this.completed();
      return { errorCode: ErrorCode.NONE, errorMessage: '', authBytes: challenge, sessionLifetimeMs: BigInt(lifetime) };
    } catch (e) {
      this.state = 'failed';
      this.closeAfterReply = true;
      const message = this.failureMessage(e);
      this.failure = `${message}${e instanceof SaslError ? ` (${e.message})` : ''}`;
      if (this.cfg.failedDelayMs > 0) await delay(this.cfg.failedDelayMs);
      return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0n };
    }
  }

  /** A raw token after SaslHandshake v0: the size-prefixed answer, or null after a failure (then close). */
  async rawToken(token: Buffer): Promise<Buffer | null> {
    try {
      const challenge = await this.server!.evaluate(token);
      if (this.server!.complete) this.completed();
      const out = Buffer.allocUnsafe(4 + challenge.length);
      out.writeInt32BE(challenge.length, 0);
      challenge.copy(out, 4);
      return out;
    } catch (e) {
      this.state = 'failed';
      if (!(e instanceof SaslError) && !(e instanceof SaslAuthenticationError)) throw e;
      this.failure = e.message;
      if (this.cfg.failedDelayMs > 0) await delay(this.cfg.failedDelayMs);
      return null;
    }
  }

  private failureMessage(e: unknown): string {
    if (e instanceof SaslAuthenticationError) return e.message;
    if (e instanceof SaslError) {
      return `Authentication failed during ${this.reauthenticating ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${this.mechanism}`;
    }
    throw e;
  }

  /** The exchange succeeded: principal, session expiry; returns the session lifetime (0: none). */
  private completed(): number {
    const server = this.server!;
    const principal = `User:${server.authorizationId}`;
    if (this.reauthenticating && principal !== this.previousPrincipal) {
      // Kafka writes the principals as type.name here.
      const dotted = (p: string | null) => (p ?? '').replace(':', '.');
      throw new SaslAuthenticationError(`Cannot change principals during re-authentication from ${dotted(this.previousPrincipal)}: ${dotted(principal)}`);
    }
    const now = this.deps.now();
    const credentialExpiry = server.credentialExpiresAtMs;
    const maxReauth = this.cfg.reauthMs;
    let lifetime = 0;
    this.expiresAtMs = Infinity;
    if (credentialExpiry !== undefined || maxReauth > 0) {
      const candidates: number[] = [];
      if (maxReauth > 0) candidates.push(maxReauth);
      if (credentialExpiry !== undefined) candidates.push(credentialExpiry - now);
      lifetime = Math.max(0, Math.min(...candidates));
      this.expiresAtMs = now + lifetime;
    }
    this.principal = principal;
    this.tokenAuthenticated = server.tokenAuthenticated === true;
    this.state = 'complete';
    this.reauthenticating = false;
    this.server = null;
    return lifetime;
  }
}
