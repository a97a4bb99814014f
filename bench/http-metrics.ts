/**
 * Produce throughput with the HTTP listener and a 1 s Prometheus scrape loop, against the same
 * broker without the listener, in one run.
 *
 *   npx tsx bench/http-metrics.ts [--duration S] [--reps N] [--connections N] [--inflight N]
 *                                 [--batch N] [--record-size B] [--partitions N] [--scrape-ms MS] [--aa]
 *
 * Each rep starts two fresh broker processes in turn (`node --import tsx src/main.ts`, a fresh
 * data dir each), 'off' (samsa.http.listeners empty) and 'on' (HTTP on a free port, with this
 * scraper process fetching /metrics every second while it produces), in alternating order so that drift
 * in the machine's load hits both alike. The load: pre-built Produce requests (acks=1, one batch
 * of --batch records of --record-size random bytes each), --inflight pipelined per connection.
 * Prints per run msgs/s, MiB/s, broker CPU per GiB and the scrapes' count and duration; then
 * the medians and the on/off throughput ratio. No assertions: it prints what it measured.
 * Other sessions share this machine's two cores: compare the ratio, and repeat with --reps.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { KafkaConn, encodeRequest, decodeResponse } from './lib/kafka-conn.js';
import { freePort, median, procCpuSeconds, REPO_ROOT, sleep } from './lib/proc.js';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

const PRODUCE_VERSION = 9;

function option(name: string, def: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : def;
}

/** --aa: both brokers get the listener (an A/A run: the spread it shows is the machine's noise). */
const AA = process.argv.includes('--aa');

const o = {
  duration: option('duration', 8), reps: option('reps', 2), connections: option('connections', 4), inflight: option('inflight', 8),
  batch: option('batch', 64), recordSize: option('record-size', 512), partitions: option('partitions', 8),
  /** Milliseconds between scrapes; 0: the listener runs but nothing scrapes it. */
  scrapeMs: option('scrape-ms', 1000),
};

/** Fetches argv[1] every argv[2] ms, one JSON line per scrape ({ms, bytes}). */
const SCRAPER = `
const [url, every] = process.argv.slice(1);
process.on('SIGTERM', () => process.exit(0));
(async () => {
  for (;;) {
    const t = performance.now();
    const text = await (await fetch(url)).text();
    process.stdout.write(JSON.stringify({ ms: performance.now() - t, bytes: text.length }) + '\\n');
    await new Promise((r) => setTimeout(r, Number(every)));
  }
})();
`;

interface Broker {
  child: ChildProcess;
  port: number;
  httpUrl: string | null;
  dir: string;
}

async function startBroker(http: boolean): Promise<Broker> {
  const port = await freePort();
  const httpPort = http ? await freePort() : 0;
  const dir = mkdtempSync(join(tmpdir(), 'samsa-bench-http-'));
  const settings: Record<string, string> = {
    listeners: `PLAINTEXT://127.0.0.1:${port}`, 'log.dirs': dir, 'num.partitions': String(o.partitions),
    'samsa.http.listeners': http || AA ? `http://127.0.0.1:${httpPort || await freePort()}` : '',
  };
  const argv = Object.entries(settings).flatMap(([k, v]) => ['--override', `${k}=${v}`]);
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'src', 'main.ts'), ...argv], {
    cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, SAMSA_LOG_LEVEL: 'warn' },
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`broker exited ${child.exitCode}: ${stderr}`);
    try {
      const c = await KafkaConn.connect('127.0.0.1', port, 1000);
      c.close();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`broker did not start: ${stderr}`);
      await sleep(100);
    }
  }
  return { child, port, httpUrl: http ? `http://127.0.0.1:${httpPort}` : null, dir };
}

async function stopBroker(b: Broker): Promise<void> {
  const exited = new Promise<void>((r) => b.child.once('exit', () => r()));
  b.child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000)]);
  if (b.child.exitCode === null) b.child.kill('SIGKILL');
  rmSync(b.dir, { recursive: true, force: true });
}

interface RunResult {
  mode: 'off' | 'on';
  msgsPerSec: number;
  mibPerSec: number;
  cpuSecPerGiB: number;
  scrapes: number;
  scrapeMsMedian: number;
  scrapeBytes: number;
}

async function run(mode: 'off' | 'on'): Promise<RunResult> {
  const b = await startBroker(mode === 'on');
  try {
    const topic = `bench-${mode}`;
    const admin = await KafkaConn.connect('127.0.0.1', b.port);
    await admin.request(19, 7, { topics: [{ name: topic, numPartitions: o.partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 30_000, validateOnly: false });
    admin.close();
    const batch = buildRecordBatch({ records: Array.from({ length: o.batch }, () => ({ key: null, value: randomBytes(o.recordSize) })) });
    const conns = await Promise.all(Array.from({ length: o.connections }, () => KafkaConn.connect('127.0.0.1', b.port)));
    const scrapeMs: number[] = [];
    let scrapeBytes = 0;
    // The scraper is a process of its own, as Prometheus would be: it must not slow the load generator.
    const scraper = b.httpUrl && o.scrapeMs > 0 ? spawn(process.execPath, ['-e', SCRAPER, `${b.httpUrl}/metrics`, String(o.scrapeMs)], { stdio: ['ignore', 'pipe', 'inherit'] }) : null;
    let scraperOut = '';
    scraper?.stdout!.on('data', (d: Buffer) => { scraperOut += d.toString(); });
    let messages = 0;
    let partition = 0;
    const cpu0 = procCpuSeconds(b.child.pid!);
    const t0 = performance.now();
    const endAt = t0 + o.duration * 1000;
    const slot = async (conn: KafkaConn) => {
      while (performance.now() < endAt) {
        const p = partition++ % o.partitions;
        const frame = encodeRequest(0, PRODUCE_VERSION, 0, { transactionalId: null, acks: 1, timeoutMs: 30_000, topicData: [{ name: topic, topicId: ZERO_UUID, partitionData: [{ index: p, records: batch }] }] });
        const res = decodeResponse(0, PRODUCE_VERSION, await conn.sendFrame(frame));
        if (res.responses[0].partitionResponses[0].errorCode === 0) messages += o.batch;
      }
    };
    await Promise.all(conns.flatMap((c) => Array.from({ length: o.inflight }, () => slot(c))));
    const secs = (performance.now() - t0) / 1000;
    const cpu = procCpuSeconds(b.child.pid!) - cpu0;
    if (scraper) {
      const exited = new Promise<void>((r) => scraper.once('exit', () => r()));
      scraper.kill('SIGTERM');
      await exited;
      for (const line of scraperOut.split('\n')) {
        if (!line.trim()) continue;
        const x = JSON.parse(line) as { ms: number; bytes: number };
        scrapeMs.push(x.ms);
        scrapeBytes = x.bytes;
      }
    }
    for (const c of conns) c.close();
    const gib = (messages * o.recordSize) / 2 ** 30;
    return {
      mode, msgsPerSec: messages / secs, mibPerSec: (messages * o.recordSize) / 2 ** 20 / secs, cpuSecPerGiB: cpu / gib,
      scrapes: scrapeMs.length, scrapeMsMedian: scrapeMs.length ? median(scrapeMs) : 0, scrapeBytes,
    };
  } finally {
    await stopBroker(b);
  }
}

async function main(): Promise<void> {
  console.log(`http-metrics bench: ${o.reps} reps x (off, on), ${o.duration} s each; ${o.connections} connections x ${o.inflight} in flight, `
    + `batches of ${o.batch} x ${o.recordSize} B, ${o.partitions} partitions, acks=1`);
  const results: RunResult[] = [];
  for (let r = 0; r < o.reps; r++) {
    for (const mode of (r % 2 === 0 ? ['off', 'on'] : ['on', 'off']) as ('off' | 'on')[]) {
      const res = await run(mode);
      results.push(res);
      console.log(`  rep ${r + 1} ${mode.padEnd(3)}  ${res.msgsPerSec.toFixed(0).padStart(8)} msgs/s  ${res.mibPerSec.toFixed(1).padStart(6)} MiB/s  `
        + `broker CPU ${res.cpuSecPerGiB.toFixed(2)} s/GiB${mode === 'on' ? `  scrapes ${res.scrapes} (median ${res.scrapeMsMedian.toFixed(1)} ms, ${res.scrapeBytes} bytes)` : ''}`);
    }
  }
  const med = (mode: 'off' | 'on', k: 'msgsPerSec' | 'cpuSecPerGiB') => median(results.filter((x) => x.mode === mode).map((x) => x[k]));
  const off = med('off', 'msgsPerSec');
  const on = med('on', 'msgsPerSec');
  console.log(`median: off ${off.toFixed(0)} msgs/s, on ${on.toFixed(0)} msgs/s; ratio on/off ${(on / off).toFixed(3)}; `
    + `broker CPU per GiB off ${med('off', 'cpuSecPerGiB').toFixed(2)} s, on ${med('on', 'cpuSecPerGiB').toFixed(2)} s`);
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
