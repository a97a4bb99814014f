/**
 * Reassignment plans for changing a cluster's shape (`samsa cluster add-broker` / `decommission`):
 * which replicas move where, with as few moves as possible, rack-aware, each move one replica
 * replaced in place (so a replaced preferred leader hands its preferred position to the newcomer).
 *
 * - decommission(id): every replica on `id` moves to the broker with the fewest replicas (counting
 *   the moves already planned) among those that do not hold the partition, preferring one whose
 *   rack the partition's other replicas do not use. Impossible when a partition has more replicas
 *   than the remaining brokers can hold.
 * - addBroker(id): replicas move to `id`, one at a time from the most loaded broker, until `id`
 *   holds its share (the replica count divided by the broker count, rounded down); a partition
 *   is picked where `id` adds a rack or at least does not repeat one, then by name.
 *
 * The plan runs through AlterPartitionReassignments (reassignment.ts): every partition keeps its
 * in-sync copies until the new replica has caught up.
 */

export interface PlanBroker {
  nodeId: number;
  rack: string | null;
}

export interface PlanPartition {
  topic: string;
  partition: number;
  replicas: number[];
}

export interface PlannedMove {
  topic: string;
  partition: number;
  from: number[];
  to: number[];
}

export class PlanError extends Error {}

function byName(a: PlanPartition, b: PlanPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

function counts(partitions: readonly PlanPartition[], brokers: readonly PlanBroker[]): Map<number, number> {
  const n = new Map(brokers.map((b) => [b.nodeId, 0]));
  for (const p of partitions) for (const id of p.replicas) n.set(id, (n.get(id) ?? 0) + 1);
  return n;
}

/** Racks used by `replicas` other than `except` (brokers without a rack use none). */
function racksOf(replicas: readonly number[], except: number, rack: Map<number, string | null>): Set<string> {
  const out = new Set<string>();
  for (const id of replicas) {
    const r = rack.get(id);
    if (id !== except && r) out.add(r);
  }
  return out;
}

export function planDecommission(partitions: readonly PlanPartition[], brokers: readonly PlanBroker[], id: number): PlannedMove[] {
  if (!brokers.some((b) => b.nodeId === id)) throw new PlanError(`broker ${id} is not registered`);
  const rack = new Map(brokers.map((b) => [b.nodeId, b.rack]));
  const remaining = brokers.filter((b) => b.nodeId !== id).map((b) => b.nodeId).sort((a, b) => a - b);
  const load = counts(partitions, brokers);
  const moves: PlannedMove[] = [];
  for (const p of [...partitions].sort(byName)) {
    const at = p.replicas.indexOf(id);
    if (at < 0) continue;
    const used = racksOf(p.replicas, id, rack);
    const candidates = remaining.filter((b) => !p.replicas.includes(b));
    if (candidates.length === 0) {
      throw new PlanError(`${p.topic}-${p.partition} has ${p.replicas.length} replicas: the other ${remaining.length} broker(s) cannot hold them all`);
    }
    const score = (b: number) => [rack.get(b) && used.has(rack.get(b)!) ? 1 : 0, load.get(b) ?? 0, b];
    candidates.sort((a, b) => {
      const x = score(a);
      const y = score(b);
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    });
    const to = [...p.replicas];
    to[at] = candidates[0];
    load.set(candidates[0], (load.get(candidates[0]) ?? 0) + 1);
    load.set(id, (load.get(id) ?? 0) - 1);
    moves.push({ topic: p.topic, partition: p.partition, from: [...p.replicas], to });
  }
  return moves;
}

export function planAddBroker(partitions: readonly PlanPartition[], brokers: readonly PlanBroker[], id: number): PlannedMove[] {
  if (!brokers.some((b) => b.nodeId === id)) throw new PlanError(`broker ${id} is not registered (start it first)`);
  const rack = new Map(brokers.map((b) => [b.nodeId, b.rack]));
  const newRack = rack.get(id) ?? null;
  const load = counts(partitions, brokers);
  const total = [...load.values()].reduce((a, b) => a + b, 0);
  const share = Math.floor(total / brokers.length);
  const current = new Map(partitions.map((p) => [`${p.topic}\0${p.partition}`, [...p.replicas]]));
  const moved = new Map<string, PlannedMove>();
  const sorted = [...partitions].sort(byName);
  while ((load.get(id) ?? 0) < share) {
    // The most loaded other broker gives one replica.
    const donors = [...load].filter(([b]) => b !== id).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    let done = false;
    for (const [donor, held] of donors) {
      if (held <= share) break;
      let best: { p: PlanPartition; score: number } | null = null;
      for (const p of sorted) {
        const key = `${p.topic}\0${p.partition}`;
        const replicas = current.get(key)!;
        if (!replicas.includes(donor) || replicas.includes(id) || moved.has(key)) continue;
        const used = racksOf(replicas, donor, rack);
        // 0: adds a rack (or no racks at all), 1: repeats one.
        const score = newRack && used.has(newRack) ? 1 : 0;
        if (!best || score < best.score) best = { p, score };
        if (score === 0) break;
      }
      if (!best) continue;
      const key = `${best.p.topic}\0${best.p.partition}`;
      const from = current.get(key)!;
      const to = from.map((b) => (b === donor ? id : b));
      current.set(key, to);
      moved.set(key, { topic: best.p.topic, partition: best.p.partition, from: [...from], to });
      load.set(donor, held - 1);
      load.set(id, (load.get(id) ?? 0) + 1);
      done = true;
      break;
    }
    if (!done) break;
  }
  return [...moved.values()];
}
