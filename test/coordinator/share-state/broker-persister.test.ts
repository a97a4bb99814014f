/**
 * The share coordinator in a broker: broker.sharePersister writes into __share_group_state
 * (created on first use with Kafka 4.4's configs), the state survives a restart on the same data
 * directory, the inter-broker APIs 83-87 answer on the wire, and FindCoordinator v6 key type 2
 * names the coordinator of a share-partition.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { DeliveryState } from '../../../src/coordinator/share/persister.js';
import { SHARE_GROUP_STATE_TOPIC } from '../../../src/coordinator/share-state/share-coordinator.js';
import { shareRecordSerde } from '../../../src/coordinator/share-state/records.js';
import { PartitionCoordinatorLog } from '../../../src/coordinator/runtime/coordinator-log.js';
import { WireClient } from '../../broker/handlers/_admin-wire.js';
import { tmpDir } from '../../support/tmp.js';
import { until } from '../../support/until.js';

const CONFIG = { 'share.coordinator.state.topic.num.partitions': 3, 'share.coordinator.snapshot.update.records.per.snapshot': 2 };

async function recordTypes(b: RunningBroker, partition: number): Promise<string[]> {
  const log = new PartitionCoordinatorLog(b.broker.getLog(SHARE_GROUP_STATE_TOPIC, partition)!, 0);
  const types: string[] = [];
  await log.readAll((r) => { types.push(shareRecordSerde.deserialize(r)!.type); });
  return types;
}

test('state written through broker.sharePersister is read back after a restart on the same data directory', async () => {
  const dir = tmpDir('samsa-share-state');
  let b = await startBroker({ port: 0, logDir: dir.path, config: CONFIG });
  try {
    await b.broker.createTopic({ name: 'jobs', numPartitions: 2, replicationFactor: 1, configs: {} });
    const topicId = b.broker.metadataCache.topic('jobs')!.topicId;
    const key = { groupId: 'workers', topicId, partition: 1 };
    assert.is(await b.broker.sharePersister.read(key, 0), null, 'nothing before the first write');
    await b.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 0, stateBatches: [{ firstOffset: 0, lastOffset: 4, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }] });
    await b.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 2, stateBatches: [{ firstOffset: 5, lastOffset: 5, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 }] });
    await b.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 2, stateBatches: [{ firstOffset: 6, lastOffset: 7, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 1 }] });
    await b.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 3, stateBatches: [{ firstOffset: 7, lastOffset: 7, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 2 }] });
    const before = await b.broker.sharePersister.read(key, 0);
    assert.equal(before, {
      stateEpoch: 0, leaderEpoch: 0, startOffset: 3,
      stateBatches: [
        { firstOffset: 3, lastOffset: 4, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 },
        { firstOffset: 5, lastOffset: 5, deliveryState: DeliveryState.ARCHIVED, deliveryCount: 5 },
        { firstOffset: 6, lastOffset: 6, deliveryState: DeliveryState.AVAILABLE, deliveryCount: 1 },
        { firstOffset: 7, lastOffset: 7, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 2 },
      ],
    });
    const topic = b.broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC)!;
    assert.is(topic.partitions, 3);
    assert.is(topic.isInternal, true, 'internal, as in Kafka 4.4 (Topic.INTERNAL_TOPICS)');
    const configs = b.broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC)!.configs;
    assert.equal([configs['cleanup.policy'], configs['retention.ms'], configs['min.insync.replicas']], ['delete', '-1', '1'], "Kafka's state-topic configs, min.isr capped at one replica");
    const p = b.broker.shareCoordinator.partitionFor('workers', topicId, 1);
    assert.equal(await recordTypes(b, p), ['snapshot', 'update', 'update', 'snapshot', 'update'], 'initialise, then a snapshot after 2 updates');
    await b.stop();
    b = await startBroker({ port: 0, logDir: dir.path, config: CONFIG });
    assert.equal(await b.broker.sharePersister.read(key, 1), { ...before!, leaderEpoch: 1 }, 'the same state after the restart');
    await b.broker.sharePersister.delete([key]);
    assert.is(await b.broker.sharePersister.read(key, 1), null);
    const other = { groupId: 'workers', topicId, partition: 0 };
    await b.broker.sharePersister.write(other, { leaderEpoch: 1, startOffset: 0, stateBatches: [] });
    const shard = () => b.broker.shareCoordinator.runtime.shardOf(b.broker.shareCoordinator.partitionFor('workers', topicId, 0))!;
    assert.ok(shard().stateOf('workers', topicId, 0), 'state before the topic is deleted');
    await b.broker.deleteTopic('jobs');
    await until('the deleted topic\'s share state tombstoned', 10_000, async () => (shard().stateOf('workers', topicId, 0) === undefined ? true : null));
  } finally {
    await b.stop();
    await dir.cleanup();
  }
});

test('the state partition is pruned below the oldest latest snapshot; a restart from the pruned log reads the same state', async () => {
  const dir = tmpDir('samsa-share-prune');
  const config = { ...CONFIG, 'share.coordinator.state.topic.num.partitions': 1, 'share.coordinator.state.topic.prune.interval.ms': 100 };
  let b = await startBroker({ port: 0, logDir: dir.path, config });
  try {
    await b.broker.createTopic({ name: 'jobs', numPartitions: 1, replicationFactor: 1, configs: {} });
    const key = { groupId: 'workers', topicId: b.broker.metadataCache.topic('jobs')!.topicId, partition: 0 };
    for (let i = 0; i < 10; i++) await b.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: i, stateBatches: [{ firstOffset: i, lastOffset: i, deliveryState: DeliveryState.ACKNOWLEDGED, deliveryCount: 1 }] });
    const state = await b.broker.sharePersister.read(key, 0);
    const log = b.broker.getLog(SHARE_GROUP_STATE_TOPIC, 0)!;
    await until('records below the last snapshot deleted', 10_000, async () => (log.logStartOffset > 0 ? true : null));
    assert.ok(log.logStartOffset >= 9, `log start ${log.logStartOffset}: snapshots at 0, 3, 6, 9 (one every 2 updates)`);
    await b.stop();
    b = await startBroker({ port: 0, logDir: dir.path, config });
    assert.equal(await b.broker.sharePersister.read(key, 0), state);
  } finally {
    await b.stop();
    await dir.cleanup();
  }
});

test('ReadShareGroupState, WriteShareGroupState v1, ReadShareGroupStateSummary v1 and FindCoordinator v6 key type 2 on the wire', async () => {
  const b = await startBroker({ port: 0, config: CONFIG });
  const c = await WireClient.connect(b.port);
  try {
    await b.broker.createTopic({ name: 'q', numPartitions: 1, replicationFactor: 1, configs: {} });
    const topicId = b.broker.metadataCache.topic('q')!.topicId;
    const init = await c.send(83, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, startOffset: 10n }] }] });
    assert.equal(init.results, [{ topicId, partitions: [{ partition: 0, errorCode: 0, errorMessage: null }] }]);
    const w = await c.send(85, 1, {
      groupId: 'g',
      topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, leaderEpoch: 0, startOffset: 10n, deliveryCompleteCount: 2, stateBatches: [{ firstOffset: 10n, lastOffset: 11n, deliveryState: 2, deliveryCount: 1 }] }] }],
    });
    assert.is(w.results[0].partitions[0].errorCode, ErrorCode.NONE);
    const r = await c.send(84, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 3 }] }] });
    assert.equal(r.results[0].partitions[0], { partition: 0, errorCode: 0, errorMessage: null, stateEpoch: 1, startOffset: 10n, stateBatches: [{ firstOffset: 10n, lastOffset: 11n, deliveryState: 2, deliveryCount: 1 }] });
    const s = await c.send(87, 1, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] });
    assert.equal(s.results[0].partitions[0], { partition: 0, errorCode: 0, errorMessage: null, stateEpoch: 1, leaderEpoch: 3, startOffset: 10n, deliveryCompleteCount: 2 });
    const fenced = await c.send(85, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 1, leaderEpoch: 2, startOffset: 10n, deliveryCompleteCount: -1, stateBatches: [] }] }] });
    assert.is(fenced.results[0].partitions[0].errorCode, ErrorCode.FENCED_LEADER_EPOCH);
    const fc = await c.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [`g:${topicId}:0`, 'g:not-a-uuid:0'] });
    assert.equal(fc.coordinators.map((x: { nodeId: number; errorCode: number }) => [x.nodeId, x.errorCode]), [[b.broker.nodeId, 0], [-1, ErrorCode.INVALID_REQUEST]]);
    const d = await c.send(86, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0 }] }] });
    assert.is(d.results[0].partitions[0].errorCode, ErrorCode.NONE);
  } finally {
    c.close();
    await b.stop();
  }
});

test('without CLUSTER_ACTION the share-state APIs answer CLUSTER_AUTHORIZATION_FAILED per partition, FindCoordinator key type 2 for the whole request', async () => {
  const b = await startBroker({ port: 0, config: { ...CONFIG, 'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer' } });
  const c = await WireClient.connect(b.port);
  try {
    const topicId = 'AAAAAAAAAAAAAAAAAAAAAQ';
    const denied = { partition: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' };
    const w = await c.send(85, 1, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset: 0n, deliveryCompleteCount: -1, stateBatches: [] }] }] });
    assert.equal(w.results, [{ topicId, partitions: [denied] }]);
    const r = await c.send(84, 0, { groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] });
    assert.equal(r.results[0].partitions[0], { ...denied, stateEpoch: 0, startOffset: 0n, stateBatches: [] });
    const fc = await c.send(10, 6, { key: '', keyType: 2, coordinatorKeys: [`g:${topicId}:0`] });
    assert.equal(fc.coordinators, [{ key: `g:${topicId}:0`, nodeId: -1, host: '', port: -1, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: 'Cluster authorization failed.' }]);
  } finally {
    c.close();
    await b.stop();
  }
});

test.run();
