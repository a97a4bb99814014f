/**
 * ListOffsets (002) against a fake BrokerServices and a fake partition log: the special
 * timestamps by version, the offsets and leader epochs answered (behaviours.md L1-L13, R7;
 * Kafka's Partition.fetchOffsetForTimestamp and UnifiedLog.fetchOffsetByTimestamp), errors.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { listOffsetsHandler } from '../../../src/broker/handlers/002-list-offsets.js';
import { ErrorCode } from '../../../src/protocol/generated/error-codes.js';
import type { ListOffsetsRequest } from '../../../src/protocol/generated/messages/list-offsets-request.js';
import { fakeAuthorizer, fakeMetadataCache, fakeServices, requestContext, topicRecord } from '../../support/fake-services.js';

const t = topicRecord('t', 3);
/** Leader epochs of the fake log: 1 from offset 0, 4 from offset 50; the partition's current epoch is 6. */
const EPOCHS = [{ epoch: 1, startOffset: 0 }, { epoch: 4, startOffset: 50 }];

function fakeLog(over: Record<string, unknown> = {}) {
  const epochOf = (o: number) => EPOCHS.filter((e) => e.startOffset <= o).at(-1)?.epoch ?? -1;
  return {
    highWatermark: 80, lastStableOffset: 70, logStartOffset: 10, localLogStartOffset: 10, tiered: false, highestOffsetInRemoteStorage: -1,
    leaderEpochCache: { epochForOffset: epochOf, earliestEpochAt: (start: number) => (EPOCHS[0].startOffset <= start ? EPOCHS[0].epoch : -1) },
    maxTimestampAndOffset: async () => ({ offset: 55, timestamp: 9000, leaderEpoch: 4 }),
    // Records: timestamp 5000 at offset 20 (epoch 1), 9000 at offset 75 (epoch 4).
    offsetForTimestamp: async (ts: number) => (ts <= 5000 ? { offset: 20, timestamp: 5000, leaderEpoch: 1 } : ts <= 9000 ? { offset: 75, timestamp: 9000, leaderEpoch: 4 } : null),
    ...over,
  };
}

function setup(opts: { log?: Record<string, unknown>; leader?: boolean; authorizer?: unknown; tiered?: unknown } = {}) {
  const log = fakeLog(opts.log);
  const broker = fakeServices({
    authorizer: opts.authorizer ?? null,
    metadataCache: fakeMetadataCache([t]),
    replicaManager: { getPartition: (_name: string, _i: number) => ({ isLeader: opts.leader ?? true, leaderEpoch: 6, log }), tiered: opts.tiered } as never,
    partitionState: () => ({ leader: 1, leaderEpoch: 6 }) as never,
    logger: { error: () => {} } as never,
  });
  return broker;
}

function request(parts: [number, bigint, number?][], isolationLevel = 0, name = 't'): ListOffsetsRequest {
  return { replicaId: -1, isolationLevel, timeoutMs: 0, topics: [{ name, partitions: parts.map(([partitionIndex, timestamp, currentLeaderEpoch]) => ({ partitionIndex, timestamp, currentLeaderEpoch: currentLeaderEpoch ?? -1 })) }] };
}

/** [partition, error, offset, timestamp, leader epoch] of the first topic. */
async function ask(broker: ReturnType<typeof setup>, v: number, req: ListOffsetsRequest) {
  const r = await listOffsetsHandler.handle(requestContext(broker, 2, v), req) as any;
  return r.topics[0].partitions.map((p: any) => [p.partitionIndex, p.errorCode, Number(p.offset), Number(p.timestamp), p.leaderEpoch]);
}

test('-1 latest: the high watermark, or the last stable offset for read_committed, with the current leader epoch (L1, R7)', async () => {
  const broker = setup();
  assert.equal(await ask(broker, 9, request([[0, -1n]])), [[0, ErrorCode.NONE, 80, -1, 6]]);
  assert.equal(await ask(broker, 9, request([[0, -1n]], 1)), [[0, ErrorCode.NONE, 70, -1, 6]]);
});

test('-2 earliest: the log start offset with the epoch of the earliest epoch entry when it starts at or below it, else -1 (L2)', async () => {
  assert.equal(await ask(setup(), 9, request([[0, -2n]])), [[0, ErrorCode.NONE, 10, -1, 1]]);
  const later = setup({ log: { leaderEpochCache: { earliestEpochAt: () => -1, epochForOffset: () => -1 } } });
  assert.equal(await ask(later, 9, request([[0, -2n]])), [[0, ErrorCode.NONE, 10, -1, -1]]);
});

test('special timestamps need their version: -3 from v7, -4 from v8, -5 from v9, other negatives never (L6, L7)', async () => {
  const broker = setup();
  assert.equal(await ask(broker, 6, request([[0, -3n]])), [[0, ErrorCode.UNSUPPORTED_VERSION, -1, -1, -1]]);
  assert.equal(await ask(broker, 7, request([[0, -4n]])), [[0, ErrorCode.UNSUPPORTED_VERSION, -1, -1, -1]]);
  assert.equal(await ask(broker, 8, request([[0, -5n]])), [[0, ErrorCode.UNSUPPORTED_VERSION, -1, -1, -1]]);
  assert.equal(await ask(broker, 9, request([[0, -7n]])), [[0, ErrorCode.UNSUPPORTED_VERSION, -1, -1, -1]]);
});

test('-3 max timestamp: the record and its batch\'s epoch; an empty log -1/-1 (L3)', async () => {
  assert.equal(await ask(setup(), 7, request([[0, -3n]])), [[0, ErrorCode.NONE, 55, 9000, 4]]);
  const empty = setup({ log: { maxTimestampAndOffset: async () => ({ offset: -1, timestamp: -1, leaderEpoch: -1 }) } });
  assert.equal(await ask(empty, 7, request([[0, -3n]])), [[0, ErrorCode.NONE, -1, -1, -1]]);
});

test('-4 earliest local and -5 latest tiered: local log start; the last offset in the remote tier, -1 when not tiered (L4, L5)', async () => {
  const tiered = setup({ log: { tiered: true, localLogStartOffset: 60, highestOffsetInRemoteStorage: 59 } });
  assert.equal(await ask(tiered, 8, request([[0, -4n]])), [[0, ErrorCode.NONE, 60, -1, 4]]);
  assert.equal(await ask(tiered, 9, request([[0, -5n]])), [[0, ErrorCode.NONE, 59, -1, 4]]);
  assert.equal(await ask(setup(), 9, request([[0, -5n]])), [[0, ErrorCode.NONE, -1, -1, -1]]);
});

test('a timestamp: the first record at or after it, with its batch\'s epoch; at or beyond the fetchable offset, or none, -1/-1 (L8-L10)', async () => {
  const broker = setup();
  assert.equal(await ask(broker, 9, request([[0, 4000n], [1, 8000n], [2, 10000n]])), [[0, 0, 20, 5000, 1], [1, 0, 75, 9000, 4], [2, 0, -1, -1, -1]]);
  assert.equal(await ask(broker, 9, request([[1, 8000n]], 1)), [[1, 0, -1, -1, -1]], 'offset 75 is above the LSO (70)');
});

test('a tiered log searches timestamps through the remote tier', async () => {
  const asked: unknown[][] = [];
  const tiered = { offsetForTimestamp: async (target: { topic: string; topicId: string; partition: number }, ts: number) => (asked.push([target.topic, target.topicId, target.partition, ts]), { offset: 3, timestamp: 100, leaderEpoch: 1 }) };
  const broker = setup({ log: { tiered: true }, tiered });
  assert.equal(await ask(broker, 9, request([[2, 50n]])), [[2, 0, 3, 100, 1]]);
  assert.equal(asked, [['t', t.topicId, 2, 50]]);
});

test('errors: a partition listed twice is one INVALID_REQUEST entry (L11); unknown topic or partition (L12); leader epochs (L13); not the leader', async () => {
  const broker = setup();
  assert.equal(await ask(broker, 9, request([[0, -1n], [0, -2n], [1, -1n]])), [[0, ErrorCode.INVALID_REQUEST, -1, -1, -1], [1, 0, 80, -1, 6]]);
  assert.equal(await ask(broker, 9, request([[3, -1n], [-1, -1n]])), [[3, 3, -1, -1, -1], [-1, 3, -1, -1, -1]]);
  assert.equal(await ask(broker, 9, request([[0, -1n]], 0, 'missing')), [[0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, -1, -1, -1]]);
  assert.equal(await ask(broker, 9, request([[0, -1n, 5], [1, -1n, 7], [2, -1n, 6]])), [[0, ErrorCode.FENCED_LEADER_EPOCH, -1, -1, -1], [1, ErrorCode.UNKNOWN_LEADER_EPOCH, -1, -1, -1], [2, 0, 80, -1, 6]]);
  assert.equal(await ask(setup({ leader: false }), 9, request([[0, -1n]])), [[0, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1, -1, -1]]);
});

test('DESCRIBE on the topic, else TOPIC_AUTHORIZATION_FAILED for each partition, nothing looked up', async () => {
  const broker = fakeServices({ authorizer: fakeAuthorizer(() => false) });
  assert.equal(await ask(broker as never, 9, request([[0, -1n], [1, 5n]])), [[0, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1, -1, -1], [1, ErrorCode.TOPIC_AUTHORIZATION_FAILED, -1, -1, -1]]);
});

test('a failure reading the log is that partition\'s error, the others are answered', async () => {
  const broker = setup({ log: { offsetForTimestamp: async () => { throw new Error('disk'); } } });
  assert.equal(await ask(broker, 9, request([[0, 5n], [1, -1n]])), [[0, ErrorCode.UNKNOWN_SERVER_ERROR, -1, -1, -1], [1, 0, 80, -1, 6]]);
});

test.run();
