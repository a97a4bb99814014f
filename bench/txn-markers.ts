/**
 * Transaction markers on a three-broker cluster: the time from EndTxn's answer to the transaction
 * being complete (DescribeTransactions shows CompleteCommit, i.e. every partition has its COMMIT
 * marker in its ISR), for a transaction over --partitions partitions at replication factor 3
 * (min.insync.replicas 2), spread over the three leaders. Median and p90 of --rounds rounds.
 *
 *   npx tsx bench/txn-markers.ts [--partitions 32] [--rounds 30]
 *
 * No assertions: it prints what it measured.
 */
import { startCluster } from '../test/support/cluster.js';
import { KafkaClient } from '../src/cli/client.js';
import { ErrorCode } from '../src/protocol/generated/error-codes.js';
import { median, percentile, sleep } from './lib/proc.js';

function arg(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
}
const partitions = arg('partitions', 32);
const rounds = arg('rounds', 30);

async function retry<T extends { errorCode: number }>(what: string, call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const r = await call();
    if (r.errorCode === ErrorCode.NONE) return r;
    if (Date.now() > deadline) throw new Error(`${what}: error ${r.errorCode}`);
    await sleep(20);
  }
}

const c = await startCluster({
  brokers: 3,
  config: {
    'default.replication.factor': 3, 'min.insync.replicas': 2,
    'transaction.state.log.num.partitions': 3, 'transaction.state.log.replication.factor': 3, 'transaction.state.log.min.isr': 2,
  },
});
try {
  const boot = await c.client(c.brokers[0].nodeId);
  const created = await boot.send(19, 7, { topics: [{ name: 'markers', numPartitions: partitions, replicationFactor: 3, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
  if (created.topics[0].errorCode !== ErrorCode.NONE) throw new Error(`CreateTopics: ${created.topics[0].errorCode}`);
  await c.waitForMetadata(c.brokers[0].nodeId, (m) => m.topics.some((t) => t.name === 'markers' && t.partitions.length === partitions && t.partitions.every((p) => p.leaderId >= 0 && p.isrNodes.length === 3)), 'markers led', 30_000);
  const txnId = 'bench-markers';
  let coord: KafkaClient | null = null;
  const init = await retry('InitProducerId', async () => {
    coord?.close();
    const f = (await boot.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [txnId] })).coordinators[0];
    if (f.errorCode !== ErrorCode.NONE) return { errorCode: f.errorCode, producerId: 0n, producerEpoch: 0 };
    coord = await KafkaClient.connect({ bootstrap: `${f.host}:${f.port}` });
    return coord.send(22, 4, { transactionalId: txnId, transactionTimeoutMs: 60_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
  });
  const tc = coord as unknown as KafkaClient;
  const pid = { producerId: init.producerId, producerEpoch: init.producerEpoch };
  const endTxnMs: number[] = [];
  const completeMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const add = await retry('AddPartitionsToTxn', async () => {
      const res = await tc.send(24, 3, { v3AndBelowTransactionalId: txnId, v3AndBelowProducerId: pid.producerId, v3AndBelowProducerEpoch: pid.producerEpoch, v3AndBelowTopics: [{ name: 'markers', partitions: Array.from({ length: partitions }, (_, i) => i) }], transactions: [] });
      return { errorCode: res.resultsByTopicV3AndBelow[0].resultsByPartition.find((p) => p.partitionErrorCode !== ErrorCode.NONE)?.partitionErrorCode ?? ErrorCode.NONE };
    });
    void add;
    const t0 = performance.now();
    await retry('EndTxn', () => tc.send(26, 3, { transactionalId: txnId, ...pid, committed: true }));
    const t1 = performance.now();
    for (;;) {
      const d = await tc.send(65, 0, { transactionalIds: [txnId] });
      if (d.transactionStates[0].transactionState === 'CompleteCommit') break;
      if (performance.now() - t1 > 60_000) throw new Error('transaction not complete after 60 s');
      await sleep(1);
    }
    endTxnMs.push(t1 - t0);
    completeMs.push(performance.now() - t1);
  }
  const f = (x: number) => x.toFixed(1);
  console.log(`transaction markers, ${partitions} partitions at RF 3 on three brokers, ${rounds} rounds`);
  console.log(`  EndTxn answered:                 median ${f(median(endTxnMs))} ms, p90 ${f(percentile(endTxnMs, 90))} ms`);
  console.log(`  EndTxn answer -> CompleteCommit: median ${f(median(completeMs))} ms, p90 ${f(percentile(completeMs, 90))} ms`);
  tc.close();
} finally {
  await c.cleanup();
}
