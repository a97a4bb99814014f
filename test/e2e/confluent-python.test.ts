/**
 * confluent-kafka-python 1.7 (librdkafka 2.0.2, /usr/bin/python3) against Samsa: produce with
 * every compression.type and acks setting, keys, values, headers and explicit timestamps, then
 * read everything back with an assign()-consumer (no group) and compare byte for byte.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { python } from '../support/external.js';
import { b64, byPartitionOffset, describeRun, expectedView, hostPort, jsonLines, produceConfluent, readConfluent, type OutRec } from '../support/clients.js';

let b: RunningBroker;
let bs: string;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 2 } });
  bs = hostPort(b.port);
});

test.after(async () => {
  await b?.stop();
});

const T0 = 1_700_000_000_000;

function sample(tag: string, n: number): OutRec[] {
  const out: OutRec[] = [];
  for (let i = 0; i < n; i++) {
    out.push({
      partition: i % 2,
      key: i === 0 ? null : Buffer.from(`${tag}-key-${i}`),
      value: i === 1 ? Buffer.alloc(0) : Buffer.concat([Buffer.from(`${tag} value ${i} ✓ `), Buffer.from([0, 255, 1, 254, i & 0xff])]),
      headers: i === 2 ? [] : [['h', Buffer.from(`hv${i}`)], ['bin', Buffer.from([0xde, 0xad, i])], ['nul', null]],
      timestamp: T0 + i * 1000,
    });
  }
  return out;
}

for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
  test(`confluent producer compression.type=${compression}: delivery reports and exact read-back`, async () => {
    const topic = `cp-${compression}`;
    const recs = sample(compression, 8);
    const reports = await produceConfluent(bs, topic, recs, { 'compression.type': compression, acks: 'all' });
    assert.is(reports.length, recs.length);
    for (const r of reports) assert.is(r.error, null, JSON.stringify(r));
    // Per partition the reported offsets are 0..n-1.
    for (const p of [0, 1]) {
      const offs = reports.filter((r) => r.partition === p).map((r) => r.offset).sort((a, c) => a - c);
      assert.equal(offs, offs.map((_, i) => i), `partition ${p} offsets`);
    }
    const read = await readConfluent(bs, topic, [0, 1], recs.length);
    assert.equal(read.errors, [], describeRun(read.raw));
    assert.is(read.records.length, recs.length, describeRun(read.raw));
    const got = [...read.records].sort(byPartitionOffset);
    const want = recs.map((r, i) => ({ ...expectedView(r), i })).sort((a, c) => a.partition - c.partition || a.i - c.i);
    got.forEach((g, j) => {
      const w = want[j];
      assert.is(g.partition, w.partition);
      assert.is(g.offset, Math.floor(w.i / 2), 'offset within the partition');
      assert.is(g.key, w.key, `key of ${w.i}`);
      assert.is(g.value, w.value, `value of ${w.i}`);
      assert.equal(g.headers, w.headers, `headers of ${w.i}`);
      assert.is(g.timestamp, w.timestamp, `timestamp of ${w.i}`);
    });
  });
}

for (const acks of ['0', '1', 'all']) {
  test(`confluent producer acks=${acks} appends every record once, in order`, async () => {
    const topic = `cp-acks-${acks}`;
    const recs: OutRec[] = Array.from({ length: 20 }, (_, i) => ({
      partition: 0, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), timestamp: T0 + i,
    }));
    // acks=0 hears of no error: records sent while auto-creation is still electing the leader
    // would be dropped unseen (as with Kafka), so that topic exists first.
    if (acks === '0') {
      const admin = new kafkajs.Kafka({ brokers: [bs], logLevel: kafkajs.logLevel.NOTHING }).admin();
      await admin.connect();
      await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1 }] });
      await admin.disconnect();
    }
    const reports = await produceConfluent(bs, topic, recs, { acks, 'compression.type': 'lz4' });
    assert.is(reports.length, 20);
    for (const r of reports) assert.is(r.error, null, JSON.stringify(r));
    if (acks !== '0') assert.equal(reports.map((r) => r.offset), recs.map((_, i) => i));
    const read = await readConfluent(bs, topic, [0], 20);
    assert.is(read.records.length, 20, describeRun(read.raw));
    assert.equal(read.records.map((r) => r.offset), recs.map((_, i) => i));
    assert.equal(read.records.map((r) => r.value), recs.map((r) => b64(r.value)));
    assert.equal(read.records.map((r) => r.timestamp), recs.map((r) => r.timestamp));
  });
}

test('confluent consumer assigned at an explicit offset starts there; list_topics sees partitions', async () => {
  const topic = 'cp-offset';
  const recs: OutRec[] = Array.from({ length: 6 }, (_, i) => ({ partition: 0, key: null, value: Buffer.from(`m${i}`) }));
  await produceConfluent(bs, topic, recs, {});
  const script = `
import sys, json
from confluent_kafka import Consumer, TopicPartition
c = Consumer({'bootstrap.servers': sys.argv[1], 'group.id': 'unused', 'enable.auto.commit': False})
md = c.list_topics(sys.argv[2], timeout=10)
t = md.topics[sys.argv[2]]
print(json.dumps({'partitions': sorted(t.partitions.keys()), 'error': None if t.error is None else str(t.error)}))
lo, hi = c.get_watermark_offsets(TopicPartition(sys.argv[2], 0), timeout=10)
print(json.dumps({'low': lo, 'high': hi}))
c.assign([TopicPartition(sys.argv[2], 0, 4)])
got = []
import time
deadline = time.time() + 15
while len(got) < 2 and time.time() < deadline:
    m = c.poll(0.5)
    if m is None or m.error(): continue
    got.append([m.offset(), m.value().decode()])
print(json.dumps({'got': got}))
c.close()
`;
  const res = await python(script, [bs, topic], { timeoutMs: 30_000 });
  assert.is(res.code, 0, describeRun(res));
  const [md, wm, got] = jsonLines(res, 'confluent offsets');
  assert.equal(md, { partitions: [0, 1], error: null });
  assert.equal(wm, { low: 0, high: 6 });
  assert.equal(got.got, [[4, 'm4'], [5, 'm5']]);
});

test('confluent AdminClient: create_topics (validate_only, existing), create_partitions, describe/alter configs, delete_topics', async () => {
  const script = `
import sys, json
from confluent_kafka.admin import AdminClient, NewTopic, NewPartitions, ConfigResource
a = AdminClient({'bootstrap.servers': sys.argv[1]})
def outcome(fs):
    out = {}
    for k, f in fs.items():
        try:
            f.result(10); out[str(k)] = 'ok'
        except Exception as e:
            err = e.args[0] if e.args else e
            out[str(k)] = err.name() if hasattr(err, 'name') else repr(e)
    return out
print(json.dumps({'validate': outcome(a.create_topics([NewTopic('cpa-v', 2, 1)], validate_only=True))}))
print(json.dumps({'exists_after_validate': 'cpa-v' in a.list_topics(timeout=10).topics}))
print(json.dumps({'create': outcome(a.create_topics([NewTopic('cpa', 2, 1, config={'retention.ms': '7200000'})]))}))
print(json.dumps({'again': outcome(a.create_topics([NewTopic('cpa', 2, 1)]))}))
print(json.dumps({'grow': outcome(a.create_partitions([NewPartitions('cpa', 4)]))}))
print(json.dumps({'partitions': len(a.list_topics('cpa', timeout=10).topics['cpa'].partitions)}))
res = a.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, 'cpa')])
cfg = list(res.values())[0].result(10)
print(json.dumps({'retention.ms': cfg['retention.ms'].value, 'cleanup.policy': cfg['cleanup.policy'].value, 'default': cfg['cleanup.policy'].is_default}))
print(json.dumps({'alter': outcome(a.alter_configs([ConfigResource(ConfigResource.Type.TOPIC, 'cpa', set_config={'retention.ms': '60000'})]))}))
cfg = list(a.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, 'cpa')]).values())[0].result(10)
print(json.dumps({'retention.ms.after': cfg['retention.ms'].value}))
print(json.dumps({'delete': outcome(a.delete_topics(['cpa'], operation_timeout=10))}))
print(json.dumps({'delete_again': outcome(a.delete_topics(['cpa'], operation_timeout=10))}))
`;
  const res = await python(script, [bs], { timeoutMs: 45_000 });
  assert.is(res.code, 0, describeRun(res));
  const o = Object.assign({}, ...jsonLines(res, 'confluent admin'));
  assert.equal(o.validate, { 'cpa-v': 'ok' });
  assert.is(o.exists_after_validate, false);
  assert.equal(o.create, { cpa: 'ok' });
  assert.equal(o.again, { cpa: 'TOPIC_ALREADY_EXISTS' });
  assert.equal(o.grow, { cpa: 'ok' });
  assert.is(o.partitions, 4);
  assert.is(o['retention.ms'], '7200000');
  assert.is(o['cleanup.policy'], 'delete');
  assert.is(o.default, true);
  assert.equal(o.alter, { 'ConfigResource(Type.TOPIC,cpa)': 'ok' });
  assert.is(o['retention.ms.after'], '60000');
  assert.equal(o.delete, { cpa: 'ok' });
  assert.equal(o.delete_again, { cpa: 'UNKNOWN_TOPIC_OR_PART' });
});

test.run();
