/**
 * Transactions across brokers (KIP-890) on three brokers whose internal topics have one replica,
 * so a transactional id's coordinator and the leaders of its partitions are mostly different
 * brokers: partition leaders ask the coordinator with AddPartitionsToTxn v5.
 *
 * - Raw AddPartitionsToTxn v5 (the broker form) at the coordinator: VerifyOnly on a partition not
 *   in the transaction is TRANSACTION_ABORTABLE; without VerifyOnly the partition is added (V2).
 * - Produce v11 of a transactional batch to a partition whose leader is not the coordinator and
 *   that was never added: refused (TRANSACTION_ABORTABLE), where an unverified write would leave a
 *   transaction open that nobody ends. Produce v12 adds it (transactions V2, finalized on a new
 *   cluster) and DescribeTransactions lists it.
 * - The Java 4.4 producer's consume-transform-produce on transactions V2 (TxnV2.java): every input
 *   exactly once in the output for a read_committed consumer, aborted transactions included.
 * @samsa-timeout 300
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { txnV2Java } from '../e2e/txn-v2-java/run.js';
import { KafkaClient } from '../../src/cli/client.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing() ?? javaMissing();
if (missing && IN_CI) throw new Error(`transactions V2 on a cluster: ${missing}`);

const CONFIG = {
  'default.replication.factor': 1, 'min.insync.replicas': 1, 'replica.fetch.backoff.ms': 200,
  'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 1,
  'transaction.state.log.num.partitions': 3, 'transaction.state.log.replication.factor': 1, 'transaction.state.log.min.isr': 1,
};
const N = 60;
const PARTITIONS = 6;
let c: TestCluster;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3, config: CONFIG });
});

test.after(async () => {
  await c?.cleanup();
});

/** The coordinator of `txnId` (FindCoordinator, then InitProducerId there); a client to it and the producer. */
async function initProducer(boot: KafkaClient, txnId: string): Promise<{ coord: KafkaClient; nodeId: number; producerId: bigint; producerEpoch: number }> {
  let last = '';
  return until(`InitProducerId ${txnId}`, 30_000, async () => {
    const f = (await boot.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [txnId] })).coordinators[0];
    if (f.errorCode !== ErrorCode.NONE) return (last = `FindCoordinator ${f.errorCode}`), null;
    const coord = await KafkaClient.connect({ bootstrap: `${f.host}:${f.port}` });
    const r = await coord.send(22, 4, { transactionalId: txnId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
    last = `InitProducerId ${r.errorCode}`;
    if (r.errorCode === ErrorCode.NONE) return { coord, nodeId: f.nodeId, producerId: r.producerId, producerEpoch: r.producerEpoch };
    coord.close();
    return null;
  }).catch((err) => { throw new Error(`${(err as Error).message} (last: ${last})`); });
}

/** Leader of each partition of `topic`. */
async function leaders(boot: KafkaClient, topic: string): Promise<Map<number, number>> {
  return until(`leaders of ${topic}`, 20_000, async () => {
    const md = await boot.send(3, 12, { topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    const t = md.topics[0];
    if (t.errorCode !== ErrorCode.NONE || t.partitions.length !== PARTITIONS || t.partitions.some((p) => p.leaderId < 0)) return null;
    return new Map(t.partitions.map((p) => [p.partitionIndex, p.leaderId]));
  });
}

test('AddPartitionsToTxn v5 at the coordinator; Produce to another broker is verified (v11) or adds the partition (v12)', async () => {
  if (missing) return void console.log(`skipped: ${missing}`);
  const boot = await c.client(c.brokers[0].nodeId);
  const v = await boot.send(18, 4, { clientSoftwareName: 'samsa-test', clientSoftwareVersion: '1', clusterId: null, nodeId: -1 });
  assert.equal(v.finalizedFeatures.find((f) => f.name === 'transaction.version')?.maxVersionLevel, 2, 'a new cluster finalizes transaction.version 2');
  await boot.send(19, 7, { topics: [{ name: 'v2c-raw', numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  const lead = await leaders(boot, 'v2c-raw');
  const txnId = 'v2c-raw-txn';
  const { coord, nodeId, producerId, producerEpoch } = await initProducer(boot, txnId);
  try {
    const brokerForm = (verifyOnly: boolean, partitions: number[]) => coord.send(24, 5, {
      transactions: [{ transactionalId: txnId, producerId, producerEpoch, verifyOnly, topics: [{ name: 'v2c-raw', partitions }] }],
      v3AndBelowTransactionalId: '', v3AndBelowProducerId: 0n, v3AndBelowProducerEpoch: 0, v3AndBelowTopics: [],
    });
    const codes = (r: Awaited<ReturnType<typeof brokerForm>>) => r.resultsByTransaction[0].topicResults[0].resultsByPartition.map((p) => p.partitionErrorCode);
    assert.equal(codes(await brokerForm(true, [0])), [ErrorCode.TRANSACTION_ABORTABLE], 'not in the transaction');
    assert.equal(codes(await brokerForm(false, [0])), [ErrorCode.NONE], 'added');
    assert.equal(codes(await brokerForm(true, [0])), [ErrorCode.NONE], 'now in it');

    // Partitions led elsewhere than the coordinator.
    const remote = [...lead].filter(([p, l]) => l !== nodeId && p !== 0).map(([p]) => p);
    assert.ok(remote.length >= 2, `partitions led away from coordinator ${nodeId}: ${JSON.stringify([...lead])}`);
    const produce = async (version: number, partition: number, seq: number) => {
      const leader = await c.client(lead.get(partition)!);
      const records = buildRecordBatch({ producerId, producerEpoch, baseSequence: seq, transactional: true, records: [{ key: null, value: Buffer.from(`p${partition}`), timestamp: BigInt(Date.now()) }] });
      const r = await leader.send(0, version, { transactionalId: txnId, acks: -1, timeoutMs: 10_000, topicData: [{ name: 'v2c-raw', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitionData: [{ index: partition, records }] }] });
      return r.responses[0].partitionResponses[0].errorCode;
    };
    assert.is(await produce(11, remote[0], 0), ErrorCode.TRANSACTION_ABORTABLE, 'v11: verified at the remote coordinator, not in the transaction');
    assert.is(await produce(12, remote[1], 0), ErrorCode.NONE, 'v12: added at the remote coordinator');
    assert.is(await produce(12, remote[1], 1), ErrorCode.NONE, 'a later batch of the transaction open there');
    const d = await coord.send(65, 0, { transactionalIds: [txnId] });
    const listed = d.transactionStates[0].topics.find((t) => t.topic === 'v2c-raw')?.partitions ?? [];
    assert.equal([...listed].sort((a, b) => a - b), [0, remote[1]].sort((a, b) => a - b));
    assert.is(d.transactionStates[0].transactionState, 'Ongoing');
    const end = await until('EndTxn', 20_000, async () => {
      const r = await coord.send(26, 5, { transactionalId: txnId, producerId, producerEpoch, committed: false });
      return r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS ? null : r;
    });
    assert.is(end.errorCode, ErrorCode.NONE);
    assert.is(end.producerEpoch, producerEpoch + 1, 'V2 bumps the epoch');
  } finally {
    coord.close();
  }
});

test('Java 4.4 consume-transform-produce on transactions V2 across three brokers: exactly once', async () => {
  if (missing) return;
  const boot = await c.client(c.brokers[0].nodeId);
  for (const name of ['v2c-in', 'v2c-out']) {
    await boot.send(19, 7, { topics: [{ name, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
    await leaders(boot, name);
  }
  await txnV2Java(['fill', c.bootstrap, 'v2c-in', String(N)]).done;
  const out = await txnV2Java(['ctp', c.bootstrap, 'v2c-in', 'v2c-out', 'v2c-group', 'v2c-ctp', String(N)]).done;
  const stats = JSON.parse(out.at(-1)!) as { commits: number; aborts: number; done: number };
  assert.is(stats.done, N);
  assert.ok(stats.commits >= 2 && stats.aborts >= 1, JSON.stringify(stats));
  const read = await txnV2Java(['read', c.bootstrap, 'v2c-out', String(N)]).done;
  const values = (JSON.parse(read.at(-1)!) as { values: string[] }).values;
  assert.equal([...values].sort(), Array.from({ length: N }, (_, i) => `out-v${i}`).sort(), 'each input once, no aborted record');
});

test.run();
