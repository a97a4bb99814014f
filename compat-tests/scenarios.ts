/**
 * The scenarios, each written once against the Driver vocabulary (lib/types.ts) and run through
 * every client. Each names the Kafka behaviour it checks. `run` returns the normalised
 * observations (comparable across targets: no topic names, no wall-clock times) and throws
 * `Fail` when the observed behaviour is not Kafka's; `na` returns a reason when the client (or
 * target) cannot express the scenario.
 */
import type { Harness } from './lib/harness.js';
import type { Target } from './lib/targets.js';
import type { ClientName, Codec, Driver, ErrName, OutRec, Rec } from './lib/types.js';
import { ALL_CLIENTS, CODECS } from './lib/types.js';

export class Fail extends Error {}

export interface Ctx {
  target: Target;
  client: ClientName;
  runId: string;
  /** A topic name unique to this run, client and purpose. */
  topic(purpose: string): string;
  /** A topic name unique to this run and purpose, shared by all clients. */
  sharedTopic(purpose: string): string;
  harness: Harness;
  harnessFor(bootstrap: string): Harness;
  /** The same client, connected to another broker of the target (created once, closed at the end). */
  driverFor(bootstrap: string): Promise<Driver>;
  /** Runs fn while holding the named lock (scenarios that share a broker they disturb). */
  exclusive<T>(name: string, fn: () => Promise<T>): Promise<T>;
  /** Observations recorded so far (kept on failure too). */
  observed: Record<string, unknown>;
  /** Shared state between the prepare phase and the run phase. */
  shared: Map<string, unknown>;
}

export interface Scenario {
  id: string;
  behaviour: string;
  timeoutMs?: number;
  na?(d: Driver, ctx: Ctx): string | null;
  /** Runs for every client before any scenario's run (cross-client scenarios). */
  prepare?(ctx: Ctx, d: Driver): Promise<void>;
  run(ctx: Ctx, d: Driver): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// helpers

const b64 = (s: string | Buffer | null): string | null => (s === null ? null : Buffer.from(s).toString('base64'));
const text = (s: string | null | undefined): string | null => (s === null || s === undefined ? null : Buffer.from(s, 'base64').toString('utf8'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Two days ago, on the hour: far from "now", so log-append time is unmistakable, and well inside
 * the default retention (7 days): older records are deleted by Kafka's retention check, active
 * segment included, within minutes of being written.
 */
const T0 = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 2 * 86_400_000;

export function check(cond: unknown, msg: string): asserts cond {
  if (!cond) throw new Fail(msg);
}

function eq(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  if (a !== e) throw new Fail(`${what}: expected ${e}, got ${a}`);
}

function noErrors(errors: ErrName[], what: string): void {
  if (errors.length) throw new Fail(`${what}: errors ${JSON.stringify(errors)}`);
}

/** What a record looks like once normalised for comparison (offset, key, value, headers). */
function view(r: Rec) {
  return { p: r.partition, o: r.offset, k: r.key, v: r.value, h: r.headers };
}

function byPO(a: Rec, b: Rec) {
  return a.partition - b.partition || a.offset - b.offset;
}

function need(d: Driver, ...ops: (keyof Driver)[]): string | null {
  for (const op of ops) {
    if (d[op] === undefined) return d.lacks[op as string] ?? d.lacks.admin ?? `${d.name} driver has no ${String(op)}`;
  }
  return null;
}

async function produceOk(d: Driver, topic: string, recs: OutRec[], what: string, opts = {}) {
  const r = await d.produce!(topic, recs, opts);
  if (r.error !== null) throw new Fail(`${what}: produce failed: ${r.error}`);
  return r;
}

async function readAll(d: Driver, topic: string, partitions: number[], count: number, what: string, extra: Partial<Parameters<NonNullable<Driver['read']>>[1]> = {}): Promise<Rec[]> {
  const r = await d.read!(topic, { partitions, from: 'earliest', count, timeoutMs: 15_000, ...extra });
  noErrors(r.errors, what);
  return r.records.sort(byPO);
}

/** Polls group members until cond holds (bounded); members poll in turn, as a single-threaded app would. */
async function pollUntil(d: Driver, handles: string[], cond: () => boolean, timeoutMs: number, what: string, sink?: Map<string, Rec[]>, assignments?: Map<string, number[]>, assigns?: Map<string, number>) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const h of handles) {
      const r = await d.groupPoll!(h, 200);
      sink?.set(h, [...(sink.get(h) ?? []), ...r.records]);
      assignments?.set(h, r.assignment);
      assigns?.set(h, r.assigns);
    }
    if (cond()) return;
    if (Date.now() > deadline) throw new Fail(`${what}: condition not reached within ${timeoutMs} ms (assignments ${JSON.stringify(assignments ? Object.fromEntries(assignments) : {})})`);
  }
}

async function waitCommitted(h: Harness, group: string, topic: string, offset: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await h.committed(group, topic).catch((e) => String(e));
    if (Array.isArray(last) && last.length > 0 && last.every((x) => x >= offset)) return;
    await sleep(100);
  }
  throw new Fail(`committed offsets of ${group}: expected ${offset}, got ${JSON.stringify(last)}`);
}

/** Waits until no partition of `topic` has an open transaction (last stable offset = high watermark). */
async function waitStable(h: Harness, topic: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await h.offsets(topic).catch((e) => String(e));
    if (Array.isArray(last) && last.every((p) => p.stable === p.high)) return;
    await sleep(100);
  }
  throw new Fail(`${topic}: a transaction still open after ${timeoutMs} ms (${JSON.stringify(last)})`);
}

// ---------------------------------------------------------------------------------------------

const topicAdmin: Scenario = {
  id: 'topic-admin',
  behaviour: 'CreateTopics then Metadata shows the partition count; a second CreateTopics is TOPIC_ALREADY_EXISTS; after DeleteTopics the topic is gone (UNKNOWN_TOPIC_OR_PARTITION)',
  na: (d) => need(d, 'createTopic', 'describeTopic', 'deleteTopic'),
  async run(ctx, d0) {
    // On a broker without auto-creation when the target has one: describing a deleted topic must not recreate it.
    const d = ctx.target.noAutoCreate ? await ctx.driverFor(await ctx.target.noAutoCreate()) : d0;
    const t = ctx.topic('admin');
    ctx.observed.create = await d.createTopic!({ name: t, partitions: 3 });
    eq(ctx.observed.create, null, 'CreateTopics');
    // Kafka answers CreateTopics once its controller has the topic; a broker's metadata may lag
    // a moment behind, so a client that describes at once may see UNKNOWN_TOPIC_OR_PARTITION.
    let desc = await d.describeTopic!(t);
    for (let i = 0; i < 20 && desc.error === 'UNKNOWN_TOPIC_OR_PARTITION'; i++) {
      await sleep(250);
      desc = await d.describeTopic!(t);
    }
    ctx.observed.describe = desc;
    eq(desc, { error: null, partitions: 3 }, 'Metadata after create');
    ctx.observed.createAgain = await d.createTopic!({ name: t, partitions: 3 });
    eq(ctx.observed.createAgain, 'TOPIC_ALREADY_EXISTS', 'second CreateTopics');
    ctx.observed.delete = await d.deleteTopic!(t);
    eq(ctx.observed.delete, null, 'DeleteTopics');
    let after = await d.describeTopic!(t);
    // Deletion may be asynchronous on Kafka, and while it spreads kafkajs can also answer with a
    // TypeError (every broker it asked failed): bounded re-check until the topic is reported gone.
    for (let i = 0; i < 20 && after.error !== 'UNKNOWN_TOPIC_OR_PARTITION'; i++) {
      await sleep(250);
      after = await d.describeTopic!(t);
    }
    ctx.observed.describeAfterDelete = after.error;
    eq(after.error, 'UNKNOWN_TOPIC_OR_PARTITION', 'Metadata after delete');
  },
};

const recordShapes: Scenario = {
  id: 'record-shapes',
  behaviour: 'Produce/Fetch (record batch v2): null vs empty keys and values, binary keys, headers (order, repeated names, empty and null values) round-trip byte-exact with contiguous offsets',
  na: (d) => need(d, 'produce', 'read'),
  async run(ctx, d) {
    const t = ctx.topic('shapes');
    await ctx.harness.createTopic({ name: t, partitions: 1 });
    const recs: (OutRec & { why: string })[] = [];
    const add = (why: string, ok: boolean, r: OutRec) => {
      if (ok) recs.push({ ...r, partition: 0, why });
      else ((ctx.observed.notExpressible ??= []) as string[]).push(why);
    };
    add('null key', d.can.nullKey, { key: null, value: b64('v-null-key') });
    add('empty key', d.can.emptyKey, { key: b64(''), value: b64('v-empty-key') });
    add('empty value', d.can.emptyValue, { key: b64('k-empty-value'), value: b64('') });
    add('null value (tombstone)', d.can.nullValue, { key: b64('k-null-value'), value: null });
    add('binary key', d.can.binaryKey, { key: b64(Buffer.from([0, 1, 0xfe, 0xff])), value: b64(Buffer.from([0xff, 0, 0x80, 0x7f])) });
    add('headers', d.can.headers, { key: b64('k-headers'), value: b64('v-headers'), headers: [['h1', b64('a')], ['h1', b64('b')], ['empty', b64('')], ['ünï', b64('çødé')]] });
    add('null header value', d.can.headers && d.can.nullHeaderValue, { key: b64('k-null-header'), value: b64('v-null-header'), headers: [['nul', null]] });
    for (const r of recs) await produceOk(d, t, [r], r.why);
    const got = await readAll(d, t, [0], recs.length, 'read back');
    ctx.observed.records = got.map(view);
    eq(got.length, recs.length, 'record count');
    got.forEach((g, i) => {
      const w = recs[i];
      eq(g.offset, i, `${w.why}: offset`);
      eq([g.key, g.value], [w.key, w.value], `${w.why}: key and value`);
      eq(g.headers, w.headers ?? [], `${w.why}: headers`);
    });
  },
};

function timestampScenario(kind: 'CreateTime' | 'LogAppendTime'): Scenario {
  return {
    id: kind === 'CreateTime' ? 'timestamp-create-time' : 'timestamp-log-append-time',
    behaviour: kind === 'CreateTime'
      ? 'message.timestamp.type=CreateTime: the producer\'s timestamp is stored and returned (timestamp type CreateTime)'
      : 'message.timestamp.type=LogAppendTime: the broker replaces the producer\'s timestamp with its append time (timestamp type LogAppendTime)',
    na: (d) => need(d, 'produce', 'read'),
    async run(ctx, d) {
      const t = ctx.topic(kind);
      await ctx.harness.createTopic({ name: t, partitions: 1, configs: { 'message.timestamp.type': kind } });
      const explicit = d.can.explicitTimestamp;
      ctx.observed.explicitTimestamp = explicit;
      const before = Date.now();
      await produceOk(d, t, [0, 1].map((i) => ({ partition: 0, key: b64(`k${i}`), value: b64(`v${i}`), timestamp: explicit ? T0 + i : undefined })), 'produce');
      const after = Date.now();
      const got = await readAll(d, t, [0], 2, 'read back');
      eq(got.length, 2, 'record count');
      const near = (ts: number) => ts >= before - 2000 && ts <= after + 2000;
      ctx.observed.timestamps = got.map((g) => (explicit && g.timestamp === T0 + g.offset ? 'producer' : near(g.timestamp) ? 'broker-or-now' : g.timestamp));
      ctx.observed.types = got.map((g) => g.tstype ?? null);
      for (const g of got) {
        if (kind === 'CreateTime') {
          if (explicit) eq(g.timestamp, T0 + g.offset, 'create time kept');
          else check(near(g.timestamp), `create time ${g.timestamp} is the client's clock`);
        } else {
          check(near(g.timestamp), `log append time: ${g.timestamp} should be the broker's clock (between ${before} and ${after})`);
        }
        if (d.can.reportsTimestampType) eq(g.tstype, kind, 'timestamp type');
      }
    },
  };
}

const orderingPerKey: Scenario = {
  id: 'ordering-per-key',
  behaviour: 'Partitioning by key: all records with one key land in one partition, in the order they were sent, across a 4-partition topic',
  na: (d) => need(d, 'produce', 'read'),
  async run(ctx, d) {
    const t = ctx.topic('order');
    await ctx.harness.createTopic({ name: t, partitions: 4 });
    const recs: OutRec[] = [];
    for (let i = 0; i < 30; i++) recs.push({ key: b64(`key-${i % 6}`), value: b64(`seq-${String(i).padStart(2, '0')}`) });
    await produceOk(d, t, recs, 'produce');
    const got = await readAll(d, t, [0, 1, 2, 3], recs.length, 'read all partitions');
    eq(got.length, recs.length, 'record count');
    const where: Record<string, number[]> = {};
    const order: Record<string, string[]> = {};
    for (const g of got) {
      const k = text(g.key)!;
      (where[k] ??= []).includes(g.partition) || where[k].push(g.partition);
      (order[k] ??= []).push(text(g.value)!);
    }
    ctx.observed.partitionOfKey = where;
    for (const [k, ps] of Object.entries(where)) {
      eq(ps.length, 1, `partitions holding ${k}`);
      eq(order[k], [...order[k]].sort(), `order of ${k}`);
    }
  },
};

function compressionScenario(codec: Codec): Scenario {
  const shared = (ctx: Ctx, writer: ClientName) => ctx.sharedTopic(`cmp-${codec}-${writer}`);
  const recsOf = (writer: string): OutRec[] => [0, 1, 2].map((i) => ({ partition: 0, key: b64(`${writer}-${i}`), value: b64(`${codec} from ${writer} #${i} `.repeat(20)) }));
  return {
    id: `compression-${codec}`,
    behaviour: `compression.type=${codec}: batches compressed by each client are stored as sent and decompressed by every other client that supports ${codec}`,
    na: (d) => (d.writeCodecs.includes(codec) || d.readCodecs.includes(codec) ? need(d, 'produce', 'read') : (d.lacks.codecs ?? `${d.name} does not support ${codec}`)),
    async prepare(ctx, d) {
      if (!d.writeCodecs.includes(codec) || !d.produce) return;
      const t = shared(ctx, d.name);
      await ctx.harness.createTopic({ name: t, partitions: 1 });
      const r = await d.produce(t, recsOf(d.name), { compression: codec });
      ctx.shared.set(`cmp-${codec}-${d.name}`, r.error === null ? 'ok' : r.error);
    },
    async run(ctx, d) {
      if (d.writeCodecs.includes(codec)) {
        ctx.observed.write = ctx.shared.get(`cmp-${codec}-${d.name}`) ?? 'not written';
        eq(ctx.observed.write, 'ok', `produce with ${codec}`);
      }
      if (!d.readCodecs.includes(codec)) return;
      const readFrom: Record<string, unknown> = {};
      ctx.observed.readFrom = readFrom;
      const problems: string[] = [];
      for (const w of ALL_CLIENTS) {
        if (ctx.shared.get(`cmp-${codec}-${w}`) !== 'ok') continue; // the writer's own cell reports its failure
        const r = await d.read!(shared(ctx, w), { partitions: [0], from: 'earliest', count: 3, timeoutMs: 15_000 });
        const ok = r.errors.length === 0 && JSON.stringify(r.records.sort(byPO).map((x) => [x.offset, x.key, x.value])) === JSON.stringify(recsOf(w).map((x, i) => [i, x.key, x.value]));
        readFrom[w] = ok ? 'ok' : { errors: r.errors, records: r.records.length };
        if (!ok) problems.push(`${w}: ${JSON.stringify(readFrom[w])}`);
      }
      check(problems.length === 0, `reading ${codec} batches from ${problems.join('; ')}`);
    },
  };
}

const messageTooLarge: Scenario = {
  id: 'message-too-large',
  behaviour: 'max.message.bytes (topic): a batch just under the limit is accepted; one over it is refused with MESSAGE_TOO_LARGE and not stored',
  na: (d) => need(d, 'produce', 'read'),
  async run(ctx, d) {
    const t = ctx.topic('big');
    const limit = 20_000;
    await ctx.harness.createTopic({ name: t, partitions: 1, configs: { 'max.message.bytes': String(limit) } });
    const near = await d.produce!(t, [{ partition: 0, key: b64('near'), value: b64(Buffer.alloc(limit - 300, 0x61)) }]);
    ctx.observed.near = near.error;
    const over = await d.produce!(t, [{ partition: 0, key: b64('over'), value: b64(Buffer.alloc(limit + 5_000, 0x62)) }], { failFast: true });
    ctx.observed.over = over.error;
    eq(near.error, null, 'record just under max.message.bytes');
    eq(over.error, 'MESSAGE_TOO_LARGE', 'record over max.message.bytes');
    const got = await readAll(d, t, [0], 2, 'read back', { timeoutMs: 4000 });
    ctx.observed.stored = got.map((g) => text(g.key));
    eq(ctx.observed.stored, ['near'], 'stored records');
  },
};

const autoCreateOn: Scenario = {
  id: 'auto-create-on',
  behaviour: 'auto.create.topics.enable=true: producing to a missing topic creates it (num.partitions) and the record is stored',
  na: (d) => need(d, 'produce', 'read'),
  async run(ctx, d) {
    const t = ctx.topic('auto-on');
    ctx.observed.produce = (await d.produce!(t, [{ key: b64('k'), value: b64('auto') }])).error;
    eq(ctx.observed.produce, null, 'produce to a missing topic');
    const offs = await ctx.harness.offsets(t);
    ctx.observed.partitions = offs.length;
    eq(offs.length, 1, 'partitions of the created topic (num.partitions=1)');
    const got = await readAll(d, t, [0], 1, 'read back');
    eq(got.map((g) => text(g.value)), ['auto'], 'stored record');
  },
};

const autoCreateOff: Scenario = {
  id: 'auto-create-off',
  behaviour: 'auto.create.topics.enable=false: producing to a missing topic fails (UNKNOWN_TOPIC_OR_PARTITION) and creates nothing',
  timeoutMs: 60_000,
  na: (d, ctx) => need(d, 'produce') ?? (ctx.target.noAutoCreate ? null : 'needs a second broker with auto.create.topics.enable=false (not available on this target)'),
  async run(ctx) {
    const bs = await ctx.target.noAutoCreate!();
    const d = await ctx.driverFor(bs);
    const t = ctx.topic('auto-off');
    const r = await d.produce!(t, [{ key: b64('k'), value: b64('nope') }], { failFast: true });
    ctx.observed.produce = r.error;
    check(r.error !== null, 'produce to a missing topic must fail');
    check(!(await ctx.harnessFor(bs).topics()).includes(t), 'the topic must not exist afterwards');
    check(r.error === 'UNKNOWN_TOPIC_OR_PARTITION' || r.error.startsWith('client:'), `error ${r.error}`);
  },
};

const invalidTopicNames: Scenario = {
  id: 'invalid-topic-names',
  behaviour: 'Topic name rules (legal characters, length <= 249, not "." or ".."): CreateTopics answers INVALID_TOPIC_EXCEPTION; producing fails',
  timeoutMs: 60_000,
  na: (d) => (d.createTopic || d.produce ? null : need(d, 'createTopic')),
  async run(ctx, d) {
    const names = ['bad topic', 'a/b', '..', 'x'.repeat(250)];
    const res: Record<string, ErrName> = {};
    ctx.observed.errors = res;
    if (d.createTopic) {
      for (const n of names) res[n.length > 20 ? `${n.slice(0, 3)}…(${n.length})` : n] = await d.createTopic({ name: n, partitions: 1 });
      for (const [n, e] of Object.entries(res)) eq(e, 'INVALID_TOPIC_EXCEPTION', `CreateTopics "${n}"`);
    } else {
      for (const n of names.slice(0, 2)) res[n] = (await d.produce!(n, [{ key: b64('k'), value: b64('v') }], { failFast: true })).error;
      for (const [n, e] of Object.entries(res)) check(e !== null, `produce to "${n}" must fail`);
    }
    const listed = await ctx.harness.topics();
    check(!names.some((n) => listed.includes(n)), 'no invalid topic may exist');
  },
};

const fetchOutOfRange: Scenario = {
  id: 'fetch-out-of-range',
  behaviour: 'Fetch at an offset past the log end answers OFFSET_OUT_OF_RANGE (auto.offset.reset=none surfaces it)',
  na: (d) => need(d, 'read') ?? d.lacks.resetNone ?? null,
  async run(ctx, d) {
    const t = ctx.topic('oor');
    await ctx.harness.createTopic({ name: t, partitions: 1 });
    await ctx.harness.produce(t, [0, 1, 2].map((i) => ({ partition: 0, value: `r${i}` })));
    const r = await d.read!(t, { partitions: [0], from: 10, reset: 'none', count: 1, timeoutMs: 6000 });
    ctx.observed.errors = [...new Set(r.errors)];
    ctx.observed.records = r.records.length;
    eq(r.records.length, 0, 'records');
    check(r.errors.includes('OFFSET_OUT_OF_RANGE'), `expected OFFSET_OUT_OF_RANGE, got ${JSON.stringify(r.errors)}`);
  },
};

const autoOffsetReset: Scenario = {
  id: 'auto-offset-reset',
  behaviour: 'auto.offset.reset after OFFSET_OUT_OF_RANGE: earliest restarts at the log start offset, latest at the high watermark',
  na: (d) => need(d, 'read') ?? d.lacks.autoOffsetReset ?? null,
  async run(ctx, d) {
    const t = ctx.topic('reset');
    await ctx.harness.createTopic({ name: t, partitions: 1 });
    await ctx.harness.produce(t, [0, 1, 2].map((i) => ({ partition: 0, value: `r${i}` })));
    const e = await d.read!(t, { partitions: [0], from: 10, reset: 'earliest', count: 3, timeoutMs: 10_000 });
    ctx.observed.earliest = e.records.map((r) => r.offset);
    eq(ctx.observed.earliest, [0, 1, 2], 'reset=earliest reads from the start');
    const l = await d.read!(t, { partitions: [0], from: 10, reset: 'latest', count: 1, timeoutMs: 2500 });
    ctx.observed.latest = l.records.map((r) => r.offset);
    eq(ctx.observed.latest, [], 'reset=latest skips the existing records');
  },
};

const listOffsetsByTime: Scenario = {
  id: 'list-offsets-by-timestamp',
  behaviour: 'ListOffsets: earliest, latest, and by timestamp the first offset whose timestamp is >= the target (-1 past the end)',
  na: (d) => need(d, 'listOffsets'),
  async run(ctx, d) {
    const t = ctx.topic('lo');
    await ctx.harness.createTopic({ name: t, partitions: 1 });
    await ctx.harness.produce(t, [0, 1, 2].map((i) => ({ partition: 0, value: `r${i}`, timestamp: T0 + i * 1000 })));
    const r = await d.listOffsets!(t, 0, [T0 - 1, T0 + 500, T0 + 2000, T0 + 60_000]);
    const byTime = { before: r.byTime[String(T0 - 1)], between: r.byTime[String(T0 + 500)], exact: r.byTime[String(T0 + 2000)], after: r.byTime[String(T0 + 60_000)] };
    ctx.observed.offsets = { earliest: r.earliest, latest: r.latest, ...byTime };
    eq([r.earliest, r.latest], [0, 3], 'earliest and latest');
    eq([byTime.before, byTime.between, byTime.exact], [0, 1, 2], 'offsets by timestamp');
    // Kafka answers -1; some clients turn that into the high watermark (kafkajs) or None (kafka-python -> -1).
    check(byTime.after === -1 || byTime.after === 3, `past the last timestamp: ${byTime.after}`);
  },
};

const deleteRecords: Scenario = {
  id: 'delete-records',
  behaviour: 'DeleteRecords moves the log start offset: low watermark becomes the given offset and reads start there',
  na: (d) => need(d, 'deleteRecords'),
  async run(ctx, d) {
    const t = ctx.topic('delrec');
    await ctx.harness.createTopic({ name: t, partitions: 1 });
    await ctx.harness.produce(t, [0, 1, 2, 3, 4].map((i) => ({ partition: 0, value: `r${i}` })));
    const r = await d.deleteRecords!(t, 0, 3);
    ctx.observed.deleteRecords = r;
    eq(r, { error: null, lowWatermark: 3 }, 'DeleteRecords result');
    const offs = await ctx.harness.offsets(t);
    eq([offs[0].low, offs[0].high], [3, 5], 'offsets after DeleteRecords');
    if (d.read) {
      const got = await readAll(d, t, [0], 2, 'read after DeleteRecords');
      ctx.observed.read = got.map((g) => g.offset);
      eq(ctx.observed.read, [3, 4], 'reads start at the new log start');
    }
  },
};

const groupCommitResume: Scenario = {
  id: 'group-commit-resume',
  behaviour: 'Consumer group: a member consumes and commits; a new member of the same group resumes after the committed offsets (no redelivery, nothing skipped)',
  timeoutMs: 90_000,
  na: (d) => need(d, 'groupOpen', 'groupPoll', 'groupClose'),
  async run(ctx, d) {
    const t = ctx.topic('gcr');
    const g = ctx.topic('gcr-group');
    await ctx.harness.createTopic({ name: t, partitions: 2 });
    await ctx.harness.produce(t, [0, 1, 2, 3, 4, 5].map((i) => ({ partition: i % 2, value: `first-${i}` })));
    const sink = new Map<string, Rec[]>();
    await d.groupOpen!({ handle: 'a', group: g, topic: t });
    try {
      await pollUntil(d, ['a'], () => (sink.get('a') ?? []).length >= 6, 30_000, 'first member reads 6 records', sink);
      // kcat has no explicit commit: it auto-commits and commits on close.
      if (d.groupCommit) {
        ctx.observed.commit = await d.groupCommit('a');
        eq(ctx.observed.commit, null, 'commit');
      }
      await waitCommitted(ctx.harness, g, t, 3, 15_000);
    } finally {
      await d.groupClose!('a');
    }
    ctx.observed.first = sink.get('a')!.map((r) => text(r.value)).sort();
    await ctx.harness.produce(t, [6, 7].map((i) => ({ partition: i % 2, value: `second-${i}` })));
    await d.groupOpen!({ handle: 'b', group: g, topic: t });
    try {
      await pollUntil(d, ['b'], () => (sink.get('b') ?? []).length >= 2, 30_000, 'second member reads the 2 new records', sink);
      await d.groupPoll!('b', 500); // anything redelivered would show up here
      sink.set('b', [...sink.get('b')!, ...(await d.groupPoll!('b', 300)).records]);
    } finally {
      await d.groupClose!('b');
    }
    ctx.observed.resumed = sink.get('b')!.map((r) => text(r.value)).sort();
    eq(ctx.observed.resumed, ['second-6', 'second-7'], 'records after resume');
  },
};

const groupRebalance: Scenario = {
  id: 'group-rebalance',
  behaviour: 'Consumer group rebalance: one member owns all 4 partitions; a second member joining splits them 2/2; when it leaves the first owns all 4 again',
  timeoutMs: 90_000,
  na: (d) => need(d, 'groupOpen', 'groupPoll', 'groupClose'),
  async run(ctx, d) {
    const t = ctx.topic('reb');
    const g = ctx.topic('reb-group');
    await ctx.harness.createTopic({ name: t, partitions: 4 });
    const asg = new Map<string, number[]>();
    const shape = () => ['a', 'b'].filter((h) => asg.has(h)).map((h) => asg.get(h)!.length);
    await d.groupOpen!({ handle: 'a', group: g, topic: t });
    try {
      await pollUntil(d, ['a'], () => asg.get('a')?.length === 4, 30_000, 'single member owns 4 partitions', undefined, asg);
      ctx.observed.alone = shape();
      await d.groupOpen!({ handle: 'b', group: g, topic: t });
      try {
        await pollUntil(d, ['a', 'b'], () => asg.get('a')?.length === 2 && asg.get('b')?.length === 2 && new Set([...asg.get('a')!, ...asg.get('b')!]).size === 4, 40_000, 'two members split 2/2', undefined, asg);
        ctx.observed.joined = shape();
      } finally {
        await d.groupClose!('b');
        asg.delete('b');
      }
      await pollUntil(d, ['a'], () => asg.get('a')?.length === 4, 30_000, 'after leave the first member owns 4 partitions again', undefined, asg);
      ctx.observed.left = shape();
    } finally {
      await d.groupClose!('a');
    }
  },
};

const staticMembership: Scenario = {
  id: 'static-membership',
  behaviour: 'Static membership (group.instance.id, KIP-345): a static member that restarts within the session timeout gets its partitions back without a rebalance of the others',
  timeoutMs: 90_000,
  na: (d) => need(d, 'groupOpen', 'groupPoll', 'groupClose') ?? (d.staticMembership ? null : d.lacks.staticMembership ?? 'no group.instance.id'),
  async run(ctx, d) {
    const t = ctx.topic('static');
    const g = ctx.topic('static-group');
    await ctx.harness.createTopic({ name: t, partitions: 4 });
    const asg = new Map<string, number[]>();
    const assigns = new Map<string, number>();
    const open = (h: string, inst: string) => d.groupOpen!({ handle: h, group: g, topic: t, instanceId: `${ctx.runId}-${inst}`, sessionTimeoutMs: 10_000 });
    await open('a', 'a');
    try {
      await open('b', 'b');
      await pollUntil(d, ['a', 'b'], () => asg.get('a')?.length === 2 && asg.get('b')?.length === 2, 40_000, 'two static members split 2/2', undefined, asg, assigns);
      const before = { a: asg.get('a'), b: asg.get('b'), aAssigns: assigns.get('a') };
      await d.groupClose!('b'); // a static member leaves no LeaveGroup behind
      await open('b2', 'b');
      await pollUntil(d, ['a', 'b2'], () => (asg.get('b2')?.length ?? 0) > 0, 8_000, 'restarted static member gets an assignment', undefined, asg, assigns);
      await d.groupPoll!('a', 500);
      const a = await d.groupPoll!('a', 200);
      ctx.observed.assignmentShape = [before.a?.length, before.b?.length];
      ctx.observed.sameAssignmentBack = JSON.stringify(asg.get('b2')) === JSON.stringify(before.b);
      ctx.observed.othersRebalanced = a.assigns !== before.aAssigns;
      eq(asg.get('b2'), before.b, 'restarted static member gets the same partitions');
      eq(a.assignment, before.a, 'the other member keeps its partitions');
      eq(ctx.observed.othersRebalanced, false, 'the other member saw a rebalance');
      await d.groupClose!('b2');
    } finally {
      await d.groupClose!('a');
    }
  },
};

const idempotentRetries: Scenario = {
  id: 'idempotent-retries',
  behaviour: 'Idempotent producer (enable.idempotence): a batch retried after a lost response is not stored twice (same offsets, no duplicates)',
  timeoutMs: 60_000,
  na: (d, ctx) => need(d, 'produce', 'read') ?? d.lacks.idempotent ?? (ctx.target.dropOnceProxy ? null : 'needs the response-dropping proxy in front of a broker (Samsa target only)'),
  async run(ctx) {
    const proxy = await ctx.target.dropOnceProxy!();
    const bs = proxy.bootstrap;
    const d = await ctx.driverFor(bs);
    const t = ctx.topic('idem');
    await ctx.harnessFor(bs).createTopic({ name: t, partitions: 1 });
    const recs = [0, 1, 2, 3, 4].map((i) => ({ partition: 0, key: b64(`k${i}`), value: b64(`idem-${i}`) }));
    const clientId = `compat-${ctx.client}-drop-once-${ctx.runId}`;
    const r = await d.produce!(t, recs, { idempotent: true, acks: -1, clientId });
    ctx.observed.produce = r.error;
    ctx.observed.responseDropped = proxy.dropped.has(clientId);
    eq(r.error, null, 'idempotent produce through a lost response');
    check(ctx.observed.responseDropped, 'the proxy saw no Produce from this client id: nothing was retried');
    const offs = await ctx.harnessFor(bs).offsets(t);
    ctx.observed.highWatermark = offs[0].high;
    // Asks for more than the 5 stored so that a duplicate would show; clients that wait for the
    // count wait the whole limit, kcat (-e) stops at the end but needs its start-up under load.
    const got = await readAll(d, t, [0], 10, 'read back', { timeoutMs: 10_000 });
    ctx.observed.values = got.map((g) => text(g.value));
    eq(ctx.observed.values, recs.map((x) => text(x.value)), 'stored records (exactly once, in order)');
    eq(offs[0].high, 5, 'high watermark');
  },
};

const transactions: Scenario = {
  id: 'transactions',
  behaviour: 'Transactions: committed records are visible to read_committed, aborted ones only to read_uncommitted; control markers take offsets',
  timeoutMs: 90_000,
  na: (d) => (d.transactions ? need(d, 'read') : d.lacks.transactions ?? 'no transactional producer'),
  async run(ctx, d) {
    const t = ctx.topic('txn');
    await ctx.harness.createTopic({ name: t, partitions: 1 });
    const mk = (vs: string[]) => vs.map((v) => ({ partition: 0, key: b64(v), value: b64(v) }));
    const r = await d.transactions!(t, `compat-${ctx.client}-${ctx.runId}`, [
      { records: mk(['c1', 'c2']), commit: true },
      { records: mk(['a1', 'a2']), commit: false },
      { records: mk(['c3']), commit: true },
    ]);
    ctx.observed.error = r.error;
    eq(r.error, null, 'transactions');
    // Kafka's EndTxn answers once the commit is prepared; its markers are written a moment later, and
    // until then the last stable offset stays before the transaction.
    await waitStable(ctx.harness, t, 10_000);
    const committed = await d.read!(t, { partitions: [0], from: 'earliest', count: 5, timeoutMs: 5000, isolation: 'read_committed' });
    const uncommitted = await d.read!(t, { partitions: [0], from: 'earliest', count: 5, timeoutMs: 8000, isolation: 'read_uncommitted' });
    ctx.observed.readCommitted = committed.records.sort(byPO).map((x) => [x.offset, text(x.value)]);
    ctx.observed.readUncommitted = uncommitted.records.sort(byPO).map((x) => [x.offset, text(x.value)]);
    ctx.observed.highWatermark = (await ctx.harness.offsets(t))[0].high;
    noErrors(committed.errors, 'read_committed');
    noErrors(uncommitted.errors, 'read_uncommitted');
    eq(ctx.observed.readCommitted, [[0, 'c1'], [1, 'c2'], [6, 'c3']], 'read_committed');
    eq(ctx.observed.readUncommitted, [[0, 'c1'], [1, 'c2'], [3, 'a1'], [4, 'a2'], [6, 'c3']], 'read_uncommitted');
    eq(ctx.observed.highWatermark, 8, 'high watermark (3 commit/abort markers)');
  },
};

const adminConfigs: Scenario = {
  id: 'admin-configs',
  behaviour: 'DescribeConfigs returns topic configs with Kafka defaults; AlterConfigs/IncrementalAlterConfigs changes one and DescribeConfigs shows it',
  na: (d) => need(d, 'describeConfigs', 'alterConfigs'),
  async run(ctx, d) {
    const t = ctx.topic('cfg');
    await ctx.harness.createTopic({ name: t, partitions: 1, configs: { 'cleanup.policy': 'delete' } });
    const before = await d.describeConfigs!(t);
    check(before.error === null && before.configs, `DescribeConfigs: ${before.error}`);
    const pick = (c: Record<string, string | null>) => ({ 'retention.ms': c['retention.ms'], 'cleanup.policy': c['cleanup.policy'], 'max.message.bytes': c['max.message.bytes'], 'message.timestamp.type': c['message.timestamp.type'] });
    ctx.observed.before = pick(before.configs);
    eq(ctx.observed.before, { 'retention.ms': '604800000', 'cleanup.policy': 'delete', 'max.message.bytes': '1048588', 'message.timestamp.type': 'CreateTime' }, 'defaults');
    ctx.observed.alter = await d.alterConfigs!(t, { 'retention.ms': '3600000' });
    eq(ctx.observed.alter, null, 'AlterConfigs');
    // Kafka applies a config change through its metadata log: a DescribeConfigs right after the
    // AlterConfigs answer may still show the old value for a moment (bounded re-check).
    let after = await d.describeConfigs!(t);
    for (let i = 0; i < 20 && after.configs?.['retention.ms'] !== '3600000'; i++) {
      await sleep(250);
      after = await d.describeConfigs!(t);
    }
    check(after.error === null && after.configs, `DescribeConfigs after alter: ${after.error}`);
    ctx.observed.after = pick(after.configs);
    eq(after.configs['retention.ms'], '3600000', 'retention.ms after alter');
  },
};

const brokerRestart: Scenario = {
  id: 'broker-restart',
  behaviour: 'Durability and reconnection: records acknowledged before a broker crash (SIGKILL) and restart are all there once, in order; the same producer and consumer carry on after the restart',
  // The time includes the wait for the exclusive section, in which every client's scenario
  // restarts the same broker one after the other (a loaded CI run saw Kafka's queue pass 120 s).
  timeoutMs: 300_000,
  na: (d, ctx) => need(d, 'produce', 'read') ?? (ctx.target.restartable ? null : 'needs a broker the suite can restart (not available on this target)'),
  async run(ctx, d0) {
    const rb = await ctx.target.restartable!();
    const t = ctx.topic('restart');
    const batch = (tag: string) => [0, 1, 2, 3, 4].map((i) => ({ partition: 0, key: b64(`${tag}${i}`), value: b64(`${tag}-${i}`) }));
    const keepOpen = d0.closeProducer !== undefined; // the driver for rb is of the same client
    const group = ctx.topic('restart-group');
    const consumer = d0.groupOpen !== undefined && d0.groupPoll !== undefined;
    const sink = new Map<string, Rec[]>();
    const seen = () => sink.get('r') ?? [];
    ctx.observed.sameProducer = keepOpen;
    ctx.observed.groupConsumerAcrossRestart = consumer;
    let got: Awaited<ReturnType<typeof readAll>> = [];
    // All of it inside the exclusive section: another client's scenario restarts this same
    // broker, and a Kafka broker takes seconds to come back.
    await ctx.exclusive('restart', async () => {
      const d = await ctx.driverFor(rb.bootstrap);
      await ctx.harnessFor(rb.bootstrap).createTopic({ name: t, partitions: 1 });
      if (consumer) await d.groupOpen!({ handle: 'r', group, topic: t });
      try {
        await produceOk(d, t, batch('before'), 'produce before the restart', keepOpen ? { handle: 'restart' } : {});
        if (consumer) {
          await pollUntil(d, ['r'], () => seen().length >= 5, 30_000, 'consumer sees the first 5', sink);
          // Commit before the crash (kcat: auto-commit), and wait until the broker has it.
          if (d.groupCommit) eq(await d.groupCommit('r'), null, 'commit before the restart');
          await waitCommitted(ctx.harnessFor(rb.bootstrap), group, t, 5, 15_000);
        }
        await rb.restart();
        await produceOk(d, t, batch('after'), 'produce after the restart', keepOpen ? { handle: 'restart' } : {});
        if (consumer) await pollUntil(d, ['r'], () => seen().length >= 10, 45_000, 'consumer sees the next 5 after the restart', sink);
      } finally {
        if (keepOpen) await d.closeProducer!('restart').catch(() => {});
        if (consumer) await d.groupClose!('r').catch(() => {});
      }
      // Still inside the exclusive section: another client's scenario restarts this same broker.
      got = await readAll(d, t, [0], 10, 'read after the restart');
    });
    const expected = [...batch('before'), ...batch('after')].map((r) => text(r.value));
    ctx.observed.stored = got.map((g) => [g.offset, text(g.value)]);
    eq(ctx.observed.stored, expected.map((v, i) => [i, v]), 'stored records');
    if (consumer) {
      ctx.observed.consumed = seen().map((r) => text(r.value));
      eq(ctx.observed.consumed, expected, 'records the consumer saw across the restart');
    }
  },
};

/**
 * Log compaction, written once for all clients by the first that can send tombstones, read by
 * each: rounds of versions over six keys, each round in its own segment (segment.ms=100 and a
 * pause; Kafka 4 refuses segment.bytes under 1 MiB), one key deleted, then an `end` record that
 * rolls the last round out of the active segment. The cleaner's backoff is the broker default
 * (15 s on both targets); delete.retention.ms stays at its default so the tombstone is still
 * there when the clients read, whichever pass they see.
 */
const COMPACTION_KEY = 'compaction';
const compaction: Scenario = {
  id: 'compaction',
  behaviour: 'cleanup.policy=compact: after the cleaner ran, a read from the beginning sees one record per key with its latest value at the offset it was written at (gaps, no renumbering), a deleted key only as its tombstone, and a read from inside a removed gap starts at the next kept record',
  timeoutMs: 60_000,
  na: (d) => need(d, 'read') ?? (d.can.nullValue ? null : `${d.name} driver cannot express tombstones (null values)`),
  async prepare(ctx, d) {
    if (ctx.shared.has(COMPACTION_KEY) || !d.produce || !d.can.nullValue) return;
    const t = ctx.sharedTopic('compacted');
    const write = (async () => {
      await ctx.harness.createTopic({ name: t, partitions: 1, configs: { 'cleanup.policy': 'compact', 'segment.ms': '100', 'min.cleanable.dirty.ratio': '0.01', 'min.compaction.lag.ms': '0' } });
      const log: [string, string | null][] = [];
      for (let round = 0; round < 4; round++) {
        const recs: OutRec[] = [];
        for (let k = 0; k < 6; k++) recs.push({ partition: 0, key: b64(`k${k}`), value: round === 3 && k === 5 ? null : b64(`k${k}-v${round}`) });
        await produceOk(d, t, recs, `round ${round}`);
        log.push(...recs.map((r): [string, string | null] => [text(r.key)!, text(r.value)]));
        await sleep(250);
      }
      await produceOk(d, t, [{ partition: 0, key: b64('end'), value: b64('end') }], 'end record');
      log.push(['end', 'end']);
      const last = new Map<string, number>();
      log.forEach(([k], offset) => last.set(k, offset));
      return { topic: t, kept: log.map(([k, v], o) => [o, k, v] as const).filter(([o, k]) => last.get(k) === o) };
    })();
    ctx.shared.set(COMPACTION_KEY, write);
    await write;
  },
  async run(ctx, d) {
    const w = ctx.shared.get(COMPACTION_KEY) as Promise<{ topic: string; kept: (readonly [number, string, string | null])[] }> | undefined;
    check(w, 'no client could write the compacted topic');
    const { topic, kept } = await w;
    const deadline = Date.now() + 45_000;
    let got: [number, string | null, string | null][] = [];
    for (;;) {
      got = (await readAll(d, topic, [0], kept.length, 'read from the beginning', { timeoutMs: 5000 })).map((r) => [r.offset, text(r.key), text(r.value)]);
      if (new Set(got.map((r) => r[1])).size === got.length && got.length === kept.length) break;
      if (Date.now() > deadline) break;
      await sleep(1000);
    }
    ctx.observed.records = got;
    eq(got, kept, 'records after cleaning: the latest of each key, at its original offset');
    const keptOffsets = new Set(kept.map(([o]) => o));
    const from = [...Array(kept[kept.length - 1][0]).keys()].find((o) => o > 0 && !keptOffsets.has(o))!;
    const next = await readAll(d, topic, [0], 1, `read from offset ${from}, removed`, { from });
    // Only the first record: some clients hand back the whole fetch, and Kafka's ends at a segment boundary.
    ctx.observed.fromGap = [from, next[0]?.offset ?? null];
    eq(next[0]?.offset, kept.find(([o]) => o >= from)![0], `the first record at or after offset ${from}`);
  },
};

export const SCENARIOS: Scenario[] = [
  topicAdmin,
  recordShapes,
  timestampScenario('CreateTime'),
  timestampScenario('LogAppendTime'),
  orderingPerKey,
  ...CODECS.map(compressionScenario),
  messageTooLarge,
  autoCreateOn,
  autoCreateOff,
  invalidTopicNames,
  fetchOutOfRange,
  autoOffsetReset,
  listOffsetsByTime,
  deleteRecords,
  groupCommitResume,
  groupRebalance,
  staticMembership,
  idempotentRetries,
  transactions,
  adminConfigs,
  brokerRestart,
  compaction,
];
