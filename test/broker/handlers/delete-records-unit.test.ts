/**
 * DeleteRecords (021) against a fake BrokerServices and a fake partition: the checks the handler
 * makes (behaviours.md DR1-DR8; Kafka's KafkaApis.handleDeleteRecordsRequest and
 * ReplicaManager.deleteRecordsOnLocalLog), what it asks the log and the partition.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteRecordsHandler } from '../../../src/broker/handlers/021-delete-records.js';
import { KafkaApiError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { AclOperation, ResourceType } from '../../../src/protocol/acl.js';
import type { DeleteRecordsRequest } from '../../../src/protocol/generated/messages/delete-records-request.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

/** The log starts at 10 (high watermark 50): deleting below o moves it to max(10, o), -1 to 50. */
function setup(opts: { authorizer?: unknown; leader?: boolean; deleteError?: Error; wait?: (required: number) => { lowWatermark: number; errorCode: number } } = {}) {
  const deletes: number[] = [];
  const waits: [number, number][] = [];
  const partition = {
    isLeader: opts.leader ?? true, leaderEpoch: 0,
    log: {
      deleteRecordsBefore: async (offset: number) => {
        if (opts.deleteError) throw opts.deleteError;
        deletes.push(offset);
        return offset === -1 ? 50 : Math.max(10, offset);
      },
    },
    waitForLowWatermark: async (required: number, timeoutMs: number) => (waits.push([required, timeoutMs]), opts.wait ? opts.wait(required) : { lowWatermark: required, errorCode: ErrorCode.NONE }),
  };
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache([topicRecord('t', 2), topicRecord('__consumer_offsets', 50, { isInternal: true })]),
    replicaManager: { getPartition: () => partition } as never,
    partitionState: () => ({ leader: 1, leaderEpoch: 0 }) as never,
    logger: { error: () => {} } as never,
  });
  return { broker, deletes, waits };
}

function request(topics: [string, [number, bigint][]][]): DeleteRecordsRequest {
  return { timeoutMs: 2500, topics: topics.map(([name, ps]) => ({ name, partitions: ps.map(([partitionIndex, offset]) => ({ partitionIndex, offset })) })) };
}

async function del(broker: ReturnType<typeof setup>['broker'], req: DeleteRecordsRequest) {
  const r = await deleteRecordsHandler.handle(requestContext(broker, 21, 2), req) as any;
  return r.topics.map((t: any) => [t.name, t.partitions.map((p: any) => [p.partitionIndex, p.errorCode, Number(p.lowWatermark)])]);
}

test('the leader\'s log deletes below the offset; the answer waits (timeout_ms) for the replicas\' low watermark and carries it', async () => {
  const { broker, deletes, waits } = setup();
  assert.equal(await del(broker, request([['t', [[0, 30n], [1, 5n]]]])), [['t', [[0, 0, 30], [1, 0, 5]]]]);
  assert.equal([deletes, waits], [[30, 5], [[30, 2500], [5, 2500]]], 'offset 5 is below the log start: the replicas need only reach 5');
});

test('offset -1 deletes up to the high watermark: the replicas must reach the new log start (DR2)', async () => {
  const { broker, waits } = setup();
  assert.equal(await del(broker, request([['t', [[0, -1n]]]])), [['t', [[0, 0, 50]]]]);
  assert.equal(waits, [[50, 2500]]);
});

test('offset below -1: OFFSET_OUT_OF_RANGE, low watermark -1, nothing deleted (DR3)', async () => {
  const { broker, deletes } = setup();
  assert.equal(await del(broker, request([['t', [[0, -2n]]]])), [['t', [[0, ErrorCode.OFFSET_OUT_OF_RANGE, -1]]]]);
  assert.equal(deletes, []);
});

test('what the log refuses (above the high watermark DR1, compact-only DR6) is that partition\'s error with -1; other failures UNKNOWN_SERVER_ERROR', async () => {
  const range = setup({ deleteError: new KafkaApiError(ErrorCode.OFFSET_OUT_OF_RANGE) });
  assert.equal(await del(range.broker, request([['t', [[0, 99n]]]])), [['t', [[0, ErrorCode.OFFSET_OUT_OF_RANGE, -1]]]]);
  const policy = setup({ deleteError: new KafkaApiError(ErrorCode.POLICY_VIOLATION) });
  assert.equal(await del(policy.broker, request([['t', [[0, 1n]]]])), [['t', [[0, ErrorCode.POLICY_VIOLATION, -1]]]]);
  const disk = setup({ deleteError: new Error('EIO') });
  assert.equal(await del(disk.broker, request([['t', [[0, 1n]]]])), [['t', [[0, ErrorCode.UNKNOWN_SERVER_ERROR, -1]]]]);
});

test('replicas that do not follow in time: the wait\'s REQUEST_TIMED_OUT and low watermark are answered', async () => {
  const { broker } = setup({ wait: () => ({ lowWatermark: 10, errorCode: ErrorCode.REQUEST_TIMED_OUT }) });
  assert.equal(await del(broker, request([['t', [[0, 30n]]]])), [['t', [[0, ErrorCode.REQUEST_TIMED_OUT, 10]]]]);
});

test('unknown topic or partition UNKNOWN_TOPIC_OR_PARTITION (DR8); a partition led elsewhere NOT_LEADER_OR_FOLLOWER', async () => {
  const { broker, deletes } = setup();
  assert.equal(await del(broker, request([['missing', [[0, 1n]]], ['t', [[2, 1n], [-1, 1n]]]])), [['missing', [[0, 3, -1]]], ['t', [[2, 3, -1], [-1, 3, -1]]]]);
  assert.equal(await del(setup({ leader: false }).broker, request([['t', [[0, 1n]]]])), [['t', [[0, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1]]]]);
  assert.equal(deletes, []);
});

test('internal topics: INVALID_TOPIC_EXCEPTION once the partition is known to exist; before that UNKNOWN_TOPIC_OR_PARTITION (DR7 after DR8, as Kafka checks the metadata first)', async () => {
  const { broker, deletes } = setup();
  assert.equal(await del(broker, request([['__consumer_offsets', [[0, 1n], [50, 1n]]], ['__transaction_state', [[0, 1n]]]])), [
    ['__consumer_offsets', [[0, ErrorCode.INVALID_TOPIC_EXCEPTION, -1], [50, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]],
    ['__transaction_state', [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1]]],
  ]);
  assert.equal(deletes, []);
});

test('DELETE on the topic, else TOPIC_AUTHORIZATION_FAILED for each partition (before existence is looked at)', async () => {
  const authorizer = fakeAuthorizer((c) => c.name === 't');
  const { broker } = setup({ authorizer });
  assert.equal(await del(broker, request([['t', [[0, 1n]]], ['other', [[0, 1n], [1, 1n]]]])), [['t', [[0, 0, 1]]], ['other', [[0, 29, -1], [1, 29, -1]]]]);
  assert.ok(authorizer.checks.every((c) => c.op === AclOperation.DELETE && c.resourceType === ResourceType.TOPIC));
});

test.run();
