/**
 * A streams group (KIP-1071) across a coordinator failover, on a three-broker cluster
 * (@samsa-timeout 300): a member joins with its topology and gets every task; the broker leading
 * the group's `__consumer_offsets` partition is SIGKILLed; the new leader loads the group from its
 * replica (the StreamsGroup* records): same group epoch, topology, member and tasks, and the
 * member goes on heartbeating at its epoch there.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import kafkajs from 'kafkajs';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { until } from '../support/until.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import type { StreamsGroupHeartbeatRequest } from '../../src/protocol/generated/messages/streams-group-heartbeat-request.js';

const { Kafka, logLevel } = kafkajs;
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`streams-groups-failover: etcd is required under CI: ${missing}`);

const TOPIC = 'sgf-in';
const GROUP = 'sgf-app';
let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({
    brokers: 3,
    config: {
      'min.insync.replicas': 2, 'default.replication.factor': 3, 'replica.lag.time.max.ms': 3000, 'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': 3, 'offsets.topic.replication.factor': 3,
    },
  });
});

test.after(async () => {
  await c?.cleanup();
});

function heartbeat(over: Partial<StreamsGroupHeartbeatRequest>): StreamsGroupHeartbeatRequest {
  return {
    groupId: GROUP, memberId: 'sgf-member', memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
    topology: null, activeTasks: null, standbyTasks: null, warmupTasks: null, processId: null, userEndpoint: null, clientTags: null,
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false, ...over,
  };
}

test('a streams group is loaded by the new coordinator after a SIGKILL of the old one', async () => {
  if (!c) return console.log('streams-groups-failover: skipped:', missing);
  const cluster = c;
  const kafka = new Kafka({ clientId: 'sgf', brokers: cluster.bootstrapList, logLevel: logLevel.NOTHING, retry: { retries: 40, initialRetryTime: 100, maxRetryTime: 1000 } });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 4, replicationFactor: 3 }], waitForLeaders: true });
  await admin.disconnect();

  const coordinatorOf = () => until('the group coordinator', 30_000, async () => {
    for (const b of cluster.brokers) {
      try {
        const r = await (await cluster.client(b.nodeId)).send(10, 3, { key: GROUP, keyType: 0, coordinatorKeys: [] });
        if (r.errorCode === ErrorCode.NONE) return r.nodeId as number;
      } catch { /* a killed broker */ }
    }
    return null;
  });
  const describe = async (nodeId: number) => (await (await cluster.client(nodeId)).send(89, 1, { groupIds: [GROUP], includeAuthorizedOperations: false, includeTopologyDescription: false })).groups[0];
  const topology = { epoch: 0, subtopologies: [{ subtopologyId: '0', sourceTopics: [TOPIC], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: [], repartitionSourceTopics: [], copartitionGroups: [] }] };

  let epoch = 0;
  let owned: { subtopologyId: string; partitions: number[] }[] = [];
  let victim = -1;
  // Join, then heartbeat (past the initial rebalance delay) until the member runs every task.
  const before = await until('the member with every task, the group Stable', 90_000, async () => {
    victim = await coordinatorOf();
    const client = await cluster.client(victim);
    const r = epoch === 0
      ? await client.send(88, 1, heartbeat({ rebalanceTimeoutMs: 30_000, topology, processId: 'sgf-process', activeTasks: [], standbyTasks: [], warmupTasks: [], clientTags: [] }))
      : await client.send(88, 1, heartbeat({ memberEpoch: epoch, activeTasks: owned, standbyTasks: [], warmupTasks: [] }));
    if (r.errorCode !== ErrorCode.NONE) return null;
    epoch = r.memberEpoch;
    if (r.activeTasks !== null) owned = r.activeTasks;
    const d = await describe(victim);
    return d.groupState === 'Stable' && (owned[0]?.partitions.length ?? 0) === 4 ? d : null;
  });
  await cluster.kill(victim);
  const successor = await until('a new coordinator', 30_000, async () => {
    const id = await coordinatorOf();
    return id !== victim ? id : null;
  });
  const after = await until('the group loaded at the new coordinator', 30_000, async () => {
    const d = await describe(successor);
    return d.errorCode === ErrorCode.NONE ? d : null;
  });
  assert.is(after.groupEpoch, before.groupEpoch, 'the same group epoch: loaded, not rebuilt');
  assert.equal(after.topology, before.topology);
  assert.equal(after.members.map((m) => [m.memberId, m.memberEpoch, m.assignment]), before.members.map((m) => [m.memberId, m.memberEpoch, m.assignment]));
  const r = await (await cluster.client(successor)).send(88, 1, heartbeat({ memberEpoch: epoch, activeTasks: owned, standbyTasks: [], warmupTasks: [] }));
  assert.equal([r.errorCode, r.memberEpoch], [ErrorCode.NONE, epoch], 'the member carries on at its epoch');
  await cluster.start(victim);
});

test.run();
