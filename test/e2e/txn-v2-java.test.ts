/**
 * Transactions V2 (KIP-890 part 2) with the Java client of Apache Kafka 4.4 against Samsa, through
 * txn-v2-java/TxnV2.java. A new cluster finalizes transaction.version 2 (as Kafka 4.4's), so the producer
 * sends Produce v12+ and TxnOffsetCommit v6 (v5's implicit add, topics by id) with no AddPartitionsToTxn / AddOffsetsToTxn, and
 * EndTxn v5, whose answer carries the bumped epoch its next transaction starts at sequence 0 with.
 * A consume-transform-produce loop (sendOffsetsToTransaction, every third transaction aborted and
 * redone) leaves each input exactly once in the output for a read_committed consumer; a producer
 * SIGKILLed inside a transaction is fenced and its records aborted by the next one with its
 * transactional id. Skipped without java.
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { txnV2Java } from './txn-v2-java/run.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';

const N = 60;
let b: RunningBroker;
const missing = javaMissing();
const java = txnV2Java;

test.before(async () => {
  if (missing) return;
  b = await startBroker({ port: 0 });
});

test.after(async () => {
  await b?.stop();
});

test('Java 4.4: consume-transform-produce on transactions V2, exactly once; a killed producer is fenced and aborted', async () => {
  if (missing) {
    console.log(`skipped: ${missing}`);
    return;
  }
  assert.is(b.broker.metadataCache.features.get('transaction.version'), 2);
  for (const name of ['v2-in', 'v2-out']) await b.broker.createTopic({ name, numPartitions: 3, replicationFactor: 1, configs: {} });
  await java(['fill', b.bootstrap, 'v2-in', String(N)]).done;

  const rec = b.control.record({ apiKeys: ['Produce', 'EndTxn', 'AddPartitionsToTxn', 'AddOffsetsToTxn', 'TxnOffsetCommit', 'InitProducerId'] });
  // A producer killed inside a transaction: its records are written, never committed.
  let ready!: () => void;
  const isReady = new Promise<void>((r) => { ready = r; });
  const zombie = java(['hang', b.bootstrap, 'v2-out', 'v2-ctp'], (l) => { if (l.includes('ready')) ready(); });
  await isReady;
  zombie.kill();
  await zombie.done;

  // The next producer with the same transactional id fences it (its open transaction is aborted).
  const out = await java(['ctp', b.bootstrap, 'v2-in', 'v2-out', 'v2-group', 'v2-ctp', String(N)]).done;
  const stats = JSON.parse(out.at(-1)!) as { commits: number; aborts: number; done: number };
  assert.is(stats.done, N);
  assert.ok(stats.commits >= 2 && stats.aborts >= 1, JSON.stringify(stats));
  await b.broker.txnCoordinator.idle();
  rec.stop();

  const read = await java(['read', b.bootstrap, 'v2-out', String(N)]).done;
  const values = (JSON.parse(read.at(-1)!) as { values: string[] }).values;
  assert.equal([...values].sort(), Array.from({ length: N }, (_, i) => `out-v${i}`).sort(), 'each input once, no zombie, no aborted record');

  // V2 on the wire: no AddPartitionsToTxn / AddOffsetsToTxn, EndTxn v5, TxnOffsetCommit v6,
  // transactional Produce at v12 or above.
  const mine = (api: 'Produce' | 'EndTxn' | 'AddPartitionsToTxn' | 'AddOffsetsToTxn' | 'TxnOffsetCommit') => rec.of(api).filter((e) => e.clientId === 'v2-v2-ctp');
  assert.is(mine('AddPartitionsToTxn').length, 0, 'no AddPartitionsToTxn');
  assert.is(mine('AddOffsetsToTxn').length, 0, 'no AddOffsetsToTxn');
  const ends = mine('EndTxn');
  assert.ok(ends.length >= stats.commits + stats.aborts, `EndTxn count ${ends.length}`);
  assert.ok(ends.every((e) => e.apiVersion === 5), 'EndTxn v5');
  assert.ok(mine('TxnOffsetCommit').length > 0 && mine('TxnOffsetCommit').every((e) => e.apiVersion === 6), 'TxnOffsetCommit v6 (topics by id, KIP-1319; V2 as v5)');
  assert.ok(mine('Produce').length > 0 && mine('Produce').every((e) => e.apiVersion >= 12), 'Produce v12+');
  // Each EndTxn answers the next epoch (bumped by one), which the next transaction uses.
  const epochs = ends.map((e) => (e.response as { producerEpoch: number }).producerEpoch);
  for (let i = 1; i < epochs.length; i++) assert.is(epochs[i], epochs[i - 1] + 1, `epochs ${epochs.join(',')}`);
});

test.run();
