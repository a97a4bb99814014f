/**
 * Elections an operator asks for (ElectLeaders) and preferred-leader balancing, on the controller
 * against a real etcd with three cluster members in this process:
 * - preferred: ELECTION_NOT_NEEDED while the preferred replica leads, PREFERRED_LEADER_NOT_AVAILABLE
 *   while it is out of the ISR, and once it is back in sync it leads again at a new leader epoch;
 * - unclean: ELECTION_NOT_NEEDED with a live ISR leader; an offline partition (its last ISR
 *   member dead) gets the live out-of-sync replica, the ISR reset to it; with no live replica
 *   ELIGIBLE_LEADERS_NOT_AVAILABLE; unknown partitions UNKNOWN_TOPIC_OR_PARTITION;
 * - every partition (null): only elections that happened are answered;
 * - balanceLeaders (auto.leader.rebalance.enable) gives leaderships back to preferred replicas.
 * Kafka's answers on one broker are compared in compat-tests/probes (probes-admin.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { alterPartition } from '../../src/cluster/partition-state.js';
import { NO_LEADER, type PartitionState } from '../../src/cluster/metadata-store.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { activeController, freshPrefix, startMembers, stopAll, waitBrokers } from '../support/cluster-members.js';

const etcd = (await etcdOrSkip('test/cluster/leader-election')) as EtcdServer;
if (!etcd) process.exit(0);

test('preferred and unclean elections, every partition, and preferred-leader balancing', async () => {
  const members = await startMembers(etcd, freshPrefix('elect'), [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    const ctl = c.controller;
    const { topic, partitions } = await ctl.createTopic({ name: 'e', numPartitions: -1, replicationFactor: -1, assignments: [[2, 3, 1]] });
    const state = () => c.metadataCache.partition(topic.topicId, 0) as PartitionState;
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0) !== undefined, 5000, 'topic e in the cache');
    const codes = async (unclean: boolean, targets = [{ topic: 'e', partitions: [0] }]) => (await ctl.electLeaders(targets, unclean)).map((r) => r.errorCode);

    assert.equal(await codes(false), [ErrorCode.ELECTION_NOT_NEEDED], 'the preferred replica leads');
    assert.equal(await codes(true), [ErrorCode.ELECTION_NOT_NEEDED], 'a live ISR leader: no unclean election');
    assert.equal(await codes(false, [{ topic: 'e', partitions: [5] }, { topic: 'nope', partitions: [0] }]), [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);

    // Leadership moves to 3 and the preferred replica (2) drops out of the ISR.
    const moved = { ...partitions[0], leader: 3, leaderEpoch: 1, partitionEpoch: 1, isr: [3, 1] };
    assert.ok((await c.store.alterPartition(moved, 0, { controllerEpoch: ctl.controllerEpoch! })).ok);
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === 3, 5000, 'leader 3');
    assert.equal(await codes(false), [ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE], 'preferred replica out of the ISR');
    assert.is(await ctl.balanceLeaders(), 0, 'nothing to balance while 2 is out of sync');

    // 2 is back in sync (the leader expands the ISR): a preferred election moves leadership to it.
    const three = members[2];
    const expanded = await alterPartition(three.store, state(), { brokerId: 3, brokerEpoch: three.lifecycle.brokerEpoch, leaderEpoch: 1, partitionEpoch: 1, newIsr: [3, 1, 2] }, () => true);
    assert.ok(expanded.ok, JSON.stringify(expanded));
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.isr.length === 3, 5000, 'ISR of three');
    // Every partition (null): only the elections that happened are answered.
    const all = await ctl.electLeaders(null, false);
    assert.equal(all.map((r) => [r.topic, r.partition, r.errorCode]), [['e', 0, ErrorCode.NONE]]);
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === 2, 5000, 'preferred leader 2');
    assert.is(state().leaderEpoch, 2, 'a new leader epoch');

    // Balancing: leadership away from the preferred replica while it is in sync comes back.
    const away = { ...state(), leader: 1, leaderEpoch: 3, partitionEpoch: state().partitionEpoch + 1 };
    assert.ok((await c.store.alterPartition(away, state().partitionEpoch, { controllerEpoch: ctl.controllerEpoch! })).ok);
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === 1, 5000, 'leader 1');
    assert.is(await ctl.balanceLeaders(), 1);
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === 2, 5000, 'balanced back to 2');

    // Unclean: the only ISR member (3) dies while 1 is alive but out of sync.
    const { topic: t2, partitions: q } = await ctl.createTopic({ name: 'u', numPartitions: -1, replicationFactor: -1, assignments: [[3, 1]] });
    await c.metadataCache.waitFor((x) => x.partition(t2.topicId, 0) !== undefined, 5000, 'topic u in the cache');
    const s = await alterPartition(three.store, q[0], { brokerId: 3, brokerEpoch: three.lifecycle.brokerEpoch, leaderEpoch: 0, partitionEpoch: 0, newIsr: [3] }, () => true);
    assert.ok(s.ok);
    await three.crash();
    await c.metadataCache.waitFor((x) => x.partition(t2.topicId, 0)?.leader === NO_LEADER, 6000, 'partition offline');
    assert.equal(await codes(false, [{ topic: 'u', partitions: [0] }]), [ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE]);
    assert.equal(await codes(true, [{ topic: 'u', partitions: [0] }]), [ErrorCode.NONE], 'unclean election of broker 1');
    await c.metadataCache.waitFor((x) => x.partition(t2.topicId, 0)?.leader === 1, 5000, 'broker 1 leads');
    assert.equal((c.metadataCache.partition(t2.topicId, 0) as PartitionState).isr, [1], 'the ISR is reset to the new leader');
  } finally {
    await stopAll(members);
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
