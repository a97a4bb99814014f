/**
 * A streams group (KIP-1071; Kafka's streams/StreamsGroup and StreamsGroupMember): the state the
 * coordinator rebuilds by replaying the streams-group records of `__consumer_offsets`.
 *
 * A streams group is a consumer group whose unit of work is a task (subtopology id, partition)
 * rather than a partition: the members send the application's topology on joining, the
 * coordinator resolves it against the cluster's topics (streams-topology.ts), creates the
 * internal topics it needs, and assigns active and standby tasks (assignor/streams-sticky.ts).
 *
 * Epochs as for consumer groups (consumer-group.ts): the group epoch moves when the assignment
 * inputs change (members, topology, the partition counts of its topics); the target assignment
 * epoch is the group epoch the target was computed at; a member's epoch is the target epoch it
 * has reconciled to, reached only after it revoked what the target takes away.
 *
 * States as Kafka names them: Empty (no members), NotReady (the topology cannot run yet: topics
 * missing or wrongly partitioned), Assigning (a new target is due), Reconciling (a member is not
 * yet Stable at the target epoch), Stable, Dead.
 *
 * Task sets are `Assignment`s keyed by subtopology id (assignor/types.ts). Nothing here writes
 * records; streams-group-manager.ts computes them and `replay` applies them.
 */
import type { Assignment } from './assignor/types.js';
import { addPartition } from './assignor/types.js';
import { copyAssignment } from './consumer-group.js';
import type { ConfiguredTopology, StreamsTopology } from './streams-topology.js';

export type { StreamsTopology };
export type StreamsGroupState = 'Empty' | 'NotReady' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** Kafka's streams MemberState, with its record codes (StreamsGroupCurrentMemberAssignmentValue.State). */
export const StreamsMemberState = {
  STABLE: 0,
  UNREVOKED_TASKS: 1,
  UNRELEASED_TASKS: 2,
  UNKNOWN: 127,
} as const;
export type StreamsMemberStateCode = (typeof StreamsMemberState)[keyof typeof StreamsMemberState];

/** Kafka's MemberTaskOffsets: a member's last reported changelog offsets and end offsets, subtopology → partition → offset. */
export interface MemberTaskOffsets {
  offsets: Map<string, Map<number, bigint>>;
  endOffsets: Map<string, Map<number, bigint>>;
}

/** The three kinds of tasks a member holds. */
export interface TasksTuple {
  active: Assignment;
  standby: Assignment;
  warmup: Assignment;
}

export function emptyTasks(): TasksTuple {
  return { active: new Map(), standby: new Map(), warmup: new Map() };
}

export function copyTasks(t: TasksTuple): TasksTuple {
  return { active: copyAssignment(t.active), standby: copyAssignment(t.standby), warmup: copyAssignment(t.warmup) };
}

export function tasksEmpty(t: TasksTuple): boolean {
  for (const a of [t.active, t.standby, t.warmup]) for (const s of a.values()) if (s.size > 0) return false;
  return true;
}

/** The wire/record form: [{ subtopologyId, partitions }], sorted. */
export function toTaskIds(a: Assignment): { subtopologyId: string; partitions: number[] }[] {
  return [...a].filter(([, s]) => s.size > 0).sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .map(([subtopologyId, s]) => ({ subtopologyId, partitions: [...s].sort((x, y) => x - y) }));
}

export function fromTaskIds(ids: { subtopologyId: string; partitions: number[] }[] | null): Assignment {
  const a: Assignment = new Map();
  for (const t of ids ?? []) for (const p of t.partitions) addPartition(a, t.subtopologyId, p);
  return a;
}

export class StreamsGroupMember {
  instanceId: string | null = null;
  rackId: string | null = null;
  clientId = '';
  clientHost = '';
  rebalanceTimeoutMs = -1;
  topologyEpoch = 0;
  processId = '';
  userEndpoint: { host: string; port: number } | null = null;
  clientTags: { key: string; value: string }[] = [];
  memberEpoch = 0;
  previousMemberEpoch = 0;
  state: StreamsMemberStateCode = StreamsMemberState.STABLE;
  assigned: TasksTuple = emptyTasks();
  pendingRevocation: TasksTuple = emptyTasks();

  constructor(readonly memberId: string) {}

  copyAs(memberId: string): StreamsGroupMember {
    const m = Object.assign(new StreamsGroupMember(memberId), this) as StreamsGroupMember;
    (m as { memberId: string }).memberId = memberId;
    m.clientTags = this.clientTags.map((t) => ({ ...t }));
    m.assigned = copyTasks(this.assigned);
    m.pendingRevocation = copyTasks(this.pendingRevocation);
    return m;
  }

  clone(): StreamsGroupMember {
    return this.copyAs(this.memberId);
  }
}

/** Kafka's StreamsGroup. */
export class StreamsGroup {
  groupEpoch = 0;
  /** StreamsGroupMetadataValue.MetadataHash: the topics' shape the group epoch was last bumped for. */
  metadataHash = 0n;
  /** The topology epoch whose topics were last found in a valid configuration (-1: none). */
  validatedTopologyEpoch = -1;
  assignmentEpoch = 0;
  topology: StreamsTopology | null = null;
  readonly members = new Map<string, StreamsGroupMember>();
  readonly staticMembers = new Map<string, string>();
  /** member id → target tasks. */
  readonly target = new Map<string, TasksTuple>();
  /** When the target was last computed (in memory; replay of its record sets it). */
  lastAssignmentMs = Number.NEGATIVE_INFINITY;
  /** When the group was created or loaded (in memory): the initial rebalance delay counts from it. */
  createdMs = 0;
  /** Until when the first assignment after the first member joined waits for more (in memory; null: not waiting). */
  initialDelayUntil: number | null = null;
  /** Whether the topology could run at the last heartbeat (in memory): NotReady otherwise. */
  ready = false;
  /** The topology as last configured against the topics, and the topics hash it was for (in memory). */
  configuredCache: { topology: StreamsTopology; hash: bigint; configured: ConfiguredTopology } | null = null;
  /**
   * Each member's latest changelog offsets and end offsets per task, as its heartbeats report
   * them: a heartbeat's list replaces the previous one (in memory, as in Kafka 4.4; the assignor
   * ranks standby candidates by them; StreamsGroupDescribe shows them). member id → offsets.
   */
  readonly taskOffsets = new Map<string, MemberTaskOffsets>();
  /**
   * The assignment configs the group's target was last computed with (StreamsGroupMetadataValue.
   * LastAssignmentConfigs, replayed): num.standby.replicas and rack.aware.assignment.tags.
   */
  lastAssignmentConfigs: { key: string; value: string }[] = [];
  /** A member asked the whole application to shut down (in memory, as in Kafka). */
  /** The member that asked first, or null. */
  shutdownRequestedBy: string | null = null;
  /** The endpoints' epoch (IQ): bumped in memory when a member's endpoint or tasks change. */
  endpointInformationEpoch = 0;
  dead = false;
  /** subtopology → partition → id of the member owning that active task (assigned or pending revocation). */
  private readonly activeOwners = new Map<string, Map<number, string>>();

  constructor(readonly groupId: string) {}

  get state(): StreamsGroupState {
    if (this.dead) return 'Dead';
    if (this.members.size === 0) return 'Empty';
    if (!this.ready || this.topology === null) return 'NotReady';
    if (this.groupEpoch > this.assignmentEpoch) return 'Assigning';
    for (const m of this.members.values()) {
      if (m.state !== StreamsMemberState.STABLE || m.memberEpoch !== this.assignmentEpoch) return 'Reconciling';
    }
    return 'Stable';
  }

  /** The member owning an active task, or undefined. */
  activeOwner(subtopologyId: string, partition: number): string | undefined {
    return this.activeOwners.get(subtopologyId)?.get(partition);
  }

  putMember(m: StreamsGroupMember): void {
    const old = this.members.get(m.memberId);
    if (old) this.unindex(old);
    this.members.set(m.memberId, m);
    if (m.instanceId !== null) this.staticMembers.set(m.instanceId, m.memberId);
    this.index(m);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.unindex(old);
    this.members.delete(memberId);
    if (old.instanceId !== null && this.staticMembers.get(old.instanceId) === memberId) this.staticMembers.delete(old.instanceId);
  }

  staticMember(instanceId: string): StreamsGroupMember | undefined {
    const id = this.staticMembers.get(instanceId);
    return id === undefined ? undefined : this.members.get(id);
  }

  private index(m: StreamsGroupMember): void {
    for (const a of [m.assigned.active, m.pendingRevocation.active]) {
      for (const [sub, parts] of a) {
        let owners = this.activeOwners.get(sub);
        if (!owners) this.activeOwners.set(sub, (owners = new Map()));
        for (const p of parts) owners.set(p, m.memberId);
      }
    }
  }

  private unindex(m: StreamsGroupMember): void {
    for (const a of [m.assigned.active, m.pendingRevocation.active]) {
      for (const [sub, parts] of a) {
        const owners = this.activeOwners.get(sub);
        if (!owners) continue;
        for (const p of parts) if (owners.get(p) === m.memberId) owners.delete(p);
        if (owners.size === 0) this.activeOwners.delete(sub);
      }
    }
  }

  /** Whether a member of `processId` other than `memberId` holds the task in any role (a standby may not join it there yet). */
  heldInProcess(processId: string, memberId: string, subtopologyId: string, partition: number): boolean {
    for (const m of this.members.values()) {
      if (m.memberId === memberId || m.processId !== processId) continue;
      for (const t of [m.assigned, m.pendingRevocation]) {
        if (t.active.get(subtopologyId)?.has(partition) || t.standby.get(subtopologyId)?.has(partition) || t.warmup.get(subtopologyId)?.has(partition)) return true;
      }
    }
    return false;
  }
}
