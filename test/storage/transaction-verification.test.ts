/**
 * The log's side of transaction verification (KIP-890): the verification guard that turns away a
 * batch opening a transaction when a marker landed while the coordinator was being asked, the
 * skip for a producer whose transaction is already open here, and the V2 marker's epoch check.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ManualClock } from '../../src/clock.js';
import { KafkaApiError } from '../../src/errors.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { buildMarkerBatch } from '../../src/coordinator/txn/txn-coordinator.js';
import { config } from './helpers.js';

const PID = 7000;

function open(): Promise<PartitionLog> {
  return PartitionLog.open({ fs: new MemFs(), dir: '/data/t-0', topic: 't', partition: 0, config: config(), clock: new ManualClock() });
}

function txnBatch(epoch: number, seq: number): Buffer {
  return buildRecordBatch({ producerId: BigInt(PID), producerEpoch: epoch, baseSequence: seq, transactional: true, records: [{ key: null, value: Buffer.from(`v${seq}`), timestamp: 1_700_000_000_000n }] });
}

async function codeOf(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return ErrorCode.NONE;
  } catch (err) {
    assert.instance(err, KafkaApiError);
    return (err as KafkaApiError).errorCode;
  }
}

test('a marker that lands during the verification turns the transaction-opening batch away; a new verification lets it in', async () => {
  const log = await open();
  const guard = log.producerState.startVerification(PID, 0, false);
  // The coordinator answered "in the transaction", but the transaction was aborted meanwhile.
  await log.appendAsLeader(buildMarkerBatch(PID, 0, false, 0, 1), 0, { origin: 'coordinator' });
  assert.is(await codeOf(log.appendAsLeader(txnBatch(0, 0), 0, { verification: guard })), ErrorCode.INVALID_TXN_STATE, 'a stale guard');
  assert.is(log.producerState.hasOngoingTransaction(PID, 0), false, 'no transaction left open');
  assert.is(await codeOf(log.appendAsLeader(txnBatch(0, 0), 0, { verification: null })), ErrorCode.INVALID_TXN_STATE, 'no guard, nothing open');
  const again = log.producerState.startVerification(PID, 0, false);
  assert.is.not(again, guard);
  assert.is(await codeOf(log.appendAsLeader(txnBatch(0, 0), 0, { verification: again })), ErrorCode.NONE);
  assert.ok(log.producerState.hasOngoingTransaction(PID, 0));
  assert.is(log.producerState.verificationsInProgress, 0, 'the guard is done once the transaction is open');
  // Later batches of the open transaction need no guard.
  assert.is(await codeOf(log.appendAsLeader(txnBatch(0, 1), 0, { verification: null })), ErrorCode.NONE);
  // Without verification (transaction.partition.verification.enable=false) nothing is checked.
  await log.appendAsLeader(buildMarkerBatch(PID, 0, true, 0, 1), 0, { origin: 'coordinator' });
  assert.is(await codeOf(log.appendAsLeader(txnBatch(0, 2), 0)), ErrorCode.NONE);
});

test('a V2 marker must carry an epoch above the producer\'s; a V1 marker may carry the same', async () => {
  const log = await open();
  const guard = log.producerState.startVerification(PID, 3, false);
  await log.appendAsLeader(txnBatch(3, 0), 0, { verification: guard });
  assert.is(await codeOf(log.appendAsLeader(buildMarkerBatch(PID, 3, true, 0, 1), 0, { origin: 'coordinator', markerTransactionVersion: 2 })), ErrorCode.INVALID_PRODUCER_EPOCH, 'V2 at the same epoch');
  assert.ok(log.producerState.hasOngoingTransaction(PID, 3), 'still open');
  assert.is(await codeOf(log.appendAsLeader(buildMarkerBatch(PID, 4, true, 0, 1), 0, { origin: 'coordinator', markerTransactionVersion: 2 })), ErrorCode.NONE, 'V2 bumped');
  assert.is(log.producerState.hasOngoingTransaction(PID, 4), false);
  // The retry of the same V2 marker is refused (the coordinator takes that as written).
  assert.is(await codeOf(log.appendAsLeader(buildMarkerBatch(PID, 4, true, 0, 1), 0, { origin: 'coordinator', markerTransactionVersion: 2 })), ErrorCode.INVALID_PRODUCER_EPOCH);
  // V1: the marker carries the producer's own epoch.
  await log.appendAsLeader(txnBatch(4, 0), 0, { verification: log.producerState.startVerification(PID, 4, false) });
  assert.is(await codeOf(log.appendAsLeader(buildMarkerBatch(PID, 4, false, 0, 1), 0, { origin: 'coordinator' })), ErrorCode.NONE);
});

test.run();
