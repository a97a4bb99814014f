/**
 * ListConfigResources (key 74, v0-1): v0 lists client-metrics resources only (none), v1 every
 * supported type in Kafka 4.4's order (groups with configs, broker loggers, brokers, topics with
 * the internal ones), one type at a time, unsupported types, and the cluster ACL check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { startBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient, withBroker } from './_admin-wire.js';

const GROUP = 32;
let b: RunningBroker;
let c: WireClient;

async function setGroupConfig(group: string, name: string, value: string | null): Promise<void> {
  const r = await c.send(44, 1, { resources: [{ resourceType: GROUP, resourceName: group, configs: [{ name, configOperation: value === null ? 1 : 0, value }] }], validateOnly: false });
  assert.is(r.responses[0].errorCode, ErrorCode.NONE);
}

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  for (const name of ['lcr-b', 'lcr-a']) await nb.broker.createTopic({ name, numPartitions: 1, replicationFactor: 1, configs: {} });
  await nb.broker.groupCoordinator.ensureActive(); // creates __consumer_offsets
  await setGroupConfig('lcr-g2', 'consumer.session.timeout.ms', '50000');
  await setGroupConfig('lcr-g1', 'consumer.heartbeat.interval.ms', '6000');
  await setGroupConfig('lcr-gone', 'consumer.heartbeat.interval.ms', '6000');
  await setGroupConfig('lcr-gone', 'consumer.heartbeat.interval.ms', null);
});

const listed = (r: { configResources: { resourceName: string; resourceType: number }[] }) => r.configResources.map((x) => `${x.resourceType}:${x.resourceName}`);

test('v1 with no types: groups with configs, broker loggers, brokers, then every topic (internal ones included)', async () => {
  const r = await c.send(74, 1, { resourceTypes: [] });
  assert.is(r.errorCode, ErrorCode.NONE);
  const id = String(b.broker.nodeId);
  const topics = [...b.broker.metadataCache.topics.keys()].sort();
  assert.ok(topics.includes('__consumer_offsets'), `internal topic there: ${topics}`);
  assert.equal(listed(r), ['32:lcr-g1', '32:lcr-g2', `8:${id}`, `4:${id}`, ...topics.map((t) => `2:${t}`)]);
});

test('v1 one type at a time, and in Kafka\'s order of types whatever the request\'s', async () => {
  const id = String(b.broker.nodeId);
  assert.equal(listed(await c.send(74, 1, { resourceTypes: [GROUP] })), ['32:lcr-g1', '32:lcr-g2']);
  assert.equal(listed(await c.send(74, 1, { resourceTypes: [4] })), [`4:${id}`]);
  assert.equal(listed(await c.send(74, 1, { resourceTypes: [8] })), [`8:${id}`]);
  assert.equal(listed(await c.send(74, 1, { resourceTypes: [16] })), []);
  const topicsFirst = listed(await c.send(74, 1, { resourceTypes: [2, GROUP, GROUP] }));
  assert.equal(topicsFirst.slice(0, 2), ['32:lcr-g1', '32:lcr-g2']);
  assert.ok(topicsFirst.slice(2).every((x) => x.startsWith('2:')) && topicsFirst.includes('2:lcr-a'));
});

test('v0 (ListClientMetricsResources): client-metrics resources only, none', async () => {
  const r = await c.send(74, 0, { resourceTypes: [] });
  assert.equal([r.errorCode, r.configResources], [ErrorCode.NONE, []]);
});

test('an unsupported type anywhere in the list: UNSUPPORTED_VERSION and nothing listed', async () => {
  for (const types of [[0], [3], [GROUP, 1], [64]]) {
    const r = await c.send(74, 1, { resourceTypes: types });
    assert.equal([r.errorCode, r.configResources], [ErrorCode.UNSUPPORTED_VERSION, []], `types ${types}`);
  }
});

test('without DESCRIBE_CONFIGS on the cluster: CLUSTER_AUTHORIZATION_FAILED', async () => {
  const secured = await startBroker({ port: 0, config: { 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer' } });
  const sc = await WireClient.connect(secured.port);
  try {
    const r = await sc.send(74, 1, { resourceTypes: [] });
    assert.equal([r.errorCode, r.configResources], [ErrorCode.CLUSTER_AUTHORIZATION_FAILED, []]);
  } finally {
    sc.close();
    await secured.stop();
  }
});

test.run();
