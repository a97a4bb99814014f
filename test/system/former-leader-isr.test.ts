/**
 * Issue 23 item 3: a former leader that led an epoch in which it wrote nothing rejoins the ISR.
 *
 * Three broker processes, replication factor 3, preferred leader 1 of a non-empty, idle partition.
 * Broker 1 restarts (SIGTERM: its leadership moves to B at a new epoch; B records where that epoch
 * starts, at its log end, and writes nothing), catches up, and a preferred election gives the
 * partition back to it at the next epoch. B's leader-epoch cache still ends with the epoch it led,
 * which broker 1 never saw: B must drop that entry when it truncates to its own log end (Kafka's
 * UnifiedLog.truncateTo always truncates the epoch cache), or every fetch diverges again and B
 * never copies another record nor returns to the ISR. The test writes a record after the election
 * and asserts B holds it on disk and is in the ISR after replica.lag.time.max.ms has passed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { baseOffset, batchSize, lastOffsetDelta } from '../../src/protocol/records/record-batch.js';
import type { MetadataResponse } from '../../src/protocol/generated/messages/metadata-response.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`former-leader-isr: etcd is required under CI: ${missing}`);

const LAG_MS = 3000;
const TOPIC = 'idle';
let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: { 'replica.lag.time.max.ms': LAG_MS, 'replica.fetch.backoff.ms': 200, 'auto.leader.rebalance.enable': false },
  });
});

test.after(async () => {
  await c?.cleanup();
});

function partitionOf(m: MetadataResponse) {
  return m.topics.find((t) => t.name === TOPIC)?.partitions[0];
}

/** The last offset + 1 of the batches in the partition's log files on one broker. */
function logEndOnDisk(logDir: string): number {
  const dir = join(logDir, `${TOPIC}-0`);
  const bytes = Buffer.concat(readdirSync(dir).filter((f) => f.endsWith('.log')).sort().map((f) => readFileSync(join(dir, f))));
  let end = 0;
  for (let pos = 0; pos + 61 <= bytes.length; pos += batchSize(bytes, pos)) end = baseOffset(bytes, pos) + lastOffsetDelta(bytes, pos) + 1;
  return end;
}

async function produce(leader: number, values: string[]): Promise<{ errorCode: number; baseOffset: bigint }> {
  const cl = await c!.client(leader);
  const r = await cl.send(0, 9, {
    transactionalId: null, acks: -1, timeoutMs: 10_000,
    topicData: [{ name: TOPIC, topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: values.map((v) => ({ key: null, value: Buffer.from(v) })) }) }] }],
  });
  return r.responses[0].partitionResponses[0];
}

test('the leader of an epoch without writes rejoins the ISR after the preferred leader takes over again', async () => {
  if (!c) return console.log('former-leader-isr: skipped:', missing);
  const admin = await c.client(2);
  const created = await admin.send(19, 7, {
    topics: [{ name: TOPIC, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2, 3] }], configs: [] }],
    timeoutMs: 10_000, validateOnly: false,
  });
  assert.is(created.topics[0].errorCode, ErrorCode.NONE);
  await c.waitForMetadata(1, (m) => partitionOf(m)?.leaderId === 1 && partitionOf(m)?.isrNodes.length === 3, 'idle-0 led by 1, in sync');
  const first = await produce(1, ['a', 'b', 'c']);
  assert.is(first.errorCode, ErrorCode.NONE);

  // The preferred leader restarts; another replica leads an epoch in which nothing is written.
  await c.stop(1);
  const during = await c.waitForMetadata(2, (m) => (partitionOf(m)?.leaderId ?? -1) > 1, 'another leader while 1 is away');
  const former = partitionOf(during)!.leaderId;
  await c.start(1);
  await c.waitForMetadata(former, (m) => partitionOf(m)?.isrNodes.length === 3, 'broker 1 back in sync', 30_000);

  // The preferred leader takes over again.
  const elected = await admin.send(43, 2, { electionType: 0, topicPartitions: [{ topic: TOPIC, partitions: [0] }], timeoutMs: 10_000 });
  assert.is(elected.errorCode, ErrorCode.NONE);
  assert.is(elected.replicaElectionResults[0]?.partitionResult[0]?.errorCode, ErrorCode.NONE, JSON.stringify(elected.replicaElectionResults));
  await c.waitForMetadata(1, (m) => partitionOf(m)?.leaderId === 1, 'broker 1 leads again');

  // A record written now reaches the former leader, which stays in (or comes back to) the ISR.
  let next = await produce(1, ['d']);
  for (const deadline = Date.now() + 10_000; next.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER && Date.now() < deadline;) {
    await new Promise((r) => setTimeout(r, 100));
    next = await produce(1, ['d']);
  }
  assert.is(next.errorCode, ErrorCode.NONE);
  assert.is(next.baseOffset, 3n);
  const deadline = Date.now() + 15_000;
  while (logEndOnDisk(c.broker(former).logDir) < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.is(logEndOnDisk(c.broker(former).logDir), 4, `broker ${former} (leader of the epoch without writes) copies the new record`);
  // Longer than replica.lag.time.max.ms: a stuck follower would have been dropped from the ISR by now.
  await new Promise((r) => setTimeout(r, LAG_MS + 1500));
  const m = await c.waitForMetadata(1, (x) => partitionOf(x)?.isrNodes.length === 3, `broker ${former} in the ISR`, 15_000);
  assert.equal([...partitionOf(m)!.isrNodes].sort(), [1, 2, 3]);
  assert.not.match(c.broker(former).output(), 'replicating from broker 1 failed');
});

test.run();
