/**
 * Controlled shutdown (Kafka's want_shut_down): a stopping broker first has the controller move
 * its leaderships and take it out of the ISRs, while it still serves.
 * - In this process, three cluster members on a real etcd: after `controlledShutdown()` the
 *   registration is flagged, every partition it led with another in-sync replica is led
 *   elsewhere at a new leader epoch, it is in no ISR but of a partition it holds alone, and
 *   neither preferred elections nor new topics give it anything.
 * - Three broker processes under kafkajs acks=all load (test/support/checker.ts, idempotent
 *   producers with a small retry budget): SIGTERM of a broker leading partitions; it reports the
 *   leaderships it moved, no send fails, nothing acknowledged is lost, duplicated or reordered.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PartitionState } from '../../src/cluster/metadata-store.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { startCluster } from '../support/cluster.js';
import { activeController, freshPrefix, startMembers, stopAll, waitBrokers } from '../support/cluster-members.js';
import { assertNothingLost, createTopic, kafkajsLoad, topicOf } from '../support/checker.js';

const etcd = (await etcdOrSkip('test/cluster/controlled-shutdown')) as EtcdServer;
if (!etcd) process.exit(0);

test('controlledShutdown(): leaderships move, the broker leaves the ISRs, nothing new comes to it', async () => {
  const members = await startMembers(etcd, freshPrefix('cshut'), [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    const victim = members.find((m) => m !== c)!;
    const id = victim.lifecycle.registration.nodeId;
    const [a, b] = [1, 2, 3].filter((x) => x !== id);
    const { topic } = await c.controller.createTopic({ name: 'cs', numPartitions: -1, replicationFactor: -1, assignments: [[id, a], [b, id]] });
    const { topic: solo } = await c.controller.createTopic({ name: 'solo', numPartitions: -1, replicationFactor: -1, assignments: [[id]] });
    const state = (t: { topicId: string }, i: number) => victim.metadataCache.partition(t.topicId, i) as PartitionState;
    await victim.metadataCache.waitFor((x) => x.partition(topic.topicId, 1) !== undefined && x.partition(solo.topicId, 0) !== undefined, 5000, 'topics cs and solo');
    const before = state(topic, 0);
    assert.equal([before.leader, state(topic, 1).leader, state(solo, 0).leader], [id, b, id]);

    const moved = await victim.controlledShutdown(10_000);
    assert.is(moved, 1, 'cs-0 moved; solo-0 has no other replica');
    assert.ok(victim.metadataCache.brokers.get(id)?.inControlledShutdown, 'the registration says so');
    const after = state(topic, 0);
    assert.equal([after.leader, after.leaderEpoch, after.isr], [a, before.leaderEpoch + 1, [a]], 'led by the other in-sync replica, out of the ISR');
    assert.equal(state(topic, 1).isr, [b], 'out of the ISR it followed');
    assert.equal([state(solo, 0).leader, state(solo, 0).isr], [id, [id]], 'alone: it keeps the partition until it deregisters');

    // Nothing comes back to it while it shuts down: no preferred election, no new leadership.
    await c.controller.balanceLeaders();
    assert.is(state(topic, 0).leader, a, 'its preferred replica, but shutting down');
    const more = await c.controller.createTopic({ name: 'cs2', numPartitions: 4, replicationFactor: 2 });
    assert.ok(more.partitions.every((p) => !p.replicas.includes(id)), 'new replicas go to the other brokers');
  } finally {
    await stopAll(members);
  }
});

test('SIGTERM under acks=all load: leaderships moved first, no failed send, nothing lost', async () => {
  const c = await startCluster({ brokers: 3, etcd, config: { 'min.insync.replicas': 2, 'default.replication.factor': 3 } });
  try {
    const m = await createTopic(c, 'graceful', 6);
    const victim = c.brokers.map((b) => b.nodeId).find((id) => id !== m.controllerId)!;
    const led = topicOf(m, 'graceful')!.partitions.filter((p) => p.leaderId === victim).length;
    assert.ok(led > 0, 'the victim leads partitions');
    const load = await kafkajsLoad(c, 'graceful', 6);
    await load.acks.waitFor(20, 0, 'before the stop');
    const since = Date.now();
    await c.stop(victim);
    await load.acks.waitFor(20, since, 'after the stop');
    await load.stop();
    assert.match(c.broker(victim).output(), `controlled shutdown: ${led} leadership(s) moved to other brokers`);
    assert.is(load.acks.failures, 0, 'no send failed');
    await assertNothingLost(c.bootstrap, 'graceful', load.acks);
  } finally {
    await c.cleanup();
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
