/**
 * The share coordinator on memory logs: Kafka 4.4's record cadence (ShareSnapshot on
 * initialisation and every N updates, ShareUpdate otherwise), replay after a restart equal to the
 * live state, fencing (leader and state epochs), uninitialised share-partitions, unknown topics,
 * delete (tombstones), the record bytes, the key → partition mapping, and CoordinatorPersister.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../src/clock.js';
import { createLogger } from '../../../src/logger.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { MemoryOffsetsTopic, javaStringHash } from '../../../src/coordinator/group/group-coordinator.js';
import { ShareCoordinator, partitionForShareKey } from '../../../src/coordinator/share-state/share-coordinator.js';
import { shareRecordSerde, SHARE_SNAPSHOT, SHARE_UPDATE } from '../../../src/coordinator/share-state/records.js';
import { MESSAGES } from '../../../src/coordinator/share-state/share-shard.js';
import { CoordinatorPersister } from '../../../src/coordinator/share-state/coordinator-persister.js';
import { LocalStateChannel } from '../../../src/coordinator/share-state/state-channel.js';
import { DeliveryState } from '../../../src/coordinator/share/persister.js';

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const OTHER_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAg';
const GROUP = 'g1';

function coordinator(topic = new MemoryOffsetsTopic(), perSnapshot = 3, clock = new ManualClock()) {
  return new ShareCoordinator({
    clock, logger: createLogger('silent'), topic, numPartitions: 4, snapshotUpdateRecordsPerSnapshot: perSnapshot,
    topics: (id) => (id === TOPIC_ID ? 2 : null),
  });
}

const batch = (first: number, last: number, deliveryState: number, deliveryCount: number) => ({ firstOffset: BigInt(first), lastOffset: BigInt(last), deliveryState, deliveryCount });

async function init(c: ShareCoordinator, stateEpoch = 0, startOffset = 0, partition = 0) {
  const r = await c.initializeState({ groupId: GROUP, topics: [{ topicId: TOPIC_ID, partitions: [{ partition, stateEpoch, startOffset: BigInt(startOffset) }] }] });
  return r.results[0].partitions[0];
}

async function write(c: ShareCoordinator, pd: { stateEpoch?: number; leaderEpoch?: number; startOffset?: number; batches?: ReturnType<typeof batch>[]; partition?: number; topicId?: string }) {
  const r = await c.writeState({
    groupId: GROUP,
    topics: [{ topicId: pd.topicId ?? TOPIC_ID, partitions: [{ partition: pd.partition ?? 0, stateEpoch: pd.stateEpoch ?? 0, leaderEpoch: pd.leaderEpoch ?? 0, startOffset: BigInt(pd.startOffset ?? 0), deliveryCompleteCount: -1, stateBatches: pd.batches ?? [] }] }],
  });
  return r.results[0].partitions[0];
}

async function read(c: ShareCoordinator, leaderEpoch = 0, partition = 0) {
  const r = await c.readState({ groupId: GROUP, topics: [{ topicId: TOPIC_ID, partitions: [{ partition, leaderEpoch }] }] });
  return r.results[0].partitions[0];
}

/** The types of the records in the state partition of (GROUP, TOPIC_ID, 0). */
function recordTypes(topic: MemoryOffsetsTopic, c: ShareCoordinator): string[] {
  return topic.log(c.partitionFor(GROUP, TOPIC_ID, 0)).records.map((r) => shareRecordSerde.deserialize(r)!.type);
}

test('the state partition of a share-partition is abs(String.hashCode("group:topicId:partition")) % partitions', () => {
  const key = `${GROUP}:${TOPIC_ID}:0`;
  const h = javaStringHash(key);
  assert.is(partitionForShareKey(key, 50), Math.abs(h) % 50);
  const c = coordinator();
  assert.is(c.partitionFor(GROUP, TOPIC_ID, 0), Math.abs(h) % 4);
});

test('initialize writes a ShareSnapshot; writes are ShareUpdates until 3 updates followed it, then a ShareSnapshot', async () => {
  const topic = new MemoryOffsetsTopic();
  const c = coordinator(topic, 3);
  assert.equal(await init(c, 0, 10), { partition: 0, errorCode: 0, errorMessage: null });
  for (let i = 0; i < 5; i++) assert.is((await write(c, { startOffset: 10, batches: [batch(10 + i, 10 + i, DeliveryState.ACKNOWLEDGED, 1)] })).errorCode, ErrorCode.NONE);
  assert.equal(recordTypes(topic, c), ['snapshot', 'update', 'update', 'update', 'snapshot', 'update']);
  const r = await read(c);
  assert.equal([r.errorCode, r.stateEpoch, r.startOffset], [0, 0, 10n]);
  assert.equal(r.stateBatches, [batch(10, 14, DeliveryState.ACKNOWLEDGED, 1)]);
  const snap = shareRecordSerde.deserialize(topic.log(c.partitionFor(GROUP, TOPIC_ID, 0)).records[4])!;
  assert.is(snap.type === 'snapshot' && snap.value.snapshotEpoch, 1, 'the second snapshot has snapshot epoch 1');
  await c.shutdown();
});

test('a restarted coordinator replays snapshot then updates to the same state (start offset moves drop batches below it)', async () => {
  const topic = new MemoryOffsetsTopic();
  const c = coordinator(topic, 2);
  await init(c, 3, 0);
  await write(c, { stateEpoch: 3, startOffset: 0, batches: [batch(0, 9, DeliveryState.ACKNOWLEDGED, 1), batch(10, 19, DeliveryState.AVAILABLE, 1)] });
  await write(c, { stateEpoch: 3, startOffset: 5, batches: [batch(12, 12, DeliveryState.ARCHIVED, 5)] });
  await write(c, { stateEpoch: 3, startOffset: 5, batches: [batch(20, 20, DeliveryState.AVAILABLE, 2)] });
  await write(c, { stateEpoch: 3, startOffset: 2, batches: [batch(13, 13, DeliveryState.ACKNOWLEDGED, 2)] });
  const live = await read(c);
  const liveShard = structuredClone(c.runtime.shardOf(c.partitionFor(GROUP, TOPIC_ID, 0))!.stateOf(GROUP, TOPIC_ID, 0));
  await c.shutdown();
  assert.equal(live.startOffset, 5n, 'the start offset never moves back');
  assert.equal(live.stateBatches, [
    batch(5, 9, DeliveryState.ACKNOWLEDGED, 1), batch(10, 11, DeliveryState.AVAILABLE, 1), batch(12, 12, DeliveryState.ARCHIVED, 5),
    batch(13, 13, DeliveryState.ACKNOWLEDGED, 2), batch(14, 19, DeliveryState.AVAILABLE, 1), batch(20, 20, DeliveryState.AVAILABLE, 2),
  ]);
  const again = coordinator(topic, 2);
  await again.startup();
  assert.equal(await read(again), live);
  const replayed = again.runtime.shardOf(again.partitionFor(GROUP, TOPIC_ID, 0))!.stateOf(GROUP, TOPIC_ID, 0);
  assert.equal(replayed?.stateBatches, liveShard?.stateBatches);
  assert.equal([replayed?.startOffset, replayed?.stateEpoch, replayed?.snapshotEpoch], [liveShard?.startOffset, liveShard?.stateEpoch, liveShard?.snapshotEpoch]);
  await again.shutdown();
});

test('a read at a newer leader epoch is recorded and fences writes of older leaders (FENCED_LEADER_EPOCH)', async () => {
  const topic = new MemoryOffsetsTopic();
  const c = coordinator(topic);
  await init(c);
  assert.is((await read(c, 5)).errorCode, ErrorCode.NONE);
  assert.equal(recordTypes(topic, c), ['snapshot', 'update'], 'the new leader epoch is written');
  assert.is((await read(c, 5)).errorCode, ErrorCode.NONE);
  assert.is(recordTypes(topic, c).length, 2, 'the same epoch again writes nothing');
  assert.equal(await write(c, { leaderEpoch: 4 }), { partition: 0, errorCode: ErrorCode.FENCED_LEADER_EPOCH, errorMessage: MESSAGES.FENCED_LEADER_EPOCH });
  assert.is((await read(c, 4)).errorCode, ErrorCode.FENCED_LEADER_EPOCH);
  assert.is((await write(c, { leaderEpoch: 5 })).errorCode, ErrorCode.NONE);
  await c.shutdown();
  const again = coordinator(topic);
  await again.startup();
  assert.is((await write(again, { leaderEpoch: 4 })).errorCode, ErrorCode.FENCED_LEADER_EPOCH, 'the leader epoch survives a restart');
  await again.shutdown();
});

test('state epochs: a write or initialize older than the known state epoch answers FENCED_STATE_EPOCH; a newer initialize resets the batches', async () => {
  const c = coordinator();
  await init(c, 2, 0);
  await write(c, { stateEpoch: 2, batches: [batch(0, 3, DeliveryState.ACKNOWLEDGED, 1)] });
  assert.equal(await write(c, { stateEpoch: 1 }), { partition: 0, errorCode: ErrorCode.FENCED_STATE_EPOCH, errorMessage: MESSAGES.FENCED_STATE_EPOCH });
  assert.is((await init(c, 1, 0)).errorCode, ErrorCode.FENCED_STATE_EPOCH);
  assert.is((await init(c, 3, 100)).errorCode, ErrorCode.NONE);
  const r = await read(c);
  assert.equal([r.stateEpoch, r.startOffset, r.stateBatches], [3, 100n, []]);
  await c.shutdown();
});

test('uninitialised share-partitions, negative epochs and unknown topics are refused as Kafka 4.4 refuses them', async () => {
  const c = coordinator();
  assert.equal(await write(c, {}), { partition: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: MESSAGES.WRITE_UNINITIALIZED_SHARE_PARTITION });
  const r = await read(c);
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, MESSAGES.READ_UNINITIALIZED_SHARE_PARTITION]);
  assert.equal(await write(c, { leaderEpoch: -1 }), { partition: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: MESSAGES.NEGATIVE_LEADER_EPOCH });
  assert.equal(await write(c, { stateEpoch: -1 }), { partition: 0, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: MESSAGES.NEGATIVE_STATE_EPOCH });
  assert.is((await init(c, 0, 0, 7)).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, 'partition 7 of a 2-partition topic');
  const other = await c.initializeState({ groupId: GROUP, topics: [{ topicId: OTHER_TOPIC_ID, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }] });
  assert.equal(other.results[0].partitions[0], { partition: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: MESSAGES.UNKNOWN_TOPIC_OR_PARTITION });
  assert.equal(await c.writeState({ groupId: '', topics: [] }), { results: [] }, 'an empty group id gets an empty answer');
  const summary = await c.readStateSummary({ groupId: GROUP, topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 1, leaderEpoch: 0 }] }] });
  assert.equal(summary.results[0].partitions[0], { partition: 1, errorCode: 0, errorMessage: null, stateEpoch: 0, leaderEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1 });
  await c.shutdown();
});

test('delete writes a tombstone: the share-partition is uninitialised again, also after a restart', async () => {
  const topic = new MemoryOffsetsTopic();
  const c = coordinator(topic);
  await init(c, 1, 5);
  await write(c, { stateEpoch: 1, startOffset: 5, batches: [batch(5, 6, DeliveryState.ARCHIVED, 3)] });
  const d = await c.deleteState({ groupId: GROUP, topics: [{ topicId: TOPIC_ID, partitions: [{ partition: 0 }] }] });
  assert.equal(d.results, [{ topicId: TOPIC_ID, partitions: [{ partition: 0, errorCode: 0, errorMessage: null }] }]);
  const log = topic.log(c.partitionFor(GROUP, TOPIC_ID, 0));
  assert.is(log.records[log.records.length - 1].value, null, 'a tombstone');
  assert.is(log.records[log.records.length - 1].key.readInt16BE(0), SHARE_SNAPSHOT, 'keyed as a ShareSnapshot');
  assert.is((await read(c)).errorCode, ErrorCode.INVALID_REQUEST);
  await c.shutdown();
  const again = coordinator(topic);
  await again.startup();
  assert.is((await read(again)).errorCode, ErrorCode.INVALID_REQUEST);
  assert.is((await init(again, 0, 0)).errorCode, ErrorCode.NONE, 'the state epoch is forgotten with the state');
  await again.shutdown();
});

test('record bytes: key int16 type + group (int16 length) + topic id (16 bytes) + partition; value int16 version 0 + flexible struct', async () => {
  const topic = new MemoryOffsetsTopic();
  const c = coordinator(topic);
  await init(c, 0, 0);
  await write(c, { batches: [batch(0, 0, DeliveryState.ACKNOWLEDGED, 1)] });
  const [snap, upd] = topic.log(c.partitionFor(GROUP, TOPIC_ID, 0)).records;
  const expectKey = (type: number) => Buffer.concat([Buffer.from([0, type, 0, 2]), Buffer.from(GROUP), Buffer.from('00000000000000000000000000000001', 'hex'), Buffer.from([0, 0, 0, 0])]);
  assert.equal(snap.key, expectKey(SHARE_SNAPSHOT));
  assert.equal(upd.key, expectKey(SHARE_UPDATE));
  assert.is(upd.value!.readInt16BE(0), 0);
  // snapshotEpoch 0, leaderEpoch 0, startOffset 0, 1 batch (compact length 2): 0..0 state 2 count 1;
  // one tagged field: 0 (DeliveryCompleteCount), 4 bytes, 0 (initialised at offset 0, -1 written).
  const body = Buffer.concat([Buffer.alloc(4), Buffer.alloc(4), Buffer.alloc(8), Buffer.from([2]), Buffer.alloc(16), Buffer.from([2, 0, 1, 0]), Buffer.from([1, 0, 4, 0, 0, 0, 0])]);
  assert.equal(upd.value!.subarray(2), body);
  await c.shutdown();
});

test('CoordinatorPersister: null before any write; a write initialises, then reads back; a newer state epoch resets; delete forgets', async () => {
  const topic = new MemoryOffsetsTopic();
  const c = coordinator(topic);
  const persister = new CoordinatorPersister(new LocalStateChannel(() => c), 1000);
  const fresh0 = () => new CoordinatorPersister(new LocalStateChannel(() => c), 1000);
  const key = { groupId: GROUP, topicId: TOPIC_ID, partition: 1 };
  assert.is(await persister.read(key), null);
  await persister.write(key, { leaderEpoch: 0, startOffset: 3, stateBatches: [{ firstOffset: 3, lastOffset: 4, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }] });
  await persister.write(key, { leaderEpoch: 0, startOffset: 3, stateBatches: [{ firstOffset: 5, lastOffset: 5, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 }] });
  assert.equal(await persister.read(key, 2), {
    stateEpoch: 0, leaderEpoch: 2, startOffset: 3,
    stateBatches: [{ firstOffset: 3, lastOffset: 4, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }, { firstOffset: 5, lastOffset: 5, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 }],
  });
  const fenced = await persister.write(key, { leaderEpoch: 1, startOffset: 3, stateBatches: [] }).then(() => null, (e) => e.errorCode);
  assert.is(fenced, ErrorCode.FENCED_LEADER_EPOCH, 'leader epoch 2 was recorded by the read');
  await persister.write(key, { stateEpoch: 1, leaderEpoch: 2, startOffset: 10, stateBatches: [{ firstOffset: 10, lastOffset: 10, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }] });
  const reset = await persister.read(key, 2);
  const stale = await fresh0().write(key, { stateEpoch: 0, leaderEpoch: 2, startOffset: 10, stateBatches: [] }).then(() => null, (e) => e.errorCode);
  assert.is(stale, ErrorCode.FENCED_STATE_EPOCH, 'a writer still at state epoch 0 is fenced');
  assert.equal([reset?.stateEpoch, reset?.startOffset, reset?.stateBatches.length], [1, 10, 1]);
  const fresh = new CoordinatorPersister(new LocalStateChannel(() => c), 1000);
  assert.equal(await fresh.read(key, 2), reset, 'another persister (another broker) reads the same state');
  await persister.delete([key]);
  assert.is(await persister.read(key), null);
  await c.shutdown();
});

test('a read without a leader epoch (describing offsets) uses the partition\'s current leader epoch, which a reset state cannot fence', async () => {
  const c = coordinator();
  const key = { groupId: GROUP, topicId: TOPIC_ID, partition: 0 };
  const leader = new CoordinatorPersister(new LocalStateChannel(() => c), 1000);
  await leader.write(key, { leaderEpoch: 5, startOffset: 0, stateBatches: [] });
  await leader.read(key, 5);
  await leader.write(key, { stateEpoch: 1, leaderEpoch: 5, startOffset: 7, stateBatches: [] });
  const describer = new CoordinatorPersister(new LocalStateChannel(() => c), 1000, () => 5);
  const s = await describer.read(key);
  assert.equal([s?.stateEpoch, s?.startOffset, s?.leaderEpoch], [1, 7, 5]);
  await c.shutdown();
});

/** A memory state topic whose logs DeleteRecords can shorten. */
class PrunableTopic extends MemoryOffsetsTopic {
  async deleteRecordsBefore(partition: number, offset: number): Promise<void> {
    this.log(partition).deleteRecordsBefore(offset);
  }
}

test('pruning deletes the records below the oldest latest snapshot; cold snapshots let it advance; a restart from the pruned log has the same state', async () => {
  const clock = new ManualClock();
  const topic = new PrunableTopic();
  const make = () => new ShareCoordinator({
    clock, logger: createLogger('silent'), topic, numPartitions: 1, snapshotUpdateRecordsPerSnapshot: 2,
    coldPartitionSnapshotIntervalMs: 60_000, pruneIntervalMs: 1000, topics: () => 2,
  });
  const c = make();
  await init(c, 0, 0, 0);
  for (let i = 0; i < 3; i++) await write(c, { batches: [batch(i, i, DeliveryState.ACKNOWLEDGED, 1)] });
  await init(c, 0, 0, 1);
  const log = topic.log(0);
  assert.equal(log.records.map((r) => shareRecordSerde.deserialize(r)!.type), ['snapshot', 'update', 'update', 'snapshot', 'snapshot']);
  await c.pruneRecords();
  assert.is(log.logStartOffset, 3, "partition 0's snapshot at 3, partition 1's at 4: the records below 3 go");
  const before = [await read(c, 0, 0), await read(c, 0, 1)];
  clock.advance(60_000);
  await c.idle();
  assert.equal(log.records.slice(-2).map((r) => shareRecordSerde.deserialize(r)!.type), ['snapshot', 'snapshot'], 'both idle share-partitions snapshotted again');
  await c.pruneRecords();
  assert.is(log.logStartOffset, 5);
  clock.advance(60_000);
  await c.idle();
  assert.is(log.records.length, 2, 'a quiet coordinator (every state cold-snapshotted already) writes nothing more');
  await c.shutdown();
  const again = make();
  await again.startup();
  assert.equal([await read(again, 0, 0), await read(again, 0, 1)], before);
  await again.shutdown();
});

test.run();
