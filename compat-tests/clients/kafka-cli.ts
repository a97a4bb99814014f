/**
 * Kafka's own command-line tools as a client: every operation is one run of a tool's main class
 * (as the kafka-*.sh scripts run it, with a hard deadline), in a JVM that runs the tools one after
 * another (tool-server.ts) instead of a JVM start per operation; group
 * members are long-running console consumers whose records (stdout) and rebalance log lines
 * (stderr) are parsed as they arrive.
 *
 * - Records travel as text lines: the console producer reads UTF-8 lines (no binary keys, no line
 *   breaks), cannot choose a partition or a timestamp. Separators are control characters no
 *   scenario record contains, and null fields are a marker string (null.marker / null.literal).
 * - Errors: the tools print the exception (class and message); the class is mapped to Kafka's
 *   error name through Kafka's own table (jvm.ts), so a broker code is named as the Java client
 *   names it.
 * - A JVM start would cost about a CPU-second per operation; the tool servers save most of it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { RunResult } from '../../test/support/external.js';
import { ToolServers } from './tool-server.js';
import { javaRuntime, type JavaRuntime } from './jvm.js';
import type { Driver, ErrName, OutRec, ProduceOpts, ProduceResult, ReadOpts, Rec } from '../lib/types.js';

const TOOL = {
  topics: 'org.apache.kafka.tools.TopicCommand',
  producer: 'org.apache.kafka.tools.ConsoleProducer',
  consumer: 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  groups: 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  configs: 'org.apache.kafka.tools.ConfigCommand',
  offsets: 'org.apache.kafka.tools.GetOffsetShell',
  deleteRecords: 'org.apache.kafka.tools.DeleteRecordsCommand',
} as const;

// Console producer input: [headers FS] key FS value, headers HS-separated, header key HKV value.
const FS = '\x1f';
const HS = '\x1e';
const HKV = '\x1d';
const NUL = '\x1bnull\x1b';
// Console consumer output: fields FS-separated, records end with EOL, headers HS-separated ("k:v").
const EOL = '\x1c\n';
const EOL_BYTES = Buffer.from(EOL);
const FS_BYTE = FS.charCodeAt(0);

const unb64 = (s: string | null | undefined): Buffer | null => (s === null || s === undefined ? null : Buffer.from(s, 'base64'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A field the console producer reads back exactly: UTF-8 text on one line, none of our separators. */
function lineText(b: Buffer | null): string | null | undefined {
  if (b === null) return null;
  const s = b.toString('utf8');
  if (!Buffer.from(s, 'utf8').equals(b) || /[\r\n\x1b-\x1f]/.test(s)) return undefined;
  return s;
}

/** Why a record cannot go through kafka-console-producer, or null. */
function inexpressible(r: OutRec): string | null {
  if (r.timestamp !== undefined) return 'an explicit timestamp';
  if (lineText(unb64(r.key)) === undefined) return 'a key that is not one line of UTF-8 text';
  if (lineText(unb64(r.value)) === undefined) return 'a value that is not one line of UTF-8 text';
  for (const [k, v] of r.headers ?? []) {
    if (lineText(Buffer.from(k)) === undefined || lineText(unb64(v)) === undefined) return 'a header that is not UTF-8 text';
  }
  return null;
}

function inputLine(r: OutRec, withHeaders: boolean): string {
  const f = (b: Buffer | null) => (b === null ? NUL : b.toString('utf8'));
  const key = f(unb64(r.key));
  const value = f(unb64(r.value));
  if (!withHeaders) return `${key}${FS}${value}\n`;
  const hs = (r.headers ?? []).map(([k, v]) => `${k}${HKV}${f(unb64(v))}`).join(HS);
  return `${hs}${FS}${key}${FS}${value}\n`;
}

const FORMAT = [
  'print.timestamp=true', 'print.partition=true', 'print.offset=true', 'print.headers=true', 'print.key=true', 'print.value=true',
  `key.separator=${FS}`, `line.separator=${EOL}`, `headers.separator=${HS}`, `null.literal=${NUL}`,
].flatMap((p) => ['--formatter-property', p]);

/** One DefaultMessageFormatter line: "CreateTime:ts FS Partition:p FS Offset:o FS headers FS key FS value". */
function parseRecord(line: Buffer): Rec {
  const fields: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < 5; i++) {
    const j = line.indexOf(FS_BYTE, start);
    if (j < 0) throw new Error(`unexpected console consumer output: ${JSON.stringify(line.toString('utf8').slice(0, 200))}`);
    fields.push(line.subarray(start, j));
    start = j + 1;
  }
  fields.push(line.subarray(start));
  const [ts, part, off, hdrs, key, value] = fields;
  const tsm = /^(CreateTime|LogAppendTime):(-?\d+)$/.exec(ts.toString());
  const nul = (b: Buffer) => (b.toString('utf8') === NUL ? null : b.toString('base64'));
  const headers: [string, string | null][] = [];
  if (hdrs.toString('utf8') !== 'NO_HEADERS') {
    for (const h of hdrs.toString('utf8').split(HS)) {
      const c = h.indexOf(':');
      const v = h.slice(c + 1);
      headers.push([h.slice(0, c), v === NUL ? null : Buffer.from(v, 'utf8').toString('base64')]);
    }
  }
  return {
    partition: Number(/^Partition:(\d+)$/.exec(part.toString())?.[1] ?? NaN),
    offset: Number(/^Offset:(\d+)$/.exec(off.toString())?.[1] ?? NaN),
    timestamp: tsm ? Number(tsm[2]) : -1,
    tstype: tsm ? tsm[1] : null,
    key: nul(key),
    value: nul(value),
    headers,
  };
}

/** Splits complete records off a growing stdout buffer; returns the incomplete rest. */
function takeRecords(buf: Buffer, out: Rec[]): Buffer {
  let start = 0;
  for (let j = buf.indexOf(EOL_BYTES, start); j >= 0; j = buf.indexOf(EOL_BYTES, start)) {
    if (j > start) out.push(parseRecord(buf.subarray(start, j)));
    start = j + EOL_BYTES.length;
  }
  return buf.subarray(start);
}

interface Member {
  child: ChildProcess;
  topic: string;
  group: string;
  buf: Rec[];
  /** Highest offset consumed per partition over the member's life (what auto-commit must cover). */
  seen: Map<number, number>;
  assignment: Set<number>;
  assigns: number;
  stderr: string;
  exited: Promise<void>;
  exit: string | null;
}

export async function kafkaCliDriver(bootstrap: string): Promise<Driver> {
  const rt: JavaRuntime = await javaRuntime();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'samsa-compat-kafka-cli-'));
  let seq = 0;
  const members = new Map<string, Member>();
  const partitionCount = new Map<string, number>();

  const servers = new ToolServers(rt);
  const tool = (main: string, args: string[], timeoutMs: number, input?: string): Promise<RunResult> =>
    servers.run(main, ['--bootstrap-server', bootstrap, ...args], timeoutMs, input);

  /** The Kafka error a tool printed (the first exception class Kafka's table knows), else a client label. */
  const errorIn = (text: string): ErrName => {
    const classes = [...text.matchAll(/\b((?:[a-z_$][\w$]*\.)+([A-Z][\w$]*(?:Exception|Error)))\b(?::\s*([^\n]*))?/g)];
    for (const [, cls, simple, msg] of classes) {
      const name = rt.errorNames.get(cls);
      // The client raises TimeoutException for its own deadlines (see Errs.java).
      if (name && cls !== 'org.apache.kafka.common.errors.TimeoutException') return name;
      if (name) return `client:${simple}: ${(msg ?? '').slice(0, 120)}`;
    }
    // kafka-topics checks the topic list itself (Metadata) and prints this instead of a broker code.
    if (/Topic '.*' does not exist as expected/.test(text)) return 'UNKNOWN_TOPIC_OR_PARTITION';
    const c = classes.find(([cls]) => !/^java\.util\.concurrent\./.test(cls));
    if (c) return `client:${c[2]}: ${(c[3] ?? '').slice(0, 120)}`;
    const line = text.split('\n').find((l) => /error/i.test(l)) ?? text.trim().split('\n').pop() ?? '';
    return `client:kafka-cli: ${line.trim().slice(0, 160)}`;
  };
  const failed = (r: RunResult): ErrName => (r.timedOut ? 'client:kafka-cli: timed out' : errorIn(r.stdout + '\n' + r.stderr));

  async function describeTopic(name: string): Promise<{ error: ErrName; partitions?: number }> {
    const r = await tool(TOOL.topics, ['--describe', '--topic', name], 30_000);
    const m = new RegExp(`^Topic: ${escapeRe(name)}\\t.*PartitionCount: (\\d+)`, 'm').exec(r.stdout);
    if (r.code === 0 && m) return { error: null, partitions: Number(m[1]) };
    return { error: r.code === 0 ? `client:kafka-topics: no description of ${name}` : failed(r) };
  }

  /** The console producer has no partition option: an explicit partition is honest only on a one-partition topic. */
  async function partitionProblem(topic: string, records: OutRec[]): Promise<string | null> {
    if (records.every((r) => r.partition === undefined)) return null;
    if (!partitionCount.has(topic)) {
      const d = await describeTopic(topic);
      if (d.partitions === undefined) return `cannot check the partitions of ${topic} (${d.error})`;
      partitionCount.set(topic, d.partitions);
    }
    const n = partitionCount.get(topic)!;
    return records.every((r) => r.partition === undefined || (r.partition === 0 && n === 1)) ? null : `kafka-console-producer cannot choose a partition (${topic} has ${n})`;
  }

  async function produceRun(topic: string, records: OutRec[], o: ProduceOpts, withHeaders: boolean): Promise<ErrName> {
    const args = ['--topic', topic, '--timeout', '5', '--request-required-acks', String(o.acks ?? -1),
      '--reader-property', 'parse.key=true', '--reader-property', `key.separator=${FS}`, '--reader-property', `null.marker=${NUL}`];
    if (withHeaders) {
      args.push('--reader-property', 'parse.headers=true', '--reader-property', `headers.delimiter=${FS}`,
        '--reader-property', `headers.separator=${HS}`, '--reader-property', `headers.key.separator=${HKV}`);
    }
    if (o.compression && o.compression !== 'none') args.push('--compression-codec', o.compression);
    if (o.idempotent !== undefined) args.push('--command-property', `enable.idempotence=${o.idempotent}`);
    if (o.clientId) args.push('--command-property', `client.id=${o.clientId}`);
    // delivery.timeout.ms must cover linger + request timeout, or the producer refuses the config.
    if (o.failFast) args.push('--max-block-ms', '5000', '--request-timeout-ms', '4000', '--command-property', 'delivery.timeout.ms=6000');
    else args.push('--max-block-ms', '20000', '--request-timeout-ms', '10000', '--command-property', 'delivery.timeout.ms=30000');
    const r = await tool(TOOL.producer, args, 60_000, records.map((x) => inputLine(x, withHeaders)).join(''));
    // It exits 0 after failed sends too; each one is an ERROR line followed by the exception.
    const at = r.stderr.indexOf('Error when sending message');
    if (at >= 0) return errorIn(r.stderr.slice(at));
    return r.code === 0 ? null : failed(r);
  }

  async function consume(topic: string, args: string[], count: number, timeoutMs: number): Promise<{ records: Rec[]; errors: ErrName[] }> {
    const r = await tool(TOOL.consumer, ['--topic', topic, ...args, '--max-messages', String(count), '--timeout-ms', String(timeoutMs), ...FORMAT, '--command-property', 'fetch.max.wait.ms=100'], timeoutMs + 20_000);
    const records: Rec[] = [];
    const errors: ErrName[] = [];
    try {
      takeRecords(r.stdoutBytes, records);
    } catch (e) {
      errors.push(`client:kafka-console-consumer output: ${(e as Error).message}`);
    }
    const at = r.stderr.indexOf('Error processing message, terminating consumer process');
    const cause = at < 0 ? '' : (r.stderr.slice(at).split('\n')[1] ?? '').trim();
    // --timeout-ms ends the run with a bare TimeoutException: the normal end of a read, not an error.
    if (at >= 0 && cause !== 'org.apache.kafka.common.errors.TimeoutException') errors.push(errorIn(r.stderr.slice(at)));
    else if (r.timedOut) errors.push('client:kafka-console-consumer did not exit');
    else if (r.code !== 0) errors.push(failed(r));
    return { records, errors };
  }

  function startMember(o: Parameters<NonNullable<Driver['groupOpen']>>[0]): Member {
    const props = [`client.id=compat-cli-${o.handle}-${process.pid}-${seq++}`, 'group.protocol=classic', 'auto.offset.reset=earliest', 'auto.commit.interval.ms=100',
      `session.timeout.ms=${o.sessionTimeoutMs ?? 6000}`, 'heartbeat.interval.ms=500', 'fetch.max.wait.ms=100'];
    if (o.instanceId) props.push(`group.instance.id=${o.instanceId}`);
    const args = [...rt.jvmArgs, '-cp', rt.classpath, TOOL.consumer, '--bootstrap-server', bootstrap, '--topic', o.topic, '--group', o.group, ...FORMAT,
      ...props.flatMap((p) => ['--command-property', p])];
    const child = spawn(rt.java, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const m: Member = { child, topic: o.topic, group: o.group, buf: [], seen: new Map(), assignment: new Set(), assigns: 0, stderr: '', exit: null,
      exited: new Promise<void>((resolve) => child.on('exit', (code, signal) => {
        m.exit = `code ${code}, signal ${signal}`;
        resolve();
      })) };
    let pendingOut: Buffer = Buffer.alloc(0);
    child.stdout!.on('data', (d: Buffer) => {
      const got: Rec[] = [];
      try {
        pendingOut = takeRecords(Buffer.concat([pendingOut, d]), got);
      } catch (e) {
        m.stderr += `\noutput: ${(e as Error).message}`;
      }
      for (const r of got) m.seen.set(r.partition, Math.max(m.seen.get(r.partition) ?? -1, r.offset));
      m.buf.push(...got);
    });
    const tp = new RegExp(`${escapeRe(o.topic)}-(\\d+)`, 'g');
    createInterface({ input: child.stderr! }).on('line', (line) => {
      m.stderr = (m.stderr + line + '\n').slice(-8000);
      // The consumer's rebalance listener lines (log4j2.properties turns them on): eager
      // assignment, so every completed rebalance revokes all, then adds the new assignment.
      const parts = () => [...line.matchAll(tp)].map((x) => Number(x[1]));
      if (/Adding newly assigned partitions/.test(line)) {
        for (const p of parts()) m.assignment.add(p);
        m.assigns++;
      } else if (/(Revoke|Lost) previously assigned partitions/.test(line)) {
        for (const p of parts()) m.assignment.delete(p);
      }
    });
    return m;
  }

  /** Committed offsets of the group on the topic, as kafka-consumer-groups --describe shows them. */
  async function committed(group: string, topic: string): Promise<Map<number, number> | ErrName> {
    const r = await tool(TOOL.groups, ['--describe', '--group', group], 30_000);
    if (r.code !== 0) return failed(r);
    const lines = r.stdout.split('\n').map((l) => l.trim().split(/\s+/));
    const head = lines.find((l) => l[0] === 'GROUP' && l.includes('CURRENT-OFFSET'));
    if (!head) return new Map();
    const [ti, pi, ci] = ['TOPIC', 'PARTITION', 'CURRENT-OFFSET'].map((c) => head.indexOf(c));
    const out = new Map<number, number>();
    for (const l of lines) if (l[0] === group && l[ti] === topic && /^\d+$/.test(l[ci])) out.set(Number(l[pi]), Number(l[ci]));
    return out;
  }

  const d: Driver = {
    name: 'kafka-cli',
    version: `Kafka CLI tools ${rt.kafkaVersion} (kafka-tools, ${path.basename(rt.java)} -cp)`,
    writeCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    readCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    can: { nullKey: true, emptyKey: true, nullValue: true, emptyValue: true, headers: true, nullHeaderValue: true, binaryKey: false, explicitTimestamp: false, explicitPartition: false, reportsTimestampType: true },
    lacks: {
      transactions: 'kafka-console-producer has no transactional mode, and kafka-transactions only lists, describes and aborts transactions that others started',
    },
    staticMembership: true,
    async produce(topic, records, o: ProduceOpts = {}): Promise<ProduceResult> {
      if (o.handle) throw new Error('a console producer cannot be kept open between operations');
      const why = records.map(inexpressible).find((x) => x !== null) ?? (await partitionProblem(topic, records));
      if (why) return { error: `client:kafka-console-producer cannot express ${why}`, acks: [] };
      // parse.headers needs a header on every line: one run per stretch of records with / without headers.
      let error: ErrName = null;
      for (let i = 0; i < records.length && error === null;) {
        const withHeaders = (records[i].headers ?? []).length > 0;
        let j = i;
        while (j < records.length && ((records[j].headers ?? []).length > 0) === withHeaders) j++;
        error = await produceRun(topic, records.slice(i, j), o, withHeaders);
        i = j;
      }
      // The console producer reports failures, not per-record acknowledgements.
      return { error, acks: [] };
    },
    async read(topic, o: ReadOpts) {
      const extra = o.isolation ? ['--isolation-level', o.isolation] : [];
      if (o.partitions.length > 1 && o.from === 'earliest') {
        // A whole topic from the beginning (a throwaway group), the console consumer's usual use.
        const r = await consume(topic, ['--from-beginning', ...extra], o.count, o.timeoutMs);
        return { records: r.records.filter((x) => o.partitions.includes(x.partition)), errors: r.errors };
      }
      const records: Rec[] = [];
      const errors: ErrName[] = [];
      for (const p of o.partitions) {
        if (records.length >= o.count) break;
        const r = await consume(topic, ['--partition', String(p), '--offset', String(o.from), '--command-property', `auto.offset.reset=${o.reset ?? 'earliest'}`, ...extra], o.count - records.length, o.timeoutMs);
        records.push(...r.records);
        errors.push(...r.errors);
      }
      return { records, errors };
    },
    async createTopic(t) {
      const args = ['--create', '--topic', t.name, '--partitions', String(t.partitions)];
      for (const [k, v] of Object.entries(t.configs ?? {})) args.push('--config', `${k}=${v}`);
      const r = await tool(TOOL.topics, args, 30_000);
      return r.code === 0 ? null : failed(r);
    },
    async deleteTopic(name) {
      const r = await tool(TOOL.topics, ['--delete', '--topic', name], 30_000);
      partitionCount.delete(name);
      return r.code === 0 ? null : failed(r);
    },
    describeTopic,
    async describeConfigs(topic) {
      const r = await tool(TOOL.configs, ['--entity-type', 'topics', '--entity-name', topic, '--describe', '--all'], 30_000);
      if (r.code !== 0) return { error: failed(r) };
      const configs: Record<string, string | null> = {};
      for (const m of r.stdout.matchAll(/^ {2}([^=\s]+)=(.*?) sensitive=(true|false) synonyms=\{.*\}$/gm)) configs[m[1]] = m[3] === 'true' || m[2] === 'null' ? null : m[2];
      return { error: null, configs };
    },
    async alterConfigs(topic, set) {
      // Values with commas are bracketed in --add-config.
      const list = Object.entries(set).map(([k, v]) => `${k}=${v.includes(',') ? `[${v}]` : v}`).join(',');
      const r = await tool(TOOL.configs, ['--entity-type', 'topics', '--entity-name', topic, '--alter', '--add-config', list], 30_000);
      return r.code === 0 ? null : failed(r);
    },
    async listOffsets(topic, partition, timestamps) {
      const q = async (time: number): Promise<number> => {
        const r = await tool(TOOL.offsets, ['--topic', topic, '--partitions', String(partition), '--time', String(time)], 30_000);
        if (r.code !== 0) throw new Error(`kafka-get-offsets --time ${time}: ${failed(r)}`);
        const m = new RegExp(`^${escapeRe(topic)}:${partition}:(\\d*)$`, 'm').exec(r.stdout);
        // No offset after the colon: Kafka answered -1 (no record at or after the timestamp).
        if (m) return m[1] === '' ? -1 : Number(m[1]);
        if (r.stdout.trim() === '') return -1;
        throw new Error(`kafka-get-offsets --time ${time}: unexpected output ${JSON.stringify(r.stdout.slice(0, 300))}`);
      };
      const byTime: Record<string, number> = {};
      for (const ts of timestamps) byTime[String(ts)] = await q(ts);
      return { earliest: await q(-2), latest: await q(-1), byTime };
    },
    async deleteRecords(topic, partition, before) {
      const file = path.join(dir, `delete-${seq++}.json`);
      writeFileSync(file, JSON.stringify({ version: 1, partitions: [{ topic, partition, offset: before }] }));
      const r = await tool(TOOL.deleteRecords, ['--offset-json-file', file], 30_000);
      const line = new RegExp(`^partition: ${escapeRe(topic)}-${partition}\\t(.*)$`, 'm').exec(r.stdout)?.[1];
      const low = line && /^low_watermark: (\d+)$/.exec(line);
      if (low) return { error: null, lowWatermark: Number(low[1]) };
      return { error: line ? errorIn(line) : failed(r) };
    },
    async groupOpen(o) {
      members.set(o.handle, startMember(o));
    },
    async groupPoll(handle, timeoutMs, max = 1000) {
      const m = members.get(handle);
      if (!m) throw new Error(`no group member ${handle}`);
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && m.buf.length < max && m.exit === null) await sleep(50);
      const errors: ErrName[] = m.exit === null ? [] : [`client:kafka-console-consumer exited (${m.exit}): ${errorIn(m.stderr)}`];
      return { records: m.buf.splice(0, max), errors, assignment: [...m.assignment].sort((a, b) => a - b), assigns: m.assigns };
    },
    // The console consumer commits only through auto-commit; a "commit" is waiting until the
    // group's committed offsets (kafka-consumer-groups --describe) cover what it has consumed.
    async groupCommit(handle) {
      const m = members.get(handle);
      if (!m) throw new Error(`no group member ${handle}`);
      const want = new Map([...m.seen].map(([p, o]) => [p, o + 1]));
      const deadline = Date.now() + 20_000;
      let last: Map<number, number> | ErrName = null;
      while (Date.now() < deadline) {
        last = await committed(m.group, m.topic);
        if (last instanceof Map && [...want].every(([p, o]) => ((last as Map<number, number>).get(p) ?? -1) >= o)) return null;
        await sleep(200);
      }
      return `client:auto-commit not seen within 20 s: want ${JSON.stringify([...want])}, kafka-consumer-groups shows ${last instanceof Map ? JSON.stringify([...last]) : last}`;
    },
    async groupClose(handle) {
      const m = members.get(handle);
      members.delete(handle);
      if (!m) return;
      // SIGTERM runs the console consumer's shutdown hook: close() commits, then LeaveGroup (dynamic members only).
      m.child.kill('SIGTERM');
      const t = setTimeout(() => m.child.kill('SIGKILL'), 15_000);
      await m.exited;
      clearTimeout(t);
    },
    async close() {
      await Promise.all([...members.keys()].map((h) => d.groupClose!(h)));
      servers.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return d;
}
