/**
 * `samsa schedule list TOPIC`: the records of a schedule topic not yet delivered, counted by due
 * minute (UTC), over the Kafka protocol only: DescribeConfigs gives the target and the delay;
 * the target's `samsa-scheduled-from` headers tell which source offsets have been delivered;
 * every source record not among them is pending at its due time (samsa-deliver-at, else
 * timestamp + delay). A minute in the past means overdue: delivered as soon as the scheduler
 * runs (at once after a start-up). Reads both topics whole, so it is a diagnostic, not a
 * monitoring call.
 */
import { KafkaClient, KafkaError } from './client.js';
import { clientSecurityFromFile } from './command-config.js';
import { UsageError, bool, flag, parseArgs, type Parsed } from './args.js';
import type { Io } from './commands.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { decodeRecordBatch, type DecodedRecord } from '../protocol/records/record.js';
import { DELIVER_AT_HEADER, SCHEDULED_FROM_HEADER, SCHEDULE_DELAY_MS, SCHEDULE_TARGET, dueTimeOf } from '../schedule/deliver-at.js';

export const SCHEDULE_HELP = `usage: samsa schedule list TOPIC [options]
  Pending records of the schedule topic TOPIC (created with ${SCHEDULE_TARGET}) by due minute (UTC),
  with the total; a due minute in the past is overdue.
options:
  -b, --bootstrap h:p      broker address (default localhost:9092, or $SAMSA_BOOTSTRAP)
      --command-config F   Kafka client properties (TLS, SASL)
      --json               one JSON object per minute: {"minute": ISO time, "epochMs": n, "pending": n}
`;

function check(code: number, message?: string | null): void {
  if (code !== ErrorCode.NONE) throw new KafkaError(code, message);
}

async function withClient<T>(p: Parsed, fn: (c: KafkaClient) => Promise<T>): Promise<T> {
  const bootstrap = flag(p, 'bootstrap') ?? process.env.SAMSA_BOOTSTRAP ?? 'localhost:9092';
  const commandConfig = flag(p, 'command-config');
  const c = await KafkaClient.connect({ bootstrap, ...(commandConfig ? { security: clientSecurityFromFile(commandConfig) } : {}) });
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

async function topicConfigs(c: KafkaClient, topic: string): Promise<Map<string, string | null>> {
  const res = await c.request(32, { resources: [{ resourceType: 2, resourceName: topic, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false });
  const r = res.results[0]!;
  check(r.errorCode, r.errorMessage ?? `topic ${topic}`);
  return new Map(r.configs.map((e) => [e.name, e.value]));
}

/** Calls visit(partition, record) for every data record of `topic`, from each partition's start to its end. */
async function readAll(c: KafkaClient, topic: string, visit: (partition: number, r: DecodedRecord) => void): Promise<void> {
  const md = await c.request(3, { topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  const t = md.topics[0]!;
  check(t.errorCode, `topic ${topic}`);
  const parts = t.partitions.map((x) => x.partitionIndex);
  const offsets = async (ts: bigint) => {
    const res = await c.request(2, { replicaId: -1, isolationLevel: 1, timeoutMs: 30000, topics: [{ name: topic, partitions: parts.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp: ts})) }] });
    const m = new Map<number, bigint>();
    for (const p of res.topics[0]!.partitions) { check(p.errorCode, `${topic}-${p.partitionIndex}`); m.set(p.partitionIndex, p.offset); }
    return m;
  };
  const position = await offsets(-2n);
  const end = await offsets(-1n);
  const active = new Set(parts.filter((p) => position.get(p)! < end.get(p)!));
  while (active.size > 0) {
    const res = await c.request(1, {
      clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 100, minBytes: 1, maxBytes: 52428800, isolationLevel: 1, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic, topicId: t.topicId, partitions: [...active].map((p) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: position.get(p)!, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 4 << 20, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn })) }],
      forgottenTopicsData: [], rackId: '',
    });
    check(res.errorCode, 'Fetch');
    for (const pd of res.responses[0]?.partitions ?? []) {
      check(pd.errorCode, `${topic}-${pd.partitionIndex}`);
      const buf = pd.records === null ? null : Array.isArray(pd.records) ? Buffer.concat(pd.records) : pd.records;
      const aborted = new Set((pd.abortedTransactions ?? []).map((a) => a.producerId));
      let pos = 0;
      while (buf && pos + 12 <= buf.length) {
        const size = 12 + buf.readInt32BE(pos + 8);
        if (pos + size > buf.length) break;
        const batch = decodeRecordBatch(buf, pos);
        pos += size;
        const next = batch.baseOffset + BigInt(batch.lastOffsetDelta) + 1n;
        if (!batch.isControl && !(batch.isTransactional && aborted.has(batch.producerId))) {
          for (const r of batch.records) if (r.offset >= position.get(pd.partitionIndex)! && r.offset < end.get(pd.partitionIndex)!) visit(pd.partitionIndex, r);
        }
        if (next > position.get(pd.partitionIndex)!) position.set(pd.partitionIndex, next);
      }
      if (position.get(pd.partitionIndex)! >= end.get(pd.partitionIndex)!) active.delete(pd.partitionIndex);
    }
  }
}

export async function scheduleCommand(argv: string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { bootstrap: { value: true, alias: 'b' }, 'command-config': { value: true }, help: { alias: 'h' }, json: {} });
  if (bool(p, 'help')) { io.out(SCHEDULE_HELP); return 0; }
  const [sub, topic, ...more] = p.positionals;
  if (sub !== 'list' || !topic || more.length > 0) throw new UsageError('usage: samsa schedule list TOPIC');
  return withClient(p, async (c) => {
    const configs = await topicConfigs(c, topic);
    const target = configs.get(SCHEDULE_TARGET);
    if (!target) throw new UsageError(`topic ${topic} is not a schedule topic (${SCHEDULE_TARGET} is not set)`);
    const delayMs = Number(configs.get(SCHEDULE_DELAY_MS) ?? 0);
    const delivered = new Set<string>();
    const prefix = `${topic}/`;
    await readAll(c, target, (_p, r) => {
      for (const h of r.headers) if (h.key === SCHEDULED_FROM_HEADER && h.value !== null && h.value.toString().startsWith(prefix)) delivered.add(h.value.toString());
    });
    const byMinute = new Map<number, number>();
    let total = 0;
    await readAll(c, topic, (partition, r) => {
      if (delivered.has(`${topic}/${partition}/${r.offset}`)) return;
      const due = dueTimeOf(r.headers, Number(r.timestamp), delayMs);
      const minute = Math.floor(due / 60_000) * 60_000;
      byMinute.set(minute, (byMinute.get(minute) ?? 0) + 1);
      total++;
    });
    const rows = [...byMinute].sort((a, b) => a[0] - b[0]);
    if (bool(p, 'json')) {
      for (const [m, n] of rows) io.out(JSON.stringify({ minute: new Date(m).toISOString(), epochMs: m, pending: n }) + '\n');
      return 0;
    }
    const now = Date.now();
    const lines = [['DUE (UTC minute)', 'PENDING', '']];
    for (const [m, n] of rows) lines.push([new Date(m).toISOString().slice(0, 16).replace('T', ' '), String(n), m + 60_000 <= now ? 'overdue' : '']);
    const widths = [0, 0];
    for (const l of lines) for (let i = 0; i < 2; i++) widths[i] = Math.max(widths[i], l[i].length);
    for (const l of lines) io.out(`${l[0].padEnd(widths[0])}  ${l[1].padStart(widths[1])}  ${l[2]}`.trimEnd() + '\n');
    io.out(`${total} pending in ${topic} → ${target} (${DELIVER_AT_HEADER} header, else timestamp + ${delayMs} ms)\n`);
    return 0;
  });
}
