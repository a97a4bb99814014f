/**
 * The task assignor of streams groups (Kafka's streams StickyTaskAssignor, "sticky"): active
 * tasks balanced over the members, each member keeping the tasks it had as far as balance allows,
 * then standby replicas of each task on other processes (never two copies of a task in one
 * process, as their state directories would clash).
 *
 * Active tasks, in the order (partition, subtopology) so that one member tends to hold the same
 * partition of several subtopologies (they read co-partitioned data):
 * 1. a task stays with its previous active owner while that member is under its quota (every
 *    member gets floor(tasks/members), and tasks % members of them one more);
 * 2. the rest go to a member that held the task as a standby (its state is warm) if it is under
 *    quota, else to the member holding that partition of another subtopology, else to the least
 *    loaded member (ties: the member id order).
 * Standby tasks (num.standby.replicas per task): a member of another process than the active
 * task's and every other copy's, preferring one that had the task (active or standby) before,
 * then the least loaded one. Fewer replicas than asked when there are not enough processes.
 * Warm-up tasks are not assigned (Samsa's difference: docs/gaps.md).
 */
import type { Assignment } from './types.js';
import { addPartition } from './types.js';

export interface StreamsAssignorMember {
  processId: string;
  /** What the member had: active and standby tasks (assigned or still pending revocation). */
  active: Assignment;
  standby: Assignment;
}

export interface StreamsAssignmentSpec {
  members: Map<string, StreamsAssignorMember>;
  /** subtopology id → number of tasks (partitions 0..n-1). */
  tasks: Map<string, number>;
  numStandbyReplicas: number;
}

export interface StreamsMemberTarget {
  active: Assignment;
  standby: Assignment;
  warmup: Assignment;
}

export const STREAMS_ASSIGNOR_NAME = 'sticky';

function has(a: Assignment, sub: string, p: number): boolean {
  return a.get(sub)?.has(p) ?? false;
}

export function assignStreamsTasks(spec: StreamsAssignmentSpec): Map<string, StreamsMemberTarget> {
  const out = new Map<string, StreamsMemberTarget>();
  const ids = [...spec.members.keys()].sort();
  for (const id of ids) out.set(id, { active: new Map(), standby: new Map(), warmup: new Map() });
  if (ids.length === 0) return out;

  const tasks: [string, number][] = [];
  for (const [sub, n] of spec.tasks) for (let p = 0; p < n; p++) tasks.push([sub, p]);
  tasks.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));

  // Active tasks.
  const load = new Map<string, number>(ids.map((id) => [id, 0]));
  const floor = Math.floor(tasks.length / ids.length);
  let extras = tasks.length % ids.length;
  const mayTake = (id: string): boolean => {
    const n = load.get(id)!;
    return n < floor || (n === floor && extras > 0);
  };
  const give = (id: string, sub: string, p: number): void => {
    if (load.get(id)! === floor) extras--;
    load.set(id, load.get(id)! + 1);
    addPartition(out.get(id)!.active, sub, p);
  };
  const activeOwner = new Map<string, string>();
  /** partition → the member given it first (in any subtopology). */
  const partitionHolder = new Map<number, string>();
  const rest: [string, number][] = [];
  for (const [sub, p] of tasks) {
    const prev = ids.find((id) => has(spec.members.get(id)!.active, sub, p));
    if (prev !== undefined && mayTake(prev)) {
      give(prev, sub, p);
      activeOwner.set(`${sub}\u0000${p}`, prev);
      if (!partitionHolder.has(p)) partitionHolder.set(p, prev);
    } else {
      rest.push([sub, p]);
    }
  }
  for (const [sub, p] of rest) {
    let pick = ids.find((id) => has(spec.members.get(id)!.standby, sub, p) && mayTake(id));
    const holder = partitionHolder.get(p);
    if (pick === undefined && holder !== undefined && mayTake(holder)) pick = holder;
    if (pick === undefined) {
      for (const id of ids) if (mayTake(id) && (pick === undefined || load.get(id)! < load.get(pick)!)) pick = id;
    }
    // Every task finds a member: the quotas add up to the number of tasks.
    give(pick!, sub, p);
    activeOwner.set(`${sub}\u0000${p}`, pick!);
    if (!partitionHolder.has(p)) partitionHolder.set(p, pick!);
  }

  // Standby tasks.
  if (spec.numStandbyReplicas > 0) {
    const total = new Map(load);
    for (const [sub, p] of tasks) {
      const owner = activeOwner.get(`${sub}\u0000${p}`)!;
      const usedProcesses = new Set([spec.members.get(owner)!.processId]);
      for (let r = 0; r < spec.numStandbyReplicas; r++) {
        let pick: string | undefined;
        let pickWarm = false;
        for (const id of ids) {
          const m = spec.members.get(id)!;
          if (usedProcesses.has(m.processId)) continue;
          const warm = has(m.standby, sub, p) || has(m.active, sub, p);
          if (pick === undefined || (warm && !pickWarm) || (warm === pickWarm && total.get(id)! < total.get(pick)!)) {
            pick = id;
            pickWarm = warm;
          }
        }
        if (pick === undefined) break;
        usedProcesses.add(spec.members.get(pick)!.processId);
        addPartition(out.get(pick)!.standby, sub, p);
        total.set(pick, total.get(pick)! + 1);
      }
    }
  }
  return out;
}
