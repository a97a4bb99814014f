/**
 * What the test control needs to know about consumer groups, behind a small interface so it can
 * be served by the group coordinator directly or, as here, through the broker's own request path:
 * DescribeGroups and OffsetFetch encoded with the generated codecs and handed to the dispatcher
 * in-process (no socket). The control re-evaluates its waits after every response the broker
 * sends (group state only changes while requests are handled, or when a session expires, which a
 * client then observes through its next request), so nothing polls on a timer.
 */
import type { Broker } from '../broker/broker.js';
import type { ApiTypes } from '../protocol/generated/api-table.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { decodeResponse, encodeRequest, type ApiKeyNumber } from '../cli/wire.js';

export interface GroupSnapshot {
  groupId: string;
  /** Kafka's state name: 'Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead'. */
  state: string;
  members: { memberId: string; clientId: string; clientHost: string }[];
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
    const reply: unknown = await this.broker.dispatcher.dispatch(frame, {
      broker: this.broker,
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
    const res = await this.call(15, v, { groups: [groupId], includeAuthorizedOperations: false });
    const g = res.groups.find((x) => x.groupId === groupId);
    if (!g || g.errorCode !== ErrorCode.NONE) return null;
    return { groupId, state: g.groupState, members: g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost })) };
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
  describeGroup(groupId: string, includeAuthorizedOperations: boolean): Promise<{ errorCode: number; groupState: string; members: { memberId: string; clientId: string; clientHost: string }[] }>;
  fetchOffsets(groupId: string, topics: { name: string; partitionIndexes: number[] }[] | null): Promise<{ name: string; partitions: { partitionIndex: number; committedOffset: bigint; errorCode: number }[] }[]>;
}

/** Reads the broker's group coordinator directly (no encoding). */
export class CoordinatorGroupView implements GroupView {
  readonly available = true;
  constructor(private readonly coordinator: GroupCoordinatorLike) {}

  async describeGroup(groupId: string): Promise<GroupSnapshot | null> {
    const g = await this.coordinator.describeGroup(groupId, false);
    if (g.errorCode !== ErrorCode.NONE) return null;
    return { groupId, state: g.groupState, members: g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost })) };
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
