/**
 * Tiered storage's topic settings beyond the basics (tiered-storage-memory.test.ts), against the
 * in-memory object store and Kafka 4.4's answers (messages read from its LogConfig):
 * - turning tiered storage off: refused without remote.log.delete.on.disable; with it the topic's
 *   remote segments are deleted and the log starts at its first local segment (KIP-950);
 * - KIP-1241's copy lag: remote.copy.lag.ms / .bytes hold closed segments back until they pass;
 * - remote.fetch.max.wait.ms: a slow store answers the partition empty in time (DelayedRemoteFetch);
 * - remote.log.manager.copy.max.bytes.per.second: copying waits while the copy quota is used up;
 * - remote.log.manager.fetch.max.bytes.per.second: remote reads stop while the fetch quota is used up;
 * - the refusals that go with them (copy lag above local retention, copy disabled with local
 *   retention different from total retention).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { MemoryObjectStore } from '../../src/remote/memory-object-store.js';
import { KafkaClient } from '../../src/cli/client.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../src/protocol/generated/messages/fetch-request.js';
import { until as untilValue } from '../support/until.js';

const until = (what: string, cond: () => boolean, timeoutMs: number) => untilValue(what, timeoutMs, async () => (cond() ? true : null));

let b: RunningBroker;
const store = new MemoryObjectStore();

test.before(async () => {
  b = await startBroker({
    port: 0, remoteStore: store, http: true,
    config: {
      'remote.log.storage.system.enable': true, 'remote.log.manager.task.interval.ms': 100, 'log.retention.check.interval.ms': 100, 'log.segment.delete.delay.ms': 0,
      'remote.fetch.max.wait.ms': 300,
    },
  });
});

test.after(async () => {
  await b?.stop();
});

const kafka = () => new kafkajs.Kafka({ clientId: 'tiered-settings', brokers: [b.bootstrap], logLevel: kafkajs.logLevel.NOTHING });
const log = (topic: string) => b.broker.replicaManager.getPartition(topic, 0)!.log;
const objectsOf = (topic: string) => [...store.objects.keys()].filter((k) => k.startsWith(`${topic}-${log(topic).topicId}/`));

async function create(topic: string, configs: Record<string, string>): Promise<{ errorCode: number; errorMessage: string | null }> {
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    const r = await c.send(19, 5, {
      topics: [{ name: topic, numPartitions: 1, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([name, value]) => ({ name, value })) }],
      timeoutMs: 30000, validateOnly: false,
    });
    return { errorCode: r.topics[0].errorCode, errorMessage: r.topics[0].errorMessage };
  } finally {
    c.close();
  }
}

async function withClient<T>(f: (c: KafkaClient) => Promise<T>): Promise<T> {
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    return await f(c);
  } finally {
    c.close();
  }
}

/** IncrementalAlterConfigs SET of these topic configs; the answer's code and message. */
async function alter(topic: string, configs: Record<string, string>): Promise<{ errorCode: number; errorMessage: string | null }> {
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    const r = await c.send(44, 1, {
      resources: [{ resourceType: 2, resourceName: topic, configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })) }],
      validateOnly: false,
    });
    return { errorCode: r.responses[0].errorCode, errorMessage: r.responses[0].errorMessage };
  } finally {
    c.close();
  }
}

async function produce(topic: string, n: number): Promise<void> {
  const producer = kafka().producer();
  await producer.connect();
  for (let i = 0; i < n; i += 100) {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, j) => ({ value: `v${i + j}-${'x'.repeat(60)}` })) });
  }
  await producer.disconnect();
}

async function earliest(topic: string): Promise<number> {
  const admin = kafka().admin();
  await admin.connect();
  try {
    return Number((await admin.fetchTopicOffsets(topic))[0].low);
  } finally {
    await admin.disconnect();
  }
}

test('turning tiered storage off: refused without remote.log.delete.on.disable; with it the remote data goes and the log starts locally', async () => {
  const topic = 'tiered-off';
  assert.equal(await create(topic, { 'remote.storage.enable': 'true', 'segment.bytes': '8192', 'local.retention.bytes': '16384' }), { errorCode: 0, errorMessage: null });
  await produce(topic, 1000);
  await until('segments copied and local ones deleted', () => log(topic).localLogStartOffset > 200 && objectsOf(topic).length > 0, 20_000);
  assert.is(await earliest(topic), 0);

  const refused = await alter(topic, { 'remote.storage.enable': 'false' });
  assert.is(refused.errorCode, 40);
  assert.is(refused.errorMessage, 'It is invalid to disable remote storage without deleting remote data. If you want to keep the remote data and turn to read only, please set `remote.storage.enable=true,remote.log.copy.disable=true`. If you want to disable remote storage and delete all remote data, please set `remote.storage.enable=false,remote.log.delete.on.disable=true`.');
  assert.ok(objectsOf(topic).length > 0, 'nothing deleted by a refused change');

  // Copying and local retention go on until the change applies: the log then starts at the
  // first local segment of that moment (not of this one).
  const localBefore = log(topic).localLogStartOffset;
  assert.equal(await alter(topic, { 'remote.storage.enable': 'false', 'remote.log.delete.on.disable': 'true' }), { errorCode: 0, errorMessage: null });
  await until('the remote segments deleted', () => objectsOf(topic).length === 0, 20_000);
  assert.is(log(topic).tiered, false);
  const localStart = log(topic).localLogStartOffset;
  assert.ok(localStart >= localBefore, `${localStart} >= ${localBefore}`);
  assert.is(log(topic).logStartOffset, localStart);
  assert.is(await earliest(topic), localStart);
  // Local retention no longer applies: what is local stays (retention.* only).
  await new Promise((r) => setTimeout(r, 500));
  assert.is(log(topic).logStartOffset, localStart);
});

/** One Fetch (v12) of partition 0 of `topic` from `offset`: how long, the error, the record bytes. */
async function fetchAt(topic: string, offset: number): Promise<{ ms: number; errorCode: number; bytes: number }> {
  const c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  try {
    const req = defaultFetchRequest();
    req.maxWaitMs = 100;
    req.minBytes = 1;
    req.maxBytes = 1 << 20;
    req.topics = [{ topic, topicId: '', partitions: [{ ...defaultFetchPartition(), partition: 0, fetchOffset: BigInt(offset), partitionMaxBytes: 1 << 20 }] }];
    const started = Date.now();
    const r = await c.send(1, 12, req);
    const p = r.responses[0].partitions[0];
    return { ms: Date.now() - started, errorCode: p.errorCode, bytes: p.records?.length ?? 0 };
  } finally {
    c.close();
  }
}

async function setBrokerConfig(name: string, value: string | null): Promise<void> {
  await withClient(async (c) => {
    const r = await c.send(44, 1, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name, configOperation: value === null ? 1 : 0, value }] }], validateOnly: false });
    assert.is(r.responses[0].errorCode, 0, r.responses[0].errorMessage ?? '');
  });
}

test('KIP-1241 copy lag: closed segments wait for remote.copy.lag.ms or .bytes, either one is enough', async () => {
  const topic = 'tiered-lag';
  // An hour of time lag and 1 MiB of bytes lag: 64 KiB of small segments copy nothing.
  assert.is((await create(topic, { 'remote.storage.enable': 'true', 'segment.bytes': '8192', 'remote.copy.lag.ms': '3600000', 'remote.copy.lag.bytes': '1048576' })).errorCode, 0);
  await produce(topic, 800);
  const l = log(topic);
  assert.ok(l.segmentBaseOffsets.length >= 4, `segments: ${l.segmentBaseOffsets.length}`);
  await new Promise((r) => setTimeout(r, 800));
  assert.is(l.highestOffsetInRemoteStorage, -1, 'nothing copied before a lag passes');
  // The bytes lag down to 20000: segments followed by at least that much newer data go, in order.
  assert.equal(await alter(topic, { 'remote.copy.lag.bytes': '20000' }), { errorCode: 0, errorMessage: null });
  await until('older segments copied', () => l.highestOffsetInRemoteStorage > 0, 20_000);
  await new Promise((r) => setTimeout(r, 500));
  const bases = l.segmentBaseOffsets;
  const copiedEnd = l.highestOffsetInRemoteStorage;
  // The newest closed segments (less than 20000 newer bytes behind them) stay local only.
  assert.ok(copiedEnd < bases[bases.length - 2] - 1, `copied up to ${copiedEnd}, segments ${bases.join(',')}`);
  // A time lag of 0 copies every closed segment at once.
  assert.equal(await alter(topic, { 'remote.copy.lag.ms': '0' }), { errorCode: 0, errorMessage: null });
  await until('every closed segment copied', () => l.highestOffsetInRemoteStorage === l.segmentBaseOffsets[l.segmentBaseOffsets.length - 1] - 1, 20_000);
});

test('a slow store: the Fetch answers within remote.fetch.max.wait.ms with no records and no error; the read goes on and the next Fetch gets the data', async () => {
  const topic = 'tiered-slow';
  assert.is((await create(topic, { 'remote.storage.enable': 'true', 'segment.bytes': '8192', 'local.retention.bytes': '16384' })).errorCode, 0);
  await produce(topic, 1000);
  await until('segments copied and local ones deleted', () => log(topic).localLogStartOffset > 200, 20_000);
  const fetch = () => fetchAt(topic, 0);
  const expiresBefore = b.broker.tiered!.manager.metrics.fetchExpires;
  store.delayMs = 1500;
  const slow = await fetch();
  store.delayMs = 0;
  assert.is(slow.errorCode, 0);
  assert.is(slow.bytes, 0);
  assert.ok(slow.ms < 1200, `answered after ${slow.ms} ms`);
  assert.is(b.broker.tiered!.manager.metrics.fetchExpires, expiresBefore + 1);
  await new Promise((r) => setTimeout(r, 5000));
  const again = await fetch();
  assert.is(again.errorCode, 0);
  assert.ok(again.bytes > 0, 'the next fetch gets the records');
});

test('remote.log.manager.copy.max.bytes.per.second (dynamic): copying stops while the quota is used up, and goes on once it is raised', async () => {
  const setQuota = (value: string | null) => setBrokerConfig('remote.log.manager.copy.max.bytes.per.second', value);
  // 2,000 B/s over 11 one-second windows: at most about 20 kB (fewer if the tests before copied
  // in the last 11 s) goes before the rate counts as exceeded.
  await setQuota('2000');
  const topic = 'tiered-quota';
  assert.is((await create(topic, { 'remote.storage.enable': 'true', 'segment.bytes': '8192' })).errorCode, 0);
  await produce(topic, 1500);
  const l = log(topic);
  const closed = l.segmentBaseOffsets.length - 1;
  assert.ok(closed >= 10, `closed segments: ${closed}`);
  await new Promise((r) => setTimeout(r, 1500));
  const copiedWhileLimited = objectsOf(topic).filter((k) => k.endsWith('.manifest')).length;
  assert.ok(copiedWhileLimited <= 4, `segments copied under the quota: ${copiedWhileLimited} of ${closed}`);
  assert.ok(b.broker.tiered!.manager.metrics.copyThrottled > 0, 'copy passes throttled');
  await setQuota(null);
  await until('every closed segment copied once the quota is gone', () => objectsOf(topic).filter((k) => k.endsWith('.manifest')).length === closed, 20_000);
});

test('remote.log.manager.fetch.max.bytes.per.second (dynamic): once remote reads pass the quota, a Fetch of remote data answers empty without error; without the quota it reads again', async () => {
  const topic = 'tiered-fetch-quota';
  assert.is((await create(topic, { 'remote.storage.enable': 'true', 'segment.bytes': '8192', 'local.retention.bytes': '16384' })).errorCode, 0);
  await produce(topic, 1000);
  await until('segments copied and local ones deleted', () => log(topic).localLogStartOffset > 400, 20_000);
  const metrics = b.broker.tiered!.manager.metrics;
  const throttledBefore = metrics.fetchThrottled;
  await setBrokerConfig('remote.log.manager.fetch.max.bytes.per.second', '100');
  // A remote read may still go while the measured rate is below the quota (a cached chunk reads
  // nothing from the store): fetch further segments until one store read has passed 100 B/s over
  // 11 s; from then on a Fetch of remote data is answered empty, without error.
  let throttled: Awaited<ReturnType<typeof fetchAt>> | null = null;
  for (let offset = 0; offset < 400 && !throttled; offset += 50) {
    const r = await fetchAt(topic, offset);
    assert.is(r.errorCode, 0);
    if (r.bytes === 0) throttled = r;
  }
  assert.ok(throttled !== null, 'a fetch of remote data answered empty under the quota');
  assert.ok(metrics.fetchThrottled > throttledBefore, 'a remote read skipped');
  const page = await (await fetch(`${b.httpUrl}/metrics`)).text();
  assert.match(page, /samsa_remote_fetch_throttled_total [1-9]/);
  await setBrokerConfig('remote.log.manager.fetch.max.bytes.per.second', null);
  // (A read that outlives remote.fetch.max.wait.ms under load answers empty too: ask again.)
  const again = await untilValue('a remote read without the quota', 15_000, async () => {
    const r = await fetchAt(topic, 200);
    assert.is(r.errorCode, 0);
    return r.bytes > 0 ? r : null;
  });
  assert.ok(again.bytes > 0, 'reads again without the quota');
});

test('refusals with Kafka 4.4\'s messages: copy lag above the effective local retention, copy disabled with local retention unlike total', async () => {
  const lagMs = await create('tiered-bad-lag-ms', { 'remote.storage.enable': 'true', 'retention.ms': '1000', 'remote.copy.lag.ms': '1001' });
  assert.equal(lagMs, { errorCode: 40, errorMessage: 'Invalid value 1001 for configuration remote.copy.lag.ms: Value must not exceed local.retention.ms (effective value: 1000)' });
  const lagBytes = await create('tiered-bad-lag-bytes', { 'remote.storage.enable': 'true', 'retention.bytes': '100000', 'local.retention.bytes': '5000', 'remote.copy.lag.bytes': '6000' });
  assert.equal(lagBytes, { errorCode: 40, errorMessage: 'Invalid value 6000 for configuration remote.copy.lag.bytes: Value must not exceed local.retention.bytes (effective value: 5000)' });
  const copyOff = await create('tiered-bad-copy-off', { 'remote.storage.enable': 'true', 'remote.log.copy.disable': 'true', 'retention.ms': '100000', 'local.retention.ms': '5000' });
  assert.equal(copyOff, { errorCode: 40, errorMessage: 'When `remote.log.copy.disable` is set to true, the `local.retention.ms` and `retention.ms` must be set to the identical value because there will be no more logs copied to the remote storage.' });
  assert.is((await create('tiered-copy-off-ok', { 'remote.storage.enable': 'true', 'remote.log.copy.disable': 'true', 'retention.ms': '100000', 'local.retention.ms': '100000' })).errorCode, 0);
});

test.run();
