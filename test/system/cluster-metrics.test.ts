/**
 * /metrics and /health in a two-broker cluster (etcd, broker processes): with the follower's
 * replica fetches cut, the leader shrinks the ISR (isrshrinks_total, underreplicatedpartitions,
 * the partition's insyncreplicascount); healed, it expands again (isrexpands_total) and the
 * follower's lag goes back to zero. Both brokers are ready (registered).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { freePort } from '../support/net.js';
import { parsePrometheusText, value, valueOr0, type Family } from '../support/prom-text.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`cluster-metrics: required under CI: ${missing}`);

const TOPIC = 'isr-metrics';
let cluster: TestCluster | null = null;
const httpPorts = new Map<number, number>();

async function scrape(nodeId: number): Promise<Map<string, Family>> {
  const res = await fetch(`http://127.0.0.1:${httpPorts.get(nodeId)}/metrics`);
  assert.is(res.status, 200);
  return parsePrometheusText(await res.text());
}

/** Scrapes broker `nodeId` until `ok` holds (the ISR changes on the leader's own schedule). */
async function until(nodeId: number, ok: (f: Map<string, Family>) => boolean, what: string): Promise<Map<string, Family>> {
  let last: Map<string, Family> | null = null;
  for (let i = 0; i < 200; i++) {
    last = await scrape(nodeId);
    if (ok(last)) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not seen in /metrics of broker ${nodeId}`);
}

test.before(async () => {
  if (missing) return;
  for (const id of [1, 2]) httpPorts.set(id, await freePort());
  cluster = await startCluster({
    brokers: 2, peerProxies: true,
    config: { 'replica.lag.time.max.ms': 1000, 'replica.fetch.backoff.ms': 100, 'replica.fetch.wait.max.ms': 200 },
    brokerConfig: (id) => ({ 'samsa.http.listeners': `http://127.0.0.1:${httpPorts.get(id)}` }),
  });
});

test.after(async () => {
  await cluster?.cleanup();
});

test('ISR shrink and expand on the leader are counted; ready on both brokers', async () => {
  if (missing) return;
  const c = cluster!;
  for (const id of [1, 2]) assert.is((await fetch(`http://127.0.0.1:${httpPorts.get(id)}/health/ready`)).status, 200, `broker ${id} ready`);
  const kafka = new Kafka({ clientId: 'isr-metrics', brokers: c.bootstrapList, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, replicaAssignment: [{ partition: 0, replicas: [1, 2] }] }], waitForLeaders: true });
  await admin.disconnect();
  const labels = { topic: TOPIC, partition: '0' };
  await until(1, (f) => valueOr0(f, 'kafka_cluster_partition_insyncreplicascount', labels) === 2, 'both replicas in sync');
  const before = await scrape(1);
  assert.is(value(before, 'kafka_server_replicamanager_underreplicatedpartitions'), 0);
  const shrinks0 = value(before, 'kafka_server_replicamanager_isrshrinks_total');
  const expands0 = value(before, 'kafka_server_replicamanager_isrexpands_total');

  c.peerLink(2, 1).cut();
  const shrunk = await until(1, (f) => value(f, 'kafka_server_replicamanager_underreplicatedpartitions') === 1, 'the partition under-replicated');
  assert.is(value(shrunk, 'kafka_server_replicamanager_isrshrinks_total') - shrinks0, 1, 'one shrink');
  assert.is(value(shrunk, 'kafka_cluster_partition_insyncreplicascount', labels), 1);
  assert.is(value(shrunk, 'kafka_cluster_partition_underreplicated', labels), 1);

  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: TOPIC, acks: 1, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
  await producer.disconnect();

  c.peerLink(2, 1).heal();
  const healed = await until(1, (f) => value(f, 'kafka_server_replicamanager_underreplicatedpartitions') === 0, 'the ISR complete again');
  assert.is(value(healed, 'kafka_server_replicamanager_isrexpands_total') - expands0, 1, 'one expansion');
  await until(1, (f) => valueOr0(f, 'kafka_server_fetcherlagmetrics_consumerlag', { clientId: 'ReplicaFetcherThread-0-1', ...labels, replica: '2' }) === 0
    && value(f, 'kafka_log_log_logendoffset', labels) === 3, 'the follower caught up');
  const follower = await scrape(2);
  assert.is(value(follower, 'kafka_log_log_logendoffset', labels), 3, 'the follower has the records');
  assert.is(value(follower, 'kafka_server_replicamanager_leadercount') >= 0, true);
});

test.run();
