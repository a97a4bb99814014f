/**
 * Client quotas: AlterClientQuotas / DescribeClientQuotas (raw requests: entities, defaults,
 * strict and non-strict filters, Kafka's validation messages, persistence across a restart),
 * Kafka's kafka-configs setting a client quota, and enforcement seen by kafkajs: a producer and a
 * consumer over their byte rates get throttle_time_ms and their throughput drops to about the
 * quota (asserted with generous margins); a client over request_percentage is throttled on any
 * API. quota.window.num=2 so the measured window is short.
 * @samsa-timeout 240
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { KafkaConn } from '../../bench/lib/kafka-conn.js';
import { fill } from '../../compat-tests/probes/fill.js';
import { codec } from '../../compat-tests/probes/wire.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { describeRun, e2eLogLevel } from '../support/clients.js';
import { kafkaTool } from '../support/kafka-tools.js';

const { Kafka, logLevel } = kafkajs;
const dir = mkdtempSync(join(tmpdir(), 'samsa-quotas-'));
let b: RunningBroker;
let conn: KafkaConn;

const start = () => startBroker({ port: 0, storage: { dir }, logLevel: e2eLogLevel, config: { 'num.partitions': 1, 'quota.window.num': 2, 'quota.window.size.seconds': 1 } });

test.before(async () => {
  b = await start();
  conn = await KafkaConn.connect('127.0.0.1', b.port);
});

test.after(async () => {
  conn?.close();
  await b?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function req(c: KafkaConn, apiKey: number, version: number, body: Record<string, unknown>): Promise<any> {
  return c.request(apiKey as never, version, fill(`${codec(apiKey).name}Request`, version, body) as never);
}

const ent = (...pairs: [string, string | null][]) => pairs.map(([entityType, entityName]) => ({ entityType, entityName }));
const set = (key: string, value: number) => ({ key, value, remove: false });

async function alter(entries: { entity: any[]; ops: any[] }[], validateOnly = false): Promise<[number, string | null][]> {
  const r = await req(conn, 49, 1, { entries, validateOnly });
  return r.entries.map((e: any) => [e.errorCode, e.errorMessage]);
}

async function describe(components: { entityType: string; matchType: number; match?: string | null }[], strict = false): Promise<string[]> {
  const r = await req(conn, 48, 1, { components: components.map((c) => ({ match: null, ...c })), strict });
  if (r.errorCode !== 0) return [`error ${r.errorCode}: ${r.errorMessage}`];
  return r.entries.map((e: any) => `${e.entity.map((x: any) => `${x.entityType}=${x.entityName ?? '<default>'}`).sort().join(',')} ${e.values.map((v: any) => `${v.key}=${v.value}`).sort().join(',')}`).sort();
}

test('AlterClientQuotas: set, default entities, remove; Kafka\'s validation', async () => {
  assert.equal(await alter([
    { entity: ent(['user', 'alice']), ops: [set('producer_byte_rate', 1024), set('request_percentage', 12.5)] },
    { entity: ent(['client-id', null]), ops: [set('consumer_byte_rate', 2048)] },
    { entity: ent(['user', 'alice'], ['client-id', 'app']), ops: [set('producer_byte_rate', 4096)] },
  ]), [[0, null], [0, null], [0, null]]);
  assert.equal(await alter([
    { entity: [], ops: [set('producer_byte_rate', 1)] },
    { entity: ent(['group', 'g']), ops: [set('producer_byte_rate', 1)] },
    { entity: ent(['user', '']), ops: [set('producer_byte_rate', 1)] },
    { entity: ent(['user', 'bob']), ops: [set('no_such_key', 1)] },
    { entity: ent(['client-id', 'c']), ops: [set('producer_byte_rate', 1.5)] },
    { entity: ent(['client-id', 'd']), ops: [set('producer_byte_rate', 1), set('producer_byte_rate', 2)] },
  ]), [
    [42, 'Invalid empty client quota entity'],
    [42, 'Unhandled client quota entity type: group'],
    [42, 'Empty user not supported'],
    [42, 'Invalid configuration key no_such_key'],
    [42, 'producer_byte_rate cannot be a fractional value.'],
    [42, 'Duplicate quota key producer_byte_rate not updating quota for this entity ClientQuotaEntity(entries={client-id=d})'],
  ]);
  assert.equal(await alter([{ entity: ent(['user', 'carol']), ops: [set('producer_byte_rate', 1)] }], true), [[0, null]]);
  assert.equal(await describe([{ entityType: 'user', matchType: 0, match: 'carol' }]), []);
  assert.equal(await alter([{ entity: ent(['user', 'alice']), ops: [{ key: 'request_percentage', value: 0, remove: true }] }]), [[0, null]]);
});

test('DescribeClientQuotas: exact, default and any matches; strict; errors', async () => {
  assert.equal(await describe([{ entityType: 'user', matchType: 0, match: 'alice' }]), [
    'client-id=app,user=alice producer_byte_rate=4096',
    'user=alice producer_byte_rate=1024',
  ]);
  assert.equal(await describe([{ entityType: 'user', matchType: 0, match: 'alice' }], true), ['user=alice producer_byte_rate=1024']);
  assert.equal(await describe([{ entityType: 'client-id', matchType: 1 }]), ['client-id=<default> consumer_byte_rate=2048']);
  assert.equal(await describe([{ entityType: 'client-id', matchType: 2 }]), [
    'client-id=<default> consumer_byte_rate=2048',
    'client-id=app,user=alice producer_byte_rate=4096',
  ]);
  assert.equal((await describe([])).length, 3);
  assert.equal(await describe([{ entityType: 'user', matchType: 2 }, { entityType: 'user', matchType: 1 }]), ['error 42: Entity type user cannot appear more than once in the filter.']);
  assert.equal(await describe([{ entityType: 'topic', matchType: 2 }]), ['error 35: Unsupported entity type topic']);
});

test('quotas survive a restart', async () => {
  conn.close();
  await b.stop();
  b = await start();
  conn = await KafkaConn.connect('127.0.0.1', b.port);
  assert.equal((await describe([])).length, 3);
  // Clean slate for the enforcement tests.
  assert.equal(await alter([
    { entity: ent(['user', 'alice']), ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] },
    { entity: ent(['client-id', null]), ops: [{ key: 'consumer_byte_rate', value: 0, remove: true }] },
    { entity: ent(['user', 'alice'], ['client-id', 'app']), ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] },
  ]), [[0, null], [0, null], [0, null]]);
  assert.equal(await describe([]), []);
});

const RATE = 200_000;
const value = Buffer.alloc(20_000, 7);

test('a producer over producer_byte_rate gets throttle_time_ms and slows to about its quota', async () => {
  // The raw connection's client id is samsa-bench (bench/lib/kafka-conn.ts).
  assert.equal(await alter([
    { entity: ent(['client-id', 'slow-producer']), ops: [set('producer_byte_rate', RATE)] },
    { entity: ent(['client-id', 'samsa-bench']), ops: [set('producer_byte_rate', RATE)] },
  ]), [[0, null], [0, null]]);
  await req(conn, 19, 7, { topics: [{ name: 'q-produce', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 10_000 });
  // Raw: the response names the throttle time.
  const raw = await KafkaConn.connect('127.0.0.1', b.port);
  let throttled = 0;
  for (let i = 0; i < 30 && throttled === 0; i++) {
    const r = await raw.request(0, 9, fill('ProduceRequest', 9, {
      acks: 1, timeoutMs: 5000,
      topicData: [{ name: 'q-produce', partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value }] } as never) }] }],
    }) as never) as any;
    assert.is(r.responses[0].partitionResponses[0].errorCode, 0);
    throttled = r.throttleTimeMs;
  }
  raw.close();
  assert.ok(throttled > 0 && throttled <= 1000, `throttle_time_ms ${throttled}`);
  // kafkajs (client id "slow-producer"): 1.2 MB at 200 KB/s takes about 6 s; unthrottled well under 1 s.
  const kafka = new Kafka({ clientId: 'slow-producer', brokers: [`127.0.0.1:${b.port}`], logLevel: logLevel.NOTHING });
  const p = kafka.producer();
  await p.connect();
  const t0 = Date.now();
  for (let i = 0; i < 60; i++) await p.send({ topic: 'q-produce', messages: [{ value }] });
  const s = (Date.now() - t0) / 1000;
  await p.disconnect();
  const rate = (60 * value.length) / s;
  assert.ok(s > 3, `1.2 MB took ${s.toFixed(2)} s (${Math.round(rate)} B/s), expected about 6 s under a ${RATE} B/s quota`);
  assert.ok(rate < RATE * 2, `rate ${Math.round(rate)} B/s is far above the quota`);
});

test('a consumer over consumer_byte_rate is throttled to about its quota; other clients are not', async () => {
  assert.equal(await alter([{ entity: ent(['client-id', 'slow-consumer']), ops: [set('consumer_byte_rate', RATE)] }]), [[0, null]]);
  const kafka = (clientId: string) => new Kafka({ clientId, brokers: [`127.0.0.1:${b.port}`], logLevel: logLevel.NOTHING });
  const read = async (clientId: string): Promise<number> => {
    const c = kafka(clientId).consumer({ groupId: `g-${clientId}`, maxBytesPerPartition: 100_000 });
    await c.connect();
    await c.subscribe({ topic: 'q-produce', fromBeginning: true });
    const t0 = Date.now();
    let n = 0;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${clientId}: ${n} of ${total} records`)), 60_000);
      void c.run({ eachMessage: async () => { if (++n === total) { clearTimeout(timer); resolve(); } } });
    });
    const s = (Date.now() - t0) / 1000;
    await c.disconnect();
    return s;
  };
  const lo = await req(conn, 2, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'q-produce', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
  const total = Number(lo.topics[0].partitions[0].offset);
  assert.ok(total >= 60, `${total} records`);
  const fast = await read('fast-consumer');
  const slow = await read('slow-consumer');
  assert.ok(slow > 3 && slow > fast * 2, `throttled consumer took ${slow.toFixed(2)} s, unthrottled ${fast.toFixed(2)} s`);
});

test('request_percentage: a client over its share of handler time gets throttle_time_ms on any API and is muted', async () => {
  // 0.01% of a second per second: 0.1 ms of handler time each second.
  assert.equal(await alter([{ entity: ent(['client-id', 'busy']), ops: [set('request_percentage', 0.01)] }]), [[0, null]]);
  const { KafkaClient } = await import('../../src/cli/client.js');
  const busy = await KafkaClient.connect({ bootstrap: `127.0.0.1:${b.port}`, clientId: 'busy' });
  const other = await KafkaClient.connect({ bootstrap: `127.0.0.1:${b.port}`, clientId: 'idle' });
  try {
    const describeAll = { resources: [{ resourceType: 2, resourceName: 'q-produce', configurationKeys: null }], includeSynonyms: true, includeDocumentation: true };
    let throttle = 0;
    const t0 = Date.now();
    for (let i = 0; i < 200 && throttle === 0; i++) throttle = (await busy.send(32, 4, describeAll as never) as any).throttleTimeMs;
    assert.ok(throttle > 0 && throttle <= 1000, `throttle_time_ms ${throttle} after ${Date.now() - t0} ms`);
    // The next request waits for the mute.
    const t1 = Date.now();
    await busy.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false } as never);
    assert.ok(Date.now() - t1 >= throttle * 0.8, `answered after ${Date.now() - t1} ms, muted for ${throttle} ms`);
    // Another client id is not throttled.
    const r: any = await other.send(32, 4, describeAll as never);
    assert.is(r.throttleTimeMs, 0);
  } finally {
    busy.close();
    other.close();
  }
  assert.equal(await alter([{ entity: ent(['client-id', 'busy']), ops: [{ key: 'request_percentage', value: 0, remove: true }] }]), [[0, null]]);
});

test('kafka-configs sets a client quota through AlterClientQuotas', async () => {
  const missing = javaMissing();
  if (missing) return void console.log(`skipped: ${missing}`);
  const r = await kafkaTool('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', `127.0.0.1:${b.port}`,
    '--alter', '--add-config', 'producer_byte_rate=1048576,consumer_byte_rate=2097152', '--entity-type', 'clients', '--entity-name', 'java-app'], { timeoutMs: 90_000 });
  assert.is(r.code, 0, describeRun(r));
  assert.equal(await describe([{ entityType: 'client-id', matchType: 0, match: 'java-app' }]), ['client-id=java-app consumer_byte_rate=2097152,producer_byte_rate=1048576']);
  const d = await kafkaTool('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', `127.0.0.1:${b.port}`,
    '--describe', '--entity-type', 'clients', '--entity-name', 'java-app'], { timeoutMs: 90_000 });
  assert.is(d.code, 0, describeRun(d));
  assert.match(d.stdout, /producer_byte_rate=1048576/);
});

test.run();
