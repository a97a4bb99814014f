/**
 * The partition-change rules with eligible leader replicas (KIP-966, cluster/partition-change.ts),
 * case by case as Kafka 4.4's PartitionChangeBuilder decides them: the ELR fills only while the ISR
 * is below min ISR (with the replicas that were in it), empties when the ISR reaches min ISR,
 * loses a member that rejoins the ISR or shut down uncleanly; elections from the ISR, then the
 * ELR, then the last known leader, then (unclean.leader.election.enable) any live replica; the
 * leader's own ISR changes (alterPartition) keep the ELR too; elections operators ask for; the
 * min.insync.replicas watch that clears ELRs; a broker back from an unclean shutdown leaving the
 * ELRs before it registers; states stored without the fields read as empty. ELR off: as before.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NO_LEADER, type PartitionState, type TopicRecord } from '../../src/cluster/metadata-store.js';
import { LocalMetadataStore } from '../../src/cluster/local-metadata-store.js';
import { alterPartition, brokerLossChange, leaveAfterUncleanShutdown } from '../../src/cluster/partition-state.js';
import { preferredElection, uncleanElection } from '../../src/cluster/leader-election.js';
import { buildPartitionChange, clearedElr, ELR_DISABLED, elrSettingsOf, MinIsrWatch, type ElrSettings } from '../../src/cluster/partition-change.js';
import { ELIGIBLE_LEADER_REPLICAS_VERSION } from '../../src/cluster/features.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';

const ON: ElrSettings = { enabled: true, minIsr: 2 };

function st(isr: number[], leader: number, more: Partial<PartitionState> = {}): PartitionState {
  return { topicId: 't', partition: 0, replicas: [1, 2, 3], isr, leader, leaderEpoch: 5, partitionEpoch: 9, ...more };
}

const alive = (...ids: number[]) => (id: number) => ids.includes(id);
const view = (s: PartitionState | null) => s && { isr: s.isr, leader: s.leader, elr: s.elr ?? [], lastKnownElr: s.lastKnownElr ?? [], leaderEpoch: s.leaderEpoch, partitionEpoch: s.partitionEpoch };

test('only replicas in the ISR when it drops below min ISR enter the ELR; the ISR back at min ISR empties it', () => {
  // 3 leaves while the ISR is still at min ISR (2): it is not eligible.
  const a = brokerLossChange(st([1, 2, 3], 1), { isAlive: alive(1, 2), unclean: false, elr: ON })!;
  assert.equal(view(a), { isr: [1, 2], leader: 1, elr: [], lastKnownElr: [], leaderEpoch: 5, partitionEpoch: 10 });
  // 2 leaves: the ISR drops below min ISR, 2 was in it, so 2 is eligible; 3 is not.
  const b = brokerLossChange(a, { isAlive: alive(1), unclean: false, elr: ON })!;
  assert.equal(view(b), { isr: [1], leader: 1, elr: [2], lastKnownElr: [], leaderEpoch: 5, partitionEpoch: 11 });
  // Both at once from a full ISR: both were in it when it dropped.
  const c = brokerLossChange(st([1, 2, 3], 1), { isAlive: alive(1), unclean: false, elr: { enabled: true, minIsr: 3 } })!;
  assert.equal(c.elr, [2, 3]);
  // The leader adds 2 back (its own AlterPartition): the ISR is at min ISR again, the ELR empties.
  const d = buildPartitionChange(b, { targetIsr: [1, 2], election: 'online', isAcceptableLeader: alive(1, 2), elr: ON })!;
  assert.equal(view(d), { isr: [1, 2], leader: 1, elr: [], lastKnownElr: [], leaderEpoch: 5, partitionEpoch: 12 });
  // With min ISR 3, a rejoining member leaves the ELR while the others stay.
  const e = buildPartitionChange(c, { targetIsr: [1, 3], election: 'online', isAcceptableLeader: alive(1, 3), elr: { enabled: true, minIsr: 3 } })!;
  assert.equal([e.isr, e.elr], [[1, 3], [2]]);
});

test('the last ISR member leaves: the ISR empties, the partition is leaderless and remembers its last leader; an ELR member back leads (clean)', () => {
  const b = st([1], 1, { elr: [2] });
  const down = brokerLossChange(b, { isAlive: alive(), unclean: false, elr: ON })!;
  assert.equal(view(down), { isr: [], leader: NO_LEADER, elr: [1, 2], lastKnownElr: [1], leaderEpoch: 6, partitionEpoch: 10 });
  assert.is(brokerLossChange(down, { isAlive: alive(3), unclean: false, elr: ON }), null, '3 was never eligible: nothing to do');
  const back = brokerLossChange(down, { isAlive: alive(2, 3), unclean: false, elr: ON })!;
  assert.equal(view(back), { isr: [2], leader: 2, elr: [1], lastKnownElr: [], leaderEpoch: 7, partitionEpoch: 11 });
  // The ELR and the ISR never share a member, and both stay within the replicas.
  for (const s of [down, back]) assert.ok((s.elr ?? []).every((id) => !s.isr.includes(id) && s.replicas.includes(id)));
  // Without ELR the last member stays in the ISR (as before) and no list is written.
  const off = brokerLossChange(st([1], 1), { isAlive: alive(), unclean: false })!;
  assert.equal(off, { ...st([1], NO_LEADER), leaderEpoch: 6, partitionEpoch: 10 });
  assert.not.ok('elr' in off || 'lastKnownElr' in off);
});

test('with ISR and ELR empty the last known leader leads when back (unclean: ISR just it); unclean.leader.election.enable then any live replica', () => {
  const lost = st([], NO_LEADER, { lastKnownElr: [1] });
  assert.is(brokerLossChange(lost, { isAlive: alive(3), unclean: false, elr: ON }), null, 'no eligible replica: offline');
  const any = brokerLossChange(lost, { isAlive: alive(3), unclean: true, elr: ON })!;
  assert.equal(view(any), { isr: [3], leader: 3, elr: [], lastKnownElr: [], leaderEpoch: 6, partitionEpoch: 10 });
  const last = brokerLossChange(lost, { isAlive: alive(1, 3), unclean: true, elr: ON })!;
  assert.equal([last.leader, last.isr, last.lastKnownElr], [1, [1], undefined], 'the last known leader goes before any other replica');
  // An ELR member goes before the last known leader.
  const both = brokerLossChange(st([], NO_LEADER, { elr: [2], lastKnownElr: [1] }), { isAlive: alive(1, 2), unclean: false, elr: ON })!;
  assert.equal([both.leader, both.isr, both.elr], [2, [2], undefined]);
});

test('an unclean shutdown takes a broker out of the ISR and the ELR; a clean one (fenced, controlled shutdown) keeps it eligible', () => {
  const s = st([1], 1, { elr: [2, 3] });
  const out = buildPartitionChange(s, { election: 'online', isAcceptableLeader: alive(1), elr: ON, uncleanShutdown: [2] })!;
  assert.equal([out.isr, out.elr, out.leader], [[1], [3], 1]);
  const leaderCrashed = buildPartitionChange(st([1], 1, { elr: [2] }), { election: 'online', isAcceptableLeader: alive(2), elr: ON, uncleanShutdown: [1] })!;
  assert.equal(view(leaderCrashed), { isr: [2], leader: 2, elr: [], lastKnownElr: [], leaderEpoch: 6, partitionEpoch: 10 });
});

test('feature off: ELR and last known ELR are cleared on the next change; clearedElr (min ISR changed) clears them alone', () => {
  const s = st([1], 1, { elr: [2], lastKnownElr: [3] });
  const off = brokerLossChange(s, { isAlive: alive(1, 2, 3), unclean: false, elr: ELR_DISABLED })!;
  assert.equal([off.isr, off.elr, off.lastKnownElr, off.partitionEpoch], [[1], undefined, undefined, 10]);
  assert.equal(view(clearedElr(s)), { isr: [1], leader: 1, elr: [], lastKnownElr: [], leaderEpoch: 5, partitionEpoch: 10 });
  assert.is(clearedElr(st([1], 1)), null);
});

test('elections operators ask for: preferred from the ELR when the ISR is empty; unclean takes the ELR before out-of-sync replicas', () => {
  const s = st([], NO_LEADER, { elr: [1, 2] });
  const pref = preferredElection(s, alive(1, 2), 't-0', ON);
  assert.ok('state' in pref && pref.state.leader === 1 && pref.state.isr.join() === '1' && pref.state.elr?.join() === '2');
  const noElr = preferredElection(s, alive(1, 2), 't-0');
  assert.ok('errorCode' in noElr && noElr.errorCode === ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, 'without ELR the preferred replica is out of the ISR');
  const uncl = uncleanElection(st([], NO_LEADER, { elr: [2] }), alive(2, 3), 't-0', ON);
  assert.ok('state' in uncl && uncl.state.leader === 2 && uncl.state.isr.join() === '2');
  const none = uncleanElection(st([], NO_LEADER, { elr: [2] }), alive(), 't-0', ON);
  assert.ok('errorCode' in none && none.errorCode === ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE);
});

test('the leader shrinks and expands its ISR through the store: the ELR follows, and states stored without it read as empty', async () => {
  const store = new LocalMetadataStore(null, 1);
  await store.ensureClusterId('c');
  const topic: TopicRecord = { name: 't', topicId: 't', partitions: 1, replicationFactor: 3, configs: {}, isInternal: false };
  const first = st([1, 2, 3], 1, { partitionEpoch: 0, leaderEpoch: 0 });
  await store.createTopic(topic, [first]);
  const read = async () => (await store.readImage()).partitions.get('t')!.get(0)!;
  assert.not.ok('elr' in (await read()), 'a state without ELR is stored as before');
  const reg = await store.registerBroker({ nodeId: 1, incarnationId: 'i', endpoints: [], rack: null }, await store.grantSession(10_000));
  const req = (known: PartitionState, newIsr: number[]) => ({ brokerId: 1, brokerEpoch: reg.brokerEpoch, leaderEpoch: known.leaderEpoch, partitionEpoch: known.partitionEpoch, newIsr });
  let known = await read();
  let out = await alterPartition(store, known, req(known, [1, 2]), alive(1, 2, 3), ON);
  assert.ok(out.ok && (out.state.elr ?? []).length === 0);
  known = await read();
  out = await alterPartition(store, known, req(known, [1]), alive(1, 2, 3), ON);
  assert.ok(out.ok);
  assert.equal(((await read()).elr), [2], 'stored: 2 left the ISR as it dropped below min ISR');
  known = await read();
  out = await alterPartition(store, known, req(known, [1, 3]), alive(1, 2, 3), ON);
  assert.equal(view(await read()), { isr: [1, 3], leader: 1, elr: [], lastKnownElr: [], leaderEpoch: 0, partitionEpoch: 3 });
});

test('a broker back from an unclean shutdown leaves the ELRs before it registers (nothing with ELR off)', async () => {
  const store = new LocalMetadataStore(null, 1);
  await store.ensureClusterId('c');
  const topic: TopicRecord = { name: 't', topicId: 't', partitions: 1, replicationFactor: 3, configs: {}, isInternal: false };
  await store.createTopic(topic, [st([], NO_LEADER, { elr: [2, 3], lastKnownElr: [1], partitionEpoch: 0, leaderEpoch: 0 })]);
  const image = await store.readImage();
  const cache = (features: Map<string, number>) => ({
    allPartitions: () => [...image.partitions.get('t')!.values()], isEligible: alive(3), features,
    brokerConfigs: new Map(), topicById: () => topic, controller: null,
  });
  assert.is(await leaveAfterUncleanShutdown(store, cache(new Map()), 2, 2), 0);
  assert.is(await leaveAfterUncleanShutdown(store, cache(new Map([[ELIGIBLE_LEADER_REPLICAS_VERSION, 1]])), 2, 2), 1);
  const after = (await store.readImage()).partitions.get('t')!.get(0)!;
  assert.equal(view(after), { isr: [3], leader: 3, elr: [], lastKnownElr: [], leaderEpoch: 1, partitionEpoch: 1 }, 'out of the ELR; the live ELR member 3 leads');
});

test('elrSettingsOf: the feature level, then the topic min ISR, the active controller\'s node-level value, the cluster default, the static one, at most the replica count', () => {
  const features = new Map([[ELIGIBLE_LEADER_REPLICAS_VERSION, 1]]);
  const topic = (configs: Record<string, string>): TopicRecord => ({ name: 't', topicId: 't', partitions: 1, replicationFactor: 3, configs, isInternal: false });
  const controller = { nodeId: 2, incarnationId: 'i', controllerEpoch: 1 };
  const of = (f: Map<string, number>, configs: Record<string, string>, brokerConfigs = new Map<string, Record<string, string>>()) =>
    elrSettingsOf({ features: f, brokerConfigs, topicById: () => topic(configs), controller }, st([1, 2, 3], 1), 2);
  assert.equal(of(new Map(), { 'min.insync.replicas': '3' }), ELR_DISABLED);
  assert.equal(of(features, {}), { enabled: true, minIsr: 2 });
  assert.equal(of(features, {}, new Map([['<default>', { 'min.insync.replicas': '1' }]])), { enabled: true, minIsr: 1 });
  assert.equal(of(features, { 'min.insync.replicas': '5' }), { enabled: true, minIsr: 3 });
  const nodeLevel = new Map([['<default>', { 'min.insync.replicas': '1' }], ['2', { 'min.insync.replicas': '3' }], ['1', { 'min.insync.replicas': '2' }]]);
  assert.equal(of(features, {}, nodeLevel), { enabled: true, minIsr: 3 }, 'the controller\'s (node 2) value before the cluster default; not another node\'s');
  assert.equal(of(features, { 'min.insync.replicas': '1' }, nodeLevel), { enabled: true, minIsr: 1 }, 'the topic\'s first');
});

test('MinIsrWatch: a topic min.insync.replicas change clears that topic, a broker-level change every topic, until stored', () => {
  const topics = new Map<string, TopicRecord>([
    ['a', { name: 'a', topicId: 'A', partitions: 1, replicationFactor: 3, configs: {}, isInternal: false }],
    ['b', { name: 'b', topicId: 'B', partitions: 1, replicationFactor: 3, configs: {}, isInternal: false }],
  ]);
  const brokerConfigs = new Map<string, Record<string, string>>();
  const cache = { topics, brokerConfigs, partitionsOf: (id: string) => [{ ...st([1], 1), topicId: id }] };
  const a = { ...st([1], 1), topicId: 'A' };
  const b = { ...st([1], 1), topicId: 'B' };
  const w = new MinIsrWatch(1, cache);
  w.observe(cache);
  assert.not.ok(w.mustClear(a) || w.mustClear(b), 'what the controller first sees clears nothing');
  topics.set('a', { ...topics.get('a')!, configs: { 'min.insync.replicas': '3' } });
  w.observe(cache);
  assert.ok(w.mustClear(a));
  assert.not.ok(w.mustClear(b));
  w.cleared(a);
  assert.not.ok(w.mustClear(a));
  brokerConfigs.set('<default>', { 'min.insync.replicas': '1' });
  w.observe(cache);
  assert.ok(w.mustClear(a) && w.mustClear(b));
});

test.run();
