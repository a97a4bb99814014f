/**
 * Metadata (003) against a fake BrokerServices: which topics are answered and how (behaviours.md
 * M1-M9; Kafka's KafkaApis.handleTopicMetadataRequest / getTopicMetadata and
 * KRaftMetadataCache.partitionMetadata), auto-creation, topic ids by version, ACLs.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metadataHandler } from '../../../src/broker/handlers/003-metadata.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { MetadataRequest } from '../../../src/protocol/generated/messages/metadata-request.js';
import type { PartitionState, TopicRecord } from '../../../src/cluster/metadata-store.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, thrown, topicRecord, type AclCheck } from '../../support/fake-services.js';

const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';
const NO_OPS = -2147483648;
const t = topicRecord('t', 2);
const offsets = topicRecord('__consumer_offsets', 1, { isInternal: true });

function state(topicId: string, partition: number, leader: number, replicas: number[], isr: number[]): PartitionState {
  return { topicId, partition, leader, leaderEpoch: 3 + partition, partitionEpoch: 0, replicas, isr };
}

/** Brokers 1 and 2 are registered; 3 is not; 2 has no endpoint on the listener asked. */
function setup(opts: { autoCreate?: boolean; authorizer?: unknown; partitions?: PartitionState[]; topics?: TopicRecord[] } = {}) {
  const created: string[] = [];
  const partitions = opts.partitions ?? [state(t.topicId, 0, 1, [1, 3], [1]), state(t.topicId, 1, 1, [1], [1]), state(offsets.topicId, 0, 1, [1], [1])];
  const broker = fakeServices({
    nodeId: 1, registered: true, authorizer: opts.authorizer ?? null,
    config: { autoCreateTopicsEnable: opts.autoCreate ?? true } as never,
    metadataCache: fakeMetadataCache(opts.topics ?? [t, offsets], {
      clusterId: 'c-1', controller: { nodeId: 2 }, brokers: new Map([[1, {}], [2, {}]]),
      partitionsOf: (id: string) => partitions.filter((p) => p.topicId === id),
    }),
    isRegisteredBroker: (id: number) => id === 1 || id === 2,
    brokerEndpoint: (id: number) => (id === 1 ? { host: 'b1', port: 9091, rack: null } : null),
    autoCreateTopic: async (name: string) => {
      created.push(name);
      return topicRecord(name, 1);
    },
  });
  return { broker, created };
}

function request(names: (string | null)[] | null, over: Partial<MetadataRequest> = {}): MetadataRequest {
  return { topics: names === null ? null : names.map((name) => ({ name, topicId: ZERO })), allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false, ...over };
}

async function ask(broker: ReturnType<typeof setup>['broker'], v: number, req: MetadataRequest) {
  return await metadataHandler.handle(requestContext(broker, 3, v), req) as any;
}

const summary = (r: any) => r.topics.map((x: any) => [x.name, x.errorCode, x.isInternal]);

test('topics null (v1+): every topic, internal ones flagged; never auto-creates (M5). [] lists none at v1+, all at v0 (M6)', async () => {
  const { broker, created } = setup();
  assert.equal(summary(await ask(broker, 12, request(null))), [['t', 0, false], ['__consumer_offsets', 0, true]]);
  assert.equal((await ask(broker, 1, request([]))).topics, []);
  assert.equal(summary(await ask(broker, 0, request([]))).map((x: any) => x[0]), ['t', '__consumer_offsets']);
  assert.equal(created, []);
});

test('brokers, cluster id and controller from the metadata cache; live brokers on this listener only', async () => {
  const { broker } = setup();
  const r = await ask(broker, 12, request([]));
  assert.equal([r.brokers, r.clusterId, r.controllerId, r.throttleTimeMs], [[{ nodeId: 1, host: 'b1', port: 9091, rack: null }], 'c-1', 2, 0]);
});

test('partitions: leader, epoch, replicas, ISR, offline replicas; a dead leader LEADER_NOT_AVAILABLE, one without this listener LISTENER_NOT_FOUND, both with leader -1 (M9)', async () => {
  const partitions = [state(t.topicId, 0, 1, [1, 3], [1]), state(t.topicId, 1, 3, [3, 1], [3]), state(t.topicId, 2, 2, [2], [2])];
  const { broker } = setup({ partitions, topics: [topicRecord('t', 3)] });
  const r = await ask(broker, 12, request(['t']));
  assert.equal(r.topics[0].partitions.map((p: any) => [p.partitionIndex, p.errorCode, p.leaderId, p.leaderEpoch, p.replicaNodes, p.isrNodes, p.offlineReplicas]), [
    [0, ErrorCode.NONE, 1, 3, [1, 3], [1], [3]],
    [1, ErrorCode.LEADER_NOT_AVAILABLE, -1, 4, [3, 1], [3], [3]],
    [2, ErrorCode.LISTENER_NOT_FOUND, -1, 5, [2], [2], []],
  ]);
});

test('a missing topic is auto-created when the broker and (v4+) the request allow it; otherwise UNKNOWN_TOPIC_OR_PARTITION with the zero id (M1, M2)', async () => {
  const on = setup();
  const r = await ask(on.broker, 12, request(['new']));
  assert.equal([on.created, summary(r)], [['new'], [['new', 0, false]]]);
  assert.is(r.topics[0].topicId, topicRecord('new', 1).topicId);
  const flagOff = setup();
  const off = await ask(flagOff.broker, 4, request(['new'], { allowAutoTopicCreation: false }));
  assert.equal([flagOff.created, summary(off), off.topics[0].topicId], [[], [['new', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, false]], ZERO]);
  const v3 = setup();
  await ask(v3.broker, 3, request(['new'], { allowAutoTopicCreation: false }));
  assert.equal(v3.created, ['new'], 'before v4 the request cannot refuse auto-creation');
  const brokerOff = setup({ autoCreate: false });
  assert.equal(summary(await ask(brokerOff.broker, 12, request(['new']))), [['new', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, false]]);
  assert.equal(brokerOff.created, []);
});

test('an illegal name is INVALID_TOPIC_EXCEPTION (M3); a missing internal topic is not auto-created here and is is_internal', async () => {
  const { broker, created } = setup({ topics: [t] });
  assert.equal(summary(await ask(broker, 12, request(['bad name!', '__transaction_state']))), [['bad name!', ErrorCode.INVALID_TOPIC_EXCEPTION, false], ['__transaction_state', ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, true]]);
  assert.equal(created, []);
});

test('a failed auto-creation answers its error for that topic', async () => {
  const { broker } = setup();
  (broker as any).autoCreateTopic = async () => { throw new KafkaApiError(ErrorCode.INVALID_REPLICATION_FACTOR); };
  assert.equal(summary(await ask(broker, 12, request(['new']))), [['new', ErrorCode.INVALID_REPLICATION_FACTOR, false]]);
});

test('a name listed twice is answered once, with the topic id', async () => {
  const { broker } = setup();
  const r = await ask(broker, 10, request(['t', 't']));
  assert.equal(r.topics.map((x: any) => [x.name, x.topicId]), [['t', t.topicId]]);
});

test('v12 by topic id: a known id is described, an unknown one UNKNOWN_TOPIC_ID with a null name and no authorized operations (M7)', async () => {
  const { broker } = setup();
  const unknown = 'AAAAAAAAAAAAAAAAAAAAAQ';
  const r = await ask(broker, 12, { ...request([]), topics: [{ name: null, topicId: t.topicId }, { name: null, topicId: unknown }], includeTopicAuthorizedOperations: true });
  assert.equal(r.topics.map((x: any) => [x.name, x.topicId, x.errorCode, x.isInternal, x.topicAuthorizedOperations]), [
    [null, unknown, ErrorCode.UNKNOWN_TOPIC_ID, false, NO_OPS],
    ['t', t.topicId, ErrorCode.NONE, false, 3576],
  ]);
});

test('v10-11: a topic id or a null name fails the whole request with INVALID_REQUEST (M8)', async () => {
  const { broker } = setup();
  for (const topics of [[{ name: 't', topicId: t.topicId }], [{ name: null, topicId: ZERO }]]) {
    const err = await thrown(() => ask(broker, 11, { ...request([]), topics }));
    assert.is((err as KafkaApiError).errorCode, ErrorCode.INVALID_REQUEST);
  }
  const e = metadataHandler.errorResponse({ ...request([]), topics: [{ name: null, topicId: t.topicId }] }, ErrorCode.INVALID_REQUEST, requestContext(broker, 3, 11));
  assert.equal([e.brokers, e.clusterId, e.controllerId, summary(e)], [[], null, -1, [['', ErrorCode.INVALID_REQUEST, false]]]);
});

test('DESCRIBE on each topic: left out of "all topics"; named, TOPIC_AUTHORIZATION_FAILED with the zero id and is_internal false (Kafka does not disclose it)', async () => {
  const authorizer = fakeAuthorizer((c: AclCheck) => c.name === 't');
  const { broker } = setup({ authorizer });
  assert.equal(summary(await ask(broker, 12, request(null))), [['t', 0, false]]);
  const r = await ask(broker, 12, request(['__consumer_offsets', 'missing']));
  assert.equal(r.topics.map((x: any) => [x.name, x.errorCode, x.isInternal, x.topicId, x.partitions]), [
    ['__consumer_offsets', ErrorCode.TOPIC_AUTHORIZATION_FAILED, false, ZERO, []],
    ['missing', ErrorCode.TOPIC_AUTHORIZATION_FAILED, false, ZERO, []],
  ]);
  const byId = await ask(broker, 12, { ...request([]), topics: [{ name: null, topicId: offsets.topicId }] });
  assert.equal(byId.topics.map((x: any) => [x.name, x.errorCode, x.topicId, x.isInternal]), [[null, ErrorCode.TOPIC_AUTHORIZATION_FAILED, offsets.topicId, false]]);
});

test('auto-creation needs CREATE on the cluster or on the topic, else TOPIC_AUTHORIZATION_FAILED and nothing created', async () => {
  const describeOnly = setup({ authorizer: fakeAuthorizer((c) => c.op === AclOperation.DESCRIBE) });
  assert.equal(summary(await ask(describeOnly.broker, 12, request(['new']))), [['new', ErrorCode.TOPIC_AUTHORIZATION_FAILED, false]]);
  assert.equal(describeOnly.created, []);
  const topicCreate = setup({ authorizer: fakeAuthorizer((c) => c.op === AclOperation.DESCRIBE || (c.op === AclOperation.CREATE && c.resourceType === ResourceType.TOPIC && c.name === 'new')) });
  assert.equal(summary(await ask(topicCreate.broker, 12, request(['new']))), [['new', 0, false]]);
  const clusterCreate = setup({ authorizer: fakeAuthorizer((c) => c.op === AclOperation.DESCRIBE || (c.op === AclOperation.CREATE && c.resourceType === ResourceType.CLUSTER)) });
  await ask(clusterCreate.broker, 12, request(['new2']));
  assert.equal(clusterCreate.created, ['new2']);
});

test('authorized operations (v8+) only when asked: topic 3576 and (v8-10) cluster 8096 without an authorizer; the principal\'s with one', async () => {
  const { broker } = setup();
  const asked = await ask(broker, 8, request(['t'], { includeTopicAuthorizedOperations: true, includeClusterAuthorizedOperations: true }));
  assert.equal([asked.topics[0].topicAuthorizedOperations, asked.clusterAuthorizedOperations], [3576, 8096]);
  const not = await ask(broker, 8, request(['t']));
  assert.equal([not.topics[0].topicAuthorizedOperations, not.clusterAuthorizedOperations], [NO_OPS, NO_OPS]);
  const v11 = await ask(broker, 11, request(['t'], { includeClusterAuthorizedOperations: true }));
  assert.is(v11.clusterAuthorizedOperations, NO_OPS);
  const readOnly = setup({ authorizer: fakeAuthorizer((c) => c.op === AclOperation.DESCRIBE || c.op === AclOperation.READ) });
  const mine = await ask(readOnly.broker, 10, request(['t'], { includeTopicAuthorizedOperations: true, includeClusterAuthorizedOperations: true }));
  assert.equal([mine.topics[0].topicAuthorizedOperations, mine.clusterAuthorizedOperations], [(1 << AclOperation.READ) | (1 << AclOperation.DESCRIBE), 1 << AclOperation.DESCRIBE]);
});

test.run();
