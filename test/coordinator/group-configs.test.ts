/**
 * Group configs (src/coordinator/group/group-configs.ts): Kafka 4.4's names, validation messages
 * and bounds (the messages were compared with a real 4.4.0 broker, compat-tests/probes
 * probes-group-configs.ts), effective values with the broker's defaults and Kafka's capping, the
 * DescribeConfigs entries, GroupConfigManager following its source, and the consumer-group
 * coordinator using a group's session timeout and heartbeat interval from the next heartbeat on.
 */
import { EventEmitter } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import {
  GROUP_CONFIGS, GroupConfigManager, describeGroupConfigs, resolveGroupConfig, validateGroupConfigs, type GroupConfigBroker,
} from '../../src/coordinator/group/group-configs.js';
import { consumerHarness, GROUP, SimConsumer } from './_consumer-harness.js';

const BROKER: GroupConfigBroker = {
  'group.consumer.session.timeout.ms': 45000, 'group.consumer.min.session.timeout.ms': 45000, 'group.consumer.max.session.timeout.ms': 60000,
  'group.consumer.heartbeat.interval.ms': 5000, 'group.consumer.min.heartbeat.interval.ms': 5000, 'group.consumer.max.heartbeat.interval.ms': 15000,
  'group.consumer.assignment.interval.ms': 1000,
  explicit: {},
};

function problem(overrides: Record<string, string>, broker = BROKER): [number, string] | null {
  try {
    validateGroupConfigs(overrides, broker);
    return null;
  } catch (err) {
    if (!(err instanceof KafkaApiError)) throw err;
    return [err.errorCode, err.message];
  }
}

test('every name of Kafka 4.4 GroupConfig, internal ones marked', () => {
  const names = Object.keys(GROUP_CONFIGS).filter((n) => !n.startsWith('samsa.'));
  assert.is(names.length, 27);
  for (const n of ['consumer.session.timeout.ms', 'consumer.heartbeat.interval.ms', 'share.session.timeout.ms', 'share.heartbeat.interval.ms',
    'share.record.lock.duration.ms', 'share.auto.offset.reset', 'share.isolation.level', 'share.delivery.count.limit', 'streams.num.standby.replicas',
    'errors.deadletterqueue.topic.name', 'errors.deadletterqueue.copy.record.enable']) assert.ok(names.includes(n), n);
  const internal = names.filter((n) => (GROUP_CONFIGS as Record<string, { internal?: boolean }>)[n].internal);
  assert.equal(internal.sort(), ['consumer.assignor.offload.enable', 'share.assignor.offload.enable', 'streams.acceptable.recovery.lag',
    'streams.assignor.offload.enable', 'streams.num.warmup.replicas', 'streams.task.offset.interval.ms']);
});

test('validation: Kafka 4.4 messages, names before values before bounds', () => {
  const INVALID = ErrorCode.INVALID_CONFIG;
  assert.is(problem({ 'consumer.session.timeout.ms': '50000', 'share.isolation.level': 'read_committed', 'share.auto.offset.reset': 'by_duration:PT1H' }), null);
  assert.equal(problem({ 'consumer.session.timeout.ms': '1000' }), [INVALID, 'consumer.session.timeout.ms must be in the range 45000 to 60000 inclusive.']);
  assert.equal(problem({ 'consumer.heartbeat.interval.ms': '20000' }), [INVALID, 'consumer.heartbeat.interval.ms must be in the range 5000 to 15000 inclusive.']);
  assert.equal(problem({ 'consumer.session.timeout.ms': '0' }), [INVALID, 'Invalid value 0 for configuration consumer.session.timeout.ms: Value must be at least 1']);
  assert.equal(problem({ 'consumer.session.timeout.ms': 'soon' }), [INVALID, 'Invalid value soon for configuration consumer.session.timeout.ms: Not a number of type INT']);
  assert.equal(problem({ 'consumer.session.timeout.ms': '1', 'no.such.config': '1' }), [INVALID, 'Unknown group config name: no.such.config']);
  assert.equal(problem({ 'retention.ms': '1' }), [INVALID, 'Unknown group config name: retention.ms']);
  assert.equal(problem({ 'share.isolation.level': 'serializable' }), [INVALID, 'Invalid value serializable for configuration share.isolation.level: String must be one of: read_committed, read_uncommitted']);
  assert.equal(problem({ 'share.auto.offset.reset': 'EARLIEST' }), [INVALID,
    "Invalid value EARLIEST for configuration share.auto.offset.reset: Invalid value `EARLIEST` for configuration share.auto.offset.reset. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'."]);
  assert.equal(problem({ 'share.record.lock.duration.ms': '500' }), [INVALID, 'Invalid value 500 for configuration share.record.lock.duration.ms: Value must be at least 1000']);
  assert.equal(problem({ 'share.delivery.count.limit': '100' }), [INVALID, 'share.delivery.count.limit must be in the range 2 to 10 inclusive.']);
  assert.equal(problem({ 'streams.num.standby.replicas': '9' }), [INVALID, 'streams.num.standby.replicas must be less than or equal to 2']);
  assert.equal(problem({ 'streams.task.offset.interval.ms': '100' }), [INVALID, 'streams.task.offset.interval.ms must be greater than or equal to 15000']);
  assert.equal(problem({ 'errors.deadletterqueue.topic.name': '__dlq' }), [INVALID, "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'"]);
  assert.equal(problem({ 'streams.rack.aware.assignment.tags': 'zone,zone' }), [INVALID, 'streams.rack.aware.assignment.tags must not contain duplicate tag keys.']);
  assert.equal(validateGroupConfigs({ 'consumer.session.timeout.ms': ' 50000 ', 'errors.deadletterqueue.copy.record.enable': 'TRUE', 'streams.rack.aware.assignment.tags': 'zone, rack' }, BROKER),
    { 'consumer.session.timeout.ms': '50000', 'errors.deadletterqueue.copy.record.enable': 'true', 'streams.rack.aware.assignment.tags': 'zone,rack' }, 'stored as parsed');
  assert.equal(problem({ 'share.renew.acknowledge.enable': 'yes' }), [INVALID, 'Invalid value yes for configuration share.renew.acknowledge.enable: Expected value to be either true or false']);
  // Session > heartbeat, the missing one from the broker: only reachable when the bounds overlap.
  const wide = { ...BROKER, 'group.consumer.min.session.timeout.ms': 1000, 'group.consumer.max.heartbeat.interval.ms': 60000 };
  assert.equal(problem({ 'consumer.session.timeout.ms': '5000' }, wide), [INVALID, 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms']);
  assert.equal(problem({ 'consumer.heartbeat.interval.ms': '45000' }, wide), [INVALID, 'consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms']);
  assert.is(problem({ 'consumer.session.timeout.ms': '5001' }, wide), null);
});

test('resolve: overrides, else the broker settings, else defaults; overrides capped to bounds that narrowed', () => {
  const r = resolveGroupConfig({ 'consumer.session.timeout.ms': '50000', 'share.auto.offset.reset': 'earliest' }, { ...BROKER, 'group.consumer.heartbeat.interval.ms': 7000 });
  assert.is(r['consumer.session.timeout.ms'], 50000);
  assert.is(r['consumer.heartbeat.interval.ms'], 7000);
  assert.is(r['share.session.timeout.ms'], 45000, 'group.share.* not in the settings table: Kafka 4.4 defaults');
  assert.is(r['share.record.lock.duration.ms'], 30000);
  assert.is(r['share.delivery.count.limit'], 5);
  assert.is(r['share.auto.offset.reset'], 'earliest');
  assert.is(r['share.isolation.level'], 'read_uncommitted');
  assert.is(r['share.renew.acknowledge.enable'], true);
  assert.is(r['errors.deadletterqueue.topic.name'], '');
  assert.equal(r['streams.rack.aware.assignment.tags'], []);
  assert.is(r['streams.assignor.name'], 'sticky');
  const narrowed = resolveGroupConfig({ 'consumer.session.timeout.ms': '58000' }, { ...BROKER, 'group.consumer.max.session.timeout.ms': 50000 });
  assert.is(narrowed['consumer.session.timeout.ms'], 50000, "Kafka 4.4's GroupConfig.evaluate caps it");
});

test('describe: overrides DYNAMIC_GROUP_CONFIG with the broker setting as synonym; internal configs only where set', () => {
  const entries = describeGroupConfigs({ 'consumer.session.timeout.ms': '50000', 'streams.acceptable.recovery.lag': '5000' }, { ...BROKER, explicit: { 'group.consumer.heartbeat.interval.ms': {} } });
  const names = entries.map((e) => e.name);
  assert.equal(names, [...names].sort());
  assert.is(names.length, 22, '21 public configs + the internal one set');
  const by = new Map(entries.map((e) => [e.name, e]));
  const st = by.get('consumer.session.timeout.ms')!;
  assert.equal([st.value, st.configSource, st.configType, st.readOnly], ['50000', 8, 3, false]);
  assert.equal(st.synonyms, [{ name: 'consumer.session.timeout.ms', value: '50000', source: 8 }, { name: 'group.consumer.session.timeout.ms', value: '45000', source: 5 }]);
  const hb = by.get('consumer.heartbeat.interval.ms')!;
  assert.equal([hb.value, hb.configSource], ['5000', 4], 'set in the broker configuration: STATIC_BROKER_CONFIG');
  assert.equal(hb.synonyms, [{ name: 'group.consumer.heartbeat.interval.ms', value: '5000', source: 4 }, { name: 'group.consumer.heartbeat.interval.ms', value: '5000', source: 5 }],
    'then the setting\'s default (Kafka 4.4 with a static group.consumer.heartbeat.interval.ms)');
  const reset = by.get('share.auto.offset.reset')!;
  assert.equal([reset.value, reset.configSource, reset.configType, reset.synonyms], ['latest', 5, 2, [{ name: 'share.auto.offset.reset', value: 'latest', source: 5 }]]);
  assert.is(by.get('streams.rack.aware.assignment.tags')!.configType, 7);
  assert.is(by.get('streams.acceptable.recovery.lag')!.configType, 5);
  assert.is(by.get('streams.assignor.name')!.synonyms[0].name, 'group.streams.assignors');
  assert.not.ok(by.has('consumer.assignor.offload.enable'));
});

class FakeSource extends EventEmitter {
  groupConfigs = new Map<string, Record<string, string>>();
  set(groupId: string, configs: Record<string, string> | null): void {
    if (configs) this.groupConfigs.set(groupId, configs);
    else this.groupConfigs.delete(groupId);
    this.emit('change', { events: [{ kind: 'groupConfig', groupId }], resynced: false });
  }
}

test('GroupConfigManager: resolve follows its source, cached until a change; onChange names the group', () => {
  const source = new FakeSource();
  const m = new GroupConfigManager(BROKER, source);
  const seen: (string | null)[] = [];
  const stop = m.onChange((g) => seen.push(g));
  assert.is(m.resolve('g')['share.record.lock.duration.ms'], 30000);
  assert.is(m.resolve('g'), m.resolve('g'), 'cached');
  source.set('g', { 'share.record.lock.duration.ms': '20000' });
  assert.is(m.resolve('g')['share.record.lock.duration.ms'], 20000);
  source.emit('change', { events: [], resynced: true });
  stop();
  source.set('g', null);
  assert.equal(seen, ['g', null]);
  assert.is(m.resolve('g')['share.record.lock.duration.ms'], 30000);
  assert.equal(m.overrides('other'), {});
  m.close();
});

test('coordinator: a group\'s session timeout and heartbeat interval apply from the next heartbeat on', async () => {
  const source = new FakeSource();
  source.set(GROUP, { 'consumer.session.timeout.ms': '55000', 'consumer.heartbeat.interval.ms': '6000' });
  const configs = new GroupConfigManager(BROKER, source);
  const h = await consumerHarness({ sessionTimeoutMs: 45000, heartbeatIntervalMs: 5000 }, undefined, undefined, undefined, configs);
  const a = new SimConsumer(h, 'a');
  const joined = await a.join();
  assert.is(joined.heartbeatIntervalMs, 6000);
  await h.advance(50000);
  const alive = await a.beat();
  assert.is(alive.errorCode, ErrorCode.NONE, 'still a member after the broker default of 45 s');
  // Changed: the answer to the next heartbeat carries it, and the session is re-armed with it.
  source.set(GROUP, { 'consumer.session.timeout.ms': '46000', 'consumer.heartbeat.interval.ms': '8000' });
  const next = await a.beat();
  assert.is(next.heartbeatIntervalMs, 8000);
  await h.advance(45000);
  assert.is((await h.coord.consumerGroupDescribe(GROUP, null)).members.length, 1);
  await h.advance(1500);
  assert.is((await h.coord.consumerGroupDescribe(GROUP, null)).members.length, 0, 'fenced after the group\'s 46 s');
  // Removed: the broker's settings apply again.
  source.set(GROUP, null);
  const b = new SimConsumer(h, 'b');
  assert.is((await b.join()).heartbeatIntervalMs, 5000);
  await h.coord.shutdown();
});

test.run();
