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

const topic = { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: 2, configs: {} };

function setup(answer: (p: FetchPartition) => FetchPartitionResult) {
  const calls: { params: FetchParams; parts: FetchPartition[] }[] = [];
  const broker = fakeServices({
    authorizer: null,
    config: { fetchMaxBytes: 1000 } as never,
    metadataCache: { topic: (n: string) => (n === 't' ? topic : undefined), topicById: (id: string) => (id === topic.topicId ? topic : undefined) } as never,
    replicaManager: {
      fetchMessages: async (params: FetchParams, parts: FetchPartition[]) => {
        calls.push({ params, parts });
        return { partitions: parts.map(answer), bytes: 0, throttledBytes: 0 };
      },
    } as never,
    quotas: { active: false, recordAndThrottle: () => 0 } as never,
    partitionState: () => ({ leader: 3, leaderEpoch: 7 }) as never,
    brokerEndpoint: (id: number) => ({ host: `b${id}`, port: 9000 + id, rack: null }),
  });
  return { broker, calls };
}

const ok = (): FetchPartitionResult => ({ errorCode: ErrorCode.NONE, highWatermark: 5, lastStableOffset: 5, logStartOffset: 0, divergingEpoch: null, abortedTransactions: null, records: [] });

function request(v: number, partitions: number[], byName = true) {
  const req = defaultFetchRequest();
  req.maxBytes = 1 << 20;
  req.maxWaitMs = 500;
  req.topics = [{ topic: byName ? 't' : '', topicId: byName ? 'AAAAAAAAAAAAAAAAAAAAAA' : topic.topicId, partitions: partitions.map((partition) => ({ ...defaultFetchPartition(), partition, fetchOffset: 3n, partitionMaxBytes: 100 })) }];
  return req;
}

test('known partitions go to the replica manager with the capped max_bytes; unknown ones are answered here, without a long poll', async () => {
  const { broker, calls } = setup(ok);
  const r = await fetchHandler.handle(requestContext(broker, 1, 12), request(12, [0, 5])) as any;
  assert.is(calls.length, 1);
  assert.equal(calls[0].parts.map((p) => [p.topic.name, p.partition, p.fetchOffset]), [['t', 0, 3]]);
  assert.equal([calls[0].params.maxBytes, calls[0].params.maxWaitMs, calls[0].params.replicaId], [1000, 0, -1]);
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
  const { broker } = setup(() => ({ ...ok(), errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1 }));
  const v12 = await fetchHandler.handle(requestContext(broker, 1, 12), request(12, [0])) as any;
  assert.equal(v12.responses[0].partitions[0].currentLeader, { leaderId: 3, leaderEpoch: 7 });
  assert.equal(v12.nodeEndpoints, []);
  const v16 = await fetchHandler.handle(requestContext(broker, 1, 16), request(16, [0], false)) as any;
  assert.equal(v16.nodeEndpoints.map((e: any) => [e.nodeId, e.host, e.port]), [[3, 'b3', 9003]]);
});

test('an incremental fetch session is declined before anything is read', async () => {
  const { broker, calls } = setup(ok);
  const req = request(12, [0]);
  req.sessionId = 9;
  const r = await fetchHandler.handle(requestContext(broker, 1, 12), req) as any;
  assert.equal([r.errorCode, calls.length], [ErrorCode.FETCH_SESSION_ID_NOT_FOUND, 0]);
});

test.run();
