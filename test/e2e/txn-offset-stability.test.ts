/**
 * OffsetFetch require_stable against a transactional offset commit on one broker (issue 23,
 * defect 1): 200 rounds of TxnOffsetCommit + EndTxn while OffsetFetch v8 with require_stable runs
 * beside them; no answer may be the stale "no offset" once the commit was accepted.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { commitWhileFetching } from '../support/txn-offset-race.js';

let b: RunningBroker;

test.before(async () => {
  // With fsync on acks=all writes, each plain commit holds the group's shard for a while, so an
  // OffsetFetch and the COMMIT marker often queue up behind one another there (before the fix:
  // 26 stale answers in 200 rounds).
  b = await startBroker({ port: 0, 'samsa.flush.on.acks.all': true });
  await b.broker.createTopic({ name: 'race', numPartitions: 2, replicationFactor: 1, configs: {} });
});

test.after(async () => {
  await b?.stop();
});

test('200 rounds of commit-while-fetching: every require_stable answer is UNSTABLE_OFFSET_COMMIT or the new offset, never a stale -1', async () => {
  const r = await commitWhileFetching(`127.0.0.1:${b.port}`, 'race', 200, 'one');
  assert.is(r.stale, 0, JSON.stringify(r));
  assert.ok(r.answers >= 200, JSON.stringify(r));
});

test.run();
