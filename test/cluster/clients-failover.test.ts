/**
 * @samsa-timeout 300
 *
 * SIGKILL of a partition leader under acks=all load from three real clients at once, each on a
 * topic of its own (three brokers, replication factor 3, min.insync.replicas 2): idempotent
 * kafkajs producers, an idempotent librdkafka producer (confluent-kafka from PyPI), and
 * idempotent producers of the Java client (kafka-clients). The controller moves the dead
 * broker's leaderships, every client carries on, the broker restarts and rejoins every ISR; the
 * checker reads each topic back: zero lost, zero duplicated, order kept per partition. The time
 * from the leaders' move to each client's first acknowledged produce on a new leader is printed.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { assertNothingLost, createTopic, kafkajsLoad, topicOf, waitPartitions, type Load } from './checker.js';
import { javaLoad, javaLoadMissing, librdkafkaLoad, librdkafkaMissing } from './client-loads.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing() ?? librdkafkaMissing() ?? javaLoadMissing();
if (missing && IN_CI) throw new Error(`clients-failover: required under CI: ${missing}`);

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

test('SIGKILL of a leader under load from kafkajs, librdkafka and the Java client: every client carries on; nothing lost, duplicated or reordered', async () => {
  if (!c) return console.log('clients-failover: skipped:', missing);
  const clients = ['kafkajs', 'librdkafka', 'java'] as const;
  const topics = Object.fromEntries(clients.map((n) => [n, `failover-${n}`])) as Record<(typeof clients)[number], string>;
  let m = await createTopic(c, topics.kafkajs, 3);
  await createTopic(c, topics.librdkafka, 3);
  m = await createTopic(c, topics.java, 3);
  const victim = topicOf(m, topics.java)!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
  const survivor = c.brokers.map((b) => b.nodeId).find((id) => id !== victim)!;
  const led = Object.fromEntries(clients.map((n) => [n, topicOf(m, topics[n])!.partitions.filter((p) => p.leaderId === victim).map((p) => p.partitionIndex)]));

  const loads: Partial<Record<(typeof clients)[number], Load>> = {};
  try {
    loads.kafkajs = await kafkajsLoad(c, topics.kafkajs, 3);
    loads.librdkafka = await librdkafkaLoad(c.bootstrap, topics.librdkafka, 3);
    loads.java = await javaLoad(c.bootstrap, topics.java, 3);
    for (const n of clients) await loads[n]!.acks.waitFor(20, 0, `from ${n} before the fault`, 60_000);
    const faultAt = Date.now();
    await c.kill(victim);
    for (const n of clients) {
      await waitPartitions(c, survivor, topics[n], (p) => p.leaderId !== victim && p.leaderId >= 0 && !p.isrNodes.includes(victim), `${topics[n]}: leaders moved`);
    }
    const movedAt = Date.now();
    for (const n of clients) {
      await loads[n]!.acks.waitFor(10, movedAt, `from ${n} on the new leaders`, 60_000, led[n]);
      console.log(`clients-failover: ${n}: leaders moved ${movedAt - faultAt} ms after the SIGKILL of broker ${victim}; first acknowledged produce on a new leader ${loads[n]!.acks.firstAfter(movedAt, led[n])} ms later`);
    }
    await c.start(victim);
    for (const n of clients) await waitPartitions(c, survivor, topics[n], (p) => p.isrNodes.length === 3, `${topics[n]}: broker ${victim} back in every ISR`, 60_000);
    const backAt = Date.now();
    for (const n of clients) await loads[n]!.acks.waitFor(5, backAt, `from ${n} after the restart`, 60_000);
  } finally {
    for (const n of clients) await loads[n]?.stop();
  }
  for (const n of clients) {
    const acks = loads[n]!.acks;
    const r = await assertNothingLost(c.bootstrap, topics[n], acks);
    console.log(`clients-failover: ${n}: ${acks.total} acknowledged, ${acks.failures} sends failed, ${r.read} read back, none lost, duplicated or reordered`);
  }
  assert.ok(true);
});

test.run();
