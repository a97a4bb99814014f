/**
 * StandardAuthorizer decisions (Kafka's StandardAuthorizerData rules): super users, literal,
 * wildcard and prefixed patterns, User:* and host matching, DENY over ALLOW, implied DESCRIBE /
 * DESCRIBE_CONFIGS (ALLOW only), allow.everyone.if.no.acl.found, authorizeByResourceType, filters,
 * and the decision memo forgotten on ACL changes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventEmitter } from 'node:events';
import { StandardAuthorizer, clientHost, parseSuperUsers } from '../../src/security/authorizer.js';
import {
  AclOperation as Op, AclPermissionType as Perm, PatternType as Pat, ResourceType as Res, filterMatches, hasUnknown, normalizeBinding,
  validateNewAcl, type AclBinding,
} from '../../src/protocol/acl.js';

class FakeCache extends EventEmitter {
  readonly acls = new Map<string, AclBinding>();
  private next = 0;
  add(...bindings: AclBinding[]): void {
    for (const b of bindings) this.acls.set(String(this.next++), b);
    this.emit('change', { events: bindings.map(() => ({ kind: 'acl' })), resynced: false });
  }
  clear(): void {
    this.acls.clear();
    this.emit('change', { events: [{ kind: 'acl' }], resynced: false });
  }
}

function acl(resourceType: number, resourceName: string, patternType: number, principal: string, operation: number, permissionType: number, host = '*'): AclBinding {
  return { resourceType, resourceName, patternType, principal, host, operation, permissionType };
}

function setup(opts: { superUsers?: string; allowIfNone?: boolean } = {}) {
  const cache = new FakeCache();
  const auth = new StandardAuthorizer(parseSuperUsers(opts.superUsers ?? ''), opts.allowIfNone ?? false, cache as never);
  const can = (principal: string, op: number, name: string, type: number = Res.TOPIC, host = '127.0.0.1') => auth.authorize(principal, `${host}:50000`, op, type, name);
  return { cache, auth, can };
}

test('no ACLs: denied unless allow.everyone.if.no.acl.found; super users always', () => {
  const { can } = setup({ superUsers: 'User:admin; User:ops' });
  assert.is(can('User:alice', Op.READ, 't'), false);
  assert.is(can('User:admin', Op.READ, 't'), true);
  assert.is(can('User:ops', Op.ALTER, 'kafka-cluster', Res.CLUSTER), true);
  const open = setup({ allowIfNone: true });
  assert.is(open.can('User:alice', Op.READ, 't'), true);
});

test('allow.everyone applies only where no ACL covers the resource', () => {
  const { cache, can } = setup({ allowIfNone: true });
  cache.add(acl(Res.TOPIC, 'secret', Pat.LITERAL, 'User:bob', Op.READ, Perm.ALLOW));
  assert.is(can('User:alice', Op.READ, 'secret'), false);
  assert.is(can('User:bob', Op.READ, 'secret'), true);
  assert.is(can('User:alice', Op.READ, 'public'), true);
});

test('literal, wildcard and prefixed patterns; User:*; hosts', () => {
  const { cache, can } = setup();
  cache.add(
    acl(Res.TOPIC, 'orders', Pat.LITERAL, 'User:alice', Op.READ, Perm.ALLOW),
    acl(Res.TOPIC, 'pay-', Pat.PREFIXED, 'User:alice', Op.WRITE, Perm.ALLOW),
    acl(Res.TOPIC, '*', Pat.LITERAL, 'User:*', Op.DESCRIBE, Perm.ALLOW),
    acl(Res.GROUP, 'g', Pat.LITERAL, 'User:alice', Op.READ, Perm.ALLOW, '10.0.0.1'),
  );
  assert.is(can('User:alice', Op.READ, 'orders'), true);
  assert.is(can('User:alice', Op.READ, 'orders2'), false);
  assert.is(can('User:alice', Op.WRITE, 'pay-eu'), true);
  assert.is(can('User:alice', Op.WRITE, 'pay'), false);
  assert.is(can('User:carol', Op.DESCRIBE, 'anything'), true);
  assert.is(can('User:carol', Op.READ, 'anything'), false);
  assert.is(can('User:alice', Op.READ, 'g', Res.GROUP, '10.0.0.1'), true);
  assert.is(can('User:alice', Op.READ, 'g', Res.GROUP, '10.0.0.2'), false);
  // IPv4-mapped IPv6 addresses compare as IPv4.
  assert.is(can('User:alice', Op.READ, 'g', Res.GROUP, '::ffff:10.0.0.1'), true);
  assert.is(clientHost('::ffff:127.0.0.1:4242'), '127.0.0.1');
  assert.is(clientHost('::1:4242'), '::1');
  assert.is(clientHost('10.1.2.3:4242'), '10.1.2.3');
});

test('DENY wins over ALLOW, wherever it comes from; DENY READ does not deny DESCRIBE', () => {
  const { cache, can } = setup();
  cache.add(
    acl(Res.TOPIC, '*', Pat.LITERAL, 'User:alice', Op.ALL, Perm.ALLOW),
    acl(Res.TOPIC, 'hr-', Pat.PREFIXED, 'User:alice', Op.READ, Perm.DENY),
    acl(Res.TOPIC, 'audit', Pat.LITERAL, 'User:*', Op.ALL, Perm.DENY),
  );
  assert.is(can('User:alice', Op.READ, 'sales'), true);
  assert.is(can('User:alice', Op.READ, 'hr-pay'), false);
  assert.is(can('User:alice', Op.DESCRIBE, 'hr-pay'), true);
  assert.is(can('User:alice', Op.WRITE, 'hr-pay'), true);
  assert.is(can('User:alice', Op.DESCRIBE, 'audit'), false);
});

test('implied operations: READ/WRITE/DELETE/ALTER imply DESCRIBE, ALTER_CONFIGS implies DESCRIBE_CONFIGS', () => {
  const { cache, can } = setup();
  cache.add(
    acl(Res.TOPIC, 'r', Pat.LITERAL, 'User:a', Op.READ, Perm.ALLOW),
    acl(Res.TOPIC, 'w', Pat.LITERAL, 'User:a', Op.WRITE, Perm.ALLOW),
    acl(Res.TOPIC, 'd', Pat.LITERAL, 'User:a', Op.DELETE, Perm.ALLOW),
    acl(Res.TOPIC, 'al', Pat.LITERAL, 'User:a', Op.ALTER, Perm.ALLOW),
    acl(Res.TOPIC, 'ac', Pat.LITERAL, 'User:a', Op.ALTER_CONFIGS, Perm.ALLOW),
    acl(Res.TOPIC, 'c', Pat.LITERAL, 'User:a', Op.CREATE, Perm.ALLOW),
  );
  for (const n of ['r', 'w', 'd', 'al']) assert.is(can('User:a', Op.DESCRIBE, n), true, n);
  assert.is(can('User:a', Op.DESCRIBE, 'c'), false);
  assert.is(can('User:a', Op.DESCRIBE_CONFIGS, 'ac'), true);
  assert.is(can('User:a', Op.DESCRIBE, 'ac'), false);
  assert.is(can('User:a', Op.READ, 'w'), false);
});

test('decisions are memoised and forgotten when the ACLs change', () => {
  const { cache, can } = setup();
  assert.is(can('User:a', Op.READ, 't'), false);
  cache.add(acl(Res.TOPIC, 't', Pat.LITERAL, 'User:a', Op.READ, Perm.ALLOW));
  assert.is(can('User:a', Op.READ, 't'), true);
  cache.clear();
  assert.is(can('User:a', Op.READ, 't'), false);
});

test('authorizeByResourceType: some topic writable, unless a wildcard or covering DENY takes it back', () => {
  const { cache, auth } = setup();
  const byType = (p: string) => auth.authorizeByResourceType(p, '127.0.0.1:1', Op.WRITE, Res.TOPIC);
  assert.is(byType('User:a'), false);
  cache.add(acl(Res.TOPIC, 'logs-', Pat.PREFIXED, 'User:a', Op.WRITE, Perm.ALLOW));
  assert.is(byType('User:a'), true);
  cache.add(acl(Res.TOPIC, 'log', Pat.PREFIXED, 'User:a', Op.WRITE, Perm.DENY));
  assert.is(byType('User:a'), false);
  cache.add(acl(Res.TOPIC, 'x', Pat.LITERAL, 'User:a', Op.WRITE, Perm.ALLOW));
  assert.is(byType('User:a'), true);
  cache.add(acl(Res.TOPIC, '*', Pat.LITERAL, 'User:a', Op.WRITE, Perm.DENY));
  assert.is(byType('User:a'), false);
  assert.is(setup({ allowIfNone: true }).auth.authorizeByResourceType('User:z', '127.0.0.1', Op.WRITE, Res.TOPIC), true);
});

test('filters: ANY, MATCH, LITERAL, PREFIXED; UNKNOWN codes; validation messages', () => {
  const lit = acl(Res.TOPIC, 'orders', Pat.LITERAL, 'User:a', Op.READ, Perm.ALLOW);
  const pre = acl(Res.TOPIC, 'ord', Pat.PREFIXED, 'User:a', Op.READ, Perm.ALLOW);
  const wild = acl(Res.TOPIC, '*', Pat.LITERAL, 'User:a', Op.READ, Perm.ALLOW);
  const f = (resourceName: string | null, patternType: number) => ({
    resourceType: Res.ANY, resourceName, patternType, principal: null, host: null, operation: Op.ANY, permissionType: Perm.ANY,
  });
  assert.equal([lit, pre, wild].map((b) => filterMatches(f('orders', Pat.MATCH), b)), [true, true, true]);
  assert.equal([lit, pre, wild].map((b) => filterMatches(f('orders', Pat.ANY), b)), [true, false, false]);
  assert.equal([lit, pre, wild].map((b) => filterMatches(f('ord', Pat.PREFIXED), b)), [false, true, false]);
  assert.equal([lit, pre, wild].map((b) => filterMatches(f(null, Pat.LITERAL), b)), [true, false, true]);
  assert.is(hasUnknown({ ...lit, operation: 0 }), true);
  assert.is(hasUnknown({ ...lit, operation: 99 }), false);
  assert.is(normalizeBinding({ ...lit, operation: 99 }).operation, Op.UNKNOWN);
  assert.is(hasUnknown(lit), false);
  assert.equal(validateNewAcl({ ...lit, resourceType: Res.CLUSTER }), { errorCode: 42, message: 'The only valid name for the CLUSTER resource is kafka-cluster' });
  assert.equal(validateNewAcl({ ...lit, patternType: Pat.MATCH }), { errorCode: -1, message: null });
  assert.equal(validateNewAcl({ ...lit, operation: Op.ANY }), { errorCode: -1, message: null });
  assert.equal(validateNewAcl(normalizeBinding({ ...lit, operation: 99 })), { errorCode: 42, message: 'Invalid operation UNKNOWN' });
  assert.equal(validateNewAcl({ ...lit, resourceName: '' }), { errorCode: 42, message: 'Invalid empty resource name' });
  assert.is(validateNewAcl(lit), null);
});

test.run();
