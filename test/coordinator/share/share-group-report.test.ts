/**
 * The share-group report the CLI and the console both print, from a reader that answers as the
 * broker would: counts from state batches, only share groups reported, partitions sorted, unknown
 * figures null, a state that cannot be read leaves its counts null and the rest in place.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { countStateBatches, formatAssignment, shareGroupReports, type ShareGroupReader } from '../../../src/coordinator/share/share-group-report.js';
import { DeliveryState } from '../../../src/coordinator/share/persister.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';

test('counts: delivered-and-available is in flight, archived is archived, acknowledged and never delivered are neither', () => {
  assert.equal(countStateBatches([
    { firstOffset: 0, lastOffset: 2, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 1 },
    { firstOffset: 3n, lastOffset: 3n, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 },
    { firstOffset: 4, lastOffset: 9, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 },
    { firstOffset: 10, lastOffset: 11, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 0 },
  ]), { inFlight: 3, archived: 1 });
  assert.is(formatAssignment([{ topic: 'a', partitions: [0, 2] }, { topic: 'b', partitions: [1] }]), 'a:0,2 b:1');
  assert.is(formatAssignment([]), '-');
});

test('reports: share groups only, members and partitions sorted, unknown figures null', async () => {
  const asked: string[] = [];
  const reader: ShareGroupReader = {
    async describe(ids) {
      return ids.map((groupId) => groupId === 'sg'
        ? { errorCode: 0, errorMessage: null, groupId, groupState: 'Stable', groupEpoch: 4, assignmentEpoch: 4, assignorName: 'simple', authorizedOperations: 0,
            members: [{ memberId: 'm1', rackId: null, memberEpoch: 4, clientId: 'c1', clientHost: '/h', subscribedTopicNames: ['t'], assignment: { topicPartitions: [{ topicId: 'T', topicName: 't', partitions: [1, 0] }] } }] }
        : { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: 'not a share group', groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: 0 });
    },
    async offsets() {
      return [
        { topicName: 'u', topicId: 'U', partitions: [{ partitionIndex: 0, startOffset: -1n, lag: -1n, errorCode: 0 }] },
        { topicName: 't', topicId: 'T', partitions: [{ partitionIndex: 1, startOffset: 7n, lag: 2n, errorCode: 0 }, { partitionIndex: 0, startOffset: 3n, lag: 0n, errorCode: 0 }] },
      ];
    },
    async stateBatches(_g, topic, partition) {
      asked.push(`${topic.topicName}-${partition}`);
      if (topic.topicName === 'u') return null;
      if (partition === 1) throw new Error('NOT_COORDINATOR');
      return [{ firstOffset: 3, lastOffset: 4, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 2 }];
    },
  };
  const [r, ...rest] = await shareGroupReports(reader, ['classic-one', 'sg']);
  assert.is(rest.length, 0, 'the group that is not a share group is left out');
  assert.is(r.groupId, 'sg');
  assert.equal(r.members[0].assignment, [{ topic: 't', partitions: [0, 1] }]);
  assert.equal(r.partitions, [
    { topic: 't', partition: 0, startOffset: 3n, lag: 0n, inFlight: 2, archived: 0 },
    { topic: 't', partition: 1, startOffset: 7n, lag: 2n, inFlight: null, archived: null },
    { topic: 'u', partition: 0, startOffset: null, lag: null, inFlight: null, archived: null },
  ]);
  asked.length = 0;
  const [quick] = await shareGroupReports(reader, ['sg'], { counts: false });
  assert.equal(asked, [], 'no state read without counts');
  assert.equal(quick.partitions!.map((p) => p.inFlight), [null, null, null]);
});

test.run();
