/**
 * Dynamic broker configs on three broker processes on one etcd (test/support/cluster.ts):
 * - the cluster starts with one format-time default, min.insync.replicas, which every broker
 *   describes under "" (DYNAMIC_DEFAULT_BROKER_CONFIG);
 * - a cluster default set through a broker that is not the controller reaches every broker: each
 *   describes it under "" and under its own id, a topic without its own settings inherits it on
 *   each, and each broker acts on it (message.max.bytes refuses a large record on every leader);
 * - a per-broker value (set through that broker) overrides the default on that broker only;
 * - a broker SIGKILLed and started again reads them back from etcd.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`dynamic-broker-configs: etcd is required under CI: ${missing}`);
const BROKER = 4;
const TOPIC = 2;
const T = 'dbc-topic';

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3 });
});

test.after(async () => {
  await c?.cleanup();
});

type Described = Record<string, { value: string | null; source: number }>;

async function describe(nodeId: number, resourceType: number, resourceName: string, keys: string[] | null = null): Promise<Described> {
  const cl = await c!.client(nodeId);
  const r = await cl.send(32, 4, { resources: [{ resourceType, resourceName, configurationKeys: keys }], includeSynonyms: false, includeDocumentation: false });
  assert.is(r.results[0].errorCode, ErrorCode.NONE, `${resourceName} on ${nodeId}`);
  return Object.fromEntries(r.results[0].configs.map((e) => [e.name, { value: e.value, source: e.configSource }]));
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function alter(nodeId: number, resourceName: string, configs: { name: string; configOperation: number; value: string | null }[]): Promise<void> {
  const cl = await c!.client(nodeId);
  const r = await cl.send(44, 1, { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly: false });
  assert.equal([r.responses[0].errorCode, r.responses[0].errorMessage], [ErrorCode.NONE, null], `alter ${resourceName} through ${nodeId}`);
}

/** Produces one record of `bytes` to each partition; the error type per partition ('' when written). */
async function produceBig(bytes: number): Promise<string[]> {
  const producer = new Kafka({ clientId: 'dbc', brokers: c!.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer();
  await producer.connect();
  try {
    const out: string[] = [];
    for (let p = 0; p < 3; p++) {
      out.push(await producer.send({ topic: T, acks: -1, messages: [{ partition: p, value: 'z'.repeat(bytes) }] })
        .then(() => '', (e: Error & { type?: string }) => e.type ?? e.message));
    }
    return out;
  } finally {
    await producer.disconnect();
  }
}

test('a cluster default set through one broker reaches every broker, and each acts on it', async () => {
  if (!c) return console.log('dynamic-broker-configs: skipped:', missing);
  const ids = c.brokers.map((b) => b.nodeId);
  for (const id of ids) {
    assert.equal(await describe(id, BROKER, ''), { 'min.insync.replicas': { value: '1', source: 3 } }, `the format-time default on ${id}`);
  }
  const md = await c.metadata(ids[0]);
  const writer = ids.find((id) => id !== md.controllerId)!;
  const admin = new Kafka({ clientId: 'dbc-admin', brokers: c.bootstrapList, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: T, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  await waitFor('a leader on every broker', async () => {
    const m = await c!.metadata(ids[0], [T]);
    return new Set(m.topics[0]?.partitions.map((p) => p.leaderId)).size === 3;
  }, 20_000);
  assert.equal(await produceBig(5000), ['', '', ''], 'the default message.max.bytes takes 5000 bytes');

  await alter(writer, '', [{ name: 'message.max.bytes', configOperation: 0, value: '2000' }, { name: 'log.retention.ms', configOperation: 0, value: '3600000' }]);
  for (const id of ids) {
    await waitFor(`the default on broker ${id}`, async () => (await describe(id, BROKER, ''))['message.max.bytes']?.value === '2000');
    const own = await describe(id, BROKER, String(id), ['message.max.bytes', 'log.retention.ms']);
    assert.equal(own, { 'log.retention.ms': { value: '3600000', source: 3 }, 'message.max.bytes': { value: '2000', source: 3 } }, `broker ${id}`);
    const topic = await describe(id, TOPIC, T, ['retention.ms', 'max.message.bytes']);
    assert.equal(topic, { 'max.message.bytes': { value: '2000', source: 3 }, 'retention.ms': { value: '3600000', source: 3 } }, `the topic on broker ${id}`);
  }
  assert.equal(await produceBig(5000), ['MESSAGE_TOO_LARGE', 'MESSAGE_TOO_LARGE', 'MESSAGE_TOO_LARGE'], 'every leader refuses a 5000-byte batch');

  // One broker's own value wins there only.
  const m = await c.metadata(ids[0], [T]);
  const leader0 = m.topics[0].partitions.find((p) => p.partitionIndex === 0)!.leaderId;
  await alter(leader0, String(leader0), [{ name: 'message.max.bytes', configOperation: 0, value: '100000' }]);
  assert.equal((await describe(leader0, BROKER, String(leader0), ['message.max.bytes']))['message.max.bytes'], { value: '100000', source: 2 });
  const results = await produceBig(5000);
  assert.equal(results[0], '', 'partition 0\'s leader takes it now');
  assert.equal(results.slice(1), ['MESSAGE_TOO_LARGE', 'MESSAGE_TOO_LARGE']);

  // Read back from etcd after a SIGKILL.
  const victim = ids.find((id) => id !== leader0)!;
  await c.kill(victim);
  await c.start(victim);
  await waitFor(`broker ${victim} back`, async () => (await describe(victim, BROKER, ''))['message.max.bytes']?.value === '2000', 20_000);
  assert.equal((await describe(victim, BROKER, String(victim), ['message.max.bytes']))['message.max.bytes'], { value: '2000', source: 3 });
});

test.run();
