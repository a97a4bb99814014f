/**
 * The delegation token APIs (keys 38-41) over real sockets with Samsa's own client: which channels
 * may ask (PLAINTEXT, 1-way SSL and token-authenticated connections may not), the secret key,
 * create / describe / renew / expire with Kafka's errors and timestamps, creating for another
 * owner (CREATE_TOKENS), who sees which token (DESCRIBE, DESCRIBE_TOKENS), and SCRAM logins with
 * tokenauth=true whose principal is the owner, so that the owner's ACLs apply.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { KafkaClient } from '../../../src/cli/client.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import { RawConnection, METADATA_ALL } from '../../support/raw-connection.js';
import { issueCertificate } from '../../../src/testing/certificates.js';

const SECRET = 'dt-handler-secret';
const AUTHORIZER = 'org.apache.kafka.metadata.authorizer.StandardAuthorizer';
let b: RunningBroker;
let plain: RunningBroker;
const clients: KafkaClient[] = [];

test.before(async () => {
  b = await startBroker({
    sasl: { scram: { alice: 'alice-pw', bob: 'bob-pw', carol: 'carol-pw', admin: 'admin-pw' } },
    config: {
      listeners: 'SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0',
      'inter.broker.listener.name': 'PLAINTEXT',
      'delegation.token.secret.key': SECRET,
      'delegation.token.max.lifetime.ms': 3_600_000,
      'delegation.token.expiry.time.ms': 600_000,
      'authorizer.class.name': AUTHORIZER,
      'super.users': 'User:admin;User:ANONYMOUS',
      'num.partitions': 1,
    },
  });
  plain = await startBroker({ sasl: { scram: { alice: 'alice-pw' } }, config: { listeners: 'SASL_PLAINTEXT://127.0.0.1:0,PLAINTEXT://127.0.0.1:0', 'inter.broker.listener.name': 'PLAINTEXT' } });
});

test.after(async () => {
  for (const c of clients) c.close();
  await b?.stop();
  await plain?.stop();
});

const port = (rb: RunningBroker, name: string) => rb.broker.listeners.find((l) => l.name === name)!.boundPort;

async function as(user: string, rb = b): Promise<KafkaClient> {
  const c = await KafkaClient.connect({
    bootstrap: `127.0.0.1:${port(rb, 'SASL_PLAINTEXT')}`,
    security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: user, password: `${user}-pw` } },
  });
  clients.push(c);
  return c;
}

async function withToken(tokenId: string, hmac: Buffer, mechanism = 'SCRAM-SHA-512'): Promise<KafkaClient> {
  const c = await KafkaClient.connect({
    bootstrap: `127.0.0.1:${port(b, 'SASL_PLAINTEXT')}`,
    security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism, username: tokenId, password: hmac.toString('base64'), tokenauth: true } },
  });
  clients.push(c);
  return c;
}

async function plaintext(rb = b): Promise<KafkaClient> {
  const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port(rb, 'PLAINTEXT')}` });
  clients.push(c);
  return c;
}

const create = (c: KafkaClient, body: Partial<{ ownerPrincipalType: string | null; ownerPrincipalName: string | null; renewers: { principalType: string; principalName: string }[]; maxLifetimeMs: bigint }> = {}, version = 3) =>
  c.send(38, version, { ownerPrincipalType: null, ownerPrincipalName: null, renewers: [], maxLifetimeMs: -1n, ...body });
const describe = (c: KafkaClient, owners: { principalType: string; principalName: string }[] | null = null, version = 3) => c.send(41, version, { owners });
const ids = (r: { tokens: { tokenId: string }[] }) => r.tokens.map((t) => t.tokenId).sort();

async function addAcl(principal: string, resourceType: number, resourceName: string, operation: number): Promise<void> {
  const admin = await as('admin');
  const r = await admin.send(30, 3, { creations: [{ resourceType, resourceName, resourcePatternType: 3, principal, host: '*', operation, permissionType: 3 }] });
  assert.is(r.results[0]!.errorCode, 0, 'ACL created');
}

test('ApiVersions advertises the four token APIs at Kafka 4.4\'s ranges', async () => {
  const c = await plaintext();
  assert.equal([c.supports(38), c.supports(39), c.supports(40), c.supports(41)], [true, true, true, true]);
  const av = await c.send(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
  const range = (k: number) => av.apiKeys.filter((a) => a.apiKey === k).map((a) => [a.minVersion, a.maxVersion])[0];
  assert.equal([range(38), range(39), range(40), range(41)], [[1, 3], [1, 2], [1, 2], [1, 3]]);
});

test('on a PLAINTEXT listener every token request is DELEGATION_TOKEN_REQUEST_NOT_ALLOWED (timestamps -1)', async () => {
  const c = await plaintext();
  const cr = await create(c);
  assert.is(cr.errorCode, ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
  assert.equal([cr.principalType, cr.principalName, cr.tokenRequesterPrincipalName, cr.issueTimestampMs, cr.expiryTimestampMs, cr.maxTimestampMs, cr.tokenId, cr.hmac.length],
    ['User', 'ANONYMOUS', 'ANONYMOUS', -1n, -1n, -1n, '', 0]);
  const rn = await c.send(39, 2, { hmac: Buffer.from('x'), renewPeriodMs: -1n });
  assert.equal([rn.errorCode, rn.expiryTimestampMs], [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, -1n]);
  const ex = await c.send(40, 2, { hmac: Buffer.from('x'), expiryTimePeriodMs: -1n });
  assert.equal([ex.errorCode, ex.expiryTimestampMs], [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, -1n]);
  const ds = await describe(c);
  assert.equal([ds.errorCode, ds.tokens], [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, []]);
});

test('on SSL a client without a certificate (1-way SSL, ANONYMOUS) is refused; one with a certificate creates tokens as its principal', async () => {
  const ssl = await startBroker({
    tls: { clientAuth: 'requested' },
    config: { listeners: 'SSL://127.0.0.1:0', 'delegation.token.secret.key': SECRET, 'ssl.principal.mapping.rules': 'RULE:^CN=(.*)$/$1/' },
  });
  try {
    const ca = ssl.tls!.testCa!;
    const carol = issueCertificate(ca, 'dt-carol', '/CN=carol');
    const connect = (cert?: { cert: string; key: string }) => KafkaClient.connect({
      bootstrap: `127.0.0.1:${ssl.port}`, security: { protocol: 'SSL', tls: { ca: ssl.tls!.ca, servername: 'localhost', ...cert } },
    }).then((c) => (clients.push(c), c));
    const anonymous = await create(await connect());
    assert.equal([anonymous.errorCode, anonymous.principalName], [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, 'ANONYMOUS']);
    const withCert = await create(await connect({ cert: carol.cert, key: carol.key }));
    assert.equal([withCert.errorCode, withCert.principalName], [0, 'carol']);
  } finally {
    await ssl.stop();
  }
});

test('without delegation.token.secret.key a SASL client gets DELEGATION_TOKEN_AUTH_DISABLED', async () => {
  const c = await as('alice', plain);
  const cr = await create(c);
  assert.equal([cr.errorCode, cr.principalName, cr.issueTimestampMs, cr.tokenId], [ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED, 'alice', 0n, '']);
  assert.is((await c.send(39, 2, { hmac: Buffer.from('x'), renewPeriodMs: -1n })).errorCode, ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
  assert.is((await c.send(40, 2, { hmac: Buffer.from('x'), expiryTimePeriodMs: -1n })).errorCode, ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
  assert.is((await describe(c)).errorCode, ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED);
});

test('create: owner = requester, HMAC-SHA512 of the id under the secret, lifetime and expiry from the settings or less', async () => {
  const c = await as('alice');
  const before = Date.now();
  const r = await create(c, { renewers: [{ principalType: 'User', principalName: 'bob' }] });
  assert.is(r.errorCode, 0);
  assert.equal([r.principalType, r.principalName, r.tokenRequesterPrincipalType, r.tokenRequesterPrincipalName], ['User', 'alice', 'User', 'alice']);
  assert.match(r.tokenId, /^[A-Za-z0-9_-]{22}$/, 'a Kafka Uuid');
  assert.equal(r.hmac, createHmac('sha512', SECRET).update(r.tokenId).digest(), 'HMAC-SHA512(secret, token id)');
  const issue = Number(r.issueTimestampMs);
  assert.ok(issue >= before && issue <= Date.now());
  assert.is(Number(r.maxTimestampMs) - issue, 3_600_000, 'delegation.token.max.lifetime.ms');
  assert.is(Number(r.expiryTimestampMs) - issue, 600_000, 'delegation.token.expiry.time.ms');
  const short = await create(c, { maxLifetimeMs: 60_000n });
  assert.equal([Number(short.maxTimestampMs - short.issueTimestampMs), Number(short.expiryTimestampMs - short.issueTimestampMs)], [60_000, 60_000], 'expiry capped at the shorter maximum');
  const long = await create(c, { maxLifetimeMs: 999_999_999_999n });
  assert.is(Number(long.maxTimestampMs - long.issueTimestampMs), 3_600_000, 'a longer max_lifetime_ms is capped by the setting');
  const v1 = await create(c, {}, 1);
  assert.equal([v1.errorCode, v1.principalName, v1.tokenRequesterPrincipalName], [0, 'alice', ''], 'v1 has no requester fields');
});

test('create for another owner needs CREATE_TOKENS on User:<owner>; renewers must be of type User', async () => {
  const c = await as('carol');
  const denied = await create(c, { ownerPrincipalType: 'User', ownerPrincipalName: 'dave' });
  assert.equal([denied.errorCode, denied.principalName, denied.tokenRequesterPrincipalName, denied.maxTimestampMs], [ErrorCode.DELEGATION_TOKEN_AUTHORIZATION_FAILED, 'dave', 'carol', -1n]);
  const self = await create(c, { ownerPrincipalType: 'User', ownerPrincipalName: 'carol' });
  assert.is(self.errorCode, 0, 'naming yourself as owner needs no ACL');
  const empty = await create(c, { ownerPrincipalType: 'User', ownerPrincipalName: '' });
  assert.equal([empty.errorCode, empty.principalName], [0, 'carol'], 'an empty owner name means the requester');
  await addAcl('User:carol', ResourceType.USER, 'User:dave', AclOperation.CREATE_TOKENS);
  const forDave = await create(c, { ownerPrincipalType: 'User', ownerPrincipalName: 'dave' });
  assert.equal([forDave.errorCode, forDave.principalName, forDave.tokenRequesterPrincipalName], [0, 'dave', 'carol']);
  const group = await create(c, { renewers: [{ principalType: 'Group', principalName: 'g' }] });
  assert.equal([group.errorCode, group.expiryTimestampMs], [ErrorCode.INVALID_PRINCIPAL_TYPE, -1n]);
});

test('renew and expire: NOT_FOUND, OWNER_MISMATCH, the renewer, periods capped, negative expiry removes, EXPIRED', async () => {
  const alice = await as('alice');
  const bob = await as('bob');
  const carol = await as('carol');
  const t = await create(alice, { renewers: [{ principalType: 'User', principalName: 'bob' }] });
  const unknown = await alice.send(39, 2, { hmac: Buffer.alloc(64, 1), renewPeriodMs: -1n });
  assert.equal([unknown.errorCode, unknown.expiryTimestampMs], [ErrorCode.DELEGATION_TOKEN_NOT_FOUND, 0n]);
  assert.is((await alice.send(40, 2, { hmac: Buffer.alloc(64, 1), expiryTimePeriodMs: 1n })).errorCode, ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
  assert.is((await carol.send(39, 2, { hmac: t.hmac, renewPeriodMs: 1000n })).errorCode, ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
  assert.is((await carol.send(40, 1, { hmac: t.hmac, expiryTimePeriodMs: -1n })).errorCode, ErrorCode.DELEGATION_TOKEN_OWNER_MISMATCH);
  const now = Date.now();
  const renewed = await bob.send(39, 1, { hmac: t.hmac, renewPeriodMs: 5000n });
  assert.is(renewed.errorCode, 0, 'a renewer may renew');
  const e1 = Number(renewed.expiryTimestampMs);
  assert.ok(e1 >= now + 5000 && e1 <= Date.now() + 5000, 'now + renew period');
  const capped = await alice.send(39, 2, { hmac: t.hmac, renewPeriodMs: 10_000_000n });
  assert.ok(Number(capped.expiryTimestampMs) <= Date.now() + 600_000, 'capped by delegation.token.expiry.time.ms');
  const dflt = await alice.send(39, 2, { hmac: t.hmac, renewPeriodMs: -1n });
  assert.ok(Number(dflt.expiryTimestampMs) >= now + 600_000, 'a period <= 0 renews by delegation.token.expiry.time.ms');
  const described = (await describe(alice)).tokens.find((x) => x.tokenId === t.tokenId)!;
  assert.is(described.expiryTimestamp, dflt.expiryTimestampMs, 'describe shows the renewed expiry');
  const expired = await bob.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: 0n });
  assert.is(expired.errorCode, 0);
  await new Promise((r) => setTimeout(r, 5));
  assert.is((await alice.send(39, 2, { hmac: t.hmac, renewPeriodMs: -1n })).errorCode, ErrorCode.DELEGATION_TOKEN_EXPIRED, 'expired: no renewal');
  assert.is((await alice.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: 100n })).errorCode, ErrorCode.DELEGATION_TOKEN_EXPIRED);
  assert.ok(ids(await describe(alice)).includes(t.tokenId), 'an expired token is described until removed');
  const t0 = Date.now();
  const removed = await alice.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: -1n });
  assert.is(removed.errorCode, 0);
  assert.ok(Number(removed.expiryTimestampMs) >= t0 && Number(removed.expiryTimestampMs) <= Date.now(), 'removal answers now');
  assert.not.ok(ids(await describe(alice)).includes(t.tokenId), 'removed at once');
  assert.is((await alice.send(39, 2, { hmac: t.hmac, renewPeriodMs: -1n })).errorCode, ErrorCode.DELEGATION_TOKEN_NOT_FOUND);
});

test('describe: owners filter, an empty list, and who may see which token', async () => {
  const erin = await as('bob');
  const frank = await as('carol');
  const tb = await create(erin, { renewers: [{ principalType: 'User', principalName: 'alice' }] });
  const tc = await create(frank);
  assert.equal(await describe(erin, []).then((r) => [r.errorCode, r.tokens]), [0, []], 'an empty owners list describes nothing');
  const mine = ids(await describe(erin));
  assert.ok(mine.includes(tb.tokenId) && !mine.includes(tc.tokenId), 'without ACLs a user sees only its own tokens');
  const alice = await as('alice');
  assert.ok(ids(await describe(alice, [{ principalType: 'User', principalName: 'bob' }])).includes(tb.tokenId), 'a renewer sees the token');
  assert.not.ok(ids(await describe(alice)).includes(tc.tokenId));
  const admin = await as('admin');
  const byOwner = ids(await describe(admin, [{ principalType: 'User', principalName: 'carol' }]));
  assert.ok(byOwner.includes(tc.tokenId) && !byOwner.includes(tb.tokenId), 'owners filter');
  const one = (await describe(admin, [{ principalType: 'User', principalName: 'bob' }])).tokens.find((t) => t.tokenId === tb.tokenId)!;
  assert.equal([one.principalName, one.tokenRequesterPrincipalName, one.renewers, one.hmac], ['bob', 'bob', [{ principalType: 'User', principalName: 'alice' }], tb.hmac]);
  const v1 = (await describe(admin, [{ principalType: 'User', principalName: 'bob' }], 1)).tokens.find((t) => t.tokenId === tb.tokenId)!;
  assert.is(v1.tokenRequesterPrincipalName, '', 'v1 has no requester');
  await addAcl('User:bob', ResourceType.DELEGATION_TOKEN, tc.tokenId, AclOperation.DESCRIBE);
  assert.ok(ids(await describe(erin)).includes(tc.tokenId), 'DESCRIBE on the DelegationToken resource');
  const dave = await as('alice');
  await addAcl('User:alice', ResourceType.USER, 'User:carol', AclOperation.DESCRIBE_TOKENS);
  assert.ok(ids(await describe(dave)).includes(tc.tokenId), 'DESCRIBE_TOKENS on the owner\'s User resource');
});

test('SCRAM tokenauth=true logs in as the owner: the owner\'s ACLs apply, and the connection may not use the token APIs', async () => {
  const alice = await as('alice');
  const t = await create(alice);
  const admin = await as('admin');
  const topic = 'dt-owner-acl';
  assert.is((await admin.send(19, 7, { topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false })).topics[0]!.errorCode, 0);
  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) {
    const tc = await withToken(t.tokenId, t.hmac, mechanism);
    const before = await tc.send(3, 12, { ...METADATA_ALL, topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }] });
    assert.is(before.topics[0]!.errorCode, ErrorCode.TOPIC_AUTHORIZATION_FAILED, `${mechanism}: no ACL for alice yet`);
    const cr = await create(tc);
    assert.equal([cr.errorCode, cr.principalName], [ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, 'alice'], 'the principal is the owner, and token-authenticated');
    assert.is((await tc.send(39, 2, { hmac: t.hmac, renewPeriodMs: -1n })).errorCode, ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
    assert.is((await tc.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: 1n })).errorCode, ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
    assert.is((await describe(tc)).errorCode, ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED);
  }
  await addAcl('User:alice', ResourceType.TOPIC, topic, AclOperation.DESCRIBE);
  const tc = await withToken(t.tokenId, t.hmac);
  const after = await tc.send(3, 12, { ...METADATA_ALL, topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }] });
  assert.is(after.topics[0]!.errorCode, 0, 'an ACL for the owner applies to the token\'s connection');
});

test('tokenauth with an unknown token, a wrong HMAC, or a removed token fails with Kafka\'s generic SCRAM message', async () => {
  const alice = await as('alice');
  const t = await create(alice);
  const login = (id: string, hmac: Buffer) => withToken(id, hmac).then(() => 'logged in', (e: Error) => e.message);
  const generic = 'SASL_AUTHENTICATION_FAILED: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512';
  assert.is(await login('no-such-token', t.hmac), generic);
  assert.is(await login(t.tokenId, Buffer.alloc(64, 7)), generic);
  assert.is((await alice.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: -1n })).errorCode, 0);
  assert.is(await login(t.tokenId, t.hmac), generic);
  const user = await KafkaClient.connect({
    bootstrap: `127.0.0.1:${port(b, 'SASL_PLAINTEXT')}`,
    security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: 'alice', password: 'alice-pw', tokenauth: true } },
  }).then((c) => (c.close(), 'logged in'), (e: Error) => e.message);
  assert.match(user, 'SASL_AUTHENTICATION_FAILED', 'a user\'s password is not a token');
});

test('a token past its expiry still logs in but its session ends at once: the next request closes the connection', async () => {
  const alice = await as('alice');
  const t = await create(alice);
  assert.is((await alice.send(40, 2, { hmac: t.hmac, expiryTimePeriodMs: 0n })).errorCode, 0);
  await new Promise((r) => setTimeout(r, 5));
  const raw = await RawConnection.open(port(b, 'SASL_PLAINTEXT'));
  assert.is((await raw.request(17, 1, { mechanism: 'SCRAM-SHA-512' }))!.errorCode, 0);
  const { saslClient } = await import('../../../src/security/sasl/client.js');
  const mech = saslClient({ mechanism: 'SCRAM-SHA-512', username: t.tokenId, password: t.hmac.toString('base64'), tokenauth: true });
  const first = await raw.request(36, 2, { authBytes: mech.initial() });
  const final = await raw.request(36, 2, { authBytes: mech.respond(first!.authBytes)! });
  assert.equal([final!.errorCode, final!.sessionLifetimeMs], [0, 0n], 'authenticated, with no session time left');
  await new Promise((r) => setTimeout(r, 5));
  const answered = await raw.request(18, 0, {} as never).then((r) => r !== null, () => false);
  assert.not.ok(answered, 'no answer after the session ended');
  assert.ok(await Promise.race([raw.closedPromise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5000))]), 'closed');
  assert.ok(raw.isClosed, 'the session expired');
});

test.run();
