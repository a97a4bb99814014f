/**
 * Three Samsa brokers (on etcd) against three Apache Kafka brokers (KRaft, one combined controller
 * quorum) on loopback, replication factor 3, in one run, with Kafka's own perf tools and
 * librdkafka's rdk-bench.
 *
 *   npm run bench:cluster -- --kafka [--rounds 3 --records 100000 --size 1024 --rdk-count 100000
 *                                    --latency-rate 5000 --latency-records 50000 --e2e-rate 500
 *                                    --e2e-seconds 10 --catchup-mib 1024 --warmup-records 50000 --kafka-jvm server|test
 *                                    --no-rdk --cells REGEX --no-failover --json FILE]
 *   npm run bench:cluster                          # Samsa only (no Kafka column)
 *   npm run bench:cluster -- --profile DIR [--profile-cell 'rdk produce acks=all p1']
 *                                                  # Samsa only, brokers under node --cpu-prof
 *                                                  # through one cell, then each profile summarised
 *
 * Both clusters get the settings that matter alike: min.insync.replicas 2, default flush policy
 * (no fsync per request), 1 GiB segments, auto-creation off, broker sessions of 2 s with
 * heartbeats every 400 ms, the other replication settings at Kafka's defaults (Samsa has the
 * same ones). Kafka runs with the JVM options of kafka-server-start.sh (--kafka-jvm server, the
 * default; bench/kafka-compare.ts uses them too) or the tests' small C1-only ones (--kafka-jvm
 * test). Rounds alternate A B A B (Samsa first in even rounds); every round starts both clusters
 * fresh and removes their data afterwards.
 *
 * `--cells REGEX` runs only the cells whose name matches (a consume cell needs its produce cell),
 * `--no-failover` and `--catchup-mib 0` leave out the fault cells: for short smoke runs.
 *
 * Before the cells, WARMUP_RECORDS go through ProducerPerformance (acks=all, 24 partitions),
 * unmeasured: Kafka's brokers start with a cold JIT.
 *
 * Cells, each on a topic of its own with 1 or 24 partitions × 3 replicas:
 *   pp produce acks=all|1 p1|p24   ProducerPerformance, RECORDS × SIZE, linger 5 ms, 64 KiB batches
 *   pp consume p1|p24              ConsumerPerformance of the acks=1 records
 *   rdk produce acks=all|1 p1|p24  rdk-bench, RDK_COUNT × SIZE, linger 5 ms (--no-rdk: left out)
 *   rdk consume p24
 *   pp latency acks=all p24 @R     ProducerPerformance at a fixed rate: p50 / p99 / p99.9
 *   e2e acks=all p1 @R             bench/lib/replicated.ts: produce → visible to a consumer
 *   failover                       leader SIGKILL under a ProducerPerformance load at 2,000 rec/s:
 *                                  time to the first acknowledged produce on the new leader
 *   catch-up                       a follower misses CATCHUP_MIB, restarted: restart → back in the ISR
 * Before each cell the brokers are left to settle (under 30 % of a core together, at most 30 s),
 * so the followers' copying of an acks=1 cell does not land in the next one.
 * Per throughput cell the brokers' CPU (all three, /proc/PID/stat) per GiB the client produced or
 * consumed, and their seconds on a CPU and runnable but waiting for one (schedstat: on a shared
 * machine the second tells a starved cell from a slow broker); per broker its RSS after the
 * throughput cells and its peak (VmHWM). The table shows medians over the rounds and Samsa/Kafka
 * ratios. Figures only, no assertion, never in `npm test`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { startCluster } from '../test/support/cluster.js';
import { KAFKA_VERSION, javaBin, javaMissing, JVM_OPTS, kafkaJars } from '../tools/kafka/kafka.js';
import { startKafkaCluster } from '../tools/kafka/kafka-cluster.js';
import { KafkaConn } from './lib/kafka-conn.js';
import { KAFKA_SERVER_JVM, kafkaTool, parseConsumer, parseProducer, TOOL_JVM, type ToolFigures } from './lib/kafka-tools.js';
import { BROKER_MAIN, assertBuilt, median, procCpuSeconds, procRssMiB, procSchedSeconds, REPO_ROOT, sleep } from './lib/proc.js';
import { buildRdkBench, type RdkBench } from './lib/rdk-bench.js';
import { catchUp, createReplicatedTopic, endToEndLatency, failover, partitionStates, type ReplicatedCluster } from './lib/replicated.js';
import { machineCpu, runCmd } from './lib/run.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);
const str = (name: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : null);
const ROUNDS = opt('rounds', 3);
const RECORDS = opt('records', 100_000);
const SIZE = opt('size', 1024);
const RDK_COUNT = opt('rdk-count', 100_000);
const LAT_RATE = opt('latency-rate', 5000);
const LAT_RECORDS = opt('latency-records', 50_000);
const E2E_RATE = opt('e2e-rate', 500);
const E2E_S = opt('e2e-seconds', 10);
const CATCHUP_MIB = opt('catchup-mib', 1024);
const WARMUP_RECORDS = opt('warmup-records', 50_000);
const WITH_KAFKA = args.includes('--kafka');
const KAFKA_JVM = str('kafka-jvm') === 'test' ? JVM_OPTS : KAFKA_SERVER_JVM;
const PROFILE_DIR = str('profile');
const CELL_FILTER = str('cells') ? new RegExp(str('cells')!) : null;
const FAILOVER = !args.includes('--no-failover');
const jsonOut = str('json');
const GiB = 1024 ** 3;

/** What both clusters are given (Kafka's names). */
const COMMON: Record<string, string> = {
  'min.insync.replicas': '2',
  'default.replication.factor': '3',
  'log.segment.bytes': String(1 << 30),
  'auto.create.topics.enable': 'false',
};

type System = 'samsa' | 'kafka';

async function startSamsaCluster(nodeArgs?: (id: number) => string[]): Promise<ReplicatedCluster & { stopGracefully(): Promise<void> }> {
  const tc = await startCluster({ brokers: 3, main: BROKER_MAIN, nodeArgs, config: COMMON, startTimeoutMs: 60_000 });
  return {
    name: 'samsa',
    bootstrap: tc.bootstrap,
    nodeIds: tc.brokers.map((b) => b.nodeId),
    port: (id) => tc.broker(id).port,
    pid: (id) => tc.broker(id).child?.pid,
    kill: (id) => tc.kill(id),
    start: (id) => tc.start(id),
    stop: () => tc.cleanup(),
    async stopGracefully() {
      await Promise.all(tc.brokers.map((b) => tc.stop(b.nodeId)));
      await tc.cleanup();
    },
  };
}

async function startKafkaReplicated(): Promise<ReplicatedCluster> {
  const k = await startKafkaCluster({ nodes: 3, overrides: COMMON, jvmOpts: KAFKA_JVM });
  return {
    name: 'kafka',
    bootstrap: k.bootstrap,
    nodeIds: k.nodes.map((n) => n.nodeId),
    port: (id) => k.node(id).port,
    pid: (id) => k.node(id).pid(),
    kill: (id) => k.kill(id),
    start: (id) => k.start(id),
    stop: () => k.stop(),
  };
}

/** The three brokers' CPU seconds so far. */
const clusterCpu = (c: ReplicatedCluster) => c.nodeIds.reduce((s, id) => s + procCpuSeconds(c.pid(id) ?? -1), 0);

/**
 * Waits (at most 30 s) until the three brokers together use under 30 % of a core over half a
 * second: after an acks=1 cell the followers may still be copying what the leaders acknowledged,
 * which would land in the next cell's time and CPU. Returns the time waited.
 */
async function settle(c: ReplicatedCluster): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const a = clusterCpu(c);
    await sleep(500);
    if (clusterCpu(c) - a < 0.15 || performance.now() - t0 > 30_000) return performance.now() - t0;
  }
}

interface Figures extends ToolFigures {
  cpuSPerGiB?: number;
  /** The three brokers' seconds runnable but waiting for a core during the cell, and on a core. */
  runQueueS?: number;
  onCpuS?: number;
}

/** The three brokers' scheduler seconds (all threads). */
function clusterSched(c: ReplicatedCluster): { onCpu: number; waiting: number } {
  return c.nodeIds.reduce((s, id) => {
    const x = procSchedSeconds(c.pid(id) ?? -1);
    return { onCpu: s.onCpu + x.onCpu, waiting: s.waiting + x.waiting };
  }, { onCpu: 0, waiting: 0 });
}

interface Cell {
  id: string;
  partitions: number;
  /** The cell whose topic this one reads. */
  from?: string;
  run(c: ReplicatedCluster, topic: string): Promise<{ figures: Figures; bytes?: number }>;
}

const producerProps = (c: ReplicatedCluster, acks: string) => ['--producer-props', `bootstrap.servers=${c.bootstrap}`, `acks=${acks}`, 'linger.ms=5', 'batch.size=65536'];

const ppProduce = (acks: string, partitions: number): Cell => ({
  id: `pp produce acks=${acks} p${partitions}`,
  partitions,
  async run(c, topic) {
    const out = await kafkaTool('org.apache.kafka.tools.ProducerPerformance', ['--topic', topic, '--num-records', String(RECORDS), '--record-size', String(SIZE), '--throughput', '-1', ...producerProps(c, acks)]);
    return { figures: parseProducer(out), bytes: RECORDS * SIZE };
  },
});

const ppLatency = (partitions: number): Cell => ({
  id: `pp latency acks=all p${partitions} @${LAT_RATE / 1000}k/s`,
  partitions,
  async run(c, topic) {
    const out = await kafkaTool('org.apache.kafka.tools.ProducerPerformance', ['--topic', topic, '--num-records', String(LAT_RECORDS), '--record-size', String(SIZE), '--throughput', String(LAT_RATE), ...producerProps(c, 'all')]);
    return { figures: parseProducer(out) };
  },
});

const ppConsume = (partitions: number, from: string): Cell => ({
  id: `pp consume p${partitions}`,
  partitions,
  from,
  async run(c, topic) {
    const out = await kafkaTool('org.apache.kafka.tools.ConsumerPerformance', ['--bootstrap-server', c.bootstrap, '--topic', topic, '--messages', String(RECORDS), '--timeout', '60000', '--group', `perf-${topic}`]);
    return { figures: parseConsumer(out), bytes: RECORDS * SIZE };
  },
});

let rdk: RdkBench | null = null;

const rdkProduce = (acks: string, partitions: number): Cell => ({
  id: `rdk produce acks=${acks} p${partitions}`,
  partitions,
  async run(c, topic) {
    const r = await rdk!.run(['produce', '-t', topic, '-n', String(RDK_COUNT), '-s', String(SIZE), '-l', '5', '-a', acks, ...(partitions === 1 ? ['-P', '0'] : ['-p', String(partitions)])], c.bootstrap, 180, RDK_COUNT);
    if (!r.ok) throw new Error(`rdk-bench produce: ${r.error}`);
    return { figures: { recordsPerS: r.msgsPerS, mibPerS: r.mibPerS, p50: r.p50, p99: r.p99 }, bytes: RDK_COUNT * SIZE };
  },
});

const rdkConsume = (partitions: number, from: string): Cell => ({
  id: `rdk consume p${partitions}`,
  partitions,
  from,
  async run(c, topic) {
    const r = await rdk!.run(['consume', '-t', topic, '-n', String(RDK_COUNT)], c.bootstrap, 180, RDK_COUNT);
    if (!r.ok) throw new Error(`rdk-bench consume: ${r.error}`);
    return { figures: { recordsPerS: r.msgsPerS, mibPerS: r.mibPerS }, bytes: RDK_COUNT * SIZE };
  },
});

const e2e: Cell = {
  id: `e2e acks=all p1 @${E2E_RATE}/s`,
  partitions: 1,
  async run(c, topic) {
    const r = await endToEndLatency(c, topic, E2E_RATE, E2E_S, SIZE);
    if (r.errors > 0 || r.count < E2E_RATE * E2E_S) throw new Error(`e2e: ${r.errors} produce errors, ${r.count} of ${E2E_RATE * E2E_S} records consumed`);
    return { figures: { recordsPerS: r.ratePerS, mibPerS: (r.ratePerS * SIZE) / 2 ** 20, p50: r.p50, p99: r.p99, p999: r.p999 } };
  },
};

const CELLS: Cell[] = [
  ppProduce('all', 1), ppProduce('all', 24), ppProduce('1', 1), ppProduce('1', 24),
  ppConsume(1, 'pp produce acks=1 p1'), ppConsume(24, 'pp produce acks=1 p24'),
];
const RDK_CELLS = [rdkProduce('all', 1), rdkProduce('all', 24), rdkProduce('1', 1), rdkProduce('1', 24), rdkConsume(24, 'rdk produce acks=1 p24')];
const LATENCY_CELLS = [ppLatency(24), e2e];

const topicName = (id: string) => id.replace(/[^a-zA-Z0-9]+/g, '-');

/** A ProducerPerformance at a fixed rate in the background (the load of the failover cell); killed by the caller. */
function backgroundLoad(c: ReplicatedCluster, topic: string, rate: number): ChildProcess {
  return spawn(javaBin(), [...TOOL_JVM, '-cp', kafkaJars().classpath, 'org.apache.kafka.tools.ProducerPerformance', '--topic', topic, '--num-records', String(rate * 600),
    '--record-size', String(SIZE), '--throughput', String(rate), ...producerProps(c, 'all'), 'retries=2147483647', 'delivery.timeout.ms=120000'], { stdio: 'ignore' });
}

async function endOffset(c: ReplicatedCluster, topic: string): Promise<number> {
  const [p0] = await partitionStates(c, topic);
  const k = await KafkaConn.connect('127.0.0.1', c.port(p0.leader), 2000);
  try {
    const r = await k.request(2, 7, { replicaId: -1, isolationLevel: 0, timeoutMs: 5000, topics: [{ name: topic, partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1n }] }] });
    return Number(r.topics[0].partitions[0].offset);
  } finally {
    k.close();
  }
}

type Results = Map<string, Map<System, Figures[]>>;
interface RoundExtras { failoverMs: number[]; rejoinMs: number[]; catchUpMs: number[]; catchUpMiBps: number[]; rss: number[][]; hwm: number[][]; startMs: number[] }

function record(results: Results, id: string, sys: System, f: Figures): void {
  const per = results.get(id) ?? new Map<System, Figures[]>();
  results.set(id, per);
  per.set(sys, [...(per.get(sys) ?? []), f]);
}

async function round(sys: System, results: Results, extras: Map<System, RoundExtras>): Promise<void> {
  const t0 = performance.now();
  const c = sys === 'samsa' ? await startSamsaCluster() : await startKafkaReplicated();
  const ex = extras.get(sys) ?? { failoverMs: [], rejoinMs: [], catchUpMs: [], catchUpMiBps: [], rss: [], hwm: [], startMs: [] };
  extras.set(sys, ex);
  ex.startMs.push(performance.now() - t0);
  const log = (id: string, s: string) => console.error(`  ${sys.padEnd(5)} ${id.padEnd(30)} ${s}`);
  try {
    const cells = [...CELLS, ...(rdk ? RDK_CELLS : []), ...LATENCY_CELLS].filter((x) => !CELL_FILTER || CELL_FILTER.test(x.id));
    for (const cell of cells.filter((x) => !x.from)) await createReplicatedTopic(c, topicName(cell.id), cell.partitions, 3);
    if (WARMUP_RECORDS > 0) {
      // Unmeasured: the JVMs' JIT (Kafka's brokers, which start cold) and V8's settle before the first cell.
      await createReplicatedTopic(c, 'warm-up', 24, 3);
      await kafkaTool('org.apache.kafka.tools.ProducerPerformance', ['--topic', 'warm-up', '--num-records', String(WARMUP_RECORDS), '--record-size', String(SIZE), '--throughput', '-1', ...producerProps(c, 'all')]);
      await sleep(2000);
    }
    for (const cell of cells) {
      const waited = await settle(c);
      if (waited > 2000) log(cell.id, `(waited ${(waited / 1000).toFixed(1)} s for the brokers to settle)`);
      const cpu0 = clusterCpu(c);
      const sched0 = clusterSched(c);
      try {
        const { figures, bytes } = await cell.run(c, topicName(cell.from ?? cell.id));
        if (bytes) figures.cpuSPerGiB = (clusterCpu(c) - cpu0) / (bytes / GiB);
        const sched1 = clusterSched(c);
        figures.onCpuS = sched1.onCpu - sched0.onCpu;
        figures.runQueueS = sched1.waiting - sched0.waiting;
        record(results, cell.id, sys, figures);
        log(cell.id, `${figures.recordsPerS.toFixed(0).padStart(7)} rec/s ${figures.mibPerS.toFixed(1).padStart(6)} MiB/s` +
          (figures.p99 !== undefined ? `  p50 ${figures.p50?.toFixed(1)} p99 ${figures.p99.toFixed(1)}${figures.p999 !== undefined ? ` p99.9 ${figures.p999.toFixed(1)}` : ''} ms` : '') +
          (figures.cpuSPerGiB !== undefined ? `  ${figures.cpuSPerGiB.toFixed(1)} CPU-s/GiB` : '') +
          `  brokers on CPU ${figures.onCpuS.toFixed(1)} s, waiting for one ${figures.runQueueS.toFixed(1)} s`);
      } catch (e) {
        log(cell.id, `FAILED: ${(e as Error).message.split('\n')[0]}`);
      }
    }
    ex.rss.push(c.nodeIds.map((id) => procRssMiB(c.pid(id) ?? -1)));
    ex.hwm.push(c.nodeIds.map((id) => hwmMiB(c.pid(id) ?? -1)));
    log('RSS per broker', `${ex.rss.at(-1)!.map((x) => x.toFixed(0)).join(' / ')} MiB (peak ${ex.hwm.at(-1)!.map((x) => x.toFixed(0)).join(' / ')})`);

    if (FAILOVER) try {
      await createReplicatedTopic(c, 'failover', 1, 3);
      const load = backgroundLoad(c, 'failover', 2000);
      try {
        const deadline = Date.now() + 60_000;
        while ((await endOffset(c, 'failover')) < 2000 && Date.now() < deadline) await sleep(200);
        const f = await failover(c, 'failover');
        ex.failoverMs.push(f.ms);
        ex.rejoinMs.push(f.rejoinMs);
        log('failover', `leader ${f.victim} SIGKILLed → first acknowledged produce after ${f.ms.toFixed(0)} ms; restarted → back in the ISR after ${f.rejoinMs.toFixed(0)} ms`);
      } finally {
        load.kill('SIGKILL');
      }
    } catch (e) {
      log('failover', `FAILED: ${(e as Error).message.split('\n')[0]}`);
    }
    if (CATCHUP_MIB > 0) {
      try {
        await createReplicatedTopic(c, 'catch-up', 1, 3);
        const r = await catchUp(c, 'catch-up', CATCHUP_MIB);
        ex.catchUpMs.push(r.inSyncMs);
        ex.catchUpMiBps.push(r.missedMiB / (r.inSyncMs / 1000));
        log('catch-up', `broker ${r.follower} missed ${r.missedMiB.toFixed(0)} MiB (produced at ${r.produceMiBps.toFixed(1)} MiB/s); restart → back in the ISR ${r.inSyncMs.toFixed(0)} ms`);
      } catch (e) {
        log('catch-up', `FAILED: ${(e as Error).message.split('\n')[0]}`);
      }
    }
  } finally {
    await c.stop();
  }
}

function hwmMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** --profile DIR: Samsa's brokers under node --cpu-prof through one cell (--profile-cell, default rdk produce acks=all p1), then the summaries. */
async function profile(dir: string): Promise<void> {
  const id = str('profile-cell') ?? 'rdk produce acks=all p1';
  if (id.startsWith('rdk')) {
    const built = await buildRdkBench();
    if ('skipped' in built) throw new Error(`--profile-cell ${id}: ${built.skipped}`);
    rdk = built;
  }
  const cell = [...CELLS, ...RDK_CELLS, ...LATENCY_CELLS].find((x) => x.id === id && !x.from);
  if (!cell) throw new Error(`--profile-cell: no produce cell named ${id}`);
  mkdirSync(dir, { recursive: true });
  const c = await startSamsaCluster((n) => ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-name', `broker-${n}.cpuprofile`]);
  let leaders = new Set<number>();
  try {
    const ps = await createReplicatedTopic(c, topicName(cell.id), cell.partitions, 3);
    leaders = new Set(ps.map((p) => p.leader));
    const cpu0 = c.nodeIds.map((n) => procCpuSeconds(c.pid(n)!));
    const { figures } = await cell.run(c, topicName(cell.id));
    const cpu = c.nodeIds.map((n, i) => procCpuSeconds(c.pid(n)!) - cpu0[i]);
    console.log(`${cell.id} under --cpu-prof: ${figures.mibPerS.toFixed(1)} MiB/s, p99 ${figures.p99} ms; leader(s) ${[...leaders].join(', ')}; CPU-s of brokers ${c.nodeIds.join(' / ')}: ${cpu.map((x) => x.toFixed(1)).join(' / ')}`);
  } finally {
    await c.stopGracefully();
    rdk?.cleanup();
  }
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.cpuprofile')).sort()) {
    const n = Number(/broker-(\d+)/.exec(f)?.[1]);
    console.log(`\n## broker ${n} (${leaders.has(n) ? 'leader' : 'follower'}): ${f}`);
    const r = await runCmd(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', 'cpuprofile-summary.ts'), join(dir, f), '--top', '25', '--markdown', '--inclusive', 'dist/chunks/'], { cwd: REPO_ROOT, timeoutMs: 120_000 });
    console.log(r.stdout);
  }
}

async function main(): Promise<void> {
  assertBuilt();
  if (PROFILE_DIR) return profile(resolve(PROFILE_DIR));
  const missing = javaMissing();
  if (missing) {
    console.log(`bench:cluster: skipped: ${missing} (Kafka's perf tools drive both clusters)`);
    return;
  }
  kafkaJars();
  if (!args.includes('--no-rdk')) {
    const built = await buildRdkBench();
    if ('skipped' in built) console.error(`bench:cluster: rdk-bench rows left out: ${built.skipped}`);
    else rdk = built;
  }
  const systems: System[] = WITH_KAFKA ? ['samsa', 'kafka'] : ['samsa'];
  console.error(`3 × Samsa (etcd)${WITH_KAFKA ? ` vs 3 × Apache Kafka ${KAFKA_VERSION} (KRaft, combined quorum)` : ''}: RF 3, min.insync.replicas 2, ${ROUNDS} round(s), ${RECORDS} × ${SIZE} B per cell; ${cpus().length} cores, ${(totalmem() / GiB).toFixed(0)} GiB, node ${process.version}`);
  const results: Results = new Map();
  const extras = new Map<System, RoundExtras>();
  const cpu0 = machineCpu();
  const wall0 = performance.now();
  for (let r = 0; r < ROUNDS; r++) {
    console.error(`round ${r + 1}/${ROUNDS}`);
    for (const sys of r % 2 === 0 ? systems : [...systems].reverse()) await round(sys, results, extras);
  }
  const wall = (performance.now() - wall0) / 1000;
  const busy = ((machineCpu().busy - cpu0.busy) / wall / cpus().length) * 100;

  const med = (xs: number[] | undefined) => (xs && xs.length ? median(xs) : NaN);
  const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const rows: string[][] = [['cell', 'Samsa', ...(WITH_KAFKA ? ['Kafka', 'Samsa/Kafka'] : [])]];
  const row = (label: string, a: number, b: number, d = 1) => rows.push([label, fmt(a, d), ...(WITH_KAFKA ? [fmt(b, d), `×${fmt(a / b, 2)}`] : [])]);
  const json: Record<string, unknown> = {
    date: new Date().toISOString(), kafka: KAFKA_VERSION, node: process.version, cores: cpus().length, memGiB: Math.round(totalmem() / GiB), machineBusyPct: Math.round(busy), wallS: Math.round(wall),
    kafkaJvm: KAFKA_JVM, settings: COMMON, rounds: ROUNDS, records: RECORDS, size: SIZE, rdkCount: RDK_COUNT, latencyRate: LAT_RATE, e2eRate: E2E_RATE, catchUpMiB: CATCHUP_MIB, cells: {},
  };
  for (const [id, per] of results) {
    const s = per.get('samsa') ?? [];
    const k = per.get('kafka') ?? [];
    (json.cells as Record<string, unknown>)[id] = { samsa: s, kafka: k };
    const pick = (xs: Figures[], f: keyof Figures) => med(xs.map((x) => x[f]).filter((v): v is number => v !== undefined));
    const latencyCell = id.startsWith('pp latency') || id.startsWith('e2e');
    if (!latencyCell) row(`${id} MiB/s`, pick(s, 'mibPerS'), pick(k, 'mibPerS'));
    for (const f of ['p50', 'p99', 'p999'] as const) if (latencyCell && s.some((x) => x[f] !== undefined)) row(`${id} ${f === 'p999' ? 'p99.9' : f} ms`, pick(s, f), pick(k, f));
    if (!latencyCell && s.some((x) => x.cpuSPerGiB !== undefined)) row(`${id} broker CPU-s/GiB`, pick(s, 'cpuSPerGiB'), pick(k, 'cpuSPerGiB'));
  }
  const es = extras.get('samsa');
  const ek = extras.get('kafka');
  json.extras = { samsa: es, kafka: ek };
  row('failover: SIGKILL → first acked produce ms', med(es?.failoverMs), med(ek?.failoverMs), 0);
  row('failover: old leader restart → ISR ms', med(es?.rejoinMs), med(ek?.rejoinMs), 0);
  row(`catch-up ${CATCHUP_MIB} MiB: restart → ISR ms`, med(es?.catchUpMs), med(ek?.catchUpMs), 0);
  const rssMax = (e?: RoundExtras) => med(e?.rss.map((r) => Math.max(...r)));
  const rssSum = (e?: RoundExtras) => med(e?.rss.map((r) => r.reduce((a, b) => a + b, 0)));
  const hwmMax = (e?: RoundExtras) => med(e?.hwm.map((r) => Math.max(...r)));
  row('RSS, largest broker MiB', rssMax(es), rssMax(ek), 0);
  row('RSS, three brokers MiB', rssSum(es), rssSum(ek), 0);
  row('peak RSS, largest broker MiB', hwmMax(es), hwmMax(ek), 0);
  row('cluster start → serving ms', med(es?.startMs), med(ek?.startMs), 0);
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log(rows.map((r) => r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')).join('\n'));
  console.log(`machine CPU busy during the run: ${fmt(busy)}% of ${cpus().length} cores (shared with other sessions), ${fmt(wall)} s`);
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(json, null, 2) + '\n');
  rdk?.cleanup();
}

await main();
