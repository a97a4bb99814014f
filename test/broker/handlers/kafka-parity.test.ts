/**
 * Answers fixed after the protocol probes (compat-tests/probes.test.ts) compared Samsa with a
 * real Kafka 4.4 broker, checked here without Kafka: each test names the probe(s) whose
 * difference it pins down, with Kafka's observed answer as the expectation.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import type { ApiTypes } from '../../../src/protocol/generated/api-table.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { fill } from '../../../compat-tests/probes/fill.js';
import { apiCodecs } from '../../../src/protocol/generated/api-table.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0, config: { 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 1000 } }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'kp', numPartitions: 2, replicationFactor: 1, configs: {} });
  const records = [0, 1].map((i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) }));
  await b.broker.getLog('kp', 0)!.appendAsLeader(buildRecordBatch({ records }), 0);
});

/** A request with the spec defaults filled in (compat-tests/probes/fill.ts). */
function send<K extends keyof ApiTypes>(apiKey: K, version: number, body: Record<string, unknown>): Promise<any> {
  return c.send(apiKey, version, fill(`${apiCodecs[apiKey].name}Request`, version, body) as never);
}

test('Metadata: a name asked twice is one entry; unknown internal names are is_internal; operations when asked (metadata/v12-duplicate-names, v4-internal-topic, v8-authorized-operations)', async () => {
  const twice = await send(3, 12, { topics: [{ name: 'kp' }, { name: 'kp' }] });
  assert.is(twice.topics.length, 1);
  const internal = await send(3, 4, { topics: [{ name: '__transaction_state' }], allowAutoTopicCreation: false });
  assert.equal([internal.topics[0].errorCode, internal.topics[0].isInternal], [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, true]);
  const ops = await send(3, 8, { topics: [{ name: 'kp' }], includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true });
  assert.equal([ops.topics[0].topicAuthorizedOperations, ops.clusterAuthorizedOperations], [3576, 8096]);
  // v10-11 with a null name: Kafka's whole-request error shape (metadata/v10-null-name)
  const bad = await send(3, 10, { topics: [{ name: null, topicId: 'AAAAAAAAAAAAAAAAAAAAAQ' }] });
  assert.equal([bad.brokers.length, bad.clusterId, bad.controllerId, bad.topics[0].errorCode, bad.topics[0].name], [0, null, -1, ErrorCode.INVALID_REQUEST, '']);
});

test('ApiVersions v3 with a software name outside Kafka\'s pattern: INVALID_REQUEST, no APIs (api-versions/v3-invalid-software-name)', async () => {
  const r = await send(18, 3, { clientSoftwareName: 'bad name!', clientSoftwareVersion: '1.0' });
  assert.equal([r.errorCode, r.apiKeys.length], [ErrorCode.INVALID_REQUEST, 0]);
  const ok = await send(18, 3, { clientSoftwareName: 'platformatic-kafka', clientSoftwareVersion: '1.35.0' });
  assert.ok(ok.errorCode === ErrorCode.NONE && ok.apiKeys.some((a: any) => a.apiKey === 17) && ok.apiKeys.some((a: any) => a.apiKey === 36));
});

test('SaslHandshake / SaslAuthenticate on a PLAINTEXT listener: ILLEGAL_SASL_STATE (hostile/sasl-*)', async () => {
  const h = await send(17, 1, { mechanism: 'PLAIN' });
  assert.equal([h.errorCode, h.mechanisms], [ErrorCode.ILLEGAL_SASL_STATE, []]);
  const a = await send(36, 2, { authBytes: Buffer.alloc(0) });
  assert.is(a.errorCode, ErrorCode.ILLEGAL_SASL_STATE);
  assert.type(a.errorMessage, 'string');
});

test('Fetch: last_fetched_epoch past the log end answers a diverging epoch at once (capture kafka-python Fetch-v12-2/3)', async () => {
  const fetch = (fetchOffset: number, lastFetchedEpoch: number) => send(1, 12, {
    maxWaitMs: 5000, minBytes: 1, maxBytes: 1 << 20,
    topics: [{ topic: 'kp', partitions: [{ partition: 0, fetchOffset, lastFetchedEpoch, partitionMaxBytes: 1 << 20 }] }],
  });
  const t0 = Date.now();
  const p = (await fetch(5, 0)).responses[0].partitions[0];
  assert.ok(Date.now() - t0 < 4000, 'not held for max_wait_ms');
  assert.equal([p.errorCode, p.divergingEpoch, p.highWatermark], [ErrorCode.NONE, { epoch: 0, endOffset: 2n }, 2n]);
  // within the epoch: an ordinary read
  const ok = (await fetch(0, 0)).responses[0].partitions[0];
  assert.equal([ok.errorCode, ok.divergingEpoch], [ErrorCode.NONE, null]);
  // unknown topic entries carry aborted_transactions [] (fetch/v12-unknown-topic)
  const unknown = await send(1, 12, { maxWaitMs: 0, minBytes: 1, topics: [{ topic: 'kp-missing', partitions: [{ partition: 0, partitionMaxBytes: 100 }] }] });
  assert.equal(unknown.responses[0].partitions[0].abortedTransactions, []);
  // negative partition_max_bytes where there is data (fetch/v12-negative-partition-max-bytes)
  const neg = await send(1, 12, { maxWaitMs: 0, minBytes: 1, topics: [{ topic: 'kp', partitions: [{ partition: 0, partitionMaxBytes: -1 }] }] });
  assert.is(neg.responses[0].partitions[0].errorCode, ErrorCode.UNKNOWN_SERVER_ERROR);
});

test('ListOffsets: a partition listed twice is one INVALID_REQUEST entry; DeleteRecords refuses an existing internal topic (list-offsets/v9-duplicate-partition, delete-records/v2-internal)', async () => {
  const lo = await send(2, 9, { replicaId: -1, topics: [{ name: 'kp', partitions: [{ partitionIndex: 0, timestamp: -1 }, { partitionIndex: 0, timestamp: -2 }] }] });
  assert.equal(lo.topics[0].partitions.map((p: any) => p.errorCode), [ErrorCode.INVALID_REQUEST]);
  // The probe's __consumer_offsets existed on Kafka; a commit makes it exist here. Kafka's handler
  // answers a partition missing from its metadata before its replica manager looks at the name.
  await send(8, 8, { groupId: 'kp-dr', generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'kp', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }] });
  const dr = await send(21, 2, { topics: [{ name: '__consumer_offsets', partitions: [{ partitionIndex: 0, offset: 0 }] }, { name: '__transaction_state', partitions: [{ partitionIndex: 0, offset: 0 }] }], timeoutMs: 1000 });
  assert.equal(dr.topics.map((t: any) => t.partitions[0].errorCode), [ErrorCode.INVALID_TOPIC_EXCEPTION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
});

test('FindCoordinator messages as Kafka 4.4 sends them (find-coordinator/*)', async () => {
  assert.is((await send(10, 3, { key: 'g', keyType: 0 })).errorMessage, 'NONE');
  assert.is((await send(10, 4, { keyType: 0, coordinatorKeys: ['g'] })).coordinators[0].errorMessage, '');
  const share = (await send(10, 6, { keyType: 2, coordinatorKeys: ['g:t:0'] })).coordinators[0];
  assert.equal([share.errorCode, share.errorMessage], [ErrorCode.INVALID_REQUEST, '']);
});

test('Group id "" is an ordinary group for OffsetCommit, OffsetFetch, DescribeGroups, DeleteGroups (offset-commit/v8-empty-group-id ...)', async () => {
  const commit = await send(8, 8, { groupId: '', generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: 'kp', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }] });
  assert.is(commit.topics[0].partitions[0].errorCode, ErrorCode.NONE);
  const fetched = await send(9, 8, { groups: [{ groupId: '', topics: null }] });
  assert.equal(fetched.groups[0].topics[0].partitions[0].committedOffset, 1n);
  const described = await send(15, 5, { groups: [''], includeAuthorizedOperations: true });
  assert.equal([described.groups[0].errorCode, described.groups[0].groupState, described.groups[0].authorizedOperations], [ErrorCode.NONE, 'Empty', 3400]);
  const deleted = await send(42, 2, { groupsNames: [''] });
  assert.is(deleted.results[0].errorCode, ErrorCode.NONE);
});

test('JoinGroup v0 and v1 are served (join-group/v0-refused, v1-refused: Kafka 4.4 serves them)', async () => {
  for (const v of [0, 1]) {
    const r = await send(11, v, { groupId: `kp-join-v${v}`, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] });
    assert.equal([r.errorCode, r.generationId, r.protocolName], [ErrorCode.NONE, 1, 'range'], `v${v}`);
    assert.is(r.leader, r.memberId);
  }
});

test('Transactions: internal topics in AddPartitionsToTxn, TxnOffsetCommit group checks, DescribeTransactions "" and defaults, ListTransactions duration (add-partitions-to-txn/v3-internal-topic, txn-offset-commit/v3-*, describe-transactions/*, list-transactions/v1-duration-filter, offset-fetch/require-stable-pending-txn-*)', async () => {
  const txn = 'kp-txn';
  let init: any;
  for (let i = 0; i < 50; i++) {
    init = await send(22, 4, { transactionalId: txn, transactionTimeoutMs: 60_000 });
    if (init.errorCode === ErrorCode.NONE) break;
  }
  assert.is(init.errorCode, ErrorCode.NONE);
  const pid = { producerId: init.producerId, producerEpoch: init.producerEpoch };
  const internal = await send(24, 3, { v3AndBelowTransactionalId: txn, v3AndBelowProducerId: pid.producerId, v3AndBelowProducerEpoch: pid.producerEpoch, v3AndBelowTopics: [{ name: '__consumer_offsets', partitions: [0] }, { name: 'kp', partitions: [0] }] });
  const codes = Object.fromEntries(internal.resultsByTopicV3AndBelow.map((t: any) => [t.name, t.resultsByPartition[0].partitionErrorCode]));
  assert.equal(codes, { __consumer_offsets: ErrorCode.TOPIC_AUTHORIZATION_FAILED, kp: ErrorCode.OPERATION_NOT_ATTEMPTED });

  const ao = await send(25, 3, { transactionalId: txn, ...pid, groupId: 'kp-txn-group' });
  assert.is(ao.errorCode, ErrorCode.NONE);
  const toc = (o: Record<string, unknown>) => send(28, 3, { transactionalId: txn, groupId: 'kp-txn-group', ...pid, topics: [{ name: 'kp', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }], ...o });
  assert.is((await toc({ generationIdOrMemberEpoch: 2, memberId: 'm' })).topics[0].partitions[0].errorCode, ErrorCode.ILLEGAL_GENERATION, 'no such group, generation >= 0 (TO3)');
  assert.is((await toc({ generationIdOrMemberEpoch: -1, memberId: '' })).topics[0].partitions[0].errorCode, ErrorCode.NONE, 'generation -1 without member (TO3)');
  // That commit is pending until EndTxn: require_stable reports it (OF4), otherwise it is unseen.
  const stable = await send(9, 7, { groupId: 'kp-txn-group', topics: [{ name: 'kp', partitionIndexes: [0, 1] }], requireStable: true });
  assert.equal(stable.topics[0].partitions.map((p: any) => [p.partitionIndex, p.errorCode, p.committedOffset]), [[0, ErrorCode.UNSTABLE_OFFSET_COMMIT, -1n], [1, ErrorCode.NONE, -1n]]);
  const plain = await send(9, 7, { groupId: 'kp-txn-group', topics: [{ name: 'kp', partitionIndexes: [0] }], requireStable: false });
  assert.equal([plain.topics[0].partitions[0].errorCode, plain.topics[0].partitions[0].committedOffset], [ErrorCode.NONE, -1n]);

  const d = await send(65, 0, { transactionalIds: ['', 'kp-txn-missing'] });
  assert.equal(d.transactionStates.map((s: any) => [s.errorCode, s.producerId, s.producerEpoch, s.transactionStartTimeMs]), [
    [ErrorCode.INVALID_REQUEST, 0n, 0, 0n],
    [ErrorCode.TRANSACTIONAL_ID_NOT_FOUND, 0n, 0, 0n],
  ]);
  // An Ongoing transaction started a moment ago is filtered out by a one-hour duration; a
  // transactional id without a start time (Empty) passes, as in Kafka.
  const empty = 'kp-txn-empty';
  for (let i = 0; i < 50; i++) if ((await send(22, 4, { transactionalId: empty, transactionTimeoutMs: 60_000 })).errorCode === ErrorCode.NONE) break;
  const l = await send(66, 1, { durationFilter: 3_600_000 });
  const ids = l.transactionStates.map((s: any) => s.transactionalId);
  assert.ok(ids.includes(empty) && !ids.includes(txn), JSON.stringify(ids));
});

test.run();
