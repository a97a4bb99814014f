/**
 * Tiered storage on three broker processes (replication factor 3, min.insync.replicas 2) against
 * Versity's S3 gateway: idempotent acks=all kafkajs producers on two partitions while segments are
 * copied; the leader of partition 0 is SIGKILLed mid-traffic (an upload cut short leaves objects
 * without a manifest, never read) and comes back; a follower stopped, its partition directories
 * wiped, and started again rebuilds from the leader's local start and the store (the fetch below
 * that start is answered OFFSET_MOVED_TO_TIERED_STORAGE) and rejoins the ISR; then kcat reads
 * both partitions from offset 0, most of it from the remote tier: nothing acknowledged lost,
 * nothing duplicated or reordered.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { startVersitygw, S3_ACCESS_KEY, S3_SECRET_KEY, type S3Server } from '../support/versitygw.js';
import { Acks, assertNothingLost, kafkajsLoad, topicOf, waitPartitions } from '../support/checker.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`tiered-storage: etcd is required under CI: ${missing}`);

const TOPIC = 'tiered';
let c: TestCluster | null = null;
let s3: S3Server | null = null;

test.before(async () => {
  if (missing) return;
  s3 = await startVersitygw();
  c = await startCluster({
    brokers: 3,
    config: {
      'min.insync.replicas': 2, 'replica.lag.time.max.ms': 4000, 'auto.leader.rebalance.enable': false,
      'remote.log.storage.system.enable': true, 'remote.log.manager.task.interval.ms': 300, 'log.retention.check.interval.ms': 300,
      'log.segment.delete.delay.ms': 0, 'samsa.remote.s3.endpoint': s3.endpoint, 'samsa.remote.s3.bucket': 'cluster-tiered',
      'samsa.remote.s3.access.key.id': S3_ACCESS_KEY, 'samsa.remote.s3.secret.access.key': S3_SECRET_KEY, 'samsa.remote.s3.request.timeout.ms': 5000,
    },
  });
});

test.after(async () => {
  await c?.cleanup();
  await s3?.close();
});

function localSegments(nodeId: number, partition: number): number[] {
  const dir = join(c!.broker(nodeId).logDir, `${TOPIC}-${partition}`);
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => f.endsWith('.log')).map((f) => Number(f.slice(0, -4))).sort((a, b) => a - b);
}

test('leader SIGKILL mid-upload and a follower with a wiped disk: nothing acknowledged lost, read back through the remote tier', async () => {
  if (!c) {
    console.log(`tiered-storage: skipped: ${missing}`);
    return;
  }
  await c.waitForMetadata(1, (x) => x.brokers.length === 3, 'every broker registered', 30_000);
  const cl = await c.client(1);
  const res = await cl.send(19, 7, {
    topics: [{ name: TOPIC, numPartitions: 2, replicationFactor: 3, assignments: [], configs: [
      { name: 'remote.storage.enable', value: 'true' }, { name: 'segment.bytes', value: '4096' }, { name: 'local.retention.bytes', value: '8192' },
    ] }],
    timeoutMs: 10_000, validateOnly: false,
  });
  assert.is(res.topics[0].errorCode, 0, res.topics[0].errorMessage ?? '');
  await waitPartitions(c, 1, TOPIC, (p) => p.isrNodes.length === 3 && p.leaderId >= 0, 'in sync');

  const acks = new Acks(2);
  const load = await kafkajsLoad(c, TOPIC, 2, acks);
  try {
    await acks.waitFor(400, 0, 'before the kill', 60_000);
    const leader = topicOf(await c.metadata(1, [TOPIC]), TOPIC)!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
    await c.kill(leader);
    const killedAt = Date.now();
    const other = c.brokers.find((b) => b.nodeId !== leader)!.nodeId;
    await acks.waitFor(200, killedAt, 'after the leader was killed', 60_000);
    await c.start(leader);
    await waitPartitions(c, other, TOPIC, (p) => p.isrNodes.length === 3, 'the killed broker back in the ISR', 60_000);

    // A follower loses its disk: stopped, its partition directories removed, started again.
    const lead0 = topicOf(await c.metadata(other, [TOPIC]), TOPIC)!.partitions.find((p) => p.partitionIndex === 0)!.leaderId;
    const follower = c.brokers.find((b) => b.nodeId !== lead0)!.nodeId;
    await acks.waitFor(300, Date.now(), 'more, so that more is remote', 60_000);
    await c.stop(follower);
    for (const p of [0, 1]) rmSync(join(c.broker(follower).logDir, `${TOPIC}-${p}`), { recursive: true, force: true });
    await c.start(follower);
    const restartedAt = Date.now();
    await acks.waitFor(100, restartedAt, 'after the follower came back', 60_000);
    await waitPartitions(c, lead0, TOPIC, (p) => p.isrNodes.includes(follower), 'the wiped follower back in the ISR', 90_000);
    // It did not copy the whole log again: its log starts at the leader's local start, above 0.
    assert.ok(localSegments(follower, 0)[0] > 0, `the rebuilt follower's first local segment: ${localSegments(follower, 0)}`);
    assert.match(c.broker(follower).output(), /are in the remote tier; this replica starts there/);
  } finally {
    await load.stop();
  }
  // The oldest offsets are only remote now.
  for (const b of c.brokers) assert.ok(localSegments(b.nodeId, 0)[0] > 0, `broker ${b.nodeId} still holds offset 0 locally`);
  const r = await assertNothingLost(c.bootstrap, TOPIC, acks);
  assert.ok(r.read >= 1000, `read ${r.read}`);
});

test.run();
