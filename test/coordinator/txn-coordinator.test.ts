/**
 * The transaction coordinator on a manual clock: the state machine (InitProducerId, AddPartitions,
 * EndTxn and their errors), markers and the LSO of the data partitions, timeouts (abort + fence),
 * zombie fencing, and restart recovery from __transaction_state (a PrepareCommit completes).
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
import { buildRecordBatch, decodeRecordBatches } from '../../src/protocol/records/record.js';

const FENCED = ErrorCode.PRODUCER_FENCED;
const settings = { transactionMaxTimeoutMs: 900000, transactionalIdExpirationMs: 604800000, abortTimedOutIntervalMs: 10000, removeExpiredIntervalMs: 3600000 };

async function setup(fs = new MemFs(), env = new MemoryTxnEnvironment(), clock = new ManualClock()) {
  for (let p = 0; p < 2; p++) {
    if (!env.dataLogs.has(`t-${p}`)) {
      env.dataLogs.set(`t-${p}`, await PartitionLog.open({ fs, dir: `/data/t-${p}`, topic: 't', partition: p, config: { ...defaultLogConfig }, clock }));
    }
  }
  const tc = new TxnCoordinator({ clock, logger: createLogger('silent'), producerIds: new ProducerIdManager(fs, '/data'), env, numPartitions: 3, settings });
  return { fs, env, clock, tc };
}

function data(pid: number, epoch: number, seq: number, v: string): Buffer {
  return buildRecordBatch({ producerId: BigInt(pid), producerEpoch: epoch, baseSequence: seq, transactional: true, records: [{ key: null, value: Buffer.from(v) }] });
}

async function controlTypes(log: PartitionLog): Promise<string[]> {
  const r = await log.read(0, 1 << 20, { minOneMessage: true });
  return r.records.flatMap((b) => decodeRecordBatches(b)).map((b) => (b.isControl ? (b.records[0].key!.readInt16BE(2) === 1 ? 'COMMIT' : 'ABORT') : b.records[0].value!.toString()));
}

test('producer ids: idempotent producers get fresh ids with epoch 0; blocks never repeat after a restart', async () => {
  const fs = new MemFs();
  const a = new ProducerIdManager(fs, '/data');
  const ids = [await a.generate(), await a.generate()];
  const b = new ProducerIdManager(fs, '/data');
  const after = await b.generate();
  assert.ok(after > ids[1], `${after} > ${ids[1]}`);
  const { tc } = await setup();
  const r = await tc.initProducerId(null, 0, null, FENCED);
  assert.equal([r.errorCode, r.producerEpoch], [0, 0]);
});

test('commit: markers on every partition, LSO moves, states Ongoing → PrepareCommit → CompleteCommit', async () => {
  const { env, tc } = await setup();
  const init = await tc.initProducerId('tx-1', 60000, null, FENCED);
  assert.is(init.errorCode, 0);
  assert.is(init.producerEpoch, 0);
  const { producerId: pid } = init;
  assert.is(await tc.endTxn('tx-1', pid, 0, true, FENCED).then((r) => r.errorCode), ErrorCode.INVALID_TXN_STATE); // E1
  assert.is(await tc.addPartitions('tx-1', pid, 0, [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }], FENCED), 0);
  assert.is(await tc.addPartitions('tx-1', pid + 1, 0, [{ topic: 't', partition: 0 }], FENCED), ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.is(await tc.addPartitions('tx-1', pid, 1, [{ topic: 't', partition: 0 }], FENCED), FENCED);
  assert.is((await tc.verifyPartitions('tx-1', pid, 0, [{ topic: 't', partition: 0 }]))[0], 0);
  assert.is((await tc.verifyPartitions('tx-1', pid, 0, [{ topic: 'other', partition: 0 }]))[0], ErrorCode.INVALID_TXN_STATE);
  const l0 = env.dataLogs.get('t-0')!;
  const l1 = env.dataLogs.get('t-1')!;
  await l0.appendAsLeader(data(pid, 0, 0, 'a'), 0);
  await l1.appendAsLeader(data(pid, 0, 0, 'b'), 0);
  assert.is(l0.lastStableOffset, 0);
  assert.equal((await tc.describe(['tx-1']))[0].transactionState, 'Ongoing');
  const end = await tc.endTxn('tx-1', pid, 0, true, FENCED);
  assert.is(end.errorCode, 0);
  await tc.idle();
  assert.equal(await controlTypes(l0), ['a', 'COMMIT']);
  assert.equal(await controlTypes(l1), ['b', 'COMMIT']);
  assert.is(l0.lastStableOffset, 2);
  const d = (await tc.describe(['tx-1', 'nope']));
  assert.is(d[0].transactionState, 'CompleteCommit');
  assert.is(d[1].errorCode, ErrorCode.TRANSACTIONAL_ID_NOT_FOUND);
  assert.is((await tc.endTxn('tx-1', pid, 0, true, FENCED)).errorCode, 0); // E3 retry
  assert.is((await tc.endTxn('tx-1', pid, 0, false, FENCED)).errorCode, ErrorCode.INVALID_TXN_STATE); // E4
  assert.equal((await tc.list([], [], -1)).map((t) => t.transactionState), ['CompleteCommit']);
  await tc.shutdown();
});

test('abort: ABORT markers and the aborted-transaction index', async () => {
  const { env, tc } = await setup();
  const { producerId: pid } = await tc.initProducerId('tx-a', 60000, null, FENCED);
  await tc.addPartitions('tx-a', pid, 0, [{ topic: 't', partition: 0 }], FENCED);
  const l0 = env.dataLogs.get('t-0')!;
  await l0.appendAsLeader(data(pid, 0, 0, 'x'), 0);
  await l0.appendAsLeader(data(pid, 0, 1, 'y'), 0);
  assert.is((await tc.endTxn('tx-a', pid, 0, false, FENCED)).errorCode, 0);
  await tc.idle();
  assert.equal(await controlTypes(l0), ['x', 'y', 'ABORT']);
  assert.equal(await l0.collectAbortedTransactions(0, 3), [{ producerId: pid, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }]);
  await tc.shutdown();
});

test('zombie fencing: InitProducerId on an Ongoing transaction aborts it with a bumped epoch', async () => {
  const { env, tc } = await setup();
  const first = await tc.initProducerId('tx-z', 60000, null, FENCED);
  const pid = first.producerId;
  await tc.addPartitions('tx-z', pid, 0, [{ topic: 't', partition: 0 }], FENCED);
  const l0 = env.dataLogs.get('t-0')!;
  await l0.appendAsLeader(data(pid, 0, 0, 'zombie'), 0);
  const second = await tc.initProducerId('tx-z', 60000, null, FENCED);
  assert.is(second.errorCode, ErrorCode.CONCURRENT_TRANSACTIONS); // IP6
  await tc.idle();
  const third = await tc.initProducerId('tx-z', 60000, null, FENCED);
  assert.is(third.errorCode, 0);
  assert.is(third.producerId, pid);
  assert.is(third.producerEpoch, 2);
  assert.equal(await controlTypes(l0), ['zombie', 'ABORT']);
  // The zombie (epoch 0) is fenced at the coordinator and at the partition.
  assert.is(await tc.addPartitions('tx-z', pid, 0, [{ topic: 't', partition: 0 }], FENCED), FENCED);
  assert.is((await tc.endTxn('tx-z', pid, 0, true, FENCED)).errorCode, FENCED);
  try {
    await l0.appendAsLeader(data(pid, 0, 1, 'late'), 0);
    assert.unreachable('zombie write accepted');
  } catch (err) {
    assert.is((err as { errorCode: number }).errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  }
  // KIP-360: the new producer may bump with its current id/epoch; a stale one is fenced.
  const bumped = await tc.initProducerId('tx-z', 60000, { producerId: pid, epoch: 2 }, FENCED);
  assert.equal([bumped.errorCode, bumped.producerEpoch], [0, 3]);
  const retry = await tc.initProducerId('tx-z', 60000, { producerId: pid, epoch: 2 }, FENCED);
  assert.equal([retry.errorCode, retry.producerEpoch], [0, 3]);
  assert.is((await tc.initProducerId('tx-z', 60000, { producerId: pid, epoch: 0 }, FENCED)).errorCode, FENCED);
  await tc.shutdown();
});

test('timeouts: invalid timeouts refused; an expired transaction is aborted and its producer fenced', async () => {
  const { env, tc, clock } = await setup();
  assert.is((await tc.initProducerId('tx-t', 900001, null, FENCED)).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  assert.is((await tc.initProducerId('tx-t', 0, null, FENCED)).errorCode, ErrorCode.INVALID_TRANSACTION_TIMEOUT);
  assert.is((await tc.initProducerId('', 1000, null, FENCED)).errorCode, ErrorCode.INVALID_REQUEST);
  const { producerId: pid } = await tc.initProducerId('tx-t', 15000, null, FENCED);
  await tc.addPartitions('tx-t', pid, 0, [{ topic: 't', partition: 1 }], FENCED);
  await env.dataLogs.get('t-1')!.appendAsLeader(data(pid, 0, 0, 'slow'), 0);
  clock.advance(10000);
  await tc.idle();
  assert.equal((await tc.describe(['tx-t']))[0].transactionState, 'Ongoing');
  clock.advance(10000);
  await tc.idle();
  const d = (await tc.describe(['tx-t']))[0];
  assert.is(d.transactionState, 'CompleteAbort');
  assert.is(d.producerEpoch, 1);
  assert.equal(await controlTypes(env.dataLogs.get('t-1')!), ['slow', 'ABORT']);
  assert.is(env.dataLogs.get('t-1')!.lastStableOffset, 2);
  assert.is((await tc.endTxn('tx-t', pid, 0, true, FENCED)).errorCode, FENCED);
  await tc.shutdown();
});

test('restart: state is replayed from __transaction_state and a PrepareCommit completes', async () => {
  const { env, fs, clock, tc } = await setup();
  const { producerId: pid } = await tc.initProducerId('tx-r', 60000, null, FENCED);
  await tc.addPartitions('tx-r', pid, 0, [{ topic: 't', partition: 0 }], FENCED);
  await env.dataLogs.get('t-0')!.appendAsLeader(data(pid, 0, 0, 'r'), 0);
  await tc.shutdown();
  // Simulate a crash right after PrepareCommit was written: append it by hand.
  const shard = env.stateLog(partitionForTxnId('tx-r', 3));
  const last = txnRecordSerde.deserialize(shard.records[shard.records.length - 1])!;
  await shard.append([txnRecordSerde.serialize({ transactionalId: 'tx-r', value: { ...last.value!, transactionStatus: 2 } })], clock.now());
  const again = await setup(fs, env, clock);
  await again.tc.startup();
  await again.tc.idle();
  assert.equal(await controlTypes(env.dataLogs.get('t-0')!), ['r', 'COMMIT']);
  const d = (await again.tc.describe(['tx-r']))[0];
  assert.is(d.transactionState, 'CompleteCommit');
  assert.is(d.producerId, BigInt(pid));
  const next = await again.tc.initProducerId('tx-r', 60000, null, FENCED);
  assert.equal([next.producerId, next.producerEpoch], [pid, 1]);
  await again.tc.shutdown();
});

test.run();
