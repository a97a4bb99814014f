/**
 * kafka-python 2.0.2 (/usr/bin/python3) against Samsa: the producer with acks 0/1/all and gzip,
 * keys, headers and timestamps; an assign()-consumer without a group (group_id=None) reads back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { python } from '../support/external.js';
import { b64, describeRun, hostPort, jsonLines, produceKafkaPython, readKafkaPython, type OutRec } from '../support/clients.js';

let b: RunningBroker;
let bs: string;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1 } });
  bs = hostPort(b.port);
});

test.after(async () => {
  await b?.stop();
});

const T0 = 1_690_000_000_000;

function sample(n: number): OutRec[] {
  return Array.from({ length: n }, (_, i) => ({
    partition: 0,
    key: i % 3 === 0 ? null : Buffer.from(`kp-${i}`),
    value: i === 1 ? Buffer.alloc(0) : Buffer.concat([Buffer.from(`värde ${i} `), Buffer.from([0, 0x80, 0xff, i])]),
    headers: i % 2 === 0 ? [['trace', Buffer.from(`t${i}`)], ['raw', Buffer.from([1, 2, 0, i])]] : [],
    timestamp: T0 + i * 7,
  }));
}

for (const [acks, compression] of [[0, null], [1, null], ['all', null], [1, 'gzip'], ['all', 'gzip']] as const) {
  test(`kafka-python producer acks=${acks} compression=${compression ?? 'none'}, group-less consumer reads back exactly`, async () => {
    const topic = `kp-${acks}-${compression ?? 'none'}`;
    const recs = sample(12);
    const reports = await produceKafkaPython(bs, topic, recs, { acks, compression_type: compression, linger_ms: 5 });
    assert.is(reports.length, recs.length, JSON.stringify(reports));
    for (const r of reports) assert.is(r.error, null, JSON.stringify(r));
    if (acks !== 0) assert.equal(reports.map((r) => r.offset), recs.map((_, i) => i), 'acknowledged offsets');
    const read = await readKafkaPython(bs, topic, [0], recs.length);
    assert.is(read.records.length, recs.length, describeRun(read.raw));
    read.records.forEach((g, i) => {
      const w = recs[i];
      assert.is(g.offset, i);
      assert.is(g.key, b64(w.key), `key ${i}`);
      assert.is(g.value, b64(w.value), `value ${i}`);
      assert.equal(g.headers, (w.headers ?? []).map(([k, v]) => [k, b64(v)]), `headers ${i}`);
      assert.is(g.timestamp, w.timestamp, `timestamp ${i}`);
    });
  });
}

test('kafka-python consumer: partitions_for_topic, beginning/end offsets, offsets_for_times', async () => {
  const topic = 'kp-meta';
  const recs = sample(5);
  await produceKafkaPython(bs, topic, recs, { acks: 1 });
  const script = `
import sys, json
from kafka import KafkaConsumer, TopicPartition
c = KafkaConsumer(bootstrap_servers=sys.argv[1], group_id=None, enable_auto_commit=False, request_timeout_ms=15000)
t = sys.argv[2]
tp = TopicPartition(t, 0)
print(json.dumps({'partitions': sorted(c.partitions_for_topic(t) or [])}))
print(json.dumps({'begin': c.beginning_offsets([tp])[tp], 'end': c.end_offsets([tp])[tp]}))
r = c.offsets_for_times({tp: int(sys.argv[3])})[tp]
print(json.dumps({'offset': None if r is None else r.offset, 'timestamp': None if r is None else r.timestamp}))
c.close()
`;
  const res = await python(script, [bs, topic, String(T0 + 15)], { timeoutMs: 30_000 });
  assert.is(res.code, 0, describeRun(res));
  const [parts, wm, ts] = jsonLines(res, 'kafka-python offsets');
  assert.equal(parts, { partitions: [0] });
  assert.equal(wm, { begin: 0, end: 5 });
  // Timestamps are T0, T0+7, T0+14, T0+21, ...: the first at or after T0+15 is offset 3.
  assert.equal(ts, { offset: 3, timestamp: T0 + 21 });
});

test.run();
