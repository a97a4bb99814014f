/**
 * kcat 1.7 (librdkafka 2.0.2) against a real Samsa broker: produce with keys, headers and every
 * compression codec, read back exactly with a format string and with -J, list metadata, and
 * produce to one partition.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kcat } from '../support/external.js';
import { describeRun, hostPort, parseKcatOutput, readKcat, b64, type Rec } from '../support/clients.js';

const { Kafka, logLevel } = kafkajs;

let b: RunningBroker;
let bs: string;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1 } });
  bs = hostPort(b.port);
});

test.after(async () => {
  await b?.stop();
});

async function createTopic(topic: string, numPartitions: number): Promise<void> {
  const admin = new Kafka({ clientId: 'e2e-kcat-admin', brokers: [bs], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

const LINES = ['k1:v1', 'k2:value two', 'ключ:значение ✓', ':empty-key', 'k5:'];
const EXPECTED = [
  { key: 'k1', value: 'v1' },
  { key: 'k2', value: 'value two' },
  { key: 'ключ', value: 'значение ✓' },
  { key: '', value: 'empty-key' },
  { key: 'k5', value: '' },
];

for (const codec of ['none', 'snappy', 'gzip', 'lz4', 'zstd']) {
  test(`kcat -P -K: -H with -z ${codec}, then -C -e -f reads back exactly`, async () => {
    const topic = `kcat-${codec}`;
    const before = Date.now();
    const z = codec === 'none' ? [] : ['-z', codec];
    const res = await kcat(['-P', '-b', bs, '-t', topic, '-K:', '-H', 'h1=one', '-H', 'h2=zwei ü', '-H', 'nullh', ...z], {
      input: LINES.join('\n') + '\n',
    });
    assert.is(res.code, 0, describeRun(res));
    const { records } = await readKcat(bs, topic, [0]);
    assert.is(records.length, EXPECTED.length, JSON.stringify(records));
    records.forEach((r: Rec, i) => {
      assert.is(r.partition, 0);
      assert.is(r.offset, i, 'offsets are contiguous from 0');
      assert.is(r.key, b64(EXPECTED[i].key), `key ${i}`);
      assert.is(r.value, b64(EXPECTED[i].value), `value ${i}`);
      assert.equal(r.headers, [['h1', b64('one')], ['h2', b64('zwei ü')], ['nullh', null]], `headers ${i}`);
      assert.ok(r.timestamp >= before - 5_000 && r.timestamp <= Date.now() + 5_000, `timestamp ${r.timestamp} is the producer's create time`);
    });
  });
}

test('kcat -C -J reports the same records as JSON (tstype create, headers, null key)', async () => {
  const topic = 'kcat-json';
  const res = await kcat(['-P', '-b', bs, '-t', topic, '-K:', '-H', 'a=b', '-z', 'gzip'], { input: 'k1:v1\nno-key-line\n' });
  assert.is(res.code, 0, describeRun(res));
  const out = await kcat(['-C', '-b', bs, '-t', topic, '-o', 'beginning', '-e', '-q', '-J']);
  assert.is(out.code, 0, describeRun(out));
  const msgs = out.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.is(msgs.length, 2, out.stdout);
  assert.is(msgs[0].topic, topic);
  assert.is(msgs[0].partition, 0);
  assert.is(msgs[0].offset, 0);
  assert.is(msgs[0].tstype, 'create');
  assert.is(msgs[0].key, 'k1');
  assert.is(msgs[0].payload, 'v1');
  assert.equal(msgs[0].headers, ['a', 'b']);
  assert.is(msgs[1].offset, 1);
  // A line without the key delimiter is sent with a null key.
  assert.is(msgs[1].key, null);
  assert.is(msgs[1].payload, 'no-key-line');
  assert.is(msgs[1].broker, 1);
});

test('kcat -L lists the broker, the topic and its partitions with leader 1', async () => {
  await createTopic('kcat-meta', 3);
  const res = await kcat(['-L', '-b', bs, '-t', 'kcat-meta', '-J']);
  assert.is(res.code, 0, describeRun(res));
  const md = JSON.parse(res.stdout);
  assert.equal(md.brokers, [{ id: 1, name: `127.0.0.1:${b.port}` }]);
  assert.is(md.topics.length, 1);
  assert.is(md.topics[0].topic, 'kcat-meta');
  const parts = md.topics[0].partitions;
  assert.equal(parts.map((p: { partition: number }) => p.partition).sort(), [0, 1, 2]);
  for (const p of parts) {
    assert.is(p.leader, 1);
    assert.equal(p.replicas, [{ id: 1 }]);
    assert.equal(p.isrs, [{ id: 1 }]);
  }
  // Plain-text listing of all topics also names it.
  const all = await kcat(['-L', '-b', bs]);
  assert.is(all.code, 0, describeRun(all));
  assert.match(all.stdout, /topic "kcat-meta" with 3 partitions:/);
});

test('kcat -P -p N writes to that partition only; -C -p N reads it; other partitions stay empty', async () => {
  const topic = 'kcat-part';
  await createTopic(topic, 3);
  for (const [p, lines] of [[2, ['a:1', 'b:2', 'c:3']], [0, ['z:0']]] as const) {
    const res = await kcat(['-P', '-b', bs, '-t', topic, '-p', String(p), '-K:', '-z', 'lz4'], { input: lines.join('\n') + '\n' });
    assert.is(res.code, 0, describeRun(res));
  }
  const { records } = await readKcat(bs, topic, [0, 1, 2]);
  assert.equal(
    records.map((r) => [r.partition, r.offset, Buffer.from(r.key!, 'base64').toString(), Buffer.from(r.value!, 'base64').toString()]),
    [[0, 0, 'z', '0'], [2, 0, 'a', '1'], [2, 1, 'b', '2'], [2, 2, 'c', '3']],
  );
  // -o with an absolute offset and -c
  const part = await kcat(['-C', '-b', bs, '-t', topic, '-p', '2', '-o', '1', '-c', '1', '-q', '-f', '%p %o %T %K %S\\n%k%s\\n%h\\n']);
  assert.is(part.code, 0, describeRun(part));
  const one = parseKcatOutput(part.stdoutBytes);
  assert.is(one.length, 1);
  assert.is(one[0].offset, 1);
  assert.is(one[0].value, b64('2'));
});

test('kcat -Q looks up an offset by timestamp', async () => {
  const topic = 'kcat-query';
  const res = await kcat(['-P', '-b', bs, '-t', topic, '-K:'], { input: 'a:1\nb:2\n' });
  assert.is(res.code, 0, describeRun(res));
  const { records } = await readKcat(bs, topic, [0]);
  assert.is(records.length, 2);
  const q = await kcat(['-Q', '-b', bs, '-t', `${topic}:0:${records[0].timestamp}`]);
  assert.is(q.code, 0, describeRun(q));
  assert.match(q.stdout, new RegExp(`${topic} \\[0\\] offset 0`));
  const end = await kcat(['-Q', '-b', bs, '-t', `${topic}:0:${records[1].timestamp + 60_000}`]);
  assert.is(end.code, 0, describeRun(end));
  // A timestamp after every record resolves to "no offset" (-1).
  assert.match(end.stdout, new RegExp(`${topic} \\[0\\] offset -1`));
});

test.run();
