/**
 * The SASL authenticator over real sockets: several named listeners, what is served before
 * authentication, Kafka's errors, SaslHandshake v0 raw tokens, KIP-368 re-authentication and
 * session expiry, principals, and SCRAM credentials created with AlterUserScramCredentials.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { ManualClock } from '../../src/clock.js';
import { KafkaClient } from '../../src/cli/client.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { saltPassword } from '../../src/security/sasl/scram.js';
import type { Connection } from '../../src/network/connection.js';
import { RawConnection, METADATA_ALL } from '../support/raw-connection.js';

const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_admin="admin-secret";';

function twoListeners(extra: Record<string, string | number> = {}) {
  return { config: {
    listeners: 'PLAINTEXT://127.0.0.1:0,CLIENTS://127.0.0.1:0',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CLIENTS:SASL_PLAINTEXT',
    'inter.broker.listener.name': 'PLAINTEXT',
    'listener.name.clients.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
    'listener.name.clients.plain.sasl.jaas.config': JAAS,
    ...extra,
  } };
}

function portOf(b: RunningBroker, name: string): number {
  return b.broker.listeners.find((l) => l.name === name)!.boundPort;
}

async function withBroker(opts: Parameters<typeof startBroker>[0], fn: (b: RunningBroker) => Promise<void>): Promise<void> {
  const b = await startBroker(opts);
  try {
    await fn(b);
  } finally {
    await b.stop();
  }
}

const upsert = (name: string, password: string, mechanism = 1, iterations = 4096) => {
  const salt = randomBytes(16);
  return { name, mechanism, iterations, salt, saltedPassword: saltPassword(mechanism === 1 ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512', password, salt, iterations) };
};

test('named listeners: PLAINTEXT admin creates SCRAM users; the SASL listener logs them in; ApiVersions advertises the SCRAM APIs', async () => {
  await withBroker(twoListeners(), async (b) => {
    const admin = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'PLAINTEXT')}` });
    try {
      assert.ok(admin.supports(50) && admin.supports(51));
      const r = await admin.send(51, 0, { deletions: [], upsertions: [upsert('bob', 'bob-secret')] });
      assert.equal(r.results.map((x) => [x.user, x.errorCode]), [['bob', 0]]);
      const d = await admin.send(50, 0, { users: null });
      assert.equal(d.results.map((x) => [x.user, x.credentialInfos]), [['bob', [{ mechanism: 1, iterations: 4096 }]]]);
    } finally {
      admin.close();
    }
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'CLIENTS')}`, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' } } });
    const md = await c.send(3, 12, METADATA_ALL);
    assert.is(md.brokers[0]!.port, portOf(b, 'CLIENTS'), 'metadata advertises the listener the request came on');
    c.close();
    // PLAIN on the same listener; a SCRAM-SHA-512 login is refused (not enabled there).
    const p = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'CLIENTS')}`, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } } });
    p.close();
  });
});

test('SaslHandshake with a disabled mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled list, then the connection closes', async () => {
  await withBroker(twoListeners(), async (b) => {
    const raw = await RawConnection.open(portOf(b, 'CLIENTS'));
    const hs = await raw.request(17, 1, { mechanism: 'SCRAM-SHA-512' });
    assert.is(hs!.errorCode, ErrorCode.UNSUPPORTED_SASL_MECHANISM);
    assert.equal(hs!.mechanisms, ['PLAIN', 'SCRAM-SHA-256']);
    await raw.closedPromise;
  });
});

test('nothing but ApiVersions and SASL is served before authentication; other connections keep working', async () => {
  await withBroker(twoListeners(), async (b) => {
    const port = portOf(b, 'CLIENTS');
    const good = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port}`, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } } });
    // A Metadata request first: closed without an answer.
    const r1 = await RawConnection.open(port);
    assert.is(await r1.request(3, 12, METADATA_ALL), null);
    assert.ok(r1.closed);
    // ApiVersions, then Metadata: closed.
    const r2 = await RawConnection.open(port);
    const av = await r2.request(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
    assert.is(av!.errorCode, 0);
    assert.is(await r2.request(3, 12, METADATA_ALL), null);
    // SaslAuthenticate without a handshake: closed.
    const r3 = await RawConnection.open(port);
    assert.is(await r3.request(36, 2, { authBytes: Buffer.from('\0alice\0alice-secret') }), null);
    // After the handshake, a request other than SaslAuthenticate: its error answer (no brokers,
    // no topics), then closed.
    const r4 = await RawConnection.open(port);
    assert.is((await r4.request(17, 1, { mechanism: 'PLAIN' }))!.errorCode, 0);
    const refused = await r4.request(3, 12, METADATA_ALL);
    assert.equal(refused!.brokers, []);
    await r4.closedPromise;
    // Garbage that is not a Kafka header.
    const r5 = await RawConnection.open(port);
    r5.writeFrame(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    assert.is(await r5.next(), null);
    // The authenticated connection is untouched.
    const md = await good.send(3, 12, METADATA_ALL);
    assert.ok(md.brokers.length === 1);
    good.close();
  });
});

test('failed PLAIN authentication: SASL_AUTHENTICATION_FAILED with Kafka\'s message, then close', async () => {
  await withBroker(twoListeners(), async (b) => {
    const raw = await RawConnection.open(portOf(b, 'CLIENTS'));
    assert.is((await raw.request(17, 1, { mechanism: 'PLAIN' }))!.errorCode, 0);
    const r = await raw.request(36, 2, { authBytes: Buffer.from('\0alice\0wrong') });
    assert.is(r!.errorCode, ErrorCode.SASL_AUTHENTICATION_FAILED);
    assert.is(r!.errorMessage, 'Authentication failed: Invalid username or password');
    await raw.closedPromise;
    const raw2 = await RawConnection.open(portOf(b, 'CLIENTS'));
    await raw2.request(17, 1, { mechanism: 'PLAIN' });
    const r2 = await raw2.request(36, 1, { authBytes: Buffer.from('\0nobody\0x') });
    assert.is(r2!.errorMessage, 'Authentication failed: Invalid username or password');
    const raw3 = await RawConnection.open(portOf(b, 'CLIENTS'));
    await raw3.request(17, 1, { mechanism: 'PLAIN' });
    const r3 = await raw3.request(36, 0, { authBytes: Buffer.from('admin\0alice\0alice-secret') });
    assert.is(r3!.errorMessage, 'Authentication failed: Client requested an authorization id that is different from username');
  });
});

test('SaslHandshake v0: raw size-prefixed tokens, then Kafka requests as the authenticated principal', async () => {
  await withBroker(twoListeners(), async (b) => {
    const conns: Connection[] = [];
    b.broker.socketServer!.onConnection = (c) => conns.push(c);
    const raw = await RawConnection.open(portOf(b, 'CLIENTS'));
    assert.is((await raw.request(17, 0, { mechanism: 'PLAIN' }))!.errorCode, 0);
    raw.writeFrame(Buffer.from('\0alice\0alice-secret'));
    const answer = await raw.next();
    assert.equal(answer, Buffer.alloc(0), 'an empty token, size-prefixed');
    const md = await raw.request(3, 12, METADATA_ALL);
    assert.ok(md && md.brokers.length === 1);
    assert.is(conns[0]!.principal, 'User:alice');
    // A wrong password in raw mode closes the connection.
    const bad = await RawConnection.open(portOf(b, 'CLIENTS'));
    await bad.request(17, 0, { mechanism: 'PLAIN' });
    bad.writeFrame(Buffer.from('\0alice\0wrong-one'));
    assert.is(await bad.next(), null);
  });
});

test('KIP-368: session lifetime, re-authentication before expiry, a request after expiry closes', async () => {
  const clock = new ManualClock(Date.now());
  await withBroker({ ...twoListeners({ 'connections.max.reauth.ms': 10_000 }), clock }, async (b) => {
    const security = { protocol: 'SASL_PLAINTEXT' as const, sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } };
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'CLIENTS')}` });
    const first = await c.authenticate(security.sasl);
    assert.is(first.sessionLifetimeMs, 10_000n);
    clock.advance(8_000);
    await c.send(3, 12, METADATA_ALL);
    const again = await c.authenticate(security.sasl);
    assert.is(again.sessionLifetimeMs, 10_000n);
    clock.advance(9_000);
    await c.send(3, 12, METADATA_ALL);
    clock.advance(2_000);
    await c.send(3, 12, METADATA_ALL).then(() => assert.unreachable('served after expiry'), (e: Error) => assert.match(e.message, 'closed'));
    // Re-authenticating as someone else is refused.
    const d = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'CLIENTS')}`, security });
    await d.authenticate({ mechanism: 'PLAIN', username: 'admin', password: 'admin-secret' })
      .then(() => assert.unreachable('principal changed'), (e: Error) => assert.match(e.message, 'Cannot change principals during re-authentication from User.alice: User.admin'));
    d.close();
    c.close();
  });
});

test('AlterUserScramCredentials / DescribeUserScramCredentials: Kafka\'s errors; credentials survive a restart', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-scram-'));
  try {
    await withBroker({ ...twoListeners(), storage: { dir } }, async (b) => {
      const admin = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'PLAINTEXT')}` });
      const r = await admin.send(51, 0, {
        deletions: [{ name: 'ghost', mechanism: 1 }, { name: '', mechanism: 1 }, { name: 'x', mechanism: 9 }],
        upsertions: [upsert('carol', 'c-pw'), upsert('carol', 'c-pw', 2), upsert('few', 'p', 1, 1000), upsert('many', 'p', 2, 20000), upsert('dave', 'd-pw', 2)],
      });
      const by = new Map(r.results.map((x) => [x.user, [x.errorCode, x.errorMessage]]));
      assert.equal(by.get('ghost'), [ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist']);
      assert.equal(by.get(''), [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty']);
      assert.equal(by.get('x'), [ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism']);
      assert.equal(by.get('carol'), [ErrorCode.DUPLICATE_RESOURCE, 'A user credential cannot be altered twice in the same request']);
      assert.equal(by.get('few'), [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations']);
      assert.equal(by.get('many'), [ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations']);
      assert.equal(by.get('dave'), [0, null]);
      const d = await admin.send(50, 0, { users: [{ name: 'dave' }, { name: 'carol' }, { name: 'eve' }, { name: 'eve' }] });
      const dby = new Map(d.results.map((x) => [x.user, [x.errorCode, x.errorMessage, x.credentialInfos]]));
      assert.equal(dby.get('dave'), [0, '', [{ mechanism: 2, iterations: 4096 }]]);
      assert.equal(dby.get('carol'), [ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to describe a user credential that does not exist: carol', []]);
      assert.equal(dby.get('eve'), [ErrorCode.DUPLICATE_RESOURCE, 'Cannot describe SCRAM credentials for the same user twice in a single request: eve', []]);
      admin.close();
    });
    await withBroker({ ...twoListeners({ 'listener.name.clients.sasl.enabled.mechanisms': 'SCRAM-SHA-512' }), storage: { dir } }, async (b) => {
      const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'CLIENTS')}`, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-512', username: 'dave', password: 'd-pw' } } });
      c.close();
      const bad = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'CLIENTS')}`, security: { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-512', username: 'dave', password: 'nope' } } })
        .then(() => null, (e: Error) => e);
      assert.match(bad!.message, 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512');
      // Deletion works and is persistent too.
      const admin = await KafkaClient.connect({ bootstrap: `127.0.0.1:${portOf(b, 'PLAINTEXT')}` });
      const del = await admin.send(51, 0, { deletions: [{ name: 'dave', mechanism: 2 }], upsertions: [] });
      assert.equal(del.results, [{ user: 'dave', errorCode: 0, errorMessage: null }]);
      assert.equal((await admin.send(50, 0, { users: [] })).results, []);
      admin.close();
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the metadata file keeps salted keys, never a password', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-scram-'));
  try {
    await withBroker({ storage: { dir }, sasl: { scram: { zed: 'zed-very-secret' } } }, async () => undefined);
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(dir, 'samsa-metadata.json'), 'utf8');
    assert.ok(text.includes('storedKey'));
    assert.not.ok(text.includes('zed-very-secret'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
