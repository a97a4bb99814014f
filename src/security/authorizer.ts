/**
 * Kafka's StandardAuthorizer (org.apache.kafka.metadata.authorizer), enabled by
 * `authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer`.
 *
 * A decision for (principal, host, operation, resource):
 * - a principal listed in `super.users` is allowed everything;
 * - the ACLs that apply are those of the resource type whose pattern covers the name: LITERAL
 *   with the same name or "*", PREFIXED with a prefix of it; of those, the ones naming the
 *   principal or `User:*`, the host or "*", and the operation or ALL. An ALLOW ACL for READ,
 *   WRITE, DELETE or ALTER also allows DESCRIBE, one for ALTER_CONFIGS also DESCRIBE_CONFIGS
 *   (DENY ACLs deny only what they name);
 * - any DENY wins; else any ALLOW allows; else, when no ACL at all covers the resource,
 *   `allow.everyone.if.no.acl.found` decides (default false); else denied.
 * Hosts are compared as the client's IP address text (an IPv4-mapped IPv6 address as IPv4).
 *
 * ACLs live in the cluster metadata (the store's ACL section, watched by every broker's cache);
 * this class indexes the cache's ACLs, rebuilt on every ACL change, and memoises decisions per
 * (principal, host, resource type, operation, name) until the next change.
 */
import { randomUUID } from 'node:crypto';
import type { MetadataCache, MetadataChange } from '../cluster/metadata-cache.js';
import type { AuthorizerSettings } from '../config/authorizer-settings.js';
import {
  AclOperation, AclPermissionType, bindingKey, filterMatches, PatternType, WILDCARD, WILDCARD_PRINCIPAL,
  type AclBinding, type AclBindingFilter,
} from '../protocol/acl.js';

export const STANDARD_AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';

const IMPLIES_DESCRIBE = new Set<number>([AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER]);
const IMPLIES_DESCRIBE_CONFIGS = new Set<number>([AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS]);
/** Decisions kept before the memo starts over (bounded memory with many principals or hosts). */
const MAX_DECISIONS = 100_000;

interface TypeIndex {
  literal: Map<string, AclBinding[]>;
  prefixed: AclBinding[];
}

/** How an ACL applies to an action: null when it does not (resource name aside). */
function aclResult(acl: AclBinding, principal: string, host: string, op: number): boolean | null {
  if (acl.principal !== principal && acl.principal !== WILDCARD_PRINCIPAL) return null;
  if (acl.host !== WILDCARD && acl.host !== host) return null;
  const allow = acl.permissionType === AclPermissionType.ALLOW;
  if (acl.operation !== AclOperation.ALL) {
    if (allow && op === AclOperation.DESCRIBE) {
      if (!IMPLIES_DESCRIBE.has(acl.operation)) return null;
    } else if (allow && op === AclOperation.DESCRIBE_CONFIGS) {
      if (!IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return null;
    } else if (acl.operation !== op) {
      return null;
    }
  }
  return allow;
}

/**
 * The host an ACL is compared with, from a connection's `address:port` (RequestContext.remoteAddress):
 * the address as Kafka's InetAddress.getHostAddress() writes it, an IPv4-mapped IPv6 address as IPv4.
 */
export function clientHost(remoteAddress: string): string {
  const colon = remoteAddress.lastIndexOf(':');
  const address = colon > 0 ? remoteAddress.slice(0, colon) : remoteAddress;
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export function parseSuperUsers(text: string): Set<string> {
  return new Set(text.split(';').map((s) => s.trim()).filter((s) => s !== ''));
}

export class StandardAuthorizer {
  private index = new Map<number, TypeIndex>();
  private readonly decisions = new Map<string, boolean>();
  private byKey = new Map<string, string>();
  /** ACL writes from this broker, one at a time (de-duplication reads what the last one wrote). */
  private writes: Promise<unknown> = Promise.resolve();
  private readonly onChange = (c: MetadataChange) => {
    if (c.resynced || c.events.some((e) => e.kind === 'acl')) this.reload();
  };

  constructor(
    readonly superUsers: ReadonlySet<string>,
    readonly allowEveryoneIfNoAclFound: boolean,
    private readonly metadataCache: Pick<MetadataCache, 'acls' | 'on' | 'off'>,
  ) {
    this.reload();
    metadataCache.on('change', this.onChange);
  }

  /** The authorizer the configuration asks for, or null (every request allowed). */
  static fromConfig(config: AuthorizerSettings, metadataCache: MetadataCache): StandardAuthorizer | null {
    if (config['authorizer.class.name'] !== STANDARD_AUTHORIZER) return null;
    return new StandardAuthorizer(parseSuperUsers(String(config['super.users'] ?? '')), config['allow.everyone.if.no.acl.found'], metadataCache);
  }

  close(): void {
    this.metadataCache.off('change', this.onChange);
  }

  /** Re-indexes the cache's ACLs and forgets every memoised decision. */
  reload(): void {
    const index = new Map<number, TypeIndex>();
    const byKey = new Map<string, string>();
    for (const [id, acl] of this.metadataCache.acls) {
      byKey.set(bindingKey(acl), id);
      let t = index.get(acl.resourceType);
      if (!t) index.set(acl.resourceType, (t = { literal: new Map(), prefixed: [] }));
      if (acl.patternType === PatternType.PREFIXED) t.prefixed.push(acl);
      else {
        const list = t.literal.get(acl.resourceName);
        if (list) list.push(acl);
        else t.literal.set(acl.resourceName, [acl]);
      }
    }
    this.index = index;
    this.byKey = byKey;
    this.decisions.clear();
  }

  /** Whether `principal` connecting from `remoteAddress` may do `op` on the named resource. */
  authorize(principal: string, remoteAddress: string, op: number, resourceType: number, name: string): boolean {
    if (this.superUsers.has(principal)) return true;
    const host = clientHost(remoteAddress);
    const key = `${principal}\u0000${host}\u0000${resourceType}\u0000${op}\u0000${name}`;
    const memo = this.decisions.get(key);
    if (memo !== undefined) return memo;
    const result = this.decide(principal, host, op, resourceType, name);
    if (this.decisions.size >= MAX_DECISIONS) this.decisions.clear();
    this.decisions.set(key, result);
    return result;
  }

  private decide(principal: string, host: string, op: number, resourceType: number, name: string): boolean {
    const t = this.index.get(resourceType);
    if (!t) return this.allowEveryoneIfNoAclFound;
    let covered = false;
    let allowed = false;
    const consider = (list: readonly AclBinding[] | undefined): boolean => {
      if (!list) return false;
      for (const acl of list) {
        covered = true;
        const r = aclResult(acl, principal, host, op);
        if (r === false) return true;
        if (r === true) allowed = true;
      }
      return false;
    };
    if (consider(t.literal.get(name))) return false;
    if (name !== WILDCARD && consider(t.literal.get(WILDCARD))) return false;
    for (const acl of t.prefixed) {
      if (!name.startsWith(acl.resourceName)) continue;
      covered = true;
      const r = aclResult(acl, principal, host, op);
      if (r === false) return false;
      if (r === true) allowed = true;
    }
    if (allowed) return true;
    return covered ? false : this.allowEveryoneIfNoAclFound;
  }

  /**
   * Whether the principal may do `op` on at least one resource of the type (Kafka's
   * authorizeByResourceType: e.g. InitProducerId without a transactional id needs WRITE on some
   * topic). An ALLOW on a literal name or prefix counts unless a DENY on "*", the same name or a
   * covering prefix takes it back.
   */
  authorizeByResourceType(principal: string, remoteAddress: string, op: number, resourceType: number): boolean {
    if (this.superUsers.has(principal)) return true;
    if (this.authorize(principal, remoteAddress, op, resourceType, 'hardcode')) return true;
    const host = clientHost(remoteAddress);
    const t = this.index.get(resourceType);
    if (!t) return false;
    const all = [...[...t.literal.values()].flat(), ...t.prefixed];
    const applies = (a: AclBinding) =>
      (a.principal === principal || a.principal === WILDCARD_PRINCIPAL) && (a.host === WILDCARD || a.host === host) &&
      (a.operation === op || a.operation === AclOperation.ALL);
    const denies = all.filter((a) => a.permissionType === AclPermissionType.DENY && applies(a));
    if (denies.some((d) => d.patternType === PatternType.LITERAL && d.resourceName === WILDCARD)) return false;
    for (const a of all) {
      if (a.permissionType !== AclPermissionType.ALLOW || !applies(a)) continue;
      const takenBack = denies.some((d) =>
        d.patternType === PatternType.PREFIXED ? a.resourceName.startsWith(d.resourceName) : a.patternType === PatternType.LITERAL && d.resourceName === a.resourceName);
      if (!takenBack) return true;
    }
    return false;
  }

  /** The ACLs a filter matches (DescribeAcls). */
  acls(filter: AclBindingFilter): AclBinding[] {
    const out: AclBinding[] = [];
    for (const acl of this.metadataCache.acls.values()) if (filterMatches(filter, acl)) out.push(acl);
    return out;
  }

  /**
   * Adds the ACLs not stored yet (an existing identical ACL is a success, as in Kafka) through
   * `write`, which stores the change and waits until this broker's cache shows it.
   */
  createAcls(bindings: readonly AclBinding[], write: (add: Map<string, AclBinding>, remove: string[]) => Promise<void>): Promise<void> {
    return this.serial(async () => {
      const add = new Map<string, AclBinding>();
      const seen = new Set<string>();
      for (const b of bindings) {
        const k = bindingKey(b);
        if (this.byKey.has(k) || seen.has(k)) continue;
        seen.add(k);
        add.set(randomUUID(), { ...b });
      }
      if (add.size > 0) await write(add, []);
    });
  }

  /** Removes every ACL any filter matches; returns the matches per filter (DeleteAcls). */
  deleteAcls(filters: readonly AclBindingFilter[], write: (add: Map<string, AclBinding>, remove: string[]) => Promise<void>): Promise<AclBinding[][]> {
    return this.serial(async () => {
      const matched = filters.map(() => [] as AclBinding[]);
      const remove = new Set<string>();
      for (const [id, acl] of this.metadataCache.acls) {
        filters.forEach((f, i) => {
          if (!filterMatches(f, acl)) return;
          matched[i].push(acl);
          remove.add(id);
        });
      }
      if (remove.size > 0) await write(new Map(), [...remove]);
      return matched;
    });
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.writes.then(fn, fn);
    this.writes = run.catch(() => undefined);
    return run;
  }
}
