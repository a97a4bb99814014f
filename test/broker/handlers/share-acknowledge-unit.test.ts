/**
 * ShareAcknowledge (079) against a fake BrokerServices and a fake SharePartitionManager: the
 * request checks, the session it must continue, the acknowledgements it hands to
 * sharePartitions.acknowledge, leader hints, ACLs, closing with epoch -1 (KIP-932).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { shareAcknowledgeHandler } from '../../../src/broker/handlers/079-share-acknowledge.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { ShareAcknowledgeRequest } from '../../../src/protocol/generated/messages/share-acknowledge-request.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

const a = topicRecord('a', 2);
const b = topicRecord('b', 1);
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const ACK = [{ firstOffset: 3n, lastOffset: 4n, acknowledgeTypes: [1, 3] }];

function setup(opts: { authorizer?: unknown; sessionAnswer?: number; ack?: (topicId: string, p: number) => number } = {}) {
  const calls: unknown[][] = [];
  const session = { groupId: 'g', memberId: 'm', epoch: 1, partitions: new Map() };
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache([a, b]),
    sharePartitions: {
      session: (...args: unknown[]) => (calls.push(['session', ...args]), opts.sessionAnswer ?? session),
      acknowledge: async (...args: unknown[]) => (calls.push(['acknowledge', ...args]), opts.ack?.(args[2] as string, args[3] as number) ?? ErrorCode.NONE),
      closeSession: async (s: unknown) => { calls.push(['closeSession', s === session]); },
      configOf: () => ({ recordLockDurationMs: 15_000 }),
    } as never,
    partitionState: () => ({ leader: 3, leaderEpoch: 7 }) as never,
    brokerEndpoint: (id: number) => ({ host: `b${id}`, port: 9000 + id, rack: 'r' }),
  });
  return { broker, calls };
}

function request(epoch: number, topics: [string, number[]][], over: Partial<ShareAcknowledgeRequest> = {}): ShareAcknowledgeRequest {
  return { groupId: 'g', memberId: 'm', shareSessionEpoch: epoch, isRenewAck: false, topics: topics.map(([topicId, ps]) => ({ topicId, partitions: ps.map((partitionIndex) => ({ partitionIndex, acknowledgementBatches: ACK })) })), ...over };
}

const ack = (broker: ReturnType<typeof setup>['broker'], req: ShareAcknowledgeRequest) => shareAcknowledgeHandler.handle(requestContext(broker, 79, 2), req) as Promise<any>;
const codes = (r: any) => r.responses.map((t: any) => [t.topicId, t.partitions.map((p: any) => [p.partitionIndex, p.errorCode])]);

test('each partition\'s acknowledgements go to the share-partition manager in the session of the next epoch; its codes are answered with the lock timeout', async () => {
  const { broker, calls } = setup({ ack: (topicId, p) => (topicId === a.topicId && p === 1 ? ErrorCode.INVALID_RECORD_STATE : ErrorCode.NONE) });
  const r = await ack(broker, request(2, [[a.topicId, [0, 1]], [b.topicId, [0]]]));
  assert.equal(calls[0], ['session', 'g', 'm', 2, [], []]);
  assert.equal(calls.slice(1), [['acknowledge', 'g', 'm', a.topicId, 0, ACK], ['acknowledge', 'g', 'm', a.topicId, 1, ACK], ['acknowledge', 'g', 'm', b.topicId, 0, ACK]]);
  assert.equal([r.errorCode, r.acquisitionLockTimeoutMs, codes(r), r.nodeEndpoints], [0, 15_000, [[a.topicId, [[0, 0], [1, ErrorCode.INVALID_RECORD_STATE]]], [b.topicId, [[0, 0]]]], []]);
});

test('epoch -1 applies the acknowledgements, then closes the session', async () => {
  const { broker, calls } = setup();
  await ack(broker, request(-1, [[a.topicId, [0]]]));
  assert.equal(calls.map((c) => c[0]), ['session', 'acknowledge', 'closeSession']);
  assert.equal(calls[2], ['closeSession', true]);
});

test('invalid requests: no group or member id INVALID_REQUEST; epoch 0 INVALID_SHARE_SESSION_EPOCH; a session error at the top level; nothing acknowledged', async () => {
  const empty = fakeServices({ authorizer: null });
  for (const over of [{ groupId: null }, { groupId: '' }, { memberId: null }, { memberId: '' }]) {
    assert.is((await ack(empty, request(1, [[a.topicId, [0]]], over))).errorCode, ErrorCode.INVALID_REQUEST);
  }
  assert.is((await ack(empty, request(0, [[a.topicId, [0]]]))).errorCode, ErrorCode.INVALID_SHARE_SESSION_EPOCH);
  const { broker, calls } = setup({ sessionAnswer: ErrorCode.INVALID_SHARE_SESSION_EPOCH });
  const r = await ack(broker, request(5, [[a.topicId, [0]]]));
  assert.equal([r.errorCode, r.responses, calls.map((c) => c[0])], [ErrorCode.INVALID_SHARE_SESSION_EPOCH, [], ['session']]);
});

test('NOT_LEADER_OR_FOLLOWER names the current leader and lists its endpoint once; an unknown topic id is the manager\'s answer', async () => {
  const { broker } = setup({ ack: (topicId) => (topicId === UNKNOWN_ID ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.NOT_LEADER_OR_FOLLOWER) });
  const r = await ack(broker, request(1, [[a.topicId, [0, 1]], [UNKNOWN_ID, [0]]]));
  assert.equal(codes(r), [[a.topicId, [[0, 6], [1, 6]]], [UNKNOWN_ID, [[0, ErrorCode.UNKNOWN_TOPIC_ID]]]]);
  assert.equal([r.responses[0].partitions[0].currentLeader, r.responses[1].partitions[0].currentLeader], [{ leaderId: 3, leaderEpoch: 7 }, { leaderId: -1, leaderEpoch: -1 }]);
  assert.equal(r.nodeEndpoints, [{ nodeId: 3, host: 'b3', port: 9003, rack: 'r' }]);
});

test('READ on the group, else GROUP_AUTHORIZATION_FAILED; READ on each topic, else TOPIC_AUTHORIZATION_FAILED without acknowledging', async () => {
  assert.is((await ack(fakeServices({ authorizer: fakeAuthorizer(() => false) }), request(1, [[a.topicId, [0]]]))).errorCode, ErrorCode.GROUP_AUTHORIZATION_FAILED);
  const { broker, calls } = setup({ authorizer: fakeAuthorizer((c) => c.name !== 'b') });
  const r = await ack(broker, request(1, [[a.topicId, [0]], [b.topicId, [0]]]));
  assert.equal(codes(r), [[a.topicId, [[0, 0]]], [b.topicId, [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED]]]]);
  assert.equal(calls.filter((c) => c[0] === 'acknowledge').map((c) => c[3]), [a.topicId]);
});

test.run();
