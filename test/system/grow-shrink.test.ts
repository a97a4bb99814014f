/**
 * Growing and shrinking a cluster under load (four broker processes, replication factor 2,
 * min.insync.replicas 2, idempotent kafkajs acks=all producers, test/support/checker.ts):
 * - `samsa cluster add-broker 4` moves replicas to broker 4 (it starts with none) until it holds
 *   its share; Metadata sampled every 100 ms during the move never shows a partition with fewer
 *   than 2 in-sync replicas; the CLI reports progress and the moves; nothing acknowledged is
 *   lost, duplicated or reordered.
 * - `samsa cluster decommission 2` moves every replica off broker 2, which then stops (SIGTERM):
 *   no send fails, nothing is lost.
 */
import { test } from 'uvu';
import { samsaCli } from '../support/samsa-cli.js';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { assertNothingLost, kafkajsLoad, topicOf } from '../support/checker.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`grow-shrink: etcd is required under CI: ${missing}`);

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 4, config: { 'min.insync.replicas': 2 } });
});

test.after(async () => {
  await c?.cleanup();
});


/** Samples the smallest ISR of `topic` on broker `via` every 100 ms until `done` settles. */
async function minIsrDuring(via: number, topic: string, done: Promise<unknown>): Promise<number> {
  let min = Infinity;
  let finished = false;
  void done.finally(() => { finished = true; });
  while (!finished) {
    const t = topicOf(await c!.metadata(via, [topic]), topic);
    for (const p of t?.partitions ?? []) min = Math.min(min, p.isrNodes.length);
    await new Promise((r) => setTimeout(r, 100));
  }
  return min;
}

const replicasOn = (m: Awaited<ReturnType<TestCluster['metadata']>>, topic: string, id: number) =>
  topicOf(m, topic)!.partitions.filter((p) => p.replicaNodes.includes(id)).length;

test('add-broker under acks=all load: broker 4 takes its share, never fewer than 2 in-sync replicas, nothing lost', async () => {
  if (!c) return console.log('grow-shrink: skipped:', missing);
  const cl = await c.client(1);
  const assignments = [[1, 2], [2, 3], [3, 1], [1, 3], [2, 1], [3, 2]].map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds }));
  const res = await cl.send(19, 7, { topics: [{ name: 'grow', numPartitions: -1, replicationFactor: -1, assignments, configs: [] }], timeoutMs: 10_000, validateOnly: false });
  assert.is(res.topics[0].errorCode, 0, res.topics[0].errorMessage ?? '');
  await c.waitForMetadata(1, (m) => topicOf(m, 'grow')?.partitions.every((p) => p.isrNodes.length === 2) === true, 'grow in sync');
  const load = await kafkajsLoad(c, 'grow', 6);
  try {
    await load.acks.waitFor(20, 0, 'before the move');
    const run = samsaCli(['cluster', 'add-broker', '4', '--bootstrap', c.bootstrap, '--timeout-ms', '60000']);
    const min = await minIsrDuring(1, 'grow', run);
    const r = await run;
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /done: \d+ partition\(s\) moved/);
    assert.ok(min >= 2, `a partition had ${min} in-sync replica(s) during the move`);
    const since = Date.now();
    await load.acks.waitFor(20, since, `after the move (${r.stdout.trim().split('\n').join('; ')})`);
  } finally {
    await load.stop();
  }
  const m = await c.waitForMetadata(1, (x) => replicasOn(x, 'grow', 4) === 3, 'broker 4 holds 3 of the 12 replicas');
  for (const id of [1, 2, 3]) assert.is(replicasOn(m, 'grow', id), 3, `broker ${id} holds 3`);
  await assertNothingLost(c.bootstrap, 'grow', load.acks);
});

test('decommission under load, then stop the broker: no failed send, nothing lost', async () => {
  if (!c) return;
  const cl = await c.client(1);
  const assignments = [[2, 1], [3, 2], [2, 4], [4, 2], [1, 3], [2, 3]].map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds }));
  const res = await cl.send(19, 7, { topics: [{ name: 'shrink', numPartitions: -1, replicationFactor: -1, assignments, configs: [] }], timeoutMs: 10_000, validateOnly: false });
  assert.is(res.topics[0].errorCode, 0, res.topics[0].errorMessage ?? '');
  await c.waitForMetadata(1, (m) => topicOf(m, 'shrink')?.partitions.every((p) => p.isrNodes.length === 2) === true, 'shrink in sync');
  const load = await kafkajsLoad(c, 'shrink', 6);
  try {
    await load.acks.waitFor(10, 0, 'before the decommission');
    const plan = await samsaCli(['cluster', 'decommission', '2', '--bootstrap', c.bootstrap, '--dry-run']);
    assert.is(plan.code, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /shrink-\d+: \[/);
    const run = await samsaCli(['cluster', 'decommission', '2', '--bootstrap', c.bootstrap, '--timeout-ms', '60000']);
    assert.is(run.code, 0, run.stdout + run.stderr);
    const m = await c.waitForMetadata(1, (x) => replicasOn(x, 'grow', 2) === 0 && replicasOn(x, 'shrink', 2) === 0, 'broker 2 holds nothing');
    assert.ok(topicOf(m, 'shrink')!.partitions.every((p) => p.isrNodes.length === 2));
    await c.stop(2);
    const since = Date.now();
    await load.acks.waitFor(10, since, 'after broker 2 stopped');
  } finally {
    await load.stop();
  }
  assert.is(load.acks.failures, 0, 'no send failed');
  await assertNothingLost(c.bootstrap, 'shrink', load.acks);
});

test.run();
