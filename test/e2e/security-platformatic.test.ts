/**
 * @platformatic/kafka (SaslHandshake v1 + SaslAuthenticate v2 right after connecting, before
 * ApiVersions) over SSL, SASL_PLAINTEXT and SASL_SSL with PLAIN, SCRAM-SHA-256/512 and
 * OAUTHBEARER: its producer appends and its admin reads metadata; a wrong password is refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Admin, Producer } from '@platformatic/kafka';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { unsecuredJws } from '../../src/security/sasl/client.js';

let b: RunningBroker;
const port: Record<string, number> = {};

test.before(async () => {
  b = await startBroker({
    tls: true,
    sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' }, oauthbearer: true },
    config: {
      listeners: 'SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";',
      'num.partitions': 1,
    },
  });
  for (const l of b.broker.listeners) port[l.name] = l.boundPort;
});

test.after(async () => {
  await b?.stop();
});

type Sasl = { mechanism: 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512' | 'OAUTHBEARER'; username?: string; password?: string; token?: string };
const COMBOS: [string, Sasl | null][] = [
  ['SSL', null],
  ['SASL_PLAINTEXT', { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' }],
  ['SASL_PLAINTEXT', { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'bob-secret' }],
  ['SASL_SSL', { mechanism: 'SCRAM-SHA-512', username: 'bob', password: 'bob-secret' }],
  ['SASL_SSL', { mechanism: 'OAUTHBEARER', token: unsecuredJws('carol') }],
];

function options(protocol: string, sasl: Sasl | null) {
  return {
    bootstrapBrokers: [`localhost:${port[protocol]}`],
    retries: 1,
    timeout: 10_000,
    ...(protocol.endsWith('SSL') ? { tls: { ca: [b.tls!.ca] } } : {}),
    ...(sasl ? { sasl } : {}),
  };
}

for (const [protocol, sasl] of COMBOS) {
  test(`platformatic producer and admin over ${protocol}${sasl ? ` ${sasl.mechanism}` : ''}`, async () => {
    const topic = `pf-${protocol}-${sasl?.mechanism ?? 'tls'}`.toLowerCase();
    const producer = new Producer({ clientId: 'pf-sec', autocreateTopics: true, ...options(protocol, sasl) });
    try {
      const r = await producer.send({ acks: -1, messages: [{ topic, value: Buffer.from('a') }, { topic, value: Buffer.from('b') }] });
      assert.equal(r.offsets?.map((o) => o.offset), [0n]);
    } finally {
      await producer.close();
    }
    const admin = new Admin({ clientId: 'pf-sec-admin', ...options(protocol, sasl) });
    try {
      const md = await admin.metadata({ topics: [topic] });
      assert.is(md.topics.get(topic)!.partitionsCount, 1);
    } finally {
      await admin.close();
    }
  });
}

test('platformatic with a wrong password is refused', async () => {
  const admin = new Admin({ clientId: 'pf-bad', ...options('SASL_PLAINTEXT', { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'nope' }), retries: 0 });
  try {
    await admin.metadata({ topics: [] }).then(() => assert.unreachable('authenticated'), (e: Error & { errors?: Error[] }) => {
      const text = [e.message, ...(e.errors ?? []).map((x) => `${x.message} ${(x as { cause?: Error }).cause?.message ?? ''}`)].join(' ');
      assert.match(text, /authentication|SASL/i);
    });
  } finally {
    await admin.close();
  }
});

test.run();
