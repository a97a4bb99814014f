/**
 * Tiered storage against a real S3-compatible server (Versity's gateway, test/support/versitygw.ts):
 * the ObjectStore operations as S3ObjectStore sends them (ranged GETs, multipart uploads,
 * If-None-Match, listing), then a broker whose closed segments go to the gateway: kafkajs produces,
 * the segments are in the bucket as files, local ones leave, and kafkajs, kcat, confluent-kafka and
 * the Java client read every record from offset 0 with identical bytes; the broker restarted with
 * its partition directory wiped rebuilds from the store and reads the same; the gateway stopped: produce goes on,
 * a fetch of remote data answers an error clients retry, and everything is read once it is back.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { rmSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { S3ObjectStore } from '../../src/remote/s3-object-store.js';
import { isStoreError } from '../../src/remote/object-store.js';
import { startVersitygw, S3_ACCESS_KEY, S3_SECRET_KEY, type S3Server } from '../support/versitygw.js';
import { tmpDir, type TmpDir } from '../support/tmp.js';
import { until } from '../support/until.js';
import { readConfluent, readKcat, b64 } from '../support/clients.js';
import { javaDriver } from '../../compat-tests/clients/java.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { IN_CI } from '../support/kafka.js';

const { Kafka, logLevel } = kafkajs;

let s3: S3Server;
let data: TmpDir;

test.before(async () => {
  s3 = await startVersitygw();
  data = tmpDir('samsa-tiered-');
});

test.after(async () => {
  await s3?.close();
  await data?.cleanup();
});

const storeSettings = () => ({
  endpoint: s3.endpoint, region: 'us-east-1', bucket: 'samsa-ops', pathStyle: true,
  accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY, partBytes: 5 * 1024 * 1024, requestTimeoutMs: 10_000,
});

test('S3ObjectStore against versitygw: put, ranged get, head, list, delete, If-None-Match, multipart', async () => {
  const store = await S3ObjectStore.connect(storeSettings());
  try {
    await store.ensureBucket();
    await store.put('a/one', Buffer.from('hello tiered world'));
    assert.is((await store.get('a/one')).toString(), 'hello tiered world');
    assert.is((await store.get('a/one', { start: 6, end: 12 })).toString(), 'tiered');
    assert.equal(await store.head('a/one'), { key: 'a/one', size: 18 });
    assert.is(await store.head('a/none'), null);
    const missing = await store.get('a/none').catch((e) => e);
    assert.ok(isStoreError(missing, 'not-found'), String(missing));
    await store.put('a/two', Buffer.from('x'), { ifNoneMatch: true });
    const again = await store.put('a/two', Buffer.from('y'), { ifNoneMatch: true }).catch((e) => e);
    assert.ok(isStoreError(again, 'exists'), `a second conditional put: ${again}`);
    assert.is((await store.get('a/two')).toString(), 'x');
    // 11 MiB from a source read a part at a time: three parts of at most 5 MiB.
    const big = Buffer.alloc(11 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big.writeUInt32BE(i, i);
    let reads = 0;
    await store.put('a/big', { size: big.length, read: async (pos, len) => { reads++; return big.subarray(pos, pos + len); } });
    assert.is(reads, 3);
    assert.ok((await store.get('a/big', { start: 5 * 1024 * 1024, end: 5 * 1024 * 1024 + 8 })).equals(big.subarray(5 * 1024 * 1024, 5 * 1024 * 1024 + 8)));
    assert.equal((await store.list('a/')).map((o) => o.key), ['a/big', 'a/one', 'a/two']);
    await store.delete(['a/one', 'a/two', 'a/missing']);
    assert.equal((await store.list('a/')).map((o) => o.key), ['a/big']);
  } finally {
    await store.close();
  }
});

const brokerConfig = () => ({
  'log.dirs': data.path, 'remote.log.storage.system.enable': true, 'remote.log.manager.task.interval.ms': 200,
  'log.retention.check.interval.ms': 200, 'log.segment.delete.delay.ms': 0,
  'samsa.remote.s3.endpoint': s3.endpoint, 'samsa.remote.s3.bucket': 'samsa-tiered', 'samsa.remote.s3.prefix': 'cluster-a/',
  'samsa.remote.s3.access.key.id': S3_ACCESS_KEY, 'samsa.remote.s3.secret.access.key': S3_SECRET_KEY,
  'samsa.remote.s3.request.timeout.ms': 3000,
});

let b: RunningBroker;
const topic = 'tiered-s3';
const n = 3000;
const sent: { key: string; value: Buffer }[] = [];

function expectAll(records: { offset: number; key: string | null; value: string | null }[], what: string): void {
  assert.is(records.length, n, `${what}: ${records.length} records`);
  records.forEach((r, i) => {
    assert.is(r.offset, i, `${what}: offset`);
    assert.is(r.key, b64(sent[i].key), `${what}: key at ${i}`);
    assert.is(r.value, b64(sent[i].value), `${what}: value at ${i}`);
  });
}

async function kafkajsRead(bootstrap: string, count = n): Promise<{ offset: number; key: string | null; value: string | null }[]> {
  const consumer = new Kafka({ clientId: 'tiered-read', brokers: [bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: `g-${Math.random()}`, maxBytesPerPartition: 128 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: { offset: number; key: string | null; value: string | null }[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { got.push({ offset: Number(message.offset), key: b64(message.key), value: b64(message.value) }); } });
  try {
    await until(`kafkajs read ${count}`, 60_000, async () => (got.length >= count ? true : null));
  } finally {
    await consumer.disconnect();
  }
  return got;
}

test('a broker copies closed segments to versitygw and kafkajs, kcat, confluent-kafka and the Java client read everything back', async () => {
  b = await startBroker({ port: 0, storage: { dir: data.path }, config: brokerConfig() });
  const kafka = new Kafka({ clientId: 'tiered', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 1, configEntries: [
    { name: 'remote.storage.enable', value: 'true' }, { name: 'segment.bytes', value: '32768' }, { name: 'local.retention.bytes', value: '65536' },
  ] }] });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  for (let i = 0; i < n; i++) sent.push({ key: `key-${i}`, value: Buffer.from(`value-${i}-${'v'.repeat(i % 97)}`) });
  for (let i = 0; i < n; i += 250) await producer.send({ topic, acks: -1, messages: sent.slice(i, i + 250) });
  await producer.disconnect();
  const log = b.broker.replicaManager.getPartition(topic, 0)!.log;
  await until('segments copied and local ones deleted', 30_000, async () => (log.localLogStartOffset > n / 2 ? true : null));
  // The posix backend keeps each object as a file: bucket/prefix/topic-id/partition/...
  const dir = join(s3.root, 'samsa-tiered', 'cluster-a', `${topic}-${log.topicId}`, '0');
  const files = readdirSync(dir);
  assert.ok(files.filter((f) => f.endsWith('.manifest')).length >= 4, files.join(' '));
  assert.ok(files.some((f) => f.endsWith('.log')) && files.some((f) => f.endsWith('.index')) && files.some((f) => f.endsWith('.leader-epoch-checkpoint')));

  expectAll(await kafkajsRead(b.bootstrap), 'kafkajs');
  const kc = await readKcat(b.bootstrap, topic, [0]);
  expectAll(kc.records, 'kcat');
  const cf = await readConfluent(b.bootstrap, topic, [0], n, 60);
  assert.equal(cf.errors, []);
  expectAll(cf.records, 'confluent-kafka');
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`tiered storage: java is required under CI: ${missingJava}`);
    return void console.log(`Java client skipped: ${missingJava}`);
  }
  const java = await javaDriver(b.bootstrap);
  try {
    const res = await java.read!(topic, { partitions: [0], from: 'earliest', count: n, timeoutMs: 60_000 });
    assert.equal(res.errors, []);
    expectAll(res.records.map((r) => ({ offset: r.offset, key: r.key ?? null, value: r.value ?? null })), 'Java client');
  } finally {
    await java.close();
  }
});

test('restarted with its partition directory wiped, the broker rebuilds from the store and serves the same records', async () => {
  const log = b.broker.replicaManager.getPartition(topic, 0)!.log;
  const remoteEnd = log.highestOffsetInRemoteStorage;
  await b.stop();
  const partDir = join(data.path, `${topic}-0`);
  assert.ok(existsSync(partDir));
  rmSync(partDir, { recursive: true, force: true });
  b = await startBroker({ port: 0, storage: { dir: data.path }, config: brokerConfig() });
  const again = () => b.broker.replicaManager.getPartition(topic, 0)!.log;
  await until('rebuilt from the store', 30_000, async () => (again().logEndOffset === remoteEnd + 1 ? true : null));
  assert.is(again().logStartOffset, 0);
  const got = await kafkajsRead(b.bootstrap, remoteEnd + 1);
  // What was only local is gone with the directory; everything the store had is back.
  assert.is(got.length >= remoteEnd + 1, true);
  got.slice(0, remoteEnd + 1).forEach((r, i) => {
    assert.is(r.offset, i);
    assert.is(r.value, b64(sent[i].value));
  });
});

test('the store stopped: produce goes on, a remote fetch answers a retriable error, and reads finish once it is back', async () => {
  // A broker started while the store is away: nothing of the remote tier is cached or listed.
  await b.stop();
  await s3.stop();
  b = await startBroker({ port: 0, storage: { dir: data.path }, config: brokerConfig() });
  const kafka = new Kafka({ clientId: 'tiered-down', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: [{ key: 'while-down', value: 'still accepted' }] });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `down-${Math.random()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let first = -1;
  await consumer.run({ eachMessage: async ({ message }) => { if (first < 0) first = Number(message.offset); } });
  await new Promise((r) => setTimeout(r, 1500));
  assert.is(first, -1, 'nothing read from the remote tier while the store is down');
  await s3.start();
  await until('the first remote record after the store came back', 60_000, async () => (first === 0 ? true : null));
  await consumer.disconnect();
  await b.stop();
});

test.run();
