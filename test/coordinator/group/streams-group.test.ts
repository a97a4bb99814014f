/**
 * Streams groups (KIP-1071) in the group coordinator on a manual clock: the topology and its
 * statuses, internal topics to create, task assignment with revocation before reassignment (no
 * active task with two owners), leaving, session timeouts, the heartbeat's errors, standby
 * replicas, the initial rebalance delay, offsets and deletion, and replay after a restart.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { StreamsStatus } from '../../../src/coordinator/group/streams-topology.js';
import { GROUP, SimStreamsMember, converge, streamsConfigs, streamsHarness, wordCountTopology, type StreamsHarness } from './_streams-harness.js';
import { defaultGroupConfig, groupConfigFrom } from '../../../src/coordinator/group/group-config.js';
import { loadConfig } from '../../../src/config.js';

const REPARTITION = `${GROUP}-counts-repartition`;
const CHANGELOG = `${GROUP}-counts-changelog`;

/** The internal topics the coordinator asked for, created as the handler does. */
function createInternal(h: StreamsHarness): void {
  h.topics.set(REPARTITION, 'AgICAgICAgICAgICAgICAg', 4).set(CHANGELOG, 'AwMDAwMDAwMDAwMDAwMDAw', 4);
}

function assertNoDoubleOwners(ms: SimStreamsMember[]): void {
  const seen = new Map<string, string>();
  for (const m of ms) {
    for (const t of m.activeTasks()) {
      assert.not.ok(seen.has(t), `task ${t} active on ${seen.get(t)} and ${m.memberId}`);
      seen.set(t, m.memberId);
    }
  }
}

async function readyGroup(h: StreamsHarness, n: number): Promise<SimStreamsMember[]> {
  createInternal(h);
  const ms = Array.from({ length: n }, (_, i) => new SimStreamsMember(h, `m${i}`));
  for (const m of ms) assert.is((await m.join()).errorCode, ErrorCode.NONE);
  await converge(ms, 10, () => assertNoDoubleOwners(ms));
  return ms;
}

test('a join with a missing source topic: MISSING_SOURCE_TOPICS, NotReady, no tasks', async () => {
  const h = await streamsHarness(streamsConfigs(), new (await import('../../../src/coordinator/group/topic-view.js')).MemoryTopicView());
  const m = new SimStreamsMember(h, 'a');
  const r = await m.join();
  assert.is(r.errorCode, ErrorCode.NONE);
  assert.is(r.memberEpoch, 1);
  assert.equal(r.status, [{ statusCode: StreamsStatus.MISSING_SOURCE_TOPICS, statusDetail: 'Source topics input are missing.' }]);
  assert.equal(r.activeTasks, []);
  const d = await h.coord.streamsGroupDescribe(GROUP, null, false);
  assert.is(d.groupState, 'NotReady');
  assert.is(d.topology!.subtopologies!.length, 2);
});

test('missing internal topics are named with their partition counts and configs; once they exist the tasks are assigned', async () => {
  const h = await streamsHarness();
  const m = new SimStreamsMember(h, 'a');
  const joined = await h.hb({ memberId: 'a', memberEpoch: 0, rebalanceTimeoutMs: 30000, topology: wordCountTopology(), processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.equal(joined.response.status, [{ statusCode: StreamsStatus.MISSING_INTERNAL_TOPICS, statusDetail: `Internal topics are missing: ${CHANGELOG}, ${REPARTITION}` }]);
  assert.equal(joined.internalTopicsToCreate, [
    { name: CHANGELOG, numPartitions: 4, replicationFactor: -1, configs: { 'cleanup.policy': 'compact' } },
    { name: REPARTITION, numPartitions: 4, replicationFactor: -1, configs: {} },
  ]);
  assert.equal(joined.response.activeTasks, []);
  createInternal(h);
  m.epoch = joined.response.memberEpoch;
  const r = await m.beat();
  assert.equal(r.status, []);
  assert.equal(m.activeTasks().sort(), ['0_0', '0_1', '0_2', '0_3', '1_0', '1_1', '1_2', '1_3']);
  assert.ok(r.memberEpoch > joined.response.memberEpoch);
  assert.is((await h.coord.streamsGroupDescribe(GROUP, null, false)).groupState, 'Stable');
});

test('a second member: tasks move only after the first revoked them; balanced 4/4 at the end', async () => {
  const h = await streamsHarness();
  const [a] = await readyGroup(h, 1);
  assert.is(a.activeTasks().length, 8);
  const b = new SimStreamsMember(h, 'b');
  const r = await b.join();
  assert.equal(r.activeTasks, [], 'nothing for b while a still owns everything');
  await a.beat(); // a is told to give up half
  assert.is(a.activeTasks().length, 4);
  const ra = a.epoch;
  await b.beat();
  assertNoDoubleOwners([a, b]);
  await converge([a, b], 10, () => assertNoDoubleOwners([a, b]));
  assert.is(a.activeTasks().length, 4);
  assert.is(b.activeTasks().length, 4);
  assert.ok(a.epoch > ra - 1);
  const d = await h.coord.streamsGroupDescribe(GROUP, null, false);
  assert.is(d.groupState, 'Stable');
  assert.equal(d.members.map((m) => m.memberEpoch), [d.groupEpoch, d.groupEpoch]);
});

test('a member leaving (epoch -1) gives its tasks to the others', async () => {
  const h = await streamsHarness();
  const [a, b] = await readyGroup(h, 2);
  const before = (await h.coord.streamsGroupDescribe(GROUP, null, false)).groupEpoch;
  const left = await b.leave();
  assert.is(left.errorCode, ErrorCode.NONE);
  assert.is(left.memberEpoch, -1);
  await converge([a]);
  assert.is(a.activeTasks().length, 8);
  const d = await h.coord.streamsGroupDescribe(GROUP, null, false);
  assert.ok(d.groupEpoch > before);
  assert.equal(d.members.map((m) => m.memberId), ['m0']);
});

test('a member that stops heartbeating is fenced after streams.session.timeout.ms', async () => {
  const h = await streamsHarness(streamsConfigs({ 'streams.session.timeout.ms': 10000 }));
  const [a, b] = await readyGroup(h, 2);
  await h.advance(6000);
  await a.beat();
  await h.advance(6000);
  const d = await h.coord.streamsGroupDescribe(GROUP, null, false);
  assert.equal(d.members.map((m) => m.memberId), ['m0']);
  const r = await b.beat();
  assert.is(r.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  await converge([a]);
  assert.is(a.activeTasks().length, 8);
});

test('the heartbeat errors of Kafka 4.4 (messages included)', async () => {
  const h = await streamsHarness();
  const [a] = await readyGroup(h, 1);
  const err = async (req: Parameters<StreamsHarness['hb']>[0]) => (await h.hb(req)).response;
  let r = await err({ memberId: 'a', memberEpoch: 0, topology: wordCountTopology(), activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, 'RebalanceTimeoutMs must be provided in first request.']);
  r = await err({ memberId: 'a', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: null, activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, 'Topology must be non-null when (re-)joining.']);
  r = await err({ memberId: 'a', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: wordCountTopology(), activeTasks: null, standbyTasks: [], warmupTasks: [] });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, 'ActiveTasks must be empty when (re-)joining.']);
  r = await err({ memberId: '', memberEpoch: 0 });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, "MemberId can't be empty."]);
  r = await err({ memberId: 'zz', memberEpoch: 3 });
  assert.equal([r.errorCode, r.errorMessage, r.memberId], [ErrorCode.UNKNOWN_MEMBER_ID, `Member zz is not a member of group ${GROUP}.`, '']);
  r = await err({ memberId: a.memberId, memberEpoch: a.epoch + 5 });
  assert.is(r.errorCode, ErrorCode.FENCED_MEMBER_EPOCH);
  assert.is(r.errorMessage, `The streams group member has a greater member epoch (${a.epoch + 5}) than the one known by the group coordinator (${a.epoch}). The member must abandon all its partitions and rejoin.`);
  r = await err({ groupId: 'nosuch', memberId: 'x', memberEpoch: 2 });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Streams group nosuch not found.']);
  r = await err({ groupId: 'nosuch', memberId: 'x', memberEpoch: -1 });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Group nosuch not found.']);
  // A different topology while the group has members.
  const other = wordCountTopology();
  other.subtopologies[0].sourceTopics = ["input", "more"];
  other.epoch = 2;
  r = await err({ memberId: 'b', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: other, processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, 'Topology updates are not supported yet.']);
  // An older topology epoch joins with STALE_TOPOLOGY; the topology stays the group's even once it is empty.
  const stale = await err({ groupId: 'g3', memberId: 'x', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: wordCountTopology(1), processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.is(stale.errorCode, ErrorCode.NONE);
  r = await err({ groupId: 'g3', memberId: 'y', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: wordCountTopology(0), processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.equal(r.status?.[0], { statusCode: StreamsStatus.STALE_TOPOLOGY, statusDetail: "The member's topology epoch 0 is behind the group's topology epoch 1." });
  await err({ groupId: 'g3', memberId: 'x', memberEpoch: -1 });
  await err({ groupId: 'g3', memberId: 'y', memberEpoch: -1 });
  r = await err({ groupId: 'g3', memberId: 'z', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: other, processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.equal([r.errorCode, r.errorMessage], [ErrorCode.INVALID_REQUEST, 'Topology updates are not supported yet.']);
  // An invalid topology.
  const bad = wordCountTopology();
  bad.subtopologies[1].subtopologyId = '0';
  r = await err({ groupId: 'g2', memberId: 'b', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: bad, processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] });
  assert.is(r.errorCode, ErrorCode.STREAMS_INVALID_TOPOLOGY);
});

test('standby replicas per streams.num.standby.replicas, of stateful tasks only, on another process than the active task', async () => {
  const h = await streamsHarness(streamsConfigs({ 'streams.num.standby.replicas': 1 }));
  const ms = await readyGroup(h, 2);
  for (const m of ms) assert.is(m.activeTasks().length, 4);
  const standbys = ms.map((m) => [...m.standby].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`)).sort());
  const stateful = (m: SimStreamsMember) => m.activeTasks().filter((t) => t.startsWith('1_')).sort();
  assert.equal(standbys[0], stateful(ms[1]), 'subtopology 1 has a store; 0 has none (no standby)');
  assert.equal(standbys[1], stateful(ms[0]));
});

test('the initial rebalance delay: ASSIGNMENT_DELAYED, then the tasks once it has passed', async () => {
  const h = await streamsHarness(streamsConfigs({ 'streams.initial.rebalance.delay.ms': 3000 }));
  createInternal(h);
  const a = new SimStreamsMember(h, 'a');
  const r = await a.join();
  assert.equal(r.status, [{ statusCode: StreamsStatus.ASSIGNMENT_DELAYED, statusDetail: 'Assignment delayed due to the configured initial rebalance delay.' }]);
  assert.equal(r.activeTasks, []);
  await h.advance(1000);
  assert.is((await a.beat()).status?.[0]?.statusCode, StreamsStatus.ASSIGNMENT_DELAYED);
  await h.advance(2500);
  await converge([a]);
  assert.is(a.activeTasks().length, 8);
  assert.equal(a.last!.status, []);
});

test('offsets: member epochs checked; ListGroups type streams; DeleteGroups once empty', async () => {
  const h = await streamsHarness();
  const [a] = await readyGroup(h, 1);
  const commit = (memberId: string, generationId: number, apiVersion = 9) => h.coord.commitOffsets({
    groupId: GROUP, memberId, generationId, groupInstanceId: null, retentionTimeMs: -1,
    topics: [{ name: 'input', partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  }, apiVersion);
  assert.is((await commit(a.memberId, a.epoch))[0].partitions[0].errorCode, ErrorCode.NONE);
  assert.is((await commit(a.memberId, a.epoch - 1))[0].partitions[0].errorCode, ErrorCode.STALE_MEMBER_EPOCH);
  assert.is((await commit('zz', a.epoch))[0].partitions[0].errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
  assert.is((await commit(a.memberId, a.epoch, 8))[0].partitions[0].errorCode, ErrorCode.UNSUPPORTED_VERSION);
  const stale = await h.coord.fetchOffsets(GROUP, null, { memberId: a.memberId, memberEpoch: a.epoch + 1 }).then(() => null, (e: { errorCode: number }) => e.errorCode);
  assert.is(stale, ErrorCode.STALE_MEMBER_EPOCH);
  const fetched = await h.coord.fetchOffsets(GROUP, null, { memberId: a.memberId, memberEpoch: a.epoch });
  assert.is(fetched[0].partitions[0].committedOffset, 5n);
  assert.equal(await h.coord.listGroups([], []), [{ groupId: GROUP, protocolType: 'streams', groupState: 'Stable', groupType: 'streams' }]);
  assert.equal(await h.coord.listGroups([], ['consumer']), []);
  assert.equal(await h.coord.deleteGroups([GROUP]), [{ groupId: GROUP, errorCode: ErrorCode.NON_EMPTY_GROUP }]);
  await a.leave();
  assert.equal(await h.coord.listGroups([], ['streams']), [{ groupId: GROUP, protocolType: 'streams', groupState: 'Empty', groupType: 'streams' }]);
  assert.equal(await h.coord.deleteGroups([GROUP]), [{ groupId: GROUP, errorCode: ErrorCode.NONE }]);
  assert.equal(await h.coord.listGroups([], []), []);
  assert.is((await h.coord.streamsGroupDescribe(GROUP, null, false)).errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
});

test('a restart replays the group from __consumer_offsets: members, epochs, tasks and topology kept', async () => {
  let h = await streamsHarness();
  const ms = await readyGroup(h, 2);
  const before = await h.coord.streamsGroupDescribe(GROUP, null, false);
  h = await h.restart();
  const after = await h.coord.streamsGroupDescribe(GROUP, null, false);
  assert.equal(after, before);
  // The members go on heartbeating with their epochs.
  for (const m of ms) {
    (m as { h: StreamsHarness }).h = h;
    assert.is((await m.beat()).errorCode, ErrorCode.NONE);
  }
  assert.equal((await h.coord.streamsGroupDescribe(GROUP, null, false)).members.map((m) => m.assignment), before.members.map((m) => m.assignment));
});

test('a consumer-protocol join to a streams group is refused, and a streams join to a consumer group', async () => {
  const h = await streamsHarness();
  await readyGroup(h, 1);
  const r = await h.coord.consumerGroupHeartbeat({ apiVersion: 1, clientId: 'c', clientHost: '/h' }, {
    groupId: GROUP, memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['input'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  assert.is(r.errorCode, ErrorCode.GROUP_ID_NOT_FOUND);
  await h.coord.consumerGroupHeartbeat({ apiVersion: 1, clientId: 'c', clientHost: '/h' }, {
    groupId: 'cg', memberId: 'c1', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 1000, subscribedTopicNames: ['input'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
  });
  const s = (await h.hb({ groupId: 'cg', memberId: 'x', memberEpoch: 0, rebalanceTimeoutMs: 1000, topology: wordCountTopology(), processId: 'p', activeTasks: [], standbyTasks: [], warmupTasks: [] })).response;
  assert.equal([s.errorCode, s.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, 'Group cg is not a streams group.']);
  const cd = await h.coord.consumerGroupDescribe(GROUP, null);
  assert.equal([cd.errorCode, cd.errorMessage], [ErrorCode.GROUP_ID_NOT_FOUND, `Group ${GROUP} is not a consumer group.`]);
});

test('two stream threads of one process and a second process with standbys: no task twice in a process, none active twice', async () => {
  const h = await streamsHarness(streamsConfigs({ 'streams.num.standby.replicas': 1 }));
  createInternal(h);
  const ms = [new SimStreamsMember(h, 't1', 'p1'), new SimStreamsMember(h, 't2', 'p1')];
  const check = () => {
    assertNoDoubleOwners(ms);
    for (const proc of new Set(ms.map((m) => m.processId))) {
      const held = ms.filter((m) => m.processId === proc).flatMap((m) => [...m.activeTasks(), ...[...m.standby].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`))]);
      assert.is(new Set(held).size, held.length, `process ${proc} holds a task twice: ${held}`);
    }
  };
  for (const m of ms) await m.join();
  await converge(ms, 10, check);
  assert.equal(ms.map((m) => m.activeTasks().length), [4, 4]);
  assert.ok(ms.every((m) => m.standby.size === 0), 'no standby within the only process');
  ms.push(new SimStreamsMember(h, 'u1', 'p2'));
  await ms[2].join();
  await converge(ms, 15, check);
  const loads = ms.map((m) => m.activeTasks().length);
  assert.is(loads.reduce((a, b) => a + b, 0), 8);
  assert.ok(Math.max(...loads) - Math.min(...loads) <= 1, `balanced: ${loads}`);
  const standbys = (m: SimStreamsMember) => [...m.standby].flatMap(([s, ps]) => [...ps].map((p) => `${s}_${p}`)).sort();
  const statefulOnP1 = [...ms[0].activeTasks(), ...ms[1].activeTasks()].filter((t) => t.startsWith('1_')).sort();
  assert.equal(standbys(ms[2]), statefulOnP1, 'p2 keeps a standby of every stateful task p1 runs');
});

test('task offsets a member reports are described (a list replaces the last one, a null list keeps it; in memory), and go when it leaves', async () => {
  const h = await streamsHarness();
  const [a] = await readyGroup(h, 1);
  const list = (xs: [string, number, bigint][] | null) => xs && xs.map(([subtopologyId, partition, offset]) => ({ subtopologyId, partition, offset }));
  const report = (offsets: [string, number, bigint][] | null, ends: [string, number, bigint][] | null) => h.hb({
    memberId: a.memberId, memberEpoch: a.epoch, taskOffsets: list(offsets), taskEndOffsets: list(ends),
  });
  await report([['1', 2, 5n], ['1', 0, 7n]], [['1', 0, 9n]]);
  await report([['1', 0, 8n]], null);
  const m = (await h.coord.streamsGroupDescribe(GROUP, null, false)).members[0];
  assert.equal(m.taskOffsets, [{ subtopologyId: '1', partition: 0, offset: 8n }], 'as Kafka 4.4\'s MemberTaskOffsets.update: the new list replaces the old one');
  assert.equal(m.taskEndOffsets, [{ subtopologyId: '1', partition: 0, offset: 9n }]);
  await report(null, []);
  assert.equal((await h.coord.streamsGroupDescribe(GROUP, null, false)).members[0].taskEndOffsets, []);
  await a.leave();
  const b = new SimStreamsMember(h, 'm0');
  await b.join();
  assert.equal((await h.coord.streamsGroupDescribe(GROUP, null, false)).members[0].taskOffsets, []);
});

test('a member asking for the application\'s shutdown: every member gets SHUTDOWN_APPLICATION naming it, until the group is empty', async () => {
  const h = await streamsHarness();
  const [a, b] = await readyGroup(h, 2);
  const r = (await h.hb({ memberId: a.memberId, memberEpoch: a.epoch, shutdownApplication: true })).response;
  const detail = `Streams group member ${a.memberId} encountered a fatal error and requested a shutdown for the entire application.`;
  assert.equal(r.status, [{ statusCode: StreamsStatus.SHUTDOWN_APPLICATION, statusDetail: detail }]);
  assert.equal((await b.beat()).status, [{ statusCode: StreamsStatus.SHUTDOWN_APPLICATION, statusDetail: detail }]);
  await a.leave();
  await b.leave();
  const c = new SimStreamsMember(h, 'c');
  assert.equal((await c.join()).status, []);
});

test('group.streams.max.size: a new member of a full group gets GROUP_MAX_SIZE_REACHED; a rejoin and a static member\'s replacement are let in', async () => {
  assert.is(groupConfigFrom(loadConfig()).streams!.maxSize, 2147483647, 'Kafka 4.4\'s default');
  assert.is(groupConfigFrom(loadConfig({ argv: ['--override', 'group.streams.max.size=2'] })).streams!.maxSize, 2);
  const h = await streamsHarness(streamsConfigs(), undefined, undefined, undefined, defaultGroupConfig({ numPartitions: 3, streams: { maxSize: 2 } }));
  createInternal(h);
  const join = (memberId: string, instanceId: string | null = null) => h.hb({
    memberId, instanceId, memberEpoch: 0, rebalanceTimeoutMs: 30000, topology: wordCountTopology(), processId: memberId, activeTasks: [], standbyTasks: [], warmupTasks: [],
  }).then((r) => r.response);
  assert.is((await join('a')).errorCode, ErrorCode.NONE);
  assert.is((await join('b', 'instance-b')).errorCode, ErrorCode.NONE);
  const full = await join('c');
  assert.equal([full.errorCode, full.errorMessage], [ErrorCode.GROUP_MAX_SIZE_REACHED, 'The streams group has reached its maximum capacity of 2 members.']);
  assert.is((await join('a')).errorCode, ErrorCode.NONE, 'a member of the group joining again');
  assert.is((await h.hb({ memberId: 'b', instanceId: 'instance-b', memberEpoch: -2 })).response.errorCode, ErrorCode.NONE);
  assert.is((await join('b2', 'instance-b')).errorCode, ErrorCode.NONE, 'the static member\'s replacement');
  assert.is((await join('d')).errorCode, ErrorCode.GROUP_MAX_SIZE_REACHED);
});

test.run();
