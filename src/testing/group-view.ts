/**
 * What the test control needs to know about groups, behind a small interface so it can be served
 * by the group coordinator directly or, as here, through the broker's own request path:
 * DescribeGroups, ConsumerGroupDescribe, ShareGroupDescribe and OffsetFetch encoded with the
 * generated codecs and handed to the dispatcher in-process (no socket). The control re-evaluates
 * its waits after every response the broker sends (group state only changes while requests are
 * handled, or when a session expires, which a client then observes through its next request), so
 * nothing polls on a timer.
 *
 * Groups of every type are described: classic (DescribeGroups), KIP-848 consumer
 * (ConsumerGroupDescribe) and KIP-932 share groups (ShareGroupDescribe). `isGroupStable` says when
 * each counts as Stable (see there).
 */
import type { Broker } from '../broker/broker.js';
import type { ApiTypes } from '../protocol/generated/api-table.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { DescribedGroup as ClassicDescribed } from '../protocol/generated/messages/describe-groups-response.js';
import type { DescribedGroup as ConsumerDescribed } from '../protocol/generated/messages/consumer-group-describe-response.js';
import type { DescribedGroup as ShareDescribed } from '../protocol/generated/messages/share-group-describe-response.js';
import { decodeResponse, encodeRequest, type ApiKeyNumber } from '../protocol/wire.js';

export type GroupType = 'classic' | 'consumer' | 'share';

export interface GroupSnapshot {
  groupId: string;
  /** 'classic', 'consumer' (KIP-848) or 'share' (KIP-932). */
  type: GroupType;
  /**
   * Kafka's state name. Classic: 'Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable',
   * 'Dead'; consumer: 'Empty', 'Assigning', 'Reconciling', 'Stable'; share: 'Empty', 'Stable'.
   */
  state: string;
  /** Consumer and share groups: the group epoch and the epoch of the target assignment. */
  groupEpoch?: number;
  assignmentEpoch?: number;
  /** memberEpoch, subscribedTopicNames and assignment: consumer and share groups only. */
  members: { memberId: string; clientId: string; clientHost: string; memberEpoch?: number; subscribedTopicNames?: string[]; assignment?: { topic: string; partitions: number[] }[] }[];
}

/**
 * Whether a group counts as Stable for `waitForGroupStable`. Classic and consumer groups: the
 * state their coordinator reports (a KIP-848 group is Stable once the target assignment is
 * computed for the current group epoch and every member has reconciled to it). A share group
 * reports Stable as soon as it has a member, before its share-partitions are initialised and
 * assigned, so more is asked of it: state Stable, the target assignment computed for the current
 * group epoch, every member heartbeated since (its member epoch is the assignment epoch), and
 * every partition of the topics the members subscribe to assigned to one of them
 * (`partitionCount` gives a topic's partitions; null for a topic that does not exist).
 */
export function isGroupStable(g: GroupSnapshot | null, partitionCount: (topic: string) => number | null = () => null): boolean {
  if (g === null || g.state !== 'Stable') return false;
  if (g.type !== 'share') return true;
  if (g.assignmentEpoch !== g.groupEpoch || !g.members.every((m) => m.memberEpoch === g.assignmentEpoch)) return false;
  const held = new Set(g.members.flatMap((m) => (m.assignment ?? []).flatMap((a) => a.partitions.map((p) => `${a.topic}\u0000${p}`))));
  for (const topic of new Set(g.members.flatMap((m) => m.subscribedTopicNames ?? []))) {
    const n = partitionCount(topic) ?? 0;
    for (let p = 0; p < n; p++) if (!held.has(`${topic}\u0000${p}`)) return false;
  }
  return true;
}

function modernMembers(members: (ConsumerDescribed['members'][number] | ShareDescribed['members'][number])[]): GroupSnapshot['members'] {
  return members.map((m) => ({
    memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, memberEpoch: m.memberEpoch, subscribedTopicNames: m.subscribedTopicNames,
    assignment: (m.assignment?.topicPartitions ?? []).map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
  }));
}

/**
 * One group from the three describes: the classic one first; a group it does not know (Dead, or
 * refused as not classic) is asked for as a consumer group, then as a share group. A group none
 * knows is the classic answer (Dead), or null when that was an error.
 */
async function describeAny(groupId: string, ask: {
  classic(): Promise<ClassicDescribed | null>;
  consumer(): Promise<ConsumerDescribed | null>;
  share(): Promise<ShareDescribed | null>;
}): Promise<GroupSnapshot | null> {
  const c = await ask.classic();
  if (c && c.errorCode === ErrorCode.NONE && c.groupState !== 'Dead') {
    return { groupId, type: 'classic', state: c.groupState, members: c.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost })) };
  }
  const modern = (type: GroupType, d: ConsumerDescribed | ShareDescribed): GroupSnapshot => ({ groupId, type, state: d.groupState, groupEpoch: d.groupEpoch, assignmentEpoch: d.assignmentEpoch, members: modernMembers(d.members) });
  const consumer = await ask.consumer();
  if (consumer && consumer.errorCode === ErrorCode.NONE) return modern('consumer', consumer);
  const share = await ask.share();
  if (share && share.errorCode === ErrorCode.NONE) return modern('share', share);
  if (!c || c.errorCode !== ErrorCode.NONE) return null;
  return { groupId, type: 'classic', state: c.groupState, members: [] };
}

export interface GroupView {
  /** Whether the broker serves consumer groups at all. */
  readonly available: boolean;
  describeGroup(groupId: string): Promise<GroupSnapshot | null>;
  /** The committed offset, or null when none is committed. */
  committedOffset(groupId: string, topic: string, partition: number): Promise<bigint | null>;
}

/** Connection id used for the control's own in-process requests (never intercepted). */
export const INTERNAL_CONNECTION_ID = -1;

export class DispatchGroupView implements GroupView {
  private correlationId = 1;
  constructor(private readonly broker: Broker) {}

  private maxVersion(apiKey: number): number | null {
    const a = this.broker.dispatcher.advertised().find((x) => x.apiKey === apiKey);
    return a ? a.maxVersion : null;
  }

  get available(): boolean {
    return this.maxVersion(15) !== null && this.maxVersion(9) !== null;
  }

  private async call<K extends ApiKeyNumber>(apiKey: K, version: number, body: ApiTypes[K]['request']): Promise<ApiTypes[K]['response']> {
    const cid = this.correlationId++;
    const frame = encodeRequest(apiKey, version, cid, 'samsa-test-control', body);
    const reply: unknown = await this.broker.dispatcher.process(frame, {
      connectionId: INTERNAL_CONNECTION_ID,
      remoteAddress: 'in-process',
      listenerName: this.broker.listeners[0]?.name ?? 'PLAINTEXT',
      principal: 'User:ANONYMOUS',
      closed: new AbortController().signal,
    });
    // A handler may defer its reply ({ later }); wait for it either way.
    const out = reply && typeof reply === 'object' && 'later' in reply ? await (reply as { later: Promise<Buffer[] | null> }).later : (reply as Buffer[] | null);
    if (!out) throw new Error(`no response to in-process api ${String(apiKey)}`);
    return decodeResponse(apiKey, version, Buffer.concat(out).subarray(4)).body;
  }

  async describeGroup(groupId: string): Promise<GroupSnapshot | null> {
    const v = this.maxVersion(15);
    if (v === null) throw new Error('this broker does not serve DescribeGroups (consumer groups are not available)');
    const ask = { groupIds: [groupId], includeAuthorizedOperations: false };
    const cv = this.maxVersion(69);
    const sv = this.maxVersion(77);
    return describeAny(groupId, {
      classic: async () => (await this.call(15, v, { groups: [groupId], includeAuthorizedOperations: false })).groups[0] ?? null,
      consumer: async () => (cv === null ? null : (await this.call(69, cv, ask)).groups[0] ?? null),
      share: async () => (sv === null ? null : (await this.call(77, sv, ask)).groups[0] ?? null),
    });
  }

  async committedOffset(groupId: string, topic: string, partition: number): Promise<bigint | null> {
    const max = this.maxVersion(9);
    if (max === null) throw new Error('this broker does not serve OffsetFetch (consumer groups are not available)');
    const v = Math.min(max, 7);
    const res = await this.call(9, v, {
      groupId,
      topics: [{ name: topic, partitionIndexes: [partition] }],
      groups: [],
      requireStable: false,
    });
    if (res.errorCode !== ErrorCode.NONE) return null;
    const p = res.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partitionIndex === partition);
    if (!p || p.errorCode !== ErrorCode.NONE || p.committedOffset < 0n) return null;
    return p.committedOffset;
  }
}

/** The part of the group coordinator (src/coordinator/group) the control reads. */
export interface GroupCoordinatorLike {
  describeGroup(groupId: string, includeAuthorizedOperations: boolean): Promise<ClassicDescribed>;
  consumerGroupDescribe?(groupId: string, authorizedOperations: number | null): Promise<ConsumerDescribed>;
  shareGroupDescribe?(groupId: string, authorizedOperations: number | null): Promise<ShareDescribed>;
  fetchOffsets(groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null): Promise<{ name: string; partitions: { partitionIndex: number; committedOffset: bigint; errorCode: number }[] }[]>;
}

/** Reads the broker's group coordinator directly (no encoding). */
export class CoordinatorGroupView implements GroupView {
  readonly available = true;
  constructor(private readonly coordinator: GroupCoordinatorLike) {}

  describeGroup(groupId: string): Promise<GroupSnapshot | null> {
    const gc = this.coordinator;
    return describeAny(groupId, {
      classic: () => gc.describeGroup(groupId, false),
      consumer: async () => (gc.consumerGroupDescribe ? gc.consumerGroupDescribe(groupId, null) : null),
      share: async () => (gc.shareGroupDescribe ? gc.shareGroupDescribe(groupId, null) : null),
    });
  }

  async committedOffset(groupId: string, topic: string, partition: number): Promise<bigint | null> {
    const topics = await this.coordinator.fetchOffsets(groupId, [{ name: topic, partitionIndexes: [partition] }]);
    const p = topics.find((t) => t.name === topic)?.partitions.find((x) => x.partitionIndex === partition);
    if (!p || p.errorCode !== ErrorCode.NONE || p.committedOffset < 0n) return null;
    return p.committedOffset;
  }
}

/** The coordinator's view when the broker has one, else the request path. */
export function groupViewFor(broker: Broker): GroupView {
  const gc = (broker as unknown as { groupCoordinator?: GroupCoordinatorLike }).groupCoordinator;
  return gc && typeof gc.describeGroup === 'function' && typeof gc.fetchOffsets === 'function' ? new CoordinatorGroupView(gc) : new DispatchGroupView(broker);
}
