/**
 * Set-up helpers the probes share: topics (created on both brokers, then waited for until
 * Metadata shows every partition led, since Kafka's controller answers CreateTopics before the
 * broker has replayed the new topic), deterministic record batches, producers and groups.
 * Everything registers the values that differ by construction in the target's Symbols.
 */
import { buildRecordBatch, type BuildRecordBatchOptions } from '../../src/protocol/records/record.js';
import { writeCrc } from '../../src/protocol/records/record-batch.js';
import type { ProbeCtx } from './runner.js';

/**
 * Record timestamps: one fixed value per run, a minute in the past, so both brokers store the
 * same bytes and Kafka 4's message.timestamp.after.max.ms (1 h) never rejects them.
 */
export const T0 = BigInt(Date.now() - 60_000);

export const ERR = {
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  TOPIC_ALREADY_EXISTS: 36,
  MEMBER_ID_REQUIRED: 79,
} as const;

export interface BatchOptions extends Partial<BuildRecordBatchOptions> {
  count?: number;
  /** Record key/value prefix (keys "k0", values "v0"... by default). */
  prefix?: string;
  /** null: records without keys. */
  keys?: boolean;
  /** Raw patches applied after the CRC is written (then the CRC is not fixed up unless `recrc`). */
  patch?: (b: Buffer) => void;
  recrc?: boolean;
}

/** A v2 record batch with `count` records at timestamps T0, T0+1, ... */
export function batch(o: BatchOptions = {}): Buffer {
  const n = o.count ?? 1;
  const p = o.prefix ?? '';
  const records = Array.from({ length: n }, (_, i) => ({
    key: o.keys === false ? null : Buffer.from(`${p}k${i}`),
    value: Buffer.from(`${p}v${i}`),
    timestamp: T0 + BigInt(i),
  }));
  const b = buildRecordBatch({ ...o, records: o.records ?? records });
  if (o.patch) {
    o.patch(b);
    if (o.recrc) writeCrc(b, 0);
  }
  return b;
}

/** Creates `name` (waiting until it is usable) and names its topic id. */
export async function createTopic(ctx: ProbeCtx, name: string, partitions = 1, configs: Record<string, string> = {}): Promise<void> {
  const res = await ctx.call(19, 7, {
    topics: [{ name, numPartitions: partitions, replicationFactor: 1, configs: Object.entries(configs).map(([k, v]) => ({ name: k, value: v })) }],
    timeoutMs: 30_000,
  });
  const t = res.topics[0];
  if (t.errorCode !== ERR.NONE && t.errorCode !== ERR.TOPIC_ALREADY_EXISTS) throw new Error(`CreateTopics ${name}: error ${t.errorCode} ${t.errorMessage ?? ''}`);
  await waitTopic(ctx, name, partitions);
}

/** Waits until Metadata lists `name` with `partitions` led partitions; registers its id. */
export async function waitTopic(ctx: ProbeCtx, name: string, partitions: number): Promise<void> {
  await ctx.waitFor(`topic ${name} in Metadata`, async () => {
    const md = await ctx.call(3, 12, { topics: [{ name }], allowAutoTopicCreation: false });
    const t = md.topics[0];
    if (t.errorCode !== 0 || t.partitions.length !== partitions || t.partitions.some((p: any) => p.leaderId < 0 || p.errorCode !== 0)) return false;
    ctx.symbols.set('topic-id', t.topicId, `topic-id:${name}`);
    // Kafka's metadata cache can list the leader before its replica manager hosts the partition
    // (Produce would answer NOT_LEADER_OR_FOLLOWER, P26): ListOffsets goes through the latter.
    const lo = await ctx.call(2, 5, {
      replicaId: -1,
      topics: [{ name, partitions: Array.from({ length: partitions }, (_, i) => ({ partitionIndex: i, timestamp: -1 })) }],
    });
    return lo.topics[0].partitions.every((p: any) => p.errorCode === 0);
  });
}

/** Waits until Metadata no longer lists `name` (topic deletion finishes asynchronously on Kafka). */
export async function waitTopicGone(ctx: ProbeCtx, name: string): Promise<void> {
  await ctx.waitFor(`topic ${name} gone`, async () => {
    const md = await ctx.call(3, 12, { topics: [{ name }], allowAutoTopicCreation: false });
    return md.topics[0].errorCode === ERR.UNKNOWN_TOPIC_OR_PARTITION;
  });
}

/** Topic id of `name` on this target (after createTopic). */
export async function topicId(ctx: ProbeCtx, name: string): Promise<string> {
  const md = await ctx.call(3, 12, { topics: [{ name }], allowAutoTopicCreation: false });
  return md.topics[0].topicId;
}

export interface ProduceOptions {
  acks?: number;
  transactionalId?: string | null;
  version?: number;
}

/** Produce (v9 by default, acks -1) of one partition; throws unless NONE. Resolves with the base offset. */
export async function produce(ctx: ProbeCtx, topic: string, partition: number, records: Buffer, o: ProduceOptions = {}): Promise<bigint> {
  const res = await ctx.call(0, o.version ?? 9, {
    transactionalId: o.transactionalId ?? null,
    acks: o.acks ?? -1,
    timeoutMs: 30_000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  });
  const pr = res.responses[0].partitionResponses[0];
  if (pr.errorCode !== 0) throw new Error(`Produce ${topic}-${partition}: error ${pr.errorCode}`);
  return pr.baseOffset;
}

/** A topic with `count` single-record batches in partition 0 (offsets 0..count-1). */
export async function topicWithRecords(ctx: ProbeCtx, name: string, count: number, partitions = 1, configs: Record<string, string> = {}): Promise<void> {
  await createTopic(ctx, name, partitions, configs);
  for (let i = 0; i < count; i++) await produce(ctx, name, 0, batch({ prefix: `${name}-${i}-` }));
}

/** Java's String.hashCode (Kafka maps a group or transactional id to abs(hash) % partitions). */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}

/** One key per partition of a 50-partition coordinator topic. */
function keysForEveryPartition(): string[] {
  const keys = new Map<number, string>();
  for (let i = 0; keys.size < 50; i++) {
    const k = `probe-warm-up-${i}`;
    const h = javaHash(k);
    const p = (h === -2147483648 ? 0 : Math.abs(h)) % 50;
    if (!keys.has(p)) keys.set(p, k);
  }
  return [...keys.values()];
}

/**
 * Waits until every partition of both coordinator topics has a loaded coordinator: Kafka creates
 * `__consumer_offsets` / `__transaction_state` on the first FindCoordinator and loads each of
 * their 50 partitions on its own, answering COORDINATOR_NOT_AVAILABLE meanwhile (FC2).
 */
export function coordinatorsReady(ctx: ProbeCtx): Promise<void> {
  return ctx.once('coordinators', async () => {
    const keys = keysForEveryPartition();
    for (const keyType of [0, 1]) {
      await ctx.waitFor(`coordinators of type ${keyType}`, async () => {
        const r = await ctx.call(10, 4, { keyType, coordinatorKeys: keys });
        return r.coordinators.every((c: any) => c.errorCode === 0);
      }, 30_000);
    }
    // Kafka's first producer ids come from a block its controller allocates after start-up
    // (InitProducerId answers COORDINATOR_LOAD_IN_PROGRESS until then).
    await ctx.waitFor('producer id block', async () => {
      const r = await ctx.call(22, 4, { transactionalId: null, transactionTimeoutMs: -1 });
      return r.errorCode === 0;
    }, 30_000);
  });
}

/** InitProducerId (v4); names the producer id `pid:<name>`. */
export async function initProducer(ctx: ProbeCtx, name: string, transactionalId: string | null, timeoutMs = 60_000): Promise<{ producerId: bigint; producerEpoch: number }> {
  if (transactionalId !== null) await coordinatorsReady(ctx);
  let res: any;
  await ctx.waitFor(`InitProducerId ${name}`, async () => {
    res = await ctx.call(22, 4, { transactionalId, transactionTimeoutMs: timeoutMs });
    // CONCURRENT_TRANSACTIONS (51) while an earlier transaction of this id is being completed;
    // COORDINATOR_LOAD_IN_PROGRESS (14) before Kafka has its first block of producer ids.
    if (res.errorCode === 51 || res.errorCode === 14) return false;
    if (res.errorCode !== 0) throw new Error(`InitProducerId ${name}: error ${res.errorCode}`);
    return true;
  });
  ctx.symbols.set('pid', res.producerId, `pid:${name}`);
  return { producerId: res.producerId, producerEpoch: res.producerEpoch };
}

/** A transactional producer with an open transaction on `topic` partition 0 (one batch written). */
export async function openTransaction(ctx: ProbeCtx, name: string, topic: string, records = 1): Promise<{ producerId: bigint; producerEpoch: number }> {
  const p = await initProducer(ctx, name, name);
  const add = await ctx.call(24, 3, { v3AndBelowTransactionalId: name, v3AndBelowProducerId: p.producerId, v3AndBelowProducerEpoch: p.producerEpoch, v3AndBelowTopics: [{ name: topic, partitions: [0] }] });
  const code = add.resultsByTopicV3AndBelow[0].resultsByPartition[0].partitionErrorCode;
  if (code !== 0) throw new Error(`AddPartitionsToTxn ${name}: error ${code}`);
  await produce(ctx, topic, 0, batch({ count: records, producerId: p.producerId, producerEpoch: p.producerEpoch, baseSequence: 0, transactional: true, prefix: `${name}-` }), { transactionalId: name });
  return p;
}

/** EndTxn, then waits until the markers are written (the partition's LSO reaches its HW). */
export async function endTransaction(ctx: ProbeCtx, name: string, p: { producerId: bigint; producerEpoch: number }, commit: boolean, topic: string): Promise<void> {
  const r = await ctx.call(26, 3, { transactionalId: name, producerId: p.producerId, producerEpoch: p.producerEpoch, committed: commit });
  if (r.errorCode !== 0) throw new Error(`EndTxn ${name}: error ${r.errorCode}`);
  await waitStable(ctx, topic);
  // The markers are written before the coordinator logs CompleteCommit/CompleteAbort; until then
  // Kafka answers the next EndTxn CONCURRENT_TRANSACTIONS (seen on a loaded machine).
  const done = commit ? 'CompleteCommit' : 'CompleteAbort';
  await ctx.waitFor(`${name} ${done}`, async () => {
    const d = await ctx.call(65, 0, { transactionalIds: [name] });
    return d.transactionStates[0]?.transactionState === done;
  });
}

/** Waits until partition 0 of `topic` has no open transaction (read_committed end = read_uncommitted end). */
export async function waitStable(ctx: ProbeCtx, topic: string): Promise<void> {
  await ctx.waitFor(`${topic} stable`, async () => {
    const ends = await Promise.all([0, 1].map(async (isolationLevel) => {
      const r = await ctx.call(2, 5, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1 }] }] });
      return r.topics[0].partitions[0].offset as bigint;
    }));
    return ends[0] === ends[1];
  });
}

export const CONSUMER_METADATA = (topics: string[]): Buffer => {
  // ConsumerProtocolSubscription v0: version, topics, user data (null).
  const parts: Buffer[] = [Buffer.from([0, 0]), Buffer.alloc(4)];
  parts[1].writeInt32BE(topics.length);
  for (const t of topics) {
    const n = Buffer.alloc(2);
    n.writeInt16BE(Buffer.byteLength(t));
    parts.push(n, Buffer.from(t));
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  return Buffer.concat(parts);
};

export interface Member {
  memberId: string;
  generationId: number;
}

/**
 * One member joins `group` alone (JoinGroup v5: MEMBER_ID_REQUIRED, then the rejoin) and, unless
 * `sync` is false, syncs as leader so the group is Stable. Names the member id `member:<group>`.
 */
export async function joinAlone(ctx: ProbeCtx, group: string, o: { sync?: boolean; instanceId?: string | null; topics?: string[]; clientSuffix?: string; protocol?: { type: string; name: string; metadata: Buffer } } = {}): Promise<Member> {
  await coordinatorsReady(ctx);
  const body = {
    groupId: group,
    sessionTimeoutMs: 60_000,
    rebalanceTimeoutMs: 60_000,
    memberId: '',
    groupInstanceId: o.instanceId ?? null,
    protocolType: o.protocol?.type ?? 'consumer',
    protocols: [o.protocol ? { name: o.protocol.name, metadata: o.protocol.metadata } : { name: 'range', metadata: CONSUMER_METADATA(o.topics ?? ['probe-any']) }],
  };
  let r = await ctx.call(11, 5, body);
  if (r.errorCode === ERR.MEMBER_ID_REQUIRED) r = await ctx.call(11, 5, { ...body, memberId: r.memberId });
  if (r.errorCode !== 0) throw new Error(`JoinGroup ${group}: error ${r.errorCode}`);
  ctx.symbols.set('member', r.memberId, `member:${group}`);
  const m = { memberId: r.memberId as string, generationId: r.generationId as number };
  if (o.sync !== false) {
    const s = await ctx.call(14, 3, { groupId: group, generationId: m.generationId, memberId: m.memberId, groupInstanceId: o.instanceId ?? null, assignments: [{ memberId: m.memberId, assignment: Buffer.from([0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff]) }] });
    if (s.errorCode !== 0) throw new Error(`SyncGroup ${group}: error ${s.errorCode}`);
  }
  return m;
}

/** Commits offset `offset` for `topic` partition 0 as a simple (generation -1) group. */
export async function commitSimple(ctx: ProbeCtx, group: string, topic: string, offset: number): Promise<void> {
  await coordinatorsReady(ctx);
  const r = await ctx.call(8, 8, { groupId: group, generationIdOrMemberEpoch: -1, memberId: '', topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset, committedMetadata: 'm' }] }] });
  const code = r.topics[0].partitions[0].errorCode;
  if (code !== 0) throw new Error(`OffsetCommit ${group}: error ${code}`);
}
