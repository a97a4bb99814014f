/**
 * ACLs, differential: the same ACLs and the same requests to one Samsa and one real Apache Kafka
 * 4.4, both with `authorizer.class.name=...StandardAuthorizer` and
 * `allow.everyone.if.no.acl.found=true`; every answer's error codes (and the fields the ACLs
 * decide: visible topics, authorized operations, matched ACLs) must be the same.
 *
 * Both brokers' clients are User:ANONYMOUS (PLAINTEXT). The ACLs tell clients apart by host:
 * the set-up connects from 127.0.0.1 and is allowed everything on the cluster (Kafka's own
 * broker-to-controller traffic is ANONYMOUS too, and keeps working); the restricted client
 * connects from 127.0.0.2 and is denied ALTER, CREATE, DELETE, DESCRIBE and DESCRIBE_CONFIGS on the
 * cluster, and held to literal, prefixed and DENY ACLs on topics, groups and transactional ids.
 * super.users cannot be used for this: a super user is never denied anything.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { KafkaConn } from '../bench/lib/kafka-conn.js';
import { startBroker, type RunningBroker } from '../src/testing/start-broker.js';
import { kafkaOrSkip } from '../test/support/kafka.js';
import type { RunningKafka } from '../tools/kafka/kafka.js';
import { SUITE_BROKER_CONFIG } from './lib/targets.js';
import { fill } from './probes/fill.js';
import { codec } from './probes/wire.js';

const AUTH: Record<string, string> = {
  ...SUITE_BROKER_CONFIG,
  'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  'allow.everyone.if.no.acl.found': 'true',
  'auto.create.topics.enable': 'true',
};
const ME = 'User:ANONYMOUS';
const RESTRICTED = '127.0.0.2';
// Kafka's enumerations.
const TOPIC = 2, GROUP = 3, CLUSTER = 4, TXN = 5;
const LITERAL = 3, PREFIXED = 4, MATCH = 2, ANY = 1;
const ALL = 2, READ = 3, WRITE = 4, CREATE = 5, DELETE = 6, ALTER = 7, DESCRIBE = 8, DESCRIBE_CONFIGS = 10;
const DENY = 2, ALLOW = 3;

type Target = { name: 'kafka' | 'samsa'; port: number; admin: KafkaConn; restricted: KafkaConn };
let kafka: RunningKafka | null = null;
let samsa: RunningBroker | null = null;
const targets: Target[] = [];
const mismatches: string[] = [];

const acl = (resourceType: number, resourceName: string, resourcePatternType: number, operation: number, permissionType: number, host = '*', principal = ME) =>
  ({ resourceType, resourceName, resourcePatternType, principal, host, operation, permissionType });

const ACLS = [
  acl(CLUSTER, 'kafka-cluster', LITERAL, ALL, ALLOW),
  ...[ALTER, CREATE, DELETE, DESCRIBE, DESCRIBE_CONFIGS].map((op) => acl(CLUSTER, 'kafka-cluster', LITERAL, op, DENY, RESTRICTED)),
  acl(TOPIC, 'dt-locked', LITERAL, READ, ALLOW, '127.0.0.1'),
  acl(TOPIC, 'dt-p-', PREFIXED, ALL, ALLOW, RESTRICTED),
  acl(TOPIC, 'dt-p-deny', LITERAL, WRITE, DENY, RESTRICTED),
  acl(TOPIC, 'dt-q-', PREFIXED, DESCRIBE, ALLOW, RESTRICTED),
  acl(GROUP, 'dg-locked', LITERAL, READ, ALLOW, '127.0.0.1'),
  acl(GROUP, 'dg-desc', LITERAL, DESCRIBE, ALLOW, RESTRICTED),
  acl(GROUP, 'dg-p-', PREFIXED, READ, ALLOW, RESTRICTED),
  acl(TXN, 'dtx-locked', LITERAL, WRITE, ALLOW, '127.0.0.1'),
  acl(TXN, 'dtx-desc', LITERAL, DESCRIBE, ALLOW, RESTRICTED),
];

async function req(c: KafkaConn, apiKey: number, version: number, body: Record<string, unknown>): Promise<any> {
  return c.request(apiKey as never, version, fill(`${codec(apiKey).name}Request`, version, body) as never);
}

/** Sends the same request on both targets and compares what `pick` keeps of the answers. */
async function same(what: string, conn: 'admin' | 'restricted' | 'fresh', apiKey: number, version: number, body: Record<string, unknown>, pick: (res: any) => unknown): Promise<unknown> {
  const out = await Promise.all(targets.map(async (t) => {
    // 'fresh': a connection of its own (for requests a broker may answer by closing it).
    const c = conn === 'fresh' ? await KafkaConn.connect('127.0.0.1', t.port) : t[conn];
    try {
      return pick(await req(c, apiKey, version, body));
    } catch (e) {
      return `failed: ${(e as Error).message.replace(/127\.0\.0\.1:\d+/g, "<broker>")}`;
    } finally {
      if (conn === 'fresh') c.close();
    }
  }));
  const [k, s] = out.map((o) => JSON.stringify(o));
  if (process.env.ACL_DIFF_SHOW) console.log(`${what}: ${k}`);
  if (k !== s) mismatches.push(`${what}\n    kafka: ${k}\n    samsa: ${s}`);
  return out[0];
}

const codes = (list: any[], key = 'errorCode') => list.map((x) => x[key]);
const topicCodes = (res: any, arr = 'topics', parts = 'partitions', code = 'errorCode') =>
  res[arr].map((t: any) => [t.name ?? t.topic, t[parts].map((p: any) => p[code])]);

async function produceBody(topic: string, transactionalId: string | null = null) {
  const { batch } = await import('./probes/fixtures.js');
  return { transactionalId, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch({ count: 1 }) }] }] };
}

test.before(async () => {
  [kafka, samsa] = await Promise.all([
    kafkaOrSkip('ACL differential', { overrides: AUTH }),
    startBroker({ port: 0, config: AUTH }),
  ]);
  if (!kafka) return;
  for (const [name, port] of [['kafka', kafka.port], ['samsa', samsa.port]] as const) {
    const admin = await KafkaConn.connect('127.0.0.1', port);
    const restricted = await KafkaConn.connect('127.0.0.1', port, 5000, RESTRICTED);
    targets.push({ name, port, admin, restricted });
  }
  for (const t of targets) {
    const created = await req(t.admin, 19, 7, { topics: ['dt-locked', 'dt-p-ok', 'dt-p-deny', 'dt-q-x', 'dt-open'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })), timeoutMs: 30_000 });
    assert.equal(codes(created.topics), [0, 0, 0, 0, 0], `${t.name}: topics created`);
    // The internal topics exist before the restricted client looks for coordinators (their
    // creation on first use is not what this test compares).
    for (let i = 0; i < 100; i++) {
      const g = await req(t.admin, 10, 4, { keyType: 0, coordinatorKeys: ['dg-setup'] });
      const x = await req(t.admin, 10, 4, { keyType: 1, coordinatorKeys: ['dtx-setup'] });
      if (g.coordinators[0].errorCode === 0 && x.coordinators[0].errorCode === 0) {
        const ip = await req(t.admin, 22, 4, { transactionalId: 'dtx-setup', transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 });
        const of = await req(t.admin, 9, 8, { groups: [{ groupId: 'dg-setup', topics: null }], requireStable: false });
        if (ip.errorCode === 0 && of.groups[0].errorCode === 0) break;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});

test.after(async () => {
  for (const t of targets) {
    t.admin.close();
    t.restricted.close();
  }
  await Promise.allSettled([kafka?.stop(), samsa?.stop()]);
});

test('CreateAcls: valid ACLs, then the invalid ones Kafka refuses', async () => {
  if (!kafka) return;
  await same('CreateAcls v3 valid', 'admin', 30, 3, { creations: ACLS }, (r) => codes(r.results));
  const bad = [
    acl(CLUSTER, 'other', LITERAL, ALTER, ALLOW),
    acl(TOPIC, '', LITERAL, READ, ALLOW),
    acl(ANY, 'x', LITERAL, READ, ALLOW),
    acl(TOPIC, 'x', MATCH, READ, ALLOW),
    acl(TOPIC, 'x', ANY, READ, ALLOW),
    acl(TOPIC, 'x', LITERAL, ANY, ALLOW),
    acl(TOPIC, 'x', LITERAL, READ, ANY),
  ];
  for (const [i, b] of bad.entries()) await same(`CreateAcls invalid #${i}`, 'admin', 30, 3, { creations: [b] }, (r) => r.results.map((x: any) => [x.errorCode, x.errorMessage]));
  const results = (r: any) => r.results.map((x: any) => [x.errorCode, x.errorMessage]);
  await same('CreateAcls v1 unknown operation', 'fresh', 30, 1, { creations: [acl(TOPIC, 'x', LITERAL, 99, ALLOW)] }, results);
  await same('CreateAcls v3 operation 0', 'fresh', 30, 3, { creations: [acl(TOPIC, 'x', LITERAL, 0, ALLOW)] }, results);
  await same('CreateAcls v3 resource type 0', 'fresh', 30, 3, { creations: [acl(0, 'x', LITERAL, READ, ALLOW)] }, results);
  await same('CreateAcls v3 pattern type 9', 'fresh', 30, 3, { creations: [acl(TOPIC, 'x', 9, READ, ALLOW)] }, results);
  await same('CreateAcls v3 permission 0', 'fresh', 30, 3, { creations: [acl(TOPIC, 'x', LITERAL, READ, 0)] }, results);
  await same('CreateAcls v3 principal without a colon', 'fresh', 30, 3, { creations: [acl(TOPIC, 'x', LITERAL, READ, ALLOW, '*', 'alice')] }, results);
  const anyFilter = { resourceTypeFilter: ANY, resourceNameFilter: null, patternTypeFilter: ANY, principalFilter: null, hostFilter: null, operation: ANY, permissionType: ANY };
  await same('DescribeAcls v3 operation 0', 'fresh', 29, 3, { ...anyFilter, operation: 0 }, (r) => [r.errorCode, r.errorMessage]);
  await same('DescribeAcls v3 resource type 0', 'fresh', 29, 3, { ...anyFilter, resourceTypeFilter: 0 }, (r) => [r.errorCode, r.errorMessage]);
  await same('DescribeAcls v3 operation 99', 'fresh', 29, 3, { ...anyFilter, operation: 99 }, (r) => [r.errorCode, r.errorMessage, r.resources.length]);
  await same('DeleteAcls v3 pattern type 9, operation 99', 'fresh', 31, 3, { filters: [{ ...anyFilter, patternTypeFilter: 9 }, { ...anyFilter, operation: 99 }] }, (r) => r.filterResults.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('DeleteAcls v3 pattern type 0', 'fresh', 31, 3, { filters: [{ ...anyFilter, patternTypeFilter: 0 }] }, (r) => r.filterResults.map((x: any) => [x.errorCode, x.errorMessage]));
  // Kafka applies ACL changes through its metadata log: wait until both describe them all.
  for (const t of targets) {
    for (let i = 0; i < 100; i++) {
      const d = await req(t.admin, 29, 3, { resourceTypeFilter: ANY, resourceNameFilter: null, patternTypeFilter: ANY, principalFilter: null, hostFilter: null, operation: ANY, permissionType: ANY });
      if (d.resources.reduce((n: number, r: any) => n + r.acls.length, 0) >= ACLS.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await new Promise((r) => setTimeout(r, 500));
});

test('DescribeAcls: LITERAL, PREFIXED, MATCH and ANY filters; CLUSTER_AUTHORIZATION_FAILED without DESCRIBE', async () => {
  if (!kafka) return;
  const flat = (r: any) => [r.errorCode, r.resources.flatMap((x: any) => x.acls.map((a: any) =>
    `${x.resourceType}:${x.patternType}:${x.resourceName}:${a.principal}:${a.host}:${a.operation}:${a.permissionType}`)).sort()];
  const f = (resourceTypeFilter: number, resourceNameFilter: string | null, patternTypeFilter: number, extra: Record<string, unknown> = {}) =>
    ({ resourceTypeFilter, resourceNameFilter, patternTypeFilter, principalFilter: null, hostFilter: null, operation: ANY, permissionType: ANY, ...extra });
  await same('DescribeAcls any', 'admin', 29, 3, f(ANY, null, ANY), flat);
  await same('DescribeAcls literal dt-locked', 'admin', 29, 1, f(TOPIC, 'dt-locked', LITERAL), flat);
  await same('DescribeAcls prefixed dt-p-', 'admin', 29, 2, f(TOPIC, 'dt-p-', PREFIXED), flat);
  await same('DescribeAcls match dt-p-deny', 'admin', 29, 3, f(TOPIC, 'dt-p-deny', MATCH), flat);
  await same('DescribeAcls any name, by host', 'admin', 29, 3, f(ANY, null, ANY, { hostFilter: RESTRICTED, permissionType: DENY }), flat);
  await same('DescribeAcls restricted', 'restricted', 29, 3, f(ANY, null, ANY), (r) => r.errorCode);
  await same('CreateAcls restricted', 'restricted', 30, 3, { creations: [acl(TOPIC, 'x', LITERAL, READ, ALLOW)] }, (r) => codes(r.results));
  await same('DeleteAcls restricted', 'restricted', 31, 3, { filters: [f(TOPIC, 'x', LITERAL)] }, (r) => codes(r.filterResults));
});

test('Produce, Fetch, ListOffsets, Metadata for the restricted client', async () => {
  if (!kafka) return;
  for (const topic of ['dt-locked', 'dt-p-ok', 'dt-p-deny', 'dt-q-x', 'dt-open']) {
    await same(`Produce ${topic}`, 'restricted', 0, 9, await produceBody(topic), (r) => topicCodes(r, 'responses', 'partitionResponses'));
    await same(`Fetch ${topic}`, 'restricted', 1, 12, { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, topics: [{ topic, partitions: [{ partition: 0, fetchOffset: 0n, partitionMaxBytes: 1 << 20 }] }] },
      (r) => r.responses.map((t: any) => [t.topic, t.partitions.map((p: any) => p.errorCode)]));
    await same(`ListOffsets ${topic}`, 'restricted', 2, 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1n }] }] }, (r) => topicCodes(r));
  }
  const visible = (r: any) => r.topics.filter((t: any) => t.name?.startsWith('dt-')).map((t: any) => [t.name, t.errorCode, t.topicAuthorizedOperations]).sort();
  await same('Metadata all topics', 'restricted', 3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true }, visible);
  await same('Metadata named', 'restricted', 3, 12, { topics: ['dt-locked', 'dt-p-ok', 'dt-q-x', 'dt-nope-missing'].map((name) => ({ name })), allowAutoTopicCreation: false, includeTopicAuthorizedOperations: true }, visible);
  await same('Metadata auto-create without CREATE', 'restricted', 3, 9, { topics: [{ name: 'dt-q-auto' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false }, (r) => codes(r.topics));
  await same('Metadata cluster authorized operations (admin)', 'admin', 3, 8, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true }, (r) => r.clusterAuthorizedOperations);
  await same('Metadata cluster authorized operations (restricted)', 'restricted', 3, 8, { topics: [], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true }, (r) => r.clusterAuthorizedOperations);
  await same('DescribeCluster authorized operations', 'restricted', 60, 0, { includeClusterAuthorizedOperations: true }, (r) => [r.errorCode, r.clusterAuthorizedOperations]);
});

test('groups, transactions and admin requests for the restricted client', async () => {
  if (!kafka) return;
  for (const g of ['dg-locked', 'dg-desc', 'dg-p-1']) {
    await same(`FindCoordinator ${g}`, 'restricted', 10, 4, { keyType: 0, coordinatorKeys: [g] }, (r) => codes(r.coordinators));
    await same(`JoinGroup ${g}`, 'restricted', 11, 5, {
      groupId: g, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
    }, (r) => r.errorCode === 79 ? 'MEMBER_ID_REQUIRED' : r.errorCode);
    await same(`Heartbeat ${g}`, 'restricted', 12, 4, { groupId: g, generationId: 1, memberId: 'm', groupInstanceId: null }, (r) => r.errorCode);
    await same(`OffsetCommit ${g}`, 'restricted', 8, 8, { groupId: g, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: 'dt-p-ok', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }, { name: 'dt-locked', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }] }, (r) => topicCodes(r).sort());
    await same(`OffsetFetch ${g}`, 'restricted', 9, 8, { groups: [{ groupId: g, topics: [{ name: 'dt-p-ok', partitionIndexes: [0] }, { name: 'dt-locked', partitionIndexes: [0] }] }], requireStable: false },
      (r) => r.groups.map((x: any) => [x.errorCode, topicCodes(x)]));
    await same(`DescribeGroups ${g}`, 'restricted', 15, 5, { groups: [g], includeAuthorizedOperations: true }, (r) => r.groups.map((x: any) => [x.errorCode, x.authorizedOperations]));
    await same(`DeleteGroups ${g}`, 'restricted', 42, 2, { groupsNames: [g] }, (r) => codes(r.results));
  }
  await same('ListGroups', 'restricted', 16, 4, { statesFilter: [] }, (r) => [r.errorCode, r.groups.map((g: any) => g.groupId).filter((id: string) => id.startsWith('dg-')).sort()]);
  for (const id of ['dtx-locked', 'dtx-desc', null]) {
    await same(`InitProducerId ${id}`, 'restricted', 22, 4, { transactionalId: id, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1 }, (r) => r.errorCode);
  }
  await same('FindCoordinator txn dtx-locked', 'restricted', 10, 4, { keyType: 1, coordinatorKeys: ['dtx-locked', 'dtx-desc'] }, (r) => codes(r.coordinators));
  await same('AddPartitionsToTxn dtx-locked', 'restricted', 24, 3, { v3AndBelowTransactionalId: 'dtx-locked', v3AndBelowProducerId: 1n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [{ name: 'dt-p-ok', partitions: [0] }] },
    (r) => topicCodes(r, 'resultsByTopicV3AndBelow', 'resultsByPartition', 'partitionErrorCode'));
  await same('EndTxn dtx-locked', 'restricted', 26, 3, { transactionalId: 'dtx-locked', producerId: 1n, producerEpoch: 0, committed: true }, (r) => r.errorCode);
  await same('AddOffsetsToTxn dtx-locked', 'restricted', 25, 3, { transactionalId: 'dtx-locked', producerId: 1n, producerEpoch: 0, groupId: 'dg-p-1' }, (r) => r.errorCode);
  await same('CreateTopics', 'restricted', 19, 7, { topics: ['dt-q-new', 'dt-p-new'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })), timeoutMs: 30_000, validateOnly: true },
    (r) => r.topics.map((t: any) => [t.name, t.errorCode, t.topicConfigErrorCode]).sort());
  await same('DeleteTopics', 'restricted', 20, 6, { topics: [{ name: 'dt-locked', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }, { name: 'dt-q-x', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 30_000 }, (r) => r.responses.map((x: any) => [x.name, x.errorCode]).sort());
  await same('CreatePartitions', 'restricted', 37, 3, { topics: [{ name: 'dt-locked', count: 2, assignments: null }], timeoutMs: 30_000, validateOnly: true }, (r) => codes(r.results));
  await same('DeleteRecords', 'restricted', 21, 2, { topics: [{ name: 'dt-locked', partitions: [{ partitionIndex: 0, offset: 0n }] }], timeoutMs: 30_000 }, (r) => topicCodes(r));
  await same('DescribeConfigs', 'restricted', 32, 4, { resources: [{ resourceType: 2, resourceName: 'dt-locked', configurationKeys: ['retention.ms'] }, { resourceType: 4, resourceName: '', configurationKeys: ['log.retention.ms'] }], includeSynonyms: false, includeDocumentation: false },
    (r) => codes(r.results));
  await same('IncrementalAlterConfigs', 'restricted', 44, 1, { resources: [{ resourceType: 2, resourceName: 'dt-locked', configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] }], validateOnly: true }, (r) => codes(r.responses));
  await same('DescribeLogDirs', 'restricted', 35, 4, { topics: null }, (r) => r.errorCode);
  await same('AlterConfigs (legacy)', 'restricted', 33, 2, { resources: [{ resourceType: 2, resourceName: 'dt-locked', configs: [{ name: 'retention.ms', value: '1000' }] }, { resourceType: 2, resourceName: 'dt-p-ok', configs: [{ name: 'retention.ms', value: '86400000' }] }], validateOnly: true }, (r) => codes(r.responses));
  await same('DescribeTopicPartitions named', 'restricted', 75, 0, { topics: ['dt-locked', 'dt-p-ok', 'dt-q-x'].map((name) => ({ name })), responsePartitionLimit: 100, cursor: null },
    (r) => r.topics.map((t: any) => [t.name, t.errorCode, t.topicAuthorizedOperations]).sort());
  await same('DescribeTopicPartitions all', 'restricted', 75, 0, { topics: [], responsePartitionLimit: 1000, cursor: null },
    (r) => r.topics.filter((t: any) => t.name.startsWith('dt-')).map((t: any) => [t.name, t.errorCode]).sort());
  await same('DescribeTransactions', 'restricted', 65, 0, { transactionalIds: ['dtx-locked', 'dtx-desc'] }, (r) => r.transactionStates.map((x: any) => [x.transactionalId, x.errorCode]).sort());
  await same('ListTransactions', 'restricted', 66, 1, { stateFilters: [], producerIdFilters: [], durationFilter: -1n }, (r) => [r.errorCode, r.transactionStates.map((x: any) => x.transactionalId).filter((id: string) => id.startsWith('dtx')).sort()]);
  await same('TxnOffsetCommit', 'restricted', 28, 3, { transactionalId: 'dtx-locked', groupId: 'dg-p-1', producerId: 1n, producerEpoch: 0, generationId: -1, memberId: '', groupInstanceId: null,
    topics: [{ name: 'dt-p-ok', partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }] }, (r) => topicCodes(r));
  await same('OffsetDelete', 'restricted', 47, 0, { groupId: 'dg-p-1', topics: [{ name: 'dt-p-ok', partitions: [{ partitionIndex: 0 }] }] }, (r) => [r.errorCode, r.topics.map((t: any) => [t.name, t.partitions.map((p: any) => p.errorCode)])]);
  await same('LeaveGroup', 'restricted', 13, 4, { groupId: 'dg-locked', members: [{ memberId: 'm', groupInstanceId: null }] }, (r) => r.errorCode);
  await same('SyncGroup', 'restricted', 14, 5, { groupId: 'dg-locked', generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] }, (r) => r.errorCode);
  await same('OffsetForLeaderEpoch', 'restricted', 23, 4, { replicaId: -1, topics: [{ topic: 'dt-locked', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }, { topic: 'dt-p-ok', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] },
    (r) => r.topics.map((t: any) => [t.topic, t.partitions.map((p: any) => p.errorCode)]));
  await same('DescribeProducers', 'restricted', 61, 0, { topics: [{ name: 'dt-locked', partitionIndexes: [0] }, { name: 'dt-p-ok', partitionIndexes: [0] }] }, (r) => topicCodes(r));
});

test('error messages of denied requests', async () => {
  if (!kafka) return;
  await same('FindCoordinator v3 group (message)', 'restricted', 10, 3, { key: 'dg-locked', keyType: 0 }, (r) => [r.errorCode, r.errorMessage]);
  await same('FindCoordinator v3 txn (message)', 'restricted', 10, 3, { key: 'dtx-locked', keyType: 1 }, (r) => [r.errorCode, r.errorMessage]);
  await same('FindCoordinator v4 (messages)', 'restricted', 10, 4, { keyType: 0, coordinatorKeys: ['dg-locked'] }, (r) => r.coordinators.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('CreateTopics (messages)', 'restricted', 19, 7, { topics: [{ name: 'dt-q-m', numPartitions: 1, replicationFactor: 1 }], timeoutMs: 30_000, validateOnly: true }, (r) => r.topics.map((t: any) => [t.errorCode, t.errorMessage]));
  await same('DeleteTopics (messages)', 'restricted', 20, 6, { topics: [{ name: 'dt-locked', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 30_000 }, (r) => r.responses.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('CreatePartitions (messages)', 'restricted', 37, 3, { topics: [{ name: 'dt-locked', count: 2, assignments: null }], timeoutMs: 30_000, validateOnly: true }, (r) => r.results.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('DescribeConfigs (messages)', 'restricted', 32, 4, { resources: [{ resourceType: 2, resourceName: 'dt-locked', configurationKeys: ['retention.ms'] }, { resourceType: 4, resourceName: '', configurationKeys: ['log.retention.ms'] }], includeSynonyms: false, includeDocumentation: false },
    (r) => r.results.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('AlterConfigs (messages)', 'restricted', 33, 2, { resources: [{ resourceType: 2, resourceName: 'dt-locked', configs: [{ name: 'retention.ms', value: '1000' }] }], validateOnly: true }, (r) => r.responses.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('IncrementalAlterConfigs (messages)', 'restricted', 44, 1, { resources: [{ resourceType: 2, resourceName: 'dt-locked', configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] }], validateOnly: true }, (r) => r.responses.map((x: any) => [x.errorCode, x.errorMessage]));
  await same('Produce (message)', 'restricted', 0, 9, await produceBody('dt-locked'), (r) => r.responses.map((t: any) => t.partitionResponses.map((p: any) => [p.errorCode, p.errorMessage])));
  await same('DescribeProducers (message)', 'restricted', 61, 0, { topics: [{ name: 'dt-locked', partitionIndexes: [0] }] }, (r) => r.topics.map((t: any) => t.partitions.map((p: any) => [p.errorCode, p.errorMessage])));
  await same('DescribeLogDirs (message)', 'restricted', 35, 4, { topics: null }, (r) => [r.errorCode]);
});

test('DELETE on the cluster covers every topic, ALTER on it does not (the admin host has no topic ACL on dt-q-x)', async () => {
  if (!kafka) return;
  await same('CreatePartitions with ALTER on the cluster', 'admin', 37, 3, { topics: [{ name: 'dt-q-x', count: 2, assignments: null }], timeoutMs: 30_000, validateOnly: true }, (r) => codes(r.results));
  await same('DeleteTopics with DELETE on the cluster', 'admin', 20, 6, { topics: [{ name: 'dt-q-x', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 30_000 }, (r) => r.responses.map((x: any) => [x.name, x.errorCode]));
  await same('Produce to dt-locked from the admin host (READ only there)', 'admin', 0, 9, await produceBody('dt-locked'), (r) => topicCodes(r, 'responses', 'partitionResponses'));
});

test('DeleteAcls: what each filter matched, then gone', async () => {
  if (!kafka) return;
  const matched = (r: any) => r.filterResults.map((f: any) => [f.errorCode, f.matchingAcls.map((a: any) => `${a.resourceType}:${a.patternType}:${a.resourceName}:${a.host}:${a.operation}:${a.permissionType}`).sort()]);
  const f = (resourceTypeFilter: number, resourceNameFilter: string | null, patternTypeFilter: number, extra: Record<string, unknown> = {}) =>
    ({ resourceTypeFilter, resourceNameFilter, patternTypeFilter, principalFilter: null, hostFilter: null, operation: ANY, permissionType: ANY, ...extra });
  await same('DeleteAcls', 'admin', 31, 3, { filters: [f(TOPIC, 'dt-p-deny', MATCH), f(GROUP, null, ANY, { permissionType: ALLOW })] }, matched);
  await same('DeleteAcls again: nothing left to match', 'admin', 31, 2, { filters: [f(TOPIC, 'dt-p-deny', MATCH)] }, matched);
});

test('every answer agrees', () => {
  if (!kafka) return;
  assert.equal(mismatches, [], `\n${mismatches.join('\n')}`);
});

test.run();
