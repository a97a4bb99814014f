/**
 * The Fetch handler (001) against a fake BrokerServices: what it resolves and answers itself,
 * and what it hands to ReplicaManager.fetchMessages (issue 24: the data path lives in the replica
 * manager, the handler authorizes, resolves, delegates and encodes).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fetchHandler } from '../../../src/broker/handlers/001-fetch.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { FetchParams, FetchPartition, FetchPartitionResult } from '../../../src/replication/fetch-messages.js';
import { defaultFetchPartition, defaultFetchRequest } from '../../../src/protocol/generated/messages/fetch-request.js';
import { fakeServices, requestContext } from '../../support/fake-services.js';
import { FetchSessionCache } from '../../../src/replication/fetch-session.js';
import { ManualClock } from '../../../src/clock.js';
import { BrokerMetrics } from '../../../src/http/metrics/broker-metrics.js';

const topic = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: 2, configs: {} };

function setup(answer: (p: FetchPartition) => FetchPartitionResult, throttleMs = () => 0) {
  const calls: { params: FetchParams; parts: FetchPartition[] }[] = [];
  const fetchSessions = new FetchSessionCache({ slots: 1000, clock: new ManualClock(0) });
  const broker = fakeServices({
    authorizer: null,
    config: { fetchMaxBytes: 1000 } as never,
    metadataCache: { topic: (n: string) => (n === 't' ? topic : undefined), topicById: (id: string) => (id === topic.topicId ? topic : undefined) } as never,
    replicaManager: {
      fetchMessages: async (params: FetchParams, parts: FetchPartition[]) => {
        calls.push({ params, parts });
        return { partitions: parts.map(answer), bytes: 0, throttledBytes: 0 };
      },
      fetchSessions,
    } as never,
    quotas: { active: false, recordAndThrottle: throttleMs } as never,
    partitionState: () => ({ leader: 3, leaderEpoch: 7 }) as never,
    brokerEndpoint: (id: number) => ({ host: `b${id}`, port: 9000 + id, rack: null }),
    metrics: new BrokerMetrics(() => 'Fetch'),
  });
  /** Topic t's TotalFetchRequestsPerSec and FailedFetchRequestsPerSec counts. */
  const reads = () => [broker.metrics.topic('t').totalFetchRequests, broker.metrics.topic('t').failedFetchRequests];
  return { broker, calls, fetchSessions, reads };
}

const ok = (): FetchPartitionResult => ({ errorCode: ErrorCode.NONE, highWatermark: 5, lastStableOffset: 5, logStartOffset: 0, divergingEpoch: null, preferredReadReplica: -1, abortedTransactions: null, records: [] });

function request(v: number, partitions: number[], byName = true) {
  const req = defaultFetchRequest();
  req.maxBytes = 1 << 20;
  req.maxWaitMs = 500;
  req.topics = [{ topic: byName ? 't' : '', topicId: byName ? 'AAAAAAAAAAAAAAAAAAAAAA' : topic.topicId, partitions: partitions.map((partition) => ({ ...defaultFetchPartition(), partition, fetchOffset: 3n, partitionMaxBytes: 100 })) }];
  return req;
}

test('known partitions go to the replica manager with the capped max_bytes; unknown ones are answered here and do not end the long poll (Kafka)', async () => {
  const { broker, calls, reads } = setup(ok);
  const r = await fetchHandler.handle(requestContext(broker, 1, 12), request(12, [0, 5])) as any;
  assert.is(calls.length, 1);
  assert.equal(reads(), [1, 0], 'TotalFetchRequestsPerSec counts the partition read, not the unknown one (Kafka\'s readFromLog)');
  assert.equal(calls[0].parts.map((p) => [p.topic.name, p.partition, p.fetchOffset]), [['t', 0, 3]]);
  assert.equal([calls[0].params.maxBytes, calls[0].params.maxWaitMs, calls[0].params.replicaId], [1000, 500, -1]);
  assert.equal(r.responses[0].partitions.map((p: any) => [p.partitionIndex, p.errorCode, p.abortedTransactions]), [[0, ErrorCode.NONE, null], [5, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, []]]);
});

test('an unknown topic id (v13+) is UNKNOWN_TOPIC_ID; a known one is named in the answer', async () => {
  const { broker } = setup(ok);
  const known = await fetchHandler.handle(requestContext(broker, 1, 13), request(13, [1], false)) as any;
  assert.equal([known.responses[0].topic, known.responses[0].partitions[0].errorCode], ['t', ErrorCode.NONE]);
  const req = request(13, [0], false);
  req.topics[0].topicId = 'AAAAAAAAAAAAAAAAAAAAAg';
  const unknown = await fetchHandler.handle(requestContext(broker, 1, 13), req) as any;
  assert.is(unknown.responses[0].partitions[0].errorCode, ErrorCode.UNKNOWN_TOPIC_ID);
});

test('NOT_LEADER_OR_FOLLOWER from the data path names the leader (v12+) and its endpoint (v16+)', async () => {
  const { broker, reads } = setup(() => ({ ...ok(), errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1 }));
  const v12 = await fetchHandler.handle(requestContext(broker, 1, 12), request(12, [0])) as any;
  assert.equal(reads(), [1, 0], 'a partition led elsewhere is no failed read (FailedFetchRequestsPerSec counts unexpected errors)');
  const broken = setup(() => ({ ...ok(), errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1 }));
  await fetchHandler.handle(requestContext(broken.broker, 1, 12), request(12, [0, 1]));
  assert.equal(broken.reads(), [2, 2], 'an unexpected read error does count');
  assert.equal(v12.responses[0].partitions[0].currentLeader, { leaderId: 3, leaderEpoch: 7 });
  assert.equal(v12.nodeEndpoints, []);
  const v16 = await fetchHandler.handle(requestContext(broker, 1, 16), request(16, [0], false)) as any;
  assert.equal(v16.nodeEndpoints.map((e: any) => [e.nodeId, e.host, e.port]), [[3, 'b3', 9003]]);
});

test('an incremental fetch naming an unknown session is FETCH_SESSION_ID_NOT_FOUND before anything is read; epoch -1 is sessionless', async () => {
  const { broker, calls } = setup(ok);
  const req = request(12, [0]);
  req.sessionId = 9;
  req.sessionEpoch = 1;
  const r = await fetchHandler.handle(requestContext(broker, 1, 12), req) as any;
  assert.equal([r.errorCode, r.sessionId, r.responses, calls.length], [ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0, [], 0]);
  req.sessionEpoch = -1;
  const full = await fetchHandler.handle(requestContext(broker, 1, 12), req) as any;
  assert.equal([full.errorCode, full.sessionId, full.responses[0].partitions.length], [ErrorCode.NONE, 0, 1]);
});

test('a session: epoch 0 creates it; an incremental fetch reads every session partition and answers only the changed ones', async () => {
  let hw = 5;
  const { broker, calls, fetchSessions, reads } = setup((p) => ({ ...ok(), highWatermark: p.partition === 1 ? hw : 5 }));
  const req = request(12, [0, 1]);
  req.sessionEpoch = 0;
  const full = await fetchHandler.handle(requestContext(broker, 1, 12), req) as any;
  assert.ok(full.sessionId > 0);
  assert.is(full.responses[0].partitions.length, 2);
  assert.is(fetchSessions.size, 1);
  const inc = defaultFetchRequest();
  inc.maxWaitMs = 500;
  inc.sessionId = full.sessionId;
  inc.sessionEpoch = 1;
  const none = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal(calls[1].parts.map((p) => [p.partition, p.fetchOffset]), [[0, 3], [1, 3]]);
  // Nothing changed: the long poll was asked for, and the answer is empty.
  assert.is(calls[1].params.maxWaitMs, 500);
  assert.equal([none.errorCode, none.sessionId, none.responses], [ErrorCode.NONE, full.sessionId, []]);
  assert.equal(reads(), [4, 0], 'both partitions read twice: the implied ones of the empty incremental answer count (Kafka)');
  hw = 6;
  inc.sessionEpoch = 2;
  const changed = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal(changed.responses.map((t: any) => [t.topic, t.partitions.map((p: any) => [p.partitionIndex, p.highWatermark])]), [['t', [[1, 6n]]]]);
  // The same epoch again (a resent request): the session has moved on.
  const again = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal([again.errorCode, again.sessionId], [ErrorCode.INVALID_FETCH_SESSION_EPOCH, 0]);
});

test('a whole-request error (Kafka\'s getErrorResponse): the request\'s session id; before v13 every partition with the error too', async () => {
  const { broker } = setup(ok);
  const req = request(12, [0, 1]);
  req.sessionId = 2147483647;
  req.sessionEpoch = 1;
  const v12 = fetchHandler.errorResponse(req, ErrorCode.UNKNOWN_SERVER_ERROR, requestContext(broker, 1, 12)) as any;
  assert.equal([v12.errorCode, v12.sessionId], [ErrorCode.UNKNOWN_SERVER_ERROR, 2147483647]);
  assert.equal(v12.responses[0].partitions.map((p: any) => [p.partitionIndex, p.errorCode, p.highWatermark]), [[0, -1, -1n], [1, -1, -1n]]);
  const v13 = fetchHandler.errorResponse(request(13, [0], false), ErrorCode.UNKNOWN_SERVER_ERROR, requestContext(broker, 1, 13)) as any;
  assert.equal(v13.responses, []);
  // A session id past the last cache shard fails the request so (Kafka: IndexOutOfBoundsException).
  const thrown = await Promise.resolve().then(() => fetchHandler.handle(requestContext(broker, 1, 12), req)).then(() => null, (e: { errorCode?: number }) => e);
  assert.is(thrown?.errorCode, ErrorCode.UNKNOWN_SERVER_ERROR);
});

test('a throttled incremental fetch keeps its session: no partitions, the session id, throttle_time_ms', async () => {
  let throttle = 0;
  const { broker } = setup(ok, () => throttle);
  const req = request(12, [0]);
  req.sessionEpoch = 0;
  const full = await fetchHandler.handle(requestContext(broker, 1, 12), req) as any;
  throttle = 250;
  const inc = defaultFetchRequest();
  inc.sessionId = full.sessionId;
  inc.sessionEpoch = 1;
  const r = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal([r.errorCode, r.sessionId, r.throttleTimeMs, r.responses], [ErrorCode.NONE, full.sessionId, 250, []]);
  throttle = 0;
  inc.sessionEpoch = 2;
  const next = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal([next.errorCode, next.sessionId], [ErrorCode.NONE, full.sessionId]);
});

test('KIP-392: a consumer\'s rack and listener reach the data path from v11 (not before, never a follower\'s); preferred_read_replica is answered, also in an incremental session', async () => {
  let preferred = -1;
  const { broker, calls } = setup(() => ({ ...ok(), preferredReadReplica: preferred }));
  const v10 = request(10, [0]);
  v10.rackId = 'east';
  await fetchHandler.handle(requestContext(broker, 1, 10), v10);
  assert.is(calls[0].params.clientMetadata, null, 'before v11 a consumer reads from the leader only');
  const v11 = request(11, [0]);
  v11.rackId = 'east';
  await fetchHandler.handle(requestContext(broker, 1, 11, { listenerName: 'CLIENTS' }), v11);
  assert.equal(calls[1].params.clientMetadata, { rackId: 'east', listenerName: 'CLIENTS' });
  const follower = request(11, [0]);
  follower.replicaId = 2;
  await fetchHandler.handle(requestContext(broker, 1, 11), follower);
  assert.is(calls[2].params.clientMetadata, null, 'a follower fetches from the leader');

  const full = request(12, [0, 1]);
  full.sessionEpoch = 0;
  const first = await fetchHandler.handle(requestContext(broker, 1, 12), full) as any;
  assert.ok(first.sessionId > 0);
  assert.equal(first.responses[0].partitions.map((p: any) => p.preferredReadReplica), [-1, -1]);
  const inc = defaultFetchRequest();
  inc.sessionId = first.sessionId;
  inc.sessionEpoch = 1;
  const idle = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal(idle.responses, [], 'nothing changed');
  preferred = 2;
  inc.sessionEpoch = 2;
  const moved = await fetchHandler.handle(requestContext(broker, 1, 12), inc) as any;
  assert.equal(moved.responses[0].partitions.map((p: any) => [p.partitionIndex, p.preferredReadReplica, p.records.length]), [[0, 2, 0], [1, 2, 0]],
    'a preferred read replica is always answered (FetchSession: mustRespond)');
});

test.run();
