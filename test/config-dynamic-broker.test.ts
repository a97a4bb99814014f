/**
 * Dynamic broker configs, pure logic (src/config/dynamic-broker-*.ts): the effective
 * configuration over the static one, DescribeConfigs of BROKER resources (sources, synonyms,
 * read_only, sensitivity), the incremental operations and Kafka 4.4's checks with its messages.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig, ConfigSource, ConfigType, resolveTopicConfig, javaDoubleString, type BrokerConfig } from '../src/config.js';
import { effectiveBrokerConfig, describeBrokerResource } from '../src/config/dynamic-broker-view.js';
import { prepareBrokerConfigs, validateBrokerConfigs, isDynamicBrokerConfig } from '../src/config/dynamic-broker-configs.js';
import { KafkaApiError } from '../src/errors.js';
import { ErrorCode } from '../src/protocol/generated/error-codes.js';

const statics = loadConfig({ argv: ['--override', 'log.retention.hours=24', '--override', 'num.partitions=3'] });

function refusal(fn: () => unknown): [number, string] {
  try {
    fn();
  } catch (e) {
    if (e instanceof KafkaApiError) return [e.errorCode, e.message];
    throw e;
  }
  return [0, ''];
}

const check = (config: BrokerConfig, perBroker: boolean, next: Record<string, string>) => refusal(() => validateBrokerConfigs({ config, perBroker }, next));

test('effective configuration: cluster default over static, the broker\'s own over both; only dynamic names apply', () => {
  const c = effectiveBrokerConfig(statics, { 'log.retention.ms': '60000', 'message.max.bytes': '2000', 'num.partitions': '9', 'x.y': '1' }, { 'message.max.bytes': '3000' });
  assert.is(c['log.retention.ms'], 60000);
  assert.is(c['message.max.bytes'], 3000);
  assert.is(c['num.partitions'], 3, 'not dynamic: the static value stays');
  assert.is(c.explicit['log.retention.hours']?.raw, '24', 'explicit keeps what the broker was started with');
  assert.is(effectiveBrokerConfig(c, {}, {}), statics, 'no dynamic configs: the static configuration itself');
  assert.is(effectiveBrokerConfig(statics, { 'log.retention.ms': '-7' }, {})['log.retention.ms'], -1, 'negative retention is unlimited');
  const topic = resolveTopicConfig(c, {}).entries.find((e) => e.name === 'retention.ms')!;
  assert.equal([topic.value, topic.configSource, topic.synonyms.map((s) => [s.name, s.source, s.value])], ['60000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, [
    ['log.retention.ms', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, '60000'],
    ['log.retention.hours', ConfigSource.STATIC_BROKER_CONFIG, '24'],
    ['log.retention.hours', ConfigSource.DEFAULT_CONFIG, '168'],
  ]]);
});

test('DescribeConfigs of broker 1 and of "": sources, synonyms, read_only, sensitive and unknown names', () => {
  const c = effectiveBrokerConfig(statics, { 'min.insync.replicas': '1', 'listener.name.plaintext.max.connections': '100' }, {
    'log.retention.ms': '3600000', 'no.such': 'v', 'listener.name.plaintext.ssl.keystore.password': 'secret', 'leader.replication.throttled.rate': '10',
  });
  const one = new Map(describeBrokerResource(c, true).map((e) => [e.name, e]));
  const brief = (name: string) => {
    const e = one.get(name)!;
    return [e.value, e.configSource, e.readOnly, e.isSensitive, e.configType, e.synonyms.map((s) => [s.name, s.source, s.value])];
  };
  assert.equal(brief('log.retention.ms'), ['3600000', 2, false, false, ConfigType.LONG, [
    ['log.retention.ms', 2, '3600000'], ['log.retention.hours', 4, '24'], ['log.retention.hours', 5, '168'],
  ]]);
  assert.equal(brief('log.retention.hours'), ['24', 4, true, false, ConfigType.INT, [['log.retention.hours', 4, '24'], ['log.retention.hours', 5, '168']]]);
  assert.equal(brief('min.insync.replicas'), ['1', 3, false, false, ConfigType.INT, [['min.insync.replicas', 3, '1'], ['min.insync.replicas', 5, '1']]]);
  assert.equal(brief('no.such'), [null, 2, true, true, ConfigType.UNKNOWN, [['no.such', 2, null]]]);
  assert.equal(brief('listener.name.plaintext.ssl.keystore.password'), [null, 2, true, true, ConfigType.PASSWORD, [['listener.name.plaintext.ssl.keystore.password', 2, null]]]);
  assert.equal(brief('listener.name.plaintext.max.connections'), ['100', 3, true, false, ConfigType.INT, [
    ['listener.name.plaintext.max.connections', 3, '100'], ['max.connections', 5, '2147483647'],
  ]]);
  assert.equal(brief('leader.replication.throttled.rate'), ['10', 2, false, false, ConfigType.LONG, [['leader.replication.throttled.rate', 2, '10']]]);
  assert.equal(brief('num.partitions').slice(0, 3), ['3', 4, true]);
  assert.equal(brief('message.max.bytes').slice(0, 3), ['1048588', 5, false]);
  const all = describeBrokerResource(c, false).map((e) => [e.name, e.value, e.configSource, e.synonyms.length]);
  assert.equal(all, [['listener.name.plaintext.max.connections', '100', 3, 1], ['min.insync.replicas', '1', 3, 1]]);
});

test('read_only: false exactly for what Kafka 4.4 marks dynamic', () => {
  for (const n of ['log.retention.ms', 'message.max.bytes', 'log.cleaner.threads', 'sasl.kerberos.min.time.before.relogin', 'ssl.keystore.location', 'max.connections', 'num.io.threads']) {
    assert.ok(isDynamicBrokerConfig(n), n);
  }
  for (const n of ['log.retention.hours', 'num.partitions', 'advertised.listeners', 'log.dirs', 'samsa.flush.on.acks.all', 'listener.name.plaintext.max.connections']) {
    assert.not.ok(isDynamicBrokerConfig(n), n);
  }
});

test('incremental operations: SET, DELETE, APPEND / SUBTRACT on lists, Kafka\'s refusals', () => {
  const cur = { 'log.retention.ms': '5' };
  const op = (name: string, configOperation: number, value: string | null) => ({ name, configOperation, value });
  assert.equal(prepareBrokerConfigs(cur, [op('message.max.bytes', 0, '9'), op('log.retention.ms', 1, null)], true), { 'message.max.bytes': '9' });
  assert.equal(prepareBrokerConfigs(cur, [op('log.cleanup.policy', 2, 'compact')], true), { 'log.retention.ms': '5', 'log.cleanup.policy': 'delete,compact' });
  assert.equal(prepareBrokerConfigs({ 'log.cleanup.policy': 'delete,compact' }, [op('log.cleanup.policy', 3, 'delete')], true), { 'log.cleanup.policy': 'compact' });
  assert.equal(prepareBrokerConfigs(cur, [op('message.max.bytes', 0, '9')], false), { 'message.max.bytes': '9' }, 'legacy: the listed configs only');
  assert.equal(refusal(() => prepareBrokerConfigs(cur, [op('log.retention.ms', 9, '1')], true)), [ErrorCode.INVALID_REQUEST, 'Unknown operations type 9']);
  assert.equal(refusal(() => prepareBrokerConfigs(cur, [op('log.retention.ms', 2, '1')], true)), [ErrorCode.INVALID_CONFIG, 'Config value append is not allowed for config key: log.retention.ms']);
  assert.equal(refusal(() => prepareBrokerConfigs(cur, [op('log.retention.ms', 3, '1')], true)), [ErrorCode.INVALID_CONFIG, 'Config value subtract is not allowed for config key: log.retention.ms']);
  assert.equal(refusal(() => prepareBrokerConfigs(cur, [op('no.such', 2, '1')], true)), [ErrorCode.INVALID_CONFIG, 'Unknown config name: no.such']);
});

test('checks in Kafka 4.4\'s order and words', () => {
  const R = ErrorCode.INVALID_REQUEST;
  assert.equal(check(statics, true, { 'log.retention.ms': '60000', 'no.such': 'x', 'listener.name.plaintext.ssl.keystore.location': '/k' }), [0, '']);
  assert.equal(check(statics, true, { 'num.partitions': '3', 'log.retention.hours': '2', 'ssl.keystore.location': 'x' }), [R, 'Cannot update these configs dynamically: [log.retention.hours, num.partitions]']);
  assert.equal(check(statics, true, { 'samsa.flush.on.acks.all': 'true' }), [R, 'Cannot update these configs dynamically: [samsa.flush.on.acks.all]']);
  assert.equal(check(statics, true, { 'ssl.keystore.location': 'x' }), [R, 'These security configs can be dynamically updated only per-listener using the listener prefix: [ssl.keystore.location]']);
  assert.equal(check(statics, false, { 'sasl.kerberos.min.time.before.relogin': 'abc' }), [R, 'Invalid value abc for configuration sasl.kerberos.min.time.before.relogin: Not a number of type LONG']);
  assert.equal(check(statics, false, { 'sasl.kerberos.min.time.before.relogin': '1', 'listener.name.plaintext.max.connections': '5' }), [R, 'Cannot update these configs at default cluster level, broker id must be specified: [sasl.kerberos.min.time.before.relogin]']);
  assert.equal(check(statics, true, { 'listener.name.plaintext.max.connections': 'abc' }), [R, 'Invalid value abc for configuration max.connections: Not a number of type INT']);
  assert.equal(check(statics, true, { 'message.max.bytes': '-5' }), [R, 'Invalid value -5 for configuration message.max.bytes: Value must be at least 0']);
  assert.equal(check(statics, true, { 'log.cleaner.min.cleanable.ratio': '-5' }), [R, 'Invalid value -5.0 for configuration log.cleaner.min.cleanable.ratio: Value must be at least 0']);
  assert.equal(check(statics, true, { 'log.segment.bytes': '1000' }), [R, 'Invalid value 1000 for configuration log.segment.bytes: Value must be at least 1048576']);
  assert.equal(check(statics, true, { 'log.retention.ms': '0' }), [R, 'requirement failed: log.retention.ms must be unlimited (-1) or, greater than or equal to 1']);
  assert.equal(check(statics, true, { 'log.cleaner.threads': '0' }), [R, '/ by zero']);
  assert.equal(check(statics, true, { 'log.cleaner.dedupe.buffer.size': '1048576' }), [R, 'requirement failed: log.cleaner.dedupe.buffer.size must be at least 1MB per cleaner thread.']);
  const wrapped = (m: string) => `Invalid value org.apache.kafka.common.config.ConfigException: ${m} for configuration Invalid dynamic configuration`;
  assert.equal(check(statics, true, { 'log.cleaner.threads': '3' }), [R, wrapped('Log cleaner threads cannot be increased to more than double the current value 1')]);
  assert.equal(check(statics, true, { 'num.io.threads': '17' }), [R, wrapped('Dynamic thread count update validation failed for num.io.threads=17, value should not be greater than double the current value 8')]);
  assert.equal(check(statics, true, { 'num.io.threads': '3' }), [R, wrapped('Dynamic thread count update validation failed for num.io.threads=3, value should be at least half the current value 8')]);
  assert.equal(check(statics, true, { 'log.retention.bytes': '100', 'log.local.retention.bytes': '1000' }), [R, wrapped('Invalid value 1000 for configuration log.local.retention.bytes: Value must not be more than log.retention.bytes property value: 100')]);
  assert.equal(check(statics, true, { 'principal.builder.class': 'com.example.X' }), [R, 'Invalid value com.example.X for configuration principal.builder.class: Class com.example.X could not be found.']);
  // The current value is the effective one: two cleaner threads set as the cluster default allow four.
  const two = effectiveBrokerConfig(statics, { 'log.cleaner.threads': '2' }, {});
  assert.equal(check(two, true, { 'log.cleaner.threads': '4' }), [0, '']);
});

test('Java\'s Double.toString', () => {
  assert.equal([0.5, 15, 1e7, -5, 99999999999999, Number.MAX_VALUE, 0.0001].map(javaDoubleString), ['0.5', '15.0', '1.0E7', '-5.0', '9.9999999999999E13', '1.7976931348623157E308', '1.0E-4']);
});

test.run();
