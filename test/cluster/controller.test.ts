/**
 * The controller against a real etcd, with several cluster members in this process (each with its
 * own etcd connection, lease and cache): rack-aware assignment and its validation, leaderships
 * moving to ISR members when a broker's lease expires, controller failover, unclean election only
 * when enabled, and a deposed leader's ISR change failing on the partition epoch.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { KafkaApiError } from '../../src/errors.js';
import { alterPartition } from '../../src/cluster/partition-state.js';
import { NO_LEADER, type PartitionState } from '../../src/cluster/metadata-store.js';
import { ClusterMember } from '../../src/cluster/cluster-member.js';
import { etcdOrSkip, type EtcdServer } from '../support/etcd.js';
import { activeController, endpointOf, freshPrefix, logger, settings, startMembers, stopAll, waitBrokers } from '../support/cluster-members.js';

const etcd = (await etcdOrSkip('test/cluster/controller')) as EtcdServer;
if (!etcd) process.exit(0);

async function codeOf(p: Promise<unknown>): Promise<number | null> {
  try {
    await p;
    return null;
  } catch (e) {
    return e instanceof KafkaApiError ? e.errorCode : -999;
  }
}

function byPartition(states: PartitionState[]): Map<number, PartitionState> {
  return new Map(states.map((s) => [s.partition, s]));
}

test('rack-aware assignment of a new topic; INVALID_REPLICATION_FACTOR and INVALID_REPLICA_ASSIGNMENT', async () => {
  const prefix = freshPrefix('racks');
  const specs = [1, 2, 3, 4, 5, 6].map((nodeId) => ({ nodeId, rack: ['east', 'west', 'north'][Math.floor((nodeId - 1) / 2)] }));
  const members = await startMembers(etcd, prefix, specs);
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3, 4, 5, 6]);
    const rackOf = (id: number) => specs.find((s) => s.nodeId === id)?.rack;
    const { topic, partitions } = await c.controller.createTopic({ name: 'spread', numPartitions: 6, replicationFactor: 3 });
    assert.is(topic.partitions, 6);
    assert.is(topic.replicationFactor, 3);
    for (const p of partitions) {
      assert.is(new Set(p.replicas.map(rackOf)).size, 3, `partition ${p.partition} spans three racks: ${p.replicas}`);
      assert.equal(p.isr, p.replicas);
      assert.is(p.leader, p.replicas[0]);
      assert.equal([p.leaderEpoch, p.partitionEpoch], [0, 0]);
    }
    assert.is(new Set(partitions.map((p) => p.leader)).size, 6, 'every broker leads one partition');
    // What the controller wrote is what every member sees.
    const other = members.find((m) => m !== c) as ClusterMember;
    await other.metadataCache.waitFor((x) => x.partitionsOf(topic.topicId).length === 6, 3000, 'topic on another member');
    assert.equal(other.metadataCache.partitionsOf(topic.topicId), partitions);

    assert.is(await codeOf(c.controller.createTopic({ name: 'too-wide', numPartitions: 1, replicationFactor: 7 })), ErrorCode.INVALID_REPLICATION_FACTOR);
    assert.is(await codeOf(c.controller.createTopic({ name: 'unknown', numPartitions: -1, replicationFactor: -1, assignments: [[1, 99]] })), ErrorCode.INVALID_REPLICA_ASSIGNMENT);
    assert.is(await codeOf(c.controller.createTopic({ name: 'spread', numPartitions: 1, replicationFactor: 1 })), ErrorCode.TOPIC_ALREADY_EXISTS);
    assert.is(c.metadataCache.topic('too-wide') ?? c.metadataCache.topic('unknown'), undefined, 'refused topics were not written');
    // A follower broker is no controller.
    assert.is(await codeOf(other.controller.createTopic({ name: 'x', numPartitions: 1, replicationFactor: 1 })), ErrorCode.NOT_CONTROLLER);

    const added = await c.controller.createPartitions('spread', 8);
    assert.equal(added.map((p) => p.partition), [6, 7]);
    for (const p of added) assert.is(new Set(p.replicas.map(rackOf)).size, 3);
    await c.metadataCache.waitFor((x) => x.topic('spread')?.partitions === 8, 3000, '8 partitions');
  } finally {
    await stopAll(members);
  }
});

test('lease expiry: the controller moves the dead broker\'s leaderships to ISR members, bumping leaderEpoch and partitionEpoch', async () => {
  const prefix = freshPrefix('expiry');
  const members = await startMembers(etcd, prefix, [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  try {
    const c = await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    const { topic, partitions } = await c.controller.createTopic({ name: 'moving', numPartitions: 3, replicationFactor: 3 });
    const victim = members.find((m) => m !== c && partitions.some((p) => p.leader === m.nodeId)) as ClusterMember;
    const before = byPartition(partitions);
    const t0 = Date.now();
    await victim.crash(); // no deregistration: only the lease running out tells the cluster
    await c.metadataCache.waitFor(
      (x) => x.partitionsOf(topic.topicId).every((p) => p.leader !== victim.nodeId && !p.isr.includes(victim.nodeId)),
      6000,
      `broker ${victim.nodeId} out of every ISR`,
    );
    const took = Date.now() - t0;
    assert.ok(took >= 500, `not before the lease could expire (${took} ms)`);
    for (const p of c.metadataCache.partitionsOf(topic.topicId)) {
      const old = before.get(p.partition) as PartitionState;
      assert.equal(p.replicas, old.replicas, 'the assignment stays');
      assert.equal(p.isr, old.isr.filter((id) => id !== victim.nodeId));
      assert.is(p.partitionEpoch, old.partitionEpoch + 1, 'one change per partition');
      if (old.leader === victim.nodeId) {
        assert.ok(old.isr.includes(p.leader) && p.leader !== victim.nodeId, `new leader ${p.leader} from the ISR`);
        assert.is(p.leader, old.replicas.find((id) => id !== victim.nodeId), 'the next replica in assignment order');
        assert.is(p.leaderEpoch, old.leaderEpoch + 1);
      } else {
        assert.is(p.leader, old.leader);
        assert.is(p.leaderEpoch, old.leaderEpoch, 'an ISR shrink alone keeps the leader epoch');
      }
    }
  } finally {
    await stopAll(members);
  }
});

test('controller failover: the controller\'s lease is killed, another broker wins with a higher epoch and fences the old one', async () => {
  const prefix = freshPrefix('failover');
  const members = await startMembers(etcd, prefix, [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  try {
    const first = await activeController(members);
    await waitBrokers(first, [1, 2, 3]);
    const oldEpoch = first.controller.controllerEpoch as number;
    const { topic } = await first.controller.createTopic({ name: 'ctl', numPartitions: 3, replicationFactor: 2 });
    const lost = new Promise<Error>((resolve) => first.on('lost', resolve));
    await first.lifecycle.session.revoke(); // the lease dies: registration and claim go with it
    const rest = members.filter((m) => m !== first);
    const second = await activeController(rest, 6000);
    assert.is.not(second.nodeId, first.nodeId);
    assert.ok((second.controller.controllerEpoch as number) > oldEpoch);
    assert.match((await lost).message, 'expired');
    assert.is(first.controller.isActive, false, 'the old controller stopped acting');
    // Its epoch no longer writes anything.
    const state = second.metadataCache.partitionsOf(topic.topicId)[0];
    const stale = await second.store.alterPartition({ ...state, partitionEpoch: state.partitionEpoch + 1 }, state.partitionEpoch, { controllerEpoch: oldEpoch });
    assert.is(stale.ok ? 0 : stale.error, ErrorCode.NOT_CONTROLLER);
    // The new controller also handles the old controller's broker: out of every ISR.
    await second.metadataCache.waitFor(
      (x) => x.partitionsOf(topic.topicId).every((p) => !p.isr.includes(first.nodeId) && p.leader !== first.nodeId),
      6000,
      'old controller\'s replicas out of the ISRs',
    );
    // And topic creation works on the new controller.
    await second.controller.createTopic({ name: 'after', numPartitions: 1, replicationFactor: 2 });
  } finally {
    await stopAll(members);
  }
});

test('no unclean election unless unclean.leader.election.enable; the last ISR member coming back leads again', async () => {
  const prefix = freshPrefix('unclean');
  const members = await startMembers(etcd, prefix, [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  let back: ClusterMember | null = null;
  try {
    const c = members[0];
    assert.ok((await activeController(members)) === c);
    await waitBrokers(c, [1, 2, 3]);
    const { topic, partitions } = await c.controller.createTopic({ name: 'u', numPartitions: -1, replicationFactor: -1, assignments: [[2, 3]] });
    const p0 = partitions[0];
    // The leader (2) shrinks its ISR to itself, as it would when 3 falls behind.
    const two = members[1];
    const shrunk = await alterPartition(two.store, p0, { brokerId: 2, brokerEpoch: two.lifecycle.brokerEpoch, leaderEpoch: 0, partitionEpoch: 0, newIsr: [2] }, () => true);
    assert.ok(shrunk.ok, `shrink: ${JSON.stringify(shrunk)}`);
    await two.crash();
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === NO_LEADER, 6000, 'partition offline');
    const offline = c.metadataCache.partition(topic.topicId, 0) as PartitionState;
    // eligible.leader.replicas.version 1 (a new cluster's level): the ISR empties, its last member
    // is eligible (min ISR here 1) and remembered as the last leader (partition-change.test.ts).
    assert.equal([offline.isr, offline.elr, offline.lastKnownElr], [[], [2], [2]], 'the last ISR member is kept in the ELR');
    assert.is(offline.leaderEpoch, 1);
    await c.controller.settled();
    assert.is(c.metadataCache.partition(topic.topicId, 0)?.leader, NO_LEADER, 'broker 3 is alive but was not in the ISR');

    // The last ISR member returns (a new incarnation): it leads again, cleanly.
    back = await ClusterMember.start({ settings: settings(etcd, prefix, 2), endpoints: endpointOf(2), logger, registrationRetryMs: 5000 });
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === 2, 6000, 'broker 2 leads again');
    assert.is(c.metadataCache.partition(topic.topicId, 0)?.leaderEpoch, 2);

    // Second topic: with unclean election enabled for it, a live out-of-sync replica takes over.
    const { topic: t2, partitions: q } = await c.controller.createTopic({
      name: 'u2', numPartitions: -1, replicationFactor: -1, assignments: [[3, 1]], configs: { 'unclean.leader.election.enable': 'true' },
    });
    const three = members[2];
    const s = await alterPartition(three.store, q[0], { brokerId: 3, brokerEpoch: three.lifecycle.brokerEpoch, leaderEpoch: 0, partitionEpoch: 0, newIsr: [3] }, () => true);
    assert.ok(s.ok);
    await three.crash();
    await c.metadataCache.waitFor((x) => x.partition(t2.topicId, 0)?.leader === 1, 6000, 'unclean election of broker 1');
    const u = c.metadataCache.partition(t2.topicId, 0) as PartitionState;
    assert.equal(u.isr, [1]);
    assert.is(u.leaderEpoch, 1);
  } finally {
    await stopAll(members);
    if (back) await back.stop();
  }
});

test('AlterPartition fencing: a deposed leader\'s ISR change fails once the controller moved leadership', async () => {
  const prefix = freshPrefix('deposed');
  const members = await startMembers(etcd, prefix, [{ nodeId: 1 }, { nodeId: 2 }, { nodeId: 3 }]);
  let back: ClusterMember | null = null;
  try {
    const c = members[0];
    await activeController(members);
    await waitBrokers(c, [1, 2, 3]);
    const { topic, partitions } = await c.controller.createTopic({ name: 'd', numPartitions: -1, replicationFactor: -1, assignments: [[2, 3, 1]] });
    const known = partitions[0]; // what the leader (2) believes, and keeps believing while "paused"
    await members[1].lifecycle.session.revoke();
    await c.metadataCache.waitFor((x) => x.partition(topic.topicId, 0)?.leader === 3, 6000, 'leadership moved to 3');
    const moved = c.metadataCache.partition(topic.topicId, 0) as PartitionState;
    assert.equal([moved.leaderEpoch, moved.partitionEpoch], [1, 1]);

    // The old incarnation, with its old broker epoch: its registration is gone.
    const r1 = await alterPartition(members[1].store, known, { brokerId: 2, brokerEpoch: members[1].lifecycle.brokerEpoch, leaderEpoch: 0, partitionEpoch: 0, newIsr: [2] }, () => true);
    assert.is(r1.ok ? 0 : r1.error, ErrorCode.STALE_BROKER_EPOCH);
    // Back with a fresh registration, but still acting on the old state: the partition epoch moved.
    back = await ClusterMember.start({ settings: settings(etcd, prefix, 2), endpoints: endpointOf(2), logger, registrationRetryMs: 5000 });
    const r2 = await alterPartition(back.store, known, { brokerId: 2, brokerEpoch: back.lifecycle.brokerEpoch, leaderEpoch: 0, partitionEpoch: 0, newIsr: [2] }, () => true);
    assert.is(r2.ok, false);
    if (!r2.ok) {
      assert.is(r2.error, ErrorCode.FENCED_LEADER_EPOCH);
      assert.equal(r2.current, moved, 'the refusal carries the current state');
    }
    const stored = (await c.store.readImage()).partitions.get(topic.topicId)?.get(0);
    assert.equal(stored, moved, 'nothing was written');
    // The current leader's own ISR change goes through.
    const three = members[2];
    const ok = await alterPartition(three.store, moved, { brokerId: 3, brokerEpoch: three.lifecycle.brokerEpoch, leaderEpoch: 1, partitionEpoch: 1, newIsr: [3, 1, 2] }, (id) => c.metadataCache.isAlive(id));
    assert.ok(ok.ok, JSON.stringify(ok));
    if (ok.ok) assert.equal([ok.state.isr, ok.state.leaderEpoch, ok.state.partitionEpoch], [[2, 3, 1], 1, 2], "ISR in assignment order");
  } finally {
    await stopAll(members);
    if (back) await back.stop();
  }
});

test.after(async () => {
  await etcd.cleanup();
});

test.run();
