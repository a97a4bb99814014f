/**
 * GROUP resources over the wire (DescribeConfigs 32, AlterConfigs 33, IncrementalAlterConfigs 44):
 * bounds from this broker's group.consumer.* settings, sources (DYNAMIC_GROUP_CONFIG, a static
 * broker setting, defaults), groups that do not exist, legacy replacement, validate_only, and the
 * overrides surviving a restart (the single node's metadata file).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { WireClient } from './_admin-wire.js';

const GROUP = 32;
const dir = mkdtempSync(join(tmpdir(), 'samsa-group-configs-'));
const CONFIG = { 'group.consumer.max.session.timeout.ms': 70000, 'group.consumer.heartbeat.interval.ms': 6000 };
let b: RunningBroker;
let c: WireClient;

async function start(): Promise<void> {
  b = await startBroker({ port: 0, storage: { dir }, config: CONFIG });
  c = await WireClient.connect(b.port);
}

test.before(start);
test.after(async () => {
  c.close();
  await b.stop();
  rmSync(dir, { recursive: true, force: true });
});

const set = (name: string, value: string | null) => ({ name, configOperation: 0, value });
const del = (name: string) => ({ name, configOperation: 1, value: null });

async function incremental(group: string, configs: { name: string; configOperation: number; value: string | null }[], validateOnly = false) {
  const r = await c.send(44, 1, { resources: [{ resourceType: GROUP, resourceName: group, configs }], validateOnly });
  return [r.responses[0].errorCode, r.responses[0].errorMessage];
}

async function describe(group: string, keys: string[] | null = null) {
  const r = await c.send(32, 4, { resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: keys }], includeSynonyms: true, includeDocumentation: false });
  return r.results[0];
}

const overrides = async (group: string) => Object.fromEntries((await describe(group)).configs.filter((e) => e.configSource === 8).map((e) => [e.name, e.value]));

test('a group that does not exist: every config at the broker\'s values, a static setting STATIC_BROKER_CONFIG', async () => {
  const r = await describe('gc-none');
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.configs.length, 21);
  const hb = r.configs.find((e) => e.name === 'consumer.heartbeat.interval.ms')!;
  // Checked against Kafka 4.4 with the same static setting: the static value, then its default.
  assert.equal([hb.value, hb.configSource, hb.synonyms], ['6000', 4, [
    { name: 'group.consumer.heartbeat.interval.ms', value: '6000', source: 4 }, { name: 'group.consumer.heartbeat.interval.ms', value: '5000', source: 5 },
  ]]);
  const st = r.configs.find((e) => e.name === 'consumer.session.timeout.ms')!;
  assert.equal([st.value, st.configSource], ['45000', 5]);
  const empty = await describe('');
  assert.equal([empty.errorCode, empty.errorMessage], [ErrorCode.INVALID_REQUEST, 'Group name must not be empty']);
});

test('IncrementalAlterConfigs: bounds from this broker\'s settings; set and delete on a group that does not exist', async () => {
  assert.equal(await incremental('gc-a', [set('consumer.session.timeout.ms', '80000')]),
    [ErrorCode.INVALID_CONFIG, 'consumer.session.timeout.ms must be in the range 45000 to 70000 inclusive.']);
  assert.equal(await incremental('gc-a', [set('consumer.session.timeout.ms', '65000'), set('share.isolation.level', 'read_committed')]), [ErrorCode.NONE, null]);
  const r = await describe('gc-a', ['consumer.session.timeout.ms']);
  assert.equal(r.configs[0].synonyms, [{ name: 'consumer.session.timeout.ms', value: '65000', source: 8 }, { name: 'group.consumer.session.timeout.ms', value: '45000', source: 5 }]);
  assert.equal(b.broker.groupConfigs.resolve('gc-a')['share.isolation.level'], 'read_committed');
  assert.equal(await incremental('gc-a', [del('share.isolation.level'), del('no.such.config')]), [ErrorCode.NONE, null]);
  assert.equal(await overrides('gc-a'), { 'consumer.session.timeout.ms': '65000' });
  assert.equal(await incremental('gc-a', [{ name: 'share.isolation.level', configOperation: 2, value: 'x' }]),
    [ErrorCode.INVALID_CONFIG, "Can't APPEND to key share.isolation.level because its type is not LIST."]);
  assert.equal(await incremental('', [set('consumer.session.timeout.ms', '50000')]), [ErrorCode.INVALID_REQUEST, 'Default group resources are not allowed.']);
  assert.equal(await incremental('gc-v', [set('consumer.session.timeout.ms', '50000')], true), [ErrorCode.NONE, null]);
  assert.equal(await overrides('gc-v'), {}, 'validate_only stores nothing');
});

test('legacy AlterConfigs replaces a group\'s whole set', async () => {
  await incremental('gc-l', [set('consumer.session.timeout.ms', '50000'), set('share.delivery.count.limit', '3')]);
  const r = await c.send(33, 2, { resources: [{ resourceType: GROUP, resourceName: 'gc-l', configs: [{ name: 'share.delivery.count.limit', value: '4' }] }], validateOnly: false });
  assert.equal([r.responses[0].errorCode, r.responses[0].errorMessage], [ErrorCode.NONE, null]);
  assert.equal(await overrides('gc-l'), { 'share.delivery.count.limit': '4' });
});

test('overrides survive a restart (the single node\'s metadata file)', async () => {
  await incremental('gc-r', [set('consumer.heartbeat.interval.ms', '7000')]);
  c.close();
  await b.stop();
  await start();
  assert.equal(await overrides('gc-r'), { 'consumer.heartbeat.interval.ms': '7000' });
  assert.is(b.broker.groupConfigs.resolve('gc-r')['consumer.heartbeat.interval.ms'], 7000);
});

test.run();
