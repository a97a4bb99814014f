import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AcknowledgeType, SharePartition, redeliveryDelay, type ShareLimits } from '../../../src/coordinator/share/share-partition.js';
import { DeliveryState } from '../../../src/coordinator/share/persister.js';

const limits: ShareLimits = { deliveryCountLimit: 3, recordLockDurationMs: 1000, partitionMaxRecordLocks: 100, redeliveryBackoffMs: 0, redeliveryBackoffMaxMs: 60000 };
const ack = (first: number, last: number, ...types: number[]) => ({ firstOffset: BigInt(first), lastOffset: BigInt(last), acknowledgeTypes: types });

function fresh(start = 0): SharePartition {
  const sp = new SharePartition(start, () => 0);
  sp.lockMs = limits.recordLockDurationMs;
  return sp;
}

test('acquired records belong to one member until acknowledged; ACCEPT moves the start offset', () => {
  const sp = fresh();
  assert.equal(sp.acquireNew('a', 0, 4, 0), { firstOffset: 0, lastOffset: 4, deliveryCount: 1 });
  assert.is(sp.acquireAvailable('b', 10, 0).length, 0, 'nothing is available while a holds them');
  assert.is(sp.acknowledge('b', [ack(0, 4, AcknowledgeType.ACCEPT)], limits, 0), false, 'b cannot acknowledge what a holds');
  assert.is(sp.stateOf(0)?.state, DeliveryState.ACQUIRED, 'a refused acknowledgement changes nothing');
  assert.is(sp.acknowledge('a', [ack(0, 2, AcknowledgeType.ACCEPT)], limits, 0), true);
  assert.is(sp.startOffset, 3);
  assert.is(sp.endOffset, 5);
});

test('all or nothing: one bad offset in the batches leaves every record as it was', () => {
  const sp = fresh();
  sp.acquireNew('a', 0, 4, 0);
  assert.is(sp.acknowledge('a', [ack(0, 1, AcknowledgeType.ACCEPT), ack(3, 9, AcknowledgeType.ACCEPT)], limits, 0), false);
  assert.is(sp.startOffset, 0);
  assert.is(sp.stateOf(0)?.state, DeliveryState.ACQUIRED);
});

test('an acknowledgement wholly below the start offset is ignored; one reaching into the window is refused', () => {
  const sp = fresh();
  sp.acquireNew('a', 0, 2, 0);
  sp.expireLocks(limits, 1000);
  assert.equal(sp.acquireAvailable('b', 10, 1000), [{ firstOffset: 0, lastOffset: 2, deliveryCount: 2 }]);
  assert.ok(sp.acknowledge('b', [ack(0, 0, AcknowledgeType.ACCEPT)], limits, 1000));
  assert.is(sp.acknowledge('a', [ack(0, 2, AcknowledgeType.ACCEPT)], limits, 1000), false, 'offsets 1-2 are b\'s');
  assert.ok(sp.acknowledge('b', [ack(1, 2, AcknowledgeType.REJECT)], limits, 1000));
  assert.is(sp.startOffset, 3);
  assert.ok(sp.acknowledge('a', [ack(0, 2, AcknowledgeType.ACCEPT)], limits, 1000), 'records done since are not an error (Kafka 4.4)');
  assert.equal(sp.counts(), { available: 0, acquired: 0, acknowledged: 0, archived: 0 });
  assert.equal(sp.takeArchived().map((r) => r.offset), [1, 2], 'the late ACCEPT changed nothing');
});

test('RELEASE makes a record available again with its delivery count; at the limit it is archived instead', () => {
  const sp = fresh();
  sp.acquireNew('a', 0, 0, 0);
  for (let n = 1; n <= 2; n++) {
    assert.ok(sp.acknowledge('a', [ack(0, 0, AcknowledgeType.RELEASE)], limits, 0));
    const again = sp.acquireAvailable('a', 10, 0);
    assert.equal(again, [{ firstOffset: 0, lastOffset: 0, deliveryCount: n + 1 }]);
  }
  assert.ok(sp.acknowledge('a', [ack(0, 0, AcknowledgeType.RELEASE)], limits, 0));
  assert.is(sp.stateOf(0), null, 'archived and behind the start offset');
  assert.equal(sp.takeArchived(), [{ offset: 0, deliveryCount: 3, reason: 'delivery-limit' }]);
});

test('REJECT archives at once; GAP archives without a dead-letter copy', () => {
  const sp = fresh();
  sp.acquireNew('a', 0, 1, 0);
  assert.ok(sp.acknowledge('a', [ack(0, 1, AcknowledgeType.REJECT, AcknowledgeType.GAP)], limits, 0));
  assert.equal(sp.takeArchived(), [{ offset: 0, deliveryCount: 1, reason: 'rejected' }]);
  assert.is(sp.startOffset, 2);
});

test('an expired lock releases the record to anyone; RENEW extends it', () => {
  const sp = fresh();
  sp.acquireNew('a', 0, 1, 0);
  assert.ok(sp.acknowledge('a', [ack(1, 1, AcknowledgeType.RENEW)], limits, 600));
  assert.is(sp.expireLocks(limits, 999), 0);
  assert.is(sp.expireLocks(limits, 1000), 1, 'offset 0 expired, offset 1 renewed until 1600');
  assert.equal(sp.acquireAvailable('b', 10, 1000), [{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
  assert.is(sp.expireLocks(limits, 1600), 1);
  assert.is(sp.stateOf(1)?.owner, null);
});

test('releaseMember gives back only that member\'s records', () => {
  const sp = fresh();
  sp.acquireNew('a', 0, 1, 0);
  sp.acquireNew('b', 2, 3, 0);
  assert.is(sp.releaseMember('a', limits, 0), 2);
  assert.is(sp.stateOf(2)?.owner, 'b');
  assert.equal(sp.acquireAvailable('c', 10, 0), [{ firstOffset: 0, lastOffset: 1, deliveryCount: 2 }]);
});

test('the window is bounded by partition.max.record.locks', () => {
  const sp = fresh();
  const small = { ...limits, partitionMaxRecordLocks: 10 };
  sp.acquireNew('a', 0, 9, 0);
  assert.is(sp.room(small), 0);
  sp.acknowledge('a', [ack(0, 4, AcknowledgeType.ACCEPT)], small, 0);
  assert.is(sp.room(small), 5);
});

test('control batches and compaction gaps are archived without a delivery', () => {
  const sp = fresh();
  sp.archiveNew(0, 0);
  assert.equal(sp.acquireNew('a', 3, 4, 0), { firstOffset: 3, lastOffset: 4, deliveryCount: 1 });
  assert.is(sp.startOffset, 3, 'offsets 0-2 are done');
  assert.is(sp.stateOf(1), null);
});

test('persisted state: acquired records come back available, acknowledged and archived stay', () => {
  const sp = fresh(10);
  sp.acquireNew('a', 10, 19, 0);
  sp.acknowledge('a', [ack(12, 13, AcknowledgeType.ACCEPT), ack(15, 15, AcknowledgeType.REJECT)], limits, 0);
  const batches = sp.persistedBatches();
  const back = SharePartition.fromPersisted({ stateEpoch: 0, leaderEpoch: 0, startOffset: sp.startOffset, stateBatches: batches }, 0);
  assert.is(back.startOffset, 10);
  assert.is(back.endOffset, 20);
  assert.is(back.stateOf(12)?.state, DeliveryState.ACKNOWLEDGED);
  assert.is(back.stateOf(15)?.state, DeliveryState.ARCHIVED);
  // Every run of available records, across the acknowledged and archived ones (Kafka's acquire).
  assert.equal(back.acquireAvailable('b', 100, 0), [{ firstOffset: 10, lastOffset: 11, deliveryCount: 2 }, { firstOffset: 14, lastOffset: 14, deliveryCount: 2 }, { firstOffset: 16, lastOffset: 19, deliveryCount: 2 }]);
});

test('a window much longer than the initial arrays stays consistent as the start moves', () => {
  const sp = fresh();
  const big = { ...limits, partitionMaxRecordLocks: 100000 };
  for (let i = 0; i < 50; i++) {
    sp.acquireNew('a', i * 100, i * 100 + 99, 0);
    sp.acknowledge('a', [ack(i * 100, i * 100 + 49, AcknowledgeType.ACCEPT)], big, 0);
  }
  assert.is(sp.startOffset, 50);
  assert.is(sp.stateOf(4950)?.state, DeliveryState.ACQUIRED);
  assert.is(sp.stateOf(4949)?.state, DeliveryState.ACKNOWLEDGED);
  assert.is(sp.counts().acquired, 2500);
});

test('redelivery backoff: base x 2^(n-1), capped, at least the configured figure', () => {
  const l = { redeliveryBackoffMs: 100, redeliveryBackoffMaxMs: 1000 };
  assert.equal([1, 2, 3, 4, 5].map((n) => redeliveryDelay(n, l, () => 0)), [100, 200, 400, 800, 1000]);
  assert.is(redeliveryDelay(2, l, () => 1), 220, 'jitter adds up to 10%');
  assert.is(redeliveryDelay(3, { redeliveryBackoffMs: 0, redeliveryBackoffMaxMs: 1000 }), 0);
});

test('a record in backoff is skipped without holding up the ones behind it', () => {
  const sp = fresh();
  const l = { ...limits, redeliveryBackoffMs: 500 };
  sp.acquireNew('a', 0, 2, 0);
  sp.acknowledge('a', [ack(0, 0, AcknowledgeType.RELEASE)], l, 0);
  sp.acknowledge('a', [ack(1, 2, AcknowledgeType.RELEASE)], l, 200);
  assert.equal(sp.acquireAvailable('b', 10, 499), [], 'offset 0 until 500, 1-2 until 700');
  assert.equal(sp.acquireAvailable('b', 10, 500), [{ firstOffset: 0, lastOffset: 0, deliveryCount: 2 }]);
  assert.equal(sp.acquireAvailable('b', 10, 700), [{ firstOffset: 1, lastOffset: 2, deliveryCount: 2 }]);
});

test('released records come back from every run of them, up to the record limit and the covered offset (issue 23 item 5)', () => {
  const sp = fresh(0);
  sp.acquireNew('a', 0, 99, 0);
  // Every tenth record released, the rest accepted: ten runs of one available record each.
  const acks = [];
  for (let o = 0; o < 100; o++) acks.push(ack(o, o, o % 10 === 0 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT));
  assert.ok(sp.acknowledge('a', acks, limits, 0));
  assert.is(sp.firstAvailable(0), 0);
  const first = sp.acquireAvailable('b', 4, 0);
  assert.equal(first.map((r) => r.firstOffset), [0, 10, 20, 30], 'four runs in one acquisition (before: only the first)');
  const upTo = sp.acquireAvailable('b', 100, 0, 55);
  assert.equal(upTo.map((r) => r.firstOffset), [40, 50], 'not past the offset the read covers');
  assert.is(sp.firstAvailable(0), 60);
});

test.run();
