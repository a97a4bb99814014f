/**
 * kcat 1.7 (librdkafka) driver: every operation is one kcat run with a hard deadline (see
 * test/support/external.ts); group members are long-running `kcat -G` processes whose JSON
 * output (-J) and rebalance lines (stderr) are parsed as they arrive.
 * kcat cannot create, delete or configure topics, delete records, or run transactions: those
 * scenarios report n/a.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { kcat } from '../../test/support/external.js';
import { KCAT_FORMAT, parseKcatOutput } from '../../test/support/clients.js';
import { fromText } from '../lib/errors.js';
import type { Driver, ErrName, OutRec, ProduceOpts, ProduceResult, ReadOpts, Rec } from '../lib/types.js';

const unb64 = (s: string | null | undefined): Buffer | null => (s === null || s === undefined ? null : Buffer.from(s, 'base64'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function kcatError(stderr: string): ErrName {
  const line = stderr.split('\n').find((l) => /ERROR|Delivery failed|failed/i.test(l)) ?? stderr.trim().split('\n').pop() ?? '';
  return fromText(line) ?? `client:kcat: ${line.replace(/^%\s*/, '').slice(0, 120)}`;
}

/** A text that kcat can pass through a line-oriented stdin batch (-K:). */
const lineSafe = (b: Buffer | null) => b !== null && b.length > 0 && !b.includes(0x0a) && !b.includes(0x3a) && b.toString('utf8') === b.toString('utf8') && Buffer.from(b.toString('utf8')).equals(b);

export async function kcatDriver(bootstrap: string): Promise<Driver> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'samsa-compat-kcat-'));
  let fileSeq = 0;
  const members = new Map<string, { child: ChildProcess; buf: Rec[]; assignment: number[]; assigns: number; exited: Promise<void> }>();
  const v = await kcat(['-V'], { timeoutMs: 10_000 });
  const vm = /Version (\S+) .*?(librdkafka \S+)/.exec(v.stdout + v.stderr);
  const version = vm ? `kcat ${vm[1]} (${vm[2]})` : 'kcat (version unknown)';

  const common = (o: ProduceOpts) => {
    const a = ['-b', bootstrap, '-X', `acks=${o.acks ?? -1}`, '-X', `enable.idempotence=${o.idempotent ? 'true' : 'false'}`];
    if (o.compression && o.compression !== 'none') a.push('-z', o.compression);
    if (o.clientId) a.push('-X', `client.id=${o.clientId}`);
    if (o.failFast) a.push('-X', 'message.timeout.ms=5000', '-X', 'topic.metadata.propagation.max.ms=2000');
    // A lost connection is an error kcat exits on unless -E; the idempotent producer retries instead.
    if (o.idempotent) a.push('-E');
    return a;
  };

  async function produceOne(topic: string, r: OutRec, o: ProduceOpts): Promise<ErrName> {
    const args = ['-P', '-t', topic, ...common(o)];
    if (r.partition !== undefined) args.push('-p', String(r.partition));
    for (const [k, v] of r.headers ?? []) args.push('-H', v === null ? k : `${k}=${unb64(v)!.toString('utf8')}`);
    const key = unb64(r.key);
    const value = unb64(r.value);
    let input: Buffer | undefined;
    if (value === null || value.length === 0) {
      // kcat skips empty files and lines: an empty/null value needs a "key:" line with -K: (-Z: empty means null).
      args.push('-K:');
      if (value === null) args.push('-Z');
      input = Buffer.from(`${key?.toString('utf8') ?? ''}:\n`);
    } else {
      const file = path.join(dir, `msg-${fileSeq++}`);
      writeFileSync(file, value);
      if (key !== null) args.push('-k', key.toString('utf8'));
      args.push(file);
    }
    const res = await kcat(args, { timeoutMs: 30_000, input });
    return res.code === 0 ? null : res.timedOut ? 'client:kcat-timeout' : kcatError(res.stderr);
  }

  const d: Driver = {
    name: 'kcat',
    version,
    writeCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    readCodecs: ['gzip', 'snappy', 'lz4', 'zstd'],
    // Keys come from argv or a "key:" line: text only. Header values are printed as text.
    can: { nullKey: true, emptyKey: false, nullValue: true, emptyValue: true, headers: true, nullHeaderValue: true, binaryKey: false, explicitTimestamp: false, explicitPartition: true, reportsTimestampType: false },
    lacks: {
      admin: 'kcat cannot create, delete or configure topics',
      deleteRecords: 'kcat cannot delete records',
      transactions: 'kcat has no transactional producer',
      groupCommit: 'kcat commits only through auto-commit; no explicit commit',
    },
    staticMembership: true,
    async produce(topic, records, o: ProduceOpts = {}): Promise<ProduceResult> {
      if (o.handle) throw new Error('kcat producers cannot be kept open');
      const keys = records.map((r) => unb64(r.key));
      const sameHeaders = records.every((r) => JSON.stringify(r.headers ?? []) === JSON.stringify(records[0]?.headers ?? []));
      const samePart = records.every((r) => r.partition === records[0]?.partition);
      const batchable = records.length > 1 && sameHeaders && samePart && records.every((r) => r.timestamp === undefined && lineSafe(unb64(r.value))) &&
        (keys.every((k) => k === null) || keys.every((k) => lineSafe(k)));
      if (batchable) {
        // One kcat run, one record per stdin line (much faster than a run per record).
        const args = ['-P', '-t', topic, ...common(o)];
        if (records[0].partition !== undefined) args.push('-p', String(records[0].partition));
        for (const [k, v] of records[0].headers ?? []) args.push('-H', v === null ? k : `${k}=${unb64(v)!.toString('utf8')}`);
        const withKeys = keys[0] !== null;
        if (withKeys) args.push('-K:');
        const input = Buffer.from(records.map((r, i) => `${withKeys ? `${keys[i]!.toString('utf8')}:` : ''}${unb64(r.value)!.toString('utf8')}\n`).join(''));
        const res = await kcat(args, { timeoutMs: 40_000, input });
        const error = res.code === 0 ? null : kcatError(res.stderr);
        return { error, acks: records.map(() => ({ error })) };
      }
      const acks: ProduceResult['acks'] = [];
      for (const r of records) acks.push({ partition: r.partition, error: await produceOne(topic, r, o) });
      return { error: acks.find((a) => a.error)?.error ?? null, acks };
    },
    async read(topic, o: ReadOpts) {
      const records: Rec[] = [];
      const errors: ErrName[] = [];
      for (const p of o.partitions) {
        const start = o.from === 'earliest' ? 'beginning' : o.from === 'latest' ? 'end' : String(o.from);
        const args = ['-C', '-b', bootstrap, '-t', topic, '-p', String(p), '-o', start, '-e', '-q', '-f', KCAT_FORMAT, '-c', String(o.count),
          '-X', `auto.offset.reset=${o.reset === 'none' ? 'error' : o.reset ?? 'earliest'}`];
        if (o.isolation) args.push('-X', `isolation.level=${o.isolation}`);
        const res = await kcat(args, { timeoutMs: o.timeoutMs });
        if (res.code !== 0 || res.timedOut) errors.push(res.timedOut ? `client:kcat-timeout ${kcatError(res.stderr)}` : kcatError(res.stderr));
        try {
          records.push(...parseKcatOutput(res.stdoutBytes));
        } catch (e) {
          errors.push(`client:kcat-output: ${(e as Error).message}`);
        }
      }
      return { records: records.slice(0, o.count), errors };
    },
    async listOffsets(topic, partition, timestamps) {
      const q = async (ts: number) => {
        // One partition per run: kcat -Q merges repeated topic:partition arguments.
        const res = await kcat(['-Q', '-b', bootstrap, '-t', `${topic}:${partition}:${ts}`], { timeoutMs: 20_000 });
        const m = /offset (-?\d+)/.exec(res.stdout);
        if (!m) throw new Error(`kcat -Q: ${res.stderr.slice(-500)}`);
        return Number(m[1]);
      };
      const byTime: Record<string, number> = {};
      for (const ts of timestamps) byTime[String(ts)] = await q(ts);
      return { earliest: await q(-2), latest: await q(-1), byTime };
    },
    async groupOpen(o) {
      // -E: a broker restart (connection loss) is not a reason to exit; -u: records as they arrive.
      const args = ['-b', bootstrap, '-G', o.group, '-J', '-u', '-E', '-X', 'auto.offset.reset=earliest', '-X', 'auto.commit.interval.ms=100',
        '-X', `session.timeout.ms=${o.sessionTimeoutMs ?? 6000}`, '-X', 'heartbeat.interval.ms=500', '-X', 'fetch.wait.max.ms=100'];
      if (o.instanceId) args.push('-X', `group.instance.id=${o.instanceId}`);
      args.push(o.topic);
      const child = spawn('kcat', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const m = { child, buf: [] as Rec[], assignment: [] as number[], assigns: 0, exited: new Promise<void>((r) => child.on('exit', () => r())) };
      createInterface({ input: child.stdout! }).on('line', (line) => {
        try {
          const j = JSON.parse(line);
          m.buf.push({ partition: j.partition, offset: j.offset, timestamp: j.ts, tstype: null, key: j.key === null ? null : Buffer.from(j.key).toString('base64'), value: j.payload === null ? null : Buffer.from(j.payload).toString('base64'), headers: [] });
        } catch {
          /* not a record */
        }
      });
      createInterface({ input: child.stderr! }).on('line', (line) => {
        // "% Group G rebalanced (memberid ...): assigned: T [0], T [1]" / "...: revoked: ..."
        const a = /rebalanced .*: assigned: (.*)$/.exec(line);
        if (a) {
          m.assignment = [...a[1].matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1])).sort((x, y) => x - y);
          m.assigns++;
        } else if (/rebalanced .*: revoked:/.test(line)) m.assignment = [];
      });
      members.set(o.handle, m);
    },
    async groupPoll(handle, timeoutMs, max = 1000) {
      const m = members.get(handle)!;
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline && m.buf.length < max) await sleep(50);
      return { records: m.buf.splice(0, max), errors: [], assignment: m.assignment, assigns: m.assigns };
    },
    async groupClose(handle) {
      const m = members.get(handle);
      members.delete(handle);
      if (!m) return;
      m.child.kill('SIGINT'); // kcat closes the consumer: final auto-commit, then LeaveGroup (dynamic members)
      const t = setTimeout(() => m.child.kill('SIGKILL'), 15_000);
      await m.exited;
      clearTimeout(t);
    },
    async close() {
      for (const h of [...members.keys()]) await d.groupClose!(h);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return d;
}
