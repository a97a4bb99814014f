/** AlterConfigs (33) and IncrementalAlterConfigs (44). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient, withBroker } from './_admin-wire.js';

const TOPIC = 2;
const BROKER = 4;
const SET = 0, DELETE = 1, APPEND = 2, SUBTRACT = 3;
let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  for (const name of ['ac-legacy', 'ac-inc', 'ac-list', 'ac-dry']) {
    await b.broker.createTopic({ name, numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': '1000', 'segment.bytes': '100000' } });
  }
});

const overrides = (name: string) => b.broker.metadataCache.topic(name)!.configs;

async function legacy(resources: { resourceType: number; resourceName: string; configs: { name: string; value: string | null }[] }[], validateOnly = false, version = 2) {
  return (await c.send(33, version, { resources, validateOnly })).responses;
}

async function incremental(resources: { resourceType: number; resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }[], validateOnly = false, version = 1) {
  return (await c.send(44, version, { resources, validateOnly })).responses;
}

test('legacy AlterConfigs replaces the whole override set and reaches the partition logs', async () => {
  const [r] = await legacy([{ resourceType: TOPIC, resourceName: 'ac-legacy', configs: [{ name: 'retention.bytes', value: '777' }] }], false, 0);
  assert.equal(r, { errorCode: ErrorCode.NONE, errorMessage: null, resourceType: TOPIC, resourceName: 'ac-legacy' });
  assert.equal(overrides('ac-legacy'), { 'retention.bytes': '777' });
  assert.is(b.broker.getLog('ac-legacy', 0)!.config.retentionBytes, 777);
});

test('incremental SET / DELETE touch only the listed keys', async () => {
  const [r] = await incremental([{ resourceType: TOPIC, resourceName: 'ac-inc', configs: [
    { name: 'retention.ms', configOperation: DELETE, value: null },
    { name: 'max.message.bytes', configOperation: SET, value: '2048' },
    { name: 'flush.ms', configOperation: DELETE, value: null },
  ] }], false, 0);
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.equal(overrides('ac-inc'), { 'segment.bytes': '100000', 'max.message.bytes': '2048' });
});

test('incremental APPEND / SUBTRACT on a list config; non-list configs are INVALID_CONFIG', async () => {
  const set = async (op: number, value: string) => (await incremental([{ resourceType: TOPIC, resourceName: 'ac-list', configs: [{ name: 'cleanup.policy', configOperation: op, value }] }]))[0];
  assert.is((await set(APPEND, 'compact')).errorCode, ErrorCode.NONE);
  assert.is(overrides('ac-list')['cleanup.policy'], 'delete,compact');
  assert.is((await set(APPEND, 'delete')).errorCode, ErrorCode.NONE);
  assert.is(overrides('ac-list')['cleanup.policy'], 'delete,compact');
  assert.is((await set(SUBTRACT, 'delete')).errorCode, ErrorCode.NONE);
  assert.is(overrides('ac-list')['cleanup.policy'], 'compact');
  const [bad] = await incremental([{ resourceType: TOPIC, resourceName: 'ac-list', configs: [{ name: 'retention.ms', configOperation: APPEND, value: '5' }] }]);
  assert.equal(bad, { errorCode: ErrorCode.INVALID_CONFIG, errorMessage: "Can't APPEND to key retention.ms because its type is not LIST.", resourceType: TOPIC, resourceName: 'ac-list' });
  const [bad2] = await incremental([{ resourceType: TOPIC, resourceName: 'ac-list', configs: [{ name: 'retention.ms', configOperation: SUBTRACT, value: '5' }] }]);
  assert.is(bad2.errorMessage, "Can't SUBTRACT to key retention.ms because its type is not LIST.");
  const [badOp] = await incremental([{ resourceType: TOPIC, resourceName: 'ac-list', configs: [{ name: 'retention.ms', configOperation: 9, value: '5' }] }]);
  // Kafka 4.4 answers an unknown operation code UNKNOWN_SERVER_ERROR without a message.
  assert.equal([badOp.errorCode, badOp.errorMessage], [ErrorCode.UNKNOWN_SERVER_ERROR, null]);
});

test('validation: unknown name, bad value, null value, duplicate keys, duplicate resources', async () => {
  const rs = await incremental([
    { resourceType: TOPIC, resourceName: 'ac-dry', configs: [{ name: 'nope', configOperation: SET, value: '1' }] },
    { resourceType: TOPIC, resourceName: 'ac-dry', configs: [] },
  ]);
  assert.equal(rs.map((r) => [r.errorCode, r.errorMessage]), [
    [ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.'],
    [ErrorCode.INVALID_REQUEST, 'Each resource must appear at most once.'],
  ]);
  const [unknown, badValue, nullValue, dupKey] = await incremental([
    { resourceType: TOPIC, resourceName: 'ac-dry', configs: [{ name: 'nope', configOperation: SET, value: '1' }] },
    { resourceType: TOPIC, resourceName: 'ac-inc', configs: [{ name: 'retention.ms', configOperation: SET, value: 'x' }] },
    { resourceType: TOPIC, resourceName: 'ac-list', configs: [{ name: 'retention.ms', configOperation: SET, value: null }, { name: 'a', configOperation: APPEND, value: null }] },
    { resourceType: TOPIC, resourceName: 'ac-legacy', configs: [{ name: 'retention.ms', configOperation: SET, value: '1' }, { name: 'retention.ms', configOperation: DELETE, value: null }] },
  ]);
  assert.equal([unknown.errorCode, unknown.errorMessage], [ErrorCode.INVALID_CONFIG, 'Unknown topic config name: nope']);
  assert.equal([badValue.errorCode, badValue.errorMessage], [ErrorCode.INVALID_CONFIG, 'Invalid value x for configuration retention.ms: Not a number of type LONG']);
  assert.equal([nullValue.errorCode, nullValue.errorMessage], [ErrorCode.INVALID_REQUEST, 'Null value not supported for : retention.ms, a']);
  assert.equal([dupKey.errorCode, dupKey.errorMessage], [ErrorCode.INVALID_REQUEST, 'Error due to duplicate config keys']);
  const [legacyNull] = await legacy([{ resourceType: TOPIC, resourceName: 'ac-dry', configs: [{ name: 'retention.ms', value: null }] }]);
  assert.equal([legacyNull.errorCode, legacyNull.errorMessage], [ErrorCode.INVALID_REQUEST, 'Null value not supported for : retention.ms']);
  assert.equal(overrides('ac-dry'), { 'retention.ms': '1000', 'segment.bytes': '100000' });
});

test('topic names: default resource, illegal name, unknown topic (after config validation)', async () => {
  const rs = await legacy([
    { resourceType: TOPIC, resourceName: '', configs: [] },
    { resourceType: TOPIC, resourceName: 'a b', configs: [] },
    { resourceType: TOPIC, resourceName: 'ac-missing', configs: [{ name: 'retention.ms', value: '5' }] },
    { resourceType: TOPIC, resourceName: 'ac-missing2', configs: [{ name: 'nope', value: '5' }] },
  ], false, 1);
  assert.equal(rs.map((r) => [r.resourceName, r.errorCode, r.errorMessage]), [
    ['', ErrorCode.INVALID_REQUEST, 'Default topic resources are not allowed.'],
    ['a b', ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'`],
    ['ac-missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "The topic 'ac-missing' does not exist."],
    ['ac-missing2', ErrorCode.INVALID_CONFIG, 'Unknown topic config name: nope'],
  ]);
});

test('validate_only checks everything and changes nothing', async () => {
  const [ok] = await legacy([{ resourceType: TOPIC, resourceName: 'ac-dry', configs: [{ name: 'retention.ms', value: '5' }] }], true);
  assert.is(ok.errorCode, ErrorCode.NONE);
  const [inc] = await incremental([{ resourceType: TOPIC, resourceName: 'ac-dry', configs: [{ name: 'segment.bytes', configOperation: DELETE, value: null }] }], true);
  assert.is(inc.errorCode, ErrorCode.NONE);
  assert.equal(overrides('ac-dry'), { 'retention.ms': '1000', 'segment.bytes': '100000' });
});

test('broker resources: deletes of unset configs are no-ops, static ones are refused, other ids and types too', async () => {
  const id = String(b.broker.nodeId);
  const rs = await incremental([
    { resourceType: BROKER, resourceName: id, configs: [{ name: 'log.retention.ms', configOperation: DELETE, value: null }] },
    { resourceType: BROKER, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: SET, value: '5' }, { name: 'num.partitions', configOperation: SET, value: '2' }, { name: 'log.retention.hours', configOperation: SET, value: '2' }] },
    { resourceType: BROKER, resourceName: String(b.broker.nodeId + 1), configs: [] },
    { resourceType: BROKER, resourceName: 'x', configs: [] },
    { resourceType: 8, resourceName: id, configs: [{ name: 'root', configOperation: SET, value: 'DEBUG' }] },
    { resourceType: 7, resourceName: 'q', configs: [] },
  ]);
  assert.equal(rs.map((r) => [r.errorCode, r.errorMessage]), [
    [ErrorCode.NONE, null],
    [ErrorCode.INVALID_REQUEST, 'Cannot update these configs dynamically: [log.retention.hours, num.partitions]'],
    [ErrorCode.INVALID_REQUEST, `Unexpected broker id, expected ${id}, but received ${b.broker.nodeId + 1}`],
    [ErrorCode.INVALID_REQUEST, 'Node id must be an integer, but it is: x'],
    [ErrorCode.INVALID_REQUEST, 'Resource type BROKER_LOGGER is not supported by this broker'],
    [ErrorCode.INVALID_REQUEST, 'Unknown resource type 7'],
  ]);
  const ls = await legacy([
    { resourceType: BROKER, resourceName: id, configs: [] },
    { resourceType: BROKER, resourceName: id, configs: [{ name: 'x', value: '1' }] },
    { resourceType: 8, resourceName: id, configs: [] },
  ]);
  assert.equal(ls.map((r) => r.errorCode), [ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST, ErrorCode.INVALID_REQUEST]);
  assert.is(ls[0].errorMessage, 'Each resource must appear at most once.');
  assert.is(ls[2].errorMessage, 'Unknown resource type 8');
  const [empty] = await legacy([{ resourceType: BROKER, resourceName: '', configs: [] }]);
  assert.equal([empty.errorCode, empty.errorMessage], [ErrorCode.NONE, null]);
});

test.run();
