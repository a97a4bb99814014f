/**
 * Start-up time and idle memory of the broker process.
 *
 *   npm run build && npx tsx bench/startup.ts [--runs 5]
 *
 * Per run: spawn `node dist/samsa.js` (the bundled CLI) on a free 127.0.0.1 port with a fresh data directory, then
 * from a raw socket retry (every 5 ms) connect → ApiVersions → CreateTopics → Produce (acks=1, one
 * small batch) until the Produce is answered without error. Reported:
 * - listening: spawn → first ApiVersions answered
 * - first produce: spawn → first accepted Produce (topic creation included)
 * - idle RSS: VmRSS 1 s after that produce, with nothing else going on (and VmHWM, the peak)
 * A floor for comparison: a bare `node` that only listens on a port (same spawn/connect loop).
 * Medians of --runs (default 5). Everything on 127.0.0.1, each process stopped by its PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildRecordBatch } from '../src/protocol/records/record.js';
import { KafkaConn, apiVersions, createTopics } from './lib/kafka-conn.js';
import { BROKER_MAIN, REPO_ROOT, assertBuilt, freePort, median, procRssMiB, sleep } from './lib/proc.js';
import { ZERO_UUID } from '../src/protocol/reader.js';

const ATTEMPT_LIMIT_MS = 20000;

function hwmMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(10000)]);
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGKILL');
    await Promise.race([exited, sleep(3000)]);
  }
}

/** Retries `attempt` every 5 ms until it resolves or the time is up. */
async function retry<T>(deadline: number, attempt: () => Promise<T>): Promise<T> {
  let lastErr: unknown = null;
  while (performance.now() < deadline) {
    try {
      return await attempt();
    } catch (err) {
      lastErr = err;
      await sleep(5);
    }
  }
  throw new Error(`gave up: ${lastErr instanceof Error ? lastErr.message : String(lastErr)}`);
}

const withTimeout = <T>(p: Promise<T>, ms: number): Promise<T> =>
  Promise.race([p, sleep(ms).then(() => { throw new Error(`timed out after ${ms} ms`); })]);

interface RunResult {
  listeningMs: number;
  firstProduceMs: number;
  idleRssMiB: number;
  hwmMiB: number;
}

async function samsaRun(batch: Buffer): Promise<RunResult> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'samsa-startup-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [BROKER_MAIN, '--override', `log.dirs=${dir}`, '--override', `listeners=PLAINTEXT://127.0.0.1:${port}`],
    { stdio: ['ignore', 'ignore', 'pipe'], cwd: REPO_ROOT });
  let err = '';
  child.stderr!.on('data', (b: Buffer) => { err = (err + b.toString()).slice(-2000); });
  const deadline = t0 + ATTEMPT_LIMIT_MS;
  try {
    let listeningMs = NaN;
    const conn = await retry(deadline, async () => {
      if (child.exitCode !== null) throw new Error(`broker exited: ${err}`);
      const c = await KafkaConn.connect('127.0.0.1', port, 1000);
      try {
        const code = await withTimeout(apiVersions(c), 2000);
        if (code !== 0) throw new Error(`ApiVersions error ${code}`);
      } catch (e) {
        c.close();
        throw e;
      }
      listeningMs = performance.now() - t0;
      return c;
    });
    await retry(deadline, async () => {
      await withTimeout(createTopics(conn, [{ name: 'startup', partitions: 1 }]), 5000);
      const res = await withTimeout(conn.request(0, 9, {
        transactionalId: null, acks: 1, timeoutMs: 5000,
        topicData: [{ name: 'startup', topicId: ZERO_UUID, partitionData: [{ index: 0, records: batch }] }],
      }), 5000);
      const code = res.responses[0]?.partitionResponses[0]?.errorCode;
      if (code !== 0) throw new Error(`produce error ${code}`);
    });
    const firstProduceMs = performance.now() - t0;
    conn.close();
    await sleep(1000);
    return { listeningMs, firstProduceMs, idleRssMiB: procRssMiB(child.pid!), hwmMiB: hwmMiB(child.pid!) };
  } finally {
    await stopChild(child);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Floor: a bare node process that only listens; time until a connection is accepted, and its RSS. */
async function nodeFloorRun(): Promise<RunResult> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, ['-e', `require('net').createServer((s)=>s.end()).listen(${port}, '127.0.0.1')`], { stdio: 'ignore' });
  try {
    const deadline = t0 + ATTEMPT_LIMIT_MS;
    const c = await retry(deadline, () => KafkaConn.connect('127.0.0.1', port, 1000));
    const ms = performance.now() - t0;
    c.close();
    await sleep(1000);
    return { listeningMs: ms, firstProduceMs: NaN, idleRssMiB: procRssMiB(child.pid!), hwmMiB: hwmMiB(child.pid!) };
  } finally {
    await stopChild(child);
  }
}

function fmt(n: number, d = 0): string {
  return Number.isFinite(n) ? n.toFixed(d) : '-';
}

async function main(): Promise<void> {
  let runs = 5;
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--runs') runs = Math.max(1, Number(argv[++i]));
    else throw new Error(`unknown option ${argv[i]}`);
  }
  assertBuilt();
  const guard = setTimeout(() => {
    process.stderr.write('startup: time limit reached\n');
    process.exit(3);
  }, (runs * 2 + 2) * (ATTEMPT_LIMIT_MS + 15000));
  guard.unref();
  const batch = buildRecordBatch({ records: [{ key: null, value: Buffer.from('hello') }] });
  const samsa: RunResult[] = [];
  const floor: RunResult[] = [];
  for (let i = 0; i < runs; i++) {
    const r = await samsaRun(batch);
    samsa.push(r);
    process.stderr.write(`  run ${i + 1}: listening ${fmt(r.listeningMs)} ms, first produce ${fmt(r.firstProduceMs)} ms, idle RSS ${fmt(r.idleRssMiB, 1)} MiB\n`);
    floor.push(await nodeFloorRun());
  }
  const row = (name: string, rs: RunResult[]) => {
    const col = (f: (r: RunResult) => number, d = 0) => {
      const v = rs.map(f).filter(Number.isFinite);
      return v.length ? `${fmt(median(v), d)} (${fmt(Math.min(...v), d)}–${fmt(Math.max(...v), d)})` : '-';
    };
    return `| ${name} | ${col((r) => r.listeningMs)} | ${col((r) => r.firstProduceMs)} | ${col((r) => r.idleRssMiB, 1)} | ${col((r) => r.hwmMiB, 1)} |`;
  };
  process.stdout.write([
    `startup: medians of ${runs} runs (min–max), node ${process.version}`,
    '| process | spawn → listening ms | spawn → first accepted produce ms | idle RSS MiB | peak RSS (VmHWM) MiB |',
    '|---|---|---|---|---|',
    row('samsa (dist/samsa.js, fresh data dir)', samsa),
    row('bare node listening (floor)', floor),
  ].join('\n') + '\n');
  clearTimeout(guard);
}

main().catch((err) => {
  process.stderr.write(`startup: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
