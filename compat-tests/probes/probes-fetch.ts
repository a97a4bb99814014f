/**
 * Probes: Fetch (F1-F17, read_committed R1-R5), ListOffsets (L1-L13, R7), OffsetForLeaderEpoch,
 * DeleteRecords (DR1-DR8) and DescribeProducers. Every probe reads a topic of its own, filled by
 * its set-up with the same batches on both brokers.
 */
import { T0, batch, coordinatorsReady, createTopic, endTransaction, initProducer, openTransaction, produce, topicId, topicWithRecords } from './fixtures.js';
import type { Probe, ProbeCtx } from './runner.js';

interface FetchPart {
  partition?: number;
  fetchOffset?: number;
  partitionMaxBytes?: number;
  currentLeaderEpoch?: number;
}

interface FetchOpts {
  parts?: FetchPart[];
  maxBytes?: number;
  isolationLevel?: number;
  sessionId?: number;
  sessionEpoch?: number;
  /** Use topic ids (v13+); 'unknown' sends a random one. */
  byId?: boolean | 'unknown';
  topic?: string;
  /** client.rack (v11+, KIP-392). */
  rackId?: string;
}

/** A Fetch body; maxWaitMs is short: the probes that reach the log end wait that long on both. */
function fetchBody(ctx: ProbeCtx, topic: string, o: FetchOpts): Record<string, unknown> {
  const id = o.byId === 'unknown' ? 'AAAAAAAAAAAAAAAAAAAAAQ' : o.byId ? ctx.state[`id:${topic}`] : undefined;
  return {
    maxWaitMs: 20,
    minBytes: 1,
    maxBytes: o.maxBytes ?? 1 << 20,
    isolationLevel: o.isolationLevel ?? 0,
    sessionId: o.sessionId ?? 0,
    sessionEpoch: o.sessionEpoch ?? -1,
    ...(o.rackId !== undefined ? { rackId: o.rackId } : {}),
    topics: [{
      topic: o.topic ?? topic,
      ...(id ? { topicId: id } : {}),
      partitions: (o.parts ?? [{}]).map((p) => ({
        partition: p.partition ?? 0,
        fetchOffset: p.fetchOffset ?? 0,
        partitionMaxBytes: p.partitionMaxBytes ?? 1 << 20,
        currentLeaderEpoch: p.currentLeaderEpoch ?? -1,
      })),
    }],
  };
}

/** A topic `pf-<id>` with `n` one-record batches in partition 0 (and in partition 1 when `two`). */
async function filled(ctx: ProbeCtx, topic: string, n: number, partitions = 1): Promise<void> {
  await createTopic(ctx, topic, partitions);
  for (let part = 0; part < partitions; part++) {
    for (let i = 0; i < n; i++) await produce(ctx, topic, part, batch({ prefix: `${topic}-${part}-${i}-`, count: 2 }));
  }
  ctx.state[`id:${topic}`] = await topicId(ctx, topic);
}

function f(id: string, version: number, about: string, o: FetchOpts, extra: Partial<Probe> & { records?: number; partitions?: number; prepare?: (ctx: ProbeCtx, topic: string) => Promise<void> } = {}): Probe {
  const topic = `pf-${id}`;
  const { records, partitions, prepare, ...rest } = extra;
  return {
    id: `fetch/${id}`,
    api: 1,
    version,
    about,
    setup: async (ctx) => {
      await filled(ctx, topic, records ?? 3, partitions ?? 1);
      if (prepare) await prepare(ctx, topic);
    },
    body: (ctx) => fetchBody(ctx, topic, o),
    ...rest,
  };
}

/** Transactional data: a committed transaction, an aborted one, then an open one (offsets 0-1, 2, 3-4, 5, 6-7). */
async function txnData(ctx: ProbeCtx, topic: string): Promise<void> {
  const names = [`${topic}-c`, `${topic}-a`, `${topic}-o`];
  for (const [i, name] of names.entries()) {
    const pr = await openTransaction(ctx, name, topic, 2);
    if (i < 2) await endTransaction(ctx, name, pr, i === 0, topic);
  }
}

/** A fetch session's id is random: whether there is one, and that it is the session's, is compared. */
function sessionIds(j: unknown, ctx: ProbeCtx, topic: string): unknown {
  const o = j as Record<string, unknown>;
  if (typeof o.sessionId === 'number' && o.sessionId !== 0) o.sessionId = o.sessionId === ctx.state[`session:${topic}`] ? '<the-session>' : '<session-id>';
  return j;
}

interface SessionStep {
  epoch: number;
  /** Partitions named, with their fetch offsets. */
  parts?: { partition: number; fetchOffset: number }[];
  forget?: number[];
  /** Another session id than the one set up. */
  sessionId?: number;
}

/** An incremental (or other) request in the session set up for `topic`. */
function sessionBody(ctx: ProbeCtx, topic: string, version: number, o: SessionStep): Record<string, unknown> {
  const byId = version >= 13;
  const id = ctx.state[`id:${topic}`];
  const named = (x: Record<string, unknown>) => (byId ? { topic: '', topicId: id, ...x } : { topic, ...x });
  return {
    maxWaitMs: 20, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0,
    sessionId: o.sessionId ?? ctx.state[`session:${topic}`], sessionEpoch: o.epoch,
    topics: o.parts && o.parts.length > 0 ? [named({ partitions: o.parts.map((p) => ({ partition: p.partition, fetchOffset: p.fetchOffset, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1 })) })] : [],
    forgottenTopicsData: o.forget ? [named({ partitions: o.forget })] : [],
  };
}

/**
 * A fetch session probe (KIP-227): a topic of 3 partitions with 3 two-record batches each, a full
 * fetch with epoch 0 of all three at `setupVersion` (state session:<topic>), `prepare`, then the
 * probed request in that session.
 */
function s(id: string, version: number, about: string, step: SessionStep, extra: { setupVersion?: number; prepare?: (ctx: ProbeCtx, topic: string) => Promise<void> } = {}): Probe {
  const topic = `pfs-${id}`;
  return {
    id: `fetch/${id}`,
    api: 1,
    version,
    about,
    setup: async (ctx) => {
      await filled(ctx, topic, 3, 3);
      const v = extra.setupVersion ?? version;
      const full = await ctx.call(1, v, sessionBody(ctx, topic, v, { epoch: 0, sessionId: 0, parts: [0, 1, 2].map((partition) => ({ partition, fetchOffset: 0 })) }));
      ctx.state[`session:${topic}`] = full.sessionId;
      if (extra.prepare) await extra.prepare(ctx, topic);
    },
    body: (ctx) => sessionBody(ctx, topic, version, step),
    normalise: (j, ctx) => sessionIds(j, ctx, topic) as never,
  };
}

/** One more batch in partition 1 after the session was set up (the log ends at 6 before it). */
const moreInPartition1 = async (ctx: ProbeCtx, topic: string) => {
  await produce(ctx, topic, 1, batch({ prefix: `${topic}-more-`, count: 2 }));
};
const atEnd = [0, 1, 2].map((partition) => ({ partition, fetchOffset: 6 }));

/** Epoch 1 moves every partition's fetch offset to its log end (6). */
const caughtUp = async (ctx: ProbeCtx, topic: string, version: number) => {
  await ctx.call(1, version, sessionBody(ctx, topic, version, { epoch: 1, parts: atEnd }));
};

function sessionProbes(): Probe[] {
  return [
    s('v12-session-offsets-kept', 12, 'incremental fetch naming nothing (KIP-227): the session\'s fetch offsets (0) are read, every partition has records', { epoch: 1 }),
    s('v12-session-unchanged', 12, 'caught up, then an incremental fetch naming nothing with nothing new: no partitions, the session id', { epoch: 2 }, { prepare: (ctx, topic) => caughtUp(ctx, topic, 12) }),
    s('v12-session-new-records', 12, 'incremental fetch at the log ends, new records in one partition: only that partition answered', { epoch: 1, parts: atEnd }, { prepare: moreInPartition1 }),
    s('v13-session-new-records', 13, 'the same with topic ids', { epoch: 1, parts: atEnd }, { prepare: moreInPartition1 }),
    s('v17-session-unchanged', 17, 'caught up, then nothing new, at v17', { epoch: 2 }, { prepare: (ctx, topic) => caughtUp(ctx, topic, 17) }),
    s('v18-session-unchanged', 18, 'caught up, then nothing new, at the newest version', { epoch: 2 }, { prepare: (ctx, topic) => caughtUp(ctx, topic, 18) }),
    s('v12-session-second-epoch', 12, 'epoch 2 after epoch 1 (the fetch offsets of epoch 1 kept), new records in one partition', { epoch: 2 }, {
      prepare: async (ctx, topic) => {
        await caughtUp(ctx, topic, 12);
        await moreInPartition1(ctx, topic);
      },
    }),
    s('v12-session-log-start-moved', 12, 'caught up, then DeleteRecords moves one partition\'s log start: only that partition answered', { epoch: 2 }, {
      prepare: async (ctx, topic) => {
        await caughtUp(ctx, topic, 12);
        await ctx.call(21, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 2, offset: 4 }] }], timeoutMs: 10_000 });
      },
    }),
    s('v12-session-wrong-epoch', 12, 'incremental fetch with the wrong epoch: INVALID_FETCH_SESSION_EPOCH', { epoch: 7 }),
    s('v13-session-topic-id-error', 13, 'a session made at v12 used at v13: FETCH_SESSION_TOPIC_ID_ERROR', { epoch: 1 }, { setupVersion: 12 }),
    s('v12-session-forget-all', 12, 'forgetting every partition closes the session: session id 0, nothing answered', { epoch: 1, forget: [0, 1, 2] }),
    s('v12-session-forget-one', 12, 'forgetting one partition: the others are still read (from offset 0: records)', { epoch: 1, forget: [1] }),
    s('v12-session-closed', 12, 'a session closed by a full fetch with epoch -1: FETCH_SESSION_ID_NOT_FOUND', { epoch: 1 }, {
      prepare: async (ctx, topic) => {
        await ctx.call(1, 12, sessionBody(ctx, topic, 12, { epoch: -1, parts: atEnd }));
      },
    }),
    s('v12-session-unknown-partition', 12, 'a session made naming 0, 7 (unknown), 1; epoch 1 naming nothing: the read ones, then the unknown', { epoch: 1 }, {
      prepare: async (ctx, topic) => {
        const full = await ctx.call(1, 12, sessionBody(ctx, topic, 12, { epoch: 0, parts: [0, 7, 1].map((partition) => ({ partition, fetchOffset: 0 })) }));
        ctx.state[`session:${topic}`] = full.sessionId;
      },
    }),
    s('v12-session-replaced', 12, 'a full fetch with epoch 0 naming the session: a new session', { epoch: 0, parts: atEnd }),
    s('v12-session-id-past-last-shard', 12, 'session id 2^31-1 (past the last of the 8 cache shards): UNKNOWN_SERVER_ERROR', { epoch: 1, sessionId: 2147483647, parts: [{ partition: 0, fetchOffset: 0 }] }),
  ];
}

function fetchProbes(): Probe[] {
  return [
    f('v4-min', 4, 'oldest advertised Fetch: whole log', {}),
    f('v11', 11, 'librdkafka 2.0.2 / kafkajs version', {}),
    f('v12-first-flexible', 12, 'first flexible version', {}),
    f('v13-topic-ids', 13, 'topics named by id', { byId: true }),
    f('v16', 16, 'librdkafka 2.15 version', { byId: true }),
    f('v17-max', 17, 'v17 (replica directory id)', { byId: true }),
    f('v18-max', 18, 'newest advertised version (KIP-1166: a follower\'s high watermark, a tagged field a consumer leaves out)', { byId: true }),
    f('v12-offset-beyond-end', 12, 'fetch_offset > log end (F1): OFFSET_OUT_OF_RANGE with -1 offsets', { parts: [{ fetchOffset: 100 }] }),
    f('v12-offset-before-start', 12, 'fetch_offset < log start (F2)', { parts: [{ fetchOffset: 1 }] }, {
      prepare: async (ctx, topic) => {
        await ctx.call(21, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 4 }] }], timeoutMs: 10_000 });
      },
    }),
    f('v12-offset-at-end', 12, 'fetch_offset == log end (F3): NONE, empty, after max_wait', { parts: [{ fetchOffset: 6 }] }),
    f('v12-offset-mid-batch', 12, 'fetch_offset inside a batch (F4): the whole batch from its base', { parts: [{ fetchOffset: 3 }] }),
    f('v12-partition-max-bytes-tiny', 12, 'first batch larger than partition_max_bytes (F5): returned whole', { parts: [{ partitionMaxBytes: 10 }] }),
    f('v12-max-bytes-tiny', 12, 'first batch larger than max_bytes (F5)', { maxBytes: 10 }),
    f('v12-second-partition-does-not-fit', 12, 'a later partition whose first batch does not fit (F6): empty', {
      maxBytes: 100,
      parts: [{ partition: 0 }, { partition: 1 }],
    }, { partitions: 2 }),
    f('v12-limit-inside-later-batch', 12, 'byte limit ending inside a later batch (F7): Kafka cuts a partial batch', { parts: [{ partitionMaxBytes: 300 }] }),
    f('v12-rack-id', 12, 'a consumer with client.rack (KIP-392) on one broker without replica.selector.class: read there, preferred_read_replica -1', { rackId: 'rack-a' }),
    f('v11-rack-id-mid-log', 11, 'the same at Fetch v11 (rack_id\'s first version) from the middle of the log', { rackId: 'rack-a', parts: [{ fetchOffset: 2 }] }),
    f('v12-unknown-topic', 12, 'unknown topic name (F9): UNKNOWN_TOPIC_OR_PARTITION', { topic: 'pf-missing' }),
    f('v12-unknown-partition', 12, 'partition out of range (F9)', { parts: [{ partition: 7 }] }),
    f('v12-unknown-partition-between', 12, 'a read partition, an unknown one (7), another read one: the unknown answered after the read ones', { parts: [{ partition: 0 }, { partition: 7 }, { partition: 1 }] }, { partitions: 2 }),
    f('v13-unknown-topic-id', 13, 'unknown topic id (F10): UNKNOWN_TOPIC_ID', { byId: 'unknown' }),
    f('v12-future-leader-epoch', 12, 'current_leader_epoch above the leader\'s (F11): UNKNOWN_LEADER_EPOCH', { parts: [{ currentLeaderEpoch: 5 }] }),
    f('v12-current-leader-epoch-0', 12, 'current_leader_epoch equal to the leader\'s', { parts: [{ currentLeaderEpoch: 0 }] }),
    f('v12-unknown-session', 12, 'incremental fetch with an unknown session id (F13): FETCH_SESSION_ID_NOT_FOUND', { sessionId: 123456, sessionEpoch: 1 }),
    f('v12-new-session', 12, 'session_id 0, epoch 0 (F15): Kafka creates a fetch session', { sessionEpoch: 0 }, {
      normalise: (j) => {
        // A created session's id is random; whether one was created is what is compared.
        const o = j as Record<string, unknown>;
        if (typeof o.sessionId === 'number' && o.sessionId !== 0) o.sessionId = '<session-id>';
        return j;
      },
    }),
    f('v12-negative-partition-max-bytes', 12, 'negative partition_max_bytes (F17)', { parts: [{ partitionMaxBytes: -1 }] }),
    f('v12-read-committed-plain', 12, 'read_committed on non-transactional data (R4): aborted_transactions []', { isolationLevel: 1 }),
    f('v12-read-uncommitted-txn', 12, 'read_uncommitted over transactional data (R5): up to HW, aborted_transactions null', {}, { records: 0, prepare: txnData }),
    f('v12-read-committed-txn', 12, 'read_committed over committed, aborted and open transactions (R1, R3)', { isolationLevel: 1 }, { records: 0, prepare: txnData }),
    f('v4-read-committed-txn', 4, 'read_committed at Fetch v4 (R3)', { isolationLevel: 1 }, { records: 0, prepare: txnData }),
    f('v12-read-committed-at-lso', 12, 'read_committed from the LSO (R2): empty', { isolationLevel: 1, parts: [{ fetchOffset: 6 }] }, { records: 0, prepare: txnData }),
  ];
}

interface LoPart {
  partitionIndex?: number;
  timestamp: number | bigint;
  currentLeaderEpoch?: number;
}

function lo(id: string, version: number, about: string, parts: LoPart[], extra: Partial<Probe> & { isolationLevel?: number; prepare?: (ctx: ProbeCtx, topic: string) => Promise<void>; topic?: string } = {}): Probe {
  const topic = `pl-${id}`;
  const { isolationLevel, prepare, topic: asTopic, ...rest } = extra;
  return {
    id: `list-offsets/${id}`,
    api: 2,
    version,
    about,
    setup: async (ctx) => {
      await createTopic(ctx, topic, 1);
      // Three batches: timestamps T0..T0+1, T0..T0+1, T0..T0+1 (offsets 0-5); the max timestamp is first at offset 1.
      for (let i = 0; i < 3; i++) await produce(ctx, topic, 0, batch({ prefix: `${topic}-${i}-`, count: 2 }));
      if (prepare) await prepare(ctx, topic);
    },
    body: { replicaId: -1, isolationLevel: isolationLevel ?? 0, topics: [{ name: asTopic ?? topic, partitions: parts.map((p) => ({ partitionIndex: 0, currentLeaderEpoch: -1, ...p })) }], timeoutMs: 10_000 },
    ...rest,
  };
}

function listOffsetsProbes(): Probe[] {
  return [
    lo('v1-latest', 1, 'latest (L1), oldest advertised version', [{ timestamp: -1 }]),
    lo('v1-earliest', 1, 'earliest (L2)', [{ timestamp: -2 }]),
    lo('v9-latest', 9, 'latest at the newest advertised version (L1)', [{ timestamp: -1 }]),
    lo('v9-earliest', 9, 'earliest (L2)', [{ timestamp: -2 }]),
    lo('v9-max-timestamp', 9, 'max timestamp -3 (L3)', [{ timestamp: -3 }]),
    lo('v9-earliest-local', 9, 'earliest local -4 (L4)', [{ timestamp: -4 }]),
    lo('v9-latest-tiered', 9, 'latest tiered -5 (L5): -1', [{ timestamp: -5 }]),
    lo('v6-max-timestamp', 6, '-3 on v6 (L6): UNSUPPORTED_VERSION', [{ timestamp: -3 }]),
    lo('v7-earliest-local', 7, '-4 on v7 (L6)', [{ timestamp: -4 }]),
    lo('v8-latest-tiered', 8, '-5 on v8 (L6)', [{ timestamp: -5 }]),
    lo('v9-timestamp-minus-7', 9, 'other negative timestamp (L7)', [{ timestamp: -7 }]),
    lo('v9-timestamp-future', 9, 'newer than every record (L8): -1', [{ timestamp: T0 + 3600_000n }]),
    lo('v9-timestamp-search', 9, 'a record at or after the timestamp (L9): first such record', [{ timestamp: T0 + 1n }]),
    lo('v2-timestamp-search', 2, 'timestamp search at v2 (librdkafka 2.0.2)', [{ timestamp: T0 }]),
    lo('v9-duplicate-partition', 9, 'same partition twice (L11): INVALID_REQUEST', [{ timestamp: -1 }, { timestamp: -2 }]),
    lo('v9-unknown-topic', 9, 'unknown topic (L12)', [{ timestamp: -1 }], { topic: 'pl-missing' }),
    lo('v9-unknown-partition', 9, 'unknown partition (L12)', [{ partitionIndex: 3, timestamp: -1 }]),
    lo('v9-future-leader-epoch', 9, 'current_leader_epoch ahead (L13): UNKNOWN_LEADER_EPOCH', [{ timestamp: -1, currentLeaderEpoch: 3 }]),
    lo('v9-read-committed-open-txn', 9, 'latest with read_committed and an open transaction (R7): the LSO', [{ timestamp: -1 }], {
      isolationLevel: 1,
      prepare: async (ctx, topic) => {
        await openTransaction(ctx, topic, topic, 2);
      },
    }),
    lo('v9-after-delete-records', 9, 'earliest after DeleteRecords inside a batch (DR5): that exact offset', [{ timestamp: -2 }], {
      prepare: async (ctx, topic) => {
        await ctx.call(21, 2, { topics: [{ name: topic, partitions: [{ partitionIndex: 0, offset: 3 }] }], timeoutMs: 10_000 });
      },
    }),
  ];
}

function offsetForLeaderEpochProbes(): Probe[] {
  const e = (id: string, version: number, about: string, parts: { partition?: number; leaderEpoch: number; currentLeaderEpoch?: number }[], asTopic?: string): Probe => {
    const topic = `pe-${id}`;
    return {
      id: `offset-for-leader-epoch/${id}`,
      api: 23,
      version,
      about,
      setup: (ctx) => topicWithRecords(ctx, topic, 2),
      body: { replicaId: -1, topics: [{ topic: asTopic ?? topic, partitions: parts.map((p) => ({ partition: 0, currentLeaderEpoch: -1, ...p })) }] },
    };
  };
  return [
    e('v2-min', 2, 'end offset of epoch 0 = log end', [{ leaderEpoch: 0 }]),
    e('v4-max', 4, 'end offset of epoch 0 at v4', [{ leaderEpoch: 0, currentLeaderEpoch: 0 }]),
    e('v4-future-epoch', 4, 'an epoch above every known one', [{ leaderEpoch: 7 }]),
    e('v4-stale-current-epoch', 4, 'current_leader_epoch ahead of the leader\'s', [{ leaderEpoch: 0, currentLeaderEpoch: 4 }]),
    e('v4-unknown-topic', 4, 'unknown topic', [{ leaderEpoch: 0 }], 'pe-missing'),
    e('v4-unknown-partition', 4, 'unknown partition', [{ partition: 9, leaderEpoch: 0 }]),
  ];
}

function deleteRecordsProbes(): Probe[] {
  const d = (id: string, version: number, about: string, offset: number, extra: { topic?: string; configs?: Record<string, string>; partition?: number } = {}): Probe => {
    const topic = `pd-${id}`;
    return {
      id: `delete-records/${id}`,
      api: 21,
      version,
      about,
      setup: async (ctx) => {
        await createTopic(ctx, topic, 1, extra.configs ?? {});
        for (let i = 0; i < 2; i++) await produce(ctx, topic, 0, batch({ prefix: `${topic}-${i}-`, count: 2 }));
        // The internal topic must exist on both (Kafka's handler answers a missing partition first,
        // DR8): Kafka creates it at the first FindCoordinator, Samsa at the first offset commit.
        if (extra.topic === '__consumer_offsets') {
          await coordinatorsReady(ctx);
          await ctx.call(8, 8, { groupId: 'pd-internal-commit', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n, topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' }] }] });
        }
      },
      body: { topics: [{ name: extra.topic ?? topic, partitions: [{ partitionIndex: extra.partition ?? 0, offset }] }], timeoutMs: 10_000 },
    };
  };
  return [
    d('v0-min', 0, 'delete below offset 2', 2),
    d('v2-max', 2, 'delete below offset 2 at v2', 2),
    d('v2-beyond-hw', 2, 'offset > high watermark (DR1): OFFSET_OUT_OF_RANGE', 10),
    d('v2-minus-1', 2, 'offset -1 (DR2): up to the high watermark', -1),
    d('v2-minus-2', 2, 'offset < -1 (DR3): OFFSET_OUT_OF_RANGE', -2),
    d('v2-zero', 2, 'offset <= log start (DR4): nothing changes', 0),
    d('v2-inside-batch', 2, 'offset inside a batch (DR5)', 1),
    d('v2-compacted', 2, 'compacted topic (DR6): POLICY_VIOLATION', 1, { configs: { 'cleanup.policy': 'compact' } }),
    d('v2-internal', 2, 'internal topic (DR7): INVALID_TOPIC_EXCEPTION', 0, { topic: '__consumer_offsets' }),
    d('v2-unknown-topic', 2, 'unknown topic (DR8)', 0, { topic: 'pd-missing' }),
    d('v2-unknown-partition', 2, 'unknown partition (DR8)', 0, { partition: 4 }),
  ];
}

function describeProducersProbes(): Probe[] {
  const topic = 'pdp-producers';
  const setup = (ctx: ProbeCtx) =>
    ctx.once('describe-producers', async () => {
      await createTopic(ctx, topic, 2);
      const idem = await initProducer(ctx, `${topic}-idem`, null);
      await produce(ctx, topic, 0, batch({ producerId: idem.producerId, producerEpoch: idem.producerEpoch, baseSequence: 0, count: 3 }));
      await openTransaction(ctx, `${topic}-txn`, topic, 2);
    });
  return [
    {
      id: 'describe-producers/v0',
      api: 61,
      version: 0,
      about: 'an idempotent and a transactional producer on partition 0, none on partition 1',
      setup,
      body: { topics: [{ name: topic, partitionIndexes: [0, 1] }] },
      normalise: (j) => {
        // Kafka lists active producers from a hash map.
        for (const t of (j as any).topics) for (const p of t.partitions) p.activeProducers.sort((a: any, b: any) => String(a.producerId).localeCompare(String(b.producerId)));
        return j;
      },
    },
    {
      id: 'describe-producers/v0-unknown',
      api: 61,
      version: 0,
      about: 'unknown topic and partition',
      setup,
      body: { topics: [{ name: 'pdp-missing', partitionIndexes: [0] }, { name: topic, partitionIndexes: [5] }] },
    },
  ];
}

export function dataProbes(): Probe[] {
  return [...fetchProbes(), ...sessionProbes(), ...listOffsetsProbes(), ...offsetForLeaderEpochProbes(), ...deleteRecordsProbes(), ...describeProducersProbes()];
}
