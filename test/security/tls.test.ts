/**
 * TLS listeners over real sockets: PEM and PKCS12 keystores (encrypted keys too),
 * ssl.enabled.protocols, ssl.client.auth none/requested/required with DN principals mapped by
 * ssl.principal.mapping.rules, per-listener overrides, the wrong protocol on either side, and
 * start-up refusals (JKS, no keystore).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { createTestCa, issueCertificate, issueServerCertificate, toPkcs12, type TestCa } from '../../src/testing/certificates.js';
import type { Connection } from '../../src/network/connection.js';
import { RawConnection } from '../support/raw-connection.js';

let ca: TestCa;
test.before(() => {
  ca = createTestCa();
});
test.after(() => {
  rmSync(ca.dir, { recursive: true, force: true });
});

async function withBroker(opts: Parameters<typeof startBroker>[0], fn: (b: RunningBroker, conns: Connection[]) => Promise<void>): Promise<void> {
  const b = await startBroker(opts);
  const conns: Connection[] = [];
  b.broker.socketServer!.onConnection = (c) => conns.push(c);
  try {
    await fn(b, conns);
  } finally {
    await b.stop();
  }
}

async function apiVersionsOk(port: number, tlsOptions?: Parameters<typeof RawConnection.open>[1]): Promise<boolean> {
  let c: RawConnection;
  try {
    c = await RawConnection.open(port, tlsOptions);
  } catch {
    return false;
  }
  const r = await c.request(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
  c.close();
  return r !== null && r.errorCode === 0;
}

function sslListener(extra: Record<string, string> = {}) {
  return { config: { listeners: 'SSL://127.0.0.1:0', ...extra } };
}

test('PEM keystore file: TLS answers; the principal without client auth is ANONYMOUS', async () => {
  const server = issueServerCertificate(ca, 'pem-server');
  await withBroker(sslListener({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile }), async (b, conns) => {
    assert.ok(await apiVersionsOk(b.port, { ca: ca.cert }));
    assert.is(conns[0]!.principal, 'User:ANONYMOUS');
  });
});

test('PKCS12 keystore with a password, and an encrypted PEM key with ssl.key.password', async () => {
  const server = issueServerCertificate(ca, 'p12-server');
  const p12 = toPkcs12(ca, server, 'p12-server', 'store-pw');
  await withBroker(sslListener({ 'ssl.keystore.type': 'PKCS12', 'ssl.keystore.location': p12, 'ssl.keystore.password': 'store-pw' }), async (b) => {
    assert.ok(await apiVersionsOk(b.port, { ca: ca.cert }));
  });
  const encKey = join(ca.dir, 'enc-key.pem');
  execFileSync('openssl', ['pkcs8', '-topk8', '-in', server.keyFile, '-out', encKey, '-passout', 'pass:key-pw', '-v2', 'aes-256-cbc']);
  const { readFileSync } = await import('node:fs');
  await withBroker(sslListener({
    'ssl.keystore.type': 'PEM', 'ssl.keystore.key': readFileSync(encKey, 'utf8'), 'ssl.keystore.certificate.chain': server.cert, 'ssl.key.password': 'key-pw',
  }), async (b) => {
    assert.ok(await apiVersionsOk(b.port, { ca: ca.cert }));
  });
  await startBroker(sslListener({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.key': readFileSync(encKey, 'utf8'), 'ssl.keystore.certificate.chain': server.cert, 'ssl.key.password': 'wrong' }))
    .then(() => assert.unreachable('started with a wrong key password'), (e: Error) => assert.match(e.message, 'invalid TLS key material'));
});

test('ssl.enabled.protocols=TLSv1.3 refuses a TLSv1.2-only client', async () => {
  const server = issueServerCertificate(ca, 'v13-server');
  await withBroker(sslListener({ 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile, 'ssl.enabled.protocols': 'TLSv1.3' }), async (b) => {
    assert.not.ok(await apiVersionsOk(b.port, { ca: ca.cert, maxVersion: 'TLSv1.2' }));
    assert.ok(await apiVersionsOk(b.port, { ca: ca.cert, minVersion: 'TLSv1.3' }));
  });
});

test('ssl.client.auth=required: no certificate refused; the DN, mapped by the rules, is the principal', async () => {
  const server = issueServerCertificate(ca, 'mtls-server');
  const alice = issueCertificate(ca, 'alice', '/C=US/O=Acme, Inc/OU=Eng/CN=Alice');
  const svc = issueCertificate(ca, 'svc', '/O=Acme/OU=ServiceUsers/CN=billing');
  const foreignCa = createTestCa();
  const stranger = issueCertificate(foreignCa, 'stranger', '/CN=stranger');
  try {
    await withBroker(sslListener({
      'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile,
      'ssl.truststore.type': 'PEM', 'ssl.truststore.location': ca.certFile, 'ssl.client.auth': 'required',
      'ssl.principal.mapping.rules': 'RULE:^CN=([^,]*),OU=ServiceUsers,.*$/svc-$1/U, DEFAULT',
    }), async (b, conns) => {
      assert.not.ok(await apiVersionsOk(b.port, { ca: ca.cert }), 'no client certificate');
      assert.not.ok(await apiVersionsOk(b.port, { ca: ca.cert, cert: stranger.cert, key: stranger.key }), 'untrusted certificate');
      assert.ok(await apiVersionsOk(b.port, { ca: ca.cert, cert: alice.cert, key: alice.key }));
      assert.ok(await apiVersionsOk(b.port, { ca: ca.cert, cert: svc.cert, key: svc.key }));
      const principals = conns.map((c) => c.principal);
      assert.equal(principals, ['User:CN=Alice,OU=Eng,O=Acme\\, Inc,C=US', 'User:SVC-BILLING']);
    });
  } finally {
    rmSync(foreignCa.dir, { recursive: true, force: true });
  }
});

test('ssl.client.auth=requested: a certificate is used when given, ANONYMOUS otherwise; per-listener overrides', async () => {
  const server = issueServerCertificate(ca, 'req-server');
  const bob = issueCertificate(ca, 'bob', '/CN=bob');
  await withBroker({ config: {
    listeners: 'EXTERNAL://127.0.0.1:0,INTERNAL://127.0.0.1:0',
    'listener.security.protocol.map': 'EXTERNAL:SSL,INTERNAL:PLAINTEXT',
    'inter.broker.listener.name': 'INTERNAL',
    'listener.name.external.ssl.keystore.type': 'PEM',
    'listener.name.external.ssl.keystore.location': server.pemFile,
    'listener.name.external.ssl.truststore.type': 'PEM',
    'listener.name.external.ssl.truststore.location': ca.certFile,
    'listener.name.external.ssl.client.auth': 'requested',
    'ssl.principal.mapping.rules': 'RULE:^CN=(.*)$/$1/',
  } }, async (b, conns) => {
    const ext = b.broker.listeners.find((l) => l.name === 'EXTERNAL')!.boundPort;
    const int = b.broker.listeners.find((l) => l.name === 'INTERNAL')!.boundPort;
    assert.ok(await apiVersionsOk(ext, { ca: ca.cert }));
    assert.ok(await apiVersionsOk(ext, { ca: ca.cert, cert: bob.cert, key: bob.key }));
    assert.ok(await apiVersionsOk(int));
    assert.equal(conns.map((c) => c.principal), ['User:ANONYMOUS', 'User:bob', 'User:ANONYMOUS']);
  });
});

test('a plaintext client on the TLS port and a TLS client on the plaintext port are cut off; others keep working', async () => {
  const server = issueServerCertificate(ca, 'mixed-server');
  await withBroker({ config: {
    listeners: 'SSL://127.0.0.1:0,PLAINTEXT://127.0.0.1:0', 'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile,
  } }, async (b) => {
    const sslPort = b.broker.listeners.find((l) => l.name === 'SSL')!.boundPort;
    const plainPort = b.broker.listeners.find((l) => l.name === 'PLAINTEXT')!.boundPort;
    const kept = await RawConnection.open(sslPort, { ca: ca.cert });
    assert.not.ok(await apiVersionsOk(sslPort), 'plaintext on TLS');
    assert.not.ok(await apiVersionsOk(plainPort, { ca: ca.cert }), 'TLS on plaintext');
    const r = await kept.request(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
    assert.is(r!.errorCode, 0);
    kept.close();
    assert.ok(await apiVersionsOk(plainPort));
  });
});

test('a PKCS12 truststore verifies client certificates', async () => {
  const server = issueServerCertificate(ca, 'p12trust-server');
  const carol = issueCertificate(ca, 'carol', '/CN=carol');
  const trust = join(ca.dir, 'trust.p12');
  execFileSync('openssl', ['pkcs12', '-export', '-nokeys', '-in', ca.certFile, '-passout', 'pass:tpw', '-out', trust]);
  await withBroker(sslListener({
    'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile, 'ssl.client.auth': 'required',
    'ssl.truststore.type': 'PKCS12', 'ssl.truststore.location': trust, 'ssl.truststore.password': 'tpw',
  }), async (b, conns) => {
    assert.ok(await apiVersionsOk(b.port, { ca: ca.cert, cert: carol.cert, key: carol.key }));
    assert.is(conns[0]!.principal, 'User:CN=carol');
  });
});

test('SASL_SSL with ssl.client.auth=required: a client certificate is needed, the principal is SASL\'s', async () => {
  const server = issueServerCertificate(ca, 'saslssl-server');
  const dave = issueCertificate(ca, 'dave', '/CN=dave');
  await withBroker({ config: {
    listeners: 'SASL_SSL://127.0.0.1:0', 'sasl.enabled.mechanisms': 'PLAIN',
    'listener.name.sasl_ssl.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_erin="erin-pw";',
    'ssl.keystore.type': 'PEM', 'ssl.keystore.location': server.pemFile, 'ssl.truststore.type': 'PEM', 'ssl.truststore.location': ca.certFile,
    'listener.name.sasl_ssl.ssl.client.auth': 'required', 'ssl.principal.mapping.rules': 'RULE:^CN=nomatch$/x/',
  } }, async (b, conns) => {
    const sasl = { mechanism: 'PLAIN', username: 'erin', password: 'erin-pw' };
    const { KafkaClient } = await import('../../src/cli/client.js');
    await KafkaClient.connect({ bootstrap: `localhost:${b.port}`, security: { protocol: 'SASL_SSL', tls: { ca: ca.cert }, sasl }, requestTimeoutMs: 3000 })
      .then(() => assert.unreachable('connected without a certificate'), () => undefined);
    const c = await KafkaClient.connect({ bootstrap: `localhost:${b.port}`, security: { protocol: 'SASL_SSL', tls: { ca: ca.cert, cert: dave.cert, key: dave.key }, sasl } });
    c.close();
    assert.is(conns[conns.length - 1]!.principal, 'User:erin');
  });
});

test('start-up refuses JKS keystores and SSL listeners without a keystore, naming the listener', async () => {
  await startBroker(sslListener({ 'ssl.keystore.location': '/nonexistent.jks' }))
    .then(() => assert.unreachable(), (e: Error) => assert.match(e.message, /listener SSL: ssl.keystore.type is JKS.*PKCS12/));
  await startBroker(sslListener())
    .then(() => assert.unreachable(), (e: Error) => assert.match(e.message, 'listener SSL: an SSL listener needs ssl.keystore.location'));
  await startBroker({ config: { listeners: 'SASL_PLAINTEXT://127.0.0.1:0' } })
    .then(() => assert.unreachable(), (e: Error) => assert.match(e.message, 'names no mechanism Samsa supports'));
});

test.run();
