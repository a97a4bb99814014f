/**
 * @samsa-timeout 360
 *
 * SIGKILL of a partition leader under acks=all load from three real clients at once, each on a
 * topic of its own (three brokers, replication factor 3, min.insync.replicas 2): idempotent
 * kafkajs producers, an idempotent librdkafka producer (confluent-kafka from PyPI), and
 * idempotent producers of the Java client (kafka-clients); then the same with a SIGKILL of the
 * controller, and a SIGSTOP of a leader for longer than its session. The controller moves the dead broker's leaderships (a new one is elected first when
 * the controller died), every client carries on, the broker restarts and rejoins every ISR; the
 * checker reads each topic back: zero lost, zero duplicated, order kept per partition. The time
 * from the leaders' move to each client's first acknowledged produce on a new leader is printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { assertNothingLost, createTopic, kafkajsLoad, topicOf, waitPartitions, type Load } from '../support/checker.js';
import { javaLoad, javaLoadMissing, librdkafkaLoad, librdkafkaMissing, prepareJavaLoad } from '../support/client-loads.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing() ?? librdkafkaMissing() ?? javaLoadMissing();
if (missing && IN_CI) throw new Error(`clients-failover: required under CI: ${missing}`);

let cluster: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  await prepareJavaLoad();
  cluster = await startCluster({
    brokers: 3,
    config: { 'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200 },
  });
});

test.after(async () => {
  await cluster?.cleanup();
});

/**
 * SIGKILL of the leader of the Java topic's partition 0 or of the controller, or SIGSTOP of that
 * leader past its session ('pause'), under load from the three clients.
 */
async function failover(what: 'leader' | 'controller' | 'pause'): Promise<void> {
  const c = cluster!;
  const clients = ['kafkajs', 'librdkafka', 'java'] as const;
  const topics = Object.fromEntries(clients.map((n) => [n, `${what}-fault-${n}`])) as Record<(typeof clients)[number], string>;
  let m = await createTopic(c, topics.kafkajs, 3);
  await createTopic(c, topics.librdkafka, 3);
  m = await createTopic(c, topics.java, 3);
  const victim = what === 'controller' ? m.controllerId : topicOf(m, topics.java)!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
  assert.ok(victim > 0, `a ${what} to kill`);
  const survivor = c.brokers.map((b) => b.nodeId).find((id) => id !== victim)!;
  const led = Object.fromEntries(clients.map((n) => [n, topicOf(m, topics[n])!.partitions.filter((p) => p.leaderId === victim).map((p) => p.partitionIndex)]));

  const loads: Partial<Record<(typeof clients)[number], Load>> = {};
  try {
    loads.kafkajs = await kafkajsLoad(c, topics.kafkajs, 3);
    loads.librdkafka = await librdkafkaLoad(c.bootstrap, topics.librdkafka, 3);
    loads.java = await javaLoad(c.bootstrap, topics.java, 3);
    for (const n of clients) await loads[n]!.acks.waitFor(20, 0, `from ${n} before the fault`, 60_000);
    const faultAt = Date.now();
    const mark = c.broker(victim).output().length;
    if (what === 'pause') c.pause(victim);
    else await c.kill(victim);
    for (const n of clients) {
      await waitPartitions(c, survivor, topics[n], (p) => p.leaderId !== victim && p.leaderId >= 0 && !p.isrNodes.includes(victim), `${topics[n]}: leaders moved`);
    }
    const movedAt = Date.now();
    // A paused broker holds its connections open without answering: kafkajs asks for metadata
    // only on connections it has and waits for that broker (request timeouts, retries); the Java
    // producer's in-flight batches to it time out first (request.timeout.ms 10 s, then its
    // idempotent epoch bump may wait on the same broker). So under a pause librdkafka must carry
    // on before the broker wakes, the other two once it woke.
    for (const n of clients) {
      if (what === 'pause' && n !== 'librdkafka') continue;
      await loads[n]!.acks.waitFor(10, movedAt, `from ${n} on the new leaders`, 60_000, led[n]);
      console.log(`clients-failover: ${n}: leaders moved ${movedAt - faultAt} ms after the ${what === 'pause' ? 'SIGSTOP of leader' : `SIGKILL of ${what}`} ${victim}; first acknowledged produce on a new leader ${loads[n]!.acks.firstAfter(movedAt, led[n])} ms later`);
    }
    if (what === 'pause') {
      // Woken past its session: it stops leading, registers again and follows.
      c.resume(victim);
      const wokeAt = Date.now();
      for (const n of ['kafkajs', 'java'] as const) {
        await loads[n]!.acks.waitFor(10, wokeAt, `from ${n} once the paused broker woke`, 60_000, led[n]);
        const during = loads[n]!.acks.firstAfter(movedAt, led[n]);
        console.log(`clients-failover: ${n}: first acknowledged produce on a new leader ${during} ms after the leaders moved (the broker woke ${wokeAt - movedAt} ms after they moved)`);
      }
      const deadline = Date.now() + 30_000;
      while (!c.broker(victim).output().slice(mark).includes('rejoined the cluster')) {
        if (Date.now() > deadline) throw new Error(`broker ${victim} did not rejoin:\n${c.broker(victim).output().slice(-3000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    } else {
      await c.start(victim);
    }
    for (const n of clients) await waitPartitions(c, survivor, topics[n], (p) => p.isrNodes.length === 3, `${topics[n]}: broker ${victim} back in every ISR`, 60_000);
    const backAt = Date.now();
    for (const n of clients) await loads[n]!.acks.waitFor(5, backAt, `from ${n} after the restart`, 60_000);
  } finally {
    if (what === 'pause') c.resume(victim);
    for (const n of clients) await loads[n]?.stop();
  }
  for (const n of clients) {
    const acks = loads[n]!.acks;
    const r = await assertNothingLost(c.bootstrap, topics[n], acks);
    console.log(`clients-failover: ${what}: ${n}: ${acks.total} acknowledged, ${acks.failures} sends failed, ${r.read} read back, none lost, duplicated or reordered`);
  }
}

test('SIGKILL of a leader under load from kafkajs, librdkafka and the Java client: every client carries on; nothing lost, duplicated or reordered', async () => {
  if (!cluster) return console.log('clients-failover: skipped:', missing);
  await failover('leader');
});

test('SIGKILL of the controller under load from the three clients: a new controller moves its leaderships; nothing lost, duplicated or reordered', async () => {
  if (!cluster) return;
  await failover('controller');
});

test('SIGSTOP of a leader past its session under load from the three clients: replaced, it rejoins as a follower when it wakes; nothing lost', async () => {
  if (!cluster) return;
  await failover('pause');
});

test.run();
