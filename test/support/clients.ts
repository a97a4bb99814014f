/**
 * Shared helpers for the end-to-end tests in this folder: one canonical record shape, and
 * writers/readers for every real client on this machine (kcat, confluent-kafka-python,
 * kafka-python, kafkajs, @platformatic/kafka).
 *
 * Keys, values and header values travel as base64 (null stays null) so that every comparison is
 * byte-exact whatever the bytes are. Header names are strings (all clients treat them as UTF-8).
 * Not a test file (no `.test.ts`): the runner does not pick it up.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import kafkajs from 'kafkajs';
import { Consumer as PlatformaticConsumer, Producer as PlatformaticProducer } from '@platformatic/kafka';
import * as assert from 'uvu/assert';
import { kcat, python, venvPython, type RunResult } from '../support/external.js';
import type { LogLevel } from '../../src/logger.js';

const { Kafka, logLevel } = kafkajs;

/** Broker log level for these tests: SAMSA_E2E_LOG=debug shows every request the broker refuses. */
export const e2eLogLevel = (process.env.SAMSA_E2E_LOG ?? 'warn') as LogLevel;

/** A record as every reader reports it. */
export interface Rec {
  partition: number;
  offset: number;
  timestamp: number;
  /** base64, or null for a null key. */
  key: string | null;
  /** base64, or null for a null value. */
  value: string | null;
  /** [name, base64 value | null], in order. */
  headers: [string, string | null][];
}

/** What a writer is asked to send (offset is assigned by the broker). */
export interface OutRec {
  partition: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: [string, Buffer | null][];
  /** Create time in ms; undefined lets the client choose (now). */
  timestamp?: number;
}

export const b64 = (b: Buffer | string | null | undefined): string | null =>
  b === null || b === undefined ? null : Buffer.from(b).toString('base64');

/** 127.0.0.1:PORT (the tests talk to 127.0.0.1 only). */
export function hostPort(port: number): string {
  return `127.0.0.1:${port}`;
}

/**
 * Runs a script with the venv's Python (current confluent-kafka) with the bootstrap address as its
 * argument; it must exit 0. Returns its JSON lines merged into one object.
 */
export async function venvJson(bs: string, script: string, what: string, timeoutMs: number): Promise<Record<string, any>> {
  const res = await venvPython(script, [bs], { timeoutMs });
  assert.is(res.code, 0, `${what}: ${describeRun(res)}`);
  return Object.assign({}, ...jsonLines(res, what));
}

/** Parses one JSON object per line; lines that are not JSON objects are an error (with context). */
export function jsonLines(res: RunResult, what: string): any[] {
  const out: any[] = [];
  for (const line of res.stdout.split('\n')) {
    const t = line.trim();
    if (!t) continue;
    try {
      out.push(JSON.parse(t));
    } catch {
      throw new Error(`${what}: not a JSON line: ${t}\n--- stderr:\n${res.stderr.slice(-4000)}`);
    }
  }
  return out;
}

export function describeRun(res: RunResult): string {
  return `code=${res.code} signal=${res.signal} timedOut=${res.timedOut}\n--- stdout:\n${res.stdout.slice(-4000)}\n--- stderr:\n${res.stderr.slice(-4000)}`;
}

/** Sorts by partition then offset, the order in which the tests compare. */
export function byPartitionOffset(a: Rec, b: Rec): number {
  return a.partition - b.partition || a.offset - b.offset;
}

/** The fields a reader must reproduce from what a writer sent. */
export function expectedView(r: OutRec): Omit<Rec, 'offset' | 'timestamp'> & { timestamp?: number } {
  return {
    partition: r.partition,
    key: b64(r.key),
    value: b64(r.value),
    headers: (r.headers ?? []).map(([k, v]) => [k, b64(v)] as [string, string | null]),
    ...(r.timestamp !== undefined ? { timestamp: r.timestamp } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Python: confluent-kafka (librdkafka 2.0.2)
// ---------------------------------------------------------------------------------------------

const PY_COMMON = `
import sys, json, base64, time
def b64e(b):
    return None if b is None else base64.b64encode(b).decode('ascii')
def b64d(s):
    return None if s is None else base64.b64decode(s)
def emit(o):
    sys.stdout.write(json.dumps(o) + "\\n"); sys.stdout.flush()
`;

/** stdin: {"bootstrap", "topic", "config": {...}, "records": [OutRec as JSON]}; one line per delivery report. */
export const CONFLUENT_PRODUCER = `${PY_COMMON}
from confluent_kafka import Producer
req = json.loads(sys.stdin.read())
conf = {'bootstrap.servers': req['bootstrap'], 'enable.idempotence': False, 'linger.ms': 5,
        'message.timeout.ms': 15000, 'socket.timeout.ms': 10000}
conf.update(req.get('config', {}))
p = Producer(conf)
reports = []
def cb(err, msg):
    ts = msg.timestamp()
    emit({'error': None if err is None else str(err),
          'partition': msg.partition(), 'offset': msg.offset(), 'key': b64e(msg.key()),
          'tstype': ts[0], 'timestamp': ts[1]})
for r in req['records']:
    kw = {'partition': r['partition'], 'on_delivery': cb}
    if r.get('key') is not None: kw['key'] = b64d(r['key'])
    kw['value'] = b64d(r.get('value'))
    if r.get('headers'): kw['headers'] = [(h[0], b64d(h[1])) for h in r['headers']]
    if r.get('timestamp') is not None: kw['timestamp'] = r['timestamp']
    p.produce(req['topic'], **kw)
    p.poll(0)
left = p.flush(20)
emit({'done': True, 'unflushed': left})
`;

/**
 * argv: bootstrap topic partitions(comma list) count timeoutS [start offset, default 0].
 * Emits one line per record, then {"done": true, "count": n}.
 */
export const CONFLUENT_CONSUMER = `${PY_COMMON}
from confluent_kafka import Consumer, TopicPartition, KafkaError
bootstrap, topic, parts, count, timeout_s = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(',')], int(sys.argv[4]), float(sys.argv[5])
start = int(sys.argv[6]) if len(sys.argv) > 6 else 0
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'samsa-e2e-unused', 'enable.auto.commit': False,
              'enable.auto.offset.store': False, 'enable.partition.eof': False, 'socket.timeout.ms': 10000,
              'fetch.wait.max.ms': 200})
c.assign([TopicPartition(topic, p, start) for p in parts])
n = 0
deadline = time.time() + timeout_s
while n < count and time.time() < deadline:
    m = c.poll(0.5)
    if m is None: continue
    if m.error():
        emit({'error': str(m.error())}); continue
    ts = m.timestamp()
    emit({'partition': m.partition(), 'offset': m.offset(), 'timestamp': ts[1], 'tstype': ts[0],
          'key': b64e(m.key()), 'value': b64e(m.value()),
          'headers': [[h[0], b64e(h[1])] for h in (m.headers() or [])]})
    n += 1
c.close()
emit({'done': True, 'count': n})
`;

// ---------------------------------------------------------------------------------------------
// Python: kafka-python 2.0.2
// ---------------------------------------------------------------------------------------------

/** stdin: {"bootstrap", "topic", "config": {...kwargs}, "records": [...]}; one line per record sent. */
export const KAFKA_PYTHON_PRODUCER = `${PY_COMMON}
from kafka import KafkaProducer
req = json.loads(sys.stdin.read())
kw = {'bootstrap_servers': req['bootstrap'], 'request_timeout_ms': 15000, 'max_block_ms': 15000}
kw.update(req.get('config', {}))
p = KafkaProducer(**kw)
futs = []
for r in req['records']:
    a = {'partition': r['partition'], 'value': b64d(r.get('value')), 'key': b64d(r.get('key'))}
    if r.get('headers'): a['headers'] = [(h[0], b64d(h[1])) for h in r['headers']]
    if r.get('timestamp') is not None: a['timestamp_ms'] = r['timestamp']
    futs.append(p.send(req['topic'], **a))
p.flush(20)
for f in futs:
    try:
        md = f.get(timeout=20)
        emit({'error': None, 'partition': md.partition, 'offset': md.offset, 'timestamp': md.timestamp})
    except Exception as e:
        emit({'error': repr(e)})
p.close(10)
emit({'done': True})
`;

/** argv: bootstrap topic partitions count timeoutS. */
export const KAFKA_PYTHON_CONSUMER = `${PY_COMMON}
from kafka import KafkaConsumer, TopicPartition
bootstrap, topic, parts, count, timeout_s = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(',')], int(sys.argv[4]), float(sys.argv[5])
c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None, enable_auto_commit=False,
                  auto_offset_reset='earliest', request_timeout_ms=15000, fetch_max_wait_ms=200)
tps = [TopicPartition(topic, p) for p in parts]
c.assign(tps)
for tp in tps: c.seek(tp, 0)
n = 0
deadline = time.time() + timeout_s
while n < count and time.time() < deadline:
    batches = c.poll(timeout_ms=500)
    for tp, msgs in sorted(batches.items(), key=lambda kv: kv[0].partition):
        for m in msgs:
            emit({'partition': m.partition, 'offset': m.offset, 'timestamp': m.timestamp, 'tstype': m.timestamp_type,
                  'key': b64e(m.key), 'value': b64e(m.value),
                  'headers': [[h[0], b64e(h[1])] for h in (m.headers or [])]})
            n += 1
c.close()
emit({'done': True, 'count': n})
`;

function toWire(records: OutRec[]): unknown[] {
  return records.map((r) => ({
    partition: r.partition,
    key: b64(r.key),
    value: b64(r.value),
    headers: (r.headers ?? []).map(([k, v]) => [k, b64(v)]),
    timestamp: r.timestamp ?? null,
  }));
}

export interface DeliveryReport {
  error: string | null;
  partition: number;
  offset: number;
  timestamp?: number;
}

/** Produces with confluent-kafka-python; returns the delivery reports (in delivery order). */
export async function produceConfluent(bootstrap: string, topic: string, records: OutRec[], config: Record<string, unknown> = {}): Promise<DeliveryReport[]> {
  const res = await python(CONFLUENT_PRODUCER, [], { input: JSON.stringify({ bootstrap, topic, config, records: toWire(records) }), timeoutMs: 40_000 });
  const lines = jsonLines(res, 'confluent producer');
  const done = lines.find((l) => l.done);
  if (res.code !== 0 || !done) throw new Error(`confluent producer failed: ${describeRun(res)}`);
  if (done.unflushed !== 0) throw new Error(`confluent producer left ${done.unflushed} unflushed: ${describeRun(res)}`);
  return lines.filter((l) => !l.done);
}

export async function produceKafkaPython(bootstrap: string, topic: string, records: OutRec[], config: Record<string, unknown> = {}): Promise<DeliveryReport[]> {
  const res = await python(KAFKA_PYTHON_PRODUCER, [], { input: JSON.stringify({ bootstrap, topic, config, records: toWire(records) }), timeoutMs: 50_000 });
  const lines = jsonLines(res, 'kafka-python producer');
  if (res.code !== 0 || !lines.some((l) => l.done)) throw new Error(`kafka-python producer failed: ${describeRun(res)}`);
  return lines.filter((l) => !l.done);
}

export interface ReadResult {
  records: Rec[];
  errors: string[];
  raw: RunResult;
}

function toRecs(lines: any[]): { records: Rec[]; errors: string[] } {
  const records: Rec[] = [];
  const errors: string[] = [];
  for (const l of lines) {
    if (l.done) continue;
    if (l.error) {
      errors.push(l.error);
      continue;
    }
    records.push({ partition: l.partition, offset: l.offset, timestamp: l.timestamp, key: l.key, value: l.value, headers: l.headers });
  }
  return { records, errors };
}

export async function readConfluent(bootstrap: string, topic: string, partitions: number[], count: number, timeoutS = 20): Promise<ReadResult> {
  const res = await python(CONFLUENT_CONSUMER, [bootstrap, topic, partitions.join(','), String(count), String(timeoutS)], { timeoutMs: (timeoutS + 15) * 1000 });
  return { ...toRecs(jsonLines(res, 'confluent consumer')), raw: res };
}

export async function readKafkaPython(bootstrap: string, topic: string, partitions: number[], count: number, timeoutS = 20): Promise<ReadResult> {
  const res = await python(KAFKA_PYTHON_CONSUMER, [bootstrap, topic, partitions.join(','), String(count), String(timeoutS)], { timeoutMs: (timeoutS + 15) * 1000 });
  return { ...toRecs(jsonLines(res, 'kafka-python consumer')), raw: res };
}

// ---------------------------------------------------------------------------------------------
// kcat
// ---------------------------------------------------------------------------------------------

/**
 * kcat's consumer output format, binary-safe for keys and values: a text line
 * "partition offset timestamp keyLen valueLen", then keyLen key bytes and valueLen value bytes,
 * then "\n", then the headers as kcat prints them (%h: name=value CSV) and "\n".
 * Header values therefore must not contain ',' '=' or newlines, nor be the text NULL (kcat's
 * rendering of a null header value), when read through kcat.
 */
export const KCAT_FORMAT = '%p %o %T %K %S\\n%k%s\\n%h\\n';

export function parseKcatOutput(out: Buffer): Rec[] {
  const recs: Rec[] = [];
  let pos = 0;
  const line = (): string => {
    const nl = out.indexOf(0x0a, pos);
    if (nl < 0) throw new Error(`kcat output: no newline after byte ${pos}`);
    const s = out.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    return s;
  };
  while (pos < out.length) {
    const head = line().split(' ').map(Number);
    if (head.length !== 5 || head.some((n) => !Number.isFinite(n))) throw new Error(`kcat output: bad record head at ${pos}`);
    const [partition, offset, timestamp, keyLen, valueLen] = head;
    const key = keyLen < 0 ? null : out.subarray(pos, pos + keyLen);
    pos += Math.max(keyLen, 0);
    const value = valueLen < 0 ? null : out.subarray(pos, pos + valueLen);
    pos += Math.max(valueLen, 0);
    if (out[pos] !== 0x0a) throw new Error(`kcat output: expected newline after payload at ${pos}`);
    pos++;
    const h = line();
    const headers: [string, string | null][] = h === ''
      ? []
      : h.split(',').map((kv) => {
        const eq = kv.indexOf('=');
        if (eq < 0) return [kv, null];
        const v = kv.slice(eq + 1);
        // kcat prints a null header value as "NULL".
        return [kv.slice(0, eq), v === 'NULL' ? null : b64(Buffer.from(v, 'utf8'))];
      });
    recs.push({ partition, offset, timestamp, key: b64(key), value: b64(value), headers });
  }
  return recs;
}

/** kcat -C -e from the beginning of each listed partition. */
export async function readKcat(bootstrap: string, topic: string, partitions: number[], extra: string[] = []): Promise<{ records: Rec[]; raw: RunResult[] }> {
  const records: Rec[] = [];
  const raw: RunResult[] = [];
  for (const p of partitions) {
    const res = await kcat(['-C', '-b', bootstrap, '-t', topic, '-p', String(p), '-o', 'beginning', '-e', '-q', '-f', KCAT_FORMAT, ...extra], { timeoutMs: 30_000 });
    raw.push(res);
    if (res.code !== 0) throw new Error(`kcat -C failed: ${describeRun(res)}`);
    records.push(...parseKcatOutput(res.stdoutBytes));
  }
  return { records, raw };
}

/**
 * Produces with kcat, one kcat run per record (kcat cannot set per-message headers, partitions
 * or timestamps). A non-empty value is passed as a file argument, which kcat sends as one message
 * byte-for-byte. kcat skips empty files and empty input lines, so an empty or null value is sent
 * as a "key:" line with -K: (and -Z for null); that needs a non-null key without ':'.
 * Timestamps cannot be set with kcat (ignored: the broker sees kcat's create time).
 */
export async function produceKcat(bootstrap: string, topic: string, records: OutRec[], dir: string, extra: string[] = []): Promise<void> {
  let i = 0;
  for (const r of records) {
    const args = ['-P', '-b', bootstrap, '-t', topic, '-p', String(r.partition), ...extra];
    for (const [k, v] of r.headers ?? []) args.push('-H', v === null ? k : `${k}=${v.toString('utf8')}`);
    let input: Buffer | undefined;
    if (r.value === null || r.value.length === 0) {
      const key = r.key?.toString('utf8');
      if (key === undefined || key.includes(':') || key.includes('\n')) throw new Error('kcat can send an empty or null value only with a key without ":"');
      args.push('-K:');
      if (r.value === null) args.push('-Z');
      input = Buffer.from(`${key}:\n`);
    } else {
      const file = path.join(dir, `kcat-msg-${process.pid}-${i++}`);
      writeFileSync(file, r.value);
      if (r.key !== null) args.push('-k', r.key.toString('utf8'));
      args.push(file);
    }
    const res = await kcat(args, { timeoutMs: 30_000, input });
    if (res.code !== 0) throw new Error(`kcat -P failed: ${describeRun(res)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// kafkajs and platformatic producers
// ---------------------------------------------------------------------------------------------

/** kafkajs headers object: repeated names become arrays (kafkajs then sends one header each). */
function kafkajsHeaders(headers: [string, Buffer | null][] | undefined): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [k, v] of headers ?? []) {
    if (k in out) out[k] = [...(Array.isArray(out[k]) ? out[k] : [out[k]]), v];
    else out[k] = v;
  }
  return out;
}

/** One kafkajs send() with every record (kafkajs keeps the order within each partition). */
export async function produceKafkajs(bootstrap: string, topic: string, records: OutRec[], opts: { acks?: number; compression?: number } = {}): Promise<{ partition: number; baseOffset: string; errorCode: number }[]> {
  const kafka = new Kafka({ clientId: 'e2e-kafkajs', brokers: [bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  try {
    const res = await producer.send({
      topic,
      acks: opts.acks,
      compression: opts.compression,
      messages: records.map((r) => ({
        partition: r.partition,
        key: r.key,
        value: r.value,
        headers: kafkajsHeaders(r.headers),
        timestamp: r.timestamp !== undefined ? String(r.timestamp) : undefined,
      })),
    });
    return res.map((x) => ({ partition: x.partition, baseOffset: x.baseOffset ?? '', errorCode: x.errorCode }));
  } finally {
    await producer.disconnect();
  }
}

export async function producePlatformatic(bootstrap: string, topic: string, records: OutRec[], opts: { acks?: number; compression?: 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd' } = {}): Promise<{ partition: number; offset: bigint }[]> {
  const producer = new PlatformaticProducer({ clientId: 'e2e-platformatic', bootstrapBrokers: [bootstrap], retries: 2, timeout: 10_000, autocreateTopics: true });
  try {
    const res = await producer.send({
      acks: opts.acks,
      compression: opts.compression,
      messages: records.map((r) => ({
        topic,
        partition: r.partition,
        key: r.key ?? undefined,
        value: r.value ?? undefined,
        headers: r.headers ? new Map(r.headers.map(([k, v]) => [Buffer.from(k), v as Buffer])) : undefined,
        timestamp: r.timestamp !== undefined ? BigInt(r.timestamp) : undefined,
      })),
    });
    return (res.offsets ?? []).map((o) => ({ partition: o.partition, offset: o.offset }));
  } finally {
    await producer.close();
  }
}

// ---------------------------------------------------------------------------------------------
// @platformatic/kafka low-level Fetch (v17, topic ids; no consumer group is joined)
// ---------------------------------------------------------------------------------------------

/**
 * Reads partitions from offset 0 to their high watermark with Consumer.fetch() (Fetch v17 by
 * topic id), which does not join a group. Decompression is the client's (no zstd on Node < 22.15).
 */
export async function readPlatformaticFetch(bootstrap: string, topic: string, partitions: number[], timeoutMs = 15_000): Promise<Rec[]> {
  const consumer = new PlatformaticConsumer({ clientId: 'e2e-platformatic-fetch', groupId: 'samsa-e2e-unused', bootstrapBrokers: [bootstrap], retries: 1, timeout: 10_000 });
  const deadline = Date.now() + timeoutMs;
  const out: Rec[] = [];
  try {
    const md = await consumer.metadata({ topics: [topic], forceUpdate: true });
    const t = md.topics.get(topic);
    if (!t) throw new Error(`platformatic: no metadata for ${topic}`);
    for (const p of partitions) {
      const leader = t.partitions[p].leader;
      let offset = 0n;
      for (;;) {
        if (Date.now() > deadline) throw new Error(`platformatic fetch: deadline passed at ${topic}/${p} offset ${offset}`);
        const res = await consumer.fetch({
          node: leader,
          maxWaitTime: 100,
          minBytes: 1,
          maxBytes: 10 << 20,
          topics: [{ topicId: t.id, partitions: [{ partition: p, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, partitionMaxBytes: 10 << 20 }] }],
        });
        if (res.errorCode !== 0) throw new Error(`platformatic fetch: top-level error ${res.errorCode}`);
        const part = res.responses[0].partitions[0];
        if (part.errorCode !== 0) throw new Error(`platformatic fetch: partition error ${part.errorCode}`);
        for (const batch of part.records ?? []) {
          for (const r of batch.records) {
            const o = batch.firstOffset + BigInt(r.offsetDelta);
            if (o < offset) continue;
            out.push({
              partition: p,
              offset: Number(o),
              timestamp: Number(batch.firstTimestamp + r.timestampDelta),
              key: b64(r.key),
              value: b64(r.value),
              headers: r.headers.map(([k, v]) => [k === null ? '' : k.toString('utf8'), b64(v)] as [string, string | null]),
            });
            offset = o + 1n;
          }
        }
        if (offset >= part.highWatermark) break;
      }
    }
    return out;
  } finally {
    await consumer.close();
  }
}
