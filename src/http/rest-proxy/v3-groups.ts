/**
 * REST Proxy v3: consumer groups, their consumers and assignments, and lags (Confluent's
 * ConsumerGroupsResource, ConsumersResource, ConsumerAssignmentsResource,
 * ConsumerGroupLagsResource / ConsumerLagsResource, ConsumerGroupLagSummariesResource).
 *
 * Everything is asked in-process as the HTTP user, as Kafka's admin client asks: ListGroups
 * (classic and KIP-848 consumer groups; share groups are not consumer groups), then
 * ConsumerGroupDescribe with a fall back to DescribeGroups (GROUP_ID_NOT_FOUND: a classic or
 * unknown group), OffsetFetch for the committed offsets and ListOffsets (latest,
 * read_uncommitted) for the log end offsets; lag = log end offset − committed offset. The groups are those this broker coordinates (so the
 * coordinator link names this broker), and log end offsets those of the partitions it leads.
 */
import type { RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import { intSegment, kafkaError, notFound, ok, type V3Links } from './v3-common.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { decodeConsumerAssignment } from '../group-lag.js';
import type { ListGroupsResponse } from '../../protocol/generated/messages/list-groups-response.js';
import type { DescribeGroupsResponse } from '../../protocol/generated/messages/describe-groups-response.js';
import type { ConsumerGroupDescribeResponse } from '../../protocol/generated/messages/consumer-group-describe-response.js';
import type { OffsetFetchResponse } from '../../protocol/generated/messages/offset-fetch-response.js';
import type { ListOffsetsResponse } from '../../protocol/generated/messages/list-offsets-response.js';

interface Member {
  memberId: string;
  instanceId: string | null;
  clientId: string;
  assignment: { topic: string; partitions: number[] }[];
}

interface Group {
  id: string;
  type: 'CLASSIC' | 'CONSUMER';
  state: string;
  protocolType: string;
  assignor: string;
  members: Member[];
}

interface Lag {
  topic: string;
  partition: number;
  current: number;
  end: number;
  member: Member | null;
}

/** Kafka's state names (PreparingRebalance) as Confluent's enum (PREPARING_REBALANCE). */
function stateName(s: string): string {
  return s === '' ? 'UNKNOWN' : s.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
}

async function describe(r: RestProxyRequest, id: string): Promise<Group> {
  const modern = await (sendInProcess(r.broker, 69, 1, { groupIds: [id], includeAuthorizedOperations: false }, { user: r.user }) as Promise<ConsumerGroupDescribeResponse>).catch(() => null);
  const m = modern?.groups[0];
  if (m && m.errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED) throw kafkaError(m.errorCode, m.errorMessage);
  if (m && m.errorCode === ErrorCode.NONE) {
    return {
      id, type: 'CONSUMER', state: stateName(m.groupState), protocolType: 'consumer', assignor: m.assignorName,
      members: m.members.map((x) => ({
        memberId: x.memberId, instanceId: x.instanceId, clientId: x.clientId,
        assignment: (x.assignment?.topicPartitions ?? []).map((tp) => ({ topic: tp.topicName, partitions: [...tp.partitions].sort((a, b) => a - b) })),
      })),
    };
  }
  const classic = await sendInProcess(r.broker, 15, 6, { groups: [id], includeAuthorizedOperations: false }, { user: r.user }) as DescribeGroupsResponse;
  const g = classic.groups[0];
  if (!g || g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw notFound(`Consumer group ${id} cannot be found.`);
  if (g.errorCode !== ErrorCode.NONE) throw kafkaError(g.errorCode, g.errorMessage);
  return {
    id, type: 'CLASSIC', state: stateName(g.groupState), protocolType: g.protocolType, assignor: g.protocolData,
    members: g.members.map((x) => ({
      memberId: x.memberId, instanceId: x.groupInstanceId, clientId: x.clientId,
      assignment: g.protocolType === 'consumer' ? decodeConsumerAssignment(x.memberAssignment) ?? [] : [],
    })),
  };
}

/** Committed offsets of every partition the group has committed, with its log end offset and owner. */
async function lags(r: RestProxyRequest, g: Group): Promise<Lag[]> {
  const fetched = await sendInProcess(r.broker, 9, 8, {
    groupId: '', topics: null, requireStable: false, groups: [{ groupId: g.id, memberId: null, memberEpoch: -1, topics: null }],
  }, { user: r.user }) as OffsetFetchResponse;
  const fg = fetched.groups[0];
  if (!fg) return [];
  if (fg.errorCode !== ErrorCode.NONE) throw kafkaError(fg.errorCode);
  const committed = fg.topics.flatMap((t) => t.partitions.filter((p) => p.errorCode === ErrorCode.NONE && p.committedOffset >= 0n)
    .map((p) => ({ topic: t.name, partition: p.partitionIndex, current: Number(p.committedOffset) })));
  if (committed.length === 0) return [];
  const topics = new Map<string, number[]>();
  for (const c of committed) topics.set(c.topic, [...(topics.get(c.topic) ?? []), c.partition]);
  const listed = await sendInProcess(r.broker, 2, 9, {
    replicaId: -1, isolationLevel: 0, timeoutMs: 30_000,
    topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 })) })),
  }, { user: r.user }) as ListOffsetsResponse;
  const ends = new Map<string, number>();
  for (const t of listed.topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE) ends.set(`${t.name}\u0000${p.partitionIndex}`, Number(p.offset));
  const owner = (topic: string, partition: number) => g.members.find((m) => m.assignment.some((a) => a.topic === topic && a.partitions.includes(partition))) ?? null;
  const out: Lag[] = [];
  for (const c of committed) {
    const end = ends.get(`${c.topic}\u0000${c.partition}`);
    if (end !== undefined) out.push({ ...c, end, member: owner(c.topic, c.partition) });
  }
  return out.sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

function groupData(l: V3Links, g: Group, coordinator: number): Record<string, unknown> {
  return l.resource('KafkaConsumerGroup', l.url('consumer-groups', g.id), l.crn('consumer-group', g.id), {
    cluster_id: l.clusterId, consumer_group_id: g.id, is_simple: g.protocolType === '', partition_assignor: g.assignor, state: g.state,
    type: g.type, is_mixed_consumer_group: false,
    coordinator: l.related('brokers', coordinator),
    consumers: l.related('consumer-groups', g.id, 'consumers'),
    lag_summary: l.related('consumer-groups', g.id, 'lag-summary'),
  });
}

function consumerData(l: V3Links, g: Group, m: Member): Record<string, unknown> {
  return l.resource('KafkaConsumer', l.url('consumer-groups', g.id, 'consumers', m.memberId), l.crn('consumer-group', g.id, 'consumer', m.memberId), {
    cluster_id: l.clusterId, consumer_group_id: g.id, consumer_id: m.memberId, instance_id: m.instanceId, client_id: m.clientId,
    assignments: l.related('consumer-groups', g.id, 'consumers', m.memberId, 'assignments'),
  });
}

function assignmentData(l: V3Links, g: Group, m: Member, topic: string, p: number): Record<string, unknown> {
  return l.resource('KafkaConsumerAssignment', l.url('consumer-groups', g.id, 'consumers', m.memberId, 'assignments', topic, 'partitions', p),
    `${l.crn('consumer-group', g.id, 'consumer', m.memberId)}/assignment=${topic}/partition=${p}`, {
      cluster_id: l.clusterId, consumer_group_id: g.id, consumer_id: m.memberId, topic_name: topic, partition_id: p,
      partition: l.related('topics', topic, 'partitions', p),
      lag: l.related('consumer-groups', g.id, 'lags', topic, 'partitions', p),
    });
}

function lagData(l: V3Links, g: Group, x: Lag): Record<string, unknown> {
  return l.resource('KafkaConsumerLag', l.url('consumer-groups', g.id, 'lags', x.topic, 'partitions', x.partition),
    l.crn('consumer-group', g.id, 'lag', x.topic, 'partition', x.partition), {
      cluster_id: l.clusterId, consumer_group_id: g.id, topic_name: x.topic, partition_id: x.partition,
      current_offset: x.current, log_end_offset: x.end, lag: Math.max(0, x.end - x.current),
      consumer_id: x.member?.memberId ?? '', instance_id: x.member?.instanceId ?? null, client_id: x.member?.clientId ?? '',
    });
}

function lagSummary(l: V3Links, g: Group, all: Lag[]): Record<string, unknown> {
  let max: Lag | null = null;
  let total = 0;
  for (const x of all) {
    const lag = Math.max(0, x.end - x.current);
    total += lag;
    if (max === null || lag > Math.max(0, max.end - max.current)) max = x;
  }
  const consumer = max?.member?.memberId ?? '';
  return l.resource('KafkaConsumerGroupLagSummary', l.url('consumer-groups', g.id, 'lag-summary'), l.crn('consumer-group', g.id, 'lag-summary', null), {
    cluster_id: l.clusterId, consumer_group_id: g.id,
    max_lag_consumer_id: consumer, max_lag_instance_id: max?.member?.instanceId ?? null, max_lag_client_id: max?.member?.clientId ?? '',
    max_lag_topic_name: max?.topic ?? '', max_lag_partition_id: max?.partition ?? 0,
    max_lag: max ? Math.max(0, max.end - max.current) : 0, total_lag: total,
    max_lag_consumer: l.related('consumer-groups', g.id, 'consumers', consumer),
    max_lag_partition: l.related('topics', max?.topic ?? '', 'partitions', max?.partition ?? 0),
  });
}

/** GET .../consumer-groups[/...]: `rest` is what follows `consumer-groups` in the path. */
export async function consumerGroups(r: RestProxyRequest, l: V3Links, rest: string[]): Promise<void> {
  if (rest.length === 0) {
    const listed = await sendInProcess(r.broker, 16, 5, { statesFilter: [], typesFilter: ['classic', 'consumer'] }, { user: r.user }) as ListGroupsResponse;
    if (listed.errorCode !== ErrorCode.NONE) throw kafkaError(listed.errorCode);
    const ids = listed.groups.map((g) => g.groupId).sort();
    const groups = (await Promise.all(ids.map((id) => describe(r, id).catch(() => null)))).filter((g): g is Group => g !== null);
    return ok(r, l.collection('KafkaConsumerGroupList', l.url('consumer-groups'), groups.map((g) => groupData(l, g, r.broker.nodeId))));
  }
  const g = await describe(r, rest[0]!);
  const [sub, a, b, c, d] = rest.slice(1);
  if (sub === undefined) return ok(r, groupData(l, g, r.broker.nodeId));
  if (sub === 'consumers') {
    if (a === undefined) return ok(r, l.collection('KafkaConsumerList', l.url('consumer-groups', g.id, 'consumers'), g.members.map((m) => consumerData(l, g, m))));
    const m = g.members.find((x) => x.memberId === a);
    if (!m) throw notFound();
    if (b === undefined) return ok(r, consumerData(l, g, m));
    if (b !== 'assignments') throw notFound();
    const pairs = m.assignment.flatMap((x) => x.partitions.map((p) => ({ topic: x.topic, p })));
    if (c === undefined) {
      return ok(r, l.collection('KafkaConsumerAssignmentList', l.url('consumer-groups', g.id, 'consumers', m.memberId, 'assignments'), pairs.map((x) => assignmentData(l, g, m, x.topic, x.p))));
    }
    if (rest[5] !== 'partitions' || rest.length !== 7) throw notFound();
    const p = intSegment(rest[6]!);
    if (!pairs.some((x) => x.topic === c && x.p === p)) throw notFound();
    return ok(r, assignmentData(l, g, m, c, p));
  }
  if (sub === 'lags') {
    const all = await lags(r, g);
    if (a === undefined) return ok(r, l.collection('KafkaConsumerLagList', l.url('consumer-groups', g.id, 'lags'), all.map((x) => lagData(l, g, x))));
    if (b !== 'partitions' || c === undefined || d !== undefined) throw notFound();
    const p = intSegment(c);
    const x = all.find((y) => y.topic === a && y.partition === p);
    if (!x) throw notFound();
    return ok(r, lagData(l, g, x));
  }
  if (sub === 'lag-summary' && a === undefined) return ok(r, lagSummary(l, g, await lags(r, g)));
  throw notFound();
}
