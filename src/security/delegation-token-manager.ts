/**
 * Delegation tokens (KIP-48, KIP-373): what Kafka 4.4 splits between the broker's
 * DelegationTokenManager (a token's HMAC, its SCRAM credentials, the describe filter) and the
 * controller's DelegationTokenControlManager (create, renew, expire, the periodic removal of
 * expired tokens). The request handlers (broker/handlers/038-041) make KafkaApis' checks first:
 * the channel, CREATE_TOKENS for another owner, renewer types.
 *
 * - Enabled only when `delegation.token.secret.key` is set and not empty; otherwise every
 *   operation answers DELEGATION_TOKEN_AUTH_DISABLED.
 * - A token's id is a random Kafka Uuid; its HMAC (the password a client logs in with, base64) is
 *   HMAC-SHA512 of the id's UTF-8 bytes under the secret key's UTF-8 bytes. The store keeps the
 *   token's information and, per SCRAM mechanism, a credential derived from the base64 HMAC with
 *   the mechanism's minimum iterations (4096), never the HMAC itself.
 * - Create: the lifetime is `delegation.token.max.lifetime.ms`, or less when the request asks for
 *   less (max_lifetime_ms > 0); the expiry is `delegation.token.expiry.time.ms` after issue, not
 *   past the maximum; both sums saturate at Long.MAX_VALUE as Kafka's `sum` does.
 * - Renew (by HMAC): NOT_FOUND, then EXPIRED (past expiry or maximum), then OWNER_MISMATCH (only
 *   the owner or a renewer); the new expiry is now + min(renew period if > 0, expiry time), not
 *   past the maximum.
 * - Expire (by HMAC): NOT_FOUND, then OWNER_MISMATCH; a negative period removes the token at once
 *   (the answer's expiry is now); otherwise EXPIRED as for renew, then the expiry becomes now +
 *   period, not past the maximum.
 * - Expired tokens stay (and are described, and still log in, for a session that ends at once)
 *   until the active controller's sweep removes them every
 *   `delegation.token.expiry.check.interval.ms`.
 *
 * Who owns token state: the metadata store, through one compare-and-set per change on the token's
 * version (the etcd transaction, or the local store's synchronous step). It plays the part of
 * Kafka's controller event queue, which applies token records one at a time: there is no
 * in-process queue, and a change computed from a read that another change overtook (another
 * broker's renewal, the sweep) fails and is computed again from a fresh read.
 */
import { createHmac, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Clock, Timer } from '../clock.js';
import type { Logger } from '../logger.js';
import type { DelegationTokenSettings } from '../config/delegation-token-settings.js';
import type { Fence, MetadataStore } from '../cluster/metadata-store.js';
import {
  cloneDelegationToken, principalString, samePrincipal,
  type DelegationTokenRecord, type StoredDelegationToken, type TokenPrincipal,
} from '../cluster/delegation-tokens.js';
import type { ScramMechanismName } from '../cluster/scram-credentials.js';
import { newUuid } from '../cluster/topic-names.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { SCRAM_MECHANISMS, scramCredentialFromSaltedPassword, type TokenCredential } from './sasl/scram.js';

const pbkdf2Async = promisify(pbkdf2);

/** Java's Long.MAX_VALUE as a number (rounded up to 2^63): timestamps at or past it go on the wire as Long.MAX_VALUE. */
const LONG_MAX_MS = 2 ** 63;

/** A timestamp as the wire's int64 (Long.MAX_VALUE where a sum saturated). */
export function wireTimestamp(ms: number): bigint {
  return ms >= LONG_MAX_MS ? 0x7fffffffffffffffn : BigInt(ms);
}

/** How many times a change is recomputed when other changes keep overtaking it. */
const MAX_ATTEMPTS = 10;

/** Kafka's DelegationTokenControlManager.sum: a + b, saturating at Long.MAX_VALUE. */
function sum(a: number, b: number): number {
  return a > LONG_MAX_MS - b ? LONG_MAX_MS : a + b;
}

export type DelegationTokenStore = Pick<MetadataStore, 'readDelegationToken' | 'listDelegationTokens' | 'writeDelegationToken'>;

export interface DelegationTokenManagerOptions {
  settings: Pick<DelegationTokenSettings, 'delegation.token.secret.key' | 'delegation.token.max.lifetime.ms' | 'delegation.token.expiry.time.ms' | 'delegation.token.expiry.check.interval.ms'>;
  store: DelegationTokenStore;
  /** The fence of this broker's writes (metadata-writer.ts). */
  fence: () => Fence;
  clock: Clock;
  logger: Logger;
}

/** A token with its HMAC (Kafka's DelegationToken). */
export interface DelegationToken {
  info: DelegationTokenRecord;
  hmac: Buffer;
}

export interface CreateTokenResult {
  errorCode: number;
  token: DelegationToken | null;
}

export interface ExpiryResult {
  errorCode: number;
  /** The new expiry (epoch ms); 0 with an error, as Kafka's controller answers. */
  expiryTimestampMs: number;
}

/**
 * Kafka's DelegationTokenManager.filterToken: a describe lists a token when it belongs to one of
 * the requested owners (as owner, requester or renewer; all owners when null), and the requester
 * is its owner, requester or a renewer, or may DESCRIBE the token, or DESCRIBE_TOKENS of its owner.
 */
export function filterToken(
  requester: TokenPrincipal,
  owners: readonly TokenPrincipal[] | null,
  token: DelegationTokenRecord,
  authorizeToken: (tokenId: string) => boolean,
  authorizeOwner: (owner: TokenPrincipal) => boolean,
): boolean {
  if (owners !== null && !owners.some((o) => ownerOrRenewer(token, o))) return false;
  if (ownerOrRenewer(token, requester)) return true;
  return authorizeToken(token.tokenId) || authorizeOwner(token.owner);
}

/** Kafka's TokenInformation.ownerOrRenewer (the requester counts too). */
function ownerOrRenewer(t: DelegationTokenRecord, p: TokenPrincipal): boolean {
  return samePrincipal(t.owner, p) || samePrincipal(t.tokenRequester, p) || t.renewers.some((r) => samePrincipal(r, p));
}

/** The controller's allowedToRenew: the owner or a renewer (not the requester). */
function allowedToRenew(t: DelegationTokenRecord, p: TokenPrincipal): boolean {
  return samePrincipal(t.owner, p) || t.renewers.some((r) => samePrincipal(r, p));
}

/** Past its expiry or its maximum timestamp (Kafka's checks in renew, expire and the sweep). */
function expired(t: DelegationTokenRecord, now: number): boolean {
  return t.maxTimestamp < now || t.expirationTimestamp < now;
}

export class DelegationTokenManager {
  private readonly secretKey: Buffer | null;
  /** HMACs by token id: a function of the id and the fixed key, so kept once computed. */
  private readonly hmacs = new Map<string, Buffer>();
  private sweepTimer: Timer | null = null;

  constructor(private readonly opts: DelegationTokenManagerOptions) {
    const key = opts.settings['delegation.token.secret.key'];
    this.secretKey = key !== null && key !== '' ? Buffer.from(key, 'utf8') : null;
  }

  /** Tokens are on: the secret key is set (Kafka's DelegationTokenManager.isEnabled). */
  get isEnabled(): boolean {
    return this.secretKey !== null;
  }

  /** HMAC-SHA512 of the token id under the secret key (DelegationTokenManager.createHmac). */
  hmac(tokenId: string): Buffer {
    if (!this.secretKey) throw new Error('delegation tokens are disabled (no delegation.token.secret.key)');
    let h = this.hmacs.get(tokenId);
    if (!h) {
      h = createHmac('sha512', this.secretKey).update(tokenId, 'utf8').digest();
      this.hmacs.set(tokenId, h);
    }
    return h;
  }

  /** CreateDelegationToken after the handler's checks (the controller's createDelegationToken). */
  async createToken(requester: TokenPrincipal, owner: TokenPrincipal, renewers: readonly TokenPrincipal[], maxLifetimeMs: number): Promise<CreateTokenResult> {
    if (!this.isEnabled) return { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, token: null };
    if (renewers.some((r) => r.principalType !== 'User')) return { errorCode: ErrorCode.INVALID_PRINCIPAL_TYPE, token: null };
    const settings = this.opts.settings;
    const now = this.opts.clock.now();
    let lifetime = settings['delegation.token.max.lifetime.ms'];
    if (maxLifetimeMs > 0) lifetime = Math.min(lifetime, maxLifetimeMs);
    const maxTimestamp = sum(now, lifetime);
    const expirationTimestamp = Math.min(maxTimestamp, sum(now, settings['delegation.token.expiry.time.ms']));
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const tokenId = newUuid();
      const hmac = this.hmac(tokenId);
      const info: DelegationTokenRecord = {
        tokenId, owner: { ...owner }, tokenRequester: { ...requester }, renewers: renewers.map((r) => ({ ...r })),
        issueTimestamp: now, maxTimestamp, expirationTimestamp,
        scramCredentials: await this.scramCredentials(tokenId, hmac),
      };
      if (await this.opts.store.writeDelegationToken(tokenId, info, 0, this.opts.fence())) {
        this.opts.logger.info(`Created delegation token ${tokenId} for owner ${principalString(owner)}`);
        return { errorCode: ErrorCode.NONE, token: { info, hmac } };
      }
    }
    throw new Error(`no free delegation token id after ${MAX_ATTEMPTS} attempts`);
  }

  /** RenewDelegationToken (the controller's renewDelegationToken). */
  renewToken(principal: TokenPrincipal, hmac: Buffer, renewPeriodMs: number): Promise<ExpiryResult> {
    return this.change(hmac, (t, now) => {
      if (expired(t, now)) return ErrorCode.DELEGATION_TOKEN_EXPIRED;
      if (!allowedToRenew(t, principal)) return ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH;
      let period = this.opts.settings['delegation.token.expiry.time.ms'];
      if (renewPeriodMs > 0) period = Math.min(period, renewPeriodMs);
      const expiry = Math.min(t.maxTimestamp, now + period);
      return { next: { ...cloneDelegationToken(t), expirationTimestamp: expiry }, expiry };
    });
  }

  /** ExpireDelegationToken (the controller's expireDelegationToken). */
  expireToken(principal: TokenPrincipal, hmac: Buffer, expiryTimePeriodMs: number): Promise<ExpiryResult> {
    return this.change(hmac, (t, now) => {
      if (!allowedToRenew(t, principal)) return ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH;
      if (expiryTimePeriodMs < 0) return { next: null, expiry: now };
      if (expired(t, now)) return ErrorCode.DELEGATION_TOKEN_EXPIRED;
      const expiry = Math.min(t.maxTimestamp, sum(now, expiryTimePeriodMs));
      return { next: { ...cloneDelegationToken(t), expirationTimestamp: expiry }, expiry };
    });
  }

  /**
   * Finds the token of `hmac`, lets `decide` answer an error code or the token's next state (null:
   * removed) with the expiry to answer, and writes it if the token is unchanged since the read.
   */
  private async change(
    hmac: Buffer,
    decide: (t: DelegationTokenRecord, now: number) => number | { next: DelegationTokenRecord | null; expiry: number },
  ): Promise<ExpiryResult> {
    if (!this.isEnabled) return { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, expiryTimestampMs: 0 };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = await this.tokenForHmac(hmac);
      if (!stored) return { errorCode: ErrorCode.DELEGATION_TOKEN_NOT_FOUND, expiryTimestampMs: 0 };
      const outcome = decide(stored.token, this.opts.clock.now());
      if (typeof outcome === 'number') return { errorCode: outcome, expiryTimestampMs: 0 };
      if (await this.opts.store.writeDelegationToken(stored.token.tokenId, outcome.next, stored.version, this.opts.fence())) {
        if (outcome.next === null) this.hmacs.delete(stored.token.tokenId);
        return { errorCode: ErrorCode.NONE, expiryTimestampMs: outcome.expiry };
      }
    }
    throw new Error(`delegation token change overtaken ${MAX_ATTEMPTS} times in a row`);
  }

  /** The stored token whose HMAC this is (DelegationTokenCache.tokenForHmac), or null. */
  private async tokenForHmac(hmac: Buffer): Promise<StoredDelegationToken | null> {
    for (const t of await this.opts.store.listDelegationTokens()) {
      const h = this.hmac(t.token.tokenId);
      if (h.length === hmac.length && timingSafeEqual(h, hmac)) return t;
    }
    return null;
  }

  /** Every stored token `eligible` lets through, with its HMAC (DescribeDelegationToken). */
  async tokens(eligible: (t: DelegationTokenRecord) => boolean): Promise<DelegationToken[]> {
    if (!this.isEnabled) return [];
    const out: DelegationToken[] = [];
    for (const { token } of await this.opts.store.listDelegationTokens()) {
      if (eligible(token)) out.push({ info: token, hmac: this.hmac(token.tokenId) });
    }
    return out;
  }

  /**
   * The credential of a SCRAM `tokenauth=true` login (ScramServerCallbackHandler with a
   * DelegationTokenCredentialCallback): null for an unknown token or without a secret key. An
   * expired token that is not removed yet still logs in, for a session that ends at its expiry.
   */
  async tokenCredential(tokenId: string, mechanism: ScramMechanismName): Promise<TokenCredential | null> {
    if (!this.isEnabled) return null;
    const stored = await this.opts.store.readDelegationToken(tokenId);
    const credential = stored?.token.scramCredentials.find((c) => c.mechanism === mechanism);
    if (!stored || !credential) return null;
    return { credential, ownerName: stored.token.owner.name, expiryTimestampMs: stored.token.expirationTimestamp };
  }

  /** SCRAM credentials for the token, one per mechanism, the base64 HMAC as password. */
  private async scramCredentials(tokenId: string, hmac: Buffer): Promise<DelegationTokenRecord['scramCredentials']> {
    const password = Buffer.from(hmac.toString('base64'), 'utf8');
    const out = [];
    for (const mechanism of Object.keys(SCRAM_MECHANISMS) as ScramMechanismName[]) {
      const { hash, bytes, minIterations } = SCRAM_MECHANISMS[mechanism];
      const salt = randomBytes(32);
      const salted = await pbkdf2Async(password, salt, minIterations, bytes, hash);
      out.push(scramCredentialFromSaltedPassword(tokenId, mechanism, salt, salted, minIterations));
    }
    return out;
  }

  /**
   * Removes expired tokens (the controller's sweepExpiredDelegationTokens); a token renewed since
   * the read is left alone. Returns how many were removed.
   */
  async removeExpiredTokens(): Promise<number> {
    const now = this.opts.clock.now();
    let removed = 0;
    for (const { token, version } of await this.opts.store.listDelegationTokens()) {
      if (!expired(token, now)) continue;
      if (await this.opts.store.writeDelegationToken(token.tokenId, null, version, this.opts.fence())) {
        this.opts.logger.info(`Delegation token expired for token: ${token.tokenId} for owner: ${principalString(token.owner)}`);
        this.hmacs.delete(token.tokenId);
        removed++;
      }
    }
    return removed;
  }

  /**
   * Every `delegation.token.expiry.check.interval.ms`, while `isActiveController()` says so, removes
   * expired tokens (Kafka's controller schedules the sweep the same way). No-op when disabled.
   */
  startExpirySweep(isActiveController: () => boolean): void {
    if (!this.isEnabled || this.sweepTimer) return;
    const interval = this.opts.settings['delegation.token.expiry.check.interval.ms'];
    const run = (): void => {
      this.sweepTimer = this.opts.clock.setTimeout(() => {
        const pass = isActiveController() ? this.removeExpiredTokens() : Promise.resolve(0);
        pass.catch((err: unknown) => this.opts.logger.warn(`delegation token expiry check failed: ${(err as Error)?.message ?? String(err)}`))
          .finally(() => {
            if (this.sweepTimer) run();
          });
      }, interval);
    };
    run();
  }

  stopExpirySweep(): void {
    this.sweepTimer?.cancel();
    this.sweepTimer = null;
  }
}
