/**
 * The versions Kafka 4.4 added to APIs Samsa already served, each at its new highest version:
 * Metadata v13, OffsetCommit/OffsetFetch v10 (topic ids), ListOffsets v10-11, DescribeLogDirs v5,
 * DeleteGroups v3, DescribeCluster v2, ListTransactions v2, AlterPartitionReassignments v1.
 * Topic ids differ between the brokers: each request names the id its own broker gave the topic.
 */
import { coordinatorsReady, createTopic } from './fixtures.js';
import { sortAt, type Json } from './normalise.js';
import type { Probe, ProbeCtx } from './runner.js';

const TOPIC = 'p44-topic';
const GROUP = 'p44-group';
const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

async function setup(ctx: ProbeCtx): Promise<void> {
  await ctx.once('p44', async () => {
    await createTopic(ctx, TOPIC, 2);
    await coordinatorsReady(ctx);
  });
  if (ctx.state.p44Id === undefined) {
    const md = await ctx.call(3, 12, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
    ctx.state.p44Id = md.topics[0].topicId;
  }
}

type Body = Record<string, unknown> | ((ctx: ProbeCtx) => Record<string, unknown>);

function probe(prefix: string, api: number, id: string, version: number, about: string, body: Body, extra: Partial<Probe> = {}): Probe {
  return { id: `${prefix}/${id}`, api, version, about, setup, body, ...extra };
}

const id = (ctx: ProbeCtx) => ctx.state.p44Id as string;
/** Partitions in index order (a broker's own order of an answer). */
const byPartition = (path: string) => (j: Json) => sortAt(j, path, (x) => String((x as { partitionIndex: number }).partitionIndex).padStart(5, '0'));

export function kafka44Probes(): Probe[] {
  return [
    probe('metadata', 3, 'v13-named', 13, 'a topic by name at v13 (top-level error code)', { topics: [{ name: TOPIC }] }),
    probe('metadata', 3, 'v13-unknown-topic-id', 13, 'an unknown topic id at v13', { topics: [{ name: null, topicId: UNKNOWN_ID }] }),
    probe('offset-commit', 8, 'v10-by-topic-id', 10, 'a simple commit naming the topic by id, and an unknown id', (ctx) => ({
      groupId: GROUP, generationIdOrMemberEpoch: -1, memberId: '',
      topics: [
        { topicId: id(ctx), partitions: [{ partitionIndex: 0, committedOffset: 5, committedMetadata: 'm' }, { partitionIndex: 7, committedOffset: 1, committedMetadata: null }] },
        { topicId: UNKNOWN_ID, partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: null }] },
      ],
    }), { normalise: byPartition('topics.[].partitions') }),
    probe('offset-fetch', 9, 'v10-by-topic-id', 10, 'the commit above by topic id, and an unknown id', (ctx) => ({
      groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: [{ topicId: id(ctx), partitionIndexes: [0, 1] }, { topicId: UNKNOWN_ID, partitionIndexes: [0] }] }],
      requireStable: true,
    })),
    probe('offset-fetch', 9, 'v10-all-topics', 10, 'every committed offset of the group at v10', { groups: [{ groupId: GROUP, memberId: null, memberEpoch: -1, topics: null }], requireStable: false }),
    probe('list-offsets', 2, 'v10-latest', 10, 'latest with a timeout (v10)', { replicaId: -1, timeoutMs: 5000, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -1 }] }] }),
    probe('list-offsets', 2, 'v11-earliest-pending-upload', 11, 'earliest pending upload -6 on a topic that is not tiered', { replicaId: -1, timeoutMs: 5000, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -6 }, { partitionIndex: 1, timestamp: -2 }] }] }, {
      // Kafka 4.4 answers -6 through its asynchronous (remote) lookup: the partitions come back in completion order.
      normalise: byPartition('topics.[].partitions'),
    }),
    probe('list-offsets', 2, 'v10-earliest-pending-upload', 10, '-6 below v11', { replicaId: -1, timeoutMs: 5000, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -6 }] }] }),
    probe('describe-log-dirs', 35, 'v5-max', 5, 'a topic\'s partitions at v5 (is_cordoned)', { topics: [{ topic: TOPIC, partitions: [0, 1] }] }, {
      normalise: (j) => {
        // The brokers' directories, sizes and free space are their own: keep the shape and our topic.
        const r = (j as { results?: { errorCode: number; isCordoned: boolean; topics: { name: string; partitions: { partitionIndex: number }[] }[] }[] }).results ?? [];
        return { results: r.map((d) => ({ errorCode: d.errorCode, isCordoned: d.isCordoned, topics: d.topics.filter((t) => t.name === TOPIC).map((t) => ({ name: t.name, partitions: t.partitions.map((p) => p.partitionIndex).sort() })) })) };
      },
    }),
    probe('delete-groups', 42, 'v3-unknown-group', 3, 'an unknown group at v3 (error message field)', { groupsNames: ['p44-missing-group'] }),
    probe('describe-cluster', 60, 'v2-include-fenced', 2, 'include_fenced_brokers: no broker is fenced', { includeClusterAuthorizedOperations: false, endpointType: 1, includeFencedBrokers: true }),
    probe('list-transactions', 66, 'v2-pattern-none', 2, 'a pattern no transactional id matches', { durationFilter: -1, transactionalIdPattern: 'p44-nothing-.*' }),
    probe('list-transactions', 66, 'v2-bad-pattern', 2, 'a pattern that does not compile', { durationFilter: -1, transactionalIdPattern: '(' }),
    probe('alter-partition-reassignments', 45, 'v1-rf-change-unknown-broker', 1, 'allow_replication_factor_change false, a new replica count with an unregistered broker: the list is checked first', { timeoutMs: 30_000, allowReplicationFactorChange: false, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, replicas: [1, 9] }, { partitionIndex: 1, replicas: [1] }] }] }),
    probe('alter-partition-reassignments', 45, 'v1-rf-change-allowed', 1, 'the same with the flag true: the broker check decides', { timeoutMs: 30_000, allowReplicationFactorChange: true, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, replicas: [1, 9] }] }] }),
  ];
}
