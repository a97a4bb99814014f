/**
 * Share state on a three-broker cluster (etcd; brokers in this process so their persisters can be
 * called): a broker whose share-partition's `__share_group_state` partition is led elsewhere reads
 * and writes it through ReadShareGroupState / WriteShareGroupState to that leader; the state is in
 * the leader's shard only, every broker reads the same; after the leader stops, the new leader
 * loads the state from its replica and the same persister carries on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { tmpDir, type TmpDir } from '../support/tmp.js';
import { until } from '../support/until.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { DeliveryState } from '../../src/coordinator/share/persister.js';
import { SHARE_GROUP_STATE_TOPIC } from '../../src/coordinator/share-state/share-coordinator.js';
import { freshPrefix } from '../support/cluster-members.js';

let etcd: EtcdServer | null = null;
const brokers: RunningBroker[] = [];
const dirs: TmpDir[] = [];

test.before(async () => {
  etcd = await etcdOrSkip('cluster share state');
  if (!etcd) return;
  const prefix = freshPrefix('share-state');
  for (let id = 0; id < 3; id++) {
    const dir = tmpDir(`samsa-share-${id}`);
    dirs.push(dir);
    brokers.push(await startBroker({
      port: 0, logDir: dir.path,
      config: {
        'node.id': id, 'samsa.etcd.endpoints': etcd.clientUrl, 'samsa.etcd.key.prefix': prefix,
        'broker.session.timeout.ms': 2000, 'broker.heartbeat.interval.ms': 400, 'replica.fetch.backoff.ms': 100,
        'share.coordinator.state.topic.num.partitions': 3, 'share.coordinator.snapshot.update.records.per.snapshot': 3,
        'controlled.shutdown.enable': false,
      },
    }));
  }
});

test.after(async () => {
  for (const b of brokers) await b.stop().catch(() => undefined);
  for (const d of dirs) await d.cleanup();
  await etcd?.cleanup();
});

const batch = (firstOffset: number, lastOffset: number, deliveryState: number, deliveryCount: number) => ({ firstOffset, lastOffset, deliveryState, deliveryCount });

test('a share-partition whose state partition another broker leads is read and written over the wire; a new leader carries on', async () => {
  if (!etcd) return;
  const [b0] = brokers;
  await until('three brokers registered', 20_000, async () => (brokers.every((b) => b.broker.metadataCache.brokers.size === 3) ? true : null));
  await b0.broker.createTopic({ name: 'jobs', numPartitions: 4, replicationFactor: 3, configs: {} });
  await b0.broker.shareCoordinator.ensureActive();
  const ledEverywhere = () => brokers.every((b) => {
    const t = b.broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC);
    return t && [0, 1, 2].every((p) => (b.broker.metadataCache.partition(t.topicId, p)?.leader ?? -1) >= 0 && b.broker.metadataCache.partition(t.topicId, p)!.isr.length === 3);
  });
  await until('__share_group_state led with three in-sync replicas', 20_000, async () => (ledEverywhere() ? true : null));
  assert.is(b0.broker.metadataCache.partition(b0.broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC)!.topicId, 0)!.replicas.length, 3, 'replication factor 3 (three live brokers)');
  const topicId = b0.broker.metadataCache.topic('jobs')!.topicId;
  const stateTopicId = b0.broker.metadataCache.topic(SHARE_GROUP_STATE_TOPIC)!.topicId;
  const leaderOf = (partition: number) => b0.broker.metadataCache.partition(stateTopicId, b0.broker.shareCoordinator.partitionFor('workers', topicId, partition))!.leader;
  // A share-partition whose state partition the writer (broker 0 or 1) does not lead.
  const partition = [0, 1, 2, 3].find((p) => leaderOf(p) !== 0) ?? 0;
  const leader = leaderOf(partition);
  const writer = brokers.find((b) => b.broker.nodeId !== leader)!;
  const key = { groupId: 'workers', topicId, partition };
  await until('state partition loaded on its leader', 20_000, async () => (brokers.find((b) => b.broker.nodeId === leader)!.broker.shareCoordinator.runtime.isActive(b0.broker.shareCoordinator.partitionFor('workers', topicId, partition)) ? true : null));

  assert.is(await writer.broker.sharePersister.read(key, 0), null);
  await writer.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 0, stateBatches: [batch(0, 9, DeliveryState.ACKNOWLEDGED, 1)] });
  await writer.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 0, stateBatches: [batch(10, 10, DeliveryState.ARCHIVED, 5)] });
  const state = await writer.broker.sharePersister.read(key, 1);
  const want = { stateEpoch: 0, leaderEpoch: 1, startOffset: 0, stateBatches: [batch(0, 9, DeliveryState.ACKNOWLEDGED, 1), batch(10, 10, DeliveryState.ARCHIVED, 5)] };
  assert.equal(state, want);
  const p = b0.broker.shareCoordinator.partitionFor('workers', topicId, partition);
  assert.is(writer.broker.shareCoordinator.runtime.shardOf(p), undefined, 'the writer holds no shard of that state partition');
  const leaderBroker = brokers.find((b) => b.broker.nodeId === leader)!;
  assert.ok(leaderBroker.broker.shareCoordinator.runtime.shardOf(p)?.stateOf('workers', topicId, partition), 'the state is in the leader\'s shard');
  for (const b of brokers) assert.equal(await b.broker.sharePersister.read(key, 1), want, `broker ${b.broker.nodeId} reads the same state`);

  // The leader goes; another replica leads the state partition and loads it from its log.
  await leaderBroker.stop();
  const rest = brokers.filter((b) => b !== leaderBroker);
  await until('a new leader of the state partition', 30_000, async () => (rest.every((b) => {
    const l = b.broker.metadataCache.partition(stateTopicId, p)?.leader ?? -1;
    return l >= 0 && l !== leader;
  }) ? true : null));
  await writer.broker.sharePersister.write(key, { leaderEpoch: 1, startOffset: 5, stateBatches: [batch(11, 11, DeliveryState.ACKNOWLEDGED, 1)] });
  const after = await writer.broker.sharePersister.read(key, 1);
  assert.equal(after, { ...want, startOffset: 5, stateBatches: [batch(5, 9, DeliveryState.ACKNOWLEDGED, 1), batch(10, 10, DeliveryState.ARCHIVED, 5), batch(11, 11, DeliveryState.ACKNOWLEDGED, 1)] });
  const stale = await writer.broker.sharePersister.write(key, { leaderEpoch: 0, startOffset: 5, stateBatches: [] }).then(() => 'written', (e) => e.errorCode);
  assert.is(stale, ErrorCode.FENCED_LEADER_EPOCH, 'the leader epoch recorded before the failover still fences');
});

test.run();
