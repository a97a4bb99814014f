/**
 * The client commands of `samsa`: topics, produce, consume (groups are in groups.ts). Each talks
 * to a broker with KafkaClient (generated codecs over one socket). Data goes to stdout; progress, summaries and
 * errors to stderr.
 */
import { partitionForKey } from '../protocol/murmur2.js';
import { createInterface } from 'node:readline';
import { KafkaClient, KafkaError } from './client.js';
import { clientSecurityFromFile } from './command-config.js';
import { UsageError, bool, flag, flags, intFlag, keyValue, parseArgs, type Parsed } from './args.js';
import { ErrorCode } from '../protocol/generated/error-codes.js';
import { buildRecordBatch, decodeRecordBatch, type RecordHeader, type RecordInput } from '../protocol/records/record.js';
import type { CompressionName } from '../protocol/records/record-batch.js';
import type { MetadataResponse } from '../protocol/generated/messages/metadata-response.js';
import { PARTITIONS_KEEP, retirementProblem } from '../cluster/partition-retirement.js';
import { ZERO_UUID } from '../protocol/reader.js';

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  stdin: NodeJS.ReadableStream;
  /** Whether to print periodic progress (stderr is a terminal, or --progress). */
  progress: boolean;
}

export const COMMON = { bootstrap: { value: true, alias: 'b' }, 'command-config': { value: true }, help: { alias: 'h' }, progress: {} } as const;

export async function withClient<T>(p: Parsed, fn: (c: KafkaClient) => Promise<T>): Promise<T> {
  const bootstrap = flag(p, 'bootstrap') ?? process.env.SAMSA_BOOTSTRAP ?? 'localhost:9092';
  const commandConfig = flag(p, 'command-config');
  const c = await KafkaClient.connect({ bootstrap, ...(commandConfig ? { security: clientSecurityFromFile(commandConfig) } : {}) });
  try {
    return await fn(c);
  } finally {
    c.close();
  }
}

export function check(code: number, message?: string | null): void {
  if (code !== ErrorCode.NONE) throw new KafkaError(code, message);
}

export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => { widths[i] = Math.max(widths[i] ?? 0, c.length); });
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

export async function metadata(c: KafkaClient, topics: string[] | null, autoCreate = false): Promise<MetadataResponse> {
  return c.request(3, {
    topics: topics === null ? null : topics.map((name) => ({ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name })),
    allowAutoTopicCreation: autoCreate,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
}

/** ListOffsets for some partitions of one topic: timestamp -2 earliest, -1 latest, else the first offset at/after it. */
export async function listOffsets(c: KafkaClient, topic: string, partitions: number[], timestamp: bigint): Promise<Map<number, bigint>> {
  const res = await c.request(2, {
    replicaId: -1,
    isolationLevel: 0,
    topics: [{ name: topic, partitions: partitions.map((p) => ({ partitionIndex: p, currentLeaderEpoch: -1, timestamp})) }],
    timeoutMs: 30000,
  });
  const out = new Map<number, bigint>();
  for (const t of res.topics) for (const p of t.partitions) {
    check(p.errorCode, `${topic}-${p.partitionIndex}`);
    out.set(p.partitionIndex, p.offset);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// topics

export const TOPICS_HELP = `usage: samsa topics <list|create|describe|delete> [options]
  samsa topics list                                  names of all topics
  samsa topics create NAME [--partitions N] [--replication-factor N] [--config key=value ...] [--if-not-exists]
  samsa topics describe [NAME ...]                   partitions, leaders, offsets and config overrides
  samsa topics delete NAME ...
  samsa topics retire-partitions NAME --keep N       partitions N.. become read-only; each is deleted once
                                                     retention emptied it and every group committed past it
                                                     (--keep equal to the partition count cancels what is left)
options: --bootstrap host:port (default localhost:9092, or $SAMSA_BOOTSTRAP)
`;

export async function topicsCommand(argv: string[], io: Io): Promise<number> {
  const p = parseArgs(argv, { ...COMMON, keep: { value: true }, partitions: { value: true, alias: 'p' }, 'replication-factor': { value: true, alias: 'r' }, config: { value: true, repeat: true, alias: 'c' }, 'if-not-exists': {}, 'if-exists': {} });
  const [sub, ...names] = p.positionals;
  if (bool(p, 'help') || !sub) { io.out(TOPICS_HELP); return sub || bool(p, 'help') ? 0 : 2; }
  switch (sub) {
    case 'list':
      return withClient(p, async (c) => {
        const md = await metadata(c, null);
        for (const n of md.topics.map((t) => t.name!).sort()) io.out(`${n}\n`);
        return 0;
      });
    case 'create': {
      if (names.length !== 1) throw new UsageError('topics create needs exactly one topic name');
      const configs = flags(p, 'config').map((s) => { const [name, value] = keyValue(s, '--config'); return { name, value }; });
      return withClient(p, async (c) => {
        const res = await c.request(19, {
          topics: [{ name: names[0]!, numPartitions: intFlag(p, 'partitions', -1)!, replicationFactor: intFlag(p, 'replication-factor', -1)!, assignments: [], configs }],
          timeoutMs: 30000,
          validateOnly: false,
        });
        const t = res.topics[0]!;
        if (t.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS && bool(p, 'if-not-exists')) return 0;
        check(t.errorCode, t.errorMessage);
        io.err(`created topic ${t.name} (${t.numPartitions} partition${t.numPartitions === 1 ? '' : 's'}, topic id ${t.topicId})\n`);
        return 0;
      });
    }
    case 'delete': {
      if (names.length === 0) throw new UsageError('topics delete needs at least one topic name');
      return withClient(p, async (c) => {
        const res = await c.request(20, { topics: [], topicNames: names, timeoutMs: 30000 });
        let failed = 0;
        for (const r of res.responses) {
          if (r.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION && bool(p, 'if-exists')) continue;
          if (r.errorCode !== ErrorCode.NONE) { failed++; io.err(`samsa: cannot delete topic ${r.name}: ${new KafkaError(r.errorCode, r.errorMessage).message}\n`); }
          else io.err(`deleted topic ${r.name}\n`);
        }
        return failed ? 1 : 0;
      });
    }
    case 'describe':
      return withClient(p, async (c) => {
        const md = await metadata(c, names.length ? names : null);
        const topics = md.topics.filter((t) => names.length || !t.isInternal).sort((a, b) => a.name!.localeCompare(b.name!));
        let failed = 0;
        for (const t of topics) {
          if (t.errorCode !== ErrorCode.NONE) { failed++; io.err(`samsa: topic ${t.name}: ${new KafkaError(t.errorCode).message}\n`); continue; }
          const parts = t.partitions.map((x) => x.partitionIndex).sort((a, b) => a - b);
          const [low, high, cfg] = await Promise.all([
            listOffsets(c, t.name!, parts, -2n),
            listOffsets(c, t.name!, parts, -1n),
            c.request(32, { resources: [{ resourceType: 2, resourceName: t.name!, configurationKeys: null }], includeSynonyms: false, includeDocumentation: false }),
          ]);
          const overrides = (cfg.results[0]?.configs ?? []).filter((x) => x.configSource === 1).map((x) => `${x.name}=${x.value}`);
          io.out(`Topic: ${t.name}\tTopicId: ${t.topicId}\tPartitionCount: ${parts.length}\tReplicationFactor: ${t.partitions[0]?.replicaNodes.length ?? 0}\tConfigs: ${overrides.join(',')}\n`);
          // Retired partitions (samsa topics retire-partitions); Metadata shows them to this client without a leader.
          const keep = Number((cfg.results[0]?.configs ?? []).find((x) => x.name === PARTITIONS_KEEP)?.value ?? parts.length);
          for (const x of [...t.partitions].sort((a, b) => a.partitionIndex - b.partitionIndex)) {
            const retired = x.partitionIndex >= keep && keep >= 1 ? '\tRetired' : '';
            io.out(`\tTopic: ${t.name}\tPartition: ${x.partitionIndex}\tLeader: ${x.leaderId}\tReplicas: ${x.replicaNodes.join(',')}\tIsr: ${x.isrNodes.join(',')}\tOffsets: ${low.get(x.partitionIndex)}..${high.get(x.partitionIndex)}${retired}\n`);
          }
        }
        return failed ? 1 : 0;
      });
    case 'retire-partitions': {
      if (names.length !== 1) throw new UsageError('topics retire-partitions needs exactly one topic name');
      const keep = intFlag(p, 'keep');
      if (keep === undefined) throw new UsageError('topics retire-partitions needs --keep N');
      return withClient(p, (c) => retirePartitions(c, names[0]!, keep, io));
    }
    default:
      throw new UsageError(`unknown topics command '${sub}' (list, create, describe, delete, retire-partitions)`);
  }
}

/**
 * Partition retirement (cluster/partition-retirement.ts): sets samsa.partitions.keep with
 * IncrementalAlterConfigs; --keep at the partition count removes it (nothing retired any more).
 */
async function retirePartitions(c: KafkaClient, topic: string, keep: number, io: Io): Promise<number> {
  const md = await metadata(c, [topic]);
  const t = md.topics[0];
  if (!t || t.errorCode !== ErrorCode.NONE) throw new KafkaError(t?.errorCode ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${topic}`);
  const count = t.partitions.length;
  const cancel = keep === count;
  const problem = cancel ? null : retirementProblem({ name: topic, partitions: count, isInternal: t.isInternal }, keep);
  if (problem) throw new UsageError(problem);
  const res = await c.request(44, {
    resources: [{ resourceType: 2, resourceName: topic, configs: [{ name: PARTITIONS_KEEP, configOperation: cancel ? 1 : 0, value: cancel ? null : String(keep) }] }],
    validateOnly: false,
  });
  for (const r of res.responses) check(r.errorCode, r.errorMessage);
  io.err(cancel
    ? `${topic}: no partition is retired any more\n`
    : `${topic}: partitions ${keep}-${count - 1} retired: read-only, deleted once retention has emptied them and every group has committed past their end\n`);
  return 0;
}

// ---------------------------------------------------------------------------------------------
// produce

export const PRODUCE_HELP = `usage: samsa produce TOPIC [options]
  Produces one record (--value) or one record per line of standard input.
  -v, --value TEXT         the value (else: read lines from stdin)
  -k, --key TEXT           the key (every record)
  -K, --key-separator SEP  stdin lines are KEY<SEP>VALUE (like kcat -K)
  -H, --header key=value   a header (repeatable)
  -p, --partition N        the partition (default: by key hash like Kafka's producer, else round-robin)
  -z, --compression C      none, gzip, snappy, lz4, zstd (default none)
      --acks N             -1 (all, default), 1 or 0
      --batch-size N       records per request (default 1000)
  -b, --bootstrap h:p      broker address (default localhost:9092, or $SAMSA_BOOTSTRAP)
      --progress           print progress every second on stderr
`;

export async function produceCommand(argv: string[], io: Io): Promise<number> {
  const p = parseArgs(argv, {
    ...COMMON, value: { value: true, alias: 'v' }, key: { value: true, alias: 'k' }, 'key-separator': { value: true, alias: 'K' },
    header: { value: true, repeat: true, alias: 'H' }, partition: { value: true, alias: 'p' }, compression: { value: true, alias: 'z' },
    acks: { value: true }, 'batch-size': { value: true },
  });
  if (bool(p, 'help')) { io.out(PRODUCE_HELP); return 0; }
  const topic = p.positionals[0];
  if (!topic || p.positionals.length > 1) throw new UsageError('produce needs exactly one topic (samsa produce TOPIC)');
  const headers: RecordHeader[] = flags(p, 'header').map((s) => { const [key, value] = keyValue(s, '--header'); return { key, value: Buffer.from(value) }; });
  const compression = (flag(p, 'compression') ?? 'none') as CompressionName;
  if (!['none', 'gzip', 'snappy', 'lz4', 'zstd'].includes(compression)) throw new UsageError(`unknown compression '${compression}' (none, gzip, snappy, lz4, zstd)`);
  const acks = intFlag(p, 'acks', -1)!;
  if (![-1, 0, 1].includes(acks)) throw new UsageError('--acks must be -1, 0 or 1');
  const batchSize = Math.max(1, intFlag(p, 'batch-size', 1000)!);
  const fixedPartition = intFlag(p, 'partition');
  const keyFlag = flag(p, 'key');
  const sep = flag(p, 'key-separator');
  const progress = io.progress || bool(p, 'progress');

  return withClient(p, async (c) => {
    const md = await metadata(c, [topic], true);
    const t = md.topics[0]!;
    check(t.errorCode, `topic ${topic}`);
    const partitions = t.partitions.length;
    if (fixedPartition !== undefined && (fixedPartition < 0 || fixedPartition >= partitions)) {
      throw new UsageError(`topic ${topic} has partitions 0..${partitions - 1}, not ${fixedPartition}`);
    }
    let rr = 0;
    let produced = 0;
    const started = Date.now();
    let lastReport = started;
    const pending = new Map<number, RecordInput[]>();
    let buffered = 0;
    const partitionOf = (key: Buffer | null): number => {
      if (fixedPartition !== undefined) return fixedPartition;
      if (key) return partitionForKey(key, partitions);
      return rr;
    };
    const flush = async () => {
      if (buffered === 0) return;
      const topicData = [{ name: topic, topicId: ZERO_UUID, partitionData: [...pending].map(([index, records]) => ({ index, records: buildRecordBatch({ records, compression }) })) }];
      const res = await c.request(0, { transactionalId: null, acks, timeoutMs: 30000, topicData });
      if (acks !== 0) for (const tr of res.responses) for (const pr of tr.partitionResponses) check(pr.errorCode, pr.errorMessage ?? `${topic}-${pr.index}`);
      produced += buffered;
      pending.clear();
      buffered = 0;
      rr = (rr + 1) % partitions;
      if (progress && Date.now() - lastReport >= 1000) {
        lastReport = Date.now();
        io.err(`… produced ${produced} records\n`);
      }
    };
    const add = async (key: Buffer | null, value: Buffer | null) => {
      const part = partitionOf(key);
      const list = pending.get(part) ?? [];
      list.push({ key, value, headers });
      pending.set(part, list);
      if (++buffered >= batchSize) await flush();
    };
    const keyBuf = keyFlag !== undefined ? Buffer.from(keyFlag) : null;
    const value = flag(p, 'value');
    if (value !== undefined) {
      await add(keyBuf, Buffer.from(value));
    } else {
      const rl = createInterface({ input: io.stdin, crlfDelay: Infinity });
      for await (const line of rl) {
        if (sep !== undefined) {
          const i = line.indexOf(sep);
          if (i < 0) await add(keyBuf, Buffer.from(line));
          else await add(Buffer.from(line.slice(0, i)), Buffer.from(line.slice(i + sep.length)));
        } else {
          await add(keyBuf, Buffer.from(line));
        }
      }
    }
    await flush();
    io.err(`produced ${produced} record${produced === 1 ? '' : 's'} to ${topic} in ${Date.now() - started} ms\n`);
    return 0;
  });
}

// ---------------------------------------------------------------------------------------------
// consume

export const CONSUME_HELP = `usage: samsa consume TOPIC [options]
  Reads partitions directly (no consumer group), like kcat -C.
  -p, --partition N      a partition to read (repeatable; default all)
  -o, --from POS         beginning (default), end, OFFSET, -N (N before the end), @TIME
      --to POS           stop before this position: end (the end when starting), OFFSET, @TIME
  -c, --count N          stop after N records
  -e, --exit             stop at the end of every partition (same as --to end)
  -f, --format FMT       output per record, kcat tokens: %t topic %p partition %o offset %k key
                         %s value %T timestamp (ms) %h headers %K key length %S value length,
                         \\n \\t; default '%s\\n'
  -J, --json             one JSON object per record
      --max-wait-ms N    Fetch max wait (default 500)
  -b, --bootstrap h:p    broker address (default localhost:9092, or $SAMSA_BOOTSTRAP)
  TIME is epoch milliseconds or an ISO date (2024-05-01T12:00:00Z).
`;

type Position = { kind: 'beginning' } | { kind: 'end' } | { kind: 'offset'; offset: bigint } | { kind: 'relative'; back: bigint } | { kind: 'time'; ms: bigint };

function parsePosition(s: string, what: string): Position {
  if (s === 'beginning' || s === 'earliest') return { kind: 'beginning' };
  if (s === 'end' || s === 'latest') return { kind: 'end' };
  if (/^\d+$/.test(s)) return { kind: 'offset', offset: BigInt(s) };
  if (/^-\d+$/.test(s)) return { kind: 'relative', back: BigInt(s.slice(1)) };
  const t = s.startsWith('@') ? s.slice(1) : s.startsWith('s@') ? s.slice(2) : /^\d{4}-\d\d-\d\d/.test(s) ? s : null;
  if (t !== null) {
    if (/^\d+$/.test(t)) return { kind: 'time', ms: BigInt(t) };
    const d = Date.parse(t);
    if (!Number.isNaN(d)) return { kind: 'time', ms: BigInt(d) };
  }
  throw new UsageError(`${what}: expected beginning, end, an offset, -N or @TIME, not '${s}'`);
}

function formatRecord(fmt: string, topic: string, partition: number, r: { offset: bigint; timestamp: bigint; key: Buffer | null; value: Buffer | null; headers: RecordHeader[] }): string {
  return fmt.replace(/%[tpokKsSTh%]|\\[nt]/g, (tok) => {
    switch (tok) {
      case '%t': return topic;
      case '%p': return String(partition);
      case '%o': return String(r.offset);
      case '%k': return r.key?.toString() ?? '';
      case '%K': return String(r.key?.length ?? -1);
      case '%s': return r.value?.toString() ?? '';
      case '%S': return String(r.value?.length ?? -1);
      case '%T': return String(r.timestamp);
      case '%h': return r.headers.map((h) => `${h.key}=${h.value?.toString() ?? ''}`).join(',');
      case '%%': return '%';
      case '\\n': return '\n';
      case '\\t': return '\t';
      default: return tok;
    }
  });
}

export async function consumeCommand(argv: string[], io: Io, signal?: AbortSignal): Promise<number> {
  const p = parseArgs(argv, {
    ...COMMON, partition: { value: true, repeat: true, alias: 'p' }, from: { value: true, alias: 'o' }, to: { value: true },
    count: { value: true, alias: 'c' }, exit: { alias: 'e' }, format: { value: true, alias: 'f' }, json: { alias: 'J' }, 'max-wait-ms': { value: true },
  });
  if (bool(p, 'help')) { io.out(CONSUME_HELP); return 0; }
  const topic = p.positionals[0];
  if (!topic || p.positionals.length > 1) throw new UsageError('consume needs exactly one topic (samsa consume TOPIC)');
  const from = parsePosition(flag(p, 'from') ?? 'beginning', '--from');
  const to = bool(p, 'exit') ? { kind: 'end' as const } : flag(p, 'to') !== undefined ? parsePosition(flag(p, 'to')!, '--to') : null;
  if (to && to.kind === 'relative') throw new UsageError('--to does not take -N');
  const count = intFlag(p, 'count');
  const fmt = flag(p, 'format') ?? '%s\\n';
  const json = bool(p, 'json');
  const maxWaitMs = intFlag(p, 'max-wait-ms', 500)!;
  const progress = io.progress || bool(p, 'progress');

  return withClient(p, async (c) => {
    const md = await metadata(c, [topic]);
    const t = md.topics[0]!;
    check(t.errorCode, `topic ${topic}`);
    const all = t.partitions.map((x) => x.partitionIndex).sort((a, b) => a - b);
    const chosen = flags(p, 'partition').map((s) => {
      const n = Number(s);
      if (!Number.isInteger(n) || !all.includes(n)) throw new UsageError(`topic ${topic} has partitions 0..${all.length - 1}, not ${s}`);
      return n;
    });
    const parts = chosen.length ? chosen : all;
    const [earliest, latest] = await Promise.all([listOffsets(c, topic, parts, -2n), listOffsets(c, topic, parts, -1n)]);
    const resolve = async (pos: Position): Promise<Map<number, bigint>> => {
      switch (pos.kind) {
        case 'beginning': return earliest;
        case 'end': return latest;
        case 'offset': return new Map(parts.map((x) => [x, pos.offset < earliest.get(x)! ? earliest.get(x)! : pos.offset > latest.get(x)! ? latest.get(x)! : pos.offset]));
        case 'relative': return new Map(parts.map((x) => { const o = latest.get(x)! - pos.back; return [x, o < earliest.get(x)! ? earliest.get(x)! : o]; }));
        case 'time': {
          const found = await listOffsets(c, topic, parts, pos.ms);
          return new Map(parts.map((x) => [x, found.get(x)! < 0n ? latest.get(x)! : found.get(x)!]));
        }
      }
    };
    const position = await resolve(from);
    const end = to ? await resolve(to) : null;
    const active = new Set(parts.filter((x) => !end || position.get(x)! < end.get(x)!));
    let seen = 0;
    let lastReport = Date.now();
    const done = () => (count !== undefined && seen >= count) || (end !== null && active.size === 0) || signal?.aborted === true;
    while (!done()) {
      const res = await c.request(1, {
        clusterId: null, replicaId: -1, replicaState: null, maxWaitMs, minBytes: 1, maxBytes: 52428800, isolationLevel: 0,
        sessionId: 0, sessionEpoch: -1,
        topics: [{ topic, topicId: t.topicId, partitions: [...active].map((x) => ({ partition: x, currentLeaderEpoch: -1, fetchOffset: position.get(x)!, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: 1048576, replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA', highWatermark: 0x7fffffffffffffffn })) }],
        forgottenTopicsData: [], rackId: '',
      });
      check(res.errorCode, 'Fetch');
      for (const tr of res.responses) for (const pd of tr.partitions) {
        if (pd.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
          const fresh = await listOffsets(c, topic, [pd.partitionIndex], -2n);
          io.err(`samsa: offset ${position.get(pd.partitionIndex)} of ${topic}-${pd.partitionIndex} is out of range; resuming at ${fresh.get(pd.partitionIndex)}\n`);
          position.set(pd.partitionIndex, fresh.get(pd.partitionIndex)!);
          continue;
        }
        check(pd.errorCode, `${topic}-${pd.partitionIndex}`);
        const buf = pd.records === null ? null : Array.isArray(pd.records) ? Buffer.concat(pd.records) : pd.records;
        let pos = 0;
        while (buf && pos + 12 <= buf.length && !done()) {
          const size = 12 + buf.readInt32BE(pos + 8);
          if (pos + size > buf.length) break;
          const batch = decodeRecordBatch(buf, pos);
          pos += size;
          const next = batch.baseOffset + BigInt(batch.lastOffsetDelta) + 1n;
          if (!batch.isControl) {
            for (const r of batch.records) {
              if (r.offset < position.get(pd.partitionIndex)!) continue;
              if (end && r.offset >= end.get(pd.partitionIndex)!) break;
              if (count !== undefined && seen >= count) break;
              seen++;
              if (json) {
                io.out(JSON.stringify({
                  topic, partition: pd.partitionIndex, offset: Number(r.offset), timestamp: Number(r.timestamp),
                  key: r.key?.toString() ?? null, value: r.value?.toString() ?? null,
                  headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value?.toString() ?? null])),
                }) + '\n');
              } else {
                io.out(formatRecord(fmt, topic, pd.partitionIndex, r));
              }
              position.set(pd.partitionIndex, r.offset + 1n);
            }
          }
          if (count === undefined || seen < count) {
            if (next > position.get(pd.partitionIndex)!) position.set(pd.partitionIndex, next);
          }
        }
        if (end && position.get(pd.partitionIndex)! >= end.get(pd.partitionIndex)!) active.delete(pd.partitionIndex);
      }
      if (progress && Date.now() - lastReport >= 1000) {
        lastReport = Date.now();
        io.err(`… consumed ${seen} records\n`);
      }
    }
    io.err(`consumed ${seen} record${seen === 1 ? '' : 's'} from ${topic}\n`);
    return 0;
  });
}
