/**
 * startBroker({ clock: new ManualClock() }): sessions and transactions expire when the test
 * advances the clock, not after real time; waitForGroupStable follows the group without polling.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, ManualClock, ErrorCode, type RunningBroker } from '../../src/index.js';
import { KafkaClient } from '../../src/cli/client.js';

let clock: ManualClock;
let b: RunningBroker;
let c: KafkaClient;

test.before(async () => {
  clock = new ManualClock();
  b = await startBroker({ storage: 'memory', clock, 'group.initial.rebalance.delay.ms': 0, 'group.min.session.timeout.ms': 1000 });
  c = await KafkaClient.connect({ bootstrap: b.bootstrap });
  const created = await c.request(19, {
    topics: ['orders', 'txn-topic'].map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
    timeoutMs: 5000, validateOnly: false,
  });
  assert.equal(created.topics.map((t) => t.errorCode), [0, 0]);
});
test.after(async () => {
  c.close();
  await b.stop();
});

/**
 * With a manual clock even a zero delay (group.initial.rebalance.delay.ms=0) is a timer that fires
 * only when the clock moves: advance by 0 until the request is answered.
 */
async function driven<T>(p: Promise<T>): Promise<T> {
  let done = false;
  void p.finally(() => { done = true; }).catch(() => undefined);
  while (!done) {
    clock.advance(0);
    await new Promise((r) => setImmediate(r));
  }
  return p;
}

/** Joins `groupId` as its only member (JoinGroup v3 needs no member-id round trip) and syncs. */
async function joinAndSync(groupId: string, sessionTimeoutMs: number): Promise<{ memberId: string; generationId: number }> {
  const join = await driven(c.send(11, 3, {
    groupId, sessionTimeoutMs, rebalanceTimeoutMs: sessionTimeoutMs, memberId: '', groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
  }));
  assert.is(join.errorCode, 0, `JoinGroup: ${join.errorCode}`);
  const sync = await c.send(14, 2, {
    groupId, generationId: join.generationId, memberId: join.memberId, groupInstanceId: null, protocolType: null, protocolName: null,
    assignments: [{ memberId: join.memberId, assignment: Buffer.alloc(0) }],
  });
  assert.is(sync.errorCode, 0, `SyncGroup: ${sync.errorCode}`);
  return { memberId: join.memberId, generationId: join.generationId };
}

test('waitForGroupStable resolves when the member has synced; advancing the clock expires its session', async () => {
  const stable = b.control.waitForGroupStable('g-clock');
  const { memberId, generationId } = await joinAndSync('g-clock', 10_000);
  const snap = await stable;
  assert.is(snap.state, 'Stable');
  assert.equal(snap.members.map((m) => m.memberId), [memberId]);

  // 9 s of broker time: still alive (no real time passes).
  clock.advance(9_000);
  assert.is((await c.send(12, 3, { groupId: 'g-clock', generationId, memberId, groupInstanceId: null })).errorCode, 0);
  // The heartbeat reset the session; 10 s more without one expires it at once.
  clock.advance(10_001);
  await b.broker.groupCoordinator.idle();
  const after = await b.control.groups.describeGroup('g-clock');
  assert.is(after?.state, 'Empty');
  const hb = await c.send(12, 3, { groupId: 'g-clock', generationId, memberId, groupInstanceId: null });
  assert.is(hb.errorCode, ErrorCode.UNKNOWN_MEMBER_ID);
});

test('waitForCommittedOffset resolves on the commit', async () => {
  const { memberId, generationId } = await joinAndSync('g-commit', 30_000);
  const waiting = b.control.waitForCommittedOffset('g-commit', 'orders', 0, 7);
  waiting.catch(() => undefined); // asserted below; keeps a failure above from also being unhandled
  const res = await c.send(8, 7, {
    groupId: 'g-commit', generationIdOrMemberEpoch: generationId, memberId, groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 7n, committedLeaderEpoch: -1, commitTimestamp: -1n, committedMetadata: null }] }],
  } as never);
  assert.is((res as { topics: { partitions: { errorCode: number }[] }[] }).topics[0]!.partitions[0]!.errorCode, 0);
  await waiting;
});

test('advancing the clock past transaction.timeout.ms aborts an open transaction', async () => {
  const init = await c.send(22, 3, { transactionalId: 'tx-clock', transactionTimeoutMs: 5_000, producerId: -1n, producerEpoch: -1, enable2Pc: false, keepPreparedTxn: false });
  assert.is(init.errorCode, 0);
  const add = await c.send(24, 3, {
    transactions: [], v3AndBelowTransactionalId: 'tx-clock', v3AndBelowProducerId: init.producerId, v3AndBelowProducerEpoch: init.producerEpoch,
    v3AndBelowTopics: [{ name: 'txn-topic', partitions: [0] }],
  });
  const code = add.resultsByTopicV3AndBelow[0]!.resultsByPartition[0]!.partitionErrorCode;
  assert.is(code, 0, `AddPartitionsToTxn: ${code}`);
  const describe = async () => (await c.send(65, 0, { transactionalIds: ['tx-clock'] })).transactionStates[0]!.transactionState;
  assert.is(await describe(), 'Ongoing');
  clock.advance(5_001);
  // The abort runs on the coordinator's queue; its markers are appended asynchronously.
  let state = await describe();
  for (let i = 0; i < 50 && state !== 'CompleteAbort' && state !== 'Empty'; i++) {
    clock.advance(100);
    await new Promise((r) => setImmediate(r));
    state = await describe();
  }
  assert.ok(['PrepareAbort', 'CompleteAbort'].includes(state), `state ${state}`);
});

test.run();
