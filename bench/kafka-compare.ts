/**
 * Samsa against Apache Kafka on the same machine, in one run, with Kafka's own perf tools.
 *
 *   npm run bench:kafka [-- --rounds 3 --records 1000000 --size 1024 --latency-records 200000
 *                        --rdk-count 200000 --loadgen-duration 5 --no-rdk --no-loadgen]
 *
 * Both brokers are single nodes with the settings that matter alike: one node, the default flush
 * policy of both (no fsync per request; the OS writes back), 1 GiB segments, auto-creation off,
 * topics created before each scenario with 1 or 64 partitions. Kafka runs with the JVM options
 * of its own start script (1 GiB heap, G1, full JIT), not the small, C1-only options the tests use.
 * Rounds alternate A B A B (Samsa first in even rounds, Kafka first in odd ones); every round
 * starts both brokers fresh and removes their data afterwards.
 *
 * Scenarios (each on a topic of its own):
 *   produce acks=1 / acks=all × 1 / 64 partitions   ProducerPerformance, RECORDS × SIZE, as fast as possible
 *   latency p1 @20k/s                             ProducerPerformance at --throughput 20000, LATENCY_RECORDS
 *   consume p1 / p64                               ConsumerPerformance of the records produced with acks=1
 *   rdk produce acks=1 p1 / p64, rdk consume p64   librdkafka's rdk-bench (../shared/bench-peers, built
 *                                                  in a scratch dir; left out with one line if it cannot
 *                                                  be built, or with --no-rdk), RDK_COUNT × SIZE, linger 5 ms
 *   loadgen produce p8 / loadgen fetch p8          bench/loadgen.ts (Samsa's protocol-level generator:
 *                                                  pre-built batches, 4 connections × 8 Produce requests
 *                                                  in flight, then Fetch), LOADGEN_S seconds (--no-loadgen)
 * Per scenario: records/s, MiB/s, latency p50/p99/p99.9 (producer), broker CPU seconds per GiB
 * moved (/proc/PID/stat); per broker: time from spawn to the first accepted produce, idle RSS after
 * start-up and peak RSS (VmHWM) at the end of the round. The table shows medians over the rounds
 * and Samsa/Kafka ratios (throughput: higher is better for Samsa; latency, CPU, memory and start-up:
 * lower is better); --json FILE writes every measurement. Figures only: no assertion, never part
 * of `npm test`. On 2 shared cores the perf tools' own JVMs compete with the brokers: read the
 * ratios, not the absolute numbers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { KafkaConn, createTopics } from './lib/kafka-conn.js';
import { REPO_ROOT, median, procCpuSeconds, procRssMiB, sleep, startSamsa } from './lib/proc.js';
import { buildRdkBench, type RdkBench } from './lib/rdk-bench.js';
import { runCmd } from './lib/run.js';
import { join } from 'node:path';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { KAFKA_VERSION, javaMissing, kafkaJars, startKafka } from '../tools/kafka/kafka.js';
import { KAFKA_SERVER_JVM, kafkaTool, parseConsumer, parseProducer } from './lib/kafka-tools.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const ROUNDS = opt('rounds', 3);
const RECORDS = opt('records', 1_000_000);
const SIZE = opt('size', 1024);
const LATENCY_RECORDS = opt('latency-records', 200_000);
const jsonOut = args.includes('--json') ? args[args.indexOf('--json') + 1] : null;
const RDK_COUNT = opt('rdk-count', 200_000);
const LOADGEN_S = opt('loadgen-duration', 5);
let rdk: RdkBench | null = null;

const KAFKA_JVM = KAFKA_SERVER_JVM;
const COMMON = { 'log.segment.bytes': String(1 << 30), 'auto.create.topics.enable': 'false' };

interface Broker {
  name: 'samsa' | 'kafka';
  port: number;
  pid: number;
  startMs: number;
  idleRssMiB: number;
  stop(): Promise<void>;
}

function hwmMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Spawn → the first accepted produce (a one-record batch to a fresh topic), as bench/startup.ts measures it. */
async function firstProduce(port: number, t0: number): Promise<number> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    try {
      const c = await KafkaConn.connect('127.0.0.1', port, 1000);
      try {
        await createTopics(c, [{ name: 'startup', partitions: 1 }]).catch(() => undefined);
        const r = await c.request(0, 9, {
          transactionalId: null, acks: 1, timeoutMs: 5000,
          topicData: [{ name: 'startup', topicId: ZERO_UUID, partitionData: [{ index: 0, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }) }] }],
        });
        if (r.responses[0]?.partitionResponses[0]?.errorCode === 0) return performance.now() - t0;
      } finally {
        c.close();
      }
    } catch {
      // not up yet
    }
    if (performance.now() > deadline) throw new Error(`no produce accepted on ${port} within 120 s`);
    await sleep(20);
  }
}

async function startBroker(name: 'samsa' | 'kafka'): Promise<Broker> {
  const t0 = performance.now();
  if (name === 'samsa') {
    const s = await startSamsa({ overrides: { ...COMMON } });
    const startMs = await firstProduce(s.port, t0);
    await sleep(1000);
    return { name, port: s.port, pid: s.pid, startMs, idleRssMiB: s.rssMiB(), stop: () => s.stop() };
  }
  const k = await startKafka({ overrides: { ...COMMON }, jvmOpts: KAFKA_JVM, startTimeoutMs: 120_000 });
  // startKafka resolves once Kafka serves; its spawn time is earlier than t0 here by the format
  // step only, so this measures spawn (after formatting) to the first produce.
  const startMs = await firstProduce(k.port, t0);
  await sleep(1000);
  const pid = k.pid()!;
  return { name, port: k.port, pid, startMs, idleRssMiB: procRssMiB(pid), stop: () => k.stop(15_000) };
}

const tool = kafkaTool;

interface Figures {
  recordsPerS: number;
  mibPerS: number;
  p50?: number;
  p99?: number;
  p999?: number;
  cpuSPerGiB: number;
}

interface RunResult {
  figures: Omit<Figures, 'cpuSPerGiB'>;
  bytes: number;
  /** The generator's own figure (loadgen times its phases apart); else from the broker's CPU over the run. */
  cpuSPerGiB?: number;
  /** More rows measured by the same run (loadgen's fetch phase). */
  also?: { id: string; figures: Omit<Figures, 'cpuSPerGiB'>; cpuSPerGiB: number }[];
}

interface Scenario {
  id: string;
  partitions: number;
  run(b: Broker, topic: string): Promise<RunResult>;
  /** The topic this scenario reads (consume scenarios): the one `from` produced into. */
  from?: string;
}

const produce = (acks: string, partitions: number, throughput = -1, records = RECORDS): Scenario => ({
  id: throughput > 0 ? `latency p${partitions} @${throughput / 1000}k/s` : `produce acks=${acks} p${partitions}`,
  partitions,
  async run(b, topic) {
    const out = await tool('org.apache.kafka.tools.ProducerPerformance', ['--topic', topic, '--num-records', String(records), '--record-size', String(SIZE),
      '--throughput', String(throughput), '--producer-props', `bootstrap.servers=127.0.0.1:${b.port}`, `acks=${acks}`, 'linger.ms=5', 'batch.size=65536']);
    return { figures: parseProducer(out), bytes: records * SIZE };
  },
});

const consume = (partitions: number, from: string): Scenario => ({
  id: `consume p${partitions}`,
  partitions,
  from,
  async run(b, topic) {
    const out = await tool('org.apache.kafka.tools.ConsumerPerformance', ['--bootstrap-server', `127.0.0.1:${b.port}`, '--topic', topic, '--messages', String(RECORDS), '--timeout', '60000', '--group', `perf-${topic}`]);
    return { figures: parseConsumer(out), bytes: RECORDS * SIZE };
  },
});

const rdkProduce = (partitions: number): Scenario => ({
  id: `rdk produce acks=1 p${partitions}`,
  partitions,
  async run(b, topic) {
    const r = await rdk!.run(['produce', '-t', topic, '-n', String(RDK_COUNT), '-s', String(SIZE), '-l', '5', '-a', '1', ...(partitions === 1 ? ['-P', '0'] : ['-p', String(partitions)])],
      `127.0.0.1:${b.port}`, 120, RDK_COUNT);
    if (!r.ok) throw new Error(`rdk-bench produce: ${r.error}`);
    return { figures: { recordsPerS: r.msgsPerS, mibPerS: r.mibPerS, p50: r.p50, p99: r.p99 }, bytes: RDK_COUNT * SIZE };
  },
});

const rdkConsume = (partitions: number, from: string): Scenario => ({
  id: `rdk consume p${partitions}`,
  partitions,
  from,
  async run(b, topic) {
    const r = await rdk!.run(['consume', '-t', topic, '-n', String(RDK_COUNT)], `127.0.0.1:${b.port}`, 120, RDK_COUNT);
    if (!r.ok) throw new Error(`rdk-bench consume: ${r.error}`);
    return { figures: { recordsPerS: r.msgsPerS, mibPerS: r.mibPerS }, bytes: RDK_COUNT * SIZE };
  },
});

/** bench/loadgen.ts against the running broker: its produce phase, and its fetch phase as a second row. */
const loadgen: Scenario = {
  id: 'loadgen produce p8',
  partitions: 0, // loadgen creates a fresh 8-partition topic itself
  async run(b) {
    const r = await runCmd(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', 'loadgen.ts'), '--bootstrap', `127.0.0.1:${b.port}`, '--broker-pid', String(b.pid),
      '--duration', String(LOADGEN_S), '--record-size', String(SIZE), '--json'], { cwd: REPO_ROOT, timeoutMs: (LOADGEN_S + 150) * 1000 });
    const line = r.stdout.trim().split('\n').reverse().find((l) => l.startsWith('{'));
    if (r.code !== 0 || !line) throw new Error(`loadgen exited ${r.code}: ${(r.stderr || r.stdout).slice(-800)}`);
    const j = JSON.parse(line) as { produce: { msgsPerSec: number; mibPerSec: number; latencyMs: { p50: number; p99: number }; brokerCpuSPerGiB: number; messages: number }; fetch: { msgsPerSec: number; mibPerSec: number; brokerCpuSPerGiB: number } | null };
    return {
      figures: { recordsPerS: j.produce.msgsPerSec, mibPerS: j.produce.mibPerSec, p50: j.produce.latencyMs.p50, p99: j.produce.latencyMs.p99 },
      bytes: j.produce.messages * SIZE,
      cpuSPerGiB: j.produce.brokerCpuSPerGiB,
      also: j.fetch ? [{ id: 'loadgen fetch p8', figures: { recordsPerS: j.fetch.msgsPerSec, mibPerS: j.fetch.mibPerSec }, cpuSPerGiB: j.fetch.brokerCpuSPerGiB }] : [],
    };
  },
};

const SCENARIOS: Scenario[] = [
  produce('1', 1), produce('1', 64), produce('all', 1), produce('all', 64),
  produce('1', 1, 20_000, LATENCY_RECORDS),
  consume(1, 'produce acks=1 p1'), consume(64, 'produce acks=1 p64'),
];
/** Added by main() when their generators are available. */
const GENERATOR_SCENARIOS: Scenario[] = [];

const topicName = (id: string) => id.replace(/[^a-zA-Z0-9]+/g, '-');

async function round(name: 'samsa' | 'kafka', results: Map<string, Map<string, Figures[]>>, brokerFigures: Map<string, { startMs: number[]; idle: number[]; peak: number[] }>): Promise<void> {
  const b = await startBroker(name);
  try {
    const c = await KafkaConn.connect('127.0.0.1', b.port, 5000);
    try {
      await createTopics(c, [...SCENARIOS, ...GENERATOR_SCENARIOS].filter((s) => !s.from && s.partitions > 0).map((s) => ({ name: topicName(s.id), partitions: s.partitions })));
    } finally {
      c.close();
    }
    await sleep(2000); // Kafka serves new partitions a moment after CreateTopics answers
    for (const s of [...SCENARIOS, ...GENERATOR_SCENARIOS]) {
      const topic = topicName(s.from ?? s.id);
      const cpu0 = procCpuSeconds(b.pid);
      let res: RunResult;
      try {
        res = await s.run(b, topic);
      } catch (err) {
        // One generator failing (e.g. a client the broker cannot serve) leaves its row empty for this round.
        console.error(`  ${name.padEnd(5)} ${s.id.padEnd(22)} FAILED: ${(err as Error).message.split('\n')[0]}`);
        continue;
      }
      const cpuSPerGiB = res.cpuSPerGiB ?? (procCpuSeconds(b.pid) - cpu0) / (res.bytes / (1 << 30));
      for (const row of [{ id: s.id, figures: res.figures, cpuSPerGiB }, ...(res.also ?? [])]) {
        const per = results.get(row.id) ?? new Map<string, Figures[]>();
        results.set(row.id, per);
        per.set(name, [...(per.get(name) ?? []), { ...row.figures, cpuSPerGiB: row.cpuSPerGiB }]);
        const f = row.figures;
        console.error(`  ${name.padEnd(5)} ${row.id.padEnd(22)} ${f.recordsPerS.toFixed(0).padStart(8)} rec/s ${f.mibPerS.toFixed(1).padStart(7)} MiB/s` +
          (f.p99 !== undefined ? `  p50 ${f.p50} p99 ${f.p99}${f.p999 !== undefined ? ` p99.9 ${f.p999}` : ''} ms` : '') + `  ${row.cpuSPerGiB.toFixed(1)} CPU-s/GiB`);
      }
    }
    const bf = brokerFigures.get(name) ?? { startMs: [], idle: [], peak: [] };
    brokerFigures.set(name, bf);
    bf.startMs.push(b.startMs);
    bf.idle.push(b.idleRssMiB);
    bf.peak.push(hwmMiB(b.pid));
  } finally {
    await b.stop();
  }
}

async function main(): Promise<void> {
  const missing = javaMissing();
  if (missing) {
    console.log(`bench:kafka: skipped: ${missing}`);
    return;
  }
  kafkaJars();
  if (!args.includes('--no-rdk')) {
    const built = await buildRdkBench();
    if ('skipped' in built) console.error(`bench:kafka: rdk-bench rows left out: ${built.skipped}`);
    else {
      rdk = built;
      GENERATOR_SCENARIOS.push(rdkProduce(1), rdkProduce(64), rdkConsume(64, 'rdk produce acks=1 p64'));
    }
  }
  if (!args.includes('--no-loadgen')) GENERATOR_SCENARIOS.push(loadgen);
  console.error(`Samsa vs Apache Kafka ${KAFKA_VERSION}: ${ROUNDS} round(s), ${RECORDS} × ${SIZE} B (latency: ${LATENCY_RECORDS} at 20k/s), ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
  const results = new Map<string, Map<string, Figures[]>>();
  const brokerFigures = new Map<string, { startMs: number[]; idle: number[]; peak: number[] }>();
  for (let r = 0; r < ROUNDS; r++) {
    const order: ('samsa' | 'kafka')[] = r % 2 === 0 ? ['samsa', 'kafka'] : ['kafka', 'samsa'];
    console.error(`round ${r + 1}/${ROUNDS}`);
    for (const name of order) await round(name, results, brokerFigures);
  }
  const med = (xs: number[] | undefined) => (xs && xs.length ? median(xs) : NaN);
  const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const rows: string[][] = [['scenario', 'Samsa', 'Kafka', 'Samsa/Kafka']];
  const json: Record<string, unknown> = { date: new Date().toISOString(), kafka: KAFKA_VERSION, node: process.version, rounds: ROUNDS, records: RECORDS, size: SIZE, scenarios: {} };
  for (const [id, per] of results) {
    const s = per.get('samsa') ?? [];
    const k = per.get('kafka') ?? [];
    (json.scenarios as Record<string, unknown>)[id] = { samsa: s, kafka: k };
    const pick = (xs: Figures[], f: keyof Figures) => med(xs.map((x) => x[f]).filter((v): v is number => v !== undefined));
    rows.push([`${id} MiB/s`, fmt(pick(s, 'mibPerS'), 1), fmt(pick(k, 'mibPerS'), 1), `×${fmt(pick(s, 'mibPerS') / pick(k, 'mibPerS'), 2)}`]);
    if (s.some((x) => x.p99 !== undefined)) {
      for (const f of ['p50', 'p99', 'p999'] as const) if (s.some((x) => x[f] !== undefined)) rows.push([`${id} ${f} ms`, fmt(pick(s, f), 1), fmt(pick(k, f), 1), `×${fmt(pick(s, f) / pick(k, f), 2)}`]);
    }
    rows.push([`${id} broker CPU-s/GiB`, fmt(pick(s, 'cpuSPerGiB'), 1), fmt(pick(k, 'cpuSPerGiB'), 1), `×${fmt(pick(s, 'cpuSPerGiB') / pick(k, 'cpuSPerGiB'), 2)}`]);
  }
  const sb = brokerFigures.get('samsa');
  const kb = brokerFigures.get('kafka');
  json.brokers = { samsa: sb, kafka: kb };
  for (const [label, f, d] of [['start → first produce ms', 'startMs', 0], ['idle RSS MiB', 'idle', 0], ['peak RSS MiB', 'peak', 0]] as const) {
    const a = med(sb?.[f]);
    const b = med(kb?.[f]);
    rows.push([label, fmt(a, d), fmt(b, d), `×${fmt(a / b, 2)}`]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log(rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')).join('\n'));
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(json, null, 2) + '\n');
  rdk?.cleanup();
}

await main();
