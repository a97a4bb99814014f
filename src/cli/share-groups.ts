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

const GROUP_RESOURCE = 32;

export const DLQ_HELP = `usage: samsa dlq tail GROUP [consume options]
  Prints the records of a share group's dead-letter topic (its errors.deadletterqueue.topic.name),
  one line per record with the __dlq.errors.* headers: source topic, partition, offset, group,
  delivery count and reason. Options are samsa consume's (--from, --count, --exit, --json, ...);
  the default format is '%o %h\\n'.
`;

/** In-flight (delivered, not yet done) and archived counts above the start offset, from the persisted state. */
async function stateCounts(c: KafkaClient, groupId: string, topicId: string, partition: number, leaderEpoch: number): Promise<{ inFlight: string; archived: string }> {
  if (!c.supports(84)) return { inFlight: '-', archived: '-' };
  try {
    const res = await c.send(84, 0, { groupId, topics: [{ topicId, partitions: [{ partition, leaderEpoch: Math.max(0, leaderEpoch) }] }] });
    const r = res.results[0]?.partitions[0];
    if (!r || r.errorCode !== ErrorCode.NONE) return { inFlight: '-', archived: '-' };
    let inFlight = 0;
    let archived = 0;
    for (const b of r.stateBatches) {
      const n = Number(b.lastOffset - b.firstOffset) + 1;
      if (b.deliveryState === 4) archived += n;
      else if (b.deliveryState === 0 && b.deliveryCount > 0) inFlight += n;
    }
    return { inFlight: String(inFlight), archived: String(archived) };
  } catch {
    return { inFlight: '-', archived: '-' };
  }
}

/** Describes the share groups among `names`; returns the ones that were share groups. */
export async function describeShareGroups(c: KafkaClient, names: string[], io: Io): Promise<Set<string>> {
  const done = new Set<string>();
  if (!c.supports(77)) return done;
  const res = await c.request(77, { groupIds: names, includeAuthorizedOperations: false });
  for (const g of res.groups) {
    if (g.errorCode !== ErrorCode.NONE) continue;
    done.add(g.groupId);
    io.out(`Share group: ${g.groupId}\tState: ${g.groupState}\tMembers: ${g.members.length}\tGroup epoch: ${g.groupEpoch}\tAssignor: ${g.assignorName}\n`);
    const members = [['MEMBER-ID', 'CLIENT-ID', 'HOST', 'EPOCH', 'ASSIGNMENT']];
    for (const m of g.members) {
      const parts = (m.assignment?.topicPartitions ?? []).map((t) => `${t.topicName}:${t.partitions.join(',')}`).join(' ');
      members.push([m.memberId, m.clientId, m.clientHost, String(m.memberEpoch), parts || '-']);
    }
    if (g.members.length > 0) io.out(table(members));
    const offsets = await c.request(90, { groups: [{ groupId: g.groupId, topics: null }] });
    const og = offsets.groups[0];
    if (!og || og.errorCode !== ErrorCode.NONE) continue;
    const epochs = new Map<string, number>();
    const md = og.topics.length > 0 ? await metadata(c, og.topics.map((t) => t.topicName)) : null;
    for (const t of md?.topics ?? []) for (const p of t.partitions) epochs.set(`${t.name}\u0000${p.partitionIndex}`, p.leaderEpoch);
    const rows = [['TOPIC', 'PARTITION', 'START-OFFSET', 'LAG', 'IN-FLIGHT', 'ARCHIVED']];
    for (const t of [...og.topics].sort((a, b) => a.topicName.localeCompare(b.topicName))) {
      for (const p of [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex)) {
        const counts = await stateCounts(c, g.groupId, t.topicId, p.partitionIndex, epochs.get(`${t.topicName}\u0000${p.partitionIndex}`) ?? 0);
        rows.push([t.topicName, String(p.partitionIndex), p.startOffset < 0n ? '-' : String(p.startOffset), p.lag < 0n ? '-' : String(p.lag), counts.inFlight, counts.archived]);
      }
    }
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
