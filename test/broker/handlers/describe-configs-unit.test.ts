/**
 * DescribeConfigs (032) against a fake BrokerServices: per resource type what it answers
 * (behaviours.md C1-C5; Kafka's ConfigHelper.describeConfigs), the key filter, synonyms and
 * documentation by request flag and version, ACLs, and the group configs it asks
 * GroupConfigManager for. The config values themselves come from src/config.ts (tested there).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { describeConfigsHandler } from '../../../src/broker/handlers/032-describe-configs.js';
import { loadConfig, type ConfigEntry } from '../../../src/config.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType as AclResource } from '../../../src/protocol/acl.js';
import type { DescribeConfigsRequest, DescribeConfigsResource } from '../../../src/protocol/generated/messages/describe-configs-request.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

const [TOPIC, BROKER, BROKER_LOGGER, GROUP] = [2, 4, 8, 32];
const groupEntry: ConfigEntry = { name: 'consumer.session.timeout.ms', value: '45000', readOnly: false, isDefault: true, configSource: 5, isSensitive: false, synonyms: [{ name: 'group.consumer.session.timeout.ms', value: '45000', source: 5 }], configType: 3, documentation: 'doc' };

function setup(authorizer: unknown = null, groupDescribe: (g: string) => ConfigEntry[] = () => [groupEntry]) {
  const groups: string[] = [];
  const broker = fakeServices({
    authorizer, nodeId: 1, rawConfig: loadConfig(),
    metadataCache: fakeMetadataCache([topicRecord('t', 1, { configs: { 'retention.ms': '7200000' } })]),
    groupConfigs: { describe: (g: string) => (groups.push(g), groupDescribe(g)) } as never,
    logger: { error: () => {} } as never,
  });
  return { broker, groups };
}

const res = (resourceType: number, resourceName: string, configurationKeys: string[] | null = null): DescribeConfigsResource => ({ resourceType, resourceName, configurationKeys });
const describe = (broker: ReturnType<typeof setup>['broker'], v: number, resources: DescribeConfigsResource[], over: Partial<DescribeConfigsRequest> = {}) =>
  describeConfigsHandler.handle(requestContext(broker, 32, v), { resources, includeSynonyms: false, includeDocumentation: false, ...over }) as any;
const head = (r: any) => r.results.map((x: any) => [x.resourceType, x.resourceName, x.errorCode, x.errorMessage, x.configs.length]);

test('a topic: every topic config sorted by name, its override DYNAMIC_TOPIC_CONFIG, the rest DEFAULT_CONFIG; message ""', () => {
  const r = describe(setup().broker, 4, [res(TOPIC, 't')]);
  const configs = r.results[0].configs;
  assert.equal([r.results[0].errorCode, r.results[0].errorMessage], [0, '']);
  assert.equal(configs.map((c: any) => c.name), configs.map((c: any) => c.name).sort());
  assert.equal(configs.find((c: any) => c.name === 'retention.ms'), { name: 'retention.ms', value: '7200000', readOnly: false, configSource: 1, isSensitive: false, synonyms: [], configType: 5, documentation: null });
  assert.is(configs.find((c: any) => c.name === 'cleanup.policy').configSource, 5);
});

test('configuration_keys: only the keys named, unknown ones silently left out; null or [] all (C4)', () => {
  const { broker } = setup();
  const some = describe(broker, 4, [res(TOPIC, 't', ['no.such.key', 'retention.ms', 'cleanup.policy'])]);
  assert.equal(some.results[0].configs.map((c: any) => c.name), ['cleanup.policy', 'retention.ms']);
  assert.is(describe(broker, 4, [res(TOPIC, 't', [])]).results[0].configs.length, describe(broker, 4, [res(TOPIC, 't')]).results[0].configs.length);
});

test('synonyms only with include_synonyms; documentation only with include_documentation from v3', () => {
  const { broker } = setup();
  const keys = ['retention.ms'];
  // The synonym list itself is src/config.ts's (and compared with Kafka by the protocol probes).
  assert.equal(describe(broker, 2, [res(TOPIC, 't', keys)], { includeSynonyms: true }).results[0].configs[0].synonyms[0], { name: 'retention.ms', value: '7200000', source: 1 });
  assert.equal(describe(broker, 2, [res(TOPIC, 't', keys)]).results[0].configs[0].synonyms, []);
  assert.is(describe(broker, 2, [res(TOPIC, 't', keys)], { includeDocumentation: true }).results[0].configs[0].documentation, null);
  assert.type(describe(broker, 3, [res(TOPIC, 't', keys)], { includeDocumentation: true }).results[0].configs[0].documentation, 'string');
});

test('an unknown topic UNKNOWN_TOPIC_OR_PARTITION with no configs (C1); an illegal name INVALID_TOPIC_EXCEPTION with its reason (C2)', () => {
  const r = describe(setup().broker, 4, [res(TOPIC, 'missing'), res(TOPIC, 'bad name')]);
  assert.equal(head(r), [[TOPIC, 'missing', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, '', 0], [TOPIC, 'bad name', ErrorCode.INVALID_TOPIC_EXCEPTION, r.results[1].errorMessage, 0]]);
  assert.match(r.results[1].errorMessage, /^Topic name is invalid: /);
});

test('a broker: this node\'s id gives its configs; another id or a non-integer INVALID_REQUEST with Kafka\'s text (C3)', () => {
  const r = describe(setup().broker, 4, [res(BROKER, '1', ['num.partitions']), res(BROKER, '2'), res(BROKER, 'one')]);
  assert.equal(head(r), [
    [BROKER, '1', 0, '', 1],
    [BROKER, '2', ErrorCode.INVALID_REQUEST, 'Unexpected broker id, expected 1 or empty string, but received 2', 0],
    [BROKER, 'one', ErrorCode.INVALID_REQUEST, 'Broker id must be an integer, but it is: one', 0],
  ]);
  assert.equal([r.results[0].configs[0].name, r.results[0].configs[0].value], ['num.partitions', '1']);
});

test('a group: the group config manager\'s entries, whether the group exists or not; "" INVALID_REQUEST', () => {
  const { broker, groups } = setup();
  const r = describe(broker, 4, [res(GROUP, 'g'), res(GROUP, '')]);
  assert.equal(head(r), [[GROUP, 'g', 0, '', 1], [GROUP, '', ErrorCode.INVALID_REQUEST, 'Group name must not be empty', 0]]);
  assert.equal([groups, r.results[0].configs[0].synonyms], [['g'], []]);
});

test('resource types Samsa does not serve: INVALID_REQUEST "Unsupported resource type: NAME"; an unexpected failure UNKNOWN_SERVER_ERROR with Kafka\'s text', () => {
  const { broker } = setup(null, () => { throw new Error('boom'); });
  assert.equal(head(describe(broker, 4, [res(BROKER_LOGGER, '1'), res(9, 'x'), res(GROUP, 'g')])), [
    [BROKER_LOGGER, '1', ErrorCode.INVALID_REQUEST, 'Unsupported resource type: BROKER_LOGGER', 0],
    [9, 'x', ErrorCode.INVALID_REQUEST, 'Unsupported resource type: UNKNOWN', 0],
    [GROUP, 'g', ErrorCode.UNKNOWN_SERVER_ERROR, 'The server experienced an unexpected error when processing the request.', 0],
  ]);
});

test('DESCRIBE_CONFIGS on the topic / group / cluster, else the matching authorization error with its text', () => {
  const authorizer = fakeAuthorizer((c) => c.op === AclOperation.DESCRIBE_CONFIGS && c.resourceType === AclResource.TOPIC && c.name === 't');
  const r = describe(setup(authorizer).broker, 4, [res(TOPIC, 't', ['retention.ms']), res(TOPIC, 'u'), res(GROUP, 'g'), res(BROKER, '1')]);
  assert.equal(head(r), [
    [TOPIC, 't', 0, '', 1],
    [TOPIC, 'u', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Topic authorization failed.', 0],
    [GROUP, 'g', ErrorCode.GROUP_AUTHORIZATION_FAILED, 'Group authorization failed.', 0],
    [BROKER, '1', ErrorCode.CLUSTER_AUTHORIZATION_FAILED, 'Cluster authorization failed.', 0],
  ]);
});

test.run();
