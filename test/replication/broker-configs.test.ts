/**
 * Dynamic broker configs (the replication throttle rates): the local metadata store keeps them
 * per broker id and for '<default>' (watch events, persisted across a reopen, removed when
 * empty); both alter APIs on BROKER resources (incremental SET / DELETE of listed keys, legacy
 * replace, validation, keys that are not dynamic, validate_only); DescribeConfigs on a running
 * broker shows them with DYNAMIC_BROKER_CONFIG / DYNAMIC_DEFAULT_BROKER_CONFIG and synonyms, and
 * the broker's replication quotas follow.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MetadataEvent } from '../../src/cluster/metadata-store.js';
import { LocalMetadataStore } from '../../src/cluster/local-metadata-store.js';
import { alterConfigResources, type ConfigAlterTarget } from '../../src/broker/topic-configs.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { startBroker } from '../../src/testing/start-broker.js';
import { WireClient } from '../broker/handlers/_admin-wire.js';

const BROKER = 4;
const LR = 'leader.replication.throttled.rate';
const FR = 'follower.replication.throttled.rate';

test('the local store keeps broker configs, tells watchers and persists them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-bc-'));
  try {
    const store = new LocalMetadataStore(dir);
    const seen: MetadataEvent[] = [];
    await store.watch(1, (evs) => seen.push(...evs));
    await store.alterBrokerConfigs('2', { [LR]: '1000' });
    await store.alterBrokerConfigs('<default>', { [FR]: '2000' });
    await store.alterBrokerConfigs('3', {}); // nothing there, nothing to remove
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(seen.map((e) => e.kind === 'brokerConfig' ? [e.key, e.value] : null), [['2', { [LR]: '1000' }], ['<default>', { [FR]: '2000' }]]);
    const again = new LocalMetadataStore(dir);
    const image = await again.readImage();
    assert.equal([...image.brokerConfigs], [['2', { [LR]: '1000' }], ['<default>', { [FR]: '2000' }]]);
    await again.alterBrokerConfigs('2', null);
    assert.equal([...(await new LocalMetadataStore(dir).readImage()).brokerConfigs.keys()], ['<default>']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function target(): ConfigAlterTarget & { stored: Map<string, Record<string, string>> } {
  const stored = new Map<string, Record<string, string>>();
  return {
    stored, nodeId: 1, metadataCache: { topic: () => undefined }, setTopicConfigs: () => {},
    dynamicBrokerConfigs: (k) => stored.get(k) ?? {},
    setBrokerConfigs: async (k, cfg) => void stored.set(k, cfg),
  };
}

const op = (name: string, configOperation: number, value: string | null) => ({ name, configOperation, value });

test('incremental alters change the listed keys of broker 1 or of the default; legacy replaces the set', async () => {
  const t = target();
  const inc = (resourceName: string, configs: ReturnType<typeof op>[], validateOnly = false) =>
    alterConfigResources(t, [{ resourceType: BROKER, resourceName, configs }], { validateOnly, incremental: true });
  assert.is((await inc('1', [op(LR, 0, '100'), op(FR, 0, '200')]))[0].errorCode, ErrorCode.NONE);
  assert.is((await inc('', [op(LR, 0, '300')]))[0].errorCode, ErrorCode.NONE);
  assert.equal(t.stored.get('1'), { [LR]: '100', [FR]: '200' });
  assert.equal(t.stored.get('<default>'), { [LR]: '300' });
  await inc('1', [op(FR, 1, null)]);
  assert.equal(t.stored.get('1'), { [LR]: '100' });
  await inc('1', [op(LR, 0, '5')], true);
  assert.equal(t.stored.get('1'), { [LR]: '100' }, 'validate_only changes nothing');
  const legacy = await alterConfigResources(t, [{ resourceType: BROKER, resourceName: '1', configs: [op(FR, 0, '9')] }], { validateOnly: false, incremental: false });
  assert.is(legacy[0].errorCode, ErrorCode.NONE);
  assert.equal(t.stored.get('1'), { [FR]: '9' }, 'legacy AlterConfigs replaces the broker\'s dynamic set');
});

test('refusals: bad values, APPEND, keys that are not dynamic, another broker', async () => {
  const t = target();
  const one = async (configs: ReturnType<typeof op>[], name = '1') =>
    (await alterConfigResources(t, [{ resourceType: BROKER, resourceName: name, configs }], { validateOnly: false, incremental: true }))[0];
  assert.equal(await one([op(LR, 0, 'fast')]), { resourceType: BROKER, resourceName: '1', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Invalid value fast for configuration ${LR}: Not a number of type LONG` });
  assert.is((await one([op(LR, 0, '-1')])).errorMessage, `Invalid value -1 for configuration ${LR}: Value must be at least 0`);
  assert.equal([(await one([op(LR, 2, '5')])).errorCode, (await one([op(LR, 2, '5')])).errorMessage], [ErrorCode.INVALID_CONFIG, `Unknown config name: ${LR}`]);
  assert.is((await one([op(LR, 0, '1'), op('num.partitions', 0, '3')])).errorMessage, 'Cannot update these configs dynamically: [num.partitions]');
  assert.is((await one([op(LR, 0, '1')], '2')).errorMessage, 'Unexpected broker id, expected 1, but received 2');
  assert.is(t.stored.size, 0);
});

test('a running broker describes the rates with their sources and synonyms, and its quotas follow', async () => {
  const b = await startBroker({ port: 0 });
  const c = await WireClient.connect(b.port);
  try {
    const alter = (resourceName: string, configs: ReturnType<typeof op>[]) => c.send(44, 1, { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly: false });
    await alter(String(b.broker.nodeId), [op(LR, 0, '1048576')]);
    await alter('', [op(FR, 0, '2097152'), op(LR, 0, '4194304')]);
    const res = await c.send(32, 4, { resources: [{ resourceType: BROKER, resourceName: String(b.broker.nodeId), configurationKeys: [LR, FR] }, { resourceType: BROKER, resourceName: '', configurationKeys: null }], includeSynonyms: true, includeDocumentation: false });
    const brief = (r: { configs: { name: string; value: string | null; configSource: number; readOnly: boolean; synonyms: { value: string | null; source: number }[] }[] }) =>
      r.configs.map((e) => [e.name, e.value, e.configSource, e.readOnly, e.synonyms.map((s) => [s.value, s.source])]);
    assert.equal(brief(res.results[0]), [
      [FR, '2097152', 3, false, [['2097152', 3]]],
      [LR, '1048576', 2, false, [['1048576', 2], ['4194304', 3]]],
    ]);
    // A new cluster also has Kafka 4.4's format-time default min.insync.replicas under "".
    assert.equal(brief(res.results[1]), [
      [FR, '2097152', 3, false, [['2097152', 3]]], [LR, '4194304', 3, false, [['4194304', 3]]], ['min.insync.replicas', '1', 3, false, [['1', 3]]],
    ]);
    assert.is(b.broker.replicationQuotas.leader.upperBound, 1048576);
    assert.is(b.broker.replicationQuotas.follower.upperBound, 2097152);
    await alter(String(b.broker.nodeId), [op(LR, 1, null)]);
    assert.is(b.broker.replicationQuotas.leader.upperBound, 4194304, 'the cluster default applies once the broker value is gone');
  } finally {
    c.close();
    await b.stop();
  }
});

test.run();
