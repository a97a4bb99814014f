/**
 * OffsetForLeaderEpoch (023) against a fake BrokerServices and partition: what it asks the leader
 * epoch cache (Kafka's LeaderEpochFileCache.endOffsetFor, whose rules have their own tests), the
 * checks before it (Kafka's ReplicaManager.lastOffsetForLeaderEpoch, Partition.getLocalLog) and
 * the ACLs of KafkaApis.handleOffsetForLeaderEpochRequest.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { offsetForLeaderEpochHandler } from '../../../src/broker/handlers/023-offset-for-leader-epoch.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { OffsetForLeaderEpochRequest } from '../../../src/protocol/generated/messages/offset-for-leader-epoch-request.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

/** The leader is at epoch 5, log end 90; its cache answers epoch e with end offset 10 * e (-1/-1 above 5). */
function setup(opts: { authorizer?: unknown; leader?: boolean } = {}) {
  const asked: [number, number][] = [];
  const partition = {
    isLeader: opts.leader ?? true, leaderEpoch: 5,
    log: { logEndOffset: 90, leaderEpochCache: { endOffsetFor: (e: number, leo: number) => (asked.push([e, leo]), e > 5 ? { leaderEpoch: -1, endOffset: -1 } : { leaderEpoch: e, endOffset: e === 5 ? leo : 10 * e }) } },
  };
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache([topicRecord('t', 2), topicRecord('u', 1)]),
    replicaManager: { getPartition: () => partition } as never,
    partitionState: () => ({ leader: 1, leaderEpoch: 5 }) as never,
  });
  return { broker, asked };
}

function request(topics: [string, [number, number, number][]][], replicaId = -1): OffsetForLeaderEpochRequest {
  return { replicaId, topics: topics.map(([topic, ps]) => ({ topic, partitions: ps.map(([partition, leaderEpoch, currentLeaderEpoch]) => ({ partition, leaderEpoch, currentLeaderEpoch })) })) };
}

function ask(broker: ReturnType<typeof setup>['broker'], req: OffsetForLeaderEpochRequest, v = 4) {
  const r = offsetForLeaderEpochHandler.handle(requestContext(broker, 23, v), req) as any;
  return r.topics.map((t: any) => [t.topic, t.partitions.map((p: any) => [p.partition, p.errorCode, p.leaderEpoch, Number(p.endOffset)])]);
}

test('each partition: the epoch cache\'s answer for the requested epoch and the log end offset', () => {
  const { broker, asked } = setup();
  assert.equal(ask(broker, request([['t', [[0, 5, -1], [1, 2, 5]]], ['u', [[0, 9, -1]]]])), [['t', [[0, 0, 5, 90], [1, 0, 2, 20]]], ['u', [[0, 0, -1, -1]]]]);
  assert.equal(asked, [[5, 90], [2, 90], [9, 90]]);
});

test('current_leader_epoch below the leader\'s FENCED_LEADER_EPOCH, above UNKNOWN_LEADER_EPOCH; -1/-1 and the cache not asked', () => {
  const { broker, asked } = setup();
  assert.equal(ask(broker, request([['t', [[0, 3, 4], [1, 3, 6]]]])), [['t', [[0, ErrorCode.FENCED_LEADER_EPOCH, -1, -1], [1, ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1]]]]);
  assert.equal(asked, []);
});

test('unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION; a partition this broker does not lead NOT_LEADER_OR_FOLLOWER', () => {
  assert.equal(ask(setup().broker, request([['missing', [[0, 1, -1]]], ['t', [[2, 1, -1]]]])), [['missing', [[0, 3, -1, -1]]], ['t', [[2, 3, -1, -1]]]]);
  assert.equal(ask(setup({ leader: false }).broker, request([['t', [[0, 1, -1]]]])), [['t', [[0, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1]]]]);
});

test('ACLs: CLUSTER_ACTION (followers) allows every topic; else DESCRIBE on each, TOPIC_AUTHORIZATION_FAILED for the others (KIP-320)', () => {
  const authorizer = fakeAuthorizer((c) => c.op === AclOperation.DESCRIBE && c.resourceType === ResourceType.TOPIC && c.name === 't');
  const { broker, asked } = setup({ authorizer });
  assert.equal(ask(broker, request([['t', [[0, 5, -1]]], ['u', [[0, 5, -1]]]])), [['t', [[0, 0, 5, 90]]], ['u', [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1, -1]]]]);
  assert.equal(asked.length, 1);
  assert.equal(authorizer.checks[0], { op: AclOperation.CLUSTER_ACTION, resourceType: ResourceType.CLUSTER, name: 'kafka-cluster' });
  const follower = setup({ authorizer: fakeAuthorizer((c) => c.op === AclOperation.CLUSTER_ACTION) });
  assert.equal(ask(follower.broker, request([['u', [[0, 5, -1]]]]), 3), [['u', [[0, 0, 5, 90]]]]);
});

test('the whole-request error answer: every partition with the code and -1/-1', () => {
  const e = offsetForLeaderEpochHandler.errorResponse(request([['t', [[0, 1, -1], [1, 1, -1]]]]), ErrorCode.UNKNOWN_SERVER_ERROR, requestContext(setup().broker, 23, 4));
  assert.equal(e.topics[0].partitions.map((p) => [p.partition, p.errorCode, p.leaderEpoch, Number(p.endOffset)]), [[0, -1, -1, -1], [1, -1, -1, -1]]);
});

test.run();
