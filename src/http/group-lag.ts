/**
 * Consumer groups (classic and KIP-848; share groups are in share-groups.ts) as the metrics and
 * the console show them: state, members, assignments and, per committed partition, the lag (high
 * watermark − committed offset) where the partition's log is on this broker. Read from the group
 * coordinator in-process (the groups of the `__consumer_offsets` partitions this broker leads).
 */
import type { HttpBroker } from './http-broker.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';

export interface GroupPartitionLag {
  topic: string;
  partition: number;
  committed: number;
  /** null when the partition's log is not on this broker. */
  highWatermark: number | null;
  logEndOffset: number | null;
  lag: number | null;
}

export interface GroupSummary {
  groupId: string;
  state: string;
  protocolType: string;
  groupType: string;
  members: number;
  partitions: GroupPartitionLag[];
}

export interface GroupMemberView {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded from the consumer protocol's assignment; null when it is not one. */
  assignment: { topic: string; partitions: number[] }[] | null;
  /** KIP-848 groups: the member's epoch. */
  memberEpoch?: number;
}

/**
 * Kafka's ConsumerProtocolAssignment (versions 0-3): int16 version, [topic string, [int32]],
 * user data bytes. Bounds-checked; anything malformed gives null.
 */
export function decodeConsumerAssignment(buf: Buffer): { topic: string; partitions: number[] }[] | null {
  if (buf.length === 0) return [];
  try {
    let pos = 2;
    const int32 = () => {
      if (pos + 4 > buf.length) throw new RangeError('short');
      const v = buf.readInt32BE(pos);
      pos += 4;
      return v;
    };
    const topics = int32();
    if (topics < 0 || topics > buf.length) return null;
    const out: { topic: string; partitions: number[] }[] = [];
    for (let i = 0; i < topics; i++) {
      if (pos + 2 > buf.length) return null;
      const len = buf.readInt16BE(pos);
      pos += 2;
      if (len < 0 || pos + len > buf.length) return null;
      const topic = buf.toString('utf8', pos, pos + len);
      pos += len;
      const n = int32();
      if (n < 0 || n * 4 > buf.length - pos) return null;
      const partitions: number[] = [];
      for (let k = 0; k < n; k++) partitions.push(int32());
      out.push({ topic, partitions });
    }
    return out;
  } catch {
    return null;
  }
}

function lagRows(broker: HttpBroker, topics: { name: string; partitions: { partitionIndex: number; committedOffset: bigint; errorCode: number }[] }[]): GroupPartitionLag[] {
  const rows: GroupPartitionLag[] = [];
  for (const t of topics) {
    for (const p of t.partitions) {
      if (p.errorCode !== ErrorCode.NONE || p.committedOffset < 0n) continue;
      const committed = Number(p.committedOffset);
      const log = broker.getLog(t.name, p.partitionIndex);
      const hw = log ? log.highWatermark : null;
      rows.push({ topic: t.name, partition: p.partitionIndex, committed, highWatermark: hw, logEndOffset: log ? log.logEndOffset : null, lag: hw === null ? null : Math.max(0, hw - committed) });
    }
  }
  return rows.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

interface Described {
  groupType: 'classic' | 'consumer';
  state: string;
  protocolType: string;
  /** The classic group's protocol (assignor), or the consumer group's assignor. */
  protocol: string;
  members: GroupMemberView[];
  /** KIP-848 groups: the group epoch and the target assignment's epoch. */
  epochs?: { group: number; assignment: number };
}

/**
 * A group as either protocol describes it: a KIP-848 consumer group through ConsumerGroupDescribe
 * (when the coordinator has it), else the classic DescribeGroups. null when neither knows it.
 */
async function describe(broker: HttpBroker, groupId: string): Promise<Described | null> {
  const gc = broker.groupCoordinator;
  const modern = (gc as { consumerGroupDescribe?: unknown }).consumerGroupDescribe;
  if (typeof modern === 'function') {
    const c = await gc.consumerGroupDescribe(groupId, null);
    if (c.errorCode === ErrorCode.NONE) {
      return {
        groupType: 'consumer', state: c.groupState, protocolType: 'consumer', protocol: c.assignorName,
        epochs: { group: c.groupEpoch, assignment: c.assignmentEpoch },
        members: c.members.map((m) => ({
          memberId: m.memberId, groupInstanceId: m.instanceId, clientId: m.clientId, clientHost: m.clientHost, memberEpoch: m.memberEpoch,
          assignment: (m.assignment?.topicPartitions ?? []).map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
        })),
      };
    }
  }
  const d = await gc.describeGroup(groupId, false);
  if (d.errorCode !== ErrorCode.NONE) return null;
  return {
    groupType: 'classic', state: d.groupState, protocolType: d.protocolType, protocol: d.protocolData,
    members: d.members.map((m) => ({
      memberId: m.memberId, groupInstanceId: m.groupInstanceId, clientId: m.clientId, clientHost: m.clientHost,
      assignment: d.protocolType === 'consumer' ? decodeConsumerAssignment(m.memberAssignment) : null,
    })),
  };
}

/**
 * Every consumer group this broker coordinates (share groups left out: they commit no offsets and
 * DescribeGroups would call them Dead), with its committed partitions' lag (a group that cannot be
 * read is shown by its listing).
 */
export async function groupLag(broker: HttpBroker): Promise<GroupSummary[]> {
  const gc = broker.groupCoordinator;
  if (!gc || !gc.isActive) return [];
  const listed = (await gc.listGroups([], [])).filter((g) => g.groupType !== 'share');
  const out: GroupSummary[] = [];
  for (const g of listed.sort((a, b) => (a.groupId < b.groupId ? -1 : 1))) {
    const [d, offsets] = await Promise.all([describe(broker, g.groupId).catch(() => null), gc.fetchOffsets(g.groupId, null).catch(() => [])]);
    out.push({
      groupId: g.groupId, state: d?.state || g.groupState, protocolType: g.protocolType || (d?.protocolType ?? ''), groupType: g.groupType || (d?.groupType ?? ''),
      members: d?.members.length ?? 0, partitions: lagRows(broker, offsets),
    });
  }
  return out;
}

/** One group with its members and their assignments; null when it does not exist. */
export async function describeGroupWithLag(broker: HttpBroker, groupId: string): Promise<{ summary: GroupSummary; members: GroupMemberView[]; protocol: string; epochs?: { group: number; assignment: number } } | null> {
  const gc = broker.groupCoordinator;
  if (!gc || !gc.isActive) return null;
  const [d, offsets] = await Promise.all([describe(broker, groupId), gc.fetchOffsets(groupId, null)]);
  if (d === null || (d.state === 'Dead' && offsets.length === 0)) return null;
  return {
    summary: { groupId, state: d.state, protocolType: d.protocolType, groupType: d.groupType, members: d.members.length, partitions: lagRows(broker, offsets) },
    members: d.members, protocol: d.protocol, epochs: d.epochs,
  };
}

/**
 * Moves an Empty group's committed offsets (kafka-consumer-groups --reset-offsets): to the log
 * start ('earliest'), the high watermark ('latest') or the first offset at or after a time, for
 * every partition the group has committed on `topic` (all its topics when null). Returns the new
 * offsets; throws when the group has members.
 */
export async function resetGroupOffsets(broker: HttpBroker, groupId: string, to: { kind: 'earliest' | 'latest' } | { kind: 'timestamp'; timestampMs: number }, topic: string | null): Promise<{ topic: string; partition: number; offset: number }[]> {
  const gc = broker.groupCoordinator;
  const d = await describe(broker, groupId);
  if (d === null) throw new Error(`no group ${groupId}`);
  if (d.state !== 'Empty') throw new Error(`group ${groupId} is ${d.state}: offsets can only be reset while it has no members`);
  const offsets = await gc.fetchOffsets(groupId, null);
  const targets: { topic: string; partition: number; offset: number }[] = [];
  for (const t of offsets) {
    if (topic !== null && t.name !== topic) continue;
    for (const p of t.partitions) {
      if (p.committedOffset < 0n) continue;
      const log = broker.getLog(t.name, p.partitionIndex);
      if (!log) continue;
      let offset: number;
      if ('timestampMs' in to) offset = Math.min((await log.offsetForTimestamp(to.timestampMs))?.offset ?? log.highWatermark, log.highWatermark);
      else offset = to.kind === 'earliest' ? log.logStartOffset : log.highWatermark;
      targets.push({ topic: t.name, partition: p.partitionIndex, offset });
    }
  }
  if (targets.length === 0) return [];
  const byTopic = new Map<string, { partitionIndex: number; committedOffset: bigint; committedLeaderEpoch: number; committedMetadata: string | null }[]>();
  for (const x of targets) {
    const list = byTopic.get(x.topic) ?? [];
    list.push({ partitionIndex: x.partition, committedOffset: BigInt(x.offset), committedLeaderEpoch: -1, committedMetadata: '' });
    byTopic.set(x.topic, list);
  }
  const result = await gc.commitOffsets({
    groupId, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1,
    topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
  }, 8);
  for (const t of result) for (const p of t.partitions) {
    if (p.errorCode !== ErrorCode.NONE) throw new Error(`committing ${t.name}-${p.partitionIndex} failed with error ${p.errorCode}`);
  }
  return targets;
}
