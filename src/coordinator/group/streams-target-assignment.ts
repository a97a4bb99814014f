/**
 * What a streams group's target assignment is computed from, as Kafka 4.4 does it
 * (TargetAssignmentBuilder, MemberTaskOffsets, GroupMetadataManager's streamsGroupAssignmentConfigs
 * and the MISSING_CLIENT_TAGS check of its heartbeat):
 * - the members' current tasks (not those pending revocation) and their last reported task
 *   offsets go to the sticky assignor (assignor/streams-sticky.ts) with the subtopologies' task
 *   counts and whether they have state;
 * - the assignment configs: num.standby.replicas, and rack.aware.assignment.tags when set, kept
 *   in the group's metadata record (LastAssignmentConfigs): a change of them bumps the group epoch
 *   at the next heartbeat, and targets computed outside a heartbeat (a member removed) use the
 *   stored ones;
 * - warm-up tasks: none. Kafka 4.4.0's AssignmentRefiner.refine, which the heartbeat calls when
 *   streams.num.warmup.replicas > 0, returns the target unchanged, and its assignor gives no
 *   warm-up tasks, so the target is what members reconcile towards.
 * Pure functions; the state they read belongs to the group coordinator shard's queue.
 */
import type { TaskOffset } from '../../protocol/generated/messages/streams-group-heartbeat-request.js';
import type { LastAssignmentConfig } from '../../protocol/generated/messages/streams-group-metadata-value.js';
import { assignStreamsTasks, type StreamsAssignorMember, type StreamsSubtopologySpec } from './assignor/streams-sticky.js';
import type { MemberTaskOffsets, StreamsGroupMember, StreamsTopology, TasksTuple } from './streams-group.js';

function nested(list: TaskOffset[]): Map<string, Map<number, bigint>> {
  const out = new Map<string, Map<number, bigint>>();
  for (const o of list) {
    let parts = out.get(o.subtopologyId);
    if (!parts) out.set(o.subtopologyId, (parts = new Map()));
    parts.set(o.partition, o.offset);
  }
  return out;
}

/** MemberTaskOffsets.update: a list the heartbeat carries replaces the previous one whole; a null list keeps it. */
export function updateTaskOffsets(prev: MemberTaskOffsets | undefined, offsets: TaskOffset[] | null, endOffsets: TaskOffset[] | null): MemberTaskOffsets {
  return {
    offsets: offsets === null ? prev?.offsets ?? new Map() : nested(offsets),
    endOffsets: endOffsets === null ? prev?.endOffsets ?? new Map() : nested(endOffsets),
  };
}

/** The assignment configs, sorted by key (Kafka builds them in a TreeMap). */
export type AssignmentConfigs = LastAssignmentConfig[];

const NUM_STANDBY_REPLICAS = 'num.standby.replicas';
const RACK_AWARE_ASSIGNMENT_TAGS = 'rack.aware.assignment.tags';

/** GroupMetadataManager.streamsGroupAssignmentConfigs. */
export function assignmentConfigs(numStandbyReplicas: number, rackAwareAssignmentTags: readonly string[]): AssignmentConfigs {
  const out: AssignmentConfigs = [{ key: NUM_STANDBY_REPLICAS, value: String(numStandbyReplicas) }];
  if (rackAwareAssignmentTags.length > 0) out.push({ key: RACK_AWARE_ASSIGNMENT_TAGS, value: rackAwareAssignmentTags.join(',') });
  return out;
}

/** Map equality of two config lists (the stored order is the writer's). */
export function sameAssignmentConfigs(a: AssignmentConfigs, b: AssignmentConfigs): boolean {
  if (a.length !== b.length) return false;
  const m = new Map(a.map((c) => [c.key, c.value]));
  return b.every((c) => m.get(c.key) === c.value);
}

/** AssignmentConfigsImpl.fromMap's standby replicas: 0 for empty configs (a group whose metadata record has none). */
export function standbyReplicasOf(configs: AssignmentConfigs): number {
  const v = configs.find((c) => c.key === NUM_STANDBY_REPLICAS)?.value;
  return v === undefined ? 0 : Number.parseInt(v, 10) || 0;
}

/**
 * The MISSING_CLIENT_TAGS status detail for a member (StreamsGroupHeartbeat v1+): the configured
 * rack-aware assignment tags it does not report among its client tags, or null.
 */
export function missingClientTagsDetail(configs: AssignmentConfigs, clientTags: readonly { key: string }[]): string | null {
  const tags = (configs.find((c) => c.key === RACK_AWARE_ASSIGNMENT_TAGS)?.value ?? '').trim();
  if (tags === '') return null;
  const have = new Set(clientTags.map((t) => t.key));
  const missing = tags.split(/\s*,\s*/).filter((t) => !have.has(t));
  if (missing.length === 0) return null;
  return `Missing required client tags for rack-aware standby assignment: [${missing.join(', ')}]. Configure them via 'client.tag.<tagKey>' in your Streams config.`;
}

export interface StreamsTargetInput {
  /** Every member, in the group's order, the heartbeating one as updated by its request. */
  members: ReadonlyMap<string, StreamsGroupMember>;
  topology: StreamsTopology | null;
  /** subtopology id → number of tasks; empty while the topology is not ready (every target empty). */
  tasks: ReadonlyMap<string, number>;
  numStandbyReplicas: number;
  /** member id → its last reported task offsets. */
  taskOffsets: ReadonlyMap<string, MemberTaskOffsets>;
}

/** TargetAssignmentBuilder.build: each member's new target (warm-up tasks always empty). */
export function computeStreamsTarget(input: StreamsTargetInput): Map<string, TasksTuple> {
  const stateful = new Set((input.topology?.subtopologies ?? []).filter((s) => s.stateChangelogTopics.length > 0).map((s) => s.subtopologyId));
  const subtopologies = new Map<string, StreamsSubtopologySpec>();
  for (const [sub, n] of input.tasks) subtopologies.set(sub, { tasks: n, stateful: stateful.has(sub) });
  const members = new Map<string, StreamsAssignorMember>();
  for (const m of input.members.values()) {
    members.set(m.memberId, { processId: m.processId, active: m.assigned.active, standby: m.assigned.standby, taskOffsets: input.taskOffsets.get(m.memberId)?.offsets });
  }
  return assignStreamsTasks({ members, subtopologies, numStandbyReplicas: input.numStandbyReplicas });
}
