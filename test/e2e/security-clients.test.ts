/**
 * Real clients over SSL, SASL_PLAINTEXT and SASL_SSL with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512:
 * kcat (librdkafka 2.0.2: SaslAuthenticate v0, and its doubled SCRAM nonce, librdkafka#4895), confluent-kafka 2.x (librdkafka 2.15+, also
 * OAUTHBEARER with librdkafka's unsecured JWT), kafka-python 3 (SaslHandshake v1) and kafka-python
 * 2.0.2 (SaslHandshake v0, then raw SASL tokens). Each produces and reads back on every
 * combination; wrong passwords are refused.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kcat, python, venvPython } from '../support/external.js';
import { describeRun, jsonLines } from '../support/clients.js';

let b: RunningBroker;
const port: Record<string, number> = {};

const PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";';

test.before(async () => {
  b = await startBroker({
    tls: true,
    sasl: { plain: { alice: 'alice-secret' }, scram: { bob: 'bob-secret' }, oauthbearer: true },
    config: {
      listeners: 'SASL_SSL://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.jaas.config': PLAIN_JAAS,
      'num.partitions': 1,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
  for (const l of b.broker.listeners) port[l.name] = l.boundPort;
});

test.after(async () => {
  await b?.stop();
});

const COMBOS: { protocol: string; mechanism: string | null; user: string; password: string }[] = [
  { protocol: 'SSL', mechanism: null, user: '', password: '' },
  ...['SASL_PLAINTEXT', 'SASL_SSL'].flatMap((protocol) => [
    { protocol, mechanism: 'PLAIN', user: 'alice', password: 'alice-secret' },
    { protocol, mechanism: 'SCRAM-SHA-256', user: 'bob', password: 'bob-secret' },
    { protocol, mechanism: 'SCRAM-SHA-512', user: 'bob', password: 'bob-secret' },
  ]),
];

const topicFor = (client: string, c: { protocol: string; mechanism: string | null }) =>
  `${client}-${c.protocol}-${c.mechanism ?? 'tls'}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');

function rdkafkaProps(c: { protocol: string; mechanism: string | null; user: string; password: string }): Record<string, string> {
  const p: Record<string, string> = { 'security.protocol': c.protocol };
  if (c.protocol.endsWith('SSL')) p['ssl.ca.location'] = b.tls!.caFile;
  if (c.mechanism) Object.assign(p, { 'sasl.mechanisms': c.mechanism, 'sasl.username': c.user, 'sasl.password': c.password });
  return p;
}

test('kcat (librdkafka 2.0.2) produces and consumes on every protocol and mechanism, and OAUTHBEARER', async () => {
  const combos = [...COMBOS.map((c) => ({ c, props: rdkafkaProps(c) })), {
    c: { protocol: 'SASL_SSL', mechanism: 'OAUTHBEARER', user: '', password: '' },
    props: { 'security.protocol': 'SASL_SSL', 'ssl.ca.location': b.tls!.caFile, 'sasl.mechanisms': 'OAUTHBEARER', 'enable.sasl.oauthbearer.unsecure.jwt': 'true', 'sasl.oauthbearer.config': 'principal=carol' },
  }];
  for (const { c, props } of combos) {
    const x = Object.entries(props).flatMap(([k, v]) => ['-X', `${k}=${v}`]);
    const bs = `127.0.0.1:${port[c.protocol]}`;
    const topic = topicFor('kcat', c);
    const prod = await kcat(['-b', bs, ...x, '-P', '-t', topic], { input: 'm1\nm2\nm3\n' });
    assert.is(prod.code, 0, `${topic} produce: ${describeRun(prod)}`);
    const cons = await kcat(['-b', bs, ...x, '-C', '-t', topic, '-o', 'beginning', '-e', '-c', '3', '-q']);
    assert.is(cons.code, 0, `${topic} consume: ${describeRun(cons)}`);
    assert.equal(cons.stdout.trim().split('\n'), ['m1', 'm2', 'm3'], topic);
  }
  const bad = await kcat(['-b', `127.0.0.1:${port.SASL_PLAINTEXT}`, ...Object.entries(rdkafkaProps({ ...COMBOS[1]!, password: 'wrong' })).flatMap(([k, v]) => ['-X', `${k}=${v}`]), '-L'], { timeoutMs: 15_000 });
  assert.is.not(bad.code, 0);
  assert.match(bad.stderr, 'Invalid username or password');
});

test('confluent-kafka 2.x: producer and group consumer on every combination, OAUTHBEARER; a wrong SCRAM password fails', async () => {
  const script = `
import sys, json
from confluent_kafka import Producer, Consumer
combos = json.loads(sys.argv[1])
for c in combos:
    conf = dict(c['props'])
    conf['bootstrap.servers'] = c['bs']
    p = Producer(conf)
    for v in ('m1', 'm2', 'm3'):
        p.produce(c['topic'], v.encode())
    left = p.flush(20)
    cc = dict(conf)
    cc.update({'group.id': 'g-' + c['topic'], 'auto.offset.reset': 'earliest'})
    k = Consumer(cc)
    k.subscribe([c['topic']])
    got = []
    for _ in range(60):
        m = k.poll(0.5)
        if m is not None and m.error() is None:
            got.append(m.value().decode())
        if len(got) >= 3:
            break
    k.close()
    print(json.dumps({'topic': c['topic'], 'left': left, 'got': got}), flush=True)
errs = []
conf = dict(combos[2]['props']); conf['bootstrap.servers'] = combos[2]['bs']; conf['sasl.password'] = 'wrong'
conf['error_cb'] = lambda e: errs.append(e.str())
p = Producer(conf)
p.poll(5)
print(json.dumps({'bad': errs[:1]}), flush=True)
`;
  const combos = [...COMBOS.map((c) => ({ bs: `127.0.0.1:${port[c.protocol]}`, topic: topicFor('ck', c), props: rdkafkaProps(c) })), {
    bs: `127.0.0.1:${port.SASL_SSL}`, topic: 'ck-oauthbearer',
    props: { 'security.protocol': 'SASL_SSL', 'ssl.ca.location': b.tls!.caFile, 'sasl.mechanisms': 'OAUTHBEARER', 'enable.sasl.oauthbearer.unsecure.jwt': 'true', 'sasl.oauthbearer.config': 'principal=carol' },
  }];
  const res = await venvPython(script, [JSON.stringify(combos)], { timeoutMs: 150_000 });
  assert.is(res.code, 0, describeRun(res));
  const lines = jsonLines(res, 'confluent-kafka');
  for (const c of combos) {
    const l = lines.find((x) => x.topic === c.topic);
    assert.equal(l, { topic: c.topic, left: 0, got: ['m1', 'm2', 'm3'] }, describeRun(res));
  }
  assert.match(lines.find((x) => x.bad)!.bad[0], 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256');
});

const KP_SCRIPT = `
import sys, json
from kafka import KafkaProducer, KafkaConsumer, TopicPartition
from kafka.errors import KafkaError
combos = json.loads(sys.argv[1])
for c in combos:
    kw = c['kw']
    p = KafkaProducer(bootstrap_servers=c['bs'], **kw)
    for v in (b'm1', b'm2', b'm3'):
        p.send(c['topic'], v).get(20)
    p.close()
    k = KafkaConsumer(bootstrap_servers=c['bs'], group_id=None, enable_auto_commit=False, consumer_timeout_ms=8000, **kw)
    tp = TopicPartition(c['topic'], 0)
    k.assign([tp]); k.seek_to_beginning(tp)
    got = []
    for m in k:
        got.append(m.value.decode())
        if len(got) >= 3:
            break
    k.close()
    print(json.dumps({'topic': c['topic'], 'got': got}), flush=True)
try:
    c = combos[1]
    kw = dict(c['kw']); kw['sasl_plain_password'] = 'wrong'
    KafkaProducer(bootstrap_servers=c['bs'], **kw).close()
    print(json.dumps({'bad': 'connected'}))
except Exception as e:
    print(json.dumps({'bad': repr(e)}))
`;

function kpCombos(client: string, combos = COMBOS) {
  return combos.map((c) => {
    const kw: Record<string, unknown> = { security_protocol: c.protocol, request_timeout_ms: 20000 };
    if (c.protocol.endsWith('SSL')) kw.ssl_cafile = b.tls!.caFile;
    if (c.mechanism) Object.assign(kw, { sasl_mechanism: c.mechanism, sasl_plain_username: c.user, sasl_plain_password: c.password });
    return { bs: `127.0.0.1:${port[c.protocol]}`, topic: topicFor(client, c), kw };
  });
}

for (const [name, run] of [['kafka-python 3 (SaslHandshake v1 + SaslAuthenticate)', venvPython], ['kafka-python 2.0.2 (SaslHandshake v0, raw tokens)', python]] as const) {
  test(`${name}: every combination round-trips; a wrong password is refused`, async () => {
    const combos = kpCombos(name.startsWith('kafka-python 3') ? 'kp3' : 'kp2');
    const res = await run(KP_SCRIPT, [JSON.stringify(combos)], { timeoutMs: 150_000 });
    assert.is(res.code, 0, describeRun(res));
    const lines = jsonLines(res, name);
    for (const c of combos) assert.equal(lines.find((x) => x.topic === c.topic), { topic: c.topic, got: ['m1', 'm2', 'm3'] }, describeRun(res));
    // kafka-python reports a refused login as a failed bootstrap.
    assert.match(lines.find((x) => x.bad)!.bad, /Unable to bootstrap|NoBrokersAvailable/);
  });
}

test.run();
