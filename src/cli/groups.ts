/**
 * `samsa groups list` (every group with its type: classic, consumer (KIP-848) or share (KIP-932),
 * from ListGroups v5) and `samsa groups describe GROUP ...`: share groups through
 * ShareGroupDescribe (share-groups.ts), KIP-848 consumer groups through ConsumerGroupDescribe
 * (members with their member epoch and assignment, the group and assignment epochs), classic
 * groups through DescribeGroups (which answers a consumer group GROUP_ID_NOT_FOUND, as Kafka 4
 * does); for both kinds of consumer group the committed offset, log end offset and lag of each
 * partition committed or assigned, with the member that holds it.
 */
import type { KafkaClient } from './client.js';
import { KafkaError } from './client.js';
import { UsageError, bool, parseArgs } from './args.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { Reader } from '../protocol/reader.js';
import { readConsumerProtocolAssignment } from '../protocol/generated/messages/consumer-protocol-assignment.js';
import { COMMON, check, listOffsets, table, withClient, type Io } from './commands.js';
import { describeShareGroups } from './share-groups.js';
import { formatAssignment } from '../coordinator/share/share-group-report.js';

export const GROUPS_HELP = `usage: samsa groups <list|describe> [options]
  samsa groups list                  every group with its type (classic, consumer, share) and state
  samsa groups describe GROUP ...    consumer groups (classic and KIP-848): members, committed offsets,
                                     log end offsets and lag per partition; KIP-848 groups also each
                                     member's epoch and assignment, the group and assignment epochs;
                                     share groups: members, assignment, start offset, lag, in-flight
                                     and archived records per share-partition
options: --bootstrap host:port (default localhost:9092, or $SAMSA_BOOTSTRAP)
`;

interface Holder {
  memberId: string;
  host: string;
  clientId: string;
}

function decodeAssignment(b: Buffer): { topic: string; partitions: number[] }[] {
  if (b.length < 2) return [];
  try {
    const r = new Reader(b);
    const v = r.int16();
    return readConsumerProtocolAssignment(r, Math.min(Math.max(v, 0), 3)).assignedPartitions;
  } catch {
    return [];
  }
}

/** Committed offset, log end offset and lag of every partition committed or assigned, with its holder. */
async function offsetsTable(c: KafkaClient, groupId: string, owner: Map<string, Holder>, members: Holder[]): Promise<string> {
  const of = await c.send(9, Math.min(c.versionFor(9), 7), { groupId, topics: null, groups: [], requireStable: false });
  check(of.errorCode, `OffsetFetch ${groupId}`);
  const rows = [['TOPIC', 'PARTITION', 'CURRENT-OFFSET', 'LOG-END-OFFSET', 'LAG', 'CONSUMER-ID', 'HOST', 'CLIENT-ID']];
  const committed = new Map<string, bigint>();
  for (const t of of.topics) for (const x of t.partitions) if (x.errorCode === ErrorCode.NONE && x.committedOffset >= 0n) committed.set(`${t.name}\0${x.partitionIndex}`, x.committedOffset);
  const byTopic = new Map<string, number[]>();
  for (const k of new Set([...committed.keys(), ...owner.keys()])) {
    const [topic, part] = k.split('\0') as [string, string];
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), Number(part)]);
  }
  for (const [topic, parts] of [...byTopic].sort((a, b) => a[0].localeCompare(b[0]))) {
    parts.sort((a, b) => a - b);
    const ends = await listOffsets(c, topic, parts, -1n).catch(() => new Map<number, bigint>());
    for (const part of parts) {
      const cur = committed.get(`${topic}\0${part}`);
      const leo = ends.get(part);
      const o = owner.get(`${topic}\0${part}`);
      rows.push([topic, String(part), cur === undefined ? '-' : String(cur), leo === undefined ? '-' : String(leo),
        cur === undefined || leo === undefined ? '-' : String(leo - cur), o?.memberId ?? '-', o?.host ?? '-', o?.clientId ?? '-']);
    }
  }
  if (rows.length === 1) for (const m of members) rows.push(['-', '-', '-', '-', '-', m.memberId, m.host, m.clientId]);
  return table(rows);
}

function holders(members: { memberId: string; clientHost: string; clientId: string; assignment: { topic: string; partitions: number[] }[] }[]): { owner: Map<string, Holder>; list: Holder[] } {
  const owner = new Map<string, Holder>();
  const list: Holder[] = [];
  for (const m of members) {
    const h = { memberId: m.memberId, host: m.clientHost, clientId: m.clientId };
    list.push(h);
    for (const tp of m.assignment) for (const part of tp.partitions) owner.set(`${tp.topic}\0${part}`, h);
  }
  return { owner, list };
}

/** Describes the KIP-848 consumer groups among `names` (ConsumerGroupDescribe); returns the ones that were. */
async function describeConsumerGroups(c: KafkaClient, names: string[], io: Io): Promise<Set<string>> {
  const done = new Set<string>();
  if (names.length === 0 || !c.supports(69)) return done;
  const res = await c.request(69, { groupIds: names, includeAuthorizedOperations: false });
  for (const g of res.groups) {
    if (g.errorCode !== ErrorCode.NONE) continue;
    done.add(g.groupId);
    const members = g.members.map((m) => ({
      ...m, assignment: (m.assignment?.topicPartitions ?? []).map((t) => ({ topic: t.topicName, partitions: [...t.partitions].sort((a, b) => a - b) })),
    }));
    io.out(`Consumer group: ${g.groupId}\tState: ${g.groupState}\tMembers: ${g.members.length}\tGroup epoch: ${g.groupEpoch}\tAssignment epoch: ${g.assignmentEpoch}\tAssignor: ${g.assignorName || '-'}\n`);
    const rows = [['MEMBER-ID', 'INSTANCE-ID', 'CLIENT-ID', 'HOST', 'MEMBER-EPOCH', 'ASSIGNMENT']];
    for (const m of members) rows.push([m.memberId, m.instanceId ?? '-', m.clientId, m.clientHost, String(m.memberEpoch), formatAssignment(m.assignment)]);
    if (members.length > 0) io.out(table(rows));
    const h = holders(members);
    io.out(await offsetsTable(c, g.groupId, h.owner, h.list));
  }
  return done;
}

export async function groupsCommand(argv: string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { ...COMMON });
  const [sub, ...names] = p.positionals;
  if (bool(p, 'help') || !sub) { io.out(GROUPS_HELP); return sub || bool(p, 'help') ? 0 : 2; }
  switch (sub) {
    case 'list':
      return withClient(p, async (c) => {
        const res = await c.request(16, { statesFilter: [], typesFilter: [] });
        check(res.errorCode, 'ListGroups');
        const rows = [['GROUP', 'TYPE', 'STATE', 'PROTOCOL-TYPE']];
        for (const g of [...res.groups].sort((a, b) => a.groupId.localeCompare(b.groupId))) rows.push([g.groupId, g.groupType || '-', g.groupState, g.protocolType || '-']);
        io.out(table(rows));
        return 0;
      });
    case 'describe': {
      if (names.length === 0) throw new UsageError('groups describe needs at least one group id');
      return withClient(p, async (c) => {
        // Share groups first (ShareGroupDescribe), then KIP-848 consumer groups; the rest are classic.
        const shared = await describeShareGroups(c, names, io);
        const modern = await describeConsumerGroups(c, names.filter((n) => !shared.has(n)), io);
        const others = names.filter((n) => !shared.has(n) && !modern.has(n));
        if (others.length === 0) return 0;
        const dg = await c.request(15, { groups: others, includeAuthorizedOperations: false });
        let failed = 0;
        for (const g of dg.groups) {
          if (g.errorCode !== ErrorCode.NONE) { failed++; io.err(`samsa: group ${g.groupId}: ${new KafkaError(g.errorCode).message}\n`); continue; }
          io.out(`Group: ${g.groupId}\tState: ${g.groupState}\tMembers: ${g.members.length}\tProtocol: ${g.protocolData || '-'}\n`);
          const h = holders(g.members.map((m) => ({ ...m, assignment: decodeAssignment(m.memberAssignment) })));
          io.out(await offsetsTable(c, g.groupId, h.owner, h.list));
        }
        return failed ? 1 : 0;
      });
    }
    default:
      throw new UsageError(`unknown groups command '${sub}' (list, describe)`);
  }
}
