/**
 * Tiered storage end to end against the in-memory object store (the S3 path is in
 * tiered-storage-s3.test.ts): kafkajs produces enough to roll many segments; closed segments are
 * copied (a manifest and its objects each), local ones past local.retention.bytes go, and a
 * consumer from offset 0 reads every record back, the remote ones through ranged GETs. Then
 * ListOffsets earliest / earliest-local / latest-tiered, read_committed with an aborted
 * transaction in the remote part, the store unreachable (produce goes on, nothing local is
 * deleted before it is copied), total retention reaching the remote tier, and refusals of
 * remote.storage.enable where Kafka refuses it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { MemoryObjectStore } from '../../src/remote/memory-object-store.js';
import { until as untilValue } from '../support/until.js';
import { WireClient } from '../broker/handlers/_admin-wire.js';

const until = (what: string, cond: () => boolean, timeoutMs: number) => untilValue(what, timeoutMs, async () => (cond() ? true : null));

const { Kafka, logLevel } = kafkajs;

let b: RunningBroker;
const store = new MemoryObjectStore();

test.before(async () => {
  b = await startBroker({
    port: 0, remoteStore: store, http: true,
    config: { 'remote.log.storage.system.enable': true, 'remote.log.manager.task.interval.ms': 100, 'log.retention.check.interval.ms': 100, 'log.segment.delete.delay.ms': 0 },
  }).catch((err) => { console.error(err); throw err; });
});

test.after(async () => {
  await b?.stop();
});

const kafka = () => new Kafka({ clientId: 'tiered', brokers: [b.bootstrap], logLevel: logLevel.NOTHING });

async function consumeAll(topic: string, count: number, isolation: 'read_committed' | 'read_uncommitted' = 'read_uncommitted'): Promise<{ offset: number; value: string }[]> {
  const consumer = kafka().consumer({ groupId: `g-${topic}-${Math.random()}`, readUncommitted: isolation === 'read_uncommitted', maxBytesPerPartition: 64 * 1024 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: { offset: number; value: string }[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { got.push({ offset: Number(message.offset), value: message.value!.toString() }); } });
  try {
    await until(`${count} records of ${topic}`, () => got.length >= count, 30_000);
  } finally {
    await consumer.disconnect();
  }
  return got;
}

/** Creates a one-partition tiered topic with these configs; returns a connected admin client. */
async function createTiered(topic: string, configs: Record<string, string>) {
  const admin = kafka().admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [{ topic, numPartitions: 1, configEntries: Object.entries({ 'remote.storage.enable': 'true', ...configs }).map(([name, value]) => ({ name, value })) }],
  });
  return admin;
}

function localLog(topic: string) {
  return b.broker.replicaManager.getPartition(topic, 0)!.log;
}

test('segments go to the object store, local ones leave, and consumers read everything from offset 0', async () => {
  const topic = 'tiered-a';
  const admin = await createTiered(topic, { 'segment.bytes': '8192', 'local.retention.bytes': '16384' });
  const producer = kafka().producer();
  await producer.connect();
  const n = 2000;
  for (let i = 0; i < n; i += 100) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, j) => ({ key: `k${i + j}`, value: `value-${i + j}-${'x'.repeat(40)}` })) });
  }
  await producer.disconnect();
  const log = localLog(topic);
  await until('segments copied and local ones deleted', () => log.localLogStartOffset > 1000 && log.highestOffsetInRemoteStorage > 1000, 20_000);
  assert.is(log.logStartOffset, 0);
  const manifests = [...store.objects.keys()].filter((k) => k.endsWith('.manifest'));
  assert.ok(manifests.length >= 5, `manifests: ${manifests.length}`);
  assert.ok(manifests.every((k) => k.startsWith(`${topic}-${log.topicId}/0/`)), manifests[0]);

  const offsets = await admin.fetchTopicOffsets(topic);
  assert.equal(offsets[0].low, '0');
  assert.equal(offsets[0].high, String(n));

  const got = await consumeAll(topic, n);
  assert.is(got.length, n);
  got.forEach((r, i) => {
    assert.is(r.offset, i);
    assert.ok(r.value.startsWith(`value-${i}-`), r.value);
  });
  assert.ok(b.broker.tiered!.manager.metrics.fetchBytes > 0);
  {
    const text = await (await fetch(`${b.httpUrl!}/metrics`)).text();
    const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    assert.ok(value('kafka_server_brokertopicmetrics_remotecopybytes_total') > 0, 'RemoteCopyBytes');
    assert.ok(value('kafka_server_brokertopicmetrics_remotefetchbytes_total') > 0, 'RemoteFetchBytes');
    const page = await (await fetch(`${b.httpUrl!}/topics/${topic}`)).text();
    assert.match(page, /Remote tier/);
    assert.match(page, new RegExp(`>${log.localLogStartOffset}<`));
    assert.match(text, new RegExp(`kafka_log_log_locallogstartoffset\\{topic="${topic}",partition="0"\\} ${log.localLogStartOffset}`));
    const remoteBytes = Number(new RegExp(`^kafka_server_brokertopicmetrics_remotelogsizebytes\\{topic="${topic}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    const remoteSegments = Number(new RegExp(`^kafka_server_brokertopicmetrics_remotelogmetadatacount\\{topic="${topic}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? NaN);
    assert.ok(remoteSegments >= manifests.length, `RemoteLogMetadataCount ${remoteSegments}`);
    assert.ok(remoteBytes > remoteSegments * 1000, `RemoteLogSizeBytes ${remoteBytes}`);
  }
  await admin.disconnect();
});

test('ListOffsets: earliest 0, earliest-local the first local offset, latest-tiered the last copied one', async () => {
  const topic = 'tiered-a';
  const log = localLog(topic);
  const c = await WireClient.connect(b.port);
  try {
    const ask = async (timestamp: bigint) => {
      const r = await c.send(2, 9, { replicaId: -1, isolationLevel: 0, timeoutMs: 30000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp}] }] });
      return Number(r.topics[0].partitions[0].offset);
    };
    assert.is(await ask(-2n), 0);
    assert.is(await ask(-4n), log.localLogStartOffset);
    assert.is(await ask(-5n), log.highestOffsetInRemoteStorage);
  } finally {
    c.close();
  }
});

test('the store unreachable: produce goes on, nothing uncopied is deleted locally; back: copies resume', async () => {
  const topic = 'tiered-b';
  const admin = await createTiered(topic, { 'segment.bytes': '4096', 'local.retention.bytes': '1' });
  store.down = true;
  const producer = kafka().producer();
  await producer.connect();
  for (let i = 0; i < 10; i++) await producer.send({ topic, acks: -1, messages: Array.from({ length: 50 }, (_, j) => ({ value: `v${i * 50 + j}-${'y'.repeat(50)}` })) });
  const log = localLog(topic);
  await new Promise((r) => setTimeout(r, 500));
  assert.is(log.localLogStartOffset, 0, 'nothing deleted locally while the store is away');
  assert.is(log.highestOffsetInRemoteStorage, -1);
  assert.ok(b.broker.tiered!.manager.metrics.copyErrors > 0);
  store.down = false;
  await until('copies resume', () => log.highestOffsetInRemoteStorage > 0 && log.localLogStartOffset > 0, 40_000);
  const got = await consumeAll(topic, 500);
  assert.equal(got.map((r) => r.offset), Array.from({ length: 500 }, (_, i) => i));
  await producer.disconnect();
  await admin.disconnect();
});

test('read_committed over the remote tier: an aborted transaction stays hidden', async () => {
  const topic = 'tiered-txn';
  const admin = await createTiered(topic, { 'segment.bytes': '2048', 'local.retention.bytes': '1' });
  const producer = kafka().producer({ transactionalId: 'tiered-tx', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  let committed = 0;
  for (let round = 0; round < 12; round++) {
    const tx = await producer.transaction();
    await tx.send({ topic, messages: Array.from({ length: 10 }, (_, j) => ({ value: `${round % 3 === 1 ? 'aborted' : 'kept'}-${round}-${j}-${'z'.repeat(60)}` })) });
    if (round % 3 === 1) await tx.abort();
    else {
      await tx.commit();
      committed += 10;
    }
  }
  await producer.disconnect();
  const log = localLog(topic);
  await until('the aborted ones are remote', () => log.localLogStartOffset > 40, 20_000);
  const got = await consumeAll(topic, committed, 'read_committed');
  assert.is(got.length, committed);
  assert.ok(got.every((r) => r.value.startsWith('kept-')), 'no aborted record read');
  await admin.disconnect();
});

test('total retention reaches the remote tier: the oldest remote segments go and the log start moves', async () => {
  const topic = 'tiered-retention';
  const admin = await createTiered(topic, { 'segment.bytes': '4096', 'local.retention.bytes': '1', 'retention.bytes': '20000' });
  const producer = kafka().producer();
  await producer.connect();
  for (let i = 0; i < 20; i++) await producer.send({ topic, acks: -1, messages: Array.from({ length: 50 }, (_, j) => ({ value: `r${i * 50 + j}-${'w'.repeat(50)}` })) });
  await producer.disconnect();
  const log = localLog(topic);
  const extent = () => b.broker.tiered!.remoteExtent({ topic, topicId: log.topicId, partition: 0 });
  await until('the log start moved past deleted remote segments, remote + local within retention.bytes', () => log.logStartOffset > 0 && extent().sizeBytes + log.sizeBytes <= 20000 + 4096, 20_000);
  assert.is(extent().startOffset, log.logStartOffset);
  const offsets = await admin.fetchTopicOffsets(topic);
  assert.equal(offsets[0].low, String(log.logStartOffset));
  await admin.disconnect();
});

test('deleting a tiered topic deletes its objects in the store', async () => {
  const topic = 'tiered-retention';
  const log = localLog(topic);
  const prefix = `${topic}-${log.topicId}/`;
  assert.ok([...store.objects.keys()].some((k) => k.startsWith(prefix)));
  const admin = kafka().admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [topic] });
  await admin.disconnect();
  await until('the objects gone', () => ![...store.objects.keys()].some((k) => k.startsWith(prefix)), 20_000);
  assert.ok([...store.objects.keys()].some((k) => k.startsWith('tiered-a-')), 'other topics\' objects stay');
});

test('remote.storage.enable is refused on a compacted topic and on a broker without tiered storage, with Kafka\'s messages', async () => {
  const create = async (port: number, configs: { name: string; value: string }[]) => {
    const c = await WireClient.connect(port);
    try {
      const r = await c.send(19, 5, { topics: [{ name: `refused-${Math.random().toString(36).slice(2)}`, numPartitions: 1, replicationFactor: 1, assignments: [], configs }], timeoutMs: 30000, validateOnly: false });
      return r.topics[0];
    } finally {
      c.close();
    }
  };
  const compacted = await create(b.port, [{ name: 'remote.storage.enable', value: 'true' }, { name: 'cleanup.policy', value: 'compact' }]);
  assert.is(compacted.errorCode, 40);
  assert.is(compacted.errorMessage, 'Remote log storage only supports topics with cleanup.policy=delete or cleanup.policy being an empty list.');
  const tooLong = await create(b.port, [{ name: 'remote.storage.enable', value: 'true' }, { name: 'retention.ms', value: '1000' }, { name: 'local.retention.ms', value: '2000' }]);
  assert.is(tooLong.errorCode, 40);
  assert.is(tooLong.errorMessage, 'Invalid value 2000 for configuration local.retention.ms: Value must not be more than retention.ms property value: 1000');
  const plain = await startBroker({ port: 0 });
  try {
    const off = await create(plain.port, [{ name: 'remote.storage.enable', value: 'true' }]);
    assert.is(off.errorCode, 40);
    assert.is(off.errorMessage, 'Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote log storage.');
  } finally {
    await plain.stop();
  }
});

test.run();
