/**
 * SASL on the wire, Samsa against a real Apache Kafka 4.4 with the same listener settings: the
 * same request sequences must give the same answers (error codes, messages, mechanism lists,
 * session lifetimes) and close the connection at the same points.
 * @samsa-timeout 240
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kafkaOrSkip } from '../support/kafka.js';
import type { RunningKafka } from '../../tools/kafka/kafka.js';
import { KafkaClient } from '../../src/cli/client.js';
import { saltPassword } from '../../src/security/sasl/scram.js';
import { saslClient } from '../../src/security/sasl/client.js';
import { RawConnection, METADATA_ALL } from '../support/raw-connection.js';

const SETTINGS: Record<string, string> = {
  'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,OAUTHBEARER',
  'listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config': 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;',
  'listener.name.sasl_plaintext.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_admin="admin-secret";',
  'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
  'connections.max.reauth.ms': '60000',
};

let kafka: RunningKafka | null = null;
let samsa: RunningBroker;
const ports: { kafka?: { plain: number; sasl: number }; samsa?: { plain: number; sasl: number } } = {};

test.before(async () => {
  kafka = await kafkaOrSkip('SASL differential', { extraListeners: { SASL_PLAINTEXT: 'SASL_PLAINTEXT' }, overrides: SETTINGS });
  if (kafka) ports.kafka = { plain: kafka.port, sasl: kafka.listenerPorts.SASL_PLAINTEXT! };
  samsa = await startBroker({ config: { listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0', ...SETTINGS } });
  ports.samsa = { plain: samsa.broker.listeners.find((l) => l.name === 'PLAINTEXT')!.boundPort, sasl: samsa.broker.listeners.find((l) => l.name === 'SASL_PLAINTEXT')!.boundPort };
  // The same SCRAM user on both (over PLAINTEXT).
  for (const target of ['kafka', 'samsa'] as const) {
    const p = ports[target];
    if (!p) continue;
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${p.plain}` });
    const salt = randomBytes(16);
    const r = await c.send(51, 0, { deletions: [], upsertions: [{ name: 'bob', mechanism: 1, iterations: 4096, salt, saltedPassword: saltPassword('SCRAM-SHA-256', 'bob-secret', salt, 4096) }] });
    assert.is(r.results[0]!.errorCode, 0, `${target}: ${r.results[0]!.errorMessage}`);
    // Kafka's brokers learn the credential from the metadata log a moment later.
    for (let i = 0; i < 50; i++) {
      const d = await c.send(50, 0, { users: [{ name: 'bob' }] });
      if (d.results[0]!.errorCode === 0) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    c.close();
  }
});

test.after(async () => {
  await samsa?.stop();
  await kafka?.stop();
});

type Step = (c: RawConnection) => Promise<unknown>;

/** Runs the steps on a fresh SASL connection; each step's answer, then whether the connection ended. */
async function scenario(target: 'kafka' | 'samsa', steps: Step[]): Promise<unknown[]> {
  const c = await RawConnection.open(ports[target]!.sasl);
  const out: unknown[] = [];
  for (const s of steps) {
    if (c.closed) {
      out.push('closed');
      continue;
    }
    out.push(await s(c));
  }
  const closed = await Promise.race([c.closedPromise.then(() => true), new Promise((r) => setTimeout(() => r(false), 1500))]);
  out.push(closed ? 'connection closed' : 'connection open');
  c.close();
  return out;
}

const handshake = (mechanism: string, v = 1): Step => async (c) => {
  const r = await c.request(17, v, { mechanism });
  return r && { errorCode: r.errorCode, mechanisms: r.mechanisms };
};
const authenticate = (token: Buffer | string, v = 2): Step => async (c) => {
  const r = await c.request(36, v, { authBytes: Buffer.from(token) });
  return r && { errorCode: r.errorCode, errorMessage: r.errorMessage, sessionLifetimeMs: r.sessionLifetimeMs.toString(), hasBytes: r.authBytes.length > 0 };
};
const metadata: Step = async (c) => {
  const r = await c.request(3, 12, METADATA_ALL);
  return r && { brokers: r.brokers.length };
};
const apiVersions: Step = async (c) => {
  const r = await c.request(18, 3, { clientSoftwareName: 'diff', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
  return r && { errorCode: r.errorCode };
};
const raw = (token: string): Step => async (c) => {
  c.writeFrame(Buffer.from(token));
  const f = await c.next(3000);
  return f === null ? null : { rawTokenBytes: f.length };
};
/** SCRAM with our client: first message, then the final one computed from the server's challenge. */
const scram = (user: string, password: string): Step => async (c) => {
  const client = saslClient({ mechanism: 'SCRAM-SHA-256', username: user, password });
  const first = await c.request(36, 2, { authBytes: client.initial() });
  if (!first || first.errorCode !== 0) return first && { errorCode: first.errorCode, errorMessage: first.errorMessage };
  const fin = await c.request(36, 2, { authBytes: client.respond(first.authBytes)! });
  return fin && { errorCode: fin.errorCode, errorMessage: fin.errorMessage, sessionLifetimeMs: fin.sessionLifetimeMs.toString() };
};

const jws = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'none' }) => {
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc(header)}.${enc(claims)}.`;
};
const bearer = (token: string, authzid = '') => `n,${authzid ? `a=${authzid}` : ''},\u0001auth=Bearer ${token}\u0001\u0001`;
const later = () => Math.floor(Date.now() / 1000) + 3600;

const SCENARIOS: Record<string, Step[]> = {
  'OAUTHBEARER valid unsecured token': [handshake('OAUTHBEARER'), authenticate(bearer(jws({ sub: 'carol', exp: later() }))), metadata],
  'OAUTHBEARER expired token: error challenge, then %x01': [handshake('OAUTHBEARER'), authenticate(bearer(jws({ sub: 'carol', exp: 1000 }))), authenticate('\u0001')],
  'OAUTHBEARER token without sub': [handshake('OAUTHBEARER'), authenticate(bearer(jws({ exp: later() }))), authenticate('\u0001')],
  'OAUTHBEARER signed token (alg HS256)': [handshake('OAUTHBEARER'), authenticate(bearer(jws({ sub: 'carol', exp: later() }, { alg: 'HS256' }))), authenticate('\u0001')],
  'OAUTHBEARER other authorization id': [handshake('OAUTHBEARER'), authenticate(bearer(jws({ sub: 'carol', exp: later() }), 'dave'))],
  'OAUTHBEARER malformed message': [handshake('OAUTHBEARER'), authenticate('n,,auth=Bearer x')],
  'PLAIN success, lifetime, then requests': [apiVersions, handshake('PLAIN'), authenticate('\0alice\0alice-secret'), metadata],
  'PLAIN wrong password': [handshake('PLAIN'), authenticate('\0alice\0nope'), metadata],
  'PLAIN unknown user, v0 SaslAuthenticate': [handshake('PLAIN'), authenticate('\0zed\0x', 0)],
  'PLAIN empty password': [handshake('PLAIN'), authenticate('\0alice\0', 1)],
  'PLAIN authorization id of someone else': [handshake('PLAIN'), authenticate('admin\0alice\0alice-secret')],
  'PLAIN malformed token': [handshake('PLAIN'), authenticate('alice-secret')],
  'unsupported mechanism': [handshake('SCRAM-SHA-512'), metadata],
  'GSSAPI not enabled': [apiVersions, handshake('GSSAPI')],
  'a request before authentication': [metadata],
  'ApiVersions twice': [apiVersions, apiVersions],
  'SaslAuthenticate without handshake': [authenticate('\0alice\0alice-secret')],
  'another request after the handshake': [handshake('PLAIN'), metadata],
  'SaslHandshake v0 then a raw token': [handshake('PLAIN', 0), raw('\0alice\0alice-secret'), metadata],
  'SaslHandshake v0 then a bad raw token': [handshake('PLAIN', 0), raw('\0alice\0wrong-password')],
  'SCRAM success': [handshake('SCRAM-SHA-256'), scram('bob', 'bob-secret'), metadata],
  'SCRAM wrong password': [handshake('SCRAM-SHA-256'), scram('bob', 'wrong')],
  'SCRAM unknown user': [handshake('SCRAM-SHA-256'), scram('nobody', 'x')],
  're-authentication as the same user': [handshake('PLAIN'), authenticate('\0alice\0alice-secret'), handshake('PLAIN'), authenticate('\0alice\0alice-secret'), metadata],
  're-authentication as another user': [handshake('PLAIN'), authenticate('\0alice\0alice-secret'), handshake('PLAIN'), authenticate('\0admin\0admin-secret')],
  're-authentication with another mechanism': [handshake('PLAIN'), authenticate('\0alice\0alice-secret'), handshake('SCRAM-SHA-256'), scram('bob', 'bob-secret')],
};

for (const [name, steps] of Object.entries(SCENARIOS)) {
  test(`same as Kafka: ${name}`, async () => {
    const s = await scenario('samsa', steps);
    if (!kafka) return;
    const k = await scenario('kafka', steps);
    assert.equal(s, k, `samsa ${JSON.stringify(s)}\nkafka ${JSON.stringify(k)}`);
  });
}

test.run();
