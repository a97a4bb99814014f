/**
 * DescribeQuorum (55) through Kafka 4.4's own `kafka-metadata-quorum.sh --bootstrap-server`
 * (org.apache.kafka.tools.MetadataQuorumCommand, which calls Admin.describeMetadataQuorum):
 * `describe --status` and `describe --replication` against one Samsa broker and against a
 * three-broker cluster on etcd. The quorum is described as a combined-mode KRaft cluster: the
 * active controller leads, every live broker is a voter, none is an observer (055-describe-quorum.ts).
 * `remove-controller` is refused as a static Kafka quorum refuses it (081-remove-raft-voter.ts);
 * `kafka-cluster.sh unregister` (ClusterTool) answers as 064-unregister-broker.ts says, and
 * `kafka-cluster.sh unregister-controller` as 094-unregister-controller.ts says.
 * Skipped without java.
 * @samsa-timeout 240
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { javaMissing } from '../../tools/kafka/kafka.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { kafkaTool } from '../support/kafka-tools.js';
import { startCluster, type TestCluster } from '../support/cluster.js';

const missing = javaMissing();

function metadataQuorum(bootstrap: string, args: string[]) {
  return kafkaTool('org.apache.kafka.tools.MetadataQuorumCommand', ['--bootstrap-server', bootstrap, ...args], { timeoutMs: 60_000 });
}

async function quorumTool(bootstrap: string, what: '--status' | '--replication'): Promise<string> {
  const r = await metadataQuorum(bootstrap, ['describe', what]);
  assert.is(r.code, 0, `kafka-metadata-quorum describe ${what}: ${r.stderr.slice(-2000)}`);
  return r.stdout;
}

/** `describe --status` as key → value. */
function status(out: string): Record<string, string> {
  return Object.fromEntries(out.split('\n').filter((l) => l.includes(':')).map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]));
}

/** `describe --replication` rows: NodeId, DirectoryId, LogEndOffset, Lag, LastFetchTimestamp, LastCaughtUpTimestamp, Status. */
function replication(out: string): string[][] {
  return out.split('\n').slice(1).filter((l) => l.trim().length > 0).map((l) => l.trim().split(/\s+/));
}

let single: RunningBroker | undefined;
let cluster: TestCluster | undefined;

test.after(async () => {
  await single?.stop();
  await cluster?.cleanup();
});

test('one broker: it leads the quorum and is its only voter, caught up', async () => {
  if (missing) return console.log(`skipped: ${missing}`);
  single = await startBroker({ port: 0 });
  const s = status(await quorumTool(single.bootstrap, '--status'));
  assert.is(s.ClusterId, single.broker.metadataCache.clusterId);
  assert.is(s.LeaderId, String(single.broker.nodeId));
  assert.is(s.MaxFollowerLag, '0');
  assert.ok(Number(s.HighWatermark) >= 1, s.HighWatermark);
  assert.match(s.CurrentVoters, new RegExp(`"id": ?${single.broker.nodeId}\\b`));
  assert.match(s.CurrentVoters, new RegExp(`PLAINTEXT://[^"]+:${single.port}`));
  assert.is(s.CurrentObservers, '[]');
  const rows = replication(await quorumTool(single.bootstrap, '--replication'));
  assert.equal(rows.map((r) => [r[0], r[3], r.at(-1)]), [[String(single.broker.nodeId), '0', 'Leader']]);
});

test('remove-controller: refused as by a Kafka quorum that is static (kraft.version 0)', async () => {
  if (missing || !single) return;
  const r = await metadataQuorum(single.bootstrap, ['remove-controller', '--controller-id', String(single.broker.nodeId), '--controller-directory-id', 'AAAAAAAAAAAAAAAAAAAAAg']);
  assert.is.not(r.code, 0);
  assert.match(r.stdout + r.stderr, /UnsupportedVersionException: Cluster doesn't support removing voter because the kraft.version feature is 0/);
});

test('kafka-cluster.sh unregister: an unknown id as Kafka answers it; a live broker is refused (its registration ends when it stops)', async () => {
  if (missing || !single) return;
  const unregister = (id: number) => kafkaTool('org.apache.kafka.tools.ClusterTool', ['unregister', '--bootstrap-server', single!.bootstrap, '--id', String(id)], { timeoutMs: 60_000 });
  const unknown = await unregister(42);
  assert.is.not(unknown.code, 0);
  assert.match(unknown.stdout + unknown.stderr, /Broker ID 42 is not currently registered/);
  const live = await unregister(single.broker.nodeId);
  assert.is.not(live.code, 0);
  assert.match(live.stdout + live.stderr, /InvalidRequestException: Broker \d+ is live/);
  assert.ok(single.broker.metadataCache.brokers.has(single.broker.nodeId), 'still registered');
});

test('kafka-cluster.sh unregister-controller (KIP-1312): an unknown id and the active controller refused as Kafka refuses them', async () => {
  if (missing || !single) return;
  const unregister = (id: number) => kafkaTool('org.apache.kafka.tools.ClusterTool', ['unregister-controller', '--bootstrap-server', single!.bootstrap, '--id', String(id)], { timeoutMs: 60_000 });
  const [unknown, active] = await Promise.all([unregister(42), unregister(single.broker.nodeId)]);
  assert.is.not(unknown.code, 0);
  assert.match(unknown.stdout + unknown.stderr, /ControllerIdNotRegisteredException: Controller ID 42 is not currently registered/);
  assert.is.not(active.code, 0);
  assert.match(active.stdout + active.stderr, /InvalidRequestException: Controller cannot unregister itself while it is active/);
});

test('three brokers on etcd: the active controller leads, every broker is a voter at the high watermark', async () => {
  if (missing) return console.log(`skipped: ${missing}`);
  cluster = await startCluster({ brokers: 3 });
  const md = await cluster.metadata(cluster.brokers[0].nodeId, []);
  // Asked through a broker that is not the controller: the answer is the same.
  const via = cluster.brokers.find((b) => b.nodeId !== md.controllerId) ?? cluster.brokers[0];
  const statusOut = await quorumTool(`127.0.0.1:${via.port}`, '--status');
  console.log(statusOut);
  const s = status(statusOut);
  assert.is(s.LeaderId, String(md.controllerId));
  for (const b of cluster.brokers) assert.match(s.CurrentVoters, new RegExp(`"id": ?${b.nodeId}\\b`));
  assert.is(s.CurrentObservers, '[]');
  const replicationOut = await quorumTool(`127.0.0.1:${via.port}`, '--replication');
  console.log(replicationOut);
  const rows = replication(replicationOut);
  assert.equal(rows.map((r) => r[0]).sort(), cluster.brokers.map((b) => String(b.nodeId)).sort());
  assert.equal(rows.filter((r) => r.at(-1) === 'Leader').map((r) => r[0]), [String(md.controllerId)]);
  assert.equal(rows.filter((r) => r.at(-1) === 'Follower').length, 2);
  for (const r of rows) assert.ok(Number(r[2]) >= Number(s.HighWatermark) - 5, `node ${r[0]} applied ${r[2]} of ${s.HighWatermark}`);
});

test.run();
