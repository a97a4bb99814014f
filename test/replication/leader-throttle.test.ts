/**
 * The leader side of replication throttles at the Fetch handler (one broker, follower fetches
 * with replica_id 2, a broker that is not in the ISR): partitions listed for this broker in
 * leader.replication.throttled.replicas get no records once the leader rate is exceeded, with
 * their high watermark and no error; unlisted partitions and consumers are not throttled; the
 * bytes sent for throttled partitions are what fills the quota; removing the rate lifts it.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildRecordBatch } from '../../src/protocol/records/record.js';
import { ErrorCode } from '../../src/protocol/generated/error-codes.js';
import { startBroker, type RunningBroker } from '../../src/testing/start-broker.js';
import { WireClient } from '../broker/handlers/_admin-wire.js';

const VALUE = Buffer.alloc(10_000, 1);
let b: RunningBroker;
let c: WireClient;

test.before(async () => {
  b = await startBroker({ port: 0 });
  c = await WireClient.connect(b.port);
  const id = b.broker.nodeId;
  await b.broker.createTopic({ name: 'lt', numPartitions: 3, replicationFactor: 1, configs: { 'leader.replication.throttled.replicas': `0:${id},1:${id},2:${id + 7}` } });
  for (const p of [0, 1, 2]) {
    for (let i = 0; i < 4; i++) await b.broker.getLog('lt', p)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: VALUE }] }), 0);
  }
});

test.after(async () => {
  c.close();
  await b.stop();
});

function fetch(replicaId: number) {
  return c.send(1, 11, {
    clusterId: null, replicaId, replicaState: null, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0,
    sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic: 'lt', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [0, 1, 2].map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn })) }],
  });
}

const sizes = (r: Awaited<ReturnType<typeof fetch>>) => r.responses[0].partitions.map((p) => {
  assert.is(p.errorCode, ErrorCode.NONE);
  assert.is(p.highWatermark, 4n);
  return (p.records as Buffer).length;
});

const setRate = (value: string | null) => c.send(44, 1, {
  resources: [{ resourceType: 4, resourceName: String(b.broker.nodeId), configs: [{ name: 'leader.replication.throttled.rate', configOperation: value === null ? 1 : 0, value }] }],
  validateOnly: false,
});

test('throttled partitions get no records while the leader rate is exceeded; others and consumers do', async () => {
  const unthrottled = sizes(await fetch(2));
  assert.ok(unthrottled.every((n) => n > 40_000), 'no rate: every partition answers its data');
  await setRate('1000');
  assert.is(b.broker.replicationQuotas.leader.upperBound, 1000);
  // Nothing recorded yet: this answer goes out whole, and its throttled bytes fill the quota.
  const first = sizes(await fetch(2));
  assert.ok(first.every((n) => n > 40_000));
  assert.ok(b.broker.replicationQuotas.leader.isQuotaExceeded());
  // 11 windows of 1 s: the rate is the bytes over (slightly more than) 10 s of padded window.
  const recorded = b.broker.replicationQuotas.leader.measure() * 10;
  const throttledBytes = first[0] + first[1];
  assert.ok(recorded >= throttledBytes * 0.95 && recorded <= throttledBytes, `recorded ${recorded} B, throttled partitions sent ${throttledBytes} B (and partition 2 ${first[2]} B)`);
  const second = sizes(await fetch(2));
  assert.equal([second[0], second[1]], [0, 0], 'throttled partitions: no records');
  assert.ok(second[2] > 40_000, 'partition 2 is listed for another broker');
  assert.ok(sizes(await fetch(-1)).every((n) => n > 40_000), 'consumers are never throttled');
  await setRate(null);
  assert.not.ok(b.broker.replicationQuotas.leader.active);
  assert.ok(sizes(await fetch(2)).every((n) => n > 40_000), 'rate removed: data again');
});

test.run();
