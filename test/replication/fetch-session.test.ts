/**
 * Fetch sessions (KIP-227) without a broker: the cache (replication/fetch-session.ts) and its
 * contexts as Kafka 4.4's FetchManager / FetchSessionCacheShard decide them, and the fetching
 * side (fetch-session-handler.ts) as Kafka's client FetchSessionHandler:
 * - contexts: sessionless (epoch -1), full (epoch 0, a session from the answer), incremental
 *   (the session's partitions, the request's changes, forgotten ones), the three session errors,
 *   a full fetch closing the session it names, a session emptied by forgetting, the epoch check
 *   again at answer time, throttled answers;
 * - incremental answers: only records, a high watermark or log start change, errors (sent again
 *   once cleared), diverging epochs; partitions with records move to the end;
 * - the cache: 8 shards taken in turn, ids in their shard's range, ids past the last shard,
 *   eviction (stale sessions, privileged over unprivileged, more partitions over fewer, only
 *   sessions older than 120 s), slots 0, the partition count and eviction counter;
 * - the handler: full then incremental requests with only changed partitions, forgotten ones,
 *   back to full on errors, and answers checked against the session.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../src/clock.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { KafkaApiError } from '../../src/errors.js';
import { defaultFetchPartition, type FetchTopic, type ForgottenTopic } from '../../src/protocol/generated/messages/fetch-request.js';
import {
  FETCH_SESSION_CACHE_SHARDS, FetchSessionCache, MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS, nextEpoch, type FetchContext, type FetchSessionRequest,
} from '../../src/replication/fetch-session.js';
import { FetchSessionHandler, type SessionPartitionData } from '../../src/replication/fetch-session-handler.js';

const ID_A = 'AAAAAAAAAAAAAAAAAAAAAQ';
const ID_B = 'AAAAAAAAAAAAAAAAAAAAAg';
const NAMES: Record<string, string> = { [ID_A]: 'a', [ID_B]: 'b' };

function topic(name: string, parts: [number, number][], version = 12): FetchTopic {
  return {
    topic: version >= 13 ? '' : name,
    topicId: version >= 13 ? Object.keys(NAMES).find((k) => NAMES[k] === name) ?? 'AAAAAAAAAAAAAAAAAAAAAw' : 'AAAAAAAAAAAAAAAAAAAAAA',
    partitions: parts.map(([partition, offset]) => ({ ...defaultFetchPartition(), partition, fetchOffset: BigInt(offset), partitionMaxBytes: 1000 })),
  };
}

function request(o: Partial<FetchSessionRequest> & { topics?: FetchTopic[] }): FetchSessionRequest {
  return { version: 12, sessionId: 0, sessionEpoch: 0, follower: false, topics: [], forgotten: [], topicName: (id) => NAMES[id], ...o };
}

function setup(slots = 1000) {
  const clock = new ManualClock(1_000_000);
  let n = 0;
  // Predictable ids: 0.1, 0.2, ... of each shard's range.
  const cache = new FetchSessionCache({ slots, clock, random: () => ((n++ % 9) + 1) / 10 });
  return { clock, cache };
}

/** Answers every partition of a context with (hw, logStart, bytes); returns the sent indexes and the session id. */
function answer(c: FetchContext, f: (i: number) => { hw: number; start?: number; bytes?: number; error?: number; diverging?: boolean }) {
  const sent: string[] = [];
  const err = c.start();
  if (err !== ErrorCode.NONE) return { err, sent, sessionId: c.finish() };
  c.partitions.forEach((p, i) => {
    const a = f(i);
    if (c.include(i, a.error ?? 0, a.hw, a.start ?? 0, a.bytes ?? 0, a.diverging ?? false)) sent.push(`${p.topic}-${p.partition}`);
  });
  return { err, sent, sessionId: c.finish() };
}

test('nextEpoch: -1 stays -1, 2^31-1 wraps to 1', () => {
  assert.is(nextEpoch(-1), -1);
  assert.is(nextEpoch(0), 1);
  assert.is(nextEpoch(41), 42);
  assert.is(nextEpoch(2147483647), 1);
});

test('epoch -1 is sessionless: every partition read and answered, session id 0, nothing cached', () => {
  const { cache } = setup();
  const c = cache.newContext(request({ sessionEpoch: -1, topics: [topic('a', [[0, 5], [1, 7]])] }));
  assert.is(c.kind, 'sessionless');
  assert.equal(c.partitions.map((p) => [p.topic, p.partition, p.fetchOffset]), [['a', 0, 5], ['a', 1, 7]]);
  const r = answer(c, () => ({ hw: 10 }));
  assert.equal(r.sent, ['a-0', 'a-1']);
  assert.is(r.sessionId, 0);
  assert.is(cache.size, 0);
});

test('a full fetch creates a session from its answer; incremental fetches read every session partition and answer only changes', () => {
  const { cache } = setup();
  const full = cache.newContext(request({ topics: [topic('a', [[0, 0], [1, 0]]), topic('b', [[0, 0]])] }));
  assert.is(full.kind, 'full');
  const r1 = answer(full, () => ({ hw: 10 }));
  assert.equal(r1.sent, ['a-0', 'a-1', 'b-0']);
  assert.ok(r1.sessionId > 0 && r1.sessionId <= 2147483647);
  assert.is(cache.size, 1);
  assert.is(cache.totalPartitions, 3);
  const s = cache.get(r1.sessionId)!;
  assert.is(s.epoch, 1);

  // Epoch 1, nothing named: all three read, none changed.
  const inc = cache.newContext(request({ sessionId: r1.sessionId, sessionEpoch: 1 }));
  assert.is(inc.kind, 'incremental');
  assert.equal(inc.partitions.map((p) => `${p.topic}-${p.partition}`), ['a-0', 'a-1', 'b-0']);
  const r2 = answer(inc, () => ({ hw: 10 }));
  assert.equal(r2.sent, []);
  assert.is(r2.sessionId, r1.sessionId);

  // Epoch 2: a-1 moved its fetch offset (kept for later fetches); b-0's high watermark moved; a-0 got records.
  const inc2 = cache.newContext(request({ sessionId: r1.sessionId, sessionEpoch: 2, topics: [topic('a', [[1, 4]])] }));
  assert.is(inc2.partitions.find((p) => p.partition === 1 && p.topic === 'a')!.fetchOffset, 4);
  const r3 = answer(inc2, (i) => (i === 0 ? { hw: 10, bytes: 100 } : i === 2 ? { hw: 11 } : { hw: 10 }));
  assert.equal(r3.sent, ['a-0', 'b-0']);
  // a-0 returned records: it goes to the end of the session's order.
  assert.equal(cache.newContext(request({ sessionId: r1.sessionId, sessionEpoch: 3 })).partitions.map((p) => `${p.topic}-${p.partition}`), ['a-1', 'b-0', 'a-0']);
});

test('log start changes, errors (sent again once cleared) and diverging epochs are answered; the last stable offset is not looked at', () => {
  const { cache } = setup();
  const { sessionId } = answer(cache.newContext(request({ topics: [topic('a', [[0, 0], [1, 0], [2, 0]])] })), () => ({ hw: 10 }));
  let epoch = 1;
  const round = (f: (i: number) => { hw: number; start?: number; error?: number; diverging?: boolean }) => answer(cache.newContext(request({ sessionId, sessionEpoch: epoch++ })), f).sent;
  assert.equal(round((i) => (i === 0 ? { hw: 10, start: 3 } : { hw: 10 })), ['a-0']);
  assert.equal(round((i) => (i === 1 ? { hw: -1, start: -1, error: ErrorCode.NOT_LEADER_OR_FOLLOWER } : { hw: 10, start: i === 0 ? 3 : 0 })), ['a-1']);
  // The error cleared with the same high watermark as before it: sent again.
  assert.equal(round((i) => ({ hw: 10, start: i === 0 ? 3 : 0 })), ['a-1']);
  assert.equal(round((i) => ({ hw: 10, start: i === 0 ? 3 : 0, diverging: i === 2 })), ['a-2']);
  assert.equal(round((i) => ({ hw: 10, start: i === 0 ? 3 : 0 })), []);
});

test('forgotten partitions leave the session; a session emptied that way closes (sessionless answer)', () => {
  const { cache } = setup();
  const { sessionId } = answer(cache.newContext(request({ topics: [topic('a', [[0, 0], [1, 0]])] })), () => ({ hw: 1 }));
  const forget = (p: number[]): ForgottenTopic[] => [{ topic: 'a', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: p }];
  const c = cache.newContext(request({ sessionId, sessionEpoch: 1, forgotten: forget([0]) }));
  assert.equal(c.partitions.map((p) => p.partition), [1]);
  answer(c, () => ({ hw: 1 }));
  assert.is(cache.totalPartitions, 1);
  const last = cache.newContext(request({ sessionId, sessionEpoch: 2, forgotten: forget([1]) }));
  assert.is(last.kind, 'sessionless');
  assert.is(answer(last, () => ({ hw: 1 })).sessionId, 0);
  assert.is(cache.size, 0);
  assert.is(cache.totalPartitions, 0);
});

test('session errors: unknown id, wrong epoch, topic ids switched; a full fetch closes the session it names', () => {
  const { cache } = setup();
  const { sessionId } = answer(cache.newContext(request({ topics: [topic('a', [[0, 0]])] })), () => ({ hw: 1 }));
  assert.is(cache.newContext(request({ sessionId: 12345, sessionEpoch: 1 })).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  assert.is(cache.newContext(request({ sessionId, sessionEpoch: 5 })).errorCode, ErrorCode.INVALID_FETCH_SESSION_EPOCH);
  const idErr = cache.newContext(request({ version: 13, sessionId, sessionEpoch: 1 }));
  assert.is(idErr.errorCode, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
  assert.equal(idErr.partitions, []);
  // None of those touched the session: epoch 1 still works.
  assert.is(cache.newContext(request({ sessionId, sessionEpoch: 1 })).kind, 'incremental');
  // An incremental request with session id 0 names no session.
  assert.is(cache.newContext(request({ sessionId: 0, sessionEpoch: 1 })).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
  // Full fetch (epoch 0) naming the session: closed, and a new one is made from the answer.
  const again = cache.newContext(request({ sessionId, sessionEpoch: 0, topics: [topic('a', [[0, 0]])] }));
  assert.is(cache.size, 0);
  const r = answer(again, () => ({ hw: 1 }));
  assert.not.equal(r.sessionId, sessionId);
  // Epoch -1 naming it: closed, no new one.
  assert.is(answer(cache.newContext(request({ sessionId: r.sessionId, sessionEpoch: -1, topics: [topic('a', [[0, 0]])] })), () => ({ hw: 1 })).sessionId, 0);
  assert.is(cache.size, 0);
});

test('topic ids (v13+): keyed by id, unknown ids kept with no name, forgotten by id', () => {
  const { cache } = setup();
  const unknown: FetchTopic = { topic: '', topicId: 'AAAAAAAAAAAAAAAAAAAAEA', partitions: [{ ...defaultFetchPartition(), partition: 0 }] };
  const full = cache.newContext(request({ version: 13, topics: [topic('a', [[0, 0]], 13), unknown] }));
  assert.equal(full.partitions.map((p) => [p.topic, p.topicId]), [['a', ID_A], [null, 'AAAAAAAAAAAAAAAAAAAAEA']]);
  const { sessionId } = answer(full, (i) => (i === 0 ? { hw: 1 } : { hw: -1, error: ErrorCode.UNKNOWN_TOPIC_ID }));
  assert.ok(cache.get(sessionId)!.usesTopicIds);
  assert.ok(cache.sessionHas(sessionId, ID_A, 0));
  const c = cache.newContext(request({ version: 13, sessionId, sessionEpoch: 1, forgotten: [{ topic: '', topicId: 'AAAAAAAAAAAAAAAAAAAAEA', partitions: [0] }] }));
  assert.equal(c.partitions.map((p) => p.topicId), [ID_A]);
  assert.is(cache.newContext(request({ version: 12, sessionId, sessionEpoch: 2 })).errorCode, ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR);
});

test('a partition named twice in a full fetch is one session partition with the last parameters', () => {
  const { cache } = setup();
  const c = cache.newContext(request({ topics: [topic('a', [[0, 1], [0, 9]])] }));
  assert.equal(c.partitions.map((p) => [p.partition, p.fetchOffset]), [[0, 9]]);
  answer(c, () => ({ hw: 1 }));
  assert.is(cache.totalPartitions, 1);
});

test('the epoch is checked again at answer time; throttled answers keep the session', () => {
  const { cache } = setup();
  const { sessionId } = answer(cache.newContext(request({ topics: [topic('a', [[0, 0]])] })), () => ({ hw: 1 }));
  const first = cache.newContext(request({ sessionId, sessionEpoch: 1 }));
  // Another request of the same session (a duplicate resent by the client) gets there first.
  const dup = cache.newContext(request({ sessionId, sessionEpoch: 2 }));
  assert.is(dup.kind, 'incremental');
  assert.equal(answer(first, () => ({ hw: 2 })), { err: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sent: [], sessionId });
  assert.equal(first.throttled(), { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId });
  assert.equal(dup.throttled(), { errorCode: ErrorCode.NONE, sessionId });
  const full = cache.newContext(request({ topics: [topic('a', [[0, 0]])] }));
  assert.equal(full.throttled(), { errorCode: ErrorCode.NONE, sessionId: 0 });
  assert.is(cache.size, 1);
});

test('shards: new sessions go round the 8 shards, each id in its shard\'s range; ids past the last shard fail', () => {
  const { cache } = setup();
  const range = Math.floor(2147483647 / FETCH_SESSION_CACHE_SHARDS);
  const ids: number[] = [];
  for (let i = 0; i < 16; i++) ids.push(answer(cache.newContext(request({ topics: [topic('a', [[0, 0]])] })), () => ({ hw: 1 })).sessionId);
  ids.forEach((id, i) => assert.is(Math.trunc(id / range), i % 8, `session ${i} id ${id}`));
  assert.is(cache.size, 16);
  assert.throws(() => cache.newContext(request({ sessionId: 2147483647, sessionEpoch: 1 })), (e: unknown) => e instanceof KafkaApiError && e.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR);
  // A negative id within one range of zero is in shard 0 (Java's division): just not found.
  assert.is(cache.newContext(request({ sessionId: -5, sessionEpoch: 1 })).errorCode, ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
});

/** A full fetch of `n` partitions; the new session's id (0: none). */
function create(cache: FetchSessionCache, n: number, follower = false): number {
  const c = cache.newContext(request({ follower, topics: [topic('a', Array.from({ length: n }, (_, i) => [i, 0] as [number, number]))] }));
  return answer(c, () => ({ hw: 1 })).sessionId;
}

test('eviction within a shard: privileged over unprivileged, more partitions over fewer, only sessions past 120 s', () => {
  // 16 slots: 2 per shard; sessions go round the shards, so every shard ends up alike (each
  // eviction below happens once per shard: 8 at a time).
  const { cache, clock } = setup(16);
  const inShard0 = (n: number, follower = false): number => {
    let id = 0;
    for (let i = 0; i < 8; i++) {
      const got = create(cache, n, follower);
      if (i === 0) id = got;
    }
    return id;
  };
  const small = inShard0(2);
  const big = inShard0(5);
  assert.is(cache.shards[0].size, 2);
  // Shard 0 is full and both sessions are young: a consumer session of 10 partitions is refused.
  assert.is(inShard0(10), 0);
  assert.is(cache.evictions, 0);
  // A follower's session evicts a consumer session even when young (the smallest first).
  const privileged = inShard0(1, true);
  assert.ok(privileged > 0);
  assert.is(cache.shards[0].get(small), undefined);
  assert.is(cache.evictions, 8);
  // Past 120 s since creation, at their next use, sessions may be evicted by bigger ones.
  clock.advance(MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS + 1);
  for (const shard of cache.shards) {
    for (const s of [...shard.sessions.values()]) answer(cache.newContext(request({ follower: s.privileged, sessionId: s.id, sessionEpoch: s.epoch })), () => ({ hw: 1 }));
  }
  // Equal size is not enough (the newcomer's key has id 0); more partitions are.
  assert.is(inShard0(5), 0);
  const bigger = inShard0(6);
  assert.ok(bigger > 0);
  assert.is(cache.get(big), undefined, 'the unprivileged 5-partition session went, not the follower\'s');
  assert.ok(cache.get(privileged));
  assert.is(cache.evictions, 16);
});

test('a session idle for more than 120 s is evicted by any newcomer', () => {
  const { cache, clock } = setup(8);
  const first = create(cache, 50, true);
  for (let i = 0; i < 7; i++) create(cache, 1);
  clock.advance(MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS + 1);
  // Shard 0 again: a one-partition consumer session evicts the idle 50-partition follower session.
  assert.ok(create(cache, 1) > 0);
  assert.is(cache.totalPartitions, 8);
  assert.is(cache.get(first), undefined);
  assert.is(cache.evictions, 1);
  assert.is(cache.size, 8);
});

test('slots 0: no session is ever created, full fetches are answered with session id 0', () => {
  const { cache } = setup(0);
  assert.is(create(cache, 3), 0);
  assert.is(create(cache, 3, true), 0);
  assert.is(cache.size, 0);
});

// ---------------------------------------------------------------------------------------------
// The fetching side (Kafka's FetchSessionHandler)

function want(entries: [string, number, number][]): Map<string, SessionPartitionData> {
  return new Map(entries.map(([id, partition, fetchOffset]) => [`${id}-${partition}`, { topicId: id, partition, fetchOffset, logStartOffset: 0, maxBytes: 100, currentLeaderEpoch: 0, lastFetchedEpoch: 0 }]));
}

const res = (sessionId: number, parts: [string, number][], errorCode = 0) => ({
  errorCode, sessionId, throttleTimeMs: 0,
  responses: parts.map(([topicId, partitionIndex]) => ({ topicId, partitions: [{ partitionIndex }] })),
});

test('handler: full fetch with epoch 0, then incremental with only new and changed partitions and the forgotten ones', () => {
  const h = new FetchSessionHandler<string>();
  const r1 = h.build(want([[ID_A, 0, 0], [ID_A, 1, 0], [ID_B, 0, 0]]));
  assert.equal([r1.full, r1.sessionId, r1.sessionEpoch, r1.toSend.length], [true, 0, 0, 3]);
  assert.ok(h.handleResponse(res(77, [[ID_A, 0], [ID_A, 1], [ID_B, 0]])));
  assert.equal([h.sessionId, h.epoch], [77, 1]);

  const r2 = h.build(want([[ID_A, 0, 5], [ID_A, 1, 0], [ID_A, 2, 0]]));
  assert.equal([r2.full, r2.sessionId, r2.sessionEpoch], [false, 77, 1]);
  // Added first, then the changed ones; b-0 is forgotten; a-1 (unchanged) is implied.
  assert.equal(r2.toSend.map((x) => x.key), [`${ID_A}-2`, `${ID_A}-0`]);
  assert.equal(r2.toForget.map((d) => [d.topicId, d.partition]), [[ID_B, 0]]);
  assert.ok(h.handleResponse(res(77, [[ID_A, 0]])));
  assert.is(h.epoch, 2);
  assert.is(h.keyOf(ID_A, 2), `${ID_A}-2`);
  assert.is(h.keyOf(ID_B, 0), undefined);
  assert.equal(h.build(want([[ID_A, 0, 5], [ID_A, 1, 0], [ID_A, 2, 0]])).toSend, []);
});

test('handler: back to a full fetch on errors, bad answers and failed requests', () => {
  const h = new FetchSessionHandler<string>();
  const w = want([[ID_A, 0, 0]]);
  h.build(w);
  h.handleResponse(res(77, [[ID_A, 0]]));
  h.build(w);
  // Unknown session: a fresh full fetch (session id 0).
  assert.not.ok(h.handleResponse(res(0, [], ErrorCode.FETCH_SESSION_ID_NOT_FOUND)));
  assert.equal([h.sessionId, h.epoch, h.full], [0, 0, true]);
  h.build(w);
  h.handleResponse(res(78, [[ID_A, 0]]));
  h.build(w);
  // Another error: close this session with the next full fetch (same id, epoch 0).
  assert.not.ok(h.handleResponse(res(0, [], ErrorCode.INVALID_FETCH_SESSION_EPOCH)));
  assert.equal([h.sessionId, h.epoch], [78, 0]);
  h.build(w);
  // A full answer that misses a session partition is not used.
  assert.not.ok(h.handleResponse(res(79, [])));
  assert.equal([h.sessionId, h.epoch], [0, 0]);
  h.build(w);
  h.handleResponse(res(80, [[ID_A, 0]]));
  h.build(w);
  // An incremental answer naming a partition outside the session.
  assert.not.ok(h.handleResponse(res(80, [[ID_B, 3]])));
  assert.equal([h.sessionId, h.epoch], [80, 0]);
  h.build(w);
  h.handleResponse(res(81, [[ID_A, 0]]));
  h.build(w);
  h.handleError();
  assert.equal([h.sessionId, h.epoch], [81, 0]);
  // A leader without sessions answers session id 0: full fetches every time.
  h.build(w);
  assert.ok(h.handleResponse(res(0, [[ID_A, 0]])));
  assert.ok(h.full);
});

test('handler: a partition forgotten under one key and added under another is not forgotten', () => {
  const h = new FetchSessionHandler<object>();
  const k1 = {}, k2 = {};
  const d = { topicId: ID_A, partition: 0, fetchOffset: 0, logStartOffset: 0, maxBytes: 1, currentLeaderEpoch: 0, lastFetchedEpoch: 0 };
  h.build(new Map([[k1, d]]));
  h.handleResponse(res(5, [[ID_A, 0]]));
  const r = h.build(new Map([[k2, { ...d }]]));
  assert.equal(r.toForget, []);
  assert.is(r.toSend.length, 1);
});

test.run();
