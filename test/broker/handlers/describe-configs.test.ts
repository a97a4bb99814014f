import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { DescribeConfigsResource } from '../../../src/protocol/generated/messages/describe-configs-request.js';
import { WireClient, withBroker } from './_admin-wire.js';

const TOPIC = 2;
const BROKER = 4;
let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0, config: { 'log.retention.hours': 48 } }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'dc-t', numPartitions: 1, replicationFactor: 1, configs: { 'retention.bytes': '5000' } });
});

async function describe(resources: DescribeConfigsResource[], opts: { version?: number; synonyms?: boolean; docs?: boolean } = {}) {
  const r = await c.send(32, opts.version ?? 4, { resources, includeSynonyms: opts.synonyms ?? false, includeDocumentation: opts.docs ?? false });
  return r.results;
}

test('topic: overrides are DYNAMIC_TOPIC_CONFIG, inherited static settings STATIC_BROKER_CONFIG, the rest DEFAULT_CONFIG', async () => {
  const [r] = await describe([{ resourceType: TOPIC, resourceName: 'dc-t', configurationKeys: null }]);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.errorMessage, '');
  assert.is(r.resourceType, TOPIC);
  assert.is(r.resourceName, 'dc-t');
  const names = r.configs.map((e) => e.name);
  assert.equal(names, [...names].sort());
  const byName = new Map(r.configs.map((e) => [e.name, e]));
  const rb = byName.get('retention.bytes')!;
  assert.equal([rb.value, rb.configSource, rb.readOnly, rb.isSensitive, rb.configType, rb.synonyms, rb.documentation], ['5000', 1, false, false, 5, [], null]);
  // Kafka 4.4 (checked against a real broker with log.retention.hours=48): the value follows the
  // static setting, but the source is DEFAULT_CONFIG, because the synonym list starts at the
  // primary broker name (log.retention.ms, unset) and log.retention.hours is dropped.
  const rm = byName.get('retention.ms')!;
  assert.equal([rm.value, rm.configSource], ['172800000', 5]);
  const cp = byName.get('cleanup.policy')!;
  assert.equal([cp.value, cp.configSource, cp.configType], ['delete', 5, 7]);
});

test('include_synonyms lists the override then the broker synonyms; include_documentation (v3+) fills docs', async () => {
  const [r] = await describe([{ resourceType: TOPIC, resourceName: 'dc-t', configurationKeys: ['retention.bytes', 'retention.ms'] }], { synonyms: true, docs: true });
  assert.equal(r.configs.map((e) => e.name), ['retention.bytes', 'retention.ms']);
  const [rb, rm] = r.configs;
  assert.equal(rb.synonyms, [
    { name: 'retention.bytes', value: '5000', source: 1 },
    { name: 'log.retention.bytes', value: '-1', source: 5 },
  ]);
  assert.equal(rm.synonyms, [], 'log.retention.hours is not listed (see above)');
  assert.type(rb.documentation, 'string');
  const [v1] = await describe([{ resourceType: TOPIC, resourceName: 'dc-t', configurationKeys: ['retention.bytes'] }], { version: 1, synonyms: true, docs: true });
  assert.is.not(v1.configs[0].documentation, rb.documentation, 'no documentation field before v3');
  assert.ok(v1.configs[0].synonyms.length > 0);
});

test('configuration_keys: unknown names are left out; empty list means all', async () => {
  const [r] = await describe([{ resourceType: TOPIC, resourceName: 'dc-t', configurationKeys: ['nope', 'segment.bytes'] }]);
  assert.equal(r.configs.map((e) => e.name), ['segment.bytes']);
  const [all] = await describe([{ resourceType: TOPIC, resourceName: 'dc-t', configurationKeys: [] }], { version: 2 });
  assert.ok(all.configs.length > 20);
});

test('unknown topic, illegal topic name', async () => {
  const [unknown, illegal] = await describe([
    { resourceType: TOPIC, resourceName: 'dc-missing', configurationKeys: null },
    { resourceType: TOPIC, resourceName: 'bad/name', configurationKeys: null },
  ]);
  assert.equal(unknown, { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: '', resourceType: TOPIC, resourceName: 'dc-missing', configs: [] });
  assert.is(illegal.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.is(illegal.errorMessage, `Topic name is invalid: 'bad/name' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`);
});

test('broker: this node id gives every setting (static or default; read_only but for Kafka\'s dynamic ones); "" gives the format-time min.insync.replicas', async () => {
  const id = String(b.broker.nodeId);
  const [mine, cluster] = await describe([
    { resourceType: BROKER, resourceName: id, configurationKeys: null },
    { resourceType: BROKER, resourceName: '', configurationKeys: null },
  ], { synonyms: true });
  assert.is(mine.errorCode, ErrorCode.NONE);
  const byName = new Map(mine.configs.map((e) => [e.name, e]));
  const hours = byName.get('log.retention.hours')!;
  assert.equal([hours.value, hours.configSource, hours.readOnly], ['48', 4, true]);
  const np = byName.get('num.partitions')!;
  assert.equal([np.value, np.configSource, np.readOnly], ['1', 5, true]);
  const mmb = byName.get('message.max.bytes')!;
  assert.equal([mmb.configSource, mmb.readOnly], [5, false]);
  assert.equal(cluster.configs.map((e) => [e.name, e.value, e.configSource, e.readOnly, e.synonyms]), [
    ['min.insync.replicas', '1', 3, false, [{ name: 'min.insync.replicas', value: '1', source: 3 }]],
  ]);
});

test('broker: another id or a non-integer name is INVALID_REQUEST; other resource types are unsupported', async () => {
  const other = String(b.broker.nodeId + 1);
  const rs = await describe([
    { resourceType: BROKER, resourceName: other, configurationKeys: null },
    { resourceType: BROKER, resourceName: 'abc', configurationKeys: null },
    { resourceType: 8, resourceName: String(b.broker.nodeId), configurationKeys: null },
    { resourceType: 3, resourceName: 'x', configurationKeys: null },
  ]);
  assert.is(rs[0].errorCode, ErrorCode.INVALID_REQUEST);
  assert.is(rs[0].errorMessage, `Unexpected broker id, expected ${b.broker.nodeId} or empty string, but received ${other}`);
  assert.is(rs[1].errorMessage, 'Broker id must be an integer, but it is: abc');
  assert.is(rs[2].errorCode, ErrorCode.INVALID_REQUEST);
  assert.is(rs[2].errorMessage, 'Unsupported resource type: BROKER_LOGGER');
  assert.is(rs[3].errorMessage, 'Unsupported resource type: UNKNOWN');
});

test.run();
