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
  await b.broker.createTopic({ name: 'fe', numPartitions: 1, replicationFactor: 1, configs: {} });
  await b.broker.getLog('fe', 0)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }), 0);
});

function fetchReq(topic: string, partition: number, fetchOffset: bigint) {
  return {
    clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0,
    sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn }] }],
  };
}

test('an out-of-range fetch answers OFFSET_OUT_OF_RANGE with an empty (not null) record set and -1 offsets', async () => {
  for (const v of [4, 11, 12]) {
    const r = await c.send(1, v, fetchReq('fe', 0, 5n));
    const p = r.responses[0].partitions[0];
    assert.is(p.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE, `v${v}`);
    assert.ok(p.records !== null, `v${v}: librdkafka cannot parse a null record set`);
    assert.is((p.records as Buffer).length, 0);
    assert.equal([p.highWatermark, p.logStartOffset], [-1n, -1n]);
  }
});

test('an unknown topic answers UNKNOWN_TOPIC_OR_PARTITION with an empty record set', async () => {
  const p = (await c.send(1, 11, fetchReq('nope', 0, 0n))).responses[0].partitions[0];
  assert.is(p.errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.is((p.records as Buffer).length, 0);
});

test.run();
