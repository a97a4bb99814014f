import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'fe', numPartitions: 1, replicationFactor: 1, configs: {} });
  await b.broker.getLog('fe', 0)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }), 0);
  await b.broker.createTopic({ name: 'fe2', numPartitions: 2, replicationFactor: 1, configs: {} });
  for (const p of [0, 1]) await b.broker.getLog('fe2', p)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('y') }] }), 0);
});

function fetchReq(topic: string, partition: number, fetchOffset: bigint) {
  return {
    clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0,
    sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
  };
}

test('an out-of-range fetch answers OFFSET_OUT_OF_RANGE with an empty (not null) record set and -1 offsets', async () => {
  for (const v of [4, 11, 12]) {
    const r = await c.send(1, v, fetchReq('fe', 0, 5n));
    const p = r.responses[0].partitions[0];
    assert.is(p.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE, `v${v}`);
    assert.ok(p.records !== null, `v${v}: librdkafka cannot parse a null record set`);
    assert.is((p.records as Buffer).length, 0);
    assert.equal([p.highWatermark, p.logStartOffset], [-1n, -1n]);
  }
});

test('an unknown topic answers UNKNOWN_TOPIC_OR_PARTITION with an empty record set', async () => {
  const p = (await c.send(1, 11, fetchReq('nope', 0, 0n))).responses[0].partitions[0];
  assert.is(p.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.is((p.records as Buffer).length, 0);
});

/** A Fetch v12 of `fe2` partitions 0, 7 (no such partition) and 1, in a session (`epoch` 0 creates one) or without. */
function mixed(sessionId: number, epoch: number, parts = [0, 7, 1]) {
  const one = fetchReq('fe2', 0, 0n);
  const p = one.topics[0].partitions[0];
  return { ...one, sessionId, sessionEpoch: epoch, topics: [{ ...one.topics[0], partitions: parts.map((partition) => ({ ...p, partition })) }] };
}

const order = (r: { responses: { topic: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }) =>
  r.responses.flatMap((t) => t.partitions.map((p) => `${t.topic}-${p.partitionIndex}:${p.errorCode}`));

test('partitions answered without a read go after the read ones, as Kafka appends its erroneous partitions; a new session keeps that order', async () => {
  const U = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  assert.equal(order(await c.send(1, 12, mixed(0, -1))), ['fe2-0:0', 'fe2-1:0', `fe2-7:${U}`], 'sessionless');
  const full = await c.send(1, 12, mixed(0, 0));
  assert.ok(full.sessionId > 0, 'a session');
  assert.equal(order(full), ['fe2-0:0', 'fe2-1:0', `fe2-7:${U}`], 'the full fetch that makes the session');
  // Epoch 1 names nothing: the session's partitions in its order, the records again (offset 0 kept), the error again.
  assert.equal(order(await c.send(1, 12, mixed(full.sessionId, 1, []))), ['fe2-0:0', 'fe2-1:0', `fe2-7:${U}`], 'the session\'s order');
});

test('a new session puts the partitions it could not read last: one that appears later is read after the others', async () => {
  await b.broker.createTopic({ name: 'fe3', numPartitions: 2, replicationFactor: 1, configs: {} });
  for (const p of [0, 1]) await b.broker.getLog('fe3', p)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('z') }] }), 0);
  const one = fetchReq('fe3', 0, 0n);
  const base = one.topics[0].partitions[0];
  // Partition 0 at its end (nothing to read), 2 (not there yet), 1 from its start.
  const parts = [{ ...base, partition: 0, fetchOffset: 1n }, { ...base, partition: 2 }, { ...base, partition: 1 }];
  const full = await c.send(1, 12, { ...one, sessionEpoch: 0, topics: [{ ...one.topics[0], partitions: parts }] });
  assert.ok(full.sessionId > 0);
  const created = await c.send(37, 3, { topics: [{ name: 'fe3', count: 3, assignments: null }], timeoutMs: 5000, validateOnly: false });
  assert.is(created.results[0].errorCode, ErrorCode.NONE);
  await b.broker.getLog('fe3', 2)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('w') }] }), 0);
  // One byte: only the first partition with data, in the session's order, gets its batch.
  const inc = await c.send(1, 12, { ...one, maxBytes: 1, sessionId: full.sessionId, sessionEpoch: 1, topics: [] });
  const withRecords = inc.responses.flatMap((t) => t.partitions.filter((p) => ((p.records as Buffer | null)?.length ?? 0) > 0).map((p) => p.partitionIndex));
  assert.equal(withRecords, [1], 'the session\'s order is 0, 1, 2 (Kafka builds it from the answer), not the request\'s 0, 2, 1');
});

test.run();
