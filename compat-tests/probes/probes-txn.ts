/**
 * Probes: transactions. InitProducerId (IP1-IP9), AddPartitionsToTxn / AddOffsetsToTxn
 * (AP1-AP7, AO1), EndTxn (E1-E7), TxnOffsetCommit (TO1-TO7), DescribeTransactions and
 * ListTransactions. Each probe uses a transactional id of its own (`ptx-<api>-<id>`).
 */
import { coordinatorsReady, createTopic, endTransaction, initProducer, joinAlone, openTransaction, topicId, waitStable } from './fixtures.js';
import { filterAt, sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

type Pr = { producerId: bigint; producerEpoch: number };
type Body = Record<string, unknown> | ((ctx: ProbeCtx, p: Pr) => Record<string, unknown>);

/** A topic with two partitions, named like the probe's transactional id: no probe waits on another's transaction. */
const topicReady = (ctx: ProbeCtx, topic: string) => ctx.once(`txn-topic:${topic}`, () => createTopic(ctx, topic, 2));

/**
 * State the set-up leaves the probe's transactional id in:
 * none (never initialised), ready (InitProducerId done), ongoing (partition 0 added and written),
 * offsets (AddOffsetsToTxn for group `<id>-group` done), committed / aborted (a finished transaction).
 */
type TxnState = 'none' | 'ready' | 'ongoing' | 'offsets' | 'committed' | 'aborted';

function t(api: number, prefix: string, id: string, version: number, about: string, state: TxnState, body: Body, extra: Partial<Probe> = {}): Probe {
  const txn = `ptx-${prefix}-${id}`;
  const TTOPIC = txn;
  return {
    id: `${prefix}/${id}`,
    api,
    version,
    about,
    setup: async (ctx) => {
      await coordinatorsReady(ctx);
      await topicReady(ctx, TTOPIC);
      let p: Pr = { producerId: -1n, producerEpoch: -1 };
      if (state === 'ready' || state === 'offsets') p = await initProducer(ctx, txn, txn);
      if (state === 'offsets') {
        const r = await ctx.call(25, 3, { transactionalId: txn, producerId: p.producerId, producerEpoch: p.producerEpoch, groupId: `${txn}-group` });
        if (r.errorCode !== 0) throw new Error(`AddOffsetsToTxn: ${r.errorCode}`);
      }
      if (state === 'ongoing' || state === 'committed' || state === 'aborted') p = await openTransaction(ctx, txn, TTOPIC);
      if (state === 'committed' || state === 'aborted') await endTransaction(ctx, txn, p, state === 'committed', TTOPIC);
      ctx.state[txn] = p;
    },
    body: typeof body === 'function' ? (ctx) => body(ctx, ctx.state[txn]) : body,
    ...extra,
  };
}

const T = (prefix: string, id: string) => `ptx-${prefix}-${id}`;
/** The topic of a probe (see t()). */
const TT = T;
const settle = (topic: string): Partial<Probe> => ({
  // EndTxn writes markers after it answers: wait until none is pending, so later probes agree.
  after: (ctx) => waitStable(ctx, topic),
});

function initProducerIdProbes(): Probe[] {
  const ip = (id: string, version: number, about: string, state: TxnState, body: Body, extra: Partial<Probe> = {}) => t(22, 'init-producer-id', id, version, about, state, body, extra);
  return [
    ip('v0-min-idempotent', 0, 'transactional_id null (IP1): a producer id, epoch 0', 'none', { transactionalId: null, transactionTimeoutMs: 1000 }),
    ip('v5-max-idempotent', 5, 'idempotent at v5 (IP1)', 'none', { transactionalId: null, transactionTimeoutMs: -1 }),
    ip('v4-empty-id', 4, 'transactional_id "" (IP2): INVALID_REQUEST', 'none', { transactionalId: '', transactionTimeoutMs: 60_000 }),
    ip('v4-timeout-zero', 4, 'transaction timeout 0 (IP3): INVALID_TRANSACTION_TIMEOUT', 'none', { transactionalId: T('init-producer-id', 'v4-timeout-zero'), transactionTimeoutMs: 0 }),
    ip('v4-timeout-huge', 4, 'transaction timeout above transaction.max.timeout.ms (IP3)', 'none', { transactionalId: T('init-producer-id', 'v4-timeout-huge'), transactionTimeoutMs: 1_000_000 }),
    ip('v1-new-id', 1, 'new transactional id (IP4): epoch 0', 'none', { transactionalId: T('init-producer-id', 'v1-new-id'), transactionTimeoutMs: 60_000 }),
    ip('v4-again', 4, 'known id, nothing open (IP5): same producer id, epoch + 1', 'ready', { transactionalId: T('init-producer-id', 'v4-again'), transactionTimeoutMs: 60_000 }),
    ip('v4-ongoing', 4, 'known id with an Ongoing transaction (IP6): CONCURRENT_TRANSACTIONS, the open one aborted', 'ongoing', { transactionalId: T('init-producer-id', 'v4-ongoing'), transactionTimeoutMs: 60_000 }, settle(TT('init-producer-id', 'v4-ongoing'))),
    ip('v4-current-pid-epoch', 4, 'v3+ with the current producer id and epoch (KIP-360 bump)', 'ready', (_c, p) => ({ transactionalId: T('init-producer-id', 'v4-current-pid-epoch'), transactionTimeoutMs: 60_000, producerId: p.producerId, producerEpoch: p.producerEpoch })),
    ip('v4-wrong-pid-epoch', 4, 'v3+ with a producer id/epoch matching nothing (IP8): PRODUCER_FENCED', 'ready', (_c, p) => ({ transactionalId: T('init-producer-id', 'v4-wrong-pid-epoch'), transactionTimeoutMs: 60_000, producerId: p.producerId, producerEpoch: p.producerEpoch + 3 })),
    ip('v3-wrong-pid-epoch', 3, 'the same at v3 (IP8: INVALID_PRODUCER_EPOCH before v4)', 'ready', (_c, p) => ({ transactionalId: T('init-producer-id', 'v3-wrong-pid-epoch'), transactionTimeoutMs: 60_000, producerId: p.producerId, producerEpoch: p.producerEpoch + 3 })),
    ip('v4-only-pid-set', 4, 'only one of producer id / epoch set (IP8): INVALID_REQUEST', 'ready', (_c, p) => ({ transactionalId: T('init-producer-id', 'v4-only-pid-set'), transactionTimeoutMs: 60_000, producerId: p.producerId, producerEpoch: -1 })),
    ip('v4-idempotent-with-pid', 4, 'idempotent producer bumping its own epoch (KIP-360)', 'none', { transactionalId: null, transactionTimeoutMs: -1, producerId: 1234, producerEpoch: 0 }),
  ];
}

function addToTxnProbes(): Probe[] {
  // Kafka answers AddPartitionsToTxn from maps: compare topics and partitions sorted.
  const sorted = (j: Json): Json => sortAt(sortAt(j, 'resultsByTopicV3AndBelow', 'name'), 'resultsByTopicV3AndBelow.[].resultsByPartition', (x) => String((x as any).partitionIndex).padStart(5, '0'));
  const ap = (id: string, version: number, about: string, state: TxnState, body: Body, extra: Partial<Probe> = {}) => t(24, 'add-partitions-to-txn', id, version, about, state, body, { normalise: sorted, ...extra });
  const ao = (id: string, version: number, about: string, state: TxnState, body: Body) => t(25, 'add-offsets-to-txn', id, version, about, state, body);
  const v3 = (txn: string, p: Pr, topics: { name: string; partitions: number[] }[], epoch = p.producerEpoch) => ({ v3AndBelowTransactionalId: txn, v3AndBelowProducerId: p.producerId, v3AndBelowProducerEpoch: epoch, v3AndBelowTopics: topics });
  const tp = (id: string) => [{ name: TT('add-partitions-to-txn', id), partitions: [0, 1] }];
  // v4-5: the broker form (partition leaders asking the coordinator), one transaction per entry.
  const sortedV4 = (j: Json): Json => sortAt(sortAt(j, 'resultsByTransaction.[].topicResults', 'name'), 'resultsByTransaction.[].topicResults.[].resultsByPartition', (x) => String((x as any).partitionIndex).padStart(5, '0'));
  const v4 = (txn: string, p: Pr, verifyOnly: boolean, topics: { name: string; partitions: number[] }[], epoch = p.producerEpoch) => ({ transactions: [{ transactionalId: txn, producerId: p.producerId, producerEpoch: epoch, verifyOnly, topics }] });
  const bp = (id: string, version: number, about: string, state: TxnState, verifyOnly: boolean, topics?: { name: string; partitions: number[] }[], epochDelta = 0) =>
    ap(id, version, about, state, (_c, p) => v4(T('add-partitions-to-txn', id), p, verifyOnly, topics ?? tp(id), p.producerEpoch + epochDelta), { normalise: sortedV4 });
  return [
    bp('v5-max-verify', 5, 'broker form, VerifyOnly: partition 0 in the Ongoing transaction, 1 not (TRANSACTION_ABORTABLE)', 'ongoing', true),
    bp('v4-min-verify', 4, 'the same at v4', 'ongoing', true),
    bp('v5-add', 5, 'broker form without VerifyOnly: the implicit add of transactions V2', 'ready', false),
    bp('v5-verify-stale-epoch', 5, 'VerifyOnly with another epoch: PRODUCER_FENCED', 'ongoing', true, undefined, 1),
    bp('v5-verify-unknown-partition', 5, 'VerifyOnly with an unknown partition: it UNKNOWN_TOPIC_OR_PARTITION, the others OPERATION_NOT_ATTEMPTED', 'ongoing', true, [{ name: TT('add-partitions-to-txn', 'v5-verify-unknown-partition'), partitions: [0, 9] }]),
    ap('v0-min', 0, 'add two partitions to a Ready producer (AP6)', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v0-min'), p, tp('v0-min'))),
    ap('v3-max', 3, 'the same at v3 (AP6)', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v3-max'), p, tp('v3-max'))),
    ap('v3-unknown-id', 3, 'transactional id unknown (AP1): INVALID_PRODUCER_ID_MAPPING', 'none', v3(T('add-partitions-to-txn', 'v3-unknown-id'), { producerId: 4242n, producerEpoch: 0 }, tp('v3-unknown-id'))),
    ap('v3-pid-mismatch', 3, 'producer id mismatch (AP1)', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v3-pid-mismatch'), { producerId: p.producerId + 1n, producerEpoch: p.producerEpoch }, tp('v3-pid-mismatch'))),
    ap('v3-epoch-lower', 3, 'producer epoch lower (AP2): PRODUCER_FENCED', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v3-epoch-lower'), p, tp('v3-epoch-lower'), p.producerEpoch - 1)),
    ap('v1-epoch-higher', 1, 'producer epoch higher at v1 (AP2): INVALID_PRODUCER_EPOCH', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v1-epoch-higher'), p, tp('v1-epoch-higher'), p.producerEpoch + 1)),
    ap('v3-unknown-partition', 3, 'one partition unknown (AP4): it 3, the others OPERATION_NOT_ATTEMPTED', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v3-unknown-partition'), p, [{ name: TT('add-partitions-to-txn', 'v3-unknown-partition'), partitions: [0, 7] }, { name: 'ptx-missing', partitions: [0] }])),
    ap('v3-already-added', 3, 'partition already in the Ongoing transaction (AP5): NONE', 'ongoing', (_c, p) => v3(T('add-partitions-to-txn', 'v3-already-added'), p, [{ name: TT('add-partitions-to-txn', 'v3-already-added'), partitions: [0] }])),
    ap('v3-empty-id', 3, 'transactional id "" (AP7): INVALID_REQUEST', 'none', v3('', { producerId: 1n, producerEpoch: 0 }, tp('v3-empty-id'))),
    ap('v3-after-commit', 3, 'state CompleteCommit (AP6): a new transaction starts', 'committed', (_c, p) => v3(T('add-partitions-to-txn', 'v3-after-commit'), p, tp('v3-after-commit'))),
    ap('v3-internal-topic', 3, 'add __consumer_offsets as a partition', 'ready', (_c, p) => v3(T('add-partitions-to-txn', 'v3-internal-topic'), p, [{ name: '__consumer_offsets', partitions: [0] }])),
    ao('v0-min', 0, 'add a group\'s offsets partition (AO1)', 'ready', (_c, p) => ({ transactionalId: T('add-offsets-to-txn', 'v0-min'), producerId: p.producerId, producerEpoch: p.producerEpoch, groupId: 'ptx-ao-group' })),
    ao('v4-max', 4, 'the same at v4 (AO1)', 'ready', (_c, p) => ({ transactionalId: T('add-offsets-to-txn', 'v4-max'), producerId: p.producerId, producerEpoch: p.producerEpoch, groupId: 'ptx-ao-group' })),
    ao('v3-unknown-id', 3, 'unknown transactional id (AO1/AP1)', 'none', { transactionalId: T('add-offsets-to-txn', 'v3-unknown-id'), producerId: 4242, producerEpoch: 0, groupId: 'g' }),
    ao('v3-epoch-lower', 3, 'stale epoch (AO1/AP2)', 'ready', (_c, p) => ({ transactionalId: T('add-offsets-to-txn', 'v3-epoch-lower'), producerId: p.producerId, producerEpoch: p.producerEpoch - 1, groupId: 'g' })),
    ao('v3-empty-id', 3, 'transactional id "" (AO1/AP7)', 'none', { transactionalId: '', producerId: 1, producerEpoch: 0, groupId: 'g' }),
  ];
}

function endTxnProbes(): Probe[] {
  const et = (id: string, version: number, about: string, state: TxnState, body: Body, extra: Partial<Probe> = settle(TT('end-txn', id))) => t(26, 'end-txn', id, version, about, state, body, extra);
  const body = (id: string, commit: boolean, epochDelta = 0, pidDelta = 0n) => (_c: ProbeCtx, p: Pr) => ({ transactionalId: T('end-txn', id), producerId: p.producerId + pidDelta, producerEpoch: p.producerEpoch + epochDelta, committed: commit });
  return [
    et('v0-min-commit', 0, 'commit an Ongoing transaction (E2)', 'ongoing', body('v0-min-commit', true)),
    et('v4-max-abort', 4, 'abort an Ongoing transaction at v4 (E2)', 'ongoing', body('v4-max-abort', false)),
    et('v3-empty', 3, 'EndTxn with nothing added (E1): INVALID_TXN_STATE', 'ready', body('v3-empty', true)),
    et('v3-commit-retry', 3, 'commit after CompleteCommit (E3): NONE', 'committed', body('v3-commit-retry', true)),
    et('v3-abort-after-commit', 3, 'abort after CompleteCommit (E4): INVALID_TXN_STATE', 'committed', body('v3-abort-after-commit', false)),
    et('v3-commit-after-abort', 3, 'commit after CompleteAbort (E4)', 'aborted', body('v3-commit-after-abort', true)),
    et('v3-wrong-epoch', 3, 'wrong epoch (E6): PRODUCER_FENCED', 'ongoing', body('v3-wrong-epoch', true, -1), {}),
    et('v1-wrong-epoch', 1, 'wrong epoch at v1 (E6): INVALID_PRODUCER_EPOCH', 'ongoing', body('v1-wrong-epoch', true, 1), {}),
    et('v3-wrong-pid', 3, 'wrong producer id (E6): INVALID_PRODUCER_ID_MAPPING', 'ongoing', body('v3-wrong-pid', true, 0, 7n), {}),
    et('v3-unknown-id', 3, 'unknown transactional id (E6)', 'none', { transactionalId: T('end-txn', 'v3-unknown-id'), producerId: 4242, producerEpoch: 0, committed: true }, {}),
    et('v3-empty-id', 3, 'transactional id "" (E7): INVALID_REQUEST', 'none', { transactionalId: '', producerId: 1, producerEpoch: 0, committed: true }, {}),
    et('v3-offsets-only', 3, 'commit a transaction holding only offsets', 'offsets', body('v3-offsets-only', true), {}),
    et('v5-max-commit', 5, 'commit at v5 (transactions V2, the request version decides): the producer id and the bumped epoch', 'ongoing', body('v5-max-commit', true)),
    et('v5-abort-empty', 5, 'abort at v5 with nothing added: accepted, the epoch bumped', 'ready', body('v5-abort-empty', false)),
    et('v5-commit-empty', 5, 'commit at v5 with nothing added: INVALID_TXN_STATE', 'ready', body('v5-commit-empty', true), {}),
    et('v5-stale-epoch', 5, 'v5 with an epoch below the current: PRODUCER_FENCED', 'ongoing', body('v5-stale-epoch', true, -1), {}),
  ];
}

function txnOffsetCommitProbes(): Probe[] {
  const to = (id: string, version: number, about: string, state: TxnState, body: Body, extra: Partial<Probe> = {}) => t(28, 'txn-offset-commit', id, version, about, state, body, extra);
  const body = (id: string, o: Record<string, unknown> = {}, topics?: unknown) => (_c: ProbeCtx, p: Pr) => ({
    transactionalId: T('txn-offset-commit', id),
    groupId: `${T('txn-offset-commit', id)}-group`,
    producerId: p.producerId,
    producerEpoch: p.producerEpoch,
    topics: topics ?? [{ name: TT('txn-offset-commit', id), partitions: [{ partitionIndex: 0, committedOffset: 3, committedMetadata: 'tm' }] }],
    ...o,
  });
  // v6 names topics by id: the probe topic's id on each target, looked up after the state is set up.
  const byId = (id: string, about: string, state: TxnState, topics: (topicId: string) => unknown): Probe => {
    const p = to(id, 6, about, state, (c, pr) => body(id, {}, topics(c.state[`tid-${id}`] as string))(c, pr));
    const base = p.setup!;
    return { ...p, setup: async (ctx) => { await base(ctx); ctx.state[`tid-${id}`] = await topicId(ctx, TT('txn-offset-commit', id)); } };
  };
  return [
    to('v0-min', 0, 'after AddOffsetsToTxn: accepted', 'offsets', body('v0-min')),
    to('v4-max', 4, 'after AddOffsetsToTxn at v4', 'offsets', body('v4-max')),
    to('v3-before-add-offsets', 3, 'before AddOffsetsToTxn (TO1): INVALID_TXN_STATE', 'ready', body('v3-before-add-offsets')),
    to('v4-before-add-offsets', 4, 'the same at v4 (TO1): TRANSACTION_ABORTABLE', 'ready', body('v4-before-add-offsets')),
    to('v5-implicit-add', 5, 'v5 (transactions V2) with no AddOffsetsToTxn: the offsets partition is added, NONE', 'ready', body('v5-implicit-add')),
    byId('v6-max-by-topic-id', 'v6 (KIP-1319): the topic by id, implicit add as v5: NONE', 'ready', (tid) => [{ topicId: tid, partitions: [{ partitionIndex: 0, committedOffset: 3, committedMetadata: 'tm' }] }]),
    byId('v6-unknown-topic-id', 'v6: an unknown topic id is UNKNOWN_TOPIC_ID, a known one beside it is committed', 'offsets', (tid) => [
      { topicId: 'AAAAAAAAAAAAAAAAAAAAAQ', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] },
      { topicId: tid, partitions: [{ partitionIndex: 0, committedOffset: 2, committedMetadata: null }] },
    ]),
    to('v3-unknown-topic', 3, 'unknown topic and partition (TO2)', 'offsets', body('v3-unknown-topic', {}, [{ name: 'ptx-missing', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] }, { name: TT('txn-offset-commit', 'v3-unknown-topic'), partitions: [{ partitionIndex: 5, committedOffset: 1, committedMetadata: null }] }])),
    to('v3-generation-no-group', 3, 'generation >= 0 and no such group (TO3): ILLEGAL_GENERATION', 'offsets', body('v3-generation-no-group', { generationIdOrMemberEpoch: 2, memberId: 'm' })),
    to('v3-wrong-epoch', 3, 'wrong producer epoch (TO6): INVALID_PRODUCER_EPOCH', 'offsets', (c, p) => body('v3-wrong-epoch')(c, { ...p, producerEpoch: p.producerEpoch - 1 })),
    to('v3-metadata-too-large', 3, 'metadata over 4096 bytes (TO7)', 'offsets', body('v3-metadata-too-large', {}, [{ name: TT('txn-offset-commit', 'v3-metadata-too-large'), partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: 'y'.repeat(5000) }] }])),
    ...[7, 8].map((v) => {
      const id = `v${v}-require-stable-pending`;
      const txn = T('txn-offset-commit', id);
      const probe = t(9, 'offset-fetch', `require-stable-pending-txn-v${v}`, v, 'require_stable while a transactional commit is pending (OF4): UNSTABLE_OFFSET_COMMIT', 'none', {});
      return {
        ...probe,
        setup: async (ctx: ProbeCtx) => {
          await coordinatorsReady(ctx);
          await topicReady(ctx, txn);
          const p = await initProducer(ctx, txn, txn);
          const group = `${txn}-group`;
          const ao = await ctx.call(25, 3, { transactionalId: txn, producerId: p.producerId, producerEpoch: p.producerEpoch, groupId: group });
          if (ao.errorCode !== 0) throw new Error(`AddOffsetsToTxn: ${ao.errorCode}`);
          const r = await ctx.call(28, 3, { transactionalId: txn, groupId: group, producerId: p.producerId, producerEpoch: p.producerEpoch, topics: [{ name: txn, partitions: [{ partitionIndex: 0, committedOffset: 3, committedMetadata: 'tm' }] }] });
          if (r.topics[0].partitions[0].errorCode !== 0) throw new Error(`TxnOffsetCommit: ${r.topics[0].partitions[0].errorCode}`);
        },
        body: v >= 8
          ? { groups: [{ groupId: `${txn}-group`, topics: [{ name: txn, partitionIndexes: [0, 1] }] }], requireStable: true }
          : { groupId: `${txn}-group`, topics: [{ name: txn, partitionIndexes: [0, 1] }], requireStable: true },
      } satisfies Probe;
    }),
    to('v3-member-of-real-group', 3, 'member and generation of a real group, unknown member (TO5)', 'offsets', body('v3-member-of-real-group', { groupId: 'ptx-real-group', generationIdOrMemberEpoch: 1, memberId: 'ghost' }), {
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        const txn = T('txn-offset-commit', 'v3-member-of-real-group');
        await topicReady(ctx, txn);
        const p = await initProducer(ctx, txn, txn);
        await ctx.once('ptx-real-group', () => joinAlone(ctx, 'ptx-real-group', { topics: [txn] }));
        const r = await ctx.call(25, 3, { transactionalId: txn, producerId: p.producerId, producerEpoch: p.producerEpoch, groupId: 'ptx-real-group' });
        if (r.errorCode !== 0) throw new Error(`AddOffsetsToTxn: ${r.errorCode}`);
        ctx.state[txn] = p;
      },
    }),
  ];
}

/** Describe/ListTransactions answer every transaction of the broker: keep this probe's. */
const onlyTxns = (prefix: string) => (j: Json): Json => sortAt(filterAt(j, 'transactionStates', (x) => String((x as any).transactionalId).startsWith(prefix)), 'transactionStates', 'transactionalId');

function describeListProbes(): Probe[] {
  const dt = (id: string, about: string, state: TxnState, ids: (txn: string) => string[]) =>
    t(65, 'describe-transactions', id, 0, about, state, { transactionalIds: ids(T('describe-transactions', id)) }, {
      normalise: (j) => sortAt(sortAt(j, 'transactionStates.[].topics', 'topic'), 'transactionStates.[].topics.[].partitions', (x) => String(x)),
    });
  const lt = (id: string, version: number, about: string, body: Record<string, unknown>) =>
    t(66, 'list-transactions', id, version, about, 'none', body, {
      setup: async (ctx) => {
        await coordinatorsReady(ctx);
        await ctx.once('list-transactions', async () => {
          await topicReady(ctx, 'ptxl-topic');
          await initProducer(ctx, 'ptxl-ready', 'ptxl-ready');
          await openTransaction(ctx, 'ptxl-ongoing', 'ptxl-topic');
        });
      },
      normalise: onlyTxns('ptxl-'),
    });
  return [
    dt('v0-ongoing', 'an Ongoing transaction: state, timeout, partitions', 'ongoing', (x) => [x]),
    dt('v0-ready', 'an initialised transactional id: Empty', 'ready', (x) => [x]),
    dt('v0-committed', 'after a commit: CompleteCommit', 'committed', (x) => [x]),
    dt('v0-unknown', 'unknown id: TRANSACTIONAL_ID_NOT_FOUND', 'none', (x) => [x]),
    dt('v0-empty-id', 'id ""', 'none', () => ['']),
    lt('v0-min', 0, 'every transaction', {}),
    lt('v1-max', 1, 'every transaction at v1 (duration filter -1)', { durationFilter: -1 }),
    lt('v0-state-filter', 0, 'state filter Ongoing', { stateFilters: ['Ongoing'] }),
    lt('v0-unknown-state', 0, 'unknown state name: listed in unknown_state_filters', { stateFilters: ['Sleeping'] }),
    lt('v0-producer-filter', 0, 'producer id filter matching nothing', { producerIdFilters: [987654321] }),
    lt('v1-duration-filter', 1, 'transactions open longer than one hour: none', { durationFilter: 3600_000 }),
  ];
}

/** WriteTxnMarkers (27): the inter-broker marker request, as a coordinator on another broker sends it. */
function writeTxnMarkersProbes(): Probe[] {
  const wm = (id: string, about: string, state: TxnState, body: Body, extra: Partial<Probe> = {}) => t(27, 'write-txn-markers', id, 1, about, state, body, extra);
  const marker = (p: Pr, topic: string, commit: boolean, epoch = p.producerEpoch) => ({
    markers: [{ producerId: p.producerId, producerEpoch: epoch, transactionResult: commit, coordinatorEpoch: 0, topics: [{ name: topic, partitionIndexes: [0] }] }],
  });
  return [
    { ...wm('v2-max-abort-bumped', 'v2: ABORT marker of a V2 transaction (transaction version 2, epoch bumped) for the open transaction: NONE', 'ongoing', (_c, p) => ({ markers: marker(p, TT('write-txn-markers', 'v2-max-abort-bumped'), false, p.producerEpoch + 1).markers.map((m) => ({ ...m, transactionVersion: 2 })) })), version: 2 },
    wm('v1-unknown-topic', 'marker for a topic that does not exist: UNKNOWN_TOPIC_OR_PARTITION', 'none', marker({ producerId: 4242n, producerEpoch: 0 }, 'ptx-missing', true)),
    wm('v1-abort-ongoing', 'ABORT marker for the producer\'s open transaction on partition 0: NONE, the partition is stable again', 'ongoing', (_c, p) => marker(p, TT('write-txn-markers', 'v1-abort-ongoing'), false)),
    wm('v1-newer-epoch', 'COMMIT marker with an epoch above the producer\'s open transaction', 'ongoing', (_c, p) => marker(p, TT('write-txn-markers', 'v1-newer-epoch'), true, p.producerEpoch + 1)),
  ];
}

export function txnProbes(): Probe[] {
  return [...initProducerIdProbes(), ...addToTxnProbes(), ...endTxnProbes(), ...txnOffsetCommitProbes(), ...describeListProbes(), ...writeTxnMarkersProbes()];
}
