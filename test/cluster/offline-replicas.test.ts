/**
 * Replicas on a failed log dir (cluster/offline-replicas.ts): a member reports them in its
 * registration (through etcd), and the controller takes that broker out of those partitions' ISRs
 * and elects another leader, leaving its other partitions alone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { offlineReplicaKey } from '../../src/cluster/offline-replicas.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { activeController, freshPrefix, startMembers, stopAll, waitBrokers } from '../support/cluster-members.js';

const etcd = (await etcdOrSkip('test/cluster/offline-replicas')) as EtcdServer;
if (!etcd) process.exit(0);

test('offline replicas in a registration: the controller moves exactly those partitions', async () => {
  const members = await startMembers(etcd, freshPrefix('offline-replicas'), [1, 2, 3].map((nodeId) => ({ nodeId })));
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    const { topic } = await c.controller.createTopic({ name: 'jbod', numPartitions: -1, replicationFactor: -1, assignments: [[1, 2, 3], [1, 3, 2]] });
    const one = members.find((m) => m.lifecycle.nodeId === 1)!;
    await one.reportOfflineLogDirs({ offlineLogDirs: ['dir-id-b'], offlineReplicas: [offlineReplicaKey(topic.topicId, 0)] });
    for (const m of members) {
      await m.metadataCache.waitFor((x) => {
        const p0 = x.partition(topic.topicId, 0);
        return p0 !== undefined && p0.leader !== 1 && !p0.isr.includes(1);
      }, 10_000, 'partition 0 led elsewhere, broker 1 out of its ISR');
    }
    const p0 = c.metadataCache.partition(topic.topicId, 0)!;
    assert.is(p0.leader, 2);
    assert.equal(p0.isr, [2, 3]);
    assert.is(p0.leaderEpoch, 1);
    const p1 = c.metadataCache.partition(topic.topicId, 1)!;
    assert.equal([p1.leader, p1.isr], [1, [1, 3, 2]], 'the replica on the working dir stays');
    const reg = c.metadataCache.brokers.get(1)!;
    assert.equal([reg.offlineLogDirs, reg.offlineReplicas], [['dir-id-b'], [offlineReplicaKey(topic.topicId, 0)]]);
  } finally {
    await stopAll(members);
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
