/**
 * The follower's truncation against a fake leader backed by a real leader log (issue 23 item 3):
 * - a replica that led an epoch without writing in it, following a leader that never had that
 *   epoch, drops the epoch's entry when it truncates to its own log end and then replicates
 *   (before the fix every fetch diverged again, about a thousand requests a second);
 * - a leader that keeps answering a diverging epoch at the same log end is asked again only every
 *   replica.fetch.backoff.ms, not in a tight loop.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ReplicaFetcherManager } from '../../src/replication/replica-fetcher.js';
import type { BrokerClientPool } from '../../src/replication/broker-client.js';
import type { Partition } from '../../src/replication/partition.js';
import { batch, config } from '../storage/helpers.js';

const BACKOFF_MS = 100;

async function openLog(fs: MemFs, clock: ManualClock, dir: string): Promise<PartitionLog> {
  const log = await PartitionLog.open({ fs, dir, topic: 't', partition: 0, config: config(), clock });
  log.setHighWatermarkFollowsLogEnd(false);
  return log;
}

/**
 * A leader answering OffsetForLeaderEpoch and Fetch from `leader` as the broker's handlers do
 * (epoch cache end offsets, Kafka's divergence check); `alwaysDiverge` answers every fetch with
 * a diverging epoch at the fetch offset.
 */
function fakeLeader(leader: PartitionLog, alwaysDiverge = false) {
  const calls = { offsetForLeaderEpoch: 0, fetch: 0, diverging: 0 };
  const client = {
    async send(apiKey: number, _v: number, body: any): Promise<any> {
      await new Promise((r) => setImmediate(r));
      if (apiKey === 23) {
        calls.offsetForLeaderEpoch++;
        return {
          throttleTimeMs: 0,
          topics: body.topics.map((t: any) => ({
            topic: t.topic,
            partitions: t.partitions.map((p: any) => {
              const e = leader.leaderEpochCache.endOffsetFor(p.leaderEpoch, leader.logEndOffset);
              return { errorCode: 0, partition: p.partition, leaderEpoch: e.leaderEpoch, endOffset: BigInt(e.endOffset) };
            }),
          })),
        };
      }
      if (apiKey !== 1) throw new Error(`unexpected api ${apiKey}`);
      calls.fetch++;
      const responses = [];
      for (const t of body.topics) {
        const partitions = [];
        for (const p of t.partitions) {
          const fetchOffset = Number(p.fetchOffset);
          const base = {
            partitionIndex: p.partition, errorCode: 0, highWatermark: BigInt(leader.highWatermark), lastStableOffset: BigInt(leader.highWatermark),
            logStartOffset: BigInt(leader.logStartOffset), divergingEpoch: null as null | { epoch: number; endOffset: bigint },
            currentLeader: null, snapshotId: null, abortedTransactions: null, preferredReadReplica: -1, records: null as Buffer[] | null,
          };
          const e = leader.leaderEpochCache.endOffsetFor(p.lastFetchedEpoch, leader.logEndOffset);
          if (alwaysDiverge || (p.lastFetchedEpoch >= 0 && (e.leaderEpoch < p.lastFetchedEpoch || e.endOffset < fetchOffset))) {
            calls.diverging++;
            partitions.push({ ...base, divergingEpoch: alwaysDiverge ? { epoch: 0, endOffset: BigInt(fetchOffset) } : { epoch: e.leaderEpoch, endOffset: BigInt(e.endOffset) } });
            continue;
          }
          const r = await leader.read(fetchOffset, 1 << 20, { minOneMessage: true, maxOffset: leader.logEndOffset });
          partitions.push({ ...base, records: r.records.map((b) => Buffer.from(b)) });
        }
        responses.push({ topic: '', topicId: t.topicId, partitions });
      }
      return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, nodeEndpoints: [], responses };
    },
  };
  return { calls, pool: { get: () => client } as unknown as BrokerClientPool };
}

function manager(pool: BrokerClientPool): ReplicaFetcherManager {
  return new ReplicaFetcherManager(pool, {
    nodeId: 2, brokerEpoch: () => 1, clusterId: null, maxWaitMs: 10, minBytes: 1, maxBytes: 1 << 20, partitionMaxBytes: 1 << 20, backoffMs: BACKOFF_MS,
  }, createLogger('silent'));
}

const epochs = (log: PartitionLog) => log.leaderEpochCache.all.map((e) => [e.epoch, e.startOffset]);

test('a replica that led an epoch without writes drops it at its log end and replicates from the new leader', async () => {
  const clock = new ManualClock();
  const fs = new MemFs({ now: () => clock.now() });
  const leader = await openLog(fs, clock, '/leader/t-0');
  const follower = await openLog(fs, clock, '/follower/t-0');
  // Epoch 0: three records, copied by the (future) follower.
  await leader.appendAsLeader(batch(3), 0);
  await follower.appendAsFollower(Buffer.concat((await leader.read(0, 1 << 20, { minOneMessage: true })).records));
  // The follower led epoch 1 while the leader was away, and wrote nothing.
  await follower.assignEpochStartOffset(1, 3);
  // The leader leads epoch 2 and writes one record.
  await leader.assignEpochStartOffset(2, 3);
  await leader.appendAsLeader(batch(1, { prefix: 'new' }), 2);
  leader.updateHighWatermark(3);
  const { calls, pool } = fakeLeader(leader);
  const m = manager(pool);
  m.addPartition({ topic: 't', partitionIndex: 0, topicId: 'tid', log: follower } as unknown as Partition, 1, 2);
  const deadline = Date.now() + 3000;
  while (follower.logEndOffset < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await m.stop();
  assert.is(follower.logEndOffset, 4, `the follower copied the new record (${JSON.stringify(calls)})`);
  assert.equal(epochs(follower), [[0, 0], [2, 3]], 'epoch 1 gone, epoch 2 as the leader has it');
  assert.is(calls.diverging, 0, 'no fetch diverged');
  await leader.close();
  await follower.close();
});

test('a fetch diverging again at the same log end backs off replica.fetch.backoff.ms', async () => {
  const clock = new ManualClock();
  const fs = new MemFs({ now: () => clock.now() });
  const leader = await openLog(fs, clock, '/leader/t-0');
  const follower = await openLog(fs, clock, '/follower/t-0');
  await leader.appendAsLeader(batch(3), 0);
  await follower.appendAsFollower(Buffer.concat((await leader.read(0, 1 << 20, { minOneMessage: true })).records));
  const { calls, pool } = fakeLeader(leader, true);
  const m = manager(pool);
  m.addPartition({ topic: 't', partitionIndex: 0, topicId: 'tid', log: follower } as unknown as Partition, 1, 0);
  const runMs = 1000;
  await new Promise((r) => setTimeout(r, runMs));
  await m.stop();
  // One round per backoff (a fetch and an OffsetForLeaderEpoch), plus the first ones.
  const rounds = runMs / BACKOFF_MS;
  assert.ok(calls.fetch <= rounds + 3, `fetches in ${runMs} ms: ${calls.fetch} (backoff ${BACKOFF_MS} ms)`);
  assert.ok(calls.offsetForLeaderEpoch <= rounds + 3, `OffsetForLeaderEpoch in ${runMs} ms: ${calls.offsetForLeaderEpoch}`);
  assert.ok(calls.fetch >= 3, 'it keeps trying');
  assert.is(follower.logEndOffset, 3, 'nothing lost to the leader\'s answers');
  await leader.close();
  await follower.close();
});

test.run();
