/**
 * The follower side of replication throttles (replica-fetcher.ts), against a fake leader: while
 * the follower quota is exceeded, a lagging partition listed as throttled is left out of the
 * fetch request and an unlisted one keeps being fetched; the bytes copied for the throttled
 * partition fill the quota; without a rate nothing is left out.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ReplicaFetcherManager } from '../../src/replication/replica-fetcher.js';
import { ReplicationQuota } from '../../src/replication/replication-quota.js';
import type { BrokerClientPool } from '../../src/replication/broker-client.js';
import type { Partition } from '../../src/replication/partition.js';
import { batch, config } from '../storage/helpers.js';

const VALUE_BYTES = 20_000;

async function follower(fs: MemFs, clock: ManualClock, index: number): Promise<Partition> {
  const log = await PartitionLog.open({ fs, dir: `/d/t-${index}`, topic: 't', partition: index, config: config(), clock });
  return { topic: 't', partitionIndex: index, topicId: 'tid', log } as unknown as Partition;
}

/** A leader that answers every fetched partition with one batch at its fetch offset (HW far ahead). */
function fakeLeader() {
  const fetched: number[][] = [];
  const client = {
    async send(apiKey: number, _v: number, body: any): Promise<any> {
      await new Promise((r) => setTimeout(r, 5));
      if (apiKey === 23) {
        return { throttleTimeMs: 0, topics: body.topics.map((t: any) => ({ topic: t.topic, partitions: t.partitions.map((p: any) => ({ errorCode: 0, partition: p.partition, leaderEpoch: -1, endOffset: -1n })) })) };
      }
      if (apiKey !== 1) throw new Error(`unexpected api ${apiKey}`);
      fetched.push(body.topics.flatMap((t: any) => t.partitions.map((p: any) => p.partition)));
      return {
        throttleTimeMs: 0, errorCode: 0, sessionId: 0, nodeEndpoints: [],
        responses: body.topics.map((t: any) => ({
          topic: '', topicId: t.topicId,
          partitions: t.partitions.map((p: any) => {
            const records = batch(1, { valueBytes: VALUE_BYTES });
            records.writeBigInt64BE(BigInt(p.fetchOffset), 0);
            return {
              partitionIndex: p.partition, errorCode: 0, highWatermark: 1000n, lastStableOffset: 1000n, logStartOffset: 0n,
              divergingEpoch: null, currentLeader: null, snapshotId: null, abortedTransactions: null, preferredReadReplica: -1, records,
            };
          }),
        })),
      };
    },
  };
  return { fetched, pool: { get: () => client } as unknown as BrokerClientPool };
}

async function run(quota: ReplicationQuota, rounds: number): Promise<{ fetched: number[][]; logEnds: number[] }> {
  const clock = new ManualClock();
  const fs = new MemFs({ now: () => clock.now() });
  const parts = [await follower(fs, clock, 0), await follower(fs, clock, 1)];
  const leader = fakeLeader();
  const manager = new ReplicaFetcherManager(leader.pool, {
    nodeId: 2, brokerEpoch: () => 1, clusterId: null, maxWaitMs: 10, minBytes: 1, maxBytes: 1 << 20, partitionMaxBytes: 1 << 20, backoffMs: 50,
    throttle: { quota, isThrottled: (_topic, partition) => partition === 0 },
  }, createLogger('silent'));
  for (const p of parts) manager.addPartition(p, 1, 0);
  const deadline = Date.now() + 10_000;
  while (leader.fetched.length < rounds && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await manager.stop();
  return { fetched: leader.fetched.slice(0, rounds), logEnds: parts.map((p) => p.log.logEndOffset) };
}

test('a throttled lagging partition leaves the fetch while the follower rate is exceeded; the other stays', async () => {
  const clock = new ManualClock();
  const quota = new ReplicationQuota(11, 1000, clock);
  // 10 s of padded window at 1000 B/s: one 20 KB batch of the throttled partition exceeds it.
  quota.updateQuota(1000);
  const { fetched } = await run(quota, 6);
  assert.equal(fetched[0], [0, 1], 'nothing recorded yet: both fetched');
  for (const f of fetched.slice(1)) assert.equal(f, [1], 'then only the unthrottled partition');
  assert.ok(quota.measure() * 10 >= VALUE_BYTES, 'the throttled partition\'s bytes were recorded');
  assert.ok(quota.measure() * 10 < 2 * (VALUE_BYTES + 100), 'only the throttled partition\'s bytes');
});

test('without a rate every partition is fetched every time', async () => {
  const quota = new ReplicationQuota(11, 1000, new ManualClock());
  const { fetched } = await run(quota, 4);
  for (const f of fetched) assert.equal(f, [0, 1]);
});

test.run();
