/**
 * Exactly-once consume-transform-produce across broker crashes: a loop reads the input from the
 * group's committed offset, writes the transformed records and the new offset in one kafkajs
 * transaction (sendOffsets), and commits. The broker process is SIGKILLed once in the middle of a
 * transaction and once right after a commit, and restarted on the same port and data. The output
 * read with read_committed holds every input record exactly once, in order.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { tmpDir } from '../support/tmp.js';
import { waitFor } from '../support/external.js';
import { WireClient, committedValues, fetchValues } from '../support/txn-wire.js';
import { freePort } from '../support/net.js';
import { spawnBroker, type BrokerProcess } from '../support/broker-process.js';

const { Kafka, logLevel } = kafkajs;
const INPUT = 120;
const STEP = 7;


function startProcess(port: number, dir: string): BrokerProcess {
  return spawnBroker({
    listeners: `PLAINTEXT://127.0.0.1:${port}`,
    'transaction.abort.timed.out.transaction.cleanup.interval.ms': 500,
    'transaction.state.log.num.partitions': 3,
    'offsets.topic.num.partitions': 3,
  }, { KAFKA_LOG_DIRS: dir });
}

test('consume-transform-produce with sendOffsets survives SIGKILL: output exactly once', async () => {
  const dir = tmpDir('samsa-ctp');
  const port = await freePort();
  let proc = startProcess(port, dir.path);
  const restart = async (): Promise<void> => {
    proc.child.kill('SIGKILL');
    await proc.exited;
    proc = startProcess(port, dir.path);
    await waitFor(() => proc.output().includes('Samsa started'), { timeoutMs: 30000, description: 'broker restart' });
  };
  try {
    await waitFor(() => proc.output().includes('Samsa started'), { timeoutMs: 30000, description: 'broker start' });
    const kafka = new Kafka({ clientId: 'ctp', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 5, initialRetryTime: 100 } });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'ctp-in', numPartitions: 1 }, { topic: 'ctp-out', numPartitions: 1 }], waitForLeaders: true });
    const seed = kafka.producer();
    await seed.connect();
    await seed.send({ topic: 'ctp-in', acks: -1, messages: Array.from({ length: INPUT }, (_, i) => ({ value: `rec-${i}` })) });
    await seed.disconnect();
    await admin.disconnect();

    let iteration = 0;
    let done = false;
    let failures = 0;
    while (!done) {
      const producer = kafka.producer({ transactionalId: 'ctp-tx', idempotent: true, maxInFlightRequests: 1, transactionTimeout: 4000 });
      const adm = kafka.admin();
      let c: WireClient | null = null;
      try {
        await producer.connect();
        await adm.connect();
        c = await WireClient.connect(port);
        for (;;) {
          const fetched = await adm.fetchOffsets({ groupId: 'ctp-g', topics: ['ctp-in'] });
          const committed = Math.max(0, Number(fetched[0].partitions[0].offset));
          if (committed >= INPUT) {
            done = true;
            break;
          }
          const input = (await fetchValues(c, 'ctp-in', 1)).values.slice(committed, committed + STEP);
          const txn = await producer.transaction();
          await txn.send({ topic: 'ctp-out', messages: input.map((v) => ({ value: v.toUpperCase() })) });
          await txn.sendOffsets({ consumerGroupId: 'ctp-g', topics: [{ topic: 'ctp-in', partitions: [{ partition: 0, offset: String(committed + input.length) }] }] });
          iteration++;
          if (iteration === 4) await restart(); // dies with the transaction open
          await txn.commit();
          if (iteration === 9) await restart(); // dies right after a commit
        }
      } catch {
        failures++;
        if (failures > 30) throw new Error(`too many failures; broker output:\n${proc.output()}`);
        await new Promise((r) => setTimeout(r, 300));
      } finally {
        c?.close();
        await producer.disconnect().catch(() => undefined);
        await adm.disconnect().catch(() => undefined);
      }
    }
    assert.ok(failures >= 1, 'the crash mid-transaction must have been noticed');
    // Open transactions left by the crashes are aborted (timeout) or completed; wait for a stable LSO.
    const c = await WireClient.connect(port);
    const out = await waitFor(async () => {
      const r = await fetchValues(c, 'ctp-out', 1);
      return r.partition.lastStableOffset === r.partition.highWatermark ? r : null;
    }, { timeoutMs: 20000, description: 'stable output' });
    c.close();
    if (process.env.CTP_DEBUG) console.log(JSON.stringify(out.partition.abortedTransactions, (k, v) => typeof v === "bigint" ? Number(v) : v), out.batches.map((b) => `${b.baseOffset}:${b.producerId}/${b.producerEpoch}${b.isControl ? (b.records[0].key!.readInt16BE(2) ? "C" : "A") : "x" + b.recordsCount}`).join(" "));
    assert.equal(committedValues(out), Array.from({ length: INPUT }, (_, i) => `REC-${i}`));
  } finally {
    proc.child.kill('SIGKILL');
    await proc.exited;
    await dir.cleanup();
  }
});

test.run();
