/**
 * Consumer groups with librdkafka (confluent-kafka-python: range, cooperative-sticky, static
 * membership), kafka-python's group consumer, and kcat -G.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { answer } from '../../src/coordinator/runtime/runtime.js';
import { kcat, python, type RunResult } from '../support/external.js';

const { Kafka, logLevel } = kafkajs;
process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';

let b: RunningBroker;
let kafka: kafkajs.Kafka;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'group.min.session.timeout.ms': 1000 } });
  kafka = new Kafka({ clientId: 'setup', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
});

test.after(async () => {
  await b?.stop();
});

async function topicWith(topic: string, partitions: number, count: number): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  if (count > 0) await producer.send({ topic, messages: Array.from({ length: count }, (_, i) => ({ value: `v${i}`, partition: i % partitions })) });
  await producer.disconnect();
}

async function committed(groupId: string, topic: string): Promise<Record<number, string>> {
  const admin = kafka.admin();
  await admin.connect();
  const r = await admin.fetchOffsets({ groupId, topics: [topic] });
  await admin.disconnect();
  return Object.fromEntries(r[0].partitions.map((p) => [p.partition, p.offset]));
}

async function generation(groupId: string): Promise<number | undefined> {
  const coord = b.broker.groupCoordinator;
  return coord.runtime.schedule(coord.partitionFor(groupId), (s) => answer(s.groups.groups.get(groupId)?.generationId));
}

function lines(r: RunResult): any[] {
  if (r.code !== 0) throw new Error(`client failed (${r.code}${r.timedOut ? ', timed out' : ''}): ${r.stderr.slice(-2000)}`);
  return r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
}

/**
 * Two confluent-kafka consumers of one group, polled in turn: once their assignments have
 * settled, `total` records are produced and consumed; each message is committed (a commit racing
 * a rebalance may fail, as with Kafka: that is tolerated), and positions are committed at the end.
 */
const TWO_CONSUMERS = `
import json, sys, time
from confluent_kafka import Consumer, Producer, KafkaException
bootstrap, group, topic, strategy, total = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
def make(name):
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'client.id': name,
                  'partition.assignment.strategy': strategy, 'auto.offset.reset': 'earliest',
                  'session.timeout.ms': 6000, 'heartbeat.interval.ms': 500, 'enable.auto.commit': False})
    c.subscribe([topic])
    return c
seen = {'a': [], 'b': []}
def poll(name, c):
    m = c.poll(0.1)
    if m is not None and m.error() is None:
        seen[name].append([m.partition(), m.offset()])
        try:
            c.commit(message=m, asynchronous=False)
        except KafkaException:
            pass
def parts(c):
    return sorted(p.partition for p in c.assignment())
a = make('a')
deadline = time.time() + 40
while not a.assignment() and time.time() < deadline:
    poll('a', a)
b = make('b')
settled_at, last = None, None
while time.time() < deadline:
    poll('a', a); poll('b', b)
    now = (parts(a), parts(b))
    if now != last:
        last, settled_at = now, time.time()
    elif now[0] and now[1] and len(now[0]) + len(now[1]) == 4 and time.time() - settled_at > 1.5:
        break
p = Producer({'bootstrap.servers': bootstrap})
for i in range(total):
    p.produce(topic, value=('v%d' % i).encode(), partition=i % 4)
p.flush(10)
while len(seen['a']) + len(seen['b']) < total and time.time() < deadline:
    poll('a', a); poll('b', b)
for c in (a, b):
    for attempt in range(5):
        try:
            c.commit(asynchronous=False)
            break
        except KafkaException:
            poll('a', a); poll('b', b)
print(json.dumps({'a': parts(a), 'b': parts(b), 'seen': seen}))
a.close(); b.close()
`;

for (const strategy of ['range', 'cooperative-sticky']) {
  test(`confluent-kafka (librdkafka) group consumers with ${strategy}: partitions split, each record once, commits`, async () => {
    const topic = `ck-${strategy}`;
    await topicWith(topic, 4, 0);
    const [out] = lines(await python(TWO_CONSUMERS, [b.bootstrap, `ck-group-${strategy}`, topic, strategy, '80'], { timeoutMs: 60000 }));
    assert.is(out.a.length + out.b.length, 4);
    assert.ok(out.a.length > 0 && out.b.length > 0, `both members own partitions: ${JSON.stringify(out)}`);
    const all = [...out.seen.a, ...out.seen.b].map(([p, o]: [number, number]) => `${p}:${o}`);
    assert.is(new Set(all).size, 80, 'every record, no duplicates');
    assert.is(all.length, 80);
    assert.equal(await committed(`ck-group-${strategy}`, topic), { 0: '20', 1: '20', 2: '20', 3: '20' });
  });
}

const STATIC_MEMBER = `
import json, sys, time
from confluent_kafka import Consumer
bootstrap, group, topic = sys.argv[1], sys.argv[2], sys.argv[3]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'group.instance.id': 'static-1',
              'session.timeout.ms': 10000, 'heartbeat.interval.ms': 500, 'auto.offset.reset': 'earliest'})
c.subscribe([topic])
deadline = time.time() + 30
while not c.assignment() and time.time() < deadline:
    c.poll(0.2)
print(json.dumps({'assigned': sorted(p.partition for p in c.assignment())}))
c.close()
`;

test('librdkafka static membership: a restarted member rejoins without a rebalance', async () => {
  await topicWith('static-topic', 2, 2);
  const [first] = lines(await python(STATIC_MEMBER, [b.bootstrap, 'static-group', 'static-topic'], { timeoutMs: 40000 }));
  assert.equal(first.assigned, [0, 1]);
  const gen = await generation('static-group');
  assert.ok(gen !== undefined && gen >= 1);
  const [second] = lines(await python(STATIC_MEMBER, [b.bootstrap, 'static-group', 'static-topic'], { timeoutMs: 40000 }));
  assert.equal(second.assigned, [0, 1]);
  assert.is(await generation('static-group'), gen, 'same generation: no rebalance');
  const admin = kafka.admin();
  await admin.connect();
  const d = await admin.describeGroups(['static-group']);
  await admin.disconnect();
  assert.is(d.groups[0].state, 'Stable', 'a static member closing does not leave the group');
  assert.is(d.groups[0].members.length, 1);
});

const KAFKA_PYTHON = `
import json, sys
from kafka import KafkaConsumer
from kafka.structs import TopicPartition
bootstrap, group, topic, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, auto_offset_reset='earliest',
                  enable_auto_commit=False, consumer_timeout_ms=20000, session_timeout_ms=6000, heartbeat_interval_ms=500)
seen = []
for m in c:
    seen.append([m.partition, m.offset])
    if len(seen) >= total:
        break
c.commit()
committed = {p: c.committed(TopicPartition(topic, p)) for p in sorted(c.partitions_for_topic(topic))}
print(json.dumps({'seen': seen, 'committed': committed}))
c.close()
`;

test('kafka-python group consumer with commits', async () => {
  await topicWith('kp-topic', 3, 30);
  const [out] = lines(await python(KAFKA_PYTHON, [b.bootstrap, 'kp-group', 'kp-topic', '30'], { timeoutMs: 60000 }));
  assert.is(new Set(out.seen.map((s: number[]) => s.join(':'))).size, 30);
  assert.equal(out.committed, { 0: 10, 1: 10, 2: 10 });
  assert.equal(await committed('kp-group', 'kp-topic'), { 0: '10', 1: '10', 2: '10' });
  // Resuming: a second run reads nothing new (committed offsets are at the end).
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'kp-topic', messages: [{ value: 'late', partition: 1 }] });
  await producer.disconnect();
  const [again] = lines(await python(KAFKA_PYTHON, [b.bootstrap, 'kp-group', 'kp-topic', '1'], { timeoutMs: 60000 }));
  assert.equal(again.seen, [[1, 10]]);
});

test('kcat -G balanced consumer reads every record and commits', async () => {
  await topicWith('kcat-topic', 2, 20);
  const r = await kcat(['-b', b.bootstrap, '-G', 'kcat-group', '-o', 'beginning', '-c', '20', '-f', '%p:%o\\n', '-X', 'auto.commit.interval.ms=100', 'kcat-topic'], { timeoutMs: 40000 });
  assert.is(r.code, 0, r.stderr);
  const got = r.stdout.split('\n').filter(Boolean);
  assert.is(new Set(got).size, 20);
  const c = await committed('kcat-group', 'kcat-topic');
  assert.equal(c, { 0: '10', 1: '10' });
});

test.run();
