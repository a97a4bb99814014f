/**
 * SASL/OAUTHBEARER (RFC 7628) with Kafka's default server handler, the *unsecured* JWS validator
 * (OAuthBearerUnsecuredValidatorCallbackHandler): the token is `header.payload.` with
 * `{"alg":"none"}` and no signature; the payload must carry the principal claim (`sub`, or
 * `unsecuredValidatorPrincipalClaimName`) and `exp` (seconds), may carry `iat`, and must hold the
 * `unsecuredValidatorRequiredScope` scopes. Options come from the listener's JAAS config;
 * `unsecuredValidatorAllowableClockSkewMs` widens the time checks.
 *
 * An invalid token is answered, as in Kafka, with a JSON error challenge
 * (`{"status":"invalid_token"}`); the client then sends %x01 and authentication fails with that
 * JSON as the message. The token's `exp` bounds the session (KIP-368).
 */
import { SaslAuthenticationError, SaslError, type SaslServerMechanism } from './mechanism.js';

export interface UnsecuredValidatorOptions {
  principalClaimName: string;
  scopeClaimName: string;
  requiredScope: string[];
  allowableClockSkewMs: number;
}

export function unsecuredValidatorOptions(jaas: ReadonlyMap<string, string>): UnsecuredValidatorOptions {
  const skew = Number(jaas.get('unsecuredValidatorAllowableClockSkewMs') ?? '0');
  return {
    principalClaimName: jaas.get('unsecuredValidatorPrincipalClaimName')?.trim() || 'sub',
    scopeClaimName: jaas.get('unsecuredValidatorScopeClaimName')?.trim() || 'scope',
    requiredScope: (jaas.get('unsecuredValidatorRequiredScope') ?? '').split(/[\s,]+/).filter((s) => s !== ''),
    allowableClockSkewMs: Number.isFinite(skew) && skew >= 0 ? skew : 0,
  };
}

class InvalidToken extends Error {
  constructor(message: string, readonly status: 'invalid_token' | 'insufficient_scope' = 'invalid_token', readonly scope?: string) {
    super(message);
  }
}

function decodePart(part: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidToken(`Invalid unsecured JWS ${what}: not base64url-encoded JSON`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new InvalidToken(`Invalid unsecured JWS ${what}: not a JSON object`);
  return v as Record<string, unknown>;
}

/** Validates an unsecured JWS; returns its principal name and expiry (epoch ms). */
export function validateUnsecuredJws(token: string, opts: UnsecuredValidatorOptions, nowMs: number): { principal: string; expiresAtMs: number } {
  const parts = token.split('.');
  if (parts.length !== 3) throw new InvalidToken('Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values');
  if (parts[2] !== '') throw new InvalidToken('Unsecured JWS compact serializations must have an empty signature');
  const header = decodePart(parts[0]!, 'header');
  if (header.alg !== 'none') throw new InvalidToken('Unsecured JWS must have "alg": "none" in its header');
  const claims = decodePart(parts[1]!, 'payload');
  const principal = claims[opts.principalClaimName];
  if (typeof principal !== 'string' || principal.trim() === '') {
    throw new InvalidToken(`No principal name in the required claim: ${opts.principalClaimName}`);
  }
  const exp = claims.exp;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new InvalidToken('Missing or invalid required claim: exp');
  const expiresAtMs = Math.round(exp * 1000);
  if (nowMs - opts.allowableClockSkewMs >= expiresAtMs) throw new InvalidToken(`The indicated time (${expiresAtMs} ms) is not in the future`);
  const iat = claims.iat;
  if (iat !== undefined) {
    if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new InvalidToken('Invalid claim: iat');
    if (iat * 1000 > nowMs + opts.allowableClockSkewMs) throw new InvalidToken(`The indicated time (${Math.round(iat * 1000)} ms) is in the future`);
  }
  if (opts.requiredScope.length > 0) {
    const raw = claims[opts.scopeClaimName];
    const scope = Array.isArray(raw) ? raw.map(String) : typeof raw === 'string' ? raw.split(' ').filter((s) => s !== '') : [];
    const missing = opts.requiredScope.filter((s) => !scope.includes(s));
    if (missing.length > 0) throw new InvalidToken(`The provided scope (${scope.join(' ')}) was missing a required scope (${missing.join(' ')})`, 'insufficient_scope', opts.requiredScope.join(' '));
  }
  return { principal, expiresAtMs };
}

export class OAuthBearerServer implements SaslServerMechanism {
  readonly mechanism = 'OAUTHBEARER';
  complete = false;
  authorizationId = '';
  credentialExpiresAtMs: number | undefined;
  private errorJson: string | null = null;

  constructor(private readonly opts: UnsecuredValidatorOptions, private readonly now: () => number) {}

  evaluate(token: Buffer): Buffer {
    if (token.length === 1 && token[0] === 0x01 && this.errorJson !== null) throw new SaslAuthenticationError(this.errorJson);
    this.errorJson = null;
    const text = token.toString('utf8');
    const fields = text.split('\u0001');
    // gs2 header, key=value pairs, then the terminating empty fields.
    const gs2 = /^n,(?:a=([^,]*))?,$/.exec(fields[0] ?? '');
    if (!gs2 || fields.length < 3 || fields[fields.length - 1] !== '' || fields[fields.length - 2] !== '') {
      throw new SaslError('Invalid OAUTHBEARER client first message');
    }
    let auth: string | null = null;
    for (const kv of fields.slice(1, -2)) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new SaslError('Invalid OAUTHBEARER client first message');
      if (kv.slice(0, eq) === 'auth') auth = kv.slice(eq + 1);
    }
    const m = auth === null ? null : /^([\w]+) +([-_.a-zA-Z0-9]+)$/.exec(auth);
    if (!m) throw new SaslError('Invalid OAUTHBEARER client first message');
    if (m[1]!.toLowerCase() !== 'bearer') throw new SaslError(`Invalid scheme in OAUTHBEARER client first message: ${m[1]}`);
    let result: { principal: string; expiresAtMs: number };
    try {
      result = validateUnsecuredJws(m[2]!, this.opts, this.now());
    } catch (e) {
      if (!(e instanceof InvalidToken)) throw e;
      let json = `{"status":"${e.status}"`;
      if (e.scope !== undefined) json += `, "scope":"${e.scope}"`;
      this.errorJson = `${json}}`;
      return Buffer.from(this.errorJson, 'utf8');
    }
    const authzid = gs2[1] ?? '';
    if (authzid !== '' && authzid !== result.principal) {
      throw new SaslAuthenticationError(`Authentication failed: Client requested an authorization id (${authzid}) that is different from the token's principal name (${result.principal})`);
    }
    this.authorizationId = result.principal;
    this.credentialExpiresAtMs = result.expiresAtMs;
    this.complete = true;
    return Buffer.alloc(0);
  }
}
