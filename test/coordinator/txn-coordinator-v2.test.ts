/**
 * The transaction coordinator's V2 state machine (KIP-890 part 2) on a manual clock: the implicit
 * add, EndTxn v5 bumping the epoch at every commit and abort (markers with the bumped epoch), its
 * retries, a new producer id when the epoch is exhausted, and the V2 records in
 * __transaction_state (value version 1 with the tagged fields) replayed after a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog, defaultLogConfig } from '../../src/storage/partition-log.js';
import { ProducerIdManager } from '../../src/coordinator/txn/producer-id-manager.js';
import { MemoryTxnEnvironment, TxnCoordinator, partitionForTxnId } from '../../src/coordinator/txn/txn-coordinator.js';
import { txnRecordSerde } from '../../src/coordinator/txn/records.js';
import { answer } from '../../src/coordinator/runtime/runtime.js';
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';

const FENCED = ErrorCode.PRODUCER_FENCED;
const settings = { transactionMaxTimeoutMs: 900000, transactionalIdExpirationMs: 604800000, abortTimedOutIntervalMs: 10000, removeExpiredIntervalMs: 3600000 };
const T0 = [{ topic: 't', partition: 0 }];

async function setup(fs = new MemFs(), env = new MemoryTxnEnvironment(), clock = new ManualClock()) {
  if (!env.dataLogs.has('t-0')) env.dataLogs.set('t-0', await PartitionLog.open({ fs, dir: '/data/t-0', topic: 't', partition: 0, config: { ...defaultLogConfig }, clock }));
  const tc = new TxnCoordinator({ clock, logger: createLogger('silent'), producerIds: new ProducerIdManager(fs, '/data'), env, numPartitions: 3, settings });
  return { fs, env, clock, tc, log: env.dataLogs.get('t-0')! };
}

const data = (pid: number, epoch: number, seq: number, v: string) =>
  buildRecordBatch({ producerId: BigInt(pid), producerEpoch: epoch, baseSequence: seq, transactional: true, records: [{ key: null, value: Buffer.from(v) }] });

/** Each batch of the log as "value@epoch" or "COMMIT@epoch" / "ABORT@epoch". */
async function batches(log: PartitionLog): Promise<string[]> {
  const r = await log.read(0, 1 << 20, { minOneMessage: true });
  return r.records.flatMap((b) => decodeRecordBatches(b)).map((b) => {
    const what = b.isControl ? (b.records[0].key!.readInt16BE(2) === 1 ? 'COMMIT' : 'ABORT') : b.records[0].value!.toString();
    return `${what}@${b.producerEpoch}`;
  });
}

test('V2: implicit add, EndTxn bumps the epoch at every commit and abort, markers carry the bumped epoch, the next transaction uses it from sequence 0', async () => {
  const { tc, log } = await setup();
  const { producerId: pid } = await tc.initProducerId('v2-a', 60000, null, FENCED);
  assert.is(await tc.addPartitions('v2-a', pid, 0, T0, FENCED, true), ErrorCode.NONE);
  await log.appendAsLeader(data(pid, 0, 0, 'a'), 0);
  const c1 = await tc.endTxn('v2-a', pid, 0, true, FENCED, true);
  assert.equal(c1, { errorCode: ErrorCode.NONE, producerId: pid, producerEpoch: 1 });
  await tc.idle();
  // The old epoch is fenced now; the new one starts a transaction (sequence 0 at epoch 1).
  assert.is(await tc.addPartitions('v2-a', pid, 0, T0, FENCED, true), FENCED);
  assert.is(await tc.addPartitions('v2-a', pid, 1, T0, FENCED, true), ErrorCode.NONE);
  await log.appendAsLeader(data(pid, 1, 0, 'b'), 0);
  const a2 = await tc.endTxn('v2-a', pid, 1, false, FENCED, true);
  assert.equal(a2, { errorCode: ErrorCode.NONE, producerId: pid, producerEpoch: 2 });
  await tc.idle();
  assert.equal(await batches(log), ['a@0', 'COMMIT@1', 'b@1', 'ABORT@2']);
  const d = (await tc.describe(['v2-a']))[0];
  assert.equal([d.transactionState, d.producerEpoch], ['CompleteAbort', 2]);
  await tc.shutdown();
});

test('V2 retries: the EndTxn that bumped the epoch, retried, answers NONE with the new epoch; the other decision INVALID_TXN_STATE; while markers are pending CONCURRENT_TRANSACTIONS', async () => {
  const { tc } = await setup();
  const { producerId: pid } = await tc.initProducerId('v2-r', 60000, null, FENCED);
  await tc.addPartitions('v2-r', pid, 0, T0, FENCED, true);
  assert.is((await tc.endTxn('v2-r', pid, 0, true, FENCED, true)).producerEpoch, 1);
  await tc.idle();
  assert.equal(await tc.endTxn('v2-r', pid, 0, true, FENCED, true), { errorCode: ErrorCode.NONE, producerId: pid, producerEpoch: 1 });
  assert.is((await tc.endTxn('v2-r', pid, 0, false, FENCED, true)).errorCode, ErrorCode.INVALID_TXN_STATE);
  // Nothing open at the current epoch: nothing to end.
  assert.is((await tc.endTxn('v2-r', pid, 1, true, FENCED, true)).errorCode, ErrorCode.INVALID_TXN_STATE);
  assert.is((await tc.endTxn('v2-r', pid, 5, true, FENCED, true)).errorCode, FENCED);
  assert.is((await tc.endTxn('v2-r', pid + 1, 1, true, FENCED, true)).errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  await tc.shutdown();
});

test('V2: the bump that exhausts the epoch moves the producer to a new id at epoch 0 (PreviousProducerId kept); a retry answers the new id', async () => {
  const { tc, log } = await setup();
  const { producerId: pid } = await tc.initProducerId('v2-x', 60000, null, FENCED);
  // Put the producer just below exhaustion (Kafka: an epoch of Short.MAX_VALUE - 1 = 32766 is exhausted; its EndTxn bumps to 32767 and rotates the id).
  await tc.runtime.schedule(partitionForTxnId('v2-x', 3), (s) => answer(void (s.txns.get('v2-x')!.producerEpoch = 32766)));
  assert.is(await tc.addPartitions('v2-x', pid, 32766, T0, FENCED, true), ErrorCode.NONE);
  await log.appendAsLeader(data(pid, 32766, 0, 'x'), 0);
  const end = await tc.endTxn('v2-x', pid, 32766, true, FENCED, true);
  assert.is(end.errorCode, ErrorCode.NONE);
  assert.ok(end.producerId !== pid, 'a new producer id');
  assert.is(end.producerEpoch, 0);
  await tc.idle();
  assert.equal(await batches(log), ['x@32766', 'COMMIT@32767']);
  const d = (await tc.describe(['v2-x']))[0];
  assert.equal([d.transactionState, Number(d.producerId), d.producerEpoch], ['CompleteCommit', end.producerId, 0]);
  assert.equal(await tc.endTxn('v2-x', pid, 32766, true, FENCED, true), { errorCode: ErrorCode.NONE, producerId: end.producerId, producerEpoch: 0 });
  assert.is(await tc.addPartitions('v2-x', end.producerId, 0, T0, FENCED, true), ErrorCode.NONE);
  await tc.shutdown();
});

test('V2 records: value version 1 with ClientTransactionVersion 2 and NextProducerId; replayed after a restart; V1 transactions stay version 0', async () => {
  const { env, fs, clock, tc } = await setup();
  const { producerId: pid } = await tc.initProducerId('v2-log', 60000, null, FENCED);
  const { producerId: pid1 } = await tc.initProducerId('v1-log', 60000, null, FENCED);
  await tc.addPartitions('v2-log', pid, 0, T0, FENCED, true);
  await tc.addPartitions('v1-log', pid1, 0, T0, FENCED);
  await tc.endTxn('v2-log', pid, 0, false, FENCED, true);
  await tc.endTxn('v1-log', pid1, 0, false, FENCED);
  await tc.idle();
  const versionsOf = (id: string) => {
    const out: number[] = [];
    for (const s of env.logs.values()) {
      for (const r of s.records) {
        const d = txnRecordSerde.deserialize(r)!;
        if (d.transactionalId === id && r.value) out.push(r.value.readInt16BE(0));
      }
    }
    return out;
  };
  assert.equal(versionsOf('v2-log'), [0, 1, 1, 1]); // InitProducerId, Ongoing, PrepareAbort, CompleteAbort
  assert.equal(versionsOf('v1-log'), [0, 0, 0, 0]);
  await tc.shutdown();
  const again = await setup(fs, env, clock);
  await again.tc.startup();
  const m = await again.tc.lookup('v2-log');
  assert.equal([m!.state, m!.producerEpoch, m!.clientTransactionVersion], [5, 1, 2]);
  assert.equal(await again.tc.endTxn('v2-log', pid, 0, false, FENCED, true), { errorCode: ErrorCode.NONE, producerId: pid, producerEpoch: 1 });
  await again.tc.shutdown();
});

/** Markers wait for `release()` (a cluster whose partitions have not answered yet). */
class HeldMarkers extends MemoryTxnEnvironment {
  release!: () => void;
  private readonly gate = new Promise<void>((r) => { this.release = r; });
  override writeMarkers(...args: Parameters<MemoryTxnEnvironment['writeMarkers']>): ReturnType<MemoryTxnEnvironment['writeMarkers']> {
    return this.gate.then(() => super.writeMarkers(...args));
  }
}

test('while the markers are written every EndTxn is CONCURRENT_TRANSACTIONS (Kafka 4.4: a pending transition first), so the next V2 transaction\'s early abort is retried, not fenced', async () => {
  const env = new HeldMarkers();
  const { tc } = await setup(undefined, env);
  const { producerId: pid } = await tc.initProducerId('v2-held', 60000, null, FENCED);
  assert.is(await tc.addPartitions('v2-held', pid, 0, T0, FENCED, true), ErrorCode.NONE);
  assert.equal(await tc.endTxn('v2-held', pid, 0, true, FENCED, true), { errorCode: ErrorCode.NONE, producerId: pid, producerEpoch: 1 });
  // The producer's next transaction (epoch 1) is aborted before the commit's markers landed.
  assert.is((await tc.endTxn('v2-held', pid, 1, false, FENCED, true)).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS);
  assert.is((await tc.endTxn('v2-held', pid, 0, true, FENCED, true)).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS, 'a retry of the commit too');
  assert.is((await tc.endTxn('v2-held', pid, 1, false, FENCED, false)).errorCode, ErrorCode.CONCURRENT_TRANSACTIONS, 'V1 as well');
  env.release();
  await tc.idle();
  assert.equal(await tc.endTxn('v2-held', pid, 1, false, FENCED, true), { errorCode: ErrorCode.NONE, producerId: pid, producerEpoch: 2 });
  await tc.idle();
  await tc.shutdown();
});

test.run();
