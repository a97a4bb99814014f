/**
 * Client side of the SASL mechanisms, for Samsa's own clients (the `samsa` CLI with
 * --command-config, the inter-broker client, tests, benchmarks): PLAIN, SCRAM-SHA-256/512 (RFC
 * 5802, verifying the server's signature) and OAUTHBEARER with a given token. Each step takes the
 * server's last challenge and returns the next token, null when the exchange is over;
 * saslAuthenticate() runs the whole exchange on a connection.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScramMechanismName } from '../../cluster/scram-credentials.js';
import { KafkaApiError } from '../../errors.js';
import { errorName } from '../../protocol/generated/error-codes.js';
import type { KafkaConnection } from '../../protocol/kafka-connection.js';
import { SCRAM_MECHANISMS, saltPassword } from './scram.js';

export interface SaslClientCredentials {
  mechanism: string;
  username?: string;
  password?: string;
  /** OAUTHBEARER: the compact JWS to send (a function: a fresh one per login). */
  token?: string | (() => string);
  /** SCRAM: log in with a delegation token (username = token id, password = its base64 HMAC; KIP-48). */
  tokenauth?: boolean;
}

export interface SaslClientMechanism {
  /** The first token (sent after SaslHandshake). */
  initial(): Buffer;
  /** The next token for a server challenge, or null when done. Throws if the server is wrong. */
  respond(challenge: Buffer): Buffer | null;
}

export function saslClient(c: SaslClientCredentials): SaslClientMechanism {
  const m = c.mechanism.toUpperCase();
  if (m === 'PLAIN') {
    return { initial: () => Buffer.from(`\u0000${c.username ?? ''}\u0000${c.password ?? ''}`, 'utf8'), respond: () => null };
  }
  if (m === 'SCRAM-SHA-256' || m === 'SCRAM-SHA-512') return new ScramClient(m, c.username ?? '', c.password ?? '', c.tokenauth === true);
  if (m === 'OAUTHBEARER') {
    const token = () => (typeof c.token === 'function' ? c.token() : c.token ?? '');
    return { initial: () => Buffer.from(`n,,\u0001auth=Bearer ${token()}\u0001\u0001`, 'utf8'), respond: (ch) => (ch.length > 0 ? Buffer.from([1]) : null) };
  }
  throw new Error(`unsupported SASL mechanism ${c.mechanism}`);
}

/**
 * SaslHandshake v1, then SaslAuthenticate v2 until the mechanism is done (also re-authenticates).
 * A refusal throws KafkaApiError with the broker's error code ("ERROR_NAME: message").
 */
export async function saslAuthenticate(conn: KafkaConnection, credentials: SaslClientCredentials): Promise<{ sessionLifetimeMs: bigint }> {
  const hs = await conn.send(17, 1, { mechanism: credentials.mechanism.toUpperCase() });
  if (hs.errorCode !== 0) {
    throw new KafkaApiError(hs.errorCode, `${errorName(hs.errorCode)}: SASL mechanism ${credentials.mechanism} is not enabled; the broker offers ${hs.mechanisms.join(', ')}`);
  }
  const mech = saslClient(credentials);
  let token: Buffer | null = mech.initial();
  let lifetime = 0n;
  while (token !== null) {
    const r = await conn.send(36, 2, { authBytes: token });
    if (r.errorCode !== 0) throw new KafkaApiError(r.errorCode, r.errorMessage ? `${errorName(r.errorCode)}: ${r.errorMessage}` : errorName(r.errorCode));
    lifetime = r.sessionLifetimeMs;
    token = mech.respond(r.authBytes);
  }
  return { sessionLifetimeMs: lifetime };
}

/** An unsecured JWS (alg none) as Kafka's OAuthBearerUnsecuredLoginCallbackHandler makes. */
export function unsecuredJws(sub: string, lifetimeMs = 3_600_000, extraClaims: Record<string, unknown> = {}): string {
  const now = Date.now();
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'none' })}.${enc({ sub, iat: now / 1000, exp: (now + lifetimeMs) / 1000, ...extraClaims })}.`;
}

class ScramClient implements SaslClientMechanism {
  private readonly nonce = randomBytes(18).toString('base64');
  private clientFirstBare = '';
  private serverSignature: Buffer | null = null;
  private step = 0;

  constructor(private readonly mechanism: ScramMechanismName, private readonly user: string, private readonly password: string, private readonly tokenauth: boolean) {}

  initial(): Buffer {
    const name = this.user.replace(/=/g, '=3D').replace(/,/g, '=2C');
    // Extensions follow the nonce (RFC 5802 client-first-message-bare), as Kafka's ScramMessages writes them.
    this.clientFirstBare = `n=${name},r=${this.nonce}${this.tokenauth ? ',tokenauth=true' : ''}`;
    return Buffer.from(`n,,${this.clientFirstBare}`, 'utf8');
  }

  respond(challenge: Buffer): Buffer | null {
    const text = challenge.toString('utf8');
    const { hash } = SCRAM_MECHANISMS[this.mechanism];
    if (this.step++ === 0) {
      const m = /^r=([^,]+),s=([^,]+),i=(\d+)/.exec(text);
      if (!m || !m[1]!.startsWith(this.nonce)) throw new Error('invalid SCRAM server-first message');
      const salted = saltPassword(this.mechanism, this.password, Buffer.from(m[2]!, 'base64'), Number(m[3]));
      const clientKey = createHmac(hash, salted).update('Client Key').digest();
      const storedKey = createHash(hash).update(clientKey).digest();
      const withoutProof = `c=biws,r=${m[1]}`;
      const authMessage = `${this.clientFirstBare},${text},${withoutProof}`;
      const signature = createHmac(hash, storedKey).update(authMessage).digest();
      const proof = Buffer.alloc(clientKey.length);
      for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i]! ^ signature[i]!;
      const serverKey = createHmac(hash, salted).update('Server Key').digest();
      this.serverSignature = createHmac(hash, serverKey).update(authMessage).digest();
      return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8');
    }
    const v = /^v=([A-Za-z0-9+/=]+)$/.exec(text);
    const got = v ? Buffer.from(v[1]!, 'base64') : Buffer.alloc(0);
    if (!this.serverSignature || got.length !== this.serverSignature.length || !timingSafeEqual(got, this.serverSignature)) {
      throw new Error('invalid SCRAM server signature');
    }
    return null;
  }
}
