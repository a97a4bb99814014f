/**
 * SASL/SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677), server side, as Kafka's
 * ScramSaslServer: client-first (`n,[a=authzid],n=user,r=cnonce[,ext]`) → server-first
 * (`r=cnonce+snonce,s=salt,i=iterations`) → client-final (`c=...,r=...,p=proof`) → server-final
 * (`v=signature`). Credentials come from the metadata store (AlterUserScramCredentials); an
 * unknown user, a wrong proof or a malformed message fail with Kafka's generic message, so the
 * client cannot tell which.
 *
 * Delegation tokens (KIP-48): a client-first message with the extension `tokenauth=true` names a
 * token id as user; its credential is the token's (derived from the token's HMAC as password,
 * security/delegation-token-manager.ts), the authorization id is the token owner's name and the
 * credential expires with the token, as Kafka's ScramSaslServer with a
 * DelegationTokenCredentialCallback. An unknown token id fails like an unknown user.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ScramCredentialRecord, ScramMechanismName } from '../../cluster/scram-credentials.js';
import { SaslAuthenticationError, SaslError, type SaslServerMechanism } from './mechanism.js';

export const SCRAM_MECHANISMS: Record<ScramMechanismName, { hash: 'sha256' | 'sha512'; bytes: number; minIterations: number; maxIterations: number; type: number }> = {
  'SCRAM-SHA-256': { hash: 'sha256', bytes: 32, minIterations: 4096, maxIterations: 16384, type: 1 },
  'SCRAM-SHA-512': { hash: 'sha512', bytes: 64, minIterations: 4096, maxIterations: 16384, type: 2 },
};

/** AlterUserScramCredentials' mechanism numbers. */
export function scramMechanismByType(type: number): ScramMechanismName | null {
  if (type === 1) return 'SCRAM-SHA-256';
  if (type === 2) return 'SCRAM-SHA-512';
  return null;
}

function hmac(hash: string, key: Buffer, data: string | Buffer): Buffer {
  return createHmac(hash, key).update(data).digest();
}

/** StoredKey and ServerKey from a salted password (what AlterUserScramCredentials sends). */
export function scramCredentialFromSaltedPassword(
  user: string, mechanism: ScramMechanismName, salt: Buffer, saltedPassword: Buffer, iterations: number,
): ScramCredentialRecord {
  const { hash } = SCRAM_MECHANISMS[mechanism];
  const clientKey = hmac(hash, saltedPassword, 'Client Key');
  const storedKey = createHash(hash).update(clientKey).digest();
  const serverKey = hmac(hash, saltedPassword, 'Server Key');
  return { user, mechanism, salt: salt.toString('base64'), storedKey: storedKey.toString('base64'), serverKey: serverKey.toString('base64'), iterations };
}

export function saltPassword(mechanism: ScramMechanismName, password: string, salt: Buffer, iterations: number): Buffer {
  const { hash, bytes } = SCRAM_MECHANISMS[mechanism];
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, bytes, hash);
}

/** A credential for a clear password (tests, startBroker's `sasl.scram`). */
export function scramCredentialFromPassword(user: string, mechanism: ScramMechanismName, password: string, iterations = 4096, salt = randomBytes(32)): ScramCredentialRecord {
  return scramCredentialFromSaltedPassword(user, mechanism, salt, saltPassword(mechanism, password, salt, iterations), iterations);
}

/** RFC 5802 saslname: `=2C` is ',' and `=3D` is '='; any other '=' is invalid. */
function decodeSaslName(s: string): string {
  if (/=(?!2C|3D)/.test(s)) throw new SaslError(`Invalid username: ${s}`);
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

const CLIENT_FIRST = /^n,(?:a=([^,]*))?,(?:m=[^,]*,)?n=([^,]+),r=([\x21-\x2b\x2d-\x7e]+)((?:,[A-Za-z]+=[^,]*)*)$/;
const CLIENT_FINAL = /^c=([A-Za-z0-9+/=]+),r=([\x21-\x2b\x2d-\x7e]+)((?:,[A-Za-z]+=[^,]*)*),p=([A-Za-z0-9+/=]+)$/;

export type ScramLookup = (user: string, mechanism: ScramMechanismName) => Promise<ScramCredentialRecord | null>;

/** What a `tokenauth=true` login needs of a delegation token (Kafka's DelegationTokenCredentialCallback). */
export interface TokenCredential {
  credential: ScramCredentialRecord;
  /** The token owner's principal name: the authenticated principal is `User:<ownerName>`. */
  ownerName: string;
  /** The token's expiry (epoch ms): the session ends there at the latest (KIP-368). */
  expiryTimestampMs: number;
}

export type TokenLookup = (tokenId: string, mechanism: ScramMechanismName) => Promise<TokenCredential | null>;

/** No delegation tokens: every tokenauth login fails as an unknown token. */
const NO_TOKENS: TokenLookup = async () => null;

export class ScramServer implements SaslServerMechanism {
  complete = false;
  authorizationId = '';
  private state: 'first' | 'final' | 'done' = 'first';
  private gs2Header = '';
  private clientFirstBare = '';
  private serverFirst = '';
  private nonce = '';
  private clientNonce = '';
  private credential: ScramCredentialRecord | null = null;
  /** Set by a `tokenauth=true` login: the principal is then token-authenticated (KafkaPrincipal.tokenAuthenticated). */
  tokenAuthenticated = false;
  /** A token login's expiry (epoch ms), as SaslSession reads a credential's lifetime. */
  credentialExpiresAtMs: number | undefined = undefined;

  /** `serverNonce` is for tests (RFC test vectors); by default 24 random bytes in base64. */
  constructor(
    readonly mechanism: ScramMechanismName,
    private readonly lookup: ScramLookup,
    private readonly serverNonce = () => randomBytes(24).toString('base64'),
    private readonly tokens: TokenLookup = NO_TOKENS,
  ) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    const text = token.toString('utf8');
    if (this.state === 'first') return this.first(text);
    if (this.state === 'final') return this.final(text);
    throw new SaslError('SCRAM exchange already complete');
  }

  private async first(text: string): Promise<Buffer> {
    const m = CLIENT_FIRST.exec(text);
    if (!m) throw new SaslError('Invalid SCRAM client first message');
    const authzid = m[1] ?? '';
    const user = decodeSaslName(m[2]!);
    const extensions = (m[4] ?? '').split(',').filter((s) => s !== '');
    // ScramExtensions.tokenAuthenticated: Boolean.parseBoolean of the value, so any letter case.
    const tokenAuth = extensions.some((e) => e.toLowerCase() === 'tokenauth=true');
    this.gs2Header = text.slice(0, text.indexOf(',', text.indexOf(',') + 1) + 1);
    this.clientFirstBare = text.slice(this.gs2Header.length);
    let credential: ScramCredentialRecord | null;
    let authorizationId = user;
    if (tokenAuth) {
      const token = await this.tokens(user, this.mechanism);
      if (!token) throw new SaslError(`Token Authentication failed: Invalid tokenId : ${user}`);
      credential = token.credential;
      authorizationId = token.ownerName;
      this.tokenAuthenticated = true;
      this.credentialExpiresAtMs = token.expiryTimestampMs;
    } else {
      credential = await this.lookup(user, this.mechanism);
    }
    if (!credential) throw new SaslError('Authentication failed: Invalid user credentials');
    const spec = SCRAM_MECHANISMS[this.mechanism];
    if (credential.iterations < spec.minIterations) {
      throw new SaslError(`Iterations ${credential.iterations} is less than the minimum ${spec.minIterations} for ${this.mechanism}`);
    }
    if (authzid !== '' && authzid !== user) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.credential = credential;
    this.authorizationId = authorizationId;
    this.clientNonce = m[3]!;
    this.nonce = m[3]! + this.serverNonce();
    this.serverFirst = `r=${this.nonce},s=${credential.salt},i=${credential.iterations}`;
    this.state = 'final';
    return Buffer.from(this.serverFirst, 'utf8');
  }

  private final(text: string): Buffer {
    const m = CLIENT_FINAL.exec(text);
    if (!m) throw new SaslError('Invalid SCRAM client final message');
    // librdkafka before 2.6.1 (Debian's kcat: 2.0.2) sends its own nonce once more in front of the
    // combined one (librdkafka#4895). Kafka 4 compares strictly and refuses those clients; Samsa
    // also accepts exactly that form, which still carries the server's nonce (no replay), and the
    // proof is checked over the message as sent.
    if (m[2] !== this.nonce && m[2] !== this.clientNonce + this.nonce) throw new SaslError('Invalid client nonce in the final client message.');
    if (Buffer.from(m[1]!, 'base64').toString('utf8') !== this.gs2Header) throw new SaslError('Invalid channel binding in the final client message.');
    const cred = this.credential!;
    const { hash, bytes } = SCRAM_MECHANISMS[this.mechanism];
    const proof = Buffer.from(m[4]!, 'base64');
    if (proof.length !== bytes) throw new SaslError('Invalid client credentials');
    const withoutProof = text.slice(0, text.lastIndexOf(',p='));
    const authMessage = `${this.clientFirstBare},${this.serverFirst},${withoutProof}`;
    const storedKey = Buffer.from(cred.storedKey, 'base64');
    const clientSignature = hmac(hash, storedKey, authMessage);
    const clientKey = Buffer.alloc(bytes);
    for (let i = 0; i < bytes; i++) clientKey[i] = proof[i]! ^ clientSignature[i]!;
    const computed = createHash(hash).update(clientKey).digest();
    if (computed.length !== storedKey.length || !timingSafeEqual(computed, storedKey)) throw new SaslError('Invalid client credentials');
    const serverSignature = hmac(hash, Buffer.from(cred.serverKey, 'base64'), authMessage);
    this.state = 'done';
    this.complete = true;
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }
}
