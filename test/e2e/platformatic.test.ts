/**
 * @platformatic/kafka 1.35 (flexible versions only) against Samsa: Admin createTopics / metadata /
 * listOffsets / createPartitions / deleteTopics, and the Producer with each compression it offers
 * on Node 20 (zstd needs node:zlib zstd, Node >= 22.15: it reports itself unavailable here), with
 * acks 0/1/-1; records are read back by confluent-kafka-python and by kcat.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Admin, compressionsAlgorithms } from '@platformatic/kafka';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { b64, byPartitionOffset, describeRun, hostPort, producePlatformatic, readConfluent, readKcat, type OutRec, e2eLogLevel } from '../support/clients.js';

let b: RunningBroker;
let bs: string;
let admin: Admin;

test.before(async () => {
  b = await startBroker({ port: 0, config: { 'num.partitions': 1 }, logLevel: e2eLogLevel });
  bs = hostPort(b.port);
  admin = new Admin({ clientId: 'e2e-platformatic-admin', bootstrapBrokers: [bs], retries: 2, timeout: 10_000 });
});

test.after(async () => {
  await admin?.close();
  await b?.stop();
});

const T0 = 1_710_000_000_000;

function sample(n: number, partitions: number): OutRec[] {
  return Array.from({ length: n }, (_, i) => ({
    partition: i % partitions,
    key: i === 0 ? null : Buffer.from(`pk-${i}-ключ`),
    value: i === 1 ? Buffer.alloc(0) : Buffer.concat([Buffer.from(`platformatic ${i} `), Buffer.from([0, 0xff, 0x7f, i])]),
    headers: i % 2 === 0 ? [['h', Buffer.from(`v${i}`)], ['x-bin', Buffer.from([9, 0, 9])]] : [],
    timestamp: T0 + i * 1000,
  }));
}

test('Admin.createTopics creates the topic with the requested partitions; metadata shows them', async () => {
  const created = await admin.createTopics({ topics: ['pf-admin'], partitions: 3, replicas: 1 });
  assert.is(created.length, 1);
  assert.is(created[0].name, 'pf-admin');
  assert.is(created[0].partitions, 3);
  assert.is(created[0].replicas, 1);
  assert.match(created[0].id, /^[0-9a-f-]{36}$/i, 'a topic id');
  assert.is.not(created[0].id, '00000000-0000-0000-0000-000000000000');
  const md = await admin.metadata({ topics: ['pf-admin'], forceUpdate: true });
  const t = md.topics.get('pf-admin');
  assert.ok(t, 'topic in metadata');
  assert.is(t!.partitionsCount, 3);
  assert.is(t!.id, created[0].id, 'metadata reports the same topic id');
  for (const p of t!.partitions) {
    assert.is(p.leader, 1);
    assert.equal(p.replicas, [1]);
    assert.equal(p.isr, [1]);
  }
  assert.ok((await admin.listTopics()).includes('pf-admin'));
  // Two new partitions, each explicitly on broker 1.
  await admin.createPartitions({ topics: [{ name: 'pf-admin', count: 5, assignments: [{ brokerIds: [1] }, { brokerIds: [1] }] }] });
  const md2 = await admin.metadata({ topics: ['pf-admin'], forceUpdate: true });
  assert.is(md2.topics.get('pf-admin')!.partitionsCount, 5);
  await admin.deleteTopics({ topics: ['pf-admin'] });
  assert.not.ok((await admin.listTopics()).includes('pf-admin'));
});

test('zstd is unavailable in @platformatic/kafka on this Node (documented limitation of the client)', () => {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22) assert.is(compressionsAlgorithms.zstd.available, false);
});

for (const compression of ['none', 'gzip', 'snappy', 'lz4'] as const) {
  test(`Producer compression=${compression}: offsets, then confluent-python reads back byte-identical`, async () => {
    const topic = `pf-${compression}`;
    await admin.createTopics({ topics: [topic], partitions: 2, replicas: 1 });
    const recs = sample(10, 2);
    const res = await producePlatformatic(bs, topic, recs, { compression, acks: -1 });
    // One produce request for both partitions: each gets base offset 0.
    assert.equal(res.map((o) => [o.partition, o.offset]).sort(), [[0, 0n], [1, 0n]]);
    const read = await readConfluent(bs, topic, [0, 1], recs.length);
    assert.equal(read.errors, [], describeRun(read.raw));
    assert.is(read.records.length, recs.length, describeRun(read.raw));
    const got = [...read.records].sort(byPartitionOffset);
    const want = recs.map((r, i) => ({ r, i })).sort((a, c) => a.r.partition - c.r.partition || a.i - c.i);
    got.forEach((g, j) => {
      const { r, i } = want[j];
      assert.is(g.partition, r.partition);
      assert.is(g.offset, Math.floor(i / 2));
      assert.is(g.key, b64(r.key), `key ${i}`);
      assert.is(g.value, b64(r.value), `value ${i}`);
      assert.equal(g.headers, (r.headers ?? []).map(([k, v]) => [k, b64(v)]), `headers ${i}`);
      assert.is(g.timestamp, r.timestamp, `timestamp ${i}`);
    });
  });
}

for (const acks of [0, 1, -1]) {
  test(`Producer acks=${acks}: every record lands once (kcat reads back)`, async () => {
    const topic = `pf-acks${acks}`;
    const recs: OutRec[] = Array.from({ length: 6 }, (_, i) => ({ partition: 0, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), timestamp: T0 + i }));
    // Two sends: the second one's base offset follows the first.
    await producePlatformatic(bs, topic, recs.slice(0, 3), { acks });
    const second = await producePlatformatic(bs, topic, recs.slice(3), { acks });
    if (acks !== 0) assert.equal(second.map((o) => o.offset), [3n]);
    const { records } = await readKcat(bs, topic, [0]);
    assert.equal(records.map((r) => [r.offset, r.key, r.value, r.timestamp]), recs.map((r, i) => [i, b64(r.key), b64(r.value), r.timestamp]));
  });
}

test('Admin.listOffsets: earliest, latest and by timestamp', async () => {
  const topic = 'pf-offsets';
  await admin.createTopics({ topics: [topic], partitions: 1, replicas: 1 });
  const recs: OutRec[] = Array.from({ length: 4 }, (_, i) => ({ partition: 0, key: null, value: Buffer.from(`t${i}`), timestamp: T0 + i * 100 }));
  await producePlatformatic(bs, topic, recs, { acks: -1 });
  const ask = async (timestamp: bigint) => {
    const r = await admin.listOffsets({ topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp }] }] });
    return r[0].partitions[0];
  };
  assert.is((await ask(-2n)).offset, 0n, 'earliest');
  assert.is((await ask(-1n)).offset, 4n, 'latest');
  const byTs = await ask(BigInt(T0 + 150));
  assert.is(byTs.offset, 2n, 'first record at or after T0+150');
  assert.is(byTs.timestamp, BigInt(T0 + 200));
  // -3 (max timestamp, KIP-734): the record with the largest timestamp.
  const max = await ask(-3n);
  assert.is(max.offset, 3n, 'max timestamp offset');
  assert.is(max.timestamp, BigInt(T0 + 300));
});

test.run();
