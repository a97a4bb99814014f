/**
 * @samsa-timeout 240
 *
 * Faults of the control plane under acks=all load from idempotent kafkajs producers, three
 * brokers, replication factor 3, min.insync.replicas 2; the checker (checker.ts) reads everything
 * back afterwards: zero lost, zero duplicated, order kept.
 *
 * - SIGKILL of the active controller (which also leads partitions): another broker wins the
 *   election, moves the dead broker's leaderships, and the producers carry on; restarted, the old
 *   controller rejoins as a follower and catches up.
 * - etcd restarted (SIGKILL, same data dir) within the brokers' sessions: they keep serving.
 * - etcd down for longer than the sessions: every broker loses its registration and stops
 *   leading; once etcd is back they register again, leaders are elected from the ISR, and the
 *   producers carry on with nothing lost.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { assertNothingLost, createTopic, kafkajsLoad, topicOf, waitPartitions } from '../support/checker.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`control-plane-faults: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: { 'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200 },
  });
});

test.after(async () => {
  await c?.cleanup();
});

const ids = () => c!.brokers.map((b) => b.nodeId);

async function waitOutput(id: number, text: string, since: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!c!.broker(id).output().slice(since).includes(text)) {
    if (Date.now() > deadline) throw new Error(`broker ${id} did not say '${text}' within ${timeoutMs} ms:\n${c!.broker(id).output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('SIGKILL of the controller: a new controller moves its leaderships; producers carry on; it rejoins as a follower; nothing lost', async () => {
  if (!c) return console.log('control-plane-faults: skipped:', missing);
  const topic = 'controller-kill';
  const m = await createTopic(c, topic, 3);
  const victim = m.controllerId;
  assert.ok(victim > 0, 'a controller');
  const led = topicOf(m, topic)!.partitions.filter((p) => p.leaderId === victim).map((p) => p.partitionIndex);
  assert.ok(led.length > 0, `the controller ${victim} leads a partition`);
  const survivor = ids().find((id) => id !== victim)!;
  const load = await kafkajsLoad(c, topic, 3);
  try {
    await load.acks.waitFor(10, 0, 'before the fault');
    const faultAt = Date.now();
    await c.kill(victim);
    const moved = await waitPartitions(c, survivor, topic, (p) => p.leaderId !== victim && p.leaderId >= 0 && !p.isrNodes.includes(victim), 'leaders moved off the dead controller');
    const movedAt = Date.now();
    assert.ok(moved.controllerId > 0 && moved.controllerId !== victim, `a new controller (${moved.controllerId})`);
    await load.acks.waitFor(10, movedAt, 'on the new leaders', 30_000, led);
    console.log(`controller kill: SIGKILL of controller ${victim} → new controller ${moved.controllerId}, leaders moved after ${movedAt - faultAt} ms; first acknowledged produce on a new leader ${load.acks.firstAfter(movedAt, led)} ms later`);
    await c.start(victim);
    await waitPartitions(c, survivor, topic, (p) => p.isrNodes.length === 3, 'the old controller back in every ISR');
    await load.acks.waitFor(5, Date.now(), 'after the restart');
  } finally {
    await load.stop();
  }
  await assertNothingLost(c.bootstrap, topic, load.acks);
  console.log(`controller kill: ${load.acks.total} acknowledged, ${load.acks.failures} sends failed, all read back once in order`);
});

test('etcd restarted within the sessions: brokers keep serving; nothing lost', async () => {
  if (!c) return;
  const topic = 'etcd-blip';
  await createTopic(c, topic, 3);
  const marks = new Map(ids().map((id) => [id, c!.broker(id).output().length]));
  const load = await kafkajsLoad(c, topic, 3);
  try {
    await load.acks.waitFor(10, 0, 'before the fault');
    const downAt = Date.now();
    await c.etcd.restart();
    const upAt = Date.now();
    // Acknowledged while etcd was away or right after: the data path does not need etcd.
    await load.acks.waitFor(10, downAt, 'across the restart');
    console.log(`etcd blip: etcd down for ${upAt - downAt} ms; ${load.acks.countSince(downAt).size} partitions kept acknowledging`);
    await waitPartitions(c, ids()[0], topic, (p) => p.isrNodes.length === 3, 'every ISR full');
    await load.acks.waitFor(5, Date.now(), 'after the restart');
  } finally {
    await load.stop();
  }
  await assertNothingLost(c.bootstrap, topic, load.acks);
  for (const id of ids()) {
    const out = c.broker(id).output().slice(marks.get(id));
    if (out.includes('left the cluster')) console.log(`etcd blip: broker ${id} lost its registration (etcd took longer than a session to return)`);
  }
  console.log(`etcd blip: ${load.acks.total} acknowledged, ${load.acks.failures} sends failed, all read back once in order`);
});

test('etcd down for longer than the sessions: every broker stops leading, registers again when it returns; producers carry on; nothing lost', async () => {
  if (!c) return;
  const topic = 'etcd-outage';
  await createTopic(c, topic, 3);
  const marks = new Map(ids().map((id) => [id, c!.broker(id).output().length]));
  const load = await kafkajsLoad(c, topic, 3);
  try {
    await load.acks.waitFor(10, 0, 'before the fault');
    const downAt = Date.now();
    await c.etcd.kill();
    // Every broker notices its session is gone and stops leading.
    for (const id of ids()) await waitOutput(id, 'left the cluster', marks.get(id)!);
    const allLostAt = Date.now();
    await c.etcd.start();
    const upAt = Date.now();
    for (const id of ids()) await waitOutput(id, 'rejoined the cluster', marks.get(id)!, 60_000);
    await waitPartitions(c, ids()[0], topic, (p) => p.leaderId >= 0 && p.isrNodes.length >= 2, 'leaders again', 60_000);
    await load.acks.waitFor(10, upAt, 'after etcd returned', 60_000);
    console.log(`etcd outage: every broker out ${allLostAt - downAt} ms after etcd died; etcd back after ${upAt - downAt} ms; produces acknowledged again ${load.acks.firstAfter(upAt, [0, 1, 2])} ms later`);
    await waitPartitions(c, ids()[0], topic, (p) => p.isrNodes.length === 3, 'every ISR full', 60_000);
  } finally {
    if (!c.etcd.pid()) await c.etcd.start().catch(() => undefined);
    await load.stop();
  }
  await assertNothingLost(c.bootstrap, topic, load.acks);
  console.log(`etcd outage: ${load.acks.total} acknowledged, ${load.acks.failures} sends failed, all read back once in order`);
});

test.run();
