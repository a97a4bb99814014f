/**
 * Probes: the share coordinator's inter-broker APIs (KIP-932) as a client connection sends them
 * (no authorizer, so CLUSTER_ACTION is granted): InitializeShareGroupState v0,
 * ReadShareGroupState v0, WriteShareGroupState v0-1, DeleteShareGroupState v0,
 * ReadShareGroupStateSummary v0-1, and FindCoordinator v6 key type 2 with a valid key. Each probe
 * uses a group of its own (`pss-<id>`); the set-up first has `__share_group_state` served (Kafka
 * creates it on the first share FindCoordinator and answers NOT_COORDINATOR until its shards load).
 */
import { createTopic } from './fixtures.js';
import type { Probe, ProbeCtx } from './runner.js';

const TOPIC = 'pss-topic';

function shareReady(ctx: ProbeCtx): Promise<void> {
  return ctx.once('share-state', async () => {
    await createTopic(ctx, TOPIC, 2);
    const md = await ctx.call(3, 12, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
    ctx.state.shareTopicId = md.topics[0].topicId;
    await ctx.waitFor('share coordinator found', async () => {
      const r = await ctx.call(10, 6, { keyType: 2, coordinatorKeys: [`pss-ready:${ctx.state.shareTopicId}:0`, `pss-ready:${ctx.state.shareTopicId}:1`] });
      return r.coordinators.every((c: any) => c.errorCode === 0);
    }, 60_000);
    // Every state partition loaded: summaries of keys spread over them answer without coordinator errors.
    await ctx.waitFor('share coordinator loaded', async () => {
      const r = await ctx.call(87, 1, { groupId: 'pss-ready', topics: [{ topicId: ctx.state.shareTopicId, partitions: [{ partition: 0, leaderEpoch: 0 }, { partition: 1, leaderEpoch: 0 }] }] });
      return r.results.every((t: any) => t.partitions.every((p: any) => p.errorCode === 0));
    }, 60_000);
  });
}

type Step = (ctx: ProbeCtx, group: string) => Promise<void>;

const init = (stateEpoch = 0, startOffset = 10): Step => async (ctx, group) => {
  const r = await ctx.call(83, 0, { groupId: group, topics: [{ topicId: ctx.state.shareTopicId, partitions: [{ partition: 0, stateEpoch, startOffset: BigInt(startOffset) }] }] });
  if (r.results[0].partitions[0].errorCode !== 0) throw new Error(`InitializeShareGroupState ${group}: error ${r.results[0].partitions[0].errorCode}`);
};
const write = (leaderEpoch = 0, batches: [number, number, number, number][] = [[10, 14, 2, 1]], startOffset = 10): Step => async (ctx, group) => {
  const r = await ctx.call(85, 1, {
    groupId: group,
    topics: [{ topicId: ctx.state.shareTopicId, partitions: [{ partition: 0, stateEpoch: 0, leaderEpoch, startOffset: BigInt(startOffset), deliveryCompleteCount: 5, stateBatches: batches.map(([f, l, s, c]) => ({ firstOffset: BigInt(f), lastOffset: BigInt(l), deliveryState: s, deliveryCount: c })) }] }],
  });
  if (r.results[0].partitions[0].errorCode !== 0) throw new Error(`WriteShareGroupState ${group}: error ${r.results[0].partitions[0].errorCode}`);
};
const read = (leaderEpoch: number): Step => async (ctx, group) => {
  await ctx.call(84, 0, { groupId: group, topics: [{ topicId: ctx.state.shareTopicId, partitions: [{ partition: 0, leaderEpoch }] }] });
};

export function shareStateProbes(): Probe[] {
  const p = (api: number, name: string, id: string, version: number, about: string, steps: Step[], body: (ctx: ProbeCtx, group: string) => Record<string, unknown>): Probe => {
    const group = `pss-${name}-${id}`;
    return {
      id: `${name}/${id}`, api, version, about,
      setup: async (ctx) => {
        await shareReady(ctx);
        for (const s of steps) await s(ctx, group);
      },
      body: (ctx) => body(ctx, group),
    };
  };
  const parts = (ctx: ProbeCtx, partitions: Record<string, unknown>[]) => [{ topicId: ctx.state.shareTopicId, partitions }];
  const W = (leaderEpoch: number, stateEpoch = 0) => (ctx: ProbeCtx, g: string) => ({
    groupId: g, topics: parts(ctx, [{ partition: 0, stateEpoch, leaderEpoch, startOffset: 12n, deliveryCompleteCount: 7, stateBatches: [{ firstOffset: 15n, lastOffset: 15n, deliveryState: 4, deliveryCount: 5 }] }]),
  });
  return [
    p(83, 'initialize-share-group-state', 'v0', 0, 'a new share-partition at state epoch 1, start offset 10', [], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, stateEpoch: 1, startOffset: 10n }]) })),
    p(83, 'initialize-share-group-state', 'v0-fenced', 0, 'an older state epoch than the initialised one: FENCED_STATE_EPOCH', [init(3)], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, stateEpoch: 2, startOffset: 0n }]) })),
    p(83, 'initialize-share-group-state', 'v0-unknown-partition', 0, 'a partition the topic does not have: UNKNOWN_TOPIC_OR_PARTITION', [], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 7, stateEpoch: 0, startOffset: 0n }]) })),
    p(84, 'read-share-group-state', 'v0', 0, 'after initialise and a write: start offset, state epoch, batches', [init(), write()], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, leaderEpoch: 2 }]) })),
    p(84, 'read-share-group-state', 'v0-uninitialised', 0, 'a share-partition never initialised: INVALID_REQUEST', [], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, leaderEpoch: 0 }]) })),
    p(84, 'read-share-group-state', 'v0-fenced', 0, 'a read below the leader epoch an earlier read recorded: FENCED_LEADER_EPOCH', [init(), read(5)], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, leaderEpoch: 4 }]) })),
    p(85, 'write-share-group-state', 'v0', 0, 'a write after initialise', [init()], W(0)),
    p(85, 'write-share-group-state', 'v1', 1, 'a write with delivery_complete_count after initialise and a write', [init(), write()], W(0)),
    p(85, 'write-share-group-state', 'v1-uninitialised', 1, 'a write to a share-partition never initialised: INVALID_REQUEST', [], W(0)),
    p(85, 'write-share-group-state', 'v1-fenced-leader', 1, 'a write below the leader epoch a read recorded: FENCED_LEADER_EPOCH', [init(), read(5)], W(3)),
    p(85, 'write-share-group-state', 'v1-fenced-state', 1, 'a write below the initialised state epoch: FENCED_STATE_EPOCH', [init(2)], W(0, 1)),
    p(85, 'write-share-group-state', 'v1-negative-leader-epoch', 1, 'leader epoch -1: INVALID_REQUEST', [init()], W(-1)),
    { ...p(85, 'write-share-group-state', 'v1-empty-group', 1, 'an empty group id: an empty answer', [], W(0)), body: (ctx: ProbeCtx) => W(0)(ctx, '') },
    p(86, 'delete-share-group-state', 'v0', 0, 'delete after initialise and a write', [init(), write()], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0 }]) })),
    p(86, 'delete-share-group-state', 'v0-unknown', 0, 'delete of a share-partition never initialised', [], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 1 }]) })),
    p(87, 'read-share-group-state-summary', 'v0', 0, 'summary after initialise and a write', [init(), write()], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, leaderEpoch: 0 }]) })),
    p(87, 'read-share-group-state-summary', 'v1', 1, 'summary with delivery_complete_count after initialise, a write and a read at leader epoch 3', [init(), write(), read(3)], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 0, leaderEpoch: 0 }]) })),
    p(87, 'read-share-group-state-summary', 'v1-unknown', 1, 'summary of a share-partition never initialised: -1 start offset and count', [], (ctx, g) => ({ groupId: g, topics: parts(ctx, [{ partition: 1, leaderEpoch: 0 }]) })),
    {
      ...p(10, 'find-coordinator', 'v6-share-valid-key', 6, 'key type 2 with "group:topicId:partition": the state partition\'s leader', [], (ctx, g) => ({ keyType: 2, coordinatorKeys: [`${g}:${ctx.state.shareTopicId}:0`, `${g}:${ctx.state.shareTopicId}:x`] })),
      // The keys carry each broker's own topic id.
      normalise: (j, ctx) => JSON.parse(JSON.stringify(j).split(ctx.state.shareTopicId).join('<topic-id>')),
    },
  ];
}
