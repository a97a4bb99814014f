/**
 * @samsa-timeout 240
 *
 * Network faults between three broker processes (test/support/cluster.ts with fault proxies in
 * front of etcd and of every broker's inter-broker listener), replication factor 3,
 * min.insync.replicas 2, under acks=all load from idempotent kafkajs producers; afterwards the
 * checker (checker.ts) reads everything back: zero lost, zero duplicated, order kept.
 *
 * - A leader cut off from etcd: its session runs out, it stops acting as leader (a produce to it
 *   answers NOT_LEADER_OR_FOLLOWER), the controller moves its leaderships to ISR members and the
 *   producers carry on; healed, it registers again and follows, back in every ISR.
 * - A follower cut off from its leader (connections reset): the leader drops it from the ISR after
 *   replica.lag.time.max.ms, acks=all keeps working with two in-sync replicas, and after the heal
 *   the follower catches up and is added back.
 * - The same with the link stalled instead (bytes held, connections open).
 * - A leader cut off from both followers but not from etcd: it shrinks the ISR to itself and
 *   refuses acks=all (NOT_ENOUGH_REPLICAS) instead of acknowledging a single copy; healed, the
 *   followers catch up and the producers go on.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { assertNothingLost, createTopic, kafkajsLoad, topicOf, waitPartitions } from '../support/checker.js';
import { ZERO_UUID } from '../../src/protocol/reader.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`network-faults: etcd is required under CI: ${missing}`);

const LAG_MS = 3000;
let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3, etcdProxies: true, peerProxies: true,
    config: {
      'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': LAG_MS,
      'replica.fetch.backoff.ms': 200, 'replica.socket.timeout.ms': 5000,
    },
  });
});

test.after(async () => {
  await c?.cleanup();
});

/** Heals the current fault (a failed test must not leave the next one a broken network). */
let healLater: (() => void) | null = null;
const ids = () => c!.brokers.map((b) => b.nodeId);

async function leaderOffEtcd(topic: string, fault: 'cut' | 'stall'): Promise<void> {
  const cc = c!;
  const m = await createTopic(cc, topic, 3);
  const victim = topicOf(m, topic)!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
  const led = topicOf(m, topic)!.partitions.filter((p) => p.leaderId === victim).map((p) => p.partitionIndex);
  const survivor = ids().find((id) => id !== victim)!;
  const load = await kafkajsLoad(cc, topic, 3);
  try {
    await load.acks.waitFor(10, 0, 'before the fault');
    const faultAt = Date.now();
    const mark = cc.broker(victim).output().length;
    if (fault === 'cut') cc.etcdLink(victim).cut();
    else cc.etcdLink(victim).stall();
    healLater = () => cc.etcdLink(victim).heal();
    // The controller (another broker, or a new one if the victim was it) moves the leaderships.
    await waitPartitions(cc, survivor, topic, (p) => p.leaderId !== victim && p.leaderId >= 0 && !p.isrNodes.includes(victim), 'leaders moved off the victim');
    const movedAt = Date.now();
    // The victim knows it lost its registration, and stops acting as leader of what it led.
    await waitOutput(victim, 'left the cluster', mark);
    const cl = await cc.client(victim);
    const res = await cl.send(0, 9, {
      transactionalId: null, acks: -1, timeoutMs: 3000,
      topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: led[0], records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('to the deposed leader') }] }) }] }],
    });
    assert.is(res.responses[0].partitionResponses[0].errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'the cut-off broker refuses produces');
    // Its cache is stale, so its Metadata leaves itself out: clients look for another broker.
    const own = await cc.metadata(victim);
    assert.not.ok(own.brokers.some((b) => b.nodeId === victim), `broker ${victim} lists itself while out of the cluster`);
    await load.acks.waitFor(10, movedAt, 'on the new leaders', 30_000, led);
    console.log(`etcd ${fault}: broker ${victim} cut off → leaders moved after ${movedAt - faultAt} ms → first acknowledged produce on a new leader ${load.acks.firstAfter(movedAt, led)} ms later (broker.session.timeout.ms 2000)`);
    const healAt = Date.now();
    cc.etcdLink(victim).heal();
    await waitOutput(victim, 'rejoined the cluster', mark);
    await waitPartitions(cc, survivor, topic, (p) => p.isrNodes.length === 3, 'the victim back in every ISR');
    console.log(`etcd ${fault}: healed → back in every ISR after ${Date.now() - healAt} ms`);
    await load.acks.waitFor(5, Date.now(), 'after the heal');
  } finally {
    healLater?.();
    await load.stop();
  }
  await assertNothingLost(cc.bootstrap, topic, load.acks);
  console.log(`etcd ${fault}: ${load.acks.total} acknowledged, ${load.acks.failures} sends failed, all read back once in order`);
}

test('a leader cut off from etcd stops leading; the controller moves its leaderships; it rejoins as a follower; nothing lost', async () => {
  if (!c) return console.log('network-faults: skipped:', missing);
  await leaderOffEtcd('etcd-cut', 'cut');
});

test('a leader whose etcd link stalls (requests and keep-alives held): the same', async () => {
  if (!c) return;
  await leaderOffEtcd('etcd-stall', 'stall');
});

async function waitOutput(id: number, text: string, since: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!c!.broker(id).output().slice(since).includes(text)) {
    if (Date.now() > deadline) throw new Error(`broker ${id} did not say '${text}' within ${timeoutMs} ms:\n${c!.broker(id).output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function followerCutOff(topic: string, fault: 'cut' | 'stall'): Promise<void> {
  const cc = c!;
  const m = await createTopic(cc, topic, 3);
  const p0 = topicOf(m, topic)!.partitions.find((p) => p.partitionIndex === 0)!;
  const leader = p0.leaderId;
  const follower = p0.replicaNodes.find((id) => id !== leader)!;
  // The partitions whose ISR must lose the follower: those `leader` leads.
  const affected = topicOf(m, topic)!.partitions.filter((p) => p.leaderId === leader).map((p) => p.partitionIndex);
  const load = await kafkajsLoad(cc, topic, 3);
  try {
    await load.acks.waitFor(10, 0, 'before the fault');
    const faultAt = Date.now();
    const link = cc.peerLink(follower, leader);
    if (fault === 'cut') link.cut();
    else link.stall();
    healLater = () => link.heal();
    await cc.waitForMetadata(leader, (x) => topicOf(x, topic)!.partitions.every((p) =>
      affected.includes(p.partitionIndex) ? !p.isrNodes.includes(follower) && p.isrNodes.length === 2 : p.isrNodes.length === 3), `broker ${follower} out of the ISRs ${leader} leads`, 30_000);
    const shrunkAt = Date.now();
    console.log(`follower ${fault}: ${follower}→${leader} ${fault} → ISR shrank after ${shrunkAt - faultAt} ms (replica.lag.time.max.ms ${LAG_MS})`);
    // acks=all goes on with two in-sync replicas (min.insync.replicas 2).
    await load.acks.waitFor(10, shrunkAt, 'with the smaller ISR', 30_000, affected);
    const healAt = Date.now();
    link.heal();
    await waitPartitions(cc, leader, topic, (p) => p.isrNodes.length === 3, 'the follower back in the ISR');
    console.log(`follower ${fault}: healed → back in the ISR after ${Date.now() - healAt} ms`);
    await load.acks.waitFor(5, Date.now(), 'after the heal');
  } finally {
    healLater?.();
    await load.stop();
  }
  await assertNothingLost(cc.bootstrap, topic, load.acks);
  console.log(`follower ${fault}: ${load.acks.total} acknowledged, ${load.acks.failures} sends failed, all read back once in order`);
}

test('a follower cut off from its leader leaves the ISR; acks=all goes on with min.insync.replicas 2; it catches up and comes back', async () => {
  if (!c) return;
  await followerCutOff('peer-cut', 'cut');
});

test('a stalled link from a follower to its leader: the same, and the held bytes flow on after the heal', async () => {
  if (!c) return;
  await followerCutOff('peer-stall', 'stall');
});

test('a leader cut off from both followers (still in etcd): the ISR shrinks to the leader, acks=all is refused (NOT_ENOUGH_REPLICAS) rather than acknowledged by one copy; after the heal it goes on; nothing lost', async () => {
  if (!c) return;
  const cc = c;
  const topic = 'peer-isolated';
  const m = await createTopic(cc, topic, 1);
  const p0 = topicOf(m, topic)!.partitions[0];
  const leader = p0.leaderId;
  const followers = p0.replicaNodes.filter((id) => id !== leader);
  const load = await kafkajsLoad(cc, topic, 1);
  try {
    await load.acks.waitFor(10, 0, 'before the fault');
    for (const f of followers) cc.peerLink(f, leader).cut();
    healLater = () => {
      for (const f of followers) cc.peerLink(f, leader).heal();
    };
    await cc.waitForMetadata(leader, (x) => String(topicOf(x, topic)!.partitions[0].isrNodes) === String([leader]), 'an ISR of the leader alone', 30_000);
    const shrunkAt = Date.now();
    const cl = await cc.client(leader);
    const res = await cl.send(0, 9, {
      transactionalId: null, acks: -1, timeoutMs: 3000,
      topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('alone') }] }) }] }],
    });
    assert.is(res.responses[0].partitionResponses[0].errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
    // Nothing is acknowledged while the leader is alone (a send in flight at the shrink may still
    // complete: allow one).
    const during = load.acks.countSince(shrunkAt + 200).get(0)!;
    const healAt = Date.now();
    assert.ok(during <= 1, `${during} acknowledged with an ISR of one`);
    healLater();
    await cc.waitForMetadata(leader, (x) => topicOf(x, topic)!.partitions[0].isrNodes.length === 3, 'the followers back in the ISR', 30_000);
    await load.acks.waitFor(10, healAt, 'after the heal', 60_000);
    console.log(`leader isolated: ISR [${leader}] after the cut; acks=all refused meanwhile; back to three ${Date.now() - healAt} ms after the heal`);
  } finally {
    healLater?.();
    await load.stop();
  }
  await assertNothingLost(cc.bootstrap, topic, load.acks);
  console.log(`leader isolated: ${load.acks.total} acknowledged, ${load.acks.failures} sends failed, all read back once in order`);
});

test.run();
