import { LeaderEpochCache } from '../../../src/storage/leader-epoch-cache.js';
import { MemFs } from '../../../src/storage/fs.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch } from '../../../src/protocol/records/record.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'ole', numPartitions: 1, replicationFactor: 1, configs: {} });
  const log = b.broker.getLog('ole', 0)!;
  for (let i = 0; i < 3; i++) await log.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from(`v${i}`) }] }), 0);
});

async function ask(partition: number, leaderEpoch: number, currentLeaderEpoch = -1, version = 4) {
  const r = await c.send(23, version, { replicaId: -1, topics: [{ topic: 'ole', partitions: [{ partition, currentLeaderEpoch, leaderEpoch }] }] });
  return r.topics[0].partitions[0];
}

test('the current epoch ends at the log end offset (v2, v3, v4)', async () => {
  for (const v of [2, 3, 4]) {
    const p = await ask(0, 0, 0, v);
    assert.equal([p.errorCode, p.leaderEpoch, p.endOffset], [ErrorCode.NONE, 0, 3n], `v${v}`);
  }
});

test('an epoch newer than the latest answers -1/-1; a stale or future current epoch is fenced / unknown', async () => {
  const p = await ask(0, 5);
  assert.equal([p.errorCode, p.leaderEpoch, p.endOffset], [ErrorCode.NONE, -1, -1n]);
  assert.is((await ask(0, 0, 7)).errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
});

test('Kafka\'s endOffsetFor on a log whose first known epoch is 2: older epochs end where epoch 2 starts', async () => {
  // A replica that joined at epoch 2 (or whose log start passed older epochs) must still let a
  // follower on epoch 0 catch up: answering -1/-1 there left that follower failing every fetch.
  const cache = await LeaderEpochCache.load(new MemFs(), '/p');
  cache.assign(2, 5);
  cache.assign(4, 9);
  const at = (epoch: number) => { const e = cache.endOffsetFor(epoch, 12); return [e.leaderEpoch, e.endOffset]; };
  assert.equal([at(0), at(1), at(2), at(3), at(4), at(5), at(-1)], [[0, 5], [1, 5], [2, 9], [2, 9], [4, 12], [-1, -1], [-1, -1]]);
});

test('an unknown partition answers UNKNOWN_TOPIC_OR_PARTITION', async () => {
  assert.is((await ask(9, 0)).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
});

test.run();
