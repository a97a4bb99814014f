/**
 * Fuzzed SASL frames and TLS garbage: random and mutated handshakes, tokens and records against
 * SASL_PLAINTEXT, SASL_SSL and SSL listeners. Every bad connection is closed or refused; the broker
 * stays up and keeps serving a well-behaved client on each listener after every round.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import net from 'node:net';
import tls from 'node:tls';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { KafkaClient, type ClientSecurity } from '../../src/cli/client.js';
import { encodeRequest } from '../../src/protocol/wire.js';
import { saslClient } from '../../src/security/sasl/client.js';

let b: RunningBroker;
const port: Record<string, number> = {};

test.before(async () => {
  b = await startBroker({
    tls: true,
    sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' }, oauthbearer: true },
    config: {
      listeners: 'SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
      'connection.failed.authentication.delay.ms': 0,
    },
  });
  for (const l of b.broker.listeners) port[l.name] = l.boundPort;
});

test.after(async () => {
  await b?.stop();
});

// A small deterministic PRNG so a failure can be replayed.
let seed = Number(process.env.SAMSA_FUZZ_SEED ?? 0x5a5a);
function rand(n: number): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed % n;
}
function randomBytes(n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = rand(256);
  return b;
}
function mutate(buf: Buffer): Buffer {
  const out = Buffer.from(buf);
  const edits = 1 + rand(4);
  for (let i = 0; i < edits && out.length > 0; i++) out[rand(out.length)] = rand(256);
  return rand(5) === 0 ? out.subarray(0, rand(out.length + 1)) : out;
}
const framed = (payload: Buffer) => {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
};

/** Sends `chunks` on a fresh connection, then waits (bounded) for the broker to close or stay quiet. */
async function blast(portNo: number, useTls: boolean, chunks: Buffer[]): Promise<void> {
  await new Promise<void>((resolve) => {
    const s: net.Socket = useTls
      ? tls.connect({ host: '127.0.0.1', port: portNo, rejectUnauthorized: false })
      : net.connect({ host: '127.0.0.1', port: portNo });
    const done = () => {
      clearTimeout(timer);
      s.destroy();
      resolve();
    };
    const timer = setTimeout(done, 400);
    s.on('error', done);
    s.on('close', done);
    s.on('data', () => undefined);
    s.once(useTls ? 'secureConnect' : 'connect', () => {
      for (const c of chunks) s.write(c);
    });
  });
}

function saslFrames(): Buffer[] {
  const mechanism = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER', 'GSSAPI', ''][rand(6)]!;
  const hs = encodeRequest(17, rand(2), 1, 'fuzz', { mechanism });
  const cred = saslClient({ mechanism: mechanism === 'GSSAPI' || mechanism === '' ? 'PLAIN' : mechanism, username: 'bob', password: 'bob-secret', token: 'a.b.' });
  const token = cred.initial();
  const auth = encodeRequest(36, rand(3), 2, 'fuzz', { authBytes: rand(2) ? mutate(token) : randomBytes(rand(200)) });
  const frames: Buffer[] = [framed(rand(3) === 0 ? mutate(hs) : hs), framed(rand(3) === 0 ? mutate(auth) : auth)];
  switch (rand(6)) {
    case 0: frames.push(randomBytes(rand(64))); break; // raw garbage after
    case 1: frames.push(framed(randomBytes(rand(600)))); break; // a raw token
    case 2: frames.unshift(framed(encodeRequest(3, 12, 0, 'fuzz', { topics: null, allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }))); break;
    case 3: { const big = Buffer.alloc(4); big.writeInt32BE(0x7fffffff); frames.push(big); break; } // absurd size
    case 4: frames.push(framed(encodeRequest(36, 2, 3, 'fuzz', { authBytes: Buffer.from([1]) }))); break;
    default: break;
  }
  return frames;
}

async function healthy(): Promise<void> {
  const ca = [b.tls!.ca];
  const cases: [string, ClientSecurity][] = [
    ['SASL_PLAINTEXT', { protocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' } }],
    ['SASL_SSL', { protocol: 'SASL_SSL', tls: { ca }, sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' } }],
    ['SSL', { protocol: 'SSL', tls: { ca } }],
  ];
  for (const [name, security] of cases) {
    const c = await KafkaClient.connect({ bootstrap: `127.0.0.1:${port[name]}`, security, requestTimeoutMs: 5000 });
    await c.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    c.close();
  }
}

test('fuzzed SASL handshakes and tokens on SASL_PLAINTEXT and SASL_SSL never take the broker down', async () => {
  for (let round = 0; round < 12; round++) {
    await Promise.all(Array.from({ length: 8 }, (_, i) => blast(i % 2 ? port.SASL_PLAINTEXT! : port.SASL_SSL!, i % 2 === 0, saslFrames())));
    await healthy();
  }
});

test('TLS garbage: random bytes, mangled ClientHellos and plaintext Kafka frames on the TLS ports', async () => {
  const hello = Buffer.from('160301', 'hex');
  for (let round = 0; round < 10; round++) {
    const attacks: Promise<void>[] = [];
    for (const p of [port.SSL!, port.SASL_SSL!]) {
      attacks.push(blast(p, false, [randomBytes(1 + rand(2000))]));
      attacks.push(blast(p, false, [Buffer.concat([hello, randomBytes(rand(500))])]));
      attacks.push(blast(p, false, [framed(encodeRequest(18, 3, 1, 'x', { clientSoftwareName: 'x', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 }))]));
      // A valid TLS session, then garbage inside it.
      attacks.push(blast(p, true, [randomBytes(rand(300))]));
    }
    // TLS on the plaintext SASL port.
    attacks.push(blast(port.SASL_PLAINTEXT!, true, [randomBytes(10)]));
    await Promise.all(attacks);
    await healthy();
  }
  assert.ok(true);
});

test.run();
