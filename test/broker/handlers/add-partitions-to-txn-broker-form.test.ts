/**
 * AddPartitionsToTxn v4-5 (the broker form) sent by a client, as @platformatic/kafka does once a
 * broker advertises them: partitions added without VerifyOnly (a transactions V2 add), then
 * EndTxn v4 (V1). The ending request decides the transaction's version, as in Kafka: the markers
 * are V1's, at the producer's epoch, so they land and the transaction completes (an ending with V2
 * markers at the same epoch would be refused by the partitions and leave the transaction open).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { withBroker, type WireClient } from './_admin-wire.js';
import { until } from '../../support/until.js';
import type { RunningBroker } from '../../../src/testing/start-broker.js';

let b!: RunningBroker;
let c!: WireClient;
withBroker(test, { port: 0 }, async (broker, client) => {
  b = broker;
  c = client;
  await b.broker.createTopic({ name: 'bf', numPartitions: 2, replicationFactor: 1, configs: {} });
});

test('added through the broker form, ended by EndTxn v4: V1 markers land, read_committed sees the records', async () => {
  const txnId = 'bf-txn';
  const init = await until('InitProducerId', 10_000, async () => {
    const r = await c.send(22, 5, { transactionalId: txnId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    return r.errorCode === ErrorCode.NONE ? r : null;
  });
  const add = await c.send(24, 5, {
    transactions: [{ transactionalId: txnId, producerId: init.producerId, producerEpoch: init.producerEpoch, verifyOnly: false, topics: [{ name: 'bf', partitions: [0, 1] }] }],
    v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
  });
  assert.equal(add.resultsByTransaction[0].topicResults[0].resultsByPartition.map((p) => p.partitionErrorCode), [ErrorCode.NONE, ErrorCode.NONE]);
  for (const partition of [0, 1]) {
    const records = buildRecordBatch({ producerId: init.producerId, producerEpoch: init.producerEpoch, baseSequence: 0, transactional: true, records: [{ key: null, value: Buffer.from(`v${partition}`), timestamp: BigInt(Date.now()) }] });
    const r = await c.send(0, 11, { transactionalId: txnId, acks: -1, timeoutMs: 5000, topicData: [{ name: 'bf', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: [{ index: partition, records }] }] });
    assert.is(r.responses[0].partitionResponses[0].errorCode, ErrorCode.NONE);
  }
  const end = await c.send(26, 4, { transactionalId: txnId, producerId: init.producerId, producerEpoch: init.producerEpoch, committed: true });
  assert.is(end.errorCode, ErrorCode.NONE);
  await until('CompleteCommit', 10_000, async () => {
    const d = await c.send(65, 0, { transactionalIds: [txnId] });
    return d.transactionStates[0].transactionState === 'CompleteCommit' ? true : null;
  });
  // Both markers landed: the last stable offset reached the high watermark (record + marker).
  const lso = await c.send(2, 7, {
    replicaId: -1, isolationLevel: 1, timeoutMs: 0,
    topics: [{ name: 'bf', partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n })) }],
  });
  assert.equal(lso.topics[0].partitions.map((p) => [p.errorCode, Number(p.offset)]), [[ErrorCode.NONE, 2], [ErrorCode.NONE, 2]]);
});

test.run();
