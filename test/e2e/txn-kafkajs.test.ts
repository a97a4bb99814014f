/**
 * kafkajs transactional producer: committed records are visible to read_committed fetches,
 * aborted ones are not (but are to read_uncommitted, with the aborted-transaction list);
 * sendOffsets commits offsets atomically with the output; a second producer with the same
 * transactional.id fences the first.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { WireClient, committedValues, fetchValues } from '../support/txn-wire.js';

const { Kafka, logLevel } = kafkajs;

let b: RunningBroker;

test.before(async () => {
  b = await startBroker({ port: 0 });
});

test.after(async () => {
  await b?.stop();
});

function client(id: string) {
  return new Kafka({ clientId: id, brokers: [b.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 50 } });
}

async function settle(): Promise<void> {
  await b.broker.txnCoordinator.idle();
}

test('commit visible to read_committed, abort only to read_uncommitted', async () => {
  const kafka = client('txn-kj');
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'txn-out', numPartitions: 1 }], waitForLeaders: true });
  await admin.disconnect();

  const producer = kafka.producer({ transactionalId: 'kj-tx', maxInFlightRequests: 1, idempotent: true });
  await producer.connect();
  const t1 = await producer.transaction();
  await t1.send({ topic: 'txn-out', messages: [{ value: 'c1' }, { value: 'c2' }] });

  const c = await WireClient.connect(b.port);
  // While open: read_committed sees nothing, read_uncommitted sees the records.
  assert.equal((await fetchValues(c, 'txn-out', 1)).values, []);
  assert.equal((await fetchValues(c, 'txn-out', 0)).values, ['c1', 'c2']);
  await t1.commit();
  await settle();

  const t2 = await producer.transaction();
  await t2.send({ topic: 'txn-out', messages: [{ value: 'a1' }] });
  await t2.abort();
  await settle();

  const t3 = await producer.transaction();
  await t3.send({ topic: 'txn-out', messages: [{ value: 'c3' }] });
  await t3.commit();
  await settle();
  await producer.disconnect();

  const committed = await fetchValues(c, 'txn-out', 1);
  // The aborted batch comes back too; the client drops it using aborted_transactions (R3).
  assert.equal(committed.partition.abortedTransactions?.length, 1);
  assert.equal(committedValues(committed), ['c1', 'c2', 'c3']);
  const uncommitted = await fetchValues(c, 'txn-out', 0);
  assert.equal(uncommitted.values, ['c1', 'c2', 'a1', 'c3']);
  assert.is(uncommitted.partition.abortedTransactions, null);
  assert.is(uncommitted.partition.lastStableOffset, uncommitted.partition.highWatermark);
  c.close();
});

test('DescribeTransactions, ListTransactions and DescribeProducers over the wire', async () => {
  const c = await WireClient.connect(b.port);
  const d = await c.send(65, 0, { transactionalIds: ['kj-tx', 'missing'] });
  assert.is(d.transactionStates[0].errorCode, 0);
  assert.is(d.transactionStates[0].transactionState, 'CompleteCommit');
  assert.is(d.transactionStates[1].errorCode, 105); // TRANSACTIONAL_ID_NOT_FOUND
  const l = await c.send(66, 1, { stateFilters: ['CompleteCommit', 'Bogus'], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: null });
  assert.equal(l.unknownStateFilters, ['Bogus']);
  assert.ok(l.transactionStates.some((t) => t.transactionalId === 'kj-tx'));
  const p = await c.send(61, 0, { topics: [{ name: 'txn-out', partitionIndexes: [0, 9] }] });
  const part = p.topics[0].partitions;
  assert.is(part[0].errorCode, 0);
  assert.is(part[0].activeProducers.length, 1);
  assert.is(part[0].activeProducers[0].producerId, d.transactionStates[0].producerId);
  assert.is(part[0].activeProducers[0].currentTxnStartOffset, -1n);
  assert.is(part[1].errorCode, 3);
  c.close();
});

test('a second producer with the same transactional.id fences the first', async () => {
  const kafka = client('txn-fence');
  const p1 = kafka.producer({ transactionalId: 'fence-tx', maxInFlightRequests: 1, idempotent: true });
  await p1.connect();
  const t1 = await p1.transaction();
  await t1.send({ topic: 'txn-fence', messages: [{ value: 'zombie' }] });
  const p2 = kafka.producer({ transactionalId: 'fence-tx', maxInFlightRequests: 1, idempotent: true });
  await p2.connect();
  // kafkajs sends InitProducerId(transactional_id) when the transaction begins: that fences p1.
  const t2 = await p2.transaction();
  let fenced: unknown = null;
  try {
    await t1.commit();
  } catch (err) {
    fenced = err;
  }
  assert.ok(fenced, 'the zombie commit must fail');
  assert.match(String((fenced as Error).name ?? fenced) + String((fenced as Error).message), /fenc|epoch|PRODUCER/i);
  await t2.send({ topic: 'txn-fence', messages: [{ value: 'live' }] });
  await t2.commit();
  await settle();
  await p2.disconnect();
  await p1.disconnect().catch(() => undefined);
  const c = await WireClient.connect(b.port);
  const r = await fetchValues(c, 'txn-fence', 1);
  assert.equal(committedValues(r), ['live']);
  c.close();
});

test('sendOffsets: offsets are committed with the transaction, not before', async () => {
  const kafka = client('txn-offsets');
  const producer = kafka.producer({ transactionalId: 'ctp-tx', maxInFlightRequests: 1, idempotent: true });
  await producer.connect();
  const admin = kafka.admin();
  await admin.connect();
  const t = await producer.transaction();
  await t.send({ topic: 'ctp-out', messages: [{ value: 'o1' }] });
  await t.sendOffsets({ consumerGroupId: 'ctp-group', topics: [{ topic: 'ctp-out', partitions: [{ partition: 0, offset: '42' }] }] });
  const before = await admin.fetchOffsets({ groupId: 'ctp-group', topics: ['ctp-out'] });
  assert.is(before[0].partitions[0].offset, '-1', 'pending offsets are invisible');
  await t.commit();
  await settle();
  const after = await admin.fetchOffsets({ groupId: 'ctp-group', topics: ['ctp-out'] });
  assert.is(after[0].partitions[0].offset, '42');
  const t2 = await producer.transaction();
  await t2.sendOffsets({ consumerGroupId: 'ctp-group', topics: [{ topic: 'ctp-out', partitions: [{ partition: 0, offset: '99' }] }] });
  await t2.abort();
  await settle();
  const stillAfter = await admin.fetchOffsets({ groupId: 'ctp-group', topics: ['ctp-out'] });
  assert.is(stillAfter[0].partitions[0].offset, '42', 'aborted offsets are dropped');
  await admin.disconnect();
  await producer.disconnect();
});

test.run();
