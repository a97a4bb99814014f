/**
 * Client quotas (Kafka's ClientQuotaManager and the controller's ClientQuotaControlManager).
 *
 * Entities are a user, a client id, or both (a null name is the default entity of that type), or
 * an IP address; keys for users and client ids are producer_byte_rate and consumer_byte_rate
 * (whole numbers), request_percentage and controller_mutation_rate; for IPs
 * connection_creation_rate. They are stored with the cluster metadata (the store's quotas
 * section) and every broker applies them from its metadata cache.
 *
 * Enforcement of the byte rates: the bytes of each Produce request (its record batches) and of
 * each Fetch response are recorded against the entity whose quota applies to the connection's
 * (user, client id), in Kafka's order of precedence (user+client, user+default client, user,
 * default user+client, default user+default client, default user, client, default client). The
 * rate is measured over `quota.window.num` samples of `quota.window.size.seconds`; above the
 * quota the response carries throttle_time_ms = (rate - quota) / quota x the measured window,
 * at most one sample's span, and the connection reads nothing more for that long (Kafka mutes
 * the channel). A throttled Fetch answers without data (Kafka's throttled fetch response) and its
 * bytes are not counted.
 *
 * request_percentage (100 = one thread's time, Kafka's request quota): Samsa has one thread, and
 * counts the time a handler takes to produce its response (or to defer it: a Produce's append,
 * not its wait for replication), except for the APIs that park until something happens (Fetch,
 * JoinGroup, SyncGroup) and the exempt ones (ApiVersions, SaslHandshake, SaslAuthenticate), as
 * a percentage of the window; above the quota every response gets throttle_time_ms and the
 * connection is muted the same way.
 *
 * controller_mutation_rate (KIP-599): partitions created, added or deleted per second, a token
 * bucket of rate x `controller.quota.window.num` x `controller.quota.window.size.seconds`
 * refilled at the rate. Strict (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+): once
 * the bucket is below zero further topics fail with THROTTLING_QUOTA_EXCEEDED; older versions are
 * permissive (accepted, then throttled). Either way the throttle is the time to refill to zero.
 */
import type { MetadataCache, MetadataChange } from '../cluster/metadata-cache.js';
import { quotaEntityKey, type ClientQuotaRecord } from '../cluster/metadata-store.js';
import type { Clock } from '../clock.js';
import { SampledRate } from '../sampled-rate.js';

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';
export type ByteRateKey = 'producer_byte_rate' | 'consumer_byte_rate';
export type QuotaKey = ByteRateKey | 'request_percentage' | 'controller_mutation_rate';

/** Kafka's TokenBucket: tokens spent by mutations, refilled at the quota up to its burst. */
class TokenBucket {
  private tokens: number;
  private last: number;
  constructor(readonly burst: number, now: number) {
    this.tokens = burst;
    this.last = now;
  }
  refill(rate: number, now: number): number {
    this.tokens = Math.min(this.burst, this.tokens + (rate * (now - this.last)) / 1000);
    this.last = now;
    return this.tokens;
  }
  spend(n: number): void {
    this.tokens -= n;
  }
}
/** APIs whose handler time is not request time: they park (Fetch, JoinGroup, SyncGroup) or are exempt in Kafka. */
const REQUEST_TIME_EXEMPT = new Set([1, 11, 14, 17, 18, 36]);

/** The keys each kind of entity takes and whether they must be whole numbers (Kafka's QuotaConfigs). */
const CLIENT_KEYS: Record<string, 'long' | 'double'> = {
  producer_byte_rate: 'long', consumer_byte_rate: 'long', request_percentage: 'double', controller_mutation_rate: 'double',
};
const IP_KEYS: Record<string, 'long' | 'double'> = { connection_creation_rate: 'long' };

export type EntityData = { entityType: string; entityName: string | null };

/** Kafka's validateEntity and configKeysForEntityType: the keys the entity takes, or the INVALID_REQUEST message. */
export function validateEntity(entity: readonly EntityData[]): { keys: Record<string, 'long' | 'double'> } | { error: string } {
  if (entity.length === 0) return { error: 'Invalid empty client quota entity' };
  const seen = new Map<string, string | null>();
  for (const e of entity) {
    if (seen.has(e.entityType)) return { error: `Invalid empty client quota entity, duplicate entity entry ${e.entityType}` };
    if (e.entityType !== USER && e.entityType !== CLIENT_ID && e.entityType !== IP) return { error: `Unhandled client quota entity type: ${e.entityType}` };
    if (e.entityName === '') return { error: `Empty ${e.entityType} not supported` };
    seen.set(e.entityType, e.entityName);
  }
  if (seen.has(IP)) {
    if (seen.size > 1) return { error: 'Invalid empty client quota entity' };
    const ip = seen.get(IP);
    if (ip !== null && ip !== undefined && !/^[0-9a-fA-F.:]+$/.test(ip)) return { error: `${ip} is not a valid IP or resolvable host.` };
    return { keys: IP_KEYS };
  }
  return { keys: CLIENT_KEYS };
}

/** Kafka's validateQuotaKeyValue: null or the INVALID_REQUEST message. */
export function validateQuotaValue(keys: Record<string, 'long' | 'double'>, key: string, value: number): string | null {
  const type = keys[key];
  if (!type) return `Invalid configuration key ${key}`;
  if (type === 'long' && Math.abs(Math.trunc(value + 1e-6) - value) > 1e-6) return `${key} cannot be a fractional value.`;
  return null;
}

/** The quota entities to try for (user, client id), most specific first (Kafka's precedence). */
function candidates(user: string, clientId: string): string[] {
  const e = (u: string | null | undefined, c: string | null | undefined): string => {
    const list: EntityData[] = [];
    if (u !== undefined) list.push({ entityType: USER, entityName: u });
    if (c !== undefined) list.push({ entityType: CLIENT_ID, entityName: c });
    return quotaEntityKey(list);
  };
  return [e(user, clientId), e(user, null), e(user, undefined), e(null, clientId), e(null, null), e(null, undefined), e(undefined, clientId), e(undefined, null)];
}

/** The user name of a principal (`User:alice` → alice), as Kafka's user quota entities name it. */
export function quotaUser(principal: string): string {
  const colon = principal.indexOf(':');
  return colon >= 0 ? principal.slice(colon + 1) : principal;
}

export class ClientQuotaManager {
  /** Whether any byte-rate quota exists (else the request path does nothing). */
  active = false;
  /** Whether any request_percentage quota exists (else dispatch takes no time stamps). */
  requestActive = false;
  /** Whether any controller_mutation_rate quota exists. */
  mutationActive = false;
  private readonly buckets = new Map<string, TokenBucket>();
  /** controller.quota.window.num x controller.quota.window.size.seconds, in seconds. */
  mutationBurstSeconds = 11;
  private readonly sensors = new Map<string, SampledRate>();
  private readonly resolved = new Map<string, { key: string; quota: number } | null>();
  private readonly throttles = new Map<number, number>();
  private readonly onChange = (c: MetadataChange) => {
    if (c.resynced || c.events.some((e) => e.kind === 'quota')) this.reload();
  };

  constructor(
    private readonly metadataCache: Pick<MetadataCache, 'quotas' | 'on' | 'off'>,
    private readonly samples: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {
    this.reload();
    metadataCache.on('change', this.onChange);
  }

  reload(): void {
    this.resolved.clear();
    let active = false;
    let requestActive = false;
    let mutationActive = false;
    for (const q of this.metadataCache.quotas.values()) {
      if ('producer_byte_rate' in q.values || 'consumer_byte_rate' in q.values) active = true;
      if ('request_percentage' in q.values) requestActive = true;
      if ('controller_mutation_rate' in q.values) mutationActive = true;
    }
    this.active = active;
    this.requestActive = requestActive;
    this.mutationActive = mutationActive;
  }

  close(): void {
    this.metadataCache.off('change', this.onChange);
  }

  private quotaFor(type: QuotaKey, user: string, clientId: string): { key: string; quota: number } | null {
    const memo = `${type}\u0000${user}\u0000${clientId}`;
    const hit = this.resolved.get(memo);
    if (hit !== undefined) return hit;
    let found: { key: string; quota: number } | null = null;
    for (const key of candidates(user, clientId)) {
      const q: ClientQuotaRecord | undefined = this.metadataCache.quotas.get(key);
      const v = q?.values[type];
      if (v !== undefined) {
        found = { key: `${type}\u0000${key}`, quota: v };
        break;
      }
    }
    if (this.resolved.size > 10_000) this.resolved.clear();
    this.resolved.set(memo, found);
    return found;
  }

  /**
   * Records `bytes` for the connection's (principal, client id) and returns the throttle time in
   * ms (0 when within its quota or without one). `countIfThrottled` false: a throttled amount is
   * taken back (a throttled Fetch returns no data).
   */
  record(type: QuotaKey, principal: string, clientId: string | null, bytes: number, countIfThrottled = true): number {
    const q = this.quotaFor(type, quotaUser(principal), clientId ?? '');
    if (q === null) return 0;
    const now = this.clock.now();
    let sensor = this.sensors.get(q.key);
    if (!sensor) this.sensors.set(q.key, (sensor = new SampledRate(this.samples, this.windowMs, now)));
    sensor.record(bytes, now);
    const { rate, windowMs } = sensor.measure(now);
    if (rate <= q.quota) return 0;
    if (!countIfThrottled) sensor.record(-bytes, now);
    const quota = Math.max(q.quota, 1e-9);
    return Math.min(Math.round(((rate - quota) / quota) * windowMs), this.windowMs);
  }

  /**
   * Records a handler's time against request_percentage; returns the throttle time (0 within the
   * quota). The amount is a percentage of a second per second: `ms` / 10.
   */
  recordRequestTime(apiKey: number, principal: string, clientId: string | null, ms: number): number {
    if (REQUEST_TIME_EXEMPT.has(apiKey)) return 0;
    return this.record('request_percentage', principal, clientId, ms / 10);
  }

  /**
   * controller_mutation_rate for `partitions` mutations (Kafka's ControllerMutationQuota):
   * `strict`, refused (`accepted` false) while the bucket is below zero; otherwise spent. Returns
   * the throttle time: the time the bucket needs to refill to zero.
   */
  mutate(principal: string, clientId: string | null, partitions: number, strict: boolean): { accepted: boolean; throttleMs: number } {
    const q = this.mutationActive ? this.quotaFor('controller_mutation_rate', quotaUser(principal), clientId ?? '') : null;
    if (q === null) return { accepted: true, throttleMs: 0 };
    const now = this.clock.now();
    let bucket = this.buckets.get(q.key);
    // A new quota value starts a new bucket (full at the new burst).
    if (!bucket || bucket.burst !== q.quota * this.mutationBurstSeconds) this.buckets.set(q.key, (bucket = new TokenBucket(q.quota * this.mutationBurstSeconds, now)));
    const rate = Math.max(q.quota, 1e-9);
    const before = bucket.refill(q.quota, now);
    if (strict && before < 0) return { accepted: false, throttleMs: Math.round((-before / rate) * 1000) };
    bucket.spend(partitions);
    const after = bucket.refill(q.quota, now);
    return { accepted: true, throttleMs: after < 0 && !strict ? Math.round((-after / rate) * 1000) : 0 };
  }

  /** The throttle a strict mutation request answers with: the time to refill to zero (0 when not below). */
  mutationThrottle(principal: string, clientId: string | null): number {
    const q = this.mutationActive ? this.quotaFor('controller_mutation_rate', quotaUser(principal), clientId ?? '') : null;
    const bucket = q ? this.buckets.get(q.key) : undefined;
    if (!q || !bucket) return 0;
    const tokens = bucket.refill(q.quota, this.clock.now());
    return tokens < 0 ? Math.round((-tokens / Math.max(q.quota, 1e-9)) * 1000) : 0;
  }

  /**
   * A byte quota of a request (producer_byte_rate, consumer_byte_rate): records `bytes`, mutes the
   * connection for the throttle time above the quota, and returns it (0 when inactive or within).
   */
  recordAndThrottle(type: QuotaKey, principal: string, clientId: string | null, connectionId: number, bytes: number, countIfThrottled = true): number {
    if (!this.active) return 0;
    const ms = this.record(type, principal, clientId, bytes, countIfThrottled);
    if (ms > 0) this.throttle(connectionId, ms);
    return ms;
  }

  /** Mutes the connection for `ms` after its current response (the connection asks takeThrottle). */
  throttle(connectionId: number, ms: number): void {
    if (ms > 0) this.throttles.set(connectionId, Math.max(ms, this.throttles.get(connectionId) ?? 0));
  }

  /** The mute the connection owes after the response it just wrote (0: none). */
  takeThrottle(connectionId: number): number {
    if (this.throttles.size === 0) return 0;
    const ms = this.throttles.get(connectionId) ?? 0;
    this.throttles.delete(connectionId);
    return ms;
  }
}

/** One DescribeClientQuotas filter component, as the request carries it. */
export interface QuotaFilterComponent {
  entityType: string;
  /** 0 EXACT (match), 1 DEFAULT, 2 ANY. */
  matchType: number;
  match: string | null;
}

/** Kafka's ClientQuotasImage.describe: the matching entities, or the error to answer. */
export function describeQuotas(
  all: Iterable<ClientQuotaRecord>, components: readonly QuotaFilterComponent[], strict: boolean,
): { entries: ClientQuotaRecord[] } | { errorCode: number; message: string } {
  const exact = new Map<string, string | null>();
  const anyOf = new Set<string>();
  for (const c of components) {
    if (c.entityType === '') return { errorCode: 42, message: 'Invalid empty entity type.' };
    if (exact.has(c.entityType) || anyOf.has(c.entityType)) {
      return { errorCode: 42, message: `Entity type ${c.entityType} cannot appear more than once in the filter.` };
    }
    if (c.entityType !== USER && c.entityType !== CLIENT_ID && c.entityType !== IP) {
      return { errorCode: 35, message: `Unsupported entity type ${c.entityType}` };
    }
    if (c.matchType === 0) exact.set(c.entityType, c.match);
    else if (c.matchType === 1) exact.set(c.entityType, null);
    else if (c.matchType === 2) anyOf.add(c.entityType);
    else return { errorCode: 42, message: `Unexpected match type: ${c.matchType}` };
  }
  const hasType = (t: string) => exact.has(t) || anyOf.has(t);
  if (hasType(IP) && (hasType(USER) || hasType(CLIENT_ID))) {
    return { errorCode: 42, message: 'Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.' };
  }
  const entries: ClientQuotaRecord[] = [];
  for (const q of all) {
    const names = new Map(q.entity.map((e) => [e.entityType, e.entityName]));
    if (strict && names.size !== exact.size + anyOf.size) continue;
    let ok = true;
    for (const [t, n] of exact) if (!names.has(t) || names.get(t) !== n) ok = false;
    for (const t of anyOf) if (!names.has(t)) ok = false;
    if (ok) entries.push(q);
  }
  return { entries };
}

/** The message a topic refused by controller_mutation_rate carries: none, as in Kafka 4.4. */
export const THROTTLING_QUOTA_EXCEEDED_MESSAGE = null;

/**
 * A request's controller mutations (CreateTopics, CreatePartitions, DeleteTopics): `admit` asks
 * for each topic's partitions (false: answer THROTTLING_QUOTA_EXCEEDED), `finish` mutes the
 * connection and returns the response's throttle_time_ms. Nothing is counted on a request another
 * broker forwarded (its receiving broker counted it) or without such a quota.
 */
export function mutationQuota(ctx: { broker: { quotas?: ClientQuotaManager }; principal: string; clientId: string | null; connectionId: number }, strict: boolean, skip: boolean) {
  const q = ctx.broker.quotas;
  let throttle = 0;
  const on = !!q?.mutationActive && !skip;
  return {
    admit(partitions: number): boolean {
      if (!on) return true;
      const m = q!.mutate(ctx.principal, ctx.clientId, partitions, strict);
      throttle = Math.max(throttle, m.throttleMs);
      return m.accepted;
    },
    finish(): number {
      if (on && throttle > 0) q!.throttle(ctx.connectionId, throttle);
      return throttle;
    },
  };
}
