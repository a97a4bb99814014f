/**
 * Share groups in the CLI (issue 14): `samsa groups describe` shows a share group's members and
 * assignment (ShareGroupDescribe) and, per share-partition, its start offset and lag
 * (DescribeShareGroupOffsets) with the in-flight and archived record counts of its persisted
 * state (ReadShareGroupState at the partition's current leader epoch; "-" where this broker is
 * not the share coordinator or may not read it); `samsa dlq tail GROUP` prints the records of the
 * group's dead-letter topic (group config errors.deadletterqueue.topic.name) with their headers.
 */
import type { KafkaClient } from './client.js';
import { KafkaError } from './client.js';
import { UsageError, bool, parseArgs } from './args.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { COMMON, check, consumeCommand, metadata, table, withClient, type Io } from './commands.js';
import { formatAssignment, shareGroupReports, type ShareGroupReader } from '../coordinator/share/share-group-report.js';

const GROUP_RESOURCE = 32;

export const DLQ_HELP = `usage: samsa dlq tail GROUP [consume options]
  Prints the records of a share group's dead-letter topic (its errors.deadletterqueue.topic.name),
  one line per record with the __dlq.errors.* headers: source topic, partition, offset, group,
  delivery count and reason. Options are samsa consume's (--from, --count, --exit, --json, ...);
  the default format is '%o %h\\n'.
`;

/** The share-group figures over the wire: ShareGroupDescribe, DescribeShareGroupOffsets, ReadShareGroupState. */
function wireReader(c: KafkaClient): ShareGroupReader {
  const epochs = new Map<string, number>();
  return {
    async describe(groupIds) {
      return c.supports(77) ? (await c.request(77, { groupIds, includeAuthorizedOperations: false })).groups : [];
    },
    async offsets(groupId) {
      const og = (await c.request(90, { groups: [{ groupId, topics: null }] })).groups[0];
      if (!og || og.errorCode !== ErrorCode.NONE) return null;
      // ReadShareGroupState is asked at each partition's current leader epoch (an older one is fenced).
      const md = og.topics.length > 0 ? await metadata(c, og.topics.map((t) => t.topicName)) : null;
      for (const t of md?.topics ?? []) for (const p of t.partitions) epochs.set(`${t.name}\u0000${p.partitionIndex}`, p.leaderEpoch);
      return og.topics;
    },
    async stateBatches(groupId, topic, partition) {
      if (!c.supports(84)) return null;
      const leaderEpoch = Math.max(0, epochs.get(`${topic.topicName}\u0000${partition}`) ?? 0);
      const res = await c.send(84, 0, { groupId, topics: [{ topicId: topic.topicId, partitions: [{ partition, leaderEpoch }] }] });
      const r = res.results[0]?.partitions[0];
      return r && r.errorCode === ErrorCode.NONE ? r.stateBatches : null;
    },
  };
}

const dash = (v: bigint | number | null) => (v === null ? '-' : String(v));

/** Describes the share groups among `names`; returns the ones that were share groups. */
export async function describeShareGroups(c: KafkaClient, names: string[], io: Io): Promise<Set<string>> {
  const done = new Set<string>();
  for (const g of await shareGroupReports(wireReader(c), names)) {
    done.add(g.groupId);
    io.out(`Share group: ${g.groupId}\tState: ${g.state}\tMembers: ${g.members.length}\tGroup epoch: ${g.groupEpoch}\tAssignor: ${g.assignorName}\n`);
    const members = [['MEMBER-ID', 'CLIENT-ID', 'HOST', 'EPOCH', 'ASSIGNMENT']];
    for (const m of g.members) members.push([m.memberId, m.clientId, m.clientHost, String(m.memberEpoch), formatAssignment(m.assignment)]);
    if (g.members.length > 0) io.out(table(members));
    if (g.partitions === null) continue;
    const rows = [['TOPIC', 'PARTITION', 'START-OFFSET', 'LAG', 'IN-FLIGHT', 'ARCHIVED']];
    for (const p of g.partitions) rows.push([p.topic, String(p.partition), dash(p.startOffset), dash(p.lag), dash(p.inFlight), dash(p.archived)]);
    io.out(table(rows));
  }
  return done;
}

/** The dead-letter topic a share group is configured with (DescribeConfigs on the GROUP resource), or null. */
async function deadLetterTopic(c: KafkaClient, groupId: string): Promise<string | null> {
  const res = await c.request(32, { resources: [{ resourceType: GROUP_RESOURCE, resourceName: groupId, configurationKeys: ['errors.deadletterqueue.topic.name'] }], includeSynonyms: false, includeDocumentation: false });
  const r = res.results[0];
  if (!r) return null;
  check(r.errorCode, r.errorMessage);
  const v = r.configs.find((e) => e.name === 'errors.deadletterqueue.topic.name')?.value ?? '';
  return v === '' ? null : v;
}

export async function dlqCommand(argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const p = parseArgs(argv.slice(0, 2), { ...COMMON });
  const [sub, group] = p.positionals;
  if (bool(p, 'help') || !sub) { io.out(DLQ_HELP); return sub || bool(p, 'help') ? 0 : 2; }
  if (sub !== 'tail') throw new UsageError(`unknown dlq command '${sub}' (tail)`);
  if (!group) throw new UsageError('dlq tail needs a share group id');
  const rest = argv.slice(2);
  const bootstrapArgs: string[] = [];
  for (let i = 0; i < rest.length; i++) if ((rest[i] === '--bootstrap' || rest[i] === '-b' || rest[i] === '--command-config') && rest[i + 1] !== undefined) bootstrapArgs.push(rest[i], rest[i + 1]);
  const topic = await withClient(parseArgs(bootstrapArgs, { ...COMMON }), (c) => deadLetterTopic(c, group));
  if (topic === null) throw new KafkaError(ErrorCode.INVALID_CONFIG, `share group ${group} has no dead-letter topic (errors.deadletterqueue.topic.name)`);
  const hasFormat = rest.some((a) => a === '--format' || a === '-f' || a === '--json' || a === '-J');
  return consumeCommand([topic, ...(hasFormat ? [] : ['--format', '%o %h\\n']), ...rest], io, signal);
}
