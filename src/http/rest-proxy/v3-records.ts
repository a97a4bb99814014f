/**
 * REST Proxy v3 produce: POST /v3/clusters/{c}/topics/{t}/records (Confluent's ProduceAction).
 *
 * The body is one JSON record, or several concatenated (Confluent's streaming mode): each
 * `{partition_id?, headers?: [{name, value (base64)}], key?, value?, timestamp?}` with key and
 * value as v3-serialize.ts writes them. The answer is one object per record in the records'
 * order, each followed by CRLF, always with HTTP 200 once the topic is known: `{error_code: 200,
 * cluster_id, topic_name, partition_id, offset, timestamp, key?: {type, size, ...}, value?}` or
 * `{error_code, message}` for a record that failed (a body that stops being JSON ends the stream
 * with one error, as Confluent's does).
 *
 * Partition: `partition_id`, else Kafka's default partitioner (murmur2 of the key bytes as
 * written), else one partition for all keyless records of a request, round-robin across requests
 * (the sticky partitioner's batch). The request's records go to the broker as one record batch
 * per partition (at most 512 KiB each) in in-process Produce v9 requests, acks=all, as the HTTP
 * user. A missing topic is created when the broker auto-creates topics (a Metadata request that
 * allows it, as a producer's), else it answers 404 / 40403.
 */
import type { RestProxyRequest } from './rest-common.js';
import { sendInProcess } from '../in-process.js';
import { badRequest, kafkaError, metadata, restCodeOf, kafkaMessage, type V3Links } from './v3-common.js';
import { RecordError, serializePart, type Serialized } from './v3-serialize.js';
import { SchemaLookup } from './v3-schemas.js';
import { buildRecordBatch, type RecordInput } from '../../protocol/records/record.js';
import { partitionForKey } from '../../protocol/murmur2.js';
import { ErrorCode } from '../../protocol/generated/error-codes.js';
import { send } from '../respond.js';
import type { ProduceResponse } from '../../protocol/generated/messages/produce-response.js';

const RECORD_FIELDS = new Set(['partition_id', 'headers', 'key', 'value', 'timestamp']);
const MAX_BATCH_BYTES = 512 * 1024;
const AUTO_CREATE_WAIT_MS = 5_000;

/** The next partition of a topic's keyless records (per broker process). */
const sticky = new Map<string, number>();

interface Prepared {
  partition: number;
  record: RecordInput;
  key: Serialized | null;
  value: Serialized | null;
  timestamp: number;
}

type Outcome = { ok: Prepared; offset: number; timestamp: number } | { error: number; message: string };

/** The body's top-level JSON values, in order; a text that stops being JSON ends with an error. */
export function splitConcatenatedJson(text: string): ({ value: unknown } | { error: string })[] {
  const out: ({ value: unknown } | { error: string })[] = [];
  const n = text.length;
  let i = 0;
  for (;;) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) return out;
    const start = i;
    const c = text.charCodeAt(i);
    if (c === 123 || c === 91) {
      let depth = 0;
      let inString = false;
      for (; i < n; i++) {
        const ch = text.charCodeAt(i);
        if (inString) {
          if (ch === 92) i++;
          else if (ch === 34) inString = false;
        } else if (ch === 34) inString = true;
        else if (ch === 123 || ch === 91) depth++;
        else if (ch === 125 || ch === 93) {
          depth--;
          if (depth === 0) {
            i++;
            break;
          }
        }
      }
    } else {
      while (i < n && !/[\s{[]/.test(text[i]!)) i++;
    }
    try {
      out.push({ value: JSON.parse(text.slice(start, i)) });
    } catch (err) {
      out.push({ error: `Error processing JSON: ${(err as Error).message}` });
      return out;
    }
  }
}

async function partitionCount(r: RestProxyRequest, topic: string): Promise<number> {
  const known = r.broker.metadataCache.topic(topic);
  if (known) return known.partitions;
  const md = await metadata(r, [topic], true);
  const t = md.topics.find((x) => x.name === topic);
  if (t && t.errorCode === ErrorCode.NONE && t.partitions.length > 0) return t.partitions.length;
  if (t && (t.errorCode === ErrorCode.LEADER_NOT_AVAILABLE || t.errorCode === ErrorCode.NONE)) {
    await r.broker.metadataCache.waitFor((c) => c.topic(topic) !== undefined, AUTO_CREATE_WAIT_MS, `topic ${topic}`).catch(() => undefined);
    const created = r.broker.metadataCache.topic(topic);
    if (created) return created.partitions;
  }
  throw kafkaError(t ? t.errorCode || ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
}

/** A time as Java's Instant.toString writes it (no fraction when the milliseconds are 0). */
function instantText(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
}

function timestampOf(v: unknown): number {
  if (v === undefined || v === null) return Date.now();
  const ms = typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
  if (!Number.isFinite(ms)) throw new RecordError(400, `Cannot deserialize value of type \`java.time.Instant\` from ${JSON.stringify(v)}`);
  return Math.trunc(ms);
}

function headersOf(v: unknown): { key: string; value: Buffer | null }[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new RecordError(400, 'headers: an array of {name, value} is expected');
  return v.map((h) => {
    if (h === null || typeof h !== 'object' || typeof (h as { name?: unknown }).name !== 'string') throw new RecordError(400, 'headers: each header needs a name');
    const value = (h as { value?: unknown }).value;
    if (value === undefined || value === null) return { key: (h as { name: string }).name, value: null };
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) throw new RecordError(400, `headers: the value of ${(h as { name: string }).name} must be base64`);
    return { key: (h as { name: string }).name, value: Buffer.from(value, 'base64') };
  });
}

async function prepare(lookup: SchemaLookup, topic: string, partitions: number, keyless: () => number, v: unknown): Promise<Prepared> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new RecordError(400, 'Cannot construct instance of ProduceRequest: a record must be a JSON object');
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!RECORD_FIELDS.has(k)) throw new RecordError(400, `Unrecognized field "${k}" (class ProduceRequest), not marked as ignorable`);
  const [key, value] = await Promise.all([serializePart(lookup, topic, true, o.key), serializePart(lookup, topic, false, o.value)]);
  const timestamp = timestampOf(o.timestamp);
  const headers = headersOf(o.headers);
  let partition: number;
  if (o.partition_id !== undefined && o.partition_id !== null) {
    if (typeof o.partition_id !== 'number' || !Number.isInteger(o.partition_id)) throw new RecordError(400, 'partition_id must be an integer');
    partition = o.partition_id;
    if (partition < 0 || partition >= partitions) throw new RecordError(400, `Invalid partition given with record: ${partition} is not in the range [0...${partitions}).`);
  } else if (key?.bytes) {
    partition = partitionForKey(key.bytes, partitions);
  } else {
    partition = keyless();
  }
  return { partition, key, value, timestamp, record: { key: key?.bytes ?? null, value: value?.bytes ?? null, headers, timestamp: BigInt(timestamp) } };
}

/** Produces the prepared records (one batch per partition and chunk) and answers each one's outcome. */
async function produce(r: RestProxyRequest, topic: string, prepared: { index: number; p: Prepared }[], outcomes: Outcome[]): Promise<void> {
  type Chunk = { items: { index: number; p: Prepared }[]; bytes: number };
  const byPartition = new Map<number, Chunk[]>();
  for (const x of prepared) {
    let chunks = byPartition.get(x.p.partition);
    if (!chunks) byPartition.set(x.p.partition, (chunks = [{ items: [], bytes: 0 }]));
    let last = chunks[chunks.length - 1]!;
    const add = 64 + (x.p.record.key?.length ?? 0) + (x.p.record.value?.length ?? 0);
    if (last.items.length > 0 && last.bytes + add > MAX_BATCH_BYTES) chunks.push((last = { items: [], bytes: 0 }));
    last.items.push(x);
    last.bytes += add;
  }
  for (let round = 0; ; round++) {
    const parts: { index: number; chunk: { index: number; p: Prepared }[] }[] = [];
    for (const [partition, chunks] of byPartition) if (chunks[round]) parts.push({ index: partition, chunk: chunks[round]!.items });
    if (parts.length === 0) return;
    const res = await sendInProcess(r.broker, 0, 9, {
      transactionalId: null, acks: -1, timeoutMs: 30_000,
      topicData: [{ name: topic, partitionData: parts.map((x) => ({ index: x.index, records: buildRecordBatch({ records: x.chunk.map((c) => c.p.record) }) })) }],
    }, { user: r.user }) as ProduceResponse;
    const answers = res.responses.find((t) => t.name === topic)?.partitionResponses ?? [];
    for (const part of parts) {
      const a = answers.find((x) => x.index === part.index);
      part.chunk.forEach((c, i) => {
        if (!a || a.errorCode !== ErrorCode.NONE) {
          const code = a?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
          const specific = a?.recordErrors.find((e) => e.batchIndex === i)?.batchIndexErrorMessage;
          outcomes[c.index] = { error: restCodeOf(code).errorCode, message: kafkaMessage(code, specific ?? a?.errorMessage) };
          return;
        }
        const appended = a.logAppendTimeMs >= 0n ? Number(a.logAppendTimeMs) : c.p.timestamp;
        outcomes[c.index] = { ok: c.p, offset: Number(a.baseOffset) + i, timestamp: appended };
      });
    }
  }
}

export async function produceRecords(r: RestProxyRequest, l: V3Links, topic: string): Promise<void> {
  const partitions = await partitionCount(r, topic);
  const values = splitConcatenatedJson(r.body);
  if (values.length === 0) throw badRequest('Request body is empty. Data is required.');
  const lookup = new SchemaLookup(r);
  let keylessPartition = -1;
  const keyless = () => {
    if (keylessPartition < 0) {
      // Round-robin over the partitions this broker leads (an in-process Produce reaches only
      // those), over all of them when it leads none.
      const info = r.broker.metadataCache.topic(topic);
      const led = info ? r.broker.metadataCache.partitionsOf(info.topicId).filter((p) => p.leader === r.broker.nodeId && p.partition < partitions).map((p) => p.partition) : [];
      const candidates = led.length > 0 ? led.sort((a, b) => a - b) : Array.from({ length: partitions }, (_, i) => i);
      const next = sticky.get(topic) ?? Math.floor(Math.random() * candidates.length);
      keylessPartition = candidates[next % candidates.length]!;
      sticky.set(topic, (next + 1) % candidates.length);
    }
    return keylessPartition;
  };
  const outcomes: Outcome[] = new Array(values.length);
  const ready: { index: number; p: Prepared }[] = [];
  await Promise.all(values.map(async (v, index) => {
    if ('error' in v) {
      outcomes[index] = { error: 400, message: v.error };
      return;
    }
    try {
      ready.push({ index, p: await prepare(lookup, topic, partitions, keyless, v.value) });
    } catch (err) {
      if (!(err instanceof RecordError)) throw err;
      outcomes[index] = { error: err.errorCode, message: err.message };
    }
  }));
  ready.sort((a, b) => a.index - b.index);
  await produce(r, topic, ready, outcomes);
  const lines = outcomes.map((o) => JSON.stringify('error' in o ? { error_code: o.error, message: o.message } : {
    error_code: 200, cluster_id: l.clusterId, topic_name: topic, partition_id: o.ok.partition, offset: o.offset,
    timestamp: instantText(o.timestamp),
    ...(o.ok.key ? { key: o.ok.key.info } : {}),
    ...(o.ok.value ? { value: o.ok.value.info } : {}),
  }) + '\r\n');
  send(r.res, 200, 'application/json', lines.join(''));
}
