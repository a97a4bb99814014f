/**
 * Dynamic broker configs with real clients against Samsa:
 * - kafkajs 2.2.4 admin: alterConfigs (legacy AlterConfigs) on broker 1, describeConfigs with
 *   synonyms (kafkajs refuses the resource name "" itself, so the cluster default is set over
 *   the wire): Kafka's sources, a topic without its own retention.ms inheriting the value; a
 *   config that is not dynamic refused;
 * - Kafka 4.4's own kafka-configs (ConfigCommand, IncrementalAlterConfigs) with
 *   --entity-type brokers --entity-name 1 / --entity-default: --alter --add-config, --describe
 *   (the lines Kafka prints, synonyms included), refusals, --delete-config.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { kafkaTool } from '../support/kafka-tools.js';
import { describeRun, hostPort } from '../support/clients.js';
import { WireClient } from '../broker/handlers/_admin-wire.js';

const { Kafka, ConfigResourceTypes, logLevel } = kafkajs;
let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0 });
});

test.after(async () => {
  await b?.stop();
});

test('kafkajs admin: alterConfigs and describeConfigs on BROKER resources', async () => {
  const admin = new Kafka({ clientId: 'dyn-kafkajs', brokers: [b.bootstrap], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic: 'dyn-kjs', numPartitions: 1 }] });
    const wire = await WireClient.connect(b.port);
    const set = await wire.send(44, 1, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: 0, value: '7200000' }] }], validateOnly: false });
    wire.close();
    assert.is(set.responses[0].errorCode, 0);
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: String(b.broker.nodeId), configEntries: [{ name: 'message.max.bytes', value: '2000000' }] }] });
    const d = await admin.describeConfigs({
      includeSynonyms: true,
      resources: [
        { type: ConfigResourceTypes.BROKER, name: String(b.broker.nodeId), configNames: ['log.retention.ms', 'message.max.bytes', 'num.partitions'] },
        { type: ConfigResourceTypes.TOPIC, name: 'dyn-kjs', configNames: ['retention.ms', 'max.message.bytes'] },
      ],
    });
    const byName = (i: number) => Object.fromEntries(d.resources[i].configEntries.map((e) => [e.configName, e]));
    const broker = byName(0);
    assert.equal([broker['log.retention.ms'].configValue, broker['log.retention.ms'].configSource, broker['log.retention.ms'].readOnly], ['7200000', 3, false]);
    assert.equal([broker['message.max.bytes'].configValue, broker['message.max.bytes'].configSource], ['2000000', 2]);
    assert.equal(broker['message.max.bytes'].configSynonyms.map((s) => [s.configName, s.configValue, s.configSource]), [['message.max.bytes', '2000000', 2], ['message.max.bytes', '1048588', 5]]);
    assert.equal([broker['num.partitions'].readOnly, broker['num.partitions'].configSource], [true, 5]);
    const topic = byName(1);
    assert.equal([topic['retention.ms'].configValue, topic['retention.ms'].configSource], ['7200000', 3]);
    assert.equal([topic['max.message.bytes'].configValue, topic['max.message.bytes'].configSource], ['2000000', 2]);
    const refused = await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: String(b.broker.nodeId), configEntries: [{ name: 'num.partitions', value: '3' }] }] })
      .then(() => null, (e: Error & { type?: string }) => e);
    assert.ok(refused, 'num.partitions is not dynamic');
    assert.is(refused!.type, 'INVALID_REQUEST', String(refused));
    // Legacy AlterConfigs replaced the broker's set: message.max.bytes is still there (the refusal changed nothing).
    assert.equal(b.broker.dynamicBrokerConfigs(String(b.broker.nodeId)), { 'message.max.bytes': '2000000' });
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: String(b.broker.nodeId), configEntries: [] }] });
    const wire2 = await WireClient.connect(b.port);
    await wire2.send(44, 1, { resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', configOperation: 1, value: null }] }], validateOnly: false });
    wire2.close();
  } finally {
    await admin.disconnect();
  }
});

test('kafka-configs --entity-type brokers (Kafka 4.4 ConfigCommand): --entity-name and --entity-default', async () => {
  const missing = javaMissing();
  if (missing) return void console.log(`skipped: ${missing}`);
  const tool = (...args: string[]) => kafkaTool('org.apache.kafka.tools.ConfigCommand', ['--bootstrap-server', hostPort(b.port), ...args], { timeoutMs: 60_000 });
  const one = ['--entity-type', 'brokers', '--entity-name', String(b.broker.nodeId)];
  const all = ['--entity-type', 'brokers', '--entity-default'];
  const add = await tool('--alter', ...one, '--add-config', 'log.cleaner.backoff.ms=5000,sasl.kerberos.min.time.before.relogin=70000');
  assert.is(add.code, 0, describeRun(add));
  assert.match(add.stdout, new RegExp(`Completed updating config for broker ${b.broker.nodeId}`));
  const addDefault = await tool('--alter', ...all, '--add-config', 'log.retention.ms=3600000,log.cleaner.threads=2');
  assert.is(addDefault.code, 0, describeRun(addDefault));
  assert.match(addDefault.stdout, /Completed updating default config for brokers in the cluster/);
  assert.is(b.broker.logs.cleaner!.config.backoffMs, 5000);
  assert.is(b.broker.logs.cleaner!.config.threads, 2);

  const described = await tool('--describe', ...one);
  assert.is(described.code, 0, describeRun(described));
  assert.match(described.stdout, new RegExp(`Dynamic configs for broker ${b.broker.nodeId} are:`));
  assert.match(described.stdout, /log\.cleaner\.backoff\.ms=5000 sensitive=false synonyms=\{DYNAMIC_BROKER_CONFIG:log\.cleaner\.backoff\.ms=5000, DEFAULT_CONFIG:log\.cleaner\.backoff\.ms=15000\}/);
  assert.not.match(described.stdout, /log\.retention\.ms/, 'the per-broker listing shows only this broker\'s own dynamic configs');
  const describedDefault = await tool('--describe', ...all);
  assert.is(describedDefault.code, 0, describeRun(describedDefault));
  assert.match(describedDefault.stdout, /Default configs for brokers in the cluster are:/);
  assert.match(describedDefault.stdout, /log\.cleaner\.threads=2 sensitive=false synonyms=\{DYNAMIC_DEFAULT_BROKER_CONFIG:log\.cleaner\.threads=2\}/);
  assert.match(describedDefault.stdout, /min\.insync\.replicas=1 sensitive=false/);

  const notDynamic = await tool('--alter', ...one, '--add-config', 'num.partitions=3');
  assert.is.not(notDynamic.code, 0);
  assert.match(notDynamic.stdout + notDynamic.stderr, /Cannot update these configs dynamically: \[num\.partitions\]/);
  const perBroker = await tool('--alter', ...all, '--add-config', 'sasl.kerberos.min.time.before.relogin=70000');
  assert.is.not(perBroker.code, 0);
  assert.match(perBroker.stdout + perBroker.stderr, /Cannot update these configs at default cluster level, broker id must be specified/);
  const badValue = await tool('--alter', ...one, '--add-config', 'log.cleaner.threads=9');
  assert.is.not(badValue.code, 0);
  assert.match(badValue.stdout + badValue.stderr, /Log cleaner threads cannot be increased to more than double the current value 2/);

  const del = await tool('--alter', ...one, '--delete-config', 'log.cleaner.backoff.ms,sasl.kerberos.min.time.before.relogin');
  assert.is(del.code, 0, describeRun(del));
  const delDefault = await tool('--alter', ...all, '--delete-config', 'log.retention.ms,log.cleaner.threads');
  assert.is(delDefault.code, 0, describeRun(delDefault));
  assert.equal(b.broker.dynamicBrokerConfigs(String(b.broker.nodeId)), {});
  assert.equal(b.broker.dynamicBrokerConfigs('<default>'), { 'min.insync.replicas': '1' });
  assert.is(b.broker.logs.cleaner!.config.backoffMs, 15000);
});

test.run();
