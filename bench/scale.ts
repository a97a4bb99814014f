/**
 * Scale: many partitions and many idle connections, Samsa and (with --kafka) Apache Kafka.
 *
 *   npm run build && npx tsx bench/scale.ts [--partitions 10000] [--topics 100] [--connections 1000] [--kafka]
 *     [--restarts 1] [--cpu-prof DIR] [--keep-data DIR] [--create-batch 10]
 *
 * - partitions: PARTITIONS spread over TOPICS topics created by CreateTopics requests of
 *   CREATE_BATCH topics (Kafka refuses more than 10,000 partitions in one; time to
 *   the answer, then until Metadata shows every partition with a leader); Metadata for all topics
 *   (median of 20 requests, client-side time); a restart on the same data until a produce to the
 *   last partition is accepted (Samsa: SIGTERM, the stop timed apart; Kafka: SIGKILL); RSS loaded.
 *   `--restarts N` repeats the restart N times and reports medians (stop, start to produce) and
 *   the single figures; `--cpu-prof DIR` runs the restarted Samsa processes under
 *   `node --cpu-prof` (profiles in DIR, for bench/cpuprofile-summary.ts); `--keep-data DIR`
 *   creates the partitions once in DIR and keeps it, and a later run with the same DIR skips the
 *   create and goes straight to the restarts (the data dir of an older build is the migration test).
 * - connections: CONNECTIONS sockets (0 skips this part) that each complete ApiVersions and then stay idle; RSS
 *   before and after, per connection.
 * Figures only (no assertion), never part of `npm test`.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { KafkaConn, apiVersions } from './lib/kafka-conn.js';
import { median, procRssMiB, sleep, startSamsa } from './lib/proc.js';
import { javaMissing, startKafka } from '../tools/kafka/kafka.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);
const PARTITIONS = opt('partitions', 10_000);
const TOPICS = opt('topics', 100);
const CONNECTIONS = opt('connections', 1000);
const withKafka = args.includes('--kafka');
const RESTARTS = opt('restarts', 1);
const CREATE_BATCH = opt('create-batch', 10);
const strOpt = (name: string): string | undefined => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : undefined);
const CPU_PROF = strOpt('cpu-prof');
const KEEP_DATA = strOpt('keep-data');

interface Target {
  name: string;
  port(): number;
  pid(): number;
  /** Stops (SIGTERM, graceful) and starts again on the same data; resolves with the stop's duration. */
  restart(): Promise<number>;
  stop(): Promise<void>;
  /** The partitions exist already (--keep-data with a directory from an earlier run). */
  reused?: boolean;
}

const metadataAll = (c: KafkaConn) => c.request(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });

async function produceTo(port: number, topic: string, partition: number, deadlineMs: number): Promise<void> {
  const deadline = performance.now() + deadlineMs;
  for (;;) {
    try {
      const c = await KafkaConn.connect('127.0.0.1', port, 1000);
      try {
        const r = await c.request(0, 9, {
          transactionalId: null, acks: 1, timeoutMs: 5000,
          topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: partition, records: buildRecordBatch({ records: [{ key: null, value: Buffer.from('x') }] }) }] }],
        });
        if (r.responses[0]?.partitionResponses[0]?.errorCode === 0) return;
      } finally {
        c.close();
      }
    } catch {
      // not serving yet
    }
    if (performance.now() > deadline) throw new Error(`no produce accepted to ${topic}-${partition} within ${deadlineMs} ms`);
    await sleep(20);
  }
}

async function partitions(t: Target): Promise<Record<string, number>> {
  const per = Math.ceil(PARTITIONS / TOPICS);
  const c = await KafkaConn.connect('127.0.0.1', t.port(), 5000);
  const out: Record<string, number> = {};
  try {
    if (t.reused) {
      c.close();
      return restarts(t, per, out);
    }
    const t0 = performance.now();
    // Kafka's controller refuses more than 10,000 records in one operation (POLICY_VIOLATION,
    // "excessively large batch"): CreateTopics of CREATE_BATCH topics at a time, for both.
    for (let first = 0; first < TOPICS; first += CREATE_BATCH) {
      const res = await c.request(19, 7, {
        topics: Array.from({ length: Math.min(CREATE_BATCH, TOPICS - first) }, (_, i) => ({ name: `scale-${first + i}`, numPartitions: per, replicationFactor: 1, assignments: [], configs: [] })),
        timeoutMs: 600_000, validateOnly: false,
      });
      const bad = res.topics.filter((x) => x.errorCode !== 0);
      if (bad.length) throw new Error(`CreateTopics: ${bad.length} failed (${bad[0].errorCode} ${bad[0].errorMessage})`);
    }
    out.createMs = performance.now() - t0;
    for (;;) {
      const md = await metadataAll(c);
      const led = md.topics.filter((x) => x.name?.startsWith('scale-')).reduce((n, x) => n + x.partitions.filter((p) => p.leaderId >= 0).length, 0);
      if (led >= per * TOPICS) break;
      await sleep(100);
    }
    out.createToLeadersMs = performance.now() - t0;
    await produceTo(t.port(), `scale-${TOPICS - 1}`, per - 1, 120_000);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      await metadataAll(c);
      times.push(performance.now() - s);
    }
    out.metadataAllMs = median(times);
  } finally {
    c.close();
  }
  return restarts(t, per, out);
}

async function restarts(t: Target, per: number, out: Record<string, number>): Promise<Record<string, number>> {
  out.rssLoadedMiB = procRssMiB(t.pid());
  const stops: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < RESTARTS; i++) {
    const r0 = performance.now();
    const stopMs = await t.restart();
    await produceTo(t.port(), `scale-${TOPICS - 1}`, per - 1, 300_000);
    const startMs = performance.now() - r0 - stopMs;
    stops.push(stopMs);
    starts.push(startMs);
    console.error(`${t.name}: restart ${i + 1}/${RESTARTS}: stop ${stopMs.toFixed(0)} ms, start to first produce ${startMs.toFixed(0)} ms`);
  }
  out.stopMs = median(stops);
  out.startToProduceMs = median(starts);
  out.restartToProduceMs = out.stopMs + out.startToProduceMs;
  out.rssRestartedMiB = procRssMiB(t.pid());
  return out;
}

async function connections(t: Target): Promise<Record<string, number>> {
  if (CONNECTIONS === 0) return {};
  await sleep(1000);
  const before = procRssMiB(t.pid());
  const conns: KafkaConn[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = await KafkaConn.connect('127.0.0.1', t.port(), 5000);
    await apiVersions(c);
    conns.push(c);
  }
  await sleep(2000);
  const after = procRssMiB(t.pid());
  for (const c of conns) c.close();
  return { rssBeforeMiB: before, rssAfterMiB: after, kibPerConnection: ((after - before) * 1024) / CONNECTIONS };
}

async function samsaTarget(): Promise<Target> {
  const reused = KEEP_DATA !== undefined && existsSync(join(KEEP_DATA, 'meta.properties'));
  if (KEEP_DATA) mkdirSync(KEEP_DATA, { recursive: true });
  let s = await startSamsa({ dataDir: KEEP_DATA, readyTimeoutMs: 300_000 });
  const dataDir = s.dataDir;
  let profiles = 0;
  return {
    name: 'samsa',
    port: () => s.port,
    pid: () => s.pid,
    reused,
    async restart() {
      const t0 = performance.now();
      await s.stop({ keepData: true });
      const stopMs = performance.now() - t0;
      const nodeArgs = CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF, '--cpu-prof-name', `restart-${++profiles}.cpuprofile`] : [];
      s = await startSamsa({ dataDir, readyTimeoutMs: 300_000, nodeArgs });
      return stopMs;
    },
    stop: () => s.stop({ keepData: KEEP_DATA !== undefined }),
  };
}

async function kafkaTarget(): Promise<Target> {
  // A directory of ours, so a stop keeps the data for the next start (as Samsa's restart does).
  const home = mkdtempSync(join(tmpdir(), 'samsa-scale-kafka-'));
  const settings = { startTimeoutMs: 300_000, dir: home, overrides: { 'auto.create.topics.enable': 'false' } };
  let k = await startKafka(settings);
  return {
    name: 'kafka',
    port: () => k.port,
    pid: () => k.pid()!,
    async restart() {
      // Graceful, like Samsa's: SIGTERM (Kafka's controlled shutdown, clean-shutdown marker), then
      // a start on the same data and port; startKafka resolves once the broker answers Metadata.
      const t0 = performance.now();
      await k.stop(120_000);
      const stopMs = performance.now() - t0;
      k = await startKafka({ ...settings, port: k.port });
      return stopMs;
    },
    async stop() {
      await k.stop(60_000);
      rmSync(home, { recursive: true, force: true });
    },
  };
}

const rows: [string, Record<string, number>][] = [];
for (const make of [samsaTarget, ...(withKafka && !javaMissing() ? [kafkaTarget] : [])]) {
  const t = await make();
  try {
    console.error(`${t.name}: ${PARTITIONS} partitions over ${TOPICS} topics, ${CONNECTIONS} idle connections`);
    const p = await partitions(t);
    const c = await connections(t);
    rows.push([t.name, { ...p, ...c }]);
  } finally {
    await t.stop();
  }
}
const keys = [...new Set(rows.flatMap(([, r]) => Object.keys(r)))];
console.log(['figure', ...rows.map(([n]) => n)].join('\t'));
for (const k of keys) console.log([k, ...rows.map(([, r]) => (r[k] ?? NaN).toFixed(k.endsWith('Ms') ? 0 : 1))].join('\t'));
