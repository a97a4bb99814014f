/**
 * The delegation token manager without sockets, on the local metadata store and a manual clock:
 * the HMAC against an independent implementation (Python's hmac), Kafka 4.4's arithmetic of
 * lifetimes, renewals and expiries with its errors in its order, the describe filter, SCRAM
 * tokenauth logins through the SCRAM server, the expiry sweep (and a renewal that overtakes
 * it), and tokens surviving a restart of the store.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { LocalMetadataStore } from '../../src/cluster/local-metadata-store.js';
import type { DelegationTokenRecord } from '../../src/cluster/delegation-tokens.js';
import { DelegationTokenManager, filterToken, wireTimestamp, type DelegationTokenStore } from '../../src/security/delegation-token-manager.js';
import { ScramServer } from '../../src/security/sasl/scram.js';
import { saslClient } from '../../src/security/sasl/client.js';
import { SaslError } from '../../src/security/sasl/mechanism.js';
import { tmpDir } from '../support/tmp.js';

const logger = createLogger('silent');
const DAY = 86_400_000;
const alice = { principalType: 'User', name: 'alice' };
const bob = { principalType: 'User', name: 'bob' };
const carol = { principalType: 'User', name: 'carol' };

function manager(opts: { secret?: string | null; maxLifetime?: number; expiryTime?: number; store?: DelegationTokenStore; clock?: ManualClock } = {}) {
  const clock = opts.clock ?? new ManualClock();
  const store = opts.store ?? new LocalMetadataStore(null);
  const m = new DelegationTokenManager({
    settings: {
      'delegation.token.secret.key': opts.secret === undefined ? 'kafka-secret' : opts.secret,
      'delegation.token.max.lifetime.ms': opts.maxLifetime ?? 7 * DAY,
      'delegation.token.expiry.time.ms': opts.expiryTime ?? DAY,
      'delegation.token.expiry.check.interval.ms': 3_600_000,
    },
    store, fence: () => undefined as never, clock, logger,
  });
  return { m, clock, store };
}

async function created(m: DelegationTokenManager, owner = alice, renewers = [bob], maxLifetimeMs = -1) {
  const r = await m.createToken(owner, owner, renewers, maxLifetimeMs);
  assert.is(r.errorCode, 0);
  return r.token!;
}

test('the HMAC is HMAC-SHA512 of the token id under the secret key (vector from Python\'s hmac module)', () => {
  const { m } = manager();
  assert.is(m.hmac('g0gHcX9FQVqx4nvuchlXZw').toString('hex'),
    'a474317127425d8c92d7877257cba9f98ea15d1b6cae3e42d07216e59fd8fa16b62fa267b63b7557a484971fd0721206bf5d29042b4fd0596fc409813512043c');
});

test('no secret key, or an empty one: disabled, every operation DELEGATION_TOKEN_AUTH_DISABLED', async () => {
  for (const secret of [null, '']) {
    const { m } = manager({ secret });
    assert.not.ok(m.isEnabled);
    assert.equal(await m.createToken(alice, alice, [], -1), { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, token: null });
    assert.equal(await m.renewToken(alice, Buffer.alloc(64), -1), { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, expiryTimestampMs: 0 });
    assert.equal(await m.expireToken(alice, Buffer.alloc(64), -1), { errorCode: ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, expiryTimestampMs: 0 });
    assert.equal(await m.tokens(() => true), []);
    assert.is(await m.tokenCredential('x', 'SCRAM-SHA-256'), null);
  }
});

test('create: issue now, maximum now + min(requested > 0, max lifetime), expiry now + expiry time capped at the maximum', async () => {
  const { m, clock } = manager();
  const now = clock.now();
  const t = await created(m);
  assert.equal([t.info.issueTimestamp, t.info.maxTimestamp, t.info.expirationTimestamp], [now, now + 7 * DAY, now + DAY]);
  assert.equal([t.info.owner, t.info.tokenRequester, t.info.renewers], [alice, alice, [bob]]);
  assert.equal(t.hmac, m.hmac(t.info.tokenId));
  const short = await created(m, alice, [], 3_600_000);
  assert.equal([short.info.maxTimestamp, short.info.expirationTimestamp], [now + 3_600_000, now + 3_600_000]);
  const longer = await created(m, alice, [], 30 * DAY);
  assert.is(longer.info.maxTimestamp, now + 7 * DAY, 'never past the setting');
  assert.equal(await m.createToken(alice, alice, [{ principalType: 'Group', name: 'g' }], -1), { errorCode: ErrorCode.INVALID_PRINCIPAL_TYPE, token: null });
  assert.equal(t.info.scramCredentials.map((c) => [c.user, c.mechanism, c.iterations]), [[t.info.tokenId, 'SCRAM-SHA-256', 4096], [t.info.tokenId, 'SCRAM-SHA-512', 4096]]);
});

test('lifetimes saturate at Long.MAX_VALUE on the wire, as Kafka\'s sum does', async () => {
  const { m } = manager({ maxLifetime: 2 ** 63, expiryTime: 2 ** 63 });
  const t = await created(m);
  assert.equal([wireTimestamp(t.info.maxTimestamp), wireTimestamp(t.info.expirationTimestamp)], [0x7fffffffffffffffn, 0x7fffffffffffffffn]);
  assert.is(wireTimestamp(t.info.issueTimestamp), BigInt(t.info.issueTimestamp));
});

test('renew: NOT_FOUND, then EXPIRED, then OWNER_MISMATCH; owner or renewer; now + min(period > 0, expiry time), capped at the maximum', async () => {
  const { m, clock } = manager({ maxLifetime: 3 * DAY });
  const t = await created(m);
  assert.equal(await m.renewToken(alice, Buffer.alloc(64, 9), 1000), { errorCode: ErrorCode.DELEGATION_TOKEN_NOT_FOUND, expiryTimestampMs: 0 });
  assert.equal(await m.renewToken(carol, t.hmac, 1000), { errorCode: ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH, expiryTimestampMs: 0 });
  clock.advance(1000);
  assert.equal(await m.renewToken(bob, t.hmac, 5000), { errorCode: 0, expiryTimestampMs: clock.now() + 5000 });
  assert.equal(await m.renewToken(alice, t.hmac, 10 * DAY), { errorCode: 0, expiryTimestampMs: clock.now() + DAY }, 'capped by the expiry time');
  assert.equal(await m.renewToken(alice, t.hmac, 0), { errorCode: 0, expiryTimestampMs: clock.now() + DAY }, '0: the expiry time');
  for (let i = 0; i < 2; i++) {
    clock.advance(20 * 3_600_000);
    assert.equal(await m.renewToken(alice, t.hmac, -1), { errorCode: 0, expiryTimestampMs: clock.now() + DAY });
  }
  clock.advance(20 * 3_600_000);
  assert.equal(await m.renewToken(alice, t.hmac, -1), { errorCode: 0, expiryTimestampMs: t.info.maxTimestamp }, 'never past the maximum');
  clock.advance(t.info.maxTimestamp - clock.now() + 1);
  assert.equal(await m.renewToken(carol, t.hmac, -1), { errorCode: ErrorCode.DELEGATION_TOKEN_EXPIRED, expiryTimestampMs: 0 }, 'expired before the owner check');
});

test('expire: NOT_FOUND, OWNER_MISMATCH, negative removes (even expired, answering now), else EXPIRED or now + period capped', async () => {
  const { m, clock } = manager();
  const t = await created(m);
  assert.is((await m.expireToken(alice, Buffer.alloc(64, 9), -1)).errorCode, ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
  assert.is((await m.expireToken(carol, t.hmac, -1)).errorCode, ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
  assert.equal(await m.expireToken(bob, t.hmac, 60_000), { errorCode: 0, expiryTimestampMs: clock.now() + 60_000 });
  assert.equal(await m.expireToken(alice, t.hmac, 30 * DAY), { errorCode: 0, expiryTimestampMs: t.info.maxTimestamp }, 'capped at the maximum: expire may also lengthen');
  assert.equal(await m.expireToken(alice, t.hmac, 0), { errorCode: 0, expiryTimestampMs: clock.now() });
  clock.advance(1);
  assert.equal(await m.expireToken(alice, t.hmac, 10), { errorCode: ErrorCode.DELEGATION_TOKEN_EXPIRED, expiryTimestampMs: 0 });
  assert.is((await m.tokens(() => true)).length, 1, 'still there, expired');
  assert.equal(await m.expireToken(alice, t.hmac, -5), { errorCode: 0, expiryTimestampMs: clock.now() });
  assert.equal(await m.tokens(() => true), []);
});

test('filterToken: the owners filter (owner, requester or renewer), then the caller\'s own, DESCRIBE on the token, DESCRIBE_TOKENS on the owner', () => {
  const t = { tokenId: 'tid', owner: alice, tokenRequester: carol, renewers: [bob] } as DelegationTokenRecord;
  const no = () => false;
  const yes = () => true;
  const dave = { principalType: 'User', name: 'dave' };
  assert.ok(filterToken(alice, null, t, no, no));
  assert.ok(filterToken(bob, null, t, no, no), 'a renewer');
  assert.ok(filterToken(carol, null, t, no, no), 'the requester');
  assert.not.ok(filterToken(dave, null, t, no, no));
  assert.ok(filterToken(dave, null, t, (id) => id === 'tid', no), 'DESCRIBE on the DelegationToken resource');
  assert.ok(filterToken(dave, null, t, no, (o) => o.name === 'alice'), 'DESCRIBE_TOKENS on the owner');
  assert.ok(filterToken(dave, [bob], t, yes, no), 'owners match renewers too');
  assert.not.ok(filterToken(alice, [dave], t, yes, yes), 'a token of other owners is never listed');
  assert.not.ok(filterToken(alice, [{ principalType: 'Group', name: 'alice' }], t, yes, yes), 'principal type counts');
});

test('SCRAM tokenauth=true: the token id logs in with the base64 HMAC; the principal is the owner, token-authenticated, expiring with the token', async () => {
  const { m } = manager();
  const t = await created(m, { principalType: 'User', name: 'a,b=c' });
  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const) {
    const server = new ScramServer(mechanism, async () => null, undefined, (id, mech) => m.tokenCredential(id, mech));
    const client = saslClient({ mechanism, username: t.info.tokenId, password: t.hmac.toString('base64'), tokenauth: true });
    assert.is(client.respond(await server.evaluate(client.respond(await server.evaluate(client.initial()))!)), null);
    assert.equal([server.complete, server.authorizationId, server.tokenAuthenticated, server.credentialExpiresAtMs], [true, 'a,b=c', true, t.info.expirationTimestamp]);
  }
  const wrong = new ScramServer('SCRAM-SHA-512', async () => null, undefined, (id, mech) => m.tokenCredential(id, mech));
  const bad = saslClient({ mechanism: 'SCRAM-SHA-512', username: t.info.tokenId, password: Buffer.alloc(64).toString('base64'), tokenauth: true });
  await wrong.evaluate(bad.respond(await wrong.evaluate(bad.initial()))!).then(() => assert.unreachable(), (e) => assert.instance(e, SaslError));
  const unknown = new ScramServer('SCRAM-SHA-512', async () => null, undefined, (id, mech) => m.tokenCredential(id, mech));
  await unknown.evaluate(Buffer.from('n,,n=nope,r=abc,tokenauth=TRUE')).then(() => assert.unreachable(), (e: Error) => {
    assert.instance(e, SaslError);
    assert.is(e.message, 'Token Authentication failed: Invalid tokenId : nope');
  });
  const asUser = new ScramServer('SCRAM-SHA-512', async () => t.info.scramCredentials[1]!);
  const plain = saslClient({ mechanism: 'SCRAM-SHA-512', username: t.info.tokenId, password: t.hmac.toString('base64') });
  await asUser.evaluate(plain.respond(await asUser.evaluate(plain.initial()))!);
  assert.equal([asUser.authorizationId, asUser.tokenAuthenticated], [t.info.tokenId, false], 'without tokenauth the name is a user name');
});

test('the expiry sweep removes tokens past their expiry or maximum, only on the active controller, every check interval', async () => {
  const { m, clock } = manager();
  const live = await created(m);
  const dying = await created(m);
  assert.is((await m.expireToken(alice, dying.hmac, 1000)).errorCode, 0);
  let controller = false;
  m.startExpirySweep(() => controller);
  clock.advance(3_600_000);
  await new Promise((r) => setImmediate(r));
  assert.is((await m.tokens(() => true)).length, 2, 'not the controller: nothing removed');
  controller = true;
  clock.advance(3_600_000);
  for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
  assert.equal((await m.tokens(() => true)).map((t) => t.info.tokenId), [live.info.tokenId]);
  m.stopExpirySweep();
  assert.is(await m.tokenCredential(dying.info.tokenId, 'SCRAM-SHA-256'), null, 'a removed token no longer logs in');
});

test('changes are compare-and-set on the version: a renewal on a broker whose clock lags wins over the sweep, a removal over a renewal', async () => {
  const store = new LocalMetadataStore(null);
  let between: (() => Promise<void>) | null = null;
  const racing: DelegationTokenStore = {
    readDelegationToken: (id) => store.readDelegationToken(id),
    writeDelegationToken: (...a) => store.writeDelegationToken(...a),
    async listDelegationTokens() {
      const list = await store.listDelegationTokens();
      const hook = between;
      between = null;
      await hook?.();
      return list;
    },
  };
  const { m, clock } = manager({ store: racing });
  const laggingClock = new ManualClock(clock.now());
  const other = manager({ store, clock: laggingClock }).m;
  const t = await created(m);
  clock.advance(DAY + 1);
  laggingClock.advance(DAY - 1);
  between = async () => void assert.equal(await other.renewToken(alice, t.hmac, -1), { errorCode: 0, expiryTimestampMs: laggingClock.now() + DAY });
  assert.is(await m.removeExpiredTokens(), 0, 'the sweep read an expired token, but it was renewed before the removal');
  assert.equal((await store.listDelegationTokens()).map((s) => s.token.tokenId), [t.info.tokenId]);
  between = async () => void assert.is((await other.renewToken(alice, t.hmac, 1000)).errorCode, 0);
  assert.equal(await m.renewToken(alice, t.hmac, 5000), { errorCode: 0, expiryTimestampMs: clock.now() + 5000 }, 'recomputed after the other renewal, not lost');
  between = async () => void assert.is((await other.expireToken(alice, t.hmac, -1)).errorCode, 0);
  assert.equal(await m.renewToken(alice, t.hmac, 5000), { errorCode: ErrorCode.DELEGATION_TOKEN_NOT_FOUND, expiryTimestampMs: 0 }, 'a removed token is not written back');
  assert.equal(await store.listDelegationTokens(), []);
});

test('the local store keeps tokens in samsa-metadata.json: after a restart they log in and renew with the same HMAC', async () => {
  const dir = tmpDir('dt-store');
  try {
    const first = manager({ store: new LocalMetadataStore(dir.path) });
    const t = await created(first.m);
    const again = manager({ store: new LocalMetadataStore(dir.path), clock: first.clock });
    const cred = await again.m.tokenCredential(t.info.tokenId, 'SCRAM-SHA-512');
    assert.equal([cred?.ownerName, cred?.expiryTimestampMs], ['alice', t.info.expirationTimestamp]);
    assert.is((await again.m.renewToken(bob, t.hmac, 1000)).errorCode, 0);
    assert.is((await again.store.writeDelegationToken(t.info.tokenId, null, 1)), false, 'a stale version writes nothing');
  } finally {
    await dir.cleanup();
  }
});

test.run();
