/**
 * What an idle connection holds in the broker's JavaScript heap: heap snapshots of a Samsa process
 * (`node --heapsnapshot-signal`, which collects garbage first) before and after CONNECTIONS
 * connections that each completed ApiVersions, and the difference per connection by node
 * (constructor name for objects and closures, kind for the rest), with the RSS growth beside it.
 *
 *   npm run build && npx tsx bench/idle-connections.ts [--connections 1000] [--top 25]
 *
 * The snapshots cost the process memory of their own, so the RSS figures here are only a rough
 * cross-check; bench/scale.ts measures RSS per connection without them. Figures only.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaConn, apiVersions } from './lib/kafka-conn.js';
import { procRssMiB, sleep, startSamsa } from './lib/proc.js';

const args = process.argv.slice(2);
const opt = (name: string, def: number) => (args.includes(`--${name}`) ? Number(args[args.indexOf(`--${name}`) + 1]) : def);
const CONNECTIONS = opt('connections', 1000);
const TOP = opt('top', 25);

interface Row { count: number; bytes: number }

/** Self size and count per node name (objects and closures by constructor, others by kind). */
function byName(file: string): Map<string, Row> {
  const snap = JSON.parse(readFileSync(file, 'utf8'));
  const fields = snap.snapshot.meta.node_fields as string[];
  const kinds = snap.snapshot.meta.node_types[0] as string[];
  const width = fields.length;
  const [ti, ni, si] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const nodes = snap.nodes as number[];
  const out = new Map<string, Row>();
  for (let i = 0; i < nodes.length; i += width) {
    const kind = kinds[nodes[i + ti]];
    const named = kind === 'object' || kind === 'closure' || kind === 'native' || kind === 'synthetic';
    const key = named ? `${kind} ${String(snap.strings[nodes[i + ni]]).slice(0, 48)}` : `(${kind})`;
    const row = out.get(key) ?? { count: 0, bytes: 0 };
    row.count++;
    row.bytes += nodes[i + si];
    out.set(key, row);
  }
  return out;
}

/** Signals the process to write a heap snapshot into `dir` and waits until the file is complete. */
async function snapshot(pid: number, dir: string): Promise<string> {
  const known = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; waited < 120_000; waited += 500) {
    await sleep(500);
    const name = readdirSync(dir).find((f) => !known.has(f) && f.endsWith('.heapsnapshot'));
    if (!name) continue;
    const file = join(dir, name);
    for (let last = -1; ;) {
      await sleep(700);
      const size = statSync(file).size;
      if (size > 0 && size === last) return file;
      last = size;
    }
  }
  throw new Error('no heap snapshot written');
}

const dir = mkdtempSync(join(tmpdir(), 'samsa-idle-conns-'));
const broker = await startSamsa({ nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`] });
const conns: KafkaConn[] = [];
try {
  await sleep(1000);
  const first = byName(await snapshot(broker.pid, dir));
  const rss0 = procRssMiB(broker.pid);
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = await KafkaConn.connect('127.0.0.1', broker.port, 5000);
    await apiVersions(c);
    conns.push(c);
  }
  await sleep(2000);
  const rss1 = procRssMiB(broker.pid);
  const second = byName(await snapshot(broker.pid, dir));
  const rows: [string, Row][] = [];
  let total = 0;
  for (const [name, row] of second) {
    const was = first.get(name) ?? { count: 0, bytes: 0 };
    const bytes = row.bytes - was.bytes;
    total += bytes;
    rows.push([name, { count: row.count - was.count, bytes }]);
  }
  rows.sort((a, b) => b[1].bytes - a[1].bytes);
  console.log(`${CONNECTIONS} idle connections: heap ${(total / CONNECTIONS).toFixed(0)} B per connection (live, after GC); RSS +${(((rss1 - rss0) * 1024) / CONNECTIONS).toFixed(1)} KiB per connection (2 s after, snapshot noise included)`);
  console.log('B/conn\tper conn\tnode');
  for (const [name, row] of rows.slice(0, TOP)) {
    console.log(`${(row.bytes / CONNECTIONS).toFixed(0)}\t${(row.count / CONNECTIONS).toFixed(2)}\t${name}`);
  }
} finally {
  for (const c of conns) c.close();
  await broker.stop();
  rmSync(dir, { recursive: true, force: true });
}
