/**
 * Replication throttles on three broker processes (test/support/cluster.ts), with
 * replication.quota.window.num 2 so the sliding window lets through a burst of about one second's
 * worth (Kafka's default of 11 windows lets through ten seconds' worth first):
 * - `samsa cluster decommission 1 --throttle 512KiB/s` moves a 3 MiB partition off broker 1.
 *   While it copies, DescribeConfigs shows the rates as DYNAMIC_BROKER_CONFIG on the brokers and
 *   the throttled-replica lists on the topic; the copy (new replica's log appearing → move
 *   complete) takes at least size / rate minus the burst and a tolerance; afterwards every
 *   throttle config is gone.
 * - Kafka 4.4's kafka-reassign-partitions --execute --throttle moves it back, bounded the same
 *   way, and --verify removes the throttles.
 * Only lower bounds on time: nothing here asserts that a move is fast.
 */
import { test } from 'uvu';
import { samsaCli } from '../support/samsa-cli.js';
import * as assert from 'uvu/assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { tmpDir } from '../support/tmp.js';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { kafkaTool } from '../support/kafka-tools.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`throttles: etcd is required under CI: ${missing}`);
const RATE = 512 * 1024;
const SIZE = 3 * 1024 * 1024;
/**
 * What the 2 × 1 s window may let through ahead of the rate: the first check finds no history
 * (one window's worth goes at once), and each allowed fetch may take a whole batch more than the
 * bound; plus scheduling slack. Measured: 4 s for 3 MiB at 512 KiB/s; unthrottled about 0.1 s.
 */
const TOLERANCE_S = 3;
const RATES = ['leader.replication.throttled.rate', 'follower.replication.throttled.rate'];
const LISTS = ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas'];

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3, config: { 'replication.quota.window.num': 2, 'replication.quota.window.size.seconds': 1 } });
});

test.after(async () => {
  await c?.cleanup();
});


const replicasOf = async (via: number) => (await c!.metadata(via, ['thr'])).topics[0]?.partitions[0]?.replicaNodes ?? [];

/** Throttle-related configs as broker `via` describes them: broker id → rates, and the topic's lists. */
async function throttleConfigs(via: number): Promise<{ brokers: Record<number, Record<string, [string | null, number]>>; topic: Record<string, string | null> }> {
  const cl = await c!.client(via);
  const res = await cl.send(32, 4, {
    resources: [
      { resourceType: 4, resourceName: String(via), configurationKeys: RATES },
      { resourceType: 2, resourceName: 'thr', configurationKeys: LISTS },
    ],
    includeSynonyms: false, includeDocumentation: false,
  });
  const brokers: Record<number, Record<string, [string | null, number]>> = { [via]: {} };
  for (const e of res.results[0].configs) brokers[via][e.name] = [e.value, e.configSource];
  const topic: Record<string, string | null> = {};
  for (const e of res.results[1].configs) if (e.configSource === 1) topic[e.name] = e.value;
  return { brokers, topic };
}

/** Time from the target's log appearing to the move completing (polled every 50 ms). */
async function copySeconds(target: number, done: (replicas: number[]) => boolean, during?: () => Promise<void>): Promise<number> {
  const dir = join(c!.broker(target).logDir, 'thr-0');
  const deadline = Date.now() + 60_000;
  while (!existsSync(dir)) {
    if (Date.now() > deadline) throw new Error(`no log for thr-0 on broker ${target}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const started = Date.now();
  let checked = false;
  while (!done(await replicasOf(target))) {
    if (Date.now() > deadline) throw new Error('the move did not complete');
    if (!checked && during) {
      checked = true;
      await during();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return (Date.now() - started) / 1000;
}

test('samsa cluster decommission --throttle: the copy is bounded by the rate, the configs show it, and are removed after', async () => {
  if (!c) return console.log('throttles: skipped:', missing);
  const cl = await c.client(1);
  const created = await cl.send(19, 7, { topics: [{ name: 'thr', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1] }], configs: [] }], timeoutMs: 10_000, validateOnly: false });
  assert.is(created.topics[0].errorCode, 0, created.topics[0].errorMessage ?? '');
  await c.waitForMetadata(1, (m) => m.topics.find((t) => t.name === 'thr')?.partitions[0]?.leaderId === 1, 'thr led by 1');
  const producer = new Kafka({ clientId: 'thr', brokers: c.bootstrapList, logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  const value = Buffer.alloc(64 * 1024, 7);
  for (let sent = 0; sent < SIZE; sent += 8 * value.length) {
    await producer.send({ topic: 'thr', acks: 1, messages: Array.from({ length: 8 }, () => ({ value })) });
  }
  await producer.disconnect();

  let seen: Awaited<ReturnType<typeof throttleConfigs>> | null = null;
  let target = -1;
  const cli = samsaCli(['cluster', 'decommission', '1', '--bootstrap', c.bootstrap, '--throttle', String(RATE)]);
  // The target is whichever broker gets a thr-0 log first.
  const start = Date.now();
  while (target < 0 && Date.now() - start < 60_000) {
    target = [2, 3].find((id) => existsSync(join(c!.broker(id).logDir, 'thr-0'))) ?? -1;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.ok(target > 0, 'a new replica appeared');
  const seconds = await copySeconds(target, (r) => r.join() === String(target), async () => { seen = await throttleConfigs(target); });
  const r = await cli;
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /throttle: 524288 B\/s on brokers 1,\d/);
  assert.match(r.stdout, /throttle removed/);
  const min = SIZE / RATE - TOLERANCE_S;
  assert.ok(seconds >= min, `3 MiB copied in ${seconds.toFixed(1)} s at ${RATE} B/s (expected at least ${min} s)`);
  console.log(`throttles: samsa decommission copied 3 MiB in ${seconds.toFixed(1)} s (throttle ${RATE} B/s)`);
  assert.ok(seen, 'configs described during the move');
  const during = seen as unknown as Awaited<ReturnType<typeof throttleConfigs>>;
  assert.equal(during.brokers[target], { [RATES[0]]: [String(RATE), 2], [RATES[1]]: [String(RATE), 2] });
  assert.equal(during.topic, { [LISTS[0]]: '0:1', [LISTS[1]]: `0:${target}` });
  const after = await throttleConfigs(target);
  assert.equal(after.brokers[target], {}, 'broker rates removed');
  assert.equal(after.topic, {}, 'topic lists removed');
});

test('kafka-reassign-partitions --throttle: bounded copy, --verify removes the throttles', async () => {
  if (!c) return;
  const missingJava = javaMissing();
  if (missingJava) {
    if (IN_CI) throw new Error(`throttles: java is required under CI: ${missingJava}`);
    return void console.log(`skipped: ${missingJava}`);
  }
  const [from] = await replicasOf(1);
  const dir = tmpDir('throttle-json');
  const plan = join(dir.path, 'plan.json');
  writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'thr', partition: 0, replicas: [1], log_dirs: ['any'] }] }));
  const tool = (...args: string[]) => kafkaTool('org.apache.kafka.tools.reassign.ReassignPartitionsCommand', [
    '--bootstrap-server', `127.0.0.1:${c!.broker(1).port}`, '--reassignment-json-file', plan, ...args], { timeoutMs: 90_000 });
  try {
    let during: Awaited<ReturnType<typeof throttleConfigs>> | null = null;
    const exec = tool('--execute', '--throttle', String(RATE));
    const seconds = await copySeconds(1, (r) => r.join() === '1', async () => { during = await throttleConfigs(1); });
    const ran = await exec;
    assert.is(ran.code, 0, ran.stdout + ran.stderr);
    assert.match(ran.stdout, `The inter-broker throttle limit was set to ${RATE} B/s`);
    const min = SIZE / RATE - TOLERANCE_S;
    assert.ok(seconds >= min, `3 MiB copied in ${seconds.toFixed(1)} s at ${RATE} B/s (expected at least ${min} s)`);
    console.log(`throttles: kafka-reassign-partitions copied 3 MiB in ${seconds.toFixed(1)} s (throttle ${RATE} B/s)`);
    assert.ok(during, 'configs described during the move');
    const d = during as unknown as Awaited<ReturnType<typeof throttleConfigs>>;
    assert.equal(d.brokers[1], { [RATES[0]]: [String(RATE), 2], [RATES[1]]: [String(RATE), 2] });
    assert.equal(d.topic, { [LISTS[0]]: `0:${from}`, [LISTS[1]]: '0:1' });
    const verify = await tool('--verify');
    assert.is(verify.code, 0, verify.stdout + verify.stderr);
    assert.ok(verify.stdout.includes('Reassignment of partition thr-0 is completed.'), verify.stdout);
    assert.match(verify.stdout, 'Clearing broker-level throttles');
    const after = await throttleConfigs(1);
    assert.equal(after.brokers[1], {}, 'broker rates removed');
    assert.equal(after.topic, {}, 'topic lists removed');
  } finally {
    await dir.cleanup();
  }
});

test.run();
