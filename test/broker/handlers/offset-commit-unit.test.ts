/**
 * OffsetCommit (008) against a fake BrokerServices: what the handler answers itself (ACLs,
 * unknown topics and partitions: behaviours.md OC9; Kafka's KafkaApis.handleOffsetCommitRequest)
 * and what it hands to GroupCoordinator.commitOffsets (the group rules OC1-OC8 live there).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { offsetCommitHandler } from '../../../src/broker/handlers/008-offset-commit.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { OffsetCommitRequest } from '../../../src/protocol/generated/messages/offset-commit-request.js';
import type { CommitRequest } from '../../../src/coordinator/group/offset-metadata-manager.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';
import { ZERO_UUID } from '../../../src/protocol/reader.js';

function setup(opts: { authorizer?: unknown; answer?: (req: CommitRequest) => { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] } = {}) {
  const calls: { req: CommitRequest; v: number }[] = [];
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache([topicRecord('a', 2), topicRecord('b', 1)]),
    groupCoordinator: {
      commitOffsets: async (req: CommitRequest, v: number) => {
        calls.push({ req, v });
        return opts.answer ? opts.answer(req) : req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE })) }));
      },
    } as never,
  });
  return { broker, calls };
}

function request(topics: [string, number[]][], over: Partial<OffsetCommitRequest> = {}): OffsetCommitRequest {
  return {
    groupId: 'g', generationIdOrMemberEpoch: 4, memberId: 'm-1', groupInstanceId: 'i-1', retentionTimeMs: 60_000n,
    topics: topics.map(([name, ps]) => ({ name, topicId: ZERO_UUID, partitions: ps.map((partitionIndex) => ({ partitionIndex, committedOffset: BigInt(100 + partitionIndex), committedLeaderEpoch: 2, committedMetadata: 'md' })) })),
    ...over,
  };
}

const codes = (r: any) => r.topics.map((t: any) => [t.name, t.partitions.map((p: any) => [p.partitionIndex, p.errorCode])]);

test('existing partitions go to the group coordinator with the group, member and offsets; unknown topics and partition indexes are UNKNOWN_TOPIC_OR_PARTITION, in request order (OC9)', async () => {
  const { broker, calls } = setup();
  const r = await offsetCommitHandler.handle(requestContext(broker, 8, 9), request([['missing', [0]], ['a', [0, 2, 1, -1]], ['b', [0]]])) as any;
  assert.equal(codes(r), [['missing', [[0, 3]]], ['a', [[0, 0], [2, 3], [1, 0], [-1, 3]]], ['b', [[0, 0]]]]);
  assert.is(calls.length, 1);
  const { req, v } = calls[0];
  assert.equal([req.groupId, req.generationId, req.memberId, req.groupInstanceId, v], ['g', 4, 'm-1', 'i-1', 9]);
  assert.equal(req.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, Number(p.committedOffset), p.committedLeaderEpoch, p.committedMetadata])]), [
    ['a', [[0, 100, 2, 'md'], [1, 101, 2, 'md']]], ['b', [[0, 100, 2, 'md']]],
  ]);
  assert.is(r.throttleTimeMs, 0);
});

test('retention_time_ms is passed on for v2-4 only (-1 from v5: offsets.retention.minutes)', async () => {
  const { broker, calls } = setup();
  await offsetCommitHandler.handle(requestContext(broker, 8, 4), request([['a', [0]]]));
  await offsetCommitHandler.handle(requestContext(broker, 8, 5), request([['a', [0]]]));
  assert.equal(calls.map((c) => c.req.retentionTimeMs), [60_000, -1]);
});

test('the coordinator\'s codes are answered per partition (e.g. ILLEGAL_GENERATION, OFFSET_METADATA_TOO_LARGE)', async () => {
  const { broker } = setup({ answer: () => [{ name: 'a', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE }, { partitionIndex: 1, errorCode: ErrorCode.NONE }] }] });
  const r = await offsetCommitHandler.handle(requestContext(broker, 8, 9), request([['a', [0, 1]]])) as any;
  assert.equal(codes(r), [['a', [[0, ErrorCode.OFFSET_METADATA_TOO_LARGE], [1, 0]]]]);
});

test('nothing to commit (every topic unknown): the coordinator is not asked, so no group is created', async () => {
  const { broker, calls } = setup();
  const r = await offsetCommitHandler.handle(requestContext(broker, 8, 9), request([['missing', [0, 1]], ['a', [5]]])) as any;
  assert.equal(codes(r), [['missing', [[0, 3], [1, 3]]], ['a', [[5, 3]]]]);
  assert.is(calls.length, 0);
});

test('READ on the group, else every partition GROUP_AUTHORIZATION_FAILED; READ on each topic, else TOPIC_AUTHORIZATION_FAILED (also for unknown ones), those not committed', async () => {
  const noGroup = setup({ authorizer: fakeAuthorizer((c) => c.resourceType === ResourceType.TOPIC) });
  const g = await offsetCommitHandler.handle(requestContext(noGroup.broker, 8, 9), request([['a', [0]], ['missing', [0]]])) as any;
  assert.equal(codes(g), [['a', [[0, ErrorCode.GROUP_AUTHORIZATION_FAILED]]], ['missing', [[0, ErrorCode.GROUP_AUTHORIZATION_FAILED]]]]);
  assert.is(noGroup.calls.length, 0);
  const authorizer = fakeAuthorizer((c) => c.resourceType === ResourceType.GROUP || c.name === 'a');
  const someTopics = setup({ authorizer });
  const r = await offsetCommitHandler.handle(requestContext(someTopics.broker, 8, 9), request([['a', [0]], ['b', [0]], ['missing', [0]]])) as any;
  assert.equal(codes(r), [['a', [[0, 0]]], ['b', [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED]]], ['missing', [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED]]]]);
  assert.equal(someTopics.calls[0].req.topics.map((t) => t.name), ['a']);
  assert.ok(authorizer.checks.every((c) => c.op === AclOperation.READ));
});

test('the whole-request error answer: every partition carries the code', () => {
  const { broker } = setup();
  const e = offsetCommitHandler.errorResponse(request([['a', [0, 1]]]), ErrorCode.COORDINATOR_NOT_AVAILABLE, requestContext(broker, 8, 9));
  assert.equal(codes(e), [['a', [[0, 15], [1, 15]]]]);
});

test.run();
