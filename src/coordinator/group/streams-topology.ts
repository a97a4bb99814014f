/**
 * A streams group's topology against the cluster's topics (Kafka's StreamsTopology checks and
 * InternalTopicManager.configureTopics): what the members sent on joining, validated once, and
 * resolved at each heartbeat that may change it into a configured topology:
 *
 * 1. every source topic must exist (a source regex must match at least one topic), else
 *    MISSING_SOURCE_TOPICS "Source topics a, b are missing.";
 * 2. repartition topics without a fixed partition count get the largest partition count of the
 *    subtopologies writing to them (repeated until nothing changes, as chains of repartitions
 *    need); an existing topic's own count wins;
 * 3. copartition groups: the fixed topics of a group must agree (INCORRECTLY_PARTITIONED_TOPICS),
 *    and its flexible repartition topics take that count;
 * 4. a subtopology has as many tasks as its largest source (or repartition source) topic, and its
 *    changelog topics as many partitions;
 * 5. internal topics that exist must have those counts (INCORRECTLY_PARTITIONED_TOPICS); missing
 *    ones are listed to be created (MISSING_INTERNAL_TOPICS), with the topology's replication
 *    factor (0: the broker default) and topic configs.
 *
 * The topology can run ("ready") only when none of these statuses applies. Pure functions.
 */
import type { StreamsGroupTopologyValue } from '../../protocol/generated/messages/streams-group-topology-value.js';
import { compileTopicRegex } from './topic-regex.js';
import type { TopicView } from './topic-view.js';

/** A streams group's topology as the group stores it (StreamsGroupTopologyValue). */
export type StreamsTopology = StreamsGroupTopologyValue;

/** StreamsGroupHeartbeatResponse.Status codes. */
export const StreamsStatus = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
  MISSING_CLIENT_TAGS: 6,
} as const;

export interface InternalTopicToCreate {
  name: string;
  numPartitions: number;
  /** -1: the broker's default.replication.factor. */
  replicationFactor: number;
  configs: Record<string, string>;
}

export interface ConfiguredTopology {
  /** subtopology id → number of tasks (present only when the topics could be configured). */
  tasks: Map<string, number> | null;
  /** Every topic the group reads, by name → partition count (resolved regexes included). */
  sourcePartitions: Map<string, number>;
  /** The configured partition count of each internal topic (StreamsGroupDescribe shows them). */
  internalPartitions: Map<string, number>;
  internalTopicsToCreate: InternalTopicToCreate[];
  /** The status that keeps the topology from running, or null when ready. */
  problem: { code: number; detail: string } | null;
}

export function isReady(c: ConfiguredTopology): boolean {
  return c.problem === null && c.tasks !== null;
}

/** Kafka's summarizeTopics: the names, comma-separated. */
function summarize(names: Iterable<string>): string {
  return [...names].join(', ');
}

const LEGAL_TOPIC = /^[a-zA-Z0-9._-]+$/;

/**
 * The topology's own consistency (STREAMS_INVALID_TOPOLOGY when it fails): legal, distinct
 * subtopology ids; legal topic names; copartition indexes inside their lists; a repartition
 * source topic written by some subtopology. Returns the message, or null when valid.
 */
export function topologyError(t: StreamsTopology): string | null {
  const ids = new Set<string>();
  const sinks = new Set(t.subtopologies.flatMap((s) => s.repartitionSinkTopics));
  for (const s of t.subtopologies) {
    if (ids.has(s.subtopologyId)) return `Duplicate subtopology id ${s.subtopologyId}.`;
    ids.add(s.subtopologyId);
    const names = [...s.sourceTopics, ...s.repartitionSinkTopics, ...s.repartitionSourceTopics.map((x) => x.name), ...s.stateChangelogTopics.map((x) => x.name)];
    for (const n of names) {
      if (n === '' || n.length > 249 || !LEGAL_TOPIC.test(n) || n === '.' || n === '..') return `Topic name ${n} is illegal.`;
    }
    for (const re of s.sourceTopicRegex) {
      if (!compileTopicRegex(re).ok) return `Source topic regex ${re} is invalid.`;
    }
    for (const g of s.copartitionGroups) {
      if (g.sourceTopics.some((i) => i < 0 || i >= s.sourceTopics.length)
        || g.sourceTopicRegex.some((i) => i < 0 || i >= s.sourceTopicRegex.length)
        || g.repartitionSourceTopics.some((i) => i < 0 || i >= s.repartitionSourceTopics.length)) {
        return `Copartition group of subtopology ${s.subtopologyId} refers to a topic that does not exist in it.`;
      }
    }
    for (const r of s.repartitionSourceTopics) {
      if (!sinks.has(r.name) && r.partitions === 0) return `Repartition source topic ${r.name} has no partition count and no subtopology writes to it.`;
    }
  }
  return null;
}

/** The topics a topology names (source, repartition and changelog; resolved regexes excluded). */
export function requiredTopics(t: StreamsTopology): Set<string> {
  const out = new Set<string>();
  for (const s of t.subtopologies) {
    for (const n of s.sourceTopics) out.add(n);
    for (const n of s.repartitionSinkTopics) out.add(n);
    for (const r of s.repartitionSourceTopics) out.add(r.name);
    for (const c of s.stateChangelogTopics) out.add(c.name);
  }
  return out;
}

function resolvedSources(s: StreamsTopology['subtopologies'][number], topics: TopicView): { names: string[]; unmatched: string[] } {
  const names = [...s.sourceTopics];
  const unmatched: string[] = [];
  for (const re of s.sourceTopicRegex) {
    const c = compileTopicRegex(re);
    const matched = c.ok ? [...topics.names()].filter((n) => c.test(n) && !n.startsWith('__')) : [];
    if (matched.length === 0) unmatched.push(re);
    names.push(...matched);
  }
  return { names, unmatched };
}

/** Resolves the topology against the topics (see the file comment). */
export function configureTopology(t: StreamsTopology, topics: TopicView): ConfiguredTopology {
  const sourcePartitions = new Map<string, number>();
  const fail = (code: number, detail: string): ConfiguredTopology => ({ tasks: null, sourcePartitions, internalPartitions: new Map(), internalTopicsToCreate: [], problem: { code, detail } });

  // 1. Source topics.
  const missing = new Set<string>();
  const sourcesOf = new Map<string, string[]>();
  for (const s of t.subtopologies) {
    const { names, unmatched } = resolvedSources(s, topics);
    sourcesOf.set(s.subtopologyId, names);
    for (const re of unmatched) missing.add(re);
    for (const n of names) {
      const d = topics.byName(n);
      if (d) sourcePartitions.set(n, d.partitions);
      else missing.add(n);
    }
  }
  if (missing.size > 0) return fail(StreamsStatus.MISSING_SOURCE_TOPICS, `Source topics ${summarize([...missing].sort())} are missing.`);

  // 2. Repartition topics: existing counts, fixed counts, then the upstream subtopologies' largest.
  const decided = new Map<string, number>();
  const countOf = (name: string): number | undefined => topics.byName(name)?.partitions ?? decided.get(name);
  const flexible = new Set<string>();
  for (const s of t.subtopologies) {
    for (const r of s.repartitionSourceTopics) {
      if (r.partitions > 0) decided.set(r.name, r.partitions);
      else if (!topics.byName(r.name)) flexible.add(r.name);
    }
  }
  const subtopologyCount = (s: StreamsTopology['subtopologies'][number]): number | undefined => {
    let max: number | undefined;
    for (const n of [...sourcesOf.get(s.subtopologyId)!, ...s.repartitionSourceTopics.map((r) => r.name)]) {
      const c = countOf(n);
      if (c === undefined) return undefined;
      max = max === undefined ? c : Math.max(max, c);
    }
    return max;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (const name of flexible) {
      let best: number | undefined;
      for (const s of t.subtopologies) {
        if (!s.repartitionSinkTopics.includes(name)) continue;
        const c = subtopologyCount(s);
        if (c !== undefined) best = best === undefined ? c : Math.max(best, c);
      }
      if (best !== undefined && decided.get(name) !== best) {
        decided.set(name, best);
        changed = true;
      }
    }
  }

  // 3. Copartition groups.
  for (const s of t.subtopologies) {
    for (const g of s.copartitionGroups) {
      const members = [
        ...g.sourceTopics.map((i) => s.sourceTopics[i]),
        ...g.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i].name),
      ];
      for (const i of g.sourceTopicRegex) members.push(...resolvedSources({ ...s, sourceTopics: [], sourceTopicRegex: [s.sourceTopicRegex[i]] }, topics).names);
      const fixed = members.filter((n) => !flexible.has(n));
      const fixedCounts = new Set(fixed.map((n) => countOf(n)));
      if (fixedCounts.size > 1) {
        return fail(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS, `Following topics do not have the same number of partitions: [${fixed.sort().map((n) => `${n}=${countOf(n)}`).join(', ')}]`);
      }
      const target = fixedCounts.size === 1 ? [...fixedCounts][0] : Math.max(...members.map((n) => countOf(n) ?? 0));
      if (target !== undefined && target > 0) for (const n of members) if (flexible.has(n)) decided.set(n, target);
    }
  }

  // 4. Tasks per subtopology; changelog partitions.
  const tasks = new Map<string, number>();
  for (const s of t.subtopologies) {
    const c = subtopologyCount(s);
    if (c === undefined) return fail(StreamsStatus.MISSING_SOURCE_TOPICS, `Source topics of subtopology ${s.subtopologyId} have no known partition count.`);
    tasks.set(s.subtopologyId, c);
    for (const cl of s.stateChangelogTopics) decided.set(cl.name, cl.partitions > 0 ? cl.partitions : c);
  }

  // 5. Internal topics: wrong counts, missing ones.
  const internalPartitions = new Map<string, number>();
  const toCreate: InternalTopicToCreate[] = [];
  for (const s of t.subtopologies) {
    for (const info of [...s.repartitionSourceTopics, ...s.stateChangelogTopics]) {
      const want = decided.get(info.name) ?? countOf(info.name)!;
      internalPartitions.set(info.name, want);
      const have = topics.byName(info.name);
      if (have) {
        if (have.partitions !== want) {
          return fail(StreamsStatus.INCORRECTLY_PARTITIONED_TOPICS, `Existing topic ${info.name} has different number of partitions: expected ${want}, found ${have.partitions}`);
        }
        continue;
      }
      if (toCreate.some((x) => x.name === info.name)) continue;
      toCreate.push({
        name: info.name, numPartitions: want, replicationFactor: info.replicationFactor === 0 ? -1 : info.replicationFactor,
        configs: Object.fromEntries(info.topicConfigs.map((c) => [c.key, c.value])),
      });
    }
  }
  toCreate.sort((a, b) => (a.name < b.name ? -1 : 1));
  const problem = toCreate.length > 0 ? { code: StreamsStatus.MISSING_INTERNAL_TOPICS, detail: `Internal topics are missing: ${summarize(toCreate.map((x) => x.name))}` } : null;
  return { tasks, sourcePartitions, internalPartitions, internalTopicsToCreate: toCreate, problem };
}

/**
 * A hash of the shape of the topics the topology reads (names and partition counts of sources
 * and internal topics): when it changes, the group epoch moves (Kafka's metadata hash).
 */
export function topicsHash(t: StreamsTopology, topics: TopicView): bigint {
  const names = new Set(requiredTopics(t));
  for (const s of t.subtopologies) for (const n of resolvedSources({ ...s, sourceTopics: [] }, topics).names) names.add(n);
  let h1 = 0x811c9dc5;
  let h2 = 17;
  for (const n of [...names].sort()) {
    const d = topics.byName(n);
    const part = `${n}:${d ? `${d.topicId}:${d.partitions}` : '-'};`;
    for (let i = 0; i < part.length; i++) {
      const c = part.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 0x01000193);
      h2 = (Math.imul(h2, 31) + c) | 0;
    }
  }
  return (BigInt(h1 >>> 0) << 31n) ^ BigInt(h2 >>> 0);
}
