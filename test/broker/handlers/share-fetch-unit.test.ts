/**
 * ShareFetch (078) against a fake BrokerServices and a fake SharePartitionManager: the request
 * checks the handler makes, what it hands to sharePartitions (session, acknowledge, acquire,
 * closeSession), the long poll, leader hints, ACLs and the release of a session whose connection
 * closes (Kafka's KafkaApis.handleShareFetchRequest, SharePartitionManager, KIP-932).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shareFetchHandler } from '../../../src/broker/handlers/078-share-fetch.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { ShareFetchRequest } from '../../../src/protocol/generated/messages/share-fetch-request.js';
import type { ShareSession } from '../../../src/coordinator/share/share-partition-manager.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

const a = topicRecord('a', 2);
const b = topicRecord('b', 1);
const ACK = [{ firstOffset: 0n, lastOffset: 1n, acknowledgeTypes: [1] }];

interface Watch { groupId: string; parts: number; wake: () => void }
interface Opts {
  stopping?: boolean; authorizer?: unknown; sessionAnswer?: number; acquire?: (topicId: string, p: number) => { errorCode: number; n: number }; ackCode?: number;
  /** Runs inside each long-poll wait, with the manager's watch of that wait. */
  duringWait?: (watch: Watch) => void;
}

/** A manager whose session holds a-0, a-1 and b-0; acquire hands out `n` records (default 1) from offset 10. */
function setup(opts: Opts = {}) {
  const calls: unknown[][] = [];
  let now = 1000;
  const session: ShareSession = { groupId: 'g', memberId: 'm', epoch: 0, partitions: new Map([[a.topicId, new Set([0, 1])], [b.topicId, new Set([0])]]) };
  const sessions = new Map([['g:m', session]]);
  const mgr = {
    sessions,
    session: (...args: unknown[]) => (calls.push(['session', ...args]), opts.sessionAnswer ?? session),
    configOf: () => ({ recordLockDurationMs: 30_000 }),
    acknowledge: async (...args: unknown[]) => (calls.push(['acknowledge', ...args]), opts.ackCode ?? ErrorCode.NONE),
    acquire: async (_g: string, _m: string, topicId: string, p: number, maxRecords: number, maxBytes: number, recordLimit: boolean) => {
      calls.push(['acquire', topicId === a.topicId ? 'a' : 'b', p, maxRecords, maxBytes, recordLimit]);
      const r = opts.acquire?.(topicId, p) ?? { errorCode: ErrorCode.NONE, n: 1 };
      return { errorCode: r.errorCode, records: r.n > 0 ? [Buffer.from('batch')] : [], acquired: r.n > 0 ? [{ firstOffset: 10n, lastOffset: BigInt(9 + r.n), deliveryCount: 1 }] : [], bytes: 5 * r.n };
    },
    closeSession: async (s: ShareSession) => { calls.push(['closeSession', s === session]); },
    onAvailable: (groupId: string, ps: unknown[], wake: () => void) => {
      watches.push({ groupId, parts: ps.length, wake });
      return () => { stopped++; };
    },
  };
  const watches: Watch[] = [];
  let stopped = 0;
  const waits: number[] = [];
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null, stopping: opts.stopping ?? false,
    config: { fetchMaxBytes: 1000 } as never,
    clock: { now: () => now } as never,
    metadataCache: fakeMetadataCache([a, b]),
    sharePartitions: mgr as never,
    appendSignal: () => ({
      wait: async (ms: number, closed: AbortSignal) => {
        waits.push(ms);
        opts.duringWait?.(watches[watches.length - 1]);
        if (closed.aborted) return 'closed';
        now += ms;
        return 'timeout';
      },
    }) as never,
    partitionState: () => ({ leader: 2, leaderEpoch: 4 }) as never,
    brokerEndpoint: (id: number) => ({ host: `b${id}`, port: 9000 + id, rack: null }),
    logger: { error: () => {} } as never,
  });
  return { broker, calls, session, sessions, waits, watches, stopped: () => stopped };
}

function request(over: Partial<ShareFetchRequest> = {}): ShareFetchRequest {
  return {
    groupId: 'g', memberId: 'm', shareSessionEpoch: 0, maxWaitMs: 0, minBytes: 1, maxBytes: 5000, maxRecords: 0, batchSize: 500, shareAcquireMode: 0, isRenewAck: false,
    topics: [{ topicId: a.topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }, { partitionIndex: 1, partitionMaxBytes: 0, acknowledgementBatches: [] }] }, { topicId: b.topicId, partitions: [{ partitionIndex: 0, partitionMaxBytes: 0, acknowledgementBatches: [] }] }],
    forgottenTopicsData: [], ...over,
  };
}

const fetch = (broker: ReturnType<typeof setup>['broker'], req: ShareFetchRequest, over = {}) => shareFetchHandler.handle(requestContext(broker, 78, 1, over), req) as Promise<any>;
const parts = (r: any) => r.responses.flatMap((t: any) => t.partitions.map((p: any) => [t.topicId === a.topicId ? 'a' : 'b', p.partitionIndex, p.errorCode, p.acknowledgeErrorCode, p.acquiredRecords.length]));

test('no group or member id: INVALID_REQUEST before anything is asked; READ on the group, else GROUP_AUTHORIZATION_FAILED', async () => {
  const none = fakeServices({ authorizer: null });
  for (const over of [{ groupId: null }, { groupId: '' }, { memberId: null }, { memberId: '' }]) {
    assert.is((await fetch(none, request(over))).errorCode, ErrorCode.INVALID_REQUEST, JSON.stringify(over));
  }
  const denied = fakeServices({ authorizer: fakeAuthorizer(() => false) });
  assert.is((await fetch(denied, request())).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
});

test('acknowledgements on an opening request (epoch 0) are INVALID_REQUEST; a session error is the top-level error', async () => {
  const { broker, calls } = setup();
  const req = request();
  req.topics[0].partitions[0].acknowledgementBatches = ACK;
  assert.equal([(await fetch(broker, req)).errorCode, calls], [ErrorCode.INVALID_REQUEST, []]);
  const lost = setup({ sessionAnswer: ErrorCode.SHARE_SESSION_NOT_FOUND });
  const r = await fetch(lost.broker, request({ shareSessionEpoch: 3 }));
  assert.equal([r.errorCode, r.responses, lost.calls.filter((c) => c[0] !== 'session')], [ErrorCode.SHARE_SESSION_NOT_FOUND, [], []]);
});

test('epoch 0 opens the session with the named partitions, then acquires from every session partition; max_bytes capped by fetch.max.bytes, max_records 0 means 500', async () => {
  const { broker, calls } = setup();
  const r = await fetch(broker, request({ forgottenTopicsData: [{ topicId: b.topicId, partitions: [0] }] }));
  assert.equal(calls[0], ['session', 'g', 'm', 0, [{ topicId: a.topicId, partitions: [0, 1] }, { topicId: b.topicId, partitions: [0] }], [{ topicId: b.topicId, partitions: [0] }]]);
  assert.equal(calls.slice(1), [['acquire', 'a', 0, 500, 1000, false], ['acquire', 'a', 1, 499, 995, false], ['acquire', 'b', 0, 498, 990, false]]);
  assert.equal([r.errorCode, r.acquisitionLockTimeoutMs, parts(r)], [0, 30_000, [['a', 0, 0, 0, 1], ['a', 1, 0, 0, 1], ['b', 0, 0, 0, 1]]]);
});

test('max_records bounds what is acquired across partitions; v2 record_limit mode is passed on (KIP-1206)', async () => {
  const { broker, calls } = setup({ acquire: () => ({ errorCode: 0, n: 2 }) });
  await fetch(broker, request({ maxRecords: 3, shareAcquireMode: 1 }));
  assert.equal(calls.slice(1), [['acquire', 'a', 0, 3, 1000, true], ['acquire', 'a', 1, 1, 990, true]]);
});

test('later epochs start at a rotating partition (Kafka\'s PartitionRotateStrategy.ROUND_ROBIN)', async () => {
  const { broker, calls } = setup();
  await fetch(broker, request({ shareSessionEpoch: 4, topics: [] }));
  assert.equal(calls.slice(1).map((c) => [c[1], c[2]]), [['a', 1], ['b', 0], ['a', 0]]);
});

test('piggybacked acknowledgements are applied first, each answered in acknowledge_error_code', async () => {
  const { broker, calls } = setup({ ackCode: ErrorCode.INVALID_RECORD_STATE });
  const req = request({ shareSessionEpoch: 1 });
  req.topics[1].partitions[0].acknowledgementBatches = ACK;
  const r = await fetch(broker, req);
  assert.equal(calls[1], ['acknowledge', 'g', 'm', b.topicId, 0, ACK]);
  assert.equal(calls[2][0], 'acquire');
  assert.equal(parts(r).find((p: any) => p[0] === 'b'), ['b', 0, 0, ErrorCode.INVALID_RECORD_STATE, 1]);
});

test('epoch -1: acknowledgements applied, the session closed, nothing acquired', async () => {
  const { broker, calls } = setup();
  const req = request({ shareSessionEpoch: -1 });
  req.topics[0].partitions[1].acknowledgementBatches = ACK;
  const r = await fetch(broker, req);
  assert.equal(calls.map((c) => c[0]), ['session', 'acknowledge', 'closeSession']);
  assert.equal(parts(r), [['a', 1, 0, 0, 0]]);
});

test('nothing to acquire: the answer waits for appends up to max_wait_ms, looking again at least every 250 ms', async () => {
  const { broker, calls, waits } = setup({ acquire: () => ({ errorCode: 0, n: 0 }) });
  const r = await fetch(broker, request({ shareSessionEpoch: 1, maxWaitMs: 600 }));
  assert.equal([waits, calls.filter((c) => c[0] === 'acquire').length, parts(r).every((p: any) => p[4] === 0)], [[250, 250, 100], 12, true]);
});

test('the long poll is woken by the manager when records may be acquirable again (a release, an expired lock): acquired at once, not at the next look', async () => {
  let available = false;
  const s = setup({
    acquire: () => ({ errorCode: 0, n: available ? 1 : 0 }),
    duringWait: (watch) => { available = true; watch.wake(); },
  });
  const r = await fetch(s.broker, request({ shareSessionEpoch: 1, maxWaitMs: 5000 }));
  assert.equal([s.waits, s.watches.map((w) => [w.groupId, w.parts]), s.stopped()], [[250], [['g', 3]], 1], 'one wait, on all three session partitions, ended by the wake-up and then stopped');
  assert.ok(parts(r).some((p: any) => p[4] > 0), 'records acquired after the wake-up');
  assert.is(s.broker.clock.now(), 1000, 'no time passed');
});

test('a partition led elsewhere: NOT_LEADER_OR_FOLLOWER with the current leader and its endpoint; no long poll on an error', async () => {
  const { broker, waits } = setup({ acquire: (topicId) => (topicId === b.topicId ? { errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, n: 0 } : { errorCode: 0, n: 0 }) });
  const r = await fetch(broker, request({ shareSessionEpoch: 1, maxWaitMs: 5000 }));
  const bPart = r.responses.find((t: any) => t.topicId === b.topicId).partitions[0];
  assert.equal([bPart.errorCode, bPart.currentLeader, r.nodeEndpoints, waits], [ErrorCode.NOT_LEADER_OR_FOLLOWER, { leaderId: 2, leaderEpoch: 4 }, [{ nodeId: 2, host: 'b2', port: 9002, rack: null }], []]);
});

test('READ on each topic: TOPIC_AUTHORIZATION_FAILED for acknowledgements and acquisition of the others, nothing asked for them', async () => {
  const { broker, calls } = setup({ authorizer: fakeAuthorizer((c) => c.name !== 'b') });
  const req = request({ shareSessionEpoch: 1 });
  req.topics[1].partitions[0].acknowledgementBatches = ACK;
  const r = await fetch(broker, req);
  assert.equal(parts(r).find((p: any) => p[0] === 'b'), ['b', 0, ErrorCode.TOPIC_AUTHORIZATION_FAILED, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 0]);
  assert.ok(!calls.some((c) => (c[0] === 'acknowledge' && c[3] === b.topicId) || (c[0] === 'acquire' && c[1] === 'b')));
});

test('the connection a session last fetched on closing releases what the member holds (not when the broker stops, not a replaced session)', async () => {
  const { broker, calls, sessions } = setup();
  const conn = new AbortController();
  await fetch(broker, request(), { closed: conn.signal, connectionId: 7 });
  conn.abort();
  await new Promise((r) => setImmediate(r));
  assert.equal(calls.filter((c) => c[0] === 'closeSession'), [['closeSession', true]]);
  const replaced = setup();
  const conn2 = new AbortController();
  await fetch(replaced.broker, request(), { closed: conn2.signal, connectionId: 8 });
  replaced.sessions.clear();
  conn2.abort();
  await new Promise((r) => setImmediate(r));
  assert.equal([replaced.calls.filter((c) => c[0] === 'closeSession'), sessions.size], [[], 1]);
  const stopping = setup({ stopping: true });
  const conn3 = new AbortController();
  await fetch(stopping.broker, request(), { closed: conn3.signal, connectionId: 9 });
  conn3.abort();
  await new Promise((r) => setImmediate(r));
  assert.equal(stopping.calls.filter((c) => c[0] === 'closeSession'), []);
});

test.run();
