/**
 * What a streams group's target is computed from (coordinator/group/streams-target-assignment.ts),
 * as Kafka 4.4 does: the task offsets a heartbeat reports (used by that same heartbeat), the
 * members' current tasks without those pending revocation, the assignment configs kept in the
 * group's metadata record (a change bumps the epoch; a removal uses the stored ones), and the
 * MISSING_CLIENT_TAGS status of rack-aware assignment tags (v1 only).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { StreamsStatus } from '../../../src/coordinator/group/streams-topology.js';
import { StreamsGroupMember } from '../../../src/coordinator/group/streams-group.js';
import { computeStreamsTarget, updateTaskOffsets } from '../../../src/coordinator/group/streams-target-assignment.js';
import { groupRecordSerde } from '../../../src/coordinator/group/records.js';
import type { GroupConfigLookup } from '../../../src/coordinator/group/group-configs.js';
import {
  GROUP, SimStreamsMember, converge, createInternalTopics, heartbeatReq, streamsConfigs, streamsHarness, wordCountTopology, type StreamsConfigOverrides, type StreamsHarness,
} from './_streams-harness.js';

const tasks = (m: SimStreamsMember, kind: 'active' | 'standby') => [...m[kind]].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`)).sort();

/** Group configs a test may change while the group runs (as IncrementalAlterConfigs on the group would). */
function mutableConfigs(over: StreamsConfigOverrides): { lookup: GroupConfigLookup; set(o: StreamsConfigOverrides): void } {
  let current = streamsConfigs(over);
  return { lookup: { resolve: (g) => current.resolve(g) }, set: (o) => { current = streamsConfigs({ ...over, ...o }); } };
}

/** The assignment configs of the group's metadata records, in the order they were written. */
function storedConfigs(h: StreamsHarness): string[] {
  return h.offsets.log(h.coord.partitionFor(GROUP)).records.map((lr) => groupRecordSerde.deserialize(lr))
    .filter((r) => r?.type === 'st-metadata' && r.value !== null)
    .map((r) => JSON.stringify((r as { value: { lastAssignmentConfigs: unknown } }).value.lastAssignmentConfigs));
}

test('the task offsets a joining member reports count in the target its own heartbeat computes', async () => {
  const h = await streamsHarness();
  const x1 = new SimStreamsMember(h, 'x1', 'p1');
  const x2 = new SimStreamsMember(h, 'x2', 'p1');
  await x1.join();
  await x2.join();
  createInternalTopics(h);
  // A restarted instance (new member id) with the stores of 1_2 and 1_3 on its disk.
  const r = (await h.hb({
    memberId: 'y', memberEpoch: 0, rebalanceTimeoutMs: 30000, topology: wordCountTopology(), processId: 'p2', activeTasks: [], standbyTasks: [], warmupTasks: [], clientTags: [],
    taskOffsets: [{ subtopologyId: '1', partition: 2, offset: 100n }, { subtopologyId: '1', partition: 3, offset: 100n }], taskEndOffsets: [],
  })).response;
  assert.is(r.errorCode, ErrorCode.NONE);
  const got = (r.activeTasks ?? []).flatMap((t) => t.partitions.map((p) => `${t.subtopologyId}_${p}`));
  assert.ok(got.includes('1_2') && got.includes('1_3'), `y gets the tasks whose state it has: ${got}`);
});

test('tasks a member still has to revoke are not its own for the assignor', () => {
  const a = new StreamsGroupMember('a');
  a.processId = 'pa';
  a.assigned.active.set('0', new Set([2, 3]));
  a.pendingRevocation.active.set('0', new Set([0, 1]));
  const b = new StreamsGroupMember('b');
  b.processId = 'pb';
  const out = computeStreamsTarget({ members: new Map([['a', a], ['b', b]]), topology: null, tasks: new Map([['0', 4]]), numStandbyReplicas: 0, taskOffsets: new Map() });
  assert.equal([...out.get('a')!.active.get('0')!].sort(), [2, 3], 'a keeps what it holds, not what it is giving up');
  assert.equal([...out.get('b')!.active.get('0')!].sort(), [0, 1]);
});

test('a heartbeat\'s task offset list replaces the member\'s last one; a null list keeps it', () => {
  const first = updateTaskOffsets(undefined, [{ subtopologyId: '1', partition: 0, offset: 5n }, { subtopologyId: '1', partition: 1, offset: 6n }], [{ subtopologyId: '1', partition: 0, offset: 9n }]);
  const next = updateTaskOffsets(first, [{ subtopologyId: '1', partition: 1, offset: 7n }], null);
  assert.equal([...next.offsets.get('1')!], [[1, 7n]]);
  assert.equal([...next.endOffsets.get('1')!], [[0, 9n]]);
});

test('a changed streams.num.standby.replicas bumps the group epoch at the next heartbeat; the metadata record keeps the configs', async () => {
  const cfg = mutableConfigs({});
  let h = await streamsHarness(cfg.lookup);
  createInternalTopics(h);
  const ms = [new SimStreamsMember(h, 'x', 'p1'), new SimStreamsMember(h, 'y', 'p2')];
  for (const m of ms) await m.join();
  await converge(ms);
  const epoch = ms[0].epoch;
  assert.ok(ms.every((m) => m.standby.size === 0));
  assert.equal(storedConfigs(h).at(-1), JSON.stringify([{ key: 'num.standby.replicas', value: '0' }]));
  cfg.set({ 'streams.num.standby.replicas': 1 });
  await converge(ms);
  assert.is(ms[0].epoch, epoch + 1, 'one bump for the changed configs');
  assert.equal(tasks(ms[0], 'standby'), tasks(ms[1], 'active').filter((t) => t.startsWith('1_')), 'x keeps a standby of y\'s stateful tasks');
  assert.equal(storedConfigs(h).at(-1), JSON.stringify([{ key: 'num.standby.replicas', value: '1' }]));
  h = await h.restart();
  const again = (await h.hb({ memberId: 'x', memberEpoch: ms[0].epoch })).response;
  assert.is(again.memberEpoch, epoch + 1, 'the replayed configs are the current ones: no bump after a restart');
});

test('a member removed: the others\' target is computed with the stored configs, not changed ones not yet seen', async () => {
  const cfg = mutableConfigs({});
  const h = await streamsHarness(cfg.lookup);
  createInternalTopics(h);
  const ms = [new SimStreamsMember(h, 'x', 'p1'), new SimStreamsMember(h, 'y', 'p2'), new SimStreamsMember(h, 'z', 'p3')];
  for (const m of ms) await m.join();
  await converge(ms);
  cfg.set({ 'streams.num.standby.replicas': 1 });
  await ms[2].leave();
  const target = (await h.coord.streamsGroupDescribe(GROUP, null, false)).members.map((m) => m.targetAssignment!.standbyTasks);
  assert.equal(target, [[], []], 'num.standby.replicas 0 as stored');
  await converge(ms.slice(0, 2));
  assert.ok(ms.slice(0, 2).every((m) => m.standby.size > 0), 'the next heartbeat saw the change');
});

test('MISSING_CLIENT_TAGS (v1) names the rack-aware assignment tags a member does not report', async () => {
  const h = await streamsHarness(streamsConfigs({ 'streams.rack.aware.assignment.tags': ['zone', 'rack'] }));
  createInternalTopics(h);
  const join = (memberId: string, clientTags: { key: string; value: string }[], apiVersion = 1) => h.coord.streamsGroupHeartbeat({ apiVersion, clientId: 'c', clientHost: '/127.0.0.1' }, heartbeatReq({
    memberId, memberEpoch: 0, rebalanceTimeoutMs: 30000, topology: wordCountTopology(), processId: memberId, activeTasks: [], standbyTasks: [], warmupTasks: [], clientTags,
  }));
  const r = (await join('a', [{ key: 'zone', value: 'z1' }])).response;
  assert.equal(r.status, [{ statusCode: StreamsStatus.MISSING_CLIENT_TAGS, statusDetail: "Missing required client tags for rack-aware standby assignment: [rack]. Configure them via 'client.tag.<tagKey>' in your Streams config." }]);
  assert.equal((await join('b', [{ key: 'rack', value: 'r1' }, { key: 'zone', value: 'z1' }])).response.status, []);
  assert.equal((await join('c', [], 0)).response.status, [], 'v0 has no such status');
});

test.run();
