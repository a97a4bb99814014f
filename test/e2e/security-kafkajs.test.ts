/**
 * kafkajs over SSL, SASL_PLAINTEXT and SASL_SSL (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512,
 * OAUTHBEARER): produce and consume through a group on each, and Kafka's refusals.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { issueCertificate } from '../../src/testing/certificates.js';

const { Kafka, logLevel } = kafkajs;
type KafkaConfig = ConstructorParameters<typeof Kafka>[0];

const brokers: RunningBroker[] = [];
test.after(async () => {
  await Promise.all(brokers.map((b) => b.stop()));
});

async function start(opts: Parameters<typeof startBroker>[0]): Promise<RunningBroker> {
  const b = await startBroker(opts);
  brokers.push(b);
  return b;
}

function unsecuredJws(sub: string, expSeconds: number): string {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'none' })}.${enc({ sub, exp: expSeconds, iat: Math.floor(Date.now() / 1000) })}.`;
}

async function roundTrip(cfg: Omit<KafkaConfig, 'brokers'>, b: RunningBroker, topic: string): Promise<void> {
  const kafka = new Kafka({ ...cfg, brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ key: 'k', value: 'v1' }, { value: 'v2' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `g-${topic}`, sessionTimeout: 6000, heartbeatInterval: 500 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out; got ${got.join(',')}`)), 20000);
    void consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value!.toString());
        if (got.length === 2) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  assert.equal(got, ['v1', 'v2']);
}

test('SSL: kafkajs produces and consumes over TLS with the generated certificate', async () => {
  const b = await start({ tls: true, 'num.partitions': 1 });
  assert.is(b.securityProtocol, 'SSL');
  await roundTrip({ clientId: 'ssl', ssl: { ca: [b.tls!.ca] } }, b, 'ssl-topic');
});

test('SSL with ssl.client.auth=required: kafkajs with a client certificate; its DN is the principal', async () => {
  const b = await start({ tls: { clientAuth: 'required' }, 'num.partitions': 1, 'ssl.principal.mapping.rules': 'RULE:^CN=([^,]*),.*$/$1/L' });
  const principals: string[] = [];
  b.broker.socketServer!.onConnection = (c) => void setTimeout(() => principals.push(c.principal), 0);
  const client = issueCertificate(b.tls!.testCa!, 'kafkajs-client', '/O=Acme/CN=Producer-App');
  await roundTrip({ clientId: 'mtls', ssl: { ca: [b.tls!.ca], cert: client.cert, key: client.key } }, b, 'mtls-topic');
  assert.ok(principals.length > 0 && principals.every((p) => p === 'User:producer-app'), JSON.stringify(principals));
  await connectError({ clientId: 'no-cert', ssl: { ca: [b.tls!.ca] } }, b);
});

test('SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512', async () => {
  const b = await start({ sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' } }, 'num.partitions': 1 });
  assert.is(b.securityProtocol, 'SASL_PLAINTEXT');
  await roundTrip({ clientId: 'plain', sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' } }, b, 'sp-plain');
  await roundTrip({ clientId: 's256', sasl: { mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' } }, b, 'sp-s256');
  await roundTrip({ clientId: 's512', sasl: { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' } }, b, 'sp-s512');
});

test('SASL_SSL with PLAIN, SCRAM and OAUTHBEARER', async () => {
  const b = await start({ tls: true, sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' }, oauthbearer: true }, 'num.partitions': 1 });
  assert.is(b.securityProtocol, 'SASL_SSL');
  const ssl = { ca: [b.tls!.ca] };
  await roundTrip({ clientId: 'plain', ssl, sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' } }, b, 'ss-plain');
  await roundTrip({ clientId: 's512', ssl, sasl: { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' } }, b, 'ss-s512');
  const oauthBearerProvider = async () => ({ value: unsecuredJws('carol', Math.floor(Date.now() / 1000) + 3600) });
  await roundTrip({ clientId: 'oauth', ssl, sasl: { mechanism: 'oauthbearer', oauthBearerProvider } }, b, 'ss-oauth');
});

async function connectError(cfg: Omit<KafkaConfig, 'brokers'>, b: RunningBroker): Promise<Error & { type?: string }> {
  const kafka = new Kafka({ ...cfg, brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 }, connectionTimeout: 3000 });
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.listTopics();
  } catch (e) {
    return e as Error;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
  throw new Error('connected although it should not');
}

test('wrong password, unknown user and a disabled mechanism are refused with Kafka\'s messages', async () => {
  const b = await start({ sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' }, mechanisms: ['PLAIN', 'SCRAM-SHA-256'] } });
  const wrong = await connectError({ clientId: 'x', sasl: { mechanism: 'plain', username: 'alice', password: 'nope' } }, b);
  assert.match(wrong.message, 'Authentication failed: Invalid username or password');
  const unknown = await connectError({ clientId: 'x', sasl: { mechanism: 'scram-sha-256', username: 'mallory', password: 'x' } }, b);
  assert.match(unknown.message, 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256');
  const badScram = await connectError({ clientId: 'x', sasl: { mechanism: 'scram-sha-256', username: 'bob', password: 'wrong' } }, b);
  assert.match(badScram.message, 'invalid credentials with SASL mechanism SCRAM-SHA-256');
  const mech = await connectError({ clientId: 'x', sasl: { mechanism: 'scram-sha-512', username: 'bob', password: 'bob-secret' } }, b);
  assert.match(mech.message, 'does not support the requested SASL mechanism');
  // The broker still serves a good client.
  await roundTrip({ clientId: 'ok', sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' } }, b, 'after-failures');
});

test('a plaintext client on a TLS port and a TLS client on a plaintext port fail; the broker keeps serving', async () => {
  const tlsBroker = await start({ tls: true });
  await connectError({ clientId: 'plain-on-tls' }, tlsBroker);
  const plainBroker = await start({});
  await connectError({ clientId: 'tls-on-plain', ssl: { rejectUnauthorized: false } }, plainBroker);
  await roundTrip({ clientId: 'ok', ssl: { ca: [tlsBroker.tls!.ca] } }, tlsBroker, 'still-tls');
  await roundTrip({ clientId: 'ok' }, plainBroker, 'still-plain');
});

test('KIP-368: kafkajs re-authenticates on the same connection before connections.max.reauth.ms runs out', async () => {
  const b = await start({ sasl: { scram: { bob: 'bob-secret' }, reauthMs: 2500 }, 'num.partitions': 1 });
  const kafka = new Kafka({
    clientId: 'reauth', brokers: [b.bootstrap], logLevel: logLevel.NOTHING, reauthenticationThreshold: 1500,
    sasl: { mechanism: 'scram-sha-256', username: 'bob', password: 'bob-secret' },
  });
  const producer = kafka.producer();
  await producer.connect();
  const handshakes: number[] = [];
  const rec = b.control.record({ apiKeys: [17, 36] });
  for (let i = 0; i < 4; i++) {
    const r = await producer.send({ topic: 'reauth', messages: [{ value: `v${i}` }] });
    assert.is(r[0]!.errorCode, 0);
    handshakes.push(b.broker.socketServer!.connectionCount);
    await new Promise((resolve) => setTimeout(resolve, 1200));
  }
  await producer.disconnect();
  // Four sends over ~5 s with 2.5 s sessions: served throughout, on no more connections than at the start.
  assert.ok(handshakes.every((n) => n <= handshakes[0]!), JSON.stringify(handshakes));
  assert.ok(rec.of(17).length >= 1, 'kafkajs sent SaslHandshake again (re-authentication)');
  assert.ok(rec.of(36).every((x) => (x as { response: { errorCode: number } }).response.errorCode === 0));
  rec.stop();
});

test.run();
