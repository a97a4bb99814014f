/**
 * Basic authentication of HTTP requests against the broker's SASL users.
 *
 * When any Kafka listener has SASL, the HTTP listener asks for `Authorization: Basic` and checks
 * the user and password like the SASL mechanisms the broker enables: PLAIN against the JAAS
 * users (`user_<name>`), SCRAM-SHA-256/512 by salting the password with the stored credential's
 * salt and iterations and comparing the stored key (what a SCRAM client proves it knows). Without
 * SASL anywhere, nothing is asked (bind the listener to loopback, the default).
 *
 * A verified header is remembered for a minute (PBKDF2 with 4096 iterations costs milliseconds,
 * and a dashboard polls), at most 256 of them.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ListenerSecurity } from '../security/listener-security.js';
import type { ScramCredentialRecord, ScramMechanismName } from '../cluster/scram-credentials.js';
import { saltPassword, SCRAM_MECHANISMS } from '../security/sasl/scram.js';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 256;

export type ScramReader = (user: string, mechanism: ScramMechanismName) => Promise<ScramCredentialRecord | null>;

function sameSecret(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y) && a === b;
}

export class HttpAuthenticator {
  /** Whether requests must authenticate (some listener has SASL). */
  readonly required: boolean;
  private readonly plainUsers = new Map<string, string>();
  private readonly scramMechanisms: ScramMechanismName[] = [];
  private readonly verified = new Map<string, { user: string; until: number }>();
  /** connection.failed.authentication.delay.ms (the largest of the SASL listeners'): a wrong password waits this long. */
  readonly failedDelayMs: number;

  constructor(security: ReadonlyMap<string, ListenerSecurity>, private readonly readScram: ScramReader, private readonly now: () => number = Date.now) {
    let required = false;
    let failedDelayMs = 0;
    for (const l of security.values()) {
      if (!l.sasl) continue;
      required = true;
      failedDelayMs = Math.max(failedDelayMs, l.sasl.failedDelayMs);
      if (l.sasl.mechanisms.includes('PLAIN')) for (const [u, p] of l.sasl.plainUsers) if (!this.plainUsers.has(u)) this.plainUsers.set(u, p);
      for (const m of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
        if (l.sasl.mechanisms.includes(m) && !this.scramMechanisms.includes(m)) this.scramMechanisms.push(m);
      }
    }
    this.required = required;
    this.failedDelayMs = failedDelayMs;
  }

  /** The authenticated user, null when the header is missing or wrong ('' when nothing is required). */
  async authenticate(authorization: string | undefined): Promise<string | null> {
    if (!this.required) return '';
    if (authorization === undefined || !/^Basic [A-Za-z0-9+/=]{1,1024}$/.test(authorization)) return null;
    const now = this.now();
    const hit = this.verified.get(authorization);
    if (hit && hit.until > now) return hit.user;
    const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return null;
    const user = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    if (!(await this.check(user, password))) {
      // As a SASL listener delays a failed login: guessing passwords over HTTP is no faster.
      if (this.failedDelayMs > 0) await new Promise((r) => setTimeout(r, this.failedDelayMs));
      return null;
    }
    if (this.verified.size >= CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(authorization, { user, until: now + CACHE_TTL_MS });
    return user;
  }

  private async check(user: string, password: string): Promise<boolean> {
    const plain = this.plainUsers.get(user);
    if (plain !== undefined && sameSecret(plain, password)) return true;
    for (const mechanism of this.scramMechanisms) {
      const cred = await this.readScram(user, mechanism).catch(() => null);
      if (!cred) continue;
      const { hash } = SCRAM_MECHANISMS[mechanism];
      const salted = saltPassword(mechanism, password, Buffer.from(cred.salt, 'base64'), cred.iterations);
      const clientKey = createHmac(hash, salted).update('Client Key').digest();
      const storedKey = createHash(hash).update(clientKey).digest();
      const expected = Buffer.from(cred.storedKey, 'base64');
      if (expected.length === storedKey.length && timingSafeEqual(expected, storedKey)) return true;
    }
    return false;
  }
}
