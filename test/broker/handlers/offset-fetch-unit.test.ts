/**
 * OffsetFetch (009) against a fake BrokerServices: what it asks GroupCoordinator.fetchOffsets
 * (behaviours.md OF1-OF5 live there), the answer's shape by version (v1 per partition, v2-7 top
 * level, v8+ per group), ACLs (Kafka's KafkaApis.handleOffsetFetchRequest).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { offsetFetchHandler } from '../../../src/broker/handlers/009-offset-fetch.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { ResourceType } from '../../../src/protocol/acl.js';
import type { OffsetFetchRequest } from '../../../src/protocol/generated/messages/offset-fetch-request.js';
import { fakeAuthorizer, fakeServices, requestContext } from '../../support/fake-services.js';
import { ZERO_UUID } from '../../../src/protocol/reader.js';

type Topics = { name: string; partitionIndexes: number[] }[] | null;
const COMMITTED: Record<string, number[]> = { a: [0, 1], b: [0] };

/** The coordinator has offset 10 * (partition + 1) committed for a-0, a-1, b-0; group 'down' throws COORDINATOR_NOT_AVAILABLE. */
function setup(authorizer: unknown = null) {
  const calls: unknown[][] = [];
  const broker = fakeServices({
    authorizer,
    groupCoordinator: {
      fetchOffsets: async (groupId: string, topics: Topics, member: unknown, requireStable: boolean) => {
        calls.push([groupId, topics, member, requireStable]);
        if (groupId === 'down') throw new KafkaApiError(ErrorCode.COORDINATOR_NOT_AVAILABLE);
        const wanted = topics ?? Object.entries(COMMITTED).map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
        return wanted.map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((p) => (COMMITTED[t.name]?.includes(p)
            ? { partitionIndex: p, committedOffset: BigInt(10 * (p + 1)), committedLeaderEpoch: 1, metadata: 'm', errorCode: 0 }
            : { partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: 0 })),
        }));
      },
    } as never,
  });
  return { broker, calls };
}

function request(groupId: string, topics: Topics, requireStable = false): OffsetFetchRequest {
  return { groupId, topics, requireStable, groups: [] };
}

const offsets = (topics: any[]) => topics.map((t: any) => [t.name, t.partitions.map((p: any) => [p.partitionIndex, Number(p.committedOffset), p.metadata, p.errorCode])]);

test('v1-7: one group; the coordinator is asked for the named partitions (never-committed ones -1, OF1/OF3); require_stable only from v7', async () => {
  const { broker, calls } = setup();
  const r = await offsetFetchHandler.handle(requestContext(broker, 9, 6), request('g', [{ name: 'a', partitionIndexes: [1, 5] }], true)) as any;
  assert.equal([r.errorCode, offsets(r.topics), r.groups], [0, [['a', [[1, 20, 'm', 0], [5, -1, '', 0]]]], []]);
  await offsetFetchHandler.handle(requestContext(broker, 9, 7), request('g', null, true));
  assert.equal(calls, [['g', [{ name: 'a', partitionIndexes: [1, 5] }], undefined, false], ['g', null, undefined, true]]);
});

test('v8+: several groups, each answered on its own; v9 passes the member id and epoch; a null group id is INVALID_GROUP_ID (OF5)', async () => {
  const { broker, calls } = setup();
  const req: OffsetFetchRequest = { groupId: '', topics: null, requireStable: false, groups: [
    { groupId: 'g1', memberId: 'm', memberEpoch: 3, topics: [{ name: 'b', topicId: ZERO_UUID, partitionIndexes: [0] }] },
    { groupId: 'down', memberId: null, memberEpoch: -1, topics: null },
    { groupId: null as never, memberId: null, memberEpoch: -1, topics: null },
  ] };
  const r = await offsetFetchHandler.handle(requestContext(broker, 9, 9), req) as any;
  assert.equal([r.errorCode, r.topics], [0, []]);
  assert.equal(r.groups.map((g: any) => [g.groupId, g.errorCode, offsets(g.topics)]), [
    ['g1', 0, [['b', [[0, 10, 'm', 0]]]]], ['down', ErrorCode.COORDINATOR_NOT_AVAILABLE, []], [null, ErrorCode.INVALID_GROUP_ID, []],
  ]);
  assert.equal(calls.map((c) => [c[0], c[2]]), [['g1', { memberId: 'm', memberEpoch: 3 }], ['down', { memberId: null, memberEpoch: -1 }]]);
  await offsetFetchHandler.handle(requestContext(broker, 9, 8), req);
  assert.is(calls[2][2], undefined, 'v8 has no member fields');
});

test('a coordinator error: top-level from v2, on every requested partition at v1 (no top-level field)', async () => {
  const { broker } = setup();
  const v2 = await offsetFetchHandler.handle(requestContext(broker, 9, 2), request('down', [{ name: 'a', partitionIndexes: [0] }])) as any;
  assert.equal([v2.errorCode, v2.topics], [ErrorCode.COORDINATOR_NOT_AVAILABLE, []]);
  const v1 = await offsetFetchHandler.handle(requestContext(broker, 9, 1), request('down', [{ name: 'a', partitionIndexes: [0, 1] }])) as any;
  assert.equal(offsets(v1.topics), [['a', [[0, -1, '', 15], [1, -1, '', 15]]]]);
});

test('DESCRIBE on the group, else GROUP_AUTHORIZATION_FAILED before the coordinator is asked', async () => {
  const { broker, calls } = setup(fakeAuthorizer((c) => c.resourceType === ResourceType.TOPIC));
  const r = await offsetFetchHandler.handle(requestContext(broker, 9, 7), request('g', null)) as any;
  assert.equal([r.errorCode, r.topics, calls], [ErrorCode.GROUP_AUTHORIZATION_FAILED, [], []]);
});

test('DESCRIBE on each topic: named partitions of others TOPIC_AUTHORIZATION_FAILED with offset -1; with topics null they are left out', async () => {
  const { broker } = setup(fakeAuthorizer((c) => c.resourceType === ResourceType.GROUP || c.name === 'a'));
  const named = await offsetFetchHandler.handle(requestContext(broker, 9, 7), request('g', [{ name: 'a', partitionIndexes: [0] }, { name: 'b', partitionIndexes: [0] }])) as any;
  assert.equal(offsets(named.topics), [['a', [[0, 10, 'm', 0]]], ['b', [[0, -1, '', ErrorCode.TOPIC_AUTHORIZATION_FAILED]]]]);
  assert.is(named.topics[1].partitions[0].committedLeaderEpoch, -1);
  const all = await offsetFetchHandler.handle(requestContext(broker, 9, 7), request('g', null)) as any;
  assert.equal(all.topics.map((t: any) => t.name), ['a']);
});

test('the whole-request error answer by version', () => {
  const { broker } = setup();
  const req = { ...request('g', [{ name: 'a', partitionIndexes: [0] }]), groups: [{ groupId: 'g', memberId: null, memberEpoch: -1, topics: null }] };
  assert.equal(offsets(offsetFetchHandler.errorResponse(req, 15, requestContext(broker, 9, 1)).topics), [['a', [[0, -1, '', 15]]]]);
  assert.equal(offsetFetchHandler.errorResponse(req, 15, requestContext(broker, 9, 5)).errorCode, 15);
  assert.equal(offsetFetchHandler.errorResponse(req, 15, requestContext(broker, 9, 8)).groups.map((g) => [g.groupId, g.errorCode]), [['g', 15]]);
});

test.run();
