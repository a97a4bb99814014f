/**
 * The HTTP listener: bound with the broker on port 0 (startBroker's httpUrl), health answers,
 * hostile requests (oversized headers, traversal, bad methods, huge bodies, garbage) answered with
 * the right status and never breaking the broker; basic authentication against SASL PLAIN and
 * SCRAM users when the broker has SASL.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { get as httpsGet } from 'node:https';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { loadConfig } from '../../src/config.js';
import { parsePrometheusText, value } from '../support/prom-text.js';
import { HttpAuthenticator } from '../../src/http/auth.js';

const { Kafka, logLevel } = kafkajs;

/** Sends raw bytes, returns the whole answer (the server closes or the answer is complete). */
function raw(url: string, request: string | Buffer): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    let out = '';
    s.on('data', (d) => { out += d.toString('latin1'); });
    s.on('error', (err) => (out ? resolve(out) : reject(err)));
    s.on('close', () => resolve(out));
    s.on('connect', () => s.end(request));
  });
}

function status(answer: string): number {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(answer);
  return m ? Number(m[1]) : -1;
}

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ http: true, storage: 'memory' });
});

test.after(async () => {
  await b?.stop();
});

test('startBroker exposes the HTTP URL and the listener is off unless asked', async () => {
  assert.match(b.httpUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
  const off = await startBroker({ storage: 'memory' });
  try {
    assert.is(off.httpUrl, null);
    assert.is(off.broker.http, null);
  } finally {
    await off.stop();
  }
});

test('the default setting is http://127.0.0.1:9644 and empty turns the listener off', () => {
  const def = loadConfig({ argv: [], env: {}, cwd: process.cwd() });
  assert.equal(def['samsa.http.listeners'], ['http://127.0.0.1:9644']);
  const off = loadConfig({ argv: ['--override', 'samsa.http.listeners='], env: {}, cwd: process.cwd() });
  assert.equal(off['samsa.http.listeners'], []);
  assert.throws(() => loadConfig({ argv: ['--override', 'samsa.http.listeners=ftp://x:1'], env: {}, cwd: process.cwd() }));
});

test('/health/live and /health/ready answer 200 with JSON on a started broker', async () => {
  const live = await fetch(`${b.httpUrl}/health/live`);
  assert.is(live.status, 200);
  assert.is((await live.json() as { status: string }).status, 'live');
  const ready = await fetch(`${b.httpUrl}/health/ready`);
  assert.is(ready.status, 200);
  assert.is((await ready.json() as { status: string }).status, 'ready');
});

test('oversized request headers are answered 431 and the broker keeps serving', async () => {
  const answer = await raw(b.httpUrl!, `GET /metrics HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
  assert.is(status(answer), 431, answer.slice(0, 80));
  assert.is((await fetch(`${b.httpUrl}/health/live`)).status, 200);
});

test('path traversal, NUL and bad escapes in the path are answered 400', async () => {
  for (const path of ['/../../etc/passwd', '/topics/..%2F..%2Fetc%2Fpasswd', '/topics/%2e%2e', '/topics/a%00b', '/topics/%E0%A4%A']) {
    const answer = await raw(b.httpUrl!, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    assert.is(status(answer), 400, `${path}: ${answer.slice(0, 60)}`);
  }
});

test('methods other than GET, HEAD and POST are answered 405 with Allow', async () => {
  for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT']) {
    const answer = await raw(b.httpUrl!, `${method} ${method === 'CONNECT' ? 'example.com:443' : '/metrics'} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    assert.ok([400, 405].includes(status(answer)), `${method}: ${answer.slice(0, 40)}`);
    if (method !== 'CONNECT') assert.match(answer, /\r\nAllow: GET, HEAD, POST\r\n/i, method);
  }
});

test('a POST body over 64 KiB is answered 413; a POST without the form token 403', async () => {
  const big = await fetch(`${b.httpUrl}/topics`, { method: 'POST', body: 'x'.repeat(70 * 1024), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(big.status, 413);
  const forged = await fetch(`${b.httpUrl}/topics`, { method: 'POST', body: 'name=evil', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(forged.status, 403);
  assert.is(b.broker.metadataCache.topic('evil'), undefined, 'no topic was created by the forged post');
});

test('garbage instead of HTTP is answered 400 and Kafka clients are unaffected', async () => {
  assert.is(status(await raw(b.httpUrl!, Buffer.from([0, 0, 0, 20, 0, 18, 0, 3, 1, 2, 3, 4, 255, 255, 13, 10, 13, 10]))), 400);
  assert.is(status(await raw(b.httpUrl!, 'GET\r\n\r\n')), 400);
  const kafka = new Kafka({ clientId: 'http-hostile', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'after-garbage', numPartitions: 1 }] });
    assert.ok((await admin.listTopics()).includes('after-garbage'));
  } finally {
    await admin.disconnect();
  }
});

test('a loopback listener refuses other host names (DNS rebinding) with 421', async () => {
  const port = new URL(b.httpUrl!).port;
  assert.is(status(await raw(b.httpUrl!, `GET /metrics HTTP/1.1\r\nHost: evil.example:${port}\r\nConnection: close\r\n\r\n`)), 421);
  assert.is(status(await raw(b.httpUrl!, `GET /health/ready HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`)), 421);
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
    assert.is(status(await raw(b.httpUrl!, `GET /health/live HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)), 200, host);
  }
});

test('samsa.http.console.enable=false: metrics and health only', async () => {
  const m = await startBroker({ http: true, storage: 'memory', 'samsa.http.console.enable': false });
  try {
    assert.is((await fetch(`${m.httpUrl}/`)).status, 404);
    assert.is((await fetch(`${m.httpUrl}/topics`)).status, 404);
    assert.is((await fetch(`${m.httpUrl}/metrics`)).status, 200);
    assert.is((await fetch(`${m.httpUrl}/health/ready`)).status, 200);
  } finally {
    await m.stop();
  }
});

test('https:// listeners use the broker\'s ssl.keystore settings', async () => {
  const t = await startBroker({ tls: true, storage: 'memory', 'samsa.http.listeners': 'https://127.0.0.1:0' });
  try {
    assert.match(t.httpUrl ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
    const got = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpsGet(`${t.httpUrl}/health/ready`, { ca: t.tls!.ca }, (res) => {
        let body = '';
        res.on('data', (d) => { body += String(d); });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
    });
    assert.is(got.status, 200);
    assert.match(got.body, /"ready"/);
    assert.match(await raw(t.httpUrl!.replace('https', 'http'), 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n'), /^$|^HTTP\/1\.1 400/, 'plain HTTP to a TLS port is refused');
    assert.is((await fetch(`${t.httpUrl}/health/live`).catch((e: Error) => e)) instanceof Error, true, 'a client that does not trust the CA fails');
  } finally {
    await t.stop();
  }
});

test('HEAD /metrics answers headers only', async () => {
  const res = await fetch(`${b.httpUrl}/metrics`, { method: 'HEAD' });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  assert.is(await res.text(), '');
});

test('with SASL: basic auth as a PLAIN or SCRAM user, 401 otherwise; health needs none', async () => {
  const s = await startBroker({ http: true, storage: 'memory', sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' } } });
  const basic = (u: string, p: string) => ({ authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}` });
  try {
    const none = await fetch(`${s.httpUrl}/metrics`);
    assert.is(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm="samsa"/);
    assert.is((await fetch(`${s.httpUrl}/metrics`, { headers: basic('alice', 'wrong') })).status, 401);
    assert.is((await fetch(`${s.httpUrl}/metrics`, { headers: basic('mallory', 'alice-secret') })).status, 401);
    assert.is((await fetch(`${s.httpUrl}/metrics`, { headers: basic('alice', 'alice-secret') })).status, 200);
    assert.is((await fetch(`${s.httpUrl}/metrics`, { headers: basic('bob', 'bob-secret') })).status, 200);
    assert.is((await fetch(`${s.httpUrl}/metrics`, { headers: basic('bob', 'bob-secre') })).status, 401);
    assert.is((await fetch(`${s.httpUrl}/health/ready`)).status, 200);

    const client = (password: string) => new Kafka({
      clientId: 'http-auth', brokers: [s.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 },
      sasl: { mechanism: 'plain', username: 'alice', password },
    }).admin();
    const bad = client('nope');
    await bad.connect().then(() => bad.disconnect(), () => undefined);
    const good = client('alice-secret');
    await good.connect();
    await good.listTopics();
    await good.disconnect();
    const text = await (await fetch(`${s.httpUrl}/metrics`, { headers: basic('alice', 'alice-secret') })).text();
    const metrics = parsePrometheusText(text);
    const labels = { listener: 'SASL_PLAINTEXT', networkProcessor: '0' };
    assert.ok(value(metrics, 'kafka_server_socket_server_metrics_failed_authentication_total', labels) >= 1, 'the failed login is counted');
    assert.ok(value(metrics, 'kafka_server_socket_server_metrics_successful_authentication_total', labels) >= 1, 'the good login is counted');
  } finally {
    await s.stop();
  }
});

test('the authenticator takes the SASL listeners\' users and failed-login delay; none without SASL', async () => {
  const sasl = { mechanisms: ['PLAIN'], plainUsers: new Map([['u', 'p']]), oauth: {} as never, reauthMs: 0, maxReceiveSize: 524288, failedDelayMs: 0 };
  const auth = new HttpAuthenticator(new Map([['A', { name: 'A', protocol: 'SASL_PLAINTEXT', tls: null, sasl }], ['B', { name: 'B', protocol: 'SASL_PLAINTEXT', tls: null, sasl: { ...sasl, failedDelayMs: 250 } }]]), async () => null);
  assert.is(auth.required, true);
  assert.is(auth.failedDelayMs, 250, 'the largest connection.failed.authentication.delay.ms');
  assert.is(await auth.authenticate(`Basic ${Buffer.from('u:p').toString('base64')}`), 'u');
  assert.is(await auth.authenticate('Bearer x'), null);
  const open = new HttpAuthenticator(new Map([['P', { name: 'P', protocol: 'PLAINTEXT', tls: null, sasl: null }]]), async () => null);
  assert.is(open.required, false);
  assert.is(await open.authenticate(undefined), '');
});

test('an explicitly configured HTTP address in use fails the start', async () => {
  const port = new URL(b.httpUrl!).port;
  let failed = false;
  try {
    const other = await startBroker({ storage: 'memory', config: { 'samsa.http.listeners': `http://127.0.0.1:${port}` } });
    await other.stop();
  } catch (err) {
    failed = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
  }
  assert.ok(failed, 'an explicitly configured address in use fails the start');
});

test.run();
