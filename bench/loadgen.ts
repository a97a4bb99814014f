/**
 * Samsa's own load generator: speaks the Kafka protocol directly (Samsa's generated codecs), with
 * pre-built record batches and many pipelined Produce requests over N connections, then reads
 * everything back with Fetch requests.
 *
 *   npm run build && npx tsx bench/loadgen.ts [options]
 *
 * Options (defaults in brackets):
 *   --bootstrap HOST:PORT   use a running broker (127.0.0.1 only) instead of spawning one;
 *                           --broker-pid PID then gives its CPU time
 *   --partitions N [8]      topic partitions (a fresh topic per run)
 *   --connections N [4]     produce connections
 *   --inflight N [8]        Produce requests in flight per connection (pipelined)
 *   --batch N [64]          records per record batch
 *   --record-size B [1024]  value bytes per record (random, incompressible; no key)
 *   --parts-per-request N [1]  partitions (one batch each) per Produce request
 *   --acks 1|all [1]        acks=all also sets samsa.flush.on.acks.all=true (fsync, group commit)
 *                           on a spawned broker unless --no-flush
 *   --duration S [10]       produce phase length in seconds (bounded by --time-limit)
 *   --count N [0]           stop after N messages instead (0 = use --duration)
 *   --fetch-connections N [2]  connections for the fetch phase (partitions split among them)
 *   --partition-max-bytes B [1048576] / --fetch-max-bytes B [52428800]
 *   --no-fetch              skip the fetch phase
 *   --cpu-prof DIR          run the spawned broker with node --cpu-prof, profiles into DIR
 *   --profile-phase P [all] with --cpu-prof: 'all' = one profile of the whole run; 'produce' = the
 *                           broker is stopped right after producing (no fetch phase); 'fetch' =
 *                           the broker is restarted on the same data before the fetch phase, so
 *                           the second profile (samsa-fetch-*) holds start-up + fetch only
 *   --data-parent DIR       where the spawned broker's fresh data dir goes [os.tmpdir()]
 *   --time-limit S [110]    hard bound for one run
 *   --reps N [1]            repeat the run N times (fresh broker and topic each) and print
 *                           medians (min–max)
 *   --json                  also print one JSON line per run with every figure
 *
 * Figures: msgs/s and MiB/s of record values; request latency p50/p99 (send → response);
 * broker CPU seconds per phase (from /proc/PID/stat) and per GiB of values; client CPU; CPU
 * seconds used meanwhile by other processes (other sessions share the 2 cores: a noise indicator).
 * No assertions: it prints what it measured.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { encodeRequest, decodeResponse, KafkaConn, createTopics } from './lib/kafka-conn.js';
import { median, percentile, procCpuSeconds, sleep, startSamsa, type SamsaProcess } from './lib/proc.js';
import { machineCpu } from './lib/run.js';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
const PRODUCE_VERSION = 9;
const FETCH_VERSION = 12;

interface Options {
  bootstrap: string | null;
  brokerPid: number;
  partitions: number;
  connections: number;
  inflight: number;
  batch: number;
  recordSize: number;
  partsPerRequest: number;
  acks: number;
  flush: boolean;
  duration: number;
  count: number;
  fetchConnections: number;
  partitionMaxBytes: number;
  fetchMaxBytes: number;
  fetch: boolean;
  cpuProf: string | null;
  profilePhase: 'all' | 'produce' | 'fetch';
  dataParent: string | undefined;
  timeLimit: number;
  json: boolean;
  reps: number;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    bootstrap: null, brokerPid: 0, partitions: 8, connections: 4, inflight: 8, batch: 64, recordSize: 1024, partsPerRequest: 1,
    acks: 1, flush: true, duration: 10, count: 0, fetchConnections: 2, partitionMaxBytes: 1048576, fetchMaxBytes: 52428800,
    fetch: true, cpuProf: null, profilePhase: 'all', dataParent: undefined, timeLimit: 110, json: false, reps: 1,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    const num = () => {
      const n = Number(val());
      if (!Number.isFinite(n) || n < 0) throw new Error(`${a}: not a number`);
      return n;
    };
    switch (a) {
      case '--bootstrap': o.bootstrap = val(); break;
      case '--broker-pid': o.brokerPid = num(); break;
      case '--partitions': o.partitions = Math.max(1, num()); break;
      case '--connections': o.connections = Math.max(1, num()); break;
      case '--inflight': o.inflight = Math.max(1, num()); break;
      case '--batch': o.batch = Math.max(1, num()); break;
      case '--record-size': o.recordSize = num(); break;
      case '--parts-per-request': o.partsPerRequest = Math.max(1, num()); break;
      case '--acks': {
        const v = val();
        o.acks = v === 'all' || v === '-1' ? -1 : Number(v);
        if (o.acks !== 1 && o.acks !== -1) throw new Error('--acks must be 1 or all');
        break;
      }
      case '--no-flush': o.flush = false; break;
      case '--duration': o.duration = num(); break;
      case '--count': o.count = num(); break;
      case '--fetch-connections': o.fetchConnections = Math.max(1, num()); break;
      case '--partition-max-bytes': o.partitionMaxBytes = num(); break;
      case '--fetch-max-bytes': o.fetchMaxBytes = num(); break;
      case '--no-fetch': o.fetch = false; break;
      case '--cpu-prof': o.cpuProf = val(); break;
      case '--profile-phase': {
        const v = val();
        if (v !== 'all' && v !== 'produce' && v !== 'fetch') throw new Error('--profile-phase: all|produce|fetch');
        o.profilePhase = v;
        break;
      }
      case '--data-parent': o.dataParent = val(); break;
      case '--time-limit': o.timeLimit = num(); break;
      case '--json': o.json = true; break;
      case '--reps': o.reps = Math.max(1, num()); break;
      case '-h': case '--help':
        process.stdout.write('see the comment at the top of bench/loadgen.ts\n');
        process.exit(0);
        break;
      default: throw new Error(`unknown option ${a}`);
    }
  }
  o.partsPerRequest = Math.min(o.partsPerRequest, o.partitions);
  return o;
}

/** A pre-encoded Produce request whose partition indexes and correlation id are patched in place. */
class ProduceTemplate {
  readonly frame: Buffer;
  private readonly indexOffsets: number[];

  constructor(topic: string, batch: Buffer, parts: number, acks: number) {
    const enc = (indexes: number[]) => encodeRequest(0, PRODUCE_VERSION, 0, {
      transactionalId: null, acks, timeoutMs: 30000,
      topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: indexes.map((index) => ({ index, records: batch })) }],
    });
    const zeros = new Array<number>(parts).fill(0);
    this.frame = enc(zeros);
    this.indexOffsets = [];
    for (let j = 0; j < parts; j++) {
      const probe = zeros.slice();
      probe[j] = 0x01010101;
      const other = enc(probe);
      let k = 0;
      while (k < other.length && other[k] === this.frame[k]) k++;
      this.indexOffsets.push(k);
    }
  }

  setPartitions(first: number, total: number): void {
    for (let j = 0; j < this.indexOffsets.length; j++) this.frame.writeInt32BE((first + j) % total, this.indexOffsets[j]);
  }
}

interface ProduceResult {
  messages: number;
  requests: number;
  errors: number;
  firstError: string;
  secs: number;
  latenciesMs: Float64Array;
  latencyCount: number;
  highWatermarks: number[];
}

async function producePhase(o: Options, host: string, port: number, topic: string, deadline: number): Promise<ProduceResult> {
  const records = Array.from({ length: o.batch }, () => ({ key: null, value: randomBytes(o.recordSize) }));
  const batch = buildRecordBatch({ records });
  const conns = await Promise.all(Array.from({ length: o.connections }, () => KafkaConn.connect(host, port)));
  const msgsPerRequest = o.batch * o.partsPerRequest;
  const targetRequests = o.count > 0 ? Math.ceil(o.count / msgsPerRequest) : Number.POSITIVE_INFINITY;
  const endAt = Math.min(deadline, o.count > 0 ? deadline : performance.now() + o.duration * 1000);
  const maxLat = 1 << 21;
  const lat = new Float64Array(maxLat);
  let latN = 0;
  let issued = 0;
  let completed = 0;
  let errors = 0;
  let firstError = '';
  let nextPartition = 0;
  const hw = new Array<number>(o.partitions).fill(0);

  const t0 = performance.now();
  const slot = async (conn: KafkaConn): Promise<void> => {
    // Each in-flight slot owns its frame: a buffer handed to socket.write must not change until sent.
    const tpl = new ProduceTemplate(topic, batch, o.partsPerRequest, o.acks);
    while (issued < targetRequests && performance.now() < endAt) {
      issued++;
      const first = nextPartition;
      nextPartition = (nextPartition + o.partsPerRequest) % o.partitions;
      tpl.setPartitions(first, o.partitions);
      const sent = performance.now();
      let payload: Buffer;
      try {
        payload = await conn.sendFrame(tpl.frame);
      } catch (err) {
        errors++;
        if (!firstError) firstError = (err as Error).message;
        return;
      }
      if (latN < maxLat) lat[latN++] = performance.now() - sent;
      const res = decodeResponse(0, PRODUCE_VERSION, payload);
      for (const t of res.responses) {
        for (const p of t.partitionResponses) {
          if (p.errorCode !== 0) {
            errors++;
            if (!firstError) firstError = `partition ${p.index}: error code ${p.errorCode} ${p.errorMessage ?? ''}`;
          } else {
            const end = Number(p.baseOffset) + o.batch;
            if (end > hw[p.index]) hw[p.index] = end;
          }
        }
      }
      completed++;
    }
  };
  const slots: Promise<void>[] = [];
  for (const c of conns) for (let i = 0; i < o.inflight; i++) slots.push(slot(c));
  await Promise.all(slots);
  const secs = (performance.now() - t0) / 1000;
  for (const c of conns) c.close();
  const okMessages = hw.reduce((a, b) => a + b, 0);
  return { messages: okMessages, requests: completed, errors, firstError, secs, latenciesMs: lat, latencyCount: latN, highWatermarks: hw };
}

interface FetchResult {
  messages: number;
  wireBytes: number;
  requests: number;
  errors: number;
  firstError: string;
  secs: number;
  timedOut: boolean;
}

/** Counts records in a concatenation of batches starting at offset `from`; returns the next offset. */
function scanBatches(buf: Buffer, from: number): { next: number; records: number } {
  let pos = 0;
  let next = from;
  let records = 0;
  while (pos + 61 <= buf.length) {
    const size = 12 + buf.readInt32BE(pos + 8);
    if (pos + size > buf.length) break; // partial batch at the end of a size-limited read
    const base = buf.readUInt32BE(pos) * 2 ** 32 + buf.readUInt32BE(pos + 4);
    const last = base + buf.readInt32BE(pos + 23);
    if (last >= next) {
      // Only whole batches are written here, so a batch is either entirely before `from` or not.
      records += base >= next ? buf.readInt32BE(pos + 57) : last - next + 1;
      next = last + 1;
    }
    pos += size;
  }
  return { next, records };
}

async function fetchPhase(o: Options, host: string, port: number, topic: string, hw: number[], deadline: number): Promise<FetchResult> {
  const nConn = Math.min(o.fetchConnections, o.partitions);
  const conns = await Promise.all(Array.from({ length: nConn }, () => KafkaConn.connect(host, port)));
  let messages = 0;
  let requests = 0;
  let errors = 0;
  let firstError = '';
  let timedOut = false;
  const t0 = performance.now();
  const worker = async (conn: KafkaConn, parts: number[]): Promise<void> => {
    const offsets = new Map<number, number>(parts.map((p) => [p, 0]));
    while (performance.now() < deadline) {
      const want = parts.filter((p) => offsets.get(p)! < hw[p]);
      if (want.length === 0) return;
      const res = await conn.request(1, FETCH_VERSION, {
        clusterId: null, replicaId: -1, replicaState: null, maxWaitMs: 500, minBytes: 1, maxBytes: o.fetchMaxBytes,
        isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
        topics: [{
          topic, topicId: ZERO_UUID,
          partitions: want.map((p) => ({
            partition: p, currentLeaderEpoch: -1, fetchOffset: BigInt(offsets.get(p)!), lastFetchedEpoch: -1,
            logStartOffset: -1n, partitionMaxBytes: o.partitionMaxBytes, replicaDirectoryId: ZERO_UUID, highWatermark: 0x7fffffffffffffffn,
          })),
        }],
      });
      requests++;
      if (res.errorCode !== 0) {
        errors++;
        if (!firstError) firstError = `fetch error code ${res.errorCode}`;
        return;
      }
      for (const t of res.responses) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) {
            errors++;
            if (!firstError) firstError = `fetch partition ${p.partitionIndex}: error code ${p.errorCode}`;
            offsets.set(p.partitionIndex, hw[p.partitionIndex]);
            continue;
          }
          const recs = p.records === null ? null : Array.isArray(p.records) ? Buffer.concat(p.records) : p.records;
          if (!recs || recs.length === 0) continue;
          const { next, records } = scanBatches(recs, offsets.get(p.partitionIndex)!);
          offsets.set(p.partitionIndex, next);
          messages += records;
        }
      }
    }
    timedOut = true;
  };
  const assignment: number[][] = conns.map(() => []);
  for (let p = 0; p < o.partitions; p++) assignment[p % nConn].push(p);
  await Promise.all(conns.map((c, i) => worker(c, assignment[i])));
  const secs = (performance.now() - t0) / 1000;
  const wireBytes = conns.reduce((a, c) => a + c.bytesIn, 0);
  for (const c of conns) c.close();
  return { messages, wireBytes, requests, errors, firstError, secs, timedOut };
}

function fmt(n: number, digits = 0): string {
  if (!Number.isFinite(n)) return '-';
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

type RunSummary = ReturnType<typeof summarize>;

function summarize(o: Options, prod: ProduceResult, produceCpu: number, clientProduceS: number, fetch: FetchResult | null, fetchCpu: number, clientFetchS: number, rssMiB: number, otherCpuS: number) {
  const lat = prod.latenciesMs.subarray(0, prod.latencyCount);
  const valueBytes = prod.messages * o.recordSize;
  return {
    config: {
      partitions: o.partitions, connections: o.connections, inflight: o.inflight, batch: o.batch, recordSize: o.recordSize,
      partsPerRequest: o.partsPerRequest, acks: o.acks === -1 ? 'all' : '1', flushOnAcksAll: o.acks === -1 && o.flush,
      fetchConnections: o.fetchConnections, partitionMaxBytes: o.partitionMaxBytes,
    },
    produce: {
      messages: prod.messages, requests: prod.requests, errors: prod.errors, firstError: prod.firstError, secs: prod.secs,
      msgsPerSec: prod.messages / prod.secs, mibPerSec: valueBytes / MiB / prod.secs,
      latencyMs: { p50: percentile(lat, 50), p99: percentile(lat, 99), max: percentile(lat, 100) },
      brokerCpuS: produceCpu, brokerCpuSPerGiB: produceCpu / (valueBytes / GiB),
      brokerCoreUtil: produceCpu / prod.secs,
      clientCpuS: clientProduceS,
    },
    fetch: fetch && {
      messages: fetch.messages, requests: fetch.requests, errors: fetch.errors, firstError: fetch.firstError, secs: fetch.secs,
      timedOut: fetch.timedOut, msgsPerSec: fetch.messages / fetch.secs, mibPerSec: (fetch.messages * o.recordSize) / MiB / fetch.secs,
      wireMiBPerSec: fetch.wireBytes / MiB / fetch.secs,
      brokerCpuS: fetchCpu, brokerCpuSPerGiB: fetchCpu / ((fetch.messages * o.recordSize) / GiB),
      clientCpuS: clientFetchS,
    },
    brokerRssMiB: rssMiB,
    /** CPU seconds used by other processes on the machine during the run (noise indicator). */
    otherCpuS,
  };
}

async function runOnce(o: Options, rep: number): Promise<RunSummary> {
  const hardDeadline = performance.now() + o.timeLimit * 1000;
  let broker: SamsaProcess | null = null;
  let host = '127.0.0.1';
  let port = 0;
  let brokerPid = o.brokerPid;
  const overrides: Record<string, string> = {};
  if (o.acks === -1 && o.flush) overrides['samsa.flush.on.acks.all'] = 'true';
  const nodeArgs = (tag: string) => (o.cpuProf ? ['--cpu-prof', '--cpu-prof-dir', o.cpuProf, '--cpu-prof-name', `samsa-${tag}-${process.pid}-${rep}.cpuprofile`] : []);
  if (o.bootstrap) {
    const [h, p] = o.bootstrap.split(':');
    host = h === 'localhost' ? '127.0.0.1' : h;
    if (host !== '127.0.0.1') throw new Error('only 127.0.0.1 is allowed');
    port = Number(p);
  } else {
    const profTag = o.profilePhase === 'all' ? 'all' : 'produce';
    broker = await startSamsa({ overrides, nodeArgs: nodeArgs(profTag), dataParent: o.dataParent });
    port = broker.port;
    brokerPid = broker.pid;
  }
  try {
    const topic = `loadgen-${process.pid}-${rep}-${Date.now().toString(36)}`;
    const admin = await KafkaConn.connect(host, port);
    await createTopics(admin, [{ name: topic, partitions: o.partitions }]);
    admin.close();

    const cpu = () => (brokerPid ? procCpuSeconds(brokerPid) : NaN);
    const m0 = machineCpu();
    const client0 = process.cpuUsage();
    const c0 = cpu();
    const prod = await producePhase(o, host, port, topic, hardDeadline);
    const c1 = cpu();
    const clientProduce = process.cpuUsage(client0);
    const m1 = machineCpu();

    let fetch: FetchResult | null = null;
    let c2 = NaN;
    let c3 = NaN;
    let clientFetchS = NaN;
    let otherFetch = 0;
    if (o.fetch && broker && o.cpuProf && o.profilePhase !== 'all') {
      // Separate profiles per phase: restart the broker on the same data.
      const dataDir = broker.dataDir;
      await broker.stop({ keepData: true });
      broker = null;
      brokerPid = 0;
      if (o.profilePhase === 'fetch') {
        broker = await startSamsa({ overrides, nodeArgs: nodeArgs('fetch'), dataDir });
        port = broker.port;
        brokerPid = broker.pid;
      } else {
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
    if (o.fetch && (broker || o.bootstrap)) {
      await sleep(200);
      const m2 = machineCpu();
      const f0 = process.cpuUsage();
      c2 = cpu();
      fetch = await fetchPhase(o, host, port, topic, prod.highWatermarks, hardDeadline);
      c3 = cpu();
      const cf = process.cpuUsage(f0);
      clientFetchS = (cf.user + cf.system) / 1e6;
      const m3 = machineCpu();
      otherFetch = m3.busy - m2.busy - (c3 - c2) - clientFetchS;
    }
    const rssMiB = broker ? broker.rssMiB() : NaN;
    const clientProduceS = (clientProduce.user + clientProduce.system) / 1e6;
    const otherProduce = m1.busy - m0.busy - (c1 - c0) - clientProduceS;
    return summarize(o, prod, c1 - c0, clientProduceS, fetch, c3 - c2, clientFetchS, rssMiB, otherProduce + otherFetch);
  } finally {
    if (broker) await broker.stop();
  }
}

function render(o: Options, runs: RunSummary[]): string {
  const s0 = runs[0];
  const many = runs.length > 1;
  const med = (f: (r: RunSummary) => number | undefined, d = 0) => {
    const v = runs.map(f).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
    if (v.length === 0) return '-';
    const m = fmt(median(v), d);
    return many ? `${m} (${fmt(Math.min(...v), d)}–${fmt(Math.max(...v), d)})` : m;
  };
  const sum = (f: (r: RunSummary) => number) => runs.reduce((a, r) => a + f(r), 0);
  const lines = [
    `loadgen: ${o.partitions} partitions, ${o.connections} conns x ${o.inflight} in flight, batches of ${o.batch} x ${o.recordSize} B` +
      ` (${o.partsPerRequest} per request), acks=${s0.config.acks}${s0.config.flushOnAcksAll ? ' +fsync' : ''}` +
      (many ? `; medians of ${runs.length} runs (min–max)` : ''),
    '| phase | messages | secs | msgs/s | MiB/s | p50 / p99 ms | broker CPU-s | broker CPU-s/GiB | client CPU-s | errors |',
    '|---|---|---|---|---|---|---|---|---|---|',
    `| produce | ${med((r) => r.produce.messages)} | ${med((r) => r.produce.secs, 2)} | ${med((r) => r.produce.msgsPerSec)} | ${med((r) => r.produce.mibPerSec, 1)} | ` +
      `${med((r) => r.produce.latencyMs.p50, 2)} / ${med((r) => r.produce.latencyMs.p99, 2)} | ${med((r) => r.produce.brokerCpuS, 2)} | ` +
      `${med((r) => r.produce.brokerCpuSPerGiB, 2)} | ${med((r) => r.produce.clientCpuS, 2)} | ${sum((r) => r.produce.errors)}${runs.find((r) => r.produce.firstError)?.produce.firstError ?? ''} |`,
  ];
  if (runs.every((r) => r.fetch)) {
    lines.push(`| fetch | ${med((r) => r.fetch?.messages)} | ${med((r) => r.fetch?.secs, 2)} | ${med((r) => r.fetch?.msgsPerSec)} | ${med((r) => r.fetch?.mibPerSec, 1)} | - | ` +
      `${med((r) => r.fetch?.brokerCpuS, 2)} | ${med((r) => r.fetch?.brokerCpuSPerGiB, 2)} | ${med((r) => r.fetch?.clientCpuS, 2)} | ` +
      `${sum((r) => r.fetch?.errors ?? 0)}${runs.find((r) => r.fetch?.firstError)?.fetch?.firstError ?? ''}${runs.some((r) => r.fetch?.timedOut) ? ' TIMED OUT' : ''} |`);
  }
  lines.push(`broker RSS at the end: ${med((r) => r.brokerRssMiB)} MiB; CPU-s used by other processes meanwhile: ${med((r) => r.otherCpuS, 2)}`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const guard = setTimeout(() => {
    process.stderr.write(`loadgen: time limit of ${o.timeLimit} s reached, giving up\n`);
    process.exit(3);
  }, (o.timeLimit + 20) * 1000 * o.reps);
  guard.unref();
  const runs: RunSummary[] = [];
  for (let rep = 1; rep <= o.reps; rep++) {
    const r = await runOnce(o, rep);
    runs.push(r);
    if (o.reps > 1) process.stderr.write(`  run ${rep}: produce ${fmt(r.produce.msgsPerSec)} msgs/s ${fmt(r.produce.mibPerSec, 1)} MiB/s, ${fmt(r.produce.brokerCpuSPerGiB, 2)} broker CPU-s/GiB` +
      (r.fetch ? `; fetch ${fmt(r.fetch.msgsPerSec)} msgs/s ${fmt(r.fetch.mibPerSec, 1)} MiB/s` : '') + `; others ${fmt(r.otherCpuS, 2)} CPU-s\n`);
    if (o.json) process.stdout.write(JSON.stringify(r) + '\n');
  }
  process.stdout.write(render(o, runs) + '\n');
  clearTimeout(guard);
}

main().catch((err) => {
  process.stderr.write(`loadgen: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
