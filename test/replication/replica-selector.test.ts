/**
 * Fetch from the closest replica (KIP-392) on real Partitions and logs, with a manual clock:
 * - RackAwareReplicaSelector's choice: the leader for a client without a rack, in the leader's
 *   rack, or with no replica in its rack; else the most caught-up in-sync replica of its rack
 *   (log end offset, then time since caught up, then node id);
 * - findPreferredReadReplica offers only ISR followers whose log (as the leader last heard)
 *   covers the fetch offset, and never a replica without an endpoint on the client's listener;
 * - the data path (fetchMessages): the leader answers a v11+ consumer with the preferred replica,
 *   no records and its own offsets, at once (no long poll); not without the selector, not for a
 *   consumer before v11, not for a follower; a follower serves a v11+ consumer up to its own high
 *   watermark (LSO for read_committed), OFFSET_OUT_OF_RANGE past its log end,
 *   FENCED_LEADER_EPOCH / UNKNOWN_LEADER_EPOCH against the epoch it knows, and
 *   NOT_LEADER_OR_FOLLOWER to a consumer before v11.
 * - replica.selector.class: Kafka's RackAwareReplicaSelector is accepted, any other class refused
 *   at start-up with Kafka's "could not be found".
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { MemFs } from '../../src/storage/fs.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { Partition } from '../../src/replication/partition.js';
import { FetchPurgatory } from '../../src/replication/delayed-fetch.js';
import { fetchMessages, type FetchEnv, type FetchParams } from '../../src/replication/fetch-messages.js';
import {
  createReplicaSelector, findPreferredReadReplica, RackAwareReplicaSelector, type ClientMetadata, type ReplicaView,
} from '../../src/replication/replica-selector.js';
import { loadConfig } from '../../src/config.js';
import type { TopicRecord } from '../../src/cluster/metadata-store.js';
import { batch, config, offsetsOf } from '../storage/helpers.js';

const RACKS: Record<number, string> = { 1: 'a', 2: 'b', 3: 'c', 4: 'b' };
const rackOf = (id: number, listener: string): string | null | undefined => (listener === 'PLAINTEXT' && RACKS[id] !== undefined ? RACKS[id] : undefined);
const client = (rackId: string, listenerName = 'PLAINTEXT'): ClientMetadata => ({ rackId, listenerName });
const topic: TopicRecord = { name: 't', topicId: 'tid', partitions: 1, configs: {} } as TopicRecord;

async function partitionOn(nodeId: number, clock: ManualClock, state: { replicas: number[]; isr: number[]; leader: number; leaderEpoch: number }): Promise<Partition> {
  const fs = new MemFs({ now: () => clock.now() });
  const log = await PartitionLog.open({ fs, dir: '/d/t-0', topic: 't', partition: 0, config: config(), clock });
  const p = new Partition('t', 0, 'tid', log, nodeId, {
    clock, logger: createLogger('silent'), replicaLagTimeMaxMs: 30_000, isAlive: () => true,
    alterIsr: async (known) => ({ ok: true, state: known }),
  });
  p.apply({ topicId: 'tid', partition: 0, partitionEpoch: 1, ...state });
  return p;
}

/** A leader (node 1, rack a) of replicas 1-4 with 10 records, its followers heard from as given. */
async function leader(isr: number[], followers: Record<number, { leo: number; logStart?: number; at?: number }>) {
  const clock = new ManualClock(1000);
  const p = await partitionOn(1, clock, { replicas: [1, 2, 3, 4], isr, leader: 1, leaderEpoch: 5 });
  await p.makeLeader();
  await p.log.appendAsLeader(batch(10), 5);
  // Fetches in time order (each at its `at`, default 1000), then the fetch under test at 2000.
  for (const [id, f] of Object.entries(followers).sort((x, y) => (x[1].at ?? 1000) - (y[1].at ?? 1000))) {
    clock.advance((f.at ?? 1000) - clock.now());
    p.updateFollowerFetchState(Number(id), f.leo, p.log.logEndOffset, clock.now(), f.logStart ?? 0);
  }
  clock.advance(2000 - clock.now());
  return { clock, p };
}

function env(p: Partition, clock: ManualClock, selector = createReplicaSelector('org.apache.kafka.common.replica.RackAwareReplicaSelector')): FetchEnv {
  return {
    clock, logger: createLogger('silent'), metadataCache: { partition: () => undefined } as never, getPartition: () => p,
    purgatory: new FetchPurgatory({ clock, stopSignal: new AbortController().signal }), hooks: () => undefined, stopping: () => false,
    replicaSelector: selector, rackOf,
  };
}

function params(over: Partial<FetchParams> = {}): FetchParams {
  return { replicaId: -1, replicaEpoch: -1, maxBytes: 1 << 20, minBytes: 1, maxWaitMs: 0, isolationLevel: 0, closed: new AbortController().signal, clientMetadata: client('b'), ...over };
}

const part = (fetchOffset: number, currentLeaderEpoch = -1) => ({ topic, partition: 0, fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch, lastFetchedEpoch: -1, logStartOffset: -1 });

test('RackAwareReplicaSelector: the leader without a client rack, in its rack, or with nobody in the rack; else the most caught-up of the rack', () => {
  const s = new RackAwareReplicaSelector();
  const v = (nodeId: number, rack: string | null, logEndOffset: number, timeSinceLastCaughtUpMs = 0): ReplicaView => ({ nodeId, rack, logEndOffset, timeSinceLastCaughtUpMs });
  const lead = v(1, 'a', 10);
  const all = [lead, v(2, 'b', 8), v(4, 'b', 9), v(3, 'c', 10)];
  assert.is(s.select(client(''), lead, all), lead);
  assert.is(s.select(client('a'), lead, all), lead);
  assert.is(s.select(client('z'), lead, all), lead);
  assert.is(s.select(client('b'), lead, all).nodeId, 4, 'the higher log end offset');
  assert.is(s.select(client('b'), lead, [lead, v(2, 'b', 9, 5), v(4, 'b', 9, 50)]).nodeId, 2, 'then the shorter time since caught up');
  assert.is(s.select(client('b'), lead, [lead, v(4, 'b', 9, 5), v(2, 'b', 9, 5)]).nodeId, 4, 'then the higher node id');
});

test('findPreferredReadReplica: ISR followers whose log covers the fetch offset, on the client\'s listener; -1 for the leader', async () => {
  const s = new RackAwareReplicaSelector();
  const { clock, p } = await leader([1, 2, 3, 4], { 2: { leo: 10, at: 1500 }, 4: { leo: 10, at: 1900 }, 3: { leo: 10 } });
  assert.is(findPreferredReadReplica(s, p, client('b'), 5, clock.now(), rackOf), 4, 'both in rack b hold it; 4 was caught up more recently');
  assert.is(findPreferredReadReplica(s, p, client('c'), 5, clock.now(), rackOf), 3);
  assert.is(findPreferredReadReplica(s, p, client('a'), 5, clock.now(), rackOf), -1, 'the leader is in rack a');
  assert.is(findPreferredReadReplica(s, p, client(''), 5, clock.now(), rackOf), -1);
  assert.is(findPreferredReadReplica(s, p, client('b', 'OTHER'), 5, clock.now(), rackOf), -1, 'no endpoint on that listener: no rack');

  const lagging = await leader([1, 2, 3, 4], { 2: { leo: 4 }, 4: { leo: 6, logStart: 3 } });
  assert.is(findPreferredReadReplica(s, lagging.p, client('b'), 5, lagging.clock.now(), rackOf), 4, 'follower 2 ends at 4, before the fetch offset');
  assert.is(findPreferredReadReplica(s, lagging.p, client('b'), 7, lagging.clock.now(), rackOf), -1, 'nobody in rack b has offset 7');
  assert.is(findPreferredReadReplica(s, lagging.p, client('b'), 2, lagging.clock.now(), rackOf), 2, 'follower 4\'s log starts at 3; follower 2 holds offset 2');
});

test('findPreferredReadReplica leaves out followers outside the ISR and followers not heard from since the leader was elected', async () => {
  const s = new RackAwareReplicaSelector();
  const out = await leader([1, 3], { 2: { leo: 10 }, 4: { leo: 10 } });
  assert.is(findPreferredReadReplica(s, out.p, client('b'), 5, out.clock.now(), rackOf), -1, 'rack b\'s replicas are not in sync');
  const unknown = await leader([1, 2, 3, 4], {});
  assert.is(findPreferredReadReplica(s, unknown.p, client('b'), 5, unknown.clock.now(), rackOf), -1);
});

test('the leader answers a v11+ consumer with the preferred replica, no records and its offsets, at once; not without the selector, before v11 or to a follower', async () => {
  const { clock, p } = await leader([1, 2, 3, 4], { 2: { leo: 10 }, 3: { leo: 10 }, 4: { leo: 8 } });
  assert.is(p.log.highWatermark, 8);
  const r = await fetchMessages(env(p, clock), params({ maxWaitMs: 60_000, minBytes: 1 << 20 }), [part(5)], false);
  assert.equal(r.partitions[0], { errorCode: 0, highWatermark: 8, lastStableOffset: 8, logStartOffset: 0, divergingEpoch: null, preferredReadReplica: 2, abortedTransactions: null, records: [] },
    'the long poll (min_bytes 1 MiB, 60 s) ends at once');
  const none = await fetchMessages(env(p, clock, null), params(), [part(5)], false);
  assert.equal([none.partitions[0].preferredReadReplica, offsetsOf(none.partitions[0].records)[0]], [-1, 0], 'without replica.selector.class: read here');
  const old = await fetchMessages(env(p, clock), params({ clientMetadata: null }), [part(5)], false);
  assert.is(old.partitions[0].preferredReadReplica, -1, 'Fetch before v11: no client metadata');
  const fenced = await fetchMessages(env(p, clock), params(), [part(5, 4)], false);
  assert.is(fenced.partitions[0].errorCode, ErrorCode.FENCED_LEADER_EPOCH, 'the epoch check comes first');
});

test('a follower serves a v11+ consumer up to its own high watermark; OFFSET_OUT_OF_RANGE past its log end; epochs it knows; NOT_LEADER_OR_FOLLOWER before v11', async () => {
  const clock = new ManualClock(1000);
  const f = await partitionOn(2, clock, { replicas: [1, 2], isr: [1, 2], leader: 1, leaderEpoch: 5 });
  await f.log.appendAsLeader(batch(10), 5);
  f.makeFollower();
  f.log.updateHighWatermark(6);
  const e = env(f, clock);
  const r = await fetchMessages(e, params(), [part(0, 5)], false);
  assert.is(r.partitions[0].errorCode, ErrorCode.NONE);
  assert.is(r.partitions[0].highWatermark, 6, 'the follower\'s own high watermark');
  assert.is(r.partitions[0].preferredReadReplica, -1, 'only a leader names one');
  assert.ok(r.partitions[0].records.length > 0);
  const between = await fetchMessages(e, params(), [part(7)], false);
  assert.equal([between.partitions[0].errorCode, between.partitions[0].records.length], [ErrorCode.NONE, 0], 'between its HW and log end: nothing yet');
  const past = await fetchMessages(e, params(), [part(11)], false);
  assert.is(past.partitions[0].errorCode, ErrorCode.OFFSET_OUT_OF_RANGE, 'past the follower\'s log end: the client goes back to the leader');
  assert.is((await fetchMessages(e, params(), [part(0, 4)], false)).partitions[0].errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  assert.is((await fetchMessages(e, params(), [part(0, 6)], false)).partitions[0].errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
  assert.is((await fetchMessages(e, params({ clientMetadata: null }), [part(0)], false)).partitions[0].errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
  assert.is((await fetchMessages(e, params({ replicaId: 3, clientMetadata: null }), [part(0)], false)).partitions[0].errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
});

test('replica.selector.class: unset or Kafka\'s RackAwareReplicaSelector; any other class is refused at start-up', () => {
  assert.is(loadConfig({})['replica.selector.class'], null);
  assert.is(createReplicaSelector(null), null);
  const ok = loadConfig({ argv: ['--override', 'replica.selector.class=org.apache.kafka.common.replica.RackAwareReplicaSelector'] });
  assert.ok(createReplicaSelector(ok['replica.selector.class']) instanceof RackAwareReplicaSelector);
  assert.throws(() => loadConfig({ argv: ['--override', 'replica.selector.class=com.example.MySelector'] }),
    (e: Error) => e.message.includes("invalid value 'com.example.MySelector' for setting 'replica.selector.class'") && e.message.includes('Class com.example.MySelector could not be found'));
});

test.run();
