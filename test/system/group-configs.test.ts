/**
 * Group configs on three broker processes on one etcd (test/support/cluster.ts): set through one
 * broker (not the controller), they are described by every broker; a broker SIGKILLed and started
 * again reads them back from etcd; a change made through one broker reaches the coordinator of a
 * consumer-protocol group wherever it runs (the group's heartbeat interval in the
 * ConsumerGroupHeartbeat answer).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { etcdMissing } from '../support/etcd.js';
import { startCluster, type TestCluster } from '../support/cluster.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const missing = etcdMissing();
if (missing && IN_CI) throw new Error(`group-configs: etcd is required under CI: ${missing}`);
const GROUP = 32;

let c: TestCluster | null = null;

test.before(async () => {
  if (missing) return;
  c = await startCluster({ brokers: 3 });
});

test.after(async () => {
  await c?.cleanup();
});

async function overridesOn(nodeId: number, group: string): Promise<Record<string, string>> {
  const cl = await c!.client(nodeId);
  const r = await cl.send(32, 4, { resources: [{ resourceType: GROUP, resourceName: group, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
  assert.is(r.results[0].errorCode, ErrorCode.NONE);
  return Object.fromEntries(r.results[0].configs.filter((e) => e.configSource === 8).map((e) => [e.name, e.value ?? '']));
}

async function waitOverrides(nodeId: number, group: string, want: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 10_000;
  let got: Record<string, string> = {};
  while (Date.now() < deadline) {
    got = await overridesOn(nodeId, group);
    if (JSON.stringify(got) === JSON.stringify(want)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(got, want, `broker ${nodeId}'s view of ${group}`);
}

test('set on one broker, described by every broker, read back from etcd after a SIGKILL', async () => {
  if (!c) return console.log('group-configs: skipped:', missing);
  const md = await c.metadata(c.brokers[0].nodeId);
  const writer = c.brokers.map((b) => b.nodeId).find((id) => id !== md.controllerId)!;
  const cl = await c.client(writer);
  const r = await cl.send(44, 1, {
    resources: [{ resourceType: GROUP, resourceName: 'gcx', configs: [{ name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: '7000' }, { name: 'share.delivery.count.limit', configOperation: 0, value: '3' }] }],
    validateOnly: false,
  });
  assert.equal([r.responses[0].errorCode, r.responses[0].errorMessage], [ErrorCode.NONE, null]);
  const want = { 'consumer.heartbeat.interval.ms': '7000', 'share.delivery.count.limit': '3' };
  for (const b of c.brokers) await waitOverrides(b.nodeId, 'gcx', want);
  const victim = c.brokers.map((b) => b.nodeId).find((id) => id !== writer)!;
  await c.kill(victim);
  await c.start(victim);
  await waitOverrides(victim, 'gcx', want);
});

test('the coordinator of a consumer group answers with the group\'s heartbeat interval, wherever it runs', async () => {
  if (!c) return console.log('group-configs: skipped:', missing);
  const group = 'gcx-coord';
  const sc = await c.client(c.brokers[0].nodeId);
  await sc.send(44, 1, { resources: [{ resourceType: GROUP, resourceName: group, configs: [{ name: 'consumer.heartbeat.interval.ms', configOperation: 0, value: '8000' }] }], validateOnly: false });
  for (const b of c.brokers) await waitOverrides(b.nodeId, group, { 'consumer.heartbeat.interval.ms': '8000' });
  // The first join creates __consumer_offsets: until its partitions are led and loaded the
  // coordinator answers NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS; find it again and retry.
  const retriable: number[] = [ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE];
  const deadline = Date.now() + 30_000;
  let answer: [number, number, number] = [-1, -1, -1];
  while (Date.now() < deadline) {
    const fc = await sc.send(10, 4, { key: '', keyType: 0, coordinatorKeys: [group] });
    const coordinator = fc.coordinators[0].nodeId;
    if (fc.coordinators[0].errorCode === ErrorCode.NONE) {
      const cc = await c.client(coordinator);
      const hb = await cc.send(68, 1, {
        groupId: group, memberId: 'gcx-member-1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30000,
        subscribedTopicNames: ['gcx-none'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
      });
      answer = [hb.errorCode, hb.heartbeatIntervalMs, coordinator];
      if (!retriable.includes(hb.errorCode)) break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(answer.slice(0, 2), [ErrorCode.NONE, 8000], `coordinator ${answer[2]}`);
});

test.run();
