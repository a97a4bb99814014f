/**
 * The task assignor of streams groups, Kafka 4.4.0's StickyTaskAssignor ("sticky") move for move,
 * written from its bytecode (org.apache.kafka.coordinator.group.streams.assignor). Kafka's own
 * assignor is the oracle of test/coordinator/group/assignor/streams-sticky-kafka.test.ts.
 *
 * Inputs, as Kafka's TargetAssignmentBuilder gives them: each member's process and *current*
 * tasks (what it was given and has not revoked; tasks pending revocation do not count), the
 * changelog offset sums it last reported per task, the subtopologies (sorted by id) with their
 * task counts and whether they have state, and num.standby.replicas.
 *
 * Quotas: a member may take ceil(active tasks / members) active tasks and ceil(all tasks /
 * members) tasks in total (standbys of stateful tasks included); once a member fills a quota,
 * the quota is recomputed over the tasks and members left.
 *
 * Active tasks, in (partition, subtopology) order:
 * 1. a task stays with its previous owner while that member is under its active quota;
 * 2. otherwise it goes to its best standby candidate under quota (below);
 * 3. the rest, in (subtopology, partition) order, go to the least loaded process (load = tasks /
 *    members; ties by the heap's order), and in it to its least loaded member.
 * Standby tasks, stateful tasks only, in descending (partition, subtopology) order, each replica:
 * to the previous active owner if its process does not hold the task yet and it is under its
 * total quota; else to the best standby candidate whose process does not hold the task; the
 * replicas left over go, in descending (subtopology, partition) order, to the least loaded
 * process not holding the task. Fewer replicas than asked when the processes run out.
 *
 * Standby candidates of a task (4.4.0's collectStandbyCandidates / rankStandbyCandidates):
 * members holding it as a standby now, then members that only reported offsets for it (a
 * restarted instance with a new member id and the state on its disk), each group ranked by the
 * reported offset sum, most caught up first (0 when not reported), then in member order. The best
 * candidate is the first of them, replaced only by a later one both on a less loaded process and
 * with fewer tasks.
 *
 * Ties follow Java's HashMap and PriorityQueue orders (java-order.ts): the members in the order
 * of the assignor's hash map of member ids, processes in that of its hash map of process ids.
 * Kafka 4.4.0 assigns no warm-up tasks (its AssignmentRefiner returns the target unchanged) and
 * does not use rack ids or client tags to place standbys: neither does this.
 */
import type { Assignment } from './types.js';
import { addPartition } from './types.js';
import { JavaPriorityQueue, javaHashMapOrder } from './java-order.js';

export interface StreamsAssignorMember {
  processId: string;
  /** The member's current tasks (Kafka's StreamsGroupMember.assignedTasks). Warm-up tasks play no part in 4.4.0. */
  active: Assignment;
  standby: Assignment;
  /** Its last reported changelog offset sums: subtopology → partition → offset (Kafka's MemberTaskOffsets.taskOffsets). */
  taskOffsets?: ReadonlyMap<string, ReadonlyMap<number, bigint>>;
}

export interface StreamsSubtopologySpec {
  /** Number of tasks (partitions 0..n-1). */
  tasks: number;
  /** Whether it has state changelog topics (only stateful tasks get standbys). */
  stateful: boolean;
}

export interface StreamsAssignmentSpec {
  /** Every member, in the order the group holds them (the order they go into Kafka's hash map of members). */
  members: ReadonlyMap<string, StreamsAssignorMember>;
  subtopologies: ReadonlyMap<string, StreamsSubtopologySpec>;
  numStandbyReplicas: number;
}

export interface StreamsMemberTarget {
  active: Assignment;
  standby: Assignment;
  warmup: Assignment;
}

export const STREAMS_ASSIGNOR_NAME = 'sticky';

interface TaskId {
  subtopologyId: string;
  partition: number;
  key: string;
}

interface Member {
  processId: string;
  memberId: string;
}

const taskKey = (subtopologyId: string, partition: number) => `${subtopologyId}\u0000${partition}`;
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byPartitionThenSubtopology = (a: TaskId, b: TaskId) => a.partition - b.partition || cmpStr(a.subtopologyId, b.subtopologyId);
const bySubtopologyThenPartition = (a: TaskId, b: TaskId) => cmpStr(a.subtopologyId, b.subtopologyId) || a.partition - b.partition;
/** Double.compare on loads (never NaN). */
const byLoad = (a: ProcessState, b: ProcessState) => (a.load < b.load ? -1 : a.load > b.load ? 1 : 0);

/** Kafka's computeTasksPerMember: ceil(tasks / members), 0 without members. */
function tasksPerMember(tasks: number, members: number): number {
  if (members === 0) return 0;
  return Math.trunc(tasks / members) + (tasks % members > 0 ? 1 : 0);
}

/** Kafka's ProcessState: the members of one process, their task counts and the process's load. */
class ProcessState {
  capacity = 0;
  load = Number.MAX_VALUE;
  private taskCount = 0;
  /** Member ids in the order they were put in (Java's memberToTaskCounts insertion order). */
  private readonly memberOrder: string[] = [];
  readonly counts = new Map<string, number>();
  readonly assigned = new Set<string>();
  readonly active = new Map<string, TaskId[]>();
  readonly standby = new Map<string, TaskId[]>();
  private membersByLoad: JavaPriorityQueue<{ memberId: string; count: number }> | null = null;

  addMember(memberId: string): void {
    if (!this.counts.has(memberId)) this.memberOrder.push(memberId);
    this.counts.set(memberId, 0);
    this.capacity++;
    this.computeLoad();
  }

  hasTask(t: TaskId): boolean {
    return this.assigned.has(t.key);
  }

  addTask(memberId: string, t: TaskId, isActive: boolean): number {
    const n = this.addTaskInternal(memberId, t, isActive);
    this.membersByLoad = null;
    return n;
  }

  /** The task to the member with the fewest tasks (ties by Java's heap); -1 without members. */
  addTaskToLeastLoadedMember(t: TaskId, isActive: boolean): number {
    if (this.counts.size === 0) return -1;
    if (this.counts.size === 1) return this.addTaskInternal(this.memberOrder[0], t, isActive);
    if (this.membersByLoad === null) {
      this.membersByLoad = new JavaPriorityQueue((a, b) => a.count - b.count);
      for (const id of javaHashMapOrder(this.memberOrder)) this.membersByLoad.add({ memberId: id, count: this.counts.get(id)! });
    }
    const e = this.membersByLoad.poll()!;
    const n = this.addTaskInternal(e.memberId, t, isActive);
    e.count = n;
    this.membersByLoad.add(e);
    return n;
  }

  private addTaskInternal(memberId: string, t: TaskId, isActive: boolean): number {
    this.taskCount++;
    this.assigned.add(t.key);
    const into = isActive ? this.active : this.standby;
    let list = into.get(memberId);
    if (!list) into.set(memberId, (list = []));
    list.push(t);
    const n = this.counts.get(memberId)! + 1;
    this.counts.set(memberId, n);
    this.computeLoad();
    return n;
  }

  private computeLoad(): void {
    this.load = this.capacity <= 0 ? -1 : this.taskCount / this.capacity;
  }
}

interface StandbyCandidate {
  member: Member;
  isPrevStandby: boolean;
  offsetSum: bigint;
}

/** Kafka's STANDBY_CANDIDATE_ORDER: current standbys first, then the larger offset sum (a stable sort keeps member order). */
function candidateOrder(a: StandbyCandidate, b: StandbyCandidate): number {
  if (a.isPrevStandby !== b.isPrevStandby) return a.isPrevStandby ? -1 : 1;
  return a.offsetSum > b.offsetSum ? -1 : a.offsetSum < b.offsetSum ? 1 : 0;
}

export function assignStreamsTasks(spec: StreamsAssignmentSpec): Map<string, StreamsMemberTarget> {
  const out = new Map<string, StreamsMemberTarget>();
  for (const id of spec.members.keys()) out.set(id, { active: new Map(), standby: new Map(), warmup: new Map() });
  // Kafka never runs its assignor without members (it would find no process for the first task).
  if (spec.members.size === 0) return out;
  const numStandbyReplicas = spec.numStandbyReplicas;

  // initialize
  const subtopologies = [...spec.subtopologies.keys()].sort(cmpStr);
  let totalActiveTasks = 0;
  let totalTasks = 0;
  for (const sub of subtopologies) {
    const s = spec.subtopologies.get(sub)!;
    totalTasks += s.tasks;
    totalActiveTasks += s.tasks;
    if (s.stateful) totalTasks += s.tasks * numStandbyReplicas;
  }
  const memberIds = javaHashMapOrder(spec.members.keys());
  let membersWithActiveCapacity = memberIds.length;
  let membersWithTaskCapacity = memberIds.length;
  let activeTasksPerMember = tasksPerMember(totalActiveTasks, membersWithActiveCapacity);
  let totalTasksPerMember = tasksPerMember(totalTasks, membersWithTaskCapacity);

  const processes = new Map<string, ProcessState>();
  const activeTaskToPrevMember = new Map<string, Member>();
  const candidates = new Map<string, StandbyCandidate[]>();
  const addCandidate = (key: string, c: StandbyCandidate) => {
    let list = candidates.get(key);
    if (!list) candidates.set(key, (list = []));
    list.push(c);
  };
  for (const memberId of memberIds) {
    const m = spec.members.get(memberId)!;
    const member: Member = { processId: m.processId, memberId };
    let ps = processes.get(m.processId);
    if (!ps) processes.set(m.processId, (ps = new ProcessState()));
    ps.addMember(memberId);
    for (const [sub, parts] of m.active) for (const p of parts) activeTaskToPrevMember.set(taskKey(sub, p), member);
    for (const [sub, parts] of m.standby) {
      for (const p of parts) addCandidate(taskKey(sub, p), { member, isPrevStandby: true, offsetSum: m.taskOffsets?.get(sub)?.get(p) ?? 0n });
    }
    for (const [sub, offsets] of m.taskOffsets ?? []) {
      for (const [p, offsetSum] of offsets) {
        if (m.standby.get(sub)?.has(p)) continue;
        addCandidate(taskKey(sub, p), { member, isPrevStandby: false, offsetSum });
      }
    }
  }
  const standbyTaskToPrevMember = new Map<string, Member[]>();
  for (const [key, list] of candidates) standbyTaskToPrevMember.set(key, list.sort(candidateOrder).map((c) => c.member));
  // processIdToState = new HashMap<>(members), filled by computeIfAbsent once per member.
  const processOrder = javaHashMapOrder(memberIds.map((id) => spec.members.get(id)!.processId), { initialCapacity: memberIds.length, insertion: 'computeIfAbsent' })
    .map((pid) => processes.get(pid)!);

  const maybeUpdateActiveTasksPerMember = (n: number) => {
    if (n !== activeTasksPerMember) return;
    membersWithActiveCapacity--;
    totalActiveTasks -= n;
    activeTasksPerMember = tasksPerMember(totalActiveTasks, membersWithActiveCapacity);
  };
  const maybeUpdateTotalTasksPerMember = (n: number) => {
    if (n !== totalTasksPerMember) return;
    membersWithTaskCapacity--;
    totalTasks -= n;
    totalTasksPerMember = tasksPerMember(totalTasks, membersWithTaskCapacity);
  };
  const processOf = (m: Member) => processes.get(m.processId)!;
  const countOf = (m: Member) => processOf(m).counts.get(m.memberId)!;

  /** The first candidate, replaced by a later one only if both its process load and its task count are lower. */
  const findPrevMemberWithLeastLoad = (members: Member[] | undefined, task: TaskId | null): Member | null => {
    if (!members || members.length === 0) return null;
    let best: Member | null = null;
    let bestLoad = Number.MAX_VALUE;
    let bestCount = Number.MAX_VALUE;
    for (const m of members) {
      const ps = processOf(m);
      if (task !== null && ps.hasTask(task)) continue;
      const load = ps.load;
      const count = ps.counts.get(m.memberId)!;
      if (best === null || (load < bestLoad && count < bestCount)) {
        best = m;
        bestLoad = load;
        bestCount = count;
      }
    }
    return best;
  };

  const taskIds = (statefulOnly: boolean): TaskId[] => {
    const ids: TaskId[] = [];
    for (const sub of subtopologies) {
      const s = spec.subtopologies.get(sub)!;
      if (statefulOnly && !s.stateful) continue;
      for (let p = 0; p < s.tasks; p++) ids.push({ subtopologyId: sub, partition: p, key: taskKey(sub, p) });
    }
    return ids;
  };

  // assignActive
  const activeTasks = taskIds(false).sort(byPartitionThenSubtopology);
  const notWithPrevOwner: TaskId[] = [];
  for (const t of activeTasks) {
    const prev = activeTaskToPrevMember.get(t.key);
    if (prev && countOf(prev) < activeTasksPerMember) {
      const n = processOf(prev).addTask(prev.memberId, t, true);
      maybeUpdateActiveTasksPerMember(n);
      maybeUpdateTotalTasksPerMember(n);
    } else {
      notWithPrevOwner.push(t);
    }
  }
  const leftOver: TaskId[] = [];
  for (const t of notWithPrevOwner) {
    const m = findPrevMemberWithLeastLoad(standbyTaskToPrevMember.get(t.key), null);
    if (m && countOf(m) < activeTasksPerMember) {
      const n = processOf(m).addTask(m.memberId, t, true);
      maybeUpdateActiveTasksPerMember(n);
      maybeUpdateTotalTasksPerMember(n);
    } else {
      leftOver.push(t);
    }
  }
  leftOver.sort(bySubtopologyThenPartition);
  const activeQueue = new JavaPriorityQueue<ProcessState>(byLoad);
  activeQueue.addAll(processOrder);
  for (const t of leftOver) {
    const ps = activeQueue.poll()!;
    const n = ps.addTaskToLeastLoadedMember(t, true);
    maybeUpdateActiveTasksPerMember(n);
    maybeUpdateTotalTasksPerMember(n);
    activeQueue.add(ps);
  }

  // assignStandby
  if (numStandbyReplicas > 0) {
    const standbyTasks = taskIds(true).sort((a, b) => byPartitionThenSubtopology(b, a));
    const toAssign: { task: TaskId; remainingReplicas: number }[] = [];
    for (const t of standbyTasks) {
      for (let i = 0; i < numStandbyReplicas; i++) {
        const prevActive = activeTaskToPrevMember.get(t.key);
        if (prevActive) {
          const ps = processOf(prevActive);
          if (!ps.hasTask(t) && countOf(prevActive) < totalTasksPerMember) {
            maybeUpdateTotalTasksPerMember(ps.addTask(prevActive.memberId, t, false));
            continue;
          }
        }
        const m = findPrevMemberWithLeastLoad(standbyTaskToPrevMember.get(t.key), t);
        if (m && countOf(m) < totalTasksPerMember) {
          maybeUpdateTotalTasksPerMember(processOf(m).addTask(m.memberId, t, false));
          continue;
        }
        toAssign.push({ task: t, remainingReplicas: numStandbyReplicas - i });
        break;
      }
    }
    toAssign.sort((a, b) => bySubtopologyThenPartition(b.task, a.task));
    const standbyQueue = new JavaPriorityQueue<ProcessState>(byLoad);
    standbyQueue.addAll(processOrder);
    /** Kafka's assignStandbyToMemberWithLeastLoad: polls processes until one lacks the task, then puts them all back. */
    const toLeastLoaded = (t: TaskId): boolean => {
      const ps = standbyQueue.poll();
      if (!ps) return false;
      let found = false;
      if (!ps.hasTask(t)) {
        const n = ps.addTaskToLeastLoadedMember(t, false);
        if (n !== -1) {
          found = true;
          maybeUpdateTotalTasksPerMember(n);
        }
      } else if (!standbyQueue.isEmpty()) {
        found = toLeastLoaded(t);
      }
      standbyQueue.add(ps);
      return found;
    };
    for (const s of toAssign) {
      for (let i = 0; i < s.remainingReplicas; i++) if (!toLeastLoaded(s.task)) break;
    }
  }

  // buildGroupAssignment
  for (const ps of processes.values()) {
    for (const [memberId, tasks] of ps.active) for (const t of tasks) addPartition(out.get(memberId)!.active, t.subtopologyId, t.partition);
    for (const [memberId, tasks] of ps.standby) for (const t of tasks) addPartition(out.get(memberId)!.standby, t.subtopologyId, t.partition);
  }
  return out;
}
