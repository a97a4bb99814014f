/**
 * The cross-client scenario: records written by each client (kafkajs, kcat, confluent-kafka-python,
 * kafka-python, @platformatic/kafka) — null keys, empty and null values, binary bytes, unicode,
 * repeated and null headers, explicit timestamps, a different compression per client — are read
 * byte-identical, in order, with contiguous offsets, by every group-less reader (kcat,
 * confluent-kafka-python, kafka-python), and again after a broker restart on the same data
 * directory; appends after the restart continue the offsets.
 *
 * Readers not used: the kafkajs consumer and @platformatic/kafka's consume() need consumer groups.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { tmpDir, type TmpDir } from '../support/tmp.js';
import {
  b64, byPartitionOffset, describeRun, e2eLogLevel, hostPort, produceConfluent, produceKafkajs, produceKafkaPython, produceKcat,
  producePlatformatic, readConfluent, readPlatformaticFetch, readKafkaPython, readKcat, type OutRec, type Rec,
} from '../support/clients.js';

const { Kafka, logLevel, CompressionTypes } = kafkajs;

/**
 * Two topics. "cross-mixed": a different codec per writer (gzip, snappy, zstd, gzip, lz4), read by
 * kcat and confluent-python. "cross-plain": uncompressed or gzip only, read by those and by
 * kafka-python, which here can decompress gzip only (python3-lz4, python3-zstandard and
 * python3-snappy are not installed; with them it would read "cross-mixed" too), and by
 * @platformatic/kafka's low-level Consumer.fetch (Fetch v17 by topic id; no zstd on Node 20).
 */
interface Scenario {
  topic: string;
  codec: Record<Writer, 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd'>;
  readers: ('kcat' | 'confluent' | 'kafka-python' | 'platformatic')[];
}
const SCENARIOS: Scenario[] = [
  { topic: 'cross-mixed', codec: { kafkajs: 'gzip', kcat: 'snappy', confluent: 'zstd', 'kafka-python': 'gzip', platformatic: 'lz4' }, readers: ['kcat', 'confluent'] },
  { topic: 'cross-plain', codec: { kafkajs: 'none', kcat: 'gzip', confluent: 'none', 'kafka-python': 'gzip', platformatic: 'none' }, readers: ['kcat', 'confluent', 'kafka-python', 'platformatic'] },
];
const T0 = 1_650_000_000_000;

let dir: TmpDir;
let b: RunningBroker | undefined;
let bs = '';

type Writer = 'kafkajs' | 'kcat' | 'confluent' | 'kafka-python' | 'platformatic';
const WRITERS: Writer[] = ['kafkajs', 'kcat', 'confluent', 'kafka-python', 'platformatic'];

/** What each writer can express (kcat: keys from argv, so text only; no timestamps). */
const CAN = {
  // kafkajs 2.2.4 throws on a null header value (sizeOfHeaders: Buffer.byteLength(null)).
  kafkajs: { binaryKey: true, nullValue: true, nullHeader: false, timestamp: true },
  kcat: { binaryKey: false, nullValue: true, nullHeader: true, timestamp: false },
  confluent: { binaryKey: true, nullValue: true, nullHeader: true, timestamp: true },
  'kafka-python': { binaryKey: true, nullValue: true, nullHeader: false, timestamp: true },
  platformatic: { binaryKey: true, nullValue: false, nullHeader: false, timestamp: true },
} as const;

const ALL_BYTES = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
function bigValue(seed: number): Buffer {
  const out = Buffer.alloc(10_000);
  let x = seed * 2654435761 >>> 0;
  for (let i = 0; i < out.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** The records writer `w` (number `wi`) sends. Header values are text without , = or newlines (kcat reads them as text). */
function recordsFor(w: Writer, wi: number): OutRec[] {
  const can = CAN[w];
  const ts = (i: number) => (can.timestamp ? T0 + wi * 1000 + i : undefined);
  const recs: OutRec[] = [
    { partition: 0, key: null, value: Buffer.from(`${w}: null key ✓`), headers: [['src', Buffer.from(w)]], timestamp: ts(0) },
    { partition: 1, key: Buffer.from(`${w}-k1`), value: Buffer.alloc(0), headers: [], timestamp: ts(1) },
    { partition: 0, key: Buffer.from(`${w}-ключ-🔑`), value: ALL_BYTES, headers: [['ünï', Buffer.from('çødé ✓ 日本')], ['src', Buffer.from(w)]], timestamp: ts(2) },
    {
      partition: 1,
      key: can.binaryKey ? Buffer.from([0, 1, 2, 0xfe, 0xff, wi]) : Buffer.from(`${w}-k3`),
      value: Buffer.from(`日本語 ${w}`),
      headers: [['dup', Buffer.from('a')], ['dup', Buffer.from('b')]],
      timestamp: ts(3),
    },
    { partition: 0, key: Buffer.from(`${w}-big`), value: bigValue(wi + 1), headers: can.nullHeader ? [['nul', null]] : [], timestamp: ts(4) },
  ];
  if (can.nullValue) recs.push({ partition: 1, key: Buffer.from(`${w}-tombstone`), value: null, headers: [], timestamp: ts(5) });
  return recs;
}

interface Written { writer: Writer; rec: OutRec; before: number; after: number }
const written = new Map<string, Written[]>(SCENARIOS.map((sc) => [sc.topic, []]));

const KAFKAJS_CODEC = { none: CompressionTypes.None, gzip: CompressionTypes.GZIP } as Record<string, number>;

async function write(sc: Scenario, w: Writer, recs: OutRec[]): Promise<void> {
  const before = Date.now();
  const codec = sc.codec[w];
  switch (w) {
    case 'kafkajs': {
      // kafkajs itself ships gzip only (other codecs need plugins).
      assert.ok(codec in KAFKAJS_CODEC, `kafkajs codec ${codec}`);
      const res = await produceKafkajs(bs, sc.topic, recs, { acks: -1, compression: KAFKAJS_CODEC[codec] });
      for (const r of res) assert.is(r.errorCode, 0);
      break;
    }
    case 'kcat':
      await produceKcat(bs, sc.topic, recs, dir.path, codec === 'none' ? [] : ['-z', codec]);
      break;
    case 'confluent': {
      const rep = await produceConfluent(bs, sc.topic, recs, { 'compression.type': codec, acks: 'all', 'max.in.flight.requests.per.connection': 1 });
      for (const r of rep) assert.is(r.error, null, JSON.stringify(r));
      break;
    }
    case 'kafka-python': {
      const rep = await produceKafkaPython(bs, sc.topic, recs, { acks: 'all', compression_type: codec === 'none' ? null : codec, max_in_flight_requests_per_connection: 1 });
      for (const r of rep) assert.is(r.error, null, JSON.stringify(r));
      break;
    }
    case 'platformatic':
      await producePlatformatic(bs, sc.topic, recs, { acks: -1, compression: codec });
      break;
  }
  const after = Date.now();
  for (const rec of recs) written.get(sc.topic)!.push({ writer: w, rec, before, after });
}

/** What every reader must see, per partition in write order, with offsets 0.. */
function expected(topic: string): { partition: number; offset: number; w: Written }[] {
  const out: { partition: number; offset: number; w: Written }[] = [];
  for (const p of [0, 1]) {
    written.get(topic)!.filter((x) => x.rec.partition === p).forEach((w, offset) => out.push({ partition: p, offset, w }));
  }
  return out;
}

function checkAgainstExpected(topic: string, reader: string, got: Rec[], context = ''): void {
  const exp = expected(topic);
  const sorted = [...got].sort(byPartitionOffset);
  assert.is(sorted.length, exp.length, `${reader}: record count${context ? `\n${context}` : ''}`);
  sorted.forEach((g, i) => {
    const e = exp[i];
    const where = `${reader}: partition ${e.partition} offset ${e.offset} (written by ${e.w.writer})`;
    assert.is(g.partition, e.partition, where);
    assert.is(g.offset, e.offset, `${where}: offsets are contiguous`);
    assert.is(g.key, b64(e.w.rec.key), `${where}: key`);
    assert.is(g.value, b64(e.w.rec.value), `${where}: value`);
    assert.equal(g.headers, (e.w.rec.headers ?? []).map(([k, v]) => [k, b64(v)]), `${where}: headers`);
    if (e.w.rec.timestamp !== undefined) assert.is(g.timestamp, e.w.rec.timestamp, `${where}: timestamp`);
    else assert.ok(g.timestamp >= e.w.before - 1000 && g.timestamp <= e.w.after + 1000, `${where}: create time ${g.timestamp}`);
  });
}

/** Reads each topic with its readers; checks every result; returns them (topic/reader → records). */
async function readAll(label: string): Promise<Record<string, Rec[]>> {
  const out: Record<string, Rec[]> = {};
  for (const sc of SCENARIOS) {
    const n = written.get(sc.topic)!.length;
    for (const reader of sc.readers) {
      const what = `${reader} ${label} (${sc.topic})`;
      let recs: Rec[];
      if (reader === 'kcat') {
        recs = (await readKcat(bs, sc.topic, [0, 1])).records;
        checkAgainstExpected(sc.topic, what, recs);
      } else if (reader === 'platformatic') {
        recs = await readPlatformaticFetch(bs, sc.topic, [0, 1]);
        checkAgainstExpected(sc.topic, what, recs);
      } else {
        const res = reader === 'confluent' ? await readConfluent(bs, sc.topic, [0, 1], n) : await readKafkaPython(bs, sc.topic, [0, 1], n);
        assert.equal(res.errors, [], `${what}: ${describeRun(res.raw)}`);
        recs = res.records;
        checkAgainstExpected(sc.topic, what, recs, describeRun(res.raw));
      }
      out[`${sc.topic}/${reader}`] = [...recs].sort(byPartitionOffset);
    }
    // The readers agree with each other on everything they report, timestamps included.
    for (const reader of sc.readers.slice(1)) assert.equal(out[`${sc.topic}/${reader}`], out[`${sc.topic}/${sc.readers[0]}`], `${reader} vs ${sc.readers[0]} on ${sc.topic}`);
  }
  return out;
}

test.before(async () => {
  dir = tmpDir('e2e-cross');
  b = await startBroker({ port: 0, logDir: `${dir.path}/data`, config: { 'num.partitions': 1 }, logLevel: e2eLogLevel });
  bs = hostPort(b.port);
  const admin = new Kafka({ clientId: 'e2e-cross-admin', brokers: [bs], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    assert.ok(await admin.createTopics({ topics: SCENARIOS.map((sc) => ({ topic: sc.topic, numPartitions: 2 })), waitForLeaders: true }));
  } finally {
    await admin.disconnect();
  }
});

test.after(async () => {
  await b?.stop();
  await dir?.cleanup();
});

let firstRead: Record<string, Rec[]> = {};

for (const [wi, w] of WRITERS.entries()) {
  test(`${w} writes its records to both topics (${SCENARIOS.map((sc) => sc.codec[w]).join(' / ')}, acks=all)`, async () => {
    for (const sc of SCENARIOS) await write(sc, w, recordsFor(w, wi));
  });
}

test('kcat, confluent-python (and kafka-python on gzip/none) read every record byte-identical, in order, offsets contiguous', async () => {
  firstRead = await readAll('before restart');
});

test('after a restart on the same data directory every reader sees exactly the same records', async () => {
  await b!.stop();
  b = await startBroker({ port: 0, logDir: `${dir.path}/data`, config: { 'num.partitions': 1 }, logLevel: e2eLogLevel });
  bs = hostPort(b.port);
  const again = await readAll('after restart');
  assert.equal(again, firstRead);
});

test('after the restart, offsets by timestamp still resolve (time index recovered)', async () => {
  const admin = new Kafka({ clientId: 'e2e-cross-admin', brokers: [bs], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    for (const sc of SCENARIOS) {
      // Partition 0's records with explicit timestamps: the lookup must find each one's offset.
      const exp = expected(sc.topic).filter((e) => e.partition === 0 && e.w.rec.timestamp !== undefined);
      for (const e of exp) {
        const got = await admin.fetchTopicOffsetsByTimestamp(sc.topic, e.w.rec.timestamp);
        const p0 = got.find((x) => x.partition === 0)!;
        // The first offset whose timestamp is >= the asked one (kcat's records have later, wall-clock timestamps).
        const first = expected(sc.topic).filter((x) => x.partition === 0).find((x) => (x.w.rec.timestamp ?? x.w.before) >= e.w.rec.timestamp!)!;
        assert.is(p0.offset, String(first.offset), `${sc.topic}: timestamp ${e.w.rec.timestamp}`);
      }
    }
  } finally {
    await admin.disconnect();
  }
});

test('appends after the restart continue the offsets, for every writer', async () => {
  for (const [wi, w] of WRITERS.entries()) {
    const can = CAN[w];
    for (const sc of SCENARIOS) await write(sc, w, [
      { partition: 0, key: Buffer.from(`${w}-after`), value: Buffer.from(`after restart ${w} ✓`), headers: [['phase', Buffer.from('2')]], timestamp: can.timestamp ? T0 + 50_000 + wi : undefined },
      { partition: 1, key: null, value: Buffer.from([0, wi, 0]), headers: [], timestamp: can.timestamp ? T0 + 60_000 + wi : undefined },
    ]);
  }
  await readAll('after restart and appends');
});

test('a second restart keeps the appended records too', async () => {
  await b!.stop();
  b = await startBroker({ port: 0, logDir: `${dir.path}/data`, config: { 'num.partitions': 1 }, logLevel: e2eLogLevel });
  bs = hostPort(b.port);
  await readAll('after the second restart');
});

test.run();
