import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RunningBroker } from '../../../src/testing/start-broker.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import { buildRecordBatch, decodeRecordBatches } from '../../../src/protocol/records/record.js';
import { WireClient, withBroker } from './_admin-wire.js';

let b: RunningBroker;
let c: WireClient;
const VALUE = Buffer.alloc(300, 7);

withBroker(test, { port: 0 }, async (nb, nc) => {
  b = nb;
  c = nc;
  await b.broker.createTopic({ name: 'fl', numPartitions: 3, replicationFactor: 1, configs: {} });
  for (const p of [0, 1, 2]) {
    for (let i = 0; i < 4; i++) await b.broker.getLog('fl', p)!.appendAsLeader(buildRecordBatch({ records: [{ key: null, value: VALUE }] }), 0);
  }
});

function fetch(maxBytes: number, partitionMaxBytes: number) {
  return c.send(1, 11, {
    clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 0, minBytes: 1, maxBytes, isolationLevel: 0,
    sessionId: 0, sessionEpoch: -1, rackId: '', forgottenTopicsData: [],
    topics: [{ topic: 'fl', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [0, 1, 2].map((partition) => ({ partition, currentLeaderEpoch: -1, fetchOffset: 0n, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn })) }],
  });
}

function recordCounts(r: Awaited<ReturnType<typeof fetch>>): number[] {
  return r.responses[0].partitions.map((p) => {
    assert.is(p.errorCode, ErrorCode.NONE);
    const bufs = p.records as Buffer;
    return bufs.length === 0 ? 0 : decodeRecordBatches(bufs).reduce((n, batch) => n + batch.records.length, 0);
  });
}

test('max_bytes smaller than one batch: the first partition still gets one whole batch, the others none (KIP-74)', async () => {
  assert.equal(recordCounts(await fetch(10, 1 << 20)), [1, 0, 0]);
});

test('partition_max_bytes bounds each partition to whole batches; max_bytes bounds the total in request order', async () => {
  const batch = buildRecordBatch({ records: [{ key: null, value: VALUE }] }).length;
  assert.equal(recordCounts(await fetch(1 << 20, 2 * batch)), [2, 2, 2]);
  assert.equal(recordCounts(await fetch(5 * batch, 2 * batch)), [2, 2, 1]);
  assert.equal(recordCounts(await fetch(1 << 20, 1 << 20)), [4, 4, 4]);
});

test.run();
