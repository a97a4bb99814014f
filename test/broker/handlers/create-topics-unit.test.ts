/**
 * CreateTopics (019) against a fake BrokerServices: the per-topic checks the handler makes
 * (behaviours.md CT1-CT13; Kafka's ControllerApis.createTopics and the checks of
 * ReplicationControlManager.createTopics), what it hands to BrokerServices.createTopic,
 * validate_only, ACLs and controller_mutation_rate.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createTopicsHandler } from '../../../src/broker/handlers/019-create-topics.js';
import { loadConfig } from '../../../src/config.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { CreatableTopic, CreateTopicsRequest } from '../../../src/protocol/generated/messages/create-topics-request.js';
import type { CreateTopicSpec } from '../../../src/broker/broker-services.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const rawConfig = loadConfig();

function setup(opts: { authorizer?: unknown; quotas?: unknown; create?: (spec: CreateTopicSpec) => Promise<unknown> } = {}) {
  const specs: CreateTopicSpec[] = [];
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    rawConfig,
    config: { numPartitions: 1 } as never,
    quotas: (opts.quotas ?? { mutationActive: false }) as never,
    metadataCache: fakeMetadataCache([topicRecord('exists', 1), topicRecord('a.b', 1)]),
    isRegisteredBroker: (id: number) => id === 1 || id === 2,
    logger: { error: () => {} } as never,
    createTopic: async (spec: CreateTopicSpec) => {
      specs.push(spec);
      if (opts.create) return opts.create(spec);
      const partitions = spec.assignments?.length ?? (spec.numPartitions > 0 ? spec.numPartitions : 1);
      return topicRecord(spec.name, partitions, { replicationFactor: spec.assignments?.[0].length ?? (spec.replicationFactor > 0 ? spec.replicationFactor : 1), configs: spec.configs as Record<string, string> });
    },
  });
  return { broker, specs };
}

function topic(name: string, over: Partial<CreatableTopic> = {}): CreatableTopic {
  return { name, numPartitions: 3, replicationFactor: 2, assignments: [], configs: [], ...over };
}

const create = (broker: ReturnType<typeof setup>['broker'], topics: CreatableTopic[], validateOnly = false, v = 7, over = {}) =>
  createTopicsHandler.handle(requestContext(broker, 19, v, over), { topics, timeoutMs: 30_000, validateOnly } as CreateTopicsRequest) as Promise<any>;
const results = (r: any) => r.topics.map((t: any) => [t.name, t.errorCode, t.errorMessage, t.numPartitions, t.replicationFactor]);

test('a new topic: createTopic gets its spec (validated configs); the answer has partitions, replication factor, topic id and every config sorted, overrides DYNAMIC_TOPIC_CONFIG (CT13)', async () => {
  const { broker, specs } = setup();
  const r = await create(broker, [topic('new', { configs: [{ name: 'retention.ms', value: '1000' }] })]);
  assert.equal(specs, [{ name: 'new', numPartitions: 3, replicationFactor: 2, assignments: undefined, configs: { 'retention.ms': '1000' }, validateOnly: false, forwarded: false }]);
  assert.equal(results(r), [['new', 0, null, 3, 2]]);
  const t = r.topics[0];
  assert.equal([t.topicId, t.topicConfigErrorCode], [topicRecord('new', 1).topicId, 0]);
  const names = t.configs.map((c: any) => c.name);
  assert.equal(names, [...names].sort());
  assert.equal(t.configs.find((c: any) => c.name === 'retention.ms'), { name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false });
  assert.is(t.configs.find((c: any) => c.name === 'cleanup.policy').configSource, 5);
});

test('validate_only: the same answer, createTopic told to validate only, a fresh topic id nothing keeps (CT12)', async () => {
  const { broker, specs } = setup();
  const r = await create(broker, [topic('new')], true);
  assert.equal([specs[0].validateOnly, results(r)], [true, [['new', 0, null, 3, 2]]]);
  assert.ok(r.topics[0].topicId !== ZERO && r.topics[0].topicId !== topicRecord('new', 1).topicId);
});

test('a name listed twice: one INVALID_REQUEST "Duplicate topic name.", nothing created for it (CT8); the others are created', async () => {
  const { broker, specs } = setup();
  const r = await create(broker, [topic('d'), topic('ok'), topic('d')]);
  assert.equal(results(r), [['d', ErrorCode.INVALID_REQUEST, 'Duplicate topic name.', -1, -1], ['ok', 0, null, 3, 2]]);
  assert.equal(specs.map((s) => s.name), ['ok']);
});

test('names and configs checked before the controller is asked: exists (CT1), illegal (CT2), "."/"_" collision (CT3), configs (CT11)', async () => {
  const { broker, specs } = setup();
  const r = await create(broker, [
    topic('exists'), topic('bad name'), topic('a_b'),
    topic('c1', { configs: [{ name: 'no.such.config', value: '1' }] }),
    topic('c2', { configs: [{ name: 'retention.ms', value: null as never }] }),
    topic('c3', { configs: [{ name: 'retention.ms', value: 'soon' }] }),
  ]);
  const rows = results(r);
  assert.equal(rows.map((x: any) => [x[0], x[1], x[3], x[4]]), [
    ['exists', ErrorCode.TOPIC_ALREADY_EXISTS, -1, -1], ['bad name', ErrorCode.INVALID_TOPIC_EXCEPTION, -1, -1], ['a_b', ErrorCode.INVALID_TOPIC_EXCEPTION, -1, -1],
    ['c1', ErrorCode.INVALID_CONFIG, -1, -1], ['c2', ErrorCode.INVALID_CONFIG, -1, -1], ['c3', ErrorCode.INVALID_CONFIG, -1, -1],
  ]);
  assert.equal([rows[0][2], rows[2][2], rows[3][2], rows[4][2]], ["Topic 'exists' already exists.", "Topic 'a_b' collides with existing topic: a.b", 'Unknown topic config name: no.such.config', 'Null value not supported for topic configs: retention.ms']);
  assert.equal(specs, []);
});

test('the controller\'s refusal is that topic\'s answer; an unexpected failure UNKNOWN_SERVER_ERROR without a message', async () => {
  const { broker } = setup({ create: async (spec) => {
    if (spec.name === 'rf') throw new KafkaApiError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Unable to replicate the partition 2 time(s)');
    throw new Error('boom');
  } });
  assert.equal(results(await create(broker, [topic('rf'), topic('x')])), [['rf', ErrorCode.INVALID_REPLICATION_FACTOR, 'Unable to replicate the partition 2 time(s)', -1, -1], ['x', ErrorCode.UNKNOWN_SERVER_ERROR, null, -1, -1]]);
});

test('manual assignments: replica lists by partition index to createTopic; counts must be -1, indexes 0..n-1, brokers registered (CT10)', async () => {
  const { broker, specs } = setup();
  const assignments = [{ partitionIndex: 1, brokerIds: [2, 1] }, { partitionIndex: 0, brokerIds: [1, 2] }];
  const ok = await create(broker, [topic('m', { numPartitions: -1, replicationFactor: -1, assignments })]);
  assert.equal([results(ok), specs[0].assignments], [[['m', 0, null, 2, 2]], [[1, 2], [2, 1]]]);
  const bad = await create(broker, [
    topic('m1', { assignments }), topic('m2', { numPartitions: -1, assignments }),
    topic('m3', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 1, brokerIds: [1] }] }),
    topic('m4', { numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 9] }] }),
  ]);
  assert.equal(results(bad).map((x: any) => [x[0], x[1]]), [['m1', ErrorCode.INVALID_REQUEST], ['m2', ErrorCode.INVALID_REQUEST], ['m3', ErrorCode.INVALID_REPLICA_ASSIGNMENT], ['m4', ErrorCode.INVALID_REPLICA_ASSIGNMENT]]);
  assert.is(specs.length, 1);
});

test('ACLs: CREATE on the cluster or the topic, else TOPIC_AUTHORIZATION_FAILED "Authorization failed."; without DESCRIBE_CONFIGS the topic is created but its configs and counts withheld', async () => {
  const authorizer = fakeAuthorizer((c) => (c.op === AclOperation.CREATE && c.resourceType === ResourceType.TOPIC && c.name !== 'no') || (c.op === AclOperation.DESCRIBE_CONFIGS && c.name === 'yes'));
  const { broker, specs } = setup({ authorizer });
  const r = await create(broker, [topic('no'), topic('yes'), topic('blind')]);
  assert.equal(results(r), [['no', ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.', -1, -1], ['yes', 0, null, 3, 2], ['blind', 0, null, -1, -1]]);
  assert.equal([r.topics[2].configs, r.topics[2].topicConfigErrorCode], [[], ErrorCode.TOPIC_AUTHORIZATION_FAILED]);
  assert.equal(specs.map((s) => s.name), ['yes', 'blind']);
  const cluster = setup({ authorizer: fakeAuthorizer((c) => c.resourceType === ResourceType.CLUSTER || c.op === AclOperation.DESCRIBE_CONFIGS) });
  assert.equal(results(await create(cluster.broker, [topic('no')])), [['no', 0, null, 3, 2]]);
});

test('controller_mutation_rate: strict from v6 (THROTTLING_QUOTA_EXCEEDED for a topic not admitted, throttle time answered); validate_only is not charged', async () => {
  const asked: unknown[][] = [];
  const throttled: unknown[][] = [];
  const quotas = {
    mutationActive: true,
    mutate: (principal: string, clientId: string, partitions: number, strict: boolean) => (asked.push([principal, clientId, partitions, strict]), { accepted: partitions < 5, throttleMs: partitions < 5 ? 0 : 700 }),
    throttle: (...args: unknown[]) => throttled.push(args),
  };
  const { broker, specs } = setup({ quotas });
  const r = await create(broker, [topic('small'), topic('big', { numPartitions: 8 })], false, 6, { principal: 'User:q', clientId: 'c', connectionId: 5 });
  assert.equal(results(r).map((x: any) => [x[0], x[1]]), [['small', 0], ['big', ErrorCode.THROTTLING_QUOTA_EXCEEDED]]);
  assert.equal([asked, r.throttleTimeMs, throttled, specs.map((s) => s.name)], [[['User:q', 'c', 3, true], ['User:q', 'c', 8, true]], 700, [[5, 700]], ['small']]);
  asked.length = 0;
  await create(broker, [topic('big2', { numPartitions: 8 })], true, 6);
  assert.equal(asked, []);
});

test.run();
