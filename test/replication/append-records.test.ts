/**
 * The transaction checks of the produce path (replication/append-records.ts, Kafka's
 * ReplicaManager with transaction verification): the coordinator is asked only for the batch that
 * opens the producer's transaction in the partition, its refusal reaches the client as Kafka's
 * code for the request version, and an abort that lands while the coordinator answers turns the
 * batch away instead of leaving a transaction open that nobody ends.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ManualClock } from '../../src/clock.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { buildMarkerBatch } from '../../src/coordinator/txn/txn-coordinator.js';
import { appendToPartition, type AppendEnv, type AppendParams } from '../../src/replication/append-records.js';
import { config } from '../storage/helpers.js';

const PID = 9100;
const TOPIC = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: 1 } as never;

async function setup() {
  const log = await PartitionLog.open({ fs: new MemFs(), dir: '/data/t-0', topic: 't', partition: 0, config: config(), clock: new ManualClock() });
  const partition = { isLeader: true, log, leaderEpoch: 0, isr: [1], minInsyncReplicas: 1 };
  const env: AppendEnv = { logger: { error() {}, warn() {}, info() {}, debug() {} } as never, getPartition: () => partition as never, hooks: () => undefined };
  const asked: number[] = [];
  let answer: () => Promise<number> = async () => ErrorCode.NONE;
  const params = (apiVersion: number): AppendParams => ({
    acks: 1, timeoutMs: 1000, apiVersion, durable: false, transactionV2: apiVersion >= 12,
    verify: async (_topic, _partition, _pid, epoch) => (asked.push(epoch), answer()),
  });
  const produce = (apiVersion: number, epoch: number, seq: number) => appendToPartition(env, params(apiVersion), {
    topic: TOPIC, partition: 0,
    records: buildRecordBatch({ producerId: BigInt(PID), producerEpoch: epoch, baseSequence: seq, transactional: true, records: [{ key: null, value: Buffer.from(`s${seq}`), timestamp: 1_700_000_000_000n }] }),
  }, []);
  return { log, asked, produce, setAnswer: (f: () => Promise<number>) => { answer = f; } };
}

test('the coordinator is asked once per transaction and partition: not for batches of a transaction already open here', async () => {
  const s = await setup();
  assert.is((await s.produce(12, 0, 0)).errorCode, ErrorCode.NONE);
  assert.is((await s.produce(12, 0, 1)).errorCode, ErrorCode.NONE);
  assert.is((await s.produce(12, 0, 2)).errorCode, ErrorCode.NONE);
  assert.equal(s.asked, [0], 'one question for three batches');
  // The transaction ends (V2: the marker bumps the epoch); the next one is asked about again.
  await s.log.appendAsLeader(buildMarkerBatch(PID, 1, true, 0, 1), 0, { origin: 'coordinator', markerTransactionVersion: 2 });
  assert.is((await s.produce(12, 1, 0)).errorCode, ErrorCode.NONE);
  assert.equal(s.asked, [0, 1]);
});

test('not in the transaction: TRANSACTION_ABORTABLE from Produce v11, INVALID_TXN_STATE before; nothing written', async () => {
  const s = await setup();
  s.setAnswer(async () => ErrorCode.INVALID_TXN_STATE);
  assert.is((await s.produce(11, 0, 0)).errorCode, ErrorCode.TRANSACTION_ABORTABLE);
  const old = await s.produce(10, 0, 0);
  assert.equal([old.errorCode, old.errorMessage], [ErrorCode.INVALID_TXN_STATE, 'Partition was not added to the transaction']);
  assert.is(s.log.logEndOffset, 0);
});

test('an abort that lands while the coordinator answers turns the batch away; the producer\'s next try is asked again', async () => {
  const s = await setup();
  // The coordinator says yes, but the transaction times out and its ABORT marker lands first.
  s.setAnswer(async () => {
    await s.log.appendAsLeader(buildMarkerBatch(PID, 0, false, 0, 1), 0, { origin: 'coordinator' });
    return ErrorCode.NONE;
  });
  assert.is((await s.produce(11, 0, 0)).errorCode, ErrorCode.TRANSACTION_ABORTABLE);
  assert.is(s.log.producerState.hasOngoingTransaction(PID, 0), false, 'no transaction left open');
  assert.is(s.log.logEndOffset, 1, 'only the marker');
  s.setAnswer(async () => ErrorCode.NONE);
  assert.is((await s.produce(11, 0, 0)).errorCode, ErrorCode.NONE);
  assert.equal(s.asked, [0, 0]);
});

test('V2: the previous transaction\'s marker (at the bumped epoch) landing while the next one is added does not turn its first batch away', async () => {
  const s = await setup();
  assert.is((await s.produce(12, 0, 0)).errorCode, ErrorCode.NONE);
  // EndTxn v5 answered epoch 1; the producer's next transaction starts before the marker lands.
  s.setAnswer(async () => {
    await s.log.appendAsLeader(buildMarkerBatch(PID, 1, true, 0, 1), 0, { origin: 'coordinator', markerTransactionVersion: 2 });
    return ErrorCode.NONE;
  });
  assert.is((await s.produce(12, 1, 0)).errorCode, ErrorCode.NONE);
  assert.ok(s.log.producerState.hasOngoingTransaction(PID, 1));
});

test.run();
