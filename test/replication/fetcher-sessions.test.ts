/**
 * The replica fetcher in fetch sessions (KIP-227) against a fake leader that keeps its sessions in
 * a real FetchSessionCache (replication/fetch-session.ts) and answers from real leader logs:
 * - the first fetch is a full one (session id 0, epoch 0) naming every partition; the next ones
 *   carry the session id and epochs 1, 2, ... and name only partitions whose fetch offset moved;
 *   the leader answers only partitions with news, and the follower copies every record;
 * - a leader that lost the session (a restart: a new cache) answers FETCH_SESSION_ID_NOT_FOUND,
 *   and the next fetch is a full one at once, which opens a new session;
 * - a leader without sessions (slots 0) gets full fetches every time, and the copies still match.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock, systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ReplicaFetcherManager } from '../../src/replication/replica-fetcher.js';
import { FetchSessionCache } from '../../src/replication/fetch-session.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import type { BrokerClientPool } from '../../src/replication/broker-client.js';
import type { Partition } from '../../src/replication/partition.js';
import type { FetchRequest } from '../../src/protocol/generated/messages/fetch-request.js';
import { batch, config } from '../storage/helpers.js';

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const PARTITIONS = 3;

async function openLog(fs: MemFs, clock: ManualClock, dir: string, partition: number): Promise<PartitionLog> {
  const log = await PartitionLog.open({ fs, dir, topic: 't', partition, config: config(), clock });
  log.setHighWatermarkFollowsLogEnd(false);
  return log;
}

interface Seen {
  sessionId: number;
  sessionEpoch: number;
  named: number[];
  forgotten: number[];
  answered: number[];
}

/** A leader of `logs` (partition i = logs[i]) answering Fetch through a FetchSessionCache, as the Fetch handler does. */
function sessionLeader(logs: PartitionLog[], slots = 1000) {
  const state = { cache: new FetchSessionCache({ slots, clock: systemClock }), seen: [] as Seen[] };
  const client = {
    async send(apiKey: number, v: number, body: any): Promise<any> {
      await new Promise((r) => setImmediate(r));
      if (apiKey === 23) {
        return {
          throttleTimeMs: 0,
          topics: body.topics.map((t: any) => ({
            topic: t.topic,
            partitions: t.partitions.map((p: any) => {
              const e = logs[p.partition].leaderEpochCache.endOffsetFor(p.leaderEpoch, logs[p.partition].logEndOffset);
              return { errorCode: 0, partition: p.partition, leaderEpoch: e.leaderEpoch, endOffset: BigInt(e.endOffset) };
            }),
          })),
        };
      }
      if (apiKey !== 1) throw new Error(`unexpected api ${apiKey}`);
      const req = body as FetchRequest;
      const seen: Seen = {
        sessionId: req.sessionId, sessionEpoch: req.sessionEpoch, answered: [],
        named: req.topics.flatMap((t) => t.partitions.map((p) => p.partition)), forgotten: req.forgottenTopicsData.flatMap((t) => t.partitions),
      };
      state.seen.push(seen);
      const ctx = state.cache.newContext({ version: v, sessionId: req.sessionId, sessionEpoch: req.sessionEpoch, follower: true, topics: req.topics, forgotten: req.forgottenTopicsData, topicName: () => 't' });
      if (ctx.errorCode !== ErrorCode.NONE) return { throttleTimeMs: 0, errorCode: ctx.errorCode, sessionId: 0, responses: [], nodeEndpoints: [] };
      const reads = await Promise.all(ctx.partitions.map((p) => logs[p.partition].read(p.fetchOffset, 1 << 20, { minOneMessage: true, maxOffset: logs[p.partition].logEndOffset })));
      // A short long poll when there is nothing to send.
      if (reads.every((r) => r.records.length === 0)) await new Promise((r) => setTimeout(r, 5));
      ctx.start();
      const partitions: any[] = [];
      ctx.partitions.forEach((p, i) => {
        const log = logs[p.partition];
        const records = reads[i].records.map((b) => Buffer.from(b));
        const bytes = records.reduce((n, b) => n + b.length, 0);
        if (!ctx.include(i, 0, log.highWatermark, log.logStartOffset, bytes, false)) return;
        seen.answered.push(p.partition);
        partitions.push({
          partitionIndex: p.partition, errorCode: 0, highWatermark: BigInt(log.highWatermark), lastStableOffset: BigInt(log.highWatermark), logStartOffset: BigInt(log.logStartOffset),
          divergingEpoch: null, currentLeader: null, snapshotId: null, abortedTransactions: null, preferredReadReplica: -1, records,
        });
      });
      return { throttleTimeMs: 0, errorCode: 0, sessionId: ctx.finish(), nodeEndpoints: [], responses: partitions.length ? [{ topic: '', topicId: TOPIC_ID, partitions }] : [] };
    },
  };
  return { state, pool: { get: () => client } as unknown as BrokerClientPool };
}

function manager(pool: BrokerClientPool): ReplicaFetcherManager {
  return new ReplicaFetcherManager(pool, {
    nodeId: 2, brokerEpoch: () => 1, clusterId: null, maxWaitMs: 10, minBytes: 1, maxBytes: 1 << 20, partitionMaxBytes: 1 << 20, backoffMs: 50,
  }, createLogger('silent'));
}

async function setup() {
  const clock = new ManualClock();
  const fs = new MemFs({ now: () => clock.now() });
  const leaders: PartitionLog[] = [];
  const followers: PartitionLog[] = [];
  for (let p = 0; p < PARTITIONS; p++) {
    const l = await openLog(fs, clock, `/leader/t-${p}`, p);
    await l.assignEpochStartOffset(0, 0);
    await l.appendAsLeader(batch(2, { prefix: `p${p}-` }), 0);
    l.updateHighWatermark(l.logEndOffset);
    leaders.push(l);
    followers.push(await openLog(fs, clock, `/follower/t-${p}`, p));
  }
  const append = async (p: number, n: number) => {
    await leaders[p].appendAsLeader(batch(n, { prefix: `p${p}-more-${leaders[p].logEndOffset}-` }), 0);
    leaders[p].updateHighWatermark(leaders[p].logEndOffset);
  };
  const caughtUp = async (what: string) => {
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && followers.some((f, p) => f.logEndOffset !== leaders[p].logEndOffset)) await new Promise((r) => setTimeout(r, 5));
    assert.equal(followers.map((f) => f.logEndOffset), leaders.map((l) => l.logEndOffset), what);
  };
  const close = async () => {
    for (const l of [...leaders, ...followers]) await l.close();
  };
  return { leaders, followers, append, caughtUp, close };
}

function follow(m: ReplicaFetcherManager, followers: PartitionLog[]): void {
  followers.forEach((log, p) => m.addPartition({ topic: 't', partitionIndex: p, topicId: TOPIC_ID, log } as unknown as Partition, 1, 0));
}

/** A leader with `slots` session slots, a follower fetching from it; stopped and closed after `fn`. */
async function withSessionLeader(slots: number, fn: (s: Awaited<ReturnType<typeof setup>>, state: ReturnType<typeof sessionLeader>['state'], m: ReplicaFetcherManager) => Promise<void>): Promise<void> {
  const s = await setup();
  const { state, pool } = sessionLeader(s.leaders, slots);
  const m = manager(pool);
  follow(m, s.followers);
  try {
    await fn(s, state, m);
  } finally {
    await m.stop();
    await s.close();
  }
}

test('a full fetch, then incremental ones naming only partitions that moved; the leader answers only news', async () => {
  await withSessionLeader(1000, async (s, state, m) => {
  await s.caughtUp('copied the first records');
  await new Promise((r) => setTimeout(r, 50));
  const mark = state.seen.length;
  await s.append(1, 3);
  await s.caughtUp('copied partition 1\'s new records');
  await new Promise((r) => setTimeout(r, 50));
  const seen = state.seen;
  // The partitions join after their truncation, each with a full fetch or incremental adds.
  assert.equal([seen[0].sessionId, seen[0].sessionEpoch], [0, 0], 'the first fetch asks for a session');
  const id = state.cache.shards.flatMap((sh) => [...sh.sessions.keys()])[0];
  assert.ok(id > 0);
  const inSession = seen.filter((x) => x.sessionId === id);
  inSession.forEach((x, i) => assert.is(x.sessionEpoch, i + 1, 'epochs one after another'));
  assert.is(seen.length - inSession.length, 1, 'one full fetch');
  const after = seen.slice(mark);
  assert.ok(after.some((x) => x.answered.includes(1)), 'partition 1 answered once it had records');
  for (const x of after) {
    assert.ok(x.named.every((p) => p === 1), `only partition 1 named after its append: ${JSON.stringify(x)}`);
    assert.ok(x.answered.every((p) => p === 1), `only partition 1 answered: ${JSON.stringify(x)}`);
  }
  assert.ok(after.some((x) => x.named.length === 0 && x.answered.length === 0), 'idle fetches name and get nothing');
  assert.is(m.fetchCounts().fullFetches, 1);
  });
});

test('a leader that lost the session: FETCH_SESSION_ID_NOT_FOUND, a full fetch at once, a new session', async () => {
  await withSessionLeader(1000, async (s, state, m) => {
  await s.caughtUp('copied the first records');
  // The leader restarts: its sessions are gone.
  state.cache = new FetchSessionCache({ slots: 1000, clock: systemClock });
  const mark = state.seen.length;
  await s.append(2, 2);
  await s.caughtUp('copied partition 2\'s new records after the restart');
  const after = state.seen.slice(mark);
  const full = after.findIndex((x) => x.sessionEpoch === 0);
  assert.ok(full >= 1, `a full fetch after the refused incremental one: ${JSON.stringify(after.slice(0, 3))}`);
  assert.equal([after[full].sessionId, after[full].named.sort()], [0, [0, 1, 2]], 'a full fetch names every partition');
  assert.is(state.cache.size, 1, 'a new session');
  assert.is(m.fetchCounts().fullFetches, 2);
  });
});

test('a leader without sessions (slots 0): every fetch a full one, the copies still match', async () => {
  await withSessionLeader(0, async (s, state, m) => {
  await s.caughtUp('copied the first records');
  await s.append(0, 1);
  await s.caughtUp('copied the new record');
  assert.ok(state.seen.length > 2);
  for (const x of state.seen) assert.equal([x.sessionId, x.sessionEpoch], [0, 0]);
  assert.is(m.fetchCounts().fullFetches, m.fetchCounts().fetches);
  });
});

test.run();
