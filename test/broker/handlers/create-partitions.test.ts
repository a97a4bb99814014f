import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { CreatePartitionsTopic } from '../../../src/protocol/generated/messages/create-partitions-request.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  for (const name of ['cp-a', 'cp-b', 'cp-c', 'cp-d', 'cp-e', 'cp-dry']) {
    await b.broker.createTopic({ name, numPartitions: 2, replicationFactor: 1, configs: {} });
  }
});

async function grow(topics: CreatePartitionsTopic[], version = 3, validateOnly = false) {
  return (await c.send(37, version, { topics, timeoutMs: 1000, validateOnly })).results;
}

test('increases the partition count and creates the new logs', async () => {
  const [r] = await grow([{ name: 'cp-a', count: 5, assignments: null }]);
  assert.equal(r, { name: 'cp-a', errorCode: ErrorCode.NONE, errorMessage: null });
  assert.is(b.broker.metadataCache.topic('cp-a')!.partitions, 5);
  assert.ok(b.broker.getLog('cp-a', 4));
});

test('CP1-CP3: not an increase, same count, unknown topic (v0 and v2)', async () => {
  const rs = await grow([
    { name: 'cp-b', count: 1, assignments: null },
    { name: 'cp-c', count: 2, assignments: null },
    { name: 'cp-missing', count: 3, assignments: null },
  ], 0);
  assert.equal(rs[0], { name: 'cp-b', errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'The topic cp-b currently has 2 partition(s); 1 would not be an increase.' });
  assert.equal(rs[1], { name: 'cp-c', errorCode: ErrorCode.INVALID_PARTITIONS, errorMessage: 'Topic already has 2 partition(s).' });
  assert.equal(rs[2], { name: 'cp-missing', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null });
  const [v2] = await grow([{ name: 'cp-c', count: 2, assignments: null }], 2);
  assert.is(v2.errorCode, ErrorCode.INVALID_PARTITIONS);
});

test('CP4: assignments must match the partitions added and name this node', async () => {
  const node = b.broker.nodeId;
  const rs = await grow([
    { name: 'cp-d', count: 4, assignments: [{ brokerIds: [node] }] },
    { name: 'cp-e', count: 3, assignments: [{ brokerIds: [node + 7] }] },
  ]);
  assert.equal(rs[0], { name: 'cp-d', errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: 'Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.' });
  assert.equal(rs[1], { name: 'cp-e', errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT, errorMessage: `The manual partition assignment includes broker ${node + 7}, but no such broker is registered.` });
  assert.is(b.broker.metadataCache.topic('cp-d')!.partitions, 2);
  const [ok] = await grow([{ name: 'cp-e', count: 4, assignments: [{ brokerIds: [node] }, { brokerIds: [node] }] }]);
  assert.is(ok.errorCode, ErrorCode.NONE);
  assert.is(b.broker.metadataCache.topic('cp-e')!.partitions, 4);
});

test('CP5: a topic listed twice gets one INVALID_REQUEST "Duplicate topic name."', async () => {
  const rs = await grow([{ name: 'cp-d', count: 3, assignments: null }, { name: 'cp-d', count: 4, assignments: null }]);
  assert.equal(rs, [{ name: 'cp-d', errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Duplicate topic name.' }]);
  assert.is(b.broker.metadataCache.topic('cp-d')!.partitions, 2);
});

test('validate_only runs every check and creates nothing', async () => {
  const [ok] = await grow([{ name: 'cp-dry', count: 6, assignments: null }], 3, true);
  assert.is(ok.errorCode, ErrorCode.NONE);
  assert.is(b.broker.metadataCache.topic('cp-dry')!.partitions, 2);
  assert.is(b.broker.getLog('cp-dry', 5), undefined);
  const [bad] = await grow([{ name: 'cp-dry', count: 1, assignments: null }], 3, true);
  assert.is(bad.errorCode, ErrorCode.INVALID_PARTITIONS);
});

test.run();
