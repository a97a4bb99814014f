/**
 * `samsa cluster add-broker ID` and `samsa cluster decommission ID`: a plan from the cluster's
 * metadata (cluster/reassignment-plan.ts), run through AlterPartitionReassignments, followed to
 * the end with a progress bar (bytes the new replicas hold against their leaders' sizes, from
 * DescribeLogDirs on each broker, and an ETA from the copy rate so far).
 *
 * With --throttle B, as kafka-reassign-partitions --throttle does: before the move every broker
 * of the old and new replica sets gets leader/follower.replication.throttled.rate = B (dynamic
 * broker configs, IncrementalAlterConfigs sent to that broker), and each moving topic
 * leader.replication.throttled.replicas (partition:broker for the current replicas) and
 * follower.replication.throttled.replicas (the replicas being added); all removed once the
 * move ends (or the command gives up).
 */
import { bool, flag, intFlag, parseArgs, UsageError } from './args.js';
import { KafkaClient, KafkaError } from './client.js';
import { clientSecurityFromFile } from './command-config.js';
import type { Io } from './commands.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import type { MetadataResponse } from '../protocol/generated/messages/metadata-response.js';
import { PlanError, planAddBroker, planDecommission, type PlannedMove } from '../cluster/reassignment-plan.js';

export const REASSIGN_HELP = `usage: samsa cluster add-broker ID [options]
       samsa cluster decommission ID [options]

add-broker moves replicas onto broker ID (already started and registered) until it holds its
share; decommission moves every replica off broker ID, which can then be stopped. Each partition
keeps its in-sync copies until the new replica has caught up (AlterPartitionReassignments).

  -b, --bootstrap h:p      a broker of the cluster (default localhost:9092, or $SAMSA_BOOTSTRAP)
  --command-config FILE    client security settings (Kafka's properties)
  --dry-run                print the plan only
  --timeout-ms N           give up waiting after N ms (default 0: wait until done)
  --throttle BYTES_PER_S   bound the copy traffic per broker while moving (removed at the end)
`;

const LEADER_RATE = 'leader.replication.throttled.rate';
const FOLLOWER_RATE = 'follower.replication.throttled.rate';
const LEADER_REPLICAS = 'leader.replication.throttled.replicas';
const FOLLOWER_REPLICAS = 'follower.replication.throttled.replicas';
const TOPIC = 2;
const BROKER = 4;
const SET = 0;
const DELETE = 1;

/** Kafka's throttled-replica lists for a plan: leaders = current replicas, followers = the added ones. */
export function throttledReplicas(moves: readonly PlannedMove[]): Map<string, { leader: string; follower: string }> {
  const out = new Map<string, { leader: string[]; follower: string[] }>();
  for (const m of moves) {
    let t = out.get(m.topic);
    if (!t) out.set(m.topic, (t = { leader: [], follower: [] }));
    for (const b of m.from) t.leader.push(`${m.partition}:${b}`);
    for (const b of m.to) if (!m.from.includes(b)) t.follower.push(`${m.partition}:${b}`);
  }
  return new Map([...out].map(([topic, t]) => [topic, { leader: t.leader.join(','), follower: t.follower.join(',') }]));
}

async function alterConfigs(c: KafkaClient, resources: { resourceType: number; resourceName: string; configs: { name: string; configOperation: number; value: string | null }[] }[]): Promise<void> {
  const res = await c.request(44, { resources, validateOnly: false });
  for (const r of res.responses) if (r.errorCode !== ErrorCode.NONE) throw new KafkaError(r.errorCode, `${r.resourceName}: ${r.errorMessage ?? ''}`);
}

type Security = ReturnType<typeof clientSecurityFromFile> | undefined;

function fmtBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

/** One line of progress: `[#####.....] 52% 120 MiB / 230 MiB, 3 moving, ETA 12 s`. */
export function progressLine(copied: number, total: number, moving: number, etaS: number | null): string {
  const frac = total > 0 ? Math.min(1, copied / total) : 1;
  const width = 30;
  const filled = Math.round(frac * width);
  const eta = etaS === null ? '' : `, ETA ${etaS < 1 ? '<1' : Math.round(etaS)} s`;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor(frac * 100)}% ${fmtBytes(copied)} / ${fmtBytes(total)}, ${moving} partition(s) moving${eta}`;
}

async function metadata(c: KafkaClient): Promise<MetadataResponse> {
  return c.request(3, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
}

/** Partition sizes one broker holds, for the given partitions. */
async function sizesOn(c: KafkaClient, parts: { topic: string; partition: number }[]): Promise<Map<string, number>> {
  const byTopic = new Map<string, number[]>();
  for (const p of parts) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  const res = await c.request(35, { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) });
  const out = new Map<string, number>();
  for (const dir of res.results) for (const t of dir.topics) for (const p of t.partitions) out.set(`${t.name}-${p.partitionIndex}`, Number(p.partitionSize));
  return out;
}

export async function reassignCommand(kind: 'add-broker' | 'decommission', argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const p = parseArgs(argv, {
    bootstrap: { value: true, alias: 'b' }, 'command-config': { value: true }, 'dry-run': {}, 'timeout-ms': { value: true }, throttle: { value: true }, help: { alias: 'h' },
  });
  if (p.flags.has('help')) {
    io.out(REASSIGN_HELP);
    return 0;
  }
  const id = Number(p.positionals[1]);
  if (!Number.isInteger(id) || id < 0) throw new UsageError(`${kind} needs a broker id`);
  const bootstrap = flag(p, 'bootstrap') ?? process.env.SAMSA_BOOTSTRAP ?? 'localhost:9092';
  const commandConfig = flag(p, 'command-config');
  const security: Security = commandConfig ? clientSecurityFromFile(commandConfig) : undefined;
  const timeoutMs = intFlag(p, 'timeout-ms', 0)!;
  const throttle = intFlag(p, 'throttle', -1)!;
  if (p.flags.has('throttle') && !(throttle > 0)) throw new UsageError('--throttle needs a rate in bytes per second (> 0)');
  const c = await KafkaClient.connect({ bootstrap, ...(security ? { security } : {}) });
  const perBroker = new Map<number, KafkaClient>();
  let throttled: { brokers: number[]; topics: string[]; clientOf: (n: number) => Promise<KafkaClient>; c: KafkaClient } | null = null;
  try {
    const md = await metadata(c);
    const brokers = md.brokers.map((b) => ({ nodeId: b.nodeId, rack: b.rack }));
    const partitions = md.topics.flatMap((t) => t.partitions.map((x) => ({ topic: t.name ?? '', partition: x.partitionIndex, replicas: x.replicaNodes })));
    let moves: PlannedMove[];
    try {
      moves = kind === 'decommission' ? planDecommission(partitions, brokers, id) : planAddBroker(partitions, brokers, id);
    } catch (e) {
      if (e instanceof PlanError) {
        io.err(`samsa: ${kind} ${id}: ${e.message}\n`);
        return 1;
      }
      throw e;
    }
    if (moves.length === 0) {
      io.out(`nothing to move: broker ${id} ${kind === 'decommission' ? 'holds no replica' : 'already holds its share'}\n`);
      return 0;
    }
    for (const m of moves) io.out(`${m.topic}-${m.partition}: [${m.from.join(',')}] -> [${m.to.join(',')}]\n`);
    if (bool(p, 'dry-run')) return 0;

    const byTopic = new Map<string, PlannedMove[]>();
    for (const m of moves) byTopic.set(m.topic, [...(byTopic.get(m.topic) ?? []), m]);
    const endpoint = new Map(md.brokers.map((b) => [b.nodeId, `${b.host}:${b.port}`]));
    const clientOf = async (node: number) => {
      let cl = perBroker.get(node);
      if (!cl) perBroker.set(node, (cl = await KafkaClient.connect({ bootstrap: endpoint.get(node)!, ...(security ? { security } : {}) })));
      return cl;
    };
    if (throttle > 0) {
      // Live brokers only: a decommissioned broker may already be gone.
      const brokers = [...new Set(moves.flatMap((m) => [...m.from, ...m.to]))].filter((b) => endpoint.has(b)).sort((a, b) => a - b);
      throttled = { brokers, topics: [...byTopic.keys()], clientOf, c };
      const lists = throttledReplicas(moves);
      await alterConfigs(c, [...lists].map(([topic, l]) => ({
        resourceType: TOPIC, resourceName: topic,
        configs: [{ name: LEADER_REPLICAS, configOperation: SET, value: l.leader }, { name: FOLLOWER_REPLICAS, configOperation: SET, value: l.follower }],
      })));
      for (const b of throttled.brokers) {
        await alterConfigs(await clientOf(b), [{ resourceType: BROKER, resourceName: String(b), configs: [LEADER_RATE, FOLLOWER_RATE].map((name) => ({ name, configOperation: SET, value: String(throttle) })) }]);
      }
      io.out(`throttle: ${throttle} B/s on brokers ${throttled.brokers.join(',')} (removed when the move ends)\n`);
    }
    const res = await c.request(45, {
      timeoutMs: 60_000, allowReplicationFactorChange: true,
      topics: [...byTopic].map(([name, ms]) => ({ name, partitions: ms.map((m) => ({ partitionIndex: m.partition, replicas: m.to })) })),
    });
    if (res.errorCode !== ErrorCode.NONE) throw new KafkaError(res.errorCode, res.errorMessage);
    const refused = res.responses.flatMap((t) => t.partitions.filter((x) => x.errorCode !== ErrorCode.NONE).map((x) => `${t.name}-${x.partitionIndex}: ${new KafkaError(x.errorCode, x.errorMessage).message}`));
    for (const r of refused) io.err(`samsa: refused: ${r}\n`);
    if (refused.length === moves.length) return 1;

    const started = Date.now();
    let firstCopied: { at: number; bytes: number } | null = null;
    for (;;) {
      const listed = await c.request(46, { timeoutMs: 30_000, topics: [...byTopic].map(([name, ms]) => ({ name, partitionIndexes: ms.map((m) => m.partition) })) });
      const moving = listed.topics.flatMap((t) => t.partitions.map((x) => ({ topic: t.name, partition: x.partitionIndex, adding: x.addingReplicas })));
      if (moving.length === 0) break;
      // Bytes: each adding replica against its partition's leader.
      const now = await metadata(c);
      const leaderOf = new Map<string, number>(now.topics.flatMap((t) => t.partitions.map((x): [string, number] => [`${t.name}-${x.partitionIndex}`, x.leaderId])));
      let total = 0;
      let copied = 0;
      const wantBy = new Map<number, { topic: string; partition: number }[]>();
      for (const m of moving) {
        const leader = leaderOf.get(`${m.topic}-${m.partition}`);
        for (const b of [leader, ...m.adding]) if (b !== undefined && b >= 0) wantBy.set(b, [...(wantBy.get(b) ?? []), m]);
      }
      const sizes = new Map<number, Map<string, number>>();
      for (const [b, parts] of wantBy) sizes.set(b, await sizesOn(await clientOf(b), parts).catch(() => new Map()));
      for (const m of moving) {
        const key = `${m.topic}-${m.partition}`;
        const full = sizes.get(leaderOf.get(key) ?? -1)?.get(key) ?? 0;
        for (const b of m.adding) {
          total += full;
          copied += Math.min(full, sizes.get(b)?.get(key) ?? 0);
        }
      }
      const t = Date.now();
      firstCopied ??= { at: t, bytes: copied };
      const rate = t > firstCopied.at ? (copied - firstCopied.bytes) / ((t - firstCopied.at) / 1000) : 0;
      const eta = rate > 0 ? (total - copied) / rate : null;
      const line = progressLine(copied, total, moving.length, eta);
      if (io.progress) io.err(`\r${line}`);
      else io.err(`${line}\n`);
      if (timeoutMs > 0 && t - started > timeoutMs) {
        io.err(`\nsamsa: ${moving.length} partition(s) still moving after ${timeoutMs} ms (the moves go on; see ListPartitionReassignments)\n`);
        return 1;
      }
      if (signal?.aborted) return 130;
      await new Promise((r) => setTimeout(r, 1000));
    }
    if (io.progress) io.err('\n');
    io.out(`done: ${moves.length - refused.length} partition(s) moved in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    return refused.length > 0 ? 1 : 0;
  } finally {
    if (throttled) await clearThrottles(throttled, io);
    for (const cl of perBroker.values()) cl.close();
    c.close();
  }
}

/** Removes what --throttle set (Kafka's clearAllThrottles after --verify). */
async function clearThrottles(t: { brokers: number[]; topics: string[]; clientOf: (n: number) => Promise<KafkaClient>; c: KafkaClient }, io: Io): Promise<void> {
  try {
    await alterConfigs(t.c, t.topics.map((topic) => ({
      resourceType: TOPIC, resourceName: topic, configs: [LEADER_REPLICAS, FOLLOWER_REPLICAS].map((name) => ({ name, configOperation: DELETE, value: null })),
    })));
    for (const b of t.brokers) {
      await alterConfigs(await t.clientOf(b), [{ resourceType: BROKER, resourceName: String(b), configs: [LEADER_RATE, FOLLOWER_RATE].map((name) => ({ name, configOperation: DELETE, value: null })) }]);
    }
    io.out(`throttle removed from brokers ${t.brokers.join(',')} and topics ${t.topics.join(',')}\n`);
  } catch (e) {
    io.err(`samsa: removing the throttle failed (${(e as Error).message}); remove ${LEADER_RATE}/${FOLLOWER_RATE} and the topics' *.replication.throttled.replicas by hand\n`);
  }
}
