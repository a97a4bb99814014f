/**
 * Samsa's redelivery backoff for share groups (beyond Kafka), with confluent-kafka's
 * ShareConsumer: a record RELEASEd after its n-th delivery is offered again only after
 * base x 2^(n-1) ms (samsa.share.redelivery.backoff.ms, a lower bound: jitter only adds), while
 * the records behind it keep flowing. The exact figures are asserted on a manual clock in
 * test/coordinator/share/share-partition.test.ts; here they are observed end to end.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { venvPython } from '../support/external.js';
import { KafkaClient } from '../../src/cli/client.js';
import kafkajs from 'kafkajs';

const BASE_MS = 400;
let b: RunningBroker;

test.before(async () => {
  b = await startBroker({
    port: 0,
    config: {
      'group.share.heartbeat.interval.ms': 500, 'group.share.min.heartbeat.interval.ms': 500, 'group.share.assignment.interval.ms': 0,
      'group.share.delivery.count.limit': 6,
    },
  });
});

test.after(async () => {
  await b?.stop();
});

const SCRIPT = `
import sys, json, time
from confluent_kafka import ShareConsumer, AcknowledgeType
bs, topic, group = sys.argv[1], sys.argv[2], sys.argv[3]
c = ShareConsumer({'bootstrap.servers': bs, 'group.id': group, 'share.acknowledgement.mode': 'explicit'})
c.subscribe([topic])
poison, others = [], []
t0 = time.time()
while time.time() - t0 < 30 and (len(poison) < 4 or len(others) < 5):
    msgs = c.poll(0.05)
    for m in msgs:
        if m.error() is not None: continue
        v = m.value().decode()
        if v == 'poison':
            poison.append(time.time())
            c.acknowledge(m, AcknowledgeType.RELEASE if len(poison) < 4 else AcknowledgeType.ACCEPT)
        else:
            others.append((v, time.time()))
            c.acknowledge(m, AcknowledgeType.ACCEPT)
    if msgs: c.commit_sync()
print(json.dumps({'poison': poison, 'others': others}), flush=True)
c.close()
`;

test('a released record comes back after 1x, 2x, 4x the base backoff; records produced meanwhile are not held up', async () => {
  const topic = 'sg-backoff';
  const group = 'sg-backoff-workers';
  const kafka = new kafkajs.Kafka({ brokers: [b.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
  await admin.disconnect();
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  const alter = await c.request(44, { validateOnly: false, resources: [{ resourceType: 32, resourceName: group, configs: [
    { name: 'share.auto.offset.reset', configOperation: 0, value: 'earliest' },
    { name: 'samsa.share.redelivery.backoff.ms', configOperation: 0, value: String(BASE_MS) },
  ] }] });
  c.close();
  assert.is(alter.responses[0].errorCode, 0, alter.responses[0].errorMessage ?? '');
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [{ value: 'poison' }] });
  const run = venvPython(SCRIPT, [b.bootstrap, topic, group], { timeoutMs: 60_000 });
  // Records produced while the poison record waits out its backoff.
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 300));
    await producer.send({ topic, messages: [{ value: `ok-${i}` }] });
  }
  await producer.disconnect();
  const res = await run;
  assert.is(res.code, 0, res.stderr);
  const out = JSON.parse(res.stdout.split('\n').find((l) => l.startsWith('{'))!) as { poison: number[]; others: [string, number][] };
  assert.is(out.poison.length, 4, `deliveries of the released record: ${out.poison.length}`);
  const gaps = out.poison.slice(1).map((t, i) => Math.round((t - out.poison[i]) * 1000));
  console.log(`share groups: redeliveries of a released record after ${gaps.join(', ')} ms (base ${BASE_MS} ms)`);
  gaps.forEach((g, i) => assert.ok(g >= BASE_MS * 2 ** i - 50, `redelivery ${i + 1} after ${g} ms, expected at least ${BASE_MS * 2 ** i} ms`));
  const during = out.others.filter(([, t]) => t < out.poison[3]).length;
  assert.ok(during >= 3, `records behind the waiting one delivered meanwhile: ${during}`);
});

test.run();
