/**
 * A KIP-848 consumer group (confluent-kafka-python 2.x from the test venv, group.protocol=consumer)
 * in /metrics and the console: its lag per partition equals high watermark minus committed, its
 * page shows the group type, members and assignment, and, once it is empty, a form post resets its
 * offsets to the earliest. Not a browser test (fetch and the page's own form token).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { VENV_PYTHON, venvPython } from '../support/external.js';
import { CONSUMER_PROTOCOL_BROKER_CONFIG } from '../support/consumer-protocol-scenarios.js';
import { parsePrometheusText, value } from '../support/prom-text.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = existsSync(VENV_PYTHON) ? null : `no ${VENV_PYTHON} (tools/ensure-test-deps.sh)`;
if (missing && IN_CI) throw new Error(`consumer-group-metrics: required under CI: ${missing}`);

const TOPIC = 'kip848-metrics';
const GROUP = 'kip848-metrics-g';
let b: RunningBroker;

/** Consumes `count` records with group.protocol=consumer, commits, prints the assignment, closes. */
const CONSUME = `
import sys, json
from confluent_kafka import Consumer
c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': sys.argv[2], 'group.protocol': 'consumer',
              'client.id': 'kip848-metrics', 'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
c.subscribe([sys.argv[3]])
want = int(sys.argv[4]); seen = 0
while seen < want:
    m = c.poll(1.0)
    if m is None or m.error(): continue
    seen += 1
c.commit(asynchronous=False)
print(json.dumps(sorted(p.partition for p in c.assignment())), flush=True)
c.close()
`;

test.before(async () => {
  if (missing) return;
  b = await startBroker({ http: true, config: { ...CONSUMER_PROTOCOL_BROKER_CONFIG, 'offsets.topic.num.partitions': 1 } });
});

test.after(async () => {
  await b?.stop();
});

async function metrics() {
  return parsePrometheusText(await (await fetch(`${b.httpUrl}/metrics`)).text());
}

test('a consumer-protocol group: lag, its page, and a reset once empty', async () => {
  if (missing) return;
  const kafka = new Kafka({ clientId: 'kip848-metrics', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 2 }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, messages: Array.from({ length: 8 }, (_, i) => ({ value: `v${i}`, partition: i % 2 })) });

  const consumed = await venvPython(CONSUME, [b.bootstrap, GROUP, TOPIC, '8'], { timeoutMs: 60_000 });
  assert.is(consumed.code, 0, consumed.stderr);
  assert.equal(JSON.parse(consumed.stdout.trim()), [0, 1]);
  await producer.send({ topic: TOPIC, messages: [{ value: 'x', partition: 0 }, { value: 'y', partition: 0 }, { value: 'z', partition: 1 }] });
  await producer.disconnect();

  const f = await metrics();
  for (const [p, lag] of [['0', 2], ['1', 1]] as const) {
    const labels = { consumergroup: GROUP, topic: TOPIC, partition: p };
    assert.is(value(f, 'kafka_consumergroup_current_offset', labels), 4);
    assert.is(value(f, 'kafka_consumergroup_lag', labels), lag);
    assert.is(value(f, 'kafka_consumergroup_lag', labels), value(f, 'kafka_log_log_highwatermark', { topic: TOPIC, partition: p }) - 4);
  }

  const html = await (await fetch(`${b.httpUrl}/groups/${GROUP}`)).text();
  assert.match(html, /State <b id="group-state">Empty<\/b>/);
  assert.match(html, /<span id="group-type">consumer<\/span> group/);
  assert.match(html, /total lag <b id="group-lag">3<\/b>/);
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1];
  assert.ok(csrf, 'the page carries the form token');
  const res = await fetch(`${b.httpUrl}/groups/${GROUP}/reset`, {
    method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrf!, to: 'earliest', topic: '' }).toString(),
  });
  assert.is(res.status, 303);
  const back = new URL(res.headers.get('location') ?? '', b.httpUrl!).searchParams;
  assert.match(back.get('notice') ?? `error: ${back.get('error')}`, /^Reset 2 partition/);
  const after = await metrics();
  for (const p of ['0', '1']) assert.is(value(after, 'kafka_consumergroup_current_offset', { consumergroup: GROUP, topic: TOPIC, partition: p }), 0);
  assert.is(value(after, 'kafka_consumergroup_lag_sum', { consumergroup: GROUP, topic: TOPIC }), 11);
});

test.run();
