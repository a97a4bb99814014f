/**
 * The controller keeping eligible leader replicas (KIP-966) on a real etcd with three cluster
 * members in this process (partition-change.ts has the rules case by case):
 * - a new cluster finalizes eligible.leader.replicas.version 1;
 * - brokers lost one by one: the ELR holds the replica that left as the ISR dropped below the
 *   topic's min.insync.replicas;
 * - a topic min.insync.replicas change clears that topic's ELR (Kafka's ClearElrRecord), not
 *   another topic's; a cluster-wide (broker-level) change clears every topic's;
 * - the leader's own ISR changes (AlterPartition) fill the ELR again; disabling the feature
 *   (UpdateFeatures level 0) clears it, and an ISR shrink then leaves none; enabling it again
 *   brings the rules back;
 * - a broker back with clean-shutdown markers of its last registration's epoch stays in the ELR;
 *   with a marker of another epoch (a log dir copied or restored) it leaves it (KIP-966);
 * - an ELR stamped with another min.insync.replicas than the topic's now is cleared.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_BROKER_CONFIGS, type PartitionState } from '../../src/cluster/metadata-store.js';
import { ELIGIBLE_LEADER_REPLICAS_VERSION } from '../../src/cluster/features.js';
import { alterPartition } from '../../src/cluster/partition-state.js';
import { elrSettingsOf } from '../../src/cluster/partition-change.js';
import { ClusterMember } from '../../src/cluster/cluster-member.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { activeController, endpointOf, freshPrefix, logger, settings, startMembers, stopAll, waitBrokers } from '../support/cluster-members.js';

const etcd = (await etcdOrSkip('test/cluster/eligible-leader-replicas')) as EtcdServer;
if (!etcd) process.exit(0);

test('ELR from lost brokers; cleared by min.insync.replicas changes and by disabling the feature; filled by the leader\'s ISR changes', async () => {
  const prefix = freshPrefix('elr');
  const members = await startMembers(etcd, prefix, [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  let back: ClusterMember | null = null;
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    assert.is(c.metadataCache.features.get(ELIGIBLE_LEADER_REPLICAS_VERSION), 1, 'a new cluster finalizes it');
    const [x, y] = members.filter((m) => m !== c);
    const replicas = [c.nodeId, x.nodeId, y.nodeId];
    const { topic } = await c.controller.createTopic({ name: 'e', numPartitions: -1, replicationFactor: -1, assignments: [replicas], configs: { 'min.insync.replicas': '2' } });
    const { topic: other } = await c.controller.createTopic({ name: 'o', numPartitions: -1, replicationFactor: -1, assignments: [replicas], configs: { 'min.insync.replicas': '2' } });
    const state = (t = topic) => c.metadataCache.partition(t.topicId, 0) as PartitionState;
    const until = (pred: (s: PartitionState, o: PartitionState) => boolean, what: string) =>
      c.metadataCache.waitFor((m) => { const s = m.partition(topic.topicId, 0); const o = m.partition(other.topicId, 0); return !!s && !!o && pred(s, o); }, 8000, what);

    await x.crash();
    await until((s) => s.isr.join() === `${c.nodeId},${y.nodeId}`, `${x.nodeId} out of the ISR`);
    assert.is(state().elr, undefined, 'the ISR is still at min ISR');
    await y.crash();
    await until((s, o) => s.isr.join() === `${c.nodeId}` && o.isr.join() === `${c.nodeId}`, `${y.nodeId} out of the ISR`);
    assert.equal([state().elr, state(other).elr], [[y.nodeId], [y.nodeId]], 'the ISR dropped below min ISR as it left');

    await c.store.alterTopicConfigs('e', { 'min.insync.replicas': '3' });
    await until((s) => s.elr === undefined, 'the topic ELR cleared');
    assert.equal(state(other).elr, [y.nodeId], 'another topic keeps its ELR');
    await c.store.alterBrokerConfigs(DEFAULT_BROKER_CONFIGS, { 'min.insync.replicas': '2' });
    await until((_s, o) => o.elr === undefined, 'a broker-level change clears every ELR');

    // x comes back; the leader adds it to the ISR, then drops it again: the ELR fills (min ISR 3).
    back = await ClusterMember.start({ settings: settings(etcd, prefix, x.nodeId), endpoints: endpointOf(x.nodeId), logger, registrationRetryMs: 5000 });
    await waitBrokers(c, [c.nodeId, x.nodeId]);
    const leaderChange = async (newIsr: number[]) => {
      const known = state();
      const out = await alterPartition(c.store, known, { brokerId: c.nodeId, brokerEpoch: c.lifecycle.brokerEpoch, leaderEpoch: known.leaderEpoch, partitionEpoch: known.partitionEpoch, newIsr },
        (id) => c.metadataCache.isEligible(id), elrSettingsOf(c.metadataCache, known, 1));
      assert.ok(out.ok, JSON.stringify(out));
      await until((s) => s.partitionEpoch === known.partitionEpoch + 1, 'the leader\'s change in the cache');
    };
    await leaderChange([c.nodeId, x.nodeId]);
    await leaderChange([c.nodeId]);
    assert.equal(state().elr, [x.nodeId], 'min ISR 3: x left an ISR below it');

    await c.store.alterFeatures(new Map([[ELIGIBLE_LEADER_REPLICAS_VERSION, 0]]));
    await until((s) => s.elr === undefined && s.lastKnownElr === undefined, 'disabling the feature clears the ELR');
    await leaderChange([c.nodeId, x.nodeId]);
    await leaderChange([c.nodeId]);
    assert.is(state().elr, undefined, 'no ELR while disabled');
    await c.store.alterFeatures(new Map([[ELIGIBLE_LEADER_REPLICAS_VERSION, 1]]));
    await leaderChange([c.nodeId, x.nodeId]);
    await leaderChange([c.nodeId]);
    assert.equal(state().elr, [x.nodeId], 'enabled again');
  } finally {
    await stopAll(members);
    await back?.stop();
  }
});

test('clean-shutdown markers: the epoch of the last registration keeps a returning broker in the ELR, another epoch takes it out', async () => {
  const prefix = freshPrefix('elr-marker');
  const members = await startMembers(etcd, prefix, [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  const back: ClusterMember[] = [];
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    const [x, y] = members.filter((m) => m !== c);
    const { topic } = await c.controller.createTopic({ name: 'm', numPartitions: -1, replicationFactor: -1, assignments: [[c.nodeId, x.nodeId, y.nodeId]], configs: { 'min.insync.replicas': '2' } });
    const state = () => c.metadataCache.partition(topic.topicId, 0) as PartitionState;
    const until = (pred: (s: PartitionState) => boolean, what: string) => c.metadataCache.waitFor((m) => { const s = m.partition(topic.topicId, 0); return !!s && pred(s); }, 8000, what);
    await x.crash();
    await until((s) => s.isr.length === 2, `${x.nodeId} out of the ISR`);
    const firstEpoch = y.lifecycle.brokerEpoch;
    assert.is(await c.store.lastBrokerEpoch(y.nodeId), firstEpoch, 'the store keeps the last registration\'s epoch');
    assert.is(await c.store.lastBrokerEpoch(99), -1, 'never registered');
    await y.crash();
    await until((s) => s.isr.join() === `${c.nodeId}` && s.elr?.join() === `${y.nodeId}`, `${y.nodeId} into the ELR`);
    assert.is(await c.store.lastBrokerEpoch(y.nodeId), firstEpoch, 'kept after the registration ran out');
    assert.is(state().elrMinIsr, 2, 'the ELR is stamped with the min ISR it was computed under');

    // Back with markers of its last epoch: a clean shutdown, it stays eligible.
    const again = await ClusterMember.start({ settings: settings(etcd, prefix, y.nodeId), endpoints: endpointOf(y.nodeId), logger, registrationRetryMs: 5000, cleanShutdownEpochs: [firstEpoch, firstEpoch] });
    back.push(again);
    await waitBrokers(c, [c.nodeId, y.nodeId]);
    assert.equal(state().elr, [y.nodeId], 'a marker of the last epoch: still in the ELR');
    const secondEpoch = again.lifecycle.brokerEpoch;
    assert.ok(secondEpoch > firstEpoch);

    // Back with one marker of an older epoch (a restored log dir): an unclean shutdown.
    await again.crash();
    await c.metadataCache.waitFor((m) => !m.isAlive(y.nodeId), 8000, `${y.nodeId} gone`);
    back.push(await ClusterMember.start({ settings: settings(etcd, prefix, y.nodeId), endpoints: endpointOf(y.nodeId), logger, registrationRetryMs: 5000, cleanShutdownEpochs: [secondEpoch, firstEpoch] }));
    await until((s) => s.elr === undefined, `${y.nodeId} out of the ELR`);
    assert.equal(state().isr, [c.nodeId]);

    // An ELR computed under another min.insync.replicas than the topic's now (a change made while
    // no controller watched): the controller clears it.
    await c.controller.settled();
    const now = state();
    const stamped = { ...now, elr: [x.nodeId], elrMinIsr: 3, partitionEpoch: now.partitionEpoch + 1 };
    assert.ok((await c.store.alterPartition(stamped, now.partitionEpoch, { controllerEpoch: c.controller.controllerEpoch! })).ok);
    await until((s) => s.partitionEpoch > stamped.partitionEpoch, 'the stale ELR cleared');
    assert.equal([state().elr, state().elrMinIsr], [undefined, undefined]);
    const fresh = state();
    assert.ok((await c.store.alterPartition({ ...fresh, elr: [x.nodeId], elrMinIsr: 2, partitionEpoch: fresh.partitionEpoch + 1 }, fresh.partitionEpoch, { controllerEpoch: c.controller.controllerEpoch! })).ok);
    await until((s) => s.partitionEpoch === fresh.partitionEpoch + 1, 'an ELR of the current min ISR');
    await c.controller.settled();
    assert.equal(state().elr, [x.nodeId], 'an ELR of the current min ISR stays');
  } finally {
    await stopAll(members);
    for (const m of back) await m.stop();
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
